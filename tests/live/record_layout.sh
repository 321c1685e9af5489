# perf record 6.1's file layout against perfkit record's in the modes the
# header test (record_hdr_vs_perf.sh) leaves out: tests/lib/pdlayout.py's
# lines (the header features, ID_INDEX, the kernel MMAP, EVENT_UPDATE with
# its payload, THREAD_MAP, CPU_MAP, FINISHED_INIT) equal, in files and
# pipes, for:
# - the default event (cycles falling back to cpu-clock keeps no unit:
#   no EVENT_UPDATE), software// (a clock by PMU syntax without terms:
#   msec), software/config=0/ (terms: none), -a, -p, --per-thread, -g,
#   a tracepoint with -a -g, -k, -z (the records up to FINISHED_INIT stay
#   plain, no BUILD_ID; a pipe carries HEADER_COMPRESSED: perf reads it);
#   but for -a the order of all records up to FINISHED_INIT too (the
#   tasks, and the command's COMM last with -p);
# - a made-up PMU bound over the devices directory (software's type, an
#   alias clk with clk.unit and clk.scale, a cpumask of CPU 0): the unit,
#   scale and cpus updates, the event on its PMU's CPU (with a command,
#   -a, --per-thread), -C 1 (perf's CPU_MAP merges the cpumask: 0-1), the
#   alias by bare name, terms without the alias; perfkit report -D and
#   script -D print the updates as perf does; a "cpu" PMU's caps in
#   CPU_PMU_CAPS (a count of 0 without caps/);
# - BPF programs loaded while both record (bpf_cases below).
# BUILD_ID's presence is left out but for -z (it follows the samples).
# pk-test: slow lock=bpf
. tests/lib/sh.sh
N=record_layout
need_cmd $N perf "perf is not installed"
need_built $N "$PERFKIT"
SRC=$PWD; PK=$PWD/$PERFKIT
cd "$T_TMP" || exit 1
export LC_ALL=C PERF_PAGER=cat
. "$SRC/tests/lib/pdlayout.sh"
sleep 300 & SP=$!	# ended at exit; 30 s ran out under load
t_bg $SP
PDL_NOBID=1
for _m in file pipe; do
	PDL_ORDER=1
	pdl_rec default-$_m $_m -- true
	pdl_rec sw-noterms-$_m $_m -e software// -- true
	pdl_rec sw-terms-$_m $_m -e software/config=0/ -- true
	pdl_rec p-$_m $_m -e cpu-clock -p $SP -- sleep 0.1
	pdl_rec per-thread-ns-$_m $_m -e cpu-clock --per-thread --namespaces \
		-p $SP -- sleep 0.1
	pdl_rec g-$_m $_m -g -e cpu-clock,task-clock -- true
	PDL_ORDER=	# the processes of -a come and go
	pdl_rec a-$_m $_m -a -e cpu-clock -- sleep 0.1
	pdl_rec tp-g-a-$_m $_m -g -a -e sched:sched_switch -- sleep 0.1
	pdl_rec k-$_m $_m -k mono -e cpu-clock -- true
done
check $N:default-no-update "perfkit wrote EVENT_UPDATEs for cycles' fallback" \
	"$(grep -c '^rec 78' default-file.pk.lay)" = 0
PDL_NOBID=
pdl_rec z-file file -z -e cpu-clock -- true &&
	check $N:z-no-build-id "a BUILD_ID feature with -z" \
		"$(grep -c '^feat 2 ' z-file.pk.lay)" = 0
if pdl_rec z-pipe pipe -z -e cpu-clock -- true; then
	perf report -i z-pipe.pk.data --stdio -q -F overhead 2> z.err > z.rep
	check $N:z-pipe-perf-reads "$(head -2 z.err | tr '\n' '|')" \
		"$(grep -c % z.rep)" -ge 1
fi

# BPF programs (tests/live/bpf_load.c, root): one named, one of two
# functions with BTF loaded while both record: their KSYMBOLs and
# BPF_EVENTs after CPU_MAP, BPF_PROG_INFO and BPF_BTF byte for byte (the
# arrays' padding aside: perf's is malloc's), none in a pipe's features,
# KSYMBOLs and BTF but no BPF_EVENT nor info with --no-bpf-event; -D and
# the header lines as perf prints them; programs loaded meanwhile (the
# command's, another's under -a) reach BPF_PROG_INFO. The loaders end
# with the test, their parent or 60 s, whichever comes first.
bpf_cases() {
	cc -O1 -o bpfl "$SRC/tests/live/bpf_load.c" 2>/dev/null ||
		{ skip $N:bpf "cannot build tests/live/bpf_load.c"; return; }
	[ "$(id -u)" -eq 0 ] && ./bpfl -t 1 > /dev/null 2>&1 ||
		{ skip $N:bpf "cannot load a BPF program (root, bpf(2))"; return; }
	./bpfl -n pkone -t 60 > bpf1.id & B1=$!
	./bpfl -b -s -t 60 > bpf2.id & B2=$!
	t_bg $B1; t_bg $B2
	sleep 0.3
	PDL_ORDER=1
	pdl_rec bpf-file file -e cpu-clock -- true
	pdl_rec bpf-pipe pipe -e cpu-clock -- true
	pdl_rec bpf-no-event file --no-bpf-event -e cpu-clock -- true
	PDL_ORDER=
	pdl_rec bpf-a file -a -e cpu-clock -- sleep 0.1
	kill $B1 $B2; wait $B1 $B2 2> /dev/null
	check $N:bpf-records "$(grep -c '^rec 1[78] ' bpf-file.pk.lay) records" \
		"$(grep -c -e '^rec 17 .* bpf_prog_[0-9a-f]*_pkone ' \
			-e '^rec 17 .*_pk_main ' -e '^rec 17 .*_pk_sub ' \
			-e '^rec 18 ' bpf-file.pk.lay)" -ge 5
	check $N:bpf-no-event-info "$(grep '^feat 25\|^rec 18' bpf-no-event.pk.lay | cut -c1-40)" \
		"$(grep -c '^rec 18' bpf-no-event.pk.lay)$(grep '^feat 25' bpf-no-event.pk.lay)" = "0feat 25 4 00000000"
	for _c in report script; do
		perf $_c -D -i bpf-file.perf.data 2>/dev/null |
			grep -A1 -e KSYMBOL -e BPF_EVENT > $_c.bpf.perf
		"$PK" $_c -D -i bpf-file.perf.data 2>/dev/null |
			grep -A1 -e KSYMBOL -e BPF_EVENT > $_c.bpf.pk
		check $N:bpf-$_c-D "$(diff $_c.bpf.perf $_c.bpf.pk | grep '^[<>]' | head -3 | tr '\n' '|')" \
			"$(cmp -s $_c.bpf.perf $_c.bpf.pk && grep -c 'PERF_RECORD_BPF_EVENT' $_c.bpf.pk)" -ge 2
	done
	for _f in bpf-file.perf bpf-file.pk; do
		perf report --header-only -I -i $_f.data 2>&1 | grep -e bpf_prog_info \
			-e sub_prog -e 'btf info' > $_f.hdr.perf
		"$PK" report --header-only -I -i $_f.data 2>&1 | grep -e bpf_prog_info \
			-e sub_prog -e 'btf info' > $_f.hdr.pk
		check $N:bpf-header-${_f#*.} "$(diff $_f.hdr.perf $_f.hdr.pk | grep '^[<>]' | head -3 | tr '\n' '|')" \
			"$(cmp -s $_f.hdr.perf $_f.hdr.pk && grep -c -e '_pkone addr' -e 'sub_prog 1: .*_pk_sub' $_f.hdr.pk)" = 2
	done
	# loaded while recording: each recorder's own program, so the ids and
	# addresses differ; the entries' count and sizes are equal
	for _t in perf pk; do
		pdl_one $_t bpf-live file -e cpu-clock -- ./bpfl -b -n pklive -t 1 \
			> /dev/null 2> bpf-live.$_t.err
		(sleep 0.3; exec ./bpfl -s -n pkla -t 1 > /dev/null) & _b=$!
		pdl_one $_t bpf-live-a file -a -e cpu-clock -- sleep 1.5 \
			> /dev/null 2> bpf-live-a.$_t.err
		wait $_b
		for _n in bpf-live bpf-live-a; do
			pdl_lay $_n.$_t.data | sed -n 's/^\(feat 2[56] [0-9]*\) \(........\).*/\1 \2/p' \
				> $_n.$_t.lay
		done
	done
	for _n in bpf-live bpf-live-a; do
		check $N:$_n "$(diff $_n.perf.lay $_n.pk.lay | grep '^[<>]' | tr '\n' '|')" \
			"$(cmp -s $_n.perf.lay $_n.pk.lay && grep -c '^feat 25 [0-9]* 01000000' $_n.pk.lay)" = 1
	done
}
PDL_NOBID=1
bpf_cases
PDL_NOBID=

# the made-up PMU: cpu-clock under another name, with a unit, a scale
# and CPU 0 for its cpumask
if ! pdl_fake_dev "$T_TMP/fk"; then
	skip $N:fake-pmu "a private mount namespace needs root, unshare and bind mounts"
	t_exit; exit
fi
F=$PDL_DEV/fakesw
mkdir -p $F/events $F/format
echo 1 > $F/type; echo config:0-63 > $F/format/config
echo config=0 > $F/events/clk; echo Kelvin > $F/events/clk.unit
echo 0.5 > $F/events/clk.scale; echo 0 > $F/cpumask
PIN="taskset -c 0"
command -v taskset > /dev/null || PIN=
for _m in file pipe; do
	pdl_rec fake-$_m $_m -e fakesw/clk/ -- $PIN true
	pdl_rec fake-bare-$_m $_m -e clk,task-clock -- $PIN true
	pdl_rec fake-a-$_m $_m -a -e fakesw/clk/ -- sleep 0.1
done
pdl_rec fake-terms file -e fakesw/config=0/ -- $PIN true
pdl_rec fake-noterms file -e fakesw// -- $PIN true
pdl_rec fake-per-thread file --per-thread -e fakesw/clk/ -- $PIN true
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	pdl_rec fake-C1 file -C 1 -e fakesw/clk/ -- true
else
	skip $N:fake-C1 "one CPU"
fi
# the updates perfkit wrote: unit, scale, cpus {0}; the event on CPU 0 only
check $N:fake-updates "$(grep '^rec 78' fake-file.pk.lay | tr '\n' '|')" \
	"$(grep -c -e '^rec 78 48 0 4b656c76696e00' -e '^rec 78 48 1 000000000000e03f' \
		-e '^rec 78 32 3 0200000000000000' fake-file.pk.lay)" = 3
# report -D / script -D: perfkit prints perf's file's updates as perf does
for _c in report script; do
	perf $_c -D -i fake-file.perf.data 2>/dev/null | grep -A3 EVENT_UPDATE > $_c.perf
	"$PK" $_c -D -i fake-file.perf.data 2>/dev/null | grep -A3 EVENT_UPDATE > $_c.pk
	check $N:fake-$_c-D "$(diff $_c.perf $_c.pk | grep '^[<>]' | head -3 | tr '\n' '|')" \
		"$(cmp -s $_c.perf $_c.pk && grep -c -e 'unit:  Kelvin' -e 'scale: 0.500000' $_c.pk)" = 2
done
# a "cpu" PMU: its caps go to CPU_PMU_CAPS (perf's own feature), none
# to PMU_CAPS; without caps/ the feature holds a count of 0
C=$PDL_DEV/cpu
mkdir -p $C/caps $C/format
echo 4 > $C/type; echo config:0-7 > $C/format/event
echo 0 > $C/caps/max_precise; echo 16 > $C/caps/branches
pdl_rec cpu-caps-file file -e cpu-clock -- $PIN true
pdl_rec cpu-caps-pipe pipe -e cpu-clock -- $PIN true
perf report --header-only -I -i cpu-caps-file.pk.data > cpu.I 2>&1
check $N:cpu-caps-I "$(grep 'cpu pmu' cpu.I | head -1)" \
	"$(grep -c '^# cpu pmu capabilities: branches=16, max_precise=0' cpu.I)" = 1
rm -r $C/caps
pdl_rec cpu-nocaps file -e cpu-clock -- $PIN true
check $N:cpu-nocaps-count "$(grep '^feat 28' cpu-nocaps.pk.lay)" \
	"$(grep -c '^feat 28 4 00000000$' cpu-nocaps.pk.lay)" = 1
t_exit
