#!/bin/sh
# A PSB+ met in the middle of the flow whose FUP names another IP than
# where the flow stands (what a resume after an aux-action pause leaves):
# perf 6.1's decoder looks ahead for the PSB+'s FUP at the PSB
# (intel_pt_psb_with_fup) and walks the code from where the flow stands
# to it (intel_pt_fup_in_psb); a branch that needs a packet met first is
# its mismatch error there, and its resync takes the flow up at that FUP
# (a trace start, no psb sample). A FUP after the PSBEND's TIP.PGE is not
# looked for. perf empties its return stack at every PSB (not at that
# resync), and its resync after a later error never goes back to the
# PSB+'s FUP. Fixtures: a ptgen run of busybox echo
# (../shared/tools/ptperf) with a PSB+ put in after a TIP
# (tests/live/ptsynth.py: psb, mode64, fup+K, psbend): the FUP at the
# TIP's target (no walk), an instruction further on (the walk gets
# there), past a conditional branch, in the middle of an instruction,
# a TIP.PGE after it, a TIP after a walked one; perf script and perfkit
# script on each with i1i, b, e, cr, i100i, ibxwpe, qi1i, qe (timeless;
# two timed too), compared byte for byte (perf's hop decoder, q, walks
# no code: the rule is not its).
# pk-test: check
. tests/lib/sh.sh
N=pt_psbwalk
need_cmd $N perf "perf is not installed"
need_cmd $N python3 "python3 is not installed"
need_cmd $N qemu-x86_64 "qemu-user is not installed (ptgen runs busybox under it)"
for f in /usr/include/intel-pt.h /usr/include/Zydis/Zydis.h /bin/busybox; do
	[ -e "$f" ] || { skip $N "$f is missing (ptgen needs it)"; exit 0; }
done
need_shared tools/ptperf/make-refs.sh $N || { t_exit; exit; }
need_built $N "$PERFKIT"
PK=$(cd "$(dirname "$PERFKIT")" && pwd)/$(basename "$PERFKIT")
export LC_ALL=C TZ=UTC PERF_PAGER=cat
R=$T_TMP/refs
if ! "$PK_SHARED/tools/ptperf/make-refs.sh" "$R" --only echo \
	>"$T_TMP/refs.log" 2>&1; then
	fail $N:refs "make-refs.sh: $(tail -2 "$T_TMP/refs.log" | tr '\n' '|')"
	t_exit
	exit
fi
E=$R/echo/echo
gen() { # NAME [--time] ITEMS...
	_gn=$1
	shift
	python3 tests/live/ptsynth.py "$E" "$T_TMP/$_gn.data" "$@" \
		>/dev/null 2>"$T_TMP/gen.err" ||
		fail "$N:gen:$_gn" "$(tail -1 "$T_TMP/gen.err")"
}
P=psb,mode64
gen same --at 20:$P,fup,psbend
gen reach --at 30:$P,fup+13,psbend
gen miss --at 5:$P,fup+0x87,psbend
gen mid --at 20:$P,fup+1,psbend
gen pge --at 40:$P,fup+0x87,psbend,pge
gen tip --at 30:$P,fup+13,psbend,tip
gen reach.tsc --time --at 30:$P,fup+13,psbend
gen two.tsc --time --at 8:$P,fup+0x6c,psbend --at 30:$P,fup+13,psbend
script() { # TOOL FILE OUT ARGS...
	_st=$1 _sf=$2 _so=$3
	shift 3
	if [ "$_st" = perf ]; then
		(cd "$R/echo" && perf --buildid-dir "$T_TMP/bid" script "$@" -i "$T_TMP/$_sf")
	else
		(cd "$R/echo" && "$PK" script "$@" -i "$T_TMP/$_sf")
	fi >"$T_TMP/$_so" 2>"$T_TMP/$_so.err"
}
for f in same reach miss mid pge tip reach.tsc two.tsc; do
	for o in i1i b e cr i100i ibxwpe qi1i qe; do
		script perf $f.data perf --itrace=$o
		script pk $f.data pk --itrace=$o
		_r=$?
		check "$N:$f:$o" "rc=$_r $(head -1 "$T_TMP/pk.err"): $(first_diff "$T_TMP/perf" "$T_TMP/pk")" \
			$_r -eq 0 -a \( -s "$T_TMP/perf" -o ${o#q} = e \) -a \
			-z "$(cmp "$T_TMP/perf" "$T_TMP/pk" 2>&1)"
	done
done
# the fixtures do what they are for (perf's view): the walk that gets
# there shows the put-in PSB+ as a psb sample and fails nowhere before
# it; the walk that misses fails at a conditional branch and takes the
# flow up again at the FUP without a psb sample there
script perf reach.data perf --itrace=bep
_n=$(grep -c 'psb:' "$T_TMP/perf")
_e=$(sed -n '/psb:/=' "$T_TMP/perf" | sed -n 2p)
_f=$(sed -n '/trace error/=' "$T_TMP/perf" | head -1)
check "$N:reach:fixture" "psb samples $_n, the second at line $_e, the first error at $_f" \
	"$_n" -eq 2 -a "${_f:-0}" -gt "${_e:-0}"
script perf miss.data perf --itrace=be
_l=$(grep -A1 -m1 'trace error' "$T_TMP/perf" | tr -s ' ' | tr '\n' '|')
_ip=$(echo "$_l" | sed -n 's/.* ip 0x\([0-9a-f]*\) code 6:.*/\1/p')
_to=$(echo "$_l" | sed -n 's/.*|.* 0 \[unknown\] (\[unknown\]) => \([0-9a-f]*\) .*/\1/p')
_op=$(objdump -d --start-address=0x$_ip --stop-address=$(printf '0x%x' $((0x$_ip + 16))) \
	/bin/busybox 2>/dev/null | awk -F'\t' 'NF >= 3 { print $3; exit }' | cut -c1)
check "$N:miss:fixture" "the first error and the line after it: $_l (at a '$_op...')" \
	-n "$_ip" -a -n "$_to" -a "$_op" = j
script perf miss.data perf --itrace=bep
check "$N:miss:nopsb" "psb samples: $(grep -c 'psb:' "$T_TMP/perf")" \
	"$(grep -c 'psb:' "$T_TMP/perf")" -eq 1
t_exit
