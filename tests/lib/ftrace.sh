# Set-up of the live ftrace tests: source after tests/lib/sh.sh with
# T_NAME set. TF (tracefs), GP (the getppid workload), EV (its event),
# until_ COND (waits at most 20 s for a shell condition); skips the test
# (exit 0) without root, a writable tracefs or the workload.
export LSAN_OPTIONS="suppressions=$PWD/tests/live/ftrace-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
TF=/sys/kernel/tracing
GP=$PK_BUILD/workloads/getppid
EV=syscalls:sys_enter_getppid
if [ "$(id -u)" != 0 ] || [ ! -w $TF/instances ]; then
	skip $T_NAME "needs root and a writable tracefs at $TF"; exit 0
fi
[ -x "$GP" ] || { skip $T_NAME "no $GP"; exit 0; }
until_() { _k=0; while ! eval "$1" && [ $_k -lt 400 ]; do sleep 0.05; _k=$((_k+1)); done; }
