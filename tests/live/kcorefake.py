#!/usr/bin/env python3
"""kcorefake: a stand-in for /proc/kcore and /proc/modules, laid out as
the kernel lays /proc/kcore out, for a kallsyms file.

    kcorefake.py KALLSYMS DIR
    kcorefake.py --check KCORE COPY

Writes DIR/kcore: an ELF core (ET_CORE, x86_64) with a PT_NOTE, a code
PT_LOAD from _text's 2 MiB boundary past _etext (read, write, execute,
as /proc/kcore's), a data PT_LOAD without PF_X (the direct map: not
written, a hole in the file), and a code PT_LOAD over the module symbols
(16 MiB around them); the code bytes are pseudo-random from a fixed
seed, so a copy can be checked byte for byte. DIR/modules: one module
line at the first module symbol's page ("pkfake"), or none when
kallsyms has no module symbols. Each page of an entry trampoline
(__entry_SYSCALL_64_trampoline) gets a code PT_LOAD of its own whose
bytes are some of the kernel text's (as the kernel's remaps were).

--check: every PT_LOAD of COPY (a kcore_copy of KCORE) holds the bytes
KCORE has at its addresses; prints what differs, exits 1 then.
Standard library only.
"""
import os
import random
import struct
import sys

MB = 1 << 20


def read_kallsyms(path):
    text = etext = None
    mods = []
    tramps = []
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
            if p[2] == "__entry_SYSCALL_64_trampoline":
                tramps.append(a & ~0xfff)
            if p[2] == "_text":
                text = a
            elif p[2] == "_etext":
                etext = a
    return text, etext, mods, sorted(set(tramps))


def phdrs(f):
    f.seek(0)
    eh = f.read(64)
    phoff, = struct.unpack_from("<Q", eh, 32)
    phnum, = struct.unpack_from("<H", eh, 56)
    f.seek(phoff)
    ph = f.read(56 * phnum)
    out = []
    for i in range(phnum):
        t, fl, o, v, _, fs, ms, _ = struct.unpack_from("<IIQQQQQQ", ph, 56 * i)
        if t == 1:
            out.append((v, min(fs, ms), o, fl))
    return out


def check(kcore, copy):
    bad = 0
    with open(kcore, "rb") as src, open(copy, "rb") as cp:
        segs = phdrs(src)
        for v, n, o, _ in phdrs(cp):
            hold = [s for s in segs if s[3] & 1 and s[0] <= v < s[0] + s[1]]
            if not hold:
                print("0x%x: in no code segment of %s" % (v, kcore))
                bad = 1
                continue
            s = hold[0]
            src.seek(s[2] + v - s[0])
            cp.seek(o)
            if src.read(n) != cp.read(n):
                print("0x%x: %d bytes differ" % (v, n))
                bad = 1
    sys.exit(bad)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 3:
        sys.exit("usage: kcorefake.py KALLSYMS DIR | --check KCORE COPY")
    text, etext, mods, tramps = read_kallsyms(sys.argv[1])
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
    note = b"CORE\0\0\0\0"
    note_hdr = struct.pack("<III", 5, len(note) - 3, 1)
    notes = note_hdr + note[:8]
    off = 0x1000
    layout = []
    for v, n, fl, fill in segs:
        layout.append((off, v, n, fl, fill))
        off += n
    for i, t in enumerate(tramps):  # remaps of kernel text pages
        layout.append((0x1000 + 0x10000 * (i + 1), t, 0x1000, 5, False))
    nph = 1 + len(layout)
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
