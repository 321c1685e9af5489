# Shell test helpers: source this, then call ok/fail/skip/check.
# Lines printed: "ok NAME", "FAIL NAME: detail", "skipped: NAME: reason".
PK_BUILD=${PK_BUILD:-build}
PERFKIT=${PERFKIT:-$PK_BUILD/perfkit}
PK_SHARED=${PK_SHARED:-../shared}
T_FAILS=0
T_TMP=$(mktemp -d /tmp/pktest.XXXXXX)
# t_atexit 'COMMAND': run when the test ends, also when it is killed by
# SIGINT, SIGTERM or SIGHUP (tests/run.sh's timeout sends SIGTERM; dash
# runs no EXIT trap for a signal); newest first, $T_TMP removed last
# (kept when T_KEEP is set).
T_ATEXIT=
t_atexit() { T_ATEXIT="$1
$T_ATEXIT"; }
# t_bg PID: a background process of the test, ended (SIGTERM) and waited
# for at the end: a perfkit that is stopped so puts tracefs back.
t_bg() { t_atexit "kill -TERM $1 2>/dev/null; wait $1 2>/dev/null"; }
t_cleanup() {
	_tc=$T_ATEXIT; T_ATEXIT=; eval "$_tc"
	[ -n "$T_KEEP" ] || rm -rf "$T_TMP"
}
trap t_cleanup EXIT
for _ts in INT:130 TERM:143 HUP:129; do
	trap "trap - EXIT; t_cleanup; exit ${_ts#*:}" ${_ts%:*}
done
ok()   { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; T_FAILS=$((T_FAILS + 1)); }
skip() { echo "skipped: $1: $2"; }
# check NAME "detail" test-args...: runs `test ARGS`.
check() { _cn=$1; _cd=$2; shift 2; if test "$@"; then ok "$_cn"; else fail "$_cn" "$_cd"; fi; }
t_exit() { [ "$T_FAILS" -eq 0 ]; }
# t_python ARGS...: python3 ARGS, the interpreter found once per test (a
# version manager's shim, such as pyenv's, starts bash and more per call).
t_python() {
	# the system's python first: it starts in a third of the time of a
	# version manager's (the scripts need only the standard library)
	[ -n "$T_PY" ] || { [ -x /usr/bin/python3 ] && T_PY=/usr/bin/python3; } ||
		T_PY=$(python3 -c 'import sys; print(sys.executable)') ||
		T_PY=python3
	"$T_PY" "$@"
}
# -vv attr comparisons, batched (one python for all of a test):
#   t_attr_case NAME   a new case: write perf's -vv stderr to $T_AREF and
#                      perfkit's to $T_APK
#   t_attr_err DETAIL  the current case fails with DETAIL (unless skipped)
#   t_attr_check PREFIX [--tries]  normalizes every case with
#                      tests/lib/attr_norm.py, then per case: skipped when
#                      perf printed no attr block (unless NAME is "null"),
#                      FAIL on an error, ok when equal, else FAIL with the
#                      difference; names "PREFIX NAME"
T_NORM=$PWD/tests/lib/attr_norm.py
T_ATTR_N=0
t_attr_case() {
	T_ATTR_N=$((T_ATTR_N + 1))
	T_AREF=$T_TMP/attr.$T_ATTR_N.ref T_APK=$T_TMP/attr.$T_ATTR_N.pk
	printf '%s\n' "$1" >> "$T_TMP/attr.names"
}
t_attr_err() { printf '%s\n' "$1" > "$T_TMP/attr.$T_ATTR_N.err"; }
t_attr_check() {
	_ap=$1; _ao=${2:-}
	[ $T_ATTR_N -eq 0 ] && return 0
	set --; _k=1
	while [ $_k -le $T_ATTR_N ]; do
		set -- "$@" "$T_TMP/attr.$_k.ref" "$T_TMP/attr.$_k.pk"
		_k=$((_k + 1))
	done
	t_python "$T_NORM" $_ao "$@" || { fail "$_ap" "attr_norm.py failed"; return; }
	_k=1
	while IFS= read -r _an; do
		_r=$T_TMP/attr.$_k.ref.n _o=$T_TMP/attr.$_k.pk.n
		if [ ! -s "$_r" ] && [ "$_an" != null ]; then
			skip "$_ap $_an" "perf printed no attr block"
		elif [ -s "$T_TMP/attr.$_k.err" ]; then
			fail "$_ap $_an" "$(cat "$T_TMP/attr.$_k.err")"
		elif cmp -s "$_r" "$_o"; then
			ok "$_ap $_an"
		else
			fail "$_ap $_an" "$(diff "$_r" "$_o" | head -12 | tr '\n' '|')"
		fi
		_k=$((_k + 1))
	done < "$T_TMP/attr.names"
}
# t_part N: true when part N (0, 1, ...) of a test file split in runs (a
# `# pk-test: shards=S` header, tests/run.sh) is this run's: N mod S is
# PK_SHARD; always true when the file runs whole.
t_part() { [ $(($1 % ${PK_SHARDS:-1})) -eq "${PK_SHARD:-0}" ]; }
# t_wait_file FILE: waits until FILE has bytes, a minute at most (a tenth
# of a second a look; no timing is asserted: the caller checks FILE).
t_wait_file() {
	_w=0
	while [ ! -s "$1" ] && [ $_w -lt 600 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
}
# first_diff A B: the first lines where files A and B differ, short enough
# for a failure line (runs of spaces squeezed, each line cut).
first_diff() {
	diff "$1" "$2" | grep '^[<>]' | head -4 | sed -E 's/ +/ /g' |
		cut -c1-160 | tr '\n' '|'
}
# tc_report WANT OUT ARGS...: `trace-cmd report ARGS` into OUT; when OUT
# differs from WANT (perfkit's output), trace-cmd runs again, up to three
# more times. trace-cmd 3.1 is not deterministic on a file whose
# TRACECLOCK option is empty (the rtapp corpus file): it parses the clock
# past a 0-byte heap block (valgrind: strtok_r in
# tracecmd_parse_trace_clock) and now and then prints raw timestamps
# ("[002]259445106979220:"). WANT is never rerun.
tc_report() {
	_tw=$1 _to=$2; shift 2
	for _ti in 1 2 3 4; do
		trace-cmd report "$@" > "$_to" 2>/dev/null
		cmp -s "$_tw" "$_to" && return 0
	done
	return 0
}
# same_failure NAME PRC KRC PERR KERR: the reference (status PRC, stderr
# in file PERR) and perfkit (KRC, KERR) both failed, the reference said
# something, and perfkit said the same, byte for byte.
same_failure() {
	if [ "$2" -eq 0 ] || [ "$3" -eq 0 ]; then
		fail "$1" "reference rc=$2, perfkit rc=$3"
	elif ! [ -s "$4" ]; then
		fail "$1" "the reference printed nothing"
	elif cmp -s "$4" "$5"; then
		ok "$1"
	else
		fail "$1" "$(first_diff "$4" "$5")"
	fi
}
# need_cmd NAME CMD REASON: ends the test with "skipped: NAME: REASON"
# when CMD is not installed.
need_cmd() {
	command -v "$2" >/dev/null 2>&1 && return 0
	skip "$1" "$3"
	exit 0
}
# need_built NAME FILE...: ends the test with a failure when a file the
# build makes (the perfkit binary, a workload) is not there.
need_built() {
	_nb=$1; shift
	for _nf; do
		[ -x "$_nf" ] && continue
		fail "$_nb" "build $_nf first"
		exit 1
	done
}
# need_shared REL NAME...: true when $PK_SHARED/REL (the corpus, ../shared)
# exists; else prints for each NAME "skipped: NAME: ../shared is absent"
# (no corpus here) or "FAIL NAME: PATH is missing" (the corpus lacks it)
# and is false.
need_shared() {
	_nr=$1; shift
	[ -e "$PK_SHARED/$_nr" ] && return 0
	for _nn; do
		if [ -e "$PK_SHARED" ]; then fail "$_nn" "$PK_SHARED/$_nr is missing"
		else skip "$_nn" "$PK_SHARED is absent"; fi
	done
	return 1
}
