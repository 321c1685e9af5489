#!/bin/sh
# Compares the names the public headers declare (every PK_API declaration
# in include/perfkit/*.h) with the names a libperfkit.so exports (nm -D).
#   check_abi.sh LIB.so [INCLUDE_DIR]
# Prints "declared, not exported: NAME" and "exported, not declared: NAME"
# lines, one per difference, and exits 1 when there is any (2 when LIB.so
# or the headers cannot be read); silent with status 0 when they agree.
# With the archive beside LIB.so (libperfkit.a), also the naming rule: a
# global of the archive is declared PK_API or named pk__* (internal, hidden
# in the .so); "internal, not pk__: NAME" for one that is neither.
lib=$1
inc=${2:-include/perfkit}
[ -n "$lib" ] || { echo "usage: check_abi.sh LIB.so [INCLUDE_DIR]" >&2; exit 2; }
[ -r "$lib" ] || { echo "check_abi.sh: $lib: cannot read" >&2; exit 2; }
set -- "$inc"/*.h
[ -r "$1" ] || { echo "check_abi.sh: $inc: no headers" >&2; exit 2; }
tmp=$(mktemp -d /tmp/pkabi.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM HUP

# Declared: the headers as one line, comments and the macro's own
# definition removed; the identifier before the first '(' after PK_API.
grep -hv '^#[ 	]*define[ 	]*PK_API' "$@" | tr '\n' ' ' |
	sed 's|/\*[^*]*\*\{1,\}\([^/*][^*]*\*\{1,\}\)*/| |g' |
	grep -o 'PK_API[^(;{}]*(' |
	sed 's/^.*[^A-Za-z0-9_]\([A-Za-z_][A-Za-z0-9_]*\)[ 	]*($/\1/' |
	sort -u > "$tmp/declared"
# Exported: defined dynamic symbols, version suffixes dropped; the version
# node itself (an absolute symbol) is not a name.
nm -D --defined-only "$lib" > "$tmp/nm" || exit 2
awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' "$tmp/nm" |
	sort -u > "$tmp/exported"
[ -s "$tmp/declared" ] || { echo "check_abi.sh: $inc: no PK_API declarations" >&2; exit 2; }

comm -23 "$tmp/declared" "$tmp/exported" | sed 's/^/declared, not exported: /' \
	> "$tmp/diff"
comm -13 "$tmp/declared" "$tmp/exported" | sed 's/^/exported, not declared: /' \
	>> "$tmp/diff"
ar=${lib%.so*}.a
if [ -r "$ar" ]; then
	# (the compiler's own globals, e.g. ASan's __odr_asan.NAME, are not
	# names of the project)
	nm -g --defined-only "$ar" 2>/dev/null | awk 'NF == 3 { print $3 }' |
		grep -v '^pk__' | grep -v '^__' | grep -v '[.]' |
		sort -u > "$tmp/globals"
	comm -23 "$tmp/globals" "$tmp/declared" |
		sed 's/^/internal, not pk__: /' >> "$tmp/diff"
fi
cat "$tmp/diff"
[ ! -s "$tmp/diff" ]
