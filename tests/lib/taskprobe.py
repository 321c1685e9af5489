#!/usr/bin/env python3
# taskprobe.py OUT: writes OUT, a pipe-mode perf.data whose threads come
# from different records: MMAP2 alone (777), MMAP alone (555), a sample
# alone (999), COMM (888), MMAP2 then COMM (666), a thread's COMM that
# brings its leader (444/445), and an EXIT of one never seen (333).
# perf report --tasks reads only COMM, FORK and EXIT records; --mmaps
# MMAPs too; neither the samples.
import struct
import sys


def rec(typ, body, misc=2):
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body


def padded(s):
    b = s.encode() + b'\0'
    return b + b'\0' * (-len(b) % 8)


def mmap2(pid, tid, start, path, ino):
    return rec(10, struct.pack('<IIQQQIIQQII', pid, tid, start, 0x1000, 0,
                               8, 1, ino, 0, 5, 2) + padded(path))


# IP | TID | TIME | PERIOD
attr = struct.pack('<IIQQQQQIIQ', 1, 128, 0, 1, 0x107, 0, 0, 0, 0, 0)
attr += b'\0' * (128 - len(attr))
w = [b'PERFILE2' + struct.pack('<Q', 16), rec(64, attr + struct.pack('<Q', 1), 0)]
w.append(mmap2(777, 777, 0x7f0000000000, '/usr/lib/probe/a.so', 11))
w.append(rec(1, struct.pack('<IIQQQ', 555, 555, 0x7f0000100000, 0x1000, 0) +
             padded('/usr/lib/probe/b.so')))
w.append(rec(3, struct.pack('<II', 888, 888) + padded('other')))
w.append(mmap2(666, 666, 0x7f0000200000, '/usr/lib/probe/c.so', 12))
w.append(rec(3, struct.pack('<II', 666, 666) + padded('late')))
w.append(rec(3, struct.pack('<II', 444, 445) + padded('worker')))
w.append(rec(4, struct.pack('<IIIIQ', 333, 332, 333, 332, 5)))
w.append(rec(9, struct.pack('<QIIQQ', 0x7f0000000010, 999, 999, 10, 1)))
w.append(rec(68, b'', 0))
with open(sys.argv[1], 'wb') as f:
    f.write(b''.join(w))
