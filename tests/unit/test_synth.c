/* SPDX-License-Identifier: MIT */
/* Side-band synthesis: from a procfs tree the test builds, and live. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/synth.h>
#include "test.h"

struct seen {
	int comm, fork, mmap2, mmap, bad;
	int fork_misc_bad;      /* FORK without perf's FORK_EXEC flag */
	int comm_before_fork;   /* a COMM whose thread's FORK came later */
	uint32_t commed[16];    /* tids given a COMM, in order */
	char comms[8][32];
	char files[16][128];
	uint32_t prots[16];
	uint64_t starts[16];
};

static int collect(const struct perf_event_header *h, void *arg)
{
	struct seen *s = arg;
	const uint32_t *u = (const uint32_t *)(h + 1);

	if (h->size % 8)
		s->bad++;
	switch (h->type) {
	case PERF_RECORD_COMM:
		if (s->comm < 16)
			s->commed[s->comm] = u[1];
		if (s->comm < 8)
			snprintf(s->comms[s->comm], 32, "%u/%u:%s", u[0], u[1],
				 (const char *)(u + 2));
		s->comm++;
		break;
	case PERF_RECORD_FORK:
		for (int i = 0; i < s->comm && i < 16; i++)
			s->comm_before_fork += s->commed[i] == u[2];
		s->fork_misc_bad += h->misc != PERF_RECORD_MISC_FORK_EXEC;
		s->fork++;
		break;
	case PERF_RECORD_MMAP2:
		if (s->mmap2 < 16) {
			snprintf(s->files[s->mmap2], 128, "%s",
				 (const char *)h + 72);
			s->prots[s->mmap2] = *(const uint32_t *)((const char *)h + 64);
			s->starts[s->mmap2] = *(const uint64_t *)((const char *)h + 16);
		}
		s->mmap2++;
		break;
	case PERF_RECORD_MMAP:
		s->mmap++;
		break;
	}
	return 0;
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

/* A thread list as perf synthesizes it (-p, -t, a command): COMMs, no
 * FORK, the leader's maps; a thread whose leader is not listed brings the
 * leader in after it. */
static void test_fake_threads(const char *root, struct pk_synth_opts *o)
{
	char d[600];
	struct seen s = { 0 };
	pid_t helper = 4243, both[2] = { 4242, 4243 }, gone = 4999;
	int err;

	o->data_mmaps = false;
	snprintf(d, sizeof(d), "%s/4243", root); mkdir(d, 0755);
	put(d, "status", "Name:\thelper\nTgid:\t4242\nPPid:\t17\n");
	snprintf(d, sizeof(d), "%s/4242", root);
	put(d, "status", "Name:\tworker-main\nTgid:\t4242\nPPid:\t17\n");
	err = pk_synth_threads(1, &helper, collect, &s, o);
	t_check(err == 0 && s.comm == 2 && s.fork == 0 && s.mmap2 == 3 &&
		!strcmp(s.comms[0], "4242/4243:helper") &&
		!strcmp(s.comms[1], "4242/4242:worker-main"),
		"synth_threads_leader_after", "err %d comm %d fork %d mmap2 %d: %s | %s",
		err, s.comm, s.fork, s.mmap2, s.comms[0], s.comms[1]);
	memset(&s, 0, sizeof(s));
	err = pk_synth_threads(2, both, collect, &s, o);
	t_check(err == 0 && s.comm == 2 && s.mmap2 == 3 &&
		!strcmp(s.comms[0], "4242/4242:worker-main"),
		"synth_threads_listed_leader", "err %d comm %d mmap2 %d: %s",
		err, s.comm, s.mmap2, s.comms[0]);
	memset(&s, 0, sizeof(s));
	o->no_maps = true;
	err = pk_synth_threads(1, both, collect, &s, o);
	t_check(err == 0 && s.comm == 1 && s.mmap2 == 0, "synth_threads_no_maps",
		"err %d comm %d mmap2 %d", err, s.comm, s.mmap2);
	o->no_maps = false;
	memset(&s, 0, sizeof(s));
	err = pk_synth_threads(1, &gone, collect, &s, o);
	t_check(err == 0 && s.comm == 0, "synth_threads_gone_skipped",
		"err %d comm %d", err, s.comm);
	T_CHECK("synth_threads_einval", pk_synth_threads(-1, NULL, collect, &s, o) == -EINVAL);
}

static void test_fake_proc(void)
{
	char root[] = "/tmp/pksynthXXXXXX", d[600];
	struct seen s = { 0 };
	PK_OPTS(pk_synth_opts, o, .proc = root, .id_hdr_size = 16);
	int err;

	if (!mkdtemp(root)) {
		t_fail("synth_fake_proc", "mkdtemp");
		return;
	}
	snprintf(d, sizeof(d), "%s/4242", root); mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/4242/task", root); mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/4242/task/4242", root); mkdir(d, 0755);
	put(d, "status", "Name:\tworker-main\nState:\tS\nPPid:\t17\n");
	snprintf(d, sizeof(d), "%s/4242/task/4243", root); mkdir(d, 0755);
	put(d, "status", "Name:\thelper\nPPid:\t17\n");
	snprintf(d, sizeof(d), "%s/4242", root);
	put(d, "maps",
	    "55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 /usr/bin/w\n"
	    "55d0c0001000-55d0c0005000 r-xp 00001000 08:01 1234 /usr/bin/w\n"
	    "7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n"
	    "7f0000200000-7f0000300000 rwxp 00000000 00:00 0 \n"
	    "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]\n"
	    "garbage line\n");
	err = pk_synth_process(4242, collect, &s, &o);
	t_check(err == 0, "synth_fake_ok", "err %d", err);
	t_check(s.comm == 2 && s.fork == 2, "synth_fake_threads", "comm %d fork %d", s.comm, s.fork);
	t_check(!s.comm_before_fork && !s.fork_misc_bad, "synth_fake_fork_first",
		"%d COMMs before their FORK, %d FORKs without FORK_EXEC",
		s.comm_before_fork, s.fork_misc_bad);
	t_check(!strcmp(s.comms[0], "4242/4242:worker-main") ||
		!strcmp(s.comms[1], "4242/4242:worker-main"),
		"synth_fake_comm", "%s | %s", s.comms[0], s.comms[1]);
	t_check(s.mmap2 == 3, "synth_fake_exec_maps", "%d MMAP2", s.mmap2);
	t_check(!strcmp(s.files[0], "/usr/bin/w") && s.starts[0] == 0x55d0c0001000ull &&
		s.prots[0] == (PROT_READ | PROT_EXEC), "synth_fake_map_fields",
		"%s %llx %u", s.files[0], (unsigned long long)s.starts[0], s.prots[0]);
	t_check(!strcmp(s.files[1], "//anon") && !strcmp(s.files[2], "[vdso]"),
		"synth_fake_anon_vdso", "%s %s", s.files[1], s.files[2]);
	T_CHECK("synth_fake_aligned", s.bad == 0);
	memset(&s, 0, sizeof(s));
	o.data_mmaps = true;
	pk_synth_process(4242, collect, &s, &o);
	t_check(s.mmap2 == 5, "synth_fake_data_maps", "%d MMAP2", s.mmap2);
	T_CHECK("synth_fake_gone", pk_synth_process(4243, collect, &s, &o) == -ESRCH);
	test_fake_threads(root, &o);
	snprintf(d, sizeof(d), "rm -rf %s", root);
	if (system(d))
		t_fail("synth_cleanup", "rm");
}

static void test_live(void)
{
	struct seen s = { 0 };
	int found_self = 0;

	T_CHECK("synth_live_self", pk_synth_process(getpid(), collect, &s, NULL) == 0);
	for (int i = 0; i < s.mmap2 && i < 16; i++)
		if (strstr(s.files[i], "test_synth"))
			found_self = 1;
	t_check(found_self, "synth_live_own_binary", "%d maps, first %s", s.mmap2, s.files[0]);
	memset(&s, 0, sizeof(s));
	T_CHECK("synth_live_all", pk_synth_all_processes(collect, &s, NULL) == 0);
	t_check(s.comm >= 2 && s.fork == s.comm, "synth_live_all_threads", "comm %d fork %d", s.comm, s.fork);
	t_check(!s.comm_before_fork && !s.fork_misc_bad, "synth_live_fork_first",
		"%d COMMs before their FORK", s.comm_before_fork);
	memset(&s, 0, sizeof(s));
	T_CHECK("synth_kernel", pk_synth_kernel(collect, &s, NULL) == 0 && s.mmap >= 1);
}

int main(void)
{
	test_fake_proc();
	test_live();
	return t_exit();
}
