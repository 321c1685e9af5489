#!/bin/sh
# perfkit report --stdio against perf report --stdio on one large perf.data
# with callchains that Linux perf records here (>= 450K samples: cpu-clock
# at 20 kHz with -g on every CPU while the demo workload runs, as
# bench/script.sh records), with children (the default) and without.
# Prints both wall times, the ratio and both peak RSS (/usr/bin/time %M).
#   sh bench/report.sh [BUILD]
BUILD=${1:-build}
PK=$BUILD/perfkit
MIN=${BENCH_REPORT_SAMPLES:-450000}
echo "== report: perf report --stdio vs perfkit report --stdio, same file"
if ! command -v perf >/dev/null 2>&1 || [ ! -x /usr/bin/time ]; then
	echo "perf or /usr/bin/time is not installed: skipped"
	exit 0
fi
T=$(mktemp -d /tmp/pkbench.XXXXXX)
trap 'rm -rf "$T"' EXIT
export HOME=$T
# timed OUT CMD...: "SECONDS KB" of one run, its output in OUT
timed() {
	out=$1; shift
	/usr/bin/time -f '%e %M' -o "$T/time" "$@" >"$out" 2>/dev/null
	cat "$T/time"
}
untip() { grep -v '^# (Tip:\|^# (Cannot load tips' "$1"; }
. bench/bigrec.sh
# the issue's two sizes: >= MIN samples and three times as many
for want in "$MIN" "$((MIN * 3))"; do
	F=$T/big.data
	big_recording "$F" "$want" || exit 0
	echo "file: $(du -m "$F" | cut -f1) MB, $n samples with callchains"
	for mode in --children --no-children; do
		p=$(timed "$T/p.out" perf report --stdio -i "$F" $mode)
		k=$(timed "$T/k.out" "$PK" report --stdio -i "$F" $mode)
		untip "$T/p.out" >"$T/p.u"
		untip "$T/k.out" >"$T/k.u"
		if cmp -s "$T/p.u" "$T/k.u"; then
			same="identical output"
		else
			# kept for a look: the file and both outputs
			keep=/tmp/pk-bench-report-diff.$$
			mkdir -p "$keep" && cp "$F" "$T/p.u" "$T/k.u" "$keep/"
			same="OUTPUT DIFFERS: kept in $keep"
		fi
		echo "$mode ($same):"
		echo "  perf report:    ${p% *} s, peak RSS ${p#* } KB"
		echo "  perfkit report: ${k% *} s, peak RSS ${k#* } KB"
		awk -v a="${p% *}" -v b="${k% *}" 'BEGIN { printf "  ratio: perfkit is %.1fx faster\n", (b > 0 ? a / b : 0) }'
	done
done
