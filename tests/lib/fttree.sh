# Fixture tracefs trees for the tests that hold perfkit against trace-cmd
# (ftrace_state.sh, ftrace_extract.sh, ftrace_restore.sh): a tree of
# regular files, perfkit on it through PERFKIT_TRACEFS, trace-cmd on a
# copy bound over /sys/kernel/tracing in a private mount namespace, each
# under strace with its writes turned into "W|A path value" lines
# (tests/data/ftstate/strace_writes.awk). Source after tests/lib/sh.sh.
TF=/sys/kernel/tracing
FT_AWK=$PWD/tests/data/ftstate/strace_writes.awk
FT_STRACE="strace -f -qq -e trace=openat,write,close,mkdir,rmdir -s 400"

# ft_p TREE FILE TEXT: FILE (its directories made) holds TEXT (printf %b)
ft_p() { _d=$1/$2; _d=${_d%/*}; [ -d "$_d" ] || mkdir -p "$_d"; printf '%b' "$3" > "$1/$2"; }

# ft_buffer TREE PREFIX "PERCPU FILES" FILE:VALUE...: one buffer's files
# under TREE/PREFIX, each VALUE with a newline; per CPU 0 and 1 a
# buffer_size_kb of 1410 and the PERCPU files, empty
ft_buffer() {
	_t=$1 _pre=$2 _pc=$3; shift 3
	for _f in "$@"; do ft_p $_t "$_pre${_f%%:*}" "${_f#*:}\n"; done
	for _c in 0 1; do
		ft_p $_t "${_pre}per_cpu/cpu$_c/buffer_size_kb" '1410\n'
		for _f in $_pc; do ft_p $_t "${_pre}per_cpu/cpu$_c/$_f" ''; done
	done
}

# ft_root TREE: an empty tree and its sysctl directory (ftrace_enabled 1)
ft_root() { rm -rf $1 $1.sys; mkdir -p $1/instances $1.sys; echo 1 > $1.sys/ftrace_enabled; }

# ft_formats TREE EVENT...: the kernel's header_page/header_event, the
# ftrace function format and each sched EVENT's format (enable 1, filter
# none), as this kernel has them
ft_formats() {
	_t=$1; shift
	mkdir -p $_t/events/ftrace/function
	cp $TF/events/header_page $TF/events/header_event $_t/events/
	cp $TF/events/ftrace/function/format $_t/events/ftrace/function/
	for _e in "$@"; do
		mkdir -p $_t/events/sched/$_e; cp $TF/events/sched/$_e/format $_t/events/sched/$_e/
		ft_p $_t events/sched/$_e/enable '1\n'; ft_p $_t events/sched/$_e/filter 'none\n'
	done
}

# ft_tc TREE OUT ARGS...: trace-cmd ARGS on TREE (bound over $TF, and
# TREE.sys/ftrace_enabled over /proc/sys/kernel/ftrace_enabled, and
# TREE.sys/kptr_restrict where the tree has one: trace-cmd writes it
# around reading kallsyms) under strace; its output in OUT.out, its
# writes in OUT.w. trace-cmd's status.
ft_tc() {
	_t=$1 _o=$2; shift 2
	unshare -m sh -c "mount --bind $_t $TF || exit 99
		mount --bind $_t.sys/ftrace_enabled /proc/sys/kernel/ftrace_enabled || exit 98
		[ ! -e $_t.sys/kptr_restrict ] ||
			mount --bind $_t.sys/kptr_restrict /proc/sys/kernel/kptr_restrict || exit 97
		exec $FT_STRACE -o $_o.strace trace-cmd \"\$@\"" tc "$@" > $_o.out 2>&1
	_rc=$?
	awk -v ROOT=$TF -f $FT_AWK $_o.strace > $_o.w
	return $_rc
}

# ft_pk TREE OUT ARGS...: perfkit ftrace ARGS on TREE under strace, as
# ft_tc. perfkit's status. (ASan builds: LeakSanitizer stops the world
# with ptrace, which a traced process cannot take: no leak check here.)
ft_pk() {
	_t=$1 _o=$2; shift 2
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	PERFKIT_TRACEFS=$_t PERFKIT_SYSCTL=$_t.sys $FT_STRACE -o $_o.strace \
		"$PERFKIT" ftrace "$@" > $_o.out 2>&1
	_rc=$?
	awk -v ROOT=$_t -f $FT_AWK $_o.strace > $_o.w
	return $_rc
}

# ft_pages OUT PAGES: PAGES pages per CPU (0 and 1) of sched_switch and
# sched_wakeup events a private instance of this kernel recorded for a
# moment, into OUT0 and OUT1 (dd of trace_pipe_raw); 1 when none came or
# no instance could be made
ft_pages() {
	_i=pkx-pages-$$
	t_atexit "rmdir $TF/instances/$_i 2>/dev/null"
	mkdir $TF/instances/$_i || return 1
	echo 1 > $TF/instances/$_i/events/sched/sched_switch/enable
	echo 1 > $TF/instances/$_i/events/sched/sched_wakeup/enable
	_k=0; while [ $_k -lt 20 ]; do sleep 0.01; _k=$((_k+1)); done
	echo 0 > $TF/instances/$_i/tracing_on
	for _c in 0 1; do
		dd if=$TF/instances/$_i/per_cpu/cpu$_c/trace_pipe_raw of=$1$_c bs=4096 count=$2 \
			iflag=nonblock 2> /dev/null
	done
	rmdir $TF/instances/$_i
	[ -s ${1}0 ] || [ -s ${1}1 ]
}

# ft_need_pages NAME PAGES: the set-up of the tests that compare files
# with trace-cmd's: skips NAME (and exits) without root, trace-cmd,
# strace, unshare, this kernel's sched and ftrace formats, or when no
# pages came; else PAGES pages per CPU in $T_TMP/raw0 and raw1 (ft_pages)
ft_need_pages() {
	if [ "$(id -u)" != 0 ] || ! command -v trace-cmd > /dev/null || ! command -v strace > /dev/null ||
	   ! command -v unshare > /dev/null || [ ! -r $TF/events/header_page ] ||
	   [ ! -d $TF/events/sched/sched_switch ] || [ ! -r $TF/events/ftrace/function/format ] ||
	   [ ! -e /proc/sys/kernel/ftrace_enabled ] || [ ! -e /proc/sys/kernel/kptr_restrict ]; then
		skip $1 "needs root, trace-cmd, strace, unshare and $TF with sched events"
		t_exit; exit
	fi
	if ! ft_pages $T_TMP/raw $2; then
		skip $1 "no sched events recorded (or no instance)"; t_exit; exit
	fi
}
