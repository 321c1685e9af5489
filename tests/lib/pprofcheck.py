#!/usr/bin/env python3
# pprofcheck.py PERFKIT FILE PB NAME [--flat]: compares `go tool pprof` on PB
# (perfkit report --format=pprof of FILE) with perfkit report --stdio on
# FILE; prints "ok NAME ..." or "FAIL NAME ...: why" lines:
#  - flat: each function's flat value (the cpu/period column, in ns for
#    a clock event) equals its entry's period in report --no-children
#    -s sym --show-total-period;
#  - cum: its cumulative share, to two decimals, equals its Children
#    column in report --children -s sym;
#  - traces: the functions -traces shows are report --children's.
# Functions whose name two entries share (two DSOs) and unresolved
# addresses are left out. Flat values count inlined functions in the
# function that holds them (-noinlines), as report's --no-children
# entries do; report --children's "f (inlined)" entries are pprof's
# "f (inline)" functions.
import os
import re
import subprocess
import sys

pk, data, pb, name = sys.argv[1:5]
flat_only = sys.argv[5:] == ['--flat']
env = dict(os.environ, HOME=os.environ.get('T_TMP', '/tmp'))


def run(*args):
    return subprocess.run(args, capture_output=True, text=True,
                          env=env).stdout


def pprof(*args):
    return run('go', 'tool', 'pprof', '-symbolize=none', *args, pb)


def report(*args):
    out = run(pk, 'report', '--stdio', '-i', data, '-s', 'sym', '-g',
              'none', *args)
    rows = {}
    dup = set()
    for line in out.splitlines():
        if line.startswith('#') or not line.strip():
            continue
        m = re.match(r'^\s+(\S+)\s+(\S+)\s+\[[.k]\] (.*)$', line)
        if not m:
            continue
        sym = m.group(3).rstrip()
        if re.match(r'^0x[0-9a-f]+$', sym) or \
           re.match(r'^[0-9a-f]{16}$', sym):
            continue
        if sym in rows:
            dup.add(sym)
        rows[sym] = (m.group(1), m.group(2))
    for d in dup:
        del rows[d]
    return rows


def ns(v):
    m = re.match(r'^([0-9.]+)(ns)?$', v)
    return int(float(m.group(1))) if m else None


def inl(f):
    # pprof marks an inlined function "(inline)", report "(inlined)";
    # "(partial-inline)": one name both inlined somewhere and not (glibc's
    # inline futex_wait beside the kernel's function): report's plain row
    if f.endswith(' (partial-inline)'):
        return f[:-len(' (partial-inline)')]
    return f[:-len(' (inline)')] + ' (inlined)' \
        if f.endswith(' (inline)') else f


def table(*args):
    top = pprof('-top', '-nodefraction=0',
                '-nodecount=1000000', '-unit=ns', *args)
    flat, cum, total = {}, {}, None
    for line in top.splitlines():
        m = re.match(r'^.*Total samples = (\d+)ns', line)
        if m:
            total = int(m.group(1))
        m = re.match(r'^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.*)$',
                     line)
        if m and ns(m.group(1)) is not None:
            flat[inl(m.group(3))] = ns(m.group(1))
            cum[inl(m.group(3))] = ns(m.group(2))
    return flat, cum, total


# flat: inlined functions count in their holder (report's entries);
# cum: report --children has an entry per inlined function too
flat, _, total = table('-noinlines')
_, cum, _ = table()
if not flat or not total:
    print(f'FAIL {name} pprof: no -top table ({top[:200]!r})')
    sys.exit(0)

self_rows = report('--no-children', '--show-total-period')
bad = [(s, p, flat.get(s)) for s, (pct, p) in self_rows.items()
       if int(p) and flat.get(s) != int(p)]
print(f'ok {name} flat ({len(self_rows)} functions)' if not bad else
      f'FAIL {name} flat: {bad[:3]}')

ch_rows = report('--children')
if flat_only:   # report's inlined frames under clones' DWARF names
    sys.exit(0)
bad = []
for s, (children, _) in ch_rows.items():
    got = '%.2f%%' % (cum.get(s, 0) * 100.0 / total)
    if got != children:
        bad.append((s, children, got))
print(f'ok {name} cum ({len(ch_rows)} functions)' if not bad else
      f'FAIL {name} cum: {bad[:3]}')

tr = pprof('-traces')
seen = set()
for line in tr.splitlines():
    if not line.startswith(' ') or not line.strip():
        continue
    first = line.split()[0]
    if first.endswith(':'):
        continue                # a label
    m = re.match(r'^\s+[0-9.]+(?:ns|us|ms|s|mins|hrs)?\s+(.*)$', line)
    seen.add(inl(m.group(1) if m else line.strip()))
missing = [s for s in ch_rows if s not in seen]
print(f'ok {name} traces' if not missing else
      f'FAIL {name} traces: not in -traces: {missing[:3]}')
