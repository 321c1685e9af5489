#!/bin/sh
# perfkit report's exports against perfkit report --stdio (--no-children)
# on one recording of >= 250K samples with callchains (bench/bigrec.sh):
# each --format's wall time and peak RSS, and its ratio to the report's
# (goal: under 2x).
#   sh bench/export.sh [BUILD]
BUILD=${1:-build}
PK=$BUILD/perfkit
MIN=${BENCH_EXPORT_SAMPLES:-250000}
echo "== exports: perfkit report --format=F vs perfkit report --stdio, same file"
if ! command -v perf >/dev/null 2>&1 || [ ! -x /usr/bin/time ]; then
	echo "perf or /usr/bin/time is not installed: skipped"
	exit 0
fi
T=$(mktemp -d /tmp/pkbench.XXXXXX)
trap 'rm -rf "$T"' EXIT
export HOME=$T
. bench/bigrec.sh
F=$T/big.data
big_recording "$F" "$MIN" || exit 0
echo "file: $(du -m "$F" | cut -f1) MB, $n samples with callchains"
timed() {
	/usr/bin/time -f '%e %M' -o "$T/time" "$@" > /dev/null 2>&1
	cat "$T/time"
}
r=$(timed "$PK" report --stdio --no-children -i "$F")
echo "  report --stdio:       ${r% *} s, peak RSS ${r#* } KB"
for f in folded flamegraph pprof speedscope perfetto; do
	x=$(timed "$PK" report -i "$F" --format=$f -o "$T/out.$f")
	awk -v f="$f" -v a="${x% *}" -v b="${r% *}" -v m="${x#* }" \
		'BEGIN { printf "  --format=%-11s %5.2f s, peak RSS %s KB, %.2fx the report\n", f ":", a, m, (b > 0 ? a / b : 0) }'
done
