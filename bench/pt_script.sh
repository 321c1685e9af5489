#!/bin/sh
# perfkit script against perf script decoding Intel PT from perf.data: the
# ptgen sort run (~194M instructions) wrapped by ../shared/tools/ptperf's
# mkperf as a per-thread `perf record -e intel_pt//u` file, decoded with
# --itrace=b and --itrace=i1i -F ip to /dev/null; the outputs are compared
# first (md5 of each). perf once (it takes tens of seconds), perfkit best
# of 3.
#   sh bench/pt_script.sh [BUILD]   (PK_PTGEN_DIR: where sort.pt is)
BUILD=${1:-build}
PK=$BUILD/perfkit
D=${PK_PTGEN_DIR:-$BUILD/ptgen}
MK=../shared/tools/ptperf/mkperf
echo "== script --itrace vs perf script --itrace, ptgen sort in perf.data (perf once, perfkit best of 3)"
if [ ! -s "$D/sort.pt" ] || [ ! -x "$MK" ] || ! command -v perf >/dev/null; then
	echo "no ptgen sort stream, mkperf or perf: skipped"
	exit 0
fi
T=$(mktemp -d /tmp/pkbench.XXXXXX)
trap 'rm -rf "$T"' EXIT
if ! "$MK" "$D/sort" -o "$T/sort.data" >"$T/mk.log" 2>&1; then
	echo "mkperf failed: $(tail -1 "$T/mk.log"): skipped"
	exit 0
fi
now() { date +%s.%N; }
# secs CMD...: wall seconds of one run, output to /dev/null
secs() {
	t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
	awk -v a="$t0" -v z="$t1" 'BEGIN { printf "%.2f", z - a }'
}
best() {
	b=
	for i in 1 2 3; do
		t=$(secs "$@")
		b=$(awk -v a="${b:-$t}" -v c="$t" 'BEGIN { print (c < a ? c : a) }')
	done
	echo "$b"
}
for opts in "--itrace=b" "--itrace=i1i -F ip"; do
	# shellcheck disable=SC2086
	pm=$(perf --buildid-dir "$T/bid" script $opts -i "$T/sort.data" 2>/dev/null | md5sum)
	# shellcheck disable=SC2086
	km=$("$PK" script $opts -i "$T/sort.data" 2>/dev/null | md5sum)
	# shellcheck disable=SC2086
	p=$(secs perf --buildid-dir "$T/bid" script $opts -i "$T/sort.data")
	# shellcheck disable=SC2086
	k=$(best "$PK" script $opts -i "$T/sort.data")
	echo "script $opts: perf $p s, perfkit $k s$( [ "$pm" = "$km" ] || echo ' (THE OUTPUTS DIFFER)')"
	awk -v a="$p" -v b="$k" 'BEGIN {
		printf "ratio: perfkit is %.1fx faster (goal >= 20x)\n", (b > 0 ? a / b : 0) }'
done
