#!/bin/sh
# perfkit ftrace report against trace-cmd report 3.1 output for the shared
# trace-cmd corpus (line for line), and against the installed trace-cmd.
# pk-test: check
. tests/lib/sh.sh
# ASan builds: libtraceevent's own leaks are not ours
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
D=$PK_SHARED/corpus/trace-dat
need_shared corpus/trace-dat ftrace_corpus || { t_exit; exit; }
for f in gcc-x86-v7-zstd rtapp-arm64-v6; do
	dat=$D/$f.trace.dat
	zcat "$D/$f.report.txt.gz" > "$T_TMP/$f.ref"
	if ! "$PERFKIT" ftrace report -i "$dat" > "$T_TMP/$f.pk" 2>"$T_TMP/$f.err"; then
		fail "ftrace_corpus_$f" "report failed: $(head -2 "$T_TMP/$f.err")"
		continue
	fi
	total=$(wc -l < "$T_TMP/$f.ref")
	same=$(awk 'NR == FNR { a[FNR] = $0; next }
		    (FNR in a) && a[FNR] == $0 { n++ } END { print n + 0 }' \
	       "$T_TMP/$f.ref" "$T_TMP/$f.pk")
	echo "# $f: $same of $total lines match"
	if cmp -s "$T_TMP/$f.ref" "$T_TMP/$f.pk"; then
		ok "ftrace_corpus_$f"
	else
		fail "ftrace_corpus_$f" "$same of $total lines match"
	fi
	# --cpu against the installed trace-cmd
	if command -v trace-cmd >/dev/null 2>&1; then
		"$PERFKIT" ftrace report --cpu 1 -i "$dat" > "$T_TMP/$f.pk1"
		tc_report "$T_TMP/$f.pk1" "$T_TMP/$f.tc1" --cpu 1 -i "$dat"
		if cmp -s "$T_TMP/$f.tc1" "$T_TMP/$f.pk1"; then
			ok "ftrace_corpus_cpu1_$f"
		else
			# both kept for a look
			cp "$T_TMP/$f.tc1" "/tmp/pk-ftrace-cpu1.$$.tc" 2>/dev/null
			cp "$T_TMP/$f.pk1" "/tmp/pk-ftrace-cpu1.$$.pk" 2>/dev/null
			fail "ftrace_corpus_cpu1_$f" "differs from trace-cmd --cpu 1 (kept in /tmp/pk-ftrace-cpu1.$$.*): $(diff "$T_TMP/$f.tc1" "$T_TMP/$f.pk1" | head -4 | tr '\n' '|')"
		fi
	else
		skip "ftrace_corpus_cpu1_$f" "trace-cmd not installed"
	fi
done
# --events (trace-cmd 3.1 prints the event formats of v6 files)
if command -v trace-cmd >/dev/null 2>&1; then
	"$PERFKIT" ftrace report --events -i "$D/rtapp-arm64-v6.trace.dat" > "$T_TMP/ev.pk"
	tc_report "$T_TMP/ev.pk" "$T_TMP/ev.tc" --events -i "$D/rtapp-arm64-v6.trace.dat"
	check ftrace_corpus_events "differs from trace-cmd --events" \
		"$(cksum < "$T_TMP/ev.tc")" = "$(cksum < "$T_TMP/ev.pk")"
fi
# trace-cmd convert: the v6 corpus file as v7 with zstd, and the v7 one as
# v6 (same events, other container) must still print the reference text
if command -v trace-cmd >/dev/null 2>&1; then
	for f in rtapp-arm64-v6:--compression=zstd gcc-x86-v7-zstd:--file-version=6; do
		n=${f%%:*}; opt=$(echo "${f#*:}" | tr = ' ')
		timeout 120 trace-cmd convert $opt -i "$D/$n.trace.dat" \
			-o "$T_TMP/conv.dat" > /dev/null 2>&1
		"$PERFKIT" ftrace report -i "$T_TMP/conv.dat" > "$T_TMP/conv.pk" 2>&1
		check "ftrace_corpus_converted_$n" "differs after trace-cmd convert $opt" \
			"$(cksum < "$T_TMP/conv.pk")" = "$(cksum < "$T_TMP/$n.ref")"
	done
fi
# damaged copies: an error naming an offset, never a crash
head -c 300000 "$D/gcc-x86-v7-zstd.trace.dat" > "$T_TMP/trunc.dat"
"$PERFKIT" ftrace report -i "$T_TMP/trunc.dat" > /dev/null 2> "$T_TMP/trunc.err"
rc=$?
check ftrace_corpus_truncated "rc=$rc: $(head -1 "$T_TMP/trunc.err")" \
	"$rc" -eq 1 -a -n "$(grep offset "$T_TMP/trunc.err")"
t_exit
