# perfkit record -vv prints the same perf_event_attr blocks, open calls and
# failed tries (precise_ip walk, cycles fallback, refused branch stacks)
# as perf record -vv, for each perf 6.1 record option this kernel can
# express; -F throttling warns as perf does; :S samples read back by
# perfkit script exactly as perf script prints them.
# pk-test: slow shards=4
. tests/lib/sh.sh
if ! command -v perf >/dev/null; then
	skip record_attr_vs_perf "perf is not installed"; exit 0
fi
cd "$T_TMP" || exit 1
PK=$OLDPWD/$PERFKIT; DEMO=$OLDPWD/$PK_BUILD/workloads/demo
# perf waits about a second for its BPF side-band thread to end: sets
# not marked + run with --no-bpf-event (it only takes that event away and
# clears bpf_event, as the +no-bpf-event set checks). perf runs with -B:
# its build-id pass over the file after the run costs more than the rest
# of the run and changes no attr (checked on every set here).
n=0
sleep 600 & SLEEPER=$!; t_bg $SLEEPER
while IFS='|' read -r name opts; do
	[ -z "$name" ] && continue
	n=$((n + 1))
	t_part $n || continue
	opts=$(echo "$opts" | sed "s/PID/$SLEEPER/g")
	case $name in +*) ;; *) opts="$opts --no-bpf-event";; esac
	t_attr_case "$name"
	perf record -vv -B $opts -o p.data -- true > /dev/null 2> "$T_AREF"; prc=$?
	$PK record -vv $opts -o k.data -- true > /dev/null 2> "$T_APK"; krc=$?
	[ $((prc == 0)) -ne $((krc == 0)) ] &&
		t_attr_err "perf exited $prc, perfkit $krc: $(tail -2 "$T_APK" | tr '\n' '|')"
done <<'OPTS'
+default|
+cpu-clock|-e cpu-clock
cycles:u|-e cycles:u
two-events|-e cpu-clock -e task-clock
group|-e {cpu-clock,task-clock}
group-opt|-e cpu-clock,task-clock --group
+sample-read|-e {cpu-clock,task-clock}:S
sample-read-tp|-e {sched:sched_switch,sched:sched_wakeup}:S
sample-read-mixed|-e {cpu-clock,sched:sched_switch}:S
sample-read-one|-e cpu-clock:S
tracepoint|-e sched:sched_switch
+a|-e cpu-clock -a
+C|-e cpu-clock -C 0
C-g|-e cpu-clock -C 0,1 -g
a-R|-e cpu-clock -a -R
a-two|-e task-clock -a -e cpu-clock
+p|-e cpu-clock -p PID
t|-e cpu-clock -t PID
per-thread|-e cpu-clock --per-thread
p-per-thread|-e cpu-clock -p PID --per-thread
group-a|-e {cpu-clock,task-clock} -a
i-C|-e cpu-clock -i -C 1
tracepoint-a|-e syscalls:sys_enter_getppid -a
b|-e cpu-clock -b
j-any-call-u|-e cpu-clock -j any_call,u
j-u|-e cpu-clock -j u
j-save-type|-e cpu-clock -j cond,save_type
+no-bpf-event|-e cpu-clock --no-bpf-event
n|-e cpu-clock -n
P|-e cpu-clock -c 100000 -P
no-buffering|-e cpu-clock --no-buffering
W|-e cpu-clock -W
intr-regs|-e cpu-clock --intr-regs
I-list|-e cpu-clock -I ax,ip,r15
user-regs|-e cpu-clock --user-regs=sp,ip
phys-data|-e cpu-clock --phys-data
data-page-size|-e cpu-clock --data-page-size
code-page-size|-e cpu-clock --code-page-size
s|-e cpu-clock -s
user-callchains|-e cpu-clock -g --user-callchains
kernel-callchains|-e cpu-clock -g --kernel-callchains
T|-e cpu-clock -T
sample-cpu|-e cpu-clock --sample-cpu
+D|-e cpu-clock -D 1
transaction|-e cpu-clock --transaction
d|-e cpu-clock -d
running-time|-e cpu-clock --running-time
sample-identifier|-e cpu-clock --sample-identifier
all-user|-e cpu-clock --all-user
all-kernel|-e cpu-clock --all-kernel
no-inherit|-e cpu-clock -i
buildid-mmap|-e cpu-clock --buildid-mmap
F-max|-e cpu-clock -F max
F-high|-e cpu-clock -F 200000
c|-e cpu-clock -c 100000
overwrite|-e cpu-clock --overwrite
dwarf|-e cpu-clock --call-graph dwarf,4096
k|-e cpu-clock -k mono
R|-e cpu-clock -R
switch-events|-e cpu-clock --switch-events
namespaces|-e cpu-clock --namespaces
all-cgroups|-e cpu-clock --all-cgroups
m-aux|-e cpu-clock -m 8,16
a-g|-e cpu-clock -a -g
a-d|-e cpu-clock -a -d
a-P|-e cpu-clock -a -P
a-s|-e cpu-clock -a -s
a-n|-e cpu-clock -a -n
a-b|-e cpu-clock -a -b
a-user-regs|-e cpu-clock -a --user-regs
a-dwarf|-e cpu-clock -a --call-graph dwarf
a-all-user|-e cpu-clock -a --all-user
+a-D|-e cpu-clock -a -D 1
D-g|-e cpu-clock -D 1 -g
dwarf-user-regs|-e cpu-clock --call-graph dwarf --user-regs=ax
a-dwarf-user-regs|-e cpu-clock -a --call-graph dwarf --user-regs=ax
a-sample-read|-e {cpu-clock,task-clock}:S -a
sample-read-s|-e {cpu-clock,task-clock}:S -s
group-b|-e {cpu-clock,task-clock} -b
OPTS
t_attr_check record_attr --tries
t_part $((n + 1)) || { t_exit; exit; } # the rest: one run
check record_attr_count "only $n option sets" $n -ge 60

# -F above the kernel's limit: perf's warning, word for word; refused
# under --strict-freq by both. The sleeper is the target (`true` only
# the duration): an exec sampled at the top rate costs half a second
# of CPU here, a sleeping task nothing.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
hi=$((max * 2))
S="-p $SLEEPER --no-bpf-event"
perf record $S -e cpu-clock -F $hi -o p.data -- true 2>&1 >/dev/null | grep -A3 '^warning:' > perf.w
$PK record $S -e cpu-clock -F $hi -o k.data -- true 2>&1 >/dev/null | grep -A3 '^warning:' > pk.w
check record_F_throttle_text "$(diff perf.w pk.w | tr '\n' '|')" -s pk.w -a -z "$(diff perf.w pk.w)"
$PK record -q $S -e cpu-clock -F $hi -o k.data -- true >/dev/null 2>&1
check record_F_throttle_records "rc=$?" $? -eq 0
$PK record -q $S -e cpu-clock -F $hi --strict-freq -o k.data -- true >/dev/null 2>strict.err
krc=$?
check record_strict_freq_refused "rc=$krc" $krc -ne 0 -a "$(wc -l < strict.err)" -eq 1
perf record $S -e cpu-clock -F max -o p.data -- true 2>&1 >/dev/null | grep '^info:' > perf.i
$PK record $S -e cpu-clock -F max -o k.data -- true 2>&1 >/dev/null | grep '^info:' > pk.i
check record_F_max_text "$(cat pk.i)" -s pk.i -a -z "$(diff perf.i pk.i)"

# :S recordings read back: perfkit script prints what perf script prints,
# on perf's recording and on perfkit's.
for ev in '{cpu-clock,task-clock}:S' '{sched:sched_switch,sched:sched_wakeup}:S' \
	  'cpu-clock:S' '{task-clock,cpu-clock,page-faults}:S'; do
	perf record -q --no-bpf-event -e "$ev" -o s1.data -- $DEMO >/dev/null 2>&1
	$PK record -q -e "$ev" -o s2.data -- $DEMO >/dev/null 2>&1
	for f in s1 s2; do
		perf script -i $f.data > perf.s 2>/dev/null
		$PK script -i $f.data > pk.s 2>pk.serr
		if [ ! -s perf.s ]; then
			fail "record_script_read $ev $f" "perf script printed nothing"
		elif cmp -s perf.s pk.s; then
			ok "record_script_read $ev $f"
		else
			fail "record_script_read $ev $f" "$(diff perf.s pk.s | head -6 | tr '\n' '|')"
		fi
	done
done
# A group sample shows every member that counted.
check record_script_read_members "$(head -2 pk.s | tr '\n' '|')" \
	"$(grep -c 'page-faults:' pk.s)" -gt 0

# --filter and --exclude-perf add to the -e's filter as perf joins them:
# "(a) && (b)"; the recorder's own pid is left out, the command's kept.
GP=$OLDPWD/$PK_BUILD/workloads/getppid
EV=syscalls:sys_enter_getppid
$PK record -q -e $EV --filter 'common_pid == 1' --filter 'common_pid != 1' -o f.data -- $GP 10 >/dev/null 2>&1
nf=$($PK script -i f.data 2>/dev/null | grep -c getppid)
$PK record -q -e $EV --filter 'common_pid != 1' --exclude-perf -o f.data -- $GP 10 >/dev/null 2>&1
ne=$($PK script -i f.data 2>/dev/null | grep -c getppid)
check record_filters_joined "$nf samples with contradictory filters, $ne with --exclude-perf" "$nf" -eq 0 -a "$ne" -eq 10
$PK record -q -e cpu-clock --exclude-perf -o f.data -- true >/dev/null 2>&1
check record_exclude_perf_needs_tp "rc=$?" $? -ne 0

# --max-size ends the session (with success) once the file is that big,
# and stops the workload: one that would run for seconds, so that the limit
# comes first however fast the machine (CI's ran 20000 calls before the
# first wake-up).
$PK record -e $EV --max-size 20K -o ms.data -- $GP 50000000 >/dev/null 2>ms.err; rc=$?
nm=$($PK script -i ms.data 2>/dev/null | grep -c getppid)
check record_max_size "rc=$rc, $nm samples: $(head -1 ms.err)" $rc -eq 0 -a "$nm" -lt 1000000 -a \
	-n "$(grep 'size limit reached' ms.err)"

# Refused options say so in one line and fail; dry runs write nothing.
for o in "--switch-output" "-S" "--control fifo:x" "--tail-synthesize" "-j bogus" "--user-regs=ds" "-D 1-2"; do
	$PK record $o -e cpu-clock -o r.data -- true >/dev/null 2>r.err; krc=$?
	check "record_refused '$o'" "rc=$krc: $(cat r.err)" $krc -ne 0 -a "$(wc -l < r.err)" -eq 1 -a ! -e r.data
done
$PK record --dry-run -e cpu-clock -o dry.data -- true >/dev/null 2>&1
check record_dry_run "rc=$? or a file written" $? -eq 0 -a ! -e dry.data
t_exit
