# perfkit report's browser against perf report's, both in a tmux pane of
# 160x50 on the same recordings (cpu-clock -g fp and --call-graph dwarf
# on the demo, made here): for several option sets, the screen after
# none, E (all callchains expanded), d and t (zoomed into the first
# entry's DSO and thread) and / (filtered by a symbol), lines 1 to 49
# (the status line is each one's own) cut to 150 columns (perf's scroll
# bar lies past them), trailing blanks dropped, byte for byte. Keys go
# in order: once the help ('?') opened after them has closed, they have
# all been handled; no timing is asserted. a: the annotate browser after
# keys, on the hottest functions.
# pk-test: check slow
. tests/lib/sh.sh
. tests/lib/tmux.sh

TMUX_NAME=report_tui_vs_perf TMUX_PROC="report -i" TMUX_X=160 TMUX_Y=50
if ! command -v perf > /dev/null 2>&1; then
	skip report_tui_vs_perf "perf is not installed"
	exit 0
fi
DEMO=$PK_BUILD/workloads/demo
"$PERFKIT" record -q -e cpu-clock -F 4000 -g -o "$T_TMP/fp.data" "$DEMO" \
	> /dev/null 2> "$T_TMP/rec.err"
"$PERFKIT" record -q -e cpu-clock -F 4000 --call-graph dwarf \
	-o "$T_TMP/dwarf.data" "$DEMO" > /dev/null 2>> "$T_TMP/rec.err"
if [ ! -s "$T_TMP/fp.data" ] || [ ! -s "$T_TMP/dwarf.data" ]; then
	skip report_tui_vs_perf "cannot record cpu-clock -g: $(head -1 "$T_TMP/rec.err")"
	exit 0
fi
tmux_setup || exit 0

# shot WHO FILE KEYS OPTS...: the screen of WHO's browser after KEYS into
# $T_TMP/shot.WHO (empty when it did not show)
shot() {
	_who=$1 _f=$2 _k=$3
	shift 3
	if [ "$_who" = perf ]; then _cmd="perf report -i $_f $*"
	else _cmd="$PK report -i $_f $*"; fi
	N=$((N + 1))
	: > "$T_TMP/shot.$_who"
	TM send-keys -t pk -l "$_cmd 2>/dev/null; echo \"exit=\$?.$N\""
	TM send-keys -t pk Enter
	_w=0	# perf warns of restricted kernel maps first: Enter
	while [ $_w -lt 600 ]; do
		screen
		grep -q '^Samples' "$T_TMP/screen" && break
		grep -q "^exit=.*\.$N\$" "$T_TMP/screen" && return
		grep -q 'Warning' "$T_TMP/screen" && TM send-keys -t pk Enter
		sleep 0.1
		_w=$((_w + 1))
	done
	# (the annotate browser's help is h: its ? searches backwards)
	for _key in $_k "${SYNC:-?}"; do TM send-keys -t pk "$_key"; done
	wait_for 'Press any key\|^Keys of the browser' || return
	TM send-keys -t pk q
	_w=0
	while [ $_w -lt 600 ]; do
		screen
		grep -q 'Press any key\|^Keys of the browser' "$T_TMP/screen" ||
			break
		sleep 0.1
		_w=$((_w + 1))
	done
	# the help gone, the redraw may still be on its way (a slow build):
	# until two captures a tenth of a second apart agree
	_w=0
	while [ $_w -lt 50 ]; do
		cp "$T_TMP/screen" "$T_TMP/screen.prev"
		sleep 0.1
		screen
		cmp -s "$T_TMP/screen" "$T_TMP/screen.prev" && break
		_w=$((_w + 1))
	done
	sed -n 1,49p "$T_TMP/screen" | cut -c1-150 |
		sed 's/[ ◆▒]*$//' > "$T_TMP/shot.$_who"
	_n=0	# leave: q (perf's exit question answered)
	until grep -q "^exit=.*\.$N\$" "$T_TMP/screen" || [ $_n -ge 20 ]; do
		if grep -q 'really want to exit' "$T_TMP/screen"; then
			TM send-keys -t pk Enter
		else
			TM send-keys -t pk q
		fi
		_w=0
		while [ $_w -lt 10 ] && ! grep -q "^exit=.*\.$N\$" "$T_TMP/screen"; do
			sleep 0.1
			screen
			_w=$((_w + 1))
		done
		_n=$((_n + 1))
	done
}

# same NAME FILE KEYS OPTS...
same() {
	_name=$1
	shift
	shot perf "$@"
	if [ ! -s "$T_TMP/shot.perf" ]; then
		skip "report_tui_vs_perf $_name" "perf's browser did not show"
		return
	fi
	shot pk "$@"
	if cmp -s "$T_TMP/shot.perf" "$T_TMP/shot.pk"; then ok "report_tui_vs_perf $_name"
	else fail "report_tui_vs_perf $_name" "differs: $(diff "$T_TMP/shot.perf" "$T_TMP/shot.pk" | head -6 | tr '\n' '|')"; fi
}

# (dwarf: fewer sets)
for f in fp dwarf; do
	if [ $f = fp ]; then
		set -- "" "--no-children" "-G" "-g fractal" \
			"--no-children -g caller" "-s dso,sym" \
			"--percentage relative" "-g none"
	else
		set -- "" "--no-children" "-g fractal" "-s dso,sym"
	fi
	for o in "$@"; do
		for k in "" E d t; do
			same "$f${o:+ $o}${k:+ keys $k}" "$T_TMP/$f.data" "$k" $o
		done
	done
	same "$f / cmp" "$T_TMP/$f.data" "/ c m p Enter"
	same "$f --no-children / cmp" "$T_TMP/$f.data" "/ c m p Enter" --no-children
done
# a: perf's annotate browser on a function of the demo and one of libc
# (source lines, then objdump's file:line lines only): the hottest line
# half a screen down, then moved (perf's first move key moves nothing;
# the selected jump's arrow and fused mark drawn)
SYNC=h
for sym in do_sort.constprop.0 msort_with_tmp.part.0 cmp; do
	for k in "a" "a Up Up Up Up Up Up" \
		 "a Down Down Down Down Down Down Down Down Down Down"; do
		same "fp annotate $sym keys $k" "$T_TMP/fp.data" \
			"$k" --no-children --symbols=$sym
	done
done
for k in "a NPage" "a End"; do
	same "fp annotate msort_with_tmp.part.0 keys $k" "$T_TMP/fp.data" \
		"$k" --no-children --symbols=msort_with_tmp.part.0
done
SYNC=
t_exit
