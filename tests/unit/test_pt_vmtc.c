/* SPDX-License-Identifier: MIT */
/*
 * perf's VM time correlation on hand-made packets (pk_pt_vmtc_*): a host
 * PSB+ (TSC, TMA, PIP NR=0) sets the CTC time; a guest's PSB+ (its TSC
 * the host's plus an offset, PIP NR=1, VMCS) teaches the VMCS's offset
 * and gets its TSC rewritten; a dry run reports the same and patches
 * nothing; perf's offsets syntax and its refusals.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <perfkit/pt.h>
#include "test.h"

struct rec {
	char msgs[512];
	unsigned npatch;
	size_t off;
	uint8_t bytes[8];
};

static void on_msg(void *ctx, const char *line)
{
	struct rec *r = ctx;

	strncat(r->msgs, line, sizeof(r->msgs) - strlen(r->msgs) - 2);
	strcat(r->msgs, "|");
}

static int on_patch(void *ctx, size_t buf, size_t off, const uint8_t *b,
		    unsigned n)
{
	struct rec *r = ctx;

	(void)buf;
	r->npatch++;
	r->off = off;
	memcpy(r->bytes, b, n < 8 ? n : 8);
	return 0;
}

static size_t put(uint8_t *p, const uint8_t *b, size_t n)
{
	memcpy(p, b, n);
	return n;
}

static size_t psb(uint8_t *p)
{
	for (int i = 0; i < 16; i += 2)
		p[i] = 2, p[i + 1] = 0x82;
	return 16;
}

static size_t tsc(uint8_t *p, uint64_t v)
{
	p[0] = 0x19;
	for (int i = 0; i < 7; i++)
		p[1 + i] = (uint8_t)(v >> 8 * i);
	return 8;
}

/* TMA of host time T at TSC:CTC 2 */
static size_t tma(uint8_t *p, uint64_t t)
{
	uint8_t b[7] = { 2, 0x73, (uint8_t)(t >> 1), (uint8_t)(t >> 9), 0,
			 (uint8_t)(t & 1), 0 };

	return put(p, b, 7);
}

static size_t pip(uint8_t *p, int nr)
{
	uint8_t b[8] = { 2, 0x43, (uint8_t)nr, 0, 0, 0, 0, 0 };

	return put(p, b, 8);
}

static size_t vmcs(uint8_t *p, uint64_t raw)
{
	uint8_t b[7] = { 2, 0xc8, (uint8_t)raw, (uint8_t)(raw >> 8),
			 (uint8_t)(raw >> 16), 0, 0 };

	return put(p, b, 7);
}

static size_t psbend(uint8_t *p)
{
	p[0] = 2, p[1] = 0x23;
	return 2;
}

static void run(bool dry, const char *args, struct rec *r, int *ret,
		size_t *guest_at)
{
	PK_OPTS(pk_pt_vmtc_config, cfg, .tsc_ctc_n = 2, .tsc_ctc_d = 1,
		.mtc_shift = 3, .dry_run = dry);
	uint8_t b[256];
	size_t n = 0;
	uint64_t host = 0x100000000ull, off = 0x5000000000ull;
	struct pk_pt_vmtc *v = pk_pt_vmtc_new(&cfg, on_msg, on_patch, r);
	struct pk_pt_vmtc_buf buf;

	memset(r, 0, sizeof(*r));
	n += psb(b + n);
	n += tsc(b + n, host);
	n += tma(b + n, host);
	n += pip(b + n, 0);
	n += psbend(b + n);
	n += psb(b + n);
	*guest_at = n + 1;
	n += tsc(b + n, host + 0x100 + off);
	n += tma(b + n, host + 0x100);
	n += pip(b + n, 1);
	n += vmcs(b + n, 0x12345);
	n += psbend(b + n);
	buf.data = b;
	buf.len = n;
	buf.ref = host + 0x1000;
	*ret = !v ? -1 : args && pk_pt_vmtc_parse(v, args) ? -2 :
	       pk_pt_vmtc_queue(v, &buf, 1);
	pk_pt_vmtc_free(v);
}

int main(void)
{
	struct rec r;
	size_t at;
	int ret;
	PK_OPTS(pk_pt_vmtc_config, cfg, .tsc_ctc_n = 2, .tsc_ctc_d = 1);
	struct pk_pt_vmtc *v;

	run(false, NULL, &r, &ret, &at);
	t_check(ret == 1 && r.npatch == 1 && r.off == at &&
		r.bytes[0] == 0 && r.bytes[1] == 1 && r.bytes[4] == 1 &&
		!strcmp(r.msgs, "VMCS: 0x12345  TSC Offset 0x5000000000|"),
		"pt_vmtc_learn", "ret %d patches %u at %zu (%zu) msgs '%s'",
		ret, r.npatch, r.off, at, r.msgs);
	run(true, NULL, &r, &ret, &at);
	t_check(ret == 1 && !r.npatch &&
		!strcmp(r.msgs, "VMCS: 0x12345  TSC Offset 0x5000000000|"),
		"pt_vmtc_dry", "ret %d patches %u msgs '%s'", ret, r.npatch,
		r.msgs);
	/* a given offset is reliable: kept, no message */
	run(false, " 0x5000000000 : 0x12345 ", &r, &ret, &at);
	t_check(ret == 1 && r.npatch == 1 && !r.msgs[0], "pt_vmtc_given",
		"ret %d patches %u msgs '%s'", ret, r.npatch, r.msgs);
	v = pk_pt_vmtc_new(&cfg, NULL, NULL, NULL);
	T_CHECK("pt_vmtc_parse_vmcs0", v && pk_pt_vmtc_parse(v, "0x10:0") == -EINVAL);
	T_CHECK("pt_vmtc_parse_comma", v && pk_pt_vmtc_parse(v, "0x10:0x1000,") == -EINVAL);
	T_CHECK("pt_vmtc_parse_text", v && pk_pt_vmtc_parse(v, "5 x") == -EINVAL);
	T_CHECK("pt_vmtc_parse_erange", v && pk_pt_vmtc_parse(v, "99999999999999999999") == -ERANGE);
	T_CHECK("pt_vmtc_parse_ok", v && pk_pt_vmtc_parse(v, " 1 2:3,4 ") == 0);
	T_CHECK("pt_vmtc_empty", v && pk_pt_vmtc_queue(v, NULL, 0) == 0);
	pk_pt_vmtc_free(v);
	return t_exit();
}
