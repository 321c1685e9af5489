#!/usr/bin/env python3
# taskprobe.py OUT: writes OUT, a pipe-mode perf.data whose threads come
# from different records: MMAP2 alone (777), MMAP alone (555), a sample
# alone (999), COMM (888), MMAP2 then COMM (666), a thread's COMM that
# brings its leader (444/445), and an EXIT of one never seen (333).
# perf report --tasks reads only COMM, FORK and EXIT records; --mmaps
# MMAPs too; neither the samples.
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdprobe import mmap2, padded, rec, stream  # noqa: E402


def map2(pid, tid, start, path, ino):
    return mmap2(pid, tid, start, 0x1000, 0, path, ino)


# IP | TID | TIME | PERIOD
attr = struct.pack('<IIQQQQQIIQ', 1, 128, 0, 1, 0x107, 0, 0, 0, 0, 0)
w = [map2(777, 777, 0x7f0000000000, '/usr/lib/probe/a.so', 11)]
w.append(rec(1, struct.pack('<IIQQQ', 555, 555, 0x7f0000100000, 0x1000, 0) +
             padded('/usr/lib/probe/b.so')))
w.append(rec(3, struct.pack('<II', 888, 888) + padded('other')))
w.append(map2(666, 666, 0x7f0000200000, '/usr/lib/probe/c.so', 12))
w.append(rec(3, struct.pack('<II', 666, 666) + padded('late')))
w.append(rec(3, struct.pack('<II', 444, 445) + padded('worker')))
w.append(rec(4, struct.pack('<IIIIQ', 333, 332, 333, 332, 5)))
w.append(rec(9, struct.pack('<QIIQQ', 0x7f0000000010, 999, 999, 10, 1)))
with open(sys.argv[1], 'wb') as f:
    f.write(stream(attr, w))
