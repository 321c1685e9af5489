/* SPDX-License-Identifier: MIT */
/*
 * Which name a task shows in ftrace report, against trace-cmd report 3.1
 * on a file built here. libtraceevent keeps the saved cmdlines and the
 * names its sched plugins register while printing in a list until the
 * first lookup of a pid other than 0; that list becomes a sorted array
 * (duplicates kept) searched with bsearch, and later names of a pid that
 * has one are refused. So a file whose first printed record is an idle
 * CPU's switch to a task that later exec'd shows the task under its old
 * name, and a pid added later can move which duplicate is found. The
 * file: cmdlines "100 sh", "200 bash", "50 init"; CPU 0's records:
 *   pid 0    switch swapper/0:0 -> perfkit:100 (registered before init)
 *   pid 100  switch sh:100 -> swapper/0:0      (first lookup)
 *   pid 0    wakeup kworker:200                (200 has a name: refused)
 *   pid 200  switch bash:200 -> newproc:300    (300 added to the array)
 *   pid 300  switch newproc:300 -> swapper/0:0
 *   pid 100  switch sh:100 -> swapper/0:0      (found again, n is 6 now)
 * Each option set is compared with trace-cmd where it is installed; the
 * names are checked without it (as trace-cmd 3.1 prints them here).
 */
/* pk-test: check */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include "base/base.h"
#include "tracedat/rbpage.h"
#include "test.h"
#include "ftfmt.h"

#define PS 4096

T_LSAN_LIBTRACEEVENT

static const char hdr_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static void put_sw(struct pk_rb_enc *e, uint64_t ts, int pid, const char *pc,
		   int pp, long st, const char *nc, int np)
{
	struct sw r = { .type = 372, .pid = pid, .prev_pid = pp,
			.prev_prio = 120, .prev_state = st, .next_pid = np,
			.next_prio = 120 };

	strncpy(r.prev_comm, pc, sizeof(r.prev_comm) - 1);
	strncpy(r.next_comm, nc, sizeof(r.next_comm) - 1);
	pk__rb_enc_event(e, ts, &r, sizeof(r), false);
}

static int make_cpu(void)
{
	char path[] = "/tmp/pkcomms.XXXXXX";
	int fd = mkstemp(path);
	static uint8_t page[PS];
	struct pk_rb_layout l;
	struct pk_rb_enc e;
	struct wk w = { .type = 316, .pid = 0, .comm = "kworker", .wpid = 200,
			.prio = 120 };
	uint64_t t = 1000000000ull;

	if (fd < 0)
		return -1;
	unlink(path);
	pk__rb_layout_default(&l, 8, false);
	pk__rb_enc_init(&e, page, PS, &l, t);
	put_sw(&e, t + 1000, 0, "swapper/0", 0, 0, "perfkit", 100);
	put_sw(&e, t + 2000, 100, "sh", 100, 1, "swapper/0", 0);
	pk__rb_enc_event(&e, t + 3000, &w, sizeof(w), false);
	put_sw(&e, t + 4000, 200, "bash", 200, 0, "newproc", 300);
	put_sw(&e, t + 5000, 300, "newproc", 300, 1, "swapper/0", 0);
	put_sw(&e, t + 6000, 100, "sh", 100, 1, "swapper/0", 0);
	pk__rb_enc_finish(&e, 0);
	if (write(fd, page, PS) != PS) {
		close(fd);
		return -1;
	}
	return fd;
}

static int write_file(const char *path)
{
	static const char cmdlines[] = "100 sh\n200 bash\n50 init\n";
	PK_OPTS(pk_tdwriter_opts, o, .page_size = PS, .long_size = 8);
	struct pk_tdwriter *w = pk_tdwriter_open(path, &o);
	int ids[1] = { 0 }, fds[1] = { make_cpu() }, r;

	if (!w || fds[0] < 0) {
		if (w)
			pk_tdwriter_free(w);
		return -1;
	}
	pk_tdwriter_set_item(w, PK_TD_HEADER_PAGE, hdr_page, strlen(hdr_page));
	pk_tdwriter_set_item(w, PK_TD_HEADER_EVENT, "x", 1);
	pk_tdwriter_set_item(w, PK_TD_CMDLINES, cmdlines, strlen(cmdlines));
	pk_tdwriter_set_item(w, PK_TD_TRACE_CLOCK, "[local] global\n", 15);
	pk_tdwriter_add_format(w, "sched", fmt_switch, strlen(fmt_switch));
	pk_tdwriter_add_format(w, "sched", fmt_wakeup, strlen(fmt_wakeup));
	pk_tdwriter_add_buffer(w, "", "local", 1, ids, fds);
	r = pk_tdwriter_close(w);
	close(fds[0]);
	return r;
}

/* The task column ("%16s-%-5d") of each record line of OUT, joined by
 * blanks, into DST. */
static void tasks(const char *out, char *dst, size_t n)
{
	size_t k = 0;

	dst[0] = '\0';
	for (const char *l = strchr(out, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
		const char *s = l + 1, *b = strchr(s, '[');
		while (*s == ' ')
			s++;
		if (!b || b < s)
			continue;
		while (b > s && b[-1] == ' ')
			b--;
		k += (size_t)snprintf(dst + k, n > k ? n - k : 0, "%s%.*s",
				      k ? " " : "", (int)(b - s), s);
	}
}

struct setcase {
	const char *name, *tc_args, *want;
	struct pk_report_filter f[2];
	int nf;
	unsigned flags;
};

int main(void)
{
	char path[] = "/tmp/pkcomms-XXXXXX.dat";
	int fd = mkstemps(path, 4);
	/* the task columns trace-cmd 3.1 prints for this file */
	static const struct setcase cases[] = {
		{ "all", "", "<idle>-0 perfkit-100 <idle>-0 bash-200 "
		  "newproc-300 sh-100", { { 0 } }, 0, 0 },
		{ "F_switch", "-F sched_switch", "<idle>-0 perfkit-100 "
		  "bash-200 newproc-300 sh-100",
		  { { "sched_switch", false } }, 1, 0 },
		/* the filter's COMM: the same table (r1 printed first) */
		{ "F_comm", "-F 'sched_switch:prev_pid == 0 || "
		  "COMM == \"perfkit\"'", "<idle>-0 perfkit-100 perfkit-100",
		  { { "sched_switch:prev_pid == 0 || COMM == \"perfkit\"",
		      false } }, 1, 0 },
		/* r1 left out: nothing registered before the first lookup */
		{ "F_comm_sh", "-F 'sched_switch:COMM == \"sh\"'",
		  "sh-100 sh-100",
		  { { "sched_switch:COMM == \"sh\"", false } }, 1, 0 },
		{ "F_not_idle", "-F 'sched_switch:prev_pid != 0'",
		  "sh-100 bash-200 newproc-300 sh-100",
		  { { "sched_switch:prev_pid != 0", false } }, 1, 0 },
		{ "t", "-t", NULL, { { 0 } }, 0, PK_REPORT_FULL_TS },
		{ "l", "-l", NULL, { { 0 } }, 0, PK_REPORT_LATENCY },
		{ "R", "-R", NULL, { { 0 } }, 0, PK_REPORT_RAW },
	};
	char got[512];

	if (getenv("PK_COMMS_FILE"))    /* the file alone, for a look */
		return write_file(getenv("PK_COMMS_FILE")) ? 1 : 0;
	if (fd < 0 || (close(fd), write_file(path))) {
		t_fail("ftrace_comms_write", "%s", strerror(errno));
		unlink(path);
		return t_exit();
	}
	for (size_t i = 0; i < PK_ARRAY_SIZE(cases); i++) {
		const struct setcase *c = &cases[i];
		PK_OPTS(pk_report_opts, o, .flags = c->flags,
			.filters = c->nf ? c->f : NULL, .nr_filters = c->nf);
		size_t pl, tl;
		char *pk = t_td_report(path, &o, NULL, &pl), *tc;
		char name[64];

		snprintf(name, sizeof(name), "ftrace_comms_%s", c->name);
		if (!pk) {
			t_fail(name, "report failed");
			continue;
		}
		if (c->want) {
			tasks(pk, got, sizeof(got));
			t_check(!strcmp(got, c->want), name, "tasks '%s', "
				"want '%s'", got, c->want);
		}
		snprintf(name, sizeof(name), "ftrace_comms_%s_vs_tracecmd",
			 c->name);
		if (!(tc = t_tracecmd_report(c->tc_args, path, false, &tl)))
			t_skip(name, "trace-cmd not installed");
		else
			t_check(tl == pl && !memcmp(tc, pk, tl), name,
				"%zu vs %zu bytes: %.300s", tl, pl, tc);
		free(tc);
		free(pk);
	}
	unlink(path);
	return t_exit();
}
