# Normalizes `perf -vv` / `perfkit -vv` output for comparison: the attr
# blocks and their open lines; pids of tasks, fds and group fds become
# placeholders since they differ between runs.
#   attr_norm.py FILE          the first attempt at each open; whether it
#                              worked is not compared, and retries after a
#                              failure with the same type and config
#                              (features switched off) are dropped: they
#                              are the kernel's answer, not the attr built
#   attr_norm.py --tries FILE  every attempt in order with its failures
#                              and perf's "decreasing precise_ip" notes
#                              (record's fallbacks are compared too)
#   attr_norm.py [--tries] FILE FILE...  each FILE's result into FILE.n
#                              (one interpreter for several files)
import re, sys


def normalize(path, tries):
    blocks, cur = [], None
    for l in open(path, errors="replace"):
        l = l.rstrip("\n")
        if l == "perf_event_attr:":
            cur = {"attr": [], "open": []}
            blocks.append(cur)
        elif cur is not None and l.startswith("sys_perf_event_open:"):
            l = re.sub(r"pid (\d+)", lambda m: "pid " + ("P" if int(m.group(1)) > 0 else m.group(1)), l)
            l = re.sub(r"group_fd (\d+)", "group_fd G", l)
            l = re.sub(r" = \d+$", "", l)
            cur["open"].append(l)
        elif cur is not None and l.startswith("sys_perf_event_open failed"):
            cur["open"].append(l if tries else "failed")
        elif cur is not None and tries and l.startswith("decreasing precise_ip"):
            cur["open"].append(l)
        elif cur is not None and l.startswith("  ") and not cur["open"]:
            cur["attr"].append(l)

    def key(b):
        return [l for l in b["attr"] if re.match(r"  (type|config|\{ bp_addr)", l)]
    out, last_failed = [], None
    for b in blocks:
        if not tries and last_failed is not None and key(b) == last_failed:
            continue
        last_failed = key(b) if "failed" in b["open"] else None
        out += ["perf_event_attr:"] + b["attr"] + [o for o in b["open"] if o != "failed"]
    return "".join(l + "\n" for l in out)


tries = sys.argv[1] == "--tries"
paths = sys.argv[2:] if tries else sys.argv[1:]
# (nothing at all for a file without attr blocks: tests tell that case)
if len(paths) == 1:
    sys.stdout.write(normalize(paths[0], tries))
else:
    for path in paths:
        with open(path + ".n", "w") as f:
            f.write(normalize(path, tries))
