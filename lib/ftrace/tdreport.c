/* SPDX-License-Identifier: MIT */
/*
 * `trace-cmd report` output for a trace.dat file. Event payloads come from
 * libtraceevent (print fmt and its plugins); the line prefix (task, CPU,
 * time, event name) is formatted here in trace-cmd 3.1's layout.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <event-parse.h>
#include <trace-seq.h>
#include "ftrace/bytes.h"
#include "ftrace/tdfile.h"
#include "ftrace/tdfgraph.h"

struct rep {
	struct pk_tracedat *td;
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	struct trace_seq s;
	FILE *out;
	int name_w;             /* buffer-name column (several buffers) */
	uint8_t *scratch;       /* zeroed bounce buffer for one record */
	size_t scratch_max;     /* largest record it takes */
	struct td_fgraph fg;    /* function_graph state (lookahead) */
};

/*
 * A record is printed from a zeroed buffer with 128 KiB to spare after the
 * largest page: __data_loc/__rel_loc offsets and lengths are 16 bits each,
 * so whatever a damaged record says, libtraceevent's reads stay inside
 * memory we own.
 */
#define SCRATCH_SPARE (128u << 10)

/* A NUL-terminated copy of a blob (libtraceevent wants C strings). */
static char *cstr(const struct td_blob *b)
{
	char *s = pk_malloc(b->len + 1);
	if (s) {
		memcpy(s, b->p, b->len);
		s[b->len] = 0;
	}
	return s;
}

/*
 * libtraceevent's format parser can crash on a damaged format file, so the
 * formats are first parsed in a child process that reports each index it
 * starts; a format that kills the child is marked bad and skipped.
 */
static void child_parse(struct pk_tracedat *td, const bool *bad, int fd)
{
	struct tep_handle *tep = tep_alloc();
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0)
		dup2(null, 2);
	if (!tep)
		_exit(1);
	tep_set_long_size(tep, td->long_size);
	tep_set_file_bigendian(tep, td->big ? TEP_BIG_ENDIAN
					    : TEP_LITTLE_ENDIAN);
	for (int i = 0; i < td->nr_fmts; i++) {
		if (bad[i])
			continue;
		if (write(fd, &i, sizeof(i)) != sizeof(i))
			_exit(1);
		tep_parse_event(tep, td->fmts[i].text.p, td->fmts[i].text.len,
				td->fmts[i].system);
	}
	_exit(0);
}

static int check_formats(struct pk_tracedat *td, bool *bad)
{
	for (int attempt = 0; attempt < 32; attempt++) {
		int p[2], st = 0, last = -1, v;
		pid_t pid;

		if (pipe2(p, O_CLOEXEC) < 0)
			return -errno;
		pid = fork();
		if (pid < 0) {
			close(p[0]);
			close(p[1]);
			return -errno;
		}
		if (pid == 0) {
			close(p[0]);
			child_parse(td, bad, p[1]);
		}
		close(p[1]);
		while (read(p[0], &v, sizeof(v)) == sizeof(v))
			last = v;
		close(p[0]);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 0;
		if (last < 0 || last >= td->nr_fmts)
			return PK_ERR_INTERNAL;
		bad[last] = true;
		pk_warn("trace.dat: event format %d (system '%s') is damaged; "
			"its events are not decoded", last,
			td->fmts[last].system);
	}
	pk_warn("trace.dat: too many damaged event formats");
	return PK_ERR_FORMAT;
}

/* The "ID: N" of a format file, or -1. */
static long format_id(const struct td_format *f)
{
	const char *p = f->text.p, *end = p + f->text.len;

	for (; p + 4 < end; p++) {
		if ((p == f->text.p || p[-1] == '\n') && !memcmp(p, "ID: ", 4)) {
			long v = 0;
			for (p += 4; p < end && *p >= '0' && *p <= '9'; p++)
				v = v * 10 + (*p - '0');
			return v;
		}
	}
	return -1;
}

/*
 * Only the formats of events present in the data are parsed (a file holds
 * a thousand formats and a few dozen are used): one quick pass over the
 * pages collects the event types. SKIP[i] is set for the others.
 */
static int mark_unused(struct pk_tracedat *td, bool *skip,
		       const struct pk_report_opts *o)
{
	uint8_t *seen = pk_zalloc(65536 / 8);
	struct pk_tracedat_event ev;
	int r;

	if (!seen)
		return -ENOMEM;
	r = pk_tracedat_rewind(td, o ? o->cpus : NULL, o ? o->nr_cpus : 0);
	while (!r && (r = pk_tracedat_next(td, &ev)) != 0) {
		if (r > 0 && ev.size >= 2) {
			uint16_t t = (uint16_t)pk_ld16(ev.data, td->big);
			seen[t / 8] |= (uint8_t)(1 << (t % 8));
		}
		r = 0;
	}
	for (int i = 0; i < td->nr_fmts; i++) {
		long id = format_id(&td->fmts[i]);
		skip[i] = id >= 0 && id < 65536 && !(seen[id / 8] & (1 << (id % 8)));
	}
	pk_free(seen);
	return 0;
}

static int setup_tep(struct rep *r, const struct pk_report_opts *o)
{
	struct pk_tracedat *td = r->td;
	char *s;

	r->tep = tep_alloc();
	if (!r->tep)
		return -ENOMEM;
	tep_set_file_bigendian(r->tep, td->big ? TEP_BIG_ENDIAN
					       : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(r->tep, __BYTE_ORDER__ ==
				__ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
						     : TEP_LITTLE_ENDIAN);
	tep_set_long_size(r->tep, td->long_size);
	tep_set_page_size(r->tep, (int)td->page_size);
	tep_set_cpus(r->tep, pk_tracedat_cpus(td));
	if (td->hdr_page.p && (s = cstr(&td->hdr_page))) {
		tep_parse_header_page(r->tep, s, td->hdr_page.len,
				      td->long_size);
		pk_free(s);
	}
	bool *bad = pk_calloc((size_t)td->nr_fmts + 1, sizeof(bool));
	int e = bad ? mark_unused(td, bad, o) : -ENOMEM;
	if (!e)
		e = check_formats(td, bad);
	if (e < 0) {
		pk_free(bad);
		return e;
	}
	r->plugins = tep_load_plugins(r->tep);
	td_fgraph_register(r->tep, &r->fg);
	for (int i = 0; i < td->nr_fmts; i++) {
		const struct td_format *f = &td->fmts[i];
		if (bad[i])
			continue;
		if (tep_parse_event(r->tep, f->text.p, f->text.len, f->system))
			pk_debug("trace.dat: cannot parse format %d of '%s'",
				 i, f->system);
	}
	pk_free(bad);
	if (td->kallsyms.len && (s = cstr(&td->kallsyms))) {
		tep_parse_kallsyms(r->tep, s);
		pk_free(s);
	}
	if (td->printk.len && (s = cstr(&td->printk))) {
		tep_parse_printk_formats(r->tep, s);
		pk_free(s);
	}
	if (td->cmdlines.len && (s = cstr(&td->cmdlines))) {
		tep_parse_saved_cmdlines(r->tep, s);
		pk_free(s);
	}
	trace_seq_init(&r->s);
	return 0;
}

static void teardown(struct rep *r)
{
	if (!r->tep)
		return;
	trace_seq_destroy(&r->s);
	tep_unload_plugins(r->plugins, r->tep);
	tep_free(r->tep);
}

/* "%16s-%-5d [%03d]" and the time, as trace-cmd prints them. */
static void put_prefix(struct rep *r, const struct tep_record *rec,
		       bool usecs)
{
	int pid = tep_data_pid(r->tep, (struct tep_record *)rec);
	const char *comm = tep_data_comm_from_pid(r->tep, pid);
	unsigned long long t = rec->ts;

	fprintf(r->out, "%16s-%-5d [%03d]", comm, pid, rec->cpu);
	if (!usecs) {
		fprintf(r->out, "%12llu:", t);
		return;
	}
	/* trace-cmd 3.1 always prints seconds.microseconds here (rounded) */
	t = (t + 500) / 1000;
	fprintf(r->out, " %5llu.%06llu:", t / 1000000, t % 1000000);
}

static void put_event(struct rep *r, const struct pk_tracedat_event *ev)
{
	struct td_buffer *b = &r->td->bufs[ev->buffer];
	uint32_t size = (uint32_t)PK_MIN(ev->size, r->scratch_max);
	memcpy(r->scratch, ev->data, size);
	struct tep_record rec = {
		.ts = ev->ts, .cpu = ev->cpu, .data = r->scratch,
		.size = (int)size, .offset = ev->offset,
		.missed_events = ev->missed, .record_size = (int)size,
	};
	struct tep_event *e = tep_find_event_by_record(r->tep, &rec);
	const char *name = e ? e->name : "(NULL)";
	size_t nl = strlen(name);

	/* several buffers: instances get "NAME: ", the top one blanks */
	if (r->name_w && ev->buffer)
		fprintf(r->out, "%*s: ", r->name_w, b->name);
	else if (r->name_w)
		fprintf(r->out, "%*s  ", r->name_w, "");
	if (ev->missed > 0)
		fprintf(r->out, "CPU:%d [%lld EVENTS DROPPED]\n", ev->cpu,
			ev->missed);
	else if (ev->missed < 0)
		fprintf(r->out, "CPU:%d [EVENTS DROPPED]\n", ev->cpu);
	put_prefix(r, &rec, b->in_usecs);
	fprintf(r->out, " %s: %.*s", name, nl < 20 ? (int)(20 - nl) : 0,
		"                    ");
	trace_seq_reset(&r->s);
	if (e)
		tep_print_event(r->tep, &r->s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&r->s);
	unsigned len = r->s.len;
	if (len && r->s.buffer[len - 1] == '\n')
		len--;
	fwrite(r->s.buffer, 1, len, r->out);
	fputc('\n', r->out);
	memset(r->scratch, 0, size);
}

static void print_formats(struct pk_tracedat *td, FILE *out)
{
	const char *sys = NULL;

	for (int i = td->nr_ftrace_fmts; i < td->nr_fmts; i++) {
		const struct td_format *f = &td->fmts[i];
		if (f->system != sys)
			fprintf(out, "\nsystem: %s\n", f->system);
		sys = f->system;
		fprintf(out, "%.*s\n", (int)f->text.len, f->text.p);
	}
}

long pk_tracedat_report(struct pk_tracedat *td, FILE *out,
			const struct pk_report_opts *opts)
{
	struct rep r = { .td = td, .out = out };
	struct pk_tracedat_event ev;
	long n = 0;
	int err = 0, ret;

	if (!PK_OPTS_VALID(opts, pk_report_opts))
		return -EINVAL;
	if (opts && opts->events) {
		print_formats(td, out);
		return 0;
	}
	fprintf(out, "cpus=%d\n", pk_tracedat_cpus(td));
	if (td->bufs[0].latency) {
		fwrite(td->bufs[0].text.p, 1, td->bufs[0].text.len, out);
		fputc('\n', out);          /* trace-cmd 3.1 adds a newline */
		return 0;
	}
	r.scratch_max = td->page_size;
	for (int i = 0; i < td->nr_bufs; i++)
		r.scratch_max = PK_MAX(r.scratch_max, td->bufs[i].page_size);
	r.scratch = pk_zalloc(r.scratch_max + SCRATCH_SPARE);
	if (!r.scratch)
		return -ENOMEM;
	if ((ret = setup_tep(&r, opts)) < 0) {
		pk_free(r.scratch);
		return ret;
	}
	if (td->nr_bufs > 1) {
		for (int i = 1; i < td->nr_bufs; i++)
			r.name_w = PK_MAX(r.name_w,
					  (int)strlen(td->bufs[i].name));
	}
	ret = pk_tracedat_rewind(td, opts ? opts->cpus : NULL,
				 opts ? opts->nr_cpus : 0);
	/* one record of lookahead: a function_graph entry directly followed
	 * by its exit prints as one line (the exit is consumed) */
	struct pk_tracedat_event nx;
	bool have = false, have_nx = false;
	for (;;) {
		if (!have) {
			while (!ret && (ret = pk_tracedat_next(td, &ev)) < 0) {
				err = err ? err : ret;
				ret = 0;
			}
			if (ret <= 0)
				break;
			have = true;
			ret = 0;
		}
		while ((ret = pk_tracedat_next(td, &nx)) < 0)
			err = err ? err : ret;
		have_nx = ret > 0;
		ret = 0;
		r.fg.peek = have_nx ? &nx : NULL;
		r.fg.consumed = false;
		put_event(&r, &ev);
		n++;
		if (r.fg.consumed) {
			have = false;
			continue;
		}
		if (!have_nx)
			break;
		ev = nx;
	}
	teardown(&r);
	pk_free(r.scratch);
	if (ret < 0)
		return ret;
	return err ? err : n;
}
