#!/usr/bin/env python3
# pdlayout.py FILE: what perf record writes beside the samples, one line
# each, for comparing perf's files with perfkit's (file or pipe mode):
#   feat ID SIZE [HEX]   each header feature (file: the section table;
#                        pipe: the HEADER_FEATURE records, in order), the
#                        bytes for those that must be equal
#   rec TYPE SIZE [...]  the records ahead of FINISHED_INIT that perf
#                        record synthesizes (ATTR, ID_INDEX, the kernel
#                        MMAP, EVENT_UPDATE with its payload, THREAD_MAP,
#                        CPU_MAP with its payload, TRACING_DATA), then
#                        FINISHED_INIT
#   late TYPE            a FEATURE record after FINISHED_INIT (a pipe)
#   order T/MISC[*N]...  with --order: the type and misc of every record
#                        ahead of FINISHED_INIT, runs counted (the tasks'
#                        COMM, FORK, MMAP2, NAMESPACES too)
import struct, sys

BYTES = {16, 20, 22, 25, 26, 28, 31}  # machine facts, equal byte for byte
NOSIZE = {1, 2, 11}   # tracing data (its own test), the DSOs sampled, argv
KEEP = {64, 69, 73, 66, 82}

def records(d, off, end, out, order):
    init = False
    while off + 8 <= end:
        t, m, s = struct.unpack_from('<IHH', d, off)
        if s < 8:
            break
        if not init:
            run(order, '%d/%x' % (t, m))
        extra = 0
        if t == 66:
            extra = struct.unpack_from('<I', d, off + 8)[0]
        elif t == 71:
            extra = struct.unpack_from('<Q', d, off + 8)[0]
        if t == 80:
            fid = struct.unpack_from('<Q', d, off + 8)[0]
            if init:
                out.append('late %d' % fid)
            else:
                feat(out, fid, d[off + 16:off + s])
        elif init:
            pass
        elif t in KEEP:
            out.append('rec %d %d' % (t, s))
        elif t == 1 and struct.unpack_from('<i', d, off + 8)[0] == -1:
            # the kernel's: start, len, pgoff, name
            st, ln, pg = struct.unpack_from('<QQQ', d, off + 16)
            name = d[off + 40:off + s].split(b'\0')[0].decode()
            out.append('rec 1 %d %x %x %x %s' % (s, st, ln, pg, name))
        elif t == 78:
            ty = struct.unpack_from('<Q', d, off + 8)[0]
            out.append('rec 78 %d %d %s' % (s, ty, d[off + 24:off + s].hex()))
        elif t == 74:
            out.append('rec 74 %d %s' % (s, d[off + 8:off + s].hex()))
        if t == 82:
            init = True
        off += s + extra

def run(order, k):
    if order and order[-1][0] == k:
        order[-1][1] += 1
    else:
        order.append([k, 1])

def feat(out, fid, b):
    size = '-' if fid in NOSIZE else str(len(b))
    out.append('feat %d %s%s' % (fid, size, ' ' + b.hex() if fid in BYTES else ''))

def main(path, with_order):
    d = open(path, 'rb').read()
    out, order = [], []
    if struct.unpack_from('<Q', d, 8)[0] == 16:          # a pipe
        records(d, 16, len(d), out, order)
    else:
        do, ds = struct.unpack_from('<QQ', d, 40)
        bits = int.from_bytes(d[72:104], 'little')
        records(d, do, do + ds, out, order)
        i = 0
        for f in range(256):
            if bits >> f & 1:
                o, s = struct.unpack_from('<QQ', d, do + ds + 16 * i)
                feat(out, f, d[o:o + s])
                i += 1
    if with_order:
        out.append('order ' + ' '.join(k + ('*%d' % n if n > 1 else '')
                                       for k, n in order))
    print('\n'.join(out))

main(sys.argv[-1], '--order' in sys.argv[1:-1])
