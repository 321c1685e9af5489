/* SPDX-License-Identifier: MIT */
/*
 * perfkit inject's modes besides --itrace (cli/inject_*.c): the copy of a
 * stream as perf inject 6.1 makes it (inject_copy.c), with build ids
 * (inject_buildid.c), sched_stat merged into sched_switch
 * (inject_sched.c). The copy calls a mode's hooks per record.
 */
#ifndef CLI_INJECT_H
#define CLI_INJECT_H

#include <stdbool.h>
#include <stdint.h>
#include <perfkit/perfdata.h>
#include <perfkit/session.h>

struct inj_dso;
struct pk_tracefmt;

struct inj_copy {
	/* options */
	const char *input, *output;
	bool build_ids, buildid_all, sched_stat, force;
	const char *known_build_ids;  /* "BUILDID PATH,..." */
	const char *vmlinux;          /* -k: perf's kernel DSO name */
	/* state */
	struct pk_perfdata *pd;
	struct pk_pdwriter *w;
	struct pk_session *sess;
	bool pipe_in, pipe_out;
	bool ordered;                 /* perf's ordered events */
	char *tmp;                    /* the output being written */
	int out_fd;                   /* its descriptor */
	/* inject_buildid.c */
	struct inj_dso *dsos;
	int nr_dsos, cap_dsos;
	struct inj_known *known;
	int nr_known;
	/* inject_sched.c */
	struct inj_switch *sw;
	int nr_sw, cap_sw;
	struct pk_tracefmt *tf;       /* the stat events' formats */
	int *sched_role;              /* per attr: 0, or SCHED_* */
	unsigned nr_roles;
};

/* inject_copy.c: runs the copy; the exit status (0, 1 said, 2 usage). */
int inj_copy_run(struct inj_copy *c, int argc, char **argv);
/* Appends a record to the output. 0 or -errno. */
int inj_out(struct inj_copy *c, const struct perf_event_header *h,
	    const void *extra, size_t extra_size);

/* inject_buildid.c */
int inj_bid_init(struct inj_copy *c);      /* the input's table, known ids */
/* A sample: the DSO its ip falls in marked hit; with -b its build id
 * record first when it is new. */
int inj_bid_sample(struct inj_copy *c, const struct pk_record *rec, bool inject);
/* --buildid-all: an MMAP/MMAP2's DSO record ahead of it; 1: drop it. */
int inj_bid_mmap(struct inj_copy *c, const struct pk_record *rec);
/* HEADER_BUILD_ID of the output (files). */
int inj_bid_table(struct inj_copy *c);
void inj_bid_free(struct inj_copy *c);

/* inject_sched.c */
int inj_sched_init(struct inj_copy *c);    /* -EINVAL said */
/* 1 when the sample was sched's (written or not), else 0. */
int inj_sched_sample(struct inj_copy *c, const struct pk_record *rec);
void inj_sched_free(struct inj_copy *c);

#endif
