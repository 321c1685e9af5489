#!/bin/sh
# perfkit pt decode --resync-on-error (and --block-decoder) on the libipt
# corpus with random damage (one byte in sixteen, three fixed seeds):
# every decode ends by itself and none dies of a signal
# (tests/lib/ptdamage.py). Seeds 2 and 3 looped forever before resync
# learnt to pass a PSB when an error came back at the same place.
# pk-test: slow
. tests/lib/sh.sh
C=$PK_SHARED/corpus/libipt
need_shared corpus/libipt/MANIFEST.tsv pt_damage || { t_exit; exit; }
t_python tests/lib/ptdamage.py "$PERFKIT" "$C" "$T_TMP" 2 3 4 > "$T_TMP/out" 2> "$T_TMP/err"
cat "$T_TMP/out"
T_FAILS=$((T_FAILS + $(grep -c '^FAIL' "$T_TMP/out")))
[ "$(grep -c '^ok' "$T_TMP/out")" -gt 0 ] || [ -s "$T_TMP/out" ] ||
	fail pt_damage "ptdamage.py printed nothing: $(tail -2 "$T_TMP/err" | tr '\n' '|')"
t_exit
