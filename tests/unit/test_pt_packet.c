/* SPDX-License-Identifier: MIT */
/*
 * Intel PT packet layer: known encodings, encode/decode round trips for
 * every packet type and IP compression, TNT bit order, PSB sync forward and
 * backward, damaged streams (bit flips, truncation, garbage), errata, last
 * IP and time tracking.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/pt.h>
#include "test.h"
#include "pt/pt_int.h"
#include "pt_testgen.h"

static const uint8_t psb[16] = {
	2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
};

/* Decodes one packet from BYTES (synchronised at 0). */
static int dec1(const uint8_t *bytes, size_t len, struct pk_pt_packet *p,
		const struct pk_pt_config *cfg)
{
	struct pk_pt_decoder *d = pk_pt_decoder_new(bytes, len, cfg);
	int n;

	if (!d)
		return -1000;
	pk_pt_sync_set(d, 0);
	memset(p, 0, sizeof(*p));
	n = pk_pt_next(d, p);
	pk_pt_decoder_free(d);
	return n;
}

static void test_known(void)
{
	struct pk_pt_packet p;
	bool ok;

	{	/* spec: 0x62 = TNT-8 with 5 results 1,0,0,0,1 oldest first */
		static const uint8_t b[] = { 0x62 };

		ok = dec1(b, 1, &p, NULL) == 1 && p.type == PK_PT_TNT_8 &&
		     p.u.tnt.bits == 5 && p.u.tnt.payload == 0x11;
		t_check(ok, "pt_known_tnt8", "bits %u payload %llx", p.u.tnt.bits,
			(unsigned long long)p.u.tnt.payload);
	}
	{	/* TNT order: 0x0c = stop bit 3, results 1,0 (taken, not) */
		static const uint8_t b[] = { 0x0a };

		ok = dec1(b, 1, &p, NULL) == 1 && p.u.tnt.bits == 2 &&
		     ((p.u.tnt.payload >> 1) & 1) == 0 &&
		     (p.u.tnt.payload & 1) == 1;
		t_check(ok, "pt_tnt_order", "0x0a: oldest N then T, got %llx",
			(unsigned long long)p.u.tnt.payload);
	}
	{	/* PIP: cr3 0xafafa0 */
		static const uint8_t b[] = { 2, 0x43, 0xfa, 0xfa, 0x0a, 0, 0, 0 };

		ok = dec1(b, 8, &p, NULL) == 8 && p.type == PK_PT_PIP &&
		     p.u.pip.cr3 == 0xafafa0 && !p.u.pip.nr;
		t_check(ok, "pt_known_pip", "cr3 %llx",
			(unsigned long long)p.u.pip.cr3);
	}
	{	/* VMCS base 0xabcd000 */
		static const uint8_t b[] = { 2, 0xc8, 0xcd, 0xab, 0, 0, 0 };

		ok = dec1(b, 7, &p, NULL) == 7 && p.u.vmcs.base == 0xabcd000;
		t_check(ok, "pt_known_vmcs", "base %llx",
			(unsigned long long)p.u.vmcs.base);
	}
	{	/* CYC bf 04 = 0x57 */
		static const uint8_t b[] = { 0xbf, 0x04 };

		ok = dec1(b, 2, &p, NULL) == 2 && p.type == PK_PT_CYC &&
		     p.u.cyc.value == 0x57;
		t_check(ok, "pt_known_cyc", "value %llx",
			(unsigned long long)p.u.cyc.value);
	}
	{	/* PTWRITE 02 92 ef cd ab 90: 4 bytes, IP */
		static const uint8_t b[] = { 2, 0x92, 0xef, 0xcd, 0xab, 0x90 };

		ok = dec1(b, 6, &p, NULL) == 6 && p.type == PK_PT_PTW &&
		     p.u.ptw.payload == 0x90abcdef && p.u.ptw.ip &&
		     p.u.ptw.plc == 0;
		t_check(ok, "pt_known_ptw", "payload %llx",
			(unsigned long long)p.u.ptw.payload);
	}
	{	/* FUP 3 (sign-extended 48) */
		static const uint8_t b[] = { 0x7d, 0, 0x10, 0, 0, 0, 0x80 };

		ok = dec1(b, 7, &p, NULL) == 7 && p.type == PK_PT_FUP &&
		     p.u.ip.ipc == 3 &&
		     pk_pt_sext48(p.u.ip.ip) == 0xffff800000001000ull;
		t_check(ok, "pt_known_fup_sext", "ip %llx",
			(unsigned long long)p.u.ip.ip);
	}
	{	/* reserved IP compression 5 is a bad packet */
		static const uint8_t b[] = { 0xad, 0, 0, 0, 0, 0, 0, 0, 0 };

		t_check(dec1(b, 9, &p, NULL) == PK_PT_ERR_BAD_PACKET,
			"pt_known_ipc5", "accepted");
	}
	{	/* unknown opcode, unknown ext, MODE leaf 2, TNT-64 empty */
		static const uint8_t a[] = { 0xc9 }, b[] = { 2, 4 },
			c[] = { 0x99, 0x40 }, e[] = { 2, 0xa3, 1, 0, 0, 0, 0, 0 };

		ok = dec1(a, 1, &p, NULL) == PK_PT_ERR_BAD_OPC &&
		     dec1(b, 2, &p, NULL) == PK_PT_ERR_BAD_OPC &&
		     dec1(c, 2, &p, NULL) == PK_PT_ERR_BAD_PACKET &&
		     dec1(e, 8, &p, NULL) == PK_PT_ERR_BAD_PACKET;
		t_check(ok, "pt_known_bad", "bad bytes accepted");
	}
	{	/* a packet cut by the end of the buffer is end of stream */
		static const uint8_t b[] = { 0x19, 1, 2, 3 };

		t_check(dec1(b, 4, &p, NULL) == PK_ERR_EOS, "pt_known_trunc",
			"truncated TSC not EOS");
	}
}

static void test_roundtrip(void)
{
	int bad = 0;
	char what[128] = "";

	for (size_t t = 0; t < sizeof(gen_types); t++) {
		for (int i = 0; i < 500; i++) {
			struct pk_pt_packet p, q;
			uint8_t buf[32];
			int n, m;

			pt_gen_packet(&p, gen_types[t]);
			n = pk_pt_encode(&p, buf, sizeof(buf));
			m = n > 0 ? dec1(buf, (size_t)n, &q, NULL) : n;
			if (n <= 0 || m != n || !pt_pkt_same(&p, &q) ||
			    q.size != n) {
				if (!bad++)
					snprintf(what, sizeof(what),
						 "type %u enc %d dec %d", p.type,
						 n, m);
			}
		}
	}
	t_check(!bad, "pt_roundtrip_all_types", "%d mismatches, first %s", bad,
		what);
}

static void test_ipc(void)
{
	/* spec worked example (ptdump-last-ip) */
	static const struct { uint8_t ipc; uint64_t ip, want; } s[] = {
		{ 6, 0x0a00ccccddddeeeeull, 0x0a00ccccddddeeeeull },
		{ 4, 0xffffeeeeffffull,     0x0a00ffffeeeeffffull },
		{ 1, 0xdddd,                0x0a00ffffeeeedddd },
		{ 3, 0xffffddddeeeeull,     0xffffffffddddeeeeull },
		{ 2, 0xeeeeffff,            0xffffffffeeeeffffull },
	};
	struct pk_pt_last_ip lip = { 0 };
	uint64_t ip = 0;
	bool ok = pk_pt_last_ip_query(&lip, &ip) == PK_PT_ERR_NO_IP;

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		ok = ok && !pk_pt_last_ip_update(&lip, s[i].ipc, s[i].ip) &&
		     !pk_pt_last_ip_query(&lip, &ip) && ip == s[i].want;
		/* and each compression round-trips through the codec */
		struct pk_pt_packet p = { .type = PK_PT_TIP }, q;
		uint8_t buf[16];
		int n;

		p.u.ip.ipc = s[i].ipc;
		p.u.ip.ip = s[i].ip;
		n = pk_pt_encode(&p, buf, sizeof(buf));
		ok = ok && n == 1 + (s[i].ipc == 6 ? 8 : 2 * (s[i].ipc > 3 ? 3
							       : s[i].ipc)) &&
		     dec1(buf, (size_t)n, &q, NULL) == n &&
		     q.u.ip.ipc == s[i].ipc && q.u.ip.ip == s[i].ip;
	}
	pk_pt_last_ip_update(&lip, 0, 0);
	ok = ok && pk_pt_last_ip_query(&lip, &ip) == PK_PT_ERR_IP_SUPPRESSED;
	ok = ok && pk_pt_last_ip_update(&lip, 5, 0) == PK_PT_ERR_BAD_PACKET;
	t_check(ok, "pt_ip_compression", "last-ip chain wrong at %llx",
		(unsigned long long)ip);
}

static void test_encoder_errors(void)
{
	struct pk_pt_packet p = { .type = PK_PT_TNT_8 };
	uint8_t buf[16];
	bool ok;

	ok = pk_pt_encode(&p, buf, sizeof(buf)) == PK_PT_ERR_BAD_PACKET;
	p.u.tnt.bits = 7;
	ok = ok && pk_pt_encode(&p, buf, sizeof(buf)) == PK_PT_ERR_BAD_PACKET;
	p.type = PK_PT_TIP;
	p.u.ip.ipc = 5;
	ok = ok && pk_pt_encode(&p, buf, sizeof(buf)) == PK_PT_ERR_BAD_PACKET;
	p.type = PK_PT_PSB;
	ok = ok && pk_pt_encode(&p, buf, 15) == PK_ERR_RANGE &&
	     pk_pt_encode(&p, buf, 16) == 16 && !memcmp(buf, psb, 16);
	t_check(ok, "pt_encoder_errors", "bad packets encoded");
}

/* ---- streams ---- */

struct stream {
	uint8_t *buf;
	size_t len, cap;
	struct pk_pt_packet *pkts;
	size_t *offs;
	size_t n, ncap;
	size_t psb_offs[4096];
	size_t npsb;
};

static void s_add(struct stream *s, const struct pk_pt_packet *p)
{
	uint8_t tmp[32];
	int n = pk_pt_encode(p, tmp, sizeof(tmp));

	if (n <= 0)
		abort();
	if (s->len + (size_t)n > s->cap) {
		s->cap = s->cap * 2 + 64;
		s->buf = realloc(s->buf, s->cap);
	}
	if (s->n == s->ncap) {
		s->ncap = s->ncap * 2 + 64;
		s->pkts = realloc(s->pkts, s->ncap * sizeof(*s->pkts));
		s->offs = realloc(s->offs, s->ncap * sizeof(*s->offs));
	}
	if (p->type == PK_PT_PSB && s->npsb < 4096)
		s->psb_offs[s->npsb++] = s->len;
	s->pkts[s->n] = *p;
	s->offs[s->n++] = s->len;
	memcpy(s->buf + s->len, tmp, (size_t)n);
	s->len += (size_t)n;
}

/* A stream: PSB+ every ~PERIOD packets, random packets between (no stray
 * PSBs). */
static void s_make(struct stream *s, size_t npkts, unsigned period)
{
	struct pk_pt_packet p;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < npkts; i++) {
		if (i % period == 0) {
			pt_gen_packet(&p, PK_PT_PSB);
			s_add(s, &p);
			pt_gen_packet(&p, PK_PT_PSBEND);
			s_add(s, &p);
		}
		do
			pt_gen_random(&p);
		while (p.type == PK_PT_PSB);
		s_add(s, &p);
	}
}

static void s_free(struct stream *s)
{
	free(s->buf);
	free(s->pkts);
	free(s->offs);
}

/* D's packets to its end, checked against S's from the I-th on (BAD
 * counts the mismatches); the last pk_pt_next() return. */
static int s_read(const struct stream *s, struct pk_pt_decoder *d,
		  size_t *i, size_t *bad)
{
	for (;;) {
		struct pk_pt_packet q;
		uint64_t off;
		int n;

		memset(&q, 0, sizeof(q));
		pk_pt_offset(d, &off);
		n = pk_pt_next(d, &q);
		if (n < 0)
			return n;
		if (*i >= s->n || off != s->offs[*i] ||
		    !pt_pkt_same(&q, &s->pkts[*i]))
			(*bad)++;
		(*i)++;
	}
}

static void test_stream(void)
{
	struct stream s;
	struct pk_pt_decoder *d;
	size_t i = 0, bad = 0;
	int n;

	s_make(&s, 20000, 50);
	d = pk_pt_decoder_new(s.buf, s.len, NULL);
	t_check(pk_pt_next(d, &(struct pk_pt_packet){ 0 }) == PK_ERR_NOSYNC,
		"pt_stream_nosync", "decoded before sync");
	pk_pt_sync_forward(d);
	n = s_read(&s, d, &i, &bad);
	t_check(n == PK_ERR_EOS && i == s.n && !bad, "pt_stream_roundtrip",
		"end %d, %zu of %zu packets, %zu mismatches", n, i, s.n, bad);

	/* sync forward visits every PSB, sync backward the same in reverse */
	pk_pt_decoder_free(d);
	d = pk_pt_decoder_new(s.buf, s.len, NULL);
	bad = 0;
	for (i = 0; pk_pt_sync_forward(d) == 0; i++) {
		uint64_t off;

		pk_pt_sync_offset(d, &off);
		if (i >= s.npsb || off != s.psb_offs[i])
			bad++;
	}
	t_check(i == s.npsb && !bad, "pt_sync_forward_all",
		"%zu of %zu PSBs, %zu wrong", i, s.npsb, bad);
	pk_pt_decoder_free(d);
	d = pk_pt_decoder_new(s.buf, s.len, NULL);
	bad = 0;
	for (i = 0; pk_pt_sync_backward(d) == 0; i++) {
		uint64_t off;

		pk_pt_offset(d, &off);
		if (i >= s.npsb || off != s.psb_offs[s.npsb - 1 - i])
			bad++;
	}
	t_check(i == s.npsb && !bad, "pt_sync_backward_all",
		"%zu of %zu PSBs, %zu wrong", i, s.npsb, bad);
	pk_pt_decoder_free(d);

	/* garbage (no PSB pattern) before the first PSB is skipped */
	{
		size_t g = 1 + rnd() % 200;
		uint8_t *b = malloc(g + s.len);
		uint64_t off = 0;

		for (size_t k = 0; k < g; k++)
			b[k] = (uint8_t)(rnd() | 1) == 0x83 ? 0x85 : (uint8_t)(rnd() | 1);
		memcpy(b + g, s.buf, s.len);
		d = pk_pt_decoder_new(b, g + s.len, NULL);
		n = pk_pt_sync_forward(d);
		pk_pt_offset(d, &off);
		t_check(!n && off == g, "pt_sync_after_garbage",
			"synced at %llu, want %zu", (unsigned long long)off, g);
		pk_pt_decoder_free(d);
		free(b);
	}
	s_free(&s);
}

static bool full_psb_at(const uint8_t *b, size_t len, size_t off)
{
	return off + 16 <= len && !memcmp(b + off, psb, 16);
}

/*
 * Decodes a damaged buffer the way ptdump does (sync, decode to the first
 * error, resync). Checks: it ends; every resync lands on a whole PSB no
 * earlier than 15 bytes before the error and with no whole PSB skipped in
 * between. Returns the number of violations; *DETAIL describes the first.
 */
static int check_damaged(const uint8_t *b, size_t len, char *detail,
			 size_t dlen)
{
	struct pk_pt_decoder *d = pk_pt_decoder_new(b, len, NULL);
	size_t steps = 0;
	int bad = 0;

	if (!d)
		return 1;
	if (pk_pt_sync_forward(d) < 0)
		goto out;
	for (;;) {
		struct pk_pt_packet p;
		uint64_t err_off = 0, sync = 0;
		int n;

		if (++steps > 4 * len + 100) {
			snprintf(detail, dlen, "no progress");
			bad++;
			break;
		}
		uint64_t last_sync = 0, lo;

		n = pk_pt_next(d, &p);
		if (n > 0)
			continue;
		if (n == PK_ERR_EOS)
			break;
		pk_pt_offset(d, &err_off);
		pk_pt_sync_offset(d, &last_sync);
		/* a PSB partly swallowed by the bad packet must be found */
		lo = err_off == last_sync ? err_off + 1 :
		     err_off > 15 ? err_off - 15 : 0;
		if (pk_pt_sync_forward(d) < 0)
			break;
		pk_pt_offset(d, &sync);
		if (!full_psb_at(b, len, sync) || sync + 15 < err_off) {
			if (!bad++)
				snprintf(detail, dlen, "resync at %llu after "
					 "error at %llu",
					 (unsigned long long)sync,
					 (unsigned long long)err_off);
			continue;
		}
		for (size_t o = lo; o + 15 < sync; o++)
			if (full_psb_at(b, len, o)) {
				if (!bad++)
					snprintf(detail, dlen, "skipped PSB at "
						 "%zu", o);
				break;
			}
	}
out:
	pk_pt_decoder_free(d);
	return bad;
}

/* A stream read in two goes: the first part's bytes alone to their end,
 * then the whole stream elsewhere (pk__pt_extend): the packets and
 * offsets go on as one stream's. */
static void test_extend(void)
{
	struct stream s;
	struct pk_pt_decoder *d;
	uint8_t *part, *whole;
	size_t cut, i = 0, bad = 0;
	int n = 0;

	s_make(&s, 20000, 50);
	cut = s.offs[s.n / 2];
	part = malloc(cut);
	whole = malloc(s.len);
	memcpy(part, s.buf, cut);
	memcpy(whole, s.buf, s.len);
	d = pk_pt_decoder_new(part, cut, NULL);
	pk_pt_sync_forward(d);
	for (int round = 0; round < 2; round++) {
		n = s_read(&s, d, &i, &bad);
		if (!round) {
			t_check(n == PK_ERR_EOS && i == s.n / 2, "pt_extend_part",
				"end %d after %zu of %zu packets", n, i, s.n / 2);
			t_check(pk__pt_extend(d, whole, cut - 1) ==
				PK_ERR_INTERNAL, "pt_extend_shorter",
				"a shorter stream taken");
			memset(part, 0, cut);	/* (no longer read) */
			t_check(pk__pt_extend(d, whole, s.len) == 0,
				"pt_extend_ok", "not extended");
		}
	}
	t_check(n == PK_ERR_EOS && i == s.n && !bad, "pt_extend_whole",
		"end %d, %zu of %zu packets, %zu mismatches", n, i, s.n, bad);
	pk_pt_decoder_free(d);
	free(part);
	free(whole);
	free(s.buf);
	free(s.pkts);
	free(s.offs);
}

static void test_damaged(void)
{
	struct stream s;
	char detail[160] = "";
	int bad = 0, runs = 0;
	uint8_t *b;

	s_make(&s, 3000, 20);
	b = malloc(s.len + 256);
	for (int i = 0; i < 300; i++, runs++) {	/* bit flips */
		memcpy(b, s.buf, s.len);
		for (int k = 1 + (int)(rnd() % 8); k > 0; k--)
			b[rnd() % s.len] ^= (uint8_t)(1 << (rnd() % 8));
		bad += check_damaged(b, s.len, detail, sizeof(detail));
	}
	t_check(!bad, "pt_damaged_bitflips", "%d of %d runs: %s", bad, runs,
		detail);

	bad = 0;
	for (int i = 0; i < 300; i++) {	/* truncation: prefix stays exact */
		size_t cut = rnd() % s.len, k = 0;
		struct pk_pt_decoder *d = pk_pt_decoder_new(s.buf, cut, NULL);
		struct pk_pt_packet q;
		int n = pk_pt_sync_forward(d);

		while (n == 0) {
			memset(&q, 0, sizeof(q));
			n = pk_pt_next(d, &q);
			if (n < 0)
				break;
			while (k < s.n && s.offs[k] < s.psb_offs[0])
				k++;
			if (k >= s.n || !pt_pkt_same(&q, &s.pkts[k]))
				break;
			k++;
			n = 0;
		}
		/* every packet wholly before the cut decoded, then EOS */
		if (s.npsb && s.psb_offs[0] + 16 <= cut &&
		    (n != PK_ERR_EOS ||
		     (k < s.n && s.offs[k] + s.pkts[k].size <= cut &&
		      s.offs[k] + 32 <= cut))) {
			if (!bad++)
				snprintf(detail, sizeof(detail),
					 "cut %zu: end %d after %zu packets",
					 cut, n, k);
		}
		pk_pt_decoder_free(d);
	}
	t_check(!bad, "pt_damaged_truncation", "%d: %s", bad, detail);

	bad = 0;
	for (int i = 0; i < 300; i++) {	/* garbage runs overwrite parts */
		size_t at = rnd() % s.len, n = 1 + rnd() % 64;

		memcpy(b, s.buf, s.len);
		for (size_t k = at; k < at + n && k < s.len; k++)
			b[k] = (uint8_t)rnd();
		bad += check_damaged(b, s.len, detail, sizeof(detail));
	}
	for (int i = 0; i < 100; i++) {	/* pure garbage */
		for (size_t k = 0; k < s.len; k++)
			b[k] = (uint8_t)rnd();
		bad += check_damaged(b, s.len, detail, sizeof(detail));
	}
	t_check(!bad, "pt_damaged_garbage", "%d: %s", bad, detail);
	free(b);
	s_free(&s);
}

static void test_errata(void)
{
	/* skd007: CYC f7 02 then f3 -> one 3-byte OVF */
	static const uint8_t b[] = { 0xf7, 0x02, 0xf3, 0x00 };
	/* skz84: TMA with a reserved byte set -> 8-byte invalid packet */
	static const uint8_t z[] = { 2, 0x73, 1, 1, 1, 1, 0, 0 };
	PK_OPTS(pk_pt_config, cfg);
	struct pk_pt_packet p;
	bool ok;

	ok = dec1(b, 4, &p, NULL) == 2 && p.type == PK_PT_CYC;
	ok = ok && !pk_pt_cpu_errata(&cfg.errata, 6, 78) && cfg.errata.skd007;
	ok = ok && dec1(b, 4, &p, &cfg) == 3 && p.type == PK_PT_OVF;
	t_check(ok, "pt_errata_skd007", "type %u", p.type);
	ok = dec1(z, 8, &p, NULL) == PK_PT_ERR_BAD_PACKET &&
	     !pk_pt_cpu_errata(&cfg.errata, 6, 85) && cfg.errata.skz84 &&
	     dec1(z, 8, &p, &cfg) == 8 && p.type == PK_PT_INVALID;
	t_check(ok, "pt_errata_skz84", "type %u", p.type);
	t_check(pk_pt_cpu_errata(&cfg.errata, 0, 0) == PK_PT_ERR_BAD_CPU,
		"pt_errata_unknown_cpu", "0/0 accepted");
}

static void test_perf_packets(void)
{
	/* BBP (4-byte items), two BIPs, BEP with IP; then 0x0c is TNT again */
	static const uint8_t b[] = {
		2, 0x63, 0x81, 0x0c, 1, 2, 3, 4, 0x14, 5, 6, 7, 8, 2, 0xb3,
		0x0c,
	};
	PK_OPTS(pk_pt_config, cfg, .perf_packets = 1);
	struct pk_pt_decoder *d = pk_pt_decoder_new(b, sizeof(b), &cfg);
	static const uint8_t want[] = { PK_PT_BBP, PK_PT_BIP, PK_PT_BIP,
					PK_PT_BEP, PK_PT_TNT_8 };
	struct pk_pt_packet p;
	bool ok = true;
	size_t i;

	pk_pt_sync_set(d, 0);
	for (i = 0; i < sizeof(want) && pk_pt_next(d, &p) > 0; i++) {
		ok = ok && p.type == want[i];
		if (p.type == PK_PT_BIP && i == 2)
			ok = ok && p.u.bip.id == 2 && p.u.bip.value == 0x08070605;
	}
	t_check(ok && i == sizeof(want), "pt_perf_bbp_bip_bep",
		"%zu packets, last type %u", i, p.type);
	pk_pt_decoder_free(d);
	t_check(dec1(b, 3, &p, NULL) == PK_PT_ERR_BAD_OPC, "pt_bbp_libipt_mode",
		"BBP decoded without perf_packets");
}

static void test_time(void)
{
	/* spec 6.2 worked example: mtc_freq 0, EAX 1, EBX 4, nom_freq 4 */
	PK_OPTS(pk_pt_config, cfg, .mtc_freq = 0, .nom_freq = 4,
		.cpuid_0x15_eax = 1, .cpuid_0x15_ebx = 4);
	struct pk_pt_time t;
	struct pk_pt_tcal c;
	uint64_t tsc = 0, fcr = 0;
	bool ok;

	pk_pt_time_init(&t);
	pk_pt_tcal_init(&c);
	ok = pk_pt_time_query(&t, &tsc) == PK_PT_ERR_NO_TIME;
	ok = ok && pk_pt_time_tma(&t, 1, 1, &cfg) == PK_PT_ERR_CONTEXT;
	pk_pt_time_tsc(&t, 0xa0000);
	ok = ok && !pk_pt_time_tma(&t, 0xf01, 1, &cfg);
	ok = ok && !pk_pt_tcal_cbr(&c, 2, 0, &cfg) && !pk_pt_tcal_fcr(&c, &fcr)
	     && fcr == 2 * 256;
	ok = ok && !pk_pt_time_mtc(&t, 2, &cfg) &&
	     !pk_pt_time_query(&t, &tsc) && tsc == 0xa0003;
	pk_pt_time_cyc(&t, 3, &cfg, fcr);
	pk_pt_time_query(&t, &tsc);
	ok = ok && tsc == 0xa0009;
	pk_pt_time_cyc(&t, 1, &cfg, fcr);
	pk_pt_time_query(&t, &tsc);
	ok = ok && tsc == 0xa000b;
	t_check(ok, "pt_time_worked_example", "tsc %llx fcr %llu",
		(unsigned long long)tsc, (unsigned long long)fcr);
}

int main(void)
{
	test_known();
	test_roundtrip();
	test_ipc();
	test_encoder_errors();
	test_stream();
	test_extend();
	test_damaged();
	test_errata();
	test_perf_packets();
	test_time();
	return t_exit();
}
