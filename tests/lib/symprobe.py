#!/usr/bin/env python3
# symprobe.py OUT DSO [ADDR...]: writes OUT, a pipe-mode perf.data with one
# cpu-clock sample (user mode) at each address of DSO (ELF addresses, hex)
# in a mapping of DSO's executable segment; with no ADDRs, at the edges of
# every function symbol, every PLT entry and each 4 bytes of the sections
# before .text (where an unsized _init overlaps the PLT). perf script
# -F ip,sym on OUT shows which symbol perf finds at each address.
import os
import struct
import sys

BASE = 0x7f0000000000
PID = 4242


def elf_info(path):
    with open(path, 'rb') as f:
        d = f.read()
    if d[:4] != b'\x7fELF' or d[4] != 2:
        raise SystemExit(f'{path}: not a 64-bit ELF file')
    shoff, = struct.unpack_from('<Q', d, 0x28)
    phoff, = struct.unpack_from('<Q', d, 0x20)
    phnum, = struct.unpack_from('<H', d, 0x38)
    shnum, shstrndx = struct.unpack_from('<HH', d, 0x3c)
    seg = None
    for i in range(phnum):
        p_type, p_flags, p_off, p_vaddr, _, p_filesz = struct.unpack_from(
            '<IIQQQQ', d, phoff + 56 * i)
        if p_type == 1 and p_flags & 1:
            seg = (p_off, p_vaddr, p_filesz)
            break
    secs = []
    for i in range(shnum):
        v = struct.unpack_from('<IIQQQQIIQQ', d, shoff + 64 * i)
        secs.append(v)
    strtab = secs[shstrndx]

    def name(off, tab):
        s = tab[4] + off
        return d[s:d.index(b'\0', s)].decode()
    named = {name(s[0], strtab): s for s in secs}
    addrs = set()
    symtab = named.get('.symtab') or named.get('.dynsym')
    if symtab:
        for j in range(symtab[5] // 24):
            _, info, _, shndx, value, size = struct.unpack_from(
                '<IBBHQQ', d, symtab[4] + 24 * j)
            if info & 15 not in (2, 10) or not shndx or not value:
                continue
            addrs.update((value, value + 1))
            if size:
                addrs.update((value + size - 1, value + size))
    text = named.get('.text')
    for sec in ('.init', '.plt', '.plt.got', '.plt.sec'):
        s = named.get(sec)
        if s:
            addrs.update(range(s[3], s[3] + s[5] + 4, 4))
    if text:
        addrs.add(text[3])
    return seg, sorted(addrs)


def rec(typ, body, misc=2):
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body


def padded(s):
    b = s.encode() + b'\0'
    return b + b'\0' * (-len(b) % 8)


def main():
    out, dso = sys.argv[1], os.path.abspath(sys.argv[2])
    seg, addrs = elf_info(dso)
    if len(sys.argv) > 3:
        addrs = [int(a, 16) for a in sys.argv[3:]]
    off, vaddr, filesz = seg
    start = BASE + (vaddr & ~0xfff)
    pgoff = off & ~0xfff
    length = (vaddr + filesz - (vaddr & ~0xfff) + 0xfff) & ~0xfff
    # IP | TID | TIME | PERIOD; size 128; sample_id_all off
    attr = struct.pack('<IIQQQQQIIQ', 1, 128, 0, 1, 0x107, 0, 0, 0, 0, 0)
    attr += b'\0' * (128 - len(attr))
    w = [b'PERFILE2' + struct.pack('<Q', 16)]
    w.append(rec(64, attr + struct.pack('<Q', 1), 0))
    w.append(rec(3, struct.pack('<II', PID, PID) + padded('probe')))
    w.append(rec(10, struct.pack('<IIQQQIIQQII', PID, PID, start, length,
                                 pgoff, 8, 1, 1234, 0, 5, 2) + padded(dso)))
    t = 1000
    for a in addrs:
        if not vaddr <= a < vaddr + filesz:
            continue
        ip = start + a - (vaddr & ~0xfff)
        w.append(rec(9, struct.pack('<QIIQQ', ip, PID, PID, t, 1)))
        t += 1000
    w.append(rec(68, b'', 0))
    with open(out, 'wb') as f:
        f.write(b''.join(w))


main()
