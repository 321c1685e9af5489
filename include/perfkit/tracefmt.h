/* SPDX-License-Identifier: MIT */
/*
 * Event formatting: tracepoint payloads formatted from perf's tracing data
 * (the TRACING_DATA feature section or record: header_page, ftrace and
 * event formats, kallsyms, printk formats, saved cmdlines; layout 0.5 /
 * 0.6) as perf script prints them. The library's one event formatter
 * (also behind `ftrace report` and the kernel text of ftrace.h): each
 * format compiled once, libtraceevent for the formats and records the
 * compiler leaves alone.
 */
#ifndef PERFKIT_TRACEFMT_H
#define PERFKIT_TRACEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pk_tracefmt;

/*
 * Parses tracing data DATA (SIZE bytes, file byte order as written). NULL
 * with errno: EPROTO (bad magic or a section running past the end; the
 * offset is in the message sent to pk_warn), ENOMEM.
 */
PK_API struct pk_tracefmt *pk_tracefmt_new(const void *data, size_t size);
PK_API void pk_tracefmt_free(struct pk_tracefmt *t);
/* The libtraceevent plugins this machine loads, one "  PATH" line each
 * (OPTIONS false), or their options with trace-cmd's function-graph ones
 * (OPTIONS true), as trace-cmd list -P / -O print them; a malloc'ed
 * string, NULL with no memory. */
PK_API char *pk_tracefmt_plugins_text(bool options);

/*
 * Names kernel addresses (%ps, %pS, function fields...) through FN, as
 * perf names them through its machine's kernel map, instead of the
 * tracing data's (empty) kallsyms: FN returns the name of the symbol
 * holding ADDR and its start in *START, or NULL for none (printed in
 * hex). The name must live until the next call. FN NULL: back to none.
 */
typedef const char *(*pk_tracefmt_ksym_fn)(void *ctx, uint64_t addr,
					   uint64_t *start);
PK_API void pk_tracefmt_set_ksym(struct pk_tracefmt *t,
				 pk_tracefmt_ksym_fn fn, void *ctx);

struct pk_tracedat;

/*
 * The event formats, printk formats, saved cmdlines and kallsyms of the
 * trace-cmd file TD, printed with libtraceevent's plugins as `trace-cmd
 * report` prints. TD must outlive the formatter. NULL with errno ENOMEM.
 */
PK_API struct pk_tracefmt *pk_tracefmt_new_tracedat(struct pk_tracedat *td);

/*
 * The event ID of a record (its common_type field) into *ID. 0, or
 * -ERANGE when RAW is too short to hold one.
 */
PK_API int pk_tracefmt_record_id(struct pk_tracefmt *t, const void *raw,
				 size_t size, uint64_t *id);

/*
 * Field NAME of a record RAW (SIZE bytes) of event ID. _num: an integer
 * field into *VAL, sign-extended when the field is signed. _str: a char
 * array or a __data_loc string: *STR points into RAW, *LEN bytes up to
 * its NUL. 0; -ENOENT when the event or the field is unknown; -ERANGE
 * when the field lies outside the record; -EINVAL for a field of the
 * other kind (an array for _num, more than 8 bytes).
 */
PK_API int pk_tracefmt_field_num(struct pk_tracefmt *t, uint64_t id,
				 const void *raw, size_t size,
				 const char *name, uint64_t *val);
PK_API int pk_tracefmt_field_str(struct pk_tracefmt *t, uint64_t id,
				 const void *raw, size_t size,
				 const char *name, const char **str,
				 size_t *len);

/*
 * The bytes of field NAME of a record: *P points into RAW, *LEN bytes;
 * the record's last field, an array, runs to the record's end (the kernel
 * writes flexible arrays such as kernel_stack's caller[] past their
 * declared size). 0, -ENOENT, -ERANGE as pk_tracefmt_field_num().
 */
PK_API int pk_tracefmt_field_raw(struct pk_tracefmt *t, uint64_t id,
				 const void *raw, size_t size,
				 const char *name, const void **p,
				 size_t *len);

/*
 * The kernel symbol holding ADDR, from the tracing data's kallsyms (or
 * the pk_tracefmt_set_ksym() callback), its start in *START: the name
 * (valid until the next call), or NULL when none holds it.
 */
PK_API const char *pk_tracefmt_ksym(struct pk_tracefmt *t, uint64_t addr,
				    uint64_t *start);

/* The size of a long in the records (4 or 8) and their byte order. */
PK_API int pk_tracefmt_long_size(const struct pk_tracefmt *t);
PK_API bool pk_tracefmt_big_endian(const struct pk_tracefmt *t);

/* "system:name" of tracepoint ID (attr.config), or NULL when unknown. */
PK_API const char *pk_tracefmt_name(struct pk_tracefmt *t, uint64_t id);

/*
 * Formats one PERF_SAMPLE_RAW payload of event ID as perf script's trace
 * field. Returns the text (borrowed until the next call, *LEN its length)
 * or NULL when the event is unknown.
 */
PK_API const char *pk_tracefmt_print(struct pk_tracefmt *t, uint64_t id,
				     int cpu, const void *raw, size_t size,
				     size_t *len);

#ifdef __cplusplus
}
#endif
#endif
