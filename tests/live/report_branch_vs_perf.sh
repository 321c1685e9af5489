#!/bin/sh
# perfkit report --stdio in perf's branch mode (-b: an entry of period 1
# per branch of the samples' branch stacks) against perf report --stdio
# (6.1), byte for byte (the tip line aside): on pipe-mode files that
# tests/lib/brprobe.py writes (no LBR here: branches between the
# functions of the demo, libc, libstdc++ and bash, to no mapping and to
# kernel addresses, with cycles and flags, three seeds), for the branch
# keys, their mixes with comm/pid/dso/sym, -F, -n, filters and
# --percent-limit. perf 6.1 crashes on every -s list with symbol_from or
# symbol_to but its default (-F takes them): those are left out.
# pk-test: slow
. tests/lib/sh.sh
. tests/lib/report.sh
report_prereqs report_branch_vs_perf
LIBC=$(ldd "$DEMO" | awk '/libc\.so/ { print $3 }')
LIBSTDCXX=$(ldd "$PERFKIT" | awk '/libstdc\+\+/ { print $3 }')
[ -n "$LIBSTDCXX" ] || LIBSTDCXX=$(ldconfig -p | awk '/libstdc\+\+\.so\.6 / { print $NF; exit }')
for seed in 1 2 3; do
	# shellcheck disable=SC2086
	t_python tests/lib/brprobe.py "$T/b$seed.data" $seed "$DEMO" $LIBC \
		$LIBSTDCXX /bin/bash
done
for seed in 1 2 3; do
	for o in "" "-n" "--show-total-period" "-s dso_from,dso_to" \
		 "-s dso_to,mispredict" "-s mispredict,dso_from" \
		 "-s comm,mispredict" "-s cycles,comm" "-s in_tx,abort" \
		 "-s abort,cycles" "-s dso,sym" "-s sym,dso_to" \
		 "-s pid,dso_from" "-s comm,dso" "--percent-limit 1" \
		 "-F overhead,sample,dso_from,symbol_from,symbol_to" \
		 "--comm other" "--dso libc.so.6"; do
		# shellcheck disable=SC2086
		same "report_branch_$seed${o:+ $o}" "$T/b$seed.data" -b $o
	done
done
# branch keys outside branch mode, and -b on a file of no branches
refused report_branch_refuses_key "$T/b1.data" -s dso_from
