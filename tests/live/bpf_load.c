/* SPDX-License-Identifier: MIT */
/*
 * bpf_load [-b] [-s] [-n NAME] [-t SECONDS]: loads one socket-filter
 * program by bpf(2) (r0 = 0; exit), prints its id, and keeps it loaded
 * until a signal ends it (SIGTERM, or SIGKILL when its parent dies:
 * PR_SET_PDEATHSIG) or SECONDS pass (exit 0; default 120): the program
 * lives as long as its fd, pinned nowhere, so no exit path leaves it
 * loaded.
 *   -s  a second function, called by the first (two sub-programs)
 *   -b  BTF with func and line info (the functions pk_main, pk_sub)
 *   -n  the program's name (default none)
 * For the layout tests (record_layout.sh): what perf and perfkit write
 * for programs loaded while they record.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void done(int sig)
{
	(void)sig;
	_exit(0);
}

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

#define INSN(c, d, s, o, i) ((struct bpf_insn){ (c), (d), (s), (o), (i) })

static const char strs[] = "\0int\0pk_main\0pk_sub\0pk.c\0r0 = 0;";

/* int; int (void); pk_main; pk_sub */
static size_t make_btf(uint8_t *b)
{
	uint32_t types[] = {
		1, BTF_KIND_INT << 24, 4, BTF_INT_SIGNED << 24 | 32,
		0, BTF_KIND_FUNC_PROTO << 24, 1,
		5, BTF_KIND_FUNC << 24, 2,
		13, BTF_KIND_FUNC << 24, 2,
	};
	struct btf_header h = { .magic = BTF_MAGIC, .version = BTF_VERSION,
				.hdr_len = sizeof(h), .type_off = 0,
				.type_len = sizeof(types),
				.str_off = sizeof(types),
				.str_len = sizeof(strs) };

	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), types, sizeof(types));
	memcpy(b + sizeof(h) + sizeof(types), strs, sizeof(strs));
	return sizeof(h) + sizeof(types) + sizeof(strs);
}

static int load_btf(void)
{
	static uint8_t b[512];
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.btf = (uintptr_t)b;
	a.btf_size = (uint32_t)make_btf(b);
	return (int)sys_bpf(BPF_BTF_LOAD, &a);
}

int main(int argc, char **argv)
{
	struct bpf_insn one[] = { INSN(0xb7, 0, 0, 0, 0), INSN(0x95, 0, 0, 0, 0) };
	struct bpf_insn two[] = { INSN(0x85, 0, BPF_PSEUDO_CALL, 0, 1),
				  INSN(0x95, 0, 0, 0, 0),
				  INSN(0xb7, 0, 0, 0, 0), INSN(0x95, 0, 0, 0, 0) };
	struct bpf_func_info fi[2] = { { 0, 3 }, { 2, 4 } };
	struct bpf_line_info li[2] = { { 0, 20, 25, 1 << 10 | 1 },
				       { 2, 20, 25, 2 << 10 | 1 } };
	int opt, btf = 0, sub = 0, secs = 120, fd, bfd = -1;
	const char *name = NULL;
	union bpf_attr a;
	struct bpf_prog_info info;
	char log[4096] = "";

	while ((opt = getopt(argc, argv, "bsn:t:")) != -1)
		switch (opt) {
		case 'b': btf = 1; break;
		case 's': sub = 1; break;
		case 'n': name = optarg; break;
		case 't': secs = atoi(optarg); break;
		default: return 2;
		}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		return 1;
	signal(SIGALRM, done);	/* its time up: a success */
	alarm((unsigned)secs);
	if (btf && (bfd = load_btf()) < 0) {
		fprintf(stderr, "bpf_load: BTF_LOAD: %s\n", strerror(errno));
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uintptr_t)(sub ? two : one);
	a.insn_cnt = sub ? 4 : 2;
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	if (name)
		strncpy(a.prog_name, name, sizeof(a.prog_name) - 1);
	if (btf) {
		a.prog_btf_fd = (uint32_t)bfd;
		a.func_info = (uintptr_t)fi;
		a.func_info_rec_size = sizeof(fi[0]);
		a.func_info_cnt = sub ? 2 : 1;
		a.line_info = (uintptr_t)li;
		a.line_info_rec_size = sizeof(li[0]);
		a.line_info_cnt = sub ? 2 : 1;
	}
	fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		fprintf(stderr, "bpf_load: PROG_LOAD: %s\n%s", strerror(errno), log);
		return 1;
	}
	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) < 0)
		return 1;
	printf("%u\n", info.id);
	fflush(stdout);
	for (;;)
		pause();
}
