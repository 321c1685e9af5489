#!/bin/sh
# perfkit top on a workload busy in a known function (spin_hot, a program
# built here): --stdio -d 1 screens (perf top's header fields, the dashes
# as wide as the terminal less one, the rows, spin_hot on top with a
# plausible share), -p, -K, -U, -E, -z, --percent-limit; SIGINT ends it
# with status 0 after its perf events were seen open; bad options get one
# line and a non-zero status; against perf top --stdio in tmux (the same
# hottest entry, the same header once numbers are masked, the same column
# of the symbol); the browser in tmux (the first screen shows spin_hot,
# q gives the terminal back as it was).
# pk-test: slow
. tests/lib/sh.sh
T=$T_TMP

if [ ! -x "$PERFKIT" ]; then
	fail top "build $PERFKIT first"
	exit 1
fi
if ! command -v cc >/dev/null 2>&1; then
	skip top "no C compiler for the workload"
	exit 0
fi
if ! "$PERFKIT" stat -a -e cpu-clock true >/dev/null 2>&1; then
	skip top "cannot count cpu-clock on every CPU here (not root?)"
	exit 0
fi
PK=$(cd "$(dirname "$PERFKIT")" && pwd)/$(basename "$PERFKIT")
cat > "$T/spin.c" <<'EOF'
static volatile unsigned long sink;
__attribute__((noinline)) void spin_hot(void)
{
	for (unsigned long i = 0; i < 100000000UL; i++)
		sink += i;
}
int main(void)
{
	for (;;)
		spin_hot();
}
EOF
# frame pointers: -g's callchains
cc -O1 -fno-omit-frame-pointer -o "$T/pk_top_spin" "$T/spin.c" ||
	{ fail top "cc failed"; exit 1; }
"$T/pk_top_spin" &
SPIN=$!
t_bg $SPIN
NCPU=$(grep -c '^processor' /proc/cpuinfo)

# run_top NAME ARGS...: perfkit top --stdio -d 1 ARGS until it printed
# three screens, then SIGINT; NAME.out, NAME.rc, NAME.fds (its perf
# event fds while it ran), NAME.frame (the last screen, clear removed)
run_top() {
	_n=$1; shift
	# made before the job starts (its own redirection may come after
	# the first look below on a busy machine)
	: > "$T/$_n.out"
	LINES=25 COLUMNS=160 "$PERFKIT" top --stdio -d 1 "$@" \
		> "$T/$_n.out" 2> "$T/$_n.err" &
	_p=$!
	t_bg $_p
	_w=0
	while [ "$(grep -c 'PerfTop:' "$T/$_n.out")" -lt 3 ] &&
	      kill -0 $_p 2>/dev/null && [ $_w -lt 900 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
	ls -l /proc/$_p/fd 2>/dev/null | grep -c 'perf_event' > "$T/$_n.fds"
	kill -INT $_p 2>/dev/null
	wait $_p
	echo $? > "$T/$_n.rc"
	awk 'BEGIN { RS = "\033\\[H\033\\[2J\n" } { f = $0 } END { printf "%s", f }' \
		"$T/$_n.out" > "$T/$_n.frame"
}
rows() { sed -n '4,$p' "$T/$1.frame" | grep -v '^$'; }
# the screen's lines: 1 the header, 2 the dashes, 3 empty, then rows
# pct NAME SYM: the share of the row of SYM (0 when none)
pct() { rows "$1" | awk -v s="$2" '$NF == s { sub("%", "", $1); print $1; f = 1; exit }
	END { if (!f) print 0 }'; }

run_top all
check top_sigint_exit0 "status $(cat "$T/all.rc"): $(head -c 300 "$T/all.err")" \
	"$(cat "$T/all.rc")" = 0
check top_events_were_open "no perf_event fd in /proc/PID/fd while it ran" \
	"$(cat "$T/all.fds")" -gt 0
check top_stderr_empty "$(head -c 300 "$T/all.err")" ! -s "$T/all.err"
H=$(sed -n 1p "$T/all.frame")
RE="^   PerfTop: +[0-9]+ irqs/sec  kernel: *[0-9]+\.[0-9]%  exact: +0\.0% lost: [0-9]+/[0-9]+ drop: 0/0 \[4000Hz cpu-clock(:pppH?)?\],  \(all, $NCPU CPUs?\)\$"
if echo "$H" | grep -Eq "$RE"; then ok top_header
else fail top_header "'$H'"; fi
IRQS=$(echo "$H" | awk '{ print $2 }')
check top_irqs_positive "irqs/sec '$IRQS'" "${IRQS:-0}" -gt 0
check top_dashes "'$(sed -n 2p "$T/all.frame")'" \
	"$(sed -n 2p "$T/all.frame")" = "$(printf '%159s' '' | tr ' ' -)"
check top_blank_line "'$(sed -n 3p "$T/all.frame")'" -z "$(sed -n 3p "$T/all.frame")"
BAD=$(rows all | grep -Ev '^ +[0-9]+\.[0-9][0-9]%  [^ ].* +\[[.k]\] [^ ]' | head -3)
check top_row_layout "rows: $BAD" -z "$BAD"
check top_rows_fit "$(rows all | wc -l) rows for LINES=25" "$(rows all | wc -l)" -le 20
P=$(pct all spin_hot)
# its share of the machine depends on the load: shown, above nothing
check top_spin_shown "spin_hot at $P% of every CPU's samples" \
	"$(echo "$P" | awk '{ print ($1 > 0) }')" = 1

run_top pid -p $SPIN
H=$(sed -n 1p "$T/pid.frame")
case $H in
*"(target_pid: $SPIN)") ok top_pid_header ;;
*) fail top_pid_header "'$H'" ;;
esac
TOP=$(rows pid | head -1 | awk '{ print $2, $3, $4 }')
check top_pid_hottest "first row '$TOP'" "$TOP" = "pk_top_spin [.] spin_hot"
OTHER=$(rows pid | awk '$2 != "pk_top_spin" && $2 != "[kernel]" && $2 !~ /^(libc|ld-linux)/' | head -2)
check top_pid_only "rows of other programs: $OTHER" -z "$OTHER"
P=$(pct pid spin_hot)
check top_pid_share "spin_hot at $P% of its samples" \
	"$(echo "$P" | awk '{ print ($1 >= 50) }')" = 1
check top_pid_exit0 "status $(cat "$T/pid.rc")" "$(cat "$T/pid.rc")" = 0

run_top hidek -K
check top_hide_kernel "[k] rows: $(rows hidek | grep -F '[k]' | head -2)" \
	-z "$(rows hidek | grep -F '[k]')"
check top_hide_kernel_rows "no rows" -n "$(rows hidek)"
# the hidden samples count in the header, not in the entries' shares
run_top hidekp -K -p $SPIN
SUM=$(rows hidekp | awk '{ sub("%", "", $1); s += $1 } END { print s + 0 }')
check top_hide_kernel_shares "shares add up to $SUM%" \
	"$(echo "$SUM" | awk '{ print ($1 >= 99) }')" = 1
run_top hideu -U
check top_hide_user "[.] rows: $(rows hideu | grep -F '[.]' | head -2)" \
	-z "$(rows hideu | grep -F '[.]')"
run_top few -E 3 -z
check top_entries "$(rows few | wc -l) rows for -E 3" "$(rows few | wc -l)" -le 3
run_top limit --percent-limit 30 -p $SPIN
LOW=$(rows limit | awk '{ sub("%", "", $1); if ($1 + 0 < 30) print }')
check top_percent_limit "rows under 30%: $LOW" -z "$LOW"

# bad input: one line on stderr, a non-zero status, no crash
bad() {
	"$PERFKIT" top --stdio "$@" > "$T/bad.out" 2> "$T/bad.err" < /dev/null
	_rc=$?
	if [ $_rc -ne 0 ] && [ $_rc -lt 128 ] && [ "$(wc -l < "$T/bad.err")" -eq 1 ]; then
		ok "top_bad $*"
	else
		fail "top_bad $*" "status $_rc: $(head -c 300 "$T/bad.err")"
	fi
}
bad -e no_such_event_xyz
bad -d 0
bad -d x
bad -E -1
bad --call-graph dwarf
bad --call-graph fp,graph
bad -p 999999999
bad -C 9999
bad -s nosuchkey
bad -s dso,cpu
bad --percent-limit abc
bad -e sched:sched_switch
bad extra_argument

# against perf top --stdio, both in a terminal (perf's stdout otherwise
# is not flushed before SIGINT ends it)
if command -v tmux >/dev/null 2>&1 && command -v perf >/dev/null 2>&1 &&
   command -v bash >/dev/null 2>&1; then
	S=$T/tmux.sock
	t_atexit "tmux -S $S kill-server 2>/dev/null"
	TM() { tmux -S "$S" "$@"; }
	# screens TAG ARGS...: perf top and perfkit top --stdio -d 1 ARGS,
	# each in a 160x40 terminal, until both show spin_hot on a screen
	# with samples; the screens into perf.TAG, pk.TAG (.e: with colors)
	screens() {
		_t=$1; shift
		TM new-session -d -s "perf$_t" -x 160 -y "${ROWS:-40}" "perf top --stdio -d 1 $*; sleep 600"
		TM new-session -d -s "pk$_t" -x 160 -y "${ROWS:-40}" "$PK top --stdio -d 1 $*; sleep 600"
		for _s in perf pk; do
			_w=0
			while [ $_w -lt 900 ]; do
				TM capture-pane -p -t "$_s$_t" > "$T/$_s.$_t" 2>/dev/null
				grep -q 'spin_hot' "$T/$_s.$_t" &&
					grep -q 'PerfTop: *[1-9]' "$T/$_s.$_t" && break
				sleep 0.1
				_w=$((_w + 1))
			done
			TM capture-pane -e -p -t "$_s$_t" > "$T/$_s.$_t.e" 2>/dev/null
			TM send-keys -t "$_s$_t" C-c
		done
	}
	# numbers masked (their padding too): the header, spin_hot's row
	mask() { sed -n 2p "$T/$1" | sed -E 's/ *[0-9]+(\.[0-9]+)?/ N/g'; }
	hot() { grep spin_hot "$T/$1" | head -1 | sed -E 's/ *[0-9]+(\.[0-9]+)?%?/ N/g'; }
	# vs_perf TAG ARGS...: the same header, dashes, hottest row
	vs_perf() {
		_t=$1; shift
		screens "$_t" "$@"
		check "top_vs_perf_header $*" "perf '$(mask perf.$_t)', perfkit '$(mask pk.$_t)'" \
			"$(mask pk.$_t)" = "$(mask perf.$_t)"
		check "top_vs_perf_dashes $*" "dashes differ" \
			"$(sed -n 3p "$T/pk.$_t")" = "$(sed -n 3p "$T/perf.$_t")"
		check "top_vs_perf_hottest $*" "perf '$(sed -n 5p "$T/perf.$_t")', perfkit '$(sed -n 5p "$T/pk.$_t")'" \
			"$(sed -n 5p "$T/pk.$_t" | grep -c spin_hot)" = 1
		check "top_vs_perf_row $*" "perf '$(hot perf.$_t)', perfkit '$(hot pk.$_t)'" \
			"$(hot pk.$_t)" = "$(hot perf.$_t)"
	}
	vs_perf p -p $SPIN
	# the hottest row's colors (red from 5%), numbers masked
	check top_vs_perf_colors "perf '$(hot perf.p.e | od -c | head -3)', perfkit '$(hot pk.p.e | od -c | head -3)'" \
		"$(hot pk.p.e)" = "$(hot perf.p.e)"
	vs_perf t -t $SPIN
	vs_perf n -n -p $SPIN
	vs_perf s -s comm,dso,sym -p $SPIN
	vs_perf c -C 0,1 -p $SPIN -c 100000 -e cpu-clock
	vs_perf e2 -e cpu-clock -e task-clock -p $SPIN

	# -g: spin_hot's row and callchain (to the blank line after it),
	# numbers masked; its chain's first share is its own (graph: of
	# the total); the caller's row (__libc_start_call_main: the chain
	# has no main here) with children, not without
	# (its first branch: rarer ones, the kernel's under an interrupt
	# near the 0.5% threshold, come and go; the graph's bars with them)
	block() {
		awk '/\[\.\] spin_hot$/ { on = 1 } on && /^ *$/ { exit } on' \
			"$T/$1" | head -4 | sed -E 's/ *[0-9]+\.[0-9]+%/ N%/g; s/[|]/ /g; s/ +$//'
	}
	share() {
		awk -v w="$2" '/\[\.\] spin_hot$/ { if (w == "row") { print $2; exit }
			getline; getline; sub(/^[ |-]*/, ""); sub(/%.*/, "%"); print; exit }' "$T/$1"
	}
	callers() { grep -c '\[\.\] __libc_start_call_main$' "$T/$1"; }
	vs_perf_g() {
		_t=$1; shift
		ROWS=80 screens "$_t" -E 3 "$@"
		check "top_vs_perf_chain $*" "perf '$(block perf.$_t | tr '\n' '|')', perfkit '$(block pk.$_t | tr '\n' '|')'" \
			"$(block pk.$_t | wc -l)" -eq 4 -a \
			"$(block pk.$_t)" = "$(block perf.$_t)"
	}
	vs_perf_g g -g -p $SPIN
	check top_g_chain_share "row $(share pk.g row), chain $(share pk.g chain)" \
		"$(share pk.g row)" = "$(share pk.g chain)"
	check top_g_children_callers "$(callers pk.g) rows of main, perf $(callers perf.g)" \
		"$(callers pk.g)" = 1 -a "$(callers perf.g)" = 1
	vs_perf_g gn -g --no-children -p $SPIN
	check top_g_no_children_callers "$(callers pk.gn) rows of the caller" \
		"$(callers pk.gn)" = 0
	vs_perf_g gc --call-graph fp -p $SPIN

	# the browser with -g, perf top's and perfkit's: / spin_hot Enter
	# (one entry left, the columns as wide as its own), + (its callchain
	# rows: the caller first), then Down e (perf's first move key moves
	# nothing: e folds the entry again);
	# lines 2 to 4 (the header, the entry, its first callchain row: the
	# rarer roots, a kernel interrupt's near the 0.5% threshold, come and
	# go), numbers and fold marks masked, blanks between words squeezed;
	# 100.00% as wide as 99.99% (the padding stays: it shows a chain
	# row's indent; on a loaded machine a share can be either)
	gmask() {
		sed -n '2,4p' "$1" | sed -E 's/[ ▒◆]*$//; /^$/d;
			s/100\.00%/ 99.99%/g; s/[0-9]+\.[0-9]+%/N%/g; s/^( *)[-+] /\1  /;
			s/([^ ])  +/\1 /g'
	}
	# gwait SESSION ERE [COUNT]: until COUNT (1) lines match
	gwait() {
		_w=0
		while [ $_w -lt 300 ]; do
			TM capture-pane -p -t "$1" > "$T/g.pane" 2>/dev/null
			[ "$(grep -cE "$2" "$T/g.pane")" = "${3:-1}" ] && return 0
			sleep 0.1
			_w=$((_w + 1))
		done
		return 1
	}
	gtui() {
		TM new-session -d -s "g$1" -x 120 -y 30 "$2; sleep 600"
		gwait "g$1" '\[\.\] spin_hot' || return 1
		TM send-keys -t "g$1" /
		sleep 0.5	# (perf's search dialog opens)
		TM send-keys -t "g$1" -l spin_hot
		TM send-keys -t "g$1" Enter
		gwait "g$1" '\[[.k]\] ' || return 1
		TM send-keys -t "g$1" +
		gwait "g$1" '% __libc_start_call_main$' || return 1
		cp "$T/g.pane" "$T/g.$1.open"
		TM send-keys -t "g$1" Down e
		gwait "g$1" '__libc_start_call_main$' 0 || return 1
		cp "$T/g.pane" "$T/g.$1.folded"
		TM send-keys -t "g$1" q
	}
	if gtui perf "perf top -g -p $SPIN" && gtui pk "$PK top -g -p $SPIN"; then
		for _s in open folded; do
			check "top_tui_g_vs_perf $_s" "perf '$(gmask "$T/g.perf.$_s" | tr '\n' '|')', perfkit '$(gmask "$T/g.pk.$_s" | tr '\n' '|')'" \
				"$(gmask "$T/g.pk.$_s")" = "$(gmask "$T/g.perf.$_s")"
		done
		check top_tui_g_chain_row "$(gmask "$T/g.pk.open" | tr '\n' '|')" \
			"$(gmask "$T/g.pk.open" | grep -c '^     N% __libc_start_call_main$')" = 1
	else
		fail top_tui_g_vs_perf "a browser did not get to the screens: $(tr '\n' '|' < "$T/g.pane")"
	fi

	# in_shell NAME CMD: CMD typed into a bash in a terminal, until its
	# screen shows spin_hot (in tui.pane), then q; true once the shell
	# is back ($T/after written); stty -g before and after it
	TM new-session -d -s tui -x 120 -y 30 bash --norc --noprofile
	# (STOP: how it is ended, q by default; TERM: SIGTERM to it)
	in_shell() {
		rm -f "$T/after"
		TM send-keys -t tui -l "clear; stty -g > $T/before; $2; echo $1=\$?; stty -g > $T/after"
		TM send-keys -t tui Enter
		_w=0
		while [ $_w -lt 900 ]; do
			TM capture-pane -p -t tui > "$T/tui.pane"
			grep -q 'spin_hot' "$T/tui.pane" && break
			sleep 0.1
			_w=$((_w + 1))
		done
		cp "$T/tui.pane" "$T/$1.first"
		if [ "$3" = TERM ]; then
			kill -TERM $(pgrep -P "$(TM display -p -t tui '#{pane_pid}')" perfkit)
		else
			TM send-keys -t tui q
		fi
		t_wait_file "$T/after"
		TM capture-pane -p -t tui > "$T/tui.pane"
		check "top_${1}_exit_${4:-0}" "$(tr '\n' '|' < "$T/tui.pane")" \
			-n "$(grep "^$1=${4:-0}\$" "$T/tui.pane")"
		check "top_${1}_modes_restored" "stty before $(cat "$T/before"), after $(cat "$T/after" 2>/dev/null)" \
			"$(cat "$T/after" 2>/dev/null)" = "$(cat "$T/before")"
	}
	# the browser: its first screen shows spin_hot under perf's title
	in_shell tui "$PK top -d 1 -p $SPIN"
	if grep -q '^Samples: .* of event .cpu-clock' "$T/tui.first" &&
	   grep -q 'spin_hot' "$T/tui.first"; then ok top_tui_first_screen
	else fail top_tui_first_screen "$(tr '\n' '|' < "$T/tui.first")"; fi
	# --stdio on a terminal: q ends it too
	in_shell stdio "$PK top --stdio -d 1 -p $SPIN"
	# SIGTERM: the browser gives the terminal back and dies of it
	in_shell term "$PK top -d 1 -p $SPIN" TERM 143
else
	skip top_vs_perf "tmux, bash or perf is not installed"
fi
t_exit
