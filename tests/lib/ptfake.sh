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
