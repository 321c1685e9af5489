/* SPDX-License-Identifier: MIT */
/*
 * Internal: the one libtraceevent set-up. pk__tf_tep_init() builds a handle
 * from what every source of event formats has (header_page, formats,
 * kallsyms, printk formats, saved cmdlines): perf's tracing data
 * (tracefmt.c), trace.dat files (the report's fallback) and the kernel's
 * own tracefs files (the kernel-text printer).
 *
 * libtraceevent's format parser can crash on a damaged format file:
 * formats from a file (UNTRUSTED) are parsed in a child process first,
 * which reports each index it starts; a format that kills the child is
 * marked bad and left out.
 */
#ifndef PK_TRACEFMT_TEP_H
#define PK_TRACEFMT_TEP_H
#include <stdbool.h>
#include <stddef.h>

struct tep_handle;
struct tep_plugin_list;

struct tf_tep_fmt {
	const char *text;     /* NULL: nothing to parse */
	size_t len;
	const char *system;
};

/* Where the handle's metadata comes from; texts need no terminating NUL. */
struct tf_tep_src {
	const char *who;      /* names the source in messages */
	bool big;
	int long_size;
	unsigned page_size;   /* 0: not set */
	int nr_cpus;          /* 0: not set */
	const char *hdr_page; /* NULL: not parsed */
	size_t hdr_page_len;
	const struct tf_tep_fmt *fmts;
	int nr_fmts;
	bool untrusted;       /* parse the formats in a child first */
	bool plugins;         /* load libtraceevent's plugins */
	const char *kallsyms, *printk, *cmdlines; /* NULL: none */
	size_t kallsyms_len, printk_len, cmdlines_len;
	/* printk formats and cmdlines as perf reads them (perf's tracing
	 * data) rather than as libtraceevent's parsers do (trace.dat) */
	bool perf_lines;
	/* a handle to build on, left to its owner at pk__tf_tep_fini()
	 * (a tf_env's comm table: pk__tf_comm_tep()); NULL: a new one */
	struct tep_handle *into;
};

struct tf_tep {
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	bool *parsed;         /* format index -> given to libtraceevent */
	bool borrowed;        /* tep is SRC's into: not freed here */
	int nr_failed;        /* formats libtraceevent refused */
};

/*
 * Builds T from SRC: the formats not in SKIP (NULL: all) are parsed. 0,
 * -ENOMEM, -errno (no pipe or fork for the guard) or PK_ERR_FORMAT (too
 * many damaged formats). T is half-built on error: pk__tf_tep_fini() it.
 */
int pk__tf_tep_init(struct tf_tep *t, const struct tf_tep_src *src,
		const bool *skip);
/* Parses the formats of SRC not in SKIP and not parsed yet (a damaged
 * one counts as parsed). 0 or an error as pk__tf_tep_init(). */
int pk__tf_tep_parse(struct tf_tep *t, const struct tf_tep_src *src,
		 const bool *skip);
/* Gives SRC's kallsyms, printk and cmdlines texts (those it has) to T,
 * for a caller that delays them to the first payload libtraceevent
 * prints (pk__tf_tep_init() gives them at once). 0 or -ENOMEM. */
int pk__tf_tep_texts(struct tf_tep *t, const struct tf_tep_src *src);
void pk__tf_tep_fini(struct tf_tep *t);
/* Saved cmdlines text (LEN bytes, "PID COMM" lines) given to TEP as
 * libtraceevent's parser reads it. 0 or -ENOMEM. */
int pk__tf_tep_cmdlines(struct tep_handle *tep, const char *text,
			size_t len);

/* The "ID: N" of a format text, or -1. */
long pk__tf_format_id(const char *text, size_t len);
#endif
