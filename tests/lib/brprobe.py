#!/usr/bin/env python3
# brprobe.py OUT SEED DSO...: writes OUT, a pipe-mode perf.data of
# cycles samples with branch stacks (perf record -b's layout: IP | TID |
# TIME | PERIOD | BRANCH_STACK, branch_sample_type ANY) for perf report's
# branch mode. Each DSO is mapped (its executable segment) into one of two
# processes; the branches go between function symbols of the DSOs (at
# their start or inside), to addresses in no mapping (0 among them) and
# kernel addresses, with cycles, mispredicted/predicted, in_tx and abort
# drawn from SEED, repeats included so that entries merge. perf report's
# text of OUT is the reference for perfkit's.
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdprobe import Elf, mmap2, padded, rec, stream  # noqa: E402

BASE = 0x7f0000000000


def main():
    out, rnd = sys.argv[1], random.Random(int(sys.argv[2]))
    dsos = [os.path.abspath(p) for p in sys.argv[3:]]
    # IP | TID | TIME | PERIOD | BRANCH_STACK; branch_sample_type ANY
    attr = struct.pack('<IIQQQQQIIQQQ', 0, 128, 0, 4000, 0x907, 0,
                       (1 << 10) | (1 << 8), 0, 0, 0, 0, 1 << 3)
    w = []
    procs = [(4242, 'brprobe'), (4343, 'other')]
    targets = {p: [] for p, _ in procs}
    for p, comm in procs:
        w.append(rec(3, struct.pack('<II', p, p) + padded(comm)))
    for i, dso in enumerate(dsos):
        elf = Elf(dso)
        funcs, vaddr = elf.functions(), elf.seg[1]
        pid = procs[i % 2][0]
        start, length, pgoff = elf.mapping(BASE + 0x10000000 * i)
        w.append(mmap2(pid, pid, start, length, pgoff, dso, 1234 + i))
        for a, size in rnd.sample(funcs, min(len(funcs), 12)):
            ip = start + a - (vaddr & ~0xfff)
            targets[pid] += [ip, ip + rnd.randrange(size)]
    t = 1000
    for n in range(120):
        pid = procs[n % 2][0]
        pool = targets[pid] or [0]
        br = []
        for _ in range(rnd.randrange(1, 9)):
            def addr():
                k = rnd.random()
                if k < 0.06:
                    return 0
                if k < 0.12:
                    return 0xffffffff81000000 + rnd.randrange(0x100000)
                if k < 0.16:
                    return 0x1000 + rnd.randrange(0x1000)
                return rnd.choice(pool)
            fl = 0
            k = rnd.random()
            fl |= 1 if k < 0.2 else 2 if k < 0.8 else 0
            if rnd.random() < 0.05:
                fl |= 4
            if rnd.random() < 0.03:
                fl |= 8
            fl |= rnd.choice([0, 0, 1, 2, 3, 7, 40, 300]) << 4
            br.append(struct.pack('<QQQ', addr(), addr(), fl))
            if rnd.random() < 0.3:
                br.append(br[-1])
        ip = rnd.choice(pool)
        body = struct.pack('<QIIQQQ', ip, pid, pid, t, 4000, len(br))
        w.append(rec(9, body + b''.join(br)))
        t += 1000
    with open(out, 'wb') as f:
        f.write(stream(attr, w))


main()
