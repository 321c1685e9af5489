# perfkit stat's options against perf 6.1: the perf_event_attr blocks and
# open calls (-vv) for each option, and the printed output where the numbers
# are deterministic (getppid tracepoint counts; times are masked).
. tests/lib/sh.sh
GP=$PK_BUILD/workloads/getppid
EV=syscalls:sys_enter_getppid
if ! command -v perf >/dev/null; then
	skip stat_options "perf is not installed"; exit 0
fi
if [ ! -r /sys/kernel/tracing/events/syscalls/sys_enter_getppid/id ]; then
	skip stat_options "no syscalls:sys_enter_getppid tracepoint"; exit 0
fi
# attr NAME ARGS...: perf stat -vv ARGS against perfkit stat -vv ARGS
# (compared at the end: t_attr_check).
attr() {
	t_attr_case "$1"; shift
	perf stat -vv "$@" > /dev/null 2> "$T_AREF"
	$PERFKIT stat -vv "$@" > /dev/null 2> "$T_APK"
}
# Times, runtimes and dates differ from run to run: masked.
mask() {
	sed -E 's/^( +)[0-9]+\.[0-9]+( \+- [0-9.]+)? seconds/ T seconds/
		s/\( \+- *[0-9.]+% \)$/(noise)/
		s/# started on .*/# started on DATE/
		s/^ +([0-9.]+ \([-+][0-9.]+\) #+|# (Table|Final))/ \2/
		s/("event-runtime" : )[0-9]+/\1R/
		s/^(([^,]*,){3}([0-9.]+%,)?)[0-9]+,/\1R,/
		s/^( +[0-9]+\.[0-9]+)([ ,])/ TS\2/'
}
# out NAME ARGS...: perf stat ARGS against perfkit stat ARGS, on stderr.
out() {
	_n=$1; shift
	perf stat "$@" 2>&1 >/dev/null | mask > "$T_TMP/perf.o"
	$PERFKIT stat "$@" 2>&1 >/dev/null | mask > "$T_TMP/pk.o"
	if cmp -s "$T_TMP/perf.o" "$T_TMP/pk.o"; then
		ok "stat_opt_out $_n"
	else
		fail "stat_opt_out $_n" "$(diff "$T_TMP/perf.o" "$T_TMP/pk.o" | head -8 | tr '\n' '|')"
	fi
}

attr default true
attr d -d true
attr dd -dd true
attr ddd -ddd true
attr null -n true
attr group -g -e cs,faults true
attr group_default -g true
attr all_user --all-user -e cs true
attr all_kernel --all-kernel -e cs true
attr no_inherit -i -e cs true
attr duration_time -e duration_time true
attr system_wide_cmd -a -e cs -- sleep 0.01
attr cpu_cmd -C 0 -e cs -- sleep 0.01
attr pid_cmd -p 1 -e cs,faults -- sleep 0.01
attr tid_cmd -t 1 -e cs -- sleep 0.01
attr delay -D 10 -e cs true
attr no_aggr -a -A -e cs -- sleep 0.01
attr per_core -a --per-core -e cs -- sleep 0.01
attr per_die -a --per-die -e cs -- sleep 0.01
attr per_socket -a --per-socket -e cs -- sleep 0.01
attr per_node -a --per-node -e cs -- sleep 0.01
attr interval -a -I 50 --interval-count 1 -e cs -- sleep 0.01
attr filter -e $EV --filter 'common_pid > 0' true
attr sync -S -e cs true
attr timeout --timeout 100 -e cs true
attr repeat -r 2 -e cs true
attr no_scale --no-scale -e cs true
attr hw_fallback -e cycles,instructions true

out count -e $EV -- $GP 1000
out csv -x, -e $EV -- $GP 1000
out json -j -e $EV -- $GP 1000
out repeat -r 3 -e $EV -- $GP 1000
out repeat_csv -r 3 -x, -e $EV -- $GP 1000
out repeat_json -r 3 -j -e $EV -- $GP 1000
out table -r 3 --table -e $EV -- $GP 1000
out null -n -- $GP 10
out metric_only --metric-only -e $EV -- $GP 10
out metric_only_csv --metric-only -x, -e $EV -- $GP 10
out metric_only_json --metric-only -j -e $EV -- $GP 10
out quiet --quiet -e $EV -- $GP 10
out detailed -d -e $EV -- $GP 10
# system-wide counts are not deterministic: the header and footer only
out system_wide_hdr -n -a -- $GP 10
out cpu_hdr -n -C 0 -- $GP 10
out pid_hdr -n -p 1 -- $GP 10
# refusals: perf's message (perfkit names itself in the usage line)
for a in "--per-thread -- true" "--table -e cs true" "--timeout 5 true" \
	 "--interval-count 2 true" "-I 100 --timeout 200 true" \
	 "--metric-only -r 2 true" "-o /dev/null --log-fd 1 true" \
	 "-B -x, true" "-A true" "--topdown true" "--smi-cost true" \
	 "--iostat true" "--cputype core true"; do
	# shellcheck disable=SC2086
	perf stat $a 2>&1 >/dev/null | sed 's/perf stat/S/' > "$T_TMP/perf.o"
	# shellcheck disable=SC2086
	$PERFKIT stat $a 2>&1 >/dev/null | sed 's/perfkit stat/S/' > "$T_TMP/pk.o"
	# shellcheck disable=SC2086
	$PERFKIT stat $a > /dev/null 2>&1; rc=$?
	if [ $rc -ne 0 ] && cmp -s "$T_TMP/perf.o" "$T_TMP/pk.o"; then
		ok "stat_opt_refused '$a'"
	else
		fail "stat_opt_refused '$a'" "rc $rc $(diff "$T_TMP/perf.o" "$T_TMP/pk.o" | head -6 | tr '\n' '|')"
	fi
done
# duration_time is the elapsed time perf prints below it
$PERFKIT stat -e duration_time -- $GP 10 2> "$T_TMP/d.txt"
d=$(awk '/duration_time/ { print $1 }' "$T_TMP/d.txt")
t=$(awk '/time elapsed/ { printf "%.0f", $1 * 1e9 }' "$T_TMP/d.txt")
check stat_duration_time "duration_time $d vs elapsed $t ns" "${d:-0}" -eq "${t:-1}"
# -p with a command: the target is counted while the command runs
$GP 2000000 > /dev/null & gp=$!
$PERFKIT stat -x, -e $EV -p $gp -- sleep 0.2 2> "$T_TMP/p.txt"
kill $gp 2>/dev/null; wait $gp 2>/dev/null
n=$(cut -d, -f1 "$T_TMP/p.txt")
check stat_pid_with_cmd "counted '$n'" "$n" != "<not counted>" -a -n "$n" -a "${n:-0}" != 0
# --append keeps what -o wrote before
$PERFKIT stat -o "$T_TMP/o.txt" -e $EV -- $GP 10 && \
	$PERFKIT stat -o "$T_TMP/o.txt" --append -e $EV -- $GP 10
check stat_append "$(grep -c 'started on' "$T_TMP/o.txt") headers" \
	"$(grep -c 'started on' "$T_TMP/o.txt")" -eq 2
# --interval-count N prints N intervals; --summary adds the total
$PERFKIT stat -x, -I 100 --interval-count 2 --summary -e $EV -- $GP 1000 \
	2> "$T_TMP/i.txt"
check stat_interval_count "$(tr '\n' '|' < "$T_TMP/i.txt")" \
	"$(grep -c 'sys_enter' "$T_TMP/i.txt")" -le 3
check stat_summary "$(tr '\n' '|' < "$T_TMP/i.txt")" \
	"$(grep -c '^ *summary,1000,' "$T_TMP/i.txt")" -eq 1
t_attr_check stat_opt_attr
t_exit
