# SPDX-License-Identifier: MIT
# bash completion for perfkit (installed as
# share/bash-completion/completions/perfkit). Every word list comes from
# perfkit itself: `perfkit --list-cmds`, `perfkit CMD [SUB] --list-opts`
# (the getopt tables), the subcommands a command's -h text names, and
# `perfkit list --raw-dump` / `perfkit ftrace list events` for -e.

# _perfkit_subcmds PERFKIT CMD: the subcommands `PERFKIT CMD -h` names
# ("perfkit CMD SUB ..." usage lines, "  SUB  summary" rows); also used by
# scripts/mkman.sh for the man pages.
_perfkit_subcmds()
{
	"$1" "$2" -h 2>/dev/null | sed -n \
		-e "s/^.*perfkit $2 \\([a-z][a-z-]*\\)\\( .*\\)\\{0,1\\}\$/\\1/p" \
		-e 's/^  \([a-z][a-z-]*\)  *[a-z].*$/\1/p' | awk '!seen[$0]++'
}

# COMPREPLY: the words of $1 that start with $2; when $2 holds a colon
# and the colon breaks words, the part up to it is dropped (bash shows
# only the text after it).
_perfkit_reply()
{
	local w
	COMPREPLY=( $(compgen -W "$1" -- "$2") )
	if [[ $2 == *:* && $COMP_WORDBREAKS == *:* ]]; then
		w=${2%"${2##*:}"}
		COMPREPLY=( "${COMPREPLY[@]#"$w"}" )
	fi
}

_perfkit()
{
	local pk=${COMP_WORDS[0]} cur prev words=() i cmd= sub= subs
	# rejoin what ':' split: "sched" ":" "sched_sw" is one event word
	for ((i = 0; i <= COMP_CWORD; i++)); do
		if [[ ${#words[@]} -gt 1 && ( ${COMP_WORDS[i]} == : ||
		      ${words[-1]} == *: ) ]]; then
			words[-1]+=${COMP_WORDS[i]}
		else
			words+=( "${COMP_WORDS[i]}" )
		fi
	done
	cur=${words[-1]}
	prev=${words[-2]}
	command -v "$pk" >/dev/null 2>&1 || pk=perfkit
	for ((i = 1; i < ${#words[@]} - 1; i++)); do
		[[ ${words[i]} == -* ]] && continue
		if [[ -z $cmd ]]; then
			cmd=${words[i]}
			subs=$(_perfkit_subcmds "$pk" "$cmd")
		elif [[ -z $sub && -n $subs && " ${subs//$'\n'/ } " == *" ${words[i]} "* ]]; then
			sub=${words[i]}
		fi
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			_perfkit_reply "--help --version" "$cur"
		else
			_perfkit_reply "$("$pk" --list-cmds) help" "$cur"
		fi
	elif [[ $cmd == help ]]; then
		_perfkit_reply "$("$pk" --list-cmds)" "$cur"
	elif [[ $prev == -e || $prev == --event ]]; then
		if [[ $cmd == ftrace ]]; then
			_perfkit_reply "$("$pk" ftrace list events 2>/dev/null)" "$cur"
		else
			_perfkit_reply "$("$pk" list --raw-dump 2>/dev/null)" "$cur"
		fi
	elif [[ $cur == -* ]]; then
		_perfkit_reply "$("$pk" $cmd $sub --list-opts 2>/dev/null)" "$cur"
	elif [[ -n $subs && -z $sub ]]; then
		_perfkit_reply "$subs" "$cur"
	fi
}
complete -o bashdefault -o default -F _perfkit perfkit
