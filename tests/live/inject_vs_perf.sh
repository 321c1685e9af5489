# perfkit inject's modes besides --itrace against perf inject 6.1: the
# plain copy (file -> file, file -> pipe, pipe -> file, pipe -> pipe),
# -b (file and pipe), --buildid-all, --known-build-ids, -s (on
# sched_switch + sched_stat_runtime, a sched_stat_* event that fires
# without schedstats), the options perf accepts without a change, and
# buildid-list -m. The records are compared one by one (pdrecs.py: the
# command line left out, which names the program that ran), and perf
# report reads both outputs alike.
. tests/lib/sh.sh
T=$T_TMP
need_cmd inject perf "perf is not installed"
need_built inject "$PERFKIT"
R=tests/lib/pdrecs.py

# same NAME PERF_OUT PERFKIT_OUT: the records (and features) alike
same() {
	t_python $R "$2" >"$T/$1.p" 2>&1
	t_python $R "$3" >"$T/$1.k" 2>&1
	check "$1" "$(diff "$T/$1.p" "$T/$1.k" | head -6 | cut -c1-160 | tr '\n' '|')" \
		-s "$T/$1.p" -a "$(cksum <"$T/$1.p")" = "$(cksum <"$T/$1.k")"
}
# report NAME PERF_OUT PERFKIT_OUT: perf report of both alike
report() {
	perf report -i "$2" --stdio --sort comm,dso,sym 2>&1 | grep -v '^#' >"$T/$1.rp"
	perf report -i "$3" --stdio --sort comm,dso,sym 2>&1 | grep -v '^#' >"$T/$1.rk"
	check "$1" "$(diff "$T/$1.rp" "$T/$1.rk" | head -4 | tr '\n' '|')" \
		-s "$T/$1.rp" -a "$(cksum <"$T/$1.rp")" = "$(cksum <"$T/$1.rk")"
}
W="for i in \$(seq 1 30000); do :; done; ls / >/dev/null"
perf record -q -e cpu-clock -g -o "$T/in.data" -- sh -c "$W" 2>/dev/null &&
perf record -q -e cpu-clock -g -o - -- sh -c "$W" >"$T/pipe.data" 2>/dev/null || {
	skip inject "perf record cannot record cpu-clock here"; exit 0; }

# plain copies
perf inject -i "$T/in.data" -o "$T/p.ff"
"$PERFKIT" inject -i "$T/in.data" -o "$T/k.ff"
same inject_file_to_file "$T/p.ff" "$T/k.ff"
report inject_file_to_file_report "$T/p.ff" "$T/k.ff"
perf inject -i "$T/in.data" -o - >"$T/p.fp"
"$PERFKIT" inject -i "$T/in.data" -o - >"$T/k.fp"
# perf writes the running machine's NUMA facts (free memory) into a
# pipe; perfkit the recorded machine's: leave that feature out
t_python $R "$T/p.fp" | grep -v '^80 0 [0-9]* 50000000000[0-9a-f]*0e000000' >"$T/fp.p"
t_python $R "$T/k.fp" | grep -v '^80 0 [0-9]* 50000000000[0-9a-f]*0e000000' >"$T/fp.k"
check inject_file_to_pipe "$(diff "$T/fp.p" "$T/fp.k" | head -4 | cut -c1-160 | tr '\n' '|')" \
	-s "$T/fp.p" -a "$(cksum <"$T/fp.p")" = "$(cksum <"$T/fp.k")"
"$PERFKIT" inject -i - -o "$T/k.pf" <"$T/pipe.data"
check inject_pipe_to_file_bytes "differs from its input" -s "$T/k.pf" -a \
	"$(cksum <"$T/pipe.data")" = "$(cksum <"$T/k.pf")"
perf inject <"$T/pipe.data" >"$T/p.pp"
"$PERFKIT" inject <"$T/pipe.data" >"$T/k.pp"
check inject_pipe_to_pipe_bytes "perfkit's differs from perf's" -s "$T/k.pp" -a \
	"$(cksum <"$T/p.pp")" = "$(cksum <"$T/k.pp")"

# build ids
perf inject -b -i "$T/in.data" -o "$T/p.b"
"$PERFKIT" inject -b -i "$T/in.data" -o "$T/k.b"
same inject_b_file "$T/p.b" "$T/k.b"
perf inject -b <"$T/pipe.data" >"$T/p.bp"
"$PERFKIT" inject -b <"$T/pipe.data" >"$T/k.bp"
same inject_b_pipe "$T/p.bp" "$T/k.bp"
check inject_b_pipe_has_records "no BUILD_ID record" "$(grep -c '^67 ' "$T/inject_b_pipe.k")" -gt 0
# the classic pipeline, each side
"$PERFKIT" inject -b -o "$T/k.bpf" <"$T/pipe.data"
report inject_b_pipeline_report "$T/p.bp" "$T/k.bpf"
perf inject --buildid-all -i "$T/in.data" -o "$T/p.ba"
"$PERFKIT" inject --buildid-all -i "$T/in.data" -o "$T/k.ba"
same inject_buildid_all_file "$T/p.ba" "$T/k.ba"
K="0123456789abcdef0123456789abcdef01234567 /usr/bin/dash,zz /x,ab /bin/sh"
perf inject -b --known-build-ids="$K" -i "$T/in.data" -o "$T/p.kb"
"$PERFKIT" inject -b --known-build-ids="$K" -i "$T/in.data" -o "$T/k.kb"
same inject_known_build_ids "$T/p.kb" "$T/k.kb"
perf inject -b --known-build-ids="$K" <"$T/pipe.data" >"$T/p.kbp"
"$PERFKIT" inject -b --known-build-ids="$K" <"$T/pipe.data" >"$T/k.kbp"
same inject_known_build_ids_pipe "$T/p.kbp" "$T/k.kbp"

# options accepted without a change; bad files refused as perf does
cp /bin/true "$T/vml"
"$PERFKIT" inject -b -v -f -k "$T/vml" --kallsyms /proc/kallsyms --ignore-vmlinux \
	-i "$T/in.data" -o "$T/k.opt" 2>/dev/null
same inject_b_options "$T/p.b" "$T/k.opt"
"$PERFKIT" inject -b -k "$T/nonexistent" -i "$T/in.data" -o "$T/k.bad" 2>"$T/err"
rc=$?
check inject_bad_vmlinux "status $rc: $(cat "$T/err")" $rc -eq 255 -a ! -e "$T/k.bad" \
	-a "$(cat "$T/err")" = "perfkit inject: invalid file: $T/nonexistent"
# a damaged record in the middle: one line naming the file, no output
t_python - "$T/in.data" "$T/bad.data" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = struct.unpack_from('<Q', d, 40)[0]
for _ in range(12):  # the 12th record gets size 4
    off += struct.unpack_from('<H', d, off + 6)[0]
struct.pack_into('<H', d, off + 6, 4)
open(sys.argv[2], 'wb').write(d)
PY
"$PERFKIT" inject -i "$T/bad.data" -o "$T/k.bad2" 2>"$T/err"
rc=$?
check inject_damaged_input "status $rc, $(ls "$T" | grep -c 'k.bad2') files: $(cat "$T/err")" \
	$rc -eq 1 -a "$(ls "$T" | grep -c 'k\.bad2')" -eq 0 -a "$(grep -c "inject: $T/bad.data: " "$T/err")" -eq 1

# sched_stat
if perf record -q -e sched:sched_switch -e sched:sched_stat_runtime \
	-e sched:sched_process_exit -a -o "$T/ss.data" -- sh -c 'sleep 0.01; sleep 0.01' 2>/dev/null; then
	perf inject -s -i "$T/ss.data" -o "$T/p.s"
	"$PERFKIT" inject -s -i "$T/ss.data" -o "$T/k.s"
	same inject_sched_stat "$T/p.s" "$T/k.s"
	n=$(perf report -D -i "$T/k.s" 2>/dev/null | grep -c 'sched:sched_switch')
	check inject_sched_stat_merged "no merged sched_switch sample" "$n" -gt 0
else
	skip inject_sched_stat "sched:sched_stat_runtime cannot be recorded here"
fi

# buildid-list -m
perf buildid-list -m >"$T/m.p" 2>&1
"$PERFKIT" buildid-list -m >"$T/m.k" 2>&1
check buildid_list_kernel_maps "$(diff "$T/m.p" "$T/m.k" | head -4 | tr '\n' '|')" \
	-s "$T/m.p" -a "$(cksum <"$T/m.p")" = "$(cksum <"$T/m.k")"
t_exit
