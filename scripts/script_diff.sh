#!/bin/sh
# Runs two perfkit binaries' `script` over perf.data files with many option
# sets and reports every difference in stdout, stderr or exit status (for
# restructurings that must keep the output byte for byte).
#   sh scripts/script_diff.sh OLD NEW FILE...
# SCRIPT_DIFF_OPTS: the option sets, one a line (default: the list below).
# Exit status 0 when all runs agree, 1 otherwise; the differing runs are
# listed with the first lines of their diff.
OLD=$1 NEW=$2
shift 2
T=$(mktemp -d /tmp/pkdiff.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
OPTS='
-D
--file-order
-G
--ns
--max-stack 2
-F comm,tid,pid,time,cpu,event,ip,sym,symoff,dso,addr,period
-F ip,sym,dso
-F ip,sym,srcline
-F comm,event,trace
-F tid,time,ip,sym,symoff,dso
-F +addr,+period,-cpu
-F addr,data_src,weight,phys_addr,data_page_size,code_page_size
-F sym,symoff
--cpu 0
--comm ls
--comm sh,perf
--pid 1,2
--tid 0
--time 0,1e12
--header
'
OPTS=${SCRIPT_DIFF_OPTS:-$OPTS}
bad=0 runs=0
for f in "$@"; do
	printf '%s\n' "$OPTS" | while IFS= read -r o; do
		# shellcheck disable=SC2086
		"$OLD" script -i "$f" $o >"$T/o.out" 2>"$T/o.err"
		echo "rc $?" >>"$T/o.err"
		# shellcheck disable=SC2086
		"$NEW" script -i "$f" $o >"$T/n.out" 2>"$T/n.err"
		echo "rc $?" >>"$T/n.err"
		case $f in *pipe*)
			# shellcheck disable=SC2086
			"$OLD" script -i - $o <"$f" >"$T/op.out" 2>>"$T/o.err"
			# shellcheck disable=SC2086
			"$NEW" script -i - $o <"$f" >"$T/np.out" 2>>"$T/n.err"
			cat "$T/op.out" >>"$T/o.out"
			cat "$T/np.out" >>"$T/n.out"
		esac
		if ! cmp -s "$T/o.out" "$T/n.out" || ! cmp -s "$T/o.err" "$T/n.err"; then
			echo "DIFF: $f $o"
			diff "$T/o.out" "$T/n.out" | head -8
			diff "$T/o.err" "$T/n.err" | head -4
			echo x >>"$T/bad"
		fi
		echo x >>"$T/runs"
	done
done
[ -f "$T/runs" ] && runs=$(wc -l <"$T/runs")
[ -f "$T/bad" ] && bad=$(wc -l <"$T/bad")
echo "script_diff: $runs runs, $bad differ"
[ "$bad" -eq 0 ]
