# Recording the Intel PT AUX area without the hardware: the fixture PMU
# (tests/data/intel_pt) with tests/live/pt_fakeopen.c preloaded, which
# opens a software dummy for the intel_pt type and stands in for its AUX
# area, producing there the Intel PT bytes of a real run (ptgen's busybox
# awk, 164 KB of trace, 3.68M instructions) while the workload waits: a
# full-trace area wraps as the reader frees it, a snapshot area is
# overwritten round and round. perf record and perfkit record each record
# it (per CPU and per thread, full and snapshot, a 64 KiB AUX area), and
# perf script and perfkit script each decode every file: full traces give
# the run's exact instruction sequence; snapshots give the same contiguous
# tail of it from both decoders, and both recorders write the same
# AUXTRACE record. Also: AUXTRACE_INFO (perf script -D) and the AUXTRACE
# index feature as perf writes them, and perf's -m/-S size messages.
# pk-test: slow
. tests/lib/sh.sh
. tests/lib/ptfake.sh
N=record_pt_aux
ptfake_need $N
ptfake_need_gen $N
ptfake_start $N
ptfake_gen $N
# rec TOOL OUT OPTS...: TOOL (perf or pk) records the fixture into OUT;
# $PIN (a command prefix) runs the workload
PIN= MID=
rec() { ptfake_rec "$@"; }
# ips FILE: each decoder's --itrace=i1i -F ip of FILE into FILE.perf/.pk
ips() {
	perf --buildid-dir /nonexistent script --itrace=i1i -F ip -i "$1" 2>/dev/null |
		tr -d ' ' > "$1.perf"
	"$PK" script --itrace=i1i -F ip -i "$1" 2>/dev/null | tr -d ' ' > "$1.pk"
}
# aux FILE: its AUXTRACE records as "size offset idx cpu" (decimal)
aux() {
	perf script -D -i "$1" 2>/dev/null | awk '/PERF_RECORD_AUXTRACE size/ {
		for (i = 1; i <= NF; i++) v[$i] = $(i + 1)
		print v["size:"], v["offset:"], v["idx:"], v["cpu:"] }' |
	while read -r _s _off _i _c; do
		echo $((_s)) $((_off)) "$_i" "$_c"
	done
}
info() { perf script -D -i "$1" 2>/dev/null | sed -n '/AUXTRACE_INFO/,/Cap Event/p' | sed 's/^[0-9 ]*0x[0-9a-f]* //'; }
# one CASE MODE OPTS: both recorders, both decoders; MODE full or snap
one() {
	_c=$1 _m=$2; shift 2
	for _t in perf pk; do
		_f=$T_TMP/$_c.$_t.data
		if ! rec $_t "$_f" "$@" > "$_f.log" 2>&1 || [ ! -s "$_f" ]; then
			fail $N:$_c:$_t-record "$(tail -3 "$_f.log" | tr '\n' '|')"; continue
		fi
		ips "$_f"
		aux "$_f" > "$_f.aux"
		for _d in perf pk; do
			_n=$(wc -l < "$_f.$_d")
			if [ "$_m" = full ]; then
				check $N:$_c:$_t-rec:$_d-decode "not the run's instructions ($_n lines)" \
					"$(cmp -s "$_f.$_d" "$TRUTH" && echo y)" = y
			else
				check $N:$_c:$_t-rec:$_d-decode "not a tail of the run ($_n lines)" \
					"$(tail -n "$_n" "$TRUTH" | cmp -s - "$_f.$_d" && echo y)" = y
				check $N:$_c:$_t-rec:$_d-wrapped "no wrap ($_n of $(wc -l < "$TRUTH"))" \
					"$_n" -gt 1000 -a "$_n" -lt "$(wc -l < "$TRUTH")"
			fi
		done
		# the AUX area (64 KiB) went round: more bytes than it holds,
		# or a snapshot of all of it from past its start
		check $N:$_c:$_t-wrap "AUXTRACE records: $(tr '\n' ' ' < "$_f.aux")" \
			"$(awk -v m=$_m '{ s += $1; if ($1 != 65536 || $2 == 0) bad = 1 }
				END { print (m == "full" ? s > 65536 : NR && !bad) ? "y" : "n" }' "$_f.aux")" = y
	done
	_p=$T_TMP/$_c.perf.data _k=$T_TMP/$_c.pk.data
	[ -s "$_p" ] && [ -s "$_k" ] || return
	info "$_p" > "$_p.info"; info "$_k" > "$_k.info"
	check $N:$_c:auxtrace-info "differs from perf's: $(diff "$_p.info" "$_k.info" | tr '\n' '|')" \
		"$(cmp -s "$_p.info" "$_k.info" && echo y)" = y
	if [ "$_m" = snap ]; then
		check $N:$_c:auxtrace "perf: $(cat "$_p.aux"), perfkit: $(cat "$_k.aux")" \
			"$(cmp -s "$_p.aux" "$_k.aux" && echo y)" = y
		check $N:$_c:same-tail "perf's and perfkit's recordings decode differently" \
			"$(cmp -s "$_p.pk" "$_k.pk" && echo y)" = y
	else
		check $N:$_c:auxtrace "idx/cpu: perf $(awk '{print $3, $4}' "$_p.aux" | sort -u | tr '\n' ' ')perfkit $(awk '{print $3, $4}' "$_k.aux" | sort -u | tr '\n' ' ')" \
			"$(awk '{print $3, $4}' "$_p.aux" | sort -u)" = "$(awk '{print $3, $4}' "$_k.aux" | sort -u)"
	fi
	perf report --header-only -I -i "$_k" > "$_k.hdr" 2>&1
	check $N:$_c:index "no AUXTRACE index feature" \
		"$(grep '^# missing features' "$_k.hdr" | grep -c AUXTRACE)" = 0
}
# per CPU: tsc=0 keeps the decoding timeless (ptgen's TSC is not this
# machine's clock; perf matches side-band times against it otherwise)
one cpu-full full -e intel_pt/tsc=0/u -m ,16
one thread-full full --per-thread -e intel_pt//u -m ,16
one cpu-snap snap -S -e intel_pt/tsc=0/u -m ,16
one thread-snap snap --per-thread -S -e intel_pt//u -m ,16
# e: one more snapshot at the end (the area, unchanged, again, as perf
# takes it); both decoders drop what a snapshot repeats of the one
# before (intel_pt_find_overlap): here all of it
one cpu-snap-e snap -Se -e intel_pt/tsc=0/u -m ,16
# two snapshots 40000 bytes of trace apart (the area is 64 KiB): the
# second's first 24 KiB or so repeat the first's end, found by its bytes
# (tsc=0) or by its TSCs; the decoding goes on from the first's end
MID=40000
one cpu-snap-mid snap -S -e intel_pt/tsc=0/u -m ,16
one thread-snap-mid snap --per-thread -S -e intel_pt//u -m ,16
# -S over 64 KiB: perf tells a wrap by reference bytes (intel_pt_wrapped:
# the area's last 32 KiB, twice the PSB period, against those before
# aux_head at the last snapshot), not by its 4 KiB probe. The 256 KiB
# area never fills here, and yet the second snapshot is 200000 bytes
# ending at aux_head, most of them the first one's again
_c=cpu-snap-ref
for _t in perf pk; do
	_f=$T_TMP/$_c.$_t.data
	rec $_t "$_f" -S200000 -e intel_pt/tsc=0/u -m ,64 > "$_f.log" 2>&1
	aux "$_f" > "$_f.aux"
	ips "$_f"
done
_p=$T_TMP/$_c.perf.data _k=$T_TMP/$_c.pk.data
check $N:$_c:perf-two "perf's AUXTRACE records: $(tr '\n' ' ' < "$_p.aux")" \
	"$(awk '$1 == 200000' "$_p.aux" | wc -l)" = 1
check $N:$_c:auxtrace "perf: $(tr '\n' ' ' < "$_p.aux"), perfkit: $(tr '\n' ' ' < "$_k.aux")" \
	"$(cmp -s "$_p.aux" "$_k.aux" && echo y)" = y
for _d in perf pk; do
	check $N:$_c:$_d-decode "perf's and perfkit's recordings decode differently" \
		"$(cmp -s "$_p.$_d" "$_k.$_d" && echo y)" = y
done
MID=
for _c in cpu-snap-mid thread-snap-mid; do
	_a=$(wc -l < "$T_TMP/${_c%-mid}.perf.data.pk") _b=$(wc -l < "$T_TMP/$_c.perf.data.pk")
	check $N:$_c:longer "two snapshots decode to no more than one ($_b, $_a lines)" "$_b" -gt "$_a"
done
# perf's default event per CPU, where this kernel gives no TSC to user
# space (the decoding is then timeless). The decoders then take the task
# from the context switches: the workload must be the one on the CPU
# whose area has the trace (CPU 0's, the first mapped), so it is pinned.
if ! grep -q 'Cap Time Zero *0' "$T_TMP/cpu-full.perf.data.info" 2>/dev/null; then
	skip $N:cpu-default "the kernel gives user space the TSC: a timed decoding of ptgen's clock"
elif ! command -v taskset > /dev/null; then
	skip $N:cpu-default "taskset is not installed"
else
	PIN="taskset -c 0"
	one cpu-default full -e intel_pt//u -m ,16
	PIN=
fi
# perf's size checks and words
for o in "-m ,1" "-S100000 -m ,16"; do
	rec perf x.data -e intel_pt/tsc=0/u $o > x.perf 2>&1
	rec pk x.data -e intel_pt/tsc=0/u $o > x.pk 2>&1
	check "$N:msg:$o" "perf: $(head -1 x.perf), perfkit: $(head -1 x.pk)" \
		"$(head -1 x.perf)" = "$(head -1 x.pk)"
done
perf record -S -e dummy:u -o x.data -- true > x.perf 2>&1
"$PK" record -S -e dummy:u -o x.data -- true > x.pk 2>&1
check "$N:msg:-S-no-aux" "perf: $(head -1 x.perf), perfkit: $(head -1 x.pk)" \
	"$(head -1 x.perf)" = "$(head -1 x.pk)"
t_exit
