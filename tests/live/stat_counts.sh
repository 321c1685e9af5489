# perfkit stat, live: exact tracepoint counts in every mode, agreement with
# perf stat, output formats, exit status.
. tests/lib/sh.sh
GP=$PK_BUILD/workloads/getppid
EV=syscalls:sys_enter_getppid
if [ ! -r /sys/kernel/tracing/events/syscalls/sys_enter_getppid/id ] &&
   [ ! -r /sys/kernel/debug/tracing/events/syscalls/sys_enter_getppid/id ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
fi
if [ ! -r /sys/kernel/tracing/events/syscalls/sys_enter_getppid/id ]; then
	skip stat_counts "tracefs with syscall events is not available"
	exit 0
fi

# csv_value FILE EVENT: the value field of EVENT's CSV line.
csv_value() { awk -F, -v e="$2" '$3 == e { print $1; exit }' "$1"; }

N=12345
$PERFKIT stat -x, -e $EV -- $GP $N 2>"$T_TMP/a"; rc=$?
check stat_command_exact "got '$(csv_value "$T_TMP/a" $EV)' rc=$rc" \
	"$(csv_value "$T_TMP/a" $EV)" = $N
check stat_command_rc0 "rc=$rc" $rc -eq 0

if command -v perf >/dev/null; then
	perf stat -x, -e $EV -- $GP $N 2>"$T_TMP/p"
	check stat_agrees_with_perf "perf '$(csv_value "$T_TMP/p" $EV)' perfkit '$(csv_value "$T_TMP/a" $EV)'" \
		"$(csv_value "$T_TMP/p" $EV)" = "$(csv_value "$T_TMP/a" $EV)"
else
	skip stat_agrees_with_perf "perf is not installed"
fi

# Human output: perf's layout.
$PERFKIT stat -e $EV,task-clock -- $GP 777 2>"$T_TMP/h"
check stat_human_header "$(head -3 "$T_TMP/h" | tr '\n' '|')" \
	"$(sed -n 2p "$T_TMP/h")" = " Performance counter stats for '$GP 777':"
line=$(grep " $EV " "$T_TMP/h")
check stat_human_value "line '$line'" "$(echo "$line" | awk '{print $1}')" = 777
check stat_human_columns "line '$line'" "$(echo "$line" | cut -c1-18 | tr -d ' ')" = 777
check stat_human_elapsed "no elapsed line" -n "$(grep 'seconds time elapsed' "$T_TMP/h")"
check stat_human_msec "no msec task-clock line" -n "$(grep -E '^ +[0-9.]+ msec task-clock +# +[0-9.]+ CPUs utilized' "$T_TMP/h")"

# Exit status of the command becomes perfkit's.
$PERFKIT stat -e $EV -- sh -c 'exit 7' 2>/dev/null
check stat_exit_status "rc=$?" $? -eq 7

# Groups.
$PERFKIT stat -x, -e "{$EV,task-clock}" -- $GP 4321 2>"$T_TMP/g"
check stat_group_exact "got '$(csv_value "$T_TMP/g" $EV)'" "$(csv_value "$T_TMP/g" $EV)" = 4321

# -r: the mean of identical runs, no noise.
$PERFKIT stat -r 3 -x, -e $EV -- $GP 1000 2>"$T_TMP/r"
check stat_repeat_mean "$(cat "$T_TMP/r")" "$(csv_value "$T_TMP/r" $EV)" = 1000
check stat_repeat_variance "$(cat "$T_TMP/r")" "$(awk -F, '{print $4; exit}' "$T_TMP/r")" = "0.00%"
$PERFKIT stat -r 3 -e $EV -- $GP 1000 2>"$T_TMP/rh"
check stat_repeat_header "$(sed -n 2p "$T_TMP/rh")" -n "$(grep "(3 runs):" "$T_TMP/rh")"
check stat_repeat_elapsed "$(tail -4 "$T_TMP/rh")" -n "$(grep -E '[0-9] \+- [0-9.]+ seconds time elapsed' "$T_TMP/rh")"

# -I: interval deltas add up to the total (10 ms: several even where
# 600,000 calls take a tenth of a second).
$PERFKIT stat -I 10 -x, -e $EV -- $GP 600000 2>"$T_TMP/i"
sum=$(awk -F, -v e=$EV '$4 == e { s += $2 } END { print s }' "$T_TMP/i")
lines=$(grep -c ",$EV," "$T_TMP/i")
check stat_interval_sum "sum $sum over $lines lines" "$sum" = 600000
check stat_interval_lines "only $lines interval lines" "$lines" -ge 2

# -j: one JSON object per line, perf's keys.
$PERFKIT stat -j -e $EV,task-clock -- $GP 2222 2>"$T_TMP/j"
v=$(t_python -c '
import json,sys
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o["event"]==sys.argv[2]: print(int(float(o["counter-value"])), o["unit"], "pcnt-running" in o, "event-runtime" in o)
' "$T_TMP/j" $EV 2>&1)
check stat_json "got '$v'" "$v" = "2222  True True"

# -o FILE
$PERFKIT stat -o "$T_TMP/o" -x, -e $EV -- $GP 55 2>"$T_TMP/o.err"
check stat_output_file "file: $(cat "$T_TMP/o")" "$(csv_value "$T_TMP/o" $EV)" = 55
check stat_output_file_quiet "stderr: $(cat "$T_TMP/o.err")" ! -s "$T_TMP/o.err"

# -p attach: counting starts at attach, ends when the target exits.
$GP 6543 --wait > "$T_TMP/ready" &
tp=$!
for i in $(seq 50); do [ -s "$T_TMP/ready" ] && break; sleep 0.05; done
$PERFKIT stat -x, -e $EV -p $tp 2>"$T_TMP/p1" &
sp=$!
sleep 0.4
kill -USR1 $tp
wait $sp
check stat_attach_pid "got '$(csv_value "$T_TMP/p1" $EV)'" "$(csv_value "$T_TMP/p1" $EV)" = 6543
wait $tp 2>/dev/null

# -t / --per-thread on a multi-threaded target: inherited threads count in
# the attached thread.
$GP 1500 --wait --threads 3 > "$T_TMP/ready2" &
tp=$!
for i in $(seq 50); do [ -s "$T_TMP/ready2" ] && break; sleep 0.05; done
$PERFKIT stat --per-thread -x, -e $EV -t $tp 2>"$T_TMP/pt" &
sp=$!
sleep 0.4
kill -USR1 $tp
wait $sp
pl=$(grep ",$EV," "$T_TMP/pt")
check stat_per_thread "line '$pl'" "$(echo "$pl" | cut -d, -f1,2)" = "getppid-$tp,4500"
wait $tp 2>/dev/null

# -i: children are not counted.
$PERFKIT stat -x, -e $EV -- sh -c "$GP 300; true" 2>"$T_TMP/in1"
$PERFKIT stat -i -x, -e $EV -- sh -c "$GP 300; true" 2>"$T_TMP/in2"
a=$(csv_value "$T_TMP/in1" $EV); b=$(csv_value "$T_TMP/in2" $EV)
check stat_inherit "inherit $a" "$a" -ge 300
check stat_no_inherit "no-inherit $b" "$b" -lt 300

# -a / -A / -C
$PERFKIT stat -a -x, -e $EV -- $GP 999 2>"$T_TMP/sw"
check stat_system_wide "got '$(csv_value "$T_TMP/sw" $EV)'" "$(csv_value "$T_TMP/sw" $EV)" -ge 999
ncpu=$(getconf _NPROCESSORS_ONLN)
$PERFKIT stat -a -A -x, -e $EV -- $GP 999 2>"$T_TMP/aa"
check stat_per_cpu_lines "$(cat "$T_TMP/aa")" "$(grep -c "^CPU[0-9]*,.*,$EV," "$T_TMP/aa")" -eq "$ncpu"
sum=$(awk -F, '{ s += $2 } END { print s }' "$T_TMP/aa")
check stat_per_cpu_sum "sum $sum" "$sum" -ge 999
$PERFKIT stat -C 0 -x, -e $EV -- taskset -c 0 $GP 800 2>"$T_TMP/c0"
check stat_cpu_list "got '$(csv_value "$T_TMP/c0" $EV)'" "$(csv_value "$T_TMP/c0" $EV)" -ge 800

# Ctrl-C ends system-wide counting and still prints.
$PERFKIT stat -a -x, -e $EV 2>"$T_TMP/int" &
sp=$!
sleep 0.3; $GP 100; sleep 0.2
kill -INT $sp; wait $sp; rc=$?
check stat_sigint_prints "rc=$rc out=$(cat "$T_TMP/int")" "$(csv_value "$T_TMP/int" $EV)" -ge 100

# --delay: the first part of the run is not counted.
$PERFKIT stat -D 300 -x, -e $EV -- sh -c "$GP 500; sleep 0.6; $GP 700" 2>"$T_TMP/d"
check stat_delay "got '$(csv_value "$T_TMP/d" $EV)'" "$(csv_value "$T_TMP/d" $EV)" -ge 700 -a "$(csv_value "$T_TMP/d" $EV)" -lt 1200

# Unsupported events print <not supported> while the others count.
$PERFKIT stat -x, -e cycles,$EV -- $GP 42 2>"$T_TMP/ns"
if grep -q '^<not supported>,,cycles' "$T_TMP/ns"; then
	check stat_not_supported_others_count "$(cat "$T_TMP/ns")" "$(csv_value "$T_TMP/ns" $EV)" = 42
else
	skip stat_not_supported_others_count "cycles can be counted on this machine"
fi
t_exit
