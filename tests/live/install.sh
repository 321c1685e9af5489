# make install / uninstall into a staging directory: the files and links a
# package holds, perfkit.pc used by a program that counts its own
# task-clock (shared and static), the man pages, `perfkit help`, the bash
# completion, --version and the "did you mean" suggestions.
. tests/lib/sh.sh
V=$(cat VERSION)
S=$T_TMP/stage
mk() { make -s --no-print-directory BUILD="$PK_BUILD" "$@"; }
NAMES="install_rc install_files install_links install_soname install_version
install_pc_version install_pc_shared install_pc_static install_man
install_help_man install_uninstall"
# The test installs what is built: it builds nothing (a sanitizer build
# run without its make flags would otherwise be rebuilt plain).
if ! mk -q "$PK_BUILD/perfkit" "$PK_BUILD/libperfkit.a" \
	"$PK_BUILD/libperfkit.so" man 2>/dev/null; then
	for n in $NAMES; do skip "$n" "$PK_BUILD is not current for make's flags"; done
	NAMES=
fi
# programs linked against a sanitizer build need the sanitizers too
SANFL=
grep -q fsanitize "$PK_BUILD/.flags" 2>/dev/null && SANFL=-fsanitize=address,undefined
if [ -n "$NAMES" ]; then
	mk install DESTDIR="$S" PREFIX=/usr > "$T_TMP/log" 2>&1; rc=$?
	check install_rc "rc=$rc $(tail -n 3 "$T_TMP/log")" $rc -eq 0
	miss=
	for f in bin/perfkit lib/libperfkit.a lib/libperfkit.so.$V \
		 include/perfkit/perfkit.h include/perfkit/common.h \
		 lib/pkgconfig/perfkit.pc share/man/man1/perfkit.1 \
		 share/man/man1/perfkit-record.1 share/man/man1/perfkit-ftrace.1 \
		 share/bash-completion/completions/perfkit \
		 share/doc/perfkit/LICENSE; do
		[ -f "$S/usr/$f" ] || miss="$miss $f"
	done
	check install_files "missing:$miss" -z "$miss"
	so=$(readlink "$S/usr/lib/libperfkit.so"); soname=$(readlink "$S/usr/lib/$so")
	check install_links "libperfkit.so -> $so -> $soname" \
		"$so $soname" = "libperfkit.so.${V%%.*} libperfkit.so.$V"
	got=$(readelf -d "$S/usr/lib/libperfkit.so.$V" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	check install_soname "$got" "$got" = "libperfkit.so.${V%%.*}"
	got=$("$S/usr/bin/perfkit" --version)
	check install_version "$got" "$got" = "perfkit version $V"
	export PKG_CONFIG_PATH="$S/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$S"
	got=$(pkg-config --modversion perfkit 2>&1)
	check install_pc_version "$got" "$got" = "$V"
	# a program built with the installed flags counts its own task-clock
	cc $SANFL -o "$T_TMP/count" examples/count.c $(pkg-config --cflags --libs perfkit) \
		> "$T_TMP/cc" 2>&1 &&
		LD_LIBRARY_PATH="$S/usr/lib" "$T_TMP/count" > "$T_TMP/out" 2>&1
	got=$(cat "$T_TMP/cc" "$T_TMP/out")
	n=$(awk '$2 == "task-clock" { print $1 }' "$T_TMP/out")
	check install_pc_shared "$got" "${n:-0}" -gt 0
	libs=$(pkg-config --static --libs perfkit | sed 's/-lperfkit /-l:libperfkit.a /')
	rm -f "$T_TMP/out"
	cc $SANFL -o "$T_TMP/count_static" examples/count.c $(pkg-config --cflags perfkit) \
		$libs > "$T_TMP/cc" 2>&1 && "$T_TMP/count_static" > "$T_TMP/out" 2>&1
	got=$(cat "$T_TMP/cc" "$T_TMP/out" 2>/dev/null)
	n=$(awk '$2 == "task-clock" { print $1 }' "$T_TMP/out" 2>/dev/null)
	needed=$(readelf -d "$T_TMP/count_static" 2>/dev/null | grep -c 'NEEDED.*perfkit')
	check install_pc_static "$got (perfkit NEEDED: $needed)" "${n:-0}" -gt 0 -a "$needed" = 0
	unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
	# the page: NAME from docs/man, options from `perfkit record -h`
	man -l "$S/usr/share/man/man1/perfkit-record.1" > "$T_TMP/man" 2>&1
	check install_man "$(head -n 5 "$T_TMP/man")" -n \
		"$(grep 'perfkit-record - sample events' "$T_TMP/man")" -a -n \
		"$(grep -- '--call-graph MODE' "$T_TMP/man")"
	MANPATH="$S/usr/share/man" "$S/usr/bin/perfkit" help record > "$T_TMP/help" 2>&1
	check install_help_man "$(head -n 3 "$T_TMP/help")" -n \
		"$(grep 'PERFKIT-RECORD(1)' "$T_TMP/help")"
	mk uninstall DESTDIR="$S" PREFIX=/usr > "$T_TMP/log" 2>&1
	left=$(find "$S" ! -type d | head -n 5)
	check install_uninstall "left: $left" -z "$left"
fi

# perfkit help without an installed page: the -h text
MANPATH=/nonexistent $PERFKIT help stat > "$T_TMP/help" 2>&1
check help_fallback "$(head -n 2 "$T_TMP/help")" \
	"$(head -n 1 "$T_TMP/help")" = "usage: perfkit stat [options] [-- command [args]]"
# every command has its man page text, and no page lacks its command
cmds=$($PERFKIT --list-cmds | sort | tr '\n' ' ')
pages=$(ls docs/man/*.txt | sed 's|docs/man/\(.*\)\.txt|\1|' | grep -vx perfkit | sort | tr '\n' ' ')
check man_texts_match_commands "commands: $cmds; docs/man: $pages" "$cmds" = "$pages"

# bash completion: COMP_WORDS as bash splits them (':' breaks words)
comp() {
	PATH="$PK_BUILD:$PATH" bash -c '. scripts/perfkit-completion.bash
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _perfkit
		echo "${COMPREPLY[*]}"' sh "$@"
}
ccheck() { _n=$1 _w=$2; shift 2; _g=$(comp "$@"); check "$_n" "got '$_g'" "$_g" = "$_w"; }
ccheck complete_cmd "record" perfkit rec
ccheck complete_help "buildid-list buildid-cache" perfkit help bu
ccheck complete_opt "--buildid-all --buildid-mmap" perfkit record --buildid-
ccheck complete_stat_opt "--per-thread" perfkit stat -a --per-th
ccheck complete_event "task-clock" perfkit stat -e task-cl
ccheck complete_subcmd "report record restore restart reset" perfkit ftrace re
ccheck complete_sub_opt "--tsc2nsec" perfkit ftrace record --tsc
if [ -d /sys/kernel/tracing/events/sched/sched_switch ]; then
	ccheck complete_tracepoint "sched_switch" perfkit record -e sched : sched_swi
	ccheck complete_ftrace_event "sched_switch" perfkit ftrace record -e sched : sched_swi
else
	skip complete_tracepoint "no sched tracepoints here"
	skip complete_ftrace_event "no sched tracepoints here"
fi

# did you mean: a command, an option, an event; non-zero exits
$PERFKIT recrod > "$T_TMP/o" 2>&1; rc=$?
check suggest_command "rc=$rc $(cat "$T_TMP/o")" $rc -ne 0 -a \
	"$(tail -n 2 "$T_TMP/o" | tr '\t\n' '  ')" = "Did you mean this?  record "
$PERFKIT qqqqqq > "$T_TMP/o" 2>&1; rc=$?
check suggest_none "rc=$rc $(cat "$T_TMP/o")" $rc -ne 0 -a \
	"$(cat "$T_TMP/o")" = "perfkit: 'qqqqqq' is not a perfkit command. See 'perfkit --help'."
$PERFKIT record --bildid-all true > "$T_TMP/o" 2>&1; rc=$?
check suggest_option "rc=$rc $(head -n 2 "$T_TMP/o")" $rc -ne 0 -a \
	-n "$(grep -x "perfkit record: did you mean '--buildid-all'?" "$T_TMP/o")"
$PERFKIT ftrace record --tsc2nsex true > "$T_TMP/o" 2>&1; rc=$?
check suggest_ftrace_option "rc=$rc $(head -n 2 "$T_TMP/o")" $rc -ne 0 -a \
	-n "$(grep -x "perfkit record: did you mean '--tsc2nsec'?" "$T_TMP/o")"
$PERFKIT stat -e task-clok true > "$T_TMP/o" 2>&1; rc=$?
check suggest_event "rc=$rc $(cat "$T_TMP/o")" $rc -ne 0 -a \
	"$(tail -n 1 "$T_TMP/o")" = "perfkit stat: did you mean 'task-clock'?"
t_exit
