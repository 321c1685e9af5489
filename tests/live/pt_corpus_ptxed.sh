#!/bin/sh
# perfkit pt decode against Intel ptxed's output on the libipt corpus: one
# ok/FAIL line per corpus test (diff -b). ptxed ran with
# --raw NAME.bin:ORG --no-inst --check, --cpu where given, and the options
# MANIFEST.tsv lists.
# pk-test: check
. tests/lib/sh.sh
C=$PK_SHARED/corpus/libipt
need_shared corpus/libipt/MANIFEST.tsv pt_corpus_ptxed || { t_exit; exit; }
# Known gaps, by name (reported as skipped, never as passes; none now).
# A listed test that starts to pass is a FAIL here, so the list stays
# honest.
GAPS=" "
n=0; m=0; pass=0
while IFS='	' read -r name cpu org dopts xopts; do
	[ "$name" = test ] && continue
	n=$((n + 1))
	if [ ! -f "$C/$name/$name-ptxed.exp" ]; then
		skip "pt_ptxed:$name" "the corpus has no ptxed expectation"
		continue
	fi
	m=$((m + 1))
	set -- --raw "$C/$name/$name.bin:$org" --no-inst --check
	[ "$cpu" != - ] && set -- "$@" --cpu "$cpu"
	if [ "$xopts" != - ]; then
		for o in $xopts; do
			case $o in
			*.bin:*) o=$C/$name/$o ;;
			esac
			set -- "$@" "$o"
		done
	fi
	"$PERFKIT" pt decode "$@" --pt "$C/$name/$name.pt" >"$T_TMP/out" 2>"$T_TMP/err"
	gap=0
	case "$GAPS" in *" $name"[" 
"]*) gap=1 ;; esac
	if diff -b "$C/$name/$name-ptxed.exp" "$T_TMP/out" >"$T_TMP/diff"; then
		if [ $gap = 1 ]; then
			fail "pt_ptxed:$name" "passes now: remove it from GAPS"
		else
			ok "pt_ptxed:$name"; pass=$((pass + 1))
		fi
	elif [ $gap = 1 ]; then
		skip "pt_ptxed:$name" "known gap"
	else
		fail "pt_ptxed:$name" "$(head -c 300 "$T_TMP/diff" | tr '\n' '|')"
	fi
done <"$C/MANIFEST.tsv"
echo "# ptxed corpus: $pass of $m with expectations pass ($n tests)" >&2
check pt_corpus_ptxed_count "expected 166 corpus tests, saw $n" "$n" -eq 166
t_exit
