#!/bin/sh
# perfkit pt decode --resync-on-error (and --block-decoder) on the libipt
# corpus with random damage (one byte in sixteen, three fixed seeds):
# every decode ends by itself and none dies of a signal
# (tests/lib/ptdamage.py). Seeds 2 and 3 looped forever before resync
# learnt to pass a PSB when an error came back at the same place. And a
# stream whose code loops without reading a packet.
# pk-test: slow
. tests/lib/sh.sh
C=$PK_SHARED/corpus/libipt
need_shared corpus/libipt/MANIFEST.tsv pt_damage || { t_exit; exit; }
t_python tests/lib/ptdamage.py "$PERFKIT" "$C" "$T_TMP" 2 3 4 > "$T_TMP/out" 2> "$T_TMP/err"
cat "$T_TMP/out"
T_FAILS=$((T_FAILS + $(grep -c '^FAIL' "$T_TMP/out")))
[ "$(grep -c '^ok' "$T_TMP/out")" -gt 0 ] || [ -s "$T_TMP/out" ] ||
	fail pt_damage "ptdamage.py printed nothing: $(tail -2 "$T_TMP/err" | tr '\n' '|')"
# a stream that waits for a query (a TNT) where the code is `jmp .`: a
# walk that reads no packet would go round forever; the decoder says
# "never-ending loop" (perf's words) and, resyncing, ends
T=$T_TMP
printf '\353\376' > "$T/spin.bin"
{ i=0; while [ $i -lt 8 ]; do printf '\002\202'; i=$((i + 1)); done
  printf '\231\001\175\000\020\000\000\000\000\002\043\006'; } > "$T/spin.pt"
# the same with an event waiting for a packet the walk never reads (a
# MODE.TSX for its FUP): it went round forever
{ i=0; while [ $i -lt 8 ]; do printf '\002\202'; i=$((i + 1)); done
  printf '\231\001\175\000\020\000\000\000\000\002\043\231\041\006'; } > "$T/spin-ev.pt"
for m in "" --quiet --block-decoder; do
	for f in spin spin-ev; do
	timeout 20 "$PERFKIT" pt decode --raw "$T/spin.bin:0x1000" --pt "$T/$f.pt" \
		--resync-on-error $m > "$T/spin.out" 2>&1
	rc=$?
	at=1b; [ $f = spin ] || at=1d
	check "pt_never_ending_loop${m:+ $m}${f#spin}" "status $rc: $(head -c 300 "$T/spin.out" | tr '\n' '|')" \
		$rc -eq 0 -a -n "$(grep -F "[$at, 1000: error: never-ending loop]" "$T/spin.out")"
	done
done
t_exit
