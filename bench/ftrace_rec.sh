#!/bin/sh
# make bench: CPU time of `perfkit ftrace record` per million events, from
# the recorder's own closing line ("recorder CPU X s": its threads only,
# not the workload's). A run with 1,000 events gives the fixed cost.
BUILD=${1:-build}
PK=$BUILD/perfkit
GP=$BUILD/workloads/getppid
T=$(mktemp -d /tmp/pk-bench-rec.XXXXXX)
trap 'rm -rf "$T"' EXIT

echo "== ftrace record: recorder CPU time per million getppid events"
if [ ! -d /sys/kernel/tracing/events/syscalls ] &&
   [ ! -d /sys/kernel/debug/tracing/events/syscalls ]; then
	echo "no syscalls events here: skipped"
	exit 0
fi
# run N: prints "cpu_seconds events lost"
run() {
	"$PK" ftrace record -e syscalls:sys_enter_getppid -b 16384 \
		-o "$T/r.dat" -- "$GP" "$1" >"$T/out" 2>&1
	awk '/^total:/ { gsub(/,|;/, ""); print $(NF-1), $2, $4 }' "$T/out"
}
small=$(run 1000)
big=$(run 1000000)
set -- $small; s_cpu=$1
set -- $big; b_cpu=$1; b_ev=$2; b_lost=$3
echo "1,000 events:     $s_cpu s recorder CPU"
echo "1,000,000 events: $b_cpu s recorder CPU ($b_ev recorded, $b_lost lost)"
awk -v a="$s_cpu" -v b="$b_cpu" -v e="$b_ev" 'BEGIN {
	if (e > 1000) printf "per million events: %.3f s CPU (fixed cost %.3f s)\n", (b - a) * 1e6 / (e - 1000), a }'
