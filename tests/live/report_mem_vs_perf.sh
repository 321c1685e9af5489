#!/bin/sh
# perfkit report --stdio --mem-mode (each sample weighs its weight; keys
# of the data source, the data address and the latency) against perf
# report --stdio --mem-mode (6.1), byte for byte (the tip line aside), on
# pipe-mode files tests/lib/memprobe.py writes (no PEBS or IBS here: data
# sources over every field of union perf_mem_data_src, data addresses in
# the demo, libc and bash, unmapped and 0), three seeds; the default keys,
# each memory key, mixes with sym/dso, -F, -n and --percent-limit.
# pk-test: slow
. tests/lib/sh.sh
. tests/lib/report.sh
report_prereqs report_mem_vs_perf
LIBC=$(ldd "$DEMO" | awk '/libc\.so/ { print $3 }')
for seed in 1 2 3; do
	# shellcheck disable=SC2086
	t_python tests/lib/memprobe.py "$T/m$seed.data" $seed "$DEMO" $LIBC \
		/bin/bash
	for o in "" "-n" "-s mem" "-s snoop,tlb" "-s locked,blocked" \
		 "-s tlb,locked" "-s blocked,mem" "-s symbol_daddr,dso_daddr" \
		 "-s local_ins_lat,mem" "-s dso_daddr,sym" "-s mem,sym,dso" \
		 "-s mem,symbol" "--percent-limit 1" \
		 "-F overhead,mem,symbol_daddr" \
		 "-s local_weight,mem,sym,dso,symbol_daddr,dso_daddr,snoop,tlb,locked,blocked,local_ins_lat"; do
		# shellcheck disable=SC2086
		same "report_mem_$seed${o:+ $o}" "$T/m$seed.data" --mem-mode $o
	done
done
# memory keys outside memory mode
refused report_mem_refuses_key "$T/m1.data" -s mem
