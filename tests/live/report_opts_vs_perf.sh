#!/bin/sh
# perfkit report --stdio's sort keys beyond comm/pid/dso/sym, -F, -p,
# --cpu, --time, -T, filters with --children and event groups against
# perf report --stdio (6.1), byte for byte (the tip line aside), on
# recordings made here and corpus files (weights, a group, kernel
# modules); and the
# one-line refusals of what perfkit does not match yet.
# pk-test: slow shards=3
. tests/lib/sh.sh
. tests/lib/report.sh
report_prereqs report_opts_vs_perf

rec fp.data -e cpu-clock -F 2000 -g "$DEMO"
rec nocg.data -F 2000 "$DEMO"
# samples with a CPU: tracepoints of the whole system
rec tp.data -e sched:sched_switch -e syscalls:sys_enter_getppid -a -- "$DEMO"
rec cpu.data -e cpu-clock -F 2000 -g --sample-cpu "$DEMO"
# one-sample entries: perf sizes the trace column without the texts of
# those no other entry matches on the keys before "trace" (and cuts them)
rec exec.data -e sched:sched_process_exec -- \
	sh -c '/bin/true; /usr/bin/env true; /bin/true'
rec grp.data -e '{cpu-clock,task-clock}' -F 1000 "$DEMO"
rec grpg.data -e '{cpu-clock,task-clock}' -F 1000 -g "$DEMO"
rec dwarf.data -e cpu-clock -F 200 --call-graph dwarf,4096 "$DEMO"

# sort keys
for o in "-s cpu" "-s socket" "-s period" "-s weight" "-s local_weight" \
	 "-s comm,cpu" "-s cpu,period" "-s weight,local_weight,period" \
	 "-s parent" "-s parent,sym -g none" "-s sym,parent --no-children" \
	 "-p getppid" "-p getppid -g none" "-s comm -p getppid --no-children" \
	 "-s parent,sym -p getppid|main --no-children -g none" \
	 "-p getppid -g caller --no-children" "-s sym,symbol_size" \
	 "-s symbol_size,sym" "-s comm,symbol_size,dso,sym" \
	 "--no-children -s symbol_size,sym" "-s dso,sym,symbol_size -g caller" \
	 "-s symbol" "-s dso,symbol --no-children" \
	 "-s comm,symbol -F overhead,comm,sym"; do
	# shellcheck disable=SC2086
	same "report_opts_fp $o" "$T/fp.data" $o
done
for o in "-s cpu" "-s socket" "-s cpu,comm" "-s socket,cpu,sym" \
	 "-s cpu --no-children" "-s cpu,period -n"; do
	# shellcheck disable=SC2086
	same "report_opts_cpu $o" "$T/cpu.data" $o
done
for o in "-s trace" "-s trace,comm" "-s comm,trace" "-s cpu,comm" \
	 "-s socket" "--cpu 0" "--cpu 1 -s comm,cpu" \
	 "-C 0-1 -s cpu" "-T -s comm"; do
	# shellcheck disable=SC2086
	same "report_opts_tp $o" "$T/tp.data" $o
done
for o in "-s trace" "-s comm,trace" "-s trace,comm" "-s pid,trace" \
	 "-s pid" "-s comm,pid,trace"; do
	# shellcheck disable=SC2086
	same "report_opts_exec $o" "$T/exec.data" $o
done
# srcline where DWARF has no line: binutils' file from the symbol table
# (crtstuff.c:0 for its locals), else the symbol and offset (_start, the
# PLT); one sample at each (tests/lib/symprobe.py)
_a=$(nm "$DEMO" | awk '$3 == "_start" || $3 == "deregister_tm_clones" ||
	$3 == "__do_global_dtors_aux" || $3 == "cmp" || $3 == "main" { print $1 }')
_plt=$(readelf -SW "$DEMO" | awk '$2 == ".plt" { print $4 }')
if t_python tests/lib/symprobe.py "$T/probe.data" "$DEMO" $_a \
	"$(printf '%x' $((0x$_plt + 16)))"; then
	for o in "-s srcline,sym" "-s srcfile" "-s srcline"; do
		# shellcheck disable=SC2086
		same "report_opts_probe $o" "$T/probe.data" $o
	done
else
	fail report_opts_probe "no probe file ($_a $_plt)"
fi
# srcline and srcfile: the demo's own lines (perf names glibc's inlined
# lines another way)
for o in "-s srcline --dso demo" "-s srcfile --dso demo" \
	 "-s srcline,sym --dso demo" "-s srcfile,comm --dso demo" \
	 "-s cpu" "-s period" "-s weight,period" "-T"; do
	# shellcheck disable=SC2086
	same "report_opts_nocg $o" "$T/nocg.data" $o
done
# --children: the frames' entries take perf's srcline of a frame (its
# absolute address looked up as the DSO's: the symbol and that address
# less the symbol's start), srcfile ""
for o in "-s srcline --dso demo" "-s srcline,sym --dso demo -g none" \
	 "-s srcfile --dso demo" "-s dso,srcline --dso demo -g caller" \
	 "-s srcline --dso demo -g fractal"; do
	# shellcheck disable=SC2086
	same "report_opts_srcline_children $o" "$T/fp.data" $o
done

# filters with --children: an entry keeps the verdict of the sample that
# made it; relative percentages of the self periods let by
for o in "--comm demo" "--dso libc.so.6" "--symbols main" "--dso demo" \
	 "--dso demo --percentage relative" "--symbols cmp,main -g none" \
	 "--dso libc.so.6 -g caller" "--dso demo,libc.so.6 --percentage relative" \
	 "--comm demo --dso libc.so.6 -g fractal" "--pid 1"; do
	# shellcheck disable=SC2086
	same "report_opts_filter_children $o" "$T/fp.data" $o
done

# -F, with and without -s, and with callchains
for o in "-F overhead,sym" "-F sym,overhead" "-F overhead,sample,period,comm" \
	 "-F overhead_sys,overhead_us,sym" "-F overhead,sym -s dso" \
	 "-F overhead,comm -s sym" "-F comm,dso" \
	 "-F overhead_children,overhead,sym" "-F overhead,sym --no-children" \
	 "-F overhead,cpu,sym" "-F overhead,sym -s sym" \
	 "-F overhead,sym -g caller" "-F overhead,sym -g folded" \
	 "-F overhead,sym -g none" "-F overhead_children,sym,overhead -s sym,dso"; do
	# shellcheck disable=SC2086
	same "report_opts_fields_fp $o" "$T/fp.data" $o
done
for o in "-F overhead,sym" "-F overhead_children,overhead,sym" \
	 "-F sample,overhead,comm,dso" "-F overhead_sys,overhead_us,sym"; do
	# shellcheck disable=SC2086
	same "report_opts_fields_nocg $o" "$T/nocg.data" $o
done
same "report_opts_fields_tp -F overhead,comm -s dso" "$T/tp.data" \
	-F overhead,comm -s dso

# event groups: one table (a column per member), or apart with --no-group
for o in "" "-s comm" "--no-children" "--no-children -n -s dso" "--no-group" \
	 "--no-children --show-total-period -s sym" "-F overhead,sym" \
	 "-F sym,overhead_children,sample" "--dso libc.so.6" "-g none" \
	 "--percentage relative --dso demo --no-children" \
	 "--dso libc.so.6 --percent-limit 5"; do
	# shellcheck disable=SC2086
	same "report_opts_group $o" "$T/grpg.data" $o
done
for o in "" "--no-group -s comm" "--no-children -g none"; do
	# shellcheck disable=SC2086
	same "report_opts_group_nocg $o" "$T/grp.data" $o
done

# --time: percentages of the first to last sample, and seconds from the
# header's first sample time
for t in "10%/2" "0%-10%" "0%-10%,50%-60%" "10%/1,10%/3" "25%/4" "0%-100%"; do
	same "report_opts_time $t" "$T/fp.data" --time "$t"
	same "report_opts_time $t --no-children" "$T/nocg.data" --no-children \
		--time "$t"
done
first=$(perf report --header-only -i "$T/nocg.data" 2>/dev/null |
	sed -n 's/^# time of first sample : \([0-9]*\)\..*/\1/p')
if [ -n "$first" ]; then
	for t in "$first.5,$((first + 1))" "$((first + 1))," ",$((first + 1)).5" \
		 "$first.5,$((first + 1)) $((first + 1)).5,$((first + 2))" \
		 "$((first + 100)),$((first + 101))"; do
		same "report_opts_time_secs" "$T/nocg.data" --time "$t"
	done
fi

if need_shared corpus/perf-data report_opts_corpus; then
	for o in "-s weight" "-s local_weight" "-s sym,weight" \
		 "-s weight,local_weight,period" "-s socket" "-s cpu"; do
		# shellcheck disable=SC2086
		same "report_opts_weight_struct $o" \
			"$C/perf.data.weight_struct" $o
	done
	for o in "" "--no-children" "--no-group"; do
		# shellcheck disable=SC2086
		same "report_opts_corpus_group_desc $o" \
			"$C/perf.data.group_desc-4.14" $o
	done
	# kernel modules: "[name]", addresses from the module's start; sym
	# without dso: unresolved addresses one entry across DSOs
	for f in callgraph-3.8 throttle-3.8 forkexit-3.8; do
		for o in "" "--no-children" "-g none" "--no-children -s dso -g none" \
			 "--no-children -s dso,sym -g none" "-g caller" \
			 "--no-children -g folded" "-s sym -g none" \
			 "--no-children -s comm,sym -g none"; do
			# shellcheck disable=SC2086
			same "report_opts_corpus_modules_$f${o:+ $o}" \
				"$C/perf.data.$f" $o
		done
	done
fi

refused report_opts_refuses_parent_nocg "$T/nocg.data" -s parent
refused report_opts_refuses_srcline_dwarf "$T/dwarf.data" -s srcline
refused report_opts_refuses_cpu_nocpu "$T/nocg.data" --cpu 0
refused report_opts_refuses_cpu_range "$T/tp.data" --cpu 0-4095
refused report_opts_refuses_time "$T/nocg.data" --time abc
refused report_opts_refuses_time_order "$T/nocg.data" --time 20,10
refused report_opts_refuses_field "$T/fp.data" -F overhead,nosuch
refused report_opts_refuses_sym_twice "$T/fp.data" -s sym,symbol
refused report_opts_refuses_symbol_size_alone "$T/fp.data" -s symbol_size
t_exit
