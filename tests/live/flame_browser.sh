#!/bin/sh
# perfkit's flame graph in a real browser: the probe file's SVG (as in
# export_folded.sh) opened in headless Debian chromium through
# chromedriver (tests/lib/webdriver.py): hover details, click to zoom,
# Reset Zoom, Search with the matched share, Escape (tests/lib/
# flamecheck.py says what each check expects). Screenshots go to
# $PK_BUILD/screenshots (scripts/screenshots.sh makes the README's).
# pk-test: slow
. tests/lib/sh.sh
T=$T_TMP
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
	skip flame_browser "chromium or chromedriver is not installed (scripts/deps.sh)"
	exit 0
fi
if ! command -v cc > /dev/null 2>&1; then
	skip flame_browser "no C compiler"
	exit 0
fi
cc -O1 -o "$T/names" tests/data/folded/names.c &&
	t_python tests/lib/foldprobe.py "$T/probe.data" "$T/names" &&
	"$PERFKIT" report -i "$T/probe.data" --format=flamegraph \
		-o "$T/f.svg" 2> /dev/null ||
	{ fail flame_browser "could not make the flame graph"; exit 1; }
S=${PK_BUILD:-build}/screenshots
mkdir -p "$S"
# (chromium's profile and crash files stay in the test's directory)
HOME=$T timeout 300 "${T_PY:-python3}" tests/lib/flamecheck.py "$T/f.svg" "$S" \
	> "$T/out" 2> "$T/err"
cat "$T/out"
grep -q '^FAIL' "$T/out" && T_FAILS=$((T_FAILS + 1))
if [ "$(grep -c '^ok' "$T/out")" != 6 ]; then
	fail flame_browser "$(grep -c '^ok' "$T/out") of 6 checks ran: $(tail -3 "$T/err" | tr '\n' '|')"
fi
t_exit
