/* SPDX-License-Identifier: MIT */
/*
 * perfkit pt: Intel PT tools.
 *   perfkit pt dump [options] FILE   packets in Intel ptdump's layout
 *   perfkit pt decode ...            instruction flow (cmd_pt_decode.c)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/pt.h>
#include "cli.h"

struct dump_opts {
	bool show_offset, raw, lastip, exec_mode, track_time, show_time;
	bool show_tcal, delta, quiet, no_pad, no_sync, no_tcal, no_wall_clock;
	bool no_timing, no_cyc, keep_tcal_on_ovf;
};

struct dump_state {
	struct pk_pt_last_ip lip;
	struct pk_pt_tcal tcal;
	struct pk_pt_time time;
	uint64_t tsc, fcr;
	bool in_header;
};

/* One output line, as ptdump lays it out in fixed-size fields. */
struct line {
	char offset[17];
	char raw[33];
	char opcode[10];
	char payload[48];	/* 25 for standard payloads, 48 for TNT */
	bool ext;
	char tid[5];
	char tpay[17];
	bool skip, skip_time, skip_tcal;
};

/* snprintf into a fixed field, truncating as ptdump does. */
__attribute__((format(printf, 3, 4)))
static int fieldf(char *f, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(f, size, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : n >= (int)size ? (int)size - 1 : n;
}
#define FIELD(f, ...) fieldf((f), sizeof(f), __VA_ARGS__)
#define PAYLOAD(l, ...) fieldf((l)->payload, 25, __VA_ARGS__)

static int diag(const char *what, uint64_t off, int err)
{
	if (err)
		printf("[%" PRIx64 ": %s: %s]\n", off, what,
		       pk_pt_strerror(err));
	else
		printf("[%" PRIx64 ": %s]\n", off, what);
	return err;
}

static void state_reset(struct dump_state *s)
{
	memset(s, 0, sizeof(*s));
	pk_pt_tcal_init(&s->tcal);
	pk_pt_time_init(&s->time);
}

static void line_print(const struct line *l, const struct dump_opts *o)
{
	const char *sep = "";

	if (l->skip || o->quiet)
		return;
	if (o->show_offset) {
		printf("%-17s", l->offset);
		sep = " ";
	}
	if (l->raw[0]) {
		printf("%s%-33s", sep, l->raw);
		sep = " ";
	}
	if (l->payload[0])
		printf("%s%-10s", sep, l->opcode);
	else
		printf("%s%s", sep, l->opcode);
	if (l->ext)
		printf(" %.48s", l->payload);
	else if (l->tid[0])
		printf(" %-25s %-5s%s", l->payload, l->tid, l->tpay);
	else if (l->payload[0])
		printf(" %s", l->payload);
	putchar('\n');
}

/* ---- time ---- */

static void print_tcal(struct line *l, struct dump_state *s, uint64_t off,
		       const struct dump_opts *o)
{
	uint64_t fcr;
	int err;

	FIELD(l->tid, "fcr");
	err = pk_pt_tcal_fcr(&s->tcal, &fcr);
	if (err < 0) {
		FIELD(l->tpay, "<unavailable>");
		diag("error printing time", off, err);
		return;
	}
	if (o->delta) {
		FIELD(l->tpay, "%+.3f", (double)fcr / 256.0 -
					(double)s->fcr / 256.0);
		s->fcr = fcr;
	} else {
		FIELD(l->tpay, "%.3f", (double)fcr / 256.0);
	}
}

static void print_time(struct line *l, struct dump_state *s, uint64_t off,
		       const struct dump_opts *o)
{
	uint64_t tsc;
	int err;

	FIELD(l->tid, "tsc");
	err = pk_pt_time_query(&s->time, &tsc);
	if (err < 0 && !(err == PK_PT_ERR_NO_TIME && o->no_wall_clock)) {
		diag("error printing time", off, err);
		FIELD(l->tpay, "<unavailable>");
		return;
	}
	if (o->delta) {
		if (s->tsc <= tsc)
			FIELD(l->tpay, "+%" PRIx64, tsc - s->tsc);
		else
			FIELD(l->tpay, "-%" PRIx64, s->tsc - tsc);
		s->tsc = tsc;
	} else {
		FIELD(l->tpay, "%016" PRIx64, tsc);
	}
}

static void track_time(struct line *l, struct dump_state *s, uint64_t off,
		       const struct dump_opts *o)
{
	if (o->show_tcal && !l->skip_tcal)
		print_tcal(l, s, off, o);
	if (o->show_time && !l->skip_time)
		print_time(l, s, off, o);
}

static void tcal_err(int err, uint64_t off)
{
	if (err < 0)
		diag("error calibrating time", off, err);
}

static void time_err(int err, uint64_t off)
{
	if (err < 0)
		diag("error updating time", off, err);
}

static void track_timing(struct line *l, struct dump_state *s, uint64_t off,
			 const struct pk_pt_packet *p,
			 const struct dump_opts *o,
			 const struct pk_pt_config *cfg)
{
	uint64_t fcr = 0;
	int err;

	switch (p->type) {
	case PK_PT_TSC:
		if (!o->no_tcal)
			tcal_err(pk_pt_tcal_tsc(&s->tcal, p->u.tsc.tsc,
						s->in_header), off);
		time_err(pk_pt_time_tsc(&s->time, p->u.tsc.tsc), off);
		break;
	case PK_PT_CBR:
		if (!o->no_tcal)
			tcal_err(pk_pt_tcal_cbr(&s->tcal, p->u.cbr.ratio,
						s->in_header, cfg), off);
		time_err(pk_pt_time_cbr(&s->time, p->u.cbr.ratio), off);
		l->skip_time = true;
		break;
	case PK_PT_TMA:
		time_err(pk_pt_time_tma(&s->time, p->u.tma.ctc, p->u.tma.fc,
					cfg), off);
		l->skip_tcal = true;
		break;
	case PK_PT_MTC:
		if (!o->no_tcal)
			tcal_err(pk_pt_tcal_mtc(&s->tcal, p->u.mtc.ctc, cfg),
				 off);
		time_err(pk_pt_time_mtc(&s->time, p->u.mtc.ctc, cfg), off);
		break;
	case PK_PT_CYC:
		if (!o->no_tcal) {
			err = pk_pt_tcal_fcr(&s->tcal, &fcr);
			if (err < 0) {
				diag("calibration error", off, err);
				fcr = 0;
			}
			tcal_err(pk_pt_tcal_cyc(&s->tcal, p->u.cyc.value),
				 off);
		}
		err = pk_pt_time_cyc(&s->time, p->u.cyc.value, cfg, fcr);
		if (err < 0)
			time_err(err, off);
		else if (!fcr)
			diag("error updating time: no calibration", off, 0);
		l->skip_tcal = true;
		break;
	default:
		return;
	}
	track_time(l, s, off, o);
}

/* ---- packet payloads ---- */

static void ip_payload(struct line *l, const struct pk_pt_packet *p)
{
	uint64_t ip = p->u.ip.ip;

	switch (p->u.ip.ipc) {
	case PK_PT_IPC_SUPPRESSED:
		PAYLOAD(l, "0: ????????????????");
		break;
	case PK_PT_IPC_UPDATE_16:
		PAYLOAD(l, "1: ????????????%04" PRIx64, ip);
		break;
	case PK_PT_IPC_UPDATE_32:
		PAYLOAD(l, "2: ????????%08" PRIx64, ip);
		break;
	case PK_PT_IPC_UPDATE_48:
		PAYLOAD(l, "4: ????%012" PRIx64, ip);
		break;
	case PK_PT_IPC_SEXT_48:
		PAYLOAD(l, "3: %016" PRIx64, pk_pt_sext48(ip));
		break;
	default:
		PAYLOAD(l, "%x: %016" PRIx64, p->u.ip.ipc, ip);
		break;
	}
}

static void track_last_ip(struct line *l, struct dump_state *s, uint64_t off,
			  const struct pk_pt_packet *p)
{
	uint64_t ip;
	int err;

	FIELD(l->tid, "ip");
	err = pk_pt_last_ip_update(&s->lip, p->u.ip.ipc, p->u.ip.ip);
	if (err < 0) {
		FIELD(l->tpay, "<unavailable>");
		diag("error tracking last-ip", off, err);
		return;
	}
	err = pk_pt_last_ip_query(&s->lip, &ip);
	if (err == PK_PT_ERR_IP_SUPPRESSED) {
		FIELD(l->tpay, "<suppressed>");
	} else if (err < 0) {
		FIELD(l->tpay, "<unavailable>");
		diag("error tracking last-ip", off, err);
	} else {
		FIELD(l->tpay, "%016" PRIx64, ip);
	}
}

static void tnt_payload(struct line *l, const struct pk_pt_packet *p)
{
	unsigned bits = p->u.tnt.bits;

	for (unsigned i = 0; i < bits && i < sizeof(l->payload); i++)
		l->payload[i] = (p->u.tnt.payload >> (bits - 1 - i)) & 1
				? '!' : '.';
	l->ext = true;
}

static const char *cfe_name(unsigned type)
{
	static const char *const names[] = {
		[1] = "intr", [2] = "iret", [3] = "smi", [4] = "rsm",
		[5] = "sipi", [6] = "init", [7] = "vmentry", [8] = "vmexit",
		[9] = "vmexit_intr", [10] = "shutdown", [12] = "uintr",
		[13] = "uiret", [14] = "swintr", [15] = "syscall",
	};

	return type < 16 && names[type] ? names[type] : "unknown";
}

static void cfe_payload(struct line *l, const struct pk_pt_packet *p)
{
	unsigned t = p->u.cfe.type;
	const char *ip = p->u.cfe.ip ? ", ip" : "";

	if (t == 1 || t == 9 || t == 12 || t == 14)
		PAYLOAD(l, "%u: %u%s", t, p->u.cfe.vector, ip);
	else if (t == 5)
		PAYLOAD(l, "%u: %x%s", t, p->u.cfe.vector, ip);
	else
		PAYLOAD(l, "%u%s", t, ip);
	FIELD(l->tid, "type");
	FIELD(l->tpay, "%s", cfe_name(t));
}

static void evd_payload(struct line *l, const struct pk_pt_packet *p)
{
	static const char *const names[] = { "cr2", "vmxq", "vmxr" };
	unsigned t = p->u.evd.type;

	PAYLOAD(l, "%u: %" PRIx64, t, p->u.evd.payload);
	FIELD(l->tid, "type");
	FIELD(l->tpay, "%s", t < 3 ? names[t] : "unknown");
}

static void trig_payload(struct line *l, const struct pk_pt_packet *p)
{
	char icnt[16] = "";

	if (p->u.trig.icntv)
		snprintf(icnt, sizeof(icnt), ", icnt: %u", p->u.trig.icnt);
	PAYLOAD(l, "%02x%s%s%s", p->u.trig.trbv, p->u.trig.ip ? ", ip" : "",
		p->u.trig.mult ? ", mult" : "", icnt);
}

static const char *pwrx_wr(const struct pk_pt_packet *p)
{
	int n = p->u.pwrx.interrupt + p->u.pwrx.store + p->u.pwrx.autonomous;

	if (n != 1)
		return "bad";
	return p->u.pwrx.interrupt ? "int" : p->u.pwrx.store ? " st" : " hw";
}

static void exec_payload(struct line *l, const struct pk_pt_packet *p,
			 const struct dump_opts *o)
{
	const char *parts[3];
	int n = 0;
	size_t len = 0;

	if (p->u.exec.csd)
		parts[n++] = "cs.d";
	if (p->u.exec.csl)
		parts[n++] = "cs.l";
	if (p->u.exec.iflag)
		parts[n++] = "if";
	for (int i = 0; i < n; i++)
		len += (size_t)fieldf(l->payload + len, 25 - len, "%s%s",
				      i ? ", " : "", parts[i]);
	if (o->exec_mode) {
		const char *em = "16-bit";

		if (p->u.exec.csl && p->u.exec.csd)
			em = "unknown";
		else if (p->u.exec.csl)
			em = "64-bit";
		else if (p->u.exec.csd)
			em = "32-bit";
		FIELD(l->tid, "em");
		FIELD(l->tpay, "%s", em);
	}
}

static void set_op(struct line *l, const char *name)
{
	FIELD(l->opcode, "%s", name);
}

/* Fills L for packet P; returns false for a packet ptdump cannot print. */
static void format_packet(struct line *l, struct dump_state *s, uint64_t off,
			  const struct pk_pt_packet *p,
			  const struct dump_opts *o,
			  const struct pk_pt_config *cfg)
{
	static const char *const ipname[] = {
		[PK_PT_FUP] = "fup", [PK_PT_TIP] = "tip",
		[PK_PT_TIP_PGE] = "tip.pge", [PK_PT_TIP_PGD] = "tip.pgd",
	};
	const typeof(p->u) *u = &p->u;

	switch (p->type) {
	case PK_PT_INVALID: set_op(l, "<invalid>"); break;
	case PK_PT_PSB:
		set_op(l, "psb");
		if (o->track_time)
			tcal_err(pk_pt_tcal_psb(&s->tcal, cfg), off);
		s->in_header = true;
		break;
	case PK_PT_PSBEND:
		set_op(l, "psbend");
		s->in_header = false;
		break;
	case PK_PT_PAD:
		set_op(l, "pad");
		l->skip = o->no_pad;
		break;
	case PK_PT_OVF:
		set_op(l, "ovf");
		if (o->track_time) {
			if (o->keep_tcal_on_ovf)
				tcal_err(pk_pt_tcal_ovf(&s->tcal), off);
			else
				pk_pt_tcal_init(&s->tcal);
		}
		break;
	case PK_PT_STOP: set_op(l, "stop"); break;
	case PK_PT_FUP: case PK_PT_TIP: case PK_PT_TIP_PGE:
	case PK_PT_TIP_PGD:
		set_op(l, ipname[p->type]);
		ip_payload(l, p);
		if (o->lastip)
			track_last_ip(l, s, off, p);
		break;
	case PK_PT_PIP:
		set_op(l, "pip");
		PAYLOAD(l, "%" PRIx64 "%s", u->pip.cr3,
			u->pip.nr ? ", nr" : "");
		FIELD(l->tid, "cr3");
		FIELD(l->tpay, "%016" PRIx64, u->pip.cr3);
		break;
	case PK_PT_VMCS:
		set_op(l, "vmcs");
		PAYLOAD(l, "%" PRIx64, u->vmcs.base);
		FIELD(l->tid, "vmcs");
		FIELD(l->tpay, "%016" PRIx64, u->vmcs.base);
		break;
	case PK_PT_TNT_8: set_op(l, "tnt.8"); tnt_payload(l, p); break;
	case PK_PT_TNT_64: set_op(l, "tnt.64"); tnt_payload(l, p); break;
	case PK_PT_MODE_EXEC:
		set_op(l, "mode.exec");
		exec_payload(l, p, o);
		break;
	case PK_PT_MODE_TSX:
		set_op(l, "mode.tsx");
		PAYLOAD(l, "%s%s%s", u->tsx.intx ? "intx" : "",
			u->tsx.intx && u->tsx.abrt ? ", " : "",
			u->tsx.abrt ? "abrt" : "");
		break;
	case PK_PT_TSC:
		set_op(l, "tsc");
		PAYLOAD(l, "%" PRIx64, u->tsc.tsc);
		goto timing;
	case PK_PT_CBR:
		set_op(l, "cbr");
		PAYLOAD(l, "%x", u->cbr.ratio);
		goto timing;
	case PK_PT_TMA:
		set_op(l, "tma");
		PAYLOAD(l, "%x, %x", u->tma.ctc, u->tma.fc);
		goto timing;
	case PK_PT_MTC:
		set_op(l, "mtc");
		PAYLOAD(l, "%x", u->mtc.ctc);
		goto timing;
	case PK_PT_CYC:
		set_op(l, "cyc");
		PAYLOAD(l, "%" PRIx64, u->cyc.value);
		if (o->track_time && !o->no_cyc)
			track_timing(l, s, off, p, o, cfg);
		l->skip = l->skip || o->no_timing || o->no_cyc;
		break;
	case PK_PT_MNT:
		set_op(l, "mnt");
		PAYLOAD(l, "%" PRIx64, u->mnt.payload);
		break;
	case PK_PT_EXSTOP:
		set_op(l, "exstop");
		PAYLOAD(l, "%s", u->exstop.ip ? "ip" : "");
		break;
	case PK_PT_MWAIT:
		set_op(l, "mwait");
		PAYLOAD(l, "%08x, %08x", u->mwait.hints, u->mwait.ext);
		break;
	case PK_PT_PWRE:
		set_op(l, "pwre");
		PAYLOAD(l, "c%u.%u%s", (u->pwre.state + 1) & 0xf,
			(u->pwre.sub_state + 1) & 0xf,
			u->pwre.hw ? ", hw" : "");
		break;
	case PK_PT_PWRX:
		set_op(l, "pwrx");
		PAYLOAD(l, "%s: c%u, c%u", pwrx_wr(p), (u->pwrx.last + 1) & 0xf,
			(u->pwrx.deepest + 1) & 0xf);
		break;
	case PK_PT_PTW:
		set_op(l, "ptw");
		PAYLOAD(l, "%x: %" PRIx64 "%s", u->ptw.plc, u->ptw.payload,
			u->ptw.ip ? ", ip" : "");
		break;
	case PK_PT_CFE: set_op(l, "cfe"); cfe_payload(l, p); break;
	case PK_PT_EVD: set_op(l, "evd"); evd_payload(l, p); break;
	case PK_PT_TRIG: set_op(l, "trig"); trig_payload(l, p); break;
	default: set_op(l, "<unknown>"); break;
	}
	return;
timing:
	if (o->track_time)
		track_timing(l, s, off, p, o, cfg);
	l->skip = l->skip || o->no_timing;
}

static void raw_bytes(struct line *l, const uint8_t *buf, uint64_t off,
		      unsigned size)
{
	for (unsigned i = 0; i < size && 2 * i + 2 < sizeof(l->raw); i++)
		snprintf(l->raw + 2 * i, 3, "%02x", buf[off + i]);
}

/* Dumps from the current position to the end or the first error: 0 at the
 * end, the error otherwise (already reported). */
static int dump_packets(struct pk_pt_decoder *dec, const uint8_t *buf,
			struct dump_state *s, const struct dump_opts *o,
			const struct pk_pt_config *cfg)
{
	for (;;) {
		struct pk_pt_packet p;
		struct line l;
		uint64_t off = 0;
		int n;

		pk_pt_offset(dec, &off);
		n = pk_pt_next(dec, &p);
		if (n == PK_ERR_EOS)
			return 0;
		if (n < 0)
			return diag("error decoding packet", off, n);
		memset(&l, 0, sizeof(l));
		FIELD(l.offset, "%016" PRIx64, off);
		if (o->raw)
			raw_bytes(&l, buf, off, (unsigned)n);
		format_packet(&l, s, off, &p, o, cfg);
		line_print(&l, o);
	}
}

static int dump(const uint8_t *buf, size_t len, const struct dump_opts *o,
		const struct pk_pt_config *cfg)
{
	struct pk_pt_decoder *dec = pk_pt_decoder_new(buf, len, cfg);
	struct dump_state s;
	int err;

	if (!dec)
		return diag("failed to allocate decoder", 0, 0);
	state_reset(&s);
	err = o->no_sync ? pk_pt_sync_set(dec, 0) : pk_pt_sync_forward(dec);
	if (err == PK_ERR_EOS)
		err = 0;
	else if (err < 0)
		diag("sync error", 0, err);
	else
		for (;;) {
			if (!dump_packets(dec, buf, &s, o, cfg))
				break;
			err = pk_pt_sync_forward(dec);
			if (err < 0) {
				if (err != PK_ERR_EOS)
					diag("sync error", 0, err);
				err = err == PK_ERR_EOS ? 0 : err;
				break;
			}
			state_reset(&s);
		}
	pk_pt_decoder_free(dec);
	return err;
}

/* ---- arguments ---- */

static int load(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = NULL;

	if (!f)
		return -errno;
	for (;;) {
		uint8_t *nb = realloc(b, cap);
		size_t got;

		if (!nb) {
			free(b);
			fclose(f);
			return -ENOMEM;
		}
		b = nb;
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		cap *= 2;
	}
	fclose(f);
	*buf = b;
	*len = n;
	return 0;
}

static bool get_u64(const char *opt, const char *arg, uint64_t max,
		    uint64_t *val)
{
	char *end;

	if (!arg || !*arg) {
		cli_error("pt dump", "%s: missing argument", opt);
		return false;
	}
	errno = 0;
	*val = strtoull(arg, &end, 0);
	if (errno || *end || *val > max) {
		cli_error("pt dump", "%s: bad argument: %s", opt, arg);
		return false;
	}
	return true;
}

/* --cpu none|f/m[/s]: errata for that cpu (ptdump reports unknown ones). */
static bool parse_cpu(const char *arg, struct pk_pt_config *cfg)
{
	unsigned fam, mod, step;
	int err;

	if (!arg) {
		cli_error("pt dump", "--cpu: missing argument");
		return false;
	}
	if (!strcmp(arg, "none")) {
		memset(&cfg->errata, 0, sizeof(cfg->errata));
		return true;
	}
	if (sscanf(arg, "%u/%u/%u", &fam, &mod, &step) < 2) {
		cli_error("pt dump", "--cpu: bad cpu: %s", arg);
		return false;
	}
	err = pk_pt_cpu_errata(&cfg->errata, fam, mod);
	if (err < 0)
		diag("failed to determine errata", 0, err);
	return true;
}

static const struct {
	const char *name;
	size_t off;
} flag_opts[] = {
#define F(n, f) { n, offsetof(struct dump_opts, f) }
	F("--no-sync", no_sync), F("--quiet", quiet), F("--no-pad", no_pad),
	F("--no-timing", no_timing), F("--no-cyc", no_cyc),
	F("--raw", raw), F("--lastip", lastip), F("--exec-mode", exec_mode),
	F("--time-delta", delta), F("--no-tcal", no_tcal),
	F("--no-wall-clock", no_wall_clock),
	F("--keep-tcal-on-ovf", keep_tcal_on_ovf),
#undef F
};

static void dump_usage(FILE *f)
{
	fprintf(f,
"usage: perfkit pt dump [options] FILE\n"
"  --no-sync --quiet --no-pad --no-timing --no-cyc --no-offset --raw\n"
"  --lastip --exec-mode --time --tcal --time-delta --no-tcal\n"
"  --no-wall-clock --keep-tcal-on-ovf --cpu none|F/M[/S]\n"
"  --mtc-freq N --nom-freq N --cpuid-0x15.eax N --cpuid-0x15.ebx N\n");
}

/* 1: parsed; 0: handled (help); -1: usage error. */
static int dump_args(int argc, char **argv, struct dump_opts *o,
		     struct pk_pt_config *cfg, const char **file)
{
	o->show_offset = true;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		uint64_t v;
		size_t k;

		if (a[0] != '-') {
			if (i != argc - 1)
				return -1;
			*file = a;
			return 1;
		}
		for (k = 0; k < sizeof(flag_opts) / sizeof(flag_opts[0]); k++)
			if (!strcmp(a, flag_opts[k].name))
				break;
		if (k < sizeof(flag_opts) / sizeof(flag_opts[0])) {
			*(bool *)((char *)o + flag_opts[k].off) = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			dump_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--no-offset")) {
			o->show_offset = false;
		} else if (!strcmp(a, "--time") || !strcmp(a, "--tcal")) {
			bool tcal = a[2] == 't' && a[3] == 'c';

			if (tcal ? o->show_time : o->show_tcal) {
				cli_error("pt dump",
					  "specify either --time or --tcal");
				return -1;
			}
			o->track_time = true;
			*(tcal ? &o->show_tcal : &o->show_time) = true;
		} else if (!strcmp(a, "--cpu")) {
			if (!parse_cpu(argv[++i], cfg))
				return -1;
		} else if (!strcmp(a, "--mtc-freq")) {
			if (!get_u64(a, argv[++i], 0xff, &v))
				return -1;
			cfg->mtc_freq = (uint8_t)v;
		} else if (!strcmp(a, "--nom-freq")) {
			if (!get_u64(a, argv[++i], 0xff, &v))
				return -1;
			cfg->nom_freq = (uint8_t)v;
		} else if (!strcmp(a, "--cpuid-0x15.eax")) {
			if (!get_u64(a, argv[++i], UINT32_MAX, &v))
				return -1;
			cfg->cpuid_0x15_eax = (uint32_t)v;
		} else if (!strcmp(a, "--cpuid-0x15.ebx")) {
			if (!get_u64(a, argv[++i], UINT32_MAX, &v))
				return -1;
			cfg->cpuid_0x15_ebx = (uint32_t)v;
		} else {
			cli_error("pt dump", "unknown option: %s", a);
			return -1;
		}
		if (i >= argc)
			return -1;
	}
	cli_error("pt dump", "no processor trace file specified");
	return -1;
}

static int cmd_pt_dump(int argc, char **argv)
{
	PK_OPTS(pk_pt_config, cfg);
	struct dump_opts o;
	const char *file = NULL;
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	memset(&o, 0, sizeof(o));
	err = dump_args(argc, argv, &o, &cfg, &file);
	if (err <= 0) {
		if (err < 0)
			dump_usage(stderr);
		return err < 0 ? 2 : 0;
	}
	err = load(file, &buf, &len);
	if (err < 0) {
		cli_error("pt dump", "%s: %s", file, strerror(-err));
		return 1;
	}
	err = dump(buf, len, &o, &cfg);
	free(buf);
	return err < 0 ? 1 : 0;
}

int cmd_pt(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: perfkit pt dump [options] FILE\n"
			"       perfkit pt decode --raw FILE:ADDR --pt FILE "
			"[options]\n");
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "dump"))
		return cmd_pt_dump(argc - 1, argv + 1);
	if (!strcmp(argv[1], "decode"))
		return cmd_pt_decode(argc - 1, argv + 1);
	cli_error("pt", "unknown subcommand '%s'", argv[1]);
	return 2;
}
