# Driving a terminal program in a tmux server of the test's own (sourced
# after tests/lib/sh.sh by the browser tests): a bash in a pane "pk" of
# TMUX_X x TMUX_Y; TMUX_NAME prefixes the checks' names, TMUX_PROC is the
# pattern pgrep finds the program by, TMUX_FIRST the line its first
# screen shows (and that must be gone once it left). The screen is polled
# until the expected state shows (no timing is asserted). Returns false
# (after `skip`) when tmux or bash is missing.
tmux_setup() {
	for tool in tmux bash; do	# the terminal, the shell in it
		command -v $tool >/dev/null 2>&1 && continue
		skip "$TMUX_NAME" "$tool is not installed"
		return 1
	done
	PK=$(cd "$(dirname "$PERFKIT")" && pwd)/$(basename "$PERFKIT")
	# the socket in $T_TMP (removed with it)
	S=$T_TMP/tmux.sock
	t_atexit "tmux -S $S kill-server 2>/dev/null"
	N=0
	TM -f /dev/null new-session -d -s pk -x "${TMUX_X:-120}" \
		-y "${TMUX_Y:-40}" -c "$T_TMP" \
		"env PS1='pk\$ ' HISTFILE=/dev/null bash --norc --noprofile -i" ||
		{ fail "$TMUX_NAME" "tmux new-session failed"; exit 1; }
	TM set-option -g escape-time 0 >/dev/null 2>&1
	wait_for '^pk\$' || fail "$TMUX_NAME shell" "no prompt"
	TM send-keys -t pk -l "ulimit -c 0"
	TM send-keys -t pk Enter
}
TM() { tmux -S "$S" "$@"; }
# screen: the pane into $T_TMP/screen; the test ends when the terminal
# (or the test's directory) is gone
screen() {
	TM capture-pane -p -t pk > "$T_TMP/screen" 2>/dev/null && return 0
	fail "$TMUX_NAME" "the tmux server or $T_TMP went away"
	exit 1
}
# wait_for PATTERN: true once the screen shows a line matching it
wait_for() {
	_w=0
	while [ $_w -lt 600 ]; do
		screen
		grep -q -- "$1" "$T_TMP/screen" && return 0
		sleep 0.1
		_w=$((_w + 1))
	done
	return 1
}
# wait_line N PATTERN: true once line N of the screen matches PATTERN
wait_line() {
	_w=0
	while [ $_w -lt 600 ]; do
		screen
		sed -n "${1}p" "$T_TMP/screen" | grep -q -- "$2" && return 0
		sleep 0.1
		_w=$((_w + 1))
	done
	return 1
}
# key NAME KEYS... WAIT: sends the keys, then checks WAIT shows
key() {
	_n=$1; shift
	while [ $# -gt 1 ]; do TM send-keys -t pk "$1"; shift; done
	if wait_for "$1"; then ok "$TMUX_NAME $_n"
	else fail "$TMUX_NAME $_n" "no line '$1' on the screen: $(tr '\n' '|' < "$T_TMP/screen")"; fi
}
line() { sed -n "${1}p" "$T_TMP/screen"; }
# the program's pid: the shell's child
pk_pid() { pgrep -P "$(TM display -p -t pk '#{pane_pid}')" -f "$TMUX_PROC" | head -1; }
# tmux_start CMD: CMD from the shell, then its exit status; PID its pid
tmux_start() {
	N=$((N + 1))
	TM send-keys -t pk -l "stty -g > $T_TMP/before.$N; $1; echo \"exit=\$?.$N\""
	TM send-keys -t pk Enter
	wait_for "$TMUX_FIRST" || fail "$TMUX_NAME start $N" "no first screen"
	PID=$(pk_pid)
}
# modes TAG: `stty -g` and `stty -a` from the shell into TAG.N, TAG-a.N
modes() {
	rm -f "$T_TMP/$1.$N"
	TM send-keys -t pk -l "stty -a > $T_TMP/$1-a.$N; stty -g > $T_TMP/$1.$N"
	TM send-keys -t pk Enter
	t_wait_file "$T_TMP/$1.$N"
}
# restored NAME STATUS: the program gone with STATUS (-: none printed;
# bash ends the command list after a SIGINT or a stop), the prompt back
# on the normal screen, the modes as before, canonical and echoing
restored() {
	_w=0
	while [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null && [ $_w -lt 600 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
	if [ "$2" != - ] && ! wait_for "^exit=$2\.$N\$"; then
		fail "$TMUX_NAME $1" "no 'exit=$2' line: $(tr '\n' '|' < "$T_TMP/screen")"
		return
	fi
	modes after
	_w=0
	while screen && [ "$(grep -v '^$' "$T_TMP/screen" | tail -1)" != 'pk$' ] &&
		[ $_w -lt 600 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
	if [ "$(grep -v '^$' "$T_TMP/screen" | tail -1)" != 'pk$' ]; then
		fail "$TMUX_NAME $1" "no prompt last: $(tr '\n' '|' < "$T_TMP/screen")"
	elif grep -q "$TMUX_FIRST" "$T_TMP/screen"; then
		fail "$TMUX_NAME $1" "the browser's screen is still there"
	elif ! cmp -s "$T_TMP/before.$N" "$T_TMP/after.$N"; then
		fail "$TMUX_NAME $1" "stty -g was $(cat "$T_TMP/before.$N"), is $(cat "$T_TMP/after.$N" 2>/dev/null)"
	elif ! grep -q ' icanon ' "$T_TMP/after-a.$N" ||
		! grep -q ' echo ' "$T_TMP/after-a.$N"; then
		fail "$TMUX_NAME $1" "stty -a shows no icanon echo: $(cat "$T_TMP/after-a.$N")"
	else
		ok "$TMUX_NAME $1"
	fi
}
