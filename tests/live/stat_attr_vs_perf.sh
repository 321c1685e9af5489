# perfkit stat -vv prints the same perf_event_attr blocks and open calls as
# perf stat -vv, for event strings of every kind this machine has.
. tests/lib/sh.sh
if ! command -v perf >/dev/null; then
	skip stat_attr_vs_perf "perf is not installed"; exit 0
fi
NORM=tests/lib/attr_norm.py
n=0
while IFS= read -r ev; do
	[ -z "$ev" ] && continue
	n=$((n + 1))
	perf stat -vv -e "$ev" true > /dev/null 2> "$T_TMP/perf.txt"
	$PERFKIT stat -vv -e "$ev" true > /dev/null 2> "$T_TMP/pk.txt"
	t_python "$NORM" "$T_TMP/perf.txt" > "$T_TMP/perf.n"
	t_python "$NORM" "$T_TMP/pk.txt" > "$T_TMP/pk.n"
	if [ ! -s "$T_TMP/perf.n" ]; then
		skip "stat_attr '$ev'" "perf printed no attr block"
	elif cmp -s "$T_TMP/perf.n" "$T_TMP/pk.n"; then
		ok "stat_attr '$ev'"
	else
		fail "stat_attr '$ev'" "$(diff "$T_TMP/perf.n" "$T_TMP/pk.n" | head -12 | tr '\n' '|')"
	fi
done <<'EVENTS'
cpu-clock
task-clock
page-faults
faults
context-switches
cs
cpu-migrations
migrations
minor-faults
major-faults
alignment-faults
emulation-faults
dummy
bpf-output
cgroup-switches
cpu-clock:u
task-clock:k
cs:h
cs:uk
page-faults:G
page-faults:H
minor-faults:I
dummy:D
cs:ukhI
sched:sched_switch
sched:sched_process_exec
syscalls:sys_enter_getppid
syscalls:sys_enter_getppid:u
syscalls:sys_enter_getp*
irq:irq_handler_entry
timer:hrtimer_start
mem:0x1000
mem:0x1000:rw
mem:0x1000/4:w
mem:0x2000:x
mem:0x1000:r:u
msr/tsc/
msr/tsc/u
software/config=3/
software/config=0,period=1000/
tracepoint/config=1/
r1234
r0c0:u
cycles
instructions:u
branch-misses:k
ref-cycles
cache-misses:uk
L1-dcache-load-misses
LLC-loads
dTLB-load-misses:u
branch-loads
{cs,task-clock}
{cpu-clock,page-faults}:u
{sched:sched_switch,cs}
cs,{task-clock,dummy},faults
EVENTS
check stat_attr_count "only $n event strings" $n -ge 40
t_exit
