#!/bin/sh
# Issue 15 parts 2-3 on this kernel: a uprobe on a function of a test
# binary recorded and counted (and equal to trace-cmd report), the
# kernel's error_log entry shown for a refused probe and filter, event
# triggers (traceoff, stacktrace, enable_event), a SIGKILLed run put back
# by `ftrace reset --stale`; uprobe_events and the top level as they were.
# pk-test: lock=tracefs
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export PERFKIT_RUNDIR=$T_TMP/run
TF=/sys/kernel/tracing
if [ ! -w $TF/uprobe_events ] || ! command -v cc > /dev/null 2>&1; then
	skip ftrace_dyn "no writable $TF/uprobe_events or no C compiler"
	t_exit; exit
fi
state() {
	for f in uprobe_events dynamic_events tracing_on current_tracer set_event \
		events/sched/sched_switch/trigger events/sched/sched_switch/filter \
		events/sched/sched_switch/enable; do
		[ -r $TF/$f ] && echo "$f: $(cat $TF/$f | tr '\n' ' ')"
	done
	# (another suite's private instance of a running perfkit is not ours)
	for i in $(ls $TF/instances); do
		case $i in perfkit-*) [ -d /proc/${i#perfkit-} ] && continue ;; esac
		echo "$i"
	done
}
cat > $T_TMP/t.c <<'EOF'
#include <stdlib.h>
static volatile int sink;
__attribute__((noinline)) void pk_probe_target(int i) { sink += i; }
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	for (int i = 0; i < n; i++)
		pk_probe_target(i);
	return 0;
}
EOF
cc -O1 -o $T_TMP/t $T_TMP/t.c
# the function's file offset: its address less its segment's, plus the
# segment's offset
off=$(nm $T_TMP/t | awk '$3 == "pk_probe_target" { print $1 }')
off=$(readelf -lW $T_TMP/t | awk -v a=$((0x$off)) '$1 == "LOAD" {
	v = strtonum($3); o = strtonum($2); s = strtonum($6)
	if (a >= v && a < v + s) printf "0x%x", a - v + o }' 2>/dev/null)
[ -n "$off" ] || off=0x$(nm $T_TMP/t | awk '$3 == "pk_probe_target" { print $1 }')
G=pktest$$
state > $T_TMP/before
"$PERFKIT" ftrace record --probe "p:$G/hit $T_TMP/t:$off i=%di:s32" -o $T_TMP/u.dat -- $T_TMP/t 37 > $T_TMP/o 2> $T_TMP/e
rc=$?
check ftrace_dyn_uprobe_record "rc=$rc $(cat $T_TMP/e)" $rc -eq 0 -a "$(grep -c '^total: 37 events' $T_TMP/o)" -eq 1
"$PERFKIT" ftrace report -i $T_TMP/u.dat > $T_TMP/r 2>&1
check ftrace_dyn_uprobe_events "$(head -3 $T_TMP/r)" "$(grep -c ' hit: .* i=[0-9]*$' $T_TMP/r)" -eq 37 -a \
	"$(grep -c ' i=36$' $T_TMP/r)" -eq 1
if command -v trace-cmd > /dev/null 2>&1; then
	trace-cmd report -i $T_TMP/u.dat > $T_TMP/tc 2>/dev/null
	check ftrace_dyn_uprobe_vs_trace_cmd "$(diff $T_TMP/tc $T_TMP/r | head -4)" -z "$(diff $T_TMP/tc $T_TMP/r)"
else
	skip ftrace_dyn_uprobe_vs_trace_cmd "no trace-cmd"
fi
state > $T_TMP/after
check ftrace_dyn_uprobe_restored "$(diff $T_TMP/before $T_TMP/after)" -z "$(diff $T_TMP/before $T_TMP/after)"

# ftrace live --probe: the same uprobe's lines as they come, removed after
"$PERFKIT" ftrace live --probe "p:$G/lv $T_TMP/t:$off i=%di:s32" -- $T_TMP/t 11 > $T_TMP/lo 2> $T_TMP/le
rc=$?
check ftrace_dyn_uprobe_live "rc=$rc $(head -2 $T_TMP/le) $(head -2 $T_TMP/lo)" $rc -eq 0 -a \
	"$(grep -c ' lv: .* i=[0-9]*$' $T_TMP/lo)" -eq 11 -a \
	"$(grep -c "$G/lv" $TF/uprobe_events)" -eq 0
# a uretprobe too: both kinds in one recording
"$PERFKIT" ftrace record --probe "p:$G/in $T_TMP/t:$off" --probe "r:$G/out $T_TMP/t:$off" \
	-o $T_TMP/u2.dat -- $T_TMP/t 5 > $T_TMP/o 2> $T_TMP/e
"$PERFKIT" ftrace report -i $T_TMP/u2.dat > $T_TMP/r 2>&1
check ftrace_dyn_uretprobe "$(cat $T_TMP/e) $(head -3 $T_TMP/r)" "$(grep -c ' in: ' $T_TMP/r)" -eq 5 -a \
	"$(grep -c ' out: ' $T_TMP/r)" -eq 5

# refused: the kernel's error_log entry (where, why, the command, a caret)
"$PERFKIT" ftrace record --probe "p:$G/bad $T_TMP/t:$off i=%nosuchreg" -o $T_TMP/b.dat -- true > /dev/null 2> $T_TMP/e
rc=$?
check ftrace_dyn_probe_error_log "rc=$rc $(cat $T_TMP/e)" $rc -ne 0 -a \
	"$(grep -c '^\[ *[0-9.]*\] trace_uprobe: error: ' $T_TMP/e)" -eq 1 -a \
	"$(grep -c "^  Command: p:$G/bad " $T_TMP/e)" -eq 1 -a "$(grep -c '^ *\^$' $T_TMP/e)" -eq 1
"$PERFKIT" ftrace record -e sched:sched_switch -f 'no_such_field == 1' -o $T_TMP/b.dat -- true > /dev/null 2> $T_TMP/e
rc=$?
check ftrace_dyn_filter_error_log "rc=$rc $(cat $T_TMP/e)" $rc -ne 0 -a \
	"$(grep -c 'error: Field not found' $T_TMP/e)" -eq 1 -a "$(grep -c '^  Command: no_such_field == 1$' $T_TMP/e)" -eq 1
state > $T_TMP/after
check ftrace_dyn_refused_restored "$(diff $T_TMP/before $T_TMP/after)" -z "$(diff $T_TMP/before $T_TMP/after)"

# triggers in the recording's instance: traceoff after the first switch
# (a filter makes it run after the record is written), a stack trace
"$PERFKIT" ftrace record -e sched:sched_switch -R 'traceoff:1 if prev_pid >= 0' -R 'stacktrace' \
	-o $T_TMP/t.dat -- sleep 0.2 > $T_TMP/o 2> $T_TMP/e
rc=$?
"$PERFKIT" ftrace report -i $T_TMP/t.dat > $T_TMP/r 2>&1
n=$(grep -c 'sched_switch:' $T_TMP/r)
check ftrace_dyn_trigger_traceoff "rc=$rc n=$n $(cat $T_TMP/e)" $rc -eq 0 -a $n -ge 1 -a $n -le 2 -a \
	"$(grep -c 'kernel_stack:' $T_TMP/r)" -ge 1
"$PERFKIT" ftrace record -e sched:sched_process_exec -R 'enable_event:sched:sched_process_exit' \
	-o $T_TMP/x.dat -- true > $T_TMP/o 2> $T_TMP/e
"$PERFKIT" ftrace report -i $T_TMP/x.dat > $T_TMP/r 2>&1
check ftrace_dyn_trigger_enable_event "$(cat $T_TMP/e) $(cat $T_TMP/r | head -4)" \
	"$(grep -c 'sched_process_exit:.*comm=true' $T_TMP/r)" -eq 1
"$PERFKIT" ftrace record -e sched:sched_switch -R 'hist:keys=prev_pid' -o $T_TMP/h.dat -- true > /dev/null 2> $T_TMP/e
rc=$?
if grep -q hist $TF/events/sched/sched_switch/trigger; then
	check ftrace_dyn_trigger_hist "rc=$rc $(cat $T_TMP/e)" $rc -eq 0
else
	check ftrace_dyn_trigger_hist_refused "rc=$rc $(cat $T_TMP/e)" $rc -ne 0 -a \
		"$(grep -c "trigger 'hist:keys=prev_pid': refused by the kernel" $T_TMP/e)" -eq 1
fi
state > $T_TMP/after
check ftrace_dyn_triggers_restored "$(diff $T_TMP/before $T_TMP/after)" -z "$(diff $T_TMP/before $T_TMP/after)"

# SIGKILL: the uprobe and the instance stay; `ftrace reset --stale` removes both (the real top level is not reset)
(exec "$PERFKIT" ftrace record --probe "p:$G/k $T_TMP/t:$off" -o $T_TMP/k.dat -- sleep 30) > /dev/null 2>&1 &
kp=$!
t_bg $kp
i=0; while ! grep -q "$G/k" $TF/uprobe_events && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
sleep 0.3
kill -KILL $kp; wait $kp 2>/dev/null
left=$(grep -c "$G/k" $TF/uprobe_events)
"$PERFKIT" ftrace reset --stale > $T_TMP/o 2>&1
rc=$?
state > $T_TMP/after
check ftrace_dyn_sigkill_reset "rc=$rc left=$left $(cat $T_TMP/o) $(diff $T_TMP/before $T_TMP/after)" $rc -eq 0 -a \
	"$left" -eq 1 -a -z "$(diff $T_TMP/before $T_TMP/after)" -a -z "$(ls $PERFKIT_RUNDIR)"
t_exit
