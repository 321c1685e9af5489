#!/bin/sh
# The compiled event formatter on trace.dat files recorded here with many
# event systems (varied formats): record by record against libtraceevent
# (build/tests/ftrace_tfdiff), the whole report against the reference
# engine (--engine=tep) and against trace-cmd report; all records of the
# recording must be compiled (coverage from --stats).
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
TF=/sys/kernel/tracing
DIFF=$PK_BUILD/tests/ftrace_tfdiff
# the reference engine alone also prints the corpus files exactly
D=$PK_SHARED/corpus/trace-dat
for f in gcc-x86-v7-zstd rtapp-arm64-v6; do
	need_shared "corpus/trace-dat/$f.trace.dat" "ftrace_tfdiff_tep_$f" ||
		continue
	"$PERFKIT" ftrace report --engine=tep -i "$D/$f.trace.dat" > "$T_TMP/$f.tep" 2>/dev/null
	check "ftrace_tfdiff_tep_$f" "differs from the trace-cmd reference" \
		"$(zcat "$D/$f.report.txt.gz" | cksum)" = "$(cksum < "$T_TMP/$f.tep")"
done
if [ "$(id -u)" != 0 ] || [ ! -w $TF/instances ]; then
	skip ftrace_tfdiff_live "needs root and a writable tracefs at $TF"; exit 0
fi
[ -x "$DIFF" ] || { skip ftrace_tfdiff_live "no $DIFF"; exit 0; }
SYS="sched irq timer kmem signal block writeback workqueue task raw_syscalls
     syscalls net skb filemap ipi rcu"
EV=
for s in $SYS; do [ -d $TF/events/$s ] && EV="$EV -e $s"; done
# a short, bounded workload touching files, memory, signals, network
W='ls -R /usr/include > /dev/null; dd if=/dev/zero of=$0 bs=64k count=64 2>/dev/null;
   sync; ping -c 1 -W 1 127.0.0.1 > /dev/null 2>&1; kill -0 $$; sleep 0.05'
timeout 120 "$PERFKIT" ftrace record $EV -b 4096 -o "$T_TMP/live.dat" -- \
	sh -c "$W" "$T_TMP/zero" > "$T_TMP/rec.out" 2> "$T_TMP/rec.err"
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$T_TMP/live.dat" ]; then
	fail ftrace_tfdiff_live_record "rc=$rc $(head -2 "$T_TMP/rec.err")"
	t_exit; exit
fi
# 1. record by record (prints its own ok/FAIL lines, and coverage)
PK_TFDIFF_FILES="$T_TMP/live.dat" "$DIFF" > "$T_TMP/diff.out" 2>&1
grep -E '^(ok|FAIL|skipped:) ' "$T_TMP/diff.out" | grep live.dat
grep -E '^# live.dat' "$T_TMP/diff.out"
# 2. whole output: compiled formatter against the reference engine
"$PERFKIT" ftrace report --stats -i "$T_TMP/live.dat" > "$T_TMP/auto.txt" 2> "$T_TMP/stats"
"$PERFKIT" ftrace report --engine=tep -i "$T_TMP/live.dat" > "$T_TMP/tep.txt" 2>/dev/null
lines=$(wc -l < "$T_TMP/tep.txt")
check ftrace_tfdiff_live_vs_tep "$(cmp "$T_TMP/auto.txt" "$T_TMP/tep.txt" 2>&1 | head -1)" \
	"$(cksum < "$T_TMP/auto.txt")" = "$(cksum < "$T_TMP/tep.txt")" -a "$lines" -gt 1000
echo "# $(cat "$T_TMP/stats") ($lines lines)"
# at least 99% of the records compiled (all of them on the kernel this was
# written on; another kernel may bring a format the compiler refuses)
fast=$(sed -n 's/^records: \([0-9]*\) compiled formatter.*/\1/p' "$T_TMP/stats")
slow=$(sed -n 's/^records: [0-9]* compiled formatter, \([0-9]*\) libtraceevent.*/\1/p' "$T_TMP/stats")
check ftrace_tfdiff_live_coverage "$(cat "$T_TMP/stats")" \
	"$(( ${slow:-1} * 100 ))" -le "${fast:-0}"
# 3. and against trace-cmd itself
if command -v trace-cmd > /dev/null 2>&1; then
	trace-cmd report -i "$T_TMP/live.dat" > "$T_TMP/tc.txt" 2>/dev/null
	check ftrace_tfdiff_live_vs_tracecmd \
		"$(diff "$T_TMP/tc.txt" "$T_TMP/auto.txt" | head -3 | tr '\n' ' ')" \
		"$(cksum < "$T_TMP/auto.txt")" = "$(cksum < "$T_TMP/tc.txt")"
else
	skip ftrace_tfdiff_live_vs_tracecmd "trace-cmd not installed"
fi
t_exit
