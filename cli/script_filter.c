/* SPDX-License-Identifier: MIT */
/* perf script's sample filters: --time, --cpu, --pid, --tid, --comm(s),
 * --dsos, --symbols with --addr-range. */
#include <ctype.h>
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

/* perf's test of a -S word: a hex number (strtoul base 16, only spaces
 * after it) is an address. */
static bool hex_word(const char *w, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(w, &end, 16);
	if (errno || end == w)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	return !*end;
}

int script_filter_syms(struct script_filter *f, const char *arg)
{
	char **w = NULL;
	int n = 0, err = script_filter_strs(&w, &n, arg);

	f->syms_set = true;
	for (int i = 0; !err && i < n; i++) {
		uint64_t v, *na;
		char **ns;

		if (!hex_word(w[i], &v)) {
			ns = realloc(f->syms, (size_t)(f->nr_syms + 1) * sizeof(*ns));
			if (!ns) {
				err = -ENOMEM;
				break;
			}
			f->syms = ns;
			ns[f->nr_syms++] = w[i];
			w[i] = NULL;
			continue;
		}
		na = realloc(f->addrs, (size_t)(f->nr_addrs + 1) * sizeof(*na));
		if (!na) {
			err = -ENOMEM;
			break;
		}
		f->addrs = na;
		na[f->nr_addrs++] = v;
	}
	for (int i = 0; i < n; i++)
		free(w[i]);
	free(w);
	return err;
}

static bool has_str(char *const *v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (s && !strcmp(v[i], s))
			return true;
	return false;
}

/* perf's dso short name: the file's base name ("[kernel.kallsyms]",
 * "[vdso]" as they are). */
static const char *dso_short(const char *name)
{
	const char *b = name[0] == '/' ? strrchr(name, '/') : NULL;

	return b ? b + 1 : name;
}

static bool addr_listed(const struct script_filter *f, uint64_t ip)
{
	for (int i = 0; i < f->nr_addrs; i++)
		if (ip == f->addrs[i] ||
		    (f->addr_range > 0 && ip > f->addrs[i] &&
		     ip - f->addrs[i] < (uint64_t)f->addr_range))
			return true;
	return false;
}

bool script_filter_loc(const struct script_filter *f,
		       const struct pk_location *loc, uint64_t ip)
{
	if (f->nr_dsos && loc &&
	    !has_str(f->dsos, f->nr_dsos, dso_short(loc->dso)) &&
	    !has_str(f->dsos, f->nr_dsos, loc->dso))
		return false;
	if (!f->syms_set)
		return true;
	if (loc && loc->sym && has_str(f->syms, f->nr_syms, loc->sym))
		return true;
	return loc && addr_listed(f, ip);
}

static bool has_int(const int *v, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

bool script_filter_time_pass(const struct script_filter *f,
			     const struct pk_sample *sm)
{
	/* perf keeps a sample without a time (a timeless trace's) */
	if (sm->time && ((f->tstart && sm->time < f->tstart) ||
			 (f->tend && sm->time > f->tend)))
		return false;
	return !(f->tr.n > 1 && sm->time &&
		 cli_time_ranges_skip(&f->tr, sm->time));
}

bool script_filter_pass(const struct script_filter *f,
			const struct pk_sample *sm, const char *comm)
{
	if (!script_filter_time_pass(f, sm))
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
	for (int i = 0; i < f->nr_dsos; i++)
		free(f->dsos[i]);
	free(f->dsos);
	for (int i = 0; i < f->nr_syms; i++)
		free(f->syms[i]);
	free(f->syms);
	free(f->addrs);
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
	case 'F': err = script_fields_parse(&o->f, arg); break;
	case 'G': o->hide_callchain = true; return 0;
	case 'N': o->ns = true; return 0;
	case SO_RELTIME: o->reltime = true; return 0;
	case SO_DELTATIME: o->deltatime = true; return 0;
	case SO_PER_EVENT_DUMP: o->per_event_dump = true; return 0;
	case SO_SHOW_ON_OFF: o->show_on_off = true; return 0;
	case SO_SWITCH_ON: o->switch_on = arg; return 0;
	case SO_SWITCH_OFF: o->switch_off = arg; return 0;
	case SO_SYMFS: o->symfs = arg; return 0;
	case SO_KALLSYMS: o->kallsyms = arg; return 0;
	case 'd': o->debug_mode = true; return 0;
	case SO_STOP_BT:
		err = script_filter_strs(&o->stop_bt, &o->nr_stop_bt, arg);
		break;
	case SO_DSOS: err = script_filter_strs(&f->dsos, &f->nr_dsos, arg); break;
	case 'S': err = script_filter_syms(f, arg); break;
	case SO_MAX_STACK: {
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
