#!/bin/sh
# make bench: perfkit against the reference tool on the same input, in one
# run; prints both figures and the ratio. Not a test: timings are noisy.
BUILD=${1:-build}
PK=$BUILD/perfkit
N=${BENCH_RUNS:-200}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }'; }

echo "== stat start-up: 'stat -e task-clock true', $N runs each (median ms)"
if command -v perf >/dev/null; then
	p=$($BUILD/bench/spawn $N -- perf stat -e task-clock true)
	k=$($BUILD/bench/spawn $N -- $PK stat -e task-clock true)
	pm=${p% *}; km=${k% *}
	echo "perf stat:    $pm ms (mean ${p#* })"
	echo "perfkit stat: $km ms (mean ${k#* })"
	echo "ratio: perfkit is $(ratio $pm $km) faster (goal >= 10x)"
else
	echo "perf is not installed: skipped"
fi
sh bench/script.sh "$BUILD"
sh bench/report.sh "$BUILD"
sh bench/export.sh "$BUILD"

echo "== ftrace report: trace-cmd report vs perfkit ftrace report, corpus file (best of 3)"
TD=../shared/corpus/trace-dat/gcc-x86-v7-zstd.trace.dat
if command -v trace-cmd >/dev/null && [ -r "$TD" ]; then
	best() { b=; for i in 1 2 3; do
		t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
		t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		b=$(awk -v a="${b:-$t}" -v c="$t" 'BEGIN { print (c < a ? c : a) }')
	done; echo "$b"; }
	tc=$(best trace-cmd report -i "$TD")
	pk=$(best $PK ftrace report -i "$TD")
	echo "trace-cmd report:      $tc s"
	echo "perfkit ftrace report: $pk s"
	echo "ratio: perfkit is $(ratio $tc $pk) faster (goal >= 10x)"
else
	echo "trace-cmd or the corpus file is missing: skipped"
fi
sh bench/ftrace_rec.sh "$BUILD"
# The Intel PT benchmarks decode a stream of a real run (sort, ~194M
# instructions) that ../shared/tools/ptgen makes once (~20 s).
export PK_PTGEN_DIR=${PK_PTGEN_DIR:-$BUILD/ptgen}
if [ ! -s "$PK_PTGEN_DIR/sort.pt" ] && [ -x ../shared/tools/ptgen/gen.sh ]; then
	echo "== generating Intel PT streams (ptgen, sort) into $PK_PTGEN_DIR"
	../shared/tools/ptgen/gen.sh "$PK_PTGEN_DIR" --only sort --gzip-ips >/dev/null 2>&1 ||
		echo "ptgen failed: PT benchmarks will say so"
fi
sh bench/pt_decode.sh "$BUILD"
sh bench/pt_script.sh "$BUILD"
for b in "$BUILD"/bench/*; do
	case $(basename "$b") in spawn) continue ;; esac
	[ -x "$b" ] || continue
	echo "== $(basename "$b")"
	"$b"
done
