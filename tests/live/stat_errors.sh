# perfkit stat: bad input and refused opens give one clear error, exit != 0.
. tests/lib/sh.sh
GP=$PK_BUILD/workloads/getppid

$PERFKIT stat -e cycles,nosuchevent -- true 2>"$T_TMP/e1"; rc=$?
check stat_err_unknown_rc "rc=$rc" $rc -eq 2
check stat_err_unknown_msg "$(cat "$T_TMP/e1")" -n "$(grep "nosuchevent" "$T_TMP/e1" | head -1)"
caret=$(grep -n '\^' "$T_TMP/e1" | head -1)
inp=$(grep -n '    cycles,nosuchevent' "$T_TMP/e1" | head -1)
col=$(grep '\^' "$T_TMP/e1" | head -1 | awk '{ print index($0, "^") }')
check stat_err_caret_column "caret at $col: $(cat "$T_TMP/e1")" "$col" -eq 12
check stat_err_caret_input "$(cat "$T_TMP/e1")" -n "$inp"

$PERFKIT stat -e 'software/nosuchterm=1/' -- true 2>"$T_TMP/e2"; rc=$?
check stat_err_pmu_term "rc=$rc $(cat "$T_TMP/e2")" $rc -eq 2 -a -n "$(grep nosuchterm "$T_TMP/e2")"

$PERFKIT stat -e 'nosuchpmu/config=1/' -- true 2>"$T_TMP/e3"; rc=$?
check stat_err_pmu "rc=$rc $(cat "$T_TMP/e3")" $rc -eq 2 -a -n "$(grep nosuchpmu "$T_TMP/e3")"

# A pid that does not exist: the message names it.
pid=999999
while kill -0 $pid 2>/dev/null; do pid=$((pid - 1)); done
$PERFKIT stat -e task-clock -p $pid 2>"$T_TMP/e4"; rc=$?
check stat_err_no_pid "rc=$rc $(cat "$T_TMP/e4")" $rc -ne 0 -a -n "$(grep "$pid" "$T_TMP/e4")"
check stat_err_no_pid_one_line "$(cat "$T_TMP/e4")" "$(wc -l < "$T_TMP/e4")" -eq 1

$PERFKIT stat -e task-clock --bogus-option -- true 2>/dev/null
check stat_err_usage_rc "rc=$?" $? -eq 2
$PERFKIT stat -e task-clock 2>/dev/null
check stat_err_nothing_rc "rc=$?" $? -eq 2

$PERFKIT stat -e task-clock -- /nonexistent/cmd 2>"$T_TMP/e5"; rc=$?
check stat_err_no_command "rc=$rc $(cat "$T_TMP/e5")" $rc -eq 127 -a -n "$(grep /nonexistent/cmd "$T_TMP/e5")"

# Permission denied for an unprivileged user (perf_event_paranoid >= 1
# refuses CPU-wide events to them).
par=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip stat_err_permission "needs root and setpriv to drop privileges"
elif [ "$par" -lt 1 ]; then
	skip stat_err_permission "perf_event_paranoid is $par: unprivileged CPU-wide counting is allowed"
else
	cp "$PERFKIT" "$T_TMP/perfkit"; chmod 755 "$T_TMP" "$T_TMP/perfkit"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$T_TMP/perfkit" stat -a -e task-clock -- true 2>"$T_TMP/e6"; rc=$?
	check stat_err_permission "rc=$rc $(cat "$T_TMP/e6")" $rc -ne 0 -a -n "$(grep perf_event_paranoid "$T_TMP/e6")"
fi

# Running out of file descriptors.
(ulimit -n 12; exec $PERFKIT stat -a -e cs,cs,cs,cs,cs,cs,cs,cs,cs,cs -- true) 2>"$T_TMP/e7"; rc=$?
check stat_err_fds "rc=$rc $(cat "$T_TMP/e7")" $rc -ne 0 -a -n "$(grep -iE 'open files|file descriptors' "$T_TMP/e7")"

# -G: counting restricted to a cgroup (v2).
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cg" ] || ! mkdir "$cg/pk-test-$$" 2>/dev/null; then
	skip stat_cgroup "no writable cgroup2 mount"
else
	$PERFKIT stat -a -G pk-test-$$ -x, -e syscalls:sys_enter_getppid -- \
		sh -c "$GP 1000; echo \$\$ > $cg/pk-test-$$/cgroup.procs; exec $GP 2500" \
		2>"$T_TMP/cg" # the first 1000 run outside the cgroup
	v=$(awk -F, '$3 == "syscalls:sys_enter_getppid" { print $1 }' "$T_TMP/cg")
	check stat_cgroup "got '$v' $(cat "$T_TMP/cg")" "$v" = 2500
	rmdir "$cg/pk-test-$$"
fi
t_exit
