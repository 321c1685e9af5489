#!/usr/bin/env python3
# foldprobe.py [--no-java] [--bad-chains] OUT ELF: writes OUT, a pipe-mode perf.data whose samples
# have callchains through ELF's functions (tests/data/folded/names.c:
# C++, Go and Java style names, quotes, ';'), an //anon mapping and no
# mapping at all, under commands with spaces ("V8 WorkerThread") and
# "java"; two events (cpu-clock first, then task-clock: only the first
# event type seen counts in stackcollapse-perf.pl); periods of 100 and
# 250. (A Java signature with parentheses is left out: perf demangles
# it, perfkit does not yet.) --bad-chains adds two samples whose
# callchains perf drops (one empty, one with an unknown context, -1, as
# a frame-pointer walk through code without frame pointers can read):
# report counts them at their own addresses.
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdprobe import Elf, mmap2, padded, rec  # noqa: E402

BASE = 0x7f0000000000
ANON = 0x7f1000000000
USER = 0xfffffffffffffe00          # PERF_CONTEXT_USER


def names(elf):
    """Function name -> address (.symtab)."""
    t = elf.named['.symtab']
    strtab = elf.secs[t[6]][4]
    out = {}
    for j in range(t[5] // 24):
        name, info, _, shndx, value, _ = struct.unpack_from(
            '<IBBHQQ', elf.d, t[4] + 24 * j)
        if info & 15 == 2 and shndx and value:
            end = elf.d.index(b'\0', strtab + name)
            out[elf.d[strtab + name:end].decode()] = value
    return out


def attr(config):
    # IP | TID | TIME | PERIOD | CALLCHAIN | IDENTIFIER; sample_id_all off
    return struct.pack('<IIQQQQQIIQ', 1, 128, config, 1, 0x10127, 0, 0,
                       0, 0, 0) + b'\0' * 64


def main():
    args = sys.argv[1:]
    java = '--no-java' not in args
    bad = '--bad-chains' in args
    args = [a for a in args if a not in ('--no-java', '--bad-chains')]
    out, path = args[0], os.path.abspath(args[1])
    elf = Elf(path)
    fn = names(elf)
    start, length, pgoff = elf.mapping(BASE)
    vaddr0 = elf.seg[1] & ~0xfff

    def at(name):
        return start + fn[name] - vaddr0 + 2

    t = [1000]

    def sample(eid, pid, tid, period, chain):
        t[0] += 10
        ips = [USER] + chain
        body = struct.pack('<QQIIQQQ', eid, chain[0], pid, tid, t[0],
                           period, len(ips))
        body += b''.join(struct.pack('<Q', ip) for ip in ips)
        return rec(9, body)

    w = [rec(64, attr(0) + struct.pack('<Q', 1), 0),
         rec(64, attr(1) + struct.pack('<Q', 2), 0)]
    for pid, comm in ((100, 'V8 WorkerThread'), (200, 'java'),
                      (300, 'probe')):
        w.append(rec(3, struct.pack('<II', pid, pid) + padded(comm)))
        w.append(mmap2(pid, pid, start, length, pgoff, path))
        w.append(mmap2(pid, pid, ANON, 0x1000, 0, '//anon'))
    cxx = [at('foo(int)'), at('(anonymous namespace)::bar(long)'),
           at('main')]
    w += [sample(1, 100, 100, 100, cxx), sample(1, 100, 101, 100, cxx)]
    w.append(sample(2, 100, 100, 250, cxx))       # task-clock: left out
    if java:
        w.append(sample(1, 200, 200, 250,
                        [at('Lorg/mozilla/Foo;.call'),
                         at('plain_fn'), at('main')]))
    w.append(sample(1, 300, 300, 100,
                    [at('it\'s"q'), at('a;b'), at('net/http.(*Client).Do'),
                     ANON + 0x10, 0x1234, at('main')]))
    w.append(sample(1, 300, 300, 250, [at('plain_fn'), at('main')]))
    if bad:
        for ips in ([], [USER, at('plain_fn'), 0xffffffffffffffff]):
            t[0] += 10
            body = struct.pack('<QQIIQQQ', 1, at('plain_fn'), 300, 300,
                               t[0], 100, len(ips))
            w.append(rec(9, body + b''.join(struct.pack('<Q', ip)
                                            for ip in ips)))
    w.append(rec(68, b'', 0))
    with open(out, 'wb') as f:
        f.write(b'PERFILE2' + struct.pack('<Q', 16) + b''.join(w))


main()
