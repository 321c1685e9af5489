# trace-cmd report --profile's order of two events that tie in its sort
# (the same event, the same total) comes from heap addresses and differs
# run to run: each run of such entries (an "Event:" line and the lines
# under it) is put in text order; everything else stays as printed.
import re
import sys


def key(entry):
    m = re.match(r'  Event: ([^:]*):.*?\(\d+\)(?: Total: (\d+))?', entry[0])
    return (m.group(1), m.group(2) or '0') if m else (entry[0], '')


def main():
    out, entries = [], []

    def flush():
        i = 0
        while i < len(entries):
            j = i
            while j < len(entries) and key(entries[j]) == key(entries[i]):
                j += 1
            for e in sorted(entries[i:j]):
                out.extend(e)
            i = j
        entries.clear()

    for line in sys.stdin.read().split('\n'):
        if line.startswith('  Event: '):
            entries.append([line])
        elif entries and line.startswith('    '):
            entries[-1].append(line)
        else:
            flush()
            out.append(line)
    flush()
    sys.stdout.write('\n'.join(out))


main()
