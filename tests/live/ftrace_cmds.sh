#!/bin/sh
# perfkit ftrace list / bufstat / record -l -n -g -O -a / snapshot / stack /
# profile on this machine's tracefs: what works is checked against the
# kernel's files, what is refused gives one clear line and leaves tracefs
# as it was.
# pk-test: lock=tracefs
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
TF=/sys/kernel/tracing
GP=$PK_BUILD/workloads/getppid
if [ "$(id -u)" != 0 ] || [ ! -w $TF/instances ]; then
	skip ftrace_cmds "needs root and a writable tracefs at $TF"; exit 0
fi
: > "$T_TMP/ours"
snap() {
	ls $TF/instances | grep -x -F -f "$T_TMP/ours"
	for f in tracing_on current_tracer trace_clock buffer_size_kb set_event \
		 set_event_pid tracing_cpumask options/event-fork options/overwrite \
		 options/function-fork; do
		echo "$f: $(cat $TF/$f 2>&1)"
	done
}
snap > "$T_TMP/before"
same_state() { snap > "$T_TMP/after"; cmp -s "$T_TMP/before" "$T_TMP/after"; }

# list: the kernel's own lists, filtered by globs
"$PERFKIT" ftrace list tracers > "$T_TMP/t" 2>&1
check ftrace_list_tracers "$(cat "$T_TMP/t")" \
	"$(tr '\n' ' ' < "$T_TMP/t")" = "$(tr ' ' '\n' < $TF/available_tracers | grep -v '^$' | tr '\n' ' ')"
"$PERFKIT" ftrace list events 'sys_enter_getp*' > "$T_TMP/e" 2>&1
check ftrace_list_events_glob "$(cat "$T_TMP/e")" \
	"$(cat "$T_TMP/e")" = "$(grep -E ':sys_enter_getp' $TF/available_events)"
"$PERFKIT" ftrace list events 'sched:*' > "$T_TMP/e" 2>&1
check ftrace_list_events_system "$(head -3 "$T_TMP/e")" \
	"$(wc -l < "$T_TMP/e")" -eq "$(grep -c '^sched:' $TF/available_events)" -a \
	"$(wc -l < "$T_TMP/e")" -gt 0
"$PERFKIT" ftrace list options > "$T_TMP/o" 2>&1
check ftrace_list_options "$(diff "$T_TMP/o" $TF/trace_options | head -3)" \
	-z "$(diff "$T_TMP/o" $TF/trace_options)"
if head -1 $TF/available_filter_functions > /dev/null 2>&1; then
	"$PERFKIT" ftrace list functions 'vfs_rea*' > "$T_TMP/f" 2>&1
	check ftrace_list_functions "$(cat "$T_TMP/f")" \
		"$(grep -c '^vfs_read$' "$T_TMP/f")" -eq 1
else
	"$PERFKIT" ftrace list functions > "$T_TMP/f" 2> "$T_TMP/fe"
	rc=$?
	check ftrace_list_functions_eperm "rc=$rc $(cat "$T_TMP/fe")" $rc -ne 0 -a \
		"$(wc -l < "$T_TMP/fe")" -eq 1 -a "$(grep -c 'not permitted on this system' "$T_TMP/fe")" -eq 1 -a \
		! -s "$T_TMP/f"
fi

# stat: a marker in an instance shows as one entry on some CPU
I=pkx-stat-$$
mkdir $TF/instances/$I && t_atexit "rmdir $TF/instances/$I 2>/dev/null"
echo hello > $TF/instances/$I/trace_marker
"$PERFKIT" ftrace bufstat --instance $I > "$T_TMP/s" 2>&1
rmdir $TF/instances/$I
check ftrace_stat_instance "$(cat "$T_TMP/s")" \
	"$(awk '$1 ~ /^[0-9]+$/ { s += $2; n++ } END { print s + 0 }' "$T_TMP/s")" -eq 1 -a \
	"$(awk '$1 ~ /^[0-9]+$/' "$T_TMP/s" | wc -l)" -eq "$(ls -d $TF/per_cpu/cpu* | wc -l)"

# record -l/-n/-g: function tracers; refused here with one line
"$PERFKIT" ftrace record -l 'vfs_*' -n '*lock*' -o "$T_TMP/l.dat" -- true \
	> /dev/null 2> "$T_TMP/le"
rc=$?
if [ $rc -eq 0 ]; then
	skip ftrace_record_filter_eperm "function tracer allowed on this machine"
else
	check ftrace_record_filter_eperm "rc=$rc: $(cat "$T_TMP/le")" \
		"$(wc -l < "$T_TMP/le")" -eq 1 -a \
		"$(grep -c 'function tracer: not permitted on this system' "$T_TMP/le")" -eq 1 -a \
		-z "$(same_state || echo changed)"
fi
"$PERFKIT" ftrace record -t function_graph -g schedule -o "$T_TMP/g.dat" -- true \
	> /dev/null 2> "$T_TMP/ge"
rc=$?
check ftrace_record_graph_refused "rc=$rc: $(cat "$T_TMP/ge")" $rc -ne 0 -a \
	"$(wc -l < "$T_TMP/ge")" -eq 1 -a -z "$(same_state || echo changed)"

# record -O: an option set in the private instance for the run only
[ -x "$GP" ] && {
"$PERFKIT" ftrace record -O nooverwrite -e syscalls:sys_enter_getppid \
	-o "$T_TMP/O.dat" -- "$GP" 500 > "$T_TMP/O.out" 2>&1 &
rp=$!; echo "perfkit-$rp" >> "$T_TMP/ours"; t_bg $rp; wait $rp
rc=$?
n=$("$PERFKIT" ftrace report -i "$T_TMP/O.dat" 2>/dev/null | grep -c 'sys_enter_getppid:')
check ftrace_record_option "rc=$rc n=$n $(head -2 "$T_TMP/O.out")" $rc -eq 0 -a "$n" -eq 500 -a \
	-z "$(same_state || echo changed)"
"$PERFKIT" ftrace record -O nosuchoption -e syscalls:sys_enter_getppid \
	-o "$T_TMP/O2.dat" -- true > /dev/null 2> "$T_TMP/O2.err"
rc=$?
check ftrace_record_bad_option "rc=$rc $(cat "$T_TMP/O2.err")" $rc -ne 0 -a \
	"$(grep -c nosuchoption "$T_TMP/O2.err")" -ge 1 -a -z "$(same_state || echo changed)"

# -a: every process, also with a command (a second getppid process, started
# before, waiting for SIGUSR1, is recorded too)
"$GP" 300 --wait > "$T_TMP/w.out" &
wp=$!; t_bg $wp
i=0; while [ ! -s "$T_TMP/w.out" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
"$PERFKIT" ftrace record -a -e syscalls:sys_enter_getppid -o "$T_TMP/a.dat" \
	-- sh -c "kill -USR1 $wp; while kill -0 $wp 2>/dev/null; do sleep 0.05; done; $GP 200" \
	> "$T_TMP/a.out" 2>&1
rc=$?
wait $wp
n=$("$PERFKIT" ftrace report -i "$T_TMP/a.dat" 2>/dev/null | grep -c 'sys_enter_getppid:')
check ftrace_record_all "rc=$rc n=$n (want >= 500)" $rc -eq 0 -a "$n" -ge 500
}

# snapshot / stack tracer / profiler: live where the kernel has them
for c in snapshot stack profile; do
	case $c in
	snapshot) f=snapshot; args="show" ;;
	stack) f=stack_trace; args="" ;;
	profile) f=function_profile_enabled; args="-- true" ;;
	esac
	"$PERFKIT" ftrace $c $args > "$T_TMP/$c.out" 2> "$T_TMP/$c.err"
	rc=$?
	if [ -e $TF/$f ]; then
		check ftrace_${c}_live "rc=$rc $(cat "$T_TMP/$c.err")" $rc -eq 0 -a \
			-z "$(same_state || echo changed)"
	else
		check ftrace_${c}_absent "rc=$rc $(cat "$T_TMP/$c.err")" $rc -eq 1 -a \
			"$(wc -l < "$T_TMP/$c.err")" -eq 1 -a \
			"$(grep -c 'not in this kernel' "$T_TMP/$c.err")" -eq 1
	fi
done
t_exit
