/* SPDX-License-Identifier: MIT */
/*
 * perfkit pt decode --raw FILE[:FROM[-TO]]:ADDR... --elf FILE[:BIAS]...
 *                   --pt FILE [options]:
 * the executed instructions and events in Intel ptxed's layout.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/pt.h>
#include <perfkit/pt_insn.h>
#include "cli.h"

struct dec_opts {
	bool no_inst, quiet, stat, stat_insn, stat_blocks, event_ip;
	bool stat_work;		/* --stat:work: packets read, insns walked */
	bool event_time, resync, block, show_blocks, end_on_call;
	bool end_on_jump, check;
};

struct stats {
	uint64_t insn, blocks;
	uint64_t packets, walked;	/* --stat:work */
};

/* Block bookkeeping for --block-decoder (blocks end at branches). */
struct blk {
	bool open;
};

static const char *flow_err(int err)
{
	return pk_pt_strerror(err);
}

static const char *mode_name(uint8_t m)
{
	static const char *const n[] = { "<unknown>", "16-bit", "32-bit",
					 "64-bit" };

	return m < 4 ? n[m] : "<invalid>";
}

static void ip_suffix(const struct pk_pt_event *e, const struct dec_opts *o)
{
	if (o->event_ip && !e->ip_suppressed)
		printf(", ip: %016" PRIx64, e->ip);
}

static void print_cfe(const struct pk_pt_event *e)
{
	static const char *const names[] = {
		[1] = "interrupt", [2] = "iret", [3] = "smi", [4] = "rsm",
		[5] = "sipi", [6] = "init", [7] = "vmentry", [8] = "vmexit",
		[9] = "vmexit", [10] = "shutdown", [12] = "uintr",
		[13] = "uiret", [14] = "swintr", [15] = "syscall",
	};
	unsigned t = e->u.cfe.type;

	printf("%s", t < 16 && names[t] ? names[t] : "cfe");
	if (t == 1 || t == 12 || t == 14)
		printf(" %u", e->u.cfe.vector);
	if (t == 5)
		printf(": %x", e->u.cfe.vector);
	if (t == 9)
		printf(", intr: %u", e->u.cfe.vector);
	if (e->u.cfe.has_cr2)
		printf(", cr2: %016" PRIx64, e->u.cfe.cr2);
	if (e->u.cfe.has_vmxr)
		printf(", vmxr: %016" PRIx64, e->u.cfe.vmxr);
	if (e->u.cfe.has_vmxq)
		printf(", vmxq: %016" PRIx64, e->u.cfe.vmxq);
}

static void print_event(const struct pk_pt_event *e, const struct dec_opts *o)
{
	printf("[");
	if (o->event_time && e->has_tsc)
		printf("%016" PRIx64 "  ", e->tsc);
	switch (e->type) {
	case PK_PT_EV_ENABLED:
		printf("%s", e->u.enabled.resumed ? "resumed" : "enabled");
		if (o->event_ip)
			printf(", ip: %016" PRIx64, e->ip);
		break;
	case PK_PT_EV_DISABLED:
		printf("disabled");
		ip_suffix(e, o);
		break;
	case PK_PT_EV_ASYNC_DISABLED:
		printf("disabled");
		if (o->event_ip) {
			printf(", at: %016" PRIx64, e->at);
			ip_suffix(e, o);
		}
		break;
	case PK_PT_EV_ASYNC_BRANCH:
		printf("interrupt");
		if (o->event_ip)
			printf(", from: %016" PRIx64 ", to: %016" PRIx64,
			       e->at, e->ip);
		break;
	case PK_PT_EV_PAGING:
		printf("paging, cr3: %016" PRIx64 "%s", e->u.paging.cr3,
		       e->u.paging.nr ? ", nr" : "");
		ip_suffix(e, o);
		break;
	case PK_PT_EV_OVERFLOW:
		printf("overflow");
		ip_suffix(e, o);
		break;
	case PK_PT_EV_EXEC_MODE:
		printf("exec mode: %s", mode_name(e->u.exec_mode.mode));
		ip_suffix(e, o);
		break;
	case PK_PT_EV_TSX:
		printf("%s", e->u.tsx.aborted ? "aborted" :
		       e->u.tsx.speculative ? "begin transaction" :
		       "committed");
		ip_suffix(e, o);
		break;
	case PK_PT_EV_STOP:
		printf("stopped");
		break;
	case PK_PT_EV_VMCS:
		printf("vmcs, base: %016" PRIx64, e->u.vmcs.base);
		ip_suffix(e, o);
		break;
	case PK_PT_EV_EXSTOP:
		printf("exstop");
		ip_suffix(e, o);
		break;
	case PK_PT_EV_MWAIT:
		printf("mwait %" PRIx32 " %" PRIx32, e->u.mwait.hints,
		       e->u.mwait.ext);
		ip_suffix(e, o);
		break;
	case PK_PT_EV_PWRE:
		printf("pwre c%u.%u%s", (e->u.pwre.state + 1) & 0xf,
		       (e->u.pwre.sub_state + 1) & 0xf,
		       e->u.pwre.hw ? " hw" : "");
		break;
	case PK_PT_EV_PWRX:
		printf("pwrx %s%s%sc%u (c%u)",
		       e->u.pwrx.interrupt ? "int: " : "",
		       e->u.pwrx.store ? "st: " : "",
		       e->u.pwrx.autonomous ? "hw: " : "",
		       (e->u.pwrx.last + 1) & 0xf,
		       (e->u.pwrx.deepest + 1) & 0xf);
		break;
	case PK_PT_EV_PTWRITE:
		printf("ptwrite: %" PRIx64, e->u.ptwrite.payload);
		ip_suffix(e, o);
		break;
	case PK_PT_EV_TICK:
		printf("tick");
		ip_suffix(e, o);
		break;
	case PK_PT_EV_CBR:
		printf("cbr: %x", e->u.cbr.ratio);
		break;
	case PK_PT_EV_MNT:
		printf("mnt: %" PRIx64, e->u.mnt.payload);
		break;
	case PK_PT_EV_CFE:
		print_cfe(e);
		ip_suffix(e, o);
		break;
	case PK_PT_EV_IFLAGS:
		printf("interrupts %s", e->u.iflags.iflag ? "enabled" :
		       "disabled");
		ip_suffix(e, o);
		break;
	case PK_PT_EV_TRIG:
		/* ptxed: two hex digits; the instruction count is used up
		 * by the time the event is delivered */
		printf("trig %02x%s", e->u.trig.trbv,
		       e->u.trig.mult ? ", mult" : "");
		ip_suffix(e, o);
		break;
	default:
		printf("event %u", e->type);
		break;
	}
	printf("]\n");
}

static bool ends_block(uint8_t ic, const struct dec_opts *o)
{
	switch (ic) {
	case PK_PT_IC_OTHER: case PK_PT_IC_PTWRITE: case PK_PT_IC_MOV_CR3:
		return false;
	case PK_PT_IC_CALL:
		return o->end_on_call;
	case PK_PT_IC_JUMP:
		return o->end_on_jump;
	default:
		return true;
	}
}

static void print_insn(const struct pk_pt_insn *in, const struct dec_opts *o,
		       struct stats *st, struct blk *b)
{
	if (o->block && !b->open) {
		b->open = true;
		st->blocks++;
		if (o->show_blocks && !o->quiet)
			printf("[block]\n");
	}
	st->insn++;
	if (!o->quiet) {
		printf("%s%016" PRIx64, in->speculative ? "? " : "", in->ip);
		if (!o->no_inst) {
			char text[256];

			if (pk_pt_insn_disasm(in, text, sizeof(text)) == 0)
				printf("  %s", text);
			else
				printf("  [%u bytes: decode error]", in->size);
		}
		printf("\n");
	}
	if (o->block && ends_block(in->iclass, o))
		b->open = false;
}

static void diagnose(struct pk_pt_insn_decoder *d, uint64_t ip,
		     const char *what, int err)
{
	uint64_t off = 0;

	pk_pt_insn_offset(d, &off);
	printf("[%" PRIx64 ", %" PRIx64 ": %s: %s]\n", off, ip, what,
	       flow_err(err));
}

static int drain(struct pk_pt_insn_decoder *d, int status,
		 const struct dec_opts *o, struct blk *b)
{
	while (status >= 0 && (status & PK_PT_STS_EVENT)) {
		struct pk_pt_event ev;

		status = pk_pt_insn_event(d, &ev);
		if (status < 0)
			break;
		b->open = false;
		if (!o->quiet && !ev.status_update)
			print_event(&ev, o);
	}
	return status;
}

static void decode(struct pk_pt_insn_decoder *d, const struct dec_opts *o,
		   struct stats *st)
{
	struct blk b = { false };

	int status = pk_pt_insn_sync_forward(d);

	if (status < 0) {
		if (status != PK_ERR_EOS)
			diagnose(d, 0, "sync error", status);
		return;
	}
	for (;;) {
		struct pk_pt_insn in = { 0 };

		for (;;) {
			status = drain(d, status, o, &b);
			if (status < 0)
				break;
			if (status & PK_PT_STS_EOS) {
				if (!(status & PK_PT_STS_IP_SUPPRESSED) &&
				    !o->quiet)
					printf("[end of trace]\n");
				status = PK_ERR_EOS;
				break;
			}
			if (o->quiet && !o->block) {
				/* nothing printed per instruction: blocks up
				 * to the next status (counted all the same) */
				struct pk_pt_block bl;
				uint64_t n;

				status = pk_pt_insn_next_blocks(d, &bl, &n);
				st->insn += n;
				in.ip = bl.end_ip;
				if (status < 0)
					break;
				continue;
			}
			status = pk_pt_insn_next(d, &in);
			if (status < 0) {
				if (in.iclass != PK_PT_IC_ERROR)
					print_insn(&in, o, st, &b);
				break;
			}
			print_insn(&in, o, st, &b);
		}
		if (status == PK_ERR_EOS)
			return;
		diagnose(d, in.ip, "error", status);
		if (!o->resync)
			return;
		status = pk_pt_insn_resync(d);
		if (status < 0) {
			if (status == PK_ERR_EOS)
				return;
			diagnose(d, in.ip, "resync error", status);
			status = pk_pt_insn_sync_forward(d);
			if (status < 0) {
				if (status != PK_ERR_EOS)
					diagnose(d, in.ip, "sync error",
						 status);
				return;
			}
		}
	}
}

/* FILE[:FROM[-TO]]:ADDR */
static int add_raw(struct pk_pt_image *img, char *arg)
{
	char *colon = strrchr(arg, ':'), *range, *end;
	uint64_t addr, from = 0, size = 0;
	int err;

	if (!colon)
		return PK_ERR_SYNTAX;
	*colon = 0;
	addr = strtoull(colon + 1, &end, 0);
	if (*end)
		return PK_ERR_SYNTAX;
	range = strrchr(arg, ':');
	if (range) {
		char *dash;

		*range = 0;
		from = strtoull(range + 1, &dash, 0);
		if (*dash == '-') {
			uint64_t to = strtoull(dash + 1, &end, 0);

			if (*end || to <= from)
				return PK_ERR_SYNTAX;
			size = to - from;
		} else if (*dash) {
			return PK_ERR_SYNTAX;
		}
	}
	err = pk_pt_image_add_file(img, arg, from, size, addr);
	return err;
}

static int load(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0) {
		fclose(f);
		return -EIO;
	}
	rewind(f);
	*buf = malloc((size_t)n + 1);
	if (!*buf || fread(*buf, 1, (size_t)n, f) != (size_t)n) {
		free(*buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*len = (size_t)n;
	return 0;
}

static bool num(const char *opt, const char *arg, uint64_t max, uint64_t *v)
{
	char *end;

	if (!arg) {
		cli_error("pt decode", "%s: missing argument", opt);
		return false;
	}
	errno = 0;
	*v = strtoull(arg, &end, 0);
	if (errno || *end || *v > max) {
		cli_error("pt decode", "%s: bad argument: %s", opt, arg);
		return false;
	}
	return true;
}

static const struct {
	const char *name;
	size_t off;
} dec_flags[] = {
#define F(n, f) { n, offsetof(struct dec_opts, f) }
	F("--no-inst", no_inst), F("--quiet", quiet), F("--stat", stat),
	F("--stat:insn", stat_insn), F("--stat:blocks", stat_blocks),
	F("--stat:work", stat_work),
	F("--event:ip", event_ip), F("--event:time", event_time),
	F("--resync-on-error", resync), F("--block-decoder", block),
	F("--block:show-blocks", show_blocks),
	F("--block:end-on-call", end_on_call),
	F("--block:end-on-jump", end_on_jump), F("--check", check),
#undef F
};

/* Options with an argument; returns 1 if ARG was one, -1 on error. */
static int arg_opt(const char *a, const char *v, struct pk_pt_config *cfg,
		   struct pk_pt_insn_opts *io)
{
	uint64_t x;
	unsigned n;
	char what[8];

	if (!strcmp(a, "--cpu")) {
		unsigned fam, mod;

		if (!v)
			return -1;
		if (!strcmp(v, "none") || !strcmp(v, "auto"))
			return 1;
		if (sscanf(v, "%u/%u", &fam, &mod) != 2)
			return -1;
		if (pk_pt_cpu_errata(&cfg->errata, fam, mod) < 0)
			printf("[0, 0: config error: unknown cpu]\n");
		return 1;
	}
	if (sscanf(a, "--filter:addr%u_%7s", &n, what) == 2 && n < 4) {
		if (!num(a, v, UINT64_MAX, &x))
			return -1;
		if (!strcmp(what, "cfg"))
			io->addr_cfg[n] = (uint8_t)x;
		else if (!strcmp(what, "a"))
			io->addr_a[n] = x;
		else if (!strcmp(what, "b"))
			io->addr_b[n] = x;
		else
			return -1;
		return 1;
	}
	if (!strcmp(a, "--mtc-freq") || !strcmp(a, "--nom-freq")) {
		if (!num(a, v, 0xff, &x))
			return -1;
		*(a[2] == 'm' ? &cfg->mtc_freq : &cfg->nom_freq) = (uint8_t)x;
		return 1;
	}
	if (!strcmp(a, "--cpuid-0x15.eax") || !strcmp(a, "--cpuid-0x15.ebx")) {
		if (!num(a, v, UINT32_MAX, &x))
			return -1;
		*(a[14] == 'a' ? &cfg->cpuid_0x15_eax : &cfg->cpuid_0x15_ebx) =
			(uint32_t)x;
		return 1;
	}
	return 0;
}

int cmd_pt_decode(int argc, char **argv)
{
	PK_OPTS(pk_pt_config, cfg);
	PK_OPTS(pk_pt_insn_opts, io);
	struct pk_pt_image *img = pk_pt_image_new();
	struct pk_pt_insn_decoder *d;
	struct dec_opts o;
	struct stats st = { 0, 0, 0, 0 };
	const char *ptfile = NULL;
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc = 2;

	memset(&o, 0, sizeof(o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t k;
		int r;

		for (k = 0; k < sizeof(dec_flags) / sizeof(dec_flags[0]); k++)
			if (!strcmp(a, dec_flags[k].name))
				break;
		if (k < sizeof(dec_flags) / sizeof(dec_flags[0])) {
			*(bool *)((char *)&o + dec_flags[k].off) = true;
		} else if (!strcmp(a, "--insn-decoder")) {
			o.block = false;
		} else if (!strcmp(a, "--event:tick")) {
			io.tick_events = 1;
		} else if (!strcmp(a, "--event:iflags")) {
			io.iflags_events = 1;
		} else if (!strcmp(a, "--insn:keep-tcal-on-ovf") ||
			   !strcmp(a, "--block:keep-tcal-on-ovf")) {
			io.keep_tcal_on_ovf = 1;
		} else if (!strcmp(a, "--raw") && i + 1 < argc) {
			int err = add_raw(img, argv[++i]);

			if (err < 0) {
				cli_error("pt decode", "--raw %s: %s", argv[i],
					  pk_strerror(err));
				goto out;
			}
		} else if (!strcmp(a, "--elf") && i + 1 < argc) {
			char *file = argv[++i], *colon = strrchr(file, ':');
			uint64_t bias = 0;
			int err;

			if (colon && colon[1] >= '0' && colon[1] <= '9') {
				*colon = 0;
				bias = strtoull(colon + 1, NULL, 0);
			}
			err = pk_pt_image_add_elf(img, file, bias);
			if (err < 0) {
				cli_error("pt decode", "--elf %s: %s", file,
					  pk_strerror(err));
				goto out;
			}
		} else if (!strcmp(a, "--pt") && i + 1 < argc) {
			ptfile = argv[++i];
		} else if ((r = arg_opt(a, i + 1 < argc ? argv[i + 1] : NULL,
					&cfg, &io)) != 0) {
			if (r < 0) {
				cli_error("pt decode", "bad option %s", a);
				goto out;
			}
			i++;
		} else {
			cli_error("pt decode", "unknown option: %s", a);
			goto out;
		}
	}
	if (!ptfile) {
		fprintf(stderr, "usage: perfkit pt decode --raw "
			"FILE[:FROM[-TO]]"
			":ADDR... --pt FILE [options]\n");
		goto out;
	}
	if (load(ptfile, &buf, &len) < 0) {
		cli_error("pt decode", "cannot read %s", ptfile);
		rc = 1;
		goto out;
	}
	d = pk_pt_insn_decoder_new(buf, len, &cfg, img, &io);
	if (!d) {
		cli_error("pt decode", "%s", strerror(errno));
		rc = 1;
		goto out;
	}
	decode(d, &o, &st);
	if (o.stat_work)
		pk_pt_insn_work(d, &st.packets, &st.walked);
	pk_pt_insn_decoder_free(d);
	if (o.stat && !o.stat_insn && !o.stat_blocks) {
		o.stat_insn = true;
		o.stat_blocks = o.block;
	}
	if (o.stat_insn)
		printf("insn: %" PRIu64 ".\n", st.insn);
	if (o.stat_blocks)
		printf("blocks: %" PRIu64 ".\n", st.blocks);
	if (o.stat_work)	/* (perfkit's: the decoder's work) */
		printf("work: %" PRIu64 " packets, %" PRIu64 " insns.\n",
		       st.packets, st.walked);
	rc = 0;
out:
	free(buf);
	pk_pt_image_free(img);
	return rc;
}
