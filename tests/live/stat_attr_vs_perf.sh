# perfkit stat -vv prints the same perf_event_attr blocks and open calls as
# perf stat -vv, for event strings of every kind this machine has.
. tests/lib/sh.sh
if ! command -v perf >/dev/null; then
	skip stat_attr_vs_perf "perf is not installed"; exit 0
fi
cat > "$T_TMP/norm.py" <<'PY'
import re, sys
# Keeps the attr blocks and open lines of the first attempt at each open;
# pids, fds and group fds become placeholders since they differ between
# runs; whether the open worked is not compared. perf's retries after a failure (other flags, features switched
# off) are dropped: they are the kernel's answer, not the attr built.
blocks, cur = [], None
for l in open(sys.argv[1], errors="replace"):
    l = l.rstrip("\n")
    if l == "perf_event_attr:":
        cur = {"attr": [], "open": []}
        blocks.append(cur)
    elif cur is not None and l.startswith("sys_perf_event_open:"):
        l = re.sub(r"pid (\d+)", lambda m: "pid " + ("P" if int(m.group(1)) > 0 else m.group(1)), l)
        l = re.sub(r"group_fd (\d+)", "group_fd G", l)
        l = re.sub(r" = \d+$", "", l)
        cur["open"].append(l)
    elif cur is not None and l.startswith("sys_perf_event_open failed"):
        cur["open"].append("failed")
    elif cur is not None and l.startswith("  ") and not cur["open"]:
        cur["attr"].append(l)
def key(b):
    return [l for l in b["attr"] if re.match(r"  (type|config|\{ bp_addr)", l)]
out, last_failed = [], None
for b in blocks:
    if last_failed is not None and key(b) == last_failed:
        continue
    last_failed = key(b) if "failed" in b["open"] else None
    out += ["perf_event_attr:"] + b["attr"] + [o for o in b["open"] if o != "failed"]
print("\n".join(out))
PY
n=0
while IFS= read -r ev; do
	[ -z "$ev" ] && continue
	n=$((n + 1))
	perf stat -vv -e "$ev" true > /dev/null 2> "$T_TMP/perf.txt"
	$PERFKIT stat -vv -e "$ev" true > /dev/null 2> "$T_TMP/pk.txt"
	python3 "$T_TMP/norm.py" "$T_TMP/perf.txt" > "$T_TMP/perf.n"
	python3 "$T_TMP/norm.py" "$T_TMP/pk.txt" > "$T_TMP/pk.n"
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
