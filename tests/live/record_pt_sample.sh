# Intel PT sample mode (perf-intel-pt(1): --aux-sample[=SIZE], the
# aux-sample-size=N term) set up as perf 6.1 sets it up, on the fixture
# intel_pt PMU (tests/lib/ptfake.sh: perf in a private mount namespace,
# perfkit through PERFKIT_SYSFS):
# - the -vv attrs with the shim (pt_fakeopen.c opens the faked group's
#   PERF_SAMPLE_AUX member without it, so perf goes on to its mmap):
#   the group, aux_sample_size and PERF_SAMPLE_AUX on the members,
#   psb_period cleared on the PT event unless given, no aux_watermark,
#   a term outside the group moved into it, several members, per CPU,
#   per thread, -a, the AUX event after another event;
# - every sample-mode message perf prints, stderr byte for byte and both
#   failing (no shim: the PT type is unknown here, so the cases that pass
#   every check end at perf's "not supported" and the warning before it).
# pk-test: slow
. tests/lib/sh.sh
. tests/lib/ptfake.sh
N=record_pt_sample
ptfake_need $N
ptfake_start $N
perf_in() { unshare -m sh -c 'mount --bind "$0" /sys/bus/event_source/devices && exec "$@"' "$D" "$@"; }
pk_in() { PERFKIT_SYSFS=$T_TMP/sys "$PK" "$@"; }

# attr NAME OPTS: one -vv comparison, both with the shim
attr() {
	t_attr_case "$1"
	LD_PRELOAD=$T_TMP/shim.so perf_in perf record -vv --no-bpf-event $2 -o p.data -- true > /dev/null 2> "$T_AREF"
	LD_PRELOAD=$T_TMP/shim.so pk_in record -vv --no-bpf-event $2 -o k.data -- true > /dev/null 2> "$T_APK"
	grep -q 'aux_sample_size' "$T_AREF" && ! grep -q 'aux_sample_size' "$T_APK" &&
		t_attr_err "perfkit set no aux_sample_size"
}
while IFS='|' read -r name opts; do
	[ -n "$name" ] && attr "$name" "$opts"
done <<'OPTS'
term|-e {intel_pt//u,cpu-clock/aux-sample-size=4096/u}
option|--aux-sample -e {intel_pt//u,cpu-clock:u}
option-size|--aux-sample=8192 -e {intel_pt//u,cpu-clock:u,instructions:u}
option-hex-term|--aux-sample=0x3000 -e {intel_pt//u,cpu-clock/aux-sample-size=1000/u,task-clock:u}
regroup|-e intel_pt//u -e cpu-clock/aux-sample-size=4096/u
regroup-two|-e intel_pt//u -e cpu-clock/aux-sample-size=4096/u -e cycles/aux-sample-size=2048/u
psb_period-given|-e {intel_pt/psb_period=5/u,cpu-clock/aux-sample-size=4096/u}
tsc0|-e {intel_pt/tsc=0/u,cpu-clock/aux-sample-size=4096/u}
m-aux|-e {intel_pt//u,cpu-clock/aux-sample-size=4096/u} -m ,8
big|-e {intel_pt//u,cpu-clock/aux-sample-size=20000/u}
a|-e {intel_pt//u,cpu-clock/aux-sample-size=4096/u} -a
per-thread|-e {intel_pt//u,cpu-clock/aux-sample-size=4096/u} --per-thread
after-cycles|-e cycles:u -e {intel_pt//u,cpu-clock/aux-sample-size=4096/u}
OPTS
t_attr_check "$N attr"

# Messages, without the shim: stderr identical, both failing.
msg() { # NAME OPTS
	perf_in perf record --no-bpf-event $2 -o p.data -- true > /dev/null 2> p.err; prc=$?
	pk_in record --no-bpf-event $2 -o k.data -- true > /dev/null 2> k.err; krc=$?
	same_failure "$N msg $1" $prc $krc p.err k.err
}
while IFS='|' read -r name opts; do
	[ -n "$name" ] && msg "$name" "$opts"
done <<'OPTS'
no-aux-event|--aux-sample -e cpu-clock:u
no-aux-event-group|-e {cycles:u,cpu-clock/aux-sample-size=4096/u}
bad-option|--aux-sample=4k -e {intel_pt//u,cpu-clock:u}
bad-negative|--aux-sample=-1 -e {intel_pt//u,cpu-clock:u}
bad-too-big|--aux-sample=0x10000000000 -e {intel_pt//u,cpu-clock:u}
group-leader|-e {cpu-clock/aux-sample-size=4096/u,cycles:u} -e intel_pt//u
group-leader-alone|-e cpu-clock/aux-sample-size=4096/u -e intel_pt//u
aux-leader|-e {intel_pt/aux-sample-size=4096/u,cpu-clock:u}
not-aux-leader|-e intel_pt//u -e {cycles:u,cpu-clock/aux-sample-size=4096/u}
size-too-big|-e {intel_pt//u,cpu-clock/aux-sample-size=70000/u}
requires-members|--aux-sample -e intel_pt//u
area-too-small|-e {intel_pt//u,cpu-clock/aux-sample-size=8192/u} -m ,1
area-not-pow2|-e {intel_pt//u,cpu-clock/aux-sample-size=4096/u} -m ,3
with-snapshot|-e {intel_pt//u,cpu-clock/aux-sample-size=4096/u} -S
psb-warning|-e {intel_pt/psb_period=5/u,cpu-clock/aux-sample-size=4096/u}
not-supported|-e {intel_pt//u,cpu-clock/aux-sample-size=4096/u}
OPTS
t_exit
