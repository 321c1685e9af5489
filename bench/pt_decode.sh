#!/bin/sh
# perfkit pt decode --quiet --stat (the whole process: reading the files,
# the image, the decode) against libipt's block decoder in
# ../shared/tools/ptgen's ptbench (its decode loop alone, and its whole
# process) on the ptgen sort run (~194M instructions); best of 3 each.
#   sh bench/pt_decode.sh [BUILD]   (PK_PTGEN_DIR: where sort.pt is)
BUILD=${1:-build}
PK=$BUILD/perfkit
D=${PK_PTGEN_DIR:-$BUILD/ptgen}
SRC=../shared/tools/ptgen/ptbench.c
echo "== pt decode --quiet --stat vs libipt's block decoder (ptbench), ptgen sort (best of 3)"
if [ ! -s "$D/sort.pt" ] || [ ! -r "$SRC" ] || [ ! -r /usr/include/intel-pt.h ]; then
	echo "no ptgen sort stream, ptbench source or libipt-dev: skipped"
	exit 0
fi
T=$(mktemp -d /tmp/pkbench.XXXXXX)
trap 'rm -rf "$T"' EXIT
cc -O2 -o "$T/ptbench" "$SRC" -lipt || { echo "ptbench does not build: skipped"; exit 0; }
ADDR=$(cat "$D/sort.img.addr")
now() { date +%s.%N; }
best() {
	b=
	for i in 1 2 3; do
		t0=$(now); "$@" > "$T/out" 2>&1; t1=$(now)
		b=$(awk -v a="$t0" -v z="$t1" -v b="$b" \
			'BEGIN { d = z - a; if (b == "" || d < b) b = d; printf "%.3f", b }')
	done
	echo "$b"
}
lw=$(best "$T/ptbench" --pt "$D/sort.pt" --raw "$D/sort.img:$ADDR")
ll=$(awk '{ print $4 }' "$T/out")
n=$(awk '{ print $2 }' "$T/out")
pk=$(best "$PK" pt decode --quiet --stat --raw "$D/sort.img:$ADDR" --pt "$D/sort.pt")
pn=$(sed -n 's/^insn: \([0-9]*\)\.$/\1/p' "$T/out")
echo "libipt block decoder: $lw s whole process ($ll s its decode loop), $n insns"
echo "perfkit pt decode:    $pk s whole process, $pn insns"
[ "$n" = "$pn" ] || echo "(the instruction counts differ)"
awk -v a="$lw" -v b="$pk" -v l="$ll" 'BEGIN {
	printf "ratio: perfkit is %.1fx faster, whole process (goal >= 3x); %.1fx against the loop alone\n",
		(b > 0 ? a / b : 0), (b > 0 ? l / b : 0) }'
