/* SPDX-License-Identifier: MIT */
/*
 * For unit tests that build trace.dat files with the writer and the
 * ring-buffer page encoder (ftrace_comms, ftrace_files): the sched
 * events' formats and records as this kernel writes them, and perfkit's
 * report of a file as a string.
 */
#ifndef PK_TEST_FTFMT_H
#define PK_TEST_FTFMT_H
#include <stddef.h>
#include <stdint.h>
#include <perfkit/ftrace.h>

/* The report of PATH into a malloc'ed string (*LEN bytes): trace-cmd's
 * layout with O (NULL: defaults), or the kernel's text with KO when it
 * is given. NULL when the file cannot be opened. */
char *t_td_report(const char *path, const struct pk_report_opts *o,
		  const struct pk_ktext_opts *ko, size_t *len);

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char fmt_switch[] =
	"name: sched_switch\nID: 372\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s "
	"==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, "
	"REC->prev_pid, REC->prev_prio, REC->prev_state ? "
	"__print_flags(REC->prev_state, \"|\", { 0x01, \"S\" }, "
	"{ 0x02, \"D\" }) : \"R\", REC->next_comm, REC->next_pid, "
	"REC->next_prio\n";
static const char fmt_wakeup[] =
	"name: sched_wakeup\nID: 316\nformat:\n" COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, "
	"REC->pid, REC->prio, REC->target_cpu\n";

struct sw {
	uint16_t type;
	uint8_t flags, pc;
	int32_t pid;
	char prev_comm[16];
	int32_t prev_pid, prev_prio;
	int64_t prev_state;
	char next_comm[16];
	int32_t next_pid, next_prio;
};
struct wk {
	uint16_t type;
	uint8_t flags, pc;
	int32_t pid;
	char comm[16];
	int32_t wpid, prio, target_cpu;
};

#endif
