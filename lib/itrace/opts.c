/* SPDX-License-Identifier: MIT */
/*
 * --itrace letters: perf's grammar (letters, optional numbers after i y
 * g l G L s, units after the i/y period, +x/-x flags after e and d, ' '
 * and ',' ignored) and its defaults.
 */
#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include <perfkit/itrace.h>
#include <perfkit/pt_insn.h>

void pk_itrace_set_default(struct pk_itrace_opts *o, bool no_sample)
{
	o->branches = o->transactions = o->ptwrites = o->pwr_events = true;
	o->other_events = o->intr_events = o->errors = true;
	o->flc = o->llc = o->tlb = o->remote_access = o->mem = true;
	if (no_sample) {
		o->period_type = PK_ITRACE_PERIOD_INSTRUCTIONS;
		o->period = 1;
		o->calls = true;
	} else {
		o->instructions = o->cycles = true;
		o->period_type = PK_ITRACE_PERIOD_NANOSECS;
		o->period = PK_ITRACE_DEFAULT_PERIOD;
	}
	o->callchain_sz = PK_ITRACE_DEFAULT_CALLCHAIN_SZ;
	o->last_branch_sz = PK_ITRACE_DEFAULT_LAST_BRANCH_SZ;
	o->initial_skip = 0;
}

/* Digits at *P as a number (false when there are none or too many). */
static bool number(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t n = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		if (n > (UINT64_MAX - 9) / 10)
			return false;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*v = n;
	return true;
}

static void skip_sep(const char **p)
{
	while (**p == ' ' || **p == ',')
		(*p)++;
}

/* The i/y period and its unit. False on a bad unit. */
static bool period(struct pk_itrace_opts *o, const char **p, bool *type_set)
{
	uint64_t v;

	skip_sep(p);
	if (!number(p, &v))
		return true;
	o->period = v;
	o->period_set = true;
	skip_sep(p);
	switch (*(*p)++) {
	case 'i':
		o->period_type = PK_ITRACE_PERIOD_INSTRUCTIONS;
		break;
	case 't':
		o->period_type = PK_ITRACE_PERIOD_TICKS;
		break;
	case 'm':
		o->period *= 1000;
		/* fall through */
	case 'u':
		o->period *= 1000;
		/* fall through */
	case 'n':
		if (*(*p)++ != 's')
			return false;
		o->period_type = PK_ITRACE_PERIOD_NANOSECS;
		break;
	case '\0':
		(*p)--;
		return true;
	default:
		return false;
	}
	*type_set = true;
	return true;
}

/* "+x-y" flags after e or d: letters a-z as bits. */
static bool flags(const char **p, uint32_t *plus, uint32_t *minus)
{
	while (**p == '+' || **p == '-') {
		char sign = *(*p)++;
		char c = **p;

		if (c < 'a' || c > 'z')
			return false;
		(*p)++;
		if (sign == '+')
			*plus |= 1u << (c - 'a');
		else
			*minus |= 1u << (c - 'a');
	}
	return true;
}

/* g/l sizes: 1..1024 after the letter, or the default. */
static bool size(const char **p, unsigned *sz, unsigned dflt)
{
	uint64_t v;

	skip_sep(p);
	if (!number(p, &v)) {
		*sz = dflt;
		return true;
	}
	if (!v || v > PK_ITRACE_MAX_CALLCHAIN_SZ)
		return false;
	*sz = (unsigned)v;
	return true;
}

static bool letter(struct pk_itrace_opts *o, char c, const char **p,
		   bool *type_set)
{
	uint32_t plus = 0, minus = 0;
	uint64_t v;

	switch (c) {
	case 'i': o->instructions = true; return period(o, p, type_set);
	case 'y': o->cycles = true; return period(o, p, type_set);
	case 'b': o->branches = true; return true;
	case 'x': o->transactions = true; return true;
	case 'w': o->ptwrites = true; return true;
	case 'p': o->pwr_events = true; return true;
	case 'o': o->other_events = true; return true;
	case 'I': o->intr_events = true; return true;
	case 'c': o->branches = o->calls = true; return true;
	case 'r': o->branches = o->returns = true; return true;
	case 'Z': o->timeless = true; return true;
	case 'A': o->approx_ipc = true; return true;
	case 'f': o->flc = true; return true;
	case 'm': o->llc = true; return true;
	case 't': o->tlb = true; return true;
	case 'a': o->remote_access = true; return true;
	case 'M': o->mem = true; return true;
	case 'q': o->quick++; return true;
	case 'e':
		o->errors = true;
		if (!flags(p, &plus, &minus))
			return false;
		o->error_minus_overflow = (minus >> ('o' - 'a')) & 1;
		o->error_minus_lost = (minus >> ('l' - 'a')) & 1;
		return !((plus | minus) & ~(1u << ('o' - 'a') |
					    1u << ('l' - 'a')));
	case 'd':
		o->log = true;
		if (!flags(p, &o->log_plus_flags, &o->log_minus_flags))
			return false;
		return !((o->log_plus_flags | o->log_minus_flags) &
			 ~(1u << ('a' - 'a') | 1u << ('e' - 'a') |
			   1u << ('o' - 'a')));
	case 'g': o->callchain = true;
		return size(p, &o->callchain_sz, PK_ITRACE_DEFAULT_CALLCHAIN_SZ);
	case 'G': o->add_callchain = true;
		return size(p, &o->callchain_sz, PK_ITRACE_DEFAULT_CALLCHAIN_SZ);
	case 'l': o->last_branch = true;
		return size(p, &o->last_branch_sz,
			    PK_ITRACE_DEFAULT_LAST_BRANCH_SZ);
	case 'L': o->add_last_branch = true;
		return size(p, &o->last_branch_sz,
			    PK_ITRACE_DEFAULT_LAST_BRANCH_SZ);
	case 's':
		skip_sep(p);
		if (!number(p, &v))
			return false;
		o->initial_skip = v;
		return true;
	default:
		return false;
	}
}

int pk_itrace_parse(struct pk_itrace_opts *o, const char *s, size_t *errpos)
{
	const char *p = s;
	bool type_set = false;

	if (!o || o->sz < sizeof(*o))
		return PK_ERR_INTERNAL;
	o->set = true;
	if (!s) {	/* the bare option: the tool's own default */
		pk_itrace_set_default(o, true);
		o->set = false;
		return 0;
	}
	o->period_type = PK_ITRACE_PERIOD_NANOSECS;
	o->period = PK_ITRACE_DEFAULT_PERIOD;
	o->callchain_sz = PK_ITRACE_DEFAULT_CALLCHAIN_SZ;
	o->last_branch_sz = PK_ITRACE_DEFAULT_LAST_BRANCH_SZ;
	while (*p) {
		const char *at = p;
		char c = *p++;

		if (c == ' ' || c == ',')
			continue;
		if (!letter(o, c, &p, &type_set)) {
			if (errpos)
				*errpos = (size_t)(at - s);
			return PK_ERR_SYNTAX;
		}
	}
	if ((o->instructions || o->cycles) && !type_set && !o->period_set) {
		o->period_type = PK_ITRACE_PERIOD_NANOSECS;
		o->period = PK_ITRACE_DEFAULT_PERIOD;
	}
	return 0;
}

int pk_itrace_format(const struct pk_itrace_opts *o, char *buf, size_t len)
{
	static const char *const unit[] = { "i", "t", "ns" };
	char tmp[160] = "";
	size_t n = 0;

#define PUT(...) (n += (size_t)snprintf(tmp + n, n < sizeof(tmp) ? \
					 sizeof(tmp) - n : 0, __VA_ARGS__))
	if (o->instructions)
		PUT("i%llu%s", (unsigned long long)o->period,
		    unit[o->period_type % 3]);
	if (o->cycles)
		PUT("y");
	if (o->branches && !o->calls && !o->returns)
		PUT("b");
	if (o->calls)
		PUT("c");
	if (o->returns)
		PUT("r");
	if (o->transactions)
		PUT("x");
	if (o->ptwrites)
		PUT("w");
	if (o->pwr_events)
		PUT("p");
	if (o->other_events)
		PUT("o");
	if (o->intr_events)
		PUT("I");
	if (o->errors)
		PUT("e%s%s", o->error_minus_overflow ? "-o" : "",
		    o->error_minus_lost ? "-l" : "");
	if (o->callchain)
		PUT("g%u", o->callchain_sz);
	if (o->add_callchain)
		PUT("G%u", o->callchain_sz);
	if (o->last_branch)
		PUT("l%u", o->last_branch_sz);
	if (o->add_last_branch)
		PUT("L%u", o->last_branch_sz);
	if (o->initial_skip)
		PUT("s%llu", (unsigned long long)o->initial_skip);
	for (int i = 0; i < o->quick && i < 2; i++)
		PUT("q");
	if (o->timeless)
		PUT("Z");
	if (o->approx_ipc)
		PUT("A");
	if (o->flc)
		PUT("f");
	if (o->llc)
		PUT("m");
	if (o->tlb)
		PUT("t");
	if (o->remote_access)
		PUT("a");
	if (o->mem)
		PUT("M");
	if (o->log) {
		PUT("d");
		for (int c = 0; c < 26; c++) {
			if (o->log_plus_flags & (1u << c))
				PUT("+%c", 'a' + c);
			if (o->log_minus_flags & (1u << c))
				PUT("-%c", 'a' + c);
		}
	}
#undef PUT
	return snprintf(buf, len, "%s", tmp);
}

/* ---- synthesized payloads (perf's struct perf_synth_intel_*) ---- */

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* perf_synth_intel_evt: type:5 reserved:2 ip:1 vector:8 evd_cnt:16 in a
 * u32, then per EVD its type in a u64 and its payload. */
static int evt_encode(const struct pk_itrace_sample *s, void *buf,
		      size_t len)
{
	uint8_t b[4 + 16 * PK_PT_MAX_EVD];
	unsigned n = s->u.evt.nevd < PK_PT_MAX_EVD ? s->u.evt.nevd :
		     PK_PT_MAX_EVD;
	size_t sz = 4 + 16 * (size_t)n;

	memset(b, 0, sizeof(b));
	put32(b, (uint32_t)(s->u.evt.type & 0x1f) |
		 (uint32_t)(s->u.evt.ip & 1) << 7 |
		 (uint32_t)s->u.evt.vector << 8 | (uint32_t)n << 16);
	for (unsigned i = 0; i < n; i++) {
		b[4 + 16 * i] = s->u.evt.evd_type[i];
		memcpy(b + 12 + 16 * i, &s->u.evt.evd[i], 8);
	}
	memcpy(buf, b, len < sz ? len : sz);
	return (int)sz;
}

static int evt_decode(const uint8_t *p, size_t size,
		      struct pk_itrace_sample *s)
{
	uint32_t c = get32(p);
	unsigned n = c >> 16;

	if (size < 4 + 16 * (size_t)n)
		return -EINVAL;
	s->kind = PK_ITRACE_EVT;
	s->u.evt.type = c & 0x1f;
	s->u.evt.ip = (c >> 7) & 1;
	s->u.evt.vector = (uint8_t)(c >> 8);
	s->u.evt.nevd = (uint8_t)(n < PK_PT_MAX_EVD ? n : PK_PT_MAX_EVD);
	for (unsigned i = 0; i < s->u.evt.nevd; i++) {
		s->u.evt.evd_type[i] = p[4 + 16 * i];
		memcpy(&s->u.evt.evd[i], p + 12 + 16 * i, 8);
	}
	return 0;
}

int pk_itrace_synth_encode(const struct pk_itrace_sample *s, void *buf,
			   size_t len)
{
	uint8_t b[12];

	memset(b, 0, sizeof(b));
	switch (s->kind) {
	case PK_ITRACE_EVT:
		return evt_encode(s, buf, len);
	case PK_ITRACE_IFLAG:	/* iflag:1 via_branch:1 in a u32, branch_ip */
		put32(b, (uint32_t)(s->u.iflag.iflag & 1) |
			 (uint32_t)(s->u.iflag.via_branch & 1) << 1);
		memcpy(b + 4, &s->u.iflag.branch_ip, 8);
		break;
	case PK_ITRACE_PSB:	/* reserved u32, offset u64 */
		memcpy(b + 4, &s->u.psb.offset, 8);
		break;
	case PK_ITRACE_CBR:	/* cbr:8 .. max_nonturbo:8 in a u32, freq,
				   reserved */
		put32(b, s->u.cbr.cbr | (uint32_t)s->u.cbr.max_nonturbo << 16);
		put32(b + 4, s->u.cbr.freq_khz);
		break;
	case PK_ITRACE_PTWRITE:	/* ip:1 in a u32 flags, payload u64 */
		put32(b, s->u.ptwrite.ip);
		memcpy(b + 4, &s->u.ptwrite.payload, 8);
		break;
	case PK_ITRACE_MWAIT:	/* reserved u32, hints:8 .. extensions:2 */
		put32(b + 4, s->u.mwait.hints & 0xff);
		put32(b + 8, s->u.mwait.ext & 3);
		break;
	case PK_ITRACE_PWRE:	/* reserved u32, hw at bit 7, subcstate,
				   cstate */
		put32(b + 4, (uint32_t)(s->u.pwre.hw & 1) << 7 |
			     (uint32_t)(s->u.pwre.subcstate & 0xf) << 8 |
			     (uint32_t)(s->u.pwre.cstate & 0xf) << 12);
		break;
	case PK_ITRACE_EXSTOP:	/* ip:1 in a u32 flags: 4 bytes */
		put32(b, s->u.exstop.ip);
		memcpy(buf, b, len < 4 ? len : 4);
		return 4;
	case PK_ITRACE_PWRX:	/* reserved u32, deepest:4 last:4 wake:4 */
		put32(b + 4, (uint32_t)(s->u.pwrx.deepest & 0xf) |
			     (uint32_t)(s->u.pwrx.last & 0xf) << 4 |
			     (uint32_t)(s->u.pwrx.wake & 0xf) << 8);
		break;
	default:
		return -EINVAL;
	}
	memcpy(buf, b, len < sizeof(b) ? len : sizeof(b));
	return (int)sizeof(b);
}

int pk_itrace_synth_decode(uint64_t config, const void *raw, size_t size,
			   struct pk_itrace_sample *s)
{
	const uint8_t *p = raw;

	if (config == 7 && size >= 4)	/* PERF_SYNTH_INTEL_EVT */
		return evt_decode(p, size, s);
	if (size < (config == 3 ? 4u : 12u))	/* exstop: 4 bytes */
		return -EINVAL;
	switch (config) {
	case 8:		/* PERF_SYNTH_INTEL_IFLAG_CHG */
		s->kind = PK_ITRACE_IFLAG;
		s->u.iflag.iflag = get32(p) & 1;
		s->u.iflag.via_branch = (get32(p) >> 1) & 1;
		memcpy(&s->u.iflag.branch_ip, p + 4, 8);
		return 0;
	case 0:		/* PERF_SYNTH_INTEL_PTWRITE */
		s->kind = PK_ITRACE_PTWRITE;
		s->u.ptwrite.ip = get32(p) & 1;
		memcpy(&s->u.ptwrite.payload, p + 4, 8);
		return 0;
	case 1:		/* PERF_SYNTH_INTEL_MWAIT */
		s->kind = PK_ITRACE_MWAIT;
		s->u.mwait.hints = get32(p + 4) & 0xff;
		s->u.mwait.ext = get32(p + 8) & 3;
		return 0;
	case 2:		/* PERF_SYNTH_INTEL_PWRE */
		s->kind = PK_ITRACE_PWRE;
		s->u.pwre.hw = (get32(p + 4) >> 7) & 1;
		s->u.pwre.subcstate = (get32(p + 4) >> 8) & 0xf;
		s->u.pwre.cstate = (get32(p + 4) >> 12) & 0xf;
		return 0;
	case 3:		/* PERF_SYNTH_INTEL_EXSTOP */
		s->kind = PK_ITRACE_EXSTOP;
		s->u.exstop.ip = get32(p) & 1;
		return 0;
	case 4:		/* PERF_SYNTH_INTEL_PWRX */
		s->kind = PK_ITRACE_PWRX;
		s->u.pwrx.deepest = get32(p + 4) & 0xf;
		s->u.pwrx.last = (get32(p + 4) >> 4) & 0xf;
		s->u.pwrx.wake = (get32(p + 4) >> 8) & 0xf;
		return 0;
	case 6:		/* PERF_SYNTH_INTEL_PSB */
		s->kind = PK_ITRACE_PSB;
		memcpy(&s->u.psb.offset, p + 4, 8);
		return 0;
	case 5:		/* PERF_SYNTH_INTEL_CBR */
		s->kind = PK_ITRACE_CBR;
		s->u.cbr.cbr = (uint8_t)get32(p);
		s->u.cbr.max_nonturbo = (uint8_t)(get32(p) >> 16);
		s->u.cbr.freq_khz = get32(p + 4);
		return 0;
	default:
		return -EINVAL;
	}
}
