#!/bin/sh
# perfkit pt dump against Intel ptdump's output on the libipt corpus: one
# ok/FAIL line per corpus test (compared with diff -b, as MANIFEST.tsv says).
# pk-test: check
. tests/lib/sh.sh
C=$PK_SHARED/corpus/libipt
need_shared corpus/libipt/MANIFEST.tsv pt_corpus_ptdump || { t_exit; exit; }
if [ ! -x "$PERFKIT" ]; then
	fail pt_corpus_ptdump "no $PERFKIT"
	exit 1
fi
n=0
while IFS='	' read -r name cpu org dopts xopts; do
	[ "$name" = test ] && continue
	n=$((n + 1))
	set --
	[ "$cpu" != - ] && set -- --cpu "$cpu"
	[ "$dopts" != - ] && set -- "$@" $dopts
	exp=$C/$name/$name-ptdump.exp
	if [ ! -f "$exp" ]; then
		fail "pt_ptdump:$name" "missing $exp"
		continue
	fi
	"$PERFKIT" pt dump "$@" "$C/$name/$name.pt" >"$T_TMP/out" 2>"$T_TMP/err"
	if diff -b "$exp" "$T_TMP/out" >"$T_TMP/diff"; then
		ok "pt_ptdump:$name"
	else
		fail "pt_ptdump:$name" "$(head -c 300 "$T_TMP/diff" | tr '\n' '|')"
	fi
done <"$C/MANIFEST.tsv"
check pt_corpus_ptdump_count "expected 166 corpus tests, saw $n" "$n" -eq 166
t_exit
