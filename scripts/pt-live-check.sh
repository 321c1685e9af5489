#!/bin/sh
# pt-live-check.sh: perfkit record against perf record on a machine WITH
# Intel PT (it cannot run on one without: tests/live/record_pt_aux.sh is
# the fixture-based check). Records a small program with
# `record -e intel_pt//u` by each tool, per CPU and per thread, full trace
# and snapshot (-Se), then decodes each file with perf script and perfkit
# script (--itrace=i1i -F ip) and compares:
#   - full trace: the four decodings must be equal line for line (the
#     program is deterministic; addresses are the same when ASLR is off,
#     so it runs under setarch -R);
#   - snapshot: each tool's decoding of its own file by both decoders;
#   - AUXTRACE_INFO (perf script -D) of both files, field by field.
# Usage: scripts/pt-live-check.sh [PERFKIT] [-- PROGRAM ARGS...]
#   PERFKIT defaults to build/perfkit; PROGRAM to /bin/true.
# Exit status 0 when everything matched; work files in a temporary
# directory (kept with KEEP=1), its path printed.
set -u
PK=${1:-build/perfkit}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || set -- /bin/true
PK=$(cd "$(dirname "$PK")" && pwd)/$(basename "$PK")
[ -e /sys/bus/event_source/devices/intel_pt ] ||
	{ echo "pt-live-check: no Intel PT on this machine" >&2; exit 2; }
command -v perf >/dev/null || { echo "pt-live-check: perf is missing" >&2; exit 2; }
W=$(mktemp -d /tmp/pt-live.XXXXXX) || exit 2
[ -n "${KEEP:-}" ] || trap 'rm -rf "$W"' EXIT INT TERM
echo "pt-live-check: in $W"
export LC_ALL=C PERF_PAGER=cat
fails=0
note() { echo "$1"; [ "${1#FAIL}" = "$1" ] || fails=$((fails + 1)); }
# rec TOOL CASE OPTS...: TOOL records the program into CASE.TOOL.data
rec() {
	_t=$1 _c=$2; shift 2
	if [ "$_t" = perf ]; then _cmd=perf; else _cmd=$PK; fi
	if ! setarch "$(uname -m)" -R "$_cmd" record -q "$@" -o "$W/$_c.$_t.data" -- "$PROG" $ARGS \
		> "$W/$_c.$_t.log" 2>&1; then
		note "FAIL $_c: $_t record: $(tail -1 "$W/$_c.$_t.log")"
		return 1
	fi
}
dec() { # FILE: FILE.perf and FILE.pk
	perf script --itrace=i1i -F ip -i "$1" 2>/dev/null > "$1.perf"
	"$PK" script --itrace=i1i -F ip -i "$1" 2>/dev/null > "$1.pk"
}
info() { perf script -D -i "$1" 2>/dev/null | sed -n '/AUXTRACE_INFO/,/Cap Event/p' | sed 's/^[0-9 ]*0x[0-9a-f]* //'; }
PROG=$1; shift; ARGS="$*"
for c in "cpu|-e intel_pt//u" "thread|--per-thread -e intel_pt//u" \
	 "cpu-snap|-Se -e intel_pt//u" "thread-snap|--per-thread -Se -e intel_pt//u"; do
	name=${c%%|*} opts=${c#*|}
	rec perf "$name" $opts && rec pk "$name" $opts || continue
	for t in perf pk; do
		dec "$W/$name.$t.data"
		n=$(wc -l < "$W/$name.$t.data.perf")
		[ "$n" -gt 0 ] || note "FAIL $name: perf decodes nothing of $t's file"
		cmp -s "$W/$name.$t.data.perf" "$W/$name.$t.data.pk" &&
			note "ok $name: $t's file: perf and perfkit decode the same ($n lines)" ||
			note "FAIL $name: $t's file: perf and perfkit decode differently"
	done
	case $name in *snap*) ;; *)
		cmp -s "$W/$name.perf.data.perf" "$W/$name.pk.data.perf" &&
			note "ok $name: both recordings give the same instructions" ||
			note "FAIL $name: perf's and perfkit's recordings differ";;
	esac
	info "$W/$name.perf.data" > "$W/$name.perf.info"
	info "$W/$name.pk.data" > "$W/$name.pk.info"
	# the TSC conversion differs between runs only if the kernel's does
	if diff "$W/$name.perf.info" "$W/$name.pk.info" | grep -v 'Time \(Zero\|Shift\|Muliplier\)' | grep -q '^[<>]'; then
		note "FAIL $name: AUXTRACE_INFO differs: $(diff "$W/$name.perf.info" "$W/$name.pk.info" | grep '^[<>]' | tr '\n' '|')"
	else
		note "ok $name: AUXTRACE_INFO as perf's"
	fi
done
[ "$fails" -eq 0 ]
