#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares perf annotate --stdio output (PERF) with perfkit's (PERFKIT):
the symbols in the same order with the same header lines, the same
percentage at every instruction address, and the whole text after the
normalizations docs/annotate.md lists (-n NAMES: a comma list of the
classes to apply; "none" for none; --percent-only skips the text).
Prints one line per difference (at most 10) and exits 1 if there is any.
Usage: annotate_cmp.py [-n CLASSES] [--percent-only] PERF PERFKIT"""
import re, sys

INSN = re.compile(r'^ +(\d+(?:\.\d\d)?) : +([0-9a-f]+):')
HEAD = re.compile(r'^ (Percent|Samples|Period +) \|')
SUMMARY = 'Sorted summary for file '

def blocks(path):
    """Symbols: each from its -l summary or its header line on."""
    out, cur = [], None
    for line in open(path, errors='replace').read().split('\n'):
        if line.startswith(SUMMARY) or (HEAD.match(line) and not (
                cur and cur[0].startswith(SUMMARY) and
                not any(HEAD.match(x) for x in cur))):
            cur = [line]
            out.append(cur)
        elif cur is not None:
            cur.append(line)
        elif line:
            out.append(['<stray> ' + line])
    return out

def percents(b):
    m = {}
    for line in b:
        x = INSN.match(line)
        if x:
            m[x.group(2)] = x.group(1)
    return m

# S: a symbol name in <...> is objdump's pick from the file's own symbol
#    table, perfkit's is perf's (debuginfo's .symtab, aliases, @plt names)
# F: a relative DWARF file name bfd takes from another file table entry
#    (glibc's included headers)
def norm_S(line):
    line = re.sub(r' ?<[^<>]*>', '', line)
    # objdump writes 0x before an address it has no symbol for
    line = re.sub(r'# 0x([0-9a-f]+)$', r'# \1', line)
    return re.sub(r'^(.*:  +(?:j\w+|call|jmp|bnd jmp|notrack jmp) +)0x([0-9a-f]+)$',
                  r'\1\2', line)

def norm_F(line):
    line = re.sub(r'^( +: \d+ +)[^/\s][^\s:]*:(\d+)', r'\1FILE:\2', line)
    line = re.sub(r'^( +\d+\.\d\d )[^/\s:]+:(\d+)$', r'\1FILE:\2', line)
    return re.sub(r' // [^/\s:]+:(\d+)$', r' // FILE:\1', line)

NORMS = {'S': norm_S, 'F': norm_F}
SRC = re.compile(r' // \S+$')

def main(argv):
    classes, pct_only = 'S,F,P', False
    while argv and argv[0].startswith('-'):
        if argv[0] == '-n':
            classes = argv[1]; argv = argv[2:]
        elif argv[0] == '--percent-only':
            pct_only = True; argv = argv[1:]
        else:
            break
    fs = [NORMS[c] for c in classes.split(',') if c in NORMS]
    p, k = blocks(argv[0]), blocks(argv[1])
    errs = []
    if not p:
        errs.append('perf printed no symbol')
    if len(p) != len(k):
        errs.append('%d symbols from perf, %d from perfkit' % (len(p), len(k)))
    for i, (a, b) in enumerate(zip(p, k)):
        ha = [x for x in a if HEAD.match(x) or x.startswith(SUMMARY)]
        hb = [x for x in b if HEAD.match(x) or x.startswith(SUMMARY)]
        if ha != hb:
            errs.append('symbol %d header: %r vs %r' % (i, ha, hb))
            continue
        pa, pb = percents(a), percents(b)
        if pa != pb:
            d = sorted(x for x in set(pa) | set(pb) if pa.get(x) != pb.get(x))
            errs.append('symbol %d (%s): percent at %s: %s vs %s' % (
                i, a[0][-60:], d[0], pa.get(d[0]), pb.get(d[0])))
            continue
        if pct_only:
            continue
        first_src = True
        for j, (x, y) in enumerate(zip(a, b)):
            for f in fs:
                x, y = f(x), f(y)
            # P: the first source line of a symbol after the first
            # (perf's comparison reads freed memory)
            has = bool(SRC.search(x) or SRC.search(y))
            if ('P' in classes.split(',') and has and first_src and i > 0 and
                    x != y and SRC.sub('', x) == SRC.sub('', y)):
                x = y
            first_src = first_src and not has
            if x != y:
                errs.append('symbol %d line %d: %r vs %r' % (i, j, x, y))
                break
        else:
            if len(a) != len(b):
                errs.append('symbol %d: %d lines vs %d' % (i, len(a), len(b)))
    for e in errs[:10]:
        print(e)
    return 1 if errs else 0

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
