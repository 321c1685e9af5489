#!/usr/bin/env python3
"""kcorefake: a stand-in for /proc/kcore and /proc/modules, laid out as
the kernel lays /proc/kcore out, for a kallsyms file.

    kcorefake.py KALLSYMS DIR

Writes DIR/kcore: an ELF core (ET_CORE, x86_64) with a PT_NOTE, a code
PT_LOAD from _text's 2 MiB boundary past _etext (read, write, execute,
as /proc/kcore's), a data PT_LOAD without PF_X (the direct map: not
written, a hole in the file), and a code PT_LOAD over the module symbols
(16 MiB around them); the code bytes are pseudo-random from a fixed
seed, so a copy can be checked byte for byte. DIR/modules: one module
line at the first module symbol's page ("pkfake"), or none when
kallsyms has no module symbols. Standard library only.
"""
import os
import random
import struct
import sys

MB = 1 << 20


def read_kallsyms(path):
    text = etext = None
    mods = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3:
                continue
            a = int(p[0], 16)
            if len(p) > 3 and p[3].startswith("["):
                if p[1] in "tTwW":
                    mods.append(a)
                continue
            if p[2] == "_text":
                text = a
            elif p[2] == "_etext":
                etext = a
    return text, etext, mods


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: kcorefake.py KALLSYMS DIR")
    text, etext, mods = read_kallsyms(sys.argv[1])
    if not text or not etext:
        sys.exit("kcorefake.py: no _text/_etext in " + sys.argv[1])
    out = sys.argv[2]
    rnd = random.Random(14)
    ktext = text & ~(2 * MB - 1)
    klen = ((etext + 2 * MB - 1) & ~(2 * MB - 1)) + 2 * MB - ktext
    segs = []  # (vaddr, len, flags, fill)
    segs.append((ktext, klen, 7, True))
    segs.append((0xffff888000000000, 64 * MB, 6, False))
    if mods:
        m = min(mods) & ~(8 * MB - 1)
        segs.append((m, 16 * MB, 7, True))
    nph = 1 + len(segs)
    note = b"CORE\0\0\0\0"
    note_hdr = struct.pack("<III", 5, len(note) - 3, 1)
    notes = note_hdr + note[:8]
    off = 0x1000
    layout = []
    for v, n, fl, fill in segs:
        layout.append((off, v, n, fl, fill))
        off += n
    eh = struct.pack("<16sHHIQQQIHHHHHH",
                     b"\x7fELF\x02\x01\x01" + b"\0" * 9, 4, 62, 1, 0, 64,
                     0, 0, 64, 56, nph, 0, 0, 0)
    ph = struct.pack("<IIQQQQQQ", 4, 0, 64 + 56 * nph, 0, 0, len(notes),
                     0, 0)
    for o, v, n, fl, _ in layout:
        ph += struct.pack("<IIQQQQQQ", 1, fl, o, v, 0, n, n, 0x1000)
    with open(os.path.join(out, "kcore"), "wb") as f:
        f.write(eh + ph + notes)
        for o, v, n, fl, fill in layout:
            if fill:
                f.seek(o)
                f.write(rnd.randbytes(n))
        f.truncate(off)
    with open(os.path.join(out, "modules"), "w") as f:
        if mods:
            f.write("pkfake 16384 0 - Live 0x%016x\n" % (min(mods) & ~0xfff))


main()
