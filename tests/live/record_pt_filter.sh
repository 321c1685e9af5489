# Address filters of the Intel PT event (perf record --filter) without the
# hardware: the fixture PMU (tests/data/intel_pt, nr_addr_filters 2) with
# tests/live/pt_fakeopen.c preloaded, which logs the string each recorder
# gives PERF_EVENT_IOC_SET_FILTER. perf record and perfkit record take
# the same filters: numbers, ranges, files (named by their real path),
# tracestop, the whole file or kernel ("*"), kernel symbols (global, #N,
# duplicates, one before the other) and bad ones; the strings they set
# and the messages they print must be the same.
. tests/lib/sh.sh
. tests/lib/ptfake.sh
N=record_pt_filter
need_cmd $N perf "perf is not installed"
need_cmd $N unshare "unshare is not installed"
need_cmd $N cc "no C compiler for the shim"
if [ "$(id -u)" -ne 0 ]; then
	skip $N "private mount namespaces need root"; exit 0
fi
need_built $N "$PERFKIT"
SRC=$PWD; PK=$PWD/$PERFKIT
export LC_ALL=C TZ=UTC PERF_PAGER=cat
cd "$T_TMP" || exit 1
ptfake_tree $N
# run TOOL FILTER: what TOOL prints (less the AUX area it cannot map
# here and the TSC warning), its status, and the filters it set
run() {
	rm -f flog
	if [ "$1" = perf ]; then
		PK_FAKE_PT_FILTER_LOG=flog LD_PRELOAD=$T_TMP/shim.so timeout 30 \
		unshare -m sh -c 'mount --bind "$0" /sys/bus/event_source/devices && exec "$@"' \
			"$D" perf record -e intel_pt//u --filter "$2" -o x.data -- true > out 2>&1
	else
		PK_FAKE_PT_FILTER_LOG=flog LD_PRELOAD=$T_TMP/shim.so PERFKIT_SYSFS=$T_TMP/sys \
		timeout 30 "$PK" record -e intel_pt//u --filter "$2" -o x.data -- true > out 2>&1
	fi
	echo "status $([ $? -eq 0 ] && echo 0 || echo non-zero)"
	grep -v '^failed to mmap\|^Warning:\|TSC not available\|^\[ perf record\|^$' out
	[ -f flog ] && sort -u flog
}
# one FILTER [NAME]: both recorders, the same words and strings
one() {
	run perf "$1" > o.perf; run pk "$1" > o.pk
	check "$N:${2:-$1}" "perf: $(tr '\n' '|' < o.perf) perfkit: $(tr '\n' '|' < o.pk)" \
		"$(cmp -s o.perf o.pk && echo y)" = y
}
one "filter 0x1000/0x200 @ /bin/sh"
one "start 0x1000"
one "tracestop 0x10/4"
one "filter 0x10 / 0x20 @ /bin/sh , start 0x30"
one "filter * @ /bin/sh"
one "filter 0x10 @ $T_TMP/nonexistent" "filter 0x10 @ missing-file"
one "bogus 1"
one "filter 1,filter 2, filter 3"
one "filter"
# kernel symbols: where perf can read their addresses
if [ "$(cat /proc/sys/kernel/kptr_restrict 2>/dev/null)" != 0 ] ||
   ! grep -q ' T schedule$' /proc/kallsyms; then
	skip $N:kernel "kernel addresses are restricted (or no schedule)"
	t_exit; exit
fi
one "filter schedule"
one "start schedule"
one "filter schedule / 8"
one "filter schedule #g"
one "filter schedule #2"
one "filter *"
one "filter no_such_function_here"
# a local name defined twice
DUP=$(awk '$2 == "t" && NF == 3 { c[$3]++ } END { for (k in c) if (c[k] == 2) { print k; exit } }' /proc/kallsyms)
if [ -n "$DUP" ]; then
	one "filter $DUP"
	one "filter $DUP #2"
	one "filter $DUP #3"
	one "stop $DUP #1 / schedule"
	one "filter schedule / $DUP #1"
else
	skip $N:dup "no kernel function name defined twice"
fi
t_exit
