#!/usr/bin/env python3
# tdstacks.py REPORT FOLDED [SPEEDSCOPE]: the collapsed stacks perfkit ftrace report
# --format=folded made of a trace.dat recorded with -T against those made
# here from `trace-cmd report` of the same file (REPORT): each
# "<stack trace >" block counted for the event before it on its CPU
# (its command, trace-cmd's column, as the root; frames outermost first),
# only the blocks after the first event type that has them; the
# speedscope file's samples (a profile per thread) the same stacks.
# Prints "ok NAME" / "FAIL NAME: why" lines.
import collections
import re
import sys

head = re.compile(r'^\s*(.*)-(\d+)\s+\[(\d+)\]\s+\d+\.\d+:\s+(\S+):')
want = collections.Counter()
last = {}
chosen = None
stack = None


def flush():
    global stack
    if stack:
        comm, frames = stack
        want[';'.join([comm] + frames[::-1])] += 1
    stack = None


for line in open(sys.argv[1], errors='replace'):
    line = line.rstrip('\n')
    if line.startswith('=> ') and stack is not None:
        stack[1].append(re.sub(r' \([0-9a-f]+\)$', '', line[3:]))
        continue
    m = head.match(line)
    if not m:
        continue
    flush()
    comm, cpu, ev = m[1].strip(), int(m[3]), m[4]
    if ev != 'kernel_stack':
        last[cpu] = (comm, ev)
        continue
    if cpu not in last:
        continue
    if chosen is None:
        chosen = last[cpu][1]
    if last[cpu][1] == chosen:
        stack = (last[cpu][0], [])
flush()

got = collections.Counter()
for line in open(sys.argv[2]):
    s, _, n = line.rstrip('\n').rpartition(' ')
    got[s] += int(n)
print(f'ok tdstacks_folded ({len(want)} stacks after {chosen})'
      if want and got == want else
      f'FAIL tdstacks_folded: {len(got)} stacks, trace-cmd {len(want)}; '
      f'only perfkit {list(got - want)[:2]}, only trace-cmd '
      f'{list(want - got)[:2]}')

if len(sys.argv) > 3:
    import json
    ss = json.load(open(sys.argv[3]))
    names = [f['name'] for f in ss['shared']['frames']]
    sgot = collections.Counter()
    for p in ss['profiles']:
        comm = p['name'].rsplit(' (', 1)[0]
        for st, w in zip(p['samples'], p['weights']):
            sgot[';'.join([comm] + [names[i] for i in st])] += w
    print('ok tdstacks_speedscope' if sgot == want else
          f'FAIL tdstacks_speedscope: {sum(sgot.values())} samples, '
          f'trace-cmd {sum(want.values())}; only speedscope '
          f'{list(sgot - want)[:2]}')
