#!/usr/bin/env python3
# vdsoprobe.py OUT DIR: writes OUT, a pipe-mode perf.data in which three
# processes exec a file of DIR (made here: ELF headers only) and then map
# the vDSO, as an exec does: a 32-bit i386 file (perf names the vDSO
# [vdso32]), an x32 one ([vdsox32]) and a 64-bit one ([vdso]); a fourth
# maps only the vDSO. One sample in each.
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdprobe import mmap2, padded, rec, stream  # noqa: E402

out, d = sys.argv[1:3]


def elf(name, cls, machine):
    """An ELF header: class 1 (32) or 2 (64), little-endian, MACHINE."""
    path = os.path.join(d, name)
    ident = b'\x7fELF' + bytes([cls, 1, 1]) + b'\0' * 9
    if cls == 1:
        h = ident + struct.pack('<HHIIIIIHHHHHH', 2, machine, 1, 0x1000,
                                52, 0, 0, 52, 32, 0, 40, 0, 0)
    else:
        h = ident + struct.pack('<HHIQQQIHHHHHH', 2, machine, 1, 0x1000,
                                64, 0, 0, 64, 56, 0, 64, 0, 0)
    with open(path, 'wb') as f:
        f.write(h + b'\0' * 4096)
    return path


files = [elf('i386', 1, 3), elf('x32', 1, 62), elf('amd64', 2, 62), None]
# IP | TID | PERIOD
attr = struct.pack('<IIQQQQQIIQ', 1, 128, 0, 1, 0x107 & ~0x4, 0, 0, 0, 0, 0)
w = []
for i, path in enumerate(files):
    pid = 700 + i
    w.append(rec(3, struct.pack('<II', pid, pid) + padded(f'p{i}'), 0x2000))
    if path:
        w.append(mmap2(pid, pid, 0xf7f06000, 0x1000, 0, path))
    w.append(mmap2(pid, pid, 0xf7f04000, 0x2000, 0, '[vdso]', ino=0))
    w.append(rec(9, struct.pack('<QIIQ', 0xf7f04100, pid, pid, 1)))
with open(out, 'wb') as f:
    f.write(stream(attr, w))
