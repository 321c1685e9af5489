# Address filters of the Intel PT event (perf record --filter) without the
# hardware: the fixture PMU (tests/data/intel_pt, nr_addr_filters 2) with
# tests/live/pt_fakeopen.c preloaded, which logs the string each recorder
# gives PERF_EVENT_IOC_SET_FILTER. perf record and perfkit record take
# the same filters: numbers, ranges, files (named by their real path),
# tracestop, the whole file or kernel ("*"), kernel symbols (global, #N,
# duplicates, one before the other), symbols inside files the test builds
# (an executable, a PIE, shared objects, a C++ one, an object file, a
# stripped one: file offsets, statics, aliases of .symtab and .dynsym,
# PLT entries, #N, sizes up to the next symbol) and the C library, and
# bad ones; the strings they set and the messages they print must be
# the same.
# pk-test: lock=bpf
. tests/lib/sh.sh
. tests/lib/ptfake.sh
N=record_pt_filter
need_cmd $N perf "perf is not installed"
need_cmd $N unshare "unshare is not installed"
need_cmd $N cc "no C compiler for the shim"
if [ "$(id -u)" -ne 0 ]; then
	skip $N "private mount namespaces need root"; exit 0
fi
need_built $N "$PERFKIT"
SRC=$PWD; PK=$PWD/$PERFKIT
export LC_ALL=C TZ=UTC PERF_PAGER=cat
cd "$T_TMP" || exit 1
ptfake_tree $N
# run TOOL FILTER: what TOOL prints (less the AUX area it cannot map
# here and the TSC warning), its status, and the filters it set
run() {
	rm -f flog
	if [ "$1" = perf ]; then
		PK_FAKE_PT_FILTER_LOG=flog LD_PRELOAD=$T_TMP/shim.so timeout 30 \
		unshare -m sh -c 'mount --bind "$0" /sys/bus/event_source/devices && exec "$@"' \
			"$D" perf record -e intel_pt//u --filter "$2" -o x.data -- true > out 2>&1
	else
		PK_FAKE_PT_FILTER_LOG=flog LD_PRELOAD=$T_TMP/shim.so PERFKIT_SYSFS=$T_TMP/sys \
		timeout 30 "$PK" record -e intel_pt//u --filter "$2" -o x.data -- true > out 2>&1
	fi
	echo "status $([ $? -eq 0 ] && echo 0 || echo non-zero)"
	grep -v '^failed to mmap\|^Warning:\|TSC not available\|^\[ perf record\|^$' out
	[ -f flog ] && sort -u flog
}
# one FILTER [NAME]: both recorders, the same words and strings
one() {
	run perf "$1" > o.perf; run pk "$1" > o.pk
	check "$N:${2:-$1}" "perf: $(tr '\n' '|' < o.perf) perfkit: $(tr '\n' '|' < o.pk)" \
		"$(cmp -s o.perf o.pk && echo y)" = y
}
one "filter 0x1000/0x200 @ /bin/sh"
one "start 0x1000"
one "tracestop 0x10/4"
one "filter 0x10 / 0x20 @ /bin/sh , start 0x30"
one "filter * @ /bin/sh"
one "filter 0x10 @ $T_TMP/nonexistent" "filter 0x10 @ missing-file"
one "bogus 1"
one "filter 1,filter 2, filter 3"
one "filter"
# symbols inside files, in binaries built here
cat > a.c <<'EOF'
#include <stdio.h>
static __attribute__((noinline)) int helper(int x) { return x * 7; }
__attribute__((noinline)) int work(int x)
{ int s = 0; for (int i = 0; i < x; i++) s += helper(i); return s; }
__attribute__((noinline)) int other(int x) { return work(x) + 1; }
int main(int c, char **v) { (void)v; printf("%d\n", other(c)); return 0; }
EOF
cat > b.c <<'EOF'
static __attribute__((noinline)) int helper(int x) { return x * 11; }
int bfn(int x) { return helper(x); }
EOF
cat > lib.c <<'EOF'
static int helper(int x) { return x * 3 + 1; }
int twice(int x) { return helper(x) + helper(x + 1); }
int lib_fn(int x) { return twice(x) ^ 5; }
__attribute__((weak)) int weak_fn(int x) { return x - 1; }
EOF
if cc -O0 -no-pie -o exe a.c && cc -O2 -fPIE -pie -o pie a.c b.c &&
   cc -O2 -shared -fPIC -o lib.so lib.c && cc -O0 -shared -fPIC -o lib0.so lib.c &&
   cc -O2 -shared -fPIC -Wl,-Ttext-segment=0x200000 -o libbase.so lib.c &&
   cc -O2 -c -o a.o a.c && strip -o exes exe && strip -o libs.so lib.so; then
	one "filter work @ exe"
	# and by readelf: work's value less its segment's address-offset gap
	W=$(readelf -sW exe | awk '$8 == "work" { print $2, $3 }')
	G=$(readelf -lW exe | awk '$1 == "LOAD" { print $2, $3, $6 }' |
		while read -r o v m; do
			[ $((0x${W% *})) -ge $((v)) ] && [ $((0x${W% *})) -lt $((v + m)) ] &&
				echo $((v - o))
		done)
	run pk "filter work @ exe" > o.pk
	WANT=$(printf 'filter 0x%x/0x%x@%s/exe' $((0x${W% *} - G)) "${W#* }" "$(realpath .)")
	check "$N:work by readelf" "want $WANT, got $(tr '\n' '|' < o.pk)" \
		"$(grep -Fx "$WANT" o.pk)" = "$WANT"
	one "filter helper @ exe"
	one "start other @ exe"
	one "filter work / other @ exe"
	one "filter work / 0x10 @ exe"
	one "start main @ exe, stop work @ exe"
	one "filter _start @ exe"
	one "filter _IO_stdin_used @ exe"
	one "filter printf@plt @ exe"
	one "filter main @ exes"
	one "filter * @ exes"
	one "filter helper @ pie"
	one "filter helper #2 @ pie"
	one "filter helper #g @ pie"
	one "tracestop helper #1 @ pie"
	one "filter work @ pie"
	one "filter bfn @ pie"
	one "filter twice @ lib.so"
	one "filter twice #1 @ lib.so"
	one "filter twice #2 @ lib.so"
	one "filter twice #3 @ lib.so"
	one "filter twice #g @ lib.so"
	one "filter weak_fn @ lib.so"
	one "filter _init @ lib.so"
	one "filter _fini @ lib.so"
	one "filter frame_dummy @ lib.so"
	one "filter twice@plt @ lib.so"
	one "filter twice #2/lib_fn #1 @ lib.so"
	one "filter lib_fn #2/twice #1 @ lib.so"
	one "filter 0x9000 / lib_fn #1 @ lib.so"
	one "filter helper @ lib.so"
	one "filter helper @ lib0.so"
	one "filter twice #G @ libs.so"
	one "filter lib_fn #1 @ libbase.so"
	one "filter work @ a.o"
	one "filter work @ a.c"
	one "filter * @ a.c"
	one "filter work @ $T_TMP/nonexistent" "filter work @ missing-file"
else
	fail $N:cc "cannot build the test's binaries"
fi
cat > cx.cc <<'EOF'
namespace ns { int f(int x) { return x + 1; } int f(double x) { return (int)x; } }
struct S { int m(int); }; int S::m(int x) { return x * 2; }
EOF
if command -v c++ >/dev/null 2>&1 && c++ -O2 -shared -fPIC -o cx.so cx.cc; then
	one "filter ns::f @ cx.so"
	one "filter ns::f #3 @ cx.so"
	one "filter S::m #1 @ cx.so"
else
	skip $N:c++ "no C++ compiler"
fi
# the C library (its debug file's symbols where it has one)
LIBC=$(ldd exe 2>/dev/null | awk '/libc\.so/ { print $3 }')
if [ -n "$LIBC" ] && [ -f "$LIBC" ]; then
	one "filter ioctl @ $LIBC" "filter ioctl @ libc"
	one "filter memcpy @ $LIBC" "filter memcpy @ libc"
	one "filter malloc / free @ $LIBC" "filter malloc / free @ libc"
else
	skip $N:libc "no C library found for the executable"
fi
# kernel symbols: where perf can read their addresses
if [ "$(cat /proc/sys/kernel/kptr_restrict 2>/dev/null)" != 0 ] ||
   ! grep -q ' T schedule$' /proc/kallsyms; then
	skip $N:kernel "kernel addresses are restricted (or no schedule)"
	t_exit; exit
fi
one "filter schedule"
one "start schedule"
one "filter schedule / 8"
one "filter schedule #g"
one "filter schedule #2"
one "filter *"
one "filter no_such_function_here"
# a local name defined twice
DUP=$(awk '$2 == "t" && NF == 3 { c[$3]++ } END { for (k in c) if (c[k] == 2) { print k; exit } }' /proc/kallsyms)
if [ -n "$DUP" ]; then
	one "filter $DUP"
	one "filter $DUP #2"
	one "filter $DUP #3"
	one "stop $DUP #1 / schedule"
	one "filter schedule / $DUP #1"
else
	skip $N:dup "no kernel function name defined twice"
fi
t_exit
