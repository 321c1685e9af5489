# The Intel PT event against perf 6.1 on a fake sysfs PMU (tests/data/
# intel_pt, a Skylake/Icelake-like intel_pt with its format/ and caps/
# files): perf sees the tree in a private mount namespace (bound over
# /sys/bus/event_source/devices beside the real PMUs), perfkit through
# PERFKIT_SYSFS. There is no Intel PT here, so for the attr comparisons
# both run with tests/live/pt_fakeopen.c preloaded, which opens a
# software dummy where the intel_pt type is asked for: perf then prints
# every event it adds (-vv). Compared: the -vv attr blocks of every term,
# modifier and target mode, perf's default config as the caps change, the
# caps checks' messages, the one-event limit, the refusal when the kernel
# has no such PMU, and perf list's entry.
# pk-test: slow
. tests/lib/sh.sh
# the shim is preloaded before an ASan build's runtime: let it be
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
need_cmd record_pt_attr perf "perf is not installed"
need_cmd record_pt_attr unshare "unshare is not installed"
need_cmd record_pt_attr cc "no C compiler for the open shim"
if [ "$(id -u)" -ne 0 ]; then
	skip record_pt_attr "private mount namespaces need root"; exit 0
fi
SRC=$PWD; PK=$PWD/$PERFKIT
cd "$T_TMP" || exit 1
# mk_root DIR: DIR/sys/bus/event_source/devices with the real PMUs
# (links) and a copy of the fixture PMU.
mk_root() {
	_d=$1/sys/bus/event_source/devices
	mkdir -p "$_d" || return 1
	for _p in /sys/bus/event_source/devices/*; do
		[ "${_p##*/}" = intel_pt ] && continue
		ln -s "$(readlink -f "$_p")" "$_d/${_p##*/}"
	done
	cp -r "$SRC/tests/data/intel_pt" "$_d/"
}
mk_root "$T_TMP/r" || { fail record_pt_fixture "cannot build the tree"; exit 1; }
if ! unshare -m sh -c "mount --bind $T_TMP/r/sys/bus/event_source/devices /sys/bus/event_source/devices" 2>/dev/null; then
	skip record_pt_attr "cannot bind a tree in a private mount namespace"; exit 0
fi
cc -shared -fPIC -O2 -o shim.so "$SRC/tests/live/pt_fakeopen.c" -ldl ||
	{ fail record_pt_shim "cannot build the open shim"; exit 1; }
# perf_in ROOT ARGS...: perf with ROOT's devices bound over sysfs's
perf_in() {
	_r=$1; shift
	unshare -m sh -c 'mount --bind "$0/sys/bus/event_source/devices" /sys/bus/event_source/devices && exec "$@"' "$_r" "$@"
}
pk_in() { _r=$1; shift; PERFKIT_SYSFS=$_r/sys "$PK" "$@"; }
sleep 600 & SLEEPER=$!; t_bg $SLEEPER
# attr ROOT NAME OPTS: one -vv comparison, both with the shim
attr() {
	t_attr_case "$2"
	LD_PRELOAD=$T_TMP/shim.so perf_in "$1" perf record -vv --no-bpf-event $3 -o p.data -- true > /dev/null 2> "$T_AREF"
	LD_PRELOAD=$T_TMP/shim.so pk_in "$1" record -vv --no-bpf-event $3 -o k.data -- true > /dev/null 2> "$T_APK"
	grep -q '^sys_perf_event_open: pid -1 ' "$T_APK" || case $3 in *-a*|*-C*|*per-thread*) ;; *)
		grep -q 'context_switch\|text_poke' "$T_AREF" &&
		t_attr_err "perfkit opened no event on every CPU";; esac
}
R=$T_TMP/r
while IFS='|' read -r name opts; do
	[ -n "$name" ] && attr "$R" "$name" "$(echo "$opts" | sed "s/PID/$SLEEPER/")"
done <<'OPTS'
default-u|-e intel_pt//u
default|-e intel_pt//
k|-e intel_pt//k
up|-e intel_pt//up
uG|-e intel_pt//uG
tsc0|-e intel_pt/tsc=0/u
tsc-noretcomp0|-e intel_pt/tsc,noretcomp=0/u
noretcomp|-e intel_pt/noretcomp/u
mtc0|-e intel_pt/mtc=0/u
mtc_period6|-e intel_pt/mtc_period=6/u
psb_period0|-e intel_pt/psb_period=0/u
psb_period5|-e intel_pt/psb_period=5/u
cyc|-e intel_pt/cyc/u
cyc_thresh13|-e intel_pt/cyc,cyc_thresh=13/u
pt0|-e intel_pt/pt=0/u
branch0|-e intel_pt/branch=0/u
ptw|-e intel_pt/ptw,fup_on_ptw/u
pwr_evt|-e intel_pt/pwr_evt/u
event|-e intel_pt/event/u
notnt|-e intel_pt/notnt/u
config|-e intel_pt/config=0x400/u
config12|-e intel_pt/config1=5,config2=7/u
aux-output|-e intel_pt/aux-output/u
many|-e intel_pt/cyc,cyc_thresh=1,noretcomp,ptw,fup_on_ptw,pwr_evt/u
per-thread|-e intel_pt//u --per-thread
a|-e intel_pt//u -a
a-k|-e intel_pt//k -a
C|-e intel_pt//u -C 0
C-k|-e intel_pt//k -C 0
p|-e intel_pt//u -p PID
no-switch|-e intel_pt//u --no-switch-events
switch|-e intel_pt//u --switch-events
m-aux|-e intel_pt//u -m ,64
F|-e intel_pt//u -F 100
c|-e intel_pt//u -c 5
after-cycles|-e cycles:u -e intel_pt//u
OPTS

# perf's default config as the caps change: variants of the tree
variant() { # NAME EDIT: a new root with EDIT run in its intel_pt dir
	mk_root "$T_TMP/$1" && (cd "$T_TMP/$1/sys/bus/event_source/devices/intel_pt" && eval "$2")
}
variant v1 'echo 245 > caps/mtc_periods; echo 7 > caps/psb_periods'
variant v2 'echo 0 > caps/psb_periods'
variant v3 'echo 0 > caps/mtc'
variant v4 'echo 0 > caps/psb_cyc'
variant v5 'rm caps/mtc caps/psb_cyc'
variant v6 'rm format/branch'
variant v7 'rm format/pt'
variant v8 'echo 1 > caps/mtc_periods; echo 0 > caps/ptwrite'
for v in v1 v2 v3 v4 v5 v6 v7 v8; do
	attr "$T_TMP/$v" "caps-$v" "-e intel_pt//u"
done
attr "$T_TMP/v7" "caps-v7-config" "-e intel_pt/config=0x400/u"
attr "$T_TMP/v4" "caps-v4-cyc" "-e intel_pt/cyc/u"
attr "$T_TMP/v3" "caps-v3-mtc" "-e intel_pt/mtc_period=0,mtc/u"
attr "$T_TMP/v8" "caps-v8-ptw" "-e intel_pt/ptw/u"
t_attr_check record_pt_attr

# Messages: the caps checks, the one-event limit, and the kernel's
# refusal (no shim: the type is unknown to this kernel). Both fail with
# perf's words on stderr.
msg() { # NAME ROOT EVENT-ARGS
	perf_in "$2" perf record --no-bpf-event $3 -o p.data -- true > /dev/null 2> p.err; prc=$?
	pk_in "$2" record --no-bpf-event $3 -o k.data -- true > /dev/null 2> k.err; krc=$?
	same_failure "record_pt_msg $1" $prc $krc p.err k.err
}
msg mtc_period "$R" "-e intel_pt/mtc_period=2/u"
msg psb_period "$R" "-e intel_pt/psb_period=15/u"
msg cyc_thresh "$R" "-e intel_pt/cyc_thresh=14/u"
msg psb_period-v1 "$T_TMP/v1" "-e intel_pt/psb_period=3/u"
msg mtc_period-v3 "$T_TMP/v3" "-e intel_pt/mtc_period=3/u"
msg cyc_thresh-v4 "$T_TMP/v4" "-e intel_pt/cyc_thresh=3/u"
msg psb_period-v4 "$T_TMP/v4" "-e intel_pt/psb_period=3/u"
msg aux-sample-size "$R" "-e intel_pt/aux-sample-size=4096/u"
msg two-events "$R" "-e intel_pt//u -e intel_pt//k"
msg not-supported "$R" "-e intel_pt//u"
msg pt0-not-supported "$R" "-e intel_pt/pt=0/u"

# perf list names the PMU as an event
perf_in "$R" perf list 2>/dev/null | grep '^  intel_pt' > p.list
pk_in "$R" list 2>/dev/null | grep '^  intel_pt.*Kernel PMU event' |
	sed 's/ (not supported here)$//' > k.list
check record_pt_list "$(first_diff p.list k.list)" -s p.list -a -z "$(diff p.list k.list)"
t_exit
