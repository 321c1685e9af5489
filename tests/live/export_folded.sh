#!/bin/sh
# perfkit report --format=folded and --format=flamegraph on fixed inputs:
# a probe file (tests/lib/foldprobe.py over a program with C++, Go and
# Java style names, quotes and ';' in them, commands with spaces, an
# //anon mapping, no mapping, two events) and the corpus callgraph file,
# against collapsed stacks made once with stackcollapse-perf.pl from perf
# script (tests/data/folded, its README says how); -s pid (a root per
# thread, as its --tid); -o; the SVG parsed as XML with the frames' counts
# and nesting; bad --format, -o and --base use get one line and a status.
. tests/lib/sh.sh
D=tests/data/folded
T=$T_TMP
CG=$PK_SHARED/corpus/perf-data/perf.data.callgraph-3.8

# same NAME EXPECTED ARGS...: report's folded output equals EXPECTED
same() {
	_n=$1 _e=$2
	shift 2
	"$PERFKIT" report "$@" > "$T/out" 2> "$T/err"
	if cmp -s "$T/out" "$_e"; then ok "$_n"
	else fail "$_n" "$(diff "$_e" "$T/out" | head -4 | tr '\n' '|') $(head -1 "$T/err")"; fi
}
# refused NAME STATUS ARGS...: one line on stderr, that status
refused() {
	_n=$1 _s=$2
	shift 2
	"$PERFKIT" report "$@" > "$T/out" 2> "$T/err"
	_rc=$?
	check "$_n" "status $_rc, stderr '$(cat "$T/err")'" \
		"$_rc" = "$_s" -a "$(wc -l < "$T/err")" = 1
}

if [ -f "$CG" ]; then
	same export_folded_corpus "$D/callgraph-3.8.folded" -i "$CG" \
		--format=folded
else
	skip export_folded_corpus "no $CG"
fi
if ! command -v cc > /dev/null 2>&1; then
	skip export_folded_probe "no C compiler"
	t_exit
	exit $?
fi
cc -O1 -o "$T/names" "$D/names.c" && t_python tests/lib/foldprobe.py \
	"$T/probe.data" "$T/names" || { fail export_folded_probe "probe"; exit 1; }
same export_folded_probe "$D/probe.folded" -i "$T/probe.data" --format=folded
same "export_folded_probe -s pid" "$D/probe_tid.folded" -i "$T/probe.data" \
	--format=folded -s pid,sym
"$PERFKIT" report -i "$T/probe.data" --format=folded -o "$T/o.folded" \
	> "$T/out" 2> /dev/null
check export_folded_output "-o wrote '$(cat "$T/o.folded" 2>/dev/null | head -2)', stdout '$(head -2 "$T/out")'" \
	"$(cat "$T/o.folded" 2>/dev/null)" = "$(cat "$D/probe.folded")" -a ! -s "$T/out"
# the filters of a sample: --comm, --pid
"$PERFKIT" report -i "$T/probe.data" --format=folded --comm java > "$T/out" 2>/dev/null
check export_folded_comm "$(cat "$T/out")" \
	"$(cat "$T/out")" = "$(grep '^java;' "$D/probe.folded")"
"$PERFKIT" report -i "$T/probe.data" --format=folded --pid 300 > "$T/out" 2>/dev/null
check export_folded_pid "$(cat "$T/out")" \
	"$(cat "$T/out")" = "$(grep '^probe;' "$D/probe.folded")"

# the flame graph: well-formed, one frame per stack prefix, as wide as
# the counts under it, the kinds' marks gone from the names
"$PERFKIT" report -i "$T/probe.data" --format=flamegraph -o "$T/f.svg" 2> "$T/err"
t_python - "$T/f.svg" > "$T/frames" 2> "$T/py.err" <<'PY'
import sys
import xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
for g in root.iter(ns + 'g'):
    if g.get('class') != 'f':
        continue
    t = g.find(ns + 'title').text
    print(g.get('data-d'), g.get('data-x'), g.get('data-w'), t)
PY
check export_flame_xml "$(head -2 "$T/py.err") $(head -1 "$T/err")" -s "$T/frames"
# frames: all 800; probe's main 350 (100 + 250) under probe at depth 2
check export_flame_root "$(head -1 "$T/frames")" \
	"$(grep -c '^0 0 800 all (800 cpu-clock:HG, 100.00%)$' "$T/frames")" = 1
check export_flame_nest "$(grep ' main ' "$T/frames" | tr '\n' '|')" \
	"$(grep -c '^2 [0-9]* 350 main (350 cpu-clock:HG, 43.75%)$' "$T/frames")" = 1
check export_flame_frames "$(wc -l < "$T/frames") frames" \
	"$(wc -l < "$T/frames")" = 19
check export_flame_script "no script" -n "$(grep -c 'function search' "$T/f.svg")"
"$PERFKIT" report -i "$T/probe.data" --format=flamegraph -G -o "$T/i.svg" 2>/dev/null
check export_flame_icicle "no icicle title" \
	"$(grep -c '>Icicle Graph<' "$T/i.svg")" = 1
# differential: against the file without the java sample, java's frames
# grew (red), the others' shares shrank (blue); against itself, white
t_python tests/lib/foldprobe.py --no-java "$T/nojava.data" "$T/names"
"$PERFKIT" report -i "$T/probe.data" --format=flamegraph \
	--base "$T/nojava.data" -o "$T/d.svg" 2>/dev/null
fill() { grep "<title>$1 (" "$T/d.svg" | head -1 | sed 's/.*fill="rgb(\([0-9,]*\))".*/\1/'; }
check export_flame_diff_grew "java $(fill java)" \
	"$(fill java | cut -d, -f1)" = 255 -a "$(fill java | cut -d, -f2)" -lt 255
check export_flame_diff_shrank "V8 $(fill V8_WorkerThread)" \
	"$(fill V8_WorkerThread | cut -d, -f3)" = 255 -a \
	"$(fill V8_WorkerThread | cut -d, -f1)" -lt 255
"$PERFKIT" report -i "$T/probe.data" --format=flamegraph --base "$T/probe.data" \
	-o "$T/d.svg" 2>/dev/null
check export_flame_diff_same "a frame coloured as changed" \
	"$(grep -o 'fill="rgb([0-9,]*)" rx' "$T/d.svg" | sort -u | grep -vc 'rgb(255,255,255)')" = 0

refused export_refuses_format 2 -i "$T/probe.data" --format=bogus
refused export_refuses_chrome 2 -i "$T/probe.data" --format=chrome
refused export_refuses_o_alone 2 -i "$T/probe.data" -o "$T/x"
refused export_refuses_o_dir 1 -i "$T/probe.data" --format=folded -o "$T/no-such-dir/x"
refused export_refuses_dso 2 -i "$T/probe.data" --format=folded --dso x
refused export_refuses_missing 1 -i "$T/none.data" --format=folded
t_exit
