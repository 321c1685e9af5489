/* SPDX-License-Identifier: MIT */
/*
 * Kernel ring-buffer sub-buffer ("page") parser and encoder.
 *
 * A page starts with a header (u64 timestamp, then a long "commit" word whose
 * low 27 bits are the data size and whose bits 31/30 flag missed events and a
 * stored missed count), then 4-byte aligned events. Each event starts with a
 * 32-bit word: type_len (5 bits) and time_delta (27 bits); on a little-endian
 * file type_len is the low 5 bits, on a big-endian file the high 5 bits.
 *   type_len 0          length in the next word (data length + 4), data after it
 *   type_len 1..28      data of type_len * 4 bytes right after the header word
 *   29 PADDING          delta 0 and at the end: rest of page; else skip array[0]
 *   30 TIME_EXTEND      delta += array[0] << 27 (array[0] is the next word)
 *   31 TIME_STAMP       absolute: ts = array[0] << 27 | time_delta
 */
#ifndef PK_TRACEDAT_RBPAGE_H
#define PK_TRACEDAT_RBPAGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PK_RB_PADDING     29
#define PK_RB_TIME_EXTEND 30
#define PK_RB_TIME_STAMP  31
#define PK_RB_MAX_DATA    28
#define PK_RB_TS_SHIFT    27
#define PK_RB_DELTA_MASK  ((1u << PK_RB_TS_SHIFT) - 1)
#define PK_RB_COMMIT_MASK ((1u << 27) - 1)
#define PK_RB_MISSED      (1ull << 31)
#define PK_RB_MISSED_STORED (1ull << 30)

/* Layout of a page header, from events/header_page. */
struct pk_rb_layout {
	unsigned ts_size;      /* 8 */
	unsigned commit_off;   /* 8 */
	unsigned commit_size;  /* 8 (64-bit kernel) or 4 */
	unsigned data_off;     /* 16 or 12 */
	bool big_endian;
};

/* Fills L for a kernel long of LONG_SIZE bytes (4 or 8). */
void pk__rb_layout_default(struct pk_rb_layout *l, int long_size, bool big);
/* Parses the text of events/header_page into L. 0 or PK_ERR_FORMAT. */
int pk__rb_layout_parse(struct pk_rb_layout *l, const char *text, size_t len,
		       bool big);

struct pk_rb_iter {
	const uint8_t *page;
	size_t page_size;
	const struct pk_rb_layout *l;
	size_t pos, end;     /* byte offsets in page */
	uint64_t ts;         /* running timestamp */
	uint64_t flags;      /* commit word's flag bits */
	long long missed;    /* >0 count, -1 unknown count, 0 none */
	int err;             /* first error seen (0 if none) */
	size_t err_off;      /* its offset in the page */
};

/* One data event of a page. */
struct pk_rb_event {
	uint64_t ts;
	const uint8_t *data;
	uint32_t size;
	size_t offset;       /* offset of the event header in the page */
};

/* Starts iterating PAGE (PAGE_SIZE bytes). 0, or PK_ERR_FORMAT when the
 * commit size does not fit the page (the iterator then yields nothing). */
int pk__rb_iter_init(struct pk_rb_iter *it, const void *page, size_t page_size,
		    const struct pk_rb_layout *l);
/* Next data event: 1 with *EV filled, 0 at the end of the page, or a negative
 * error (PK_ERR_FORMAT/PK_ERR_TRUNC; it->err_off names where). */
int pk__rb_iter_next(struct pk_rb_iter *it, struct pk_rb_event *ev);

/* Encoder: builds a page in caller memory (tests, writer round trips). */
struct pk_rb_enc {
	uint8_t *page;
	size_t page_size;
	const struct pk_rb_layout *l;
	size_t pos;
	uint64_t last_ts;
};
/* Starts a page at timestamp TS. */
void pk__rb_enc_init(struct pk_rb_enc *e, void *page, size_t page_size,
		    const struct pk_rb_layout *l, uint64_t ts);
/* Appends a data event at absolute time TS (>= the last one): emits a
 * TIME_EXTEND first when the delta needs more than 27 bits. Uses type_len 0
 * when FORCE_LONG or the data is over 112 bytes. 0 or -ENOSPC. */
int pk__rb_enc_event(struct pk_rb_enc *e, uint64_t ts, const void *data,
		    uint32_t len, bool force_long);
/* Appends an absolute TIME_STAMP event. 0 or -ENOSPC. */
int pk__rb_enc_time_stamp(struct pk_rb_enc *e, uint64_t ts);
/* Appends a TIME_EXTEND of DELTA (its 59 bits). 0 or -ENOSPC. */
int pk__rb_enc_time_extend(struct pk_rb_enc *e, uint64_t delta);
/* Appends a discarded (padding) event covering LEN data bytes, with DELTA.
 * 0 or -ENOSPC. */
int pk__rb_enc_padding(struct pk_rb_enc *e, uint32_t delta, uint32_t len);
/* Writes the header commit word; MISSED > 0 stores the count after the data
 * (when it fits), MISSED < 0 only sets the flag. Returns the bytes used. */
size_t pk__rb_enc_finish(struct pk_rb_enc *e, long long missed);
/* The same with the count COUNT stored whatever it is (trace-cmd split
 * stores an unknown count as all ones). */
size_t pk__rb_enc_finish_count(struct pk_rb_enc *e, uint64_t count);

#endif
