# perfkit script's options of perf script 6.1 beyond script_vs_perf.sh's,
# against perf script byte for byte (stdout and exit status) on perf's
# recordings here and the corpus: --reltime, --deltatime (with --ns and
# --time), --comms/-c, --dsos, --symbols/-S with --addr-range,
# --switch-on/--switch-off/--show-on-off-events, --per-event-dump (the
# .dump files and the closing lines), --dump-unsorted-raw-trace, --stop-bt (frame-pointer and DWARF
# callchains), --symfs, --kallsyms, -d, the accepted no-ops, and perf's
# refusals (bad values, missing files, another user's file).
. tests/lib/sh.sh
T=$T_TMP
C=$PK_SHARED/corpus/perf-data
DEMO=$PK_BUILD/workloads/demo
GP=$PK_BUILD/workloads/getppid

if ! command -v perf >/dev/null 2>&1; then
	skip script_opts_vs_perf "perf is not installed"
	exit 0
fi
if [ ! -x "$PERFKIT" ] || [ ! -x "$DEMO" ] || [ ! -x "$GP" ]; then
	fail script_opts_vs_perf "build $PERFKIT and the workloads first"
	exit 1
fi

# same NAME FILE [ARGS...]: the same stdout and exit status; MIN lines
# at least (default 1; 0 where perf prints nothing)
MIN=1
same() {
	name=$1; f=$2; shift 2
	perf script -i "$f" "$@" >"$T/p.out" 2>"$T/p.err"; rp=$?
	"$PERFKIT" script -i "$f" "$@" >"$T/k.out" 2>"$T/k.err"; rk=$?
	n=$(wc -l <"$T/p.out")
	if [ $rp -eq $rk ] && [ "$n" -ge "$MIN" ] &&
	   cmp -s "$T/p.out" "$T/k.out"; then
		ok "$name"
	else
		fail "$name" "status perf $rp perfkit $rk, $n lines, first difference: $(diff "$T/p.out" "$T/k.out" | head -4 | tr '\n' '|' | cut -c1-300) stderr: $(head -c 200 "$T/k.err")"
	fi
}

# refuse NAME FILE [ARGS...]: both fail with the same status and
# perfkit's stderr holds perf's first line
refuse() {
	name=$1; f=$2; shift 2
	perf script -i "$f" "$@" >"$T/p.out" 2>"$T/p.err"; rp=$?
	"$PERFKIT" script -i "$f" "$@" >"$T/k.out" 2>"$T/k.err"; rk=$?
	msg=$(grep -v '^ *$' "$T/p.err" | head -1)
	if [ $rp -ne 0 ] && [ $rp -eq $rk ] && [ -n "$msg" ] &&
	   grep -qF -- "$msg" "$T/k.err"; then
		ok "$name"
	else
		fail "$name" "status perf $rp perfkit $rk; perf said '$msg', perfkit '$(head -c 200 "$T/k.err")'"
	fi
}

rec() { # rec FILE perf-record-args...
	out=$1; shift
	perf record -q -o "$out" "$@" >/dev/null 2>&1
	[ -s "$out" ] || fail "script_opts_record_$(basename "$out")" "perf record $* failed"
}

rec "$T/cg.data" -e cpu-clock -g -- "$DEMO" 1
rec "$T/multi.data" -e cpu-clock -e page-faults -a -- "$DEMO" 1
rec "$T/tp.data" -e sched:sched_switch -e syscalls:sys_enter_getppid -a -- "$GP" 200
rec "$T/dw.data" -e cpu-clock --call-graph dwarf,4096 -- "$DEMO" 1

M=$T/multi.data
# the file's first and the next 2 ms, absolute (for --time without --reltime)
t0=$(perf script -i "$M" -F time 2>/dev/null | head -1 | tr -d ' :')

# time displays
same sco_reltime "$M" --reltime
same sco_reltime_ns "$M" --reltime --ns
same sco_deltatime "$M" --deltatime
same sco_deltatime_ns "$M" --deltatime --ns
same sco_reltime_time "$M" --reltime --time 0.01,0.02
same sco_reltime_fields "$M" --reltime -F time,event,ip
same sco_deltatime_time "$M" --deltatime --ns --time "$t0,"
same sco_deltatime_tp "$T/tp.data" --deltatime
same sco_reltime_cg "$T/cg.data" --reltime
same sco_reltime_tasks "$M" --reltime --show-task-events
same sco_time_pct "$M" --time 10%
MIN=0 same sco_reltime_open_end "$M" --reltime --time 0.01,
MIN=0 same sco_reltime_pct "$M" --reltime --time 10%/2
refuse sco_reltime_deltatime "$M" --reltime --deltatime

# filters
same sco_comms "$M" --comms perf,demo
same sco_comms_short "$M" -c demo
same sco_dsos "$M" --dsos libc.so.6
same sco_dsos_kernel "$M" --dsos '[kernel.kallsyms]'
same sco_dsos_long "$M" --dsos /usr/lib/x86_64-linux-gnu/libc.so.6,demo
sym=$(perf script -i "$M" -F ip,sym 2>/dev/null | awk '$2 != "[unknown]" && $1 !~ /^ffff/ { print $2 }' | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
ip=$(perf script -i "$M" -F ip,sym 2>/dev/null | awk -v s="$sym" '$2 == s { print $1; exit }')
same sco_symbols "$M" --symbols "$sym"
same sco_symbols_short "$M" -S "$sym,nosuchsymbol"
same sco_symbols_addr "$M" -S "0x$ip"
same sco_symbols_hexword "$M" -S "$ip"
start=$(printf '%x' $((0x$ip - 16)))
same sco_addr_range "$M" -S "0x$start" --addr-range 17
MIN=0 same sco_addr_range_short "$M" -S "0x$start" --addr-range 16
same sco_addr_range_alone "$M" --addr-range 5
MIN=0 same sco_symbols_empty "$M" -S ''
same sco_filters_tp "$T/tp.data" --dsos '[kernel.kallsyms]' -c getppid
refuse sco_addr_range_bad "$M" -S 0x10 --addr-range 0x20

# switch-on/off
same sco_switch_on "$M" --switch-on page-faults
same sco_switch_on_shown "$M" --switch-on page-faults --show-on-off-events
same sco_switch_off "$M" --switch-off page-faults
same sco_switch_on_off "$M" --switch-on page-faults --switch-off cpu-clock --show-on-off-events
same sco_switch_tp "$T/tp.data" --switch-on syscalls:sys_enter_getppid --switch-off sched:sched_switch
refuse sco_switch_on_unknown "$M" --switch-on nosuch
refuse sco_switch_off_unknown "$M" --switch-off nosuch

# --per-event-dump: the same files (perf writes INPUT.EVENT.dump)
for f in multi tp cg; do
	mkdir -p "$T/pd.$f" "$T/kd.$f"
	cp "$T/$f.data" "$T/pd.$f/x.data"
	cp "$T/$f.data" "$T/kd.$f/x.data"
	perf script -i "$T/pd.$f/x.data" --per-event-dump --show-task-events \
		>"$T/p.out" 2>/dev/null; rp=$?
	"$PERFKIT" script -i "$T/kd.$f/x.data" --per-event-dump \
		--show-task-events >"$T/k.out" 2>/dev/null; rk=$?
	sed -i "s|$T/kd.$f/|$T/pd.$f/|" "$T/k.out"
	nd=$(ls "$T/pd.$f" | grep -c '\.dump$')
	if [ $rp -eq 0 ] && [ $rk -eq 0 ] && [ "$nd" -ge 1 ] &&
	   cmp -s "$T/p.out" "$T/k.out" && diff -r "$T/pd.$f" "$T/kd.$f" >/dev/null; then
		ok "sco_per_event_dump_$f"
	else
		fail "sco_per_event_dump_$f" "status $rp/$rk, $nd files: $(diff -r "$T/pd.$f" "$T/kd.$f" | head -3 | tr '\n' '|' | cut -c1-300) $(diff "$T/p.out" "$T/k.out" | head -3 | tr '\n' '|')"
	fi
done

# callchains
kfn=$(perf script -i "$T/cg.data" 2>/dev/null | awk '/kernel.kallsyms/ { print $2; exit }' | sed 's/+0x.*//')
same sco_stop_bt "$T/cg.data" --stop-bt "$kfn"
same sco_stop_bt_list "$T/cg.data" --stop-bt "main,$kfn" --max-stack 4
same sco_stop_bt_none "$T/cg.data" --stop-bt nosuch
same sco_stop_bt_dwarf "$T/dw.data" --stop-bt main
same sco_stop_bt_hidden "$T/cg.data" -G --stop-bt main

# symbol sources
mkdir -p "$T/emptyfs"
same sco_symfs_empty "$T/cg.data" --symfs "$T/emptyfs"
same sco_symfs_root "$T/cg.data" --symfs /
same sco_symfs_kallsyms "$T/cg.data" --symfs "$T/emptyfs" --kallsyms /proc/kallsyms
same sco_kallsyms "$T/cg.data" --kallsyms /proc/kallsyms
refuse sco_kallsyms_missing "$T/cg.data" --kallsyms "$T/nosuch"
refuse sco_vmlinux_missing "$T/cg.data" --vmlinux "$T/nosuch"
refuse sco_vmlinux_short_missing "$T/cg.data" -k "$T/nosuch"

# accepted: the same output as without them here
for o in --show-kernel-path --inline --demangle --demangle-kernel \
	 --stitch-lbr -v --verbose -f --force "--max-blocks 3"; do
	# shellcheck disable=SC2086
	same "sco_accept$(echo "$o" | tr -d ' ' | tr - _)" "$T/cg.data" $o
done
refuse sco_max_blocks_bad "$T/cg.data" --max-blocks x

# --dump-unsorted-raw-trace: -D in file order (rounds unhandled)
same sco_unsorted_dump "$M" --dump-unsorted-raw-trace
same sco_unsorted_dump_cg "$T/cg.data" --dump-unsorted-raw-trace

# -d: no samples, the misordered count on stderr
MIN=0 same sco_debug_mode "$M" -d
perf script -i "$M" -d >/dev/null 2>"$T/p.err"
"$PERFKIT" script -i "$M" -d >/dev/null 2>"$T/k.err"
tail -1 "$T/p.err" >"$T/p.last"; tail -1 "$T/k.err" >"$T/k.last"
grep -q Misordered "$T/p.last" && cmp -s "$T/p.last" "$T/k.last"
check sco_debug_mode_count "perf '$(cat "$T/p.last")' perfkit '$(cat "$T/k.last")'" $? -eq 0

# another user's file: refused without -f
if id nobody >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	cp "$T/cg.data" "$T/nobody.data" && chown nobody "$T/nobody.data"
	refuse sco_not_owned "$T/nobody.data"
	same sco_not_owned_force "$T/nobody.data" -f
else
	skip sco_not_owned "needs root and a nobody user"
fi

# -l, -s, -g: one line saying why, a failure
for o in -l "-s x.py" "-g python"; do
	# shellcheck disable=SC2086
	"$PERFKIT" script -i "$T/cg.data" $o >/dev/null 2>"$T/k.err"; rk=$?
	[ $rk -ne 0 ] && [ "$(wc -l <"$T/k.err")" -eq 1 ] &&
		grep -q "no Perl or Python" "$T/k.err"
	check "sco_no_scripting$(echo "$o" | cut -c1-2)" "status $rk: $(cat "$T/k.err")" $? -eq 0
done

# the corpus
for f in callgraph-3.8 forkexit-3.8 ctx_switch_namespaces-4.14; do
	p=$C/perf.data.$f
	[ -f "$p" ] || { skip "sco_corpus_$f" "no $p"; continue; }
	same "sco_corpus_reltime_$f" "$p" --reltime
	same "sco_corpus_deltatime_$f" "$p" --deltatime --ns
	same "sco_corpus_dsos_$f" "$p" --dsos '[kernel.kallsyms]'
done
t_exit
