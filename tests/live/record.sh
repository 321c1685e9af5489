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
n_pk=$($PK script -D -i tp.data 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE')
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
$PK record -q -a -g -o cg.data -- sh -c "$DEMO >/dev/null & $DEMO >/dev/null; wait" 2>cg.err; rc=$?
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

# Exit status of the command.
$PK record -q -o rc.data -e $EV -- sh -c 'exit 5' >/dev/null 2>&1
check record_exit_status "rc=$?" $? -eq 5

# A SIGKILLed recorder leaves a file perfkit reads up to the last flush.
$PK record -q -e $EV -o killed.data -- $GP 5000 --sleep 3000 2>/dev/null &
rp=$!
sleep 1.5
kill -KILL $rp; wait $rp 2>/dev/null
pkill -f "$GP 5000 --sleep" 2>/dev/null
n=$($PK script -D -i killed.data 2>/dev/null | grep -c PERF_RECORD_SAMPLE)
check record_killed_readable "read $n samples" "$n" -eq 5000

# Loss accounting: a one-page ring under a flood: samples + lost = calls.
$PK record -e $EV -m 1 -o lost.data -- $GP 300000 2>lost.err
got=$($PK script -D -i lost.data 2>/dev/null | grep -c PERF_RECORD_SAMPLE)
lost=$(sed -n 's/.*lost \([0-9]*\) samples.*/\1/p' lost.err)
lost=${lost:-0}
check record_loss_exact "recorded $got + lost $lost != 300000 ($(head -2 lost.err | tr '\n' ' '))" $((got + lost)) -eq 300000
check record_loss_happened "nothing was lost: the test did not overflow" "$lost" -gt 0

# Errors.
$PK record -e nosuch -- true 2>e1; rc=$?
check record_err_event "rc=$rc $(cat e1)" $rc -eq 2 -a -n "$(grep nosuch e1)"
$PK record -m 3 -- true 2>e2; rc=$?
check record_err_pages "rc=$rc $(cat e2)" $rc -eq 2
$PK record -o /nonexistent/dir/x.data -- true 2>e3; rc=$?
check record_err_output "rc=$rc $(cat e3)" $rc -ne 0 -a -n "$(grep /nonexistent e3)"
t_exit
