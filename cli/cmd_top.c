// SPDX-License-Identifier: MIT
/*
 * perfkit top: perf top's live profile. One sampling event (perf's
 * cycles:P by default, cpu-clock where there is no cycles counter) on
 * every CPU, or the -p/-t tasks, -C CPUs; the processes that exist are
 * synthesized into a session as record does, the rings read into it and
 * into a report (lib/report), shown every -d seconds: perf top --stdio's
 * screen, or the browser (top_tui.c) on a terminal.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <termios.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <perfkit/perfdata.h>
#include <perfkit/session.h>
#include <perfkit/synth.h>
#include "cli.h"
#include "top.h"
#include "tui.h"

static volatile sig_atomic_t top_stop;

static void on_stop(int sig)
{
	(void)sig;
	top_stop = 1;
}

uint64_t top_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void usage(FILE *f)
{
	fputs("usage: perfkit top [options]\n"
	      "  -e, --event EVENT      an event to sample (default: cycles:P,\n"
	      "                         cpu-clock where there is no cycles counter;\n"
	      "                         the first one's entries are shown)\n"
	      "  -F, --freq N|max       sampling frequency (default 4000)\n"
	      "  -c, --count N          sample every N events\n"
	      "  -a, --all-cpus         every CPU (the default)\n"
	      "  -C, --cpu LIST         these CPUs\n"
	      "  -p, --pid PID[,PID]    these processes\n"
	      "  -t, --tid TID[,TID]    these threads\n"
	      "  -K, --hide_kernel_symbols   -U, --hide_user_symbols\n"
	      "  -d, --delay SECS       refresh period (default 2)\n"
	      "  -E, --entries N        show N entries (default: the screen)\n"
	      "  -s, --sort KEYS        comm, pid, dso, sym (default dso,sym)\n"
	      "  -z, --zero             zero the history at each refresh\n"
	      "  -n, --show-nr-samples  a Samples column\n"
	      "      --percent-limit P  hide entries under P percent\n"
	      "  -g                     callchains (frame pointers): each\n"
	      "                         entry's below it, callers' entries\n"
	      "                         with their children's share\n"
	      "      --call-graph fp    the same\n"
	      "      --no-children      with -g: each entry its own share\n"
	      "  -m, --mmap-pages N     ring pages per CPU\n"
	      "      --stdio            text screens (default: the browser\n"
	      "                         on a terminal)\n"
	      "      --tui              the browser\n"
	      "  -v, --verbose\n", f);
}

enum { O_STDIO = 256, O_TUI, O_PLIMIT, O_CALLGRAPH, O_CHILDREN,
       O_NO_CHILDREN };

static const struct option longopts[] = {
	{ "event", 1, NULL, 'e' }, { "freq", 1, NULL, 'F' },
	{ "count", 1, NULL, 'c' }, { "all-cpus", 0, NULL, 'a' },
	{ "cpu", 1, NULL, 'C' }, { "pid", 1, NULL, 'p' },
	{ "tid", 1, NULL, 't' }, { "hide_kernel_symbols", 0, NULL, 'K' },
	{ "hide_user_symbols", 0, NULL, 'U' }, { "delay", 1, NULL, 'd' },
	{ "entries", 1, NULL, 'E' }, { "sort", 1, NULL, 's' },
	{ "zero", 0, NULL, 'z' }, { "show-nr-samples", 0, NULL, 'n' },
	{ "mmap-pages", 1, NULL, 'm' }, { "verbose", 0, NULL, 'v' },
	{ "stdio", 0, NULL, O_STDIO }, { "tui", 0, NULL, O_TUI },
	{ "percent-limit", 1, NULL, O_PLIMIT },
	{ "call-graph", 1, NULL, O_CALLGRAPH },
	{ "children", 0, NULL, O_CHILDREN },
	{ "no-children", 0, NULL, O_NO_CHILDREN }, { "help", 0, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A whole non-negative number below LIMIT, or -1. */
static long long parse_num(const char *s, long long limit)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v >= limit)
		return -1;
	return v;
}

static int bad_value(const char *opt, const char *v)
{
	cli_error("top", "invalid value '%s' for %s", v, opt);
	return 2;
}

static int parse_opt(struct top_cfg *c, int o, const char *arg)
{
	long long v;
	char *end;

	switch (o) {
	case 'e': {
		const char **e = realloc(c->events, (size_t)(c->nr_events + 1) *
					 sizeof(*e));

		if (!e)
			return 2;
		c->events = e;
		c->events[c->nr_events++] = arg;
		return 0;
	}
	case 'F':
		c->freq_arg = arg;
		if (strcmp(arg, "max") && (v = parse_num(arg, 1LL << 40)) <= 0)
			return bad_value("-F", arg);
		c->freq = strcmp(arg, "max") ? (uint64_t)v : 0;
		return 0;
	case 'c':
		if ((v = parse_num(arg, 1LL << 62)) <= 0)
			return bad_value("-c", arg);
		c->period = (uint64_t)v;
		return 0;
	case 'a': c->all_cpus = true; return 0;
	case 'C': c->cpu_list = arg; return 0;
	case 'p': c->pids = arg; return 0;
	case 't': c->tids = arg; return 0;
	case 'K': c->hide_kernel = true; return 0;
	case 'U': c->hide_user = true; return 0;
	case 'd':
		if ((v = parse_num(arg, 1 << 20)) <= 0)
			return bad_value("-d", arg);
		c->delay_secs = (int)v;
		return 0;
	case 'E':
		if ((v = parse_num(arg, 1 << 20)) <= 0)
			return bad_value("-E", arg);
		c->entries = (int)v;
		return 0;
	case 's':
		if (!cli_basic_sort_keys(arg)) {
			cli_error("top", "-s '%s': the keys are comm, pid, "
				  "dso, sym", arg);
			return 2;
		}
		c->sort = arg;
		return 0;
	case 'z': c->zero = true; return 0;
	case 'n': c->show_nr = true; return 0;
	case 'm':
		if ((v = parse_num(arg, 1 << 20)) <= 0 || (v & (v - 1)))
			return bad_value("-m (a power of two)", arg);
		c->mmap_pages = (size_t)v;
		return 0;
	case 'v': c->verbose++; return 0;
	case O_STDIO: c->stdio = true; c->tui = false; return 0;
	case O_TUI: c->tui = true; c->stdio = false; return 0;
	case O_PLIMIT:
		c->percent_limit = strtod(arg, &end);
		if (end == arg || *end || c->percent_limit < 0)
			return bad_value("--percent-limit", arg);
		return 0;
	case 'g': c->callchain = true; return 0;
	case O_CALLGRAPH:
		/* perf's record mode first; dwarf and lbr are not read live */
		if (strcmp(arg, "fp") && strncmp(arg, "fp,", 3)) {
			cli_error("top", "--call-graph '%s': only fp (frame "
				  "pointers) is supported", arg);
			return 2;
		}
		if (arg[2]) {
			cli_error("top", "--call-graph '%s': print options "
				  "are not supported (perf top's graph, 0.5%%, "
				  "caller with children)", arg);
			return 2;
		}
		c->callchain = true;
		return 0;
	case O_CHILDREN: c->no_children = false; return 0;
	case O_NO_CHILDREN: c->no_children = true; return 0;
	case 'h': usage(stdout); return 1;
	default: usage(stderr); return 2;
	}
}

/* 0 to go on, else the exit status (1: --help, 0 then). */
static int parse_args(struct top_cfg *c, int argc, char **argv)
{
	int o, rc;

	c->freq = 4000;
	c->delay_secs = 2;
	c->mmap_pages = 0;
	while ((o = cli_getopt(argc, argv, "e:F:c:aC:p:t:KUd:E:s:znm:vgh",
			       longopts, NULL)) != -1)
		if ((rc = parse_opt(c, o, optarg)))
			return rc == 1 ? -1 : rc;
	if (optind < argc) {
		cli_error("top", "unexpected argument '%s' (top takes no "
			  "command)", argv[optind]);
		return 2;
	}
	if (c->pids && c->tids) {
		cli_error("top", "-p and -t: give one of them");
		return 2;
	}
	/* perf's words: the tasks win, on every CPU */
	if ((c->pids || c->tids) && c->cpu_list) {
		fputs("Warning:\nPID/TID switch overriding CPU\n", stderr);
		c->cpu_list = NULL;
	} else if ((c->pids || c->tids) && c->all_cpus) {
		fputs("Warning:\nPID/TID switch overriding SYSTEM\n", stderr);
	}
	return 0;
}

/* A sampling event as perf top configures it; the first one (TRACK)
 * also reports mappings, names and tasks; MULTI: samples say whose. */
static void config_event(struct top *t, struct pk_evsel *e, bool track,
			 bool multi)
{
	struct perf_event_attr *a = pk_evsel_attr(e);

	a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (multi)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	if (t->c.period) {
		a->sample_period = t->c.period;
		a->freq = 0;
	} else if (!a->sample_period || a->freq) {
		a->freq = 1;
		a->sample_freq = t->c.freq;
		a->sample_type |= PERF_SAMPLE_PERIOD;
	}
	if (!t->c.pids && !t->c.tids)
		a->sample_type |= PERF_SAMPLE_CPU;
	if (t->c.callchain)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	a->mmap = a->comm = a->task = track;
	a->mmap2 = track && pk_feature_has(PK_FEAT_MMAP2);
	a->comm_exec = track && pk_feature_has(PK_FEAT_COMM_EXEC);
	if (pk_evsel_flags(e) & PK_EVSEL_PRECISE_MAX)
		a->precise_ip = 3; /* the open walks it down, as record's */
	a->sample_id_all = 1;
	a->disabled = 1;
	a->inherit = !t->c.tids;
}

/* Appends the events of S. 0 or -errno (the message printed). */
static int parse_event(struct top *t, const char *s)
{
	int first = pk_evlist_nr(t->evlist), n;
	struct pk_parse_error pe;

	memset(&pe, 0, sizeof(pe));
	n = pk_evlist_parse(t->evlist, s, &pe);
	if (n < 0) {
		cli_error("top", "invalid event '%s': %s", s,
			  pe.msg[0] ? pe.msg : pk_strerror(n));
		cli_event_hint("top", &pe);
		return n;
	}
	for (int i = first; i < first + n; i++)
		if (pk_evsel_attr(pk_evlist_evsel(t->evlist, i))->type ==
		    PERF_TYPE_TRACEPOINT) {
			cli_error("top", "-e '%s': tracepoints are not "
				  "supported yet (perf top sorts them by their "
				  "fields)", s);
			return -EINVAL;
		}
	return 0;
}

/* The events (the first one's entries are shown, as perf top's). */
static int build_events(struct top *t)
{
	int err = 0, n;

	t->evlist = pk_evlist_new();
	if (!t->evlist)
		return -ENOMEM;
	for (int i = 0; i < t->c.nr_events && !err; i++)
		err = parse_event(t, t->c.events[i]);
	if (!t->c.nr_events)
		err = pk_evlist_add_default(t->evlist) < 0 ? -ENOMEM : 0;
	if (err)
		return err;
	n = pk_evlist_nr(t->evlist);
	for (int i = 0; i < n; i++)
		config_event(t, pk_evlist_evsel(t->evlist, i), i == 0, n > 1);
	t->ev = pk_evlist_evsel(t->evlist, 0);
	return 0;
}

static int open_event(struct top *t)
{
	int err;

	t->cpus = pk_cpu_map_new(t->c.cpu_list);
	if (!t->cpus) {
		cli_error("top", "invalid CPU list '%s'", t->c.cpu_list);
		return -EINVAL;
	}
	if (t->c.pids || t->c.tids) {
		const char *s = t->c.pids ? t->c.pids : t->c.tids;

		t->threads = t->c.pids ? pk_thread_map_new_pids(s) :
					 pk_thread_map_new_tids(s);
		if (!t->threads) {
			cli_error("top", "%s '%s': %s", t->c.pids ? "pid" : "tid",
				  s, errno == ESRCH ? "no such process" :
				  strerror(errno));
			return -ESRCH;
		}
	} else {
		t->threads = pk_thread_map_new_any();
	}
	if (!t->threads)
		return -ENOMEM;
	for (int i = 0; i < pk_evlist_nr(t->evlist); i++) {
		err = cli_open_sampling("top", pk_evlist_evsel(t->evlist, i),
					t->cpus, t->threads, t->c.verbose);
		if (err)
			return err;
	}
	PK_OPTS(pk_rings_opts, ro, .pages = t->c.mmap_pages);
	t->rings = pk_rings_new(t->evlist, &ro);
	if (!t->rings) {
		cli_error("top", "cannot map the rings: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/*
 * The event's attribute and ids as a perf.data header in memory: what the
 * report reads an event's name and default period from, and the sample
 * layout the samples are parsed with.
 */
static int make_header(struct top *t)
{
	static const struct perf_event_header round = {
		.type = PK_RECORD_FINISHED_ROUND, .size = sizeof(round),
	};
	int nc = pk_cpu_map_nr(t->cpus), nt = pk_thread_map_nr(t->threads);
	uint64_t *ids = calloc((size_t)(nc * nt) + 1, sizeof(*ids));
	struct pk_pdwriter *w;
	unsigned n;
	int err;

	t->pd_fd = memfd_create("perfkit-top", MFD_CLOEXEC);
	if (!ids || t->pd_fd < 0) {
		free(ids);
		return -errno;
	}
	w = pk_pdwriter_open_fd(t->pd_fd, NULL);
	err = w ? 0 : -errno;
	for (int i = 0; i < pk_evlist_nr(t->evlist) && err >= 0; i++) {
		struct pk_evsel *e = pk_evlist_evsel(t->evlist, i);

		n = 0;
		for (int ci = 0; ci < nc; ci++)
			for (int ti = 0; ti < nt; ti++)
				if (!pk_evsel_id(e, ci, ti, &ids[n]))
					n++;
		err = pk_pdwriter_add_attr(w, pk_evsel_attr(e), ids, n,
					   pk_evsel_name(e));
	}
	if (err >= 0)   /* a record, so that the data section is not empty */
		err = pk_pdwriter_write(w, &round, NULL, 0);
	free(ids);
	if (w && (err = pk_pdwriter_close(w) ? -EIO : (err < 0 ? err : 0)))
		return err;
	if (!w)
		return err;
	t->pd = pk_perfdata_open_fd(t->pd_fd, NULL);
	return t->pd ? 0 : -errno;
}

static int new_report(struct top *t)
{
	/* perf top -g: children by default, then callers first */
	bool children = t->c.callchain && !t->c.no_children;
	PK_OPTS(pk_report_new_opts, o, .sort = t->c.sort ? t->c.sort : "dso,sym",
		.callchain = t->c.callchain, .children = children,
		.caller = children);

	pk_report_free(t->rep);
	t->rep = pk_report_new(t->sess, t->pd, &o);
	if (!t->rep && errno == EINVAL)
		cli_error("top", "-s '%s': the keys are comm, pid, dso, sym",
			  t->c.sort);
	return t->rep ? 0 : -errno;
}

/* A side-band record (synthesized or from a ring) into the session, and
 * the report's note of it (DSOs' order, lost samples). */
static int synth_cb(const struct perf_event_header *h, void *arg)
{
	struct top *t = arg;
	struct pk_record rec = { .hdr = h, .type = h->type, .size = h->size,
				 .misc = h->misc, .attr = -1 };
	int err = pk_session_process(t->sess, h);

	if (err != -ENOMEM)
		err = pk_report_record(t->rep, &rec);
	return err == -ENOMEM ? err : 0;
}

/* What exists already: the kernel's map, each process or the tasks. */
static int synthesize(struct top *t)
{
	PK_OPTS(pk_synth_opts, o);
	int err = pk_synth_kernel(synth_cb, t, &o);
	int nr = pk_thread_map_nr(t->threads);

	if (err)
		return err;
	if (!t->c.pids && !t->c.tids)
		return pk_synth_all_processes(synth_cb, t, &o);
	pid_t *tids = calloc((size_t)nr, sizeof(*tids));

	if (!tids)
		return -ENOMEM;
	for (int i = 0; i < nr; i++)
		tids[i] = pk_thread_map_tid(t->threads, i);
	err = pk_synth_threads(nr, tids, synth_cb, t, &o);
	free(tids);
	return err;
}

static int batch_add(struct top *t, const struct perf_event_header *h)
{
	if (t->batch_len + h->size > t->batch_cap) {
		size_t cap = t->batch_cap ? 2 * t->batch_cap : 1 << 20;
		char *n;

		while (cap < t->batch_len + h->size)
			cap *= 2;
		n = realloc(t->batch, cap);
		if (!n)
			return -ENOMEM;
		t->batch = n;
		t->batch_cap = cap;
	}
	memcpy(t->batch + t->batch_len, h, h->size);
	t->batch_len += h->size;
	return 0;
}

/* perf 6.1's idle functions: their kernel samples are counted in the
 * header but make no entry. */
static bool idle_sym(struct top *t, const struct pk_sample *sm)
{
	static const char *const idle[] = {
		"acpi_idle_do_entry", "acpi_processor_ffh_cstate_enter",
		"arch_cpu_idle", "cpu_idle", "cpu_startup_entry", "idle_cpu",
		"intel_idle", "default_idle", "native_safe_halt", "enter_idle",
		"exit_idle", "mwait_idle", "mwait_idle_with_hints",
		"mwait_idle_with_hints.constprop.0", "poll_idle",
		"ppc64_runlatch_off", "pseries_dedicated_idle_sleep",
		"psw_idle", "psw_idle_exit",
	};
	struct pk_location loc;

	if (pk_session_resolve(t->sess, sm->pid, sm->ip,
			       PERF_RECORD_MISC_KERNEL, &loc) || !loc.sym)
		return false;
	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
		if (!strcmp(loc.sym, idle[i]))
			return true;
	return false;
}

static int add_sample(struct top *t, const struct perf_event_header *h)
{
	struct pk_record rec = { .hdr = h, .type = h->type, .size = h->size,
				 .misc = h->misc, .attr = 0 };
	uint16_t mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct pk_sample sm;
	struct pk_session_sample ss = { &rec, &sm, 0, NULL };

	/* several events: the sample's id (PERF_SAMPLE_IDENTIFIER) first */
	if (pk_evlist_nr(t->evlist) > 1)
		rec.attr = h->size >= 16 ?
			pk_perfdata_id_attr(t->pd, *(const uint64_t *)(h + 1)) : -1;
	ss.attr = rec.attr;
	if (rec.attr < 0 || pk_sample_parse(t->pd, &rec, &sm))
		return 0;
	rec.time = sm.time;
	t->samples++;
	t->nr_samples++;
	t->ksamples += mode == PERF_RECORD_MISC_KERNEL;
	t->exact += !!(h->misc & PERF_RECORD_MISC_EXACT_IP);
	/* -K, -U: counted in the header, not in the entries (perf) */
	if ((mode == PERF_RECORD_MISC_KERNEL &&
	     (t->c.hide_kernel || idle_sym(t, &sm))) ||
	    (mode == PERF_RECORD_MISC_USER && t->c.hide_user))
		return 0;
	ss.comm = pk_session_comm(t->sess, sm.tid);
	return pk_report_add(t->rep, &ss);
}

static void add_lost(struct top *t, const struct perf_event_header *h)
{
	const char *b = (const char *)h;
	uint64_t n = 0;

	if (h->type == PERF_RECORD_LOST && h->size >= 24) {
		n = *(const uint64_t *)(b + 16);
		t->nr_lost_records++;
	} else if (h->type == PERF_RECORD_LOST_SAMPLES && h->size >= 16) {
		n = *(const uint64_t *)(b + 8);
	}
	t->lost += n;
	t->lost_total += n;
}

/* One record of the pass: side-band first (SAMPLES false), then samples. */
static int process(struct top *t, const struct perf_event_header *h,
		   bool samples)
{
	if ((h->type == PERF_RECORD_SAMPLE) != samples)
		return 0;
	if (samples)
		return add_sample(t, h);
	add_lost(t, h);
	return synth_cb(h, t);
}

/*
 * The records of every ring are copied out, then the side-band ones (new
 * mappings, names, exits) go to the session before the samples, so that a
 * sample on one CPU finds the mapping another CPU's ring reported.
 */
int top_drain(struct top *t)
{
	int err = 0;

	t->batch_len = 0;
	for (int i = 0; i < pk_rings_nr(t->rings) && !err; i++) {
		struct pk_ring *ring = pk_rings_get(t->rings, i);
		const struct perf_event_header *h;

		if (!pk_ring_read_init(ring))
			continue;
		while (!err && (h = pk_ring_read_event(ring))) {
			err = batch_add(t, h);
			pk_ring_consume(ring);
		}
		pk_ring_read_done(ring);
	}
	for (int pass = 0; pass < 2 && !err; pass++)
		for (size_t off = 0; off < t->batch_len && !err;) {
			const struct perf_event_header *h =
				(const void *)(t->batch + off);

			err = process(t, h, pass == 1);
			off += h->size;
		}
	return err;
}

void top_header(struct top *t, char *buf, size_t size)
{
	const struct perf_event_attr *a = pk_evsel_attr(t->ev);
	float sps = (float)t->samples / (float)t->c.delay_secs;
	float ksps = (float)t->ksamples / (float)t->c.delay_secs;
	float kpct = sps ? 100.0f - 100.0f * ((sps - ksps) / sps) : 0;
	float epct = t->samples ? 100.0f * (float)t->exact / (float)t->samples : 0;
	int nc = pk_cpu_map_nr(t->cpus);
	size_t n;

	n = (size_t)snprintf(buf, size, "   PerfTop:%8.0f irqs/sec  kernel:%4.1f%%"
			     "  exact: %4.1f%% lost: %llu/%llu drop: 0/0 [",
			     sps, kpct, epct, (unsigned long long)t->lost,
			     (unsigned long long)t->lost_total);
	if (n < size && pk_evlist_nr(t->evlist) == 1)  /* one event: its rate */
		n += (size_t)snprintf(buf + n, size - n, "%llu%s ",
				      (unsigned long long)a->sample_period,
				      a->freq ? "Hz" : "");
	if (n < size)
		n += (size_t)snprintf(buf + n, size - n, "%s], ",
				      pk_evsel_name(t->ev));
	if (n >= size)
		return;
	if (t->c.pids || t->c.tids)
		n += (size_t)snprintf(buf + n, size - n, " (target_%s: %s",
				      t->c.pids ? "pid" : "tid",
				      t->c.pids ? t->c.pids : t->c.tids);
	else
		n += (size_t)snprintf(buf + n, size - n, " (all");
	if (n >= size)
		return;
	if (t->c.cpu_list)
		snprintf(buf + n, size - n, ", CPU%s: %s)", nc > 1 ? "s" : "",
			 t->c.cpu_list);
	else if (t->c.pids || t->c.tids)
		snprintf(buf + n, size - n, ")");
	else
		snprintf(buf + n, size - n, ", %d CPU%s)", nc, nc > 1 ? "s" : "");
}

int top_next_period(struct top *t)
{
	t->samples = t->ksamples = t->exact = t->lost = 0;
	if (t->c.zero)
		return new_report(t);
	return pk_report_decay(t->rep);
}

/* perf's terminal size: $LINES and $COLUMNS, else the tty's, else 25x80. */
static void term_size(int *rows, int *cols)
{
	const char *l = getenv("LINES"), *c = getenv("COLUMNS");
	struct winsize ws;

	*rows = l ? atoi(l) : 0;
	*cols = c ? atoi(c) : 0;
	if (*rows > 0 && *cols > 0)
		return;
	if (!ioctl(1, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
		return;
	}
	*rows = 25;
	*cols = 80;
}

/* perf's colors: on a terminal that is not dumb. */
static bool stdout_color(void)
{
	const char *term = getenv("TERM");

	return isatty(1) && term && strcmp(term, "dumb");
}

/* perf top --stdio's screen: clear, header, dashes, the entries. */
static int show_stdio(struct top *t)
{
	PK_OPTS(pk_report_top_opts, o, .percent_limit = t->c.percent_limit,
		.show_nr_samples = t->c.show_nr);
	int rows, cols, printed = 0;
	char hdr[512];

	term_size(&rows, &cols);
	o.color = stdout_color();
	if (t->c.callchain) {
		o.chain = PK_REPORT_CHAIN_GRAPH;
		o.chain_percent = 0.5;
	}
	top_header(t, hdr, sizeof(hdr));
	printf("\033[H\033[2J\n%s\n", hdr);
	for (int i = 0; i < cols - 1; i++)
		putchar('-');
	putchar('\n');
	if (t->nr_lost_records != t->lost_warned) {
		bool tty = stdout_color();

		t->lost_warned = t->nr_lost_records;
		printf("%sWARNING: LOST %llu chunks, Check IO/CPU overload%s",
		       tty ? "\033[31m" : "", (unsigned long long)t->lost_warned,
		       tty ? "\033[m" : "");
		printed++;
	}
	putchar('\n');
	rows = t->c.entries ? t->c.entries : rows - 5;
	o.rows = rows - printed > 0 ? (unsigned)(rows - printed) : 1;
	o.width = cols > 1 ? (unsigned)cols - 1 : 0;
	int err = pk_report_print_top(t->rep, stdout, &o);

	fflush(stdout);
	return err;
}

/* --stdio on a terminal reads keys as perf top does: no echo, no line
 * editing; q ends. The modes come back in keys_done. */
static struct termios keys_saved;
static bool keys_on;

static void keys_start(void)
{
	struct termios tc;

	if (!isatty(0) || tcgetattr(0, &keys_saved))
		return;
	tc = keys_saved;
	tc.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	tc.c_cc[VMIN] = 0;
	tc.c_cc[VTIME] = 0;
	keys_on = !tcsetattr(0, TCSANOW, &tc);
}

static void keys_done(void)
{
	if (keys_on)
		tcsetattr(0, TCSANOW, &keys_saved);
	keys_on = false;
}

/* A q typed since the last look ends top. */
static void keys_read(void)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	char c;

	while (keys_on && poll(&p, 1, 0) == 1 && read(0, &c, 1) == 1)
		if (c == 'q' || c == 'Q')
			top_stop = 1;
}

/* Waits for the rings until the next display is due (or a stop). */
static int wait_rings(struct top *t)
{
	uint64_t now = top_now_ms();
	int hup = 0;

	int ms = now < t->next_ms ? (int)(t->next_ms - now > 100 ? 100 :
					  t->next_ms - now) : 0;

	pk_rings_poll(t->rings, ms, &hup);
	/* a task gone keeps its fd readable: no spinning on it */
	if (hup > 0 && ms > 0)
		poll(NULL, 0, ms < 50 ? ms : 50);
	return top_drain(t);
}

static int run_stdio(struct top *t)
{
	int err;

	keys_start();
	err = show_stdio(t);
	if (!err)
		err = top_next_period(t);
	t->next_ms = top_now_ms() + (uint64_t)t->c.delay_secs * 1000;
	while (!err && !top_stop) {
		keys_read();
		err = wait_rings(t);
		if (err || top_now_ms() < t->next_ms)
			continue;
		err = show_stdio(t);
		if (!err)
			err = top_next_period(t);
		t->next_ms += (uint64_t)t->c.delay_secs * 1000;
	}
	keys_done();
	return err;
}

static int resolve_freq(struct top_cfg *c)
{
	int max;

	if (pk_perf_event_max_sample_rate(&max) || max <= 0)
		max = 0;
	if (c->freq_arg && !strcmp(c->freq_arg, "max")) {
		if (!max) {
			cli_error("top", "-F max: cannot read "
				  "/proc/sys/kernel/perf_event_max_sample_rate");
			return -EINVAL;
		}
		c->freq = (uint64_t)max;
	} else if (max && c->freq > (uint64_t)max) {
		cli_error("top", "-F %llu: above the maximum frequency rate "
			  "(%d Hz, /proc/sys/kernel/perf_event_max_sample_rate)",
			  (unsigned long long)c->freq, max);
		return -EINVAL;
	}
	return 0;
}

/* Opens and starts everything; messages printed here. 0 or -errno. */
static int setup(struct top *t)
{
	int err = resolve_freq(&t->c);

	if (!err)
		err = build_events(t);
	if (!err)
		err = open_event(t);
	if (err)
		return err;
	t->sess = pk_session_new(NULL);
	err = t->sess ? make_header(t) : -ENOMEM;
	if (!err)
		err = new_report(t);
	if (err == -EINVAL)
		return err;
	if (!err)
		err = synthesize(t);
	if (!err)
		err = pk_evlist_enable(t->evlist);
	if (err)
		cli_error("top", "cannot start: %s", strerror(-err));
	return err;
}

static void teardown(struct top *t)
{
	pk_rings_free(t->rings);
	pk_evlist_free(t->evlist);
	pk_report_free(t->rep);
	pk_perfdata_free(t->pd);
	if (t->pd_fd >= 0)
		close(t->pd_fd);
	pk_session_free(t->sess);
	pk_cpu_map_put(t->cpus);
	pk_thread_map_put(t->threads);
	free(t->batch);
	free(t->c.events);
}

int cmd_top(int argc, char **argv)
{
	struct top t;
	int rc, err;

	memset(&t, 0, sizeof(t));
	t.pd_fd = -1;
	rc = parse_args(&t.c, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!t.c.stdio && !t.c.tui)
		t.c.tui = tui_available();
	if (t.c.tui && !tui_available()) {
		cli_error("top", "--tui: standard output is not a terminal");
		return 2;
	}
	/* the browser's terminal restores itself on these signals */
	if (!t.c.tui)
		cli_catch_stop(on_stop, 0);
	err = setup(&t);
	if (!err) {
		err = t.c.tui ? top_tui(&t) : run_stdio(&t);
		if (err)
			cli_error("top", "%s", strerror(-err));
	}
	teardown(&t);
	return err ? 1 : 0;
}
