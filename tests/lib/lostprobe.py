#!/usr/bin/env python3
# lostprobe.py OUT: writes OUT, a pipe-mode perf.data of two events as a
# system-wide recording has them: cpu-clock with samples and lost ones,
# and a dummy event that only lost some (PERF_RECORD_LOST_SAMPLES). perf
# report --stats lists an event that got samples or lost some.
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdprobe import padded, rec  # noqa: E402

ST = 0x1 | 0x2 | 0x4 | 0x10000       # IP | TID | TIME | IDENTIFIER
FLAGS = 1 << 18                       # sample_id_all


def attr(config, ident):
    a = struct.pack('<IIQQQQQ', 1, 128, config, 1, ST, 0, FLAGS)
    return rec(64, a + b'\0' * (128 - len(a)) + struct.pack('<Q', ident), 0)


def trailer(ident):
    # sample_id_all with IDENTIFIER: TID, TIME, IDENTIFIER... perf reads
    # them from the record's end: pid/tid, time, id
    return struct.pack('<IIQQ', 4242, 4242, 7, ident)


w = [b'PERFILE2' + struct.pack('<Q', 16), attr(0, 11), attr(9, 12),
     rec(3, struct.pack('<II', 4242, 4242) + padded('lost') + trailer(11))]
for t in range(5):
    w.append(rec(9, struct.pack('<QQIIQ', 11, 0x401000 + t, 4242, 4242,
                                100 + t)))
w.append(rec(13, struct.pack('<Q', 3) + trailer(11), 0))
w.append(rec(13, struct.pack('<Q', 2) + trailer(12), 0))
w.append(rec(68, b'', 0))
with open(sys.argv[1], 'wb') as f:
    f.write(b''.join(w))
