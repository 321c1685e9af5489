/* SPDX-License-Identifier: MIT */
/*
 * Internal: the pid -> comm map and its saved_cmdlines ("PID COMM" lines)
 * parser, on the library's hash table. Names are kept NUL-terminated in
 * chunks that never move: a name stays valid until the map is freed,
 * unless a longer one replaces it.
 */
#ifndef PK_BASE_COMM_H
#define PK_BASE_COMM_H
#include <stddef.h>
#include "base/hash.h"

struct pk__comms {
	struct pk__hash map;    /* pid -> the name's record */
	char **chunks;
	int nr_chunks;
	size_t used, cap;       /* of the last chunk */
};

/* How saved_cmdlines text is read. */
enum pk__comms_rule {
	/* libtraceevent's tep_parse_saved_cmdlines(): stops at the first
	 * bad line, the first name of a pid stays, pid 0 is left out */
	PK_COMMS_TEP,
	/* the kernel's own lines: bad lines skipped, pids 1..2^30-1, names
	 * cut to 15 bytes (TASK_COMM_LEN), the last name of a pid wins */
	PK_COMMS_KERNEL,
};

/* Sets PID's name to the LEN bytes at S: replaces an earlier one when
 * REPLACE, else keeps it. 0 or -ENOMEM. */
int pk__comms_set(struct pk__comms *c, int pid, const char *s, size_t len,
		  bool replace);
/* PID's name (its length in *LEN when LEN is not NULL), or NULL. */
const char *pk__comms_get(const struct pk__comms *c, int pid, size_t *len);
/* Adds the LEN bytes of saved_cmdlines TEXT by RULE. 0 or -ENOMEM. */
int pk__comms_parse(struct pk__comms *c, const char *text, size_t len,
		    enum pk__comms_rule rule);
void pk__comms_fini(struct pk__comms *c);
#endif
