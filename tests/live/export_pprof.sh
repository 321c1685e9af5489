#!/bin/sh
# perfkit report --format=pprof read by go tool pprof (Debian golang-go):
# its -top (flat values, cumulative shares) and -traces against perfkit
# report --stdio --no-children/--children -s sym on the same file
# (tests/lib/pprofcheck.py), for recordings made here: cpu-clock -g
# (frame pointers), system-wide -a -g, --call-graph dwarf (flat only:
# report names a clone's inlined frames by DWARF), and the probe file of
# export_folded.sh with two samples whose callchains perf drops (counted
# at their own addresses); the file is gzipped protobuf with perfkit's
# comment.
# pk-test: slow
. tests/lib/sh.sh
T=$T_TMP
if ! command -v go > /dev/null 2>&1; then
	skip export_pprof "go (golang-go) is not installed"
	exit 0
fi
DEMO=$PK_BUILD/workloads/demo
"$PERFKIT" record -q -g -F 4000 -o "$T/fp.data" "$DEMO" > /dev/null 2> "$T/rec.err"
"$PERFKIT" record -q -a -g -F 2000 -o "$T/sys.data" "$DEMO" > /dev/null 2>> "$T/rec.err"
"$PERFKIT" record -q --call-graph dwarf -F 1000 -o "$T/dw.data" "$DEMO" \
	> /dev/null 2>> "$T/rec.err"
if [ ! -s "$T/fp.data" ]; then
	skip export_pprof "cannot record cpu-clock -g: $(head -1 "$T/rec.err")"
	exit 0
fi
if command -v cc > /dev/null 2>&1; then
	cc -O1 -o "$T/names" tests/data/folded/names.c &&
		t_python tests/lib/foldprobe.py --bad-chains "$T/probe.data" "$T/names"
fi
for f in fp sys dw probe; do
	[ -s "$T/$f.data" ] || { skip "export_pprof $f" "no $f.data"; continue; }
	if ! "$PERFKIT" report -i "$T/$f.data" --format=pprof -o "$T/$f.pb.gz" \
		2> "$T/err"; then
		fail "export_pprof $f" "$(head -1 "$T/err")"
		continue
	fi
	check "export_pprof_gzip $f" "not gzip" \
		"$(head -c 2 "$T/$f.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b
	_o=
	[ $f = dw ] && _o=--flat
	T_TMP=$T t_python tests/lib/pprofcheck.py "$PERFKIT" "$T/$f.data" \
		"$T/$f.pb.gz" "export_pprof $f" $_o > "$T/out" 2> "$T/err"
	cat "$T/out"
	if grep -q '^FAIL' "$T/out"; then
		T_FAILS=$((T_FAILS + 1))
		# the input kept for a look (recordings here differ each run)
		cp "$T/$f.data" "/tmp/pk-pprof-fail.$$.$f.data" 2>/dev/null
		echo "(input kept in /tmp/pk-pprof-fail.$$.$f.data)"
	fi
	grep -q '^ok' "$T/out" || fail "export_pprof $f" "$(tail -2 "$T/err" | tr '\n' '|')"
done
# what pprof says of the file: the comment, the type and the labels
HOME=$T go tool pprof -symbolize=none -traces "$T/fp.pb.gz" > "$T/tr" 2>&1
check export_pprof_header "$(head -5 "$T/tr" | tr '\n' '|')" \
	-n "$(grep '^perfkit report --format=pprof$' "$T/tr")" -a \
	-n "$(grep '^Type: cpu$' "$T/tr")"
check export_pprof_labels "$(sed -n 6,12p "$T/tr" | tr '\n' '|')" \
	-n "$(grep '^ *comm:  demo$' "$T/tr" | head -1)" -a \
	-n "$(grep '^ *pid:  [0-9]' "$T/tr" | head -1)"
t_exit
