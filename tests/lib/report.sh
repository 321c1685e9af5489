# Helpers of the perf report comparisons (report_vs_perf.sh,
# report_opts_vs_perf.sh): source after tests/lib/sh.sh. T: the test's
# temporary folder, C: the corpus's perf.data files, DEMO: the workload.
T=$T_TMP
C=$PK_SHARED/corpus/perf-data
DEMO=$PK_BUILD/workloads/demo

# report_prereqs NAME: skipped without perf, failed without the build
# ($PERFKIT, $DEMO); perf report reads and writes the build-id cache
# under $HOME: ours
report_prereqs() {
	if ! command -v perf >/dev/null 2>&1; then
		skip "$1" "perf is not installed"
		exit 0
	fi
	if [ ! -x "$PERFKIT" ] || [ ! -x "$DEMO" ]; then
		fail "$1" "build $PERFKIT and the workloads first"
		exit 1
	fi
	export HOME=$T
}

# perf's tip line is random: both without it; so is the " (inlined)"
# perf 6.1 may put after fractal's "[...]" (a flag of uninitialised memory)
untip() { grep -v '^# (Tip:\|^# (Cannot load tips' | sed 's/--\[\.\.\.\] (inlined)$/--[...]/'; }

# a kernel module among the entries (perfkit does not name them yet)
has_module() {
	grep -q '  \[[A-Za-z0-9_-]*\] ' "$1" &&
	grep '  \[[A-Za-z0-9_-]*\] ' "$1" | grep -vq '\[kernel\.kallsyms\]\|\[unknown\]\|\[vdso\]\|\[vsyscall\]'
}

N=0
# same NAME FILE [OPTS...]: both print the same, both succeed
same() {
	_n=$1; _f=$2; shift 2
	N=$((N + 1))
	t_part $N || return 0
	perf report --stdio -i "$_f" "$@" 2>"$T/p.err" | untip >"$T/p.out"
	"$PERFKIT" report --stdio -i "$_f" "$@" 2>"$T/k.err" | untip >"$T/k.out"
	if [ "${SAME_SED:-}" ]; then	# (both sides alike)
		sed -i "$SAME_SED" "$T/p.out" "$T/k.out"
	fi
	if [ ! -s "$T/p.out" ]; then
		skip "$_n" "perf printed nothing ($(head -1 "$T/p.err"))"
	elif [ "${MODCHECK:-}" ] && has_module "$T/p.out"; then
		skip "$_n" "kernel modules among the entries"
	elif cmp -s "$T/p.out" "$T/k.out"; then
		ok "$_n"
	else
		# the input kept for a look (recordings here differ each run)
		_keep=/tmp/pk-report-fail.$$.${_f##*/}
		cp "$_f" "$_keep" 2>/dev/null
		fail "$_n" "differs from perf (input kept in $_keep): $(first_diff "$T/p.out" "$T/k.out")"
	fi
}

# refused NAME FILE [OPTS...]: one line on stderr, exit status not 0
refused() {
	_n=$1; _f=$2; shift 2
	N=$((N + 1))
	t_part $N || return 0
	"$PERFKIT" report --stdio -i "$_f" "$@" >"$T/k.out" 2>"$T/k.err"; rc=$?
	check "$_n" "rc $rc, stderr: $(cat "$T/k.err")" \
		"$rc" -ne 0 -a "$(wc -l <"$T/k.err")" -eq 1 -a ! -s "$T/k.out"
}

rec() { out=$1; shift; perf record -q -o "$T/$out" "$@" >/dev/null 2>&1; }
