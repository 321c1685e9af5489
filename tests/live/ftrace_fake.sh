#!/bin/sh
# perfkit ftrace list/stat/profile/stack/snapshot/record against a fake
# tracefs of regular files (PERFKIT_TRACEFS, PERFKIT_SYSCTL): what this
# machine refuses (function tracers, profiler, stack tracer, snapshot,
# set_graph_function) end to end. PERFKIT_TRACEFS_LOG gives the exact
# writes; the tree must be as it was after each command.
# pk-test: slow
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
F=$T_TMP/tracing
S=$T_TMP/sys
LOG=$T_TMP/log
mkdir -p $F $S
# p FILE TEXT: FILE of the tree holds TEXT (no forks but for a new folder)
p() { _d=$F/$1; _d=${_d%/*}; [ -d "$_d" ] || mkdir -p "$_d"; printf '%b' "$2" > "$F/$1"; }
build() {
	rm -rf $F; mkdir -p $F/instances
	p available_tracers 'blk function function_graph nop\n'
	p current_tracer 'nop\n'
	p tracing_on '1\n'
	p trace ''
	p trace_clock '[local] global counter mono x86-tsc\n'
	p trace_options 'print-parent\nnosym-offset\nfunction-trace\nnofunction-fork\nnooverwrite\n'
	for o in func_stack_trace funcgraph-proc function-fork event-fork overwrite; do
		p options/$o '0\n'; done
	p available_events 'sched:sched_switch\nsched:sched_wakeup\nsyscalls:sys_enter_getppid\n'
	p available_filter_functions 'schedule\nscheduler_tick\nvfs_read\next4_sync_fs [ext4]\n'
	p set_ftrace_filter '#### all functions enabled ####\n'
	p set_ftrace_notrace ''
	p set_graph_function '#### all functions enabled ####\n'
	p set_graph_notrace ''
	p set_ftrace_pid 'no pid\n'
	p set_event_pid ''
	p set_event ''
	p options/function-trace '1\n'
	p max_graph_depth '0\n'
	p buffer_size_kb '1410\n'
	p tracing_cpumask '3\n'
	for c in 0 1; do
		p per_cpu/cpu$c/buffer_size_kb '1410\n'
		p per_cpu/cpu$c/trace_pipe_raw ''
		p per_cpu/cpu$c/stats "entries: $((c + 5))\noverrun: $c\ncommit overrun: 0\nbytes: 320\noldest event ts:  100.5\nnow ts:  200.25\ndropped events: 0\nread events: 7\n"
	done
	p snapshot '# tracer: nop\n#\n# * Snapshot is freed *\n'
	p stack_trace '        Depth    Size   Location    (1 entries)\n        -----    ----   --------\n  0)     2928     224   update_sd_lb_stats+0xbc/0x4ac\n'
	p stack_max_size '2928\n'
	p stack_trace_filter ''
	p function_profile_enabled '0\n'
	p trace_stat/function0 '  Function   Hit    Time            Avg             s^2\n  --------   ---    ----            ---             ---\n  schedule   10    100.000 us      10.000 us       4.000 us\n'
	p trace_stat/function1 '  Function   Hit    Time            Avg             s^2\n  --------   ---    ----            ---             ---\n  schedule   30    600.000 us      20.000 us       9.000 us\n  vfs_read   5    1.000 us      0.200 us       0.000 us\n'
	p events/sched/sched_switch/enable '0\n'
	p events/sched/sched_switch/filter 'none\n'
	printf '0\n' > $S/ftrace_enabled
	printf '0\n' > $S/stack_tracer_enabled
	: > $LOG
}
# the tree's state: every file with its non-comment content (the restore
# writes values without their newline; list files come back as lists)
state() {
	(cd $F && find . -type f ! -name trace_marker | sort | xargs awk '
		BEGIN {
			for (i = 1; i < ARGC; i++) {
				f = ARGV[i]; t = ""
				while ((getline l < f) > 0)
					if (l !~ /^#/ && l != "no pid")
						t = t l " "
				close(f)
				gsub(/ +/, " ", t); sub(/ $/, "", t)
				print f ": " t
			}
			exit
		}'; ls instances; echo "sysctl: $(cat $S/ftrace_enabled) $(cat $S/stack_tracer_enabled)")
}
run() { PERFKIT_TRACEFS=$F PERFKIT_SYSCTL=$S PERFKIT_TRACEFS_LOG=$LOG "$PERFKIT" ftrace "$@"; }
run_bg() { (PERFKIT_TRACEFS=$F PERFKIT_SYSCTL=$S PERFKIT_TRACEFS_LOG=$LOG exec "$PERFKIT" ftrace "$@") & }

build
state > $T_TMP/before

run list tracers 'func*' > $T_TMP/o 2>&1
check ftrace_fake_list_tracers "$(cat $T_TMP/o)" "$(tr '\n' ' ' < $T_TMP/o)" = "function function_graph "
run list events 'sched_w*' > $T_TMP/o 2>&1
check ftrace_fake_list_events "$(cat $T_TMP/o)" "$(cat $T_TMP/o)" = "sched:sched_wakeup"
run list events 'sys*:*getppid' > $T_TMP/o 2>&1
check ftrace_fake_list_events_full "$(cat $T_TMP/o)" "$(cat $T_TMP/o)" = "syscalls:sys_enter_getppid"
run list functions 'sched*' > $T_TMP/o 2>&1
check ftrace_fake_list_functions "$(cat $T_TMP/o)" "$(tr '\n' ' ' < $T_TMP/o)" = "schedule scheduler_tick "
run list functions 'ext4*' > $T_TMP/o 2>&1
check ftrace_fake_list_functions_module "$(cat $T_TMP/o)" "$(cat $T_TMP/o)" = "ext4_sync_fs [ext4]"
run list options 'func*' > $T_TMP/o 2>&1
check ftrace_fake_list_options "$(cat $T_TMP/o)" "$(tr '\n' ' ' < $T_TMP/o)" = "function-trace nofunction-fork "
check ftrace_fake_list_no_writes "$(cat $LOG)" ! -s $LOG

run bufstat > $T_TMP/o 2>&1
check ftrace_fake_stat_cpus "$(cat $T_TMP/o)" \
	"$(awk '$1 == "0" && $2 == 5 && $9 == 7 && $6 == "100.500000" && $7 == "200.250000"' $T_TMP/o | wc -l)" -eq 1 -a \
	"$(awk '$1 == "1" && $2 == 6 && $3 == 1' $T_TMP/o | wc -l)" -eq 1
check ftrace_fake_stat_profile "$(cat $T_TMP/o)" \
	"$(awk '$1 == "schedule" && $2 == 40 && $3 == "700.000" && $4 == "17.500"' $T_TMP/o | wc -l)" -eq 1 -a \
	"$(grep -n -e schedule -e vfs_read $T_TMP/o | head -1 | grep -c schedule)" -eq 1

# profile around a command: filter, profiler on, ftrace_enabled 0 -> 1, all back
: > $LOG
run profile -l 'sched*' -- true > $T_TMP/o 2>&1
rc=$?
check ftrace_fake_profile_out "rc=$rc $(cat $T_TMP/o)" $rc -eq 0 -a \
	"$(awk '$1 == "schedule" && $2 == 40' $T_TMP/o | wc -l)" -eq 1
cat > $T_TMP/want <<EOF
A set_ftrace_filter sched*
W $S/ftrace_enabled 1
W function_profile_enabled 1
W function_profile_enabled 0
W $S/ftrace_enabled 0
W set_ftrace_filter 
EOF
check ftrace_fake_profile_writes "$(diff $T_TMP/want $LOG)" -z "$(diff $T_TMP/want $LOG)"
state > $T_TMP/after
check ftrace_fake_profile_restored "$(diff $T_TMP/before $T_TMP/after)" -z "$(diff $T_TMP/before $T_TMP/after)"

# a command that cannot run: one line, everything put back
run profile -- /nonexistent/cmd > $T_TMP/o 2> $T_TMP/e
rc=$?
state > $T_TMP/after
check ftrace_fake_profile_bad_command "rc=$rc $(cat $T_TMP/e) $(diff $T_TMP/before $T_TMP/after)" \
	$rc -eq 1 -a "$(wc -l < $T_TMP/e)" -eq 1 -a -z "$(diff $T_TMP/before $T_TMP/after)"

# stack tracer around a command
build; : > $LOG
run stack -l 'vfs_*' -- true > $T_TMP/o 2>&1
rc=$?
cat > $T_TMP/want <<EOF
A stack_trace_filter vfs_*
W stack_max_size 0
W $S/ftrace_enabled 1
W $S/stack_tracer_enabled 1
W $S/stack_tracer_enabled 0
W $S/ftrace_enabled 0
W stack_max_size 2928
W stack_trace_filter 
EOF
check ftrace_fake_stack "rc=$rc $(cat $T_TMP/o) $(diff $T_TMP/want $LOG)" $rc -eq 0 -a \
	"$(grep -c '^max stack: 0 bytes' $T_TMP/o)" -eq 1 -a \
	"$(grep -c update_sd_lb_stats $T_TMP/o)" -eq 1 -a -z "$(diff $T_TMP/want $LOG)"
state > $T_TMP/after
check ftrace_fake_stack_restored "$(diff $T_TMP/before $T_TMP/after)" -z "$(diff $T_TMP/before $T_TMP/after)"

# stopped by SIGTERM while the command runs: everything put back
build; : > $LOG
run_bg stack -- sleep 5 > /dev/null 2>&1
sp=$!
i=0; while ! grep -q stack_tracer_enabled $LOG && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
kill -TERM $sp; { wait $sp; } 2>/dev/null
rc=$?
state > $T_TMP/after
check ftrace_fake_sigterm_restored "rc=$rc $(diff $T_TMP/before $T_TMP/after)" $rc -eq 143 -a -z "$(diff $T_TMP/before $T_TMP/after)"

# snapshot: taken, shown, freed again at the end (it was free before)
build; : > $LOG
run snapshot take > $T_TMP/o 2>&1
check ftrace_fake_snapshot "$(cat $LOG)" "$(tr '\n' '|' < $LOG)" = "W snapshot 1|W snapshot 0|"
run snapshot bogus > /dev/null 2>&1
check ftrace_fake_snapshot_usage "rc=$?" $? -eq 2

# record with a function tracer, filters, a graph function and an option:
# the instance has no current_tracer, so the top level records (said once)
build; : > $LOG
TF=/sys/kernel/tracing
if [ -r $TF/events/header_page ] && [ -r $TF/events/sched/sched_switch/format ]; then
	for f in header_page header_event; do cp $TF/events/$f $F/events/$f; done
	mkdir -p $F/events/ftrace/function
	cp $TF/events/ftrace/function/format $F/events/ftrace/function/format
	cp $TF/events/sched/sched_switch/format $F/events/sched/sched_switch/format
	state > $T_TMP/before
	run record -t function -l 'sched*' -n '*lock*' -l 'schedule:traceoff:3' \
		-g __do_fault -O func_stack_trace -O nooverwrite \
		-e sched:sched_switch -o $T_TMP/r.dat -- true > $T_TMP/o 2> $T_TMP/e
	rc=$?
	inst=$(sed -n 's|^W instances/\(perfkit-[0-9]*\).*|\1|p' $LOG | head -1)
	check ftrace_fake_record "rc=$rc $(cat $T_TMP/e)" $rc -eq 0 -a \
		"$(grep -c 'recording in the top-level buffer' $T_TMP/e)" -eq 1
	# the setup, in order (the workload's pid varies)
	cat > $T_TMP/want <<EOF
W tracing_on 0
W options/func_stack_trace 1
W options/overwrite 0
A set_ftrace_filter sched*
A set_ftrace_filter schedule:traceoff:3
A set_ftrace_notrace *lock*
A set_graph_function __do_fault
W options/event-fork 1
W options/function-fork 1
A set_ftrace_pid PID
A set_event_pid PID
W $S/ftrace_enabled 1
W current_tracer function
W events/sched/sched_switch/enable 1
W trace 
EOF
	sed 's/\(_pid\) [0-9][0-9]*$/\1 PID/' $LOG | sed -n '1,/^W trace $/p' > $T_TMP/got
	check ftrace_fake_record_writes "$(diff $T_TMP/want $T_TMP/got)" -z "$(diff $T_TMP/want $T_TMP/got)"
	check ftrace_fake_record_undo_command "$(cat $LOG)" \
		"$(grep -c '^A set_ftrace_filter !schedule:traceoff:0$' $LOG)" -eq 1
	state > $T_TMP/after
	check ftrace_fake_record_restored "$(diff $T_TMP/before $T_TMP/after)" -z "$(diff $T_TMP/before $T_TMP/after)"
	check ftrace_fake_record_file "$(ls -l $T_TMP/r.dat 2>&1)" -s $T_TMP/r.dat
	# --tsc2nsec: the x86-tsc clock and a TSC2NSEC option where perf gives
	# the conversion; one clear line and nothing changed where it does not
	build; : > $LOG
	for f in header_page header_event; do cp $TF/events/$f $F/events/$f; done
	cp $TF/events/sched/sched_switch/format $F/events/sched/sched_switch/format
	state > $T_TMP/before
	run record --top --tsc2nsec -e sched:sched_switch -o $T_TMP/t.dat -- true > $T_TMP/o 2> $T_TMP/e
	rc=$?
	state > $T_TMP/after
	# and as on a machine with a stable TSC (perf's conversion given)
	build; : > $LOG
	for f in header_page header_event; do cp $TF/events/$f $F/events/$f; done
	cp $TF/events/sched/sched_switch/format $F/events/sched/sched_switch/format
	mkdir -p $F/events/ftrace/function
	cp $TF/events/ftrace/function/format $F/events/ftrace/function/format
	PERFKIT_TSC2NSEC=1398101:22 run record --top --tsc2nsec -e sched:sched_switch \
		-o $T_TMP/t2.dat -- true > $T_TMP/o2 2> $T_TMP/e2
	rc2=$?
	if command -v trace-cmd > /dev/null 2>&1; then
		opt=$(trace-cmd dump --options -i $T_TMP/t2.dat 2>&1 | grep -c '^1398101 22 0 \[multiplier, shift, offset\]')
	else
		opt=1
	fi
	check ftrace_fake_record_tsc2nsec_file "rc=$rc2 $(cat $T_TMP/e2) opt=$opt" $rc2 -eq 0 -a "$opt" -eq 1 -a \
		"$(grep -c '^W trace_clock x86-tsc$' $LOG)" -eq 1 -a \
		"$(grep -c '^W trace_clock local$' $LOG)" -eq 1
	if [ $rc -ne 0 ]; then
		check ftrace_fake_record_tsc2nsec_unsupported "rc=$rc $(cat $T_TMP/e)" \
			"$(wc -l < $T_TMP/e)" -eq 1 -a "$(grep -c 'tsc2nsec: this system gives no' $T_TMP/e)" -eq 1 -a \
			-z "$(diff $T_TMP/before $T_TMP/after)"
	else
		check ftrace_fake_record_tsc2nsec "$(cat $LOG)" \
			"$(grep -c '^W trace_clock x86-tsc$' $LOG)" -eq 1 -a \
			-z "$(diff $T_TMP/before $T_TMP/after)"
	fi
	# trace-cmd record's options: -D (function-trace off and
	# kernel.ftrace_enabled 0), --func-stack, --max-graph-depth, -M in
	# the main buffer and after -B; -f, -R of the -e before them; -B on an
	# instance that exists: used, its settings put back, it stays
	build; : > $LOG
	for f in header_page header_event; do cp $TF/events/$f $F/events/$f; done
	cp $TF/events/sched/sched_switch/format $F/events/sched/sched_switch/format
	mkdir -p $F/events/ftrace/function
	cp $TF/events/ftrace/function/format $F/events/ftrace/function/format
	p events/sched/sched_switch/trigger '# Available triggers:\n# traceon traceoff\n'
	I=instances/pkt-a
	p $I/tracing_on '1\n'; p $I/tracing_cpumask '3\n'; p $I/trace ''; p $I/set_event ''
	p $I/set_event_pid ''; p $I/options/event-fork '0\n'
	p $I/events/sched/sched_switch/enable '0\n'
	for c in 0 1; do p $I/per_cpu/cpu$c/trace_pipe_raw ''; done
	printf '1\n' > $S/ftrace_enabled
	state > $T_TMP/before
	run record --top -D --func-stack --max-graph-depth 3 -M 2 -e sched_switch \
		-f 'prev_pid == 1' -R stacktrace -B pkt-a -e sched:sched_switch -M 1 \
		-o $T_TMP/o.dat -- true > $T_TMP/o 2> $T_TMP/e
	rc=$?
	cat > $T_TMP/want <<EOF
W tracing_on 0
W options/func_stack_trace 1
W options/event-fork 1
W options/function-fork 1
A set_event_pid PID
W $I/tracing_on 0
W $I/options/event-fork 1
A $I/set_event_pid PID
W tracing_cpumask 2
W max_graph_depth 3
W options/function-trace 0
W $S/ftrace_enabled 0
W events/sched/sched_switch/filter prev_pid == 1
A events/sched/sched_switch/trigger stacktrace
W events/sched/sched_switch/enable 1
W $I/tracing_cpumask 1
W $I/events/sched/sched_switch/enable 1
W trace 
W $I/trace 
W tracing_on 1
W $I/tracing_on 1
W tracing_on 0
W $I/tracing_on 0
EOF
	sed 's/\(_pid\) [0-9][0-9]*$/\1 PID/' $LOG | head -n $(wc -l < $T_TMP/want) > $T_TMP/got
	check ftrace_fake_record_tracecmd_opts "rc=$rc $(cat $T_TMP/e) $(diff $T_TMP/want $T_TMP/got)" \
		$rc -eq 0 -a -z "$(diff $T_TMP/want $T_TMP/got)" -a -s $T_TMP/o.dat
	check ftrace_fake_record_tracecmd_opts_undo "$(cat $LOG)" \
		"$(grep -c '^A events/sched/sched_switch/trigger !stacktrace$' $LOG)" -eq 1 -a \
		"$(grep -c "^W $S/ftrace_enabled 1\$" $LOG)" -eq 1 -a \
		"$(grep -c "^W events/sched/sched_switch/filter 0\$" $LOG)" -eq 1
	# (files are no kernel: the trigger and filter undo are checked above)
	state | grep -v 'sched_switch/trigger:\|sched_switch/filter:' > $T_TMP/after
	grep -v 'sched_switch/trigger:\|sched_switch/filter:' $T_TMP/before > $T_TMP/before2
	check ftrace_fake_record_tracecmd_opts_restored "$(diff $T_TMP/before2 $T_TMP/after)" \
		-z "$(diff $T_TMP/before2 $T_TMP/after)" -a -d $F/$I
	# --module: each -l/-n function limited to the module (a filter
	# command stays), or every function of it
	build; : > $LOG
	for f in header_page header_event; do cp $TF/events/$f $F/events/$f; done
	mkdir -p $F/events/ftrace/function
	cp $TF/events/ftrace/function/format $F/events/ftrace/function/format
	run record --module ext4 -l 'sync*' -l 'schedule:traceoff' -n 'x*' -o $T_TMP/mo.dat -- true > $T_TMP/o 2> $T_TMP/e
	rc=$?
	run record --module ext4 -o $T_TMP/mo.dat -- true >> $T_TMP/o 2>> $T_TMP/e
	rc2=$?
	check ftrace_fake_record_module "rc=$rc/$rc2 $(cat $T_TMP/e) $(grep set_ftrace $LOG)" $rc -eq 0 -a $rc2 -eq 0 -a \
		"$(grep '^A set_ftrace_[fn]' $LOG | grep -v ' !' | tr '\n' '|')" = \
		"A set_ftrace_filter sync*:mod:ext4|A set_ftrace_filter schedule:traceoff|A set_ftrace_notrace x*:mod:ext4|A set_ftrace_filter :mod:ext4|"
	# -k: the same set-up, nothing put back
	: > $LOG
	run record --top -k -e sched_switch -o $T_TMP/k.dat -- true > $T_TMP/o 2> $T_TMP/e
	rc=$?
	check ftrace_fake_record_keep "rc=$rc $(cat $T_TMP/e) $(tail -n 3 $LOG)" $rc -eq 0 -a \
		"$(tail -n 1 $LOG)" = "W tracing_on 0" -a "$(cat $F/events/sched/sched_switch/enable)" = 1 -a \
		"$(cat $F/options/event-fork)" = 1
else
	skip ftrace_fake_record "no readable format files in $TF"
fi
t_exit
