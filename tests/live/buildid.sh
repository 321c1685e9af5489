# The build-id cache against perf 6.1: what perfkit record leaves in
# ~/.debug (entries, modes, sizes, links) beside what perf record leaves,
# perf script and perfkit script naming a rebuilt program's old symbols
# through it, record -N/-B, buildid.dir in the perf config, and the
# buildid-list / buildid-cache commands' output and resulting trees against
# perf's. HOME points into the test's directory: the real ~/.debug is left
# alone.
. tests/lib/sh.sh
T=$T_TMP
unset PERF_CONFIG
export PERF_CONFIG_NOSYSTEM=1

need_cmd buildid perf "perf is not installed"
need_cmd buildid cc "no C compiler to build the test programs"
if [ ! -x "$PERFKIT" ]; then
	fail buildid "build $PERFKIT first"
	exit 1
fi
mkdir -p "$T/bin" "$T/hk" "$T/hp"
cat >"$T/old.c" <<'EOF'
volatile long x;
__attribute__((noinline)) void spin_old_version(void)
{ for (long i = 0; i < 100000000; i++) x += i; }
int main(void) { spin_old_version(); return 0; }
EOF
cat >"$T/new.c" <<'EOF'
volatile long y;
__attribute__((noinline)) void other_a(void) { y++; }
__attribute__((noinline)) void brand_new_fn(void)
{ for (long i = 0; i < 1000; i++) y += i; other_a(); }
int main(void) { brand_new_fn(); return 0; }
EOF
P=$T/bin/prog
cc -O1 -o "$P" "$T/old.c" && cc -O1 -o "$T/bin/spin" "$T/old.c" &&
	cc -O1 -o "$T/new" "$T/new.c" &&
	cc -O1 -o "$T/bin/prog2" "$T/new.c" || {
	fail buildid_build "cc failed"; exit 1; }

# tree HOME: the cache below HOME, one line per file (mode size path -> link)
tree() { (cd "$1" && find . -printf '%M %s %p -> %l\n' | LC_ALL=C sort -k3); }
# entry HOME ID NAME: one DSO's cache directory and link
entry() {
	d=$1/.debug; case $3 in /*) e=$d$3/$2 ;; *) e=$d/$3/$2 ;; esac
	l=$d/.build-id/$(echo "$2" | cut -c1-2)/$(echo "$2" | cut -c3-)
	[ -d "$e" ] || { echo "no $e"; return; }
	(cd "$e" && find . -printf '%M %s %p\n' | LC_ALL=C sort -k3)
	echo "link $(readlink "$l")"
}

# --- record: the cache perfkit record leaves, against perf record's
HOME=$T/hk "$PERFKIT" record -q -o "$T/k.data" "$P" >/dev/null 2>"$T/k.err"
rk=$?
HOME=$T/hp perf record -q -o "$T/p.data" "$P" >/dev/null 2>"$T/p.err"
rp=$?
if [ $rk -ne 0 ] || [ $rp -ne 0 ]; then
	fail buildid_record "record exited $rk (perfkit), $rp (perf): $(head -c 300 "$T/k.err" "$T/p.err")"
	exit 1
fi
perf buildid-list -i "$T/k.data" >"$T/k.list" 2>/dev/null
perf buildid-list -i "$T/p.data" >"$T/p.list" 2>/dev/null
pid=$(perf buildid-list -i "$P" 2>/dev/null)
check buildid_record_lists_prog "perf buildid-list on perfkit's file: $(cat "$T/k.list")" \
	-n "$pid" -a "$(grep -c "^$pid $P\$" "$T/k.list")" -eq 1
check buildid_record_lists_vdso "perf lists [vdso] (hit or not), perfkit must too" \
	"$(grep -c ' \[vdso\]$' "$T/p.list")" -eq "$(grep -c ' \[vdso\]$' "$T/k.list")"
# every DSO perfkit's file names is cached; where perf's run names it too,
# the entry equals perf's (files, modes, sizes, link)
n=0; bad=
while read -r id name; do
	n=$((n + 1))
	entry "$T/hk" "$id" "$name" >"$T/ek"
	grep -q '^no ' "$T/ek" && bad="$bad $name(missing)"
	if grep -q "^$id " "$T/p.list"; then
		entry "$T/hp" "$id" "$name" >"$T/ep"
		cmp -s "$T/ek" "$T/ep" || bad="$bad $name($(tr '\n' ' ' <"$T/ek") vs $(tr '\n' ' ' <"$T/ep"))"
	fi
done <"$T/k.list"
check buildid_record_cache_as_perf "entries differ:$bad" -z "$bad" -a "$n" -ge 2
nk=$(find "$T/hk/.debug/.build-id" -type l | wc -l)
check buildid_record_cache_only_listed "$nk links for $n DSOs" "$nk" -eq "$n"
check buildid_record_vdso_same_bytes "the cached vdso differs from perf's" \
	"$(cat "$T"/hk/.debug/\[vdso\]/*/vdso | cksum)" = \
	"$(cat "$T"/hp/.debug/\[vdso\]/*/vdso | cksum)"

# --- the program is rebuilt at the same path: symbols come from the cache
cp "$T/new" "$P.tmp" && mv "$P.tmp" "$P"
for tool in perf "$PERFKIT"; do
	HOME=$T/hk $tool script -i "$T/k.data" -F ip,sym,dso >"$T/s.$(basename $tool)" 2>/dev/null
done
nold=$(grep -c 'spin_old_version (' "$T/s.perf")
check buildid_rebuilt_perf_script "perf script names the old symbols $nold times" "$nold" -gt 0
check buildid_rebuilt_perfkit_script "perfkit script differs from perf script" \
	-n "$(grep 'spin_old_version (' "$T/s.perfkit")" -a \
	"$(cksum <"$T/s.perf")" = "$(cksum <"$T/s.perfkit")"
HOME=$T/none "$PERFKIT" script -i "$T/k.data" -F ip,sym,dso >"$T/s.none" 2>/dev/null
check buildid_rebuilt_needs_cache "without the cache the old symbols still resolved" \
	"$(grep -c spin_old_version "$T/s.none")" -eq 0

# --- buildid-list against perf's, byte for byte (stdout, stderr, status)
HOME=$T/hk "$PERFKIT" record -q -o - "$T/bin/spin" >"$T/pipe.data" 2>/dev/null
HOME=$T/hn "$PERFKIT" record -q -N -o "$T/n.data" "$T/bin/spin" >/dev/null 2>&1
HOME=$T/hb "$PERFKIT" record -q -B -o "$T/b.data" "$T/bin/spin" >/dev/null 2>&1
: >"$T/empty.data"
printf 'not a perf.data file\n' >"$T/text.data"
bad=
for args in "-i $T/k.data" "-H -i $T/k.data" "-i $T/p.data" \
	    "--with-hits -i $T/p.data" "-i $T/n.data" "-i $T/b.data" \
	    "-i -" "-H -i -" "-k" "-i $P" "-i $T/nonexistent" \
	    "-i $T/empty.data" "-i $T/text.data"; do
	perf buildid-list $args <"$T/pipe.data" >"$T/lp" 2>&1; echo "rc $?" >>"$T/lp"
	"$PERFKIT" buildid-list $args <"$T/pipe.data" >"$T/lk" 2>&1; echo "rc $?" >>"$T/lk"
	cmp -s "$T/lp" "$T/lk" || bad="$bad [$args: $(tr '\n' '|' <"$T/lk") vs $(tr '\n' '|' <"$T/lp")]"
done
check buildid_list_vs_perf "differs:$bad" -z "$bad"
check buildid_record_N "record -N wrote a cache" ! -e "$T/hn/.debug"
check buildid_record_N_table "record -N left the build ids out" \
	"$(perf buildid-list -i "$T/n.data" 2>/dev/null | grep -c "spin\$")" -eq 1
check buildid_record_B "record -B wrote a cache or build ids" ! -e "$T/hb/.debug" -a \
	"$(perf report --header-only -i "$T/b.data" 2>/dev/null | grep -c 'missing features:.*BUILD_ID')" -eq 1

# --- buildid.dir in ~/.perfconfig and in $PERF_CONFIG's file, as perf
mkdir -p "$T/hc"
printf '[buildid]\n\tdir = %s\n' "$T/cfgdir" >"$T/hc/.perfconfig"
HOME=$T/hc "$PERFKIT" record -q -o "$T/c.data" "$T/bin/spin" >/dev/null 2>&1
check buildid_config_dir "buildid.dir was not used" \
	-d "$T/cfgdir/.build-id" -a ! -e "$T/hc/.debug"
printf '[buildid]\ndir = "%s"\n' "$T/envdir" >"$T/alt.cfg"
PERF_CONFIG=$T/alt.cfg HOME=$T/hc "$PERFKIT" buildid-cache -a "$T/bin/prog2"
check buildid_config_env "PERF_CONFIG's buildid.dir was not used" \
	-d "$T/envdir/.build-id" -a ! -e "$T/hc/.debug"
# --- perf's --buildid-dir DIR before the command wins over the config,
# the same tree as perf's
HOME=$T/hc "$PERFKIT" --buildid-dir "$T/optk" buildid-cache -a "$T/bin/prog2"
HOME=$T/hc perf --buildid-dir "$T/optp" buildid-cache -a "$T/bin/prog2"
check buildid_option_dir "--buildid-dir: $(tree "$T/optk" 2>&1 | head -3)" \
	-d "$T/optk/.build-id" -a ! -e "$T/cfgdir/home" -a \
	"$(tree "$T/optk" | md5sum)" = "$(tree "$T/optp" | md5sum)"
"$PERFKIT" --buildid-dir >/dev/null 2>&1
rk=$?
perf --buildid-dir >/dev/null 2>&1
check buildid_option_missing "exit $rk, perf's $?" "$rk" -eq "$?"

# --- buildid-cache: the same commands under perf and perfkit give the
# same messages (perf's -v adds a DEBUGINFOD_URLS line; perfkit exits 1
# where perf reports a failure and exits 0) and the same trees
LD=$(perf buildid-list -i "$T/p.data" 2>/dev/null | awk '$2 ~ /ld-linux/ { print $2 }')
cp "$T/bin/prog2" "$T/bin/p3"
run_cache() {
	H=$T/c_$1; mkdir -p "$H"; t=$2
	{
	HOME=$H $t buildid-cache -v -a "$T/bin/p3${LD:+,$LD}"; echo "rc $?"
	HOME=$H $t buildid-cache -l
	cp "$T/new" "$T/bin/p3.tmp"; mv "$T/bin/p3.tmp" "$T/bin/p3"
	HOME=$H $t buildid-cache -v -a "$T/bin/p3"
	HOME=$H $t buildid-cache -l
	HOME=$H $t buildid-cache -M "$T/p.data"
	HOME=$H $t buildid-cache -v -r "$T/bin/p3"
	HOME=$H $t buildid-cache -v -r "$T/nonexistent"; echo "rc $?"
	HOME=$H $t buildid-cache -v -a "$T/old.c"
	HOME=$H $t buildid-cache -a "$T/bin/p3"
	HOME=$H $t buildid-cache -v -p "$T/bin/p3"
	HOME=$H $t buildid-cache -v -p "$T/nonexistent"
	[ -n "$LD" ] && HOME=$H $t buildid-cache -v -u "$LD"
	HOME=$H $t buildid-cache -a "$T/bin/prog2"
	HOME=$H $t buildid-cache -v -P; echo "rc $?"
	} 2>&1 | grep -v '^DEBUGINFOD_URLS=' | sed 's/^rc [01]$/rc/' >"$T/cache.$1"
	tree "$H" >"$T/ctree.$1"
	cp "$T/bin/prog2" "$T/bin/p3"
}
run_cache perf perf
run_cache pk "$PERFKIT"
# perf's failure message names errno left over from elsewhere; perfkit
# names the real reason: compare up to the colon
sed -i 's/^\(Couldn.t add [^:]*\):.*/\1/' "$T/cache.perf" "$T/cache.pk"
check buildid_cache_vs_perf "$(diff "$T/cache.perf" "$T/cache.pk" | head -8 | tr '\n' '|')" \
	-s "$T/cache.pk" -a "$(cksum <"$T/cache.perf")" = "$(cksum <"$T/cache.pk")"
check buildid_cache_tree_vs_perf "$(diff "$T/ctree.perf" "$T/ctree.pk" | head -6 | tr '\n' '|')" \
	"$(cksum <"$T/ctree.perf")" = "$(cksum <"$T/ctree.pk")"
"$PERFKIT" buildid-cache -l -a "$P" >/dev/null 2>&1
check buildid_cache_list_exclusive "-l with -a was accepted" $? -eq 2
HOME=$T/c_pk "$PERFKIT" buildid-cache -a "$T/nonexistent" 2>"$T/err"
rc=$?
check buildid_cache_add_missing "status $rc and: $(cat "$T/err")" $rc -ne 0 -a \
	"$(cat "$T/err")" = "Couldn't add $T/nonexistent: No such file or directory"
t_exit
