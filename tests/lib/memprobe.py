#!/usr/bin/env python3
# memprobe.py OUT SEED DSO...: writes OUT, a pipe-mode perf.data of memory
# samples as perf mem record's (IP | TID | TIME | ADDR | PERIOD | WEIGHT |
# DATA_SRC) for perf report --mem-mode: one process with each DSO's
# executable segment mapped; sample IPs at function starts and insides,
# data addresses there too, on a stack-like unmapped range and 0;
# weights with 0 among them; data sources drawn from SEED over every
# field of union perf_mem_data_src (opcode, level, snoop, lock, TLB,
# level number, remote, snoopx, blocked, hops). perf report's text of OUT
# is the reference for perfkit's.
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdprobe import Elf, mmap2, padded, rec, stream  # noqa: E402

BASE = 0x7f0000000000
out, rnd = sys.argv[1], random.Random(int(sys.argv[2]))
dsos = [os.path.abspath(p) for p in sys.argv[3:]]
st = 0x1 | 0x2 | 0x4 | 0x8 | 0x100 | 0x4000 | 0x8000
attr = struct.pack('<IIQQQQQIIQQQ', 4, 128, 0x1cd, 4000, st, 0,
                   (1 << 10) | (1 << 8), 0, 0, 0, 0, 0)
w = []
pid = 4242
w.append(rec(3, struct.pack('<II', pid, pid) + padded('memprobe')))
pool = []
for i, dso in enumerate(dsos):
    elf = Elf(dso)
    funcs, vaddr = elf.functions(), elf.seg[1]
    start, length, pgoff = elf.mapping(BASE + 0x10000000 * i)
    w.append(mmap2(pid, pid, start, length, pgoff, dso, 1234 + i))
    for a, size in rnd.sample(funcs, min(len(funcs), 10)):
        ip = start + a - (vaddr & ~0xfff)
        pool += [ip, ip + rnd.randrange(size)]
def dsrc():
    op = rnd.choice([1, 2, 4, 8, 16, 2, 2])
    lvl = rnd.choice([1, 0x2 | 0x8, 0x2 | 0x10, 0x2 | 0x20, 0x4 | 0x20, 0x2 | 0x40, 0x2 | 0x80, 0x4 | 0x80, 0x2 | 0x100, 0x2 | 0x400, 0x2|0x800, 0x2|0x1000, 0x2|0x2000, 0])
    snoop = rnd.choice([1, 2, 4, 8, 16, 0, 4 | 8])
    lock = rnd.choice([1, 2, 0])
    dtlb = rnd.choice([1, 0x2 | 0x8, 0x4 | 0x10, 0x2 | 0x20, 0x2 | 0x40, 0x4|0x8|0x10, 0])
    lvlnum = rnd.choice([0, 0, 1, 2, 3, 4, 0xb, 0xc, 0xd, 0xe, 0xf])
    remote = rnd.choice([0, 0, 1]); snoopx = rnd.choice([0, 0, 1]); blk = rnd.choice([0, 1, 2, 4, 6]); hops = rnd.choice([0, 0, 1, 2, 3])
    return op | lvl << 5 | snoop << 19 | lock << 24 | dtlb << 26 | lvlnum << 33 | remote << 37 | snoopx << 38 | blk << 40 | hops << 43
t = 1000
for n in range(150):
    ip = rnd.choice(pool)
    k = rnd.random()
    addr = 0 if k < 0.1 else 0x7ffd00000000 + rnd.randrange(0x10000) if k < 0.3 else rnd.choice(pool)
    wt = rnd.choice([0, 3, 7, 30, 100, 250])
    body = struct.pack('<QIIQQQQQ', ip, pid, pid, t, addr, 4000, wt, dsrc())
    w.append(rec(9, body)); t += 1000
with open(out, 'wb') as f:
    f.write(stream(attr, w))
