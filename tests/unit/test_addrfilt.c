/* SPDX-License-Identifier: MIT */
/*
 * Address filters' kernel side (pk_addr_filter_resolve) on a kallsyms
 * text the test writes: "*" spans from the first function to a page past
 * the highest one (perf's find_entire_kern_cb), wherever that line is (a
 * BPF program's [bpf] lines come last in kallsyms, not in address order);
 * a symbol's size runs to the next line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/event.h>
#include "test.h"

static const char text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T alpha\n"
	"ffffffff81000300 T beta\n"
	"ffffffff81200000 D some_data\n"
	"ffffffffc0200000 t bpf_prog_1234_high\t[bpf]\n"
	"ffffffffc0002000 t bpf_prog_5678_low\t[bpf]\n";

static char *resolve(const char *path, const char *filter)
{
	char *out = NULL, msg[1024];
	int r = pk_addr_filter_resolve(filter, 4, path, &out, msg, sizeof(msg));

	if (r) {
		free(out);
		return NULL;
	}
	return out;
}

int main(void)
{
	char path[] = "/tmp/pkaddrfilt.XXXXXX";
	int fd = mkstemp(path);
	long ps = sysconf(_SC_PAGESIZE);
	char want[128], *s;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		t_check(0, "addrfilt_setup", "cannot write %s", path);
		return t_exit();
	}
	close(fd);
	s = resolve(path, "filter *");
	snprintf(want, sizeof(want), "filter 0xffffffff81000000/0x%lx",
		 0x3f200000L + ps);
	t_check(s && !strcmp(s, want), "addrfilt_whole_kernel_highest",
		"got '%s', want '%s'", s ? s : "(error)", want);
	free(s);
	s = resolve(path, "filter alpha");
	t_check(s && !strcmp(s, "filter 0xffffffff81000100/0x200"),
		"addrfilt_symbol_to_next", "got '%s'", s ? s : "(error)");
	free(s);
	unlink(path);
	return t_exit();
}
