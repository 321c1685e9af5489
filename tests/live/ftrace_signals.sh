#!/bin/sh
# perfkit ftrace record / live under repeated signals: every SIGINT, SIGTERM
# or SIGHUP after the first only asks for the same orderly end, so the
# trace.dat is written (readable by trace-cmd and perfkit) and no
# instances/perfkit-PID is left; the command's exit status is perfkit's
# (127 when it cannot run); -p takes process ids only; and a test killed
# mid-run (tests/lib/sh.sh, the tracefs unit test) leaves no instance.
# pk-test: lock=tracefs
. tests/lib/sh.sh
T_NAME=ftrace_signals
. tests/lib/ftrace.sh
# removed also when the test is killed (after its perfkit is stopped)
rm_inst() {
	t_atexit "[ ! -d $TF/instances/$1 ] || { echo 0 > $TF/instances/$1/tracing_on; rmdir $TF/instances/$1; } 2>/dev/null"
}
# rec NAME ARGS...: perfkit ftrace record in the background ($rp),
# recording (the event enabled in its instance, then tracing_on set).
rec() {
	_n=$1; shift
	"$PERFKIT" ftrace record -e $EV -o "$T_TMP/$_n.dat" "$@" \
		> "$T_TMP/$_n.out" 2> "$T_TMP/$_n.err" &
	rp=$!; rm_inst perfkit-$rp; t_bg $rp
	_d=$TF/instances/perfkit-$rp
	until_ "[ \"\$(cat $_d/events/syscalls/sys_enter_getppid/enable $_d/tracing_on 2>/dev/null)\" = '1
1' ] || ! kill -0 $rp 2>/dev/null"
}
# ends NAME: waits for $rp; rc, the instance left (0/1), the events in
# perfkit's and trace-cmd's reports of the file (-1: unreadable).
ends() {
	wait $rp; rc=$?
	left=0; [ -d $TF/instances/perfkit-$rp ] && left=1
	npk=$("$PERFKIT" ftrace report -i "$T_TMP/$1.dat" 2> "$T_TMP/$1.rerr" |
	      grep -c 'sys_enter_getppid:')
	[ -s "$T_TMP/$1.rerr" ] && npk=-1
	ntc=$npk
	if command -v trace-cmd > /dev/null 2>&1; then
		ntc=$(trace-cmd report -i "$T_TMP/$1.dat" 2> /dev/null |
		      grep -c 'sys_enter_getppid:')
		trace-cmd report -i "$T_TMP/$1.dat" > /dev/null 2>&1 || ntc=-1
	fi
	why="rc=$rc left=$left perfkit=$npk trace-cmd=$ntc: $(head -c 300 "$T_TMP/$1.err")"
}
# the file holds N events of the getppid workload (sh -c and other
# processes may add some), the same in both reports
has() { [ "$npk" -ge "$1" ] && [ "$npk" -eq "$ntc" ]; }

# 1. SIGINT and SIGTERM delivered together (queued while stopped): the
# first one handled decides the status (0 for SIGINT, 143 for SIGTERM)
rec both
"$GP" 1000
kill -STOP $rp; kill -TERM $rp; kill -INT $rp; kill -CONT $rp
ends both
check ftrace_signals_two_at_once "$why" \( $rc -eq 0 -o $rc -eq 143 \) -a \
	$left -eq 0 -a "$(has 1000 && echo y)" = y

# 2. SIGINT twice in a row
rec int2
"$GP" 1000
kill -INT $rp; kill -INT $rp 2>/dev/null
ends int2
check ftrace_signals_int_twice "$why" $rc -eq 0 -a $left -eq 0 -a \
	"$(has 1000 && echo y)" = y

# 3. SIGTERM, then SIGINT once the shutdown has begun (tracing_on is 0)
rec term_int
"$GP" 1000
kill -TERM $rp
until_ "[ \"\$(cat $TF/instances/perfkit-$rp/tracing_on 2>/dev/null)\" != 1 ]"
kill -INT $rp 2>/dev/null
ends term_int
check ftrace_signals_term_then_int "$why" $rc -eq 143 -a $left -eq 0 -a \
	"$(has 1000 && echo y)" = y

# 4. a command that outlives the first signal: SIGTERM is passed on, its
# trap waits; SIGINT and SIGHUP meanwhile are passed on too (ignored);
# its status (5) is perfkit's, the file has its events
R=$T_TMP/cmd
rec cmd -- sh -c "trap '' INT HUP
trap 'touch $R.got; while [ ! -e $R.go ]; do sleep 0.05; done; exit 5' TERM
$GP 1000; touch $R.ready; while :; do sleep 0.05; done"
until_ "[ -e $R.ready ] || ! kill -0 $rp 2>/dev/null"
kill -TERM $rp
until_ "[ -e $R.got ] || ! kill -0 $rp 2>/dev/null"
kill -INT $rp; kill -HUP $rp
alive=0; kill -0 $rp 2>/dev/null && alive=1
touch $R.go
ends cmd
check ftrace_signals_command_status "alive=$alive $why" $rc -eq 5 -a \
	$alive -eq 1 -a $left -eq 0 -a "$(has 1000 && echo y)" = y

# 5. exit status: the command's; 127 when it cannot run (file still written)
rec st3 -- sh -c "$GP 10; exit 3"
ends st3
check ftrace_signals_exit_status "$why" $rc -eq 3 -a $left -eq 0 -a \
	"$(has 10 && echo y)" = y
rec st127 -- /nonexistent/command
ends st127
check ftrace_signals_cannot_run "$why" $rc -eq 127 -a $left -eq 0 -a \
	"$npk" -eq 0 -a "$ntc" -eq 0 -a \
	"$(grep -c 'cannot run /nonexistent/command' "$T_TMP/st127.err")" -eq 1

# 6. -p takes process ids: one line and 2 at once (timeout: it used to
# wait for pid 0 forever), nothing created
for c in record live; do
	o=; [ $c = record ] && o="-o $T_TMP/p.dat"
	for p in function 0 12x; do
		timeout 20 "$PERFKIT" ftrace $c -e $EV $o -p $p \
			> "$T_TMP/p.out" 2> "$T_TMP/p.err"
		rc=$?
		check ftrace_signals_${c}_pid_$p "rc=$rc $(cat "$T_TMP/p.err")" \
			$rc -eq 2 -a "$(wc -l < "$T_TMP/p.err")" -eq 1 -a \
			"$(grep -c -- "-p '*$p'*:" "$T_TMP/p.err")" -eq 1 -a \
			! -e "$T_TMP/p.dat"
	done
done

# 7. ftrace live: repeated signals, the command's status
"$PERFKIT" ftrace live -e sched:sched_switch > "$T_TMP/l.out" 2> "$T_TMP/l.err" &
lp=$!; rm_inst perfkit-$lp; t_bg $lp
until_ "[ -s $T_TMP/l.out ] || ! kill -0 $lp 2>/dev/null"
kill -STOP $lp; kill -TERM $lp; kill -INT $lp; kill -HUP $lp; kill -CONT $lp
wait $lp; rc=$?
left=0; [ -d $TF/instances/perfkit-$lp ] && left=1
check ftrace_signals_live_three "rc=$rc left=$left $(head -c 300 "$T_TMP/l.err")" \
	\( $rc -eq 0 -o $rc -eq 129 -o $rc -eq 143 \) -a $left -eq 0 -a \
	"$(grep -c 'sched_switch: prev_comm=' "$T_TMP/l.out")" -gt 0
"$PERFKIT" ftrace live -e $EV -- sh -c "$GP 10; exit 4" > "$T_TMP/l4.out" 2>&1
rc=$?
check ftrace_signals_live_status "rc=$rc $(tail -2 "$T_TMP/l4.out")" $rc -eq 4 -a \
	"$(grep -c ': sys_getppid()$' "$T_TMP/l4.out")" -ge 10
"$PERFKIT" ftrace live -e $EV -- /nonexistent/command > "$T_TMP/l5.out" 2>&1
rc=$?
check ftrace_signals_live_cannot_run "rc=$rc $(cat "$T_TMP/l5.out")" $rc -eq 127

# 8. a shell test killed mid-run (SIGTERM to the shell alone): its perfkit
# is stopped (the file written) and its instances removed (tests/lib/sh.sh)
cat > "$T_TMP/killed.sh" <<EOF
. tests/lib/sh.sh
"$PERFKIT" ftrace record -e $EV -o "$T_TMP/killed.dat" > /dev/null 2>&1 &
echo \$! > "$T_TMP/killed.pk"; t_bg \$!
mkdir $TF/instances/pkx-killed-\$\$ && t_atexit "rmdir $TF/instances/pkx-killed-\$\$"
echo "\$T_TMP" > "$T_TMP/killed.tmp"
wait
EOF
sh "$T_TMP/killed.sh" & sp=$!
until_ "[ -s $T_TMP/killed.tmp ] && [ -d $TF/instances/perfkit-\$(cat $T_TMP/killed.pk) ]"
kp=$(cat "$T_TMP/killed.pk"); rm_inst perfkit-$kp; rm_inst pkx-killed-$sp
kill -TERM $sp; wait $sp; rc=$?
left=$(ls $TF/instances | grep -c -x -e "perfkit-$kp" -e "pkx-killed-$sp")
n=$("$PERFKIT" ftrace report -i "$T_TMP/killed.dat" 2>/dev/null | wc -l)
check ftrace_signals_killed_shell_test "rc=$rc left=$left lines=$n" $rc -eq 143 -a \
	$left -eq 0 -a ! -e "$(cat "$T_TMP/killed.tmp")" -a "$n" -ge 1

# 9. the tracefs unit test killed mid-run (held while its instance exists)
U=$PK_BUILD/tests/ftrace_tracefs
if [ -x "$U" ]; then
	top="$(cat $TF/buffer_percent $TF/tracing_thresh)"
	caught=0
	for try in 1 2 3 4 5; do
		"$U" > /dev/null 2>&1 & up=$!
		rm_inst pktest-$up; rm_inst pkother-$up
		while ! [ -d $TF/instances/pktest-$up ] && kill -0 $up 2>/dev/null; do :; done
		kill -STOP $up 2>/dev/null
		if [ -d $TF/instances/pktest-$up ] || [ -d $TF/instances/pkother-$up ]; then
			caught=1; kill -TERM $up; kill -CONT $up
			wait $up; rc=$?
			break
		fi
		kill -CONT $up 2>/dev/null; wait $up
	done
	if [ $caught -eq 1 ]; then
		left=$(ls $TF/instances | grep -c -x -e "pktest-$up" -e "pkother-$up")
		now="$(cat $TF/buffer_percent $TF/tracing_thresh)"
		check ftrace_signals_killed_unit_test "rc=$rc left=$left top: $top -> $now" \
			$rc -eq 143 -a $left -eq 0 -a "$top" = "$now"
	else
		skip ftrace_signals_killed_unit_test "never caught it mid-run"
	fi
else
	skip ftrace_signals_killed_unit_test "no $U (make $U)"
fi
t_exit
