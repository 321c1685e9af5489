#!/bin/sh
# perfkit script -D prints Intel PT AUXTRACE data the way perf script -D
# does. File mode: the packet lines and the lines around them are
# identical. Pipe mode: perf 6.1 dumps the first AUXTRACE payload from 16
# bytes too early (the record's tail) and then loses the stream; its lines
# from its offset 0x10 on, moved back by 16, must equal ours. And report
# -D of the file whole, as perf's.
# pk-test: check
. tests/lib/sh.sh
if ! command -v perf >/dev/null 2>&1; then
	skip pt_script_dump "perf is not installed"
	exit 0
fi
D=$PK_SHARED/corpus/perf-data
need_shared corpus/perf-data/perf.data.intel_pt-4.14 pt_script_dump ||
	{ t_exit; exit; }
pat='^\.  [0-9a-f]\{8\}:\|Intel Processor Trace data'
in=$D/perf.data.intel_pt-4.14
perf script -D -i "$in" 2>/dev/null | grep -A1 -B1 "$pat" >"$T_TMP/perf"
"$PERFKIT" script -D -i "$in" 2>/dev/null | grep -A1 -B1 "$pat" >"$T_TMP/pk"
n=$(grep -c '^\.  [0-9a-f]\{8\}:' "$T_TMP/perf")
if [ "$n" -gt 1000 ] && cmp -s "$T_TMP/perf" "$T_TMP/pk"; then
	ok pt_script_dump:file
else
	fail pt_script_dump:file "$n perf lines; $(diff "$T_TMP/perf" "$T_TMP/pk" | head -3 | tr '\n' '|')"
fi
# the whole of report -D, byte for byte: AUXTRACE_INFO's Intel PT fields
# (perf's intel_pt_print_info), the -1 CPU of a sample whose event lacks
# the CPU another event has, the stats' "(excludes AUX area ...)"
perf report -D -i "$in" >"$T_TMP/perfD" 2>/dev/null
"$PERFKIT" report -D -i "$in" >"$T_TMP/pkD" 2>/dev/null
check pt_report_dump:file "$(diff "$T_TMP/perfD" "$T_TMP/pkD" | head -4 | tr '\n' '|')" \
	-s "$T_TMP/perfD" -a -n "$(grep '^  Max non-turbo ratio 12$' "$T_TMP/pkD")" -a \
	-z "$(cmp "$T_TMP/perfD" "$T_TMP/pkD" 2>&1)"
in=$D/perf.data.piped.intel_pt-4.14
# first buffer only; perf's offsets rebased by -16: "OFFSET REST" lines
first='/Intel Processor Trace data/ { n++; next } n != 1 { next }
function hex(s,  i, v) {
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
/^\.  [0-9a-f][0-9a-f]*:/ {
	o = hex(substr($2, 1, 8)) - base
	if (o < 0) next
	$1 = ""; $2 = ""
	printf "%08x:%s\n", o, $0
}'
perf script -D -i "$in" 2>/dev/null | awk -v base=16 "$first" >"$T_TMP/perfp"
"$PERFKIT" script -D -i "$in" 2>/dev/null | awk -v base=0 "$first" |
	head -n "$(wc -l <"$T_TMP/perfp")" >"$T_TMP/pkp"
n=$(wc -l <"$T_TMP/perfp")
if [ "$n" -gt 1000 ] && cmp -s "$T_TMP/perfp" "$T_TMP/pkp"; then
	ok pt_script_dump:pipe
else
	fail pt_script_dump:pipe "$n perf lines; $(diff "$T_TMP/perfp" "$T_TMP/pkp" | head -3 | tr '\n' '|')"
fi
t_exit
