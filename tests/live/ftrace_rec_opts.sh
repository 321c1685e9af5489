#!/bin/sh
# perfkit ftrace record/live with trace-cmd record's options, live on this
# kernel: what each one sets is read back from tracefs by the traced
# command itself and compared with what trace-cmd record 3.1 sets for the
# same options (run with private mounts over the /proc/sys and function
# files this VM refuses: the events, filters, triggers, pid lists and
# masks are the kernel's real ones); the recordings are checked by their
# content (a filter on common_pid leaves only that pid, -v leaves the
# event out, -F/-c who is traced, -B a second buffer, markers) and
# trace-cmd report of perfkit's files equals perfkit ftrace report.
# tracefs is left as found (checked at the end).
# pk-test: lock=tracefs
. tests/lib/sh.sh
T_NAME=ftrace_rec_opts
. tests/lib/ftrace.sh

ours() { t_atexit "[ ! -d $TF/instances/$1 ] || { echo 0 > $TF/instances/$1/tracing_on; rmdir $TF/instances/$1; } 2>/dev/null"; }
snap() {
	ls $TF/instances | grep "^pkt-"
	for f in tracing_on current_tracer trace_clock buffer_size_kb set_event \
		 set_event_pid tracing_cpumask options/event-fork \
		 options/function-fork options/stacktrace \
		 events/sched/sched_switch/filter events/sched/sched_switch/trigger \
		 events/syscalls/sys_enter_getppid/enable \
		 events/syscalls/sys_enter_getppid/filter; do
		echo "$f: $(cat $TF/$f 2>&1)"
	done
}
snap > "$T_TMP/before"
HAVE_TC=0
command -v trace-cmd > /dev/null 2>&1 && HAVE_TC=1
rep_same() {   # FILE: trace-cmd report equals perfkit ftrace report
	[ $HAVE_TC = 1 ] || return 0
	trace-cmd report "$1" > "$T_TMP/tc.rep" 2>&1
	"$PERFKIT" ftrace report -i "$1" > "$T_TMP/pk.rep" 2>&1
	cmp -s "$T_TMP/tc.rep" "$T_TMP/pk.rep"
}
# waits until recorder $1 is on (a new instance is on before its set-up:
# the event's enable is set after tracing_on was turned off)
started() {
	until_ "[ \"\$(cat $TF/instances/perfkit-$1/events/syscalls/sys_enter_getppid/enable $TF/instances/perfkit-$1/tracing_on 2>/dev/null)\" = '1
1' ] || ! kill -0 $1 2>/dev/null"
}
n_ev() { "$PERFKIT" ftrace report -i "$1" 2>&1 | grep -c "${2:-sys_enter_getppid:}"; }
# the workload's own calls (a shell calls getppid too)
n_gp() { n_ev "$1" " getppid-[0-9]* .*sys_enter_getppid:"; }

# 1. what is set, against trace-cmd record: the traced command prints the
# buffer's events, filters, triggers, pid list and masks
cat > "$T_TMP/state.sh" <<'EOF'
D=$1
sort $D/set_event
grep -H -v '^none$' $D/events/*/*/filter | sed "s|$D/||"
grep -H -v '^#' $D/events/*/*/trigger | sed "s|$D/||"
for f in options/event-fork options/function-fork tracing_cpumask options/stacktrace; do
	echo "$f: $(cat $D/$f)"; done
EOF
# trace-cmd record here: /proc/sys/kernel/ftrace_enabled and the function
# files (EPERM on this VM) are regular files in a private mount namespace
tcrec() {
	_d=$T_TMP/tc; rm -rf $_d; mkdir -p $_d; echo 1 > $_d/fe; echo "no pid" > $_d/pid; : > $_d/l
	unshare -m sh -c "
		mount --bind $_d/fe /proc/sys/kernel/ftrace_enabled || exit 99
		mount --bind $_d/pid $TF/set_ftrace_pid
		for f in set_ftrace_filter set_ftrace_notrace set_graph_function set_graph_notrace; do
			[ -e $TF/\$f ] && mount --bind $_d/l $TF/\$f; done
		exec trace-cmd record \"\$@\"" tcrec "$@"
}
top_default() {
	[ "$(cat $TF/tracing_on)" = 1 ] && [ "$(cat $TF/current_tracer)" = nop ] &&
	[ -z "$(cat $TF/set_event)" ]
}
if [ $HAVE_TC = 0 ] || ! command -v unshare > /dev/null; then
	skip ftrace_rec_opts_vs_tracecmd "no trace-cmd or unshare"
elif ! top_default; then
	skip ftrace_rec_opts_vs_tracecmd "the top-level buffer is in use (trace-cmd record resets it)"
else
	t_atexit "echo 1 > $TF/tracing_on"
	i=0
	while IFS='|' read -r name args; do
		i=$((i + 1))
		eval "set -- $args"
		"$PERFKIT" ftrace record -a -o "$T_TMP/s.dat" "$@" -- sh -c \
			"sh $T_TMP/state.sh $TF/instances/perfkit-\$PPID > $T_TMP/pk.state" \
			> "$T_TMP/s.out" 2>&1
		rc=$?
		tcrec -o "$T_TMP/t.dat" "$@" sh -c "sh $T_TMP/state.sh $TF > $T_TMP/tc.state" \
			> "$T_TMP/t.out" 2>&1
		rc2=$?
		echo 1 > $TF/tracing_on
		# trace-cmd adds its own threads to every filter: theirs is
		# compared without that part
		sed 's/^\(.*filter:\)((\(.*\)))&&((common_pid<.*$/\1\2/' "$T_TMP/tc.state" > "$T_TMP/tc2.state"
		check "ftrace_rec_opts_vs_tracecmd_$name" "rc=$rc/$rc2 $(diff "$T_TMP/pk.state" "$T_TMP/tc2.state") $(tail -n 3 "$T_TMP/s.out" "$T_TMP/t.out")" \
			$rc -eq 0 -a $rc2 -eq 0 -a -s "$T_TMP/pk.state" -a \
			-z "$(diff "$T_TMP/pk.state" "$T_TMP/tc2.state")"
	done <<'EOF'
bare_event|-e sched_switch
bare_system|-e sched
bare_glob|-e '*stat*'
bare_glob_event|-e 'sched_wak*'
exclude|-e sched -v -e '*stat*'
filter_trigger|-e sched_switch -f 'prev_pid == 1' -e sched_wakeup -R stacktrace
exclude_trigger_only|-v -e sched_switch -R stacktrace -e sched_wakeup
stacktrace|-T -e sched_switch
cpumask|-M 1 -e sched_switch
EOF
	# -F and -F -c: the command alone (no fork options) or with its
	# children (event-fork and function-fork)
	for c in F Fc; do
		a=-F; [ $c = Fc ] && a="-F -c"
		"$PERFKIT" ftrace record -o "$T_TMP/s.dat" $a -e sched_switch -- sh -c \
			"grep fork $TF/instances/perfkit-\$PPID/options/*fork; wc -w < $TF/instances/perfkit-\$PPID/set_event_pid" \
			> "$T_TMP/pk.state" 2>&1
		tcrec -o "$T_TMP/t.dat" $a -e sched_switch sh -c "grep fork $TF/options/*fork; wc -w < $TF/set_event_pid" \
			> "$T_TMP/tc.state" 2> /dev/null
		echo 1 > $TF/tracing_on
		grep -v '^CPU\|^total' "$T_TMP/pk.state" > "$T_TMP/pk2.state"
		grep -v 'CPU\|bytes in size\|^$\|^Buffer' "$T_TMP/tc.state" | sed "s|$TF/||" > "$T_TMP/tc2.state"
		sed -i "s|$TF/instances/perfkit-[0-9]*/||" "$T_TMP/pk2.state"
		check "ftrace_rec_opts_vs_tracecmd_$c" "$(diff "$T_TMP/pk2.state" "$T_TMP/tc2.state")" \
			-s "$T_TMP/pk2.state" -a -z "$(diff "$T_TMP/pk2.state" "$T_TMP/tc2.state")"
	done
	check ftrace_rec_opts_vs_tracecmd_top_restored "$(snap | diff "$T_TMP/before" -)" \
		-z "$(snap | diff "$T_TMP/before" -)"
fi

# 2. -f 'common_pid == N' with -a: only N's calls of two processes
"$GP" 40 --wait > "$T_TMP/g1" & g1=$!; t_bg $g1
"$GP" 30 --wait > "$T_TMP/g2" & g2=$!; t_bg $g2
until_ "grep -q ready $T_TMP/g1 && grep -q ready $T_TMP/g2"
"$PERFKIT" ftrace record -a -e sys_enter_getppid -f "common_pid == $g1" \
	-o "$T_TMP/f.dat" > "$T_TMP/f.out" 2>&1 &
rp=$!; t_bg $rp; ours perfkit-$rp
started $rp
kill -USR1 $g1 $g2; wait $g1 $g2
kill -INT $rp; wait $rp; rc=$?
n=$(n_ev "$T_TMP/f.dat")
others=$("$PERFKIT" ftrace report -i "$T_TMP/f.dat" 2>&1 | grep 'sys_enter_getppid:' | grep -vc -- "-$g1 ")
check ftrace_rec_opts_filter_pid "rc=$rc n=$n others=$others $(tail -2 "$T_TMP/f.out")" \
	$rc -eq 0 -a "$n" -eq 40 -a "$others" -eq 0
rep_same "$T_TMP/f.dat"; r=$?; check ftrace_rec_opts_filter_report "$(diff "$T_TMP/tc.rep" "$T_TMP/pk.rep" | head -5)" $r -eq 0

# 3. -v: the enter and exit events, the exit one excluded again
"$PERFKIT" ftrace record -e 'syscalls:sys_*_getppid' -v -e sys_exit_getppid \
	-o "$T_TMP/v.dat" -- "$GP" 25 > "$T_TMP/v.out" 2>&1
rc=$?
check ftrace_rec_opts_exclude "rc=$rc $(tail -2 "$T_TMP/v.out")" $rc -eq 0 -a \
	"$(n_ev "$T_TMP/v.dat")" -eq 25 -a "$(n_ev "$T_TMP/v.dat" sys_exit_getppid:)" -eq 0

# 4. -R: a stack trace after each call (the stacktrace trigger)
"$PERFKIT" ftrace record -e $EV -R stacktrace -o "$T_TMP/r.dat" -- "$GP" 15 > "$T_TMP/r.out" 2>&1
rc=$?
check ftrace_rec_opts_trigger "rc=$rc $(tail -2 "$T_TMP/r.out")" $rc -eq 0 -a \
	"$(n_ev "$T_TMP/r.dat")" -eq 15 -a "$(n_ev "$T_TMP/r.dat" 'kernel_stack:')" -eq 15
rep_same "$T_TMP/r.dat"; r=$?; check ftrace_rec_opts_trigger_report "$(diff "$T_TMP/tc.rep" "$T_TMP/pk.rep" | head -5)" $r -eq 0
# a refused trigger: one line naming it, nothing left
"$PERFKIT" ftrace record -e $EV -R 'bogus_trigger' -o "$T_TMP/rb.dat" -- true > "$T_TMP/rb.out" 2>&1
rc=$?
check ftrace_rec_opts_trigger_refused "rc=$rc $(cat "$T_TMP/rb.out")" $rc -eq 1 -a \
	"$(grep -c "trigger 'bogus_trigger'" "$T_TMP/rb.out")" -eq 1 -a ! -e "$T_TMP/rb.dat"

# 5. -i: a missing event is skipped; without -i the run fails
"$PERFKIT" ftrace record -i -e nosuch:event -e $EV -o "$T_TMP/i.dat" -- "$GP" 12 > "$T_TMP/i.out" 2>&1
rc=$?
"$PERFKIT" ftrace record -e nosuch:event -e $EV -o "$T_TMP/i2.dat" -- "$GP" 12 > "$T_TMP/i2.out" 2>&1
rc2=$?
check ftrace_rec_opts_ignore "rc=$rc/$rc2 $(cat "$T_TMP/i.out" "$T_TMP/i2.out")" $rc -eq 0 -a $rc2 -eq 1 -a \
	"$(n_ev "$T_TMP/i.dat")" -eq 12 -a ! -e "$T_TMP/i2.dat" -a \
	"$(grep -c "event 'nosuch:event': no such event" "$T_TMP/i2.out")" -eq 1

# 6. -F: the command only (a shell: none of the workload's calls) and
# -F -c its children too
for a in "-F|0" "-F -c|20" "|20"; do
	"$PERFKIT" ftrace record ${a%|*} -e $EV -o "$T_TMP/F.dat" -- sh -c "$GP 10; $GP 10" > "$T_TMP/F.out" 2>&1
	rc=$?
	n=$(n_gp "$T_TMP/F.dat")
	check "ftrace_rec_opts_children_$(echo "${a%|*}" | tr -d ' -')" "rc=$rc n=$n $(tail -2 "$T_TMP/F.out")" \
		$rc -eq 0 -a "$n" -eq "${a#*|}"
done
"$PERFKIT" ftrace record -F -e $EV -o "$T_TMP/F.dat" > "$T_TMP/F.out" 2>&1
check ftrace_rec_opts_F_no_command "rc=$? $(cat "$T_TMP/F.out")" "$(grep -c -- '-F: no command' "$T_TMP/F.out")" -eq 1

# 7. -P PID (trace-cmd's spelling of -p)
"$GP" 33 --wait > "$T_TMP/g3" & g3=$!; t_bg $g3
until_ "grep -q ready $T_TMP/g3"
"$PERFKIT" ftrace record -P $g3 -e $EV -o "$T_TMP/P.dat" > "$T_TMP/P.out" 2>&1 &
rp=$!; t_bg $rp; ours perfkit-$rp
started $rp
kill -USR1 $g3; wait $g3
wait $rp; rc=$?
check ftrace_rec_opts_P "rc=$rc $(tail -2 "$T_TMP/P.out")" $rc -eq 0 -a "$(n_ev "$T_TMP/P.dat")" -eq 33

# 8. -M: the CPU the command runs on is masked out, then in
cpus=$(cat /sys/devices/system/cpu/online)
if [ "$cpus" = 0 ] || ! command -v taskset > /dev/null; then
	skip ftrace_rec_opts_cpumask "needs two online CPUs and taskset"
else
	b=$(echo "$cpus" | sed 's/.*[,-]//')
	for m in 1 "-1"; do
		"$PERFKIT" ftrace record -M $m -e $EV -o "$T_TMP/M.dat" -- taskset -c $b "$GP" 20 > "$T_TMP/M.out" 2>&1
		rc=$?
		want=20; [ "$m" = 1 ] && [ "$b" != 0 ] && want=0
		check "ftrace_rec_opts_cpumask_$m" "rc=$rc $(tail -2 "$T_TMP/M.out")" $rc -eq 0 -a \
			"$(n_ev "$T_TMP/M.dat")" -eq $want
	done
fi
"$PERFKIT" ftrace record -M 0xzz -e $EV -o "$T_TMP/M.dat" -- true > "$T_TMP/M.out" 2>&1
check ftrace_rec_opts_cpumask_bad "rc=$? $(cat "$T_TMP/M.out")" "$(grep -c -- "-M '0xzz'" "$T_TMP/M.out")" -eq 1

# 9. -B: a second buffer with its own event and filter, stored as a named
# buffer (trace-cmd report reads it as perfkit's report does); made and
# removed again; an instance that was there is used and kept as it was
"$PERFKIT" ftrace record -e $EV -B pkt-b$$ -e sys_exit_getppid -f "common_pid != 1" \
	-o "$T_TMP/B.dat" -- "$GP" 17 > "$T_TMP/B.out" 2>&1
rc=$?
ours pkt-b$$
nb=$("$PERFKIT" ftrace report -i "$T_TMP/B.dat" 2>&1 | grep -c "^ *pkt-b$$: .*sys_exit_getppid:")
check ftrace_rec_opts_buffer "rc=$rc nb=$nb $(cat "$T_TMP/B.out")" $rc -eq 0 -a \
	"$(n_ev "$T_TMP/B.dat")" -eq 17 -a "$nb" -eq 17 -a ! -d $TF/instances/pkt-b$$ -a \
	"$(grep -c "^Buffer: pkt-b$$" "$T_TMP/B.out")" -eq 1
rep_same "$T_TMP/B.dat"; r=$?; check ftrace_rec_opts_buffer_report "$(diff "$T_TMP/tc.rep" "$T_TMP/pk.rep" | head -5)" $r -eq 0
mkdir $TF/instances/pkt-k$$; ours pkt-k$$
echo 'common_pid == 2' > $TF/instances/pkt-k$$/events/syscalls/sys_enter_getppid/filter
before=$(cat $TF/instances/pkt-k$$/events/syscalls/sys_enter_getppid/filter $TF/instances/pkt-k$$/set_event $TF/instances/pkt-k$$/tracing_on)
"$PERFKIT" ftrace record -B pkt-k$$ -e $EV -f 'common_pid != 0' -o "$T_TMP/B2.dat" -- "$GP" 9 > "$T_TMP/B2.out" 2>&1
rc=$?
after=$(cat $TF/instances/pkt-k$$/events/syscalls/sys_enter_getppid/filter $TF/instances/pkt-k$$/set_event $TF/instances/pkt-k$$/tracing_on)
check ftrace_rec_opts_buffer_existing "rc=$rc [$before] [$after] $(cat "$T_TMP/B2.out")" $rc -eq 0 -a \
	"$before" = "$after" -a "$(n_ev "$T_TMP/B2.dat")" -eq 9
rmdir $TF/instances/pkt-k$$
"$PERFKIT" ftrace record -e $EV -B pkt-x$$ -e $EV -B pkt-x$$ -o "$T_TMP/B3.dat" -- true > "$T_TMP/B3.out" 2>&1
check ftrace_rec_opts_buffer_twice "rc=$? $(cat "$T_TMP/B3.out")" "$(grep -c "given twice" "$T_TMP/B3.out")" -eq 1 -a ! -d $TF/instances/pkt-x$$

# 10. markers written to the top level's trace_marker are recorded
"$PERFKIT" ftrace record -e $EV -o "$T_TMP/m.dat" -- sh -c "echo pk-mark-$$ > $TF/trace_marker; $GP 3" > "$T_TMP/m.out" 2>&1
rc=$?
if [ -e $TF/options/copy_trace_marker ]; then
	check ftrace_rec_opts_marker "rc=$rc $(tail -2 "$T_TMP/m.out")" $rc -eq 0 -a \
		"$(n_ev "$T_TMP/m.dat" "print: .*pk-mark-$$")" -eq 1 -a "$(n_gp "$T_TMP/m.dat")" -eq 3
	rep_same "$T_TMP/m.dat"; r=$?; check ftrace_rec_opts_marker_report "$(diff "$T_TMP/tc.rep" "$T_TMP/pk.rep" | head -5)" $r -eq 0
else
	skip ftrace_rec_opts_marker "no options/copy_trace_marker in this kernel"
fi

# 11. -k: the instance and its settings stay (removed here after)
"$PERFKIT" ftrace record -k -e $EV -o "$T_TMP/k.dat" -- "$GP" 4 > "$T_TMP/k.out" 2>&1 &
rp=$!; wait $rp; rc=$?
ours perfkit-$rp
check ftrace_rec_opts_keep "rc=$rc $(tail -2 "$T_TMP/k.out")" $rc -eq 0 -a \
	"$(cat $TF/instances/perfkit-$rp/events/syscalls/sys_enter_getppid/enable 2>&1)" = 1 -a \
	"$(cat $TF/instances/perfkit-$rp/tracing_on 2>&1)" = 0 -a "$(n_ev "$T_TMP/k.dat")" -eq 4
rmdir $TF/instances/perfkit-$rp 2> /dev/null

# 12. -s, --nosplice: every call recorded; -m: at most about KIB per CPU,
# the newest kept
for a in "-s 0" "-s 20000" "--nosplice"; do
	"$PERFKIT" ftrace record $a -e $EV -o "$T_TMP/s.dat" -- "$GP" 3000 > "$T_TMP/s.out" 2>&1
	rc=$?
	check "ftrace_rec_opts_$(echo "$a" | tr -d ' -')" "rc=$rc $(tail -2 "$T_TMP/s.out")" $rc -eq 0 -a \
		"$(n_ev "$T_TMP/s.dat")" -eq 3000
done
if command -v taskset > /dev/null; then
	# 64 KiB of sys_enter_getppid records (16 bytes at least each): at
	# most 4096 of the 40000 calls, a page more at the end
	"$PERFKIT" ftrace record -m 64 -C 0 -e $EV -o "$T_TMP/mk.dat" -- taskset -c 0 "$GP" 40000 > "$T_TMP/mk.out" 2>&1
	rc=$?
	n=$(n_gp "$T_TMP/mk.dat")
	"$PERFKIT" ftrace record -m 256 -C 0 -e $EV -o "$T_TMP/mk2.dat" -- taskset -c 0 "$GP" 40000 > /dev/null 2>&1
	n2=$(n_gp "$T_TMP/mk2.dat")
	check ftrace_rec_opts_max_kb "rc=$rc n=$n/$n2 $(tail -n 2 "$T_TMP/mk.out")" $rc -eq 0 -a \
		"$n" -gt 100 -a "$n" -le 4352 -a "$n2" -gt "$n" -a "$n2" -lt 40000
else
	skip ftrace_rec_opts_max_kb "no taskset"
fi

# 13. -q: no summary; --ts-offset: the file's OFFSET option (both reports
# add it); --cmdlines-size: saved_cmdlines_size while recording (the
# kernel rounds it up to whole pages), put back after
cs0=$(cat $TF/saved_cmdlines_size)
"$PERFKIT" ftrace record -q --ts-offset 5000000000 --cmdlines-size $((cs0 + 1)) -e $EV \
	-o "$T_TMP/q.dat" -- sh -c "cat $TF/saved_cmdlines_size; $GP 2" > "$T_TMP/q.out" 2>&1
rc=$?
"$PERFKIT" ftrace report -i "$T_TMP/q.dat" 2>&1 | awk '/ getppid-/ { sub(":", "", $3); print $3; exit }' > "$T_TMP/q.ts"
up=$(cut -d. -f1 /proc/uptime)
check ftrace_rec_opts_quiet_offset_cmdlines "rc=$rc $(cat "$T_TMP/q.out") ts=$(cat "$T_TMP/q.ts") up=$up" $rc -eq 0 -a \
	"$(cat "$T_TMP/q.out")" -gt "$cs0" -a "$(cat $TF/saved_cmdlines_size)" = "$cs0" -a \
	"$(n_gp "$T_TMP/q.dat")" -eq 2 -a "$(cut -d. -f1 "$T_TMP/q.ts")" -ge $((up + 4))
if [ $HAVE_TC = 1 ]; then
	trace-cmd dump --options -i "$T_TMP/q.dat" > "$T_TMP/q.dump" 2>&1
	rep_same "$T_TMP/q.dat"; r=$?
	check ftrace_rec_opts_ts_offset_tracecmd "$(grep -A1 OFFSET "$T_TMP/q.dump") $(diff "$T_TMP/tc.rep" "$T_TMP/pk.rep" | head -5)" \
		$r -eq 0 -a "$(grep -A1 'Option OFFSET' "$T_TMP/q.dump" | tail -n 1)" = 5000000000
fi

# --temp DIR: the per-CPU files there (unlinked: seen as the recorder's
# descriptors); -r PRIO: the readers at SCHED_FIFO PRIO
mkdir -p "$T_TMP/tmpd"
"$PERFKIT" ftrace record -q -r 7 --temp "$T_TMP/tmpd" -e $EV -o "$T_TMP/tp.dat" -- sh -c \
	"ls -l /proc/\$PPID/fd | grep -c '$T_TMP/tmpd/.perfkit-cpu'; for t in /proc/\$PPID/task/*; do chrt -p \${t##*/}; done" \
	> "$T_TMP/tp.out" 2>&1
rc=$?
ncpu=$(grep -c '^processor' /proc/cpuinfo)
if command -v chrt > /dev/null; then
	check ftrace_rec_opts_temp_priority "rc=$rc ncpu=$ncpu $(cat "$T_TMP/tp.out")" $rc -eq 0 -a \
		"$(head -n 1 "$T_TMP/tp.out")" -ge 1 -a -s "$T_TMP/tp.dat" -a -z "$(ls -A "$T_TMP/tmpd")" -a \
		"$(grep -c 'priority: 7$' "$T_TMP/tp.out")" -eq "$(head -n 1 "$T_TMP/tp.out")"
else
	skip ftrace_rec_opts_temp_priority "no chrt"
fi

# 14. bad values and refused options: one line, exit 2
for a in "-s|x" "-m|-1" "--max-graph-depth|deep" "-N|host:1" "--ts-offset|1x" "--cmdlines-size|-5" "-r|100"; do
	"$PERFKIT" ftrace record -e $EV ${a%|*} "${a#*|}" -o "$T_TMP/x.dat" -- true > "$T_TMP/x.out" 2>&1
	rc=$?
	check "ftrace_rec_opts_bad_$(echo "${a%|*}" | tr -d -)" "rc=$rc $(cat "$T_TMP/x.out")" $rc -eq 2 -a \
		"$(wc -l < "$T_TMP/x.out")" -eq 1 -a ! -e "$T_TMP/x.dat"
done

# 15. live: -e bare name, -f, -v as record's
"$PERFKIT" ftrace live -e sys_enter_getppid -f 'common_pid != 1' -v -e sys_exit_getppid -- "$GP" 7 > "$T_TMP/l.out" 2> "$T_TMP/l.err"
rc=$?
check ftrace_rec_opts_live "rc=$rc $(cat "$T_TMP/l.err")" $rc -eq 0 -a \
	"$(grep -c ': sys_getppid()$' "$T_TMP/l.out")" -eq 7 -a "$(grep -c 'sys_getppid -> ' "$T_TMP/l.out")" -eq 0

snap > "$T_TMP/after"
check ftrace_rec_opts_restored "$(diff "$T_TMP/before" "$T_TMP/after")" -z "$(diff "$T_TMP/before" "$T_TMP/after")"
t_exit
