#!/usr/bin/env python3
# timelinecheck.py SPEEDSCOPE PERFETTO SCRIPT_OUT: checks perfkit's
# speedscope and perfetto (trace-event JSON) exports of one recording
# against each other and against `perfkit script -F comm,tid,period,ip,sym,dso`
# of it (SCRIPT_OUT); prints "ok NAME" / "FAIL NAME: why".
#  speedscope: the file's shape (schema, sampled profiles, a weight per
#   sample, frame indexes in range), one profile per thread, the weights
#   summing to the periods, the first sample's stack being script's
#   first sample's (root first);
#  perfetto: every event has a phase, every thread its name record, the
#   instants in time order, one per sample, each named by its stack's
#   leaf, their periods summing as script's.
import json
import sys


def check(name, cond, why):
    print(f'ok {name}' if cond else f'FAIL {name}: {why}')


ss_path, pf_path, sc_path = sys.argv[1:4]
# script's samples: header "comm tid period", then frames "ip sym"
samples = []
for block in open(sc_path).read().split('\n\n'):
    lines = [line for line in block.split('\n') if line.strip()]
    if not lines:
        continue
    head = lines[0].split()
    frames = []
    for line in lines[1:]:
        rest = line.split(None, 1)[1] if len(line.split()) > 1 else ''
        sym, _, dso = rest.rpartition(' (')
        sym, dso = sym.rsplit('+0x', 1)[0], dso[:-1]
        if sym == '[unknown]':
            sym = '[unknown]' if dso == '[unknown]' else \
                '[' + dso.rsplit('/', 1)[-1] + ']'
        frames.append(sym)
    samples.append((int(head[-1]), frames))
periods = sum(p for p, _ in samples)

ss = json.load(open(ss_path))
frames = ss['shared']['frames']
ok = ss.get('$schema', '').endswith('file-format-schema.json')
bad = []
total = nsamples = 0
for p in ss['profiles']:
    if p['type'] != 'sampled' or len(p['samples']) != len(p['weights']):
        bad.append(p['name'])
    for st in p['samples']:
        if any(not 0 <= i < len(frames) for i in st):
            bad.append(p['name'])
            break
    total += sum(p['weights'])
    nsamples += len(p['samples'])
check('speedscope_shape', ok and not bad, f'schema {ok}, bad {bad[:3]}')
check('speedscope_weights', total == periods and nsamples == len(samples),
      f'{nsamples} samples weighing {total}, script {len(samples)} '
      f'weighing {periods}')
first = [frames[i]['name'] for i in ss['profiles'][0]['samples'][0]]
want = list(reversed(samples[0][1]))
check('speedscope_stack', first == want, f'{first} vs script {want}')

pf = json.load(open(pf_path))
ev = pf['traceEvents']
names = {(e['pid'], e['tid']) for e in ev
         if e.get('ph') == 'M' and e.get('name') == 'thread_name'}
inst = [e for e in ev if e.get('ph') == 'i']
check('perfetto_phases', all('ph' in e for e in ev), 'an event without ph')
check('perfetto_threads', all((e['pid'], e['tid']) in names for e in inst),
      'an instant on a thread without a name')
ts = [float(e['ts']) for e in inst]
check('perfetto_order', ts == sorted(ts), 'instants out of time order')
check('perfetto_samples', len(inst) == len(samples) and
      sum(e['args']['period'] for e in inst) == periods,
      f'{len(inst)} instants, script {len(samples)}')
check('perfetto_leaf', all(e['args']['stack'] and
                           e['name'] == e['args']['stack'][0]
                           for e in inst), 'an instant not named by its leaf')
