#!/bin/sh
# perfkit ftrace restore against trace-cmd 3.1's restore on the same
# inputs: a fixture tracefs tree (tests/lib/fttree.sh: this kernel's
# formats, fixed cmdlines, printk formats and clock; trace-cmd sees it
# bound over /sys/kernel/tracing in a private mount namespace), a fixed
# kallsyms file, and per-CPU files as a crashed trace-cmd record leaves
# them (trace.dat.cpuN: raw pages, here read from trace_pipe_raw of a
# private instance). -c: the partial files are equal byte for byte;
# -i PARTIAL and the CPU files: the metadata sections are equal byte for
# byte, each CPU's data is its file, the options are trace-cmd's (one
# options section where trace-cmd chains three) and the four reports
# (both programs on both files) are equal. Neither writes to the tree.
# pk-test: check
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export PERFKIT_RUNDIR=$T_TMP/run
. tests/lib/fttree.sh
ft_need_pages ftrace_restore 3
: > $T_TMP/empty
printf 'ffffffff81000000 T _stext\nffffffff81001000 T schedule\n' > $T_TMP/ks

# the tree: formats of three systems (the order trace-cmd saves them in
# is checked by the byte comparison), fixed text files, the global clock
build() {
	ft_root $1; echo 0 > $1.sys/kptr_restrict
	ft_formats $1 sched_switch sched_wakeup sched_process_exit
	for e in ftrace/print ftrace/bprint timer/timer_start timer/hrtimer_start; do
		[ -r $TF/events/$e/format ] || continue
		mkdir -p $1/events/$e; cp $TF/events/$e/format $1/events/$e/
	done
	ft_p $1 trace_clock 'local [global] counter\n'
	ft_p $1 saved_cmdlines '1 systemd\n42 pkworker\n'
	ft_p $1 printk_formats '0xffffffff82000000 : "hello %d\\n"\n'
	ft_p $1 tracing_on '1\n'
}
build $T_TMP/a; build $T_TMP/b
mkdir -p $T_TMP/ca $T_TMP/cb
PERFKIT=$(realpath "$PERFKIT")
# tc DIR ARGS / pk DIR ARGS: restore in DIR (tree a / tree b)
tc() { _d=$1; shift; (cd $_d && ft_tc $T_TMP/a $T_TMP/a restore "$@"); }
pk() { _d=$1; shift; (cd $_d && ft_pk $T_TMP/b $T_TMP/b restore "$@"); }
# reports of A and B by both programs; all equal: "same"
reports() {
	trace-cmd report -i $1 > $T_TMP/ta 2>&1; _r1=$?
	trace-cmd report -i $2 > $T_TMP/tb 2>&1; _r2=$?
	"$PERFKIT" ftrace report -i $1 > $T_TMP/pa 2>&1; _r3=$?
	"$PERFKIT" ftrace report -i $2 > $T_TMP/pb 2>&1; _r4=$?
	if [ "$_r1$_r2$_r3$_r4" = 0000 ] && cmp -s $T_TMP/ta $T_TMP/tb && cmp -s $T_TMP/ta $T_TMP/pa &&
	   cmp -s $T_TMP/ta $T_TMP/pb; then echo same; else
		echo "rc=$_r1$_r2$_r3$_r4 $(diff $T_TMP/ta $T_TMP/pb | head -3 | tr '\n' '|')"; fi
}
# options FILE: its options (ids, CPU lines, clock), DONE left out
options() {
	trace-cmd dump --options $1 2>&1 | awk '/\[Option DONE/ { next }
		/\[Option / { sub(/\].*/, "]"); print } /\[id, data offset/ || /\[clock\]/ || /\[name\]/'
}
# cpus_are FILE F0 F1: FILE's CPU data (per its BUFFER option, where
# CPUs without data are left out) are F0, F1
cpus_are() {
	trace-cmd dump --options $1 2>/dev/null | awk '/\[id, data offset and size\]/ { print $1, $2, $3 }' > $T_TMP/cpus
	_n=0; for _f in $2 $3; do [ ! -s $_f ] || _n=$((_n + 1)); done
	[ "$(wc -l < $T_TMP/cpus)" -eq $_n ] || return 1
	while read -r id off size; do
		eval "_f=\$$((id + 2))"
		[ "$size" -eq "$(wc -c < $_f)" ] || return 1
		[ "$size" -eq 0 ] || tail -c +$((off + 1)) $1 | head -c $size | cmp -s - $_f || return 1
	done < $T_TMP/cpus
}
# same A B: "same" when files A and B are equal
same() { cmp -s $1 $2 && echo same; }
# same_meta A B END: the first END bytes of A and B are equal but for the
# options offset (bytes 24-31): "same"
same_meta() {
	[ -n "$3" ] && cmp -s -n 24 $1 $2 && cmp -s -n $(($3 - 32)) -i 32 $1 $2 && echo same
}
# meta_end PARTIAL: where its options section starts (the metadata before)
meta_end() { trace-cmd dump --options $1 2>/dev/null | sed -n 's/.*\[Section 0 @ \([0-9]*\):.*/\1/p' | head -1; }

# -c: partial files, with -t/-k, then the defaults (this tree as tracefs,
# trace-partial.dat in the working directory), equal byte for byte
tc $T_TMP/ca -c -t $T_TMP/a -k $T_TMP/ks -o $T_TMP/a.part; rc1=$?
pk $T_TMP/cb -c -t $T_TMP/b -k $T_TMP/ks -o $T_TMP/b.part; rc2=$?
r=$(reports $T_TMP/a.part $T_TMP/b.part)
check ftrace_restore_partial "rc=$rc1/$rc2 $r $(cmp $T_TMP/a.part $T_TMP/b.part 2>&1) $(head -2 $T_TMP/b.out)" \
	$rc1$rc2 = 00 -a -s $T_TMP/a.part -a "$r" = same -a "$(cat $T_TMP/ta)" = cpus=0 -a \
	! -s $T_TMP/a.w -a ! -s $T_TMP/b.w -a "$(same $T_TMP/a.part $T_TMP/b.part)" = same
# kallsyms: -k's file; the events of three systems in trace-cmd's order
ks=$(trace-cmd dump --kallsyms $T_TMP/b.part 2>/dev/null | grep -c 'T schedule')
evs=$(trace-cmd dump --events $T_TMP/b.part 2>/dev/null | sed -n 's/^name: //p' | tr '\n' ' ')
check ftrace_restore_partial_content "ks=$ks evs=$evs" $ks -eq 1 -a "${evs#*sched_wakeup sched_switch sched_process_exit}" != "$evs"
tc $T_TMP/ca -c -k $T_TMP/ks; rc1=$?
pk $T_TMP/cb -c -k $T_TMP/ks; rc2=$?
check ftrace_restore_partial_defaults "rc=$rc1/$rc2 $(cmp $T_TMP/ca/trace-partial.dat $T_TMP/cb/trace-partial.dat 2>&1) $(head -2 $T_TMP/b.out)" \
	$rc1$rc2 = 00 -a -s $T_TMP/ca/trace-partial.dat -a \
	"$(same $T_TMP/ca/trace-partial.dat $T_TMP/cb/trace-partial.dat)" = same

# -i PARTIAL and CPU files (the clock: the tree's top level), trace-cmd's
# partial file for both; NAME F0 F1
end=$(meta_end $T_TMP/a.part)
while read -r name f0 f1; do
	rm -f $T_TMP/a.dat $T_TMP/b.dat
	tc $T_TMP/ca -i $T_TMP/a.part -o $T_TMP/a.dat $f0 $f1; rc1=$?
	pk $T_TMP/cb -i $T_TMP/a.part -o $T_TMP/b.dat $f0 $f1; rc2=$?
	r=$(reports $T_TMP/a.dat $T_TMP/b.dat)
	options $T_TMP/a.dat > $T_TMP/oa; options $T_TMP/b.dat > $T_TMP/ob
	cpus_are $T_TMP/b.dat $f0 $f1; cb=$?
	cpus_are $T_TMP/a.dat $f0 $f1; ca=$?
	check "ftrace_restore_$name" "rc=$rc1/$rc2 $r cpus=$ca$cb end=$end $(cmp -i 32 $T_TMP/a.dat $T_TMP/b.dat 2>&1) $(diff $T_TMP/oa $T_TMP/ob | tr '\n' '|') $(head -2 $T_TMP/b.out)" \
		$rc1$rc2 = 00 -a "$r" = same -a "$ca$cb" = 00 -a "${end:-0}" -gt 4096 -a \
		"$(same_meta $T_TMP/a.dat $T_TMP/b.dat "$end")" = same -a -z "$(diff $T_TMP/oa $T_TMP/ob)" -a \
		-n "$(grep -x '"global" \[clock\]' $T_TMP/ob)" -a ! -s $T_TMP/a.w -a ! -s $T_TMP/b.w
done <<EOF
input $T_TMP/raw0 $T_TMP/raw1
input_empty_cpu $T_TMP/raw0 $T_TMP/empty
EOF
check ftrace_restore_input_events "$(grep -c sched_ $T_TMP/ta)" "$(grep -c sched_ $T_TMP/ta)" -gt 0

# without -i: this tree's metadata (trace-cmd leaves the command lines
# out and reads /proc/kallsyms: the reports are compared)
tc $T_TMP/ca -o $T_TMP/a.dat $T_TMP/raw0 $T_TMP/raw1; rc1=$?
pk $T_TMP/cb -o $T_TMP/b.dat $T_TMP/raw0 $T_TMP/raw1; rc2=$?
r=$(reports $T_TMP/a.dat $T_TMP/b.dat)
check ftrace_restore_tracefs "rc=$rc1/$rc2 $r $(head -2 $T_TMP/b.out)" $rc1$rc2 = 00 -a "$r" = same -a \
	"$(grep -c sched_ $T_TMP/ta)" -gt 0

# refused: one line, no output file made; exit 2 (usage) or 1
while IFS='|' read -r name want args; do
	eval "set -- $args"
	rm -f $T_TMP/cb/trace.dat $T_TMP/cb/trace-partial.dat $T_TMP/x.dat
	pk $T_TMP/cb "$@"; rc=$?
	check "ftrace_restore_bad_$name" "rc=$rc $(cat $T_TMP/b.out)" $rc -eq $want -a \
		"$(grep -c -e '^perfkit ftrace restore: ' -e '^restore: ' $T_TMP/b.out)" -eq 1 -a ! -e $T_TMP/x.dat -a \
		! -e $T_TMP/cb/trace.dat -a ! -e $T_TMP/cb/trace-partial.dat
done <<EOF
c_and_i|2|-c -i $T_TMP/a.part
i_and_c|2|-i $T_TMP/a.part -c
two_outputs|2|-o $T_TMP/x.dat -o $T_TMP/y.dat $T_TMP/raw0
two_inputs|2|-i $T_TMP/a.part -i $T_TMP/a.part $T_TMP/raw0
no_files|2|-i $T_TMP/a.part
same_file|1|-i $T_TMP/a.part -o $T_TMP/a.part $T_TMP/raw0
no_cpu_file|1|-i $T_TMP/a.part -o $T_TMP/x.dat $T_TMP/raw0 $T_TMP/nosuch
no_input|1|-i $T_TMP/nosuch -o $T_TMP/x.dat $T_TMP/raw0
bad_input|1|-i $T_TMP/ks -o $T_TMP/x.dat $T_TMP/raw0
bad_option|2|-Q
EOF
t_exit
