#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The architecture, checked: the #include graph of lib/, cli/ and
include/perfkit has no circle between files; the layers (lib/ folders)
call each other in one direction only, the order LAYERS gives (a folder
may use the folders before it); cli/ uses the library through its public
headers only. Usage: check_layers.py BUILD_DIR (its obj/ tree gives the
symbols). Prints one line per violation and exits 1 if there is any."""
import collections, glob, os, re, subprocess, sys

# Lowest first. A folder may call into (and include) folders listed before it.
LAYERS = ['base', 'sys', 'map', 'symbol', 'perfdata', 'synth', 'pt',
          'tracedat', 'tracefs', 'event', 'counter', 'ring', 'selfmon',
          'session', 'unwind', 'tracefmt', 'itrace', 'report', 'ftrace', 'annotate',
          'export']

def sources():
    out = []
    for d in ('lib', 'cli', 'include/perfkit'):
        for dp, _, fs in os.walk(d):
            out += [os.path.join(dp, f) for f in fs if f.endswith(('.c', '.h'))]
    return sorted(out)

def includes(files):
    fs, g = set(files), collections.defaultdict(set)
    for f in files:
        text = open(f, errors='replace').read()
        for q, inc in re.findall(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', text, re.M):
            if q == '<':
                cands = ['include/' + inc] if inc.startswith('perfkit/') else []
            else:
                cands = [os.path.normpath(os.path.join(os.path.dirname(f), inc)),
                         'lib/' + inc]
            for c in cands:
                if c in fs and c != f:
                    g[f].add(c)
                    break
    return g

def cycles(g, nodes):
    idx, low, st, on, out, n = {}, {}, [], set(), [], [0]
    def visit(v):
        idx[v] = low[v] = n[0]; n[0] += 1; st.append(v); on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in idx:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            c = []
            while True:
                w = st.pop(); on.discard(w); c.append(w)
                if w == v:
                    break
            if len(c) > 1:
                out.append(sorted(c))
    sys.setrecursionlimit(100000)
    for v in nodes:
        if v not in idx:
            visit(v)
    return out

def folder(path):
    p = path.split('/')
    return p[1] if p[0] == 'lib' and len(p) > 2 else p[0]

def symbol_edges(build):
    objs = sorted(glob.glob(build + '/obj/lib/*/*.o') + glob.glob(build + '/obj/cli/*.o'))
    objs = [o for o in objs if os.path.exists(o.split('/obj/', 1)[1][:-2] + '.c')]
    defs, und = {}, collections.defaultdict(set)
    if objs:
        nm = subprocess.run(['nm', '-A'] + objs, capture_output=True, text=True).stdout
    else:
        nm = ''
    for line in nm.splitlines():
        obj, _, rest = line.partition(':')
        src = obj.split('/obj/', 1)[1][:-2]
        p = rest.split()
        if len(p) == 3 and p[1] in 'TDBRCGSVW':
            defs[p[2]] = src
        elif len(p) == 2 and p[0] == 'U':
            und[src].add(p[1])
    edges = collections.defaultdict(set)
    for src, syms in und.items():
        for s in syms:
            if s in defs and folder(defs[s]) != folder(src):
                edges[(folder(src), folder(defs[s]))].add(s)
    return edges, len(objs)

def main():
    build = sys.argv[1] if len(sys.argv) > 1 else 'build'
    bad = 0
    files = sources()
    g = includes(files)
    for c in cycles(g, files):
        print('include circle: ' + ' -> '.join(c)); bad += 1
    for f, targets in sorted(g.items()):
        for t in sorted(targets):
            if f.startswith('cli/') and t.startswith('lib/'):
                print(f'{f}: includes the library-internal {t}'); bad += 1
            a, b = folder(f), folder(t)
            if f.startswith('lib/') and t.startswith('lib/') and a != b:
                if a not in LAYERS or b not in LAYERS:
                    print(f'{f}: folder {a if a not in LAYERS else b} has no place in LAYERS'); bad += 1
                elif LAYERS.index(b) > LAYERS.index(a):
                    print(f'{f}: includes {t} of the higher layer {b}'); bad += 1
    edges, nobj = symbol_edges(build)
    if nobj == 0:
        print(f'no objects under {build}/obj'); return 1
    for (a, b), syms in sorted(edges.items()):
        if a == 'cli':
            continue
        if a not in LAYERS or b not in LAYERS:
            print(f'lib/{a} -> lib/{b}: folder not in LAYERS'); bad += 1
        elif LAYERS.index(b) > LAYERS.index(a):
            print(f'lib/{a} calls the higher layer lib/{b}: ' + ' '.join(sorted(syms)[:5])); bad += 1
    print(f'{len(files)} files, {nobj} objects, {bad} violations')
    return 1 if bad else 0

sys.exit(main())
