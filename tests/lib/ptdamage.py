#!/usr/bin/env python3
# ptdamage.py PERFKIT CORPUS TMPDIR SEED...: every stream of the libipt
# corpus with one byte in sixteen changed (a fixed pseudo-random pattern
# per seed and stream) decoded by `perfkit pt decode --resync-on-error`
# (and with --block-decoder): each run must end by itself (a 20 s limit:
# a resync that makes no progress loops forever) and not die of a
# signal; and its work (packets read, instructions walked: `--stat:work`)
# stays within ten times the undamaged stream's. Prints "ok NAME" /
# "FAIL NAME: why" per seed and mode.
import os
import random
import re
import subprocess
import sys


def work(args):
    """packets + instructions of a decode (--stat:work), or None"""
    r = subprocess.run(args + ['--stat:work'], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, timeout=20)
    m = re.search(rb'work: (\d+) packets, (\d+) insns', r.stdout)
    return int(m.group(1)) + int(m.group(2)) if m else None


pk, corpus, tmp = sys.argv[1:4]
rows = [line.rstrip('\n').split('\t')
        for line in open(os.path.join(corpus, 'MANIFEST.tsv'))][1:]
for seed in sys.argv[4:]:
    for mode in ([], ['--block-decoder']):
        bad = []
        for name, cpu, org, _, xopts in rows:
            d = bytearray(open(f'{corpus}/{name}/{name}.pt', 'rb').read())
            rnd = random.Random(f'{seed}:{name}')
            for i in range(0, len(d), 16):
                j = i + rnd.randrange(16)
                if j < len(d):
                    d[j] = rnd.randrange(256)
            pt = os.path.join(tmp, f'{name}.pt')
            with open(pt, 'wb') as f:
                f.write(d)
            args = [pk, 'pt', 'decode', '--raw',
                    f'{corpus}/{name}/{name}.bin:{org}',
                    '--resync-on-error', '--quiet'] + mode
            if cpu != '-':
                args += ['--cpu', cpu]
            if xopts != '-':
                args += [f'{corpus}/{name}/{o}' if '.bin:' in o else o
                         for o in xopts.split()]
            try:
                r = subprocess.run(args + ['--pt', pt],
                                   stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, timeout=20)
                if r.returncode < 0 or r.returncode > 2:
                    bad.append(f'{name} (status {r.returncode})')
                # the damaged decode's work against the sound one's (a
                # small allowance: a sound stream may stop at once)
                clean = work(args + ['--pt', f'{corpus}/{name}/{name}.pt'])
                dmg = work(args + ['--pt', pt])
                if clean is None or dmg is None:
                    bad.append(f'{name} (no --stat:work line)')
                elif dmg > 10 * clean + 200:
                    bad.append(f'{name} (work {dmg}, sound {clean})')
            except subprocess.TimeoutExpired:
                bad.append(f'{name} (still running after 20 s)')
        tag = f'pt_damage_seed{seed}{"_block" if mode else ""}'
        print(f'ok {tag}' if not bad else
              f'FAIL {tag}: {len(bad)} of {len(rows)}: {bad[:4]}')
