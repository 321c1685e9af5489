# TSC-timed Intel PT on the fixture PMU (tests/lib/ptfake.sh): the shim's
# PK_FAKE_PT_TSC gives the faked event's ring page the time conversion of
# a machine with a stable TSC (cap_user_time_zero, a 100 MHz TSC: perf
# 6.1 divides by zero below 50 MHz), its time_zero putting the trace's
# first TSC 1 s after the ring is mapped, so that ptgen's TSC
# packets (at each PSB+ and before each TIP.PGE) fall among the side
# band. The workload is two busy shells pinned to CPU 0, so that the
# trace's 37 ms on CPU 0 switch between them (and other tasks). Then:
# - the layout (perf report -D): TIME_CONV first, as perf writes it
#   (perf_event__synth_time_conv), the same shift and multiplier, and
#   AUXTRACE_INFO's Cap Time Zero 1, in both recorders' files;
# - perf script and perfkit script byte for byte on both files, with
#   perf script's default fields (the time shown) for --itrace=i1i, b, e,
#   cr, i10usi and i100ns (time periods), ibxwpe, qe: with context switch
#   records (SWITCH_CPU_WIDE), and without them (the shim's
#   PK_FAKE_NO_SWITCH: sched:sched_switch on every CPU, have_sched_switch
#   1), per CPU for the workload and with -a;
# - that the decoding is timed (a time on every line) and names two tasks;
# - timed sample mode: tests/live/pt_mksample.c makes a sample-mode file
#   of the first timed recording (windows of 16000 bytes every 700 or
#   more, each sample timed after its window's last TSC): perf queues the
#   samples' AUX data ahead and decodes by time with the CPU's task, as
#   perfkit now does; compared as above but ibxwpe (a PSB offset after a
#   window that cut a PSB differs by its 16 bytes).
# pk-test: slow
. tests/lib/sh.sh
. tests/lib/ptfake.sh
N=record_pt_timed
ptfake_need $N
need_cmd $N taskset "taskset is not installed"
BLD=$(cd "$PK_BUILD" 2>/dev/null && pwd)
ptfake_setup $N
export PK_FAKE_PT_TSC=10240:10
# (the background shell goes with the foreground one: a recorder that
# stops the workload with SIGTERM leaves no spinning shell behind)
WAIT='s() { i=0; while [ ! -e DONE ] && [ $i -lt 3000000 ]; do i=$((i+1)); done; }; s & b=$!; trap "kill $b 2>/dev/null; exit 143" TERM; s; wait'
PIN="taskset -c 0" MID=
# both CASE OPTS: both recorders into CASE.perf.data and CASE.pk.data
both() {
	_c=$1; shift
	for _t in perf pk; do
		if ! ptfake_rec $_t $_c.$_t.data "$@" > $_c.$_t.log 2>&1 || [ ! -s $_c.$_t.data ]; then
			fail $N:$_c:$_t-record "$(tail -3 $_c.$_t.log | tr '\n' '|')"
			return 1
		fi
	done
}
# layout FILE: the record types ahead of the data, tasks and AUX data
# left out, and TIME_CONV's fields but its time zero (each recording's)
layout() {
	perf report -D -i "$1" 2>/dev/null | awk '/PERF_RECORD_FINISHED_ROUND/ { exit }
		/^[0-9 ]*(0x[0-9a-f]+ )?\[0x[0-9a-f]+\]: PERF_RECORD/ { sub(/^[^:]*: /, ""); print $1 }
		/^\.\.\. (Time|Cap)/ && !/Time Zero/' |
	grep -v 'PERF_RECORD_\(FORK\|COMM\|MMAP2\|AUXTRACE$\|AUX$\|ITRACE_START\|SAMPLE\)'
}
info() { perf script -D -i "$1" 2>/dev/null | grep '^  Cap Time Zero'; }
# decode CASE FILE [OPTS]: both decoders of FILE, byte for byte
decode() {
	for _o in ${3:-i1i b e cr i10usi i100ns ibxwpe qe}; do
		perf script -i "$2" --itrace=$_o > p.out 2>/dev/null
		"$PK" script -i "$2" --itrace=$_o > k.out 2>/dev/null
		# (errors, e and qe: there may be none)
		# (a difference: the file kept in /tmp)
		cmp -s p.out k.out || cp "$2" "/tmp/$N.$1.data" 2>/dev/null
		check "$N:$1:itrace=$_o" "$(first_diff p.out k.out) (kept: /tmp/$N.$1.data)" \
			"$(case $_o in e|qe) echo y;; *) [ -s p.out ] && echo y;; esac)" = y \
			-a "$(cmp -s p.out k.out && echo y)" = y
		[ $_o = i10usi ] && cp p.out "$1.i10usi"
	done
	# timed: every sample line has a time; the trace is two tasks' or more
	check "$N:$1:timed" "lines without a time: $(grep -vc ' [0-9]*\.[0-9]\{6\}: ' "$1.i10usi")" \
		"$(grep -vc ' [0-9]*\.[0-9]\{6\}: ' "$1.i10usi")" = 0
	check "$N:$1:tasks" "the decoding names $(awk '{ print $2 }' "$1.i10usi" | sort -u | wc -l) task(s)" \
		"$(awk '{ print $2 }' "$1.i10usi" | sort -u | wc -l)" -ge 2
}
if both sw -e intel_pt//u -m ,16; then
	layout sw.perf.data > sw.perf.lay; layout sw.pk.data > sw.pk.lay
	check $N:sw:layout "differs from perf's: $(diff sw.perf.lay sw.pk.lay | head -6 | tr '\n' '|')" \
		"$(cmp -s sw.perf.lay sw.pk.lay && echo y)" = y
	check $N:sw:time-conv "perf wrote no TIME_CONV first: $(head -2 sw.perf.lay | tr '\n' '|')" \
		"$(head -1 sw.perf.lay)" = PERF_RECORD_TIME_CONV
	check $N:sw:auxtrace-info "$(info sw.perf.data) / $(info sw.pk.data)" \
		"$(info sw.perf.data)$(info sw.pk.data)" = "  Cap Time Zero       1  Cap Time Zero       1"
	decode sw-perf sw.perf.data
	decode sw-pk sw.pk.data
	if [ ! -e "$BLD/libperfkit.so" ]; then
		skip $N:sample "no $PK_BUILD/libperfkit.so for pt_mksample"
	elif ! cc -O1 -I"$SRC/include" -o mks "$SRC/tests/live/pt_mksample.c" \
		-L"$BLD" -lperfkit -Wl,-rpath,"$BLD" > mks.log 2>&1; then
		fail $N:sample:build "cannot build pt_mksample: $(head -2 mks.log | tr '\n' '|')"
	elif ! ./mks sw.perf.data s700.data 16000 s700 2> mks.log ||
		! grep -q timed mks.log; then
		fail $N:sample:make "$(cat mks.log)"
	else
		decode sample s700.data "i1i b e cr i10usi i100ns qi1i qe"
	fi
fi
export PK_FAKE_NO_SWITCH=1
if both nosw -e intel_pt//u -m ,16; then
	check $N:nosw:sched-switch "perf added no sched:sched_switch" \
		"$(perf evlist -i nosw.perf.data 2>/dev/null | grep -c '^sched:sched_switch$')" = 1
	decode nosw-perf nosw.perf.data
	decode nosw-pk nosw.pk.data
fi
if both nosw-a -a -e intel_pt//u -m ,16; then
	decode nosw-a-perf nosw-a.perf.data
	decode nosw-a-pk nosw-a.pk.data
fi
unset PK_FAKE_NO_SWITCH
t_exit
