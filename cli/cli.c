/* SPDX-License-Identifier: MIT */
/*
 * The helpers every perfkit command shares: error lines, the -v level,
 * CPU lists, perf's perf.data checks, and the stop signals (SIGINT,
 * SIGTERM, SIGHUP) with the wait for a command or a set of processes.
 * Uses nothing from the other cli/ files.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/itrace.h>
#include <perfkit/map.h>
#include <perfkit/perfdata.h>
#include "cli.h"

int cli_verbose;

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "perfkit %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_parse_cpus(const char *s, int *cpus, int max, int n)
{
	struct pk_cpu_map *m = *s ? pk_cpu_map_new(s) : NULL;

	if (!m)
		return -1;
	for (int i = 0; i < pk_cpu_map_nr(m) && n >= 0; i++)
		n = n < max ? (cpus[n] = pk_cpu_map_cpu(m, i), n + 1) : -1;
	pk_cpu_map_put(m);
	return n;
}

bool cli_basic_sort_keys(const char *keys)
{
	static const char *const ok[] = { "comm", "pid", "dso", "sym",
					   "symbol" };

	while (*keys) {
		size_t len = strcspn(keys, ","), i;

		for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			if (strlen(ok[i]) == len && !strncmp(keys, ok[i], len))
				break;
		if (i == sizeof(ok) / sizeof(ok[0]))
			return false;
		keys += len + (keys[len] == ',');
	}
	return true;
}

int cli_perfdata_check(const char *file, bool force)
{
	struct stat st;

	if (!strcmp(file, "-"))
		return 0;
	if (!stat(file, &st) && S_ISDIR(st.st_mode)) {
		/* a directory (perf record --kcore's): perf reads DIR/data */
		char data[4096];

		snprintf(data, sizeof(data), "%s/data", file);
		return cli_perfdata_check(data, force);
	}
	if (stat(file, &st) < 0) {
		fprintf(stderr, "failed to open %s: %s\n", file, strerror(errno));
		return 255;
	}
	if (!force && st.st_uid && st.st_uid != geteuid()) {
		fprintf(stderr, "File %s not owned by current user or root "
			"(use -f to override)\n", file);
		return 255;
	}
	if (S_ISREG(st.st_mode) && !st.st_size) {
		fprintf(stderr, "zero-sized data (%s), nothing to do!\n", file);
		return 255;
	}
	return 0;
}

volatile sig_atomic_t cli_stop_sig;
static volatile sig_atomic_t last_sig, nr_sigs;
static sig_atomic_t nr_passed;
static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_STOP_SIGS (int)(sizeof(stop_sigs) / sizeof(stop_sigs[0]))

static void stop_set(sigset_t *s)
{
	sigemptyset(s);
	for (int i = 0; i < NR_STOP_SIGS; i++)
		sigaddset(s, stop_sigs[i]);
}

void cli_catch_stop(void (*fn)(int), int sa_flags)
{
	struct sigaction sa = { .sa_handler = fn, .sa_flags = sa_flags };

	stop_set(&sa.sa_mask);
	for (int i = 0; i < NR_STOP_SIGS; i++)
		sigaction(stop_sigs[i], &sa, NULL);
}

/* Every stop signal only asks for the same orderly end: the first one is
 * kept (the exit status), each one is counted (passed on to a command). */
static void on_stop(int sig)
{
	if (!cli_stop_sig)
		cli_stop_sig = sig;
	last_sig = sig;
	nr_sigs++;
}

void cli_catch_stop_orderly(void)
{
	/* SA_RESTART: a signal never cuts a write to stdout or the file */
	cli_catch_stop(on_stop, SA_RESTART);
}

/* The stop signals not yet passed on go to PID (the newest one). */
static void pass_signals(pid_t pid)
{
	if (pid > 0 && nr_passed != nr_sigs) {
		nr_passed = nr_sigs;
		kill(pid, last_sig);
	}
}

/* A pollfd on PID's pidfd (fd -1: the process is gone, -2: no pidfd). */
static struct pollfd pidfd(int pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0)
		fd = errno == ESRCH ? -1 : -2;
	return (struct pollfd){ .fd = fd, .events = POLLIN };
}

/* True when CHILD ended (reaped into *STATUS) or cannot be waited for. */
static bool child_ended(pid_t child, int *status)
{
	pid_t w = waitpid(child, status, WNOHANG);

	return w == child || (w < 0 && errno != EINTR);
}

/* Marks the processes that ended (-1); true when none is left. */
static bool pids_gone(struct pollfd *fds, int n)
{
	bool all = true;

	for (int i = 0; i < n; i++) {
		if (fds[i].fd >= 0 && fds[i].revents) {
			close(fds[i].fd);
			fds[i].fd = -1;
		}
		all = all && fds[i].fd == -1;
	}
	return all;
}

int cli_stop_exit(int rc)
{
	return cli_stop_sig == SIGTERM || cli_stop_sig == SIGHUP
	       ? 128 + cli_stop_sig : rc;
}

/* The loop of cli_wait_stop over the N pollfds FDS (the command's, or
 * the processes'). */
static int wait_loop(pid_t child, struct pollfd *fds, int n,
		     const sigset_t *old)
{
	struct timespec tick = { 0, 100000000 };
	int status = 0;

	for (;;) {
		pass_signals(child);
		if (child > 0 ? child_ended(child, &status)
			      : cli_stop_sig || (n && pids_gone(fds, n)))
			break;
		/* a command without a pidfd is looked at every 100 ms */
		ppoll(fds, (nfds_t)n, child > 0 && fds[0].fd < 0 ? &tick : NULL,
		      old);
	}
	return status;
}

int cli_wait_stop(pid_t *child, const struct pk_thread_map *pids)
{
	int n = *child > 0 ? 1 : pids ? pk_thread_map_nr(pids) : 0, status;
	struct pollfd one, *fds = n > 1 ? calloc((size_t)n, sizeof(*fds)) : &one;
	sigset_t stop, old;

	if (!fds)       /* no memory for the pidfds: the signal only */
		n = 0, fds = &one;
	/* the stop signals get in only inside ppoll: none is missed */
	stop_set(&stop);
	sigprocmask(SIG_BLOCK, &stop, &old);
	for (int i = 0; i < n; i++)
		fds[i] = pidfd(*child > 0 ? *child : pk_thread_map_tid(pids, i));
	status = wait_loop(*child, fds, n, &old);
	if (*child > 0)
		*child = 0;
	for (int i = 0; i < n; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	if (fds != &one)
		free(fds);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}

bool cli_any_sample_type(struct pk_perfdata *pd, uint64_t bits)
{
	for (unsigned a = 0; a < pk_perfdata_nr_attrs(pd); a++)
		if (pk_perfdata_attr(pd, a)->sample_type & bits)
			return true;
	return false;
}

int cli_cpu_mask(const char *cmd, const char *list, const char *input,
		 struct pk_perfdata *pd, uint64_t mask[1024 / 64])
{
	uint64_t ncpu = 0;
	int cpus[1024], n;

	if (!cli_any_sample_type(pd, PERF_SAMPLE_CPU)) {
		cli_error(cmd, "%s: --cpu: the file has no CPU in its samples",
			  input);
		return -EINVAL;
	}
	pk_perfdata_feat_u64(pd, PK_HEADER_NRCPUS, 1, &ncpu);
	n = cli_parse_cpus(list, cpus, 1024, 0);
	if (n <= 0) {
		cli_error(cmd, "--cpu %s: not a CPU list", list);
		return -EINVAL;
	}
	memset(mask, 0, 1024 / 8);
	for (int i = 0; i < n; i++) {
		if ((uint64_t)cpus[i] >= ncpu) {
			cli_error(cmd, "--cpu %s: CPU %d is not in the recording (%u CPUs)",
				  list, cpus[i], (unsigned)ncpu);
			return -EINVAL;
		}
		mask[cpus[i] / 64] |= 1ull << (cpus[i] % 64);
	}
	return 0;
}

char *cli_json_quoted(const char *s, size_t n)
{
	char *q = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&q, &len);

	if (!f)
		return NULL;
	if (pk_json_str(f, s, n) | fclose(f)) {
		free(q);
		return NULL;
	}
	return q;
}

int cli_itrace_opts(const char *cmd, const char *arg, struct pk_itrace_opts *o)
{
	size_t pos = 0;

	/* options given again add to the letters (perf's parser never
	 * clears them) */
	if (o->sz != sizeof(*o)) {
		memset(o, 0, sizeof(*o));
		o->sz = sizeof(*o);
	}
	if (pk_itrace_parse(o, arg, &pos)) {
		cli_error(cmd, "bad --itrace option '%s' at '%s'", arg,
			  arg + pos);
		return -EINVAL;
	}
	/* perf's decoder debug log: not written, said once */
	if (o->log)
		cli_error(cmd, "--itrace=%s: d: perfkit writes no intel_pt.log "
			  "(pt dump and pt decode show packets and the flow)",
			  arg);
	/* perf 6.1 has no y (cycles) letter: its parser refuses the whole
	 * string with this line (then its usage) and exits 129 */
	if (o->cycles) {
		fprintf(stderr, "Bad Instruction Tracing options '%s'\n", arg);
		exit(129);
	}
	return 0;
}

void cli_itrace_unsynthesized(const char *cmd, const char *input,
			      const struct pk_itrace *it)
{
	unsigned u = it ? pk_itrace_unsynthesized(it) : 0;

	if (!u)
		return;
	cli_error(cmd, "%s: the trace has%s%s%s that perf makes samples of "
		  "and perfkit does not synthesize yet", input,
		  u & PK_ITRACE_UNSYNTH_PTWRITE ? " PTWRITE (w)" : "",
		  u & PK_ITRACE_UNSYNTH_POWER ? " power events (p)" : "",
		  u & PK_ITRACE_UNSYNTH_EVENTS ? " event trace (I)" : "");
}

void cli_kernel_unresolved(struct pk_session *s)
{
	char hex[2 * PK_BUILD_ID_MAX + 1];

	if (pk_session_kernel_unresolved(s, hex, sizeof(hex)))
		fprintf(stderr, "No kallsyms or vmlinux with build-id %s was "
			"found\n", hex);
}
