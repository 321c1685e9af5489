# The architecture (issue 10): scripts/check_layers.py finds no include
# circle, no layer calling a higher one, no cli file reaching into lib/;
# and the checker itself catches each kind of violation in a made-up tree.
# pk-test: check
. tests/lib/sh.sh

t_python scripts/check_layers.py "$PK_BUILD" >"$T_TMP/out" 2>&1; rc=$?
check layers_clean "rc=$rc: $(tail -5 "$T_TMP/out" | tr '\n' ';')" $rc -eq 0

# A made-up tree: base/a.h and base/b.h include each other, base calls up
# into tracedat, and a cli file includes an internal header.
top=$(pwd)
mk() { mkdir -p "$T_TMP/fake/$(dirname "$1")"; printf '%b' "$2" >"$T_TMP/fake/$1"; }
mk lib/base/a.h '#include "base/b.h"\n'
mk lib/base/b.h '#include "base/a.h"\n'
mk lib/base/up.c '#include "tracedat/t.h"\nint t(void);\nint u(void) { return t(); }\n'
mk lib/tracedat/t.h 'int t(void);\n'
mk lib/tracedat/t.c 'int t(void) { return 1; }\n'
mk cli/x.c '#include "base/a.h"\nint main(void) { return 0; }\n'
mkdir -p "$T_TMP/fake/build/obj/lib/base" "$T_TMP/fake/build/obj/lib/tracedat"
(cd "$T_TMP/fake" && cc -c lib/base/up.c -Ilib -o build/obj/lib/base/up.o &&
 cc -c lib/tracedat/t.c -o build/obj/lib/tracedat/t.o &&
 t_python "$top/scripts/check_layers.py" build) >"$T_TMP/fake.out" 2>&1; rc=$?
out=$(cat "$T_TMP/fake.out")
check layers_checker_circle "$out" $rc -eq 1 -a -n \
	"$(echo "$out" | grep 'include circle: lib/base/a.h -> lib/base/b.h')"
check layers_checker_upcall "$out" -n \
	"$(echo "$out" | grep 'lib/base calls the higher layer lib/tracedat: t$')"
check layers_checker_upinclude "$out" -n \
	"$(echo "$out" | grep 'lib/base/up.c: includes lib/tracedat/t.h of the higher layer')"
check layers_checker_cli "$out" -n \
	"$(echo "$out" | grep 'cli/x.c: includes the library-internal lib/base/a.h')"
t_exit
