# libperfkit.so's ABI: every PK_API name exported and nothing else
# (scripts/check_abi.sh, also `make check-abi`), the soname and its links,
# and programs linked with -lperfkit (build/examples-so) running on it.
# pk-test: check
. tests/lib/sh.sh
SO=$PK_BUILD/libperfkit.so

sh scripts/check_abi.sh "$SO" include/perfkit >"$T_TMP/abi" 2>&1; rc=$?
check abi_exports_match_headers "rc=$rc: $(tr '\n' ';' <"$T_TMP/abi")" $rc -eq 0

# The checker itself: a declaration the library lacks (split over lines,
# after a comment with parentheses) is reported, by name, with status 1.
mkdir "$T_TMP/inc" && cp include/perfkit/*.h "$T_TMP/inc/"
printf '/* f(x) */\nPK_API const struct pk_abi_t *\npk_abi_test_missing(int a);\n' \
	>>"$T_TMP/inc/common.h"
sh scripts/check_abi.sh "$SO" "$T_TMP/inc" >"$T_TMP/abi2" 2>&1; rc=$?
check abi_checker_finds_missing "rc=$rc: $(tr '\n' ';' <"$T_TMP/abi2")" \
	$rc -eq 1 -a "$(cat "$T_TMP/abi2")" = \
	"declared, not exported: pk_abi_test_missing"

# The naming rule: a global of the archive that is neither PK_API nor
# pk__* is named.
mkdir "$T_TMP/ar" && cp "$(readlink -f "$SO")" "$T_TMP/ar/libperfkit.so" &&
	cp "$PK_BUILD/libperfkit.a" "$T_TMP/ar/" &&
	echo 'int td_stray(void) { return 1; }' >"$T_TMP/ar/x.c" &&
	cc -c "$T_TMP/ar/x.c" -o "$T_TMP/ar/x.o" &&
	ar r "$T_TMP/ar/libperfkit.a" "$T_TMP/ar/x.o" 2>/dev/null
sh scripts/check_abi.sh "$T_TMP/ar/libperfkit.so" include/perfkit \
	>"$T_TMP/abi3" 2>&1; rc=$?
check abi_checker_finds_unprefixed "rc=$rc: $(tr '\n' ';' <"$T_TMP/abi3")" \
	$rc -eq 1 -a "$(cat "$T_TMP/abi3")" = "internal, not pk__: td_stray"

# Internals (pk__*) exist in the archive but the .so keeps them hidden.
nin=$(nm -g --defined-only "$PK_BUILD/libperfkit.a" 2>/dev/null | grep -c ' T pk__')
nout=$(nm -D --defined-only "$SO" | grep -c ' pk__')
check abi_internals_hidden "archive $nin, exported $nout" $nin -gt 0 -a $nout -eq 0

# The real file, the soname link and the development link.
son=$(readelf -d "$SO" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
check abi_soname "soname '$son'" "$son" = libperfkit.so.0
real=$(readlink -f "$SO"); real0=$(readlink -f "$PK_BUILD/libperfkit.so.0")
check abi_soname_link "$SO -> $real, .so.0 -> $real0" -f "$real" -a \
	"$real" = "$real0" -a "$real" != "$(cd "$PK_BUILD" && pwd)/libperfkit.so.0"

# A program built with -lperfkit loads this build's library and counts its
# own task-clock through it.
C=$PK_BUILD/examples-so/count
need=$(readelf -d "$C" 2>/dev/null | grep -c 'NEEDED.*\[libperfkit\.so\.0\]')
loaded=$(ldd "$C" 2>/dev/null | sed -n 's/^[[:space:]]*libperfkit\.so\.0 => \([^ ]*\) .*/\1/p')
check abi_example_links_so "NEEDED $need, loads '$loaded'" $need -eq 1 -a \
	-n "$loaded" -a "$(readlink -f "$loaded")" = "$real"
"$C" task-clock 1000000 >"$T_TMP/count" 2>&1; rc=$?
n=$(awk '$2 == "task-clock" { print $1 }' "$T_TMP/count")
check abi_so_counts_task_clock "rc=$rc: $(cat "$T_TMP/count")" $rc -eq 0 -a \
	"${n:-0}" -gt 0
"$PK_BUILD/examples-so/selfmon" 1000 >"$T_TMP/selfmon" 2>&1; rc=$?
n=$(awk '$2 == "task-clock" { print $1 }' "$T_TMP/selfmon")
check abi_so_selfmon "rc=$rc: $(cat "$T_TMP/selfmon")" $rc -eq 0 -a \
	"${n:-0}" -gt 0
t_exit
