# The terminal browser (cli/tui.h) through the hidden `perfkit tui-demo
# FILE`, in a real terminal: a tmux server of the test's own, 120x40, a
# bash in it. The first screen, Enter/+ expanding and collapsing, the
# selection moving, / filtering, d/t zooming in and out, ? help, a
# annotate, a resize, a long list's paging, -r refreshing; leaving by q,
# Ctrl-C, SIGTERM, SIGHUP, SIGUSR1, two SIGINTs, SIGSEGV, and a stop by
# Ctrl-Z or SIGTSTP then fg (an ignored SIGUSR2 stays ignored),
# each time the shell's prompt back on the normal screen, `stty -g` as
# before and `stty -a` showing icanon echo. The screen is polled until
# the expected state shows (no timing is asserted).
# pk-test: check
. tests/lib/sh.sh

. tests/lib/tmux.sh

TMUX_NAME=tui TMUX_PROC=tui-demo TMUX_FIRST='^Samples: 10 of event'
F=$T_TMP/tree.txt
printf '%s\n' '# a tree of three entries' \
	"title: Samples: 10 of event 'cpu-clock'" \
	'header: Overhead  Command  Shared Object      Symbol' \
	"50.00%  ls       libc.so.6          [.] getdents64	libc.so.6	ls" \
	'  main' \
	'    __libc_start_main' \
	'  _start' \
	"30.00%  sh       [kernel.kallsyms]  [k] clear_page	[kernel.kallsyms]	sh" \
	'  do_page_fault' \
	"20.00%  ls       [kernel.kallsyms]  [k] ext4_readdir	[kernel.kallsyms]	ls" \
	> "$F"
OPTS=
start() { tmux_start "${CMD:-$PK tui-demo $OPTS $F}"; }
tmux_setup || exit 0

start
screen
check "tui first screen header" "$(line 2)" \
	"$(line 2)" = "  Overhead  Command  Shared Object      Symbol"
check "tui first screen rows" "$(line 3)|$(line 4)|$(line 5)" \
	"$(line 3)|$(line 4)|$(line 5)" = "+ 50.00%  ls       libc.so.6          [.] getdents64|+ 30.00%  sh       [kernel.kallsyms]  [k] clear_page|  20.00%  ls       [kernel.kallsyms]  [k] ext4_readdir"
check "tui first screen status" "$(line 40)" -n "$(line 40 | grep '?: help')"
TM capture-pane -p -e -t pk > "$T_TMP/screen.e"
check "tui selection on the first row" "$(sed -n 3p "$T_TMP/screen.e")" \
	-n "$(sed -n 3p "$T_TMP/screen.e" | grep "$(printf '\033\\[7m')+ 50.00%")"
key "Enter expands" Enter '^- 50.00%'
screen
check "tui expanded rows" "$(line 4)|$(line 5)|$(line 6)" \
	"$(line 4)|$(line 5)|$(line 6)" = "  + main|    _start|+ 30.00%  sh       [kernel.kallsyms]  [k] clear_page"
key "Enter collapses" Enter '^+ 50.00%'
key "+ expands the second row" Down + '^- 30.00%'
key "the child of the second row" '^    do_page_fault'
TM capture-pane -p -e -t pk > "$T_TMP/screen.e"
check "tui selection moves down" "$(sed -n 4p "$T_TMP/screen.e")" \
	-n "$(sed -n 4p "$T_TMP/screen.e" | grep "$(printf '\033\\[7m')- 30.00%")"
key "Right expands" Home Right '^- 50.00%'
key "Right again: no change" Right Down Right '^  - main'
key "Left collapses" Left '^  + main'
key "Left goes to the parent" Left Left '^+ 50.00%'
key "e expands all below" Home e '^      __libc_start_main'
key "C collapses all" C '^+ 30.00%'
key "E expands all" E '^      __libc_start_main'
key "C again" C '^+ 50.00%'
key "the search prompt" / e x t '^Search: ext_'
key "the search filters" 4 Enter '^  20.00%.*ext4_readdir'
screen
check "tui search leaves one row" "$(line 1)|$(line 4)" \
	"$(line 1)|$(line 4)" = "Samples: 10 of event 'cpu-clock' (1 of 3 shown)|"
key "an empty search shows all" / Enter '^+ 50.00%'
key "d zooms into the DSO" Home d "^Samples: 10 of event 'cpu-clock' (1 of 3 shown), DSO: libc.so.6\$"
screen
check "tui the DSO zoom leaves its rows" "$(line 4)" "$(line 4)" = ""
key "d again zooms out" d "^Samples: 10 of event 'cpu-clock'\$"
key "t zooms into the thread" t "^Samples: 10 of event 'cpu-clock' (2 of 3 shown), Thread: ls\$"
screen
check "tui the thread zoom leaves its rows" "$(line 3)|$(line 4)" \
	"$(line 4)" = "  20.00%  ls       [kernel.kallsyms]  [k] ext4_readdir"
key "Esc zooms out" Escape "^Samples: 10 of event 'cpu-clock'\$"
key "? shows the help" '?' '^Keys of the browser'
key "q leaves the help" q '^Samples: 10 of event'
key "h shows the help" h '^Keys of the browser'
key "Esc leaves the help" Escape '^Samples: 10 of event'
key "a annotates" Home a '^Annotate 50.00%'
screen
check "tui annotate lines" "$(line 3)|$(line 4)" "$(line 3)|$(line 4)" = "  main|  _start"
key "q leaves annotate" q '^Samples: 10 of event'
TM resize-window -t pk -x 100 -y 20 >/dev/null 2>&1
if wait_line 20 '?: help' && [ "$(wc -l < "$T_TMP/screen")" -eq 20 ]; then
	ok "tui resize"
else fail "tui resize" "no status on line 20: $(tr '\n' '|' < "$T_TMP/screen")"; fi
TM resize-window -t pk -x 120 -y 40 >/dev/null 2>&1
wait_line 40 '?: help'
TM send-keys -t pk q
restored "q restores the terminal" 0

start
TM send-keys -t pk C-c
restored "Ctrl-C restores the terminal" 0

# a long list: 100 rows, 38 lines of them on screen (no header)
F0=$F F=$T_TMP/long.txt
{
	echo "title: Samples: 10 of event 'cpu-clock'"
	i=1
	while [ $i -le 100 ]; do echo "row $i"; i=$((i + 1)); done
} > "$F"
# selected N: the selected row (reversed) is "row N"
selected() {
	TM capture-pane -p -e -t pk > "$T_TMP/screen.e"
	grep -q "$(printf '\033\\[7m')  row $1\$" "$T_TMP/screen.e"
}
start
key "End shows the last row" End '^  row 100$'
screen
check "tui End: rows 63 to 100" "$(line 2)|$(line 39)" \
	"$(line 2)|$(line 39)" = "  row 63|  row 100"
selected 100
check "tui End selects the last row" "" $? -eq 0
key "PgUp goes a page up" PPage '^  row 25$'
screen
check "tui PgUp: rows 25 to 62" "$(line 2)|$(line 39)" \
	"$(line 2)|$(line 39)" = "  row 25|  row 62"
selected 62
check "tui PgUp selects a page up" "" $? -eq 0
key "Home goes to the first row" Home '^  row 1$'
key "PgDn goes a page down" NPage '^  row 76$'
screen
check "tui PgDn: rows 39 to 76" "$(line 2)|$(line 39)" \
	"$(line 2)|$(line 39)" = "  row 39|  row 76"
selected 39
check "tui PgDn selects a page down" "" $? -eq 0
TM send-keys -t pk Down Down Up
_w=0
until selected 40 || [ $_w -ge 600 ]; do sleep 0.1; _w=$((_w + 1)); done
selected 40
check "tui Down Down Up selects the next row" "" $? -eq 0
TM send-keys -t pk q
restored "q restores the terminal (long list)" 0
F=$F0

# indent: the model's indentation of children (3 columns a level)
F=$T_TMP/indent.txt
printf '%s\n' "title: Samples: 10 of event 'cpu-clock'" 'indent: 3' 'top' \
	'  mid' '    leaf' > "$F"
start
key "the model's indentation" E '^        leaf$'
screen
check "tui indent: the middle row" "$(line 3)" "$(line 3)" = "   - mid"
TM send-keys -t pk q
restored "q restores the terminal (indent)" 0
F=$F0

# -r: the file read again every 50 ms, as top refreshes; no key sent
F=$T_TMP/top.txt OPTS="-r 50"
printf '%s\n' "title: Samples: 10 of event 'cpu-clock'" 'row A' > "$F"
start
key "refresh: the first rows" '^  row A$'
printf '%s\n' "title: Samples: 10 of event 'cpu-clock'" 'row B' 'row C' > "$F.new"
mv "$F.new" "$F"
key "refresh: the rows change with no key" '^  row C$'
TM send-keys -t pk q
restored "q restores the terminal (refresh)" 0
F=$F0 OPTS=

for sig in TERM:143 HUP:129 SEGV:139 USR1:138 INT-INT:-; do
	# under make check-asan the sanitizer would catch SIGSEGV itself
	if [ "$sig" = SEGV:139 ]; then
		CMD="env ASAN_OPTIONS=handle_segv=0:detect_leaks=0 $PK tui-demo $OPTS $F"
		start
		unset CMD
	else
		start
	fi
	if [ -z "$PID" ]; then fail "tui SIG${sig%:*}" "no browser process"; continue; fi
	case $sig in
	INT-INT:*) kill -INT "$PID"; kill -INT "$PID" 2>/dev/null;;
	*) kill -"${sig%:*}" "$PID";;
	esac
	restored "SIG${sig%:*} restores the terminal" "${sig#*:}"
done

for how in Ctrl-Z SIGTSTP; do
	start
	if [ $how = Ctrl-Z ]; then TM send-keys -t pk C-z
	else kill -TSTP "$PID"; fi
	if wait_for "^exit=148\.$N\$"; then ok "tui $how stops"
	else fail "tui $how stops" "$(tr '\n' '|' < "$T_TMP/screen")"; fi
	modes stopped
	check "tui the modes while stopped ($how)" "$(cat "$T_TMP/stopped.$N" 2>/dev/null)" \
		"$(cat "$T_TMP/stopped.$N" 2>/dev/null)" = "$(cat "$T_TMP/before.$N")"
	TM send-keys -t pk -l 'fg'
	TM send-keys -t pk Enter
	key "fg takes the screen back ($how)" '^+ 50.00%'
	TM send-keys -t pk q
	restored "q after fg restores the terminal ($how)" -
done

# a signal the shell left ignored stays ignored
CMD="(trap '' USR2; exec $PK tui-demo $F)"
start
kill -USR2 "$PID"
key "an ignored SIGUSR2 leaves the browser" Enter '^- 50.00%'
TM send-keys -t pk q
restored "q restores the terminal (after SIGUSR2)" 0
CMD=

# errors: one line, non-zero
"$PERFKIT" tui-demo "$F" > "$T_TMP/out" 2> "$T_TMP/err" < /dev/null
r="$?:$(cat "$T_TMP/err")"
check "tui not a terminal" "$r" "$r" = "1:perfkit tui-demo: stdout is not a terminal"
printf 'a\n    b\n  c\n' > "$T_TMP/bad.txt"
"$PERFKIT" tui-demo "$T_TMP/bad.txt" > /dev/null 2> "$T_TMP/err"
r="$?:$(cat "$T_TMP/err")"
check "tui bad indentation" "$r" "$r" = "1:perfkit tui-demo: $T_TMP/bad.txt:3: the indentation matches no row above"
i=0
while [ $i -le 1000 ]; do printf "%${i}sr\n" ''; i=$((i + 1)); done > "$T_TMP/deep.txt"
"$PERFKIT" tui-demo "$T_TMP/deep.txt" > /dev/null 2> "$T_TMP/err"
r="$?:$(cat "$T_TMP/err")"
check "tui nesting too deep" "$r" "$r" = "1:perfkit tui-demo: $T_TMP/deep.txt:1001: rows nest deeper than 1000"
"$PERFKIT" tui-demo "$T_TMP/none.txt" > /dev/null 2> "$T_TMP/err"
r="$?:$(cat "$T_TMP/err")"
check "tui missing file" "$r" "$r" = "1:perfkit tui-demo: $T_TMP/none.txt: No such file or directory"
"$PERFKIT" tui-demo -r 0 "$F" > /dev/null 2> "$T_TMP/err"
r="$?:$(cat "$T_TMP/err")"
check "tui -r 0" "$r" "$r" = "2:usage: perfkit tui-demo [-r MS] FILE"
"$PERFKIT" --list-cmds | grep -q tui-demo
check "tui-demo is not listed" "--list-cmds names it" $? -ne 0
t_exit
