/* SPDX-License-Identifier: MIT */
/* perfkit script internals: thread names and maps for -D lines. */
#ifndef PK_CLI_SCRIPT_THREADS_H
#define PK_CLI_SCRIPT_THREADS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <perfkit/perfdata.h>

#define PK_MIN_CLI(a, b) ((a) < (b) ? (a) : (b))

struct threads;

struct threads *threads_new(void);
void threads_free(struct threads *t);
/* Follows COMM, FORK, MMAP and MMAP2 records. 0 or -ENOMEM. */
int threads_record(struct threads *t, const struct pk_record *rec);
/* The thread's name, "swapper" for 0, else ":TID" (in BUF). */
const char *threads_comm(struct threads *t, int32_t tid, char *buf,
			 size_t len);
/* Name of the mapping holding IP for the sample's cpumode (MISC), "<not
 * found>", or NULL when the mode has no maps. */
const char *threads_dso(struct threads *t, int32_t pid, uint16_t misc,
			uint64_t ip);
#endif
