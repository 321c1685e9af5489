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
BASE = 0x7f0000000000
def exec_segment(path):
    d = open(path, 'rb').read()
    phoff, = struct.unpack_from('<Q', d, 0x20); shoff, = struct.unpack_from('<Q', d, 0x28)
    phnum, = struct.unpack_from('<H', d, 0x38); shnum, = struct.unpack_from('<H', d, 0x3c)
    seg = None
    for i in range(phnum):
        p_type, p_flags, p_off, p_vaddr, _, p_filesz = struct.unpack_from('<IIQQQQ', d, phoff + 56 * i)
        if p_type == 1 and p_flags & 1:
            seg = (p_off, p_vaddr, p_filesz); break
    funcs = []
    for i in range(shnum):
        s = struct.unpack_from('<IIQQQQIIQQ', d, shoff + 64 * i)
        if s[1] not in (2, 11): continue
        for j in range(s[5] // 24):
            _, info, _, shndx, value, size = struct.unpack_from('<IBBHQQ', d, s[4] + 24 * j)
            if info & 15 == 2 and shndx and value and size: funcs.append((value, size))
    lo, hi = seg[1], seg[1] + seg[2]
    return seg, sorted({f for f in funcs if lo <= f[0] < hi})
def rec(typ, body, misc=2): return struct.pack('<IHH', typ, misc, 8 + len(body)) + body
def padded(s):
    b = s.encode() + b'\0'; return b + b'\0' * (-len(b) % 8)
out, rnd = sys.argv[1], random.Random(int(sys.argv[2]))
dsos = [os.path.abspath(p) for p in sys.argv[3:]]
st = 0x1 | 0x2 | 0x4 | 0x8 | 0x100 | 0x4000 | 0x8000
attr = struct.pack('<IIQQQQQIIQQQ', 4, 128, 0x1cd, 4000, st, 0, (1 << 10) | (1 << 8), 0, 0, 0, 0, 0)
attr += b'\0' * (128 - len(attr))
w = [b'PERFILE2' + struct.pack('<Q', 16), rec(64, attr + struct.pack('<Q', 1), 0)]
pid = 4242
w.append(rec(3, struct.pack('<II', pid, pid) + padded('memprobe')))
pool = []
for i, dso in enumerate(dsos):
    (off, vaddr, filesz), funcs = exec_segment(dso)
    start = BASE + 0x10000000 * i + (vaddr & ~0xfff)
    length = (vaddr + filesz - (vaddr & ~0xfff) + 0xfff) & ~0xfff
    w.append(rec(10, struct.pack('<IIQQQIIQQII', pid, pid, start, length, off & ~0xfff, 8, 1, 1234 + i, 0, 5, 2) + padded(dso)))
    for a, size in rnd.sample(funcs, min(len(funcs), 10)):
        ip = start + a - (vaddr & ~0xfff); pool += [ip, ip + rnd.randrange(size)]
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
w.append(rec(68, b'', 0))
open(out, 'wb').write(b''.join(w))
