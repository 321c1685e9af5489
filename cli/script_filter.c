/* SPDX-License-Identifier: MIT */
/* perf script's sample filters: --time, --cpu, --pid, --tid, --comm. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "script.h"

int script_filter_time(struct script_filter *f, const char *arg)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);

	if (cli_parse_ns(arg, n, &f->tstart) ||
	    (comma && cli_parse_ns(comma + 1, strlen(comma + 1), &f->tend)) ||
	    (f->tend && f->tstart > f->tend)) {
		fprintf(stderr, "Invalid time string\n");
		return -EINVAL;
	}
	return 0;
}

int script_filter_cpu(struct script_filter *f, const char *arg)
{
	const char *p = arg;

	f->cpus = calloc(1024 / 64, sizeof(uint64_t));
	if (!f->cpus)
		return -ENOMEM;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p)
				goto bad;
		}
		if (a < 0 || b < a || b >= 1024)
			goto bad;
		for (long c = a; c <= b; c++)
			f->cpus[c / 64] |= 1ull << (c % 64);
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	return 0;
bad:
	fprintf(stderr, "failed to parse cpu list '%s'\n", arg);
	return -EINVAL;
}

int script_filter_ints(int **v, int *n, const char *arg)
{
	const char *p = arg;

	while (*p) {
		char *end;
		long x = strtol(p, &end, 10);
		int *nv;

		if (end == p || (*end && *end != ',' && *end != ' ')) {
			fprintf(stderr, "invalid list '%s'\n", arg);
			return -EINVAL;
		}
		nv = realloc(*v, (size_t)(*n + 1) * sizeof(int));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		nv[(*n)++] = (int)x;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int script_filter_strs(char ***v, int *n, const char *arg)
{
	char *s = strdup(arg), *save = NULL;

	if (!s)
		return -ENOMEM;
	for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char **nv = realloc(*v, (size_t)(*n + 1) * sizeof(char *));

		if (nv)
			*v = nv;
		if (!nv || !(t = strdup(t))) {
			free(s);
			return -ENOMEM;
		}
		nv[(*n)++] = t;
	}
	free(s);
	return 0;
}

static bool has_int(const int *v, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

bool script_filter_pass(const struct script_filter *f,
			const struct pk_sample *sm, const char *comm)
{
	/* perf keeps a sample without a time (a timeless trace's) */
	if (sm->time && ((f->tstart && sm->time < f->tstart) ||
			 (f->tend && sm->time > f->tend)))
		return false;
	if (f->tr.n > 1 && sm->time && cli_time_ranges_skip(&f->tr, sm->time))
		return false;
	if (f->cpus && (sm->cpu >= 1024 ||
			!(f->cpus[sm->cpu / 64] & (1ull << (sm->cpu % 64)))))
		return false;
	if (f->nr_pids && !has_int(f->pids, f->nr_pids, (int)sm->pid))
		return false;
	if (f->nr_tids && !has_int(f->tids, f->nr_tids, (int)sm->tid))
		return false;
	for (int i = 0; i < f->nr_comms; i++)
		if (!strcmp(f->comms[i], comm))
			return true;
	return !f->nr_comms;
}

void script_filter_fini(struct script_filter *f)
{
	free(f->cpus);
	free(f->pids);
	free(f->tids);
	for (int i = 0; i < f->nr_comms; i++)
		free(f->comms[i]);
	free(f->comms);
}

/* --itrace and the trace modes (perf's parse_insn_trace...): the itrace
 * letters and the fields each implies. */
static int script_itrace_option(struct script_opts *o, int c, const char *arg)
{
	static const struct { int c; const char *letters, *fields; } m[] = {
		{ SO_INSN_TRACE, "i0nse", "+insn,-event,-period" },
		{ SO_CALL_TRACE, "cewp", "-ip,-addr,-event,-period,+callindent" },
		{ SO_CALL_RET_TRACE, "crewp",
		  "-ip,-addr,-event,-period,+callindent,+flags" },
	};
	size_t pos = 0;

	if (c == SO_NO_ITRACE) {
		o->no_itrace = true;
		return 0;
	}
	if (c == SO_ITRACE)
		return cli_itrace_opts("script", arg, &o->itrace);
	if (o->itrace.sz != sizeof(o->itrace)) {	/* (else: added to) */
		memset(&o->itrace, 0, sizeof(o->itrace));
		o->itrace.sz = sizeof(o->itrace);
	}
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		if (m[i].c != c)
			continue;
		pk_itrace_parse(&o->itrace, m[i].letters, &pos);
		o->itrace.thread_stack = c != SO_INSN_TRACE;
		o->ns = true;
		if (c == SO_CALL_TRACE)
			o->pad_dso = 50;
		return script_fields_parse(&o->f, m[i].fields);
	}
	return -EINVAL;
}

int script_option(struct script_opts *o, int c, const char *arg)
{
	struct script_filter *f = &o->filt;
	int err;

	switch (c) {
	case SO_ITRACE: case SO_INSN_TRACE: case SO_CALL_TRACE:
	case SO_CALL_RET_TRACE: case SO_NO_ITRACE:
		err = script_itrace_option(o, c, arg);
		break;
	case SO_SHOW_TASK: case SO_SHOW_MMAP: case SO_SHOW_SWITCH:
	case SO_SHOW_NS: case SO_SHOW_LOST: case SO_SHOW_ROUND:
	case SO_SHOW_BPF: case SO_SHOW_CGROUP: case SO_SHOW_TEXT_POKE:
		o->show |= SO_SHOW_BIT(c);
		return 0;
	case SO_XED: o->xed = true; return 0;
	case SO_GUEST_KALLSYMS: o->guest_kallsyms = arg; return 0;
	case SO_GUEST_CODE: o->guest_code = true; return 0;
	case 'F': case 'f': err = script_fields_parse(&o->f, arg); break;
	case 'G': o->hide_callchain = true; return 0;
	case 'N': o->ns = true; return 0;
	case 'S': {
		char *end;
		unsigned long v = strtoul(arg, &end, 0);

		err = !*arg || *end || v > 1000000 ? -EINVAL : 0;
		if (err)
			fprintf(stderr, "perfkit script: bad --max-stack '%s'\n", arg);
		o->max_stack = (int)v;
		break;
	}
	case 'T': err = script_filter_times(f, arg); break;
	case 'C': err = script_filter_cpu(f, arg); break;
	case 'P': err = script_filter_ints(&f->pids, &f->nr_pids, arg); break;
	case 'I': err = script_filter_ints(&f->tids, &f->nr_tids, arg); break;
	case 'c': err = script_filter_strs(&f->comms, &f->nr_comms, arg); break;
	default: return -1;
	}
	if (err)
		o->bad = true;
	return 0;
}
