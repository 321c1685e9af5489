// SPDX-License-Identifier: MIT
/*
 * lib/itrace: the --itrace grammar (letters, periods and their units,
 * sizes, flags, errors with their position, perf's defaults, the letters
 * written back), the psb/cbr payloads written and read back, and a whole
 * decode: a perf.data the test writes (an intel_pt event, AUXTRACE_INFO,
 * the code's MMAP2, an AUXTRACE record of a stream made with the packet
 * encoder, EXIT) turned into perf's branch and instruction samples.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/itrace.h>
#include <perfkit/perfdata.h>
#include <perfkit/pt.h>
#include <perfkit/session.h>
#include "test.h"

static struct pk_itrace_opts parse(const char *s, int *err, size_t *pos)
{
	struct pk_itrace_opts o;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	*pos = 0;
	*err = pk_itrace_parse(&o, s, pos);
	return o;
}

static void test_parse(void)
{
	struct pk_itrace_opts o;
	size_t pos;
	int err;
	char buf[128];

	o = parse("i100i", &err, &pos);
	T_CHECK("itrace_i100i", !err && o.set && o.instructions && o.period == 100 &&
		o.period_type == PK_ITRACE_PERIOD_INSTRUCTIONS && !o.branches);
	o = parse("i10us", &err, &pos);
	T_CHECK("itrace_i10us", !err && o.period == 10000 &&
		o.period_type == PK_ITRACE_PERIOD_NANOSECS);
	o = parse("i2ms", &err, &pos);
	T_CHECK("itrace_i2ms", !err && o.period == 2000000 &&
		o.period_type == PK_ITRACE_PERIOD_NANOSECS);
	o = parse("i7t", &err, &pos);
	T_CHECK("itrace_i7t", !err && o.period == 7 &&
		o.period_type == PK_ITRACE_PERIOD_TICKS);
	o = parse("i", &err, &pos);
	T_CHECK("itrace_i_default_period", !err && o.instructions &&
		o.period == PK_ITRACE_DEFAULT_PERIOD &&
		o.period_type == PK_ITRACE_PERIOD_NANOSECS);
	o = parse("cr", &err, &pos);
	T_CHECK("itrace_cr", !err && o.branches && o.calls && o.returns &&
		!o.instructions);
	o = parse("be-o-l", &err, &pos);
	T_CHECK("itrace_e_flags", !err && o.branches && o.errors &&
		o.error_minus_overflow && o.error_minus_lost);
	o = parse("ig32l10s1000", &err, &pos);
	T_CHECK("itrace_sizes", !err && o.callchain && o.callchain_sz == 32 &&
		o.last_branch && o.last_branch_sz == 10 &&
		o.initial_skip == 1000);
	o = parse("qqZA", &err, &pos);
	T_CHECK("itrace_qq", !err && o.quick == 2 && o.timeless && o.approx_ipc);
	o = parse("i 100 i, b", &err, &pos);
	T_CHECK("itrace_separators", !err && o.period == 100 && o.branches);
	o = parse("i5x", &err, &pos);
	T_CHECK("itrace_bad_unit", err == PK_ERR_SYNTAX && pos == 0);
	o = parse("bk", &err, &pos);
	T_CHECK("itrace_bad_letter", err == PK_ERR_SYNTAX && pos == 1);
	o = parse("ig0", &err, &pos);
	T_CHECK("itrace_bad_size0", err == PK_ERR_SYNTAX);
	o = parse("ig2000", &err, &pos);
	T_CHECK("itrace_bad_size", err == PK_ERR_SYNTAX);
	o = parse("e+x", &err, &pos);
	T_CHECK("itrace_bad_flag", err == PK_ERR_SYNTAX);
	o = parse("s", &err, &pos);
	T_CHECK("itrace_skip_needs_number", err == PK_ERR_SYNTAX);
	o = parse("il", &err, &pos);
	T_CHECK("itrace_l_default", !err && o.last_branch && !o.add_last_branch &&
		o.last_branch_sz == PK_ITRACE_DEFAULT_LAST_BRANCH_SZ);
	o = parse("L1024G", &err, &pos);
	T_CHECK("itrace_L_max", !err && o.add_last_branch && !o.last_branch &&
		o.last_branch_sz == 1024 && o.add_callchain);
	o = parse("il1025", &err, &pos);
	T_CHECK("itrace_l_too_big", err == PK_ERR_SYNTAX && pos == 1);
	o = parse("il0", &err, &pos);
	T_CHECK("itrace_l_zero", err == PK_ERR_SYNTAX);
	o = parse("b s 12", &err, &pos);
	T_CHECK("itrace_skip_sep", !err && o.branches && o.initial_skip == 12);
	/* the bare option: the tool's default (perf script's: calls...) */
	o = parse(NULL, &err, &pos);
	T_CHECK("itrace_bare", !err && !o.set && o.branches && o.calls &&
		o.errors && o.pwr_events && !o.instructions && o.period == 1);
	memset(&o, 0, sizeof(o));
	pk_itrace_set_default(&o, false);
	T_CHECK("itrace_default_report", o.instructions && o.branches &&
		o.period == PK_ITRACE_DEFAULT_PERIOD &&
		o.period_type == PK_ITRACE_PERIOD_NANOSECS && !o.calls);
	o = parse("i100icre-o", &err, &pos);
	pk_itrace_format(&o, buf, sizeof(buf));
	T_CHECK("itrace_format", !err && !strcmp(buf, "i100icre-o"));
	{
		struct pk_itrace_opts b = parse(buf, &err, &pos);

		T_CHECK("itrace_format_round_trip", !err &&
			b.period == o.period && b.calls && b.returns &&
			b.error_minus_overflow && b.instructions);
	}
}

static void test_synth(void)
{
	struct pk_itrace_sample s, r;
	uint8_t buf[64];
	int n;

	memset(&s, 0, sizeof(s));
	s.kind = PK_ITRACE_PSB;
	s.u.psb.offset = 0x4258;
	n = pk_itrace_synth_encode(&s, buf, sizeof(buf));
	memset(&r, 0, sizeof(r));
	T_CHECK("synth_psb", n == 12 && !pk_itrace_synth_decode(6, buf, (size_t)n, &r) &&
		r.kind == PK_ITRACE_PSB && r.u.psb.offset == 0x4258);
	memset(&s, 0, sizeof(s));
	s.kind = PK_ITRACE_CBR;
	s.u.cbr.cbr = 29;
	s.u.cbr.max_nonturbo = 12;
	s.u.cbr.freq_khz = 2900000;
	n = pk_itrace_synth_encode(&s, buf, sizeof(buf));
	memset(&r, 0, sizeof(r));
	T_CHECK("synth_cbr", n == 12 && !pk_itrace_synth_decode(5, buf, (size_t)n, &r) &&
		r.kind == PK_ITRACE_CBR && r.u.cbr.cbr == 29 &&
		r.u.cbr.max_nonturbo == 12 && r.u.cbr.freq_khz == 2900000);
	/* ptwrite, pwre, exstop, pwrx: perf's raw layouts, read back */
	memset(&s, 0, sizeof(s));
	s.kind = PK_ITRACE_PTWRITE;
	s.u.ptwrite.ip = true;
	s.u.ptwrite.payload = 0x1122334455667788ull;
	n = pk_itrace_synth_encode(&s, buf, sizeof(buf));
	memset(&r, 0, sizeof(r));
	T_CHECK("synth_ptwrite", n == 12 && buf[0] == 1 && buf[4] == 0x88 &&
		!pk_itrace_synth_decode(0, buf, (size_t)n, &r) &&
		r.kind == PK_ITRACE_PTWRITE && r.u.ptwrite.ip &&
		r.u.ptwrite.payload == s.u.ptwrite.payload);
	memset(&s, 0, sizeof(s));
	s.kind = PK_ITRACE_PWRE;
	s.u.pwre.hw = 1;
	s.u.pwre.cstate = 3;
	s.u.pwre.subcstate = 1;
	n = pk_itrace_synth_encode(&s, buf, sizeof(buf));
	memset(&r, 0, sizeof(r));
	T_CHECK("synth_pwre", n == 12 && buf[4] == 0x80 && buf[5] == 0x31 &&
		!pk_itrace_synth_decode(2, buf, (size_t)n, &r) &&
		r.u.pwre.hw == 1 && r.u.pwre.cstate == 3 &&
		r.u.pwre.subcstate == 1);
	memset(&s, 0, sizeof(s));
	s.kind = PK_ITRACE_EXSTOP;
	s.u.exstop.ip = true;
	n = pk_itrace_synth_encode(&s, buf, sizeof(buf));
	memset(&r, 0, sizeof(r));
	T_CHECK("synth_exstop", n == 4 &&
		!pk_itrace_synth_decode(3, buf, 4, &r) && r.u.exstop.ip &&
		pk_itrace_synth_decode(3, buf, 3, &r) == -EINVAL);
	memset(&s, 0, sizeof(s));
	s.kind = PK_ITRACE_PWRX;
	s.u.pwrx.deepest = 2;
	s.u.pwrx.last = 6;
	s.u.pwrx.wake = 4;
	n = pk_itrace_synth_encode(&s, buf, sizeof(buf));
	memset(&r, 0, sizeof(r));
	T_CHECK("synth_pwrx", n == 12 && buf[4] == 0x62 && buf[5] == 4 &&
		!pk_itrace_synth_decode(4, buf, (size_t)n, &r) &&
		r.u.pwrx.deepest == 2 && r.u.pwrx.last == 6 &&
		r.u.pwrx.wake == 4);
	T_CHECK("synth_short", pk_itrace_synth_decode(6, buf, 8, &r) == -EINVAL);
	T_CHECK("synth_unknown", pk_itrace_synth_decode(99, buf, 12, &r) == -EINVAL);
	s.kind = PK_ITRACE_BRANCHES;
	T_CHECK("synth_not_synth", pk_itrace_synth_encode(&s, buf, sizeof(buf)) == -EINVAL);
}

/* evt and iflag payloads: perf's bit fields, EVDs in order */
static void test_synth_evt(void)
{
	struct pk_itrace_sample s, r;
	uint8_t buf[96];
	int n;

	memset(&s, 0, sizeof(s));
	s.kind = PK_ITRACE_EVT;
	s.u.evt.type = 9;
	s.u.evt.ip = 1;
	s.u.evt.vector = 32;
	s.u.evt.nevd = 2;
	s.u.evt.evd_type[0] = 2;
	s.u.evt.evd[0] = 0x1234;
	s.u.evt.evd_type[1] = 63;
	s.u.evt.evd[1] = 0xaa00000000000000ull;
	n = pk_itrace_synth_encode(&s, buf, sizeof(buf));
	memset(&r, 0, sizeof(r));
	T_CHECK("synth_evt", n == 36 && buf[0] == 0x89 && buf[1] == 32 &&
		buf[2] == 2 && buf[4] == 2 && buf[20] == 63 &&
		!pk_itrace_synth_decode(7, buf, (size_t)n, &r) &&
		r.kind == PK_ITRACE_EVT && r.u.evt.type == 9 && r.u.evt.ip &&
		r.u.evt.vector == 32 && r.u.evt.nevd == 2 &&
		r.u.evt.evd_type[1] == 63 &&
		r.u.evt.evd[1] == 0xaa00000000000000ull &&
		r.u.evt.evd[0] == 0x1234);
	T_CHECK("synth_evt_short",
		pk_itrace_synth_decode(7, buf, 20, &r) == -EINVAL &&
		pk_itrace_synth_decode(7, buf, 3, &r) == -EINVAL);
	s.kind = PK_ITRACE_IFLAG;
	s.u.iflag.iflag = 1;
	s.u.iflag.via_branch = 1;
	s.u.iflag.branch_ip = 0x401000;
	n = pk_itrace_synth_encode(&s, buf, sizeof(buf));
	memset(&r, 0, sizeof(r));
	T_CHECK("synth_iflag", n == 12 && buf[0] == 3 &&
		!pk_itrace_synth_decode(8, buf, (size_t)n, &r) &&
		r.kind == PK_ITRACE_IFLAG && r.u.iflag.iflag &&
		r.u.iflag.via_branch && r.u.iflag.branch_ip == 0x401000);
}

/* ---- a whole decode ---- */

#define BASE 0x400000ull
/* xor eax,eax; call +5; syscall; jmp .; nop; ret */
static const uint8_t code[] = {
	0x31, 0xc0, 0xe8, 0x05, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xfe,
	0x90, 0x90, 0xc3,
};

static size_t put_packet(uint8_t *b, size_t n, uint8_t type, uint8_t ipc,
			 uint64_t ip)
{
	struct pk_pt_packet p;
	int r;

	memset(&p, 0, sizeof(p));
	p.type = type;
	if (type == PK_PT_TIP_PGE || type == PK_PT_TIP_PGD) {
		p.u.ip.ipc = ipc;
		p.u.ip.ip = ip;
	} else if (type == PK_PT_TNT_8) {
		p.u.tnt.bits = 1;
		p.u.tnt.payload = 1;	/* the compressed return: taken */
	} else if (type == PK_PT_MODE_EXEC) {
		p.u.exec.csl = 1;
	} else if (type == PK_PT_CYC) {
		p.u.cyc.value = ip;
	}
	r = pk_pt_encode(&p, b + n, 64);
	return r > 0 ? n + (size_t)r : n;
}

static bool with_pwre;	/* a power entry after the enable */
static uint64_t with_cyc;	/* a CYC of this many cycles there */
static bool with_ipc;		/* the decode counts cycles */
static uint64_t pt_config;	/* the intel_pt event's config */

/* PSB+, enable at the start, the return's bit, disable at the syscall. */
static size_t stream(uint8_t *b)
{
	size_t n = 0;

	n = put_packet(b, n, PK_PT_PSB, 0, 0);
	n = put_packet(b, n, PK_PT_PSBEND, 0, 0);
	n = put_packet(b, n, PK_PT_MODE_EXEC, 0, 0);
	n = put_packet(b, n, PK_PT_TIP_PGE, 3, BASE);
	if (with_pwre)
		n = put_packet(b, n, PK_PT_PWRE, 0, 0);
	if (with_cyc)
		n = put_packet(b, n, PK_PT_CYC, 0, with_cyc);
	n = put_packet(b, n, PK_PT_TNT_8, 0, 0);
	n = put_packet(b, n, PK_PT_TIP_PGD, 0, 0);
	while (n % 8)
		b[n++] = 0;	/* PAD */
	return n;
}

struct got {
	char text[2048];
	size_t len;
	int n;
};

static int collect(void *ctx, const struct pk_itrace_sample *s)
{
	struct got *g = ctx;
	int r = snprintf(g->text + g->len, sizeof(g->text) - g->len,
			 "%d:%llx>%llx/%x ", s->kind, (unsigned long long)s->ip,
			 (unsigned long long)s->addr, s->flags);

	if (r > 0 && g->len + (size_t)r < sizeof(g->text))
		g->len += (size_t)r;
	for (unsigned i = 0; i < s->nr_brstack; i++) {	/* l: [from>to] */
		r = snprintf(g->text + g->len, sizeof(g->text) - g->len,
			     "[%llx>%llx] ",
			     (unsigned long long)s->brstack[i].from,
			     (unsigned long long)s->brstack[i].to);
		if (r > 0 && g->len + (size_t)r < sizeof(g->text))
			g->len += (size_t)r;
	}
	r = s->ipc_cyc_cnt ? snprintf(g->text + g->len,
				      sizeof(g->text) - g->len, "ipc %llu/%llu ",
				      (unsigned long long)s->ipc_insn_cnt,
				      (unsigned long long)s->ipc_cyc_cnt) : 0;
	if (r > 0 && g->len + (size_t)r < sizeof(g->text))
		g->len += (size_t)r;
	g->n++;
	return 0;
}

static void put(uint8_t *b, size_t off, uint64_t v, size_t n)
{
	memcpy(b + off, &v, n);	/* little-endian host */
}

/* A record header into B: TYPE, SIZE (the rest zeroed). */
static void hdr(uint8_t *b, uint32_t type, uint16_t size)
{
	memset(b, 0, size);
	put(b, 0, type, 4);
	put(b, 6, size, 2);
}

/* Writes the perf.data: the intel_pt event (type 8), its records. */
static int write_file(const char *path, const char *codefile)
{
	struct perf_event_attr a;
	uint64_t id = 17, recbuf[64];
	uint8_t *rec = (uint8_t *)recbuf, pt[256], mm[512];
	struct pk_pdwriter *w = pk_pdwriter_open(path, NULL);
	size_t n = stream(pt), msz;
	int err = 0;

	if (!w)
		return -errno;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = 8;
	a.config = pt_config;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER;
	a.exclude_kernel = a.exclude_hv = a.exclude_guest = 1;
	err = pk_pdwriter_add_attr(w, &a, &id, 1, "intel_pt//u") < 0;
	/* AUXTRACE_INFO: type 1 (Intel PT), the priv fields: pmu type 8,
	 * time shift/mult/zero, no TSC (timeless), max non-turbo ratio */
	hdr(rec, PK_RECORD_AUXTRACE_INFO, 16 + 17 * 8);
	put(rec, 8, 1, 4);
	put(rec, 16, 8, 8);		/* PMU type */
	put(rec, 24, 31, 8);		/* time shift */
	put(rec, 32, 1ull << 31, 8);	/* time mult */
	put(rec, 16 + 15 * 8, 10, 8);	/* max non-turbo ratio */
	err |= pk_pdwriter_write(w, (void *)rec, NULL, 0);
	msz = t_mmap2(mm, sizeof(mm), 42, BASE, 0x1000, 0, codefile, 2);
	put(mm, 64, 5, 4);		/* prot: PROT_READ | PROT_EXEC */
	err |= !msz || pk_pdwriter_write(w, (void *)mm, NULL, 0);
	/* AUXTRACE: size, offset, reference, idx, tid, cpu, the bytes after */
	hdr(rec, PK_RECORD_AUXTRACE, 48);
	put(rec, 8, n, 8);
	put(rec, 36, 42, 4);
	put(rec, 40, (uint32_t)-1, 4);
	err |= pk_pdwriter_write(w, (void *)rec, pt, n);
	/* EXIT of the thread: its queue is decoded then */
	hdr(rec, PERF_RECORD_EXIT, 40);
	put(rec, 8, 42, 4);
	put(rec, 16, 42, 4);
	err |= pk_pdwriter_write(w, (void *)rec, NULL, 0);
	return pk_pdwriter_close(w) || err ? -EIO : 0;
}

static int feed(void *ctx, struct pk_session *s, const struct pk_record *rec)
{
	(void)s;
	return pk_itrace_record(ctx, rec);
}

static unsigned unsynth;	/* the last decode's */

static int decode(const char *path, const char *letters, struct got *g)
{
	struct pk_perfdata *pd = pk_perfdata_open(path, NULL);
	PK_OPTS(pk_session_opts, so, .kallsyms = "", .buildid_dir = "");
	struct pk_session *s = pk_session_new(&so);
	struct pk_itrace_opts o;
	struct pk_itrace *it = NULL;
	size_t pos;
	int err = -ENOMEM;

	memset(g, 0, sizeof(*g));
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	pk_itrace_parse(&o, letters, &pos);
	o.ipc = with_ipc;
	if (pd && s)
		it = pk_itrace_new(pd, s, &o, collect, g);
	if (it) {
		PK_OPTS(pk_tool, tool, .record = feed);

		err = pk_session_run(s, pd, &tool, it);
		if (!err)
			err = pk_itrace_flush(it);
		unsynth = pk_itrace_unsynthesized(it);
	}
	pk_itrace_free(it);
	pk_session_free(s);
	pk_perfdata_free(pd);
	return err;
}

/* G and L on a recorded sample of thread 42 at IP, after the whole
 * decode: its chain and last branches as text into G. */
static int decode_late(const char *path, const char *letters, uint64_t ip,
		       struct got *g)
{
	struct pk_perfdata *pd = pk_perfdata_open(path, NULL);
	PK_OPTS(pk_session_opts, so, .kallsyms = "", .buildid_dir = "");
	struct pk_session *s = pk_session_new(&so);
	struct pk_itrace_opts o;
	struct pk_itrace *it = NULL;
	struct pk_sample sm;
	size_t pos;
	int err = -ENOMEM;

	memset(g, 0, sizeof(*g));
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	pk_itrace_parse(&o, letters, &pos);
	if (pd && s)
		it = pk_itrace_new(pd, s, &o, collect, g);
	if (it) {
		PK_OPTS(pk_tool, tool, .record = feed);
		const uint64_t *c;
		const struct perf_branch_entry *b;
		unsigned nc, nb;

		err = pk_session_run(s, pd, &tool, it);
		if (!err)
			err = pk_itrace_flush(it);
		memset(&sm, 0, sizeof(sm));
		sm.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
		sm.pid = sm.tid = 42;
		sm.ip = ip;
		if (!err)
			err = pk_itrace_late(it, &sm, &c, &nc, &b, &nb);
		g->len = 0;
		for (unsigned i = 0; !err && i < nc; i++)
			g->len += (size_t)snprintf(g->text + g->len, 64, "%llx ",
						   (unsigned long long)c[i]);
		for (unsigned i = 0; !err && i < nb; i++)
			g->len += (size_t)snprintf(g->text + g->len, 64,
						   "[%llx>%llx] ",
						   (unsigned long long)b[i].from,
						   (unsigned long long)b[i].to);
	}
	pk_itrace_free(it);
	pk_session_free(s);
	pk_perfdata_free(pd);
	return err;
}

static void test_decode(void)
{
	char dir[] = "/tmp/pkitraceXXXXXX", path[64], codefile[64];
	char pwre[16], want[64];
	struct got g;
	FILE *f;
	int err;

	if (!mkdtemp(dir)) {
		t_fail("itrace_decode", "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(codefile, sizeof(codefile), "%s/code", dir);
	snprintf(path, sizeof(path), "%s/pt.data", dir);
	f = fopen(codefile, "wb");
	if (!f || fwrite(code, 1, sizeof(code), f) != sizeof(code) || fclose(f)) {
		t_fail("itrace_decode", "cannot write %s", codefile);
		return;
	}
	err = write_file(path, codefile);
	T_CHECK("itrace_decode_file", !err);
	/* b: tr strt 0 => 400000 (flags 0x101), call 400002 => 40000c (0x3),
	 * return 40000d => 400007 (0x5), tr end syscall 400007 => 0
	 * (0x213: branch call syscallret trace-end) */
	err = decode(path, "b", &g);
	t_check(!err && !strcmp(g.text, "1:0>400000/101 1:400002>40000c/3 "
				"1:40000d>400007/5 1:400007>0/213 "), "itrace_decode_b",
		"err %d: %s", err, g.text);
	/* i1i: every instruction: 400000 400002 40000c 40000d 400007 */
	err = decode(path, "i1i", &g);
	t_check(!err && g.n == 5 && strstr(g.text, "0:400000>") == g.text &&
		strstr(g.text, "0:400007>0/213 "), "itrace_decode_i1i",
		"err %d, %d samples: %s", err, g.n, g.text);
	/* c: calls only (the call and the syscall's trace end) */
	err = decode(path, "c", &g);
	t_check(!err && !strcmp(g.text, "1:400002>40000c/3 1:400007>0/213 "),
		"itrace_decode_c", "err %d: %s", err, g.text);
	/* r: returns and trace starts */
	err = decode(path, "r", &g);
	t_check(!err && !strcmp(g.text, "1:0>400000/101 1:40000d>400007/5 "),
		"itrace_decode_r", "err %d: %s", err, g.text);
	T_CHECK("itrace_decode_nothing_unsynthesized", !unsynth);
	/* s2: the first two samples made are left out (the filter first) */
	err = decode(path, "bs2", &g);
	t_check(!err && !strcmp(g.text, "1:40000d>400007/5 1:400007>0/213 "),
		"itrace_decode_skip", "err %d: %s", err, g.text);
	err = decode(path, "rs1", &g);
	t_check(!err && !strcmp(g.text, "1:40000d>400007/5 "),
		"itrace_decode_skip_filtered", "err %d: %s", err, g.text);
	/* l2: each i sample carries the last 2 branches before it, the
	 * latest first (a branch's own sample comes before the branch) */
	err = decode(path, "i1il2", &g);
	t_check(!err && !strcmp(g.text, "0:400000>0/0 [0>400000] "
		"0:400002>40000c/3 [0>400000] "
		"0:40000c>0/0 [400002>40000c] [0>400000] "
		"0:40000d>400007/5 [400002>40000c] [0>400000] "
		"0:400007>0/213 [40000d>400007] [400002>40000c] "),
		"itrace_decode_l", "err %d: %s", err, g.text);
	/* G, L: a recorded sample's chain (the stack is empty: its context
	 * and ip) and last branches from the first into user space */
	err = decode_late(path, "GL3", 0x400009, &g);
	t_check(!err && !strcmp(g.text, "fffffffffffffe00 400009 "
		"[40000d>400007] [400002>40000c] [0>400000] "),
		"itrace_late_GL", "err %d: %s", err, g.text);
	err = decode_late(path, "L1", 0x400009, &g);
	t_check(!err && !strcmp(g.text, "[40000d>400007] "),
		"itrace_late_L1", "err %d: %s", err, g.text);
	/* ... the branch samples none */
	err = decode(path, "bl", &g);
	t_check(!err && !strchr(g.text, '['), "itrace_decode_l_not_branches",
		"err %d: %s", err, g.text);
	/* a power entry: perf would make a pwre sample of it with p;
	 * perfkit says it does not (and decodes the rest all the same) */
	/* a PWRE without the pwr_evt config bit: no event for it (perf
	 * adds none), the rest decoded all the same */
	with_pwre = true;
	err = write_file(path, codefile);
	err = err ? err : decode(path, "bpe", &g);
	snprintf(pwre, sizeof(pwre), " %d:", PK_ITRACE_PWRE);
	t_check(!err && !unsynth && !strstr(g.text, pwre) &&
		strstr(g.text, "1:400002>40000c/3 "), "itrace_decode_pwre_no_evt",
		"err %d, unsynthesized %#x: %s", err, unsynth, g.text);
	/* with it: a pwre sample where the flow stands (after the
	 * TIP.PGE, before the first instruction), no flags */
	pt_config = 1u << 4;
	err = write_file(path, codefile);
	err = err ? err : decode(path, "bpe", &g);
	snprintf(want, sizeof(want), "1:0>400000/101 %d:400000>0/0 "
		 "1:400002>40000c/3 ", PK_ITRACE_PWRE);
	t_check(!err && !unsynth && strstr(g.text, want),
		"itrace_decode_pwre", "err %d, unsynthesized %#x: %s", err,
		unsynth, g.text);
	err = decode(path, "b", &g);
	T_CHECK("itrace_decode_not_asked", !err && !unsynth &&
		!strstr(g.text, pwre));
	with_pwre = false;
	pt_config = 0;
	/* IPC: a CYC after the enable goes to the compressed return (the
	 * first branch a packet gives: the direct call before it carries
	 * none), 4 instructions in 7 cycles; per kind (b and i) apart;
	 * none unless asked for */
	with_cyc = 7;
	err = write_file(path, codefile);
	with_ipc = true;
	err = err ? err : decode(path, "b", &g);
	t_check(!err &&
		strstr(g.text, "1:400002>40000c/3 1:40000d>400007/5 ipc 4/7 ") &&
		!strstr(strstr(g.text, "ipc") + 1, "ipc"),
		"itrace_decode_ipc_branch",
		"err %d: %s", err, g.text);
	err = decode(path, "bi1i", &g);
	T_CHECK("itrace_decode_ipc_kinds", !err &&
		strstr(g.text, "ipc 4/7 1:40000d>400007/5 ipc 4/7 ") &&
		!strstr(g.text, "400002>0/0 ipc"));
	with_ipc = false;
	err = decode(path, "b", &g);
	T_CHECK("itrace_decode_ipc_not_asked", !err && g.n &&
		!strstr(g.text, "ipc"));
	with_cyc = 0;
	if (!getenv("PK_KEEP")) {
		unlink(codefile);
		unlink(path);
		rmdir(dir);
	}
}

/* --time ranges: perf's checks (in order, an end not before its start,
 * no overlap; open sides); a timeless trace is decoded whole. */
static void test_ranges(void)
{
	char dir[] = "/tmp/pkitrangeXXXXXX", path[64], codefile[64];
	const struct pk_itrace_time_range ok[] = { { 5, 10 }, { 20, 0 } };
	const struct pk_itrace_time_range back[] = { { 10, 5 } };
	const struct pk_itrace_time_range over[] = { { 5, 20 }, { 20, 30 } };
	const struct pk_itrace_time_range open[] = { { 0, 10 }, { 11, 0 } };
	PK_OPTS(pk_session_opts, so, .kallsyms = "", .buildid_dir = "");
	struct pk_perfdata *pd = NULL;
	struct pk_session *s = pk_session_new(&so);
	struct pk_itrace *it = NULL;
	struct got g;
	FILE *f;

	if (!mkdtemp(dir)) {
		t_fail("itrace_ranges", "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(codefile, sizeof(codefile), "%s/code", dir);
	snprintf(path, sizeof(path), "%s/pt.data", dir);
	f = fopen(codefile, "wb");
	if (f && fwrite(code, 1, sizeof(code), f) == sizeof(code) &&
	    !fclose(f) && !write_file(path, codefile))
		pd = pk_perfdata_open(path, NULL);
	if (pd && s)
		it = pk_itrace_new(pd, s, NULL, collect, &g);
	T_CHECK("itrace_ranges_new", it != NULL);
	T_CHECK("itrace_ranges_ok", it && !pk_itrace_set_time_ranges(it, ok, 2));
	T_CHECK("itrace_ranges_open", it && !pk_itrace_set_time_ranges(it, open, 2));
	T_CHECK("itrace_ranges_backwards",
		pk_itrace_set_time_ranges(it, back, 1) == -EINVAL);
	T_CHECK("itrace_ranges_overlap",
		pk_itrace_set_time_ranges(it, over, 2) == -EINVAL);
	T_CHECK("itrace_ranges_null", pk_itrace_set_time_ranges(it, NULL, 1) == -EINVAL &&
		pk_itrace_set_time_ranges(NULL, ok, 1) == -EINVAL);
	T_CHECK("itrace_ranges_none", it && !pk_itrace_set_time_ranges(it, NULL, 0));
	pk_itrace_free(it);
	pk_session_free(s);
	pk_perfdata_free(pd);
	/* timeless (this file has no TSC): ranges leave the decode whole */
	it = NULL;
	s = pk_session_new(&so);
	pd = pk_perfdata_open(path, NULL);
	memset(&g, 0, sizeof(g));
	if (pd && s) {
		struct pk_itrace_opts o;
		size_t pos;

		memset(&o, 0, sizeof(o));
		o.sz = sizeof(o);
		pk_itrace_parse(&o, "b", &pos);
		it = pk_itrace_new(pd, s, &o, collect, &g);
	}
	if (it && !pk_itrace_set_time_ranges(it, ok, 1)) {
		PK_OPTS(pk_tool, tool, .record = feed);

		if (!pk_session_run(s, pd, &tool, it))
			pk_itrace_flush(it);
	}
	t_check(!strcmp(g.text, "1:0>400000/101 1:400002>40000c/3 "
			"1:40000d>400007/5 1:400007>0/213 "), "itrace_ranges_timeless",
		"%s", g.text);
	pk_itrace_free(it);
	pk_session_free(s);
	pk_perfdata_free(pd);
	unlink(codefile);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_parse();
	test_synth();
	test_synth_evt();
	test_decode();
	test_ranges();
	return t_exit();
}
