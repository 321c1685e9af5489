#!/usr/bin/env python3
# pdrecs.py FILE: every record of a perf.data (file or pipe mode), one line
# each: "TYPE MISC SIZE HEX" (the command-line FEATURE record as "cmdline"),
# then for files the feature sections "feat ID HEX" (CMDLINE's size only):
# what perf inject and perfkit inject must write alike.
import struct, sys

def main(path):
    d = open(path, 'rb').read()
    pipe = struct.unpack_from('<Q', d, 8)[0] == 16
    off, end = (16, len(d)) if pipe else struct.unpack_from('<QQ', d, 40)
    if not pipe:
        end += off
    while off + 8 <= end:
        t, m, s = struct.unpack_from('<IHH', d, off)
        if s < 8:
            print('bad record at', off)
            break
        extra = 0
        if t == 71:
            extra = struct.unpack_from('<Q', d, off + 8)[0]
        elif t == 66 and pipe:
            extra = struct.unpack_from('<I', d, off + 8)[0]
        body = d[off:off + s + extra]
        if t == 80 and struct.unpack_from('<Q', d, off + 8)[0] == 11:
            print('cmdline')
        else:
            print(t, m, s, body.hex())
        off += s + extra
    if pipe:
        return
    do, ds = struct.unpack_from('<QQ', d, 40)
    bits = int.from_bytes(d[72:104], 'little')
    off = do + ds
    for i in range(256):
        if bits >> i & 1:
            o, s = struct.unpack_from('<QQ', d, off)
            off += 16
            print('feat', i, 'cmdline' if i == 11 else d[o:o + s].hex())

main(sys.argv[1])
