#!/bin/sh
# The ftrace commands' one option parser (cli/ftrace_opts.c): record and
# live read -C, -p, -b, -e the same way (as trace-cmd 3.1 reads -M and -P,
# except that bad values are refused, not taken as 0): the last -C counts,
# repeated -p add up with each pid once and with no limit (70 of them and
# a command), -e has no limit; a bad value is one line and exit 2 with
# nothing created; the tools refuse stray words in one line.
# pk-test: lock=tracefs
. tests/lib/sh.sh
T_NAME=ftrace_opts
. tests/lib/ftrace.sh

# 1. bad values: one line naming the option and the value, exit 2, no
# file, no instance
for c in record live; do
	o=; [ $c = record ] && o="-o $T_TMP/bad.dat"
	for a in "-C|" "-C|x" "-C|1-" "-b|12k" "-b|-1" "-p|7x"; do
		opt=${a%%|*} val=${a#*|}
		rm -f "$T_TMP/bad.dat"
		timeout 20 "$PERFKIT" ftrace $c -e $EV $o $opt "$val" -- true \
			> "$T_TMP/bad.out" 2> "$T_TMP/bad.err" &
		wait $!; rc=$?
		check "ftrace_opts_${c}_bad_${opt#-}_$val" "rc=$rc $(cat "$T_TMP/bad.err")" \
			$rc -eq 2 -a "$(wc -l < "$T_TMP/bad.err")" -eq 1 -a \
			"$(grep -c -- "$opt '$val'" "$T_TMP/bad.err")" -eq 1 -a \
			! -e "$T_TMP/bad.dat" -a ! -d $TF/instances/perfkit-$!
	done
done

# 2. the last -C counts (trace-cmd's -M): the command runs on the CPU the
# first -C names and nothing of it is traced; on the last one, all of it
cpus=$(cat /sys/devices/system/cpu/online)
if [ "$cpus" = 0 ] || ! command -v taskset > /dev/null; then
	skip ftrace_opts_cpus_last "needs two online CPUs and taskset"
else
	a=${cpus%%[,-]*}; b=$(echo "$cpus" | sed 's/.*[,-]//')
	"$PERFKIT" ftrace record -C $a -C $b -e $EV -o "$T_TMP/c.dat" \
		-- taskset -c $b "$GP" 20 > "$T_TMP/c.out" 2>&1
	rc=$?
	n=$("$PERFKIT" ftrace report -i "$T_TMP/c.dat" 2>&1 | grep -c 'sys_enter_getppid:')
	check ftrace_opts_record_cpus_last "rc=$rc n=$n $(cat "$T_TMP/c.out")" \
		$rc -eq 0 -a "$n" -eq 20 -a \
		"$(grep '^CPU ' "$T_TMP/c.out" | cut -d: -f1 | tr '\n' ' ')" = "CPU $b "
	"$PERFKIT" ftrace live -C $b -C $a -e $EV -- taskset -c $b "$GP" 20 \
		> "$T_TMP/cl.out" 2> "$T_TMP/cl.err"
	rc=$?
	n0=$(grep -c ': sys_getppid()$' "$T_TMP/cl.out")
	"$PERFKIT" ftrace live -C $a -C $b -e $EV -- taskset -c $b "$GP" 20 \
		> "$T_TMP/cl.out" 2>> "$T_TMP/cl.err"
	rc2=$?
	n=$(grep -c ': sys_getppid()$' "$T_TMP/cl.out")
	check ftrace_opts_live_cpus_last "rc=$rc/$rc2 n=$n0/$n $(head -3 "$T_TMP/cl.err")" \
		$rc -eq 0 -a $rc2 -eq 0 -a "$n0" -eq 0 -a "$n" -eq 20
fi

# 3. 70 -p (two of them given twice, in a list) and a command: each pid
# once in set_event_pid with the command's, no limit; the command's 300
# calls are all there
pids=
for i in $(seq 70); do
	sleep 1000 & pids="$pids $!"
done
t_atexit "kill $pids 2>/dev/null; wait $pids 2>/dev/null"
set -- $pids
args=
for p in $pids; do args="$args -p $p"; done
"$PERFKIT" ftrace record -e $EV -o "$T_TMP/p.dat" $args -p $1,$2 -- \
	"$GP" 300 --wait > "$T_TMP/p.out" 2>&1 &
rp=$!; t_bg $rp
until_ "grep -q ready $T_TMP/p.out || ! kill -0 $rp 2>/dev/null"
cat $TF/instances/perfkit-$rp/set_event_pid > "$T_TMP/p.pids" 2> /dev/null
missing=0 wp=
for p in $pids; do grep -qx "$p" "$T_TMP/p.pids" || missing=$((missing + 1)); done
# the command: the pid that is no -p one
for p in $(cat "$T_TMP/p.pids"); do
	case " $pids " in *" $p "*) ;; *) wp="$wp$p";; esac
done
[ -n "$wp" ] && kill -USR1 $wp || kill -TERM $rp
wait $rp; rc=$?
n=$("$PERFKIT" ftrace report -i "$T_TMP/p.dat" 2>&1 | grep -c 'sys_enter_getppid:')
check ftrace_opts_record_70_pids "rc=$rc n=$n missing=$missing $(tail -2 "$T_TMP/p.out")" \
	$rc -eq 0 -a "$n" -eq 300 -a $missing -eq 0 -a \
	-z "$(sort "$T_TMP/p.pids" | uniq -d)" -a "$(wc -l < "$T_TMP/p.pids")" -eq 71

# 4. 70 -p without a command: the recording ends when all of them have
"$PERFKIT" ftrace record -e $EV -o "$T_TMP/q.dat" $args > "$T_TMP/q.out" 2>&1 &
rp=$!; t_bg $rp
until_ "[ \"\$(cat $TF/instances/perfkit-$rp/tracing_on 2>/dev/null)\" = 1 ] || ! kill -0 $rp 2>/dev/null"
kill $pids 2>/dev/null
wait $rp; rc=$?
check ftrace_opts_record_70_pids_end "rc=$rc $(tail -2 "$T_TMP/q.out")" \
	$rc -eq 0 -a -s "$T_TMP/q.dat" -a ! -d $TF/instances/perfkit-$rp

# 5. -e has no limit: 300 of them, the getppid one last
args=
for i in $(seq 299); do args="$args -e sched:sched_process_free"; done
"$PERFKIT" ftrace record $args -e $EV -o "$T_TMP/e.dat" -- "$GP" 7 \
	> "$T_TMP/e.out" 2>&1
rc=$?
n=$("$PERFKIT" ftrace report -i "$T_TMP/e.dat" 2>&1 | grep -c 'sys_enter_getppid:')
check ftrace_opts_record_300_events "rc=$rc n=$n $(tail -2 "$T_TMP/e.out")" \
	$rc -eq 0 -a "$n" -eq 7

# 6. the tools: stray words and bad options, one line or getopt's and the
# usage, exit 2; -h the usage on stdout, exit 0
for a in "stat|extra" "extract|extra" "snapshot|bogus"; do
	c=${a%%|*}
	"$PERFKIT" ftrace $c ${a#*|} > "$T_TMP/t.out" 2> "$T_TMP/t.err"
	rc=$?
	check "ftrace_opts_${c}_stray" "rc=$rc $(cat "$T_TMP/t.err")" $rc -eq 2 -a \
		"$(wc -l < "$T_TMP/t.err")" -eq 1 -a "$(grep -c "'${a#*|}'" "$T_TMP/t.err")" -eq 1 -a \
		! -s "$T_TMP/t.out"
done
for c in record live stack profile extract stat snapshot; do
	"$PERFKIT" ftrace $c --help > "$T_TMP/h.out" 2> "$T_TMP/h.err"
	rc=$?
	"$PERFKIT" ftrace $c -Q > "$T_TMP/q.out" 2> "$T_TMP/q.err"
	rc2=$?
	check "ftrace_opts_${c}_help" "rc=$rc/$rc2 $(head -2 "$T_TMP/h.out" "$T_TMP/q.err")" \
		$rc -eq 0 -a $rc2 -eq 2 -a ! -s "$T_TMP/h.err" -a ! -s "$T_TMP/q.out" -a \
		"$(head -c 21 "$T_TMP/h.out")" = "usage: perfkit ftrace" -a \
		"$(sed -n 2p "$T_TMP/q.err" | head -c 21)" = "usage: perfkit ftrace"
done
t_exit
