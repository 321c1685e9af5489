#!/bin/sh
# perfkit ftrace report --profile against trace-cmd report --profile 3.1
# on both corpus files, a trace-cmd split piece and a file perfkit ftrace
# record writes here (sched, irq and syscall events; again with kernel
# stacks, -T), with and without -G: byte for byte but for the order of events that tie in trace-cmd's
# sort (it comes from trace-cmd's heap addresses and changes run to run;
# tests/lib/profile_norm.py puts such runs in text order on both sides).
# pk-test: check
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
D=$PK_SHARED/corpus/trace-dat
case $D in /*) ;; *) D=$PWD/$D ;; esac
if ! command -v trace-cmd > /dev/null 2>&1; then
	skip ftrace_profile "trace-cmd is not installed"
	t_exit; exit
fi
N=$PWD/tests/lib/profile_norm.py
# prof NAME FILE OPTS...
prof() {
	_n=$1 _f=$2; shift 2
	trace-cmd report --profile "$@" "$_f" 2>/dev/null |
		t_python "$N" > "$T_TMP/tc"
	"$PERFKIT" ftrace report --profile "$@" "$_f" 2> "$T_TMP/err" |
		t_python "$N" > "$T_TMP/pk"
	if [ "$(grep -c '^task: ' "$T_TMP/tc")" = 0 ]; then
		fail "$_n" "trace-cmd printed no task"
	elif cmp -s "$T_TMP/tc" "$T_TMP/pk"; then
		ok "$_n"
	else
		fail "$_n" "$(diff "$T_TMP/tc" "$T_TMP/pk" | head -3 | tr '\n' '|') $(head -1 "$T_TMP/err")"
	fi
}
need_shared corpus/trace-dat ftrace_profile && {
	for f in gcc-x86-v7-zstd rtapp-arm64-v6; do
		prof "ftrace_profile_$f" "$D/$f.trace.dat"
		prof "ftrace_profile_${f}_G" "$D/$f.trace.dat" -G
	done
	# -I/-S leave out interrupt records, --cpu a CPU's (report too)
	f=$D/gcc-x86-v7-zstd.trace.dat
	prof ftrace_profile_I "$f" -I
	prof ftrace_profile_S_cpu "$f" -S --cpu 1
	for o in -I -S "-I -S --cpu 0"; do
		trace-cmd report $o "$f" > "$T_TMP/tc" 2>/dev/null
		"$PERFKIT" ftrace report $o "$f" > "$T_TMP/pk" 2> "$T_TMP/err"
		_c=$(echo "$o" | tr -d ' -')
		if cmp -s "$T_TMP/tc" "$T_TMP/pk" &&
		   [ "$(wc -l < "$T_TMP/tc")" -gt 100 ]; then
			ok "ftrace_profile_report_$_c"
		else
			fail "ftrace_profile_report_$_c" "$(diff "$T_TMP/tc" "$T_TMP/pk" | head -3 | tr '\n' '|')"
		fi
	done
	# the gcc file has per-CPU irq tasks with -G: they come first
	"$PERFKIT" ftrace report --profile -G "$D/gcc-x86-v7-zstd.trace.dat" \
		> "$T_TMP/g" 2>&1
	check ftrace_profile_G_global "no Global CPU[0] Events line" \
		"$(sed -n 2p "$T_TMP/g")" = "Global CPU[0] Events"
	(cd "$T_TMP" && trace-cmd split -i "$D/gcc-x86-v7-zstd.trace.dat" \
		-o part.dat 803.5 804.5 > /dev/null 2>&1)
	if [ -s "$T_TMP/part.dat.1" ]; then
		prof ftrace_profile_piece "$T_TMP/part.dat.1"
	else
		fail ftrace_profile_piece "trace-cmd split wrote nothing"
	fi
}
TF=/sys/kernel/tracing
if [ -w $TF/instances ] && [ -d $TF/events/sched ] && [ -d $TF/events/irq ]; then
	ev="-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking
	    -e sched:sched_process_exec -e irq"
	[ -d $TF/events/raw_syscalls ] && ev="$ev -e raw_syscalls"
	"$PERFKIT" ftrace record -o "$T_TMP/rec.dat" $ev -- sh -c \
		'for i in 1 2 3 4 5 6; do taskset -c $((i % 2)) sh -c "sleep 0.01"; done; ls / > /dev/null' \
		> /dev/null 2>&1
	if [ -s "$T_TMP/rec.dat" ]; then
		prof ftrace_profile_rec "$T_TMP/rec.dat"
		prof ftrace_profile_rec_G "$T_TMP/rec.dat" -G
	else
		fail ftrace_profile_rec "perfkit ftrace record wrote no file"
	fi
	# with a kernel stack after every event (-T): the stack trees
	"$PERFKIT" ftrace record -T -o "$T_TMP/st.dat" $ev -- sh -c \
		'for i in 1 2 3 4; do taskset -c $((i % 2)) sh -c "sleep 0.01; ls / > /dev/null"; done' \
		> /dev/null 2>&1
	if [ -s "$T_TMP/st.dat" ]; then
		prof ftrace_profile_stacks "$T_TMP/st.dat"
		prof ftrace_profile_stacks_G "$T_TMP/st.dat" -G
		"$PERFKIT" ftrace report --profile "$T_TMP/st.dat" > "$T_TMP/g" 2>&1
		check ftrace_profile_stacks_some "no stack tree printed" \
			"$(grep -c '^ *+ ' "$T_TMP/g")" -gt 0
		# report -w prints the stacks' function names (a race lost
		# them in about half the runs): three runs
		trace-cmd report -w "$T_TMP/st.dat" > "$T_TMP/tc" 2>/dev/null
		_bad=0
		for i in 1 2 3; do
			"$PERFKIT" ftrace report -w "$T_TMP/st.dat" > "$T_TMP/pk" 2>&1
			cmp -s "$T_TMP/tc" "$T_TMP/pk" || _bad=$((_bad + 1))
		done
		check ftrace_profile_stacks_report_w "$_bad of 3 runs differ" \
			$_bad = 0
	else
		fail ftrace_profile_stacks "perfkit ftrace record -T wrote no file"
	fi
else
	skip ftrace_profile_rec "no writable tracefs with sched and irq events"
fi
"$PERFKIT" ftrace report --profile "$T_TMP/none.dat" > /dev/null 2> "$T_TMP/err"
rc=$?
check ftrace_profile_missing "rc $rc: $(cat "$T_TMP/err")" \
	$rc -ne 0 -a "$(wc -l < "$T_TMP/err")" = 1
t_exit
