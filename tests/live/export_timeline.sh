#!/bin/sh
# perfkit report --format=speedscope and --format=perfetto on a recording
# made here (cpu-clock -g): their JSON parsed and checked against each
# other and perfkit script (tests/lib/timelinecheck.py: shapes, one
# instant or weight per sample, periods, stacks, time order, thread
# names); the speedscope file opened by speedscope itself (npm's package,
# installed into the test's directory) in headless chromium, a
# screenshot in $PK_BUILD/screenshots.
# pk-test: slow
. tests/lib/sh.sh
T=$T_TMP
"$PERFKIT" record -q -g -F 4000 -o "$T/fp.data" "$PK_BUILD/workloads/demo" \
	> /dev/null 2> "$T/rec.err"
if [ ! -s "$T/fp.data" ]; then
	skip export_timeline "cannot record cpu-clock -g: $(head -1 "$T/rec.err")"
	exit 0
fi
"$PERFKIT" report -i "$T/fp.data" --format=speedscope -o "$T/ss.json" 2> "$T/err" &&
"$PERFKIT" report -i "$T/fp.data" --format=perfetto -o "$T/pf.json" 2>> "$T/err" &&
"$PERFKIT" script -i "$T/fp.data" -F comm,tid,period,ip,sym,dso \
	> "$T/script" 2>> "$T/err" ||
	{ fail export_timeline "$(head -1 "$T/err")"; exit 1; }
t_python tests/lib/timelinecheck.py "$T/ss.json" "$T/pf.json" "$T/script" \
	> "$T/out" 2> "$T/py.err"
cat "$T/out"
grep -q '^FAIL' "$T/out" && T_FAILS=$((T_FAILS + 1))
[ "$(grep -c '^ok' "$T/out")" = 8 ] ||
	fail export_timeline_checks "$(grep -c '^ok' "$T/out") of 8 ran: $(tail -2 "$T/py.err" | tr '\n' '|')"

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ] ||
   ! command -v npm > /dev/null 2>&1; then
	skip speedscope_opens "chromium, chromedriver or npm is not installed"
elif ! HOME=$T timeout 180 npm install --prefix "$T/npm" --no-audit --no-fund \
	speedscope@1.20.0 > "$T/npm.out" 2>&1; then
	skip speedscope_opens "npm could not install speedscope: $(tail -1 "$T/npm.out")"
else
	S=${PK_BUILD:-build}/screenshots
	mkdir -p "$S"
	HOME=$T timeout 300 "${T_PY:-python3}" tests/lib/speedscopecheck.py \
		"$T/npm/node_modules/speedscope/dist/release" "$T/ss.json" \
		"demo (" "$S/speedscope.png" > "$T/out" 2> "$T/err"
	cat "$T/out"
	grep -q '^ok' "$T/out" || fail speedscope_opens "$(tail -2 "$T/err" | tr '\n' '|')"
fi
t_exit
