# Unprivileged use at perf_event_paranoid 2, as the nobody user: events the
# kernel refuses to count in the kernel fall back to user space only (:u,
# exclude_kernel + exclude_hv) as perf 6.1 does, the -v/-vv output shows the
# fallback as perf's does, and what still fails says why and what to do.
. tests/lib/sh.sh
GP=$PK_BUILD/workloads/getppid
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip unpriv "needs root and setpriv to run as nobody"; exit 0
fi
if [ "${par:-0}" -lt 2 ]; then
	skip unpriv "perf_event_paranoid is $par: kernel counting is allowed, nothing falls back"
	exit 0
fi
HAVE_PERF=1; command -v perf >/dev/null || HAVE_PERF=0
# nobody cannot read the worktree: binaries and files go to a 1777 dir.
chmod 1777 "$T_TMP"
cp "$PERFKIT" "$T_TMP/perfkit" && cp "$GP" "$T_TMP/getppid" || exit 1
chmod 755 "$T_TMP/perfkit" "$T_TMP/getppid"
cd "$T_TMP" || exit 1
NB="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
PK=./perfkit

# The attempts of -vv up to the first open that worked, pids and fds
# replaced, perf's other verbose lines dropped.
attempts() {
	awk '/^  [a-z{]/ || /^Warning:/ || /^kernel\.perf_event_paranoid=/ ||
	     /^The cycles event/ || /^sys_perf_event_open/ {
		gsub(/pid [0-9]+/, "pid P"); gsub(/ = [0-9]+$/, " = FD"); print
		if (/ = FD$/) exit }' "$1"
}

$NB $PK stat -e task-clock -- ./getppid 1000 >s.out 2>s.err; rc=$?
n=$(awk '/task-clock:u/ { gsub(/,/, "", $1); print int($1 * 1000); exit }' s.err)
check unpriv_stat_counts "rc=$rc $(head -3 s.err)" $rc -eq 0 -a "${n:-0}" -gt 0

$NB $PK stat -v -e task-clock -- true >/dev/null 2>v.err
check unpriv_stat_v_warning "$(head -3 v.err)" \
	"$(sed -n '/^Warning:$/{n;p;q}' v.err)" = \
	"kernel.perf_event_paranoid=$par, trying to fall back to excluding kernel and hypervisor  samples"

$NB $PK stat -vv -e task-clock -- true >/dev/null 2>vv.err
attempts vv.err >vv.pk
check unpriv_stat_vv_retry "$(tr '\n' ' ' <vv.pk | cut -c1-300)" \
	"$(grep -c 'sys_perf_event_open failed, error -13' vv.pk)" -eq 1 -a \
	"$(grep -c '^  exclude_hv  *1$' vv.pk)" -eq 1 -a "$(tail -1 vv.pk | grep -c ' = FD$')" -eq 1
if [ $HAVE_PERF = 1 ]; then
	$NB perf stat -vv -e task-clock -- true >/dev/null 2>pvv.err
	attempts pvv.err >vv.perf
	check unpriv_stat_vv_as_perf "$(diff vv.perf vv.pk | head -4 | tr '\n' ' ')" \
		-z "$(diff vv.perf vv.pk)" -a -s vv.perf
fi

# Still refused: CPU-wide, kernel-only (:k never falls back), another
# user's process. One line each, naming the rule and the fix.
$NB $PK stat -a -e task-clock -- true >/dev/null 2>a.err; rc=$?
check unpriv_stat_cpu_wide "rc=$rc $(cat a.err)" $rc -ne 0 -a \
	"$(wc -l <a.err)" -eq 1 -a -n "$(grep 'every task on a CPU.*paranoid is 2.*perf_event_paranoid=0.*sysctl.conf' a.err)"
$NB $PK stat -e task-clock:k -- true >/dev/null 2>k.err; rc=$?
check unpriv_stat_kernel_only "rc=$rc $(cat k.err)" $rc -ne 0 -a \
	"$(wc -l <k.err)" -eq 1 -a -n "$(grep "task-clock:k'.*in the kernel.*:u modifier.*perf_event_paranoid=1" k.err)"
$NB $PK record -p 1 -o p1.data >/dev/null 2>p1.err; rc=$?
check unpriv_record_other_user "rc=$rc $(cat p1.err)" $rc -ne 0 -a \
	"$(wc -l <p1.err)" -eq 1 -a -n "$(grep "another user's process.*CAP_SYS_PTRACE" p1.err)"

# Tracepoints: tracefs is root's here; the error says so.
if [ -n "$($NB sh -c 'test -r /sys/kernel/tracing/events || echo no')" ]; then
	$NB $PK stat -e syscalls:sys_enter_getppid -- true >/dev/null 2>tp.err; rc=$?
	check unpriv_tracepoint "rc=$rc $(head -1 tp.err)" $rc -ne 0 -a \
		-n "$(head -1 tp.err | grep 'tracefs is not accessible to this user: run as root')"
else
	skip unpriv_tracepoint "nobody can read tracefs here"
fi

# record: cycles falls back to :u and then to cpu-clock.
$NB $PK record -vv -e cycles -o r.data -- ./getppid 100000 >/dev/null 2>r.err; rc=$?
n=$($PK report -f -D -i r.data 2>/dev/null | grep -c PERF_RECORD_SAMPLE)
check unpriv_record "rc=$rc $(grep -v '^ ' r.err | tail -2 | tr '\n' ' ') samples $n" $rc -eq 0 -a "$n" -gt 0
attempts r.err >r.pk
check unpriv_record_vv_fallbacks "$(grep -v '^  ' r.pk | tr '\n' ' ')" \
	"$(grep -c -e '^kernel.perf_event_paranoid=' -e '^The cycles event is not supported' r.pk)" -eq 2
if [ $HAVE_PERF = 1 ]; then
	$NB perf record -vv -e cycles -o pr.data -- ./getppid 100000 >/dev/null 2>pr.err
	attempts pr.err >r.perf
	check unpriv_record_vv_as_perf "$(diff r.perf r.pk | head -4 | tr '\n' ' ')" \
		-z "$(diff r.perf r.pk)" -a -s r.perf
	ev() { perf report -f -i "$1" --header-only 2>/dev/null | sed -n 's/^# event : name = \([^,]*\), .*id = {[^}]*}, \(.*\)/\1 \2/p'; }
	check unpriv_record_header_as_perf "perf: $(ev pr.data) perfkit: $(ev r.data)" \
		"$(ev r.data)" = "$(ev pr.data)" -a -n "$(ev pr.data)"
	# the default event is built as cycles:u from the start (no user
	# fallback then), then walks precise_ip and falls back to cpu-clock
	$NB perf record -vv -o pd.data -- ./getppid 100000 >/dev/null 2>pd.err
	$NB $PK record -vv -o rd.data -- ./getppid 100000 >/dev/null 2>rd.err
	attempts pd.err >d.perf; attempts rd.err >d.pk
	check unpriv_record_default_vv_as_perf "$(diff d.perf d.pk | head -4 | tr '\n' ' ')" \
		-z "$(diff d.perf d.pk)" -a -s d.perf
	check unpriv_record_default_header_as_perf "perf: $(ev pd.data) perfkit: $(ev rd.data)" \
		"$(ev rd.data)" = "$(ev pd.data)" -a -n "$(ev pd.data)"
fi
t_exit
