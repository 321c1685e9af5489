# The symbol perfkit finds at an address against perf's (6.1), byte for
# byte: perf script -F ip,sym on a file of one sample at each edge of every
# function symbol, every PLT entry and each word before .text of a DSO
# (tests/lib/symprobe.py). The demo's unsized _init spans its PLT, so
# perf's answer there is its tree's (perfkit builds the same tree); libc
# comes with its debug file's symbols; libstdc++ has C++ PLT names
# (transaction clones keep their parameters); nm's .dynsym has no
# function of its own (perf then adds no PLT symbols either).
. tests/lib/sh.sh
T=$T_TMP
need_cmd symbols_vs_perf perf "perf is not installed"
need_cmd symbols_vs_perf python3 "python3 is not installed"
need_built symbols_vs_perf "$PERFKIT" "$PK_BUILD/workloads/demo"

libdir=$(dirname "$(ldd "$PERFKIT" | awk '/libc.so/ { print $3 }')")
for dso in "$PK_BUILD/workloads/demo" "$libdir/libc.so.6" \
	   "$libdir/libstdc++.so.6" /usr/bin/nm "$PERFKIT"; do
	name="symbols_vs_perf ${dso##*/}"
	if [ ! -f "$dso" ]; then
		skip "$name" "$dso is not installed"
		continue
	fi
	if ! python3 tests/lib/symprobe.py "$T/probe.data" "$dso" 2>"$T/err"; then
		fail "$name" "symprobe: $(cat "$T/err")"
		continue
	fi
	perf script -i "$T/probe.data" -F ip,sym >"$T/p.out" 2>/dev/null
	"$PERFKIT" script -i "$T/probe.data" -F ip,sym >"$T/k.out" 2>"$T/k.err"
	n=$(wc -l <"$T/p.out")
	if [ "$n" -gt 10 ] && cmp -s "$T/p.out" "$T/k.out"; then
		ok "$name ($n addresses)"
	else
		fail "$name" "$n addresses, $(first_diff "$T/p.out" "$T/k.out") $(head -c 200 "$T/k.err")"
	fi
done
# addresses in data mappings (tests/lib/anonprobe.py): perf names the
# mapping (//anon, [heap], a data file and its offset)
if python3 tests/lib/anonprobe.py "$T/anon.data" 2>"$T/err"; then
	for how in "script -F ip,sym,dso" "report --stdio"; do
		# shellcheck disable=SC2086
		perf $how -i "$T/anon.data" 2>/dev/null | grep -v '^#' | grep . >"$T/p.out"
		# shellcheck disable=SC2086
		"$PERFKIT" $how -i "$T/anon.data" 2>"$T/k.err" | grep -v '^#' | grep . >"$T/k.out"
		if [ "$(wc -l <"$T/p.out")" -ge 4 ] && cmp -s "$T/p.out" "$T/k.out"; then
			ok "symbols_vs_perf data_maps ${how%% *}"
		else
			fail "symbols_vs_perf data_maps ${how%% *}" "$(first_diff "$T/p.out" "$T/k.out") $(head -c 200 "$T/k.err")"
		fi
	done
else
	fail "symbols_vs_perf data_maps" "anonprobe: $(cat "$T/err")"
fi
t_exit
