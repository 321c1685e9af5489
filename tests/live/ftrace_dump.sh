#!/bin/sh
# perfkit ftrace dump against trace-cmd dump 3.1, byte for byte, every
# part on both corpus files, a trace-cmd split piece of each and a file
# perfkit ftrace record writes here; bad files: one line, non-zero.
# pk-test: check
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
D=$PK_SHARED/corpus/trace-dat
case $D in /*) ;; *) D=$PWD/$D ;; esac
if ! command -v trace-cmd > /dev/null 2>&1; then
	skip ftrace_dump "trace-cmd is not installed"
	t_exit; exit
fi
PK=$PERFKIT
case $PK in /*) ;; *) PK=$PWD/$PK ;; esac
# dumps NAME FILE: each part, alone and together (run where FILE is, as
# the file name is printed)
dumps() {
	_n=$1 _d=$(dirname "$2") _f=$(basename "$2")
	for _o in --summary --head-page --head-event --ftrace-events \
		--systems --events --kallsyms --printk --cmd-lines --options \
		--flyrecord --clock --sections --strings --all -v \
		"--options --clock --flyrecord --summary"; do
		(cd "$_d" && trace-cmd dump $_o "$_f") > "$T_TMP/tc" 2>/dev/null
		(cd "$_d" && "$PK" ftrace dump $_o "$_f") > "$T_TMP/pk" \
			2> "$T_TMP/err"
		_c=$(echo "$_o" | tr -d ' -')
		# (v6 files have no sections, some files no clock: nothing)
		if [ ! -s "$T_TMP/tc" ] && [ "$_o" = --summary ]; then
			fail "${_n}_$_c" "trace-cmd printed nothing"
		elif cmp -s "$T_TMP/tc" "$T_TMP/pk"; then
			ok "${_n}_$_c"
		else
			fail "${_n}_$_c" "$(diff "$T_TMP/tc" "$T_TMP/pk" | head -3 | tr '\n' '|') $(head -1 "$T_TMP/err")"
		fi
	done
}
need_shared corpus/trace-dat ftrace_dump && {
	for f in gcc-x86-v7-zstd rtapp-arm64-v6; do
		dumps "ftrace_dump_$f" "$D/$f.trace.dat"
		(cd "$T_TMP" && trace-cmd split -i "$D/$f.trace.dat" \
			-o "$f.piece" -e 500 > /dev/null 2>&1)
		if [ -s "$T_TMP/$f.piece.1" ]; then
			dumps "ftrace_dump_${f}_piece" "$T_TMP/$f.piece.1"
		else
			fail "ftrace_dump_${f}_piece" "trace-cmd split wrote nothing"
		fi
	done
}
TF=/sys/kernel/tracing
if [ -w $TF/instances ] && [ -d $TF/events/sched ]; then
	"$PK" ftrace record -o "$T_TMP/rec.dat" -e sched:sched_switch \
		-- sh -c 'sleep 0.01' > /dev/null 2>&1
	if [ -s "$T_TMP/rec.dat" ]; then
		dumps ftrace_dump_rec "$T_TMP/rec.dat"
	else
		fail ftrace_dump_rec "perfkit ftrace record wrote no file"
	fi
else
	skip ftrace_dump_rec "no writable tracefs with sched events"
fi

# bad files: a truncated one, a random one, none
need_shared corpus/trace-dat ftrace_dump_bad && {
	for n in 5 20 300 5000 1200000; do
		head -c $n "$D/gcc-x86-v7-zstd.trace.dat" > "$T_TMP/cut.dat"
		"$PK" ftrace dump --all "$T_TMP/cut.dat" > /dev/null \
			2> "$T_TMP/err"
		rc=$?
		check "ftrace_dump_cut_$n" "rc $rc: $(cat "$T_TMP/err")" \
			"$rc" = 1 -a "$(wc -l < "$T_TMP/err")" = 1
	done
}
"$PK" ftrace dump "$T_TMP/none.dat" > /dev/null 2> "$T_TMP/err"
rc=$?
check ftrace_dump_missing "rc $rc: $(cat "$T_TMP/err")" \
	"$rc" = 1 -a "$(wc -l < "$T_TMP/err")" = 1
t_exit
