/* SPDX-License-Identifier: MIT */
/*
 * pk_attr_snprintf: the "perf_event_attr:" block of `perf stat -vv`.
 * Field order, names and value spellings follow perf 6.1 (checked by
 * experiment, see tests/unit/test_event_perf.c): one line per non-zero
 * field, "  %-32s %s".
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "base/base.h"
#include <perfkit/event.h>

struct bit_name {
	uint64_t bit;
	const char *name;
};

#define SB(x) { PERF_SAMPLE_##x, #x }
static const struct bit_name sample_bits[] = {
	SB(IP), SB(TID), SB(TIME), SB(ADDR), SB(READ), SB(CALLCHAIN), SB(ID),
	SB(CPU), SB(PERIOD), SB(STREAM_ID), SB(RAW), SB(BRANCH_STACK),
	SB(REGS_USER), SB(STACK_USER), SB(IDENTIFIER), SB(REGS_INTR),
	SB(DATA_SRC), SB(WEIGHT), SB(PHYS_ADDR), SB(AUX), SB(CGROUP),
	SB(DATA_PAGE_SIZE), SB(CODE_PAGE_SIZE), SB(WEIGHT_STRUCT),
	{ 0, NULL },
};
#undef SB

#define BB(x) { PERF_SAMPLE_BRANCH_##x, #x }
static const struct bit_name branch_bits[] = {
	BB(USER), BB(KERNEL), BB(HV), BB(ANY), BB(ANY_CALL), BB(ANY_RETURN),
	BB(IND_CALL), BB(ABORT_TX), BB(IN_TX), BB(NO_TX), BB(COND),
	BB(CALL_STACK), BB(IND_JUMP), BB(CALL), BB(NO_FLAGS), BB(NO_CYCLES),
	BB(TYPE_SAVE), BB(HW_INDEX), BB(PRIV_SAVE),
	{ 0, NULL },
};
#undef BB

#define RB(x) { PERF_FORMAT_##x, #x }
static const struct bit_name read_bits[] = {
	RB(TOTAL_TIME_ENABLED), RB(TOTAL_TIME_RUNNING), RB(ID), RB(GROUP),
	RB(LOST),
	{ 0, NULL },
};
#undef RB

struct out {
	char *buf;
	size_t size;
	int len;
};

static void emit(struct out *o, const char *key, const char *val)
{
	size_t room = o->size > (size_t)o->len ? o->size - (size_t)o->len : 0;
	int n = snprintf(room ? o->buf + o->len : NULL, room, "  %-32s %s\n",
			 key, val);

	if (n > 0)
		o->len += n;
}

static void emit_u(struct out *o, const char *key, uint64_t v)
{
	char s[32];

	if (!v)
		return;
	snprintf(s, sizeof(s), "%" PRIu64, v);
	emit(o, key, s);
}

static void emit_x(struct out *o, const char *key, uint64_t v)
{
	char s[32];

	if (!v)
		return;
	snprintf(s, sizeof(s), "%#" PRIx64, v);
	emit(o, key, s);
}

static void emit_bits(struct out *o, const char *key, uint64_t v,
		      const struct bit_name *bits)
{
	char s[512];
	size_t n = 0;

	if (!v)
		return;
	s[0] = '\0';
	for (int i = 0; bits[i].name; i++) {
		if (!(v & bits[i].bit))
			continue;
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%s",
				      n ? "|" : "", bits[i].name);
		if (n >= sizeof(s))
			break;
	}
	emit(o, key, s);
}

/* The single-bit flags, in the order perf prints them. */
#define FLAG(f) { #f, offsetof(struct flag_vals, f) }
struct flag_vals {
	uint8_t disabled, inherit, pinned, exclusive, exclude_user,
		exclude_kernel, exclude_hv, exclude_idle, mmap, comm, freq,
		inherit_stat, enable_on_exec, task, watermark, precise_ip,
		mmap_data, sample_id_all, exclude_host, exclude_guest,
		exclude_callchain_kernel, exclude_callchain_user, mmap2,
		comm_exec, use_clockid, context_switch, write_backward,
		namespaces, ksymbol, bpf_event, aux_output, cgroup, text_poke,
		build_id, inherit_thread, remove_on_exec, sigtrap;
};

static void get_flags(const struct perf_event_attr *a, struct flag_vals *f)
{
#define C(x) f->x = (uint8_t)a->x
	C(disabled); C(inherit); C(pinned); C(exclusive); C(exclude_user);
	C(exclude_kernel); C(exclude_hv); C(exclude_idle); C(mmap); C(comm);
	C(freq); C(inherit_stat); C(enable_on_exec); C(task); C(watermark);
	C(precise_ip); C(mmap_data); C(sample_id_all); C(exclude_host);
	C(exclude_guest); C(exclude_callchain_kernel);
	C(exclude_callchain_user); C(mmap2); C(comm_exec); C(use_clockid);
	C(context_switch); C(write_backward); C(namespaces); C(ksymbol);
	C(bpf_event); C(aux_output); C(cgroup); C(text_poke); C(build_id);
	C(inherit_thread); C(remove_on_exec); C(sigtrap);
#undef C
}

static const struct {
	const char *name;
	size_t off;
} flag_order[] = {
	FLAG(disabled), FLAG(inherit), FLAG(pinned), FLAG(exclusive),
	FLAG(exclude_user), FLAG(exclude_kernel), FLAG(exclude_hv),
	FLAG(exclude_idle), FLAG(mmap), FLAG(comm), FLAG(freq),
	FLAG(inherit_stat), FLAG(enable_on_exec), FLAG(task),
	FLAG(watermark), FLAG(precise_ip), FLAG(mmap_data),
	FLAG(sample_id_all), FLAG(exclude_host), FLAG(exclude_guest),
	FLAG(exclude_callchain_kernel), FLAG(exclude_callchain_user),
	FLAG(mmap2), FLAG(comm_exec), FLAG(use_clockid),
	FLAG(context_switch), FLAG(write_backward), FLAG(namespaces),
	FLAG(ksymbol), FLAG(bpf_event), FLAG(aux_output), FLAG(cgroup),
	FLAG(text_poke), FLAG(build_id), FLAG(inherit_thread),
	FLAG(remove_on_exec), FLAG(sigtrap),
};

int pk_attr_snprintf(char *buf, size_t size, const struct perf_event_attr *a)
{
	struct out o = { buf, size, 0 };
	struct flag_vals f;
	char s[32];

	if (size)
		buf[0] = '\0';
	emit_u(&o, "type", a->type);
	emit_u(&o, "size", a->size);
	emit_x(&o, "config", a->config);
	emit_u(&o, "{ sample_period, sample_freq }", a->sample_period);
	emit_bits(&o, "sample_type", a->sample_type, sample_bits);
	emit_bits(&o, "read_format", a->read_format, read_bits);
	get_flags(a, &f);
	for (size_t i = 0; i < PK_ARRAY_SIZE(flag_order); i++)
		emit_u(&o, flag_order[i].name,
		       *((const uint8_t *)&f + flag_order[i].off));
	emit_u(&o, "{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	emit_u(&o, "bp_type", a->bp_type);
	emit_x(&o, "{ bp_addr, config1 }", a->bp_addr);
	emit_x(&o, "{ bp_len, config2 }", a->bp_len);
	emit_bits(&o, "branch_sample_type", a->branch_sample_type,
		  branch_bits);
	emit_x(&o, "sample_regs_user", a->sample_regs_user);
	emit_u(&o, "sample_stack_user", a->sample_stack_user);
	if (a->clockid) {
		snprintf(s, sizeof(s), "%d", a->clockid);
		emit(&o, "clockid", s);
	}
	emit_x(&o, "sample_regs_intr", a->sample_regs_intr);
	emit_u(&o, "aux_watermark", a->aux_watermark);
	emit_u(&o, "sample_max_stack", a->sample_max_stack);
	emit_u(&o, "aux_sample_size", a->aux_sample_size);
	emit_u(&o, "sig_data", a->sig_data);
	uint32_t act = pk_attr_aux_action(a);
	emit_u(&o, "aux_start_paused", !!(act & PK_AUX_START_PAUSED));
	emit_u(&o, "aux_pause", !!(act & PK_AUX_PAUSE));
	emit_u(&o, "aux_resume", !!(act & PK_AUX_RESUME));
	return o.len;
}
