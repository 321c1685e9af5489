#!/bin/sh
# perfkit ftrace extract (trace-cmd extract 3.1's options) on a fake
# tracefs of regular files, against trace-cmd itself on a copy of the same
# tree bound over /sys/kernel/tracing in a private mount namespace (as
# ftrace_state.sh). The trees' trace_pipe_raw files hold pages a private
# instance of this kernel recorded (sched_switch, sched_wakeup), with the
# kernel's formats. Both run under strace: their writes are equal line for
# line (tests/data/ftstate/strace_writes.awk), and each report reads both
# files as trace-cmd's report does. Kept differences: -p LATENCY without
# -k (trace-cmd clears the buffers before it reads the trace text: its
# file holds the cleared "0"; perfkit reads the text first) and -s
# (trace-cmd 3.1.6 ignores it, reading trace_pipe_raw; perfkit reads
# snapshot_raw).
# pk-test: check
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export PERFKIT_RUNDIR=$T_TMP/run
. tests/lib/fttree.sh
ft_need_pages ftrace_extract 3

buffer() {  # buffer TREE PREFIX: one buffer's files
	ft_buffer $1 "$2" "trace_pipe_raw snapshot_raw" "current_tracer:function" \
		  "available_tracers:irqsoff function nop" \
		  "tracing_on:1" "trace:# tracer: irqsoff\n#\n  <idle>-0  0d.h1  0us : x" \
		  "trace_clock:local [global] counter" "set_event:sched:sched_switch" \
		  "trace_options:print-parent\nnosym-offset\nfunc_stack_trace" \
		  "set_ftrace_pid:12" "buffer_size_kb:1410" \
		  "events/enable:1" "events/sched/enable:1" "events/sched/filter:none"
}
# the top level holds the first two pages, foo the third, bar none; -s
# variant (SNAP=1): the pages are in snapshot_raw instead
build() {
	ft_root $1
	buffer $1 ""; buffer $1 instances/foo/; buffer $1 instances/bar/
	ft_p $1 available_events 'sched:sched_switch\nsched:sched_wakeup\n'
	ft_formats $1 sched_switch sched_wakeup
	_raw=trace_pipe_raw; [ "$SNAP" = 1 ] && _raw=snapshot_raw
	for c in 0 1; do
		head -c 8192 $T_TMP/raw$c > $1/per_cpu/cpu$c/$_raw
		tail -c +8193 $T_TMP/raw$c > $1/instances/foo/per_cpu/cpu$c/$_raw
	done
}
# tc ARGS: trace-cmd extract on tree $T_TMP/a into $T_TMP/a.dat
tc() { build $T_TMP/a; ft_tc $T_TMP/a $T_TMP/a extract -o $T_TMP/a.dat "$@"; }
# pk ARGS: perfkit ftrace extract on tree $T_TMP/b into $T_TMP/b.dat
pk() { build $T_TMP/b; rm -f $T_TMP/b.dat; ft_pk $T_TMP/b $T_TMP/b extract -o $T_TMP/b.dat "$@"; }
# reports of both files by both programs: NAME the case
reports() {
	trace-cmd report -i $T_TMP/a.dat > $T_TMP/ta 2>&1; _r1=$?
	trace-cmd report -i $T_TMP/b.dat > $T_TMP/tb 2>&1; _r2=$?
	"$PERFKIT" ftrace report -i $T_TMP/a.dat > $T_TMP/pa 2>&1; _r3=$?
	"$PERFKIT" ftrace report -i $T_TMP/b.dat > $T_TMP/pb 2>&1; _r4=$?
	echo "$_r1$_r2$_r3$_r4"
}

while IFS='|' read -r name args; do
	eval "set -- $args"
	tc "$@"; rc1=$?
	pk "$@"; rc2=$?
	r=$(reports)
	check "ftrace_extract_$name" "rc=$rc1/$rc2/$r $(diff $T_TMP/a.w $T_TMP/b.w | head -8 | tr '\n' '|') $(diff $T_TMP/ta $T_TMP/tb | head -3 | tr '\n' '|') $(diff $T_TMP/ta $T_TMP/pb | head -3 | tr '\n' '|') $(head -3 $T_TMP/b.out)" \
		$rc1 -eq 0 -a $rc2 -eq 0 -a "$r" = 0000 -a -z "$(diff $T_TMP/a.w $T_TMP/b.w)" -a \
		-z "$(diff $T_TMP/ta $T_TMP/tb)" -a -z "$(diff $T_TMP/ta $T_TMP/pa)" -a \
		-z "$(diff $T_TMP/ta $T_TMP/pb)" -a "$(grep -c sched_ $T_TMP/ta)" -gt 0
done <<'EOF'
top|
instance|-B foo
instance_top|-B foo -t
all|-a
two|-B foo -B bar
keep|-k
all_keep|-a -k
options|-O noprint-parent -O sym-offset -O nofunc_stack_trace -O func_stack_trace -O nosuch
options_instance|-B foo -O noprint-parent -t -O print-parent -B bar -O sym-offset
function|-p function
uncompressed|-B foo --compression none -k
EOF

# a latency tracer: -k, the same text in both files
tc -p irqsoff -k; rc1=$?
pk -p irqsoff -k; rc2=$?
r=$(reports)
{ echo cpus=2; cat $T_TMP/b/trace; echo; } > $T_TMP/want
check ftrace_extract_latency_keep "rc=$rc1/$rc2/$r $(diff $T_TMP/a.w $T_TMP/b.w | tr '\n' '|') $(diff $T_TMP/want $T_TMP/ta | tr '\n' '|')" \
	$rc1$rc2 = 00 -a "$r" = 0000 -a ! -s $T_TMP/a.w -a ! -s $T_TMP/b.w -a -z "$(diff $T_TMP/want $T_TMP/ta)" -a \
	-z "$(diff $T_TMP/ta $T_TMP/tb)" -a -z "$(diff $T_TMP/ta $T_TMP/pb)" -a -z "$(diff $T_TMP/ta $T_TMP/pa)"
# without -k: the same writes; trace-cmd's file has the cleared text
tc -p irqsoff; rc1=$?
pk -p irqsoff; rc2=$?
r=$(reports)
check ftrace_extract_latency "rc=$rc1/$rc2/$r $(diff $T_TMP/a.w $T_TMP/b.w | tr '\n' '|') $(diff $T_TMP/want $T_TMP/tb | tr '\n' '|')" \
	$rc1$rc2 = 00 -a "$r" = 0000 -a -s $T_TMP/a.w -a -z "$(diff $T_TMP/a.w $T_TMP/b.w)" -a \
	-z "$(diff $T_TMP/want $T_TMP/tb)" -a -z "$(diff $T_TMP/tb $T_TMP/pb)" -a \
	"$(sed -n 2p $T_TMP/ta)" = 0

# -s: perfkit reads snapshot_raw; trace-cmd's file of the same pages in
# trace_pipe_raw is the reference
tc -B foo; rc1=$?
SNAP=1 pk -s -B foo; rc2=$?
r=$(reports)
check ftrace_extract_snapshot "rc=$rc1/$rc2/$r $(diff $T_TMP/a.w $T_TMP/b.w | tr '\n' '|') $(diff $T_TMP/ta $T_TMP/tb | head -3 | tr '\n' '|')" \
	$rc1$rc2 = 00 -a "$r" = 0000 -a -z "$(diff $T_TMP/a.w $T_TMP/b.w)" -a -z "$(diff $T_TMP/ta $T_TMP/tb)" -a \
	"$(grep -c sched_ $T_TMP/tb)" -gt 0

# --instance: perfkit's own form, nothing written to the tree
pk --instance foo; rc=$?
"$PERFKIT" ftrace report -i $T_TMP/b.dat > $T_TMP/pb 2>&1
check ftrace_extract_instance_only "rc=$rc $(cat $T_TMP/b.w | tr '\n' '|') $(head -2 $T_TMP/b.out)" \
	$rc -eq 0 -a ! -s $T_TMP/b.w -a "$(grep -c sched_ $T_TMP/pb)" -gt 0

# refused: nothing written, one line (then the usage after getopt's), exit
# 1 (bad tree input) or 2 (usage)
while IFS='|' read -r name want args; do
	eval "set -- $args"
	pk "$@"; rc=$?
	check "ftrace_extract_bad_$name" "rc=$rc $(cat $T_TMP/b.out) $(tr '\n' '|' < $T_TMP/b.w)" \
		$rc -eq $want -a ! -s $T_TMP/b.w -a ! -e $T_TMP/b.dat -a \
		"$(grep -c -e '^perfkit ftrace extract: ' -e "^extract: " $T_TMP/b.out)" -eq 1
done <<'EOF'
no_instance|1|-B nosuch
no_tracer|1|-p nosuch
stray|2|extra
instance_and_b|2|--instance foo -B bar
bad_option|2|-Q
EOF
t_exit
