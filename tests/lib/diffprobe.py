#!/usr/bin/env python3
# diffprobe.py OUT DSO SAMPLE...: writes OUT, a file-mode perf.data (perf
# diff 6.1 reads no pipe) of two processes, "mine" (pid 100) and "other"
# (200), each with DSO's executable segment mapped, and one cpu-clock
# sample per SAMPLE: WHO:WHERE, WHO m or o, WHERE pN (the Nth PLT entry
# whose relocation names no symbol: perf calls all of them "@plt") or f
# (DSO's first sized function). perf's collapsed entry of a name at
# several addresses keeps the filter (-C) of the first of its tree.
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdprobe import Elf, file_mode, mmap2, padded, rec  # noqa: E402

BASE = 0x7f0000000000


def unnamed_plt(elf):
    """The addresses of the PLT entries whose relocation has no symbol."""
    rela, plt = elf.named.get('.rela.plt'), elf.named.get('.plt')
    if not rela or not plt:
        raise SystemExit('no .rela.plt or .plt')
    out = []
    for i in range(rela[5] // 24):
        info, = struct.unpack_from('<Q', elf.d, rela[4] + 24 * i + 8)
        if info >> 32 == 0:
            out.append(plt[3] + 16 * (i + 1))
    return out


def main():
    out, dso = sys.argv[1], os.path.abspath(sys.argv[2])
    elf = Elf(dso)
    start, length, pgoff = elf.mapping(BASE)
    seg = elf.seg[1] & ~0xfff
    plt = unnamed_plt(elf)
    func = elf.functions()[0][0]
    # IP | TID | TIME | PERIOD
    attr = struct.pack('<IIQQQQQIIQ', 1, 128, 0, 1, 0x107, 0, 0, 0, 0, 0)
    w = []
    for pid, comm in ((100, 'mine'), (200, 'other')):
        w += [rec(3, struct.pack('<II', pid, pid) + padded(comm)),
              mmap2(pid, pid, start, length, pgoff, dso)]
    for t, s in enumerate(sys.argv[3:]):
        who, where = s.split(':')
        if where == 'f':
            addr = func
        elif int(where[1:]) < len(plt):
            addr = plt[int(where[1:])]
        else:
            raise SystemExit(f'{dso}: fewer than {where[1:]} unnamed '
                             'PLT entries')
        pid = 100 if who == 'm' else 200
        w.append(rec(9, struct.pack('<QIIQQ', start + addr - seg, pid, pid,
                                    1000 * (t + 1), 1)))
    with open(out, 'wb') as f:
        f.write(file_mode(attr, w))


main()
