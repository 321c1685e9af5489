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
