# perfkit annotate --stdio against perf annotate --stdio (6.1) on the
# same recordings: cpu-clock samples of the demo workload (plain, -g, and
# with task-clock as a second event) and of a small C program built with
# -g here. Compared: the symbols
# (hottest first when none is named) with the same header lines, the
# same percentage at every instruction address, and the whole text after
# the normalizations docs/annotate.md lists (scripts/annotate_cmp.py).
# Options: SYMBOL, -s, --no-source, --percent-type, -l, -n,
# --show-total-period, -M intel; refusals and bad input.
# pk-test: slow shards=2
. tests/lib/sh.sh
T=$T_TMP
DEMO=$PK_BUILD/workloads/demo
CMP=scripts/annotate_cmp.py

if ! command -v perf >/dev/null 2>&1 || ! command -v objdump >/dev/null 2>&1; then
	skip annotate_vs_perf "perf or objdump is not installed"
	exit 0
fi
if [ ! -x "$PERFKIT" ] || [ ! -x "$DEMO" ]; then
	fail annotate_vs_perf "build $PERFKIT and the workloads first"
	exit 1
fi
if ! perf record -q -e cpu-clock -o "$T/probe.data" true >/dev/null 2>&1; then
	skip annotate_vs_perf "perf record -e cpu-clock does not work here"
	exit 0
fi

# same NAME FILE [--percent-only|--classes C] ARGS...: compare both outputs
# (--classes: annotate_cmp.py -n C; each case in
# one shard of the run: t_part)
_sn=0
same() {
	_sn=$((_sn + 1)); t_part $_sn || return 0
	_n=$1; _f=$2; shift 2
	_c=
	if [ "$1" = --percent-only ]; then _c=$1; shift; fi
	if [ "$1" = --classes ]; then _c="-n $2"; shift 2; fi
	perf annotate --stdio -i "$_f" "$@" >"$T/p.out" 2>"$T/p.err"; rp=$?
	"$PERFKIT" annotate --stdio -i "$_f" "$@" >"$T/k.out" 2>"$T/k.err"; rk=$?
	# (a loaded machine may leave a named symbol without a sample in
	# the recording: then there is nothing to compare)
	if [ $rp -eq 0 ] && [ ! -s "$T/p.out" ]; then
		skip "$_n" "perf annotated nothing ($*): no sample there in this recording"
		return 0
	fi
	# shellcheck disable=SC2086
	if [ $rp -eq 0 ] && [ $rk -eq 0 ] &&
	   t_python "$CMP" $_c "$T/p.out" "$T/k.out" >"$T/cmp.out"; then
		ok "$_n"
	else
		fail "$_n" "status perf $rp perfkit $rk: $(head -3 "$T/cmp.out" | tr '\n' '|' | cut -c1-400)"
	fi
}

# refused NAME WORD ARGS...: non-zero status, no output, a message on
# stderr naming WORD (the library's line about a bad file and the
# command's, at most two)
refused() {
	_sn=$((_sn + 1)); t_part $_sn || return 0
	_n=$1; _w=$2; shift 2
	"$PERFKIT" annotate --stdio "$@" >"$T/k.out" 2>"$T/k.err"; rk=$?
	_l=$(wc -l <"$T/k.err")
	check "$_n" "status $rk, stderr $_l lines ($(head -c 200 "$T/k.err")), stdout $(wc -c <"$T/k.out") bytes" \
		$rk -ne 0 -a "$_l" -ge 1 -a "$_l" -le 2 -a ! -s "$T/k.out" -a \
		"$(grep -c -F -e "$_w" "$T/k.err")" -ge 1
}

cat >"$T/prog.c" <<'PROG'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline unsigned mix(unsigned x)
{
	x ^= x << 13;
	x ^= x >> 17;
	return x ^ (x << 5);
}

__attribute__((noinline)) static double fp_work(int n)
{
	double s = 0;

	for (int i = 1; i < n; i++)
		s += 1.0 / i * (i & 1 ? 1 : -1);
	return s;
}

__attribute__((noinline)) static unsigned int_work(int n)
{
	unsigned h = 1, t[64];

	memset(t, 0, sizeof(t));
	for (int i = 0; i < n; i++) {
		h = mix(h + i);
		switch (h & 3) {
		case 0: t[h & 63] += 1; break;
		case 1: t[(h >> 6) & 63] ^= h; break;
		default: h += t[i & 63];
		}
	}
	return h;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	printf("%f %u\n", fp_work(n), int_work(n));
	return 0;
}
PROG
PROG=
if command -v cc >/dev/null 2>&1 &&
   cc -g -O2 -o "$T/prog" "$T/prog.c" 2>"$T/cc.err"; then
	PROG=$T/prog
else
	skip annotate_prog "no C compiler: $(head -c 100 "$T/cc.err")"
fi

# (--no-bpf-event: perf waits a second for its BPF side-band thread)
NB=--no-bpf-event
perf record -q $NB -e cpu-clock -o "$T/demo.data" "$DEMO" >/dev/null 2>&1
perf record -q $NB -e cpu-clock -g -o "$T/demog.data" "$DEMO" >/dev/null 2>&1
perf record -q $NB -e cpu-clock,task-clock -o "$T/two.data" "$DEMO" >/dev/null 2>&1
[ -n "$PROG" ] &&
	perf record -q $NB -e cpu-clock -o "$T/prog.data" "$PROG" 15000000 >/dev/null 2>&1

for f in demo demog prog; do
	[ -s "$T/$f.data" ] || { [ $f = prog ] && [ -z "$PROG" ]; } ||
		fail "annotate_record_$f" "perf record failed"
	[ -s "$T/$f.data" ] || continue
	same "annotate_all_$f" "$T/$f.data"
	same "annotate_all_nosource_$f" "$T/$f.data" --no-source
done

D=$T/demo.data
same annotate_sym_cmp "$D" cmp
same annotate_sym_s "$D" -s do_hash.constprop.0
same annotate_sym_libc "$D" msort_with_tmp.part.0
# symbol names as objdump gives them (no class S): its pick among aliases
# (getppid where perf has __GI___getppid), binutils' names of PLT
# entries (*ABS*+0xADDEND@plt by the GOT slot)
# (with libc's debug file: objdump reads a stripped file's .dynsym, whose
# versioned names perfkit does not give yet)
LIBC=$(ldd "$DEMO" | awk '/libc.so/ { print $3 }')
BID=$(readelf -n "$LIBC" 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ -n "$BID" ] && [ -e "/usr/lib/debug/.build-id/$(echo "$BID" | cut -c1-2)/$(echo "$BID" | cut -c3-).debug" ]; then
	same annotate_sym_libc_names "$D" --classes F msort_with_tmp.part.0
	# (the demo's getppid loop is short on a fast machine: a recording
	# may hold no sample there)
	if perf report --stdio -i "$D" -s sym 2>/dev/null | grep -q '\] __GI___getppid'; then
		same annotate_sym_alias "$D" --classes F __GI___getppid
	else
		_sn=$((_sn + 1))
		! t_part $_sn ||
			skip annotate_sym_alias "no sample in __GI___getppid in this recording"
	fi
else
	skip annotate_sym_libc_names "libc has no debug file here (libc6-dbg)"
fi
same annotate_sym_nosource "$D" --no-source do_sort.constprop.0
_sn=$((_sn + 1))
if t_part $_sn; then
	perf annotate --stdio -i "$D" no_such_symbol >"$T/p.out" 2>/dev/null
	"$PERFKIT" annotate --stdio -i "$D" no_such_symbol >"$T/k.out" 2>/dev/null; rk=$?
	check annotate_sym_unknown "perfkit: status $rk, $(wc -c <"$T/k.out") bytes; perf $(wc -c <"$T/p.out") bytes" \
		$rk -eq 0 -a ! -s "$T/k.out" -a ! -s "$T/p.out"
fi
same annotate_local_hits "$D" --percent-type local-hits
same annotate_global_period "$D" --percent-type global-period
same annotate_intel "$D" -M intel
same annotate_intel_g "$T/demog.data" -M intel --no-source
same annotate_color_never "$T/demog.data" --stdio-color never cmp
same annotate_print_line "$D" -l
same annotate_print_line_g "$T/demog.data" -l
same annotate_nr_samples "$D" -n
same annotate_total_period "$D" --show-total-period cmp
same annotate_print_line_n "$D" -l -n do_hash.constprop.0
if [ -s "$T/two.data" ]; then
	same annotate_two_events "$T/two.data"
	same annotate_two_events_sym "$T/two.data" cmp
else
	fail annotate_two_events "perf record -e cpu-clock,task-clock failed"
fi
if [ -n "$PROG" ]; then
	same annotate_prog_int "$T/prog.data" int_work
	same annotate_prog_fp "$T/prog.data" fp_work
	same annotate_prog_print_line "$T/prog.data" -l --no-source int_work
fi

# A sample in the PLT's first entry (the lazy binder's stub): perf's _init
# (unsized) ends at the next ELF symbol, so its listing runs over the PLT
# with the entries labelled and their srclines "dso[addr]". Made by moving
# one of demo.data's samples there (every copy of its ip in the file).
ip=$(perf script -i "$D" -F ip,dso 2>/dev/null |
	awk '/workloads\/demo\)$/ { print $1; exit }')
map=$(perf script -i "$D" --show-mmap-events 2>/dev/null | sed -n \
	's/.*\[0x\([0-9a-f]*\)(0x[0-9a-f]*) @ 0x\([0-9a-f]*\) .*r-xp .*workloads\/demo$/\1 \2/p' |
	head -1)
plt=$(readelf -SW "$DEMO" 2>/dev/null | awk '$2 == ".plt" { print $4 }')
if [ -n "$ip" ] && [ -n "$map" ] && [ -n "$plt" ] &&
   t_python - "$D" "$T/plt0.data" "$ip" $map "$plt" <<'PY'
import struct, sys
src, dst, ip, start, pgoff, plt = sys.argv[1:7]
old = struct.pack("<Q", int(ip, 16))
new = struct.pack("<Q", int(start, 16) - int(pgoff, 16) + int(plt, 16))
open(dst, "wb").write(open(src, "rb").read().replace(old, new))
PY
then
	same annotate_plt0 "$T/plt0.data" _init
	same annotate_plt0_print_line "$T/plt0.data" -l _init
	_sn=$((_sn + 1))
	if t_part $_sn; then
		"$PERFKIT" annotate --stdio -i "$T/plt0.data" _init >"$T/k.out" 2>&1
		check annotate_plt0_listed "no PLT entry in _init's listing: $(head -c 300 "$T/k.out")" \
			"$(grep -c '<getppid@plt>:$' "$T/k.out")" -eq 1
	fi
else
	skip annotate_plt0 "no demo sample, mapping or .plt to move it to"
fi

refused annotate_refuse_global_hits global-hits -i "$D" --percent-type global-hits
refused annotate_refuse_bad_type nosuch -i "$D" --percent-type nosuch
refused annotate_refuse_tui --tui -i "$D" --tui
# two local functions of one name (one per file) with a sample each, the
# later one's first: perf shows them by address (its collapsed tree)
printf 'static __attribute__((noinline)) int twin(int x) { return x * 3 + 1; }\nint f%s(int x) { return twin(x); }\n' \
	a >"$T/twa.c"
printf 'static __attribute__((noinline)) int twin(int x) { return x * 5 - 2; }\nint f%s(int x) { return twin(x); }\n' \
	b >"$T/twb.c"
printf 'int fa(int); int fb(int);\nint main(int c, char **v) { (void)v; return fa(c) + fb(c); }\n' \
	>"$T/twm.c"
if [ -n "$PROG" ] && cc -O2 -o "$T/twin" "$T/twm.c" "$T/twa.c" "$T/twb.c" \
	2>/dev/null; then
	_tw=$(nm "$T/twin" | awk '$3 == "twin" { print $1 }' | sort -r)
	if [ "$(echo "$_tw" | wc -l)" -eq 2 ] &&
	   t_python tests/lib/symprobe.py "$T/twin.data" "$T/twin" $_tw; then
		same annotate_twin_names "$T/twin.data"
	else
		fail annotate_twin_names "no two twin symbols or no probe file ($_tw)"
	fi
fi
# -l where DWARF has no line: binutils' file from the symbol table (a
# local after its file symbol: crtstuff.c), "??" for a global (_start);
# the sorted summaries' lines compared (objdump's text of this pipe file
# differs: perf symbolizes GOT slots by their relocations here)
_sn=$((_sn + 1))
if t_part $_sn; then
	_a=$(nm "$DEMO" | awk '$3 == "_start" || $3 == "deregister_tm_clones" { print $1 }')
	if t_python tests/lib/symprobe.py "$T/nol.data" "$DEMO" $_a; then
		perf annotate --stdio -l -i "$T/nol.data" 2>/dev/null |
			grep -E '^ +[0-9.]+ [^: ]*:[0-9]+$' >"$T/p.out"
		"$PERFKIT" annotate --stdio -l -i "$T/nol.data" 2>/dev/null |
			grep -E '^ +[0-9.]+ [^: ]*:[0-9]+$' >"$T/k.out"
		check annotate_print_line_nodwarf "$(first_diff "$T/p.out" "$T/k.out")" \
			"$(wc -l <"$T/p.out")" -eq 2 -a \
			"$(cat "$T/p.out")" = "$(cat "$T/k.out")"
	else
		fail annotate_print_line_nodwarf "no probe file ($_a)"
	fi
fi
refused annotate_refuse_full_paths -P -i "$D" -P
refused annotate_refuse_missing missing.data -i "$T/missing.data"
printf 'not a perf.data file at all' >"$T/junk.data"
refused annotate_refuse_junk junk.data -i "$T/junk.data"
t_exit
