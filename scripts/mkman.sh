#!/bin/sh
# SPDX-License-Identifier: MIT
# mkman.sh PERFKIT VERSION TXT: a man page (roff) on stdout for the command
# TXT names (docs/man/CMD.txt; perfkit.txt: the command itself). The usage
# and option text is the command's own -h output (and each subcommand's),
# so the page cannot drift from it; TXT gives the one-line summary (first
# line) and the description (the rest, blank lines between paragraphs).
set -e
pk=$1 version=$2 txt=$3
cmd=$(basename "$txt" .txt)
[ "$cmd" = perfkit ] && cmd=
page=perfkit${cmd:+-$cmd}

# roff-safe text: backslashes, and lines that start with . or '
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
# -h text of `perfkit ARGS... -h` (stdout), fails when -h is not taken
help_of() { "$pk" "$@" -h 2>/dev/null; }
# subcommands the -h text names: the bash completion's own reading of it
comp=$(dirname "$0")/perfkit-completion.bash
subs_of() {
	bash -c '. "$1"; _perfkit_subcmds "$2" "$3"' sh "$comp" "$pk" "$cmd"
}
verbatim() { echo '.PP'; echo '.nf'; esc; echo '.fi'; }

title=$(echo "$page" | tr a-z A-Z)
echo ".TH $title 1 \"\" \"perfkit $version\" \"perfkit Manual\""
echo '.SH NAME'
echo "$page \\- $(head -n 1 "$txt" | esc)"
echo '.SH SYNOPSIS'
help_of $cmd | verbatim
if [ -n "$cmd" ]; then
	subs=$(subs_of)
	[ -z "$subs" ] || echo '.SH SUBCOMMANDS'
	for s in $subs; do
		out=$(help_of $cmd "$s") || continue
		echo ".SS $s"
		echo "$out" | verbatim
	done
fi
echo '.SH DESCRIPTION'
tail -n +3 "$txt" | esc | sed 's/^$/.PP/'
echo '.SH SEE ALSO'
if [ -n "$cmd" ]; then
	echo '.BR perfkit (1)'
else
	"$pk" --list-cmds | sed 's/^\(.*\)$/.BR perfkit-\1 (1)/' | sed '$!s/$/,/'
fi
