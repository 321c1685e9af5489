#!/bin/sh
# Scheduling timelines (--format=perfetto): thread states and wake-ups
# from sched_switch / sched_wakeup, checked by tests/lib/schedcheck.py
# (slices of a thread never overlap, flows bound at both ends, after each
# switch the next task runs on that CPU and the previous one is in the
# state prev_state names, woken tasks runnable, one flow per wake-up by a
# task) against the reference tools' text of the same file:
#  - perfkit report of a perf.data recorded here (-a, the sched
#    tracepoints and cpu-clock -g) against perf script;
#  - perfkit ftrace report of the shared trace-cmd corpus and of a
#    trace.dat recorded here against trace-cmd report (every other event
#    an instant with trace-cmd's text, in order).
# And the kernel stack traces of a trace.dat recorded with -T as folded
# stacks (against trace-cmd report's blocks), speedscope, pprof and a
# flame graph.
# pk-test: slow
. tests/lib/sh.sh
# ASan builds: libtraceevent's own leaks are not ours
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
T=$T_TMP
W="$PK_BUILD/workloads/demo"

# sched_check PREFIX JSON EVENTS STYLE: schedcheck.py's lines counted
sched_check() {
	t_python tests/lib/schedcheck.py "$@" > "$T/$1.out" 2> "$T/$1.pyerr"
	cat "$T/$1.out"
	_n=$(grep -c '^ok' "$T/$1.out")
	T_FAILS=$((T_FAILS + $(grep -c '^FAIL' "$T/$1.out")))
	[ "$_n" -ge 5 ] ||
		fail "${1}_checks" "$_n checks passed: $(tail -2 "$T/$1.pyerr" | tr '\n' '|')"
}

if ! command -v perf > /dev/null 2>&1; then
	skip sched_perfdata "perf is not installed"
elif ! "$PERFKIT" record -q -a -g -e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_wakeup_new -e cpu-clock -o "$T/s.data" -- \
	sh -c "\"$W\" > /dev/null; sleep 0.05; ls / > /dev/null; \"$W\" > /dev/null" \
	> /dev/null 2> "$T/rec.err" || [ ! -s "$T/s.data" ]; then
	skip sched_perfdata "cannot record the sched tracepoints: $(head -1 "$T/rec.err")"
else
	if "$PERFKIT" report -i "$T/s.data" --format=perfetto -o "$T/s.json" \
		2> "$T/err" &&
	   perf script -i "$T/s.data" --ns -F tid,cpu,time,event,trace \
		> "$T/s.script" 2>> "$T/err"; then
		sched_check perfdata "$T/s.json" "$T/s.script" perf
		# the samples are there too, each an instant
		n=$(grep -c '"ph":"i"' "$T/s.json")
		m=$(grep -c 'cpu-clock:' "$T/s.script")
		check sched_perfdata_samples "$n instants, $m cpu-clock samples" \
			"$n" -eq "$m" -a "$m" -gt 0
		# --comm: the states, instants and flows of those threads only
		"$PERFKIT" report -i "$T/s.data" --format=perfetto --comm demo \
			-o "$T/c.json" 2>> "$T/err"
		t_python - "$T/c.json" > "$T/c.out" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
name = {(e['pid'], e['tid']): e['args']['name'] for e in ev
        if e.get('name') == 'thread_name'}
other = [e for e in ev if e['ph'] in 'Xisf' and
         name.get((e['pid'], e['tid'])) != 'demo']
states = sum(1 for e in ev if e['ph'] == 'X')
print(f'{len(other)} {states}')
PY
		read -r other states < "$T/c.out"
		check sched_perfdata_comm_filter "$other events of other threads, $states states" \
			"$other" = 0 -a "$states" -gt 0
	else
		fail sched_perfdata "$(head -2 "$T/err" | tr '\n' '|')"
	fi
fi

if ! command -v trace-cmd > /dev/null 2>&1; then
	skip sched_tracedat "trace-cmd is not installed"
else
	D=$PK_SHARED/corpus/trace-dat
	if need_shared corpus/trace-dat sched_corpus; then
		for f in gcc-x86-v7-zstd rtapp-arm64-v6; do
			if "$PERFKIT" ftrace report -i "$D/$f.trace.dat" \
				--format=perfetto -o "$T/$f.json" 2> "$T/err" &&
			   "$PERFKIT" ftrace report -t -i "$D/$f.trace.dat" > "$T/$f.pkt" 2>> "$T/err" &&
			   tc_report "$T/$f.pkt" "$T/$f.tc" -t "$D/$f.trace.dat"; then
				sched_check "$f" "$T/$f.json" "$T/$f.tc" trace-cmd
			else
				fail "sched_$f" "$(head -2 "$T/err" | tr '\n' '|')"
			fi
		done
	fi
	# one recorded here (perfkit's own instance), with wake-ups
	if [ "$(id -u)" != 0 ] || [ ! -w /sys/kernel/tracing/instances ]; then
		skip sched_recorded "needs root and a writable tracefs"
	elif "$PERFKIT" ftrace record -e sched:sched_switch -e sched:sched_wakeup \
		-e sched:sched_wakeup_new -e sched:sched_process_exec \
		-o "$T/r.dat" -- sh -c "\"$W\" > /dev/null; sleep 0.02; ls / > /dev/null" \
		> /dev/null 2> "$T/rec.err" && [ -s "$T/r.dat" ]; then
		if "$PERFKIT" ftrace report -i "$T/r.dat" --format=perfetto \
			> "$T/r.json" 2> "$T/err" &&
		   trace-cmd report -t "$T/r.dat" > "$T/r.tc" 2>> "$T/err"; then
			sched_check recorded "$T/r.json" "$T/r.tc" trace-cmd
		else
			fail sched_recorded "$(head -2 "$T/err" | tr '\n' '|')"
		fi
	else
		skip sched_recorded "cannot record the sched events: $(head -1 "$T/rec.err")"
	fi
	# kernel stack traces (-T): folded against trace-cmd report's
	# blocks (tdstacks.py), pprof's total, the flame graph's frames
	if [ "$(id -u)" != 0 ] || [ ! -w /sys/kernel/tracing/instances ]; then
		skip tdstacks "needs root and a writable tracefs"
	elif "$PERFKIT" ftrace record -T -e sched:sched_switch \
		-e sched:sched_wakeup -o "$T/k.dat" -- \
		sh -c "\"$W\" > /dev/null; sleep 0.02; ls / > /dev/null" \
		> /dev/null 2> "$T/rec.err" && [ -s "$T/k.dat" ]; then
		trace-cmd report "$T/k.dat" > "$T/k.tc" 2> /dev/null
		"$PERFKIT" ftrace report -i "$T/k.dat" --format=folded \
			> "$T/k.folded" 2> "$T/k.err"
		"$PERFKIT" ftrace report -i "$T/k.dat" --format=speedscope \
			-o "$T/k.ss.json" 2> /dev/null
		t_python tests/lib/tdstacks.py "$T/k.tc" "$T/k.folded" \
			"$T/k.ss.json" > "$T/k.out"
		cat "$T/k.out"
		[ "$(grep -c '^ok' "$T/k.out")" = 2 ] || T_FAILS=$((T_FAILS + 1))
		check tdstacks_said "$(cat "$T/k.err")" \
			-n "$(grep '^perfkit ftrace report: .*: only the stacks after sched:sched_' "$T/k.err")"
		n=$(awk '{ n += $NF } END { print n + 0 }' "$T/k.folded")
		if command -v go > /dev/null 2>&1; then
			"$PERFKIT" ftrace report -i "$T/k.dat" --format=pprof \
				-o "$T/k.pb.gz" 2> /dev/null
			HOME=$T go tool pprof -symbolize=none -top "$T/k.pb.gz" \
				> "$T/k.top" 2>&1
			check tdstacks_pprof_total "$(head -5 "$T/k.top" | tr '\n' '|'), folded $n" \
				-n "$(grep "^Showing nodes accounting for $n, 100% of $n total" "$T/k.top")"
		else
			skip tdstacks_pprof_total "go is not installed"
		fi
		"$PERFKIT" ftrace report -i "$T/k.dat" --format=flamegraph \
			-o "$T/k.svg" 2> /dev/null
		check tdstacks_flamegraph "$(head -c 200 "$T/k.svg")" \
			"$(grep -c '<g class="f"' "$T/k.svg")" -gt 10 -a \
			-n "$(grep 'data-total="'"$n"'"' "$T/k.svg")"
	else
		skip tdstacks "cannot record stack traces: $(head -1 "$T/rec.err")"
	fi
	# a file without stacks, an unknown format, -o without an export
	"$PERFKIT" ftrace report -i "$D/gcc-x86-v7-zstd.trace.dat" \
		--format=svg > /dev/null 2> "$T/e1"
	rc=$?
	check sched_tracedat_unknown_format "status $rc: $(cat "$T/e1")" \
		$rc -eq 2 -a "$(wc -l < "$T/e1")" -eq 1
	"$PERFKIT" ftrace report -i "$D/gcc-x86-v7-zstd.trace.dat" \
		--format=folded > "$T/nostk" 2> "$T/e3"
	check tdstacks_none "$(cat "$T/e3")" ! -s "$T/nostk" -a \
		-n "$(grep 'no kernel stack traces (record with -T)' "$T/e3")"
	"$PERFKIT" ftrace report -i "$D/gcc-x86-v7-zstd.trace.dat" \
		-o "$T/x" > /dev/null 2> "$T/e2"
	rc=$?
	check sched_tracedat_o_needs_format "status $rc: $(cat "$T/e2")" \
		$rc -eq 2 -a ! -e "$T/x"
fi
t_exit
