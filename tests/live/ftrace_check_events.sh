#!/bin/sh
# perfkit ftrace check-events against trace-cmd check-events 3.1 on the
# live tracefs (read only): standard output, standard error and exit
# status equal, with and without plugins, at libtraceevent's log levels
# (this kernel has formats libtraceevent cannot parse: their warnings
# show from --verbose=warn on).
# pk-test: check
. tests/lib/sh.sh
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
TF=/sys/kernel/tracing
if ! command -v trace-cmd > /dev/null 2>&1; then
	skip ftrace_check_events "trace-cmd is not installed"
	t_exit; exit
fi
if [ ! -r $TF/events/header_page ]; then
	skip ftrace_check_events "no readable tracefs"
	t_exit; exit
fi
# ce NAME ARGS...
ce() {
	_n=$1; shift
	trace-cmd check-events "$@" > "$T_TMP/tc1" 2> "$T_TMP/tc2"
	_trc=$?
	"$PERFKIT" ftrace check-events "$@" > "$T_TMP/pk1" 2> "$T_TMP/pk2"
	_prc=$?
	if [ $_trc != $_prc ]; then
		fail "$_n" "exit $_prc, trace-cmd $_trc: $(head -1 "$T_TMP/pk2")"
	elif ! cmp -s "$T_TMP/tc1" "$T_TMP/pk1"; then
		fail "$_n" "stdout: $(diff "$T_TMP/tc1" "$T_TMP/pk1" | head -3 | tr '\n' '|')"
	elif ! cmp -s "$T_TMP/tc2" "$T_TMP/pk2"; then
		fail "$_n" "stderr: $(diff "$T_TMP/tc2" "$T_TMP/pk2" | head -3 | tr '\n' '|')"
	else
		ok "$_n"
	fi
}
ce ftrace_check_events
ce ftrace_check_events_N -N
ce ftrace_check_events_warn --verbose=warn
ce ftrace_check_events_info --verbose=info
ce ftrace_check_events_default --verbose
ce ftrace_check_events_N_info -N --verbose=info
ce ftrace_check_events_num --verbose=3
ce ftrace_check_events_all --verbose=all
"$PERFKIT" ftrace check-events --verbose=loud > /dev/null 2> "$T_TMP/err"
rc=$?
check ftrace_check_events_bad_level "rc $rc: $(cat "$T_TMP/err")" \
	$rc -ne 0 -a "$(wc -l < "$T_TMP/err")" = 1
"$PERFKIT" ftrace check-events extra > /dev/null 2>&1
check ftrace_check_events_bad_arg "an argument accepted" $? -ne 0
t_exit
