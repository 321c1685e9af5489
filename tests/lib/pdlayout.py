#!/usr/bin/env python3
# pdlayout.py FILE: what perf record writes beside the samples, one line
# each, for comparing perf's files with perfkit's (file or pipe mode):
#   feat ID SIZE [HEX]   each header feature (file: the section table;
#                        pipe: the HEADER_FEATURE records, in order), the
#                        bytes for those that must be equal
#   rec TYPE SIZE [...]  the records ahead of FINISHED_INIT that perf
#                        record synthesizes (ATTR, ID_INDEX, the kernel
#                        MMAP, EVENT_UPDATE with its payload, THREAD_MAP,
#                        CPU_MAP with its payload, TRACING_DATA, the
#                        loaded BPF programs' KSYMBOL and BPF_EVENT with
#                        theirs), then FINISHED_INIT
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
        elif t == 74 or t == 18:
            out.append('rec %d %d %s' % (t, s, d[off + 8:off + s].hex()))
        elif t == 17:
            a, ln, ty, fl = struct.unpack_from('<QIHH', d, off + 8)
            name = d[off + 24:off + s].split(b'\0')[0].decode()
            out.append('rec 17 %d %x %d %d %d %s %s' % (s, a, ln, ty, fl, name,
                       d[off + 24 + len(name):off + s].hex()))
        if t == 82:
            init = True
        off += s + extra

def run(order, k):
    if order and order[-1][0] == k:
        order[-1][1] += 1
    else:
        order.append([k, 1])

# bpf_prog_info's arrays (perf's BPIL_* bits): the array's offset field,
# its count's, its element size (or, negative, its rec size field's)
BPIL = [(24, 16, 1), (32, 20, 1), (56, 52, 4), (112, 104, 8), (120, 108, 4),
        (136, 144, -132), (152, 148, -172), (160, 168, -176), (184, 180, 8)]

def bpf_prog_info(b):
    """BPF_PROG_INFO with each array's padding zeroed: perf leaves it as
    malloc gave it (its bytes change from run to run)."""
    b = bytearray(b)
    at = 4
    for _ in range(struct.unpack_from('<I', b, 0)[0] if len(b) >= 4 else 0):
        il, dl, arrays = struct.unpack_from('<IIQ', b, at)
        info, data = at + 16, at + 16 + il
        for k, (ao, co, sz) in enumerate(BPIL):
            if not arrays >> k & 1 or ao + 8 > il:
                continue
            n = struct.unpack_from('<I', b, info + co)[0] * \
                (sz if sz > 0 else struct.unpack_from('<I', b, info - sz)[0])
            o = data + struct.unpack_from('<Q', b, info + ao)[0]
            pad = (n + 7) // 8 * 8 - n
            if o + n + pad <= data + dl:
                b[o + n:o + n + pad] = bytes(pad)
        at = data + dl
    return bytes(b)

def feat(out, fid, b):
    if fid == 25:
        b = bpf_prog_info(b)
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
