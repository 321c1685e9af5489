#!/bin/sh
# perfkit ftrace split against trace-cmd split 3.1: the same pieces (names,
# count), each piece's bytes equal (format 6 and format 7 with zstd), what
# both say on standard error and trace-cmd report of each equal, on both
# corpus files and on a file perfkit ftrace record writes here.
# pk-test: check
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
D=$PK_SHARED/corpus/trace-dat
case $D in /*) ;; *) D=$PWD/$D ;; esac
if ! command -v trace-cmd > /dev/null 2>&1; then
	skip ftrace_split "trace-cmd is not installed"
	t_exit; exit
fi
PK=$PERFKIT
case $PK in /*) ;; *) PK=$PWD/$PK ;; esac
# sp NAME FILE ARGS...: both splits of FILE with ARGS, then their pieces
sp() {
	_n=$1 _f=$2; shift 2
	rm -rf "$T_TMP/tc" "$T_TMP/pk"
	mkdir "$T_TMP/tc" "$T_TMP/pk"
	(cd "$T_TMP/tc" && trace-cmd split -i "$_f" -o x "$@" \
		> /dev/null 2> "$T_TMP/tcerr")
	(cd "$T_TMP/pk" && "$PK" ftrace split -i "$_f" -o x "$@" \
		> /dev/null 2> "$T_TMP/err")
	_tc=$(cd "$T_TMP/tc" && ls) _pk=$(cd "$T_TMP/pk" && ls)
	if [ -z "$_tc" ]; then
		fail "$_n" "trace-cmd split wrote nothing"
		return
	fi
	if [ "$_tc" != "$_pk" ]; then
		fail "$_n" "pieces: trace-cmd $(echo $_tc) perfkit $(echo $_pk) $(head -1 "$T_TMP/err")"
		return
	fi
	# where each CPU's data went, on standard error
	if ! cmp -s "$T_TMP/tcerr" "$T_TMP/err"; then
		fail "$_n" "stderr: $(diff "$T_TMP/tcerr" "$T_TMP/err" | head -3 | tr '\n' '|')"
		return
	fi
	for _p in $_tc; do
		# trace-cmd's pieces are deterministic (the same zstd here)
		if ! cmp -s "$T_TMP/tc/$_p" "$T_TMP/pk/$_p"; then
			fail "$_n" "$_p: the file's bytes differ at $(cmp "$T_TMP/tc/$_p" "$T_TMP/pk/$_p" 2>&1 | sed 's/.*byte //')"
			return
		fi
		trace-cmd report "$T_TMP/tc/$_p" > "$T_TMP/a" 2>&1
		trace-cmd report "$T_TMP/pk/$_p" > "$T_TMP/b" 2>&1
		if ! cmp -s "$T_TMP/a" "$T_TMP/b"; then
			fail "$_n" "$_p: $(diff "$T_TMP/a" "$T_TMP/b" | head -3 | tr '\n' '|')"
			return
		fi
	done
	ok "$_n"
}
# splits NAME FILE START END EVENTS SECS MSECS USECS PAGES: few pieces each
splits() {
	_f=$2
	sp "$1_e_r" "$_f" -e "$5" -r
	sp "$1_e" "$_f" -e 777
	sp "$1_s_r" "$_f" -s "$6" -r
	sp "$1_m_r" "$_f" -m "$7" -r
	sp "$1_u_r" "$_f" -u "$8" -r
	sp "$1_p_r" "$_f" -p "$9" -r
	sp "$1_p" "$_f" -p 3
	sp "$1_c_e_r" "$_f" -c -e "$5" -r
	sp "$1_C" "$_f" -C 1 -e "$5" -r
	sp "$1_none" "$_f"
	sp "$1_start" "$_f" "$3"
	sp "$1_start_end" "$_f" "$3" "$4"
	sp "$1_start_end_r" "$_f" -m "$7" -r "$3" "$4"
	sp "$1_start_e_r" "$_f" -e "$5" -r "$3"
}
need_shared corpus/trace-dat ftrace_split && {
	splits ftrace_split_gcc "$D/gcc-x86-v7-zstd.trace.dat" 801.83 802.5 \
		80000 6 6000 6000000 120
	splits ftrace_split_rtapp "$D/rtapp-arm64-v6.trace.dat" \
		259450.5 259452.25 3000 4 4000 4000000 4
}

# a file perfkit ftrace record writes here (sched events, both CPUs)
TF=/sys/kernel/tracing
if [ -w $TF/instances ] && [ -d $TF/events/sched ]; then
	"$PK" ftrace record -o "$T_TMP/rec.dat" -e sched:sched_switch \
		-e sched:sched_wakeup -e sched:sched_waking -- sh -c \
		'for i in 1 2 3 4 5 6 7 8; do taskset -c $((i % 2)) sh -c "sleep 0.01"; done' \
		> /dev/null 2>&1
	if [ -s "$T_TMP/rec.dat" ]; then
		sp ftrace_split_rec_e_r "$T_TMP/rec.dat" -e 40 -r
		sp ftrace_split_rec_u_r "$T_TMP/rec.dat" -u 20000 -r
		sp ftrace_split_rec_c_e_r "$T_TMP/rec.dat" -c -e 30 -r
		sp ftrace_split_rec_p "$T_TMP/rec.dat" -p 1 -r
	else
		fail ftrace_split_rec "perfkit ftrace record wrote no file"
	fi
else
	skip ftrace_split_rec "no writable tracefs with sched events"
fi

# bad input: one line, non-zero, no piece
( cd "$T_TMP" && "$PK" ftrace split -i /nonexistent -o y ) \
	> /dev/null 2> "$T_TMP/err"
if [ $? -ne 0 ] && [ "$(wc -l < "$T_TMP/err")" = 1 ] &&
   [ ! -e "$T_TMP/y.1" ]; then
	ok ftrace_split_bad_file
else
	fail ftrace_split_bad_file "$(cat "$T_TMP/err")"
fi
"$PK" ftrace split -e 0 -i /nonexistent > /dev/null 2> "$T_TMP/err"
[ $? -ne 0 ] && grep -q 'greater than 0' "$T_TMP/err" &&
	ok ftrace_split_bad_units || fail ftrace_split_bad_units "$(cat "$T_TMP/err")"
"$PK" ftrace split -e 1 -s 2 > /dev/null 2> "$T_TMP/err"
[ $? -ne 0 ] && grep -q 'Only one type' "$T_TMP/err" &&
	ok ftrace_split_two_types || fail ftrace_split_two_types "$(cat "$T_TMP/err")"
t_exit
