#!/usr/bin/env python3
# schedcheck.py PREFIX TIMELINE.json EVENTS STYLE: the thread states and
# wake-ups of a perfetto (trace-event JSON) export against the scheduler
# events as the reference tool prints them (EVENTS: `perf script --ns -F
# tid,cpu,time,event,trace` when STYLE is perf, `trace-cmd report -t`
# when it is trace-cmd); prints "ok PREFIX_NAME" / "FAIL PREFIX_NAME: why".
#  invariants: each thread's slices never overlap (gaps only after an
#   exit), every flow has its two ends, the start inside a Running slice
#   of the waker, the end inside a slice of the woken thread;
#  against the reference: after each sched_switch the next task runs on
#   that CPU and the previous one is in the state prev_state names; after
#   each sched_wakeup the woken task is runnable or running; one flow per
#   wake-up by a task other than the idle one and the woken one.
import collections
import json
import re
import sys

prefix, tl_path, ev_path, style = sys.argv[1:5]


def check(name, cond, why):
    print(f'ok {prefix}_{name}' if cond else f'FAIL {prefix}_{name}: {why}')


def ns(v):
    # "123.456" microseconds (as written: no float rounding) -> ns
    s = repr(v) if not isinstance(v, str) else v
    whole, _, frac = s.partition('.')
    return int(whole) * 1000 + int((frac + '000')[:3])


raw = open(tl_path).read()
# the times as written (json's floats would round them)
tl = json.loads(re.sub(r'"(ts|dur)":([0-9.]+)', r'"\1":"\2"', raw))
ev = tl['traceEvents']
slices = collections.defaultdict(list)
for e in ev:
    if e.get('ph') == 'X' and e.get('cat') == 'sched':
        t0 = ns(e['ts'])
        slices[e['tid']].append((t0, t0 + ns(e['dur']), e['name'],
                                 e.get('args', {})))
bad = []
for tid, ss in slices.items():
    ss.sort(key=lambda s: (s[0], s[1]))
    for a, b in zip(ss, ss[1:]):
        if b[0] < a[1] or (b[0] > a[1] and not a[2].startswith('Exit')):
            bad.append((tid, a[:3], b[:3]))
check('no_overlap', slices and not bad,
      f'{len(slices)} threads with states; {bad[:3]}')


def covering(tid, t, names=None):
    return [s for s in slices.get(tid, ())
            if s[0] <= t <= s[1] and (names is None or s[2] in names)]


flows = collections.defaultdict(dict)
for e in ev:
    if e.get('ph') in ('s', 'f') and e.get('cat') == 'wakeup':
        flows[e['id']][e['ph']] = (e['tid'], ns(e['ts']))
lost = [i for i, f in flows.items() if set(f) != {'s', 'f'} or
        not covering(f['s'][0], f['s'][1], {'Running'}) or
        not covering(f['f'][0], f['f'][1])]
check('flows_bound', not lost, f'{len(lost)} of {len(flows)} flows lack '
      f'an end or its slice: {[flows[i] for i in lost[:3]]}')

# the reference's events
switches, wakeups = [], []
if style == 'perf':
    sw = re.compile(r'^\s*(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+sched:sched_switch:'
                    r'.* prev_pid=(\d+) .*prev_state=(\S+) ==> .* next_pid=(\d+) ')
    wk = re.compile(r'^\s*(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+sched:sched_wakeup(?:_new)?:'
                    r'.* pid=(\d+) ')
else:
    sw = re.compile(r'^.*-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+sched_switch:'
                    r'.*:(\d+) \[-?\d+\] (\S+) ==> .*:(\d+) \[-?\d+\]\s*$')
    wk = re.compile(r'^.*-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+sched_wakeup(?:_new)?:'
                    r'.*:(\d+) \[-?\d+\]')
for line in open(ev_path, errors='replace'):
    m = sw.match(line)
    if m:
        t = int(m[3]) * 10**9 + int((m[4] + '000000000')[:9])
        switches.append((t, int(m[2]), int(m[5]), m[6], int(m[7])))
        continue
    m = wk.match(line)
    if m:
        t = int(m[3]) * 10**9 + int((m[4] + '000000000')[:9])
        wakeups.append((t, int(m[1]), int(m[5])))

# perf prints the kernel's letters; trace-cmd 3.1's sched_switch plugin
# names the same bits with the letters of kernels before 4.14 (SDTtZXxW:
# its Z, X, x, W are the bits of X, Z, P, I now) and R for a preempted
# task too; a list of letters: its lowest bit
R = ('Runnable', 'Runnable (Preempted)')
NAME = {'R': R, 'R+': ('Runnable (Preempted)',), 'S': ('Sleeping',),
        'D': ('Uninterruptible Sleep',), 'T': ('Stopped',),
        't': ('Traced',), 'X': ('Exit (Dead)',), 'Z': ('Exit (Zombie)',),
        'P': ('Parked',), 'I': ('Idle',)}
if style != 'perf':
    NAME.update({'R': R, 'Z': ('Exit (Dead)',), 'X': ('Exit (Zombie)',),
                 'x': ('Parked',), 'W': ('Idle',)})
wrong = []
for t, cpu, prev, state, nxt in switches:
    want = NAME.get(state, NAME.get(state[:1]))
    if prev and not [s for s in slices.get(prev, ())
                     if s[0] == t and s[2] in want]:
        wrong.append(f'{t}: {prev} not {want}: {covering(prev, t)}')
    if nxt and not [s for s in slices.get(nxt, ())
                    if s[0] == t and s[2] == 'Running' and
                    s[3].get('cpu') == cpu]:
        wrong.append(f'{t}: {nxt} not running on {cpu}: {covering(nxt, t)}')
check('switches', switches and not wrong,
      f'{len(switches)} switches, {len(wrong)} wrong: {wrong[:3]}')
woke = ('Runnable', 'Runnable (Preempted)', 'Running')
wrong = [(t, w, p) for t, w, p in wakeups if p and not covering(p, t, woke)]
check('wakeups', not wrong,
      f'{len(wakeups)} wake-ups, {len(wrong)} without a runnable target: '
      f'{wrong[:3]}')
by_task = collections.Counter((t, w, p) for t, w, p in wakeups
                              if w and p and w != p)
made = collections.Counter((f['s'][1], f['s'][0], f['f'][0])
                           for f in flows.values() if set(f) == {'s', 'f'})
# (on failure: the wake-ups without a flow and the flows without one,
# by time, waker and woken, to tell which side dropped what)
check('flow_count', len(flows) == sum(by_task.values()),
      f'{len(flows)} flows, {sum(by_task.values())} wake-ups by a task; '
      f'no flow: {sorted((by_task - made).elements())[:4]}; '
      f'no wake-up: {sorted((made - by_task).elements())[:4]}')

if style != 'perf':
    # every other event an instant on its thread: its CPU, time, name and
    # text as trace-cmd report prints them, in order
    line_re = re.compile(r'^.*-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\S+):\s?(.*)$')
    want = []
    for line in open(ev_path, errors='replace'):
        m = line_re.match(line.rstrip('\n'))
        if m and m[5] not in ('sched_switch', 'sched_wakeup',
                              'sched_wakeup_new'):
            t = int(m[3]) * 10**9 + int((m[4] + '000000000')[:9])
            want.append((int(m[1]), int(m[2]), t, m[5], m[6].strip()))
    got = [(e['tid'], e['args']['cpu'], ns(e['ts']), e['name'],
            e['args']['info'].strip())
           for e in ev if e.get('ph') == 'i']
    diff = [(a, b) for a, b in zip(got, want) if a != b]
    check('instants', want and len(got) == len(want) and not diff,
          f'{len(got)} instants, trace-cmd {len(want)} events; '
          f'first difference {diff[:1]}')
