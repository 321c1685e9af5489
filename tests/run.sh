#!/bin/sh
# tests/run.sh [BUILD [all|check]]: runs the test files, unit binaries
# (BUILD/tests/*) and live scripts (tests/live/*.sh; "check": only the unit
# binaries and the scripts marked `check`), PK_JOBS at a time (default:
# the CPUs and one), the longest first; prints each failing file's lines and
# stderr tail when it ends and again at the end with its time, a line per
# file with skipped tests, the slowest files, and last "N passed, N failed,
# N skipped". A file that exits non-zero without a FAIL line (a crash)
# counts as one failure.
# PK_TESTS=SUBSTRING runs the files whose path holds it; PK_VERBOSE=1 prints
# every line of every file. Per-file times go to BUILD/test-times.txt (the
# next run starts the longest first by them).
#
# A file says how it is run in a header line among its first 20, in a
# script `# pk-test: WORD...`, in a unit test's source (tests/unit/*.c)
# `/* pk-test: WORD... */`:
#   check       quick and needs no live kernel: part of `make check`
#   slow        long: started first when there are no times yet
#   shards=N    run N times with PK_SHARD=0..N-1, PK_SHARDS=N (t_part in
#               tests/lib/sh.sh picks each run's part of the tests)
#   lock=tracefs  changes or compares the top-level tracefs state (or
#               instances it does not own): run one at a time with the others
#               so marked, under flock(1) on the tracefs directory, which
#               also keeps test suites of other trees off it meanwhile
#   lock=bpf    loads BPF programs (system-wide: they show in every
#               recording's BPF records and in kallsyms), or compares what
#               they change (layouts, kernel address ranges): one at a time
#               with the others so marked, under flock(1) on
#               /tmp/perfkit-tests-bpf.lock (other trees' suites too)

# --job DIR LOCK ENTRY...: (a worker of the pool) runs the entries one
# after the other; per entry DIR/ID.out, .err, .res ("RC MS PASSED FAILED
# SKIPPED") and .fail (its failure lines), .pid while it runs.
lock_path() {
	case $1 in
	tracefs) for d in /sys/kernel/tracing /sys/kernel/debug/tracing /tmp; do
			[ -d "$d/instances" ] && break; done; echo "$d";;
	bpf) echo /tmp/perfkit-tests-bpf.lock;;
	*) echo "tests/run.sh: unknown lock '$1'" >&2; echo /tmp;;
	esac
}
run_entry() {
	e=$1; f=$R/$(echo "$e" | tr / _); path=${e%@*}
	name=${path##*/}${e#"$path"}
	case $e in
	*@*) _s=${e#*@}; export PK_SHARD=${_s%/*} PK_SHARDS=${_s#*/};;
	*) unset PK_SHARD PK_SHARDS;;
	esac
	case $path in *.sh) set -- sh "$path";; *) set -- "$path";; esac
	[ "$LOCK" != - ] && set -- flock "$(lock_path "$LOCK")" "$@"
	t0=$(date +%s%N)
	timeout "${PK_TEST_TIMEOUT:-600}" "$@" > "$f.out" 2> "$f.err" < /dev/null &
	echo $! > "$f.pid"
	wait $!; rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	p=$(grep -c '^ok ' "$f.out"); n=$(grep -c '^FAIL ' "$f.out")
	s=$(grep -c '^skipped: ' "$f.out")
	sec=$(awk -v ms=$ms 'BEGIN { printf "%.1fs", ms / 1000 }')
	if [ "$rc" -ne 0 ] || [ "$n" -ne 0 ]; then
		{
			echo "== $name: $sec, exit status $rc"
			grep '^FAIL ' "$f.out"
			[ "$n" -eq 0 ] && echo "FAIL $name: exited with status $rc"
			sed 's/^/    /' "$f.err" | tail -20
		} > "$f.fail"
		[ "$n" -eq 0 ] && n=1
		cat "$f.fail"
	elif [ -n "$PK_RUN_TTY" ]; then
		printf '%7s  %s: %d ok, %d skipped\n' "$sec" "$name" "$p" "$s"
	fi
	echo "$rc $ms $p $n $s" > "$f.res"
	rm -f "$f.pid"
}
if [ "$1" = --job ]; then
	R=$2 LOCK=$3; shift 3
	echo $$ > "$R/$$.wpid"
	for e; do run_entry "$e"; done
	rm -f "$R/$$.wpid"
	exit 0
fi
BUILD=${1:-build}
SUITE=${2:-all}
case $SUITE in all|check) ;; *)
	echo "usage: tests/run.sh [BUILD [all|check]]" >&2; exit 2;;
esac
export PK_BUILD=$BUILD PERFKIT=$BUILD/perfkit PK_SHARED=${PK_SHARED:-../shared}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
# (ASan builds) no "Suppressions used:" block on the stderr that tests
# compare with the reference tools' (leaks stay reported)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}print_suppressions=0"
# One more job than CPUs: enough to fill the waits (perf's side-band
# thread, sleeps); twice the CPUs cost more CPU than they saved here (a
# VM where context switches are dear: 2 CPUs, 3 jobs 130-140 s, 4 jobs
# 124-171 s, with 25% more system time).
JOBS=${PK_JOBS:-$(($(getconf _NPROCESSORS_ONLN) + 1))}
TIMES=$BUILD/test-times.txt
R=$(mktemp -d /tmp/pkrun.XXXXXX) || exit 1
[ -t 1 ] && export PK_RUN_TTY=1

# Stopped: the pool and its workers end, each running test's timeout(1) is
# sent SIGTERM (it passes it on to the test's process group, whose traps
# clean up), then waited for.
XP=
stop() {
	trap '' INT TERM HUP
	[ -n "$XP" ] && kill -TERM "$XP" 2>/dev/null
	for p in "$R"/*.wpid "$R"/*.pid; do
		[ -f "$p" ] && kill -TERM "$(cat "$p")" 2>/dev/null
	done
	k=0
	while [ $k -lt 300 ]; do
		live=0
		for p in "$R"/*.pid; do
			[ -f "$p" ] && kill -0 "$(cat "$p")" 2>/dev/null && live=1
		done
		[ $live -eq 0 ] && break
		sleep 0.1; k=$((k + 1))
	done
	rm -rf "$R"
	echo "tests/run.sh: stopped by SIG$1" >&2
	exit "$2"
}
for s in INT:130 TERM:143 HUP:129; do
	trap "stop ${s%:*} ${s#*:}" ${s%:*}
done

# head_words FILE: the words of FILE's pk-test header line.
head_words() {
	[ -f "$1" ] && head -20 "$1" | sed -n 's,^\(#\|/\*\) pk-test: \([^*]*\).*,\2,p'
}
# plan ENTRY HEADER-SOURCE DEFAULT-MS: lines "MS LOCK ENTRY" for $R/plan.
plan() {
	w=$(head_words "$2"); lock=- shards=1 ms=$3
	case $SUITE in check) case " $w " in *" check "*) ;; *)
		case $1 in *.sh) return;; esac;; esac;; esac
	for x in $w; do case $x in
		lock=*) lock=${x#lock=};;
		shards=*) shards=${x#shards=};;
		slow) ms=60000;;
		check) ;;
		*) echo "tests/run.sh: $2: unknown pk-test word '$x'" >&2;;
	esac; done
	k=0
	while [ $k -lt "$shards" ]; do
		e=$1; [ "$shards" -gt 1 ] && e="$1@$k/$shards"
		t=$(awk -v e="$e" '$2 == e { print $1; exit }' "$TIMES" 2>/dev/null)
		echo "${t:-$((ms / shards))} $lock $e"
		k=$((k + 1))
	done >> "$R/plan"
}
: > "$R/plan"
for t in "$BUILD"/tests/*; do
	[ -x "$t" ] || continue
	[ -n "$PK_TESTS" ] && ! echo "$t" | grep -q "$PK_TESTS" && continue
	plan "$t" "tests/unit/$(basename "$t").c" 1000
done
for t in tests/live/*.sh; do
	[ -f "$t" ] || continue
	[ -n "$PK_TESTS" ] && ! echo "$t" | grep -q "$PK_TESTS" && continue
	plan "$t" "$t" 5000
done
# One job per entry, but all entries of a lock in one job (one after the
# other); the longest jobs first.
awk '$2 == "-" { print $1, "-", $3; next }
     { ms[$2] += $1; e[$2] = e[$2] " " $3 }
     END { for (l in ms) print ms[l], l e[l] }' "$R/plan" |
	sort -k1,1nr | cut -d' ' -f2- > "$R/jobs"

xargs -L 1 -P "$JOBS" sh tests/run.sh --job "$R" < "$R/jobs" &
XP=$!
wait $XP
XP=

# The summary, in file order.
total_p=0; total_f=0; total_s=0
: > "$R/fails"; : > "$R/skips"
for e in $(cut -d' ' -f3 "$R/plan"); do
	f=$R/$(echo "$e" | tr / _)
	[ -f "$f.res" ] || { echo "FAIL $e: not run" >> "$R/fails"; total_f=$((total_f + 1)); continue; }
	read -r rc ms p n s < "$f.res"
	[ -n "$PK_VERBOSE" ] && cat "$f.out"
	total_p=$((total_p + p)); total_f=$((total_f + n)); total_s=$((total_s + s))
	[ "$s" -gt 0 ] && echo "  ${e##*/}: $s skipped ($(grep -m1 '^skipped: ' "$f.out" |
		sed 's/^skipped: //')$([ "$s" -gt 1 ] && echo ", ..."))" >> "$R/skips"
	[ "$n" -gt 0 ] && cat "$f.fail" >> "$R/fails"
	echo "$ms $e" >> "$R/times"
done
sort -k1,1nr "$R/times" > "$TIMES" 2>/dev/null
[ -z "$PK_VERBOSE" ] && cat "$R/skips"
if [ -s "$R/fails" ]; then
	echo "failures:"; cat "$R/fails"
fi
echo "slowest: $(sort -k1,1nr "$R/times" | head -5 |
	awk '{ sub("^[^@]*/", "", $2); printf "%s%s %.1fs", (NR > 1 ? ", " : ""), $2, $1 / 1000 }')"
rm -rf "$R"
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
