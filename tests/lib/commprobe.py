#!/usr/bin/env python3
# commprobe.py OUT: writes OUT, a pipe-mode perf.data (records in file
# order) whose threads take their names late: 900 has samples before its
# first COMM ("env"; perf names it ":900" until then and renames it in
# place), 901 is "env" from the start, 903 has samples, then a FORK that
# makes it anew (perf's old thread keeps ":903"), then COMM "late".
# Unresolved user addresses, one sample each (period 1).
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdprobe import padded, rec, stream  # noqa: E402

A, B = 0x400100, 0x400200

# IP | TID | PERIOD
attr = struct.pack('<IIQQQQQIIQ', 1, 128, 0, 1, 0x107 & ~0x4, 0, 0, 0, 0, 0)


def sample(tid, ip):
    return rec(9, struct.pack('<QIIQ', ip, tid, tid, 1))


def comm(tid, name):
    return rec(3, struct.pack('<II', tid, tid) + padded(name))


w = [comm(901, 'env'), sample(901, A), sample(901, B),
     sample(900, A), sample(900, A), sample(900, B),
     comm(900, 'env'), sample(900, A),
     sample(903, A), sample(903, A),
     rec(7, struct.pack('<IIIIQ', 903, 1, 903, 1, 0)),
     comm(903, 'late'), sample(903, B), sample(903, B), sample(903, B)]
with open(sys.argv[1], 'wb') as f:
    f.write(stream(attr, w))
