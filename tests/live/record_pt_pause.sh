# Intel PT traces with paused stretches (what an aux-action pause leaves:
# no trace until the resume): the shim (tests/live/pt_fakeopen.c,
# PK_FAKE_PT_PAUSE=N:M) leaves out ptgen's awk trace from its N-th to its
# M-th PSB while perfkit records it (per CPU, tsc=0); perf script and
# perfkit script then decode the recording, compared byte for byte
# (--itrace=i1i, b, e, cr, i100i, ibxwpe). Stretches: 6:0 and 20:0
# (paused to the end: the trace stops mid-flow, perf's decoder makes the
# pending branch's i sample), resumes inside the trace (2:5, 3:4, 9:11:
# perf's decoder walks from where the flow stood to the resumed PSB+'s
# FUP, intel_pt_psb_with_fup, fails at the first conditional branch and
# takes the flow up at that FUP). PK_STRETCHES replaces the list.
# Each recording is checked to be shorter than the trace by the stretch
# (and the recorder's padding, under 64 bytes).
# pk-test: slow
. tests/lib/sh.sh
. tests/lib/ptfake.sh
N=record_pt_pause
ptfake_setup $N
PIN= MID=
# the bytes from PSB N to PSB M (0: the end) of FILE
cut_len() {
	od -An -v -tx1 -w1 "$1" | awk -v n="$2" -v m="$3" '
		{ w = substr(w $1, length(w $1) > 32 ? length(w $1) - 31 : 1) }
		w == "02820282028202820282028202820282" {
			at = NR - 16
			if (k == n) f = at
			if (m && k == m && !t) t = at
			k++
		}
		END { if (!t) t = NR; print t - f }'
}
# the AUX bytes of a recording (its AUXTRACE records' sizes, -D)
aux_len() {
	_s=0
	for _h in $("$PK" script -D -i "$1" 2>/dev/null |
		    sed -n 's/.*PERF_RECORD_AUXTRACE size: \(0x[0-9a-f]*\).*/\1/p'); do
		_s=$((_s + _h))
	done
	echo $_s
}
total=$(wc -c < gen/awk.pt)
for st in ${PK_STRETCHES:-2:5 3:4 9:11 6:0 20:0}; do
	f=p$(echo "$st" | tr : _).data
	export PK_FAKE_PT_PAUSE=$st
	ptfake_rec pk "$f" -e intel_pt/tsc=0/u -m ,16 > rec.log 2>&1
	rc=$?
	unset PK_FAKE_PT_PAUSE
	if [ $rc -ne 0 ] || [ ! -s "$f" ]; then
		fail "$N:$st:record" "$(tail -3 rec.log | tr '\n' '|')"; continue
	fi
	cut=$(cut_len gen/awk.pt ${st%%:*} ${st##*:})
	got=$(aux_len "$f")
	check "$N:$st:cut" "trace $total, stretch $cut, recorded $got" \
		"$cut" -gt 0 -a "$got" -ge $((total - cut)) -a "$got" -lt $((total - cut + 64))
	for o in i1i b e cr i100i ibxwpe; do
		perf script -i "$f" --itrace=$o > p.out 2>/dev/null
		"$PK" script -i "$f" --itrace=$o > k.out 2>/dev/null
		# (e: no errors, nothing to print; a resume inside mostly
		# makes perf's error in the walk to its FUP, but where the
		# stretch falls varies with the shim's timing: the rule's own
		# fixtures are pt_psbwalk's)
		check "$N:$st:itrace=$o" "$(first_diff p.out k.out)" \
			\( -s p.out -o $o = e \) -a "$(cmp -s p.out k.out && echo y)" = y
	done
done
t_exit
