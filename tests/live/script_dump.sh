#!/bin/sh
# perfkit script -D prints what perf script -D prints, byte for byte, on
# every corpus file: each record's dump followed by its sample's line (perf
# report -D instead ends with the counts and prints no samples; that is
# perfdata_perf.sh's). Left out, each for a stated reason:
#  - perf.data.piped.intel_pt-4.14: perf 6.1 reads a pipe's AUX payload
#    16 bytes early and loses the stream (pt_script_dump.sh compares the
#    rest);
#  - perf.data.raw-3.4, perf.data.piped.hw_and_sw-3.4: perf names these old
#    files' vDSO by the file perf 3.4 wrote (/tmp/perf-vdso.so-XXXXXX),
#    perfkit [vdso]; the piped one's kernel samples also resolve against
#    this machine's kallsyms, where perf 6.1 does not know the __pfx_
#    padding symbols.
# pk-test: check
. tests/lib/sh.sh
need_cmd script_dump perf "perf is not installed"
need_shared corpus/perf-data script_dump || { t_exit; exit; }
need_built script_dump "$PERFKIT"
export LC_ALL=C TZ=UTC
n=0
for f in "$PK_SHARED"/corpus/perf-data/perf.data.*; do
	case $f in
	*.buildids|*.pb_text.gz|*piped.intel_pt-4.14|*raw-3.4|*piped.hw_and_sw-3.4)
		continue ;;
	esac
	b=$(basename "$f")
	perf script -D -i "$f" >"$T_TMP/perf" 2>/dev/null
	"$PERFKIT" script -D -i "$f" >"$T_TMP/pk" 2>/dev/null
	n=$((n + 1))
	check "script_dump:$b" "$(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
		-s "$T_TMP/perf" -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
done
check script_dump:files "only $n corpus files" "$n" -ge 15
t_exit
