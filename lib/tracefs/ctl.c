/* SPDX-License-Identifier: MIT */
/*
 * tracefs control, the thin layer over the kernel's files: tracers and
 * their options, function lists with filter commands, pid lists, buffer
 * sizes, the CPU mask, snapshot, stack tracer, function profiler, markers.
 * Every change goes through the undo log of tracefs.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/tracefs.h>
#include "base/base.h"
#include "tracefs/tracefs.h"

bool pk_tracefs_has(const struct pk_tracefs *t, const char *instance,
		    const char *file)
{
	char p[PATH_MAX];

	return !pk_tracefs_path(t, instance, file, p, sizeof(p)) &&
	       access(p, F_OK) == 0;
}

bool pk_tracer_is_function(const char *name)
{
	return !strcmp(name, "function") || !strcmp(name, "function_graph");
}

/* ftrace_enabled is written only when it is 0 and functions are traced. */
static int need_ftrace_enabled(struct pk_tracefs *t)
{
	if (pk__tfs_sysctl_get(t, "ftrace_enabled") != 0)
		return 0;
	pk_info("tracefs: kernel.ftrace_enabled is 0: setting it to 1 for "
		"this run");
	return pk__tfs_sysctl_set(t, "ftrace_enabled", "1");
}

int pk_tracefs_tracer_available(const struct pk_tracefs *t, const char *inst,
				const char *name)
{
	char *s;
	long n = pk_tracefs_read(t, inst, "available_tracers", &s);
	bool found = false;

	if (n < 0)
		return (int)n;
	for (char *w = strtok(s, " \t\n"); w; w = strtok(NULL, " \t\n"))
		if (!strcmp(w, name))
			found = true;
	free(s);
	return found;
}

int pk_tracefs_tracer(struct pk_tracefs *t, const char *instance,
		      const char *name)
{
	int r;

	if (!pk_tracefs_has(t, instance, "current_tracer"))
		return -EOPNOTSUPP;
	r = pk_tracefs_tracer_available(t, instance, name);
	if (r == 0 && !pk_tracefs_has(t, instance, "available_tracers"))
		r = 1;
	if (r == 0)
		return -ENOENT;
	if (pk_tracer_is_function(name) && (r = need_ftrace_enabled(t)) < 0)
		return r;
	return pk_tracefs_write(t, instance, "current_tracer", name);
}

int pk_tracefs_write_u64(struct pk_tracefs *t, const char *instance,
			 const char *file, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return pk_tracefs_write(t, instance, file, buf);
}

int pk_tracefs_read_u64(const struct pk_tracefs *t, const char *instance,
			const char *file, uint64_t *v)
{
	char *s, *e;
	long n = pk_tracefs_read(t, instance, file, &s);

	if (n < 0)
		return (int)n;
	char *p = s;
	while (isspace((unsigned char)*p))
		p++;
	*v = strtoull(p, &e, 10);
	n = e == p ? PK_ERR_FORMAT : 0;
	free(s);
	return (int)n;
}

int pk_tracefs_option_spec(struct pk_tracefs *t, const char *instance,
			   const char *spec)
{
	char f[300];

	if (!*spec || strchr(spec, '/') || strlen(spec) > 250)
		return -EINVAL;
	snprintf(f, sizeof(f), "options/%s", spec);
	if (pk_tracefs_has(t, instance, f))
		return pk_tracefs_option(t, instance, spec, true);
	if (!strncmp(spec, "no", 2) && spec[2]) {
		snprintf(f, sizeof(f), "options/%s", spec + 2);
		if (pk_tracefs_has(t, instance, f))
			return pk_tracefs_option(t, instance, spec + 2, false);
	}
	return -ENOENT;
}

const char *pk_ftrace_list_file(enum pk_ftrace_list l)
{
	switch (l) {
	case PK_FT_FILTER: return "set_ftrace_filter";
	case PK_FT_NOTRACE: return "set_ftrace_notrace";
	case PK_FT_GRAPH: return "set_graph_function";
	case PK_FT_GRAPH_NOTRACE: return "set_graph_notrace";
	case PK_FT_STACK_FILTER: return "stack_trace_filter";
	}
	return NULL;
}

/* Commands and how many ':' fields their argument has before a count. */
static const struct { const char *name; int fixed; bool count; } cmds[] = {
	{ "traceon", 0, true }, { "traceoff", 0, true },
	{ "snapshot", 0, true }, { "stacktrace", 0, true },
	{ "enable_event", 2, true }, { "disable_event", 2, true },
	{ "dump", 0, false }, { "cpudump", 0, false },
};

int pk_ftrace_command_undo(const char *cmd, char *buf, size_t len)
{
	char tmp[512], *f[8];
	int nf = 0, k;

	if (*cmd == '!' || strlen(cmd) >= sizeof(tmp))
		return -EINVAL;
	snprintf(tmp, sizeof(tmp), "%s", cmd);
	for (char *s = tmp, *c; nf < 8; s = c + 1) {
		f[nf++] = s;
		if (!(c = strchr(s, ':')))
			break;
		*c = 0;
	}
	if (nf < 2 || !*f[0])
		return -EINVAL;
	for (k = 0; k < (int)PK_ARRAY_SIZE(cmds); k++)
		if (!strcmp(f[1], cmds[k].name))
			break;
	if (k == (int)PK_ARRAY_SIZE(cmds))
		return -EINVAL;
	int args = nf - 2;
	if (args < cmds[k].fixed || args > cmds[k].fixed + (cmds[k].count ? 1 : 0))
		return -EINVAL;
	for (int i = 2; i < 2 + cmds[k].fixed; i++)
		if (!*f[i])
			return -EINVAL;
	struct pk_buf b = { 0 };
	pk__buf_printf(&b, "!%s:%s", f[0], f[1]);
	for (int i = 2; i < 2 + cmds[k].fixed; i++)
		pk__buf_printf(&b, ":%s", f[i]);
	if (args > cmds[k].fixed)
		pk__buf_printf(&b, ":0");
	int r = !b.data ? -ENOMEM : b.len >= len ? -ENAMETOOLONG : 0;
	if (!r)
		memcpy(buf, b.data, b.len + 1);
	pk__buf_fini(&b);
	return r;
}

/* An entry with a command: "func:cmd..." where cmd is not "mod". */
static bool has_command(const char *e)
{
	const char *c = strchr(e, ':');
	return *e != '!' && c && strncmp(c + 1, "mod:", 4) != 0 &&
	       strcmp(c + 1, "mod") != 0;
}

int pk_tracefs_func_add(struct pk_tracefs *t, const char *instance,
			enum pk_ftrace_list l, const char *entry)
{
	const char *file = pk_ftrace_list_file(l);
	char undo[600], p[PATH_MAX];
	int r;

	if (!file || !entry)
		return -EINVAL;
	if (has_command(entry)) {
		if (l != PK_FT_FILTER)
			return -EINVAL;
		if ((r = pk_ftrace_command_undo(entry, undo, sizeof(undo))))
			return r;
	}
	if ((r = pk_tracefs_append(t, instance, file, entry)))
		return r;
	if (!has_command(entry))
		return 0;
	if (pk_tracefs_path(t, instance, file, p, sizeof(p)))
		return -ENAMETOOLONG;
	return pk__tfs_push_undo(t, U_APPEND, p, undo);
}

int pk_tracefs_func_clear(struct pk_tracefs *t, const char *instance,
			  enum pk_ftrace_list l)
{
	const char *file = pk_ftrace_list_file(l);
	return file ? pk_tracefs_write(t, instance, file, "") : -EINVAL;
}

int pk_tracefs_pid_add(struct pk_tracefs *t, const char *instance, int pid,
		       unsigned flags)
{
	bool nt = flags & PK_PID_NOTRACE;
	char buf[32];
	int r = 0;

	if (pid < 0 || !(flags & (PK_PID_FUNCTIONS | PK_PID_EVENTS)))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%d", pid);
	if (flags & PK_PID_FUNCTIONS) {
		if ((flags & PK_PID_FORK) &&
		    (r = pk_tracefs_option(t, instance, "function-fork", true)))
			return r;
		r = pk_tracefs_append(t, instance, nt ? "set_ftrace_notrace_pid"
						      : "set_ftrace_pid", buf);
		if (r)
			return r;
	}
	if (flags & PK_PID_EVENTS) {
		if ((flags & PK_PID_FORK) &&
		    (r = pk_tracefs_option(t, instance, "event-fork", true)))
			return r;
		r = pk_tracefs_append(t, instance, nt ? "set_event_notrace_pid"
						      : "set_event_pid", buf);
	}
	return r;
}

int pk_tracefs_buffer_kb(struct pk_tracefs *t, const char *instance, int cpu,
			 unsigned long kb)
{
	char f[64], v[32];

	if (cpu < -1)
		return -EINVAL;
	if (cpu >= 0)
		snprintf(f, sizeof(f), "per_cpu/cpu%d/buffer_size_kb", cpu);
	else
		snprintf(f, sizeof(f), "buffer_size_kb");
	snprintf(v, sizeof(v), "%lu", kb);
	return pk_tracefs_write(t, instance, f, v);
}

int pk_tracefs_cpumask(struct pk_tracefs *t, const char *instance,
		       const int *cpus, int nr)
{
	char mask[1100];
	int max = 0, pos = 0;

	if (nr < 1)
		return -EINVAL;
	for (int i = 0; i < nr; i++) {
		if (cpus[i] < 0 || cpus[i] > 4095)
			return -EINVAL;
		max = PK_MAX(max, cpus[i]);
	}
	/* hex digits, most significant first, a comma every 32 CPUs */
	for (int d = max / 4; d >= 0; d--) {
		int v = 0;
		for (int i = 0; i < nr; i++)
			if (cpus[i] / 4 == d)
				v |= 1 << (cpus[i] % 4);
		mask[pos++] = "0123456789abcdef"[v];
		if (d && d % 8 == 0)
			mask[pos++] = ',';
	}
	mask[pos] = 0;
	return pk_tracefs_write(t, instance, "tracing_cpumask", mask);
}

int pk_tracefs_snapshot(struct pk_tracefs *t, const char *instance,
			enum pk_snapshot_op op)
{
	static const char *const val[] = { "1", "2", "0" };

	if ((unsigned)op > PK_SNAPSHOT_FREE)
		return -EINVAL;
	if (!pk_tracefs_has(t, instance, "snapshot"))
		return -EOPNOTSUPP;
	return pk_tracefs_write(t, instance, "snapshot", val[op]);
}

int pk_tracefs_stack_tracer(struct pk_tracefs *t, bool on)
{
	int cur, r;

	if (!pk_tracefs_has(t, NULL, "stack_trace"))
		return -EOPNOTSUPP;
	cur = pk__tfs_sysctl_get(t, "stack_tracer_enabled");
	if (cur < 0)
		return cur;
	if ((cur != 0) == on)
		return 0;
	if (on && (r = need_ftrace_enabled(t)) < 0)
		return r;
	return pk__tfs_sysctl_set(t, "stack_tracer_enabled", on ? "1" : "0");
}

int pk_tracefs_ftrace_enabled(struct pk_tracefs *t, bool on)
{
	int cur = pk__tfs_sysctl_get(t, "ftrace_enabled");

	if (cur < 0)
		return cur;
	if ((cur != 0) == on)
		return 0;
	return pk__tfs_sysctl_set(t, "ftrace_enabled", on ? "1" : "0");
}

int pk_tracefs_profiler(struct pk_tracefs *t, bool on)
{
	int r;

	if (!pk_tracefs_has(t, NULL, "function_profile_enabled"))
		return -EOPNOTSUPP;
	if (on && (r = need_ftrace_enabled(t)) < 0)
		return r;
	return pk_tracefs_write(t, NULL, "function_profile_enabled",
				on ? "1" : "0");
}

int pk_tracefs_marker(struct pk_tracefs *t, const char *instance,
		      const char *text)
{
	char p[PATH_MAX];

	if (pk_tracefs_path(t, instance, "trace_marker", p, sizeof(p)))
		return -ENAMETOOLONG;
	return pk__tfs_write_raw(t, p, text, strlen(text));
}

int pk_tracefs_marker_raw(struct pk_tracefs *t, const char *instance,
			  uint32_t id, const void *data, size_t len)
{
	char p[PATH_MAX];
	uint8_t *buf;
	int r;

	if (len > 65536)
		return -EINVAL;
	if (pk_tracefs_path(t, instance, "trace_marker_raw", p, sizeof(p)))
		return -ENAMETOOLONG;
	if (!(buf = pk__malloc(len + 4)))
		return -ENOMEM;
	memcpy(buf, &id, 4);
	if (len)
		memcpy(buf + 4, data, len);
	r = pk__tfs_write_raw(t, p, buf, len + 4);
	pk__free(buf);
	return r;
}
