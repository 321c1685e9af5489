#!/bin/sh
# perfkit script decodes the Intel PT in perf.data as perf script 6.1 does,
# byte for byte: ../shared/tools/ptperf makes perf.data files carrying the
# Intel PT of real busybox runs (true, echo, awk) that perf decodes exactly
# here, and stores what perf prints for each option set (make-refs.sh);
# every stored script command is run again with perfkit in perf's place.
# Then option sets perf is asked live on the same files (defaults, mixed
# letters, -F sets, timestamps, filters), and the file whose PT is cut
# inside packets (perf.midsplit.data): perf 6.1 loses the trace there,
# perfkit joins the pieces and gives the run's exact instruction sequence.
# pk-test: check slow shards=2
. tests/lib/sh.sh
need_cmd pt_itrace perf "perf is not installed"
need_cmd pt_itrace qemu-x86_64 "qemu-user is not installed (ptgen runs busybox under it)"
need_cmd pt_itrace gzip "gzip is not installed"
for f in /usr/include/intel-pt.h /usr/include/Zydis/Zydis.h /bin/busybox; do
	[ -e "$f" ] || { skip pt_itrace "$f is missing (ptgen needs it)"; exit 0; }
done
need_shared tools/ptperf/make-refs.sh pt_itrace || { t_exit; exit; }
need_built pt_itrace "$PERFKIT"
PK=$(cd "$(dirname "$PERFKIT")" && pwd)/$(basename "$PERFKIT")
export LC_ALL=C TZ=UTC PERF_PAGER=cat
R=$T_TMP/refs
if ! "$PK_SHARED/tools/ptperf/make-refs.sh" "$R" --only true,echo,awk \
	>"$T_TMP/refs.log" 2>&1; then
	fail pt_itrace:refs "make-refs.sh: $(tail -2 "$T_TMP/refs.log" | tr '\n' '|')"
	t_exit
	exit
fi
prefix="perf --buildid-dir /nonexistent"
n=0
# The stored references: report and header ones belong to other commands.
for cmdf in "$R"/*/refs/*.cmd; do
	d=$(dirname "$(dirname "$cmdf")")
	w=$(basename "$d") id=$(basename "$cmdf" .cmd)
	case $id in header|midsplit-*) continue ;; esac
	n=$((n + 1))
	t_part $n || continue
	cmd=$(cat "$cmdf")
	(cd "$d" && sh -c "$PK${cmd#"$prefix"}") >"$T_TMP/pk" 2>"$T_TMP/pk.err"
	rc=$?
	zcat "$d/refs/$id.txt.gz" >"$T_TMP/perf"
	# (e: these runs decode without an error: nothing, as perf)
	check "pt_itrace:$w:$id" "rc=$rc $(head -1 "$T_TMP/pk.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
		$rc -eq 0 -a \( -s "$T_TMP/perf" -o "$id" = e \) -a \
		-z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
done
# Live: perf and perfkit on the same file with the same options.
live() { # NAME FILE ARGS...
	_ln=$1 _lf=$2
	shift 2
	n=$((n + 1))
	t_part $n || return 0
	(cd "$R/$(dirname "$_lf")" && $prefix script "$@" -i "$(basename "$_lf")") \
		>"$T_TMP/perf" 2>"$T_TMP/perf.err"
	(cd "$R/$(dirname "$_lf")" && "$PK" --buildid-dir /nonexistent script "$@" \
		-i "$(basename "$_lf")") >"$T_TMP/pk" 2>"$T_TMP/pk.err"
	_lr=$?
	check "pt_itrace:live:$_ln" "rc=$_lr $(head -1 "$T_TMP/pk.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
		$_lr -eq 0 -a -s "$T_TMP/perf" -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
}
live default echo/perf.data
live default-awk awk/perf.data
live bare echo/perf.data --itrace
live bx echo/perf.data --itrace=bx
live i1ib awk/perf.data --itrace=i1ib
live cr awk/perf.data --itrace=cr
live plus-flags echo/perf.data --itrace=b -F +flags
live no-addr echo/perf.data --itrace=b -F -period
live comm-tid-ip-addr echo/perf.data --itrace=b -F comm,tid,ip,addr
live ip-sym-dso awk/perf.data --itrace=i33i -F ip,sym,dso
live insnlen echo/perf.data --itrace=i7ie -F +insnlen,+insn
live i-flags-addr awk/perf.data --itrace=i1ibp -F ip,event,flags,addr
live tsc-i1ibp awk/perf.tsc.data --itrace=i1ibp -F time,ip,event,flags,addr --ns
# runs of i samples printed from a line template (the address only
# differs): with the head, time, period and samples of other kinds between
live run-head-tsc awk/perf.tsc.data --itrace=i1ibe -F comm,tid,time,period,event,ip
live run-i2-cpu echo/perf.tsc.data --itrace=i2ip -F cpu,time,ip,event --ns
live run-i1-ipflags awk/perf.data --itrace=i1i -F ip,flags
# branches alone (the lean walk), with time: as the time decoded up to
# moves, and held samples
live tsc-b awk/perf.tsc.data --itrace=b
live tsc-b-fields echo/perf.tsc.data --itrace=b -F time,ip,addr,flags --ns
live tsc-b-cr awk/perf.tsc.data --itrace=cr -F comm,tid,time,ip,sym,addr,flags
live tsc-default echo/perf.tsc.data
live tsc-call-ret awk/perf.tsc.data --call-ret-trace
live tsc-us awk/perf.tsc.data --itrace=b -F time,ip,addr
live one-chunk awk/perf.1chunk.data --itrace=r
live callchain awk/perf.data --itrace=i100ig
live callchain-tsc awk/perf.tsc.data --itrace=i10ig32
live callchain-branches echo/perf.data --itrace=bi50ig
live ticks-ns awk/perf.data --itrace=i1000ns
live ticks-us-tsc awk/perf.tsc.data --itrace=i10us
live ticks-t awk/perf.data --itrace=i64t
live ticks-p-g echo/perf.data --itrace=i1usbpg
# callindent asked for by -F keeps the thread stacks (perf: hardware
# events' fields); side-band lines among the samples, the exit after the
# samples its thread's trace gave (timeless: decoded at the exit)
live plus-callindent awk/perf.data --itrace=cr -F +callindent
live show-task echo/perf.data --itrace=be --show-task-events --show-mmap-events
live show-task-tsc echo/perf.tsc.data --itrace=b --show-task-events
live plus-cpu echo/perf.data --itrace=i100i -F +cpu
# quick decoding: q takes the IPs of TIP/FUP/TIP.PGE/PSB+ (no code
# walked, period 1), qq those of PSB+ FUPs only
live q-b awk/perf.data --itrace=bq
live q-i awk/perf.data --itrace=iq
live q-i-period awk/perf.tsc.data --itrace=i100iq
live q-ibpe-flags awk/perf.tsc.data --itrace=ibpqe -F +flags,+addr
live q-callchain awk/perf.data --itrace=iqg
live qq-ip echo/perf.tsc.data --itrace=ipqq
live qq-i awk/perf.data --itrace=iqq -F +flags
# letters of several options add up, whatever their order
live letters-add echo/perf.data --itrace=iq --call-ret-trace
live letters-add2 echo/perf.data --call-trace --itrace=i10000i
# l: the last branches on the synthesized samples (-F brstack...)
live lbr awk/perf.data --itrace=i100il4 -F +brstack
live lbr-sym echo/perf.data --itrace=i1il7 -F ip,brstacksym
live lbr-off-tsc-p awk/perf.tsc.data --itrace=i10uspl -F ip,brstackoff
live lbr-g awk/perf.data --itrace=i1000igl2 -F +brstacksym
live lbr-b echo/perf.data --itrace=bil3 -F +brstack
live lbr-1024 awk/perf.data --itrace=i100il1024 -F ip,brstack
# s: the first samples skipped (their instructions in the next's period)
live skip awk/perf.data --itrace=i100is100
live skip-cr echo/perf.data --itrace=crs10
live skip-l awk/perf.data --itrace=i1000ils50 -F +brstack
live skip-ticks awk/perf.tsc.data --itrace=i10usps1 -F +period
# --time with timestamps: perf's time filter in the decoder (fast
# forward to the PSB before a range, first i period carrying the
# instructions skipped over, thread stacks from the range's start, a CBR
# left out shown at the first state kept, decoding stopped past the end)
live time-b awk/perf.tsc.data --itrace=b --time 4.2952,4.2953
live time-i100i awk/perf.tsc.data --itrace=i100i --time 4.2952,4.2953
live time-open-end awk/perf.tsc.data --itrace=i1000i --time 4.2955,
live time-open-start awk/perf.tsc.data --itrace=i1000i --time ,4.2951
live time-callindent awk/perf.tsc.data --itrace=cr -F +callindent --time 4.2960,4.2962
live time-g awk/perf.tsc.data --itrace=i100ig --time 4.2955,4.2958
live time-ranges awk/perf.tsc.data --itrace=i100i --time '4.2952,4.29521 4.29522,4.29523 4.2970,'
live time-ranges-psb awk/perf.tsc.data --itrace=i1000i --time '4.2960,4.2961 4.2975,4.2980'
live time-ranges-call-ret awk/perf.tsc.data --call-ret-trace --time '4.2950,4.2951 4.2960,4.2961 4.2975,4.2980'
live time-ranges-bi-g awk/perf.tsc.data --itrace=bi37ig --time '4.2952,4.29521 4.29522,4.29523 4.2970,'
live time-echo echo/perf.tsc.data --itrace=i100i --time '4.29497,4.294971 4.29499,4.295'
live time-echo-be echo/perf.tsc.data --itrace=be --time 4.294990,
# timeless: perf sets no range and keeps samples without a time
live time-timeless echo/perf.data --itrace=cr -F +callindent --time 4.2952,4.2953
# branch samples show perf's branch layout alone (perf_sample__fprintf_bts):
# no weight, data_src, phys_addr or branch stack columns even when asked
live bts-mem-fields echo/perf.data --itrace=bl -F +weight,+data_src,+phys_addr
live bts-brstack echo/perf.data --itrace=bl -F +brstack
live i-brstack echo/perf.data --itrace=i100il -F +brstack,+weight
# --xed: perf pipes its output through Intel's xed -F insn: -A -64 (not
# installed here); perfkit puts an AT&T disassembly where xed would:
# every line is perf's --insn-trace line up to " insn:", then two tabs
# and the instruction (none undecodable on a real run; the spelling is
# checked against xed's own lines in test_pt_disasm)
n=$((n + 1))
if t_part $n; then
	tab=$(printf '\t')
	(cd "$R/awk" && $prefix script --insn-trace -i perf.data) \
		2>/dev/null | sed 's/ insn:.*$//' >"$T_TMP/perf"
	(cd "$R/awk" && "$PK" --buildid-dir /nonexistent script --insn-trace \
		--xed -i perf.data) >"$T_TMP/pk" 2>"$T_TMP/pk.err"
	sed "s/ $tab$tab.*\$//" "$T_TMP/pk" >"$T_TMP/pk.pre"
	nx=$(grep -c " $tab$tab[a-z]" "$T_TMP/pk")
	check pt_itrace:xed-layout "$(head -1 "$T_TMP/pk.err"): $nx of $(wc -l <"$T_TMP/perf") lines disassembled; $(first_diff "$T_TMP/perf" "$T_TMP/pk.pre")" \
		-s "$T_TMP/perf" -a "$nx" -eq "$(wc -l <"$T_TMP/perf")" -a \
		-z "$(grep GENERAL_ERROR "$T_TMP/pk")" -a \
		-z "$(cmp "$T_TMP/perf" "$T_TMP/pk.pre" 2>&1)"
fi
# the binary missing (its name changed in the files): decoder errors
# where no code can be read, then the flow taken up as perf takes it up
# (its last IP forgotten: a whole IP or a PSB's, no trace start at the
# PSB), a DSO's first two failed fetches reported and later ones not
for w in echo awk; do
	for v in perf.data perf.tsc.data; do
		t_python -c 'import sys
d = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(d.replace(b"/bin/busybox", b"/bin/busyboX"))' \
			"$R/$w/$v" "$R/$w/miss.$v"
	done
done
live miss-default awk/miss.perf.data
live miss-be-tsc awk/miss.perf.tsc.data --itrace=be
live miss-bep-flags awk/miss.perf.data --itrace=bep -F +flags
live miss-cre-echo echo/miss.perf.tsc.data --itrace=cre
# report --itrace: perf report's text, its random closing tip left out
rlive() { # NAME FILE ARGS...
	_ln=$1 _lf=$2
	shift 2
	n=$((n + 1))
	t_part $n || return 0
	(cd "$R/$(dirname "$_lf")" && $prefix report --stdio "$@" -i "$(basename "$_lf")") 2>/dev/null |
		sed '/^# (Tip: /d' >"$T_TMP/perf"
	(cd "$R/$(dirname "$_lf")" && "$PK" report --stdio "$@" -i "$(basename "$_lf")") \
		2>"$T_TMP/pk.err" | sed '/^# (Tip: /d' >"$T_TMP/pk"
	check "pt_itrace:report:$_ln" "$(head -1 "$T_TMP/pk.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
		-s "$T_TMP/perf" -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
}
rlive i1i awk/perf.data --itrace=i1i
rlive b awk/perf.data --itrace=b
rlive cr awk/perf.data --itrace=cr
rlive n-period awk/perf.data --itrace=i100i -n --show-total-period
rlive dso-sym awk/perf.data --itrace=i100i -s dso,sym
rlive i10ie echo/perf.data --itrace=i10ie
rlive i100ip awk/perf.data --itrace=i100ip
rlive tsc awk/perf.tsc.data --itrace=i50i --sort comm,sym
rlive callchain awk/perf.data --itrace=i100ig
rlive callchain-no-children awk/perf.data --itrace=i100ig --no-children
rlive callchain-caller awk/perf.data --itrace=i1000ig -g caller
rlive default awk/perf.data
rlive default-tsc awk/perf.tsc.data
rlive default-no-children awk/perf.data --no-children
rlive default-echo echo/perf.data
# l: perf report's branch mode (branch samples as stacks of one)
rlive lbr awk/perf.data --itrace=i100il
rlive lbr-b awk/perf.data --itrace=bi100il
rlive lbr-cr awk/perf.data --itrace=crl
rlive lbr-no-branch-stack awk/perf.data --itrace=i100il -n --no-branch-stack
rlive skip awk/perf.data --itrace=i100is50
rlive time-i100i awk/perf.tsc.data --itrace=i100i --time 4.2952,4.2953
rlive time-ranges-g awk/perf.tsc.data --itrace=i100ig --time '4.2952,4.2953 4.2960,4.2961'
rlive time-timeless awk/perf.data --itrace=i100i --time 4.2952,4.2953
# inject --itrace: perf script (and perf report, and perfkit script) read
# perfkit's injected file as perf's own
ilive() { # NAME FILE ARGS...
	_ln=$1 _lf=$2
	shift 2
	n=$((n + 1))
	t_part $n || return 0
	# (perf inject writes into its build-id cache: a directory of the
	# test's, not the references' /nonexistent)
	(cd "$R/$(dirname "$_lf")" &&
	 perf --buildid-dir "$T_TMP/bid" inject "$@" -i "$(basename "$_lf")" -o "$T_TMP/inj.perf" &&
	 "$PK" inject "$@" -i "$(basename "$_lf")" -o "$T_TMP/inj.pk") \
		>/dev/null 2>"$T_TMP/inj.err"
	_lr=$?
	for _lt in "perf script" "perf report --stdio" "$PK script"; do
		_la=	# (ILIVE_F: -F for the script readers)
		case $_lt in *script) _la=$ILIVE_F ;; esac
		$_lt $_la -i "$T_TMP/inj.perf" 2>&1 | grep -v '^# (Tip\|^# captured on\|^# data offset\|^# data size\|^# feat offset' >"$T_TMP/perf"
		$_lt $_la -i "$T_TMP/inj.pk" 2>&1 | grep -v '^# (Tip\|^# captured on\|^# data offset\|^# data size\|^# feat offset' >"$T_TMP/pk"
		check "pt_itrace:inject:$_ln:${_lt##*/}" "rc=$_lr $(head -1 "$T_TMP/inj.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
			$_lr -eq 0 -a "$(wc -l <"$T_TMP/perf")" -gt 3 -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
	done
}
ilive i100i echo/perf.data --itrace=i100i
ilive b awk/perf.data --itrace=b
ilive cr-tsc awk/perf.tsc.data --itrace=cr
ilive i37ip awk/perf.tsc.data --itrace=i37ip
ilive strip echo/perf.data --itrace=i1ie --strip
ilive callchain awk/perf.data --itrace=i100ig
ilive default echo/perf.data --itrace
ilive ticks awk/perf.data --itrace=i10us
# perf-intel-pt(1)'s AutoFDO recipe: branch stacks in the injected file
ILIVE_F="-F +brstack"
ilive autofdo awk/perf.data --itrace=i100usle
ilive autofdo-tsc awk/perf.tsc.data --itrace=i100usle
ilive lbr-i100 echo/perf.data --itrace=i100il8
ILIVE_F=
# perf.midsplit.data: the packets cut between AUXTRACE records are joined
n=$((n + 1))
if t_part $n; then
	(cd "$R/awk" && "$PK" script --itrace=i1i -F ip -i perf.midsplit.data) |
		tr -d ' ' >"$T_TMP/pk" 2>"$T_TMP/pk.err"
	zcat "$R/awk/awk.ips.gz" >"$T_TMP/truth"
	check pt_itrace:midsplit-exact "$(first_diff "$T_TMP/truth" "$T_TMP/pk")" \
		-s "$T_TMP/truth" -a -z "$(cmp "$T_TMP/truth" "$T_TMP/pk" 2>&1)"
	(cd "$R/awk" && "$PK" script --itrace=e -i perf.midsplit.data) \
		>"$T_TMP/pk" 2>"$T_TMP/pk.err"
	check pt_itrace:midsplit-no-errors "$(head -2 "$T_TMP/pk" | tr '\n' '|')" \
		! -s "$T_TMP/pk" -a ! -s "$T_TMP/pk.err"
fi
# A real run's stream (awk, 3.7M instructions) with damage, one byte in
# each 4 KiB at seeds 1-3 (and one in 512 at seed 4): pt decode
# --resync-on-error ends, its work (packets read, instructions walked)
# within ten times the sound stream's. A loop of code with an event
# waiting for an IP it never reaches once went on for ever here.
n=$((n + 1))
if t_part $n && [ -s "$R/awk/awk.pt" ]; then
	dw() { # work of a decode: packets + instructions
		timeout 60 "$PK" pt decode --elf /bin/busybox --quiet \
			--resync-on-error --stat:work --pt "$1" 2>/dev/null |
			sed -n 's/^work: \([0-9]*\) packets, \([0-9]*\) insns.$/\1 \2/p' |
			awk '{ print $1 + $2 }'
	}
	sound=$(dw "$R/awk/awk.pt")
	for seed in 1 2 3 4; do
		t_python - "$R/awk/awk.pt" "$T_TMP/dmg.pt" $seed <<'PY'
import random, sys
d = bytearray(open(sys.argv[1], 'rb').read())
seed = int(sys.argv[3])
step = 512 if seed == 4 else 4096
rnd = random.Random(seed)
for i in range(0, len(d), step):
    j = i + rnd.randrange(step)
    if j < len(d):
        d[j] = rnd.randrange(256)
open(sys.argv[2], 'wb').write(d)
PY
		w=$(dw "$T_TMP/dmg.pt")
		check "pt_itrace:damaged-work-seed$seed" "work ${w:-none} (timed out?), sound ${sound:-none}" \
			-n "$w" -a -n "$sound" -a "${sound:-0}" -gt 1000000 -a \
			"${w:-0}" -le $((${sound:-0} * 10))
	done
fi
# An AUX record whose buffer overflowed (flags TRUNCATED): perf's "Lost
# trace data" error at once and its closing warnings, stdout and stderr
n=$((n + 1))
if t_part $n; then
	cp "$R/echo/perf.data" "$T_TMP/trunc.data"
	off=$("$PK" report -D -i "$T_TMP/trunc.data" 2>/dev/null |
		sed -n 's/^\(0x[0-9a-f]*\) \[0x30\]: PERF_RECORD_AUX .*/\1/p' | head -1)
	if [ -n "$off" ]; then
		printf '\001' | dd of="$T_TMP/trunc.data" bs=1 seek=$((off + 24)) \
			conv=notrunc 2>/dev/null
	fi
	for o in --itrace=e --itrace=be -D; do
		(cd "$R/echo" && $prefix script $o -i "$T_TMP/trunc.data") \
			>"$T_TMP/perf" 2>"$T_TMP/perf.err"
		"$PK" script $o -i "$T_TMP/trunc.data" >"$T_TMP/pk" 2>"$T_TMP/pk.err"
		check "pt_itrace:aux_lost:$o" "off '$off': $(first_diff "$T_TMP/perf" "$T_TMP/pk") $(first_diff "$T_TMP/perf.err" "$T_TMP/pk.err")" \
			-n "$off" -a -n "$(grep 'AUX data lost 1 times out of 1' "$T_TMP/perf.err")" -a \
			-z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)" -a \
			-z "$(cmp "$T_TMP/perf.err" "$T_TMP/pk.err" 2>&1)"
	done
fi
# Pipe mode (perf inject -o - writes one; perf 6.1 cannot decode a pipe's
# trace): perfkit decodes it as perf decodes the file
n=$((n + 1))
if t_part $n; then
	for f in awk/perf.tsc.data echo/perf.data; do
		perf --buildid-dir "$T_TMP/bid" inject -i "$R/$f" -o - \
			>"$T_TMP/pipe.data" 2>/dev/null
		for o in --itrace=b --itrace=i100ig ""; do
			(cd "$R/$(dirname "$f")" && $prefix script $o -i "$(basename "$f")") \
				>"$T_TMP/perf" 2>/dev/null
			"$PK" script $o -i "$T_TMP/pipe.data" >"$T_TMP/pk" 2>"$T_TMP/pk.err"
			check "pt_itrace:pipe:$f:$o" "$(head -1 "$T_TMP/pk.err") $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
				-s "$T_TMP/perf" -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
		done
	done
fi
# --no-itrace: the trace is left alone (no line at all for these files)
n=$((n + 1))
if t_part $n; then
	(cd "$R/echo" && "$PK" script --no-itrace -i perf.data) >"$T_TMP/pk" 2>&1
	check pt_itrace:no-itrace "$(head -2 "$T_TMP/pk" | tr '\n' '|')" ! -s "$T_TMP/pk"
fi
# G and L: call chains and last branches on the recorded samples, from
# the thread's decoded flow (the corpus' kernel+user per-CPU recording
# with cycles samples, binaries absent: perf report's default there is
# G, and g on its psb samples after decoder errors)
C=$PK_SHARED/corpus/perf-data/perf.data.intel_pt-4.14
corpus() { # NAME TOOL ARGS...
	_ln=$1 _lt=$2
	shift 2
	n=$((n + 1))
	t_part $n || return 0
	perf --buildid-dir "$T_TMP/bid" $_lt "$@" -i "$C" 2>/dev/null |
		sed '/^# (Tip: /d' >"$T_TMP/perf"
	"$PK" $_lt "$@" -i "$C" 2>"$T_TMP/pk.err" | sed '/^# (Tip: /d' >"$T_TMP/pk"
	check "pt_itrace:corpus:$_lt:$_ln" "$(head -1 "$T_TMP/pk.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
		-s "$T_TMP/perf" -a -z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
}
if need_shared corpus/perf-data/perf.data.intel_pt-4.14 pt_itrace:corpus; then
	corpus default report --stdio
	corpus no-children report --stdio --no-children
	corpus caller report --stdio -g caller
	corpus L8 report --stdio --itrace=L8
	corpus G script --itrace=G
	corpus GL3 script --itrace=GL3 -F +brstack
	corpus L8 script --itrace=L8 -F +brstacksym
	corpus pg script --itrace=pg
fi
t_exit
