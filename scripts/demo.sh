#!/bin/sh
# make demo: perfkit's main jobs on the bundled workload.
BUILD=${1:-build}
PK=$BUILD/perfkit
W=$BUILD/workloads
OUT=${DEMO_DIR:-$BUILD/demo}
mkdir -p "$OUT"
echo "== perfkit stat -- $W/demo"
$PK stat -- $W/demo
echo "== perfkit stat -e syscalls:sys_enter_getppid,task-clock -- $W/getppid 100000"
$PK stat -e syscalls:sys_enter_getppid,task-clock -- $W/getppid 100000
echo "== perfkit record -g -o $OUT/perf.data -- $W/demo"
$PK record -g -o "$OUT/perf.data" -- $W/demo
echo "== perfkit script -i $OUT/perf.data (first samples)"
$PK script -i "$OUT/perf.data" | head -40
echo "== perfkit script -D -i $OUT/perf.data (record counts)"
$PK script -D -i "$OUT/perf.data" | tail -14
echo "== perfkit report --stdio -i $OUT/perf.data --no-children (top entries)"
$PK report --stdio -i "$OUT/perf.data" --no-children -g none | grep -v '^#' |
	grep . | head -12
echo "== perfkit report -i $OUT/perf.data --format=flamegraph -o $OUT/flamegraph.svg"
$PK report -i "$OUT/perf.data" --format=flamegraph -o "$OUT/flamegraph.svg" &&
	echo "flame graph of the demo: $OUT/flamegraph.svg (open it in a browser:" \
	     "hover, click to zoom, Search)"
