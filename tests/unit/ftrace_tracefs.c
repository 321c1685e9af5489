/* SPDX-License-Identifier: MIT */
/*
 * tracefs control layer on this machine: writes, lists, events with
 * filters and triggers, options, instances; everything put back by
 * pk_tracefs_restore(), also from a signal.
 */
/* pk-test: lock=tracefs */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include "test.h"

static char *rd(struct pk_tracefs *t, const char *inst, const char *f)
{
	char *s = NULL;
	if (pk_tracefs_read(t, inst, f, &s) < 0)
		return strdup("<error>");
	return s;
}

static bool same(struct pk_tracefs *t, const char *inst, const char *f,
		 const char *before)
{
	char *now = rd(t, inst, f);
	bool ok = !strcmp(now, before);
	if (!ok)
		printf("# %s: '%s' -> '%s'\n", f, before, now);
	free(now);
	return ok;
}

/* Killed (tests/run.sh's timeout sends SIGTERM): what the test changed is
 * put back, its instances removed, before it dies of the signal. */
static struct pk_tracefs *volatile killed_t;
static char killed_other[128];
static volatile pid_t killed_child;

static void on_kill(int sig)
{
	if (killed_child > 0)   /* it would restore the same things */
		kill(killed_child, SIGKILL);
	/* dying anyway: a file the test was writing would keep its
	 * instance busy (rmdir: EBUSY) */
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	if (killed_other[0])
		rmdir(killed_other);
	pk_tracefs_restore(killed_t);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void clean_on_kill(void)
{
	struct sigaction sa = { .sa_handler = on_kill };

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int main(void)
{
	struct pk_tracefs *t = NULL;
	char inst[64], path[512];
	int r;

	if (geteuid() != 0 || ((t = pk_tracefs_open()) ? 0 : -errno) < 0) {
		t_skip("tracefs", "needs root and tracefs");
		return t_exit();
	}
	killed_t = t;
	clean_on_kill();
	T_CHECK("tracefs_dir", access(pk_tracefs_dir(t), R_OK) == 0);

	/* top level: a plain value and a list file, put back by restore */
	char *bp = rd(t, NULL, "buffer_percent");
	char *th = rd(t, NULL, "tracing_thresh");
	r = pk_tracefs_write(t, NULL, "buffer_percent",
			     atoi(bp) == 37 ? "38" : "37");
	T_CHECK("tracefs_write", r == 0);
	pk_tracefs_write(t, NULL, "tracing_thresh", "12345");

	/* a private instance with everything the recorder uses */
	snprintf(inst, sizeof(inst), "pktest-%d", (int)getpid());
	T_CHECK("tracefs_instance_new", pk_tracefs_instance_new(t, inst) == 0);
	T_CHECK("tracefs_instance_exists",
		!pk_tracefs_path(t, inst, "trace", path, sizeof(path)) &&
		access(path, F_OK) == 0);
	T_CHECK("tracefs_clock", pk_tracefs_write(t, inst, "trace_clock",
						   "mono") == 0);
	char *c = rd(t, inst, "trace_clock");
	T_CHECK("tracefs_clock_set", strstr(c, "[mono]") != NULL);
	free(c);
	T_CHECK("tracefs_buffer_size",
		pk_tracefs_write(t, inst, "buffer_size_kb", "64") == 0);
	T_CHECK("tracefs_option",
		pk_tracefs_option(t, inst, "event-fork", true) == 0);
	r = pk_tracefs_event_enable(t, inst, "syscalls:sys_enter_getpp*", true);
	T_CHECK("tracefs_event_glob", r == 1);
	T_CHECK("tracefs_event_none",
		pk_tracefs_event_enable(t, inst, "nosuch:event", true) ==
		-ENOENT);
	r = pk_tracefs_event_filter(t, inst, "syscalls:sys_enter_getppid",
				    "common_pid == 1");
	c = rd(t, inst, "events/syscalls/sys_enter_getppid/filter");
	T_CHECK("tracefs_filter", r == 1 && strstr(c, "common_pid == 1"));
	free(c);
	r = pk_tracefs_event_trigger(t, inst, "syscalls:sys_enter_getppid",
				     "stacktrace:3");
	c = rd(t, inst, "events/syscalls/sys_enter_getppid/trigger");
	T_CHECK("tracefs_trigger", r == 1 && strstr(c, "stacktrace:count=3"));
	free(c);
	T_CHECK("tracefs_pid", pk_tracefs_append(t, inst, "set_event_pid",
						  "1") == 0);
	/* other processes may call getppid meanwhile: quiet the buffer */
	pk_tracefs_event_enable(t, inst, "syscalls:sys_enter_getppid", false);
	pk_tracefs_write(t, inst, "trace", "");
	T_CHECK("tracefs_marker", pk_tracefs_write(t, inst, "trace_marker",
						    "hello from perfkit") == 0);
	struct pk_tracefs_stats st;
	uint64_t entries = 0;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	for (int cpu = 0; cpu < ncpu; cpu++)
		if (pk_tracefs_cpu_stats(t, inst, cpu, &st) == 0)
			entries += st.entries;
	T_CHECK("tracefs_stats_marker", entries == 1);

	/* restore from a child killed by SIGTERM */
	pid_t pid = fork();
	if (pid == 0) {
		pk_tracefs_restore_on_signals(t);
		pause();
		_exit(0);
	}
	killed_child = pid;
	usleep(100000);
	kill(pid, SIGTERM);
	int status;
	waitpid(pid, &status, 0);
	killed_child = 0;
	T_CHECK("tracefs_signal_restore", WIFSIGNALED(status) &&
		WTERMSIG(status) == SIGTERM && access(path, F_OK) != 0 &&
		same(t, NULL, "buffer_percent", bp) &&
		same(t, NULL, "tracing_thresh", th));

	/* and the normal way (the instance is already gone: no error) */
	pk_tracefs_write(t, NULL, "tracing_thresh", "777");
	killed_t = NULL;
	pk_tracefs_free(t);
	((t = pk_tracefs_open()) ? 0 : -errno);
	killed_t = t;
	T_CHECK("tracefs_close_restores", same(t, NULL, "tracing_thresh", th) &&
		same(t, NULL, "buffer_percent", bp));
	T_CHECK("tracefs_reset_stale", pk_tracefs_reset_stale(t) >= 0);

	/* a list file of someone else's instance, emptied and put back: the
	 * kernel takes one word per write(2), all of them must come back */
	char other[128], sev[600];
	snprintf(other, sizeof(other), "%s/instances/pkother-%d",
		 pk_tracefs_dir(t), (int)getpid());
	snprintf(killed_other, sizeof(killed_other), "%s", other);
	if (mkdir(other, 0755) == 0) {
		snprintf(sev, sizeof(sev), "%s/set_event", other);
		FILE *f = fopen(sev, "w");
		if (f) {
			fputs("sched:sched_switch sched:sched_wakeup "
			      "syscalls:sys_enter_getppid\n", f);
			fclose(f);
		}
		char *o = rd(t, other + strlen(pk_tracefs_dir(t)) + 11,
			     "set_event");
		struct pk_tracefs *t2 = NULL;
		((t2 = pk_tracefs_open()) ? 0 : -errno);
		const char *in = other + strlen(pk_tracefs_dir(t)) + 11;
		r = pk_tracefs_write(t2, in, "set_event", "");
		char *mid = rd(t2, in, "set_event");
		pk_tracefs_free(t2);
		T_CHECK("tracefs_list_restore_words",
			r == 0 && !*mid && strstr(o, "sched_wakeup") &&
			same(t, in, "set_event", o));
		free(o);
		free(mid);
		rmdir(other);
		killed_other[0] = 0;
	} else {
		t_skip("tracefs_list_restore_words", "mkdir %s: %s", other,
		       strerror(errno));
	}
	killed_t = NULL;
	pk_tracefs_free(t);
	free(bp);
	free(th);
	return t_exit();
}
