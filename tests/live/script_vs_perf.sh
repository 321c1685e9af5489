# perfkit script against perf script (6.1), byte for byte, on the same
# files: perf's recordings here (cpu-clock with -g, system-wide, several
# events, tracepoints with and without callchains, pipe mode), perfkit's
# own recordings, and the readable corpus files; -F field lists, -G, --ns
# and the filters (--time, --cpu, --pid, --tid, --comm); errors for fields
# the samples lack; the damaged corpus file.
. tests/lib/sh.sh
T=$T_TMP
C=$PK_SHARED/corpus/perf-data
DEMO=$PK_BUILD/workloads/demo
GP=$PK_BUILD/workloads/getppid

if ! command -v perf >/dev/null 2>&1; then
	skip script_vs_perf "perf is not installed"
	exit 0
fi
if [ ! -x "$PERFKIT" ] || [ ! -x "$DEMO" ] || [ ! -x "$GP" ]; then
	fail script_vs_perf "build $PERFKIT and the workloads first"
	exit 1
fi

# same NAME FILE [ARGS...]: both print the same, both succeed, not empty
same() {
	name=$1; f=$2; shift 2
	if [ "$f" = - ]; then
		perf script -i - "$@" <"$PIPE_IN" >"$T/p.out" 2>"$T/p.err"; rp=$?
		"$PERFKIT" script -i - "$@" <"$PIPE_IN" >"$T/k.out" 2>"$T/k.err"; rk=$?
	else
		perf script -i "$f" "$@" >"$T/p.out" 2>"$T/p.err"; rp=$?
		"$PERFKIT" script -i "$f" "$@" >"$T/k.out" 2>"$T/k.err"; rk=$?
	fi
	n=$(wc -l <"$T/p.out")
	if [ $rp -eq 0 ] && [ $rk -eq 0 ] && [ "$n" -gt 0 ] &&
	   cmp -s "$T/p.out" "$T/k.out"; then
		ok "$name"
	else
		# the inputs kept: system-wide recordings are not made twice
		keep=/tmp/pk-script-fail.$$.$name
		mkdir -p "$keep" && cp "$T/p.out" "$T/k.out" "$keep/" &&
			{ [ "$f" = - ] && cp "$PIPE_IN" "$keep/" || cp "$f" "$keep/"; }
		fail "$name" "status perf $rp perfkit $rk, $n lines, first difference: $(diff "$T/p.out" "$T/k.out" | head -4 | tr '\n' '|' | cut -c1-400) stderr: $(head -c 200 "$T/k.err") (kept in $keep)"
	fi
}

# both refuse: non-zero status and perf's message
refuse() {
	name=$1; f=$2; shift 2
	perf script -i "$f" "$@" >"$T/p.out" 2>"$T/p.err"; rp=$?
	"$PERFKIT" script -i "$f" "$@" >"$T/k.out" 2>"$T/k.err"; rk=$?
	msg=$(grep -v '^ *$' "$T/p.err" | head -1)
	if [ $rp -ne 0 ] && [ $rk -ne 0 ] && [ -n "$msg" ] &&
	   grep -qF "$msg" "$T/k.err"; then
		ok "$name"
	else
		fail "$name" "status perf $rp perfkit $rk; perf said '$msg', perfkit '$(head -c 200 "$T/k.err")'"
	fi
}

rec() { # rec FILE perf-record-args...
	out=$1; shift
	perf record -q -o "$out" "$@" >/dev/null 2>&1
	[ -s "$out" ] || fail "script_record_$(basename "$out")" "perf record $* failed"
}

rec "$T/cg.data" -e cpu-clock -g -- "$DEMO" 2
rec "$T/a.data" -e cpu-clock -a -g -- "$DEMO" 1
rec "$T/multi.data" -e cpu-clock -e page-faults -a -- "$DEMO" 1
rec "$T/tp.data" -e sched:sched_switch -e syscalls:sys_enter_getppid \
	-e sched:sched_process_exec -a -- "$GP" 200
rec "$T/tpg.data" -e syscalls:sys_enter_getppid -e sched:sched_switch -g -- "$GP" 200
# kernel addresses in payloads (%ps): perf names them from its kernel map
rec "$T/ksym.data" -e timer:hrtimer_expire_entry \
	-e workqueue:workqueue_execute_start -a -- sleep 0.2
rec "$T/regs.data" -e cpu-clock -I --user-regs=ax,bx,sp -- "$DEMO" 1
perf record -q -e cpu-clock -g -o - -- "$DEMO" 1 >"$T/pipe.data" 2>/dev/null
"$PERFKIT" record -q -e cpu-clock -g -o "$T/pk.data" -- "$DEMO" 1 >/dev/null 2>&1
"$PERFKIT" record -q -e sched:sched_switch -e syscalls:sys_enter_getppid -a \
	-o "$T/pktp.data" -- "$GP" 200 >/dev/null 2>&1

# default output
same script_default_cg "$T/cg.data"
# -F iregs, uregs: " ABI:2 " and the registers of the attr's masks, named
# as perf names them
same script_iregs_uregs "$T/regs.data" -F +iregs,+uregs
same script_iregs_only "$T/regs.data" -F ip,iregs
same script_default_systemwide "$T/a.data"
same script_default_multi "$T/multi.data"
same script_default_tracepoints "$T/tp.data"
same script_default_tracepoints_g "$T/tpg.data"
same script_tracepoint_ksyms "$T/ksym.data"
"$PERFKIT" script -i "$T/ksym.data" > "$T/ks.out" 2>/dev/null
check script_tracepoint_ksyms_named "no payload function named: $(head -2 "$T/ks.out")" \
	"$(grep -c 'function=[a-z_]' "$T/ks.out")" -gt 0
PIPE_IN=$T/pipe.data same script_default_pipe -
same script_default_perfkit_cg "$T/pk.data"
same script_default_perfkit_tp "$T/pktp.data"

# options
same script_hide_callgraph "$T/cg.data" -G
same script_hide_callgraph_systemwide "$T/a.data" -G
same script_ns "$T/a.data" --ns
same script_ns_tp "$T/tp.data" --ns
same script_fields_all "$T/a.data" -F comm,tid,pid,time,cpu,event,ip,sym,symoff,dso,period
same script_fields_plus "$T/cg.data" -F +pid
same script_fields_minus "$T/a.data" -F -dso,-symoff
same script_fields_ip_only "$T/cg.data" -F tid,ip
same script_fields_sym_no_ip "$T/cg.data" -F comm,sym
same script_fields_typed "$T/multi.data" -F sw:comm,tid,event,period
same script_fields_trace "$T/tp.data" -F time,event,trace
same script_fields_flags "$T/cg.data" -F +flags
same script_fields_callindent "$T/cg.data" -F comm,pid,tid,callindent,ip
refuse script_fields_missing_cpu "$T/cg.data" -F comm,cpu
refuse script_fields_missing_addr "$T/tp.data" -F comm,addr

# filters
t1=$(perf script -i "$T/a.data" -F time 2>/dev/null | sed -n 20p | tr -d ' :')
t2=$(perf script -i "$T/a.data" -F time 2>/dev/null | sed -n 80p | tr -d ' :')
same script_time_range "$T/a.data" --time "$t1,$t2"
same script_time_from "$T/a.data" --time "$t1,"
same script_time_to "$T/a.data" --time ",$t2"
same script_cpu "$T/a.data" --cpu 0
same script_cpu_list "$T/tp.data" --cpu 0-1
pid=$(perf script -i "$T/a.data" -F pid 2>/dev/null | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
same script_pid "$T/a.data" --pid "$pid"
tid=$(perf script -i "$T/tp.data" -F tid 2>/dev/null | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
same script_tid "$T/tp.data" --tid "$tid"
same script_comm "$T/a.data" --comm demo,swapper
refuse script_cpu_without_cpus "$T/cg.data" --cpu 0

# corpus files perf reads (Intel PT and the pipe file
# that needs perf's kernel relocation are not covered yet)
for f in branch-4.14 callgraph-3.8 ctx_switch_namespaces-4.14 forkexit-3.8 \
	 group_desc-4.14 hw_and_sw-3.4 hybrid_topology i686-3.4 \
	 lost_samples-4.4 numatopology-3.2 piped.header_features_aligned-6.12 \
	 raw-3.4 singleprocess-3.8 systemwide.0-3.8 throttle-3.8 weight_struct; do
	need_shared "corpus/perf-data/perf.data.$f" "script_corpus_$f" &&
		same "script_corpus_$f" "$C/perf.data.$f"
done

# --show-*-events: side-band records among the samples, each with the
# start of a sample line by its event (dummy events' unchecked fields,
# sample_id_all or not), on corpus files that have them; the lines must
# be there (perf's output has PERF_RECORD_ lines of the kind)
for c in "forkexit-3.8 task COMM" "forkexit-3.8 task EXIT" \
	 "callgraph-3.8 task FORK" "singleprocess-3.8 mmap MMAP" \
	 "systemwide.0-3.8 mmap MMAP" "ctx_switch_namespaces-4.14 switch SWITCH" \
	 "ctx_switch_namespaces-4.14 namespace NAMESPACES" \
	 "branch-4.14 round FINISHED_ROUND" "weight_struct round FINISHED_ROUND"; do
	set -- $c
	name=script_show_$2_$1_$3
	need_shared "corpus/perf-data/perf.data.$1" "$name" || continue
	same "$name" "$C/perf.data.$1" --show-$2-events
	grep -q "PERF_RECORD_$3" "$T/p.out"
	check "${name}_present" "perf shows no PERF_RECORD_$3 there" $? -eq 0
done
same script_show_all "$T/a.data" --show-task-events --show-mmap-events \
	--show-switch-events --show-lost-events --show-namespace-events \
	--show-bpf-events --show-cgroup-events --show-text-poke-events
if need_shared corpus/perf-data/perf.data.intel_pt-4.14 script_check_type_order; then
	# fields checked on the first event of each type in the types'
	# order (cycles, type 0, before intel_pt, the file's first)
	refuse script_check_type_order "$C/perf.data.intel_pt-4.14" -F +data_page_size
fi
if need_shared corpus/perf-data/perf.data.intel_pt-4.14 script_show_round_pt; then
	# perf's Intel PT decoder needs its records sorted
	refuse script_show_round_pt "$C/perf.data.intel_pt-4.14" --show-round-events
fi

# an AUX area trace (Intel PT) is decoded: the corpus' real recording
# (kernel and user, per-CPU buffers, binaries absent: decoder errors
# and resyncs everywhere, TSX, PSBs, cycles samples among them) prints
# what perf prints, whole, for each option set, and on stderr what perf
# says (the kernel's symbols not found, the count of decoder errors)
pt=$C/perf.data.intel_pt-4.14
if need_shared corpus/perf-data/perf.data.intel_pt-4.14 script_itrace_pt; then
	for o in "" "--itrace=e" "--itrace=b -F +flags" "--itrace=bep -F +flags" \
		 "--itrace=cr" "--itrace=i100ns" "--itrace=bex -F +flags" \
		 "--itrace=ce" "--itrace=i1i"; do
		nm=script_itrace_pt_$(echo "x$o" | tr -d ' +,=-')
		# shellcheck disable=SC2086
		same "$nm" "$pt" $o
		# stderr too: the kernel's symbols not found, the error count
		check "${nm}_stderr" "$(diff "$T/p.err" "$T/k.err" | head -3 | tr '\n' '|')" \
			-z "$(cmp "$T/p.err" "$T/k.err" 2>&1)"
	done
fi

# without e no error is made, and perf's closing warning counts none
if need_shared corpus/perf-data/perf.data.intel_pt-4.14 script_itrace_no_e_warning; then
	"$PERFKIT" script --itrace=b -i "$C/perf.data.intel_pt-4.14" >/dev/null 2>"$T/k.err"
	check script_itrace_no_e_warning "stderr: $(head -c 200 "$T/k.err")" \
		-z "$(grep 'instruction trace errors' "$T/k.err")"
fi

# quick decoding (q: IPs from TIP/FUP/TIP.PGE/PSB+, no code walked; qq:
# PSB+ only) on the corpus' per-CPU kernel trace: async branches, TSX
# aborts, trace ends, PSB/CBR and their samples as perf's
if need_shared corpus/perf-data/perf.data.intel_pt-4.14 script_itrace_q; then
	for o in "bq -F +flags" "ibpxeq -F +flags,+addr" "eq" "iqq"; do
		# shellcheck disable=SC2086
		same "script_itrace_q_$(echo $o | tr -d ' +,-')" \
			"$C/perf.data.intel_pt-4.14" --itrace=$o
	done
fi

# the damaged file: what precedes the damage (as perf), then an error
# naming the offset, non-zero status
B=$C/perf.data.piped.corrupted.zero_size_sample-3.2
if need_shared corpus/perf-data/perf.data.piped.corrupted.zero_size_sample-3.2 \
	script_corrupted script_corrupted_prefix; then
	perf script -i "$B" >"$T/p.out" 2>/dev/null
	"$PERFKIT" script -i "$B" >"$T/k.out" 2>"$T/k.err"; rk=$?
	check script_corrupted "status $rk, stderr $(head -c 200 "$T/k.err")" \
		$rk -ne 0 -a -n "$(grep 'offset 0x' "$T/k.err")"
	cmp -s "$T/p.out" "$T/k.out"
	check script_corrupted_prefix "output before the damage differs" $? -eq 0
fi
t_exit
