# perfkit script against perf script (6.1) on --call-graph dwarf
# recordings: the user frames unwound from the sampled registers and stack
# copies, inline frames and all, line by line. Workloads with deep stacks:
# recurse (mutual recursion, qsort callbacks into libc), demo, coreutils'
# sort (stripped, threads), busybox sort, time in the vdso and in a signal
# handler; files from perf record and
# from perfkit record; -F field lists and -G.
#
# One difference is allowed, where perf's answer depends on the shape of
# its symbol tree: an address in a PLT that an unsized symbol before it
# (_init) was stretched over; perf may name either, perfkit names the PLT
# entry. Such lines must stay under 0.1% of the output (or 8 lines).
. tests/lib/sh.sh
T=$T_TMP
W=$PK_BUILD/workloads
JNOTE=

if ! command -v perf >/dev/null 2>&1; then
	skip unwind_vs_perf "perf is not installed"
	exit 0
fi
if [ ! -x "$PERFKIT" ] || [ ! -x "$W/recurse" ] || [ ! -x "$W/demo" ] ||
   [ ! -x "$W/unwind_edges" ]; then
	fail unwind_vs_perf "build $PERFKIT and the workloads first"
	exit 1
fi
PIN=
command -v taskset >/dev/null 2>&1 && PIN="taskset -c 0"

# judge NAME RP RK: perf's output $T/p.out (status RP) against perfkit's
# $T/k.out (status RK); 1 when it failed.
judge() {
	name=$1; rp=$2; rk=$3
	n=$(wc -l <"$T/p.out")
	diff "$T/p.out" "$T/k.out" >"$T/d.out"
	nd=$(grep -c '^[<>]' "$T/d.out")
	# allowed: perf's "_init" against perfkit's "NAME@plt" in pairs
	bad=$(grep '^<' "$T/d.out" | grep -vc ' _init')
	badk=$(grep '^>' "$T/d.out" | grep -vc '@plt')
	if [ $rp -ne 0 ] || [ $rk -ne 0 ] || [ "$n" -lt 10 ]; then
		fail "$name" "status perf $rp perfkit $rk, $n lines; $(head -c 200 "$T/k.err")$JNOTE"
	elif [ "$bad" -ne 0 ] || [ "$badk" -ne 0 ] ||
	     { [ "$nd" -gt 8 ] && [ $((nd * 1000)) -gt "$n" ]; }; then
		fail "$name" "$n lines, $nd differ: $(grep '^[<>]' "$T/d.out" | head -4 | tr '\n' '|' | cut -c1-300)$JNOTE"
	else
		ok "$name"; return 0
	fi
	return 1
}

# compare NAME FILE [ARGS...]
compare() {
	name=$1; f=$2; shift 2
	perf script -i "$f" "$@" >"$T/p.out" 2>"$T/p.err"; rp=$?
	"$PERFKIT" script -i "$f" "$@" >"$T/k.out" 2>"$T/k.err"; rk=$?
	judge "$name" $rp $rk
}

# user frames present at all (the comparison would pass on none)
frames() {
	name=$1; f=$2; want=$3
	got=$("$PERFKIT" script -i "$f" 2>/dev/null | grep -c "$want")
	check "$name" "no '$want' frame in perfkit's output" "$got" -gt 0
}

recp() { # recp FILE CMD...: perf record --call-graph dwarf
	out=$1; shift
	$PIN perf record -q -e cpu-clock --call-graph dwarf -o "$out" -- "$@" \
		>/dev/null 2>&1
	[ -s "$out" ] || fail "unwind_record_$(basename "$out")" "perf record $* failed"
}

seq 1 150000 | awk '{ print ($1 * 7919) % 150001 }' >"$T/nums.txt"
recp "$T/rec.data" "$W/recurse" 1
recp "$T/demo.data" "$W/demo" 1
recp "$T/sort.data" sort -n --parallel=2 -S 64M "$T/nums.txt" -o "$T/sorted"
$PIN "$PERFKIT" record -q -e cpu-clock --call-graph dwarf -o "$T/pk.data" -- \
	"$W/recurse" 1 >/dev/null 2>&1
$PIN "$PERFKIT" record -q -e cpu-clock --call-graph dwarf,4096 \
	-o "$T/pk4k.data" -- "$W/recurse" 1 >/dev/null 2>&1

compare unwind_script_recurse "$T/rec.data"
frames unwind_frames_recurse "$T/rec.data" 'even+0x'
frames unwind_frames_inlined "$T/rec.data" '(inlined)$'
frames unwind_frames_libc "$T/rec.data" '__libc_start_call_main'
compare unwind_script_demo "$T/demo.data"
recp "$T/vdso.data" "$W/unwind_edges" vdso
recp "$T/signal.data" "$W/unwind_edges" signal
compare unwind_script_vdso "$T/vdso.data"
frames unwind_frames_vdso "$T/vdso.data" '(\[vdso\])$'
compare unwind_script_signal "$T/signal.data"
# through the signal frame: samples in the handler that reach main
got=$("$PERFKIT" script -i "$T/signal.data" 2>/dev/null | awk '
	/^$/ { if (h && m) n++; h = m = 0; next }
	/ on_signal\+/ { h = 1 } / main\+/ { m = 1 }
	END { if (h && m) n++; print n + 0 }')
check unwind_frames_signal "no handler sample unwound to main" "$got" -gt 0
compare unwind_script_sort "$T/sort.data"
compare unwind_script_perfkit_rec "$T/pk.data"
compare unwind_script_perfkit_rec_4k "$T/pk4k.data"
frames unwind_frames_perfkit_rec "$T/pk.data" '_start+0x'
# pipe mode: the stream read from standard input
$PIN perf record -q -e cpu-clock --call-graph dwarf -o - -- "$W/recurse" 1 \
	2>/dev/null >"$T/pipe.data"
# (the PLT/_init naming above is allowed here too: perf named a sample at
# qsort@plt's first byte _init+0x40 in 1 of 48 runs, the only difference)
perf script -i - <"$T/pipe.data" >"$T/p.out" 2>"$T/p.err"; rp=$?
"$PERFKIT" script -i - <"$T/pipe.data" >"$T/k.out" 2>"$T/k.err"; rk=$?
keep=/tmp/pk-unwind-pipe.$$
JNOTE=" (stream and outputs kept in $keep)"
if ! judge unwind_script_pipe $rp $rk; then
	mkdir -p "$keep" && cp "$T/pipe.data" "$T/p.out" "$T/k.out" "$keep/"
fi
JNOTE=
compare unwind_script_fields "$T/rec.data" -F comm,tid,time,ip,sym
compare unwind_script_fields_dso "$T/rec.data" -F ip,dso
compare unwind_script_hide "$T/rec.data" -G
compare unwind_script_max_stack_0 "$T/rec.data" --max-stack 0
compare unwind_script_max_stack_1 "$T/rec.data" --max-stack 1
compare unwind_script_max_stack_4 "$T/sort.data" --max-stack 4
# C++: inline frames of templates, names demangled as perf does
if command -v g++ >/dev/null 2>&1; then
	cat >"$T/cx.cc" <<'CXX'
#include <algorithm>
#include <cstdio>
#include <vector>
namespace ns {
struct W {
	long v;
	bool operator<(const W &o) const
	{ return (v * 2654435761u % 1000003) < (o.v * 2654435761u % 1000003); }
};
template <class T> __attribute__((noinline)) void work(std::vector<T> &v)
{
	for (int r = 0; r < 20; r++) {
		std::sort(v.begin(), v.end());
		std::reverse(v.begin(), v.end());
	}
}
}
int main()
{
	std::vector<ns::W> v(200000);
	for (long i = 0; i < 200000; i++)
		v[i].v = i;
	ns::work(v);
	std::printf("%ld\n", v[0].v);
}
CXX
	if g++ -O2 -g -o "$T/cx" "$T/cx.cc" 2>/dev/null; then
		recp "$T/cx.data" "$T/cx"
		compare unwind_script_cxx "$T/cx.data"
		frames unwind_frames_cxx "$T/cx.data" 'std::sort<.*(inlined)$'
	else
		skip unwind_script_cxx "g++ cannot build the C++ workload"
	fi
else
	skip unwind_script_cxx "g++ is not installed"
fi
if command -v busybox >/dev/null 2>&1; then
	recp "$T/bb.data" busybox sort -n "$T/nums.txt"
	compare unwind_script_busybox "$T/bb.data"
else
	skip unwind_script_busybox "busybox is not installed"
fi
t_exit
