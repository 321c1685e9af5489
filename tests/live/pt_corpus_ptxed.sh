#!/bin/sh
# perfkit pt decode against Intel ptxed's output on the libipt corpus: one
# ok/FAIL line per corpus test (diff -b). ptxed ran with
# --raw NAME.bin:ORG --no-inst --check, --cpu where given, and the options
# MANIFEST.tsv lists.
. tests/lib/sh.sh
C=$PK_SHARED/corpus/libipt
if [ ! -f "$C/MANIFEST.tsv" ]; then
	skip pt_corpus_ptxed "no corpus at $C"
	exit 0
fi
n=0; pass=0
while IFS='	' read -r name cpu org dopts xopts; do
	[ "$name" = test ] && continue
	n=$((n + 1))
	if [ ! -f "$C/$name/$name-ptxed.exp" ]; then
		skip "pt_ptxed:$name" "the corpus has no ptxed expectation"
		continue
	fi
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
	if diff -b "$C/$name/$name-ptxed.exp" "$T_TMP/out" >"$T_TMP/diff"; then
		ok "pt_ptxed:$name"; pass=$((pass + 1))
	else
		fail "pt_ptxed:$name" "$(head -c 300 "$T_TMP/diff" | tr '\n' '|')"
	fi
done <"$C/MANIFEST.tsv"
echo "# ptxed corpus: $pass of $n pass" >&2
t_exit
