/* SPDX-License-Identifier: MIT */
/*
 * trace-cmd report's filter extras: --pid/--comm made into one more -F
 * ("(common_pid==P)||(pid==P)||(next_pid==P)" for each task, on every
 * event), -T's test print of the filters as libtraceevent reads them, and
 * --event's choice of the formats to print.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include "ftrace/report.h"

/* ---- --pid, --comm ---- */

/* Appends "(common_pid==P)||(pid==P)||(next_pid==P)" (after "||" when
 * the text has a term already) to the growing text *S of *LEN bytes. */
static int pid_term(char **s, size_t *len, const char *pid)
{
	size_t n = strlen(pid) * 3 + 64;
	char *p = realloc(*s, *len + n);

	if (!p)
		return -ENOMEM;
	*s = p;
	*len += (size_t)snprintf(p + *len, n, "%s(common_pid==%s)||(pid==%s)"
				 "||(next_pid==%s)", *len > 3 ? "||" : "",
				 pid, pid, pid);
	return 0;
}

/* The pids the saved cmdlines (CL, "PID COMM" lines) give COMM, in the
 * file's order, into PIDS (up to MAX). The number found. */
static int comm_pids(const struct td_blob *cl, const char *comm, int *pids,
		     int max)
{
	const char *p = cl ? cl->p : NULL, *end = p ? p + cl->len : NULL;
	int n = 0;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		char line[64];
		int pid, at = 0;

		snprintf(line, sizeof(line), "%.*s", (int)(e - p), p);
		p = e + 1;
		if (sscanf(line, "%d %n", &pid, &at) != 1 || !at ||
		    strcmp(line + at, comm))
			continue;
		if (n < max)
			pids[n++] = pid;
	}
	return n;
}

/*
 * The filter text trace-cmd makes of --pid and --comm (O's pids and
 * comms), or NULL with *S NULL when there are none. trace-cmd keeps both
 * lists newest first and turns each command name into the pids the
 * saved cmdlines give it, each put at the front of the pid list. 0 or
 * -ENOMEM; a name no cmdline has is said through the print callback.
 */
int pk__td_pid_filter(struct pk_tracedat *td,
		      const struct pk_report_opts *o, char **s)
{
	const struct td_blob *cl = pk__td_tracedat_blob(td, PK_TD_CMDLINES);
	size_t len = 3;
	int *pids, n = 0, e = 0, max;

	*s = NULL;
	if (!o || (!o->nr_pids && !o->nr_comms))
		return 0;
	max = o->nr_pids + 4096;
	if (!(pids = malloc((size_t)max * sizeof(*pids))))
		return -ENOMEM;
	/* trace-cmd meets the last --comm first and each one's cmdlines
	 * newest first, putting each pid in front: the first --comm's
	 * pids in file order lead */
	for (int i = 0; i < o->nr_comms; i++) {
		int got = comm_pids(cl, o->comms[i], pids + n, max - n);

		if (!got)
			pk_warn("comm: %s not in cmdline list", o->comms[i]);
		n += got;
	}
	for (int i = o->nr_pids - 1; i >= 0; i--)
		pids[n++] = o->pids[i];
	if (!n) {
		free(pids);
		return 0;
	}
	if (!(*s = malloc(len + 1))) {
		free(pids);
		return -ENOMEM;
	}
	memcpy(*s, ".*:", 4);
	for (int i = 0; i < n && !e; i++) {
		char num[16];

		snprintf(num, sizeof(num), "%d", pids[i]);
		e = pid_term(s, &len, num);
	}
	free(pids);
	if (e) {
		free(*s);
		*s = NULL;
	}
	return e;
}

/* ---- -T ---- */

/* The events the event list of filter text F names (the part before
 * ':', comma-separated), in the order libtraceevent goes through them:
 * a later name's events first, each name's by descending id. Into IDS
 * (up to MAX); the number. */
static int filter_order(struct tep_handle *tep, const char *f, int *ids,
			int max)
{
	const char *colon = strchr(f, ':');
	size_t len = colon ? (size_t)(colon - f) : strlen(f);
	char *list = strndup(f, len), *save = NULL, *names[256];
	int nn = 0, n = 0;

	if (!list)
		return 0;
	for (char *t = strtok_r(list, ",", &save); t && nn < 256;
	     t = strtok_r(NULL, ",", &save))
		names[nn++] = t;
	for (int i = nn - 1; i >= 0; i--) {
		struct tep_event_filter *one = tep_filter_alloc(tep);

		if (!one)
			break;
		if (tep_filter_add_filter_str(one, names[i]) >= 0)
			for (int k = one->filters - 1; k >= 0 && n < max; k--)
				ids[n++] = one->event_filters[k].event_id;
		tep_filter_free(one);
	}
	free(list);
	return n;
}

/* One filter's test print: " 'EVENT: FILTER'" for each event it names,
 * as libtraceevent prints them under trace-cmd report -T. */
static int test_one(struct tep_handle *tep, const char *text, FILE *out)
{
	struct tep_event_filter *f = tep_filter_alloc(tep);
	int ids[4096], n;

	if (!f)
		return -ENOMEM;
	int e = tep_filter_add_filter_str(f, text);

	if (e < 0) {
		char why[256];

		if (tep_filter_strerror(f, e, why, sizeof(why)))
			snprintf(why, sizeof(why), "error %d", e);
		pk_warn("trace.dat: filter '%s': %s", text, why);
		tep_filter_free(f);
		return PK_ERR_SYNTAX;
	}
	n = filter_order(tep, text, ids, 4096);
	for (int i = 0; i < n; i++) {
		struct tep_event *ev = tep_find_event(tep, ids[i]);
		char *s = tep_filter_make_string(f, ids[i]);

		if (ev && s)
			fprintf(out, " '%s: %s'\n", ev->name, s);
		free(s);
	}
	tep_filter_free(f);
	return 0;
}

int pk__td_filter_test(struct tep_handle *tep, const struct pk_report_filter *f,
		       int n, FILE *out)
{
	int e = 0;

	for (int i = 0; i < n && !e; i++)
		e = test_one(tep, f[i].text, out);
	return e;
}

/* ---- --event ---- */

int pk__td_evmatch_init(struct td_evmatch *m, const char *re)
{
	char *buf = strdup(re), *save = NULL, *s, *e;
	int r = 0;

	memset(m, 0, sizeof(*m));
	if (!buf)
		return -ENOMEM;
	s = strtok_r(buf, ":", &save);
	e = s ? strtok_r(NULL, ":", &save) : NULL;
	m->unique = e != NULL;
	if (!s || regcomp(&m->sys, s, REG_ICASE | REG_NOSUB))
		r = PK_ERR_SYNTAX;
	else if (regcomp(&m->ev, e ? e : s, REG_ICASE | REG_NOSUB)) {
		regfree(&m->sys);
		r = PK_ERR_SYNTAX;
	}
	if (r)
		pk_warn("--event: bad regular expression '%s'", re);
	m->on = !r;
	free(buf);
	return r;
}

void pk__td_evmatch_fini(struct td_evmatch *m)
{
	if (m->on) {
		regfree(&m->sys);
		regfree(&m->ev);
	}
	m->on = false;
}

/* Whether the format TEXT (LEN bytes) of SYSTEM is one --event prints:
 * all of a system its expression names (without a colon), else by the
 * event name on the format's first line. */
bool pk__td_evmatch(const struct td_evmatch *m, const char *system,
		    const char *text, size_t len)
{
	const char *nl = memchr(text, '\n', len);
	char name[256];
	size_t n = nl ? (size_t)(nl - text) : len;
	bool sys = !regexec(&m->sys, system, 0, NULL, 0);

	if (sys && !m->unique)
		return true;
	if (!sys && m->unique)
		return false;
	if (n >= 6 && !memcmp(text, "name: ", 6)) {
		text += 6;
		n -= 6;
	}
	snprintf(name, sizeof(name), "%.*s", (int)n, text);
	return !regexec(&m->ev, name, 0, NULL, 0);
}
