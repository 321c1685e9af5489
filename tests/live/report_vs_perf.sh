#!/bin/sh
# perfkit report --stdio against perf report --stdio (6.1), byte for byte
# (the closing tip line aside: perf picks one at random), on recordings
# made here (cpu-clock -g fp on the demo, --call-graph dwarf, tracepoints,
# two events, system-wide with kernel and user frames, no callchains) and
# on the corpus files perf reads the way perfkit does; and the one-line
# refusals (options not matched yet).
# pk-test: slow shards=2
. tests/lib/sh.sh
. tests/lib/report.sh
report_prereqs report_vs_perf

rec fp.data -e cpu-clock -F 2000 -g "$DEMO"
rec dw.data -e cpu-clock -F 500 --call-graph dwarf "$DEMO"
rec tp.data -e sched:sched_switch -e syscalls:sys_enter_getppid -a -- "$DEMO"
rec two.data -e cpu-clock -e task-clock -F 1000 "$DEMO"
# system-wide: the demo under a name of its own (the processes around it,
# another shard's demo among them, start and exec as they please)
cp "$DEMO" "$T/pkdemo_sw"
rec sys.data -F 1000 -g -a -- "$T/pkdemo_sw"
rec nocg.data -F 2000 "$DEMO"

for o in "" "--no-children" "-g none" "--no-children -g none" "-g callee" \
	 "-g fractal" "-g caller --no-children" "-G --no-children" \
	 "-g graph,2,callee" "-g fractal,1" "-s sym" "-s dso,sym" "-s dso" \
	 "-s comm" "-s pid" "-s comm,pid" "-n" "--show-total-period" \
	 "-n --show-total-period --no-children" "--percent-limit 5" \
	 "--max-stack 3" "--children -g none" "-g graph,0.5,3" \
	 "--no-children -g flat" "--no-children -g folded" \
	 "--no-children -g folded,0,caller" "--no-children -g flat,1,2" \
	 "--no-children --comm demo" "--no-children --dso libc.so.6" \
	 "--no-children --symbols cmp,main" \
	 "--no-children -g none --comm demo --percentage relative" \
	 "--header" "--header-only" "--header --no-children -g none" \
	 "--stats" "-g flat" "-g folded" "-g folded,0,callee"; do
	# shellcheck disable=SC2086
	same "report_fp${o:+ $o}" "$T/fp.data" $o
done
for f in tp two nocg; do
	for o in "" "--no-children" "-g none" "--no-children -g none" "-n" \
		 "-s dso" "--comm demo" "--dso libc.so.6" \
		 "--dso libc.so.6 --percentage relative" "--stats"; do
		# shellcheck disable=SC2086
		same "report_$f${o:+ $o}" "$T/$f.data" $o
	done
done
# dwarf: unwound stacks with inline frames (perf matches an inlined
# function's callchain node by its name, its siblings by name too; its
# entries go by its tree of them: twins, collapse, depth ties)
for o in "" "-g none" "--no-children -g none" "--no-children" "-g caller" \
	 "-g callee --no-children" "-g flat" "-g folded" "-G" "-g fractal" \
	 "--no-children -g folded" "-s dso,sym --no-children" "-s dso,sym" \
	 "-s sym -g none"; do
	# shellcheck disable=SC2086
	same "report_dwarf $o" "$T/dw.data" $o
done
for o in "--no-children --comm pkdemo_sw" \
	 "--no-children -g none --comm pkdemo_sw" \
	 "--no-children -g folded --comm pkdemo_sw" \
	 "--no-children --comm pkdemo_sw --dso libc.so.6 --percentage relative"; do
	# shellcheck disable=SC2086
	MODCHECK=1 same "report_system_wide $o" "$T/sys.data" $o
done

# the threads' tree, with their mappings (data ones in dwarf recordings)
for f in fp sys dw tp; do
	[ -f "$T/$f.data" ] || continue
	same "report_tasks $f" "$T/$f.data" --tasks
	same "report_mmaps $f" "$T/$f.data" --mmaps
done
# which records make threads: --tasks reads COMM, FORK and EXIT only,
# --mmaps MMAPs too, neither the samples (a system-wide recording that
# caught a process's MMAPs but not its fork once differed)
t_python tests/lib/taskprobe.py "$T/probe.data"
same "report_tasks probe" "$T/probe.data" --tasks
same "report_mmaps probe" "$T/probe.data" --mmaps
# threads named late: samples before the first COMM take perf's ":TID",
# which that COMM renames in place (the entries meet those of the new
# name; a --comm filter keeps the verdict of the sample that made one);
# a FORK makes a thread anew (the old one's entries keep ":TID"); a
# system-wide bench recording once differed here
t_python tests/lib/commprobe.py "$T/comm.data"
for o in "" "--comm env" "--comm :900" "-s pid" "-s comm" "-s pid,sym" \
	"-n -s comm,dso,sym" "--no-children -T"; do
	same "report_comm_late${o:+ $o}" "$T/comm.data" $o
done
# the vDSO of a 32-bit (x32) process is perf's [vdso32] ([vdsox32]): its
# type is the first of its files that tells it (a -a recording caught
# ld-linux.so.2 run by ldd); unresolved addresses widen the DSO column
mkdir -p "$T/vdso"
t_python tests/lib/vdsoprobe.py "$T/vdso.data" "$T/vdso"
for o in --mmaps "" "-s dso"; do
	same "report_vdso32${o:+ $o}" "$T/vdso.data" $o
done
# --stats lists an event that only lost samples (a system-wide dummy's)
t_python tests/lib/lostprobe.py "$T/lost.data"
same "report_stats lost" "$T/lost.data" --stats
# -D: every record, raw and decoded (the records, then perf's stats)
same report_dump "$T/fp.data" -D
# (another process's JIT map file, /tmp/perf-PID.map, may come and go
# between the two runs while a test beside this one runs: both read it
# when it is there)
SAME_SED='s|dso: /tmp/perf-[0-9]*\.map$|dso: //anon|' \
	same "report_dump --header" "$T/sys.data" -D --header
unset SAME_SED

refused report_refuses_sort_key "$T/fp.data" -s nosuchkey
refused report_refuses_missing "$T/none.data"
# -g on a file without callchains: perf's first lines, then an error
N=$((N + 1))
if t_part $N; then
	perf report --stdio -i "$T/nocg.data" -g graph >"$T/p.out" 2>/dev/null
	"$PERFKIT" report --stdio -i "$T/nocg.data" -g graph >"$T/k.out" \
		2>"$T/k.err"; rc=$?
	check report_refuses_g_without_callchains \
		"rc $rc, $(cat "$T/k.err"), $(diff "$T/p.out" "$T/k.out" | head -2)" \
		"$rc" -ne 0 -a "$(wc -l <"$T/k.err")" -eq 1 -a \
		"$(cmp -s "$T/p.out" "$T/k.out" && echo same)" = same
fi

if need_shared corpus/perf-data report_corpus; then
	for f in ctx_switch_namespaces-4.14 hw_and_sw-3.4 i686-3.4 \
		 numatopology-3.2 piped.header_features_aligned-6.12 \
		 singleprocess-3.8 systemwide.0-3.8 weight_struct; do
		for o in "" "--no-children" "-g none" "--no-children -g none"; do
			# shellcheck disable=SC2086
			same "report_corpus_$f${o:+ $o}" "$C/perf.data.$f" $o
		done
	done
	for f in branch-4.14 callgraph-3.8 forkexit-3.8 group_desc-4.14 \
		 hybrid_topology lost_samples-4.4 raw-3.4 throttle-3.8; do
		same "report_corpus_$f --stats" "$C/perf.data.$f" --stats
	done
	# the threads' tree and their mappings (forks, synthesized forks of
	# running processes, threads left with their process's old maps,
	# JIT and vDSO maps of old kernels)
	for f in branch-4.14 callgraph-3.8 ctx_switch_namespaces-4.14 \
		 forkexit-3.8 hw_and_sw-3.4 i686-3.4 intel_pt-4.14 \
		 numatopology-3.2 piped.hw_and_sw-3.4 raw-3.4 \
		 singleprocess-3.8 systemwide.0-3.8 throttle-3.8 \
		 weight_struct; do
		same "report_corpus_$f --tasks" "$C/perf.data.$f" --tasks
		[ $f = weight_struct ] && continue # 479K lines
		same "report_corpus_$f --mmaps" "$C/perf.data.$f" --mmaps
	done
	for f in hw_and_sw-3.4 i686-3.4 singleprocess-3.8; do
		same "report_corpus_$f --header" "$C/perf.data.$f" --header
		same "report_corpus_$f --header-only" "$C/perf.data.$f" \
			--header-only
	done
	refused report_refuses_pipe_header \
		"$C/perf.data.piped.header_features_aligned-6.12" --header
	# branch mode by the header's BRANCH_STACK (report_branch_vs_perf:
	# the keys on files made here)
	for o in "" "-n" "-s dso_from,dso_to" "-s cycles" "-s mispredict" \
		 "-s dso,sym" "--no-branch-stack"; do
		# shellcheck disable=SC2086
		same "report_corpus_branch-4.14${o:+ $o}" \
			"$C/perf.data.branch-4.14" $o
	done
	refused report_refuses_branch_nobranch "$T/fp.data" -b
	# an Intel PT file with cycles samples: perf's default --itrace
	# (instructions every 100 us, psb/cbr, g, and G: the cycles samples'
	# call chains from the decoded flow)
	same report_corpus_intel_pt-4.14 "$C/perf.data.intel_pt-4.14"
	refused report_refuses_aux_stats "$C/perf.data.intel_pt-4.14" --stats
	# pipes: perf names the events from their attrs here
	for f in piped.hw_and_sw-3.4 piped.header_features_aligned-6.12; do
		same "report_corpus_$f --stats" "$C/perf.data.$f" --stats
	done
	refused report_refuses_aux_pipe_stats \
		"$C/perf.data.piped.intel_pt-4.14" --stats
fi
t_exit
