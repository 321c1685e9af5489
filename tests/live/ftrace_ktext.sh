#!/bin/sh
# perfkit ftrace report --format=kernel against the kernel's own `trace`
# text of the same buffer: a fresh instance records varied events (sched,
# syscalls, irq, timer, signal, workqueue, a trace_marker write), its
# `trace` file is read under many option sets, then the buffer is extracted
# and perfkit's text must equal the kernel's byte for byte, header included.
# Then several trace clocks, and `perfkit ftrace live` (exact counts, tracefs
# state after SIGINT/SIGTERM/SIGHUP), and bad input.
# pk-test: slow lock=tracefs
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
TF=/sys/kernel/tracing
GP=$PK_BUILD/workloads/getppid
if [ "$(id -u)" != 0 ] || [ ! -w $TF/instances ]; then
	skip ftrace_ktext "needs root and a writable tracefs at $TF"; exit 0
fi
[ -x "$GP" ] || { skip ftrace_ktext "no $GP"; exit 0; }
INSTS=""
cleanup() {
	for i in $INSTS; do
		echo 0 > $TF/instances/$i/tracing_on 2>/dev/null
		echo 0 > $TF/instances/$i/events/enable 2>/dev/null
		rmdir $TF/instances/$i 2>/dev/null
	done
}
# (also when the test is killed: tests/lib/sh.sh)
if [ -n "$PK_KTEXT_KEEP" ]; then T_KEEP=1; else t_atexit cleanup; fi

# record NAME CLOCK [OPTION=V...]: a fresh instance holding a workload.
record() {
	RN=$1; I=pkkt-$$-$1; INSTS="$INSTS $I"; D=$TF/instances/$I
	mkdir $D || return 1
	echo 0 > $D/options/hash-ptr
	[ "$2" = local ] || echo "$2" > $D/trace_clock
	shift 2
	for kv in "$@"; do echo ${kv#*=} > $D/options/${kv%=*}; done
	for e in sched irq timer signal workqueue; do
		echo 1 > $D/events/$e/enable 2>/dev/null
	done
	echo 1 > $D/events/syscalls/sys_enter_getppid/enable
	echo 1 > $D/events/syscalls/sys_exit_getppid/enable
	echo 1 > $D/tracing_on
	"$GP" 50 > /dev/null
	sh -c 'kill -USR1 $$ 2>/dev/null; sleep 0.01' 2>/dev/null
	echo "perfkit marker $RN" > $D/trace_marker
	sleep 0.02
	echo 0 > $D/tracing_on
}

# same_but_cmdlines KERNEL PERFKIT: equal except for task names: the
# kernel names tasks from its saved_cmdlines cache when the trace file is
# read, perfkit from the copy taken at extract, and in between tracing
# elsewhere may add a name ("<...>" then a name) or a task may exec or its
# pid be reused. Lines must have the same length and differ only before
# the "-PID" that follows the name.
same_but_cmdlines() {
	[ "$(wc -l < "$1")" = "$(wc -l < "$2")" ] || return 1
	paste -d '\n' "$1" "$2" | awk '
		NR % 2 == 1 { k = $0; next }
		k == $0 { next }
		length(k) != length($0) { bad = 1; next }
		{ last = 0
		  for (i = 1; i <= length(k); i++)
			if (substr(k, i, 1) != substr($0, i, 1)) last = i
		  if (substr(k, last + 1, 2) !~ /^-[0-9]/) bad = 1 }
		END { exit bad }'
}

# compare NAME SET...: each SET is comma-separated option=value.
compare() {
	n=$1; shift; first=$1
	for s in "$@"; do
		O=""
		if [ "$s" != default ]; then
			for kv in $(echo $s | tr , ' '); do
				echo ${kv#*=} > $D/options/${kv%=*}
				[ ${kv#*=} = 1 ] && O="$O -O ${kv%=*}" || O="$O -O no${kv%=*}"
			done
		fi
		cat $D/trace > "$T_TMP/k.$n.$s"
		echo "$O" > "$T_TMP/o.$n.$s"
		if [ "$s" != default ]; then
			for kv in $(echo $s | tr , ' '); do
				echo $((1 - ${kv#*=})) > $D/options/${kv%=*}
			done
		fi
	done
	cat $TF/saved_tgids > "$T_TMP/tgids" 2>/dev/null
	"$PERFKIT" ftrace extract --instance $I -o "$T_TMP/$n.dat" -z none \
		> /dev/null 2> "$T_TMP/x.err" ||
		{ fail ftrace_ktext_$n "extract: $(cat "$T_TMP/x.err")"; return; }
	for s in "$@"; do
		"$PERFKIT" ftrace report --format=kernel -i "$T_TMP/$n.dat" \
			--tgids "$T_TMP/tgids" $(cat "$T_TMP/o.$n.$s") \
			> "$T_TMP/p.$n.$s" 2> "$T_TMP/p.err"
		lines=$(grep -c . "$T_TMP/k.$n.$s")
		if [ "$lines" -lt 20 ] && [ "$s" != bin=1 ]; then
			fail "ftrace_ktext_${n}_$s" "kernel text has only $lines lines"
		elif cmp -s "$T_TMP/k.$n.$s" "$T_TMP/p.$n.$s" ||
		     same_but_cmdlines "$T_TMP/k.$n.$s" "$T_TMP/p.$n.$s"; then
			ok "ftrace_ktext_${n}_$s"
		else
			fail "ftrace_ktext_${n}_$s" "$(diff "$T_TMP/k.$n.$s" \
				"$T_TMP/p.$n.$s" | grep -c '^<') lines differ: \
$(diff "$T_TMP/k.$n.$s" "$T_TMP/p.$n.$s" | head -3 | tr '\n' ' ')$(head -c 200 "$T_TMP/p.err")"
		fi
	done
	grep -q "perfkit marker $n" "$T_TMP/k.$n.$first" ||
		fail ftrace_ktext_${n}_marker "no marker line in the kernel text"
}

record local local || { fail ftrace_ktext "cannot create an instance"; exit 1; }
compare local default irq-info=0 latency-format=1 \
	latency-format=1,verbose=1 verbose=1 context-info=0 raw=1 hex=1 bin=1 \
	fields=1 sym-offset=1 sym-offset=1,sym-addr=1 print-parent=0 \
	irq-info=0,context-info=0 latency-format=1,irq-info=0 annotate=0
record tgid local record-tgid=1
compare tgid record-tgid=1 record-tgid=1,irq-info=0 \
	record-tgid=1,latency-format=1
# kernel_stack events (the stacktrace option): "<stack trace>" and " => "
record stack local stacktrace=1
echo 0 > $D/options/stacktrace
compare stack default sym-offset=1 sym-offset=1,sym-addr=1 raw=1
grep -q '^ => ' "$T_TMP/k.stack.default"
check ftrace_ktext_stack_present "no stack lines in the kernel text" $? -eq 0
# an overwritten buffer: header counts from the file's CPUSTAT overruns,
# the "##### CPU N buffer started ####" annotations, no LOST lines
RN=overrun; I=pkkt-$$-overrun; INSTS="$INSTS $I"; D=$TF/instances/$I
mkdir $D && echo 0 > $D/options/hash-ptr && echo 8 > $D/buffer_size_kb &&
echo 1 > $D/events/syscalls/sys_enter_getppid/enable &&
echo 1 > $D/events/sched/enable && echo 1 > $D/tracing_on &&
"$GP" 20000 > /dev/null && echo "perfkit marker overrun" > $D/trace_marker &&
echo 0 > $D/tracing_on
compare overrun default latency-format=1
w=$(sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\) .*/\1 \2/p' "$T_TMP/k.overrun.default")
check ftrace_ktext_overrun_counts "header '$w' shows no overrun" \
	"${w% *}" -lt "${w#* }"
for clk in global counter uptime x86-tsc mono mono_raw boot perf; do
	grep -qw "$clk" $TF/trace_clock || continue
	record $clk $clk
	# a changed clock resets the buffer: latency times are relative to it
	compare $clk default raw=1 hex=1 verbose=1
done

# the top-level buffer's header (read only: its events are not ours to
# consume): perfkit's header for an empty file with the top level's
# print options, the entries line's counts aside
if [ "$(cat $TF/current_tracer)" = nop ]; then
	RN=empty; I=pkkt-$$-empty; INSTS="$INSTS $I"; mkdir $TF/instances/$I
	"$PERFKIT" ftrace extract --instance $I -o "$T_TMP/empty.dat" -z none > /dev/null
	O=$(tr ' ' '\n' < $TF/trace_options | grep -E '^(no)?(irq-info|record-tgid|latency-format|verbose|context-info)$' | sed 's/^/-O /' | tr '\n' ' ')
	grep '^#' $TF/trace | sed 's|entries-written: [0-9]*/[0-9]*|entries-written: N/N|' > "$T_TMP/top.k"
	"$PERFKIT" ftrace report --format=kernel -i "$T_TMP/empty.dat" $O |
		sed 's|entries-written: [0-9]*/[0-9]*|entries-written: N/N|' > "$T_TMP/top.p"
	if grep -q 'latency trace' "$T_TMP/top.k"; then
		skip ftrace_ktext_top_header "the top level prints the latency format"
	else
		check ftrace_ktext_top_header "$(diff "$T_TMP/top.k" "$T_TMP/top.p" | head -4 | tr '\n' ' ')" \
			-z "$(diff "$T_TMP/top.k" "$T_TMP/top.p")"
	fi
else
	skip ftrace_ktext_top_header "the top level runs tracer $(cat $TF/current_tracer)"
fi

# ---- live ----
# Instances left by a perfkit that has ended: another test suite running
# beside this one has live perfkit instances of its own, which are not ours.
snap() {
	for i in $(ls $TF/instances | grep '^perfkit-[0-9]*$' | sort); do
		kill -0 "${i#perfkit-}" 2>/dev/null || echo "$i"
	done
	for f in tracing_on current_tracer trace_clock buffer_size_kb set_event \
		 set_event_pid tracing_cpumask options/event-fork; do
		echo "$f: $(cat $TF/$f 2>&1)"
	done
}
snap > "$T_TMP/before"
N=3000
"$PERFKIT" ftrace live -e syscalls:sys_enter_getppid -- "$GP" $N \
	> "$T_TMP/live.out" 2> "$T_TMP/live.err"
rc=$?
c=$(grep -c ': sys_getppid()$' "$T_TMP/live.out")
check ftrace_live_count "rc=$rc count=$c (want $N) $(head -c 200 "$T_TMP/live.err")" \
	$rc -eq 0 -a "$c" -eq $N
bad=$(grep -v ': sys_getppid()$' "$T_TMP/live.out" | head -2)
check ftrace_live_only_events "other lines: $bad" -z "$bad"
# the layout is the kernel's: TASK-PID [CPU] flags TIMESTAMP: text
l1=$(head -1 "$T_TMP/live.out")
echo "$l1" | grep -Eq '^ *getppid-[0-9]+ +\[[0-9]{3}\] [.dDbX][.nNlLpbB][.hHsSzZ][.0-9a-f][.0-9a-f] +[0-9]+\.[0-9]{6}: sys_getppid\(\)$'
check ftrace_live_layout "first line '$l1'" $? -eq 0
snap > "$T_TMP/after"
check ftrace_live_state "$(diff "$T_TMP/before" "$T_TMP/after" | head -3)" \
	-z "$(diff "$T_TMP/before" "$T_TMP/after")"
# a small buffer at full speed: what is not printed is said lost, exactly
N=300000
"$PERFKIT" ftrace live -b 64 -e syscalls:sys_enter_getppid -- "$GP" $N \
	> "$T_TMP/lost.out" 2> "$T_TMP/lost.err"
c=$(grep -c ': sys_getppid()$' "$T_TMP/lost.out")
l=$(sed -n 's/^CPU:[0-9]* \[LOST \([0-9]*\) EVENTS\]$/\1/p' "$T_TMP/lost.out" | awk '{ s += $1 } END { print s + 0 }')
u=$(grep -c 'LOST EVENTS\]' "$T_TMP/lost.out")
check ftrace_live_lost_exact "printed $c + lost $l != $N (unknown: $u) $(cat "$T_TMP/lost.err")" \
	$((c + l)) -eq $N -a "$u" -eq 0
if [ "$l" -gt 0 ]; then
	grep -q "$c events, $l lost" "$T_TMP/lost.err"
	check ftrace_live_lost_summary "$(cat "$T_TMP/lost.err")" $? -eq 0
else
	skip ftrace_live_lost_summary "nothing was lost with a 64 KB buffer"
fi
# the default buffer holds a million events at full speed
N=1000000
"$PERFKIT" ftrace live -e syscalls:sys_enter_getppid -- "$GP" $N \
	> "$T_TMP/m.out" 2> "$T_TMP/m.err"
c=$(grep -c ': sys_getppid()$' "$T_TMP/m.out")
l=$(sed -n 's/^CPU:[0-9]* \[LOST \([0-9]*\) EVENTS\]$/\1/p' "$T_TMP/m.out" | awk '{ s += $1 } END { print s + 0 }')
check ftrace_live_million "printed $c + lost $l != $N $(cat "$T_TMP/m.err")" \
	$((c + l)) -eq $N
rm -f "$T_TMP/m.out"
# -O options reach the printer
"$PERFKIT" ftrace live -e syscalls:sys_enter_getppid -O noirq-info \
	-O record-tgid -- "$GP" 10 > "$T_TMP/live2.out" 2>&1
head -1 "$T_TMP/live2.out" | grep -Eq '^ *getppid-[0-9]+ +\( *[0-9]+\) \[[0-9]{3}\] +[0-9]+\.[0-9]{6}: sys_getppid\(\)$'
check ftrace_live_options "$(head -1 "$T_TMP/live2.out")" $? -eq 0
for sig in INT TERM HUP; do
	# (the last round's output would pass for this one's: the shell's
	# child has not truncated it yet, perfkit not even started)
	rm -f "$T_TMP/sig.out"
	"$PERFKIT" ftrace live -e sched:sched_switch > "$T_TMP/sig.out" 2>&1 &
	lp=$!; t_bg $lp
	k=0; while [ ! -s "$T_TMP/sig.out" ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k+1)); done
	kill -$sig $lp
	k=0; while kill -0 $lp 2>/dev/null && [ $k -lt 50 ]; do sleep 0.1; k=$((k+1)); done
	wait $lp 2>/dev/null
	cat "$T_TMP/sig.out" >> "$T_TMP/sig.all"
	snap > "$T_TMP/after"
	check ftrace_live_sig$sig "$(diff "$T_TMP/before" "$T_TMP/after" | head -3)" \
		-z "$(diff "$T_TMP/before" "$T_TMP/after")" -a $k -lt 50
done
c=$(grep -c 'sched_switch: prev_comm=' "$T_TMP/sig.all")
check ftrace_live_stream "no sched_switch lines before the signals: $(head -c 300 "$T_TMP/sig.all")" "$c" -gt 0

# refused tracer and unknown event: one line each, tracefs as it was
if ! grep -qw function $TF/available_tracers; then
	skip ftrace_live_eperm "no function tracer in this kernel"
elif echo function > $TF/instances/pkkt-$$-local/current_tracer 2>/dev/null ||
     [ "$(cat $TF/current_tracer)" != nop ]; then
	skip ftrace_live_eperm "the function tracer is permitted here"
else
	"$PERFKIT" ftrace live -t function -- true > "$T_TMP/ep.out" 2>&1
	rc=$?
	check ftrace_live_eperm "rc=$rc $(cat "$T_TMP/ep.out")" $rc -eq 1 -a \
		"$(wc -l < "$T_TMP/ep.out")" -eq 1 -a -n "$(grep EPERM "$T_TMP/ep.out")"
fi
echo nop > $TF/instances/pkkt-$$-local/current_tracer 2>/dev/null
"$PERFKIT" ftrace live -e nosuch:event -- true > "$T_TMP/ne.out" 2>&1
rc=$?
check ftrace_live_no_event "rc=$rc $(cat "$T_TMP/ne.out")" $rc -ne 0 -a \
	"$(wc -l < "$T_TMP/ne.out")" -eq 1 -a -n "$(grep nosuch:event "$T_TMP/ne.out")"
snap > "$T_TMP/after"
check ftrace_live_state_errors "$(diff "$T_TMP/before" "$T_TMP/after" | head -3)" \
	-z "$(diff "$T_TMP/before" "$T_TMP/after")"

# ---- bad input: one line, no crash ----
"$PERFKIT" ftrace report --format=kernel -i /nonexistent > "$T_TMP/e1" 2>&1
rc=$?
check ftrace_ktext_missing_file "rc=$rc $(cat "$T_TMP/e1")" $rc -eq 1 -a "$(wc -l < "$T_TMP/e1")" -eq 1
"$PERFKIT" ftrace report --format=kernel -O no-such-option -i "$T_TMP/local.dat" > "$T_TMP/e2" 2>&1
rc=$?
check ftrace_ktext_bad_option "rc=$rc $(cat "$T_TMP/e2")" $rc -eq 1
head -c 3000 "$T_TMP/local.dat" > "$T_TMP/cut.dat"
"$PERFKIT" ftrace report --format=kernel -i "$T_TMP/cut.dat" > "$T_TMP/e3" 2>&1
rc=$?
check ftrace_ktext_truncated "rc=$rc" $rc -eq 1
t_exit
