#!/bin/sh
# Issue 15 item 5, files and formats. Sub-buffer sizes: this VM refuses
# writes to buffer_subbuf_size_kb (EPERM), so `record --subbuf-size 8`
# runs on a fixture tree (PERFKIT_TRACEFS) whose trace_pipe_raw holds
# this kernel's own pages, each padded to 8 KiB (an 8 KiB sub-buffer
# with the same events): trace-cmd 3.1 must print the resulting file as
# it prints the 4 KiB original. TGIDs stored in the file: the kernel's
# own `trace` text of an instance with record-tgid equals perfkit's
# kernel text of the extracted file with no side file. Clocks boot and
# tai as trace-cmd prints them. The tracefs files of item 5 (snapshot
# --cpu, extract -s, free-buffer, --notrace-pid, state) on the fixture
# tree (exact writes, the tree as it was after) and read-only live.
# pk-test: slow lock=tracefs
. tests/lib/sh.sh
T_NAME=ftrace_files
. tests/lib/ftrace.sh
need_built ftrace_files "$PERFKIT"
HAVE_TC=1
command -v trace-cmd > /dev/null 2>&1 || HAVE_TC=
INSTS=""
cleanup() {
	for i in $INSTS; do
		[ -d $TF/instances/$i ] || continue
		echo 0 > $TF/instances/$i/tracing_on 2>/dev/null
		echo 0 > $TF/instances/$i/events/enable 2>/dev/null
		rmdir $TF/instances/$i 2>/dev/null
	done
}
t_atexit cleanup
# names aside: "TASK-PID [CPU] ..." from the "-PID" on (the fixture's
# saved_cmdlines is a copy taken later than the live recording's)
nonames() { sed 's/^ *.*-\([0-9][0-9]* *\[[0-9]\{3\}\]\)/-\1/' "$1"; }

# ---- a live recording: this kernel's 4 KiB pages, uncompressed ----
"$PERFKIT" ftrace record -q -z none -e sched:sched_switch \
	-e syscalls:sys_enter_getppid -o "$T_TMP/live.dat" -- \
	sh -c "taskset -c 0 $GP 300 & taskset -c 1 $GP 300; wait" \
	> /dev/null 2> "$T_TMP/e"
rc=$?
check ftrace_files_live_record "rc=$rc $(cat "$T_TMP/e")" $rc -eq 0
# each CPU's pages: offset and size from report --stat (trace-cmd's text)
"$PERFKIT" ftrace report --stat -i "$T_TMP/live.dat" > "$T_TMP/stat"
cpu_pages() {   # CPU OUT: the CPU's raw pages into OUT
	_o=$(sed -n "s/^CPU$1 data recorded at offset=\(0x[0-9a-f]*\)/\1/p" "$T_TMP/stat")
	_n=$(sed -n "/^CPU$1 data/{n;s/^ *\([0-9]*\) bytes.*/\1/p}" "$T_TMP/stat")
	: > "$2"
	[ -n "$_o" ] && [ -n "$_n" ] && [ "$_n" -gt 0 ] || return 0
	dd if="$T_TMP/live.dat" of="$2" bs=4096 skip=$(($_o / 4096)) \
		count=$(($_n / 4096)) 2> /dev/null
}
pad8k() {      # IN OUT: each 4 KiB page followed by 4 KiB of zeros
	: > "$2"
	_np=$(($(wc -c < "$1") / 4096)); _i=0
	while [ $_i -lt $_np ]; do
		dd if="$1" bs=4096 skip=$_i count=1 2> /dev/null >> "$2"
		head -c 4096 /dev/zero >> "$2"
		_i=$((_i + 1))
	done
}
cpu_pages 0 "$T_TMP/cpu0.raw"; cpu_pages 1 "$T_TMP/cpu1.raw"
np=$(($(cat "$T_TMP/cpu0.raw" "$T_TMP/cpu1.raw" | wc -c) / 4096))
check ftrace_files_live_pages "$np pages" $np -ge 2

# ---- the fixture tree (tests/lib/fttree.sh's helpers) ----
. tests/lib/fttree.sh
F=$T_TMP/tracing; S=$F.sys; LOG=$T_TMP/log
p() { ft_p $F "$@"; }
build() {
	ft_root $F; printf '0\n' > $S/ftrace_enabled
	ft_buffer $F "" "trace_pipe_raw snapshot_raw" "available_tracers:function nop" \
		current_tracer:nop tracing_on:1 "trace_clock:[local] global counter boot" \
		buffer_size_kb:1410 buffer_subbuf_size_kb:4 tracing_cpumask:3 \
		options/disable_on_free:0 options/record-tgid:0 options/event-fork:0 \
		"timestamp_mode:delta [absolute]" \
		"snapshot:# tracer: nop\n#\n# * Snapshot is freed *" \
		"dyn_ftrace_total_info:52170 pages:204 groups: 16\nftrace boot update time = 1 (ns)" \
		"enabled_functions:schedule (1)           \ttramp: 0xffffffffc0360000 (call_depth_return_thunk+0x0/0x20) ->ftrace_ops_list_func+0x0/0x1f0\nvfs_read (2) R I   M " \
		"touched_functions:schedule (0)           \nvfs_read (0)    D   \ttramp: ftrace_regs_caller+0x0/0x65" \
		events/sched/sched_switch/enable:0 events/sched/sched_switch/filter:none \
		events/syscalls/sys_enter_getppid/enable:0
	for f in trace set_event set_event_pid set_event_notrace_pid set_ftrace_notrace_pid free_buffer; do
		p $f ''
	done
	for c in 0 1; do
		p per_cpu/cpu$c/snapshot '# tracer: nop\n'
		p per_cpu/cpu$c/stats "entries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\noldest event ts: 1.0\nnow ts: 2.0\ndropped events: 0\nread events: 0\n"
	done
	for f in header_page header_event; do cp $TF/events/$f $F/events/$f; done
	mkdir -p $F/events/ftrace/print
	cp $TF/events/ftrace/print/format $F/events/ftrace/print/format
	cp $TF/events/sched/sched_switch/format $F/events/sched/sched_switch/format
	cp $TF/events/syscalls/sys_enter_getppid/format \
		$F/events/syscalls/sys_enter_getppid/format
	cp $TF/saved_cmdlines $F/saved_cmdlines
	: > $LOG
}
state() {
	(cd $F && find . -type f ! -name '*_raw' | sort | while read -r f; do
		printf '%s: %s\n' "$f" "$(tr '\n' ' ' < "$f" | head -c 300 | sed 's/ *$//')"
	done)
}
run() { PERFKIT_TRACEFS=$F PERFKIT_SYSCTL=$S PERFKIT_TRACEFS_LOG=$LOG "$PERFKIT" ftrace "$@"; }

# --subbuf-size 8: written after the buffer size, read back, put back
build
sed 's/size:4080;/size:8176;/' $TF/events/header_page > $F/events/header_page
pad8k "$T_TMP/cpu0.raw" $F/per_cpu/cpu0/trace_pipe_raw
pad8k "$T_TMP/cpu1.raw" $F/per_cpu/cpu1/trace_pipe_raw
state > "$T_TMP/before"
run record --top -q -z none -b 2048 --subbuf-size 8 -e sched:sched_switch \
	-e syscalls:sys_enter_getppid -o "$T_TMP/s8.dat" -- true 2> "$T_TMP/e"
rc=$?
state > "$T_TMP/after"
check ftrace_files_subbuf_writes "rc=$rc $(cat "$T_TMP/e") $(cat $LOG)" $rc -eq 0 -a \
	"$(sed -n '2,3p' $LOG | tr '\n' '|')" = "W buffer_size_kb 2048|W buffer_subbuf_size_kb 8|" -a \
	"$(grep -c '^W buffer_subbuf_size_kb 4$' $LOG)" -eq 1
check ftrace_files_subbuf_restored "$(diff "$T_TMP/before" "$T_TMP/after")" \
	-z "$(diff "$T_TMP/before" "$T_TMP/after")"
ps=$(od -An -tu4 -j14 -N4 "$T_TMP/s8.dat" 2> /dev/null | tr -d ' ')
check ftrace_files_subbuf_page_size "page size '$ps'" "$ps" = 8192
"$PERFKIT" ftrace report -i "$T_TMP/s8.dat" > "$T_TMP/p8" 2>&1
"$PERFKIT" ftrace report -i "$T_TMP/live.dat" > "$T_TMP/p4" 2>&1
n8=$(grep -c 'sched_switch:\|sys_enter_getppid:' "$T_TMP/p8")
check ftrace_files_subbuf_records "$n8 records of $(grep -c 'sched_switch:\|sys_enter_getppid:' "$T_TMP/p4")" \
	"$n8" -gt 0 -a "$(nonames "$T_TMP/p8")" = "$(nonames "$T_TMP/p4")"
if [ -n "$HAVE_TC" ]; then
	tc_report "$T_TMP/p8" "$T_TMP/t8" -i "$T_TMP/s8.dat"
	trace-cmd report -i "$T_TMP/live.dat" > "$T_TMP/t4" 2> /dev/null
	check ftrace_files_subbuf_vs_tracecmd "$(diff "$T_TMP/p8" "$T_TMP/t8" | head -4)" \
		-z "$(diff "$T_TMP/p8" "$T_TMP/t8")"
	check ftrace_files_subbuf_tracecmd_same_records "$(diff "$T_TMP/t8" "$T_TMP/t4" | head -4)" \
		"$(nonames "$T_TMP/t8")" = "$(nonames "$T_TMP/t4")"
else
	skip ftrace_files_subbuf_vs_tracecmd "trace-cmd not installed"
fi
# ftrace live reads the same 8 KiB pages (trace_pipe's text)
build
sed 's/size:4080;/size:8176;/' $TF/events/header_page > $F/events/header_page
pad8k "$T_TMP/cpu0.raw" $F/per_cpu/cpu0/trace_pipe_raw
pad8k "$T_TMP/cpu1.raw" $F/per_cpu/cpu1/trace_pipe_raw
# (the live printer learns the formats from set_event, which a tree of
# files does not fill in by itself)
p set_event 'sched:sched_switch\nsyscalls:sys_enter_getppid\n'
run live --top --subbuf-size 8 -e sched:sched_switch -e syscalls:sys_enter_getppid \
	-- true > "$T_TMP/lv" 2> "$T_TMP/e"
rc=$?
"$PERFKIT" ftrace report --format=kernel -i "$T_TMP/live.dat" | grep -v '^#' > "$T_TMP/kl"
check ftrace_files_subbuf_live_fixture "rc=$rc $(cat "$T_TMP/e") $(diff "$T_TMP/kl" "$T_TMP/lv" | head -3)" \
	$rc -eq 0 -a "$(grep -c 'W buffer_subbuf_size_kb 8' $LOG)" -eq 1 -a \
	"$(nonames "$T_TMP/lv")" = "$(nonames "$T_TMP/kl")"
# pages whose records go past the first 4 KiB (made by the unit test's
# page encoder): 700 sched_wakeup records a CPU in 8 KiB pages
if [ -x $PK_BUILD/tests/ftrace_files ] &&
   PK_FILES_PAGES=$T_TMP $PK_BUILD/tests/ftrace_files 2> /dev/null; then
	build
	rm -rf $F/events/sched $F/events/syscalls
	mkdir -p $F/events/sched/sched_wakeup
	cp "$T_TMP/format" $F/events/sched/sched_wakeup/format
	p events/sched/sched_wakeup/enable '0\n'
	p set_event 'sched:sched_wakeup\n'
	sed 's/size:4080;/size:8176;/' $TF/events/header_page > $F/events/header_page
	cp "$T_TMP/cpu0" $F/per_cpu/cpu0/trace_pipe_raw
	cp "$T_TMP/cpu1" $F/per_cpu/cpu1/trace_pipe_raw
	run record --top -q -z none --subbuf-size 8 -e sched:sched_wakeup \
		-o "$T_TMP/w8.dat" -- true 2> "$T_TMP/e"
	rc=$?
	"$PERFKIT" ftrace report -i "$T_TMP/w8.dat" > "$T_TMP/pw" 2>&1
	check ftrace_files_subbuf_full_pages "rc=$rc $(cat "$T_TMP/e") $(head -3 "$T_TMP/pw")" \
		$rc -eq 0 -a "$(grep -c 'sched_wakeup: *task[0-9]*:[0-9]* \[120\] CPU:00[01]$' "$T_TMP/pw")" -eq 1400
	if [ -n "$HAVE_TC" ]; then
		tc_report "$T_TMP/pw" "$T_TMP/tw" -i "$T_TMP/w8.dat"
		check ftrace_files_subbuf_full_pages_vs_tracecmd "$(diff "$T_TMP/pw" "$T_TMP/tw" | head -4)" \
			-z "$(diff "$T_TMP/pw" "$T_TMP/tw")"
	fi
	cp "$T_TMP/cpu0" $F/per_cpu/cpu0/trace_pipe_raw
	cp "$T_TMP/cpu1" $F/per_cpu/cpu1/trace_pipe_raw
	run live --top --subbuf-size 8 -e sched:sched_wakeup -- true > "$T_TMP/lw" 2> "$T_TMP/e"
	rc=$?
	check ftrace_files_subbuf_full_pages_live "rc=$rc $(cat "$T_TMP/e") $(head -3 "$T_TMP/lw")" \
		$rc -eq 0 -a "$(grep -c 'sched_wakeup: comm=task[0-9]* pid=[0-9]* prio=120 target_cpu=00[01]$' "$T_TMP/lw")" -eq 1400
else
	skip ftrace_files_subbuf_full_pages "no $PK_BUILD/tests/ftrace_files (make $PK_BUILD/tests/ftrace_files)"
fi
run record --subbuf-size 8k -o "$T_TMP/x.dat" -- true > "$T_TMP/o" 2>&1
rc=$?
check ftrace_files_subbuf_bad "rc=$rc $(cat "$T_TMP/o")" $rc -eq 2 -a \
	"$(wc -l < "$T_TMP/o")" -eq 1 -a ! -e "$T_TMP/x.dat"
# live: the kernel refuses it here; one clear line, nothing left behind
ls $TF/instances | sort > "$T_TMP/i0"
"$PERFKIT" ftrace record --subbuf-size 8 -e sched:sched_switch \
	-o "$T_TMP/y.dat" -- true > "$T_TMP/o" 2>&1
rc=$?
ls $TF/instances | grep -v "^perfkit-" | sort > "$T_TMP/i1"
grep -v "^perfkit-" "$T_TMP/i0" > "$T_TMP/i0b"
if [ "$(cat $TF/buffer_subbuf_size_kb)" -ne 4 ] || [ $rc -eq 0 ]; then
	check ftrace_files_subbuf_live "rc=$rc $(cat "$T_TMP/o")" $rc -eq 0
else
	check ftrace_files_subbuf_live_refused "rc=$rc $(cat "$T_TMP/o")" $rc -eq 1 -a \
		"$(grep -c 'buffer_subbuf_size_kb 8: Operation not permitted' "$T_TMP/o")" -eq 1 -a \
		-z "$(diff "$T_TMP/i0b" "$T_TMP/i1")"
fi

# ---- extract -s: the snapshot's raw pages (this kernel has no snapshot) --
# (-k: no trace-cmd clean-up writes; ftrace_extract.sh compares those)
build
cp "$T_TMP/cpu0.raw" $F/per_cpu/cpu0/snapshot_raw
cp "$T_TMP/cpu1.raw" $F/per_cpu/cpu1/snapshot_raw
run extract -s -k -z none -o "$T_TMP/snap.dat" > "$T_TMP/o" 2> "$T_TMP/e"
rc=$?
"$PERFKIT" ftrace report -i "$T_TMP/snap.dat" > "$T_TMP/ps" 2>&1
check ftrace_files_extract_snapshot "rc=$rc $(cat "$T_TMP/e") $(diff "$T_TMP/ps" "$T_TMP/p4" | head -3)" \
	$rc -eq 0 -a "$(nonames "$T_TMP/ps")" = "$(nonames "$T_TMP/p4")" -a ! -s $LOG
if [ -n "$HAVE_TC" ]; then
	tc_report "$T_TMP/ps" "$T_TMP/ts" -i "$T_TMP/snap.dat"
	check ftrace_files_extract_snapshot_vs_tracecmd "$(diff "$T_TMP/ps" "$T_TMP/ts" | head -4)" \
		-z "$(diff "$T_TMP/ps" "$T_TMP/ts")"
fi
run extract -s 2 -o "$T_TMP/z.dat" > "$T_TMP/o" 2>&1
check ftrace_files_extract_snapshot_extra "rc=$? $(cat "$T_TMP/o")" ! -e "$T_TMP/z.dat"

# ---- per-CPU snapshot, free-buffer, --notrace-pid, state ----
build
state > "$T_TMP/before"
run snapshot --cpu 1 take > "$T_TMP/o" 2> "$T_TMP/e"
rc=$?
state > "$T_TMP/after"
check ftrace_files_snapshot_cpu "rc=$rc out=$(cat "$T_TMP/o") $(cat "$T_TMP/e") $(cat $LOG)" $rc -eq 0 -a \
	"$(tr '\n' '|' < $LOG)" = "W per_cpu/cpu1/snapshot 1|W snapshot 0|" -a \
	"$(cat "$T_TMP/o")" = "1"
# (a file of the tree keeps what was written: the CPU's file shows the
# "1", the buffer's snapshot file the "0" that frees the snapshot again)
check ftrace_files_snapshot_cpu_restored "$(diff "$T_TMP/before" "$T_TMP/after")" \
	"$(diff "$T_TMP/before" "$T_TMP/after" | grep '^>' | tr '\n' '|')" = \
	"> ./per_cpu/cpu1/snapshot: 1|> ./snapshot: 0|"
build; state > "$T_TMP/before"
run snapshot --cpu 0 free > "$T_TMP/o" 2>&1
rc=$?; state > "$T_TMP/after"
check ftrace_files_snapshot_cpu_free "rc=$rc $(cat "$T_TMP/o")" $rc -eq 1 -a \
	"$(wc -l < "$T_TMP/o")" -eq 1 -a ! -s $LOG -a -z "$(diff "$T_TMP/before" "$T_TMP/after")"
run snapshot --cpu x > "$T_TMP/o" 2>&1
check ftrace_files_snapshot_cpu_bad "rc=$? $(cat "$T_TMP/o")" "$(wc -l < "$T_TMP/o")" -eq 1
build
run free-buffer --disable-on-free > "$T_TMP/o" 2>&1
rc=$?
check ftrace_files_free_buffer "rc=$rc $(cat "$T_TMP/o") $(cat $LOG)" $rc -eq 0 -a \
	"$(tr '\n' '|' < $LOG)" = "W options/disable_on_free 1|W free_buffer |W options/disable_on_free 0|"
build; mkdir -p $F/instances/fb; : > $F/instances/fb/free_buffer
run free-buffer -B fb > "$T_TMP/o" 2>&1
check ftrace_files_free_buffer_instance "rc=$? $(cat $LOG)" "$(cat $LOG)" = "W instances/fb/free_buffer "
run free-buffer -B nosuch > "$T_TMP/o" 2>&1
check ftrace_files_free_buffer_missing "rc=$? $(cat "$T_TMP/o")" "$(wc -l < "$T_TMP/o")" -eq 1
build; state > "$T_TMP/before"
run record --top -q --notrace-pid 4242 -e sched:sched_switch -o "$T_TMP/n.dat" -- true 2> "$T_TMP/e"
rc=$?; state > "$T_TMP/after"
check ftrace_files_notrace_pid "rc=$rc $(cat "$T_TMP/e") $(cat $LOG)" $rc -eq 0 -a \
	"$(grep -c '^A set_event_notrace_pid 4242$' $LOG)" -eq 1 -a \
	"$(grep -c 'set_ftrace_notrace_pid' $LOG)" -eq 0 -a \
	-z "$(diff "$T_TMP/before" "$T_TMP/after")"
build
run state --functions > "$T_TMP/o" 2>&1
cat > "$T_TMP/want" <<EOF
set_event_notrace_pid: 
set_ftrace_notrace_pid: 
buffer_subbuf_size_kb: 4
options/disable_on_free: 0
options/record-tgid: 0
timestamp_mode: absolute
dyn_ftrace_total_info: 52170 functions, 204 pages, 16 groups
enabled_functions: 2
  schedule (1) tramp: 0xffffffffc0360000 (call_depth_return_thunk+0x0/0x20) ->ftrace_ops_list_func+0x0/0x1f0
  vfs_read (2) RIM
touched_functions: 2
  schedule (0)
  vfs_read (0) D tramp: ftrace_regs_caller+0x0/0x65
EOF
grep -v '^tracefs:\|^current_tracer\|^tracing_on\|^trace_clock\|^buffer_size\|^buffer_total\|^tracing_cpumask\|^set_event:\|^set_event_pid' \
	"$T_TMP/o" > "$T_TMP/got"
check ftrace_files_state_fixture "$(diff "$T_TMP/want" "$T_TMP/got")" -z "$(diff "$T_TMP/want" "$T_TMP/got")"
# read-only live: what the kernel's files say
"$PERFKIT" ftrace state --functions > "$T_TMP/o" 2>&1
mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TF/timestamp_mode)
tot=$(awk 'NR == 1 { print $1; exit }' $TF/dyn_ftrace_total_info 2>/dev/null)
check ftrace_files_state_live "$(cat "$T_TMP/o" | tail -5)" \
	"$(grep -c "^timestamp_mode: $mode\$" "$T_TMP/o")" -eq 1 -a \
	"$(grep -c "^dyn_ftrace_total_info: $tot functions" "$T_TMP/o")" -eq 1 -a \
	"$(grep -c '^enabled_functions: ' "$T_TMP/o")" -eq 1

# ---- TGIDs in the file: the kernel's text of the same buffer ----
# (only this test's processes: set_event_pid and event-fork; another
# task's line could change its TGID between the read of `trace` and the
# extract, when its pid is reused while something records TGIDs)
I=pkff-$$-tgid; INSTS="$INSTS $I"; D=$TF/instances/$I
mkdir $D && echo 0 > $D/options/hash-ptr && echo 1 > $D/options/record-tgid &&
echo $$ > $D/set_event_pid && echo 1 > $D/options/event-fork &&
echo 1 > $D/events/sched/sched_process_fork/enable &&
echo 1 > $D/events/sched/sched_process_exit/enable &&
echo 1 > $D/events/syscalls/sys_enter_getppid/enable && echo 1 > $D/tracing_on &&
sh -c "$GP 30 & $GP 30; wait" > /dev/null && echo 0 > $D/tracing_on
cat $D/trace > "$T_TMP/ktg"
"$PERFKIT" ftrace extract --instance $I -z none -o "$T_TMP/tg.dat" > /dev/null 2> "$T_TMP/e"
"$PERFKIT" ftrace report --format=kernel -i "$T_TMP/tg.dat" > "$T_TMP/ptg" 2>&1
# task names aside (the kernel names tasks when the file is read)
n=$(grep -c '^ *[^#].*-[0-9]* *( *[0-9-]*) \[' "$T_TMP/ktg")
check ftrace_files_tgid_kernel_text "$n lines; $(diff "$T_TMP/ktg" "$T_TMP/ptg" | head -4)" \
	"$n" -ge 20 -a "$(nonames "$T_TMP/ktg")" = "$(nonames "$T_TMP/ptg")"
if [ -n "$HAVE_TC" ]; then
	"$PERFKIT" ftrace report -i "$T_TMP/tg.dat" > "$T_TMP/p" 2>&1
	tc_report "$T_TMP/p" "$T_TMP/t" -i "$T_TMP/tg.dat"
	check ftrace_files_tgid_tracecmd_reads "$(diff "$T_TMP/p" "$T_TMP/t" | head -4)" \
		-s "$T_TMP/t" -a -z "$(diff "$T_TMP/p" "$T_TMP/t")"
fi
# record -O record-tgid: the workload's threads under its TGID
"$PERFKIT" ftrace record -q -O record-tgid -e syscalls:sys_enter_getppid \
	-o "$T_TMP/rt.dat" -- sh -c "echo \$\$ > $T_TMP/pid; exec $GP 5" > /dev/null 2> "$T_TMP/e"
rc=$?; pid=$(cat "$T_TMP/pid")
"$PERFKIT" ftrace report --format=kernel -i "$T_TMP/rt.dat" > "$T_TMP/o" 2>&1
n=$(grep -c "\-$pid *\[.*sys_getppid" "$T_TMP/o")
check ftrace_files_tgid_record "rc=$rc pid=$pid $(grep getppid "$T_TMP/o" | head -2)" $rc -eq 0 -a \
	"$(grep -c "\-$pid *( *$pid) \[.*sys_getppid" "$T_TMP/o")" -ge 5 -a "$n" -eq 0
"$PERFKIT" ftrace report --format=kernel -O norecord-tgid -i "$T_TMP/rt.dat" > "$T_TMP/o" 2>&1
check ftrace_files_tgid_record_off "$(grep getppid "$T_TMP/o" | head -1)" \
	"$(grep -c "( *$pid)" "$T_TMP/o")" -eq 0 -a "$(grep -c "\-$pid *\[.*sys_getppid" "$T_TMP/o")" -ge 5

# ---- the kernel's layouts: user stack traces, syscall argument types
# (verbose), uprobe addresses, each against the kernel's own text ----
# kcompare NAME OPTION...: the instance's trace text with each option
# set (1) against perfkit's kernel text of the extracted buffer
kcompare() {
	_n=$1; shift
	for _o in "" "$@"; do
		[ -n "$_o" ] && echo 1 > $D/options/$_o
		cat $D/trace > "$T_TMP/k.$_n.$_o"
		[ -n "$_o" ] && echo 0 > $D/options/$_o
	done
	"$PERFKIT" ftrace extract --instance $I -z none -o "$T_TMP/$_n.dat" > /dev/null 2>&1
	for _o in "" "$@"; do
		"$PERFKIT" ftrace report --format=kernel ${_o:+-O $_o} \
			-i "$T_TMP/$_n.dat" > "$T_TMP/p.$_n.$_o" 2>&1
		check "ftrace_files_ktext_${_n}${_o:+_$_o}" \
			"$(diff "$T_TMP/k.$_n.$_o" "$T_TMP/p.$_n.$_o" | head -4)" \
			"$(grep -c . "$T_TMP/k.$_n.$_o")" -ge 14 -a \
			"$(nonames "$T_TMP/k.$_n.$_o")" = "$(nonames "$T_TMP/p.$_n.$_o")"
	done
	# what the comparison is about is in the kernel's text
	check "ftrace_files_ktext_${_n}_present" "no '$KPAT' in the kernel text" \
		"$(cat "$T_TMP"/k.$_n.* | grep -c "$KPAT")" -ge 3
}
newinst() {
	I=pkff-$$-$1; INSTS="$INSTS $I"; D=$TF/instances/$I
	mkdir $D && echo 0 > $D/options/hash-ptr
}
newinst ustack
echo 1 > $D/options/userstacktrace
echo 1 > $D/events/syscalls/sys_enter_getppid/enable
echo 1 > $D/tracing_on; "$GP" 5 > /dev/null; echo 0 > $D/tracing_on
echo 0 > $D/options/userstacktrace
KPAT='^ =>  <[0-9a-f]\{16\}>$'
kcompare ustack sym-offset latency-format raw
newinst verbose
echo 1 > $D/events/syscalls/sys_enter_openat/enable
echo 1 > $D/events/syscalls/sys_enter_read/enable
echo 1 > $D/tracing_on; cat /etc/hostname /etc/passwd > /dev/null; echo 0 > $D/tracing_on
KPAT='sys_openat(int dfd: .*const char \* filename: 0x'
kcompare verbose verbose fields
# a uprobe and a uretprobe on a test program (needs a compiler)
if [ -w $TF/uprobe_events ] && command -v cc > /dev/null 2>&1; then
	printf '%s\n' '#include <stdlib.h>' 'static volatile int sink;' \
		'__attribute__((noinline)) void pk_probe_target(int i) { sink += i; }' \
		'int main(int c, char **v) { for (int i = 0; i < atoi(v[1]); i++) pk_probe_target(i); return 0; }' \
		> "$T_TMP/t.c"
	cc -O1 -o "$T_TMP/t" "$T_TMP/t.c"
	off=0x$(nm "$T_TMP/t" | awk '$3 == "pk_probe_target" { print $1 }')
	G=pkff$$
	t_atexit "rmdir $TF/instances/pkff-$$-uprobe 2>/dev/null; echo '-:$G/hit' >> $TF/uprobe_events 2>/dev/null; echo '-:$G/ret' >> $TF/uprobe_events 2>/dev/null"
	echo "p:$G/hit $T_TMP/t:$off i=%di:s32" >> $TF/uprobe_events &&
	echo "r:$G/ret $T_TMP/t:$off" >> $TF/uprobe_events
	newinst uprobe
	echo 1 > $D/events/$G/enable
	echo 1 > $D/tracing_on; "$T_TMP/t" 5; echo 0 > $D/tracing_on
	KPAT=' ret: (0x[0-9a-f]* <- 0x[0-9a-f]*)$'
	kcompare uprobe fields raw
else
	skip ftrace_files_ktext_uprobe "no writable uprobe_events or no C compiler"
fi

# ---- clocks: boot in raw ns, tai in seconds, as trace-cmd 3.1 ----
for clk in boot tai; do
	grep -qw $clk $TF/trace_clock || { skip ftrace_files_clock_$clk "no $clk clock"; continue; }
	"$PERFKIT" ftrace record -q --clock $clk -e syscalls:sys_enter_getppid \
		-o "$T_TMP/$clk.dat" -- $GP 5 > /dev/null 2> "$T_TMP/e"
	"$PERFKIT" ftrace report -i "$T_TMP/$clk.dat" > "$T_TMP/p" 2>&1
	if [ $clk = boot ]; then pat='\] *[0-9]\{10,\}: sys_enter'; else pat='\] *[0-9]*\.[0-9]\{6\}: sys_enter'; fi
	check ftrace_files_clock_${clk}_layout "$(head -3 "$T_TMP/p")" \
		"$(grep -c "$pat" "$T_TMP/p")" -eq 5
	if [ -n "$HAVE_TC" ]; then
		tc_report "$T_TMP/p" "$T_TMP/t" -i "$T_TMP/$clk.dat"
		check ftrace_files_clock_${clk}_vs_tracecmd "$(diff "$T_TMP/p" "$T_TMP/t" | head -4)" \
			-z "$(diff "$T_TMP/p" "$T_TMP/t")"
	fi
done
t_exit
