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
t_exit
