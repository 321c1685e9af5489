#!/bin/sh
# perf record --kcore against perfkit record --kcore: the output a
# directory (DIR/data, DIR/kcore_dir with kcore, kallsyms, modules). This
# machine may have no /proc/kcore (nor modules): both recorders are shown
# a stand-in /proc in a private mount namespace (a tmpfs-like directory
# bound over /proc: links to a fresh procfs for everything else, kallsyms
# a copy, kcore and modules from tests/live/kcorefake.py). -a, stopped by
# SIGINT: a command's /proc/PID would be missing there. Checked: the
# layout and modes, kallsyms and modules byte for byte, the kcore copies
# byte for byte (perf's and perfkit's) and every segment's bytes against
# the kcore at its addresses, perf and perfkit script/report on either
# directory, entry trampolines remapped into the kernel's copy, perf's
# messages when kcore is not readable or cannot be copied, and the old
# directory moved aside (or perf's refusal when it holds other files).
. tests/lib/sh.sh
N=record_kcore
need_cmd $N perf "perf is not installed"
need_cmd $N unshare "unshare is not installed"
need_cmd $N readelf "readelf is not installed"
need_built $N "$PERFKIT"
if [ "$(id -u)" -ne 0 ]; then
	skip $N "private mount namespaces need root"; exit 0
fi
PK=$(cd "$(dirname "$PERFKIT")" && pwd)/$(basename "$PERFKIT")
SRC=$PWD
export LC_ALL=C TZ=UTC PERF_PAGER=cat
cd "$T_TMP" || exit 1
mkdir rp || exit 1
if ! unshare -m sh -c "mount -t proc proc $T_TMP/rp" 2>/dev/null; then
	skip $N "cannot mount a procfs in a private mount namespace"; exit 0
fi
# fakeproc NAME KALLSYMS [nomodules]: $T_TMP/NAME, a /proc with KALLSYMS
# and a stand-in kcore (and modules) for it
fakeproc() {
	mkdir -p "$1/kc" || exit 1
	t_python "$SRC/tests/live/kcorefake.py" "$2" "$1/kc" ||
		{ fail "$N:$1" "kcorefake.py failed"; return 1; }
	for _e in $(ls -A /proc); do
		case $_e in kcore|kallsyms|modules) ;;
		*) ln -s "$T_TMP/rp/$_e" "$1/$_e" ;;
		esac
	done
	cp "$2" "$1/kallsyms" && ln -s "$T_TMP/$1/kc/kcore" "$1/kcore" &&
		{ [ -n "$3" ] || cp "$1/kc/modules" "$1/modules"; }
}
# rec TOOL PROC DIR [ARGS]: TOOL records --kcore -a into DIR with PROC as
# /proc (none: the real one) for half a second; its stderr in DIR.err,
# "status 0" or "status non-zero" on stdout
rec() {
	_t=$1 _p=$2 _d=$3
	shift 3
	[ "$_t" = perf ] && _t=perf || _t=$PK
	# (a sanitizer's leak check reads /proc/PID, which the stand-in lacks)
	_a="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	if [ -n "$_p" ]; then
		timeout -s INT 1.5 env "$_a" unshare -m sh -c 'mount -t proc proc "$0" &&
			mount --bind "$1" /proc && shift && exec "$@"' \
			"$T_TMP/rp" "$T_TMP/$_p" $_t record --kcore -a -e cpu-clock \
			-o "$_d" "$@" > /dev/null 2> "$_d.err"
	else
		timeout -s INT 1.5 $_t record --kcore -a -e cpu-clock -o "$_d" "$@" \
			> /dev/null 2> "$_d.err"
	fi
	# (timeout says 124 for a recorder that stopped at its SIGINT)
	case $? in 0|124) echo "status 0" ;; *) echo "status non-zero" ;; esac
}
# tree DIR: its entries with their type and mode
tree() { (cd "$1" && find . -printf '%p %y %m\n' | sort); }
# errs DIR: the recorder's lines, less its summary
errs() { grep -v '^\[ perf\(kit\)\? record:\|^$' < "$1.err"; }

# no kcore to read (the real /proc, where it has none readable)
if ! [ -r /proc/kcore ] || ! head -c1 /proc/kcore > /dev/null 2>&1; then
	a=$(rec perf "" p0; errs p0) b=$(rec pk "" k0; errs k0)
	check "$N:not readable" "perf: $a perfkit: $b" "$a" = "$b"
	check "$N:not readable says" "perf: $a" \
		"$a" = "status non-zero
ERROR: kcore is not readable."
else
	skip "$N:not readable" "this machine's /proc/kcore is readable"
fi

# this kernel's kallsyms with a stand-in kcore and modules
if fakeproc fp /proc/kallsyms; then
	rec perf fp p1 > p1.st; rec pk fp k1 > k1.st
	check "$N:status" "perf: $(cat p1.st p1.err) perfkit: $(cat k1.st k1.err)" \
		"$(cat p1.st k1.st)" = "status 0
status 0"
	check "$N:layout" "perf: $(tree p1 | tr '\n' '|') perfkit: $(tree k1 | tr '\n' '|')" \
		-d p1/kcore_dir -a "$(tree p1)" = "$(tree k1)"
	check "$N:layout is perf's" "$(tree k1 | tr '\n' '|')" "$(tree k1)" = ". d 700
./data f 600
./kcore_dir d 700
./kcore_dir/kallsyms f 400
./kcore_dir/kcore f 400
./kcore_dir/modules f 400"
	for f in kallsyms modules; do
		check "$N:$f" "differs from /proc's" \
			"$(cmp fp/$f k1/kcore_dir/$f 2>&1 && cmp p1/kcore_dir/$f k1/kcore_dir/$f 2>&1)" = ""
	done
	check "$N:kcore phdrs" "$(readelf -lW k1/kcore_dir/kcore 2>&1 | grep LOAD | tr '\n' '|')" \
		"$(readelf -lW p1/kcore_dir/kcore 2>&1 | grep LOAD)" = \
		"$(readelf -lW k1/kcore_dir/kcore 2>&1 | grep LOAD)"
	check "$N:kcore as perf's" "$(cmp p1/kcore_dir/kcore k1/kcore_dir/kcore 2>&1)" \
		-z "$(cmp p1/kcore_dir/kcore k1/kcore_dir/kcore 2>&1)"
	r=$(t_python "$SRC/tests/live/kcorefake.py" --check fp/kc/kcore k1/kcore_dir/kcore 2>&1)
	check "$N:kcore bytes" "$r" $? -eq 0 -a -z "$r"
	# both tools read both directories alike
	for d in p1 k1; do
		perf script -i $d > $d.ps 2> /dev/null
		"$PK" script -i $d > $d.ks 2> $d.kse
		check "$N:script $d" "$(first_diff $d.ps $d.ks) $(head -1 $d.kse)" \
			-s $d.ps -a -z "$(cmp $d.ps $d.ks 2>&1)"
		perf report -i $d --stdio --sort dso,sym 2> /dev/null | grep -v '^#' > $d.pr
		"$PK" report -i $d --stdio --sort dso,sym 2> /dev/null | grep -v '^#' > $d.kr
		check "$N:report $d" "$(first_diff $d.pr $d.kr)" \
			-s $d.pr -a -z "$(cmp $d.pr $d.kr 2>&1)"
	done
	perf script -v -i k1 2>&1 > /dev/null | grep '^Using k1' > k1.using
	check "$N:perf uses the copy" "$(tr '\n' '|' < k1.using)" "$(cat k1.using)" = \
		"Using k1/kcore_dir/kcore for kernel data
Using k1/kcore_dir/kallsyms for symbols"
	# again into the same directories: the first ones become DIR.old
	rec perf fp p1 > /dev/null; rec pk fp k1 > /dev/null
	check "$N:old moved" "perf: $(tree p1.old | tr '\n' '|') perfkit: $(tree k1.old | tr '\n' '|')" \
		"$(tree p1.old)" = "$(tree k1.old)" -a -f k1.old/kcore_dir/kcore -a -f k1/kcore_dir/kcore
	# an old directory holding something else stops both
	touch p1.old/other k1.old/other
	a=$(rec perf fp p1; errs p1 | sed 's/p1\.old/DIR.old/')
	b=$(rec pk fp k1; errs k1 | sed 's/k1\.old/DIR.old/')
	check "$N:old kept" "perf: $a perfkit: $b" "$a" = "$b" -a -f k1.old/other
	# a pipe has no directory to put kcore_dir in
	a=$(rec perf fp -; errs -) b=$(rec pk fp -; errs -)
	check "$N:pipe" "perf: $a perfkit: $b" "$a" = "$b" -a -n "$a"
	# the stand-in without a modules file: nothing copied
	if fakeproc fpn /proc/kallsyms nomodules; then
		a=$(rec perf fpn p2; errs p2; tree p2/kcore_dir)
		b=$(rec pk fpn k2; errs k2; tree k2/kcore_dir)
		check "$N:no modules" "perf: $a perfkit: $b" "$a" = "$b"
		check "$N:no modules says" "$a" "$(echo "$a" | sed -n 2p)" = \
			"ERROR: Failed to copy kcore"
	fi
fi

# entry trampolines (kernels with page table isolation had them): their
# pages are remaps of the kernel's text, pointing into its copy
cat > ks <<'EOF'
ffffffff81000000 T _text
ffffffff81000000 T _stext
ffffffff81001000 T kfunc_a
ffffffff81002000 t kfunc_b
ffffffff81003000 D kdata
ffffffff81400000 T _etext
fffffe0000006000 T __entry_SYSCALL_64_trampoline
fffffe0000032000 T __entry_SYSCALL_64_trampoline
ffffffffc0010000 t mod_fn	[pkmod]
ffffffffc0013000 t mod_fn2	[pkmod]
EOF
if fakeproc ft ks; then
	rec perf ft p3 > /dev/null; rec pk ft k3 > /dev/null
	check "$N:trampolines" "perf: $(readelf -lW p3/kcore_dir/kcore 2>&1 | grep LOAD | tr '\n' '|') perfkit: $(readelf -lW k3/kcore_dir/kcore 2>&1 | grep LOAD | tr '\n' '|')" \
		-s p3/kcore_dir/kcore -a -z "$(cmp p3/kcore_dir/kcore k3/kcore_dir/kcore 2>&1)"
	check "$N:trampolines remapped" "$(readelf -lW k3/kcore_dir/kcore | grep LOAD | tr '\n' '|')" \
		"$(readelf -lW k3/kcore_dir/kcore | awk '$1 == "LOAD" { print $2, $3, $5 }' | tr '\n' ' ')" = \
		"0x001000 0xffffffff81000000 0x400000 0x401000 0xffffffffc0010000 0x004000 0x011000 0xfffffe0000006000 0x001000 0x021000 0xfffffe0000032000 0x001000 "
fi
# with Intel PT (tests/lib/ptfake.sh's PMU and shim, a libipt trace in
# the fake AUX area): the same directory, one AUXTRACE record each
AUX=$PK_SHARED/corpus/libipt/tnt-trig/tnt-trig.pt
if [ -d fp ] && [ -f "$AUX" ] && command -v cc > /dev/null 2>&1; then
	. "$SRC/tests/lib/ptfake.sh"
	ptfake_tree $N
	for t in perf pk; do
		[ $t = perf ] && c=perf || c=$PK
		PK_FAKE_PT_AUX=$AUX LD_PRELOAD=$T_TMP/shim.so PERFKIT_SYSFS=$T_TMP/sys \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		timeout -s INT 1.5 unshare -m sh -c 'mount -t proc proc "$0" &&
			mount --bind "$1" /proc && mount --bind "$2" \
			/sys/bus/event_source/devices && shift 2 && exec "$@"' \
			"$T_TMP/rp" "$T_TMP/fp" "$D" $c record --kcore -C 0 \
			-e intel_pt//k -o pt_$t > /dev/null 2> pt_$t.err
		perf script -D -i pt_$t 2> /dev/null | grep -c ' PERF_RECORD_AUXTRACE ' > pt_$t.n
	done
	check "$N:intel_pt layout" "perf: $(tree pt_perf | tr '\n' '|') perfkit: $(tree pt_pk | tr '\n' '|')" \
		-f pt_perf/kcore_dir/kcore -a "$(tree pt_perf)" = "$(tree pt_pk)"
	check "$N:intel_pt kcore" "$(cmp pt_perf/kcore_dir/kcore pt_pk/kcore_dir/kcore 2>&1)" \
		-z "$(cmp pt_perf/kcore_dir/kcore pt_pk/kcore_dir/kcore 2>&1)"
	check "$N:intel_pt AUXTRACE" "perf: $(cat pt_perf.n) perfkit: $(cat pt_pk.n)" \
		"$(cat pt_perf.n)" = 1 -a "$(cat pt_pk.n)" = 1
else
	skip "$N:intel_pt" "no stand-in /proc, libipt trace or C compiler"
fi
t_exit
