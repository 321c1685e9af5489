#!/bin/sh
# perfkit script's synthesized ptwrite (w), power (p: mwait, pwre, exstop,
# pwrx) and transaction (x) samples are perf 6.1's, byte for byte: a
# ptgen run of busybox echo (../shared/tools/ptperf) with packets added
# that do not change its flow (tests/live/ptsynth.py: PTWRITE with and
# without FUP, MWAIT/PWRE/EXSTOP at a FUP, PWRE/EXSTOP/PWRX without one,
# MODE.TSX begin/commit at FUPs, TSX aborts with a FUP and a TIP), the
# intel_pt config bits perf looks at set (ptw, fup_on_ptw, pwr_evt),
# timeless and with timestamps; perf and perfkit script on each file
# with the same options, and perf script on
# perfkit's inject output as on perf's.
# pk-test: check slow
. tests/lib/sh.sh
need_cmd pt_synth perf "perf is not installed"
need_cmd pt_synth python3 "python3 is not installed"
need_cmd pt_synth qemu-x86_64 "qemu-user is not installed (ptgen runs busybox under it)"
for f in /usr/include/intel-pt.h /usr/include/Zydis/Zydis.h /bin/busybox; do
	[ -e "$f" ] || { skip pt_synth "$f is missing (ptgen needs it)"; exit 0; }
done
need_shared tools/ptperf/make-refs.sh pt_synth || { t_exit; exit; }
need_built pt_synth "$PERFKIT"
PK=$(cd "$(dirname "$PERFKIT")" && pwd)/$(basename "$PERFKIT")
export LC_ALL=C TZ=UTC PERF_PAGER=cat PK_SHARED
R=$T_TMP/refs
if ! "$PK_SHARED/tools/ptperf/make-refs.sh" "$R" --only echo \
	>"$T_TMP/refs.log" 2>&1; then
	fail pt_synth:refs "make-refs.sh: $(tail -2 "$T_TMP/refs.log" | tr '\n' '|')"
	t_exit
	exit
fi
E=$R/echo/echo
gen() { # NAME CONFIG ITEMS...
	_gn=$1 _gc=$2
	shift 2
	python3 tests/live/ptsynth.py "$E" "$T_TMP/$_gn.data" --config "$_gc" \
		"$@" >/dev/null 2>"$T_TMP/gen.err" &&
	python3 tests/live/ptsynth.py "$E" "$T_TMP/$_gn.tsc.data" --time \
		--config "$_gc" "$@" >/dev/null 2>>"$T_TMP/gen.err" ||
		fail "pt_synth:gen:$_gn" "$(tail -1 "$T_TMP/gen.err")"
}
# ptw (0x1000) and fup_on_ptw (0x20): with and without FUP, printable
# payloads and not, 4 and 8 bytes
gen ptw 0x1020 --at 0:ptwip:0x6968,fup --at 3:ptw8:0x33 --at 7:ptw:0x12345678 \
	--at 12:ptwip8:0x123456789abcdef0,fup --at 20:ptw:0 --at 41:ptw8:0x4141 \
	--at 61:ptwip:0x7e20,fup --at 85:ptw8:0x1122334455667788
# pwr_evt (0x10): lone events, MWAIT+PWRE+EXSTOP at a FUP, a PWRE
# without MWAIT (perf shows the last FUP one's payload)
gen pwr 0x10 --at 2:pwrx:2:2:4 --at 5:exstop --at 9:pwre:0:2:0 \
	--at 14:mwait:0x60:1,pwre:1:3:1,exstopip,fup --at 22:exstopip,fup \
	--at 30:mwait:0x1f5:7,fup --at 40:pwrx:6:1:1 \
	--at 55:mwait:0x20:0,exstop,pwre:0:1:0,exstopip,fup --at 60:pwre:0:7:0
# both, at the same places
gen both 0x1030 --at 4:ptw:0x61,pwrx:1:1:1 --at 9:mwait:0x10:0,ptwip:0x62,fup \
	--at 10:exstopip,fup,ptw8:0x63
# MODE.TSX begin and commit at FUPs (x; the branches between are in the
# transaction), a PTWRITE right after a begin (its flags: none), no ptw
# config bit (perf adds the ptwrite event all the same)
gen tsx 0 --at 10:tsx:1:0,fup --at 12:tsx:0:0,fup --at 30:tsx:1:0,fup,ptw:0x41 \
	--at 44:tsx:0:0,fup
# TSX aborts (MODE.TSX TXAbort:1, the FUP of the abort, a TIP to the
# handler, here code on the traced path so the walk goes on): at a TIP's
# target outside a transaction, in the middle of a walk inside one, two
# instructions after a begin with the handler at the begin (walked
# again), at the begin's own ip; a MODE.TSX without FUP (perf: the state
# alone, no sample); a begin with tracing off (the trace start is not in
# the transaction) and an abort then
gen tsxab 0 --at 10:tsx:0:1,fup,tip --at 11:tsx:1:0,fup \
	--at 13:tsx:0:1,fup+13,tip+13 --at 15:tsx:1:0,fup,tsx:0:1,fup+8,tip \
	--at 20:tsx:1:0,fup,tsx:0:1,fup,tip --at 30:tsx:1:0,fup --at 33:tsx:0:1 \
	--at 36:tsx:1:0,fup --at 38:tsx:0:1,fup,tip --at pgd0:tsx:1:0 \
	--at pgd2:tsx:0:1
# aborts that stop tracing (TIP.PGD without and with an IP: perf's addr,
# a trace end) and an abort's FUP that no TIP follows (perf: an error
# there, the flow taken up at the next IP); timed too (perf's times
# after a TIP.PGD+TIP.PGE put in and after an error are its estimates)
gen tsxend 0 --at 38:tsx:1:0,fup \
	--at 40:tsx:0:1,fup,pgd0,pge --at 42:tsx:1:0,fup \
	--at 44:tsx:0:1,fup,pgd,pge --at 45:tsx:0:1,fup
# FUPs that no TIP follows and no event asks for, at a TIP's target and
# an instruction further on (perf: its mismatch error at the FUP, the
# flow taken up at the next IP); full decoding timeless only (perf's
# time after an error is its estimate)
gen lonefup 0 --at 20:fup --at 30:fup+13
# FUPs whose IP perf's walk to them never lands on (tracing on): past a
# return, after a direct jump into the middle of an instruction, in the
# middle of the TIP's target instruction (lone, with a TIP, a TIP.PGD
# with and without IP, a MODE.TSX's, a PTWRITE's): perf's mismatch error
# at the first branch that needs a packet (intel_pt_walk_fup; no branch
# sample of it), the FUP's events gone, the flow taken up at the next IP
# after the FUP (a TIP.PGD's: a trace start and end from 0 to its IP or
# the error's); one at a direct jump's target for contrast (perf's error
# at the FUP); full decoding timeless only (perf's times are estimates)
gen fupmiss 0x1020 --at 1:fup+0x20 --at 5:fup+0x87 --at 8:fup+0x6c \
	--at 20:fup+1 --at 25:fup+1,tip --at 30:fup+1,pgd,pge \
	--at 35:fup+1,pgd0,pge --at 40:tsx:1:0,fup+1 --at 45:ptwip:0x41,fup+1
# MODE.TSX with InTX and TXAbort both set (perf's packet decoder: a bad
# packet, its error where the decoder stands and the decoding going on;
# libipt reads it): before a FUP and TIP (then an interrupt), with
# tracing off after a TIP.PGD without IP (at the syscall), after a FUP
# and a TIP.PGD with and without IP (at the PGD's IP, at the FUP)
gen tsxbad 0 --at 20:tsx:1:0,fup --at 22:tsx:1:1,fup,tip --at 25:tsx:0:0,fup \
	--at 40:fup,pgd,tsx:1:1,pge --at 42:fup,pgd0,tsx:1:1,pge --at pgd1:tsx:1:1
# FUPs a TIP or TIP.PGD follows met after an error (perf's walk_to_ip
# takes the FUP's IP, in sync there: the TIP is the next indirect
# branch's, a conditional branch before it a mismatch): after a FUP
# missed (ERR_RESYNC, last IP kept: a 2-byte FUP counts) and after a
# failed fetch into unmapped code (NO_IP: the 2-byte FUP is not read,
# the TIP after it taken); perf's branch into the unmapped code shows
# its target
gen rsfup 0 --at 8:fup+1,fup,tip --at 20:fup+1,fup,tip \
	--at 30:fup+1,fup,pgd,pge --at 40:fup+1,fup+1,tip
gen rsfup2 0 --at 8:fup+1,raw:3d94f3,tip --at 12:tip+0x7000000,fup,tip \
	--at 19:tip+0x7000000,raw:3d60ff,tip
gen rsfup3 0 --at 8:tip+0x7000000,fup,tip
# MODE.Exec with CS.L and CS.D both set (perf's packet decoder: a bad
# packet, intel_pt_get_mode; libipt reads it): alone, before a FUP and
# TIP, before a MODE.TSX and its FUP, with tracing off, between a
# TIP.PGD and a TIP.PGE, before a lone FUP, between a FUP and its TIP
# (perf: no branch at the FUP, the TIP one of its own)
gen modebad 0 --at 10:raw:9903 --at 20:raw:9903,fup,tip \
	--at 30:raw:9903,tsx:1:0,fup --at pgd0:raw:9903 \
	--at 40:fup,pgd,raw:9903,pge --at 50:raw:9903,fup --at 55:fup,raw:9903,tip
# FUPs with tracing off (perf's decoder forgets the last instruction it
# walked: a trace start then shows no bytes)
gen fupoff 0 --at pgd0:fup --at pgd2:fup+4
# asynchronous branches without TSX: to a TIP, a TIP.PGD without IP
# (tr end async) and with one (an interrupt to it and a trace end);
# perf script shows the FUP's instruction, a trace start after them
# none (timeless: perf's time after the TIP.PGE put in is its estimate)
gen async 0 --at 40:fup,tip --at 42:fup,pgd0,pge --at 44:fup,pgd,pge
# an abort's FUP that no TIP follows, a MODE.TSX begin and its FUP right
# after it (at the FUP, an instruction further on): perf fails at the
# abort and takes the flow up at the begin's FUP (in the transaction)
python3 tests/live/ptsynth.py "$E" "$T_TMP/tsxrs.data" --at 30:tsx:1:0,fup \
	--at 33:tsx:0:1,fup,tsx:1:0,fup+4 --at 45:tsx:0:1,fup,tsx:1:0,fup \
	>/dev/null 2>"$T_TMP/gen.err" ||
	fail pt_synth:gen:tsxrs "$(tail -1 "$T_TMP/gen.err")"
# CBR packets outside a PSB+ (perf: the ip where the flow stands), one
# that repeats the ratio (no sample), pwr_evt or not
gen cbr 0 --at 5:cbr:0x30 --at 6:cbr:0x30 --at 20:cbr:0x18 \
	--at 33:cbr:0x20 --at 47:ptw:0x10,cbr:0x28
# CYC packets (cyc config bit 0x2) after every TIP, 1 to 3 bytes: perf's
# IPC on branch and instruction samples (-F ipc)
_c=
for _i in $(seq 0 85); do
	_c="$_c --at $_i:cyc:$((_i * 37 % 500 + 1 + (_i % 9 == 4) * 70000))"
done
gen cyc 0x2 $_c
n=0
live() { # NAME FILE ARGS...
	_ln=$1 _lf=$2
	shift 2
	n=$((n + 1))
	(cd "$R/echo" && perf --buildid-dir "$T_TMP/bid" script "$@" -i "$T_TMP/$_lf") \
		>"$T_TMP/perf" 2>"$T_TMP/perf.err"
	(cd "$R/echo" && "$PK" script "$@" -i "$T_TMP/$_lf") \
		>"$T_TMP/pk" 2>"$T_TMP/pk.err"
	_lr=$?
	check "pt_synth:$_ln:$_lf" "rc=$_lr $(head -1 "$T_TMP/pk.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
		$_lr -eq 0 -a -s "$T_TMP/perf" -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
}
for f in ptw.data ptw.tsc.data; do
	live w "$f" --itrace=w
	live default "$f"
	live bw-flags "$f" --itrace=bw -F +flags
	live i1iw "$f" --itrace=i1iw
	live cwg "$f" --itrace=cwg
	live w-fields "$f" --itrace=w -F +flags,+addr,+ip,+sym,+insn,+insnlen
	live q-i "$f" --itrace=iq
	live q-b "$f" --itrace=bq
done
for f in pwr.data pwr.tsc.data; do
	live p "$f" --itrace=p
	live default "$f"
	live bp-flags "$f" --itrace=bp -F +flags
	live i1ip "$f" --itrace=i1ip
	live cpg "$f" --itrace=cpg
	live p-fields "$f" --itrace=p -F +flags,+addr,+ip,+sym,+insn
	live q-i "$f" --itrace=iq
done
for f in both.data both.tsc.data; do
	live pw "$f" --itrace=pw
	live default "$f"
	live e-synth "$f" --itrace=pwe -F ip,event,synth
done
for f in tsx.data tsx.tsc.data; do
	live x "$f" --itrace=x
	live default "$f"
	live x-flags "$f" --itrace=x -F +flags
	live bx-flags "$f" --itrace=bx -F +flags
	live i1ix-flags "$f" --itrace=i1ix -F +flags
	live call-ret-trace "$f" --call-ret-trace
	live xg "$f" --itrace=xg
	live wx-flags "$f" --itrace=wx -F +flags
	live q-ibx-flags "$f" --itrace=ibxq -F +flags
	live xl "$f" --itrace=xl -F +brstack
done
for f in tsxab.data tsxab.tsc.data tsxend.data; do
	live abort-x "$f" --itrace=x
	live abort-x-fields "$f" --itrace=x -F +flags,+addr,+ip,+insn,+insnlen
	live abort-bx-flags "$f" --itrace=bx -F +flags
	live abort-i1ix-flags "$f" --itrace=i1ix -F +flags
	live abort-b "$f" --itrace=b
	live abort-default "$f"
	live abort-i100ix "$f" --itrace=i100ix
	live abort-cr-flags "$f" --itrace=cr -F +flags
	live abort-call-ret-trace "$f" --call-ret-trace
	live abort-xg "$f" --itrace=xg
	live abort-xl "$f" --itrace=xl -F +brstack
	live abort-bxe-insn "$f" --itrace=bxe -F +flags,+insn,+insnlen
done
for f in tsxab.data tsxab.tsc.data tsxend.data; do
	live abort-q-ibx-flags "$f" --itrace=ibxq -F +flags
	live abort-q-bx "$f" --itrace=bxq
	live abort-q-i "$f" --itrace=iq
	live abort-q-b "$f" --itrace=bq
	live abort-q-ibxe "$f" --itrace=ibxeq
done
# (timed files with bad packets: below, with perf's estimated times)
for f in lonefup.data lonefup.tsc.data tsxbad.data async.data \
	async.tsc.data tsxrs.data fupmiss.data fupmiss.tsc.data modebad.data \
	modebad.tsc.data rsfup.data rsfup.tsc.data rsfup2.data; do
	live q-ibxe-flags "$f" --itrace=ibxeq -F +flags
	live q-be "$f" --itrace=beq
done
for f in lonefup.data tsxbad.data fupoff.data fupoff.tsc.data async.data \
	tsxrs.data fupmiss.data modebad.data rsfup.data rsfup2.data \
	rsfup3.data; do
	live fup-bxe-flags "$f" --itrace=bxe -F +flags
	live fup-be-insn "$f" --itrace=be -F +insn
	live fup-i1ibxe "$f" --itrace=i1ibxe -F +flags,+insn
	live fup-cre "$f" --itrace=cre -F +flags,+insn
	live fup-call-ret-trace "$f" --call-ret-trace
	live fup-i100ie "$f" --itrace=i100ie
	live fup-bxle "$f" --itrace=bxle -F +brstack
done
for f in cbr.data cbr.tsc.data; do
	live p "$f" --itrace=p
	live p-fields "$f" --itrace=p -F +flags,+insn,+ip,+addr
	live bp-flags "$f" --itrace=bp -F +flags
	live call-ret-trace "$f" --call-ret-trace
	live i1ipg "$f" --itrace=i1ipg
	# a trace start shows the bytes of the last instruction perf's
	# decoder walked (the syscall before it)
	live b-insn "$f" --itrace=b -F +insn
	live cr-insn-flags "$f" --itrace=cr -F +insn,+flags
done
# (the times of a file with CYC are perf's cycle-based estimates: not
# perfkit's yet, so the timed file is checked without times)
for f in cyc.data cyc.tsc.data; do
	live b-ipc "$f" --itrace=b -F ip,addr,flags,ipc
	live i1i-ipc "$f" --itrace=i1i -F ip,ipc
	live bi1i-ipc "$f" --itrace=bi1i -F ip,ipc,flags
	live i10i-ipc "$f" --itrace=i10i -F ip,sym,ipc
	live cr-ipc "$f" --itrace=cr -F ip,ipc,flags
	live A-ipc "$f" --itrace=bA -F ip,ipc
done
live b-ipc-plus cyc.data --itrace=b -F +ipc
# event trace (I, the event_trace config bit 0x80000000): CFEs with
# their IP bit and a FUP (known and unnamed types, EVDs of perf's three
# names and others, in order), one without IP bit and with tracing on
# (perf: at the next FUP, here a PTWRITE's, and a branch from it to 0;
# at a MODE.TSX's FUP without the IP flag), others with tracing off
# (after a syscall's TIP.PGD: at the syscall), one without IP bit that
# no FUP follows (none), PTWRITE and TSX samples beside them
gen evt 0x80001020 --at 9:raw:02138320,fup \
	--at 12:raw:02530100000000000000aa,raw:02138e00,fup --at 20:raw:02130300 \
	--at 23:ptwip:0x41,fup \
	--at 26:raw:02130b07,raw:0253020100000000000000,raw:02533f0200000000000000,raw:02130900,tsx:1:0,fup \
	--at 28:tsx:0:0,fup --at pgd0:raw:02130120 \
	--at pgd2:raw:0253000000000012340000,raw:02130520 --at 40:raw:0213a000,fup \
	--at 60:raw:02130300
for f in evt.data evt.tsc.data; do
	live I "$f" --itrace=I
	live bI-flags "$f" --itrace=bI -F +flags
	live i1iIwx-flags "$f" --itrace=i1iIwx -F +flags
	live Ibg "$f" --itrace=Ibg
	live Iwxe-synth "$f" --itrace=Iwxe -F +synth
	live I-fields "$f" --itrace=I -F +flags,+addr,+ip,+insn
	live Il "$f" --itrace=Il -F +brstack
	live call-ret-trace "$f" --call-ret-trace
	live xl "$f" --itrace=xl -F +brstack
done
# the Cap Event Trace word in AUXTRACE_INFO: perf adds the iflag event
# and flags every sample D (the interrupt flag of ptgen's MODE.Exec is
# 0), but power and ptwrite samples at ip 0; script -D shows the word
python3 tests/live/ptsynth.py "$E" "$T_TMP/cap.data" --cap-event-trace 1 \
	--config 0x80001030 --at 9:raw:02138320,fup --at 20:raw:02130300 \
	--at 23:ptwip:0x41,fup --at 26:tsx:1:0,fup --at 28:tsx:0:0,fup \
	--at pgd0:raw:02130120 --at 33:ptw:0x33,mwait:0x10:0,exstopip,fup \
	--at 40:cbr:0x20 >/dev/null 2>"$T_TMP/gen.err" ||
	fail pt_synth:gen:cap "$(tail -1 "$T_TMP/gen.err")"
live cap-bI-flags cap.data --itrace=bI -F +flags
live cap-i1iIwx-flags cap.data --itrace=i1iIwx -F +flags
live cap-Ipwxe-synth cap.data --itrace=Ipwxe -F +synth,+flags
live cap-call-ret-trace cap.data --call-ret-trace
live cap-dump cap.data -D
# iflag samples (I with cap_event_trace): MODE.Exec changing the
# interrupt flag at a FUP no TIP follows (non branch; perf's instruction
# sample of the FUP's instruction in the same state with i1i), before an
# indirect branch's TIP (via branch; the branch flagged t), at a trace
# start (ptgen's own MODE.Exec IF:0 after the flag was 1)
gen iflag 0x80000000 --cap-event-trace 1 --at 9:raw:9905,fup \
	--at 15:raw:9901 --at 30:raw:9905 --at 40:raw:9901,fup \
	--at 45:raw:9905,fup,raw:02130300
for f in iflag.data iflag.tsc.data; do
	live iflag-I "$f" --itrace=I
	live iflag-I-fields "$f" --itrace=I -F +flags,+addr,+ip,+insn
	live iflag-bI-flags "$f" --itrace=bI -F +flags,+addr
	live iflag-i1iI-flags "$f" --itrace=i1iI -F +flags
	live iflag-i1ibI-insn "$f" --itrace=i1ibI -F +flags,+insn
	live iflag-Ibg "$f" --itrace=Ibg
	live iflag-Il "$f" --itrace=Il -F +brstack
	live iflag-Ie-synth "$f" --itrace=Ie -F +synth,+flags
	live iflag-call-ret-trace "$f" --call-ret-trace
done
# a CFE waiting for its FUP, then an EVD after it (perfkit's flow decoder
# once spun there): perf's samples, at once
python3 tests/live/ptsynth.py "$E" "$T_TMP/cfe.data" --config 0x80000000 \
	--at 9:raw:02130300 --at 12:raw:02530100000000000000aa,raw:02138e00,fup \
	>/dev/null 2>"$T_TMP/gen.err" || fail pt_synth:gen:cfe "$(tail -1 "$T_TMP/gen.err")"
(cd "$R/echo" && timeout 60 "$PK" script --itrace=Ie -i "$T_TMP/cfe.data") \
	>"$T_TMP/pk" 2>&1
_cr=$?
(cd "$R/echo" && perf --buildid-dir "$T_TMP/bid" script --itrace=Ie -i "$T_TMP/cfe.data") \
	>"$T_TMP/perf" 2>&1
check pt_synth:cfe-evd "rc $_cr: $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
	$_cr -eq 0 -a -n "$(grep 'VMXQ' "$T_TMP/pk")" -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
# PEBS via Intel PT (o): a cycles/aux-output/ppp event (ADDR, PERIOD,
# WEIGHT, TRANSACTION, REGS_INTR, WEIGHT_STRUCT) beside intel_pt, its
# records as block packets: GP registers (8- and 4-byte items), basic
# (ip, applicable counters, TSC) and memory blocks (address, latency in
# both formats, TSX aux info: weight and transaction) in one record and
# alone, BEP without IP (where the flow stands) and BEP.IP with its FUP,
# inside a transaction, with tracing off, beside a PTWRITE, an empty
# record, records without ip items (the flow's ip)
_pb="--pebs 17187080:0x30c"
gen pebs 0 $_pb \
	--at 3:bbp:1,bip:0:0x246,bip:1:0x401234,bip:2:0x1000001,bip:3:0x22,bbp:4,bip:0:0x401100,bip:1:1,bip:2:0x100000500,bbp:5,bip:0:0x7fff0000,bip:2:0x55,bip:3:0x300000007,bep \
	--at 9:bbp:4,bip:0:0x401777,bepip,fup --at 12:bbp:5,bip:0:0x1234,bip:2:0x0000000700000009,bep \
	--at 20:bbp4:1,bip:0:0x202,bip:2:0x33,bip:3:0x44,bip:1:0x401999,bep \
	--at 25:bbp:1,bip:2:5,bip:3:6,bepip,fup \
	--at 30:bbp:4,bip:2:0x100001234,bip:0:0x401555,bep,tsx:1:0,fup,bbp:5,bip:3:0x100000000,bep \
	--at 32:tsx:0:0,fup --at 40:bbp:5,bip:1:0x99,bep --at 41:bep \
	--at pgd0:bbp:4,bip:0:0x402222,bep \
	--at 50:ptw:0x77,bbp:5,bip:0:0x88,bepip,fup,bbp:1,bip:1:0x401010,bep
for f in pebs.data pebs.tsc.data; do
	live pebs-o "$f" --itrace=o
	live pebs-bo "$f" --itrace=bo
	live pebs-default "$f"
	live pebs-fields "$f" --itrace=o -F +addr,+weight
	live pebs-pick "$f" --itrace=o -F ip,addr,weight,period,event
	live pebs-insn "$f" --itrace=o -F +insn
	live pebs-bo-insn "$f" --itrace=bo -F +insn,+flags
	live pebs-ixo-flags "$f" --itrace=ixo -F +flags
	live pebs-wox-flags "$f" --itrace=wox -F +flags
	live pebs-ogb "$f" --itrace=ogb
	live pebs-i100io "$f" --itrace=i100io
	live pebs-ol "$f" --itrace=ol
done
# -F iregs: the registers of the event's mask, named as perf names them,
# 8- and 4-byte items (ABI 2 and 1); every record gives every register
# of the mask (perf prints what its stack holds for one missing)
gen pebsregs 0 --pebs 17187080:0x30c \
	--at 3:bbp:1,bip:0:0x246,bip:1:0x401234,bip:3:0x22,bip:4:0x33,bep \
	--at 20:bbp4:1,bip:0:0x202,bip:1:0x401999,bip:3:0x44,bip:4:0x55,bepip,fup \
	--at 30:bbp:1,bip:4:0x7,bip:3:0x8,bip:1:0x401555,bip:0:0x2,bep
for f in pebsregs.data pebsregs.tsc.data; do
	live pebs-iregs "$f" --itrace=o -F +iregs
	live pebs-iregs-only "$f" --itrace=o -F ip,iregs
done
# perf reads back one register for each bit of the event's mask, the
# record's given ones packed first (so named after the mask's first
# bits), the rest what its event buffer held: the last PEBS sample's
# (the first record gives all four, the others fewer or none)
gen pebscarry 0 --pebs 17187080:0x30c \
	--at 3:bbp:1,bip:0:0x246,bip:1:0x401234,bip:3:0x22,bip:4:0x33,bep \
	--at 20:bbp:1,bip:3:0x44,bepip,fup \
	--at 30:bbp:1,bip:4:0x7,bip:1:0x401555,bep --at 35:bbp:4,bip:0:0x401100,bep \
	--at 40:bbp4:1,bip:0:0x202,bep
for f in pebscarry.data pebscarry.tsc.data; do
	live pebs-carry-iregs "$f" --itrace=o -F ip,iregs
	live pebs-carry-q-iregs "$f" --itrace=qio -F +iregs,+weight
done
# q (perf's hop mode: no code walked, IPs from TIP, FUP and PSB+ packets)
# with the event samples: perf's intel_pt_fup_event gives a FUP's state
# the events that waited for it (PTWRITE, EXSTOP, CFE and BEP with IP,
# MWAIT and PWRE, MODE.Exec, MODE.TSX), in perf's sample order, at the
# FUP's IP, all with the state's flags; the others make a state of their
# own where the last IP stands; -F insn shows the bytes at the ip
for f in ptw.data ptw.tsc.data both.data both.tsc.data; do
	live q-w-synth "$f" --itrace=qpw -F +flags,+addr,+synth
	live q-ipwb-insn "$f" --itrace=qipwb -F +flags,+insn
done
for f in pwr.data pwr.tsc.data; do
	live q-p-synth "$f" --itrace=qp -F +flags,+addr,+synth
	live q-ipb-insn "$f" --itrace=qipb -F +flags,+insn
done
for f in evt.data evt.tsc.data iflag.data iflag.tsc.data cap.data; do
	live q-I-synth "$f" --itrace=qIpwx -F +synth,+flags,+addr
	live q-iIb-insn "$f" --itrace=qiIb -F +flags,+insn
	live q-Ig "$f" --itrace=qIg
done
for f in pebs.data pebs.tsc.data; do
	live q-o "$f" --itrace=qo -F +addr,+weight
	live q-iob-flags "$f" --itrace=qiob -F +flags
done
live q-o-iregs pebsregs.tsc.data --itrace=qio -F +iregs
# the FUP's events together: a CFE without IP bit (tracing on) before a
# FUP and TIP (an evt sample in the asynchronous branch's state) and
# before a PTWRITE's FUP (IP: 1, and a branch from the FUP to 0), a
# MODE.Exec that does not change the flag at a FUP (an iflag sample all
# the same), one without FUP (the change at the next TIP), an MWAIT
# before a FUP and TIP (no TIP for the FUP: two states), EXSTOP and PWRX
# without IP, a CFE before a MODE.TSX begin (IP: 0: the transaction's
# flags replace the FUP's), MWAIT and PWRE with a begin, a BEP.IP's FUP
# before a TIP, a CFE with IP bit and no FUP (lost), EVDs before CFEs
gen qev 0x80001030 --cap-event-trace 1 --pebs 17187080:0x30c \
	--at 5:raw:02130300,fup,tip --at 10:raw:02130300,ptwip:0x41,fup \
	--at 15:raw:9901,fup --at 20:raw:9905 --at 30:mwait:0x10:0,fup,tip \
	--at 35:exstop,pwrx:1:2:3 --at 40:raw:02130300,tsx:1:0,fup \
	--at 42:tsx:0:0,fup --at 45:mwait:0x20:1,pwre:0:2:1,tsx:1:0,fup \
	--at 47:tsx:0:0,fup --at 50:bbp:4,bip:0:0x401234,bepip,fup,tip \
	--at 55:ptwip:0x42,fup+1 --at 60:raw:02138320 \
	--at 62:raw:0253010000000000000011,raw:02138e00,fup,raw:02130b00,fup,tip
for f in qev.data qev.tsc.data; do
	live q-all-flags "$f" --itrace=qipwIxob -F +flags,+addr,+insn
	live q-events-synth "$f" --itrace=qIpwxo -F +synth,+flags,+addr
	live q-events-e "$f" --itrace=qpwIxoe -F +synth,+ip,+addr
	live q-events-g "$f" --itrace=qIpwxg
	live q-events-l "$f" --itrace=qIpwxl -F +brstack
	live qq-all "$f" --itrace=qqipwIxob -F +flags
	# full decoding: an MWAIT and PWRE at a TSX begin's FUP take its
	# flags (x); the branch from a FUP to 0 of a CFE without IP bit
	# shows the bytes at the FUP
	live full-bpwxe-insn "$f" --itrace=bpwxe -F +flags,+insn,+addr
	live full-i1ibpwxe "$f" --itrace=i1ibpwxe -F +flags
	live full-pwx-synth "$f" --itrace=pwx -F +synth,+flags,+addr
done
# perf's estimated times in timed files (intel_pt_est_timestamp: its
# time plus two cycles an instruction walked since that changed): at
# errors (the instructions its walk counts: those up to a branch count
# from the time after the packet that branch needs, the failing one
# too), at every trace start into user space (a TIP.PGE put in without
# a TSC), after a bad packet (perf reads its second byte as a CYC: the
# count restarts, its time may move on from the last CBR's)
for f in lonefup.tsc.data fupmiss.tsc.data modebad.tsc.data \
	rsfup.tsc.data async.tsc.data tsxbad.tsc.data tsxend.tsc.data; do
	live est-bxe-ns "$f" --itrace=bxe -F +flags --ns
	live est-i1ibe-ns "$f" --itrace=i1ibe --ns
	live est-i100ie-ns "$f" --itrace=i100ie --ns
	live est-q-ibxe-ns "$f" --itrace=ibxeq -F +flags --ns
done
# y (cycles): perf 6.1 has no such letter: its one line, exit 129
for a in y i10iy; do
	(cd "$R/echo" && perf script --itrace=$a -i "$T_TMP/cbr.data") \
		>"$T_TMP/perf" 2>"$T_TMP/perf.err"
	_pr=$?
	(cd "$R/echo" && "$PK" script --itrace=$a -i "$T_TMP/cbr.data") \
		>"$T_TMP/pk" 2>"$T_TMP/pk.err"
	_kr=$?
	check "pt_synth:refuse:$a" "rc $_kr (perf $_pr): $(head -1 "$T_TMP/pk.err")" \
		$_kr -eq $_pr -a ! -s "$T_TMP/pk" -a \
		"$(head -1 "$T_TMP/perf.err")" = "$(cat "$T_TMP/pk.err")"
done
# inject: perf script reads perfkit's synthesized samples as perf's
for f in pwr.tsc.data both.data tsx.data evt.tsc.data tsxab.tsc.data; do
	(cd "$R/echo" &&
	 perf --buildid-dir "$T_TMP/bid" inject --itrace=bpwxI -i "$T_TMP/$f" -o "$T_TMP/inj.perf" &&
	 "$PK" inject --itrace=bpwxI -i "$T_TMP/$f" -o "$T_TMP/inj.pk") \
		>/dev/null 2>"$T_TMP/inj.err"
	_ir=$?
	perf script -i "$T_TMP/inj.perf" >"$T_TMP/perf" 2>&1
	perf script -i "$T_TMP/inj.pk" >"$T_TMP/pk" 2>&1
	check "pt_synth:inject:$f" "rc=$_ir $(head -1 "$T_TMP/inj.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
		$_ir -eq 0 -a "$(wc -l <"$T_TMP/perf")" -gt 3 -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
done
# inject o: perf 6.1's own inject output of the PEBS file does not read
# back ("Can't parse sample"), so perf script on perfkit's output is
# compared with perf script --itrace=bo on the file (timeless: the same
# order; with TSC perf sorts the PEBS samples by their own times)
(cd "$R/echo" && "$PK" inject --itrace=bo -i "$T_TMP/pebs.data" -o "$T_TMP/inj.pk") \
	>/dev/null 2>"$T_TMP/inj.err"
_ir=$?
(cd "$R/echo" && perf --buildid-dir "$T_TMP/bid" script --itrace=bo -i "$T_TMP/pebs.data") \
	>"$T_TMP/perf" 2>&1
perf script -i "$T_TMP/inj.pk" >"$T_TMP/pk" 2>&1
check pt_synth:inject:pebs.data "rc=$_ir $(head -1 "$T_TMP/inj.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
	$_ir -eq 0 -a -n "$(grep aux-output "$T_TMP/pk")" -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
t_exit
