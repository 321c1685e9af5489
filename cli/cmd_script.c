/* SPDX-License-Identifier: MIT */
/*
 * perfkit script: reads a perf.data file. -D dumps every record in perf
 * report -D's layout (file offset, size, raw bytes, decoded line);
 * --header / --header-only print the feature sections like perf.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include <perfkit/pt.h>
#include <perfkit/session.h>
#include "cli.h"
#include "script.h"

/* cmd_script's own option codes (script.h's SO_* are the output's) */
enum { OPT_UNSORTED = 0x300, OPT_ACCEPTED, OPT_MAX_BLOCKS };

struct script {
	const char *input;
	bool dump, header, header_only, file_order, pipe, repair, force;
	const char *vmlinux;
	bool show_info;           /* -I: the topology features in full */
	bool unsorted;            /* --dump-unsorted-raw-trace */
	struct pk_perfdata *pd;
	char *desc;
	size_t desc_len;
	struct pk_session *sess;  /* comm and maps for -D's sample lines */
	bool report_dump;         /* perf report -D: no samples, counts */
	struct cli_stats st;      /* report -D's closing counts */
	bool intel_pt;            /* AUXTRACE_INFO said Intel PT */
	struct script_opts so;    /* sample output (script_out.c) */
};

/* perf's -D view of Intel PT AUX data: one line per packet. */
void script_dump_pt(const void *data, size_t len)
{
	const uint8_t *buf = data;
	size_t off = 0;
	char line[256];
	int ctx = 0, n;

	printf(". ... Intel Processor Trace data: size %zu bytes\n", len);
	while ((n = pk_pt_perf_line(buf, len, off, &ctx, line,
				    sizeof(line))) > 0) {
		puts(line);
		off += (size_t)n;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit script [-i FILE] [-F FIELDS] [-G] [filters] [-D] [--header|--header-only]\n"
		"  -F, --fields LIST     [type:][+-]comm,tid,pid,time,cpu,event,ip,sym,symoff,\n"
		"                        dso,addr,period,trace,flags,callindent,data_src,\n"
		"                        weight,ins_lat,phys_addr,data_page_size,\n"
		"                        code_page_size, insn, insnlen, synth, iregs,\n"
		"                        machine_pid, vcpu,\n"
		"                        uregs (as perf script)\n"
		"      --itrace[=LETTERS] decode the instruction trace (Intel PT) into\n"
		"                        samples as perf: i[N[i|t|ns|us|ms]] b c r x w p\n"
		"                        o I e[+-o+-l] d g G l L s q qq Z A (default:\n"
		"                        cepwxoI, as perf)\n"
		"      --no-itrace       leave the trace undecoded\n"
		"      --insn-trace      every instruction with its bytes (i0nse)\n"
		"      --xed             the bytes shown disassembled (AT&T), where\n"
		"                        perf pipes its output through Intel's xed\n"
		"      --call-trace      calls, indented by depth (cewp)\n"
		"      --call-ret-trace  calls and returns, indented (crewp)\n"
		"      --guestkallsyms FILE  the (default) guest's kallsyms: guest\n"
		"                        kernel samples resolved there, its code read\n"
		"                        from the kcore beside it (as perf)\n"
		"      --guest-code      a VM's code is its process's, at the same\n"
		"                        addresses (KVM selftests; as perf)\n"
		"      --show-task-events, --show-mmap-events, --show-switch-events,\n"
		"      --show-namespace-events, --show-lost-events, --show-round-events,\n"
		"      --show-bpf-events, --show-cgroup-events, --show-text-poke-events\n"
		"                        those side-band records among the samples\n"
		"  -G, --hide-call-graph do not print callchains\n"
		"      --max-stack N     callchain entries to show, each of the\n"
		"                        kernel's and the unwound user part (127)\n"
		"      --ns              times in nanoseconds\n"
		"      --time RANGES     samples in these times (S,E S,E ...; 10%%/2;\n"
		"                        0%%-10%%,...: of the file's sample times)\n"
		"      --reltime         times from the first sample shown\n"
		"      --deltatime       times from the previous sample shown\n"
		"  -C, --cpu LIST        samples of these CPUs\n"
		"      --pid/--tid LIST  samples of these tasks\n"
		"  -c, --comms LIST      samples of these commands (also --comm)\n"
		"      --dsos LIST       samples in these DSOs (short or full names)\n"
		"  -S, --symbols LIST    samples in these symbols, or at these hex\n"
		"                        addresses (--addr-range N: the N bytes from each)\n"
		"      --switch-on EV, --switch-off EV  samples only after EV / until EV\n"
		"      --show-on-off-events  the switching samples shown too\n"
		"      --per-event-dump  each event's samples to INPUT.EVENT.dump\n"
		"      --stop-bt LIST    callchains end at these symbols\n"
		"      --symfs DIR       binaries, build-id cache (DIR/.debug) under DIR\n"
		"      --kallsyms FILE   the kernel's symbols from FILE\n"
		"  -d, --debug-mode      no samples: count those out of time order\n"
		"  -f, --force           read a file another user owns\n"
		"  -k, --vmlinux FILE    checked as perf does (symbols: kallsyms)\n"
		"      --dump-unsorted-raw-trace  -D in file order\n"
		"      --show-kernel-path, --full-source-path, --inline, --demangle,\n"
		"      --demangle-kernel, --stitch-lbr, --max-blocks N  taken, no effect\n"
		"  -l, -s, -g            refused: no Perl or Python engine\n"
		"  -i, --input FILE      perf.data file to read (default perf.data, - for stdin)\n"
		"  -D, --dump-raw-trace  print every record: offset, size, raw bytes, decoded\n"
		"      --header          print the file's header before the records\n"
		"      --header-only     print only the header\n"
		"  -I, --show-info       the header's topology (CPUs, NUMA nodes, caches,\n"
		"                        memory) in full\n"
		"      --file-order      deliver records in file order, not time order\n"

		"      --repair          fix the header of a file whose recorder was killed\n"
		"                        (data size 0) so that Linux perf reads it too\n");
}

/* perf's raw dump: ".  0000:  45 00 ...  E....." lines, built by hand
 * (printf per byte is most of -D's time on large files). */
static void hexdump(const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char line[96];

	printf(".\n. ... raw event: size %zu bytes\n", n);
	for (size_t i = 0; i < n; i += 16) {
		size_t k, m = n - i < 16 ? n - i : 16;
		char *o = line;

		*o++ = '.';
		*o++ = ' ';
		*o++ = ' ';
		for (int sh = 12; sh >= 0; sh -= 4)
			*o++ = hex[(i >> sh) & 15];
		*o++ = ':';
		*o++ = ' ';
		for (k = 0; k < 16; k++) {
			*o++ = ' ';
			*o++ = k < m ? hex[p[i + k] >> 4] : ' ';
			*o++ = k < m ? hex[p[i + k] & 15] : ' ';
		}
		*o++ = ' ';
		*o++ = ' ';
		for (k = 0; k < 16; k++)
			*o++ = k < m ? (isprint(p[i + k]) ? (char)p[i + k] : '.')
				     : ' ';
		*o++ = '\n';
		fwrite(line, 1, o - line, stdout);
	}
}

/* perf's "[cpu ]time " (or "-1 -1 ") before the offset. */
static void tstamp(struct script *s, const struct pk_record *rec)
{
	uint64_t st = 0;
	unsigned n = pk_perfdata_nr_attrs(s->pd);

	/* perf prints a HEADER_ATTR's line before adding its attr */
	if (rec->type == PK_RECORD_HEADER_ATTR && n)
		n--;
	const struct perf_event_attr *a0 = pk_perfdata_attr(s->pd, 0);
	struct pk_sample sm;

	for (unsigned i = 0; i < n; i++)
		st |= pk_perfdata_attr(s->pd, i)->sample_type;
	if (rec->type != PERF_RECORD_SAMPLE && (!n || !a0->sample_id_all)) {
		fputs("-1 -1 ", stdout);
		return;
	}
	memset(&sm, 0, sizeof(sm));
	if (rec->type < 64 && pk_sample_parse(s->pd, rec, &sm)) {
		memset(&sm, 0, sizeof(sm));
	} else if (rec->type < 64) {
		/* a field its own event lacks: perf's -1 (another has it) */
		if (!(sm.sample_type & PERF_SAMPLE_CPU))
			sm.cpu = (uint32_t)-1;
		if (!(sm.sample_type & PERF_SAMPLE_TIME))
			sm.time = (uint64_t)-1;
	}
	if (st & PERF_SAMPLE_CPU)
		printf("%u ", sm.cpu);
	if (st & PERF_SAMPLE_TIME)
		printf("%" PRIu64 " ", sm.time);
}

/* perf's " ... thread: comm:tid" and " ...... dso: name" lines. */
static void sample_thread(struct script *s, const struct pk_record *rec)
{
	struct pk_sample sm;
	const char *dso, *comm;
	char buf[32];

	if (pk_sample_parse(s->pd, rec, &sm))
		return;
	comm = pk_session_comm(s->sess, sm.tid);
	if (!comm) {
		snprintf(buf, sizeof(buf), ":%d", (int32_t)sm.tid);
		comm = buf;
	}
	printf(" ... thread: %s:%d\n", comm, (int32_t)sm.tid);
	dso = pk_session_dso_name(s->sess, sm.pid, rec->misc, sm.ip);
	if (dso)
		printf(" ...... dso: %s\n", dso);
	/* report -D: a sample's AUX area data (sample mode) after it
	 * (script -D's comes after the sample's line, script_out.c) */
	if (s->report_dump && s->intel_pt && sm.aux.size) {
		printf("\n");
		script_dump_pt(sm.aux.data, (size_t)sm.aux.size);
	}
}

/* Records perf script handles where perf report does not: no
 * ": unhandled!" (THROTTLE's handler prints nothing, not even the line's
 * end). */
static void script_handled(uint32_t type, char *desc)
{
	static const char tail[] = ": unhandled!\n";
	size_t n = strlen(desc), t = sizeof(tail) - 1;

	if (n < t || strcmp(desc + n - t, tail))
		return;
	switch (type) {
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PK_RECORD_THREAD_MAP:
	case PK_RECORD_CPU_MAP:
		desc[n - t] = 0;
		break;
	default:
		break;
	}
}

static int dump_record(struct script *s, const struct pk_record *rec)
{
	uint64_t off = rec->offset;
	int n;

	/* perf counts pipe offsets from after the 16-byte pipe header */
	if (s->pipe)
		off -= 16;
	printf("\n%#" PRIx64 "@%s [%#x]: event: %u\n", off,
	       s->pipe ? "pipe" : s->input, rec->size, rec->type);
	hexdump((const unsigned char *)rec->hdr, rec->size);
	putchar('\n');
	tstamp(s, rec);
	printf("%#" PRIx64 " [%#x]: ", off, rec->size);
	n = pk_record_describe(s->pd, rec, s->desc, s->desc_len);
	if (n >= 0 && (size_t)n >= s->desc_len) {
		char *b = realloc(s->desc, n + 1);

		if (!b)
			return -ENOMEM;
		s->desc = b;
		s->desc_len = n + 1;
		pk_record_describe(s->pd, rec, s->desc, s->desc_len);
	}
	if (!s->report_dump)
		script_handled(rec->type, s->desc);
	/* unsorted, perf leaves the rounds to no handler */
	if (s->unsorted && rec->type == PK_RECORD_FINISHED_ROUND &&
	    strlen(s->desc) && s->desc[strlen(s->desc) - 1] == '\n') {
		s->desc[strlen(s->desc) - 1] = 0;
		printf("%s: unhandled!\n", s->desc);
	} else {
		fputs(s->desc, stdout);
	}
	/* AUXTRACE_INFO: u32 type after the header; 1 is Intel PT */
	if (rec->type == PK_RECORD_AUXTRACE_INFO && rec->size >= 12)
		s->intel_pt = ((const uint32_t *)rec->hdr)[2] == 1;
	if (rec->type == PK_RECORD_AUXTRACE && s->intel_pt && rec->extra)
		printf(".\n"), script_dump_pt(rec->extra, (size_t)rec->extra_size);
	if (rec->type == PERF_RECORD_SAMPLE)
		sample_thread(s, rec);
	return 0;
}

/* The session's record callback for -D: counts, then the dump. */
static int dump_one(void *ctx, struct pk_session *sess,
		    const struct pk_record *rec)
{
	struct script *s = ctx;

	s->sess = sess;
	if (s->report_dump && cli_stats_count(&s->st, s->pd, rec))
		return -ENOMEM;
	/* perf shows the records a COMPRESSED one holds, not it */
	if (rec->type == PK_RECORD_COMPRESSED)
		return 0;
	return dump_record(s, rec);
}

/* -D's text and the sample lines between, in order, through stdio. */
static int to_stdout(void *ctx, const char *buf, size_t len)
{
	(void)ctx;
	return fwrite(buf, 1, len, stdout) == len ? 0 : -EIO;
}

/* perf report -D: the hint, every record's dump, the counts. */
static int report_dump(struct script *s)
{
	PK_OPTS(pk_tool, tool, .record = dump_one);
	PK_OPTS(pk_session_opts, so, .kallsyms = "");
	struct pk_session *sess;
	int err;

	if (!s->header)
		printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
	/* the machine only names threads and mappings here: no symbols */
	sess = pk_session_new(&so);
	if (!sess) {
		cli_error("report", "out of memory");
		return -ENOMEM;
	}
	err = pk_session_run(sess, s->pd, &tool, s);
	s->sess = NULL;
	pk_session_free(sess);
	fflush(stdout);
	if (err == -ENOMEM) {
		cli_error("report", "out of memory");
		return err;
	}
	if (err) {
		cli_error("report", "%s (%s)", pk_perfdata_errmsg(s->pd),
			  pk_strerror(err));
		return err;
	}
	cli_stats_print(&s->st, s->pd);
	return 0;
}

/* perf's OPT_INTEGER check of an option's value (decimal): its value
 * in *V, or -EINVAL said in perf's words. */
static int int_option(const char *name, const char *arg, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(arg, &end, 10);
	if (*arg && !*end && !errno)
		return 0;
	fprintf(stderr, " Error: option `%s' expects a numerical value\n", name);
	return -EINVAL;
}

/* -l, -s, -g: perf's script engines (Perl, Python), which perfkit has
 * not; said in one line, as a perf built without them refuses them. */
static int no_scripting(int c)
{
	cli_error("script", "%s: perfkit has no Perl or Python scripting engine",
		  c == 'l' ? "--list" : c == 's' ? "--script" : "--gen-script");
	return 1;
}

/* perf's checks of the options' files before the data is read. */
static int check_files(struct script *s)
{
	const char *bad = NULL;
	struct stat st;

	if (s->vmlinux && access(s->vmlinux, R_OK))
		bad = s->vmlinux;
	else if (s->so.kallsyms && access(s->so.kallsyms, R_OK))
		bad = s->so.kallsyms;
	if (bad) {
		fprintf(stderr, "Invalid file: %s\n", bad);
		return -EINVAL;
	}
	if (s->so.reltime && s->so.deltatime) {
		fprintf(stderr, "reltime and deltatime - the two don't get along well. "
			"Please limit to --reltime or --deltatime.\n");
		return -EINVAL;
	}
	/* perf reads a file of another user only with -f */
	if (!s->force && strcmp(s->input, "-") && !stat(s->input, &st) &&
	    S_ISREG(st.st_mode) && st.st_uid && st.st_uid != geteuid()) {
		fprintf(stderr, "File %s not owned by current user or root (use -f to override)\n",
			s->input);
		return -EPERM;
	}
	return 0;
}

static int run(struct script *s)
{
	int err;

	if (s->header || s->header_only)
		cli_perfdata_header(s->pd, s->input, s->show_info);
	if (s->header_only)
		return 0;
	s->so.input = s->input;
	if (!s->dump) {
		fflush(stdout);
		return script_samples(&s->so, s->pd) ? -EINVAL : 0;
	}
	/* perf script -D: each record's dump, then its sample as script
	 * prints it; no closing counts (that is report -D) */
	if (!s->file_order && pk_perfdata_nr_attrs(s->pd) &&
	    !pk_perfdata_attr(s->pd, 0)->sample_id_all)
		printf("WARNING: No sample_id_all support, falling back to unordered processing\n");
	if (s->report_dump)
		return report_dump(s);
	s->so.dump = dump_one;
	s->so.dump_ctx = s;
	s->so.sink = to_stdout;
	s->so.sink_ctx = s;
	err = script_samples(&s->so, s->pd);
	s->sess = NULL;		/* script_samples' own, freed */
	fflush(stdout);
	return err ? -EINVAL : 0;
}

/* What the options and the run left to free (every exit path). */
static void script_fini(struct script *s)
{
	script_filter_fini(&s->so.filt);
	for (int i = 0; i < s->so.nr_stop_bt; i++)
		free(s->so.stop_bt[i]);
	free(s->so.stop_bt);
	s->so.stop_bt = NULL;
	s->so.nr_stop_bt = 0;
	pk_perfdata_free(s->pd);
	s->pd = NULL;
	free(s->desc);
	s->desc = NULL;
	cli_stats_fini(&s->st);
	pk_session_free(s->sess);
	s->sess = NULL;
}

static int script_main(struct script *s, int argc, char **argv);

int cmd_script(int argc, char **argv)
{
	struct script s = { .input = "perf.data" };
	int ret = script_main(&s, argc, argv);

	script_fini(&s);
	return ret;
}

static int script_main(struct script *sp, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "dump-raw-trace", no_argument, NULL, 'D' },
		{ "header", no_argument, NULL, 'H' },
		{ "header-only", no_argument, NULL, 'O' },
		{ "show-info", no_argument, NULL, 'n' },
		{ "file-order", no_argument, NULL, 'o' },
		{ "repair", no_argument, NULL, 'R' },
		{ "fields", required_argument, NULL, 'F' },
		{ "hide-call-graph", no_argument, NULL, 'G' },
		{ "max-stack", required_argument, NULL, SO_MAX_STACK },
		{ "ns", no_argument, NULL, 'N' },
		{ "time", required_argument, NULL, 'T' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'P' },
		{ "tid", required_argument, NULL, 'I' },
		{ "comm", required_argument, NULL, 'c' },
		{ "comms", required_argument, NULL, 'c' },
		{ "dsos", required_argument, NULL, SO_DSOS },
		{ "symbols", required_argument, NULL, 'S' },
		{ "addr-range", required_argument, NULL, SO_ADDR_RANGE },
		{ "reltime", no_argument, NULL, SO_RELTIME },
		{ "deltatime", no_argument, NULL, SO_DELTATIME },
		{ "per-event-dump", no_argument, NULL, SO_PER_EVENT_DUMP },
		{ "show-on-off-events", no_argument, NULL, SO_SHOW_ON_OFF },
		{ "switch-on", required_argument, NULL, SO_SWITCH_ON },
		{ "switch-off", required_argument, NULL, SO_SWITCH_OFF },
		{ "stop-bt", required_argument, NULL, SO_STOP_BT },
		{ "symfs", required_argument, NULL, SO_SYMFS },
		{ "kallsyms", required_argument, NULL, SO_KALLSYMS },
		{ "debug-mode", no_argument, NULL, 'd' },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "dump-unsorted-raw-trace", no_argument, NULL, OPT_UNSORTED },
		{ "show-kernel-path", no_argument, NULL, OPT_ACCEPTED },
		{ "full-source-path", no_argument, NULL, OPT_ACCEPTED },
		{ "inline", no_argument, NULL, OPT_ACCEPTED },
		{ "demangle", no_argument, NULL, OPT_ACCEPTED },
		{ "demangle-kernel", no_argument, NULL, OPT_ACCEPTED },
		{ "stitch-lbr", no_argument, NULL, OPT_ACCEPTED },
		{ "max-blocks", required_argument, NULL, OPT_MAX_BLOCKS },
		{ "list", optional_argument, NULL, 'l' },
		{ "script", required_argument, NULL, 's' },
		{ "gen-script", required_argument, NULL, 'g' },
		{ "report-dump", no_argument, NULL, 'r' }, /* report -D's */
		{ "itrace", optional_argument, NULL, SO_ITRACE },
		{ "no-itrace", no_argument, NULL, SO_NO_ITRACE },
		{ "insn-trace", no_argument, NULL, SO_INSN_TRACE },
		{ "xed", no_argument, NULL, SO_XED },
		{ "call-trace", no_argument, NULL, SO_CALL_TRACE },
		{ "call-ret-trace", no_argument, NULL, SO_CALL_RET_TRACE },
		{ "show-task-events", no_argument, NULL, SO_SHOW_TASK },
		{ "guestkallsyms", required_argument, NULL, SO_GUEST_KALLSYMS },
		{ "guest-code", no_argument, NULL, SO_GUEST_CODE },
		{ "show-mmap-events", no_argument, NULL, SO_SHOW_MMAP },
		{ "show-switch-events", no_argument, NULL, SO_SHOW_SWITCH },
		{ "show-namespace-events", no_argument, NULL, SO_SHOW_NS },
		{ "show-lost-events", no_argument, NULL, SO_SHOW_LOST },
		{ "show-round-events", no_argument, NULL, SO_SHOW_ROUND },
		{ "show-bpf-events", no_argument, NULL, SO_SHOW_BPF },
		{ "show-cgroup-events", no_argument, NULL, SO_SHOW_CGROUP },
		{ "show-text-poke-events", no_argument, NULL, SO_SHOW_TEXT_POKE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char obuf[1 << 20];
	int c, li, ret;
	long blocks;

	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	optind = 1;
	script_fields_init(&sp->so.f);
	sp->so.max_stack = -1;
	while ((li = -1, c = cli_getopt(argc, argv, "+i:DhvF:GC:Ic:S:dfk:l::s:g:",
					 longopts, &li)) != -1) {
		if (c == 'I' && li < 0) /* -I; 'I' from --tid */
			c = 'n';
		if (script_option(&sp->so, c, optarg) == 0)
			continue;
		switch (c) {
		case 'i': sp->input = optarg; break;
		case 'D': sp->dump = true; break;
		case 'r': sp->dump = sp->report_dump = true; break;
		case 'H': sp->header = true; break;
		case 'O': sp->header_only = true; break;
		case 'n': sp->show_info = true; break;
		case 'o': sp->file_order = true; break;
		case 'R': sp->repair = true; break;
		case 'v': cli_verbose++; break;
		case 'f': sp->force = true; break;
		case 'k': sp->vmlinux = optarg; break;
		case OPT_UNSORTED:
			sp->dump = sp->file_order = sp->unsorted = true;
			break;
		case OPT_ACCEPTED: break;	/* (script_opts_more: NOTES) */
		case OPT_MAX_BLOCKS:
			if (int_option("max-blocks", optarg, &blocks))
				return 129;
			break;
		case SO_ADDR_RANGE:
			if (int_option("addr-range", optarg,
				       &sp->so.filt.addr_range))
				return 129;
			break;
		case 'l': case 's': case 'g':
			return no_scripting(c);
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || sp->so.bad) {
		usage(stderr);
		return 2;
	}
	if (check_files(sp))
		return 255;
	if (sp->repair) {
		uint64_t size = 0;

		ret = pk_perfdata_repair(sp->input, &size);
		if (ret) {
			cli_error("script", "%s: %s", sp->input, pk_strerror(ret));
			return 1;
		}
		printf("%s: data size %" PRIu64 "\n", sp->input, size);
		return 0;
	}
	{
		/* perf shows rounds in the file's order (no sorting) */
		PK_OPTS(pk_perfdata_opts, o, .file_order = sp->file_order ||
			(sp->so.show & SO_SHOW_BIT(SO_SHOW_ROUND)));

		sp->pd = pk_perfdata_open(sp->input, &o);
	}
	if (!sp->pd) {
		if (errno == EPROTO)
			cli_error("script", "%s: %s", sp->input,
				  pk_perfdata_open_error());
		else
			cli_error("script", "%s: %s", sp->input, strerror(errno));
		return 1;
	}
	{
		struct pk_perfdata_info in;

		pk_perfdata_info(sp->pd, &in);
		sp->pipe = in.pipe;
	}
	cli_kcore_dir_check("script", sp->pd);
	ret = run(sp);
	if (ret && sp->so.exit_status)
		ret = sp->so.exit_status;
	return ret > 1 ? ret : ret ? 1 : 0;
}
