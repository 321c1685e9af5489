# The fake intel_pt PMU both recorders are shown (sourced after sh.sh):
# ptfake_tree NAME, in $T_TMP with SRC set, builds $T_TMP/devices (the
# real PMUs as links, tests/data/intel_pt copied) and $T_TMP/sys linking
# to it (perfkit's PERFKIT_SYSFS), checks that a private mount namespace
# can bind it over /sys/bus/event_source/devices (perf's view), and builds
# the LD_PRELOAD shim tests/live/pt_fakeopen.c as $T_TMP/shim.so; exits
# the test with skipped:/FAIL when it cannot.
# the shim is preloaded before an ASan build's runtime: let it be
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
# ... and the fake AUX areas it keeps are its own, not perfkit's leaks
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ptfake-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
ptfake_tree() {
	D=$T_TMP/devices
	mkdir -p "$D" || exit 1
	for _p in /sys/bus/event_source/devices/*; do
		[ "${_p##*/}" = intel_pt ] || ln -s "$(readlink -f "$_p")" "$D/${_p##*/}"
	done
	cp -r "$SRC/tests/data/intel_pt" "$D/"
	mkdir -p "$T_TMP/sys/bus/event_source" &&
		ln -s "$D" "$T_TMP/sys/bus/event_source/devices"
	if ! unshare -m sh -c "mount --bind $D /sys/bus/event_source/devices" 2>/dev/null; then
		skip "$1" "cannot bind a tree in a private mount namespace"; exit 0
	fi
	cc -shared -fPIC -O2 -o "$T_TMP/shim.so" "$SRC/tests/live/pt_fakeopen.c" \
		-ldl -lpthread || { fail "$1:shim" "cannot build the shim"; exit 1; }
}
# ptfake_need_gen NAME: skips the test (exit 0) without what ptgen needs
# (its headers, busybox, the shared tools/ptgen)
ptfake_need_gen() {
	for _f in /usr/include/intel-pt.h /usr/include/Zydis/Zydis.h /bin/busybox; do
		[ -e "$_f" ] || { skip "$1" "$_f is missing (ptgen needs it)"; exit 0; }
	done
	need_shared tools/ptgen/gen.sh "$1" || { t_exit; exit; }
}
# ptfake_gen NAME: in $T_TMP, ptgen's busybox awk run into gen/ (TRUTH:
# its instructions), and WAIT, the workload that waits for the shim's
# DONE file (at most 30 s)
ptfake_gen() {
	if ! "$PK_SHARED/tools/ptgen/gen.sh" "$T_TMP/gen" --only awk > gen.log 2>&1; then
		fail "$1:gen" "gen.sh: $(tail -2 gen.log | tr '\n' '|')"; t_exit; exit
	fi
	TRUTH=$T_TMP/gen/awk.ips
	WAIT='i=0; while [ ! -e DONE ] && [ $i -lt 1500 ]; do busybox usleep 20000; i=$((i+1)); done'
}
# ptfake_rec TOOL OUT OPTS...: TOOL (perf or pk: $PK) records the fixture
# into OUT while the shim produces gen/awk.pt; $PIN (a command prefix)
# runs the workload, $MID is the shim's PK_FAKE_PT_SNAP_MID
ptfake_rec() {
	_t=$1 _o=$2; shift 2
	rm -f DONE
	if [ "$_t" = perf ]; then
		PK_FAKE_PT_AUX=gen/awk.pt PK_FAKE_PT_DONE=DONE LD_PRELOAD=$T_TMP/shim.so \
		PK_FAKE_PT_SNAP_MID=$MID timeout 60 unshare -m sh -c 'mount --bind "$0" /sys/bus/event_source/devices && exec "$@"' \
			"$D" perf record "$@" -o "$_o" -- $PIN busybox sh -c "$WAIT"
	else
		PK_FAKE_PT_AUX=gen/awk.pt PK_FAKE_PT_DONE=DONE LD_PRELOAD=$T_TMP/shim.so \
		PK_FAKE_PT_SNAP_MID=$MID PERFKIT_SYSFS=$T_TMP/sys timeout 60 "$PK" record "$@" -o "$_o" \
			-- $PIN busybox sh -c "$WAIT"
	fi
}
# ptfake_need NAME: skips the test (exit 0) without perf, unshare, a C
# compiler or root (private mount namespaces)
ptfake_need() {
	need_cmd "$1" perf "perf is not installed"
	need_cmd "$1" unshare "unshare is not installed"
	need_cmd "$1" cc "no C compiler for the shim"
	if [ "$(id -u)" -ne 0 ]; then
		skip "$1" "private mount namespaces need root"; exit 0
	fi
}
# ptfake_start NAME: SRC, PK (perfkit's absolute path), an absolute
# PK_SHARED, the C locale; then into $T_TMP with ptfake_tree
ptfake_start() {
	need_built "$1" "$PERFKIT"
	SRC=$PWD; PK=$PWD/$PERFKIT
	PK_SHARED=$(cd "$PK_SHARED" && pwd) || exit 1
	export LC_ALL=C TZ=UTC PERF_PAGER=cat
	cd "$T_TMP" || exit 1
	ptfake_tree "$1"
}
# ptfake_setup NAME: the checks and set-up a decoding test of ptgen's awk
# trace through the shim needs (ptfake_need, _need_gen, _start, _gen)
ptfake_setup() {
	ptfake_need "$1"
	ptfake_need_gen "$1"
	ptfake_start "$1"
	ptfake_gen "$1"
}
