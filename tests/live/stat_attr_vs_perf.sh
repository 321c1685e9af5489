# perfkit stat -vv prints the same perf_event_attr blocks and open calls as
# perf stat -vv, for event strings of every kind this machine has.
. tests/lib/sh.sh
if ! command -v perf >/dev/null; then
	skip stat_attr_vs_perf "perf is not installed"; exit 0
fi
n=0
while IFS= read -r ev; do
	[ -z "$ev" ] && continue
	n=$((n + 1))
	t_attr_case "'$ev'"
	perf stat -vv -e "$ev" true > /dev/null 2> "$T_AREF"
	$PERFKIT stat -vv -e "$ev" true > /dev/null 2> "$T_APK"
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
t_attr_check stat_attr
check stat_attr_count "only $n event strings" $n -ge 40
t_exit
