#!/usr/bin/env python3
# anonprobe.py OUT: writes OUT, a pipe-mode perf.data of one process with
# data mappings only (MMAP2 with PERF_RECORD_MISC_MMAP_DATA: //anon, a
# data file at an offset, [heap]) and one sample in each and one in none.
# perf's maps hold data mappings beside code ones: an address in one
# (an unwound frame that went astray, say) is in that mapping's DSO.
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdprobe import padded, rec, stream  # noqa: E402

PID = 42
MMAP_DATA = 0x2000
USER = 2


def data_map(start, length, pgoff, path, prot):
    return rec(10, struct.pack('<IIQQQIIQQII', PID, PID, start, length,
                               pgoff, 8, 1, 99, 0, prot, 2) + padded(path),
               MMAP_DATA | USER)


# IP | TID | TIME | PERIOD
attr = struct.pack('<IIQQQQQIIQ', 1, 128, 0, 1, 0x107, 0, 0, 0, 0, 0)
w = [rec(3, struct.pack('<II', PID, PID) + padded('probe')),
     data_map(0x7f0000000000, 0x10000, 0, '//anon', 3),
     data_map(0x7f0000100000, 0x10000, 0x3000,
              '/usr/lib/locale/C.utf8/LC_CTYPE', 1),
     data_map(0x7f0000200000, 0x21000, 0, '[heap]', 3)]
for t, ip in enumerate([0x7f0000000123, 0x7f0000100456, 0x7f0000200010,
                        0x7f0000300000]):
    w.append(rec(9, struct.pack('<QIIQQ', ip, PID, PID, 1000 * (t + 1), 1)))
with open(sys.argv[1], 'wb') as f:
    f.write(stream(attr, w))
