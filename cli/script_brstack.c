/* SPDX-License-Identifier: MIT */
/*
 * perf script's -F brstack, brstacksym and brstackoff: a sample's branch
 * stack after its ip, each entry " from/to/M/X/A/cycles/type " with the
 * addresses raw, as symbol+offset, or as offsets in their DSO, and the
 * DSO in parentheses when dso is printed too.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "script.h"

/* perf's branch_type_name (PERF_BR_*); "" for an unknown type. */
static const char *br_type(unsigned t)
{
	static const char *const names[] = {
		"", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET",
		"SYSCALL", "SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ",
		"SERROR", "NO_TX", "",
	};

	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "";
}

/* "/P/X/A/cycles/type " (perf's print_bstack_flags). */
static void put_flags(const struct perf_branch_entry *e,
		      void (*put)(void *, const char *, size_t), void *ctx)
{
	char t[64];
	int n = snprintf(t, sizeof(t), "/%c/%c/%c/%u/%s ",
			 e->mispred || e->predicted ?
			 (e->predicted ? 'P' : 'M') : '-',
			 e->in_tx ? 'X' : '-', e->abort ? 'A' : '-',
			 (unsigned)e->cycles, br_type(e->type));

	put(ctx, t, (size_t)n);
}

/* One address of an entry in the form FIELD asks. */
static void put_addr(struct pk_session *sess, uint32_t pid, uint64_t addr,
		     uint32_t field, bool dso,
		     void (*put)(void *, const char *, size_t), void *ctx)
{
	struct pk_location l;
	char t[64];
	int n;
	uint16_t cm = addr >> 63 ? PERF_RECORD_MISC_KERNEL :
		      PERF_RECORD_MISC_USER;
	bool mapped;

	memset(&l, 0, sizeof(l));
	mapped = !pk_session_resolve(sess, pid, addr, cm, &l) && l.dso &&
		 strcmp(l.dso, "[unknown]");
	if (field == SF_BRSTACKSYM) {
		if (l.sym) {
			put(ctx, l.sym, strlen(l.sym));
			n = snprintf(t, sizeof(t), "+0x%" PRIx64, l.symoff);
		} else {
			n = snprintf(t, sizeof(t), "[unknown]");
		}
	} else {
		n = snprintf(t, sizeof(t), "0x%" PRIx64,
			     field == SF_BRSTACKOFF && mapped ? l.dso_addr : addr);
	}
	put(ctx, t, (size_t)n);
	if (dso) {
		const char *d = mapped ? l.dso : "[unknown]";

		put(ctx, "(", 1);
		put(ctx, d, strlen(d));
		put(ctx, ")", 1);
	}
}

void script_put_brstack(struct pk_session *sess, uint64_t f,
			const struct pk_sample *sm,
			void (*put)(void *, const char *, size_t), void *ctx)
{
	/* perf shows one of them, in this order */
	uint32_t field = (f & SF_BRSTACK) ? SF_BRSTACK :
			 (f & SF_BRSTACKSYM) ? SF_BRSTACKSYM :
			 (f & SF_BRSTACKOFF) ? SF_BRSTACKOFF : 0;

	if (!field || !(sm->sample_type & PERF_SAMPLE_BRANCH_STACK) ||
	    !sm->branch.entries)
		return;
	for (uint64_t i = 0; i < sm->branch.nr; i++) {
		const struct perf_branch_entry *e = &sm->branch.entries[i];

		if (field != SF_BRSTACKSYM)
			put(ctx, " ", 1);
		put_addr(sess, sm->pid, e->from, field, f & SF_DSO, put, ctx);
		put(ctx, "/", 1);
		put_addr(sess, sm->pid, e->to, field, f & SF_DSO, put, ctx);
		put_flags(e, put, ctx);
	}
}
