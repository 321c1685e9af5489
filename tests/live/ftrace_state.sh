#!/bin/sh
# perfkit ftrace start/stop/restart/reset (trace-cmd 3.1's state commands)
# on a fake tracefs of regular files, against trace-cmd itself on a copy
# of the same tree bound over /sys/kernel/tracing in a private mount
# namespace (neither touches the real top level). Both run under strace;
# tests/data/ftstate/strace_writes.awk turns each one's opens and writes
# into the same "W|A path value" lines. stop, restart and reset: the
# writes are equal line for line (order included); start: the value each
# file is left with (record's set-up writes in its own order). A killed
# perfkit record (SIGKILL) followed by `ftrace reset` leaves the tree as
# a reset one was before.
# pk-test: check
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export PERFKIT_RUNDIR=$T_TMP/run
D=tests/data/ftstate
. tests/lib/fttree.sh
p() { ft_p "$@"; }
buffer() {  # buffer TREE PREFIX: one buffer's files, in use
	ft_buffer $1 "$2" trace_pipe_raw "current_tracer:function" "available_tracers:function nop" \
		  "tracing_on:0" "trace:x" "trace_clock:local [global] counter" \
		  "set_event:sched:sched_switch" "trace_options:print-parent" \
		  "set_event_pid:12" "set_ftrace_pid:12" "set_ftrace_filter:schedule" \
		  "set_ftrace_notrace:vfs_read" "set_graph_function:" "set_graph_notrace:" \
		  "buffer_size_kb:1410" "tracing_cpumask:1" "tracing_max_latency:33" \
		  "error_log:old" "options/func_stack_trace:1" "options/event-fork:1" \
		  "events/enable:1" "events/sched/enable:1" "events/sched/filter:none" \
		  "events/sched/sched_switch/enable:1" \
		  "events/sched/sched_switch/filter:prev_pid != 0" \
		  "events/sched/sched_switch/trigger:traceoff:unlimited" \
		  "events/sched/sched_wakeup/enable:0" "events/sched/sched_wakeup/filter:none" \
		  "events/sched/sched_wakeup/trigger:# Available triggers:\n# traceon traceoff"
}
# a tree with two instances and five dynamic events; dynamic_events starts
# with a line no one parses: trace-cmd writes "-:..." there without
# O_APPEND (a kernel file appends anyway, a regular file is overwritten
# from its start: the padding takes it)
build() {
	ft_root $1
	buffer $1 ""; buffer $1 instances/foo/; buffer $1 instances/bar/
	p $1 available_filter_functions 'schedule\nvfs_read\n'
	p $1 available_events 'sched:sched_switch\nsched:sched_wakeup\n'
	for f in kprobe_events uprobe_events synthetic_events; do p $1 $f ''; done
	p $1 dynamic_events "$(printf '%080d' 0 | tr 0 '#')\np:kprobes/myprobe do_sys_open\nr16:kprobes/myretprobe do_sys_open\ne:eprobes/swt sched.sched_switch prev=\$prev_pid\ns:synthetic/wakeup_lat u64 lat; pid_t pid\np:uprobes/up /bin/true:0x100\n"
	for e in kprobes/myprobe kprobes/myretprobe eprobes/swt synthetic/wakeup_lat uprobes/up; do
		p $1 events/$e/enable '1\n'; p $1 events/$e/filter 'none\n'; p $1 events/$e/trigger ''
	done
}
# tc CMD ARGS: trace-cmd on tree $T_TMP/a (its writes in $T_TMP/a.w)
tc() { build $T_TMP/a; ft_tc $T_TMP/a $T_TMP/a "$@"; }
# pk CMD ARGS: perfkit ftrace on tree $T_TMP/b (its writes in $T_TMP/b.w)
pk() { build $T_TMP/b; ft_pk $T_TMP/b $T_TMP/b "$@"; }
# what each file is left with; every write to trace clears the buffer
left() { awk -f $D/last_value.awk $1 | sed -e 's|^\(.*/\)\{0,1\}trace: .*|\1trace: (cleared)|' \
	-e 's|filter: (\(.*\))$|filter: \1|' | sort; }

if [ "$(id -u)" != 0 ] || ! command -v trace-cmd > /dev/null || ! command -v strace > /dev/null ||
   ! command -v unshare > /dev/null || [ ! -d $TF ]; then
	skip ftrace_state_vs_tracecmd "needs root, trace-cmd, strace, unshare and $TF"
else
	# the writes, line for line (trace-cmd exits 0 where the tree refuses
	# rmdir; perfkit says so: rc 1 with -d)
	while IFS='|' read -r name want_rc args; do
		eval "set -- $args"
		tc "$@"; rc1=$?
		pk "$@"; rc2=$?
		check "ftrace_state_$name" "rc=$rc1/$rc2 $(diff $T_TMP/a.w $T_TMP/b.w | head -20 | tr '\n' '|') $(head -3 $T_TMP/b.out)" \
			$rc1 -eq 0 -a $rc2 -eq $want_rc -a -s $T_TMP/a.w -a -z "$(diff $T_TMP/a.w $T_TMP/b.w)"
	done <<'EOF'
reset|0|reset
reset_all_delete|1|reset -a -d
reset_sizes|1|reset -B foo -b 200 -t -b 300 -a -d
reset_all_size_delete_one|1|reset -a -b 7 -B bar -d
reset_one|1|reset -B foo -b 0 -d
reset_top_and_one|0|reset -t -B bar -b 64
stop|0|stop
stop_all|0|stop -B foo -a
stop_one|0|stop -B bar
restart_all_top|0|restart -a -t
restart_two|0|restart -B foo -B bar
EOF
	# start: the values left (trace-cmd's -C is perfkit's --clock, -p
	# its -t)
	while IFS='|' read -r name targs pargs; do
		eval "set -- $targs"; tc start "$@"; rc1=$?
		eval "set -- $pargs"; pk start "$@"; rc2=$?
		left $T_TMP/a.w > $T_TMP/a.left; left $T_TMP/b.w > $T_TMP/b.left
		check "ftrace_state_start_$name" "rc=$rc1/$rc2 $(diff $T_TMP/a.left $T_TMP/b.left | tr '\n' '|') $(head -3 $T_TMP/b.out)" \
			$rc1 -eq 0 -a $rc2 -eq 0 -a -s $T_TMP/a.left -a -z "$(diff $T_TMP/a.left $T_TMP/b.left)"
	done <<'EOF'
filter_size_clock|-e sched_switch -f prev_pid==0 -b 100 -C global|-e sched_switch -f prev_pid==0 -b 100 --clock global
instance|-e sched_switch -B foo -e sched_wakeup|-e sched_switch -B foo -e sched_wakeup
trigger_mask|-e sched_wakeup -R traceoff -M 1|-e sched_wakeup -R traceoff -M 1
EOF
fi

# perfkit alone: start leaves tracing on (no restore), bad options change
# nothing, --stale only replays journals
build $T_TMP/c
run() { PERFKIT_TRACEFS=$T_TMP/c PERFKIT_SYSCTL=$T_TMP/c.sys "$PERFKIT" ftrace "$@"; }
run start -e sched:sched_wakeup > $T_TMP/o 2>&1; rc=$?
v="$(cat $T_TMP/c/tracing_on) $(cat $T_TMP/c/events/sched/sched_wakeup/enable) $(cat $T_TMP/c/current_tracer)"
check ftrace_state_start_kept "rc=$rc $v $(cat $T_TMP/o)" $rc -eq 0 -a "$v" = "1 1 nop"
cp -a $T_TMP/c $T_TMP/c.before
run reset -d > $T_TMP/o 2>&1; rc=$?
check ftrace_state_reset_top_delete "rc=$rc $(cat $T_TMP/o)" $rc -eq 2 -a "$(wc -l < $T_TMP/o)" -eq 1 -a \
	-z "$(diff -r $T_TMP/c.before $T_TMP/c)"
run stop -B nosuch > $T_TMP/o 2>&1; rc=$?
check ftrace_state_stop_no_instance "rc=$rc $(cat $T_TMP/o)" $rc -eq 1 -a "$(wc -l < $T_TMP/o)" -eq 1 -a \
	-z "$(diff -r $T_TMP/c.before $T_TMP/c)"
run reset -b abc > $T_TMP/o 2>&1; rc=$?
check ftrace_state_reset_bad_size "rc=$rc $(cat $T_TMP/o)" $rc -eq 2 -a "$(wc -l < $T_TMP/o)" -eq 1 -a \
	-z "$(diff -r $T_TMP/c.before $T_TMP/c)"
run reset --stale > $T_TMP/o 2>&1; rc=$?
check ftrace_state_reset_stale_only "rc=$rc $(cat $T_TMP/o)" $rc -eq 0 -a \
	"$(cat $T_TMP/o)" = "removed 0 leftover perfkit instances" -a -z "$(diff -r $T_TMP/c.before $T_TMP/c)"

# SIGKILL: a perfkit record killed in the middle; `ftrace reset` puts back
# its journal and resets: the tree is as a reset one was before the run
# (a tree without dynamic events or triggers: on regular files their
# removal lines stay, so a reset there is no fixed point)
: > $T_TMP/c/dynamic_events
for f in $(find $T_TMP/c -name trigger); do printf '# Available triggers:\n' > $f; done
run reset > /dev/null 2>&1
tree() {  # each file of tree $1 with its content (newlines as blanks)
	(cd $1 && find . -type f | sort | xargs awk 'BEGIN { for (i = 1; i < ARGC; i++) {
		t = ""; while ((getline l < ARGV[i]) > 0) t = t l " "; close(ARGV[i])
		sub(/ +$/, "", t); print ARGV[i] ": " t }; exit }'; ls $1/instances)
}
tree $T_TMP/c > $T_TMP/c.reset
mkdir -p $PERFKIT_RUNDIR
(PERFKIT_TRACEFS=$T_TMP/c PERFKIT_SYSCTL=$T_TMP/c.sys PERFKIT_TRACEFS_LOG=$T_TMP/c.log exec "$PERFKIT" ftrace record --top \
	-o $T_TMP/x.dat -e sched:sched_switch -f 'prev_pid > 1' --clock counter -b 64 -- sleep 30) > $T_TMP/k.out 2>&1 &
kp=$!
t_bg $kp
i=0; while ! grep -q '^W trace $' $T_TMP/c.log 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done
kill -KILL $kp; wait $kp 2>/dev/null
nj=$(ls $PERFKIT_RUNDIR | wc -l)
changed=$(tree $T_TMP/c | diff $T_TMP/c.reset - | wc -l)
run reset > $T_TMP/o 2>&1; rc=$?
check ftrace_state_sigkill_reset "rc=$rc nj=$nj changed=$changed $(cat $T_TMP/o $T_TMP/k.out) $(tree $T_TMP/c | diff $T_TMP/c.reset - | head -5 | tr '\n' '|')" \
	$rc -eq 0 -a $nj -eq 1 -a $changed -gt 0 -a -z "$(tree $T_TMP/c | diff $T_TMP/c.reset -)" -a -z "$(ls $PERFKIT_RUNDIR)"
t_exit
