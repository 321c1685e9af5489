# perfkit report's browser on a terminal (a tmux server of the test's own,
# 160x50, a bash in it) against `perfkit report --stdio` of the same
# file, a cpu-clock -g recording of the demo made here: the title, the
# column header and the first rows; a callchain expanded (its rows'
# percentages those of --stdio's graph); / filtering by symbol; d and t
# zooming (the title, the rows of that DSO or thread); a annotating
# (the percentages of `perfkit annotate --stdio -s SYMBOL`); q and Ctrl-C
# restoring the terminal. Then the progress of reading on stderr when it
# is a terminal (through script(1)), none when it is not; --stdio and a
# pipe printing the same; --gtk refused.
# pk-test: check
. tests/lib/sh.sh
. tests/lib/tmux.sh

TMUX_NAME=report_tui TMUX_PROC="report -i" TMUX_X=160 TMUX_Y=50
D=$T_TMP/demo.data
# (demo 4: enough samples for rows below the first screen and branching
# callchains on a fast machine)
"$PERFKIT" record -q -e cpu-clock -F 4000 -g -o "$D" "$PK_BUILD/workloads/demo" 4 \
	> /dev/null 2> "$T_TMP/rec.err"
if [ ! -s "$D" ]; then
	skip report_tui "cannot record cpu-clock -g: $(head -1 "$T_TMP/rec.err")"
	exit 0
fi
"$PERFKIT" report --stdio -i "$D" > "$T_TMP/stdio" 2> "$T_TMP/stdio.err"
check "report_tui stdio report" "$(head -1 "$T_TMP/stdio.err")" -s "$T_TMP/stdio"

# --stdio and stdout a pipe: the same text; --gtk refused
"$PERFKIT" report -i "$D" 2>/dev/null | cmp -s - "$T_TMP/stdio"
check "report_tui a pipe prints the stdio text" "it differs" $? -eq 0
"$PERFKIT" report --gtk -i "$D" > /dev/null 2> "$T_TMP/err"
r="$?:$(cat "$T_TMP/err")"
check "report_tui --gtk refused" "$r" "$r" = "2:perfkit report: --gtk is not supported yet"

check "report_tui no progress into a file" "$(cat "$T_TMP/stdio.err")" \
	! -s "$T_TMP/stdio.err"

tmux_setup || exit 0
# the expected screen from --stdio: the title, the header, the rows
# (their mark '+' when a callchain follows: a line that is no row)
TMUX_FIRST="^$(sed -n 's/^# \(Samples: .*\)$/\1/p' "$T_TMP/stdio" | sed 's/[][*.^$]/\\&/g'), Event count"
TITLE="$(sed -n 's/^# \(Samples: .*\)$/\1/p' "$T_TMP/stdio"), $(sed -n 's/^# \(Event count .*\)$/\1/p' "$T_TMP/stdio")"
HEADER=$(grep '^# Children' "$T_TMP/stdio" | sed 's/^#/ /; s/ *$//')
# rows: the entries' lines as the browser draws them, marks and all
awk '/^#/ { next } /^ +[0-9.]+%/ { if (row != "") print (chain ? "+" : " ") substr(row, 2); row = $0; chain = 0; next }
     /^$/ { next } { if (row != "") chain = 1 }
     END { if (row != "") print (chain ? "+" : " ") substr(row, 2) }' \
	"$T_TMP/stdio" > "$T_TMP/rows"
tmux_start "$PK report -i $D"
screen
check "report_tui title" "$(line 1)" "$(line 1)" = "$TITLE"
check "report_tui header" "$(line 2)" "$(line 2)" = "$HEADER"
sed -n 3,49p "$T_TMP/screen" > "$T_TMP/top"
# (fewer rows than the screen holds: blank lines after them)
n=$(wc -l < "$T_TMP/rows"); [ "$n" -gt 47 ] && n=47
{ head -n "$n" "$T_TMP/rows"; i=$n; while [ "$i" -lt 47 ]; do echo; i=$((i + 1)); done; } |
	cmp -s - "$T_TMP/top"
check "report_tui first rows" "$(diff "$T_TMP/rows" "$T_TMP/top" | head -5 | tr '\n' '|')" $? -eq 0

# expanded: the first entry whose callchain branches in --stdio: two
# "--P%--" branches at one column, siblings (the hottest can be a stem
# alone: libc's msort has no frame pointers; a lone child, even of a
# parent with its own samples, shows no percentage in the browser, as in
# perf's), reached with Down; its callchain rows, each "P% function" one
# of --stdio's "--P%--function" branches of that entry
k=$(awk '/^ +[0-9.]+%/ { n++; delete col; next }
	/--[0-9.]+%--/ { c = index($0, "--"); if (++col[c] == 2) { print n; exit } }' "$T_TMP/stdio")
if [ -z "$k" ] || [ "$k" -gt 40 ]; then
	skip "report_tui callchain" "no entry among the first 40 has a branching callchain"
else
	awk -v k="$k" '/^ +[0-9.]+%/ { n++ } n == k' "$T_TMP/stdio" > "$T_TMP/chain1"
	i=1; while [ "$i" -lt "$k" ]; do TM send-keys -t pk Down; i=$((i + 1)); done
	key "Enter expands" Enter '^-  '
	key "Enter collapses" Enter '^+  '
	key "e expands all of it" e '^   - '
	screen
	r=$((k + 2))	# the entry's row on the screen
	awk -v r="$r" 'NR > r && /^[-+ ] +[0-9.]+% +[0-9.]+%/ { exit } NR > r' "$T_TMP/screen" |
		sed -n 's/^ *[-+]\{0,1\} *\([0-9.]*%\) \(.*\)$/\1 \2/p' > "$T_TMP/crows"
	bad= nb=0
	while read -r pct fn; do
		nb=$((nb + 1))
		grep -q -- "--$pct--$fn\$" "$T_TMP/chain1" || bad="$bad $pct $fn;"
	done < "$T_TMP/crows"
	check "report_tui callchain percentages ($nb)" "not in --stdio:$bad" \
		-z "$bad" -a "$nb" -gt 0
	stem=$(sed -n 's/^ *---//p' "$T_TMP/chain1" | head -1)
	[ -z "$stem" ] || check "report_tui callchain stem" "$(line $((r + 1)))" \
		"$(line $((r + 1)) | sed 's/^   [-+] //')" = "$stem"
	key "C collapses" C '^+  '
	TM send-keys -t pk Home
fi

# the fields of a row after its mark
fields() { awk '{ split(substr($0, 2), f, " "); print f['"$1"'] }'; }
# a row's mark, percentages, command and symbol
norm() { awk '{ m = substr($0, 1, 1); split(substr($0, 2), f, " ")
	s = $0; sub(/^.*\] /, "", s); print m, f[1], f[2], f[3], s }'; }
# / cmp: the entries whose symbol holds cmp (widths of those)
grep '\] [^ ]*cmp' "$T_TMP/rows" | head -47 > "$T_TMP/want"
key "the search prompt" / c m p '^Search: cmp'
TM send-keys -t pk Enter
wait_line 3 '\] [^ ]*cmp' && wait_line 50 '?: help'
screen
sed -n '3,49{/^$/d;p}' "$T_TMP/screen" | norm > "$T_TMP/got"
norm < "$T_TMP/want" > "$T_TMP/want.n"
cmp -s "$T_TMP/want.n" "$T_TMP/got"
check "report_tui / rows" "$(diff "$T_TMP/want.n" "$T_TMP/got" | head -5 | tr '\n' '|')" $? -eq 0
check "report_tui / title" "$(line 1)" "$(line 1)" = "$TITLE"

# a on the first (hottest cmp entry): perf's annotate browser, its
# percentages those of annotate --stdio, in order (the whole function
# fits on the screen)
sym=$(head -1 "$T_TMP/want" | sed 's/.*\] //')
"$PERFKIT" annotate --stdio -i "$D" -s "$sym" 2>/dev/null |
	awk -F: 'NR > 2 && $1 ~ /[0-9]/ && $1 + 0 > 0 { gsub(/ /, "", $1); print $1 }' > "$T_TMP/ann"
if [ -s "$T_TMP/ann" ]; then
	key "a annotates $sym" Home a "^$sym  .* \\[Percent: local period\\]"
	screen
	sed -n '3,49p' "$T_TMP/screen" |
		awk -F'│' '$1 ~ /[0-9]/ { gsub(/ /, "", $1); print $1 }' > "$T_TMP/got"
	cmp -s "$T_TMP/ann" "$T_TMP/got"
	check "report_tui annotate percentages" "$(diff "$T_TMP/ann" "$T_TMP/got" | head -5 | tr '\n' '|')" $? -eq 0
	check "report_tui annotate column" "$(line 3)" \
		-n "$(line 3 | grep '^Percent│')"
	key "q leaves annotate" q "\\] [^ ]*cmp"
else
	skip "report_tui annotate" "annotate --stdio -s $sym printed nothing"
fi
key "an empty search shows all" / Enter "$TMUX_FIRST"
key "Home" Home "$TMUX_FIRST"

# d: the first entry's DSO, its column gone
dso=$(head -1 "$T_TMP/rows" | fields 4)
key "d zooms into $dso" d "^$TITLE, DSO: $dso\$"
awk -v d="$dso" '{ split(substr($0, 2), f, " ") } f[4] == d' "$T_TMP/rows" | head -47 | norm > "$T_TMP/want"
screen
sed -n '3,49{/^$/d;p}' "$T_TMP/screen" | norm > "$T_TMP/got"
cmp -s "$T_TMP/want" "$T_TMP/got"
check "report_tui d rows" "$(diff "$T_TMP/want" "$T_TMP/got" | head -5 | tr '\n' '|')" $? -eq 0
# (perf's widths when zoomed: the values', the titles cut to them)
check "report_tui d drops the DSO column" "$(line 2)" \
	-z "$(line 2 | grep Shared)" -a -n "$(line 2 | grep '^  Children      Self  Comm.*  Symbol$')"
key "d again zooms out" d "^$TITLE\$"

# t: the first entry's thread
comm=$(head -1 "$T_TMP/rows" | fields 3)
key "t zooms into $comm" t "^$TITLE, Thread: $comm\$"
awk -v c="$comm" '{ split(substr($0, 2), f, " ") } f[3] == c' "$T_TMP/rows" |
	head -47 | norm > "$T_TMP/want"
screen
sed -n '3,49{/^$/d;p}' "$T_TMP/screen" | norm > "$T_TMP/got"
cmp -s "$T_TMP/want" "$T_TMP/got"
check "report_tui t rows" "$(diff "$T_TMP/want" "$T_TMP/got" | head -5 | tr '\n' '|')" $? -eq 0
key "Esc zooms out" Escape "^$TITLE\$"
key "? shows the help" '?' '^Keys of the browser'
key "q leaves the help" q "$TMUX_FIRST"
TM send-keys -t pk q
restored "q restores the terminal" 0

tmux_start "$PK report -i $D"
TM send-keys -t pk C-c
restored "Ctrl-C restores the terminal" 0

# progress: on stderr when it is a terminal (script(1) in the pane
# keeps what it wrote), then cleared
if command -v script > /dev/null 2>&1; then
	N=$((N + 1))
	TM send-keys -t pk -l "script -q -e -c '$PK report --stdio -i $D > /dev/null' $T_TMP/typescript > /dev/null; echo \"exit=\$?.$N\""
	TM send-keys -t pk Enter
	wait_for "^exit=0\.$N\$"
	check "report_tui progress on a terminal" "$(tr '\r\033' '|E' < "$T_TMP/typescript")" \
		-n "$(grep -a "perfkit report: reading $D: 100%" "$T_TMP/typescript")"
	check "report_tui progress cleared" "$(tr '\r\033' '|E' < "$T_TMP/typescript")" \
		-n "$(grep -a "$(printf '\r\033\\[K')" "$T_TMP/typescript")"
else
	skip "report_tui progress on a terminal" "script is not installed"
fi

# --tui: its refusals; not a terminal: one line
"$PERFKIT" report --tui -g flat -i "$D" > /dev/null 2> "$T_TMP/err"
r="$?:$(cat "$T_TMP/err")"
check "report_tui --tui -g flat refused" "$r" \
	"$r" = "1:perfkit report: --tui: -g flat and folded in the browser are not supported yet (use --stdio)"
"$PERFKIT" report --tui -i "$D" > "$T_TMP/out" 2> "$T_TMP/err"
r="$?:$(wc -l < "$T_TMP/err")"
check "report_tui --tui not on a terminal" "$r: $(cat "$T_TMP/err")" "$r" = "1:1"
t_exit
