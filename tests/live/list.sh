# perfkit list: what it lists, the glob and class filters, and the marks on
# events this machine cannot open.
. tests/lib/sh.sh
$PERFKIT list > "$T_TMP/all"; rc=$?
check list_rc "rc=$rc" $rc -eq 0
for ev in cpu-clock task-clock "context-switches OR cs" "page-faults OR faults" \
	  dummy "cpu-cycles OR cycles" L1-dcache-load-misses "mem:<addr>[/len][:access]" rNNN; do
	check "list_has '$ev'" "missing" -n "$(grep -F "  $ev " "$T_TMP/all")"
done
check list_sw_not_marked "$(grep -F '  cpu-clock ' "$T_TMP/all")" -z "$(grep -F '  cpu-clock ' "$T_TMP/all" | grep 'not supported')"
if perf stat -e cycles true 2>&1 | grep -q 'not supported'; then
	check list_hw_marked "$(grep -F 'OR cycles' "$T_TMP/all")" -n "$(grep -F 'OR cycles' "$T_TMP/all" | grep 'not supported here')"
else
	check list_hw_not_marked "$(grep -F 'OR cycles' "$T_TMP/all")" -z "$(grep -F 'OR cycles' "$T_TMP/all" | grep 'not supported here')"
fi
T=/sys/kernel/tracing/events
if [ -d $T/sched ]; then
	# perf lists every event directory but ftrace's own (except the
	# function and print events, which perf can open).
	count_fs() { find $T -mindepth 2 -maxdepth 2 -type d ! -path "$T/ftrace/*" | wc -l; }
	n_fs=$(( $(count_fs) + $(ls -d $T/ftrace/function $T/ftrace/print 2>/dev/null | wc -l) ))
	n_pk=$(grep -c '\[Tracepoint event\]' "$T_TMP/all")
	if [ "$n_pk" -ne "$n_fs" ]; then # dynamic events come and go: once more
		n_fs=$(( $(count_fs) + $(ls -d $T/ftrace/function $T/ftrace/print 2>/dev/null | wc -l) ))
		n_pk=$($PERFKIT list tracepoint | grep -c '\[Tracepoint event\]')
	fi
	check list_all_tracepoints "tracefs $n_fs, listed $n_pk" "$n_pk" -eq "$n_fs"
	$PERFKIT list 'sched:sched_sw*' > "$T_TMP/g"
	check list_glob "$(cat "$T_TMP/g")" "$(grep -c . "$T_TMP/g")" -eq "$(ls -d $T/sched/sched_sw*/ | wc -l)"
	$PERFKIT list tracepoint > "$T_TMP/tp"
	check list_class_tracepoint "$(grep -vc Tracepoint "$T_TMP/tp") other lines" "$(grep -vc Tracepoint "$T_TMP/tp")" -eq 0
else
	skip list_tracepoints "no tracefs"
fi
$PERFKIT list sw > "$T_TMP/sw"
check list_class_sw "$(cat "$T_TMP/sw" | head -3)" "$(grep -c 'Software event' "$T_TMP/sw")" -eq 12
t_exit
