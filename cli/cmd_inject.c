/* SPDX-License-Identifier: MIT */
/*
 * perfkit inject --itrace[=LETTERS]: a copy of a perf.data file whose
 * instruction trace is replaced by the samples perf synthesizes from it
 * (perf inject --itrace): the synthesized events join the attrs, their
 * samples go where perf's decoder delivers them (a thread's before its
 * EXIT in timeless files), the AUX area records (AUXTRACE_INFO, AUXTRACE,
 * AUX, ITRACE_START, ID_INDEX) and the AUXTRACE feature are left out;
 * --strip leaves out the other events' samples too.
 *
 * perfkit inject -i FILE --vm-time-correlation[=[dry-run] [OFFSETS]]
 * [--force]: perf's VM time correlation, FILE's guest TSC packets
 * rewritten in place (the library's pk_itrace_vm_time_correlation), its
 * lines printed on stderr as perf prints them, perf's exit statuses (255
 * for a refused command line, 256 less the errno for a refused file).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/itrace.h>
#include <perfkit/perfdata.h>
#include <perfkit/session.h>
#include "cli.h"
#include "inject.h"

struct inj {
	const char *input, *output;
	struct pk_itrace_opts itrace;
	bool strip;
	bool vmtc, vmtc_dry, force;	/* --vm-time-correlation, --force */
	const char *vmtc_args;		/* ... its offsets */
	bool input_set;
	struct pk_perfdata *pd;
	struct pk_pdwriter *w;
	struct pk_session *sess;
	struct pk_itrace *it;
	unsigned nr_file;	/* the input's attrs; synthesized ones after */
	uint8_t buf[1 << 16];
	uint8_t raw[96];	/* a psb/cbr/evt sample's payload */
	uint64_t written;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit inject [-b|--buildid-all|-s] [-i FILE] [-o FILE]\n"
		"       perfkit inject --itrace[=LETTERS] [-i FILE] -o FILE [--strip]\n"
		"       perfkit inject -i FILE --vm-time-correlation[=OPTS] [--force]\n"
		"  Without --itrace: a copy of the stream as perf inject makes it\n"
		"  (default stdin to stdout; a file becomes a file, or a pipe with -o -)\n"
		"  -b, --build-ids      a build-id record for each DSO samples hit\n"
		"      --buildid-all    a build-id record for each DSO mapped\n"
		"      --known-build-ids=\"BUILDID PATH,...\"  build ids to use for them\n"
		"  -s, --sched-stat     merge sched_stat_* into the task's sched_switch\n"
		"  -f, --force          read files other users own\n"
		"  -v, --verbose        more messages\n"
		"  -k, --vmlinux FILE, --kallsyms FILE, --ignore-vmlinux\n"
		"                       accepted as perf does (the files must exist)\n"
		"  -i, --input FILE     perf.data file to read (default perf.data)\n"
		"  -o, --output FILE    perf.data file to write (--itrace: required)\n"
		"      --itrace[=LETTERS] synthesize samples from the instruction\n"
		"                       trace (perf's letters; bare: instructions\n"
		"                       every 100 us and the other defaults)\n"
		"      --strip          leave out the samples of the recorded events\n"
		"      --vm-time-correlation[=[dry-run] [OFFSET[:VMCS[,VMCS]...]]...]\n"
		"                       correlate the time of VM guests with the\n"
		"                       host's: rewrite FILE's guest TSC packets in\n"
		"                       place (dry-run: only report); OFFSET: a TSC\n"
		"                       Offset (of the VMCSs named, else the default)\n"
		"  -f, --force          update the input file in place\n"
		"  -h, --help           this text\n");
}

/* Records perf inject --itrace leaves out. */
static bool dropped(const struct inj *in, const struct pk_record *rec)
{
	switch (rec->type) {
	case PK_RECORD_AUXTRACE_INFO:
	case PK_RECORD_AUXTRACE:
	case PK_RECORD_ID_INDEX:
	case PERF_RECORD_AUX:
	case PERF_RECORD_ITRACE_START:
		return true;
	case PERF_RECORD_SAMPLE:
		return in->strip && (rec->attr < 0 ||
				     (unsigned)rec->attr < in->nr_file);
	default:
		return false;
	}
}

/* A synthesized sample, encoded for its event and written. */
static int synth(void *ctx, const struct pk_itrace_sample *is)
{
	struct inj *in = ctx;
	const struct perf_event_attr *a;
	const uint64_t *ids;
	struct pk_sample sm;
	unsigned nr;
	long n;

	if (is->attr < 0)
		return 0;	/* decoder errors: counted, not samples */
	a = pk_perfdata_attr(in->pd, (unsigned)is->attr);
	ids = pk_perfdata_attr_ids(in->pd, (unsigned)is->attr, &nr);
	memset(&sm, 0, sizeof(sm));
	pk_itrace_sample_fill(is, a->sample_type, &sm);
	sm.id = sm.stream_id = nr ? ids[0] : 0;
	if (a->sample_type & PERF_SAMPLE_RAW) {
		int r = pk_itrace_synth_encode(is, in->raw, sizeof(in->raw));

		sm.raw.data = in->raw;
		sm.raw.size = r > 0 ? (uint32_t)r : 0;
	}
	n = pk_sample_encode(a, &sm, is->cpumode, in->buf, sizeof(in->buf));
	if (n < 0)
		return (int)n;
	in->written++;
	return pk_pdwriter_write(in->w, (const void *)in->buf, NULL, 0);
}

static int record(void *ctx, struct pk_session *s, const struct pk_record *rec)
{
	struct inj *in = ctx;
	int err;

	(void)s;
	if ((err = pk_itrace_record(in->it, rec)))
		return err;
	if (dropped(in, rec))
		return 0;
	return pk_pdwriter_write(in->w, rec->hdr, rec->extra,
				 (size_t)rec->extra_size);
}

/* The synthesized events are made when the decoder reads AUXTRACE_INFO:
 * the trace is read ahead (with it the info) so that the output's attrs
 * can be written before any record. */
static int read_info(struct inj *in)
{
	int err = pk_itrace_read_ahead(in->it);

	if (err)
		return err;
	return pk_itrace_kind_attr(in->it, PK_ITRACE_INSTRUCTIONS) < 0 &&
	       pk_itrace_kind_attr(in->it, PK_ITRACE_BRANCHES) < 0 &&
	       pk_perfdata_nr_attrs(in->pd) == in->nr_file ? -ENOENT : 0;
}

/* The attrs (the input's, then the synthesized), and the features but
 * AUXTRACE (gone), EVENT_DESC (made from the attrs) and CMDLINE (ours). */
static int header(struct inj *in, int argc, char **argv)
{
	unsigned n = pk_perfdata_nr_attrs(in->pd);
	int err = 0;

	for (unsigned i = 0; i < n && !err; i++) {
		unsigned nr;
		const uint64_t *ids = pk_perfdata_attr_ids(in->pd, i, &nr);

		err = pk_pdwriter_add_attr(in->w, pk_perfdata_attr(in->pd, i),
					   ids, nr, pk_perfdata_attr_name(in->pd, i));
		err = err < 0 ? err : 0;
	}
	for (int f = 1; f < PK_HEADER_MAX && !err; f++) {
		const void *data;
		uint64_t size;

		if (f == PK_HEADER_AUXTRACE || f == PK_HEADER_EVENT_DESC ||
		    f == PK_HEADER_CMDLINE || !pk_perfdata_has_feat(in->pd, f) ||
		    pk_perfdata_feat_raw(in->pd, f, &data, &size))
			continue;
		err = pk_pdwriter_feat_raw(in->w, f, data, (size_t)size);
	}
	/* perf inject: samples with branch stacks are said in the header */
	if (!err && (in->itrace.last_branch || in->itrace.add_last_branch))
		err = pk_pdwriter_feat_raw(in->w, PK_HEADER_BRANCH_STACK, NULL, 0);
	if (!err)
		err = pk_pdwriter_feat_cmdline(in->w, argc, argv);
	return err;
}

static int run(struct inj *in, int argc, char **argv)
{
	PK_OPTS(pk_tool, tool, .record = record);
	int err;

	in->pd = pk_perfdata_open(in->input, NULL);
	if (!in->pd) {
		cli_error("inject", "%s: %s", in->input, errno == EPROTO ?
			  pk_perfdata_open_error() : strerror(errno));
		return 1;
	}
	cli_kcore_dir_check("inject", in->pd);
	in->nr_file = pk_perfdata_nr_attrs(in->pd);
	in->sess = pk_session_new(NULL);
	if (!in->sess)
		return -ENOMEM;
	in->it = pk_itrace_new(in->pd, in->sess, &in->itrace, synth, in);
	if (!in->it || (err = read_info(in))) {
		cli_error("inject", "%s: %s", in->input,
			  !in->it ? strerror(errno) :
			  "no AUX area trace information (AUXTRACE_INFO) to synthesize from");
		return 1;
	}
	if (pk_itrace_kind_attr(in->it, PK_ITRACE_INSTRUCTIONS) < 0 &&
	    pk_itrace_kind_attr(in->it, PK_ITRACE_BRANCHES) < 0 &&
	    pk_perfdata_nr_attrs(in->pd) == in->nr_file) {
		cli_error("inject", "%s: the trace is not an Intel PT trace perfkit decodes",
			  in->input);
		return 1;
	}
	{
		/* from a directory perf writes one: OUT/data, its kcore_dir
		 * copied */
		char data[4096];
		const char *out = in->output;

		if (pk_perfdata_dir(in->pd)) {
			if (cli_kcore_dir_out("inject", in->output, data,
					      sizeof(data)))
				return 1;
			out = data;
		}
		in->w = pk_pdwriter_open(out, NULL);
		if (!in->w) {
			cli_error("inject", "%s: %s", out, strerror(errno));
			return 1;
		}
	}
	if ((err = header(in, argc, argv))) {
		cli_error("inject", "%s: %s", in->output, strerror(-err));
		return 1;
	}
	err = pk_session_run(in->sess, in->pd, &tool, in);
	if (!err)
		err = pk_itrace_flush(in->it);
	if (!err)
		cli_itrace_unsynthesized("inject", in->input, in->it);
	if (err)
		cli_error("inject", "%s: %s", in->input, err > -4096 && err < 0 ?
			  strerror(-err) : pk_perfdata_errmsg(in->pd));
	if (pk_pdwriter_close(in->w) && !err) {
		cli_error("inject", "%s: %s", in->output, strerror(errno));
		err = -EIO;
	}
	in->w = NULL;
	if (!err && pk_perfdata_dir(in->pd) &&
	    cli_kcore_dir_copy("inject", pk_perfdata_dir(in->pd), in->output))
		err = -EIO;
	return err ? 1 : 0;
}

static void vmtc_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

/* perf inject --vm-time-correlation: its refusals of the command line,
 * then the file updated in place. */
static int vm_time_correlation(struct inj *in)
{
	PK_OPTS(pk_itrace_vmtc_opts, o, .args = in->vmtc_args,
		.dry_run = in->vmtc_dry, .timeless = in->itrace.timeless,
		.msg = vmtc_line);
	int err;

	if (!in->input_set || !strcmp(in->input, "-")) {
		fprintf(stderr, "Input file name required for in-place updating\n");
		return 255;
	}
	if (in->output) {
		fprintf(stderr, "Output file name must not be specified for in-place updating\n");
		return 255;
	}
	if (!in->force && !in->vmtc_dry) {
		fprintf(stderr, "The input file would be updated in place, "
			"the --force option is required.\n");
		return 255;
	}
	err = pk_itrace_vm_time_correlation(in->input, &o);
	if (err >= 0)
		return 0;
	if (err == -EINVAL || err == -ERANGE)
		return 256 + err;	/* said, as perf says it */
	cli_error("inject", "%s: %s", in->input,
		  err == -EOPNOTSUPP ? "VM time correlation of a snapshot or "
		  "sampling mode trace is not supported" :
		  err == PK_ERR_FORMAT ? pk_perfdata_open_error() :
		  err > -4096 ? strerror(-err) : "bad perf.data file");
	return 1;
}

int cmd_inject(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "itrace", optional_argument, NULL, 'I' },
		{ "strip", no_argument, NULL, 'S' },
		{ "build-ids", no_argument, NULL, 'b' },
		{ "buildid-all", no_argument, NULL, 'B' },
		{ "known-build-ids", required_argument, NULL, 'K' },
		{ "sched-stat", no_argument, NULL, 's' },
		{ "jit", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "force", no_argument, NULL, 'f' },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "kallsyms", required_argument, NULL, 'A' },
		{ "ignore-vmlinux", no_argument, NULL, 'G' },
		{ "vm-time-correlation", optional_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct inj *in = calloc(1, sizeof(*in));
	struct inj_copy cp = { .input = "-", .output = "-" };
	bool itrace = false, jit = false;
	int c, ret;

	if (!in) {
		cli_error("inject", "out of memory");
		return 1;
	}
	in->input = "perf.data";
	in->itrace.sz = sizeof(in->itrace);
	optind = 1;
	while ((c = cli_getopt(argc, argv, "+i:o:hbsjvfk:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			in->input = cp.input = optarg;
			in->input_set = true;
			break;
		case 'o': in->output = cp.output = optarg; break;
		case 'S': in->strip = true; break;
		case 'b': cp.build_ids = true; break;
		case 'B': cp.buildid_all = true; break;
		case 'K': cp.known_build_ids = optarg; break;
		case 's': cp.sched_stat = true; break;
		case 'j': jit = true; break;
		case 'v': cli_verbose++; break;
		case 'f': cp.force = in->force = true; break;
		case 'k': case 'A':
			if (access(optarg, R_OK)) {
				cli_error("inject", "invalid file: %s", optarg);
				free(in);
				return 255;
			}
			break;
		case 'G': break;
		case 'V': {
			/* perf: "dry-run" first (spaces before it skipped),
			 * the offsets after it */
			const char *a = optarg;

			while (a && (*a == ' ' || (*a >= '\t' && *a <= '\r')))
				a++;
			in->vmtc = true;
			in->vmtc_dry = a && !strncmp(a, "dry-run", 7);
			in->vmtc_args = in->vmtc_dry ? a + 7 : optarg;
			break;
		}
		case 'I':
			itrace = true;
			if (optarg && cli_itrace_opts("inject", optarg,
						      &in->itrace)) {
				free(in);
				return 2;
			}
			if (!optarg)
				/* perf inject's default: report's, no
				 * call chains */
				pk_itrace_set_default(&in->itrace, false),
				in->itrace.set = true;
			break;
		case 'h': usage(stdout); free(in); return 0;
		default: usage(stderr); free(in); return 2;
		}
	}
	if (in->vmtc && optind == argc) {
		ret = vm_time_correlation(in);
		free(in);
		return ret;
	}
	if (optind < argc || in->strip != itrace * in->strip || jit) {
		cli_error("inject", "%s", jit ? "--jit is not supported yet" :
			  optind < argc ? "unexpected argument" :
			  "--strip option requires --itrace option");
		free(in);
		return 2;
	}
	if (!itrace) {
		free(in);
		ret = inj_copy_run(&cp, argc, argv);
		inj_bid_free(&cp);
		inj_sched_free(&cp);
		pk_perfdata_free(cp.pd);
		pk_session_free(cp.sess);
		return ret;
	}
	if (!in->output) {
		cli_error("inject", "%s", "-o FILE is required");
		free(in);
		return 2;
	}
	ret = run(in, argc, argv);
	if (in->w)
		pk_pdwriter_close(in->w);
	pk_itrace_free(in->it);
	pk_session_free(in->sess);
	pk_perfdata_free(in->pd);
	free(in);
	return ret;
}
