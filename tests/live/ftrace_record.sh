#!/bin/sh
# perfkit ftrace record on this machine: exact event counts from a known
# workload (perfkit's and trace-cmd's report of perfkit's file), tracefs
# left as found after normal runs and runs stopped by SIGINT, SIGTERM,
# SIGHUP and SIGKILL (+ perfkit ftrace reset --stale), and the EPERM line for
# function tracers.
# pk-test: lock=tracefs
. tests/lib/sh.sh
# ASan builds: libtraceevent's own leaks are not ours
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
TF=/sys/kernel/tracing
GP=$PK_BUILD/workloads/getppid
if [ "$(id -u)" != 0 ] || [ ! -w $TF/instances ]; then
	skip ftrace_record "needs root and a writable tracefs at $TF"; exit 0
fi
[ -x "$GP" ] || { skip ftrace_record "no $GP"; exit 0; }
EV=syscalls:sys_enter_getppid
# Instances of the perfkit runs this test started (others, e.g. a test
# run in another tree at the same time, are not ours to compare).
: > "$T_TMP/ours"
# (also when the test is killed: stopped, then the instance of one that was
# SIGKILLed removed)
rm_inst() {
	t_atexit "[ ! -d $TF/instances/$1 ] || { echo 0 > $TF/instances/$1/tracing_on; rmdir $TF/instances/$1; } 2>/dev/null"
}
ours() { echo "perfkit-$1" >> "$T_TMP/ours"; rm_inst perfkit-$1; t_bg $1; }
# mkinst NAME: an instance of the test's own
mkinst() { mkdir $TF/instances/$1 && rm_inst $1; }
snap() {
	ls $TF/instances | grep -x -F -f "$T_TMP/ours"
	for f in tracing_on current_tracer trace_clock buffer_size_kb \
		 set_event set_event_pid tracing_cpumask options/event-fork \
		 events/syscalls/sys_enter_getppid/enable \
		 events/syscalls/sys_enter_getppid/filter; do
		echo "$f: $(cat $TF/$f 2>&1)"
	done
}
# Runs getppid N traced by instance $1 alone: set_event_pid is set before
# the event is enabled (other processes here may call getppid too).
run_in_instance() {
	rm -f "$T_TMP/wait.$1"
	"$GP" "$2" --wait > "$T_TMP/wait.$1" &
	wpid=$!; t_bg $wpid
	k=0; while [ ! -s "$T_TMP/wait.$1" ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k+1)); done
	echo $wpid > $TF/instances/$1/set_event_pid
	echo 1 > $TF/instances/$1/events/syscalls/sys_enter_getppid/enable
	kill -USR1 $wpid
	wait $wpid
}
same_state() { snap > "$T_TMP/after"; cmp -s "$T_TMP/before" "$T_TMP/after"; }
count() { grep -c 'sys_enter_getppid:' "$1"; }
snap > "$T_TMP/before"

# 1. a workload: exactly N events in both reports
N=2000
"$PERFKIT" ftrace record -e $EV -o "$T_TMP/a.dat" -- "$GP" $N \
	> "$T_TMP/a.out" 2> "$T_TMP/a.err" &
rp=$!; ours $rp; wait $rp
rc=$?
check ftrace_record_run "rc=$rc $(head -2 "$T_TMP/a.err")" $rc -eq 0
"$PERFKIT" ftrace report -i "$T_TMP/a.dat" > "$T_TMP/a.pk"
check ftrace_record_count_perfkit "$(count "$T_TMP/a.pk") != $N" \
	"$(count "$T_TMP/a.pk")" -eq $N
sum=$(awk '/^CPU [0-9]+:/ { s += $3 } END { print s + 0 }' "$T_TMP/a.out")
lost=$(awk '/^CPU [0-9]+:/ { s += $7 } END { print s + 0 }' "$T_TMP/a.out")
check ftrace_record_cpu_lines "events $sum lost $lost: $(cat "$T_TMP/a.out")" \
	"$sum" -eq $N -a "$lost" -eq 0
if command -v trace-cmd > /dev/null 2>&1; then
	trace-cmd report -i "$T_TMP/a.dat" > "$T_TMP/a.tc" 2> "$T_TMP/a.tcerr"
	check ftrace_record_count_tracecmd "$(count "$T_TMP/a.tc") != $N" \
		"$(count "$T_TMP/a.tc")" -eq $N
	check ftrace_record_same_as_tracecmd "reports differ" \
		"$(cksum < "$T_TMP/a.tc")" = "$(cksum < "$T_TMP/a.pk")"
	# formats saved in trace-cmd 3.1's order: events z to a (the one
	# system recorded here, and ftrace's)
	names() { trace-cmd dump --$1 "$T_TMP/a.dat" 2> /dev/null | sed -n 's/^name: //p' | tr '\n' ' '; }
	want() { (cd $TF/events/$1 && ls -d */format) | sed 's,/format$,,' | LC_ALL=C sort -r | tr '\n' ' '; }
	ev=$(names events); ft=$(names ftrace)
	check ftrace_record_format_order "events: $ev| ftrace: $ft" \
		"$ev" = "$(want syscalls)" -a "$ft" = "$(want ftrace)" -a -n "$ev" -a -n "$ft"
else
	skip ftrace_record_count_tracecmd "trace-cmd not installed"
fi
same_state
rc=$?
check ftrace_record_state_restored "$(diff "$T_TMP/before" "$T_TMP/after")" $rc -eq 0

# 1a. -f FILTER: the filter of the -e before it (trace-cmd's -f): a filter
# no event passes, one every event passes; one the kernel refuses fails
# the run (status 1, the event and the filter named); -f before any -e:
# a usage error (status 2); tracefs as it was after each
for f in "common_pid == 1:0" "common_pid != 1:200"; do
	"$PERFKIT" ftrace record -e $EV -f "${f%:*}" -o "$T_TMP/f.dat" -- "$GP" 200 \
		> "$T_TMP/f.out" 2> "$T_TMP/f.err" &
	rp=$!; ours $rp; wait $rp
	rc=$?
	"$PERFKIT" ftrace report -i "$T_TMP/f.dat" > "$T_TMP/f.pk" 2>/dev/null
	check "ftrace_record_event_filter ${f%:*}" "rc=$rc, $(count "$T_TMP/f.pk") events: $(head -2 "$T_TMP/f.err")" \
		$rc -eq 0 -a "$(count "$T_TMP/f.pk")" -eq "${f#*:}"
done
"$PERFKIT" ftrace record -e $EV -f 'nosuchfield == 1' -o "$T_TMP/f.dat" -- "$GP" 10 \
	> "$T_TMP/f.out" 2> "$T_TMP/f.err" &
rp=$!; ours $rp; wait $rp
rc=$?
check ftrace_record_event_filter_refused "rc=$rc: $(cat "$T_TMP/f.err")" \
	$rc -eq 1 -a -n "$(grep "event '$EV': filter 'nosuchfield == 1': refused by the kernel" "$T_TMP/f.err")"
"$PERFKIT" ftrace record -f 'common_pid == 1' -e $EV -o "$T_TMP/f.dat" -- true \
	> "$T_TMP/f.out" 2> "$T_TMP/f.err"
rc=$?
check ftrace_record_event_filter_first "rc=$rc: $(cat "$T_TMP/f.err")" \
	$rc -eq 2 -a -n "$(grep 'no -e before it' "$T_TMP/f.err")"
same_state
rc=$?
check ftrace_record_event_filter_restored "$(diff "$T_TMP/before" "$T_TMP/after")" $rc -eq 0

# 1b. a buffer far too small: what is not in the file is counted as lost,
# exactly (events + lost = N)
N=300000
"$PERFKIT" ftrace record -b 8 -e $EV -o "$T_TMP/o.dat" -- "$GP" $N \
	> "$T_TMP/o.out" 2> "$T_TMP/o.err" &
rp=$!; ours $rp; wait $rp
ev=$(awk '/^total:/ { print $2 }' "$T_TMP/o.out")
lost=$(awk '/^total:/ { print $4 }' "$T_TMP/o.out")
"$PERFKIT" ftrace report -i "$T_TMP/o.dat" > "$T_TMP/o.pk"
check ftrace_record_overflow_exact "events $ev + lost $lost != $N, file $(count "$T_TMP/o.pk")" \
	$((ev + lost)) -eq $N -a "$(count "$T_TMP/o.pk")" -eq "$ev"

# 2. -p PID: a process that waits for SIGUSR1, then makes N calls
"$GP" 700 --wait > "$T_TMP/w.out" &
wp=$!; t_bg $wp
i=0; while [ ! -s "$T_TMP/w.out" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
"$PERFKIT" ftrace record -e $EV -p $wp -o "$T_TMP/p.dat" > "$T_TMP/p.out" 2>&1 &
rp=$!; ours $rp
# recording: the event enabled in its instance, then tracing_on set (no
# sleep: on a busy machine the set-up takes any time)
D=$TF/instances/perfkit-$rp
i=0; while [ "$(cat $D/events/syscalls/sys_enter_getppid/enable $D/tracing_on 2>/dev/null | tr -d '\n')" != 11 ] &&
	kill -0 $rp 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
kill -USR1 $wp
wait $wp
i=0; while kill -0 $rp 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
kill -INT $rp 2>/dev/null
wait $rp
"$PERFKIT" ftrace report -i "$T_TMP/p.dat" > "$T_TMP/p.pk" 2>&1
check ftrace_record_pid "$(count "$T_TMP/p.pk") != 700: $(head -3 "$T_TMP/p.out")" \
	"$(count "$T_TMP/p.pk")" -eq 700

# 3. stopped by signals: state restored, the file still written for SIGINT
for sig in INT TERM HUP; do
	"$PERFKIT" ftrace record -e $EV -o "$T_TMP/s.dat" -- "$GP" 100000000 \
		> "$T_TMP/s.out" 2>&1 &
	rp=$!; ours $rp
	i=0; while [ ! -d $TF/instances/perfkit-$rp ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i+1)); done
	sleep 0.5
	kill -s $sig $rp
	wait $rp
	rc=$?
	check ftrace_record_sig$sig "state after SIG$sig (rc=$rc): $(diff "$T_TMP/before" "$T_TMP/after" | head -5)" \
		-z "$(same_state || echo changed)"
done
"$PERFKIT" ftrace report -i "$T_TMP/s.dat" > "$T_TMP/s.pk" 2>&1
check ftrace_record_sigint_file "no events in the file of a stopped run" \
	"$(count "$T_TMP/s.pk")" -gt 0

# 4. SIGKILL leaves the instance; perfkit ftrace reset --stale removes it
"$PERFKIT" ftrace record -e $EV -o "$T_TMP/k.dat" > /dev/null 2>&1 &
rp=$!; ours $rp
i=0; while [ ! -d $TF/instances/perfkit-$rp ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i+1)); done
kill -KILL $rp
wait $rp 2>/dev/null
left=$(ls $TF/instances | grep -c "^perfkit-$rp\$")
"$PERFKIT" ftrace reset --stale > "$T_TMP/r.out" 2>&1
check ftrace_reset "left=$left $(cat "$T_TMP/r.out") $(diff "$T_TMP/before" "$T_TMP/after")" \
	"$left" -eq 1 -a -z "$(same_state || echo changed)"

# 5. function tracers: refused here with one clear line
"$PERFKIT" ftrace record -t function -o "$T_TMP/f.dat" > /dev/null 2> "$T_TMP/f.err"
rc=$?
if [ $rc -eq 0 ]; then
	skip ftrace_record_function_eperm "function tracer allowed on this machine"
else
	check ftrace_record_function_eperm "rc=$rc: $(cat "$T_TMP/f.err")" \
		"$(wc -l < "$T_TMP/f.err")" -eq 1 -a \
		-n "$(grep EPERM "$T_TMP/f.err")" -a -z "$(same_state || echo changed)"
fi

# 6. trace-cmd -> perfkit: a buffer saved by `trace-cmd extract` (an
# instance: the file has a top buffer and a named one)
if command -v trace-cmd > /dev/null 2>&1 && [ -z "$(cat $TF/set_event)" ] &&
   [ "$(cat $TF/current_tracer)" = nop ]; then
	I=pkx-extract-$$
	mkinst $I
	run_in_instance $I 300
	echo 0 > $TF/instances/$I/tracing_on
	# trace-cmd extract turns the top level's tracing_on off: put it back
	on=$(cat $TF/tracing_on)
	timeout 60 trace-cmd extract -B $I -o "$T_TMP/x.dat" > /dev/null 2>&1
	echo "$on" > $TF/tracing_on
	rmdir $TF/instances/$I 2> /dev/null
	trace-cmd report -i "$T_TMP/x.dat" > "$T_TMP/x.tc" 2>&1
	"$PERFKIT" ftrace report -i "$T_TMP/x.dat" > "$T_TMP/x.pk" 2>&1
	# the same file converted by trace-cmd to format 6 (v6 BUFFER options)
	timeout 60 trace-cmd convert --file-version 6 -i "$T_TMP/x.dat" \
		-o "$T_TMP/x6.dat" > /dev/null 2>&1
	trace-cmd report -i "$T_TMP/x6.dat" > "$T_TMP/x6.tc" 2>&1
	"$PERFKIT" ftrace report -i "$T_TMP/x6.dat" > "$T_TMP/x6.pk" 2>&1
	check ftrace_extract_v6_instance "$(diff "$T_TMP/x6.tc" "$T_TMP/x6.pk" | head -3)" \
		"$(count "$T_TMP/x6.pk")" -eq 300 -a \
		"$(cksum < "$T_TMP/x6.tc")" = "$(cksum < "$T_TMP/x6.pk")"
	check ftrace_extract_tracecmd_file "count $(count "$T_TMP/x.pk"), reports differ: $(diff "$T_TMP/x.tc" "$T_TMP/x.pk" | head -3)" \
		"$(count "$T_TMP/x.pk")" -eq 300 -a \
		"$(cksum < "$T_TMP/x.tc")" = "$(cksum < "$T_TMP/x.pk")"
else
	skip ftrace_extract_tracecmd_file "trace-cmd missing or top-level tracing in use"
fi

# 8. perfkit ftrace state (was show): the top level's files and the instances
mkinst pkx-show-$$
"$PERFKIT" ftrace state > "$T_TMP/show.out" 2>&1
rmdir $TF/instances/pkx-show-$$
check ftrace_show "$(head -3 "$T_TMP/show.out")" \
	"$(grep -c "^tracing_on: $(cat $TF/tracing_on)\$" "$T_TMP/show.out")" -eq 1 -a \
	"$(grep -c "^instance: pkx-show-$$\$" "$T_TMP/show.out")" -eq 1

# 7. perfkit ftrace extract: what an instance holds, into a trace.dat
I=pkx-pkextract-$$
mkinst $I
run_in_instance $I 250
echo 0 > $TF/instances/$I/tracing_on
"$PERFKIT" ftrace extract --instance $I -o "$T_TMP/e.dat" > "$T_TMP/e.out" 2>&1
rmdir $TF/instances/$I
"$PERFKIT" ftrace report -i "$T_TMP/e.dat" > "$T_TMP/e.pk" 2>&1
n_tc=250
if command -v trace-cmd > /dev/null 2>&1; then
	n_tc=$(trace-cmd report -i "$T_TMP/e.dat" 2>&1 | grep -c 'sys_enter_getppid:')
fi
check ftrace_extract "perfkit $(count "$T_TMP/e.pk"), trace-cmd $n_tc: $(head -2 "$T_TMP/e.out")" \
	"$(count "$T_TMP/e.pk")" -eq 250 -a "$n_tc" -eq 250
t_exit
