#!/bin/sh
# perfkit script against perf script on one large perf.data file with
# callchains that Linux perf records here (>= 250K samples: cpu-clock at
# 20 kHz with -g on every CPU while the demo workload runs). Both print
# to /dev/null; best of BENCH_SCRIPT_RUNS (default 3) wall times.
#   sh bench/script.sh [BUILD]
BUILD=${1:-build}
PK=$BUILD/perfkit
RUNS=${BENCH_SCRIPT_RUNS:-3}
MIN=${BENCH_SCRIPT_SAMPLES:-250000}
echo "== script: perf script vs perfkit script, same file (best of $RUNS)"
if ! command -v perf >/dev/null 2>&1; then
	echo "perf is not installed: skipped"
	exit 0
fi
T=$(mktemp -d /tmp/pkbench.XXXXXX)
trap 'rm -rf "$T"' EXIT
F=$T/big.data
. bench/bigrec.sh
big_recording "$F" "$MIN" || exit 0
now() { date +%s.%N; }
best() { # best wall time of RUNS runs of "$@"
	b=
	i=0
	while [ $i -lt "$RUNS" ]; do
		t0=$(now)
		"$@" >/dev/null 2>&1
		t1=$(now)
		b=$(awk -v a="$t0" -v z="$t1" -v b="$b" \
			'BEGIN { d = z - a; if (b == "" || d < b) b = d; printf "%.3f", b }')
		i=$((i + 1))
	done
	echo "$b"
}
p=$(best perf script -i "$F")
k=$(best "$PK" script -i "$F")
lines=$("$PK" script -i "$F" 2>/dev/null | wc -l)
"$PK" script -i "$F" >"$T/pk.out" 2>/dev/null
if perf script -i "$F" 2>/dev/null | cmp -s - "$T/pk.out"; then
	same="identical output"
else
	same="OUTPUT DIFFERS"
fi
echo "file: $(du -m "$F" | cut -f1) MB, $n samples with callchains, $lines lines ($same)"
echo "perf script:    $p s"
echo "perfkit script: $k s"
awk -v a="$p" -v b="$k" 'BEGIN { printf "ratio: perfkit is %.1fx faster (goal >= 5x)\n", (b > 0 ? a / b : 0) }'
