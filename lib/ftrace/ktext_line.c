/* SPDX-License-Identifier: MIT */
/*
 * Kernel-text printer: one event line. The context columns (task, TGID,
 * CPU, irq flags, time; or the latency layout), then the event: TRACE_EVENT
 * payloads from their print fmt, the ftrace events (function, print,
 * raw_data, kernel_stack) as the kernel's own output functions print them,
 * and the raw, hex, bin and fields variants.
 */
#include <ctype.h>
#include <string.h>
#include "base/bytes.h"
#include "ftrace/ktext.h"

/* common fields: type u16 @0, flags u8 @2, preempt_count u8 @3, pid @4 */
int pk__kt_type(const struct pk_ktext *kt, const void *data, uint32_t size)
{
	return size >= 2 ? pk_ld16(data, kt->big) : -1;
}

int pk__kt_pid(const struct pk_ktext *kt, const void *data, uint32_t size)
{
	return size >= 8 ? (int)pk_ld32((const uint8_t *)data + 4, kt->big)
			 : 0;
}

uint64_t pk__kt_ulong(const struct pk_ktext *kt, const void *p)
{
	return kt->long_size == 4 ? pk_ld32(p, kt->big) : pk_ld64(p, kt->big);
}

/* trace_print_lat_fmt(): irqs-off, need-resched, hard/softirq, preempt
 * depth and migrate-disable. */
void pk__kt_lat_flags(struct trace_seq *s, const uint8_t *data)
{
	unsigned f = data[2], pc = data[3];
	bool nmi = f & 0x40, hard = f & 0x08, soft = f & 0x10, bh = f & 0x80;
	char irqs = (f & 0x01) && bh ? 'D' : (f & 0x01) ? 'd' : bh ? 'b' : '.';
	char nr, hs;

	switch (f & (0x04 | 0x02 | 0x20)) {
	case 0x04 | 0x02 | 0x20: nr = 'B'; break;
	case 0x04 | 0x20: nr = 'N'; break;
	case 0x02 | 0x20: nr = 'L'; break;
	case 0x04 | 0x02: nr = 'b'; break;
	case 0x04: nr = 'n'; break;
	case 0x20: nr = 'p'; break;
	case 0x02: nr = 'l'; break;
	default: nr = '.'; break;
	}
	hs = nmi && hard ? 'Z' : nmi ? 'z' : hard && soft ? 'H' : hard ? 'h'
	     : soft ? 's' : '.';
	trace_seq_printf(s, "%c%c%c", irqs, nr, hs);
	if (pc & 0xf)
		trace_seq_printf(s, "%x", pc & 0xf);
	else
		trace_seq_putc(s, '.');
	if (pc & 0xf0)
		trace_seq_printf(s, "%x", pc >> 4);
	else
		trace_seq_putc(s, '.');
}

static uint64_t ns2us(uint64_t ns) { return (ns + 500) / 1000; }

static void print_time(struct pk_ktext *kt, struct trace_seq *s, uint64_t ts)
{
	if (kt->in_ns) {
		uint64_t t = ns2us(ts);
		trace_seq_printf(s, " %5llu.%06llu",
				 (unsigned long long)(t / 1000000),
				 (unsigned long long)(t % 1000000));
	} else {
		trace_seq_printf(s, " %12llu", (unsigned long long)ts);
	}
}

/* trace_print_context() */
static void context(struct pk_ktext *kt, struct trace_seq *s,
		    const struct pk_tracedat_event *ev)
{
	char buf[16];
	int pid = pk__kt_pid(kt, ev->data, ev->size);

	trace_seq_printf(s, "%16s-%-7d ", pk__kt_comm(kt, pid, buf), pid);
	if (kt->flags & KT_F(KT_RECORD_TGID)) {
		int tgid = pk__kt_tgid(kt, pid);
		if (!tgid)
			trace_seq_puts(s, "(-------) ");
		else
			trace_seq_printf(s, "(%7d) ", tgid);
	}
	trace_seq_printf(s, "[%03d] ", ev->cpu);
	if (kt->flags & KT_F(KT_IRQ_INFO))
		pk__kt_lat_flags(s, ev->data);
	print_time(kt, s, ev->ts);
	trace_seq_puts(s, ": ");
}

static char find_mark(uint64_t d)
{
	static const struct { uint64_t v; char c; } m[] = {
		{ 1000000000ULL, '$' }, { 100000000ULL, '@' },
		{ 10000000ULL, '*' }, { 1000000ULL, '#' },
		{ 100000ULL, '!' }, { 10000ULL, '+' },
	};
	for (size_t i = 0; i < PK_ARRAY_SIZE(m); i++)
		if (d > m[i].v)
			return m[i].c;
	return ' ';
}

/* trace_print_lat_context() */
static void lat_context(struct pk_ktext *kt, struct trace_seq *s,
			struct kt_ev *k)
{
	const struct pk_tracedat_event *ev = k->ev;
	uint64_t next_ts = k->next ? k->next->ts : ev->ts;
	uint64_t abs = ev->ts - kt->time_start, rel = next_ts - ev->ts;
	bool verbose = kt->flags & KT_F(KT_VERBOSE);
	int pid = pk__kt_pid(kt, ev->data, ev->size);
	char buf[16];
	const char *comm = pk__kt_comm(kt, pid, buf);

	if (verbose)
		trace_seq_printf(s, "%16s %7d %3d %d %08x %08lx ", comm, pid,
				 ev->cpu, ((const uint8_t *)ev->data)[2],
				 ((const uint8_t *)ev->data)[3] & 0xf,
				 kt->idx);
	else {
		trace_seq_printf(s, "%8.8s-%-7d %3d", comm, pid, ev->cpu);
		pk__kt_lat_flags(s, ev->data);
	}
	if (kt->in_ns) {
		abs = ns2us(abs);
		rel = ns2us(rel);
	}
	if (verbose && kt->in_ns)
		trace_seq_printf(s, "[%08llx] %llu.%03llums (+%llu.%03llums): ",
				 (unsigned long long)ns2us(ev->ts),
				 (unsigned long long)(abs / 1000),
				 (unsigned long long)(abs % 1000),
				 (unsigned long long)(rel / 1000),
				 (unsigned long long)(rel % 1000));
	else if (verbose)
		trace_seq_printf(s, "[%016llx] %lld (+%lld): ",
				 (unsigned long long)ev->ts, (long long)abs,
				 (long long)rel);
	else if (kt->in_ns)
		trace_seq_printf(s, " %4lldus%c: ", (long long)abs,
				 find_mark(rel * 1000));
	else
		trace_seq_printf(s, " %4lld: ", (long long)abs);
}

/* The payload from the compiled formatter; false when it leaves EV to
 * libtraceevent (a text ending in a newline or holding a NUL too:
 * libtraceevent's own handling decides those). */
static bool compiled_payload(struct pk_ktext *kt, struct trace_seq *s,
			     const struct pk_tracedat_event *ev, uint32_t size)
{
	int type = pk__kt_type(kt, ev->data, size);
	const struct tf_event *te = type < 0 ? NULL :
		pk__tf_events_get(&kt->evs, pk__tf_events_find(&kt->evs, (uint64_t)type),
			      (uint64_t)type);

	kt->out.len = 0;
	if (!te || pk__tf_print(te, &kt->env, ev->data, size, &kt->out) ||
	    (kt->out.len && (kt->out.p[kt->out.len - 1] == '\n' ||
			      memchr(kt->out.p, 0, kt->out.len))))
		return false;
	trace_seq_printf(s, "%.*s", (int)kt->out.len, kt->out.p);
	return true;
}

/*
 * The event's print fmt as the kernel renders it for TRACE_EVENT()s: the
 * compiled formatter in the kernel's reading (TF_KERNEL), else (a format
 * or record it leaves alone) libtraceevent without plugins. The one place
 * the payload is made.
 */
void pk__kt_payload(struct pk_ktext *kt, struct trace_seq *s,
		const struct pk_tracedat_event *ev)
{
	uint32_t size = (uint32_t)PK_MIN(ev->size, kt->scratch_max);

	if (compiled_payload(kt, s, ev, size))
		return;
	struct tep_record rec = {
		.ts = ev->ts, .cpu = ev->cpu, .data = kt->scratch,
		.size = (int)size, .record_size = (int)size,
	};

	memcpy(kt->scratch, ev->data, size);
	pk__kt_tep_texts(kt);
	tep_print_event(kt->tep, s, &rec, "%s", TEP_PRINT_INFO);
	memset(kt->scratch, 0, size);
}

/* A field of the event by name, or NULL. */
static const struct tep_format_field *fld(struct pk_ktext *kt, int type,
					  const char *name)
{
	struct tep_event *e = tep_find_event(kt->tep, type);
	return e ? tep_find_field(e, name) : NULL;
}

static bool fld_val(struct pk_ktext *kt, const struct pk_tracedat_event *ev,
		    const char *name, uint64_t *v)
{
	const struct tep_format_field *f = fld(kt, pk__kt_type(kt, ev->data,
							    ev->size), name);
	if (!f || f->offset + f->size > (int)ev->size || f->size > 8 ||
	    f->size <= 0)
		return false;
	*v = pk_ldn((const uint8_t *)ev->data + f->offset, (unsigned)f->size,
		    kt->big);
	return true;
}

/* print/raw_data/kernel_stack: the trailing flexible field's bytes. */
static const uint8_t *tail_field(struct pk_ktext *kt,
				 const struct pk_tracedat_event *ev,
				 const char *name, uint32_t *len)
{
	const struct tep_format_field *f = fld(kt, pk__kt_type(kt, ev->data,
							    ev->size), name);
	if (!f || (uint32_t)f->offset > ev->size)
		return NULL;
	*len = ev->size - (uint32_t)f->offset;
	return (const uint8_t *)ev->data + f->offset;
}

static void print_buf(struct trace_seq *s, const uint8_t *p, uint32_t len)
{
	uint32_t n = 0;
	while (n < len && p[n])
		n++;
	trace_seq_printf(s, "%.*s", (int)n, (const char *)p);
}

static void fn_text(struct pk_ktext *kt, struct trace_seq *s,
		    const struct pk_tracedat_event *ev)
{
	uint64_t ip = 0, parent = 0;

	fld_val(kt, ev, "ip", &ip);
	fld_val(kt, ev, "parent_ip", &parent);
	pk__kt_print_ip(kt, s, ip);
	if ((kt->flags & KT_F(KT_PRINT_PARENT)) && parent) {
		trace_seq_puts(s, " <-");
		pk__kt_print_ip(kt, s, parent);
	}
	trace_seq_putc(s, '\n');
}

static void stack_text(struct pk_ktext *kt, struct trace_seq *s,
		       const struct pk_tracedat_event *ev)
{
	uint32_t len = 0;
	const uint8_t *p = tail_field(kt, ev, "caller", &len);
	unsigned ls = (unsigned)kt->long_size;

	trace_seq_puts(s, "<stack trace>\n");
	for (uint32_t i = 0; p && i + ls <= len; i += ls) {
		uint64_t a = pk__kt_ulong(kt, p + i);
		if (!a || a == (ls == 4 ? 0xffffffffull : ~0ull))
			break;
		trace_seq_puts(s, " => ");
		pk__kt_print_ip(kt, s, a);
		trace_seq_putc(s, '\n');
	}
}

/* trace_user_stack_print(): each address up to the first 0 as " => "
 * and seq_print_user_ip()'s " <%016lx>" (the file holds no memory maps
 * for sym-userobj's "path[+0xoff]"). */
static void ustack_text(struct pk_ktext *kt, struct trace_seq *s,
			const struct pk_tracedat_event *ev)
{
	const struct tep_format_field *f = fld(kt, kt->id_ustack, "caller");
	unsigned ls = (unsigned)kt->long_size;

	trace_seq_puts(s, "<user stack trace>\n");
	for (uint32_t i = 0; f && i + ls <= (uint32_t)f->size &&
	     (uint32_t)f->offset + i + ls <= ev->size; i += ls) {
		uint64_t a = pk__kt_ulong(kt, (const uint8_t *)ev->data +
					  f->offset + i);
		if (!a)
			break;
		trace_seq_printf(s, ls == 4 ? " =>  <%08llx>\n"
					    : " =>  <%016llx>\n",
				 (unsigned long long)a);
	}
}

/* A probe's address as print_kprobe_event() (a kernel address: symbol
 * and offset, seq_print_ip_sym with sym-offset) or print_uprobe_event()
 * ("0x%lx") prints it. */
static void probe_ip(struct pk_ktext *kt, struct trace_seq *s, uint64_t ip)
{
	bool kernel = kt->long_size == 4 ? ip >= 0xc0000000ull
					 : ip >= 0xffff800000000000ull;

	if (!kernel) {
		trace_seq_printf(s, "0x%llx", (unsigned long long)ip);
		return;
	}
	pk__kt_print_sym(kt, s, ip, true);
	if (kt->flags & KT_F(KT_SYM_ADDR))
		trace_seq_printf(s, kt->long_size == 4 ? " <%08llx>"
						       : " <%016llx>",
				 (unsigned long long)ip);
}

/* kprobe/uprobe events: their print fmt says "(%lx)" or "(%lx <- %lx)"
 * (function, return address) where the kernel prints "(ADDR)" and
 * "(RETURN <- FUNCTION)" through its own printers: the head of the
 * payload from AT on is put right, the arguments kept. */
static void probe_head(struct pk_ktext *kt, struct trace_seq *s,
		       struct tep_event *e, const struct pk_tracedat_event *ev,
		       unsigned at)
{
	const struct tep_format_field *f = e->format.fields;
	uint64_t a = 0, b = 0;
	bool ret;
	char *close, tail[4096];

	if (!f || (strcmp(f->name, "__probe_ip") &&
		   strcmp(f->name, "__probe_func")) ||
	    s->len <= at || s->buffer[at] != '(' ||
	    !(close = memchr(s->buffer + at, ')', s->len - at)))
		return;
	ret = !strcmp(f->name, "__probe_func");
	if (!fld_val(kt, ev, f->name, &a) ||
	    (ret && !fld_val(kt, ev, "__probe_ret_ip", &b)))
		return;
	snprintf(tail, sizeof(tail), "%.*s",
		 (int)(s->len - (unsigned)(close + 1 - s->buffer)), close + 1);
	s->len = at;
	trace_seq_putc(s, '(');
	probe_ip(kt, s, ret ? b : a);
	if (ret) {
		trace_seq_puts(s, " <- ");
		probe_ip(kt, s, a);
	}
	trace_seq_printf(s, ")%s", tail);
}

/* print_syscall_enter()/print_syscall_exit(): "sys_NAME(arg: val, ...)"
 * ("TYPE arg: val" with verbose) and "sys_NAME -> 0xRET". False when E
 * is not a syscall event. */
static bool syscall_text(struct pk_ktext *kt, struct trace_seq *s,
			 struct tep_event *e,
			 const struct pk_tracedat_event *ev)
{
	bool enter = !strncmp(e->name, "sys_enter_", 10);
	const struct tep_format_field *f;
	bool first = true;

	if (strcmp(e->system, "syscalls") ||
	    (!enter && strncmp(e->name, "sys_exit_", 9)) ||
	    !(f = tep_find_field(e, "__syscall_nr")))
		return false;
	trace_seq_printf(s, "sys_%s", e->name + (enter ? 10 : 9));
	if (!enter) {
		uint64_t v = 0;
		fld_val(kt, ev, "ret", &v);
		trace_seq_printf(s, " -> 0x%llx\n", (unsigned long long)v);
		return true;
	}
	trace_seq_putc(s, '(');
	for (f = f->next; f; f = f->next) {
		uint64_t v = 0;
		if ((uint32_t)(f->offset + f->size) <= ev->size && f->size > 0 &&
		    f->size <= 8)
			v = pk_ldn((const uint8_t *)ev->data + f->offset,
				   (unsigned)f->size, kt->big);
		if (!first)
			trace_seq_puts(s, ", ");
		/* the verbose option: each argument's type first */
		if (kt->flags & KT_F(KT_VERBOSE))
			trace_seq_printf(s, "%s ", f->type);
		trace_seq_printf(s, v < 10 ? "%s: %llu" : "%s: 0x%llx",
				 f->name, (unsigned long long)v);
		first = false;
	}
	trace_seq_puts(s, ")\n");
	return true;
}

/* event->funcs->trace() of the event's type. */
void pk__kt_event_text(struct pk_ktext *kt, struct trace_seq *s,
		   const struct pk_tracedat_event *ev)
{
	int type = pk__kt_type(kt, ev->data, ev->size);
	struct tep_event *e = tep_find_event(kt->tep, type);
	uint64_t v = 0;
	uint32_t len = 0;
	const uint8_t *p;

	if (!e) {
		trace_seq_printf(s, "Unknown type %d\n", type);
		return;
	}
	if (type == kt->id_function) {
		fn_text(kt, s, ev);
	} else if (type == kt->id_print) {
		fld_val(kt, ev, "ip", &v);
		pk__kt_print_ip(kt, s, v);
		trace_seq_puts(s, ": ");
		if ((p = tail_field(kt, ev, "buf", &len)))
			print_buf(s, p, len);
	} else if (type == kt->id_raw_data) {
		fld_val(kt, ev, "id", &v);
		trace_seq_printf(s, "# %x buf:", (unsigned)v);
		p = tail_field(kt, ev, "buf", &len);
		for (uint32_t i = 0; p && i < len; i++)
			trace_seq_printf(s, " %02x", p[i]);
		trace_seq_putc(s, '\n');
	} else if (type == kt->id_kstack) {
		stack_text(kt, s, ev);
	} else if (type == kt->id_ustack) {
		ustack_text(kt, s, ev);
	} else if (syscall_text(kt, s, e, ev)) {
		/* done */
	} else if (type == kt->id_bprint || type == kt->id_bputs) {
		pk__kt_payload(kt, s, ev);
		if (!s->len || s->buffer[s->len - 1] != '\n')
			trace_seq_putc(s, '\n');
	} else {
		unsigned at;
		trace_seq_printf(s, "%s: ", e->name);
		at = s->len;
		pk__kt_payload(kt, s, ev);
		probe_head(kt, s, e, ev, at);
		trace_seq_putc(s, '\n');
	}
}

/* print_event_fields() (the "fields" option). */
static void fields_text(struct pk_ktext *kt, struct trace_seq *s,
			const struct pk_tracedat_event *ev)
{
	struct tep_event *e = tep_find_event(kt->tep,
					     pk__kt_type(kt, ev->data, ev->size));
	const uint8_t *d = ev->data;

	/* the ftrace system's own events have no fields to print */
	if (!e || !strcmp(e->system, "ftrace")) {
		trace_seq_printf(s, "UNKNOWN TYPE %d\n",
				 pk__kt_type(kt, ev->data, ev->size));
		return;
	}
	trace_seq_printf(s, "%s:", e->name);
	if (!e->format.fields)
		trace_seq_puts(s, "No fields found\n");
	for (struct tep_format_field *f = e->format.fields; f; f = f->next) {
		const char *t = f->type;
		const uint8_t *pos = d + f->offset;
		trace_seq_printf(s, " %s=", f->name);
		if ((uint32_t)(f->offset + f->size) > ev->size) {
			trace_seq_puts(s, "<OVERFLOW>");
			continue;
		}
		bool dl = strstr(t, "__data_loc"), rl = strstr(t, "__rel_loc");
		if ((dl || rl) && f->size == 4) {
			uint32_t w = pk_ld32(pos, kt->big);
			uint32_t off = w & 0xffff, len = w >> 16;
			if (rl)
				off += (uint32_t)f->offset + 4;
			if (off + len > ev->size) {
				trace_seq_puts(s, "<OVERFLOW>");
				continue;
			}
			if (strstr(t, "char")) {
				trace_seq_printf(s, "%.*s", (int)strnlen(
					(const char *)d + off, len), d + off);
				continue;
			}
			for (uint32_t i = 0; i < len; i++)
				trace_seq_printf(s, i ? ",%02x" : "%02x",
						 d[off + i]);
			continue;
		}
		if (strchr(t, '[') && strstr(t, "char")) {
			trace_seq_printf(s, "%.*s", (int)strnlen((const char *)pos,
					 (size_t)f->size), pos);
			continue;
		}
		if (!strcmp(t, "char *") || !strcmp(t, "const char *")) {
			trace_seq_printf(s, "(0x%llx)",
					 (unsigned long long)pk__kt_ulong(kt, pos));
			continue;
		}
		switch (f->size) {
		case 1:
			if (isprint(*pos))
				trace_seq_printf(s, "'%c'", *pos);
			trace_seq_printf(s, "(%d)", *pos);
			break;
		case 2: {
			unsigned v = pk_ld16(pos, kt->big);
			trace_seq_printf(s, "0x%x (%d)", v, (int)v);
			break;
		}
		case 4: {
			uint32_t v = pk_ld32(pos, kt->big);
			trace_seq_printf(s, "0x%x (%d)", v, (int32_t)v);
			break;
		}
		case 8: {
			uint64_t v = pk_ld64(pos, kt->big);
			if (strchr(t, '*') && pk__kt_is_text(kt, v)) {
				/* a function pointer: "%pS (%d)" */
				pk__kt_print_sym(kt, s, v, true);
				trace_seq_printf(s, " (%d)", (int32_t)v);
				break;
			}
			trace_seq_printf(s, "0x%llx (%lld)",
					 (unsigned long long)v, (long long)v);
			break;
		}
		default:
			trace_seq_puts(s, "<INVALID-SIZE>");
		}
	}
	trace_seq_putc(s, '\n');
}

/* Field bytes as trace_seq_putmem_hex() prints them (most significant
 * byte first on a little-endian machine), then a space. */
static void put_hex(struct trace_seq *s, const void *p, unsigned n)
{
	const uint8_t *b = p;
	for (unsigned i = n; i-- > 0;)
		trace_seq_printf(s, "%02x", b[i]);
	trace_seq_putc(s, ' ');
}

static void raw_line(struct pk_ktext *kt, struct trace_seq *s,
		     const struct pk_tracedat_event *ev, int type)
{
	uint64_t ip = 0, parent = 0;
	uint32_t len = 0;
	const uint8_t *p;

	if (kt->flags & KT_F(KT_CONTEXT_INFO))
		trace_seq_printf(s, "%d %d %llu ", pk__kt_pid(kt, ev->data,
							   ev->size),
				 ev->cpu, (unsigned long long)ev->ts);
	if (!tep_find_event(kt->tep, type)) {
		trace_seq_printf(s, "%d ?\n", type);
	} else if (type == kt->id_function) {
		fld_val(kt, ev, "ip", &ip);
		fld_val(kt, ev, "parent_ip", &parent);
		trace_seq_printf(s, "%llx %llx\n", (unsigned long long)ip,
				 (unsigned long long)parent);
	} else if (type == kt->id_print) {
		fld_val(kt, ev, "ip", &ip);
		trace_seq_printf(s, "# %llx ", (unsigned long long)ip);
		if ((p = tail_field(kt, ev, "buf", &len)))
			print_buf(s, p, len);
	} else if (type == kt->id_raw_data) {
		pk__kt_event_text(kt, s, ev);
	} else {
		trace_seq_printf(s, "type: %d\n", type);
	}
}

static void putmem(struct trace_seq *s, const void *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		trace_seq_putc(s, ((const uint8_t *)p)[i]);
}

/* The hex and bin options' layouts: pid, cpu, time (with context-info),
 * then a function event's ip and parent ip, each through PUT. */
static void bytes_line(struct pk_ktext *kt, struct trace_seq *s,
		       const struct pk_tracedat_event *ev, int type,
		       void (*put)(struct trace_seq *, const void *, unsigned))
{
	if (kt->flags & KT_F(KT_CONTEXT_INFO)) {
		int32_t pid = pk__kt_pid(kt, ev->data, ev->size), cpu = ev->cpu;
		uint64_t ts = ev->ts;
		put(s, &pid, 4);
		put(s, &cpu, 4);
		put(s, &ts, 8);
	}
	if (type == kt->id_function) {
		uint64_t ip = 0, parent = 0;
		fld_val(kt, ev, "ip", &ip);
		fld_val(kt, ev, "parent_ip", &parent);
		put(s, &ip, (unsigned)kt->long_size);
		put(s, &parent, (unsigned)kt->long_size);
	} else if (tep_find_event(kt->tep, type)) {
		trace_seq_printf(s, "type: %d\n", type);
	}
}

static void hex_line(struct pk_ktext *kt, struct trace_seq *s,
		     const struct pk_tracedat_event *ev, int type)
{
	bytes_line(kt, s, ev, type, put_hex);
	trace_seq_putc(s, '\n');
}

static void bin_line(struct pk_ktext *kt, struct trace_seq *s,
		     const struct pk_tracedat_event *ev, int type)
{
	bytes_line(kt, s, ev, type, putmem);
}

static bool msg_only(struct pk_ktext *kt, struct trace_seq *s,
		     const struct pk_tracedat_event *ev, int type)
{
	uint32_t len;
	const uint8_t *p;

	if (!(kt->flags & KT_F(KT_TRACE_PRINTK)) ||
	    !(kt->flags & KT_F(KT_PRINTK_MSGONLY)))
		return false;
	if (type == kt->id_print && (p = tail_field(kt, ev, "buf", &len))) {
		print_buf(s, p, len);
		return true;
	}
	return false;
}

/* print_trace_line() for the nop and function tracers. */
void pk__kt_line(struct pk_ktext *kt, struct trace_seq *s, struct kt_ev *k)
{
	const struct pk_tracedat_event *ev = k->ev;
	int type = pk__kt_type(kt, ev->data, ev->size);
	unsigned cpu = (unsigned)ev->cpu;

	/* trace_pipe says where events were lost; the trace file, which
	 * iterates what is left, does not */
	if (kt->pipe && ev->missed > 0)
		trace_seq_printf(s, "CPU:%d [LOST %lld EVENTS]\n", ev->cpu,
				 ev->missed);
	else if (kt->pipe && ev->missed < 0)
		trace_seq_printf(s, "CPU:%d [LOST EVENTS]\n", ev->cpu);
	if (kt->tracer == KT_GRAPH && pk__kt_graph_line(kt, s, k))
		return;
	if (msg_only(kt, s, ev, type))
		return;
	if (kt->flags & KT_F(KT_BIN))
		return bin_line(kt, s, ev, type);
	if (kt->flags & KT_F(KT_HEX))
		return hex_line(kt, s, ev, type);
	if (kt->flags & KT_F(KT_RAW))
		return raw_line(kt, s, ev, type);
	/* test_cpu_buff_start() */
	if ((kt->flags & KT_F(KT_ANNOTATE)) && kt->annotate &&
	    cpu < sizeof(kt->started) * 8 &&
	    !(kt->started[cpu / 8] & (1 << (cpu % 8)))) {
		kt->started[cpu / 8] |= (uint8_t)(1 << (cpu % 8));
		if (kt->idx > 1)
			trace_seq_printf(s, "##### CPU %u buffer started ####\n",
					 cpu);
	}
	if (kt->flags & KT_F(KT_CONTEXT_INFO)) {
		if (kt->flags & KT_F(KT_LATENCY_FMT))
			lat_context(kt, s, k);
		else
			context(kt, s, ev);
	}
	if (kt->flags & KT_F(KT_FIELDS) && tep_find_event(kt->tep, type))
		fields_text(kt, s, ev);
	else
		pk__kt_event_text(kt, s, ev);
}
