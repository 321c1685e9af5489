#!/bin/sh
# perfkit diff against perf diff (6.1), byte for byte, per option set: on
# pairs recorded here (cpu-clock -g on the demo at two scales; a small C
# program rebuilt with a function added, so that its symbols move and pair
# by name only; two events; system-wide), three files, the default file
# names; and the one-line refusals.
# pk-test: slow shards=2
. tests/lib/sh.sh
T=$T_TMP
case $PERFKIT in /*) ;; *) PERFKIT=$PWD/$PERFKIT ;; esac
DEMO=$PK_BUILD/workloads/demo

need_cmd diff_vs_perf perf "perf is not installed"
need_cmd diff_vs_perf cc "no C compiler for the rebuilt program"
need_built diff_vs_perf "$PERFKIT" "$DEMO"
# perf reads and writes the build-id cache under $HOME (the rebuilt
# program's first build is found there): ours
export HOME=$T

# a kernel module among the entries (perfkit does not name them yet)
has_module() {
	grep '  \[[A-Za-z0-9_-]*\] ' "$1" |
		grep -vq '\[kernel\.kallsyms\]\|\[unknown\]\|\[vdso\]\|\[vsyscall\]'
}

N=0
# same NAME [OPTS...] FILES...: both print the same, both succeed (this
# shard's cases only)
same() {
	_n=$1; shift
	N=$((N + 1))
	t_part $N || return 0
	perf diff "$@" >"$T/p.out" 2>"$T/p.err"
	"$PERFKIT" diff "$@" >"$T/k.out" 2>"$T/k.err"; rc=$?
	if [ ! -s "$T/p.out" ]; then
		skip "$_n" "perf printed nothing ($(head -1 "$T/p.err"))"
	elif [ "${MODCHECK:-}" ] && has_module "$T/p.out"; then
		skip "$_n" "kernel modules among the entries"
	elif [ $rc -eq 0 ] && cmp -s "$T/p.out" "$T/k.out"; then
		ok "$_n"
	else
		fail "$_n" "rc $rc, differs from perf: $(first_diff "$T/p.out" "$T/k.out")"
	fi
}

# refused NAME [OPTS...] FILES...: one line on stderr, nothing on stdout,
# exit status not 0
refused() {
	_n=$1; shift
	N=$((N + 1))
	t_part $N || return 0
	"$PERFKIT" diff "$@" >"$T/k.out" 2>"$T/k.err"; rc=$?
	check "$_n" "rc $rc, stderr: $(cat "$T/k.err")" \
		"$rc" -ne 0 -a "$(wc -l <"$T/k.err")" -eq 1 -a ! -s "$T/k.out"
}

rec() { out=$1; shift; perf record -q --no-bpf-event -o "$T/$out" "$@" >/dev/null 2>&1; }

rec fp1.data -e cpu-clock -F 2000 -g "$DEMO" 1
rec fp2.data -e cpu-clock -F 2000 -g "$DEMO" 2
rec two1.data -e cpu-clock -e task-clock -F 1000 "$DEMO" 1
rec two2.data -e cpu-clock -e task-clock -F 1000 "$DEMO" 2

# the rebuilt program: one path, two builds; extra() comes first, so the
# others' addresses move
cat >"$T/prog.c" <<'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
#ifdef EXTRA
__attribute__((noinline)) void extra(int n) { for (int i = 0; i < n; i++) sink += i * 3; }
#endif
__attribute__((noinline)) void alpha(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void beta(int n) { for (int i = 0; i < n; i++) sink ^= i * 7; }
__attribute__((noinline)) void gamma_(int n) { for (int i = 0; i < n; i++) sink += sink >> 3; }
int main(int argc, char **argv)
{
	int s = argc > 1 ? atoi(argv[1]) : 1;

	for (int k = 0; k < 20 * s; k++) {
		alpha(1000000);
		beta(1500000);
		gamma_(500000);
#ifdef EXTRA
		extra(700000);
#endif
	}
	return 0;
}
EOF
cc -O1 -o "$T/prog" "$T/prog.c" && rec old.data -e cpu-clock -F 2000 -g "$T/prog" 4
a1=$(nm "$T/prog" 2>/dev/null | sed -n 's/ T alpha$//p')
cc -O1 -DEXTRA -o "$T/prog" "$T/prog.c" && rec new.data -e cpu-clock -F 2000 -g "$T/prog" 4
a2=$(nm "$T/prog" 2>/dev/null | sed -n 's/ T alpha$//p')
t_part 0 &&
	check diff_rebuilt_moves_symbols "alpha at $a1 then $a2" -n "$a1" -a "$a1" != "$a2"

for o in "" "-c delta" "-c delta-abs" "-c ratio" "-c wdiff:2,3" \
	 "-c wdiff:1,1 -F" "-p" "-F" "-c ratio -F -p" "-b" "-b -F" \
	 "-b -p -c ratio" "-o 0" "-o 0 -c ratio" "-o 0 -c wdiff:1,2" \
	 "-s sym" "-s dso" "-s comm" "-s pid" "-s comm,dso" "-s dso,sym,comm" \
	 "-d libc.so.6" "-d libc.so.6,demo" "-S cmp,main" "-C demo" \
	 "-d libc.so.6 --percentage relative -F" \
	 "-d libc.so.6 --percentage relative -F -b" "-q"; do
	# shellcheck disable=SC2086
	same "diff_fp${o:+ $o}" $o "$T/fp1.data" "$T/fp2.data"
done
# a process of the baseline only (the other's entries all filtered: its
# relative percentages are infinite, as perf prints them)
P1=$(perf script -i "$T/fp1.data" -F pid 2>/dev/null | head -1 | tr -d ' ')
same "diff_fp --pid" --pid "$P1" "$T/fp1.data" "$T/fp2.data"
same "diff_fp --tid --percentage relative -F" --tid "$P1" \
	--percentage relative -F "$T/fp1.data" "$T/fp2.data"
# the other way: new entries and dummies change places
for o in "" "-c delta" "-c ratio -F -p" "-c wdiff:2,3" "-b" "-o 0 -c ratio" \
	 "-s comm,dso" "-d libc.so.6 --percentage relative -F"; do
	# shellcheck disable=SC2086
	same "diff_fp_reversed${o:+ $o}" $o "$T/fp2.data" "$T/fp1.data"
done
for o in "" "-c delta" "-c ratio" "-c wdiff:1,2" "-F" "-p" "-b" \
	 "-c ratio -F" "-c wdiff:3,1 -F -p" "-o 0" "-s sym" "-S alpha,extra"; do
	# shellcheck disable=SC2086
	same "diff_rebuilt${o:+ $o}" $o "$T/old.data" "$T/new.data"
	# shellcheck disable=SC2086
	case $o in ""|"-c ratio -F"|"-c wdiff:3,1 -F -p"|"-s sym")
		# shellcheck disable=SC2086
		same "diff_rebuilt_reversed${o:+ $o}" $o "$T/new.data" "$T/old.data"
	esac
done
# the rebuilt program's functions pair by name: a baseline and a delta
if t_part 0; then
	"$PERFKIT" diff "$T/old.data" "$T/new.data" >"$T/k.out" 2>&1
	check diff_rebuilt_pairs_by_name "$(grep alpha "$T/k.out")" \
		-n "$(grep '^ *[0-9.]*% *[-+][0-9.]*%  prog  *\[\.\] alpha$' "$T/k.out")"
fi
for o in "" "-c ratio -p" "-o 2 -c ratio -p" "-c wdiff:1,3 -F -p" \
	 "-c delta -F -o 0" "-b"; do
	# shellcheck disable=SC2086
	same "diff_three${o:+ $o}" $o "$T/fp1.data" "$T/fp2.data" "$T/new.data"
done
same "diff_three_same_file" "$T/fp1.data" "$T/fp2.data" "$T/fp2.data"
for o in "" "-c ratio" "-F"; do
	# shellcheck disable=SC2086
	same "diff_two_events${o:+ $o}" $o "$T/two1.data" "$T/two2.data"
done
rec tp1.data -e sched:sched_switch -e syscalls:sys_enter_getppid "$DEMO" 1
rec tp2.data -e sched:sched_switch -e syscalls:sys_enter_getppid "$DEMO" 2
same "diff_tracepoints" "$T/tp1.data" "$T/tp2.data"
same "diff_tracepoints -c ratio -p -s comm" -c ratio -p -s comm \
	"$T/tp2.data" "$T/tp1.data"
same "diff_event_missing_from_new" "$T/two1.data" "$T/fp1.data"
same "diff_event_missing_from_base" "$T/fp1.data" "$T/two2.data"
# the default names: perf.data.old against perf.data; one file: against it
mkdir "$T/cwd" && cp "$T/fp1.data" "$T/cwd/perf.data.old" &&
	cp "$T/fp2.data" "$T/cwd/perf.data"
top=$PWD
cd "$T/cwd" || exit 1
same diff_default_files
same diff_one_file "$T/new.data"
cd "$top" || exit 1

# system-wide: the demo under a name of its own, other processes around
cp "$DEMO" "$T/pkdemo_sw"
rec sys1.data -F 1000 -g -a -- "$T/pkdemo_sw" 1
rec sys2.data -F 1000 -g -a -- "$T/pkdemo_sw" 2
for o in "" "-s comm" "-s pid" "-C pkdemo_sw" "-c ratio -b" \
	 "-C pkdemo_sw --percentage relative -F"; do
	# shellcheck disable=SC2086
	MODCHECK=1 same "diff_system_wide${o:+ $o}" $o "$T/sys1.data" "$T/sys2.data"
done
# --cpu: each file's samples of those CPUs only
for o in "--cpu 0" "--cpu 0-1 -s comm" "--cpu 1 -c ratio"; do
	# shellcheck disable=SC2086
	MODCHECK=1 same "diff_system_wide $o" $o "$T/sys1.data" "$T/sys2.data"
done
# --time: percentages of each file's span; seconds for all files or,
# separated by ':', for each (the middle of each file's samples)
for o in "--time 0%-50%" "--time 10%/2,10%/5" "--time 25%/3 -c ratio"; do
	# shellcheck disable=SC2086
	same "diff_fp $o" $o "$T/fp1.data" "$T/fp2.data"
done
mid() {
	perf script -i "$1" -F time 2>/dev/null | tr -d ' :' |
		awk '{ t[NR] = $1 } END { print t[int(NR / 4) + 1] "," t[int(NR * 3 / 4)] }'
}
M1=$(mid "$T/fp1.data")
M2=$(mid "$T/fp2.data")
same "diff_fp --time S,E:S,E" --time "$M1:$M2" "$T/fp1.data" "$T/fp2.data"
same "diff_fp --time S,E" --time "$M1" "$T/fp1.data" "$T/fp2.data"
same "diff_fp --time ,E:S," --time ",${M1#*,}:${M2%,*}," "$T/fp1.data" \
	"$T/fp2.data"
refused diff_refuses_time_part --time "$M1:" "$T/fp1.data" "$T/fp2.data"
SP=$(perf script -i "$T/sys2.data" -F comm,pid 2>/dev/null |
	awk '$1 == "pkdemo_sw" { print $2; exit }')
MODCHECK=1 same "diff_system_wide --pid" --pid "$SP" -s pid,dso \
	"$T/sys1.data" "$T/sys2.data"

# one name at several addresses (libc's PLT entries of no symbol, all
# "@plt"), samples of two processes: the collapsed entry keeps the -C
# filter of the first of perf's tree (tests/lib/diffprobe.py)
LIBC=$(ldd "$PERFKIT" | awk '/libc.so/ { print $3 }')
P=0
for p in "o:f m:f|m:p2 o:p0 m:f" "o:p3 m:p1 o:f|o:p2 m:p0 m:f m:f" \
	 "m:p3 o:p1 o:f|m:p1 o:p2 m:p3 o:f" "o:f m:f m:p0|m:p1 o:p0 m:f"; do
	P=$((P + 1))
	# shellcheck disable=SC2086
	t_python tests/lib/diffprobe.py "$T/pb$P.data" "$LIBC" ${p%|*} \
		2>"$T/pe" &&
		t_python tests/lib/diffprobe.py "$T/pn$P.data" "$LIBC" \
			 ${p#*|} 2>"$T/pe"
	pr=$?
	for o in "-C mine" "-C other -c ratio" \
		 "-C mine --percentage relative -F"; do
		if [ $pr -ne 0 ]; then
			N=$((N + 1))
			t_part $N && fail "diff_plt_names$P $o" \
				"diffprobe: $(cat "$T/pe")"
			continue
		fi
		# shellcheck disable=SC2086
		same "diff_plt_names$P $o" $o "$T/pb$P.data" "$T/pn$P.data"
	done
done

# corpus files (old kernels, unresolved addresses); kernel modules refused
if need_shared corpus/perf-data diff_corpus; then
	C=$PK_SHARED/corpus/perf-data
	for p in singleprocess-3.8:systemwide.0-3.8 hw_and_sw-3.4:systemwide.0-3.8 \
		 weight_struct:callgraph-3.8 systemwide.0-3.8:systemwide.0-3.8; do
		for o in "" "-c ratio -F" "-s comm"; do
			# shellcheck disable=SC2086
			same "diff_corpus_${p%:*}_${p#*:}${o:+ $o}" $o \
				"$C/perf.data.${p%:*}" "$C/perf.data.${p#*:}"
		done
	done
	# kernel modules among the entries ([name], module-relative)
	same diff_corpus_modules "$C/perf.data.callgraph-3.8" \
		"$C/perf.data.systemwide.0-3.8"
fi

refused diff_refuses_missing_file "$T/fp1.data" "$T/none.data"
refused diff_refuses_order_range -o 2 "$T/fp1.data" "$T/fp2.data"
refused diff_refuses_compute -c cycles "$T/fp1.data" "$T/fp2.data"
refused diff_refuses_weights -c wdiff:0,1 "$T/fp1.data" "$T/fp2.data"
refused diff_refuses_cpu_without_cpus --cpu 0 "$T/fp1.data" "$T/fp2.data"
refused diff_refuses_cpu_range --cpu 4095 "$T/sys1.data" "$T/sys2.data"
refused diff_refuses_time --time abc "$T/fp1.data" "$T/fp2.data"
refused diff_refuses_percent_limit --percent-limit 1 "$T/fp1.data" "$T/fp2.data"
refused diff_refuses_field_separator -t , "$T/fp1.data" "$T/fp2.data"
refused diff_refuses_sort_key -s srcline "$T/fp1.data" "$T/fp2.data"
t_exit
