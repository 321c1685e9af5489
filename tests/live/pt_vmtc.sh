#!/bin/sh
# perfkit inject --vm-time-correlation against perf 6.1's: a ptgen run of
# busybox echo (../shared/tools/ptperf) with TMA packets after its TSCs,
# PIPs and VMCSs in its PSB+ and in PSB+s added while tracing is off,
# guest TSCs (the host's plus a TSC Offset) and MTCs (tests/live/
# ptsynth.py); per case both tools run on copies of the same file: their
# exit status, their stderr and the files they leave (the TSC packets
# rewritten in place, a dry run's unchanged) must be the same; then perf
# script and perfkit script on the corrected files.
# pk-test: check slow
. tests/lib/sh.sh
need_cmd pt_vmtc perf "perf is not installed"
need_cmd pt_vmtc python3 "python3 is not installed"
need_cmd pt_vmtc qemu-x86_64 "qemu-user is not installed (ptgen runs busybox under it)"
for f in /usr/include/intel-pt.h /usr/include/Zydis/Zydis.h /bin/busybox; do
	[ -e "$f" ] || { skip pt_vmtc "$f is missing (ptgen needs it)"; exit 0; }
done
need_shared tools/ptperf/make-refs.sh pt_vmtc || { t_exit; exit; }
need_built pt_vmtc "$PERFKIT"
PK=$(cd "$(dirname "$PERFKIT")" && pwd)/$(basename "$PERFKIT")
export LC_ALL=C TZ=UTC PERF_PAGER=cat PK_SHARED
R=$T_TMP/refs
if ! "$PK_SHARED/tools/ptperf/make-refs.sh" "$R" --only echo \
	>"$T_TMP/refs.log" 2>&1; then
	fail pt_vmtc:refs "make-refs.sh: $(tail -2 "$T_TMP/refs.log" | tr '\n' '|')"
	t_exit
	exit
fi
E=$R/echo/echo
# mtc (0x200) with mtc_period 3 (0xc000): MTC every 8 CTC ticks, the TSC
# at twice the CTC (mkperf's TSC:CTC 2/1)
CFG=0xc200
gen() { # NAME CONFIG ITEMS...: a timed file
	_gn=$1 _gc=$2
	shift 2
	t_python tests/live/ptsynth.py "$E" "$T_TMP/$_gn.data" --time \
		--config "$_gc" "$@" >/dev/null 2>"$T_TMP/gen.err" ||
		fail "pt_vmtc:gen:$_gn" "$(tail -1 "$T_TMP/gen.err")"
}
OFF=0x5000000000 OFF2=0xffffe42722c64c41
# host TSCs with their TMAs, the first in the PSB+ with a PIP NR=0
HOST="--at psb0:pip:0:0 --at tsc*:tma"
# a guest's PSB+ while tracing is off (its TSC the host's plus OFFSET,
# PIP NR=1, VMCS), the host's PIP after it
gpsb() { # PGD OFFSET VMCS
	echo "--at pgd$1:psb,tsc+5:$2,tma,pip:0x2000:1${3:+,vmcs:$3},psbend,pip:0:0"
}
gen plain 0x200					# no TMA anywhere
gen plain0 0x1000				# no mtc bit
gen host $CFG $HOST
# a guest's TSC outside PSB+ without VMCS: a guess from the range
gen guess $CFG $HOST --tsc-off 5:$OFF
# guests' PSB+s of two VMCSs, then guest TSCs outside PSB+ of the last
# one, MTCs between; a second PSB+ of the first VMCS
gen vmcs $CFG $HOST $(gpsb 3 $OFF 0x12345000) $(gpsb 6 $OFF2 0x23456000) \
	--tsc-off 8:$OFF2 --at 20:mtc+16 --at 40:mtc+40 $(gpsb 10 $OFF 0x12345000) \
	--tsc-off 12:$OFF
# the same in 256-byte AUXTRACE buffers (each its reference, look-aheads
# end at a buffer's end), and cut anywhere (packets split between
# buffers: perf reads a cut one as bad bytes)
VMCS="$HOST $(gpsb 3 $OFF 0x12345000) $(gpsb 6 $OFF2 0x23456000) --tsc-off 8:$OFF2"
gen chunk $CFG $VMCS --chunk 256
gen split $CFG $VMCS --chunk 200 --split-anywhere
gen missing $CFG $HOST $(gpsb 4 $OFF)		# NR=1, no VMCS
# a VMCS known from a PSB+ without PIP, a guest TSC after it
gen unkoff $CFG $HOST --at pgd3:psb,tsc+5,tma,vmcs:0x34567000,psbend \
	--tsc-off 7:$OFF
gen first1 $CFG --at psb0:pip:0x1000:1 --at tsc*:tma --tsc-off 0:$OFF
gen firstnp $CFG --at tsc*:tma --tsc-off 0:$OFF
gen firstout $CFG --at tsc1:tma --at tsc2:tma --at tsc3:tma
gen nopsbend $CFG $HOST --at pgd5:psb,tsc+5,tma,pip:0:0
gen stop $CFG $HOST --at pgd2:ovf --at pgd4:stop --tsc-off 6:$OFF
# PEBS records' TSCs (BIP 2 of a PEBS basic block, 8 bytes) while
# tracing is off: a guest's (the VMCS's offset learnt before it, or not
# known) and the host's
PEBS=bbp:4,bip:2:0x5100002000,bep
gen pebs $CFG $HOST $(gpsb 3 $OFF 0x12345000) --at pgd5:$PEBS \
	--at pgd7:bbp:4,bip:2:0x100003000,bep --at pgd9:$PEBS
gen pebsunk $CFG $HOST --at pgd5:$PEBS --at 30:$PEBS
n=0
# case NAME FIXTURE [ARGS...]: perf inject and perfkit inject on copies
# of FIXTURE, the same exit status, stderr and file afterwards
case_() {
	_cn=$1 _cf=$2
	shift 2
	n=$((n + 1))
	cp "$T_TMP/$_cf.data" "$T_TMP/p.data" && cp "$T_TMP/$_cf.data" "$T_TMP/k.data"
	(cd "$T_TMP" && perf inject -i p.data "$@") >"$T_TMP/p.out" 2>"$T_TMP/p.err"
	_pr=$?
	(cd "$T_TMP" && "$PK" inject -i k.data "$@") >"$T_TMP/k.out" 2>"$T_TMP/k.err"
	_kr=$?
	# perfkit writes no intel_pt.log (--itrace=d): it says so
	grep -v 'writes no intel_pt.log' "$T_TMP/k.err" >"$T_TMP/k.err2"
	rm -f "$T_TMP/intel_pt.log"
	check "pt_vmtc:$_cn" "rc perf $_pr perfkit $_kr, stderr: $(first_diff "$T_TMP/p.err" "$T_TMP/k.err2"), file: $(cmp "$T_TMP/p.data" "$T_TMP/k.data" 2>&1 | head -1)" \
		$_pr -eq $_kr -a -z "$(cmp "$T_TMP/p.err" "$T_TMP/k.err2" 2>&1)" \
		-a -z "$(cmp "$T_TMP/p.data" "$T_TMP/k.data" 2>&1)" \
		-a -z "$(cmp "$T_TMP/p.out" "$T_TMP/k.out" 2>&1)"
}
V=--vm-time-correlation
# refusals: the command line, then the file
case_ noforce host $V
case_ noforce-off host $V=$OFF
case_ output host -o x.data $V=dry-run
case_ timeless-Z host $V=dry-run --itrace=Z
case_ nomtc plain0 $V=dry-run
case_ nomtc-force plain0 $V --force
case_ badvmcs host "$V=dry-run 0x10:0"
case_ badvmcs2 host "$V=dry-run 0x10:0x1000,"
case_ erange host "$V=dry-run 99999999999999999999999"
# the messages, dry run and for real
case_ notma plain $V=dry-run
case_ host host $V=dry-run
case_ host-force host $V --force
for f in guess vmcs missing unkoff first1 firstnp firstout nopsbend stop \
	pebs pebsunk chunk split; do
	case_ "$f-dry" "$f" $V=dry-run
	case_ "$f" "$f" $V --force
	case_ "$f-dflt" "$f" "$V=$OFF" --force
done
# per-VMCS offsets (given ones are reliable: no VMCS: line), a default
# beside them, a wrong default (out of range), spaces, -f, --itrace=d
case_ vmcs-given vmcs "$V= $OFF:0x12345 $OFF2 : 0x23456 , 0x99" --force
case_ vmcs-given-dry vmcs "$V=dry-run $OFF2:0x23456 0x1234"
case_ vmcs-wrong vmcs "$V=dry-run 0x5000"
case_ guess-wrong guess "$V=0x5000" -f
case_ vmcs-log vmcs "$V=dry-run" --itrace=d
case_ vmcs-i vmcs "$V=dry-run" --itrace=i100
# the corrected files decode the same with both tools (not stop: perfkit
# script loses branches after its OVF, corrected or not)
for f in vmcs guess pebs chunk; do
	cp "$T_TMP/$f.data" "$T_TMP/c.data"
	perf inject -i "$T_TMP/c.data" $V --force 2>/dev/null
	for it in b i1i; do
		(cd "$R/echo" && perf --buildid-dir "$T_TMP/bid" script \
			--itrace=$it -F +flags -i "$T_TMP/c.data") >"$T_TMP/perf" 2>/dev/null
		(cd "$R/echo" && "$PK" script --itrace=$it -F +flags \
			-i "$T_TMP/c.data") >"$T_TMP/pk" 2>"$T_TMP/pk.err"
		_sr=$?
		check "pt_vmtc:script:$f:$it" "rc=$_sr $(head -1 "$T_TMP/pk.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
			$_sr -eq 0 -a -s "$T_TMP/perf" -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
	done
done
t_exit
