# perfkit record, live: files Linux perf reads without a warning, exact
# tracepoint counts, -g on every CPU, a SIGKILLed recorder, loss accounting.
. tests/lib/sh.sh
GP=$PK_BUILD/workloads/getppid
DEMO=$PK_BUILD/workloads/demo
EV=syscalls:sys_enter_getppid
HAVE_PERF=1; command -v perf >/dev/null || HAVE_PERF=0
cd "$T_TMP" || exit 1
PK=$OLDPWD/$PERFKIT; GP=$OLDPWD/$GP; DEMO=$OLDPWD/$DEMO

# The default file name, and perf.data.old.
$PK record -q -e $EV -- $GP 10 >/dev/null 2>&1
$PK record -q -e $EV -- $GP 20 >/dev/null 2>&1
check record_default_name "no perf.data" -s perf.data
check record_old_kept "no perf.data.old" -s perf.data.old

# Exact tracepoint samples, read back by perf and by perfkit.
$PK record -q -e $EV -o tp.data -- $GP 777 2>rec.err; rc=$?
check record_tp_rc "rc=$rc $(cat rec.err)" $rc -eq 0
n_pk=$($PK report -D -i tp.data 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE')
check record_tp_exact_perfkit "perfkit read $n_pk samples" "$n_pk" -eq 777
if [ $HAVE_PERF = 1 ]; then
	perf script -i tp.data -F comm,event > perf.out 2> perf.err
	n=$(grep -c "$EV" perf.out)
	check record_tp_exact_perf "perf read $n samples" "$n" -eq 777
	# perf may complain about this kernel's own formats: no more than
	# it does for a file it wrote itself.
	perf record -q -e $EV -o perf-tp.data -- $GP 777 >/dev/null 2>&1
	perf script -i perf-tp.data -F comm,event > /dev/null 2> perf-own.err
	check record_tp_perf_no_warning "$(head -3 perf.err)" -z "$(diff perf.err perf-own.err)"
	check record_tp_comm "$(head -1 perf.out)" "$(awk '{print $1; exit}' perf.out)" = getppid
else
	skip record_tp_exact_perf "perf is not installed"
fi

# cpu-clock with call graphs on both CPUs.
# (idle CPUs give no cpu-clock samples here: one demo is pinned to each CPU)
pinned=""
for c in $(seq 0 $(( $(getconf _NPROCESSORS_ONLN) - 1 ))); do
	pinned="$pinned taskset -c $c $DEMO >/dev/null &"
done
$PK record -q -a -g -o cg.data -- sh -c "$pinned wait" 2>cg.err; rc=$?
check record_cg_rc "rc=$rc $(cat cg.err)" $rc -eq 0
if [ $HAVE_PERF = 1 ]; then
	perf script -i cg.data -F comm,cpu,ip,sym > cg.out 2> cg.perr
	check record_cg_no_warning "$(head -3 cg.perr)" ! -s cg.perr
	ncpu=$(perf script -i cg.data -F cpu 2>/dev/null | sort -u | wc -l)
	check record_cg_every_cpu "samples on $ncpu CPUs" "$ncpu" -eq "$(getconf _NPROCESSORS_ONLN)"
	check record_cg_symbols "no demo symbols: $(grep -m3 do_ cg.out)" -n "$(grep -E 'do_(sort|hash|matrix)' cg.out | head -1)"
	perf report -i cg.data --stdio --sort sym > rep.out 2> rep.err
	check record_cg_report "$(head -3 rep.err)" -n "$(grep -E 'do_(sort|hash|matrix)' rep.out | head -1)"
	check record_cg_header_features "$(perf report -i cg.data --header-only 2>&1 | grep -c -E 'hostname|os release|cmdline|nrcpus')" \
		"$(perf report -i cg.data --header-only 2>&1 | grep -c -E '^# (hostname|os release|cmdline|nrcpus online)')" -ge 4
	check record_cg_build_ids "$(perf buildid-list -i cg.data 2>&1 | head -3)" -n "$(perf buildid-list -i cg.data 2>/dev/null | grep demo)"
fi

# --call-graph dwarf: perf unwinds the user stacks perfkit recorded.
if [ $HAVE_PERF = 1 ]; then
	$PK record -q --call-graph dwarf -e cpu-clock -o dw.data -- $DEMO >/dev/null 2>&1
	perf report -i dw.data --stdio --no-children 2>/dev/null > dw.out
	check record_dwarf_unwinds "no demo frames: $(grep -m2 main dw.out)" \
		-n "$(grep -E 'do_(sort|hash|matrix)' dw.out | head -1)" -a -n "$(grep -w main dw.out | head -1)"
fi

# srcline: the demo's own frames get their lines from its DWARF, the same
# lines perf prints for them.
$PK record -q -e cpu-clock -o sl.data -- $DEMO >/dev/null 2>&1
$PK script -i sl.data -F ip,sym,srcline 2>/dev/null | grep -A1 -E ' do_(sort|hash|matrix)' | grep -E '^  demo\.c:[0-9]+$' > sl.pk
check record_srcline_demo "no demo.c lines" -s sl.pk
if [ $HAVE_PERF = 1 ]; then
	perf script -i sl.data -F ip,sym,srcline 2>/dev/null | grep -A1 -E ' do_(sort|hash|matrix)' | grep -E '^  demo\.c:[0-9]+$' > sl.perf
	check record_srcline_as_perf "$(diff sl.perf sl.pk | head -3 | tr '\n' ' ')" -z "$(diff sl.perf sl.pk)"
fi

# Exit status of the command.
$PK record -q -o rc.data -e $EV -- sh -c 'exit 5' >/dev/null 2>&1
check record_exit_status "rc=$?" $? -eq 5

# A SIGKILLed recorder leaves a file perfkit reads up to the last flush.
$PK record -q -e $EV -o killed.data -- $GP 5000 --sleep 3000 2>/dev/null &
rp=$!
sleep 1.5
kill -KILL $rp; wait $rp 2>/dev/null
pkill -f "$GP 5000 --sleep" 2>/dev/null
n=$($PK report -D -i killed.data 2>/dev/null | grep -c PERF_RECORD_SAMPLE)
check record_killed_readable "read $n samples" "$n" -eq 5000

# Loss accounting: a one-page ring under a flood: samples + lost = calls.
# The kernel counts every record it could not write as a lost sample (in
# PERF_FORMAT_LOST and in LOST records alike), the workload's EXIT record
# included: when the ring is still full as the workload exits (a recorder
# slowed by load or ASan) the file has no EXIT and the count is one above
# the calls. 30 runs under two CPU hogs: 15 without EXIT, all 300,001;
# 15 with, all 300,000.
$PK record -e $EV -m 1 -o lost.data -- $GP 300000 2>lost.err
set -- $($PK report -D -i lost.data 2>/dev/null |
	awk '/PERF_RECORD_SAMPLE/ { s++ } /PERF_RECORD_EXIT/ { e++ }
	     END { print s + 0, e + 0 }')
got=${1:-0}; exits=${2:-0}
lost=$(sed -n 's/.*lost \([0-9]*\) samples.*/\1/p' lost.err)
lost=${lost:-0}
check record_loss_exit_once "$exits EXIT records" "$exits" -le 1
want=$((300000 + 1 - exits))
check record_loss_exact "recorded $got + lost $lost != $want ($exits EXIT records; $(head -2 lost.err | tr '\n' ' '))" $((got + lost)) -eq $want
check record_loss_happened "nothing was lost: the test did not overflow" "$lost" -gt 0

# Pipe mode, read by perf from the pipe and by perfkit from a file.
if [ $HAVE_PERF = 1 ]; then
	n=$($PK record -q -e $EV -o - -- $GP 321 | perf script -i - 2>/dev/null | grep -c "$EV")
	check record_pipe_perf "perf read $n" "$n" -eq 321
fi
$PK record -q -e $EV -o - -- $GP 123 > pipe.data 2>/dev/null
n=$($PK report -D -i pipe.data 2>/dev/null | grep -c PERF_RECORD_SAMPLE)
check record_pipe_perfkit "perfkit read $n" "$n" -eq 123

# -z: zstd-compressed records.
$PK record -q -z -e $EV -o z.data -- $GP 4444 >/dev/null 2>&1
n=$($PK report -D -i z.data 2>/dev/null | grep -c PERF_RECORD_SAMPLE)
check record_z_perfkit "perfkit read $n" "$n" -eq 4444
check record_z_compressed "no COMPRESSED record" -n "$($PK report -D -i z.data 2>/dev/null | grep -E 'COMPRESSED events: +[1-9]')"
if [ $HAVE_PERF = 1 ]; then
	n=$(perf script -i z.data 2>/dev/null | grep -c "$EV")
	check record_z_perf "perf read $n" "$n" -eq 4444
	check record_z_header "$(perf report -i z.data --header-only 2>&1 | grep -i compress)" \
		-n "$(perf report -i z.data --header-only 2>&1 | grep -i 'compressed : Zstd')"
fi

# --filter on the preceding tracepoint: nothing passes "common_pid == 0".
$PK record -q -e $EV --filter 'common_pid == 0' -o f.data -- $GP 100 >/dev/null 2>&1
n=$($PK report -D -i f.data 2>/dev/null | grep -c PERF_RECORD_SAMPLE)
check record_filter "read $n" "$n" -eq 0

# --switch-events: context switches of the workload.
$PK record -q --switch-events -e $EV -o sw.data -- sh -c "$GP 10; sleep 0.05" >/dev/null 2>&1
n=$($PK report -D -i sw.data 2>/dev/null | grep -c 'PERF_RECORD_SWITCH')
check record_switch_events "read $n SWITCH records" "$n" -gt 0

# -p: attach to a running process, until it exits.
$GP 2500 --wait > ready &
tp=$!
for i in $(seq 50); do [ -s ready ] && break; sleep 0.05; done
$PK record -q -e $EV -p $tp -o p.data 2>p.err &
rp=$!
sleep 0.5
kill -USR1 $tp
wait $rp
n=$($PK report -D -i p.data 2>/dev/null | grep -c PERF_RECORD_SAMPLE)
check record_attach_pid "read $n $(cat p.err)" "$n" -eq 2500

# --overwrite: a flight recorder keeps the newest samples, dumped on
# SIGUSR2 and at the end.
$PK record -q --overwrite -m 1 -e $EV -o ow.data -- $GP 50000 >/dev/null 2>&1
n=$($PK report -D -i ow.data 2>/dev/null | grep -c PERF_RECORD_SAMPLE)
check record_overwrite_keeps_newest "read $n" "$n" -gt 0 -a "$n" -lt 50000

# -k, --namespaces, --all-cgroups and the header features they bring.
$PK record -q -k mono --namespaces --all-cgroups -e cpu-clock -o k.data -- $DEMO >/dev/null 2>&1
kdump=$($PK report -D -i k.data 2>/dev/null)
check record_namespaces "no NAMESPACES record" -n "$(printf '%s\n' "$kdump" | grep -m1 PERF_RECORD_NAMESPACES)"
check record_cgroups "no CGROUP record" -n "$(printf '%s\n' "$kdump" | grep -m1 PERF_RECORD_CGROUP)"
if [ $HAVE_PERF = 1 ]; then
	h=$(perf report -i k.data --header-only 2>&1)
	check record_clockid_header "$(echo "$h" | grep clockid)" -n "$(echo "$h" | grep -F 'clockid: monotonic (1)')"
	check record_sample_time_header "$(echo "$h" | grep -i duration)" -n "$(echo "$h" | grep -F 'sample duration')"
	check record_cmdline_header "$(echo "$h" | grep cmdline)" -n "$(echo "$h" | grep -E '^# cmdline : .*perfkit record -q -k mono')"
fi

# Errors.
$PK record -e nosuch -- true 2>e1; rc=$?
check record_err_event "rc=$rc $(cat e1)" $rc -eq 2 -a -n "$(grep nosuch e1)"
$PK record -m 0 -- true 2>e2; rc=$?
check record_err_pages "rc=$rc $(cat e2)" $rc -eq 2
# -m 3 is rounded up as perf rounds it, saying so.
$PK record -m 3 -e cpu-clock -o m3.data -- true 2>e3; rc=$?
check record_pages_rounded "rc=$rc $(cat e3)" $rc -eq 0 -a \
	"$(head -1 e3)" = "rounding mmap pages size to 16K (4 pages)"
$PK record -o /nonexistent/dir/x.data -- true 2>e3; rc=$?
check record_err_output "rc=$rc $(cat e3)" $rc -ne 0 -a -n "$(grep /nonexistent e3)"
t_exit
