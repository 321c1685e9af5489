#!/bin/sh
# Issue 15 parts 2-3 on a fake tracefs of regular files (PERFKIT_TRACEFS):
# what this kernel refuses (kprobes, kretprobes, synthetic events, hist
# triggers, latency tracers, hwlat) end to end with the exact writes
# (PERFKIT_TRACEFS_LOG) and the tree put back. The files hold what the
# kernel's documentation shows (spec/ftrace.md: §8 error_log, §9.2 the
# latency trace layout, §9.4 hwlat); the probe files are lists that the
# state below reads as the kernel does ("-:GRP/EV" and "!NAME" remove a
# definition, "!TRIGGER" a trigger).
# pk-test: check
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export PERFKIT_RUNDIR=$T_TMP/run
F=$T_TMP/tracing
S=$T_TMP/sys
LOG=$T_TMP/log
TF=/sys/kernel/tracing
mkdir -p $F $S
p() { _d=$F/$1; _d=${_d%/*}; [ -d "$_d" ] || mkdir -p "$_d"; printf '%b' "$2" > "$F/$1"; }
fmt_head='\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n'
ev() {  # ev SYS EVENT ID FIELDS PRINT: an event directory as the kernel makes it
	p events/$1/$2/enable '0\n'; p events/$1/$2/filter 'none\n'
	p events/$1/$2/trigger '# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n'
	p events/$1/$2/format "name: $2\nID: $3\nformat:\n$fmt_head$4\nprint fmt: $5\n"
}
build() {
	rm -rf $F; mkdir -p $F/instances
	p available_tracers 'hwlat blk irqsoff preemptoff preemptirqsoff wakeup wakeup_rt wakeup_dl function nop\n'
	p current_tracer 'nop\n'
	p tracing_on '1\n'
	p trace ''
	p trace_clock '[local] global counter\n'
	p set_event ''
	p set_event_pid ''
	p buffer_size_kb '1410\n'
	p tracing_cpumask '3\n'
	p tracing_thresh '0\n'
	p tracing_max_latency '0\n'
	p hwlat_detector/width '500000\n'
	p hwlat_detector/window '1000000\n'
	p kprobe_events ''
	p uprobe_events ''
	p dynamic_events ''
	p synthetic_events ''
	p error_log ''
	p options/event-fork '0\n'
	for c in 0 1; do
		p per_cpu/cpu$c/buffer_size_kb '1410\n'
		p per_cpu/cpu$c/trace_pipe_raw ''
	done
	ev sched sched_switch 316 '\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n' '"prev_comm=%s prev_pid=%d", REC->prev_comm, REC->prev_pid'
	p events/sched/sched_switch/hist '# event histogram\n#\n# trigger info: hist:keys=prev_pid:vals=hitcount:sort=hitcount:size=2048 [active]\n#\n\n{ prev_pid:          0 } hitcount:          7\n\nTotals:\n    Hits: 7\n    Entries: 1\n    Dropped: 0\n'
	# what the kernel makes when the probes are written
	ev kprobes myprobe 1900 '\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n\tfield:u64 dfd;\toffset:16;\tsize:8;\tsigned:0;\n' '"(%lx) dfd=0x%Lx", REC->__probe_ip, REC->dfd'
	ev kprobes myretprobe 1901 '\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n' '"(%lx <- %lx)", REC->__probe_func, REC->__probe_ret_ip'
	ev eprobes swt 1902 '\tfield:unsigned int __probe_type;\toffset:8;\tsize:4;\tsigned:0;\n\tfield:s32 prev;\toffset:12;\tsize:4;\tsigned:1;\n' '"(%u) prev=%d", REC->__probe_type, REC->prev'
	ev synthetic wakeup_lat 1903 '\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;\n\tfield:pid_t pid;\toffset:16;\tsize:4;\tsigned:1;\n' '"lat=%llu, pid=%d", REC->lat, REC->pid'
	for f in header_page header_event ftrace/function/format; do
		if [ -r $TF/events/$f ]; then mkdir -p $(dirname $F/events/$f); cp $TF/events/$f $F/events/$f; fi
	done
	: > $LOG
}
# the tree's state, with list files read as the kernel keeps them
state() {
	(cd $F && find . -type f | sort | xargs awk '
		function base(f) { sub(/.*\//, "", f); return f }
		BEGIN {
			for (i = 1; i < ARGC; i++) {
				f = ARGV[i]; b = base(f); n = 0; delete L
				while ((getline l < f) > 0) {
					if (l ~ /^#/) continue
					if (b ~ /_events$/ && l ~ /^-:/) {
						x = substr(l, 3)
						# "-:GRP/EV" removes "p:EV ..." too (the default group)
						y = x; sub(/^[^\/]*\//, "", y)
						for (k in L) { d = L[k]; sub(/ .*/, "", d); sub(/^[^:]*:/, "", d)
							if (d == x || d == y) delete L[k] }
						continue
					}
					if ((b == "synthetic_events" || b == "trigger") && l ~ /^!/) {
						x = substr(l, 2)
						for (k in L) { d = L[k]; if (b != "trigger") sub(/ .*/, "", d)
							if (d == x) delete L[k] }
						continue
					}
					L[n++] = l
				}
				close(f); t = ""
				for (k = 0; k < n; k++) if (k in L) t = t L[k] " "
				print f ": " t
			}
			exit
		}'; ls instances)
}
run() { PERFKIT_TRACEFS=$F PERFKIT_SYSCTL=$S PERFKIT_TRACEFS_LOG=$LOG "$PERFKIT" ftrace "$@"; }

if [ ! -r $F/events/header_page ] && [ ! -r $TF/events/header_page ]; then
	skip ftrace_dyn_fake "no readable $TF/events/header_page to build the tree with"
	t_exit; exit
fi

# kprobe, kretprobe, event probe, synthetic event and two triggers for a
# recording: each written once in the kernel's syntax, recorded, removed
build
state > $T_TMP/before
run record --top -a -o $T_TMP/k.dat \
	--probe 'p:myprobe do_sys_open dfd=%ax:u64' \
	--probe 'r:myretprobe do_sys_open' \
	--probe 'e:eprobes/swt sched.sched_switch prev=$prev_pid:s32' \
	--probe 'wakeup_lat u64 lat; pid_t pid' \
	-e sched:sched_switch -R 'hist:keys=prev_pid:vals=hitcount:sort=hitcount' \
	-R 'traceoff:1 if prev_pid == 0' -- true > $T_TMP/o 2> $T_TMP/e
rc=$?
check ftrace_dyn_fake_record "rc=$rc $(cat $T_TMP/e)" $rc -eq 0 -a -s $T_TMP/k.dat
cat > $T_TMP/want <<'EOF'
A kprobe_events p:myprobe do_sys_open dfd=%ax:u64
A kprobe_events r:myretprobe do_sys_open
A dynamic_events e:eprobes/swt sched.sched_switch prev=$prev_pid:s32
A synthetic_events wakeup_lat u64 lat; pid_t pid
W tracing_on 0
A events/sched/sched_switch/trigger hist:keys=prev_pid:vals=hitcount:sort=hitcount
A events/sched/sched_switch/trigger traceoff:1 if prev_pid == 0
W events/sched/sched_switch/enable 1
W events/kprobes/myprobe/enable 1
W events/kprobes/myretprobe/enable 1
W events/eprobes/swt/enable 1
W events/synthetic/wakeup_lat/enable 1
W trace 
EOF
sed -n '1,/^W trace $/p' $LOG > $T_TMP/got
check ftrace_dyn_fake_record_writes "$(diff $T_TMP/want $T_TMP/got | tr '\n' '|')" -z "$(diff $T_TMP/want $T_TMP/got)"
# undone in reverse: events off, triggers with "!", definitions last
cat > $T_TMP/want <<'EOF'
W tracing_on 1
W tracing_on 0
W events/synthetic/wakeup_lat/enable 0
W events/eprobes/swt/enable 0
W events/kprobes/myretprobe/enable 0
W events/kprobes/myprobe/enable 0
W events/sched/sched_switch/enable 0
A events/sched/sched_switch/trigger !traceoff:1 if prev_pid == 0
A events/sched/sched_switch/trigger !hist:keys=prev_pid:vals=hitcount:sort=hitcount
W tracing_on 1
A synthetic_events !wakeup_lat
A dynamic_events -:eprobes/swt
A kprobe_events -:kprobes/myretprobe
A kprobe_events -:kprobes/myprobe
EOF
sed -n '/^W trace $/,$p' $LOG | sed 1d > $T_TMP/got
check ftrace_dyn_fake_record_undo "$(diff $T_TMP/want $T_TMP/got | tr '\n' '|')" -z "$(diff $T_TMP/want $T_TMP/got)"
state > $T_TMP/after
check ftrace_dyn_fake_record_restored "$(diff $T_TMP/before $T_TMP/after | tr '\n' '|')" -z "$(diff $T_TMP/before $T_TMP/after)"
check ftrace_dyn_fake_journal_gone "$(ls $PERFKIT_RUNDIR)" -z "$(ls $PERFKIT_RUNDIR 2>/dev/null)"
# the file's formats hold the dynamic events' systems
"$PERFKIT" ftrace report --events -i $T_TMP/k.dat > $T_TMP/o 2>&1
check ftrace_dyn_fake_record_formats "$(cat $T_TMP/o | head -5)" \
	"$(grep -c -e '^name: myprobe' -e '^name: myretprobe' -e '^name: swt' -e '^name: wakeup_lat' $T_TMP/o)" -eq 4

# the kinds as parsed (the file each goes to)
build
run record --top -o $T_TMP/u.dat --probe 'p:pkx/up /bin/true:0x1000' -- true > /dev/null 2>&1
check ftrace_dyn_fake_uprobe_file "$(cat $LOG)" "$(grep -c '^A uprobe_events p:pkx/up /bin/true:0x1000$' $LOG)" -eq 1 -a \
	"$(grep -c '^A uprobe_events -:pkx/up$' $LOG)" -eq 1
# a kernel without kprobe_events: the definition goes to dynamic_events
build; rm $F/kprobe_events
state > $T_TMP/before
run record --top -o $T_TMP/k2.dat --probe 'p:myprobe do_sys_open' -- true > /dev/null 2>&1
state > $T_TMP/after
check ftrace_dyn_fake_dynamic_events "$(cat $LOG)" "$(grep -c '^A dynamic_events p:myprobe do_sys_open$' $LOG)" -eq 1 -a \
	"$(grep -c '^A dynamic_events -:kprobes/myprobe$' $LOG)" -eq 1 -a -z "$(diff $T_TMP/before $T_TMP/after)"

# a killed run (SIGKILL: no restore) is put back by `ftrace reset --stale` from
# its journal: the probe and trigger go, the top level comes back
build
state > $T_TMP/before
mkdir -p $PERFKIT_RUNDIR
(PERFKIT_TRACEFS=$F PERFKIT_TRACEFS_LOG=$LOG exec "$PERFKIT" ftrace record --top -o $T_TMP/x.dat \
	--probe 'p:myprobe do_sys_open' -e sched:sched_switch -R traceoff -- sleep 30) > /dev/null 2>&1 &
kp=$!
t_bg $kp
i=0; while ! grep -q '^W trace $' $LOG && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
kill -KILL $kp; wait $kp 2>/dev/null
state > $T_TMP/killed
nj=$(ls $PERFKIT_RUNDIR | wc -l)
run reset --stale > $T_TMP/o 2>&1
rc=$?
state > $T_TMP/after
check ftrace_dyn_fake_sigkill_reset "rc=$rc nj=$nj $(diff $T_TMP/before $T_TMP/after | tr '\n' '|')" $rc -eq 0 -a $nj -eq 1 -a \
	-n "$(diff $T_TMP/before $T_TMP/killed)" -a -z "$(diff $T_TMP/before $T_TMP/after)" -a \
	-z "$(ls $PERFKIT_RUNDIR)"

# latency tracer: tracing_thresh, tracing_max_latency reset, the tracer in
# the top level; the file holds the max-latency trace the kernel shows
# (here written by the command, as the kernel would during the run), and
# report prints it (trace-cmd 3.1's layout: cpus=N, the text, a newline)
cat > $T_TMP/lat <<'EOF'
# tracer: irqsoff
#
# irqsoff latency trace v1.1.5 on 3.8.0-test+
# --------------------------------------------------------------------
# latency: 259 us, #4/4, CPU#2 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:4)
#    -----------------
#    | task: ps-6143 (uid:0 nice:0 policy:0 rt_prio:0)
#    -----------------
#  => started at: __lock_task_sighand
#  => ended at:   _raw_spin_unlock_irqrestore
#
#
#                  _------=> CPU#            
#                 / _-----=> irqs-off        
#                | / _----=> need-resched    
#                || / _---=> hardirq/softirq 
#                ||| / _--=> preempt-depth   
#                |||| /     delay             
#  cmd     pid   ||||| time  |   caller      
#     \   /      |||||   \   |   /           
      ps-6143    2d...    0us!: trace_hardirqs_off <-__lock_task_sighand
      ps-6143    2d..1  259us+: trace_hardirqs_on <-_raw_spin_unlock_irqrestore
      ps-6143    2d..1  263us+: time_hardirqs_on <-_raw_spin_unlock_irqrestore
      ps-6143    2d..1  306us : <stack trace>
 => trace_hardirqs_on_caller
 => trace_hardirqs_on
 => _raw_spin_unlock_irqrestore
 => do_task_stat
EOF
build
state > $T_TMP/before
run record -t irqsoff --thresh 100 -o $T_TMP/l.dat -- sh -c "cat $T_TMP/lat > $F/trace" > $T_TMP/o 2> $T_TMP/e
rc=$?
check ftrace_dyn_fake_latency_record "rc=$rc $(cat $T_TMP/e)" $rc -eq 0
check ftrace_dyn_fake_latency_writes "$(tr '\n' '|' < $LOG)" \
	"$(grep -e '^W tracing_thresh' -e '^W tracing_max_latency' -e '^W current_tracer' $LOG | tr '\n' '|')" = \
	"W tracing_thresh 100|W tracing_max_latency 0|W current_tracer irqsoff|W current_tracer nop|W tracing_max_latency 0|W tracing_thresh 0|" -a \
	"$(grep -c 'instances' $LOG)" -eq 0 -a "$(grep -c 'instances have no tracers' $T_TMP/e)" -eq 0
{ echo "cpus=2"; cat $T_TMP/lat; echo; } > $T_TMP/want
"$PERFKIT" ftrace report -i $T_TMP/l.dat > $T_TMP/got 2>&1
check ftrace_dyn_fake_latency_report "$(diff $T_TMP/want $T_TMP/got | head -5 | tr '\n' '|')" -z "$(diff $T_TMP/want $T_TMP/got)"
if command -v trace-cmd > /dev/null 2>&1; then
	# trace-cmd 3.1.6 reads a compressed latency section as chunks (count,
	# then size pairs): a single block made it crash (status 139)
	trace-cmd report -i $T_TMP/l.dat > $T_TMP/tc 2>&1
	tc_rc=$?
	check ftrace_dyn_fake_latency_vs_trace_cmd "rc=$tc_rc $(diff $T_TMP/tc $T_TMP/got | head -5 | tr '\n' '|')" \
		$tc_rc -eq 0 -a -z "$(diff $T_TMP/tc $T_TMP/got)"
else
	skip ftrace_dyn_fake_latency_vs_trace_cmd "no trace-cmd"
fi
state > $T_TMP/after
# the command's write to trace is the kernel's doing here: leave it out
check ftrace_dyn_fake_latency_restored "$(diff $T_TMP/before $T_TMP/after | tr '\n' '|')" \
	"$(diff $T_TMP/before $T_TMP/after | grep -c '^[<>] ./trace:')" -eq "$(diff $T_TMP/before $T_TMP/after | grep -c '^[<>]')"

# trace-cmd's own latency files: trace-cmd record -p irqsoff on the tree
# (bound over $TF in a mount namespace); each report reads the other's
# file as its own, and the latency section has trace-cmd's shape (id,
# flags, chunk count, the buffer option; zstd's byte counts may differ)
tc_lat() {  # tc_lat OUT TEXT ARGS: trace-cmd's file of TEXT
	_o=$1 _t=$2; shift 2
	build; echo 1 > $T_TMP/fe
	unshare -m sh -c "mount --bind $F $TF || exit 99
		mount --bind $T_TMP/fe /proc/sys/kernel/ftrace_enabled || exit 98
		exec trace-cmd record -q -p irqsoff -o $_o \"\$@\" sh -c 'cat $_t > $TF/trace'" tc "$@" > /dev/null 2>&1
}
shape() {  # shape FILE: the latency section and buffer option (trace-cmd dump)
	trace-cmd dump -i $1 --sections > $T_TMP/sec 2>&1
	trace-cmd dump -i $1 --options 2>&1 | sed -n -e '/Option BUFFER/,/clock/{/offset/d;p;}' \
		-e '/Option CPUCOUNT/{n;p;}'
	sed -n 's/^.*\("buffer latency", flags 0x[0-9]*\).*/\1/p' $T_TMP/sec
	_at=$(sed -n 's/.*Section 22 @ \([0-9]*\) .*flags 0x1.*/\1/p' $T_TMP/sec)
	[ -z "$_at" ] || echo "chunks $(od -An -tu4 -j $((_at + 16)) -N4 $1)"
}
{ cat $T_TMP/lat; i=0; while [ $i -lt 1500 ]; do
	echo "      ps-6143    2d..1  ${i}us : trace_hardirqs_on <-_raw_spin_unlock_irqrestore"; i=$((i+1)); done; } > $T_TMP/biglat
if [ "$(id -u)" != 0 ] || ! command -v trace-cmd > /dev/null || ! command -v unshare > /dev/null ||
   [ ! -d $TF ] || [ ! -e /proc/sys/kernel/ftrace_enabled ]; then
	skip ftrace_dyn_fake_latency_tc_files "needs root, trace-cmd, unshare and $TF"
else
	while IFS='|' read -r name text tcargs pkargs; do
		tc_lat $T_TMP/t.dat $T_TMP/$text $tcargs
		build
		run record -t irqsoff -o $T_TMP/p.dat $pkargs -- sh -c "cat $T_TMP/$text > $F/trace" > /dev/null 2>&1
		trace-cmd report -i $T_TMP/t.dat > $T_TMP/tt 2>&1; r1=$?
		trace-cmd report -i $T_TMP/p.dat > $T_TMP/tp 2>&1; r2=$?
		"$PERFKIT" ftrace report -i $T_TMP/t.dat > $T_TMP/pt 2>&1; r3=$?
		"$PERFKIT" ftrace report -i $T_TMP/p.dat > $T_TMP/pp 2>&1; r4=$?
		shape $T_TMP/t.dat > $T_TMP/st; shape $T_TMP/p.dat > $T_TMP/sp
		{ echo cpus=2; cat $T_TMP/$text; echo; } > $T_TMP/want
		check "ftrace_dyn_fake_latency_tc_$name" "rc=$r1/$r2/$r3/$r4 $(diff $T_TMP/want $T_TMP/tt | head -3 | tr '\n' '|') $(diff $T_TMP/tt $T_TMP/tp | head -3 | tr '\n' '|') $(diff $T_TMP/st $T_TMP/sp | tr '\n' '|')" \
			$r1$r2$r3$r4 = 0000 -a -z "$(diff $T_TMP/want $T_TMP/tt)" -a -z "$(diff $T_TMP/tt $T_TMP/tp)" -a \
			-z "$(diff $T_TMP/tt $T_TMP/pt)" -a -z "$(diff $T_TMP/tt $T_TMP/pp)" -a -s $T_TMP/st -a -z "$(diff $T_TMP/st $T_TMP/sp)"
	done <<EOF
zstd|lat||
none|lat|--compression none|-z none
zstd_chunks|biglat||
none_big|biglat|--compression none|-z none
EOF
fi

# hwlat: width and window (the window first when it grows past the width)
build
state > $T_TMP/before
run record -t hwlat --hwlat-width 900000 --hwlat-window 2000000 -o $T_TMP/h.dat -- true > /dev/null 2> $T_TMP/e
rc=$?
state > $T_TMP/after
check ftrace_dyn_fake_hwlat "rc=$rc $(cat $T_TMP/e) $(tr '\n' '|' < $LOG)" $rc -eq 0 -a \
	"$(grep -e '^W hwlat_detector' $LOG | tr '\n' '|')" = "W hwlat_detector/window 2000000|W hwlat_detector/width 900000|W hwlat_detector/width 500000|W hwlat_detector/window 1000000|" -a \
	-z "$(diff $T_TMP/before $T_TMP/after)"
build
run record -t hwlat --hwlat-width 100000 --hwlat-window 200000 -o $T_TMP/h.dat -- true > /dev/null 2>&1
check ftrace_dyn_fake_hwlat_shrink "$(tr '\n' '|' < $LOG)" \
	"$(grep -e '^W hwlat_detector' $LOG | head -2 | tr '\n' '|')" = "W hwlat_detector/width 100000|W hwlat_detector/window 200000|"

# hist: the kernel's hist file as it is, and around a command with a trigger
build
state > $T_TMP/before
run hist sched:sched_switch > $T_TMP/o 2>&1
check ftrace_dyn_fake_hist_show "$(cat $T_TMP/o)" "$(cat $T_TMP/o)" = "$(cat $F/events/sched/sched_switch/hist)" -a ! -s $LOG
run hist -R 'hist:keys=prev_pid:vals=hitcount:sort=hitcount' sched:sched_switch -- true > $T_TMP/o 2>&1
rc=$?
state > $T_TMP/after
check ftrace_dyn_fake_hist_trigger "rc=$rc $(tr '\n' '|' < $LOG)" $rc -eq 0 -a \
	"$(tr '\n' '|' < $LOG)" = "A events/sched/sched_switch/trigger hist:keys=prev_pid:vals=hitcount:sort=hitcount|A events/sched/sched_switch/trigger !hist:keys=prev_pid:vals=hitcount:sort=hitcount|" -a \
	"$(grep -c 'Hits: 7' $T_TMP/o)" -eq 1 -a -z "$(diff $T_TMP/before $T_TMP/after)"
run hist sched:nosuch > $T_TMP/o 2>&1
check ftrace_dyn_fake_hist_missing "rc=$? $(cat $T_TMP/o)" "$(grep -c 'no such file' $T_TMP/o)" -eq 1

# probe list: the kernel's list files
build
p kprobe_events 'p:kprobes/myprobe do_sys_open\n'
p uprobe_events 'p:uprobes/up /bin/true:0x0000000000001000\n'
rm $F/dynamic_events
run probe list > $T_TMP/o 2>&1
check ftrace_dyn_fake_probe_list "$(cat $T_TMP/o)" "$(tr '\n' '|' < $T_TMP/o)" = "p:kprobes/myprobe do_sys_open|p:uprobes/up /bin/true:0x0000000000001000|"
t_exit
