#!/bin/sh
# perfkit ftrace report's trace-cmd options (-F, -v, -t, -l, -R, --ts-diff,
# --cpu, -P, -E, --cpus, --first-event, --last-event, -q, --pid, --comm,
# -T, -p, --event, --raw-ts, --align-ts, --nodate, --ts2secs, --ts-check)
# against
# trace-cmd report 3.1, byte for byte, on the corpus files, on a file
# trace-cmd writes here (trace-cmd extract of an instance: trace-cmd
# record itself fails here, EPERM on ftrace_enabled) and on one perfkit
# records (top buffer: trace-cmd 3.1's -F crashes and its --cpu prints
# nothing on a file whose data is all in an instance buffer).
# pk-test: check
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
D=$PK_SHARED/corpus/trace-dat
TF=/sys/kernel/tracing
if ! command -v trace-cmd > /dev/null 2>&1; then
	skip ftrace_report_opts "trace-cmd is not installed"
	t_exit; exit
fi
# same NAME FILE OPTS...: stdout of both on FILE, equal and not empty
same() {
	_n=$1 _f=$2; shift 2
	"$PERFKIT" ftrace report "$@" -i "$_f" > "$T_TMP/pk" 2>"$T_TMP/err"
	tc_report "$T_TMP/pk" "$T_TMP/tc" "$@" -i "$_f"
	if [ ! -s "$T_TMP/tc" ]; then
		fail "$_n" "trace-cmd printed nothing"
	elif cmp -s "$T_TMP/tc" "$T_TMP/pk"; then
		ok "$_n"
	else
		fail "$_n" "$(diff "$T_TMP/tc" "$T_TMP/pk" | head -3 | tr '\n' '|') $(head -1 "$T_TMP/err")"
	fi
}
# same_nb: as same, trace-cmd's blktrace line left out of -T's output
# (trace-cmd makes up a blktrace format for files without one; perfkit
# has no such event)
same_nb() {
	_n=$1 _f=$2; shift 2
	"$PERFKIT" ftrace report "$@" -i "$_f" > "$T_TMP/pk" 2>"$T_TMP/err"
	tc_report "$T_TMP/pk" "$T_TMP/tc" "$@" -i "$_f"
	grep -v "^ 'blktrace: " "$T_TMP/tc" > "$T_TMP/tcnb"
	if [ ! -s "$T_TMP/tcnb" ]; then
		fail "$_n" "trace-cmd printed nothing"
	elif cmp -s "$T_TMP/tcnb" "$T_TMP/pk"; then
		ok "$_n"
	else
		fail "$_n" "$(diff "$T_TMP/tcnb" "$T_TMP/pk" | head -3 | tr '\n' '|')"
	fi
}
# options trace-cmd handles on every file
layout() {
	same "$1_t" "$2" -t
	same "$1_l" "$2" -l
	same "$1_R" "$2" -R
	same "$1_lR" "$2" -l -R
	same "$1_tsdiff" "$2" --ts-diff
	same "$1_tsdiff_t_l" "$2" --ts-diff -t -l
	same "$1_q" "$2" -q
	same "$1_P" "$2" -P
	same "$1_E" "$2" -E
	same "$1_cpus" "$2" --cpus
	same "$1_first" "$2" --first-event
	same "$1_last" "$2" --last-event
}
# filters and CPUs (top-buffer files)
filters() {
	same "$1_F_event" "$2" -F sched_switch
	same "$1_F_v" "$2" -v -F sched_switch
	same "$1_F_or" "$2" -F 'sched/sched_switch: prev_pid == 0 || next_pid == 0'
	same "$1_F_and" "$2" -F 'sched_switch:prev_pid>0&&prev_prio<=120'
	same "$1_F_bits" "$2" -F 'sched_switch:prev_state & 1'
	same "$1_F_regex" "$2" -F 'sched:COMM =~ "^[ks]"'
	same "$1_F_list" "$2" -F 'sched_wakeup,sched_waking:target_cpu==0'
	same "$1_F_two" "$2" -F sched_switch -v -F 'sched_switch:prev_pid==0'
	# two positive filters of one event: either lets a record through
	same "$1_F_either" "$2" -F 'sched_switch:prev_pid==0' -F 'sched_switch:next_pid==0'
	same "$1_F_either_v" "$2" -F 'sched_switch:prev_pid==0' -F 'sched/.*:common_pid<100' -v -F 'sched_switch:next_pid==0'
	same "$1_F_tsdiff_R" "$2" -F 'sched' --ts-diff -R -t
	same "$1_F_bogus" "$2" -F 'sched_switch:bogus==1 || common_pid==0'
	same "$1_cpu1_F" "$2" --cpu 1 -F 'sched_switch:prev_pid!=0'
	same "$1_cpu0_tsdiff" "$2" --cpu 0 --ts-diff
}
# tasks (--pid/--comm: one more filter), -T's filter strings, -p, times
tasks() {
	same "$1_pid" "$2" --pid "$3"
	same "$1_pids" "$2" --pid "$3,$4" --pid 7
	same "$1_comm" "$2" --comm "$5"
	same "$1_comm_pid" "$2" --comm "$5" --pid "$3" -F sched_switch
	same_nb "$1_T_pid" "$2" -T --pid "$3"
	same "$1_T_F" "$2" -T -F 'sched_switch:prev_pid>10' -v -F 'sched_wakeup,sched_switch:common_pid==0'
	same_nb "$1_T_comm" "$2" -T --comm "$5" -F 'sched/.*:common_pid!=0'
	same "$1_T_none" "$2" -T --cpu 1
	same "$1_p" "$2" -p
	same "$1_raw_ts" "$2" --raw-ts
	same "$1_raw_ts_t" "$2" --raw-ts -t --ts-diff
	same "$1_align_ts" "$2" --align-ts
	same "$1_align_ts_diff" "$2" --align-ts --ts-diff -t
	same "$1_nodate" "$2" --nodate
	same "$1_ts2secs" "$2" --ts2secs 1000000000
	same "$1_ts_check" "$2" --ts-check
}
need_shared corpus/trace-dat ftrace_report_opts && {
	for f in gcc-x86-v7-zstd rtapp-arm64-v6; do
		layout "ftrace_ropt_$f" "$D/$f.trace.dat"
		filters "ftrace_ropt_$f" "$D/$f.trace.dat"
	done
	tasks ftrace_ropt_gcc "$D/gcc-x86-v7-zstd.trace.dat" 10286 10288 gcc
	tasks ftrace_ropt_rtapp "$D/rtapp-arm64-v6.trace.dat" 6704 6837 sh
	# --event (v6: trace-cmd 3.1.6 prints no formats of a v7 file)
	for e in sched_switch 'sched:sched_wak.*' sched irq 'SCHED:.*stat.*' \
		 'timer'; do
		same "ftrace_ropt_rtapp_event $e" "$D/rtapp-arm64-v6.trace.dat" \
			--event "$e"
	done
	same ftrace_ropt_print "$D/rtapp-arm64-v6.trace.dat" -F 'print'
}
# a refused filter: an error, nothing on standard output (as trace-cmd)
f=$D/rtapp-arm64-v6.trace.dat
[ -f "$f" ] || f=
if [ -n "$f" ]; then
	"$PERFKIT" ftrace report -F 'sched_switch:(prev_pid==1' -i "$f" > "$T_TMP/o" 2> "$T_TMP/e"
	rc=$?
	check ftrace_ropt_bad_filter "rc=$rc $(cat "$T_TMP/o" "$T_TMP/e" | head -3)" \
		$rc -ne 0 -a ! -s "$T_TMP/o" -a -n "$(grep -c 'filter' "$T_TMP/e")"
fi

# the workload: markers, writes, sleeps on both CPUs
work() {
	for i in 1 2 3 4 5 6; do
		echo "hello$i" > "$1"
		taskset -c $((i % 2)) sh -c 'echo x > /dev/null; sleep 0.01'
	done
}
EV="sched/sched_switch sched/sched_wakeup sched/sched_waking syscalls/sys_enter_write syscalls/sys_exit_write"
if [ ! -w $TF/instances ] || [ ! -d $TF/events/syscalls ]; then
	skip ftrace_ropt_recorded "no writable tracefs with syscall events"
	t_exit; exit
fi
# trace-cmd's file: an instance's events, written by trace-cmd extract
# (which removes the instance)
I=pkropt-$$
mkdir $TF/instances/$I && t_atexit "rmdir $TF/instances/$I 2>/dev/null"
for e in $EV; do echo 1 > $TF/instances/$I/events/$e/enable; done
work $TF/instances/$I/trace_marker
echo 0 > $TF/instances/$I/tracing_on
on=$(cat $TF/tracing_on)      # trace-cmd extract turns the top level off
(cd "$T_TMP" && timeout 60 trace-cmd extract -B $I -o tc.dat > /dev/null 2>&1)
echo "$on" > $TF/tracing_on
rmdir $TF/instances/$I 2>/dev/null
if [ -s "$T_TMP/tc.dat" ]; then
	same ftrace_ropt_tc_default "$T_TMP/tc.dat"
	layout ftrace_ropt_tc "$T_TMP/tc.dat"
else
	fail ftrace_ropt_tc "trace-cmd extract wrote no file"
fi
# perfkit's file (its private instance perfkit-PID, stored as the top
# buffer): the markers go to that instance
"$PERFKIT" ftrace record -o "$T_TMP/pk.dat" $(for e in $EV; do printf -- '-e %s ' "$(echo $e | tr / :)"; done) \
	-- sh -c "$(command -v work > /dev/null; echo 'M=/sys/kernel/tracing/instances/perfkit-$PPID/trace_marker
for i in 1 2 3 4 5 6; do echo hello$i > $M; taskset -c $((i % 2)) sh -c "echo x > /dev/null; sleep 0.01"; done')" \
	> /dev/null 2>&1
if [ -s "$T_TMP/pk.dat" ]; then
	same ftrace_ropt_pk_default "$T_TMP/pk.dat"
	layout ftrace_ropt_pk "$T_TMP/pk.dat"
	filters ftrace_ropt_pk "$T_TMP/pk.dat"
	same ftrace_ropt_pk_F_print "$T_TMP/pk.dat" -F 'ftrace/print:buf ~ "*3*"'
	same ftrace_ropt_pk_F_syscall "$T_TMP/pk.dat" -F 'sys_enter_write:count>1' -F sys_exit_write
else
	fail ftrace_ropt_pk "perfkit ftrace record wrote no file"
fi
# kernel stacks (-T): a stack right after a record that passed the
# filters passes too (trace-cmd 3.1's rule)
"$PERFKIT" ftrace record -T -o "$T_TMP/st.dat" -e sched:sched_switch \
	-e sched:sched_wakeup -- sh -c 'sleep 0.05; sleep 0.05' > /dev/null 2>&1
if [ -s "$T_TMP/st.dat" ] && "$PERFKIT" ftrace report -i "$T_TMP/st.dat" |
	grep -q kernel_stack; then
	same ftrace_ropt_stack_F "$T_TMP/st.dat" -F 'sched_switch:prev_pid==0'
	same ftrace_ropt_stack_F_v "$T_TMP/st.dat" -F sched_switch -v -F 'sched_switch:next_pid==0'
	same ftrace_ropt_stack_v "$T_TMP/st.dat" -v -F sched_wakeup
else
	skip ftrace_ropt_stack "no kernel_stack records recorded (ftrace record -T)"
fi
t_exit
