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

BASE = 0x7f0000000000


def exec_segment(path):
    with open(path, 'rb') as f:
        d = f.read()
    if d[:4] != b'\x7fELF' or d[4] != 2:
        raise SystemExit(f'{path}: not a 64-bit ELF file')
    phoff, = struct.unpack_from('<Q', d, 0x20)
    shoff, = struct.unpack_from('<Q', d, 0x28)
    phnum, = struct.unpack_from('<H', d, 0x38)
    shnum, = struct.unpack_from('<H', d, 0x3c)
    seg = None
    for i in range(phnum):
        p_type, p_flags, p_off, p_vaddr, _, p_filesz = struct.unpack_from(
            '<IIQQQQ', d, phoff + 56 * i)
        if p_type == 1 and p_flags & 1:
            seg = (p_off, p_vaddr, p_filesz)
            break
    funcs = []
    for i in range(shnum):
        s = struct.unpack_from('<IIQQQQIIQQ', d, shoff + 64 * i)
        if s[1] not in (2, 11):     # SYMTAB, DYNSYM
            continue
        for j in range(s[5] // 24):
            _, info, _, shndx, value, size = struct.unpack_from(
                '<IBBHQQ', d, s[4] + 24 * j)
            if info & 15 == 2 and shndx and value and size:
                funcs.append((value, size))
    if not seg or not funcs:
        raise SystemExit(f'{path}: no executable segment or functions')
    lo, hi = seg[1], seg[1] + seg[2]
    return seg, sorted({f for f in funcs if lo <= f[0] < hi})


def rec(typ, body, misc=2):
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body


def padded(s):
    b = s.encode() + b'\0'
    return b + b'\0' * (-len(b) % 8)


def main():
    out, rnd = sys.argv[1], random.Random(int(sys.argv[2]))
    dsos = [os.path.abspath(p) for p in sys.argv[3:]]
    # IP | TID | TIME | PERIOD | BRANCH_STACK; branch_sample_type ANY
    attr = struct.pack('<IIQQQQQIIQQQ', 0, 128, 0, 4000, 0x907, 0,
                       (1 << 10) | (1 << 8), 0, 0, 0, 0, 1 << 3)
    attr += b'\0' * (128 - len(attr))
    w = [b'PERFILE2' + struct.pack('<Q', 16)]
    w.append(rec(64, attr + struct.pack('<Q', 1), 0))
    procs = [(4242, 'brprobe'), (4343, 'other')]
    targets = {p: [] for p, _ in procs}
    for p, comm in procs:
        w.append(rec(3, struct.pack('<II', p, p) + padded(comm)))
    for i, dso in enumerate(dsos):
        (off, vaddr, filesz), funcs = exec_segment(dso)
        pid = procs[i % 2][0]
        start = BASE + 0x10000000 * i + (vaddr & ~0xfff)
        length = (vaddr + filesz - (vaddr & ~0xfff) + 0xfff) & ~0xfff
        w.append(rec(10, struct.pack('<IIQQQIIQQII', pid, pid, start, length,
                                     off & ~0xfff, 8, 1, 1234 + i, 0, 5, 2) +
                     padded(dso)))
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
    w.append(rec(68, b'', 0))
    with open(out, 'wb') as f:
        f.write(b''.join(w))


main()
