# perf.data cross-reads with Linux perf, both ways:
#  - files perfkit writes (file, pipe, killed writer) read by perf script
#    and perf report with no warning, samples resolved to our symbols;
#  - files perf records here (cpu-clock -g, a tracepoint, pipe mode) and
#    every corpus file dumped by perfkit report -D exactly as perf report -D
#    (after dropping perf's thread/dso lookups), same counts;
#  - --header-only as perf script --header-only;
#  - a perf recording killed with SIGKILL: perfkit reads it, --repair
#    makes perf read it;
#  - the corrupted corpus file: error naming an offset, records before it.
# pk-test: slow
. tests/lib/sh.sh
# perf report -D / perfkit report -D output, normalised: comment and blank
# lines dropped, and perf's temporary copies of a 32-bit vdso
# (/tmp/perf-vdso.so-XXXXXX) named [vdso] as the record names them.
pd_filter() {
	grep -v '^#\|^$' | sed 's|^ \.\.\.\.\.\. dso: /tmp/perf-vdso\.so-.*| ...... dso: [vdso]|'
}
W=$PK_BUILD/examples/perfdata_write
C=$PK_SHARED/corpus/perf-data
T=$T_TMP

need_cmd perfdata_perf perf "perf is not installed"
need_built perfdata_perf "$PERFKIT" "$W"

# --- perfkit writes, perf reads ---
"$W" "$T/w.data" 700 || fail perfdata_write "perfdata_write failed"
perf script -i "$T/w.data" >"$T/w.out" 2>"$T/w.err"
n=$(grep -c 'cpu-clock:' "$T/w.out")
check perfdata_perf_script_reads "perf script: $n samples, stderr: $(head -c 200 "$T/w.err")" \
	"$n" -eq 700 -a ! -s "$T/w.err"
a=$(grep -c 'pk_example_hot_a+0x2 ' "$T/w.out"); b=$(grep -c 'pk_example_hot_b+0x2 ' "$T/w.out")
check perfdata_perf_script_symbols "hot_a $a hot_b $b" "$a" -gt 0 -a "$b" -gt 0 -a $((a + b)) -eq 700
perf report --stdio -i "$T/w.data" >"$T/r.out" 2>"$T/r.err"
check perfdata_perf_report_reads "stderr: $(head -c 300 "$T/r.err")" ! -s "$T/r.err"
grep -q 'Samples: 700 ' "$T/r.out" && grep -q 'pk_example_hot_a' "$T/r.out"
check perfdata_perf_report_samples "report lacks 700 samples / symbol" $? -eq 0

"$W" - 300 --pipe >"$T/p.data" || fail perfdata_write_pipe "write"
perf script -i - <"$T/p.data" >"$T/p.out" 2>"$T/p.err"
n=$(grep -c 'cpu-clock:' "$T/p.out")
check perfdata_perf_script_pipe "perf script (pipe): $n samples, stderr: $(head -c 200 "$T/p.err")" \
	"$n" -eq 300 -a ! -s "$T/p.err"
perf report --stdio -i - <"$T/p.data" >"$T/pr.out" 2>"$T/pr.err"
check perfdata_perf_report_pipe "stderr: $(head -c 300 "$T/pr.err")" ! -s "$T/pr.err"

# perfkit's own dump of what it wrote, against perf's
for f in w p; do
	if [ $f = p ]; then
		perf report -D -i - <"$T/$f.data" 2>/dev/null | pd_filter >"$T/$f.perfD"
		"$PERFKIT" report -D -i - <"$T/$f.data" 2>/dev/null | pd_filter >"$T/$f.pkD"
	else
		perf report -D -i "$T/$f.data" 2>/dev/null | pd_filter >"$T/$f.perfD"
		"$PERFKIT" report -D -i "$T/$f.data" 2>/dev/null | pd_filter >"$T/$f.pkD"
	fi
	check perfdata_dump_own_$f "$(diff "$T/$f.perfD" "$T/$f.pkD" | head -4)" \
		-z "$(diff "$T/$f.perfD" "$T/$f.pkD" | head -1)" -a -s "$T/$f.pkD"
done

# a perfkit writer killed with SIGKILL after a flush
PK_EXAMPLE_DIE=1 "$W" "$T/k.data" 2000 2>/dev/null
n=$(perf script -i "$T/k.data" 2>"$T/k.err" | grep -c 'cpu-clock:')
check perfdata_killed_perf "perf script on a killed perfkit file: $n samples, $(head -c 200 "$T/k.err")" \
	"$n" -eq 2000 -a ! -s "$T/k.err"
n=$("$PERFKIT" report -D -i "$T/k.data" 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE')
check perfdata_killed_perfkit "perfkit: $n samples" "$n" -eq 2000

# --- perf records, perfkit reads ---
if perf record -q -e cpu-clock -F 2000 -g -o "$T/cc.data" -- "$PK_BUILD/workloads/demo" >/dev/null 2>&1; then
	perf report -D -i "$T/cc.data" 2>/dev/null >"$T/cc.perfraw"
	pd_filter <"$T/cc.perfraw" >"$T/cc.perfD"
	"$PERFKIT" report -D -i "$T/cc.data" 2>"$T/cc.err" | pd_filter >"$T/cc.pkD"
	check perfdata_dump_cpu_clock "$(diff "$T/cc.perfD" "$T/cc.pkD" | head -4)" \
		-z "$(diff "$T/cc.perfD" "$T/cc.pkD" | head -1)" -a -s "$T/cc.pkD"
	ps=$(awk '/^ *SAMPLE events:/{print $3; exit}' "$T/cc.perfraw")
	ks=$("$PERFKIT" report -D -i "$T/cc.data" 2>/dev/null | grep -c ': PERF_RECORD_SAMPLE')
	ns=$(perf script -i "$T/cc.data" 2>/dev/null | grep -c 'cpu-clock:')
	check perfdata_count_cpu_clock "perf report -D $ps, perf script $ns, perfkit $ks" \
		"$ks" -eq "$ps" -a "$ks" -eq "$ns" -a "$ks" -gt 10
	"$PERFKIT" script --header-only -i "$T/cc.data" >"$T/cc.h1" 2>/dev/null
	perf script --header-only -i "$T/cc.data" >"$T/cc.h2" 2>/dev/null
	check perfdata_header_cpu_clock "$(diff "$T/cc.h2" "$T/cc.h1" | head -4)" \
		-z "$(diff "$T/cc.h2" "$T/cc.h1" | head -1)"
	# the same file killed: data size 0 and no features written
	cp "$T/cc.data" "$T/kc.data"
	dd if=/dev/zero of="$T/kc.data" bs=1 seek=48 count=8 conv=notrunc 2>/dev/null
	n=$("$PERFKIT" report -D -i "$T/kc.data" 2>"$T/kc.err" | grep -c ': PERF_RECORD_SAMPLE')
	check perfdata_zero_size_perfkit "$n samples, warning: $(head -c 200 "$T/kc.err")" \
		"$n" -eq "$ks" -a -s "$T/kc.err"
	n=$(perf script -i "$T/kc.data" 2>/dev/null | grep -c 'cpu-clock:')
	"$PERFKIT" script --repair -i "$T/kc.data" >/dev/null 2>&1
	m=$(perf script -i "$T/kc.data" 2>"$T/kc2.err" | grep -c 'cpu-clock:')
	check perfdata_repair "perf before repair $n, after $m of $ks" "$n" -eq 0 -a "$m" -eq "$ks"
else
	skip perfdata_dump_cpu_clock "perf record -e cpu-clock failed here"
fi

if perf record -q -e syscalls:sys_enter_getppid -o "$T/tp.data" -- "$PK_BUILD/workloads/getppid" 100 >/dev/null 2>&1; then
	ks=$("$PERFKIT" report -D -i "$T/tp.data" 2>/dev/null | grep -c ': PERF_RECORD_SAMPLE')
	ns=$(perf script -i "$T/tp.data" 2>/dev/null | grep -c 'sys_enter_getppid')
	check perfdata_count_tracepoint "perf script $ns, perfkit $ks" "$ks" -eq "$ns" -a "$ks" -ge 100
	perf report -D -i "$T/tp.data" 2>/dev/null | pd_filter >"$T/tp.perfD"
	"$PERFKIT" report -D -i "$T/tp.data" 2>/dev/null | pd_filter >"$T/tp.pkD"
	check perfdata_dump_tracepoint "$(diff "$T/tp.perfD" "$T/tp.pkD" | head -4)" \
		-z "$(diff "$T/tp.perfD" "$T/tp.pkD" | head -1)"
else
	skip perfdata_count_tracepoint "perf record -e syscalls:sys_enter_getppid failed here"
fi

if perf record -q -e cpu-clock -g -o - -- "$PK_BUILD/workloads/demo" >"$T/pp.data" 2>/dev/null; then
	perf report -D -i - <"$T/pp.data" 2>/dev/null >"$T/pp.perfraw"
	pd_filter <"$T/pp.perfraw" >"$T/pp.perfD"
	"$PERFKIT" report -D -i - <"$T/pp.data" 2>/dev/null | pd_filter >"$T/pp.pkD"
	check perfdata_dump_pipe "$(diff "$T/pp.perfD" "$T/pp.pkD" | head -4)" \
		-z "$(diff "$T/pp.perfD" "$T/pp.pkD" | head -1)" -a -s "$T/pp.pkD"
	ps=$(awk '/^ *SAMPLE events:/{print $3; exit}' "$T/pp.perfraw")
	ks=$(grep -c ': PERF_RECORD_SAMPLE' "$T/pp.pkD")
	check perfdata_count_pipe "perf $ps, perfkit $ks" "$ks" -eq "$ps" -a "$ks" -gt 10
else
	skip perfdata_dump_pipe "perf record -o - failed here"
fi

# more record kinds: perf stat record (STAT_CONFIG/STAT/STAT_ROUND, no
# sample_id_all: file order), switch/namespaces/cgroup records, zstd
# COMPRESSED records
D=$PK_BUILD/workloads/demo
for kind in stat switch zstd; do
	case $kind in
	stat) perf stat record -o "$T/$kind.data" -- "$D" >/dev/null 2>&1 ;;
	switch) perf record -q --switch-events --namespaces --all-cgroups \
		-e cpu-clock -o "$T/$kind.data" -- "$D" >/dev/null 2>&1 ;;
	zstd) perf record -q -z -e cpu-clock -o "$T/$kind.data" -- "$D" \
		>/dev/null 2>&1 ;;
	esac
	if [ $? -ne 0 ]; then
		skip perfdata_dump_$kind "perf could not record it here"
		continue
	fi
	perf report -D -i "$T/$kind.data" 2>/dev/null | pd_filter >"$T/$kind.perfD"
	"$PERFKIT" report -D -i "$T/$kind.data" 2>/dev/null | pd_filter >"$T/$kind.pkD"
	check perfdata_dump_$kind "$(diff "$T/$kind.perfD" "$T/$kind.pkD" | head -4)" \
		-z "$(diff "$T/$kind.perfD" "$T/$kind.pkD" | head -1)" -a -s "$T/$kind.pkD"
done

# --- the corpus ---
if need_shared corpus/perf-data perfdata_dump_corpus perfdata_header_corpus \
	perfdata_corrupted; then
	bad=""; nf=0
	for f in "$C"/perf.data.*; do
		case $f in *.gz|*.buildids|*intel_pt*) continue ;; esac
		perf report -D -i "$f" 2>/dev/null | pd_filter >"$T/c.perfD"
		"$PERFKIT" report -D -i "$f" 2>/dev/null | pd_filter >"$T/c.pkD"
		cmp -s "$T/c.perfD" "$T/c.pkD" || bad="$bad $(basename "$f")"
		nf=$((nf + 1))
	done
	check perfdata_dump_corpus "differ from perf report -D:$bad" -z "$bad" -a "$nf" -ge 15
	bad=""
	for f in "$C"/perf.data.*; do
		case $f in *.gz|*.buildids) continue ;; esac
		perf script --header-only -i "$f" >"$T/h.perf" 2>/dev/null
		"$PERFKIT" script --header-only -i "$f" >"$T/h.pk" 2>/dev/null
		cmp -s "$T/h.perf" "$T/h.pk" || bad="$bad $(basename "$f")"
	done
	check perfdata_header_corpus "differ from perf script --header-only:$bad" -z "$bad"
	f=$C/perf.data.piped.corrupted.zero_size_sample-3.2
	"$PERFKIT" report -D -i "$f" >"$T/bad.out" 2>"$T/bad.err"
	rc=$?
	n=$(grep -c ': PERF_RECORD_' "$T/bad.out")
	grep -q 'offset 0x[0-9a-f]*: record PERF_RECORD_SAMPLE' "$T/bad.err"
	check perfdata_corrupted "rc $rc, $n records, stderr: $(head -c 200 "$T/bad.err")" \
		$? -eq 0 -a "$rc" -ne 0 -a "$n" -gt 100
fi
t_exit
