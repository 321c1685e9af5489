#!/bin/sh
# perfkit report --stdio against perf report --stdio (6.1), byte for byte
# (the tip line aside), with perf's options of session 17 (branch
# rpopts): the filters' names (-c/--comms, -d/--dsos, -S), --symbol-filter,
# -U, --socket-filter, -x; the output's shape (-q, -t, --show-cpu-
# utilization, --group-sort-idx); --switch-on/--switch-off; --kallsyms;
# the options that leave --stdio's report as it is (annotation, symbol
# sources, --ns, --pretty, ...); and the one-line refusals of bad
# arguments and of what perfkit does not match yet.
# pk-test: slow shards=3
. tests/lib/sh.sh
. tests/lib/report.sh
report_prereqs report_opts2_vs_perf

rec fp.data -e cpu-clock -F 2000 -g "$DEMO"
rec nocg.data -F 2000 "$DEMO"
rec cpu.data -e cpu-clock -F 2000 -g --sample-cpu "$DEMO"
rec tp.data -e sched:sched_switch -e syscalls:sys_enter_getppid -a -- "$DEMO"
rec grp.data -e '{cpu-clock,task-clock}' -F 1000 -g "$DEMO"
rec grpn.data -e '{cpu-clock,task-clock}' -F 1000 "$DEMO"

# the filters under perf's names and short forms
for o in "-c demo" "--comms demo" "-d libc.so.6" "--dsos libc.so.6" \
	 "-S main" "-d demo -c demo --no-children" "--dsos demo,libc.so.6 -g none"; do
	# shellcheck disable=SC2086
	same "report_opts2_names $o" "$T/fp.data" $o
done
# --symbol-filter: a part of the name; of the first event only
for o in "--symbol-filter=msort" "--symbol-filter=do_ --no-children" \
	 "--symbol-filter=nosuch" "--symbol-filter=_ -g caller" \
	 "--symbol-filter=do_ --percentage relative"; do
	# shellcheck disable=SC2086
	same "report_opts2_symfilter $o" "$T/fp.data" $o
done
same "report_opts2_symfilter_tp" "$T/tp.data" --symbol-filter=sched
same "report_opts2_symfilter_group" "$T/grp.data" --symbol-filter=do_
# --socket-filter: entries of other sockets hidden, a line in the header
for o in "--socket-filter 0" "--socket-filter 1" "--socket-filter -1" \
	 "--socket-filter 0 -s socket,sym --no-children" \
	 "--socket-filter 1 --percentage relative" \
	 "--symbol-filter=do_ --socket-filter 0 --percentage relative" \
	 "-x -p getppid --percentage relative --no-children"; do
	# shellcheck disable=SC2086
	same "report_opts2_socket $o" "$T/cpu.data" $o
done
same "report_opts2_socket_nocpu" "$T/nocg.data" --socket-filter 0
# -x: only entries with a parent (none without the parent key)
for o in "-x" "-x -p getppid" "-x -p getppid|main --no-children" \
	 "--exclude-other -s sym,parent -p do_"; do
	# shellcheck disable=SC2086
	same "report_opts2_exclude $o" "$T/fp.data" $o
done
same "report_opts2_exclude_nocg" "$T/nocg.data" -x
# -U: samples and frames of no symbol dropped (a stripped copy of the
# workload, without its build id: perf cannot find it in the cache)
if command -v strip >/dev/null 2>&1 && cp "$DEMO" "$T/demo-s" &&
   strip -R .note.gnu.build-id "$T/demo-s" 2>/dev/null; then
	rec strip.data -e cpu-clock -F 2000 -g "$T/demo-s"
	rec stripn.data -e cpu-clock -F 2000 "$T/demo-s"
	for o in "" "-U" "--hide-unresolved --no-children" "-U -g caller" \
		 "-U -s dso,sym" "-U -g none"; do
		# shellcheck disable=SC2086
		same "report_opts2_unresolved${o:+ $o}" "$T/strip.data" $o
	done
	same "report_opts2_unresolved_nocg" "$T/stripn.data" -U
else
	skip report_opts2_unresolved "no strip (binutils)"
fi

# -q: the entries alone
for o in "-q" "-q --no-children" "-q -s comm -c demo"; do
	# shellcheck disable=SC2086
	same "report_opts2_quiet $o" "$T/fp.data" $o
done
same "report_opts2_quiet_group" "$T/grp.data" --quiet -g none
# -t: separated columns, numbers unpadded then left-aligned
for o in "-t '|'" "-t ';'" "-t ',' --no-children -n --show-total-period" \
	 "-t '|' -s pid,cpu,sym,dso -g none" "-t ',' -F overhead,sample,comm,period" \
	 "-t ', ' --show-cpu-utilization" "--field-separator=: -s dso"; do
	# (eval: a separator with a space)
	eval "same \"report_opts2_sep \$o\" \"\$T/cpu.data\" $o"
done
same "report_opts2_sep_empty" "$T/nocg.data" -t ''
same "report_opts2_sep_group" "$T/grp.data" -t '|' --no-children -n
# --show-cpu-utilization: sys and usr after the overheads
for o in "--show-cpu-utilization" "--show-cpu-utilization --no-children -n" \
	 "--show-cpu-utilization -s dso"; do
	# shellcheck disable=SC2086
	same "report_opts2_cpu_util $o" "$T/fp.data" $o
done
same "report_opts2_cpu_util_group" "$T/grp.data" --show-cpu-utilization
# --group-sort-idx: a member's values alone, then the keys
for o in "--group-sort-idx 0" "--group-sort-idx 1" "--group-sort-idx 1 -g none" \
	 "--group-sort-idx 1 --no-children" "--group-sort-idx 5" \
	 "--group-sort-idx 1 -g caller"; do
	# shellcheck disable=SC2086
	same "report_opts2_group_sort $o" "$T/grp.data" $o
done
same "report_opts2_group_sort_nocg" "$T/grpn.data" --group-sort-idx 1

# --switch-on, --switch-off: the samples between the events' samples
for o in "--switch-on task-clock" "--switch-off task-clock" \
	 "--switch-on task-clock --switch-off cpu-clock" \
	 "--switch-on task-clock --switch-off cpu-clock --show-on-off-events" \
	 "--switch-off cpu-clock --show-on-off-events"; do
	# shellcheck disable=SC2086
	same "report_opts2_switch $o" "$T/grpn.data" $o
done
same "report_opts2_switch_tp" "$T/tp.data" --switch-on syscalls:sys_enter_getppid

# options that leave --stdio's report as it is here
for o in "--percent-type local-period" "--percent-type global-hits" "--ns" \
	 "--pretty raw" "--pretty normal" "--samples 5" "--time-quantum 10ms" \
	 "--time-quantum 5" "-f" "--force" "--disable-order" "--demangle" \
	 "--no-demangle" "--demangle-kernel" "--inline" "--no-inline" \
	 "--full-source-path" "--show-ref-call-graph" "--stitch-lbr" \
	 "--objdump=/bin/false" "--asm-raw" "-M intel" "--source" "--no-source" \
	 "--stdio-color never" "--stdio-color auto" "--ignore-vmlinux" "-m" \
	 "--symfs /" "--prefix /x --prefix-strip 1" "--show-on-off-events" \
	 "--skip-empty" "--total-cycles" "--raw-trace" \
	 "--kallsyms /proc/kallsyms"; do
	# shellcheck disable=SC2086
	same "report_opts2_same $o" "$T/fp.data" $o
done
same "report_opts2_raw_trace_nokey" "$T/tp.data" --raw-trace

if need_shared corpus/perf-data report_opts2_corpus; then
	for o in "-q" "-t |" "--show-cpu-utilization" "--group-sort-idx 1" \
		 "--symbol-filter=a" "-U"; do
		# shellcheck disable=SC2086
		same "report_opts2_corpus_group_desc $o" \
			"$C/perf.data.group_desc-4.14" $o
	done
	# branch mode: -U drops the samples whose own place has no symbol
	for o in "-U" "-q" "-t |"; do
		# shellcheck disable=SC2086
		same "report_opts2_corpus_branch $o" \
			"$C/perf.data.branch-4.14" $o
	done
	refused report_opts2_refuses_total_cycles_branch \
		"$C/perf.data.branch-4.14" --total-cycles
	for o in "-q" "-t ;" "-c swapper --no-children" "-U"; do
		# shellcheck disable=SC2086
		same "report_opts2_corpus_callgraph $o" \
			"$C/perf.data.callgraph-3.8" $o
	done
fi

refused report_opts2_refuses_sep_dot "$T/nocg.data" -t .
refused report_opts2_refuses_ptype "$T/nocg.data" --percent-type abc
refused report_opts2_refuses_quantum "$T/nocg.data" --time-quantum abc
refused report_opts2_refuses_quantum0 "$T/nocg.data" --time-quantum 0
refused report_opts2_refuses_samples "$T/nocg.data" --samples -1
refused report_opts2_refuses_socket "$T/nocg.data" --socket-filter abc
refused report_opts2_refuses_gsort "$T/nocg.data" --group-sort-idx -1
refused report_opts2_refuses_gsort_nogroup "$T/nocg.data" --group-sort-idx 1
refused report_opts2_refuses_switch "$T/nocg.data" --switch-on nosuch
refused report_opts2_refuses_switch_off "$T/nocg.data" --switch-off nosuch
refused report_opts2_refuses_kallsyms "$T/nocg.data" --kallsyms /nonexistent
refused report_opts2_refuses_vmlinux "$T/nocg.data" --vmlinux /nonexistent
refused report_opts2_refuses_prefix_strip "$T/nocg.data" --prefix-strip 1
refused report_opts2_refuses_raw_trace "$T/tp.data" -s trace --raw-trace
refused report_opts2_refuses_color "$T/nocg.data" --stdio-color always
refused report_opts2_refuses_hierarchy "$T/nocg.data" --hierarchy
refused report_opts2_refuses_widths "$T/nocg.data" -w 5,5
refused report_opts2_refuses_verbose "$T/nocg.data" -v
refused report_opts2_refuses_callees "$T/fp.data" --ignore-callees main
refused report_opts2_refuses_branch_history "$T/fp.data" --branch-history
t_exit
