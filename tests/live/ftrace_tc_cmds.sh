#!/bin/sh
# trace-cmd 3.1's report -w/--stat, list, stat, show, dump ... against
# perfkit ftrace's, byte for byte: on the corpus files, on a file
# trace-cmd extract writes here (an instance's sched events) and on the
# live tracefs (read only, but for the instance the test makes).
# pk-test: check
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
D=$PK_SHARED/corpus/trace-dat
case $D in /*) ;; *) D=$PWD/$D ;; esac	# (used after cd too)
TF=/sys/kernel/tracing
if ! command -v trace-cmd > /dev/null 2>&1; then
	skip ftrace_tc_cmds "trace-cmd is not installed"
	t_exit; exit
fi
# cmpout NAME: $T_TMP/tc and $T_TMP/pk equal and not empty
cmpout() {
	if [ ! -s "$T_TMP/tc" ]; then
		fail "$1" "trace-cmd printed nothing"
	elif cmp -s "$T_TMP/tc" "$T_TMP/pk"; then
		ok "$1"
	else
		[ -n "$PK_TC_KEEP" ] && cp "$T_TMP"/*.dat "$PK_TC_KEEP"/ 2>/dev/null
		fail "$1" "$(diff "$T_TMP/tc" "$T_TMP/pk" | head -3 | tr '\n' '|') $(head -1 "$T_TMP/err")"
	fi
}
# rep NAME FILE OPTS...: trace-cmd report against perfkit ftrace report
rep() {
	_n=$1 _f=$2; shift 2
	"$PERFKIT" ftrace report "$@" -i "$_f" > "$T_TMP/pk" 2>"$T_TMP/err"
	tc_report "$T_TMP/pk" "$T_TMP/tc" "$@" -i "$_f"
	cmpout "$_n"
}
# cmd NAME SUBCOMMAND ARGS...: trace-cmd SUBCOMMAND against perfkit's
cmd() {
	_n=$1; shift
	trace-cmd "$@" > "$T_TMP/tc" 2>/dev/null
	"$PERFKIT" ftrace "$@" > "$T_TMP/pk" 2>"$T_TMP/err"
	# perfkit reads zlib files too; this trace-cmd build lists zstd only
	[ "$1" = list ] && sed -i '/^	zlib, /d' "$T_TMP/pk"
	cmpout "$_n"
}
reports() {
	rep "$1_w" "$2" -w
	rep "$1_w_t" "$2" -w -t
	rep "$1_w_l" "$2" -w -l
	rep "$1_w_R" "$2" -w -R
	rep "$1_stat" "$2" --stat
	rep "$1_uname" "$2" --uname
	rep "$1_version" "$2" --version
	rep "$1_e" "$2" -e
	rep "$1_f" "$2" -f
}
need_shared corpus/trace-dat ftrace_tc_cmds && {
	for f in gcc-x86-v7-zstd rtapp-arm64-v6; do
		reports "ftrace_tc_$f" "$D/$f.trace.dat"
	done
	# a piece without RT wake-ups: the summary has no RT part
	(cd "$T_TMP" && trace-cmd split -i "$D/gcc-x86-v7-zstd.trace.dat" \
		-o part.dat 801.83 802.5 > /dev/null 2>&1)
	if [ -s "$T_TMP/part.dat.1" ]; then
		rep ftrace_tc_split_w "$T_TMP/part.dat.1" -w
		rep ftrace_tc_split_stat "$T_TMP/part.dat.1" --stat
	else
		fail ftrace_tc_split "trace-cmd split wrote nothing"
	fi
}

# list: what tracefs has (read only)
if [ -r $TF/available_events ]; then
	cmd ftrace_tc_list list
	cmd ftrace_tc_list_e list -e
	cmd ftrace_tc_list_e_re list -e sched_sw
	cmd ftrace_tc_list_e_sys list -e 'sched:'
	cmd ftrace_tc_list_e_end list -e 'itch$'
	cmd ftrace_tc_list_e_case list -e SCHED_SWITCH
	cmd ftrace_tc_list_e_alt list -e 'sched_switch\|irq_handler_entry'
	cmd ftrace_tc_list_e_both list -e 'timer:.*start'
	cmd ftrace_tc_list_F list -e sched_wakeup -F
	cmd ftrace_tc_list_full list -e sched_wakeup -F --full
	cmd ftrace_tc_list_ftrace list -e 'ftrace:function$' -F --full
	cmd ftrace_tc_list_R list -e sched_wakeup -R
	cmd ftrace_tc_list_l list -e sched_wakeup -l
	cmd ftrace_tc_list_Rl list -e sched_wakeup -R -l
	cmd ftrace_tc_list_t list -t
	cmd ftrace_tc_list_o list -o
	cmd ftrace_tc_list_C list -C
	cmd ftrace_tc_list_B list -B
	cmd ftrace_tc_list_mix list -C -o -e sched_switch -t
	cmd ftrace_tc_list_P list -P
	cmd ftrace_tc_list_O list -O
	cmd ftrace_tc_list_s list -s
	cmd ftrace_tc_list_mix2 list -s -O -C -P -t
else
	skip ftrace_tc_list "no readable tracefs"
fi

if [ ! -w $TF/instances ] || [ ! -d $TF/events/sched ]; then
	skip ftrace_tc_extracted "no writable tracefs with sched events"
	t_exit; exit
fi
# show: an instance's text, stopped (trace-cmd's exit status too)
H=pktch-$$
mkdir $TF/instances/$H && t_atexit "rmdir $TF/instances/$H 2>/dev/null"
echo 1 > $TF/instances/$H/events/sched/sched_switch/enable
for i in 1 2 3; do echo "mark$i" > $TF/instances/$H/trace_marker; taskset -c $((i % 2)) true; done
echo 0 > $TF/instances/$H/tracing_on
echo 0 > $TF/instances/$H/events/sched/sched_switch/enable
# showrc NAME ARGS...: output, errors and exit status equal
showrc() {
	_n=$1; shift
	trace-cmd show "$@" > "$T_TMP/tc" 2> "$T_TMP/tce"; _r1=$?
	"$PERFKIT" ftrace show "$@" > "$T_TMP/pk" 2> "$T_TMP/err"; _r2=$?
	check "$_n" "rc $_r1 $_r2 $(diff "$T_TMP/tc" "$T_TMP/pk" | head -3) $(diff "$T_TMP/tce" "$T_TMP/err" | head -3)" \
		$_r1 = $_r2 -a "$(cksum < "$T_TMP/tc")" = "$(cksum < "$T_TMP/pk")" -a \
		"$(cksum < "$T_TMP/tce")" = "$(cksum < "$T_TMP/err")"
}
cmd ftrace_tc_show show -B $H
cmd ftrace_tc_show_f show -B $H -f
cmd ftrace_tc_show_c1 show -B $H -c 1 -f
cmd ftrace_tc_show_c0 show -B $H -c 0
cmd ftrace_tc_show_on show -B $H --tracing_on
cmd ftrace_tc_show_size show -B $H --buffer_size
cmd ftrace_tc_show_mask show -B $H --cpumask -f
showrc ftrace_tc_show_snap -s -B $H
showrc ftrace_tc_show_ps -p -s
showrc ftrace_tc_show_nocpu -c 4096 -B $H
showrc ftrace_tc_show_noinst -B pktc-none-$$
rmdir $TF/instances/$H

# stat: an instance with events, filters, triggers, PID filters, clock,
# size, CPU mask and tracing off (removed after)
S=pktcs-$$
mkdir $TF/instances/$S && t_atexit "rmdir $TF/instances/$S 2>/dev/null"
cmd ftrace_tc_stat_fresh stat -B $S
E=$TF/instances/$S/events
echo 1 > $E/sched/sched_switch/enable
echo 1 > $E/irq/enable
echo 'prev_pid > 10' > $E/sched/sched_switch/filter
echo 'next_pid==1' > $E/sched/sched_wakeup/filter 2>/dev/null
echo 'traceoff:3' > $E/sched/sched_switch/trigger
echo 'enable_event:irq:irq_handler_entry if prev_pid == 1' >> $E/sched/sched_switch/trigger
echo 0 > $TF/instances/$S/tracing_on
echo 2000 > $TF/instances/$S/buffer_size_kb
echo global > $TF/instances/$S/trace_clock
echo 123 > $TF/instances/$S/set_event_pid
echo 1 > $TF/instances/$S/options/sym-offset
cmd ftrace_tc_stat_set stat -B $S
cmd ftrace_tc_stat_o stat -o -B $S
# the top level lists the instances, which change as other programs make
# theirs: up to three tries
retry() {
	_n=$1; shift
	for _i in 1 2 3; do
		trace-cmd "$@" > "$T_TMP/tc" 2>/dev/null
		"$PERFKIT" ftrace "$@" > "$T_TMP/pk" 2>"$T_TMP/err"
		cmp -s "$T_TMP/tc" "$T_TMP/pk" && break
	done
	cmpout "$_n"
}
retry ftrace_tc_stat_t stat -t -B $S
echo 0 > $E/enable
echo 1 > $TF/instances/$S/tracing_cpumask
cmd ftrace_tc_stat_soft stat -B $S
retry ftrace_tc_stat_top stat
for f in trigger filter; do
	for ev in sched/sched_switch sched/sched_wakeup; do
		# a trigger goes with its "!" form; a filter with 0
		if [ $f = trigger ]; then
			grep -v '^#' $E/$ev/trigger | sed 's/:unlimited//; s/:count=/:/' |
				while read -r l; do echo "!$l" >> $E/$ev/trigger; done
		else
			echo 0 > $E/$ev/filter
		fi
	done
done
rmdir $TF/instances/$S

# trace-cmd's file: an instance's sched events, written by trace-cmd
# extract (which removes the instance)
I=pktc-$$
mkdir $TF/instances/$I && t_atexit "rmdir $TF/instances/$I 2>/dev/null"
for e in sched_switch sched_wakeup sched_wakeup_new; do
	echo 1 > $TF/instances/$I/events/sched/$e/enable
done
for i in 1 2 3 4; do taskset -c $((i % 2)) sh -c 'sleep 0.01'; done
echo 0 > $TF/instances/$I/tracing_on
on=$(cat $TF/tracing_on)
(cd "$T_TMP" && timeout 60 trace-cmd extract -B $I -o tc.dat > /dev/null 2>&1)
echo "$on" > $TF/tracing_on
rmdir $TF/instances/$I 2>/dev/null
if [ -s "$T_TMP/tc.dat" ]; then
	reports ftrace_tc_extracted "$T_TMP/tc.dat"
else
	fail ftrace_tc_extracted "trace-cmd extract wrote no file"
fi
t_exit
