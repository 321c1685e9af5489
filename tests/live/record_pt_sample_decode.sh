# Intel PT sample mode decoded: perf script and perfkit script on files
# made with perfkit's writer (tests/live/pt_mksample.c, built against
# $PK_BUILD/libperfkit.so) from a full per-CPU recording perf makes of
# ptgen's awk trace through the shim (tests/lib/ptfake.sh): every N-th
# PSB of the trace ends a cpu-clock sample carrying the SIZE bytes before
# it (PERF_SAMPLE_AUX), as the kernel copies the AUX area's last bytes.
# Five layouts: 6000 bytes every 2nd PSB (gaps: each a fresh trace),
# 4096 every PSB (windows without a PSB: nothing to decode), 12000 every
# 3rd (overlapping windows: perf's overlap fix), and windows that go on
# from each other, ending at packet boundaries between PSBs: 12000 bytes
# every 2000 or more (sSTEP), 16000 every 700 (some end inside a PSB+ or
# between a FUP and its TIP): perf's decoder reads on into the next
# buffer. Compared byte for byte: --itrace=i1i, b, e, cr, i100i (the
# period's count carried from buffer to buffer), ibxwpe (perf report's
# default: i in 100000 ns made ticks, psb and cbr samples), qi1i and qe
# (perf's hop decoder), script -D and report -D (the AUX data dumped).
# Windows that end inside a PSB+ (pt_mksample fK: before its FUP, pK+28:
# before its MODE.Exec): 6000 bytes ending at every 2nd PSB+'s FUP (a
# fresh trace each: the cut PSB's offset is perf's next psb sample's),
# 3000 at every one (only a cut PSB+ in each: perf syncs nowhere, no cbr
# sample), 16000 at every 2nd PSB+'s MODE.Exec (consecutive: the next
# buffer's MODE.Exec right before the FUP is perf's iflag state, a sample
# with id 0 shown as the intel_pt event's with perf script's default
# --itrace): default --itrace, b, e, ibxwpe, I, qe.
# pk-test: slow
. tests/lib/sh.sh
. tests/lib/ptfake.sh
N=record_pt_sample_decode
ptfake_need $N
ptfake_need_gen $N
[ -e "$PK_BUILD/libperfkit.so" ] || { skip $N "no $PK_BUILD/libperfkit.so"; exit 0; }
BLD=$(cd "$PK_BUILD" && pwd)
ptfake_start $N
ptfake_gen $N
PIN= MID=
cc -O1 -I"$SRC/include" -o mks "$SRC/tests/live/pt_mksample.c" -L"$BLD" \
	-lperfkit -Wl,-rpath,"$BLD" || { fail $N:build "cannot build pt_mksample"; exit 1; }
if ! ptfake_rec perf full.data -e intel_pt/tsc=0/u -m ,16 > rec.log 2>&1 || [ ! -s full.data ]; then
	fail $N:record "$(tail -3 rec.log | tr '\n' '|')"; exit 1
fi
for lay in 6000:2 4096:1 12000:3 12000:s2000 16000:s700; do
	f=s$(echo "$lay" | tr : _).data
	if ! ./mks full.data "$f" ${lay%%:*} ${lay##*:} 2> mks.log; then
		fail $N:$lay:make "$(cat mks.log)"; continue
	fi
	for o in i1i b e cr i100i ibxwpe qi1i qe; do
		perf script -i "$f" --itrace=$o > p.out 2>/dev/null
		"$PK" script -i "$f" --itrace=$o > k.out 2>/dev/null
		check "$N:$lay:itrace=$o" "$(first_diff p.out k.out)" \
			-s p.out -a "$(cmp -s p.out k.out && echo y)" = y
	done
	perf script -D -i "$f" > p.out 2>/dev/null
	"$PK" script -D -i "$f" > k.out 2>/dev/null
	check "$N:$lay:script-D" "$(first_diff p.out k.out)" \
		"$(grep -c 'Intel Processor Trace data' p.out):$(cmp -s p.out k.out && echo y)" != "0:y" -a "$(cmp -s p.out k.out && echo y)" = y
	perf report -D -i "$f" > p.out 2>/dev/null
	"$PK" report -D -i "$f" > k.out 2>/dev/null
	check "$N:$lay:report-D" "$(first_diff p.out k.out)" \
		"$(grep -c 'Intel Processor Trace data' p.out)" != 0 -a "$(cmp -s p.out k.out && echo y)" = y
done
for lay in 6000:f2 3000:f1 16000:p2+28; do
	f=s$(echo "$lay" | tr :+ __).data
	if ! ./mks full.data "$f" ${lay%%:*} ${lay##*:} 2> mks.log; then
		fail $N:$lay:make "$(cat mks.log)"; continue
	fi
	for o in default b e ibxwpe I qe; do
		a=--itrace=$o
		[ $o = default ] && a=
		perf script -i "$f" $a > p.out 2>/dev/null
		"$PK" script -i "$f" $a > k.out 2>/dev/null
		check "$N:$lay:itrace=$o" "$(first_diff p.out k.out)" \
			-s p.out -a "$(cmp -s p.out k.out && echo y)" = y
	done
	# what each layout is for, in perf's output
	case $lay in
	6000:f2) perf script -i "$f" --itrace=p 2>/dev/null | grep 'psb offs: 0x' > p.out
		check "$N:$lay:psb-offsets" "no psb sample with an offset" -s p.out;;
	3000:f1) perf script -i "$f" --itrace=p 2>/dev/null | grep 'cbr:' > p.out
		check "$N:$lay:no-cbr" "$(head -1 p.out)" ! -s p.out;;
	16000:*) perf script -i "$f" 2>/dev/null | grep ' intel_pt/[^ ]*: ' > p.out
		check "$N:$lay:iflag" "no iflag sample" -s p.out;;
	esac
done
t_exit
