# What perf record 6.1 writes beside the samples, and perfkit record the
# same (tests/lib/pdlayout.py's lines, perf's file against perfkit's):
# the header features (the bitmap, sizes; PMU_MAPPINGS in perf's order,
# CACHE, MEM_TOPOLOGY, BPF_PROG_INFO, BPF_BTF, PMU_CAPS byte for byte),
# the records ahead of FINISHED_INIT (ID_INDEX, the kernel MMAP up to
# _etext, EVENT_UPDATE: the clocks' unit and scale, every name in a pipe;
# THREAD_MAP, CPU_MAP), in files and in pipes (features first, unpadded,
# nothing after the data, PERF_SAMPLE_ID); perf report --header-only -I
# of both files and pipes (and perfkit's reading of them); PMU_MAPPINGS'
# order on a PMU directory with intel_pt (perf looks intel_pt up first).
# pk-test: lock=bpf
. tests/lib/sh.sh
N=record_hdr_vs_perf
need_cmd $N perf "perf is not installed"
need_built $N "$PERFKIT"
SRC=$PWD; PK=$PWD/$PERFKIT
cd "$T_TMP" || exit 1
export LC_ALL=C PERF_PAGER=cat
. "$SRC/tests/lib/pdlayout.sh"
rec() { _rn=$1 _rm=$2; shift 2; pdl_rec $_rn $_rm "$@" -- true; }
rec clock file -e cpu-clock
rec task-clock file -e task-clock --no-bpf-event
rec two file -e cpu-clock -e task-clock --no-bpf-event
rec tracepoint file -e sched:sched_switch --no-bpf-event
rec cpu0 file -e cpu-clock -C 0 --no-bpf-event
rec pipe-clock pipe -e cpu-clock --no-bpf-event
rec pipe-two pipe -e cpu-clock,task-clock --no-bpf-event
rec pipe-tracepoint pipe -e sched:sched_switch --no-bpf-event
rec pipe-cpu0 pipe -e cpu-clock -C 0 --no-bpf-event
# a pipe's features come first: none after the data
check $N:pipe-nothing-late "a feature after FINISHED_INIT" \
	"$(cat pipe-*.pk.lay | grep -c '^late')" = 0
check $N:pipe-has-features "perfkit's pipe has no features ahead" \
	"$(grep -c '^feat 32 0' pipe-clock.pk.lay)" = 1
# the same attrs (PERF_SAMPLE_ID in a pipe)
for _n in pipe-clock pipe-cpu0; do
	perf evlist -v -i $_n.perf.data 2>/dev/null | grep -v '^#' > $_n.perf.ev
	perf evlist -v -i $_n.pk.data 2>/dev/null | grep -v '^#' > $_n.pk.ev
	check $N:$_n-attrs "$(diff $_n.perf.ev $_n.pk.ev | grep '^[<>]' | head -2 | tr '\n' '|')" \
		"$(cmp -s $_n.perf.ev $_n.pk.ev && grep -c sample_type $_n.pk.ev)" -ge 1
done
# -I: what perf prints of both files (but the run's own values), and
# perfkit's printing of perf's file
hdr() {
	"$1" report --header-only -I -i "$2" 2>/dev/null | grep -v -e '^# captured on' \
		-e '^# data ' -e '^# feat offset' -e '^# perf version' -e '^# cmdline' \
		-e '^# event :' -e 'meminfo' -e 'sample :' -e '^# sample duration'
}
hdr perf clock.perf.data > i.perf; hdr perf clock.pk.data > i.pk
hdr "$PK" clock.perf.data > i.pkread
check $N:header-I "$(diff i.perf i.pk | grep '^[<>]' | head -3 | tr '\n' '|')" \
	"$(cmp -s i.perf i.pk && grep -c -e 'CPU cache info' -e 'memory nodes' i.pk)" = 2
check $N:header-I-read "$(diff i.perf i.pkread | grep '^[<>]' | head -3 | tr '\n' '|')" \
	"$(cmp -s i.perf i.pkread && echo y)" = y
# a pipe's header: the features in their records' order (perf's pipe
# and perfkit's, read by both)
for _n in pipe-clock pipe-tracepoint; do
	for _t in perf pk; do
		hdr perf $_n.$_t.data > $_n.$_t.i
		hdr "$PK" $_n.$_t.data > $_n.$_t.pki
		check $N:$_n-$_t-header-I "$(diff $_n.$_t.i $_n.$_t.pki | grep '^[<>]' | head -3 | tr '\n' '|')" \
			"$(cmp -s $_n.$_t.i $_n.$_t.pki && grep -c -e 'pmu mappings' -e 'memory nodes' $_n.$_t.pki)" = 2
	done
	check $N:$_n-header-I "$(diff $_n.perf.i $_n.pk.i | grep '^[<>]' | head -3 | tr '\n' '|')" \
		"$(cmp -s $_n.perf.i $_n.pk.i && echo y)" = y
done
# perf's PMU order: intel_pt (looked up first) then readdir's order of
# the devices directory, on a copy holding the fixture intel_pt
if [ "$(id -u)" -ne 0 ] || ! command -v unshare > /dev/null; then
	skip $N:pmu-order "private mount namespaces need root and unshare"
else
	mkdir -p dev sys/bus/event_source
	for _p in /sys/bus/event_source/devices/*; do
		[ "${_p##*/}" = intel_pt ] || ln -s "$(readlink -f "$_p")" "dev/${_p##*/}"
	done
	cp -r "$SRC/tests/data/intel_pt" dev/
	ln -s "$T_TMP/dev" sys/bus/event_source/devices
	if unshare -m sh -c 'mount --bind "$0" /sys/bus/event_source/devices &&
		exec perf record -e cpu-clock --no-bpf-event -o pmu.perf.data -- true' \
		"$T_TMP/dev" > /dev/null 2>&1; then
		PERFKIT_SYSFS=$T_TMP/sys $PK record -e cpu-clock -o pmu.pk.data -- true \
			> /dev/null 2>&1
		perf report --header-only -I -i pmu.perf.data 2>/dev/null |
			grep -e 'pmu mappings' -e 'pmu capabilities' > pmu.perf
		perf report --header-only -I -i pmu.pk.data 2>/dev/null |
			grep -e 'pmu mappings' -e 'pmu capabilities' > pmu.pk
		check $N:pmu-order "$(cat pmu.perf pmu.pk | cut -c1-70 | tr '\n' '|')" \
			"$(cmp -s pmu.perf pmu.pk && grep -c 'mappings: intel_pt' pmu.pk)" = 1
	else
		skip $N:pmu-order "cannot bind a tree in a private mount namespace"
	fi
fi
t_exit
