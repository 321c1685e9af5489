#!/usr/bin/env python3
# symprobe.py [--file] OUT DSO [ADDR...]: writes OUT, a pipe-mode (with
# --file: file-mode) perf.data with one
# cpu-clock sample (user mode) at each address of DSO (ELF addresses, hex)
# in a mapping of DSO's executable segment; with no ADDRs, at the edges of
# every function symbol, every PLT entry and each 4 bytes of the sections
# before .text (where an unsized _init overlaps the PLT). perf script
# -F ip,sym on OUT shows which symbol perf finds at each address.
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdprobe import Elf, file_mode, mmap2, padded, rec, stream  # noqa: E402

BASE = 0x7f0000000000
PID = 4242


def elf_info(path):
    """The executable segment and the addresses to probe."""
    elf = Elf(path)
    addrs = set()
    for value, size, info, shndx in elf.symbols():
        if info & 15 not in (2, 10) or not shndx or not value:
            continue
        addrs.update((value, value + 1))
        if size:
            addrs.update((value + size - 1, value + size))
    for sec in ('.init', '.plt', '.plt.got', '.plt.sec'):
        s = elf.named.get(sec)
        if s:
            addrs.update(range(s[3], s[3] + s[5] + 4, 4))
    text = elf.named.get('.text')
    if text:
        addrs.add(text[3])
    return elf.seg, sorted(addrs)


def main():
    args = sys.argv[1:]
    write = stream
    if args and args[0] == '--file':
        write = file_mode
        args = args[1:]
    out, dso = args[0], os.path.abspath(args[1])
    seg, addrs = elf_info(dso)
    if len(args) > 2:
        addrs = [int(a, 16) for a in args[2:]]
    off, vaddr, filesz = seg
    start = BASE + (vaddr & ~0xfff)
    pgoff = off & ~0xfff
    length = (vaddr + filesz - (vaddr & ~0xfff) + 0xfff) & ~0xfff
    # IP | TID | TIME | PERIOD; size 128; sample_id_all off
    attr = struct.pack('<IIQQQQQIIQ', 1, 128, 0, 1, 0x107, 0, 0, 0, 0, 0)
    w = [rec(3, struct.pack('<II', PID, PID) + padded('probe')),
         mmap2(PID, PID, start, length, pgoff, dso)]
    t = 1000
    for a in addrs:
        if not vaddr <= a < vaddr + filesz:
            continue
        ip = start + a - (vaddr & ~0xfff)
        w.append(rec(9, struct.pack('<QIIQQ', ip, PID, PID, t, 1)))
        t += 1000
    with open(out, 'wb') as f:
        f.write(write(attr, w))


main()
