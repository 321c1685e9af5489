#!/bin/sh
# Runs every unit test binary and live test script; prints their lines and
# the closing "N passed, N failed, N skipped". A test that exits non-zero
# without printing a FAIL line (a crash) counts as one failure.
BUILD=${1:-build}
export PK_BUILD=$BUILD PERFKIT=$BUILD/perfkit PK_SHARED=${PK_SHARED:-../shared}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
out=$(mktemp /tmp/pkrun.XXXXXX)
total_p=0; total_f=0; total_s=0
run_one() {
	name=$1; shift
	timeout ${PK_TEST_TIMEOUT:-600} "$@" >"$out" 2>"$out.err" </dev/null
	rc=$?
	cat "$out"
	p=$(grep -c '^ok ' "$out"); f=$(grep -c '^FAIL ' "$out")
	s=$(grep -c '^skipped: ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited with status $rc"; sed 's/^/    /' "$out.err" | tail -20
		f=1
	elif [ "$f" -ne 0 ]; then
		sed 's/^/    /' "$out.err" | tail -20
	fi
	total_p=$((total_p + p)); total_f=$((total_f + f)); total_s=$((total_s + s))
}
for t in "$BUILD"/tests/*; do
	[ -x "$t" ] || continue
	[ -n "$PK_TESTS" ] && ! echo "$t" | grep -q "$PK_TESTS" && continue
	run_one "$(basename "$t")" "$t"
done
for t in tests/live/*.sh; do
	[ -f "$t" ] || continue
	[ -n "$PK_TESTS" ] && ! echo "$t" | grep -q "$PK_TESTS" && continue
	run_one "$(basename "$t")" sh "$t"
done
rm -f "$out" "$out.err"
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
