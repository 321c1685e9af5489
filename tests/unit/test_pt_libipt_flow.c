/* SPDX-License-Identifier: MIT */
/*
 * Differential test of perfkit's PT instruction-flow decoder against
 * Intel's libipt 2.0 instruction decoder (libipt-dev, linked into this
 * test only). Both decode the same input the way ptxed 2.0 drives libipt:
 * sync forward, then events and instructions until an error, then sync
 * forward again (perfkit: pk_pt_insn_sync_forward, not its newer resync).
 * Each side writes a log (instruction IPs and sizes, events with their IP
 * and payload, errors with their offset and IP) and the logs must match.
 *
 * Inputs: (a) every stream of the libipt corpus (../shared/corpus/libipt)
 * with its code and the cpu / filter options of its ptxed run; (b) the
 * same streams with random damage (fixed seeds, about one byte in 16
 * changed); (c) random packet sequences over a small code image.
 *
 * libipt 2.0 predates CFE, EVD and TRIG (and iflags events): streams with
 * those packets are left out. Where libipt 2.0 decodes a corpus stream
 * differently from the expected output in the corpus (made by a newer
 * libipt), the corpus wins: such streams are listed in ipt_older below
 * and skipped here (pt_corpus_ptxed.sh checks them against the corpus).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <stdarg.h>
#include "test.h"

#if defined(__has_include)
#if __has_include(<intel-pt.h>)
#define HAVE_LIBIPT 1
#endif
#endif

#ifndef HAVE_LIBIPT
int main(void)
{
	t_skip("pt_libipt_flow", "libipt-dev (intel-pt.h) is not installed");
	return t_exit();
}
#else
#include <intel-pt.h>
#include <perfkit/pt.h>
#include <perfkit/pt_insn.h>

/* Log lines per run at most: libipt has no loop check and may go round
 * code forever on damaged input. */
enum { LOG_MAX = 20000 };

struct input {
	const char *name;
	uint8_t *pt;
	size_t ptlen;
	const uint8_t *code;
	size_t codelen;
	uint64_t org;
	unsigned fam, mod;	/* cpu; fam 0: none given */
	uint8_t addr_cfg[4];
	uint64_t addr_a[4], addr_b[4];
};

/* Whether error lines give the offset: libipt 2.0 reports other offsets
 * than the newer libipt the corpus was made with (which perfkit
 * follows), so only the corpus streams compare them. */
static bool log_offsets = true;

struct log {
	char *buf;
	size_t len, cap;
	size_t lines;
	bool capped;
	int mode;	/* libipt: the exec mode last reported (-1: none) */
};

static void log_add(struct log *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void log_add(struct log *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->lines >= LOG_MAX) {
		l->capped = true;
		return;
	}
	if (l->cap - l->len < 256) {
		l->cap = l->cap ? 2 * l->cap : 65536;
		l->buf = realloc(l->buf, l->cap);
		if (!l->buf)
			abort();
	}
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, l->cap - l->len - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= l->cap - l->len - 1)
		n = (int)(l->cap - l->len - 2);
	l->len += (size_t)n;
	l->buf[l->len++] = '\n';
	l->buf[l->len] = 0;
	l->lines++;
}

static void log_free(struct log *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

/* ---- libipt ---- */

static int ipt_read(uint8_t *buf, size_t size, const struct pt_asid *asid,
		    uint64_t ip, void *ctx)
{
	const struct input *in = ctx;
	size_t n;

	(void)asid;
	if (ip < in->org || ip - in->org >= in->codelen)
		return -pte_nomap;
	n = in->codelen - (size_t)(ip - in->org);
	if (n > size)
		n = size;
	memcpy(buf, in->code + (ip - in->org), n);
	return (int)n;
}

static void ipt_ip(char *s, size_t n, bool suppressed, uint64_t ip)
{
	if (suppressed)
		snprintf(s, n, "-");
	else
		snprintf(s, n, "%" PRIx64, ip);
}

static void ipt_event(struct log *l, const struct pt_event *e)
{
	char ip[24], at[24];
	bool s = e->ip_suppressed;

	switch (e->type) {
	case ptev_enabled:
		ipt_ip(ip, sizeof(ip), s, e->variant.enabled.ip);
		log_add(l, "enabled %s%s", ip,
			e->variant.enabled.resumed ? " resumed" : "");
		break;
	case ptev_disabled:
		ipt_ip(ip, sizeof(ip), s, e->variant.disabled.ip);
		log_add(l, "disabled %s", ip);
		break;
	case ptev_async_disabled:
		ipt_ip(ip, sizeof(ip), s, e->variant.async_disabled.ip);
		ipt_ip(at, sizeof(at), false, e->variant.async_disabled.at);
		log_add(l, "async-disabled at %s ip %s", at, ip);
		break;
	case ptev_async_branch:
		ipt_ip(ip, sizeof(ip), s, e->variant.async_branch.to);
		ipt_ip(at, sizeof(at), false, e->variant.async_branch.from);
		log_add(l, "interrupt from %s to %s", at, ip);
		break;
	case ptev_paging:
		log_add(l, "paging %" PRIx64 "%s -", e->variant.paging.cr3,
			e->variant.paging.non_root ? " nr" : "");
		break;
	case ptev_async_paging:
		ipt_ip(ip, sizeof(ip), s, e->variant.async_paging.ip);
		log_add(l, "paging %" PRIx64 "%s %s",
			e->variant.async_paging.cr3,
			e->variant.async_paging.non_root ? " nr" : "", ip);
		break;
	case ptev_overflow:
		ipt_ip(ip, sizeof(ip), s, e->variant.overflow.ip);
		log_add(l, "overflow %s", ip);
		break;
	case ptev_exec_mode:
		/* libipt 2.0 reports every MODE.Exec; the newer one (and
		 * perfkit) only a change of mode */
		if ((int)e->variant.exec_mode.mode == l->mode)
			break;
		l->mode = (int)e->variant.exec_mode.mode;
		ipt_ip(ip, sizeof(ip), s, e->variant.exec_mode.ip);
		log_add(l, "exec-mode %d %s", (int)e->variant.exec_mode.mode,
			ip);
		break;
	case ptev_tsx:
		ipt_ip(ip, sizeof(ip), s, e->variant.tsx.ip);
		log_add(l, "tsx%s%s %s",
			e->variant.tsx.speculative ? " speculative" : "",
			e->variant.tsx.aborted ? " aborted" : "", ip);
		break;
	case ptev_stop:
		log_add(l, "stop");
		break;
	case ptev_vmcs:
		log_add(l, "vmcs %" PRIx64 " -", e->variant.vmcs.base);
		break;
	case ptev_async_vmcs:
		ipt_ip(ip, sizeof(ip), s, e->variant.async_vmcs.ip);
		log_add(l, "vmcs %" PRIx64 " %s", e->variant.async_vmcs.base,
			ip);
		break;
	case ptev_exstop:
		ipt_ip(ip, sizeof(ip), s, e->variant.exstop.ip);
		log_add(l, "exstop %s", ip);
		break;
	case ptev_mwait:
		ipt_ip(ip, sizeof(ip), s, e->variant.mwait.ip);
		log_add(l, "mwait %x %x %s", e->variant.mwait.hints,
			e->variant.mwait.ext, ip);
		break;
	case ptev_pwre:
		log_add(l, "pwre %u %u %u", e->variant.pwre.state,
			e->variant.pwre.sub_state, e->variant.pwre.hw);
		break;
	case ptev_pwrx:
		log_add(l, "pwrx %u %u %u%u%u", e->variant.pwrx.last,
			e->variant.pwrx.deepest, e->variant.pwrx.interrupt,
			e->variant.pwrx.store, e->variant.pwrx.autonomous);
		break;
	case ptev_ptwrite:
		ipt_ip(ip, sizeof(ip), s, e->variant.ptwrite.ip);
		log_add(l, "ptwrite %" PRIx64 " %s",
			e->variant.ptwrite.payload, ip);
		break;
	case ptev_tick:
		ipt_ip(ip, sizeof(ip), s, e->variant.tick.ip);
		log_add(l, "tick %s", ip);
		break;
	case ptev_cbr:		/* timing: not compared */
		break;
	case ptev_mnt:
		log_add(l, "mnt %" PRIx64, e->variant.mnt.payload);
		break;
	default:
		log_add(l, "event %d", (int)e->type);
		break;
	}
}

static void ipt_error(struct log *l, struct pt_insn_decoder *d,
		      const char *what, int err, uint64_t ip)
{
	uint64_t off = 0;

	pt_insn_get_offset(d, &off);
	if (!log_offsets)
		off = 0;
	log_add(l, "%s: %s at %" PRIx64 " ip %" PRIx64, what,
		pt_errstr(pt_errcode(err)), off, ip);
}

static int ipt_drain(struct log *l, struct pt_insn_decoder *d, int s)
{
	while (s >= 0 && (s & pts_event_pending) && !l->capped) {
		struct pt_event ev;

		s = pt_insn_event(d, &ev, sizeof(ev));
		if (s >= 0 && ev.type == ptev_overflow)
			l->mode = -1;
		if (s >= 0 && ev.type == ptev_exec_mode && ev.status_update)
			l->mode = (int)ev.variant.exec_mode.mode;
		if (s >= 0 && !ev.status_update)
			ipt_event(l, &ev);
	}
	return s;
}

/* One sync-to-error stretch; returns the status that ended it. */
static int ipt_stretch(struct log *l, struct pt_insn_decoder *d, int s,
		       uint64_t *ip)
{
	while (!l->capped) {
		struct pt_insn in;

		s = ipt_drain(l, d, s);
		if (s < 0)
			return s;
		if (s & pts_eos) {
			log_add(l, "eos%s", s & pts_ip_suppressed ? " -" : "");
			return -pte_eos;
		}
		memset(&in, 0, sizeof(in));
		s = pt_insn_next(d, &in, sizeof(in));
		*ip = in.ip;
		if (s >= 0)
			log_add(l, "%" PRIx64 " %u %d%s", in.ip, in.size,
				(int)in.mode, in.speculative ? " spec" : "");
		if (s < 0)
			return s;
	}
	return -pte_eos;
}

static void ipt_config(const struct input *in, struct pt_config *cfg)
{
	pt_config_init(cfg);
	cfg->begin = in->pt;
	cfg->end = in->pt + in->ptlen;
	if (in->fam) {
		cfg->cpu.vendor = pcv_intel;
		cfg->cpu.family = (uint16_t)in->fam;
		cfg->cpu.model = (uint8_t)in->mod;
		pt_cpu_errata(&cfg->errata, &cfg->cpu);
	}
	cfg->addr_filter.config.ctl.addr0_cfg = in->addr_cfg[0];
	cfg->addr_filter.config.ctl.addr1_cfg = in->addr_cfg[1];
	cfg->addr_filter.config.ctl.addr2_cfg = in->addr_cfg[2];
	cfg->addr_filter.config.ctl.addr3_cfg = in->addr_cfg[3];
	cfg->addr_filter.addr0_a = in->addr_a[0];
	cfg->addr_filter.addr0_b = in->addr_b[0];
	cfg->addr_filter.addr1_a = in->addr_a[1];
	cfg->addr_filter.addr1_b = in->addr_b[1];
	cfg->addr_filter.addr2_a = in->addr_a[2];
	cfg->addr_filter.addr2_b = in->addr_b[2];
	cfg->addr_filter.addr3_a = in->addr_a[3];
	cfg->addr_filter.addr3_b = in->addr_b[3];
}

/* As ptxed 2.0: sync forward after every error; stop at the end or when
 * a sync error makes no progress. */
static void ipt_run(const struct input *in, struct log *l)
{
	struct pt_config cfg;
	struct pt_insn_decoder *d;
	uint64_t sync = 0;

	ipt_config(in, &cfg);
	d = pt_insn_alloc_decoder(&cfg);
	if (!d)
		abort();
	pt_image_set_callback(pt_insn_get_image(d), ipt_read, (void *)in);
	while (!l->capped) {
		uint64_t ip = 0, off = 0;
		int s = pt_insn_sync_forward(d);

		if (s < 0) {
			if (s == -pte_eos)
				break;
			ipt_error(l, d, "sync error", s, 0);
			if (pt_insn_get_offset(d, &off) < 0 || off <= sync)
				break;
			sync = off;
			continue;
		}
		log_add(l, "sync");
		l->mode = -1;
		s = ipt_stretch(l, d, s, &ip);
		if (s == -pte_eos)
			break;
		ipt_error(l, d, "error", s, ip);
	}
	pt_insn_free_decoder(d);
}

/* ---- perfkit ---- */

static void pk_ip(char *s, size_t n, bool suppressed, uint64_t ip)
{
	ipt_ip(s, n, suppressed, ip);
}

static void pk_event(struct log *l, const struct pk_pt_event *e)
{
	char ip[24], at[24];

	pk_ip(ip, sizeof(ip), e->ip_suppressed, e->ip);
	pk_ip(at, sizeof(at), false, e->at);
	switch (e->type) {
	case PK_PT_EV_ENABLED:
		log_add(l, "enabled %s%s", ip,
			e->u.enabled.resumed ? " resumed" : "");
		break;
	case PK_PT_EV_DISABLED:
		log_add(l, "disabled %s", ip);
		break;
	case PK_PT_EV_ASYNC_DISABLED:
		log_add(l, "async-disabled at %s ip %s", at, ip);
		break;
	case PK_PT_EV_ASYNC_BRANCH:
		log_add(l, "interrupt from %s to %s", at, ip);
		break;
	case PK_PT_EV_PAGING:
		log_add(l, "paging %" PRIx64 "%s %s", e->u.paging.cr3,
			e->u.paging.nr ? " nr" : "", ip);
		break;
	case PK_PT_EV_OVERFLOW:
		log_add(l, "overflow %s", ip);
		break;
	case PK_PT_EV_EXEC_MODE:
		log_add(l, "exec-mode %d %s", e->u.exec_mode.mode, ip);
		break;
	case PK_PT_EV_TSX:
		log_add(l, "tsx%s%s %s",
			e->u.tsx.speculative ? " speculative" : "",
			e->u.tsx.aborted ? " aborted" : "", ip);
		break;
	case PK_PT_EV_STOP:
		log_add(l, "stop");
		break;
	case PK_PT_EV_VMCS:
		log_add(l, "vmcs %" PRIx64 " %s", e->u.vmcs.base, ip);
		break;
	case PK_PT_EV_EXSTOP:
		log_add(l, "exstop %s", ip);
		break;
	case PK_PT_EV_MWAIT:
		log_add(l, "mwait %x %x %s", e->u.mwait.hints, e->u.mwait.ext,
			ip);
		break;
	case PK_PT_EV_PWRE:
		log_add(l, "pwre %u %u %u", e->u.pwre.state,
			e->u.pwre.sub_state, e->u.pwre.hw);
		break;
	case PK_PT_EV_PWRX:
		log_add(l, "pwrx %u %u %u%u%u", e->u.pwrx.last,
			e->u.pwrx.deepest, e->u.pwrx.interrupt,
			e->u.pwrx.store, e->u.pwrx.autonomous);
		break;
	case PK_PT_EV_PTWRITE:
		log_add(l, "ptwrite %" PRIx64 " %s", e->u.ptwrite.payload, ip);
		break;
	case PK_PT_EV_TICK:
		log_add(l, "tick %s", ip);
		break;
	case PK_PT_EV_CBR:
		break;
	case PK_PT_EV_MNT:
		log_add(l, "mnt %" PRIx64, e->u.mnt.payload);
		break;
	default:
		log_add(l, "event %d", e->type);
		break;
	}
}

static void pk_error(struct log *l, struct pk_pt_insn_decoder *d,
		     const char *what, int err, uint64_t ip)
{
	uint64_t off = 0;

	pk_pt_insn_offset(d, &off);
	if (!log_offsets)
		off = 0;
	log_add(l, "%s: %s at %" PRIx64 " ip %" PRIx64, what,
		pk_pt_strerror(err), off, ip);
}

static int pk_drain(struct log *l, struct pk_pt_insn_decoder *d, int s)
{
	while (s >= 0 && (s & PK_PT_STS_EVENT) && !l->capped) {
		struct pk_pt_event ev;

		s = pk_pt_insn_event(d, &ev);
		if (s >= 0 && !ev.status_update)
			pk_event(l, &ev);
	}
	return s;
}

static int pk_stretch(struct log *l, struct pk_pt_insn_decoder *d, int s,
		      uint64_t *ip)
{
	while (!l->capped) {
		struct pk_pt_insn in;

		s = pk_drain(l, d, s);
		if (s < 0)
			return s;
		if (s & PK_PT_STS_EOS) {
			log_add(l, "eos%s",
				s & PK_PT_STS_IP_SUPPRESSED ? " -" : "");
			return PK_ERR_EOS;
		}
		memset(&in, 0, sizeof(in));
		s = pk_pt_insn_next(d, &in);
		*ip = in.ip;
		if (s >= 0)
			log_add(l, "%" PRIx64 " %u %d%s", in.ip, in.size,
				in.mode, in.speculative ? " spec" : "");
		if (s < 0)
			return s;
	}
	return PK_ERR_EOS;
}

static void pk_run(const struct input *in, struct log *l)
{
	PK_OPTS(pk_pt_config, cfg);
	PK_OPTS(pk_pt_insn_opts, io);
	struct pk_pt_image *img = pk_pt_image_new();
	struct pk_pt_insn_decoder *d;
	uint64_t sync = 0;

	if (in->fam)
		pk_pt_cpu_errata(&cfg.errata, in->fam, in->mod);
	for (int i = 0; i < 4; i++) {
		io.addr_cfg[i] = in->addr_cfg[i];
		io.addr_a[i] = in->addr_a[i];
		io.addr_b[i] = in->addr_b[i];
	}
	if (!img || pk_pt_image_add_buf(img, in->code, in->codelen, in->org))
		abort();
	d = pk_pt_insn_decoder_new(in->pt, in->ptlen, &cfg, img, &io);
	if (!d)
		abort();
	while (!l->capped) {
		uint64_t ip = 0, off = 0;
		int s = pk_pt_insn_sync_forward(d);

		if (s < 0) {
			if (s == PK_ERR_EOS)
				break;
			pk_error(l, d, "sync error", s, 0);
			if (pk_pt_insn_offset(d, &off) < 0 || off <= sync)
				break;
			sync = off;
			continue;
		}
		log_add(l, "sync");
		s = pk_stretch(l, d, s, &ip);
		if (s == PK_ERR_EOS)
			break;
		pk_error(l, d, "error", s, ip);
	}
	pk_pt_insn_decoder_free(d);
	pk_pt_image_free(img);
}

/* ---- comparison ---- */

/* Line number (from 1) of the first difference of A and B, 0 if none.
 * A log that loops (perfkit's loop error, libipt capped) is compared up
 * to perfkit's error. *LA / *LB: the differing lines. */
static size_t log_diff(const struct log *a, const struct log *b,
		       char *la, char *lb, size_t n)
{
	const char *p = a->buf ? a->buf : "", *q = b->buf ? b->buf : "";
	size_t line = 1;

	for (;;) {
		const char *pe = strchr(p, '\n'), *qe = strchr(q, '\n');
		size_t pl = pe ? (size_t)(pe - p) : strlen(p);
		size_t ql = qe ? (size_t)(qe - q) : strlen(q);

		if (!*p && !*q)
			return 0;
		if (!*p && a->capped)
			return 0;
		if (!*q && b->capped)
			return 0;
		if (pl != ql || memcmp(p, q, pl)) {
			if (b->capped && strstr(p, "loop") && pl >= 5 &&
			    !memcmp(p, "error", 5))
				return 0;
			snprintf(la, n, "%.*s", (int)(pl < 200 ? pl : 200), p);
			snprintf(lb, n, "%.*s", (int)(ql < 200 ? ql : 200), q);
			return line;
		}
		p = pe ? pe + 1 : p + pl;
		q = qe ? qe + 1 : q + ql;
		line++;
	}
}

/* Does BUF hold packets libipt 2.0 does not know (CFE, EVD, TRIG)? */
static bool has_new_packets(const uint8_t *buf, size_t len)
{
	PK_OPTS(pk_pt_config, cfg);
	struct pk_pt_decoder *d = pk_pt_decoder_new(buf, len, &cfg);
	struct pk_pt_packet p;
	bool found = false;
	int guard = 0;

	if (!d)
		return true;
	while (!found && guard++ < 1000000) {
		int s = pk_pt_next(d, &p);

		if (s == PK_ERR_EOS)
			break;
		if (s < 0) {
			if (pk_pt_sync_forward(d) < 0)
				break;
			continue;
		}
		found = p.type == PK_PT_CFE || p.type == PK_PT_EVD ||
			p.type == PK_PT_TRIG;
	}
	pk_pt_decoder_free(d);
	return found;
}

/* Decodes IN with both; 0 when they agree, else the differing line
 * (and the lines in DETAIL). */
static size_t compare(const struct input *in, char *detail, size_t n)
{
	struct log a = { 0 }, b = { 0 };
	char la[256], lb[256];
	size_t line;

	pk_run(in, &a);
	ipt_run(in, &b);
	line = log_diff(&a, &b, la, lb, sizeof(la));
	if (line)
		snprintf(detail, n, "line %zu: perfkit '%s', libipt '%s'",
			 line, la, lb);
	if (line && getenv("PT_LIBIPT_FLOW_DUMP")) {
		fprintf(stderr, "== %s\n-- perfkit\n%s-- libipt\n%s",
			in->name, a.buf ? a.buf : "", b.buf ? b.buf : "");
	}
	log_free(&a);
	log_free(&b);
	return line;
}

/* ---- the corpus ---- */

/* Streams where libipt 2.0 disagrees with the corpus' expected output
 * (a newer libipt made it): the corpus wins. */
#define W0 \
	"libipt 2.0 ends the sync with an error at the end of a PSB+ " \
	"without FUP or at bad timing packets (nothing printed either way)"
#define W1 \
	"libipt 2.0 reports MWAIT and PWRE as they come; the newer one " \
	"holds MWAIT until its EXSTOP and PWRE until PWRX"
#define W2 \
	"libipt 2.0 reports an error's offset after the packets it read " \
	"ahead; the newer one at the packet in hand"
#define W3 \
	"instructions libipt 2.0 does not know (ERETU, JMPABS)"
#define W4 \
	"MODE.Exec IF changes (iflags events) are newer than libipt 2.0"
#define W5 \
	"libipt 2.0 stops at the disable after a call (the newer one, and " \
	"the corpus, decode on)"
static const struct {
	const char *name, *why;
} ipt_older[] = {
	{ "mtc", W0 },
	{ "psb-empty", W0 },
	{ "ptdump-no-offset-raw", W0 },
	{ "ptdump-no-offset", W0 },
	{ "ptdump-trunc-resync", W0 },
	{ "skl168-cyc", W0 },
	{ "tma-reserved_fc", W0 },
	{ "tsc-cyc_calibrate", W0 },
	{ "tsc-tma-cyc", W0 },
	{ "tsc-tma-mtc-cyc_calibrate", W0 },
	{ "tsc-tma-mtc-tsc", W0 },
	{ "tsc-tma-mtc_infreq", W0 },
	{ "tsc-tma-mtc_infreq_wrap", W0 },
	{ "tsc-tma-mtc_relative", W0 },
	{ "tsc-tma-mtc_wrap", W0 },
	{ "tsc_tma_mtc_gap", W0 },
	{ "ptdump-last-ip", W0 },
	{ "mwait-pwre-exstop_ip-ovf", W1 },
	{ "mwait-pwre-exstop_ip-pwre-pwrx", W1 },
	{ "mwait-pwre-exstop_ip-pwrx", W1 },
	{ "mwait-pwre-ovf", W1 },
	{ "pwre-exstop_ip-pwrx", W1 },
	{ "tip_pgd-mwait-pwre-exstop-pwrx-tip_pge", W1 },
	{ "tip_pgd-mwait-pwre-exstop_ip-pwre-pwrx", W1 },
	{ "tip_pgd-mwait-pwre-exstop_ip-pwrx", W1 },
	{ "tip_pge-pwre-pwrx-tip_pgd", W1 },
	{ "ptxed-resync-bad_query-fup-tip", W2 },
	{ "ptxed-resync-nomap-fup-tip", W2 },
	{ "ptxed-resync-nomap-mode_exec-fup", W2 },
	{ "ptxed-resync-nomap-mode_tsx-eos", W2 },
	{ "ptxed-resync-nomap-mode_tsx-tip_pgd", W2 },
	{ "ptxed-resync-nomap-ovf-fup", W2 },
	{ "ptxed-resync-nomap-psb", W2 },
	{ "ptxed-resync-psb-bad_status-psb", W2 },
	{ "truncated", W2 },
	{ "int-eretu-cpl_0", W3 },
	{ "int-eretu", W3 },
	{ "tip_pgd-jmpabs", W3 },
	{ "ptet-mode_exec-if", W4 },
	{ "ptet-mode_exec-spurious", W4 },
	{ "ptxed-end_on_call-tip_pgd", W5 },
	{ NULL, NULL },
};

static const char *older_why(const char *name)
{
	for (size_t i = 0; ipt_older[i].name; i++)
		if (!strcmp(ipt_older[i].name, name))
			return ipt_older[i].why;
	return NULL;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

struct corpus_test {
	char name[96];
	struct input in;
	uint8_t *bin;		/* the whole .bin */
	bool older, newpk;
};

/* Applies ptxed's options in OPTS (cpu, filter, raw) to T. */
static void apply_opts(struct corpus_test *t, const char *cpu, char *opts,
		       size_t binlen)
{
	char *save = NULL, *a, *v;

	if (sscanf(cpu, "%u/%u", &t->in.fam, &t->in.mod) != 2)
		t->in.fam = 0;
	for (a = strtok_r(opts, " ", &save); a; a = strtok_r(NULL, " ", &save)) {
		unsigned n;
		char what[8];

		if (!strcmp(a, "--cpu") && (v = strtok_r(NULL, " ", &save)))
			if (sscanf(v, "%u/%u", &t->in.fam, &t->in.mod) != 2)
				t->in.fam = 0;
		if (sscanf(a, "--filter:addr%u_%7s", &n, what) == 2 && n < 4 &&
		    (v = strtok_r(NULL, " ", &save))) {
			uint64_t x = strtoull(v, NULL, 0);

			if (!strcmp(what, "cfg"))
				t->in.addr_cfg[n] = (uint8_t)x;
			else if (!strcmp(what, "a"))
				t->in.addr_a[n] = x;
			else if (!strcmp(what, "b"))
				t->in.addr_b[n] = x;
		}
		if (!strcmp(a, "--raw") && (v = strtok_r(NULL, " ", &save))) {
			/* FILE:FROM:ADDR: part of the file at ADDR */
			char *c1 = strchr(v, ':'), *c2 = c1 ? strchr(c1 + 1, ':')
							     : NULL;
			uint64_t from;

			if (!c2)
				continue;
			from = strtoull(c1 + 1, NULL, 0);
			if (from > binlen)
				from = binlen;
			t->in.code = t->bin + from;
			t->in.codelen = binlen - from;
			t->in.org = strtoull(c2 + 1, NULL, 0);
		}
	}
}

static bool load_test(const char *dir, char *line, struct corpus_test *t)
{
	char *f[5], *save = NULL, path[512];
	size_t binlen = 0;
	int n = 0;

	for (char *s = strtok_r(line, "\t\n", &save); s && n < 5;
	     s = strtok_r(NULL, "\t\n", &save))
		f[n++] = s;
	if (n < 5 || !strcmp(f[0], "test"))
		return false;
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", f[0]);
	snprintf(path, sizeof(path), "%s/%s/%s.pt", dir, f[0], f[0]);
	t->in.pt = slurp(path, &t->in.ptlen);
	snprintf(path, sizeof(path), "%s/%s/%s.bin", dir, f[0], f[0]);
	t->bin = slurp(path, &binlen);
	if (!t->in.pt || !t->bin) {
		free(t->in.pt);
		free(t->bin);
		return false;
	}
	t->in.name = t->name;
	t->in.code = t->bin;
	t->in.codelen = binlen;
	t->in.org = strtoull(f[2], NULL, 0);
	apply_opts(t, f[1], f[4], binlen);
	t->older = older_why(t->name) != NULL;
	t->newpk = has_new_packets(t->in.pt, t->in.ptlen);
	return true;
}

static size_t load_corpus(const char *dir, struct corpus_test *t, size_t max)
{
	char path[512], line[1024];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/MANIFEST.tsv", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f))
		n += load_test(dir, line, &t[n]);
	fclose(f);
	return n;
}

static void test_corpus(struct corpus_test *t, size_t n)
{
	size_t same = 0, left = 0;

	for (size_t i = 0; i < n; i++) {
		char name[128], detail[600];
		const char *why;

		snprintf(name, sizeof(name), "libipt_flow_%.90s", t[i].name);
		if (t[i].newpk) {
			left++;
			continue;	/* CFE/EVD/TRIG: not in libipt 2.0 */
		}
		why = older_why(t[i].name);
		if (why) {
			t_skip(name, "libipt 2.0 differs from the corpus "
			       "(made by a newer libipt), which wins: %s", why);
			continue;
		}
		if (!compare(&t[i].in, detail, sizeof(detail)))
			same++;
		else
			t_fail(name, "%s", detail);
	}
	t_check(same > 100, "libipt_flow_corpus",
		"%zu streams agree (%zu with packets new to libipt 2.1)",
		same, left);
}

static uint64_t rs = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

/*
 * On damaged and generated streams libipt 2.0 and perfkit disagree in
 * runs where 2.0's rules differ from the newer libipt's (which perfkit
 * follows, see ipt_older): TIPs deferred behind TNT, error offsets and
 * instructions, MWAIT/PWRE order, PSB+ at the end. The runs that
 * disagree today are counted here (fixed seeds: the counts are exact);
 * a change that makes perfkit disagree more often fails. Lower them
 * when a change makes perfkit agree more often.
 */
static const size_t damage_known[8] = { 13, 9, 12, 18, 15, 14, 12, 12 };

/* The corpus streams, about one byte in 16 changed (fixed seeds). */
static void test_damage(struct corpus_test *t, size_t n)
{
	for (uint64_t seed = 1; seed <= 8; seed++) {
		size_t runs = 0, bad = 0;
		char first[700] = "", name[64];

		rs = 0x9e3779b97f4a7c15ull * seed;
		for (size_t i = 0; i < n; i++) {
			struct input in = t[i].in;
			char detail[600];
			size_t line;

			if (t[i].newpk || t[i].older)
				continue;
			in.pt = malloc(in.ptlen + 1);
			memcpy(in.pt, t[i].in.pt, in.ptlen);
			for (size_t k = 0; k < in.ptlen; k++)
				if (rnd() % 16 == 0)
					in.pt[k] = (uint8_t)rnd();
			if (!has_new_packets(in.pt, in.ptlen)) {
				runs++;
				line = compare(&in, detail, sizeof(detail));
				if (line && !bad++)
					snprintf(first, sizeof(first), "%.90s: %.500s",
						 t[i].name, detail);
			}
			free(in.pt);
		}
		snprintf(name, sizeof(name), "libipt_flow_damage_%" PRIu64,
			 seed);
		t_check(bad <= damage_known[seed - 1] && runs > 50, name,
			"%zu of %zu runs differ (known: %zu); first %s", bad,
			runs, damage_known[seed - 1], first);
	}
}


/* ---- random packet sequences over a small program ---- */

enum { GEN_ORG = 0x1000 };

/* The program: one of each instruction kind the flow cares about. */
static const uint8_t gen_code[] = {
	0x90,				/* 1000 nop */
	0xf3, 0x48, 0x0f, 0xae, 0xe0,	/* 1001 ptwrite rax */
	0x0f, 0x22, 0xd8,		/* 1006 mov cr3, rax */
	0x74, 0x02,			/* 1009 jz 100d */
	0x90, 0x90,			/* 100b nop; nop */
	0xe8, 0x0e, 0x00, 0x00, 0x00,	/* 100d call 1020 */
	0xff, 0xe0,			/* 1012 jmp rax */
	0x0f, 0x05,			/* 1014 syscall */
	0x0f, 0x01, 0xc2,		/* 1016 vmlaunch */
	0xeb, 0xe5,			/* 1019 jmp 1000 */
	0x90, 0x90, 0x90, 0x90, 0x90,	/* 101b nop x5 */
	0x90,				/* 1020 nop */
	0xc3,				/* 1021 ret */
	0x0f, 0x01, 0xc3,		/* 1022 vmresume */
	0xcf,				/* 1025 iret */
};

static const uint16_t gen_ips[] = {
	0x00, 0x01, 0x06, 0x09, 0x0b, 0x0c, 0x0d, 0x12, 0x14, 0x16, 0x19,
	0x20, 0x21, 0x22, 0x25,
};

static uint64_t gen_ip(void)
{
	return GEN_ORG + gen_ips[rnd() % (sizeof(gen_ips) / 2)];
}

static size_t gen_put(uint8_t *buf, size_t at, size_t cap,
		      const struct pk_pt_packet *p)
{
	int n = at + 32 <= cap ? pk_pt_encode(p, buf + at, cap - at) : 0;

	return n > 0 ? at + (size_t)n : at;
}

static void gen_ip_pkt(struct pk_pt_packet *p, uint8_t type, bool may_omit)
{
	memset(p, 0, sizeof(*p));
	p->type = type;
	p->u.ip.ipc = may_omit && rnd() % 4 == 0 ? PK_PT_IPC_SUPPRESSED
						 : PK_PT_IPC_SEXT_48;
	p->u.ip.ip = p->u.ip.ipc ? gen_ip() : 0;
}

static size_t gen_simple(uint8_t *buf, size_t at, size_t cap, uint8_t type)
{
	struct pk_pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	switch (type) {
	case PK_PT_TNT_8:
		p.u.tnt.bits = (uint8_t)(1 + rnd() % 4);
		p.u.tnt.payload = rnd() & ((1u << p.u.tnt.bits) - 1);
		break;
	case PK_PT_TIP: case PK_PT_FUP: case PK_PT_TIP_PGE:
		gen_ip_pkt(&p, type, false);
		break;
	case PK_PT_TIP_PGD:
		gen_ip_pkt(&p, type, true);
		break;
	case PK_PT_MODE_EXEC:
		p.u.exec.csl = 1;
		break;
	case PK_PT_PIP: p.u.pip.cr3 = (rnd() % 4) << 12; break;
	case PK_PT_VMCS: p.u.vmcs.base = (rnd() % 4) << 12; break;
	case PK_PT_MNT: p.u.mnt.payload = rnd() % 256; break;
	default: break;
	}
	return gen_put(buf, at, cap, &p);
}

/* A PSB+ (with a FUP when tracing is on). */
static size_t gen_psb(uint8_t *buf, size_t at, size_t cap, bool on)
{
	at = gen_simple(buf, at, cap, PK_PT_PSB);
	at = gen_simple(buf, at, cap, PK_PT_MODE_EXEC);
	if (on)
		at = gen_simple(buf, at, cap, PK_PT_FUP);
	return gen_simple(buf, at, cap, PK_PT_PSBEND);
}

/* Packets of a trace as hardware writes it (ON: tracing enabled); the
 * code may still not fit them: both decoders must then fail alike. */
static size_t gen_one(uint8_t *buf, size_t at, size_t cap, bool *on)
{
	struct pk_pt_packet p;

	memset(&p, 0, sizeof(p));
	if (!*on) {
		switch (rnd() % 8) {
		case 0: at = gen_simple(buf, at, cap, PK_PT_PIP); break;
		case 1: at = gen_simple(buf, at, cap, PK_PT_VMCS); break;
		case 2: at = gen_simple(buf, at, cap, PK_PT_MNT); break;
		case 3: at = gen_simple(buf, at, cap, PK_PT_OVF); break;
		case 4: at = gen_psb(buf, at, cap, false); break;
		case 5: at = gen_simple(buf, at, cap, PK_PT_MODE_EXEC);
			break;
		default:
			at = gen_simple(buf, at, cap, PK_PT_TIP_PGE);
			*on = true;
			break;
		}
		return at;
	}
	switch (rnd() % 20) {
	case 0: case 1: case 2: case 3:
		return gen_simple(buf, at, cap, PK_PT_TNT_8);
	case 4: case 5:
		return gen_simple(buf, at, cap, PK_PT_TIP);
	case 6:	/* interrupt, maybe with a context switch */
		at = gen_simple(buf, at, cap, PK_PT_FUP);
		if (rnd() & 1)
			at = gen_simple(buf, at, cap, PK_PT_PIP);
		if (rnd() & 1)
			at = gen_simple(buf, at, cap, PK_PT_VMCS);
		return gen_simple(buf, at, cap, PK_PT_TIP);
	case 7:
		at = gen_simple(buf, at, cap, PK_PT_MODE_EXEC);
		return gen_simple(buf, at, cap, PK_PT_TIP);
	case 8:
		return gen_simple(buf, at, cap, PK_PT_PIP);
	case 9:
		return gen_simple(buf, at, cap, PK_PT_VMCS);
	case 10:
		p.type = PK_PT_PTW;
		p.u.ptw.ip = rnd() & 1;
		p.u.ptw.payload = rnd() % 256;
		at = gen_put(buf, at, cap, &p);
		return p.u.ptw.ip ? gen_simple(buf, at, cap, PK_PT_FUP) : at;
	case 11:
		return gen_simple(buf, at, cap, PK_PT_MNT);
	case 12:	/* overflow: resolved on (FUP) or off */
		at = gen_simple(buf, at, cap, PK_PT_OVF);
		if (rnd() & 1)
			at = gen_simple(buf, at, cap, PK_PT_MNT);
		if (rnd() % 4)
			return gen_simple(buf, at, cap, PK_PT_FUP);
		*on = false;
		return at;
	case 13:
		return gen_psb(buf, at, cap, true);
	case 14:
		*on = false;
		return gen_simple(buf, at, cap, PK_PT_TIP_PGD);
	case 15:
		*on = false;
		at = gen_simple(buf, at, cap, PK_PT_FUP);
		return gen_simple(buf, at, cap, PK_PT_TIP_PGD);
	case 16:
		p.type = PK_PT_MODE_TSX;
		p.u.tsx.intx = rnd() & 1;
		p.u.tsx.abrt = !p.u.tsx.intx && (rnd() & 1);
		at = gen_put(buf, at, cap, &p);
		return gen_simple(buf, at, cap, PK_PT_FUP);
	case 17:
		p.type = PK_PT_EXSTOP;
		p.u.exstop.ip = 1;
		at = gen_put(buf, at, cap, &p);
		return gen_simple(buf, at, cap, PK_PT_FUP);
	default:
		return gen_simple(buf, at, cap, PK_PT_PAD);
	}
}

/* Streams of a PSB+ and random packets; cpu errata NAME (fam/mod). */
static void test_generated(const char *name, unsigned fam, unsigned mod,
			   size_t known)
{
	static uint8_t buf[4096];
	size_t runs = 0, bad = 0;
	char first[700] = "", tname[64];

	rs = 0x243f6a8885a308d3ull ^ (fam << 8 | mod);
	for (int r = 0; r < 3000; r++) {
		const char *only = getenv("PT_LIBIPT_FLOW_RUN");
		struct input in = { .name = "generated", .code = gen_code,
				    .codelen = sizeof(gen_code),
				    .org = GEN_ORG, .fam = fam, .mod = mod };
		char detail[600];
		size_t at = 0, n = 2 + rnd() % 24;
		bool on = true;

		at = gen_psb(buf, at, sizeof(buf), true);
		for (size_t k = 0; k < n; k++)
			at = gen_one(buf, at, sizeof(buf), &on);
		in.pt = buf;
		in.ptlen = at;
		if (only && (strncmp(only, name, strlen(name)) ||
			     atoi(only + strlen(name) + 1) != r))
			continue;
		if (only) {	/* debugging: the stream to a file */
			FILE *f = fopen("/tmp/ptlf.pt", "wb");

			if (f) {
				fwrite(buf, 1, at, f);
				fclose(f);
			}
		}
		runs++;
		if (compare(&in, detail, sizeof(detail)) &&
		    getenv("PT_LIBIPT_FLOW_LIST"))
			fprintf(stderr, "%s %d %s\n", name, r, detail);
		if (compare(&in, detail, sizeof(detail)) && !bad++) {
			size_t o = 0;

			for (size_t k = 0; k < at && o + 4 < sizeof(first);
			     k++)
				o += (size_t)snprintf(first + o,
						      sizeof(first) - o,
						      "%02x", buf[k]);
			snprintf(first + o, sizeof(first) - o, " %.500s",
				 detail);
		}
	}
	snprintf(tname, sizeof(tname), "libipt_flow_generated_%s", name);
	t_check(bad <= known, tname, "%zu of %zu runs differ (known: %zu); "
		"first %s", bad, runs, known, first);
}

int main(void)
{
	static struct corpus_test t[256];
	const char *dir = t_shared_need("libipt_flow_corpus", "corpus/libipt");
	size_t n;

	if (!dir)
		return t_exit();
	n = load_corpus(dir, t, 256);
	if (!t_check(n > 100, "libipt_flow_load", "%zu corpus tests", n))
		return t_exit();
	test_corpus(t, n);
	log_offsets = false;
	test_damage(t, n);
	test_generated("none", 0, 0, 1157);
	test_generated("skd010", 6, 78, 1217);
	test_generated("apl12", 6, 92, 1203);
	for (size_t i = 0; i < n; i++) {
		free(t[i].in.pt);
		free(t[i].bin);
	}
	return t_exit();
}
#endif
