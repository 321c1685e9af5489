/* SPDX-License-Identifier: MIT */
/* pk-test: check */
/*
 * perf record --kcore's copy (lib/session/kcore_copy.c) read back by the
 * kcore reader (kcore.c): a kcore written here (kernel text, a data
 * segment, the module region, an entry trampoline page remapping text),
 * its copy's segments and bytes, the files beside it, the failures and
 * what they leave.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/base.h"
#include "session/kcore.h"
#include <perfkit/session.h>
#include "test.h"

#define KT 0xffffffff81000000ull
#define KM 0xffffffffc0000000ull
#define TR 0xfffffe0000006000ull
#define TEXT_LEN 0x40000ull
#define MOD_LEN 0x20000ull

static char src[64], dst[64];

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T _stext\n"
	"ffffffff81001800 t kfunc_a\n"
	"ffffffff81002000 D kdata\n"
	"ffffffff81020010 T _etext\n"
	"fffffe0000006080 T __entry_SYSCALL_64_trampoline\n"
	"ffffffffc0004010 t mod_a\t[pkmod]\n"
	"ffffffffc0009000 t mod_b\t[pkmod]\n";

static unsigned char byte_at(uint64_t off)
{
	return (unsigned char)(off * 131 + (off >> 9));
}

static void put(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

static void phdr(unsigned char *p, uint32_t flags, uint64_t off,
		 uint64_t vaddr, uint64_t len)
{
	put(p, 1, 4);
	put(p + 4, flags, 4);
	put(p + 8, off, 8);
	put(p + 16, vaddr, 8);
	put(p + 32, len, 8);
	put(p + 40, len, 8);
	put(p + 48, 4096, 8);
}

/* SRC/kcore: text at 0x1000, data (no PF_X), modules, the trampoline
 * page at text offset 0x3000; every byte byte_at(its offset) */
static int write_kcore(void)
{
	uint64_t size = 0x1000 + TEXT_LEN + 0x10000 + MOD_LEN;
	unsigned char *f = calloc(1, size);
	char p[128];
	int err;

	if (!f)
		return -ENOMEM;
	for (uint64_t i = 0x1000; i < size; i++)
		f[i] = byte_at(i);
	memcpy(f, "\177ELF\2\1\1", 7);
	put(f + 16, 4, 2);		/* ET_CORE */
	put(f + 18, 62, 2);
	put(f + 20, 1, 4);
	put(f + 32, 64, 8);
	put(f + 52, 64, 2);
	put(f + 54, 56, 2);
	put(f + 56, 4, 2);
	phdr(f + 64, 7, 0x1000, KT, TEXT_LEN);
	phdr(f + 120, 6, 0x1000 + TEXT_LEN, 0xffff888000000000ull, 0x10000);
	phdr(f + 176, 7, 0x1000 + TEXT_LEN + 0x10000, KM, MOD_LEN);
	phdr(f + 232, 5, 0x4000, TR, 0x1000);
	snprintf(p, sizeof(p), "%s/kcore", src);
	err = pk__write_new_file(p, f, size, 0600);
	free(f);
	return err;
}

static int write_src(const char *modules)
{
	char p[128];
	int err;

	snprintf(p, sizeof(p), "%s/kallsyms", src);
	unlink(p);
	err = pk__write_new_file(p, kallsyms, strlen(kallsyms), 0600);
	snprintf(p, sizeof(p), "%s/modules", src);
	unlink(p);
	if (!err && modules)
		err = pk__write_new_file(p, modules, strlen(modules), 0600);
	return err;
}

static void clean_dst(void)
{
	static const char *const f[] = { "kcore", "kallsyms", "modules" };
	char p[128];

	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", dst, f[i]);
		unlink(p);
	}
}

static int count_dst(void)
{
	static const char *const f[] = { "kcore", "kallsyms", "modules" };
	char p[128];
	int n = 0;

	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", dst, f[i]);
		n += !access(p, F_OK);
	}
	return n;
}

/* Every byte of the copy's segment S the source's at its address. */
static bool same_bytes(int fd, const struct pk__kseg *s, uint64_t src_off)
{
	unsigned char buf[4096];

	for (uint64_t o = 0; o < s->end - s->start; o += sizeof(buf)) {
		size_t n = (size_t)(s->end - s->start - o < sizeof(buf) ?
				    s->end - s->start - o : sizeof(buf));

		if (pread(fd, buf, n, (off_t)(s->pgoff + o)) != (ssize_t)n)
			return false;
		for (size_t i = 0; i < n; i++)
			if (buf[i] != byte_at(src_off + o + i))
				return false;
	}
	return true;
}

static void test_copy(void)
{
	struct pk__kseg *s = NULL;
	char p[128];
	struct stat st;
	int nr = 0, err, fd;

	err = pk_kcore_copy(src, dst);
	t_check(!err, "kcore_copy", "err=%d", err);
	snprintf(p, sizeof(p), "%s/kcore", dst);
	err = pk__kcore_segments(p, &s, &nr);
	/* by address: the kernel from _stext's page to _etext's next, the
	 * modules from mod_a's page to a page past mod_b's, the trampoline */
	t_check(!err && nr == 3 && s[0].start == TR &&
		s[0].end == TR + 0x1000 && s[1].start == KT + 0x1000 &&
		s[1].end == KT + 0x21000 && s[2].start == KM + 0x4000 &&
		s[2].end == KM + 0xa000, "kcore_copy_segments",
		"err=%d nr=%d %llx-%llx", err, nr,
		nr > 1 ? (unsigned long long)s[1].start : 0ull,
		nr > 1 ? (unsigned long long)s[1].end : 0ull);
	/* the data from the page after the headers, one piece after the
	 * other; the trampoline points into the kernel's copy */
	t_check(nr == 3 && s[1].pgoff == 0x1000 && s[2].pgoff == 0x21000 &&
		s[0].pgoff == 0x1000 + 0x4000 - 0x2000, "kcore_copy_layout",
		"pgoffs %llx %llx %llx",
		nr == 3 ? (unsigned long long)s[0].pgoff : 0ull,
		nr == 3 ? (unsigned long long)s[1].pgoff : 0ull,
		nr == 3 ? (unsigned long long)s[2].pgoff : 0ull);
	fd = open(p, O_RDONLY);
	t_check(fd >= 0 && nr == 3 && same_bytes(fd, &s[1], 0x2000) &&
		same_bytes(fd, &s[0], 0x4000) &&
		same_bytes(fd, &s[2], 0x1000 + TEXT_LEN + 0x10000 + 0x4000),
		"kcore_copy_bytes", "fd=%d", fd);
	if (fd >= 0)
		close(fd);
	t_check(!stat(p, &st) && (st.st_mode & 0777) == 0400 &&
		st.st_size == 0x21000 + 0x6000, "kcore_copy_file",
		"mode %o size %lld", (unsigned)st.st_mode & 0777,
		(long long)st.st_size);
	pk__free(s);
	err = pk_kcore_copy(src, dst);
	t_check(err == -EEXIST && count_dst() == 3, "kcore_copy_exists",
		"err=%d files=%d", err, count_dst());
	clean_dst();
}

static void test_failures(void)
{
	int err;

	write_src(NULL);		/* no modules file */
	err = pk_kcore_copy(src, dst);
	t_check(err == -ENOENT && !count_dst(), "kcore_copy_no_modules",
		"err=%d files=%d", err, count_dst());
	clean_dst();
	write_src("");			/* modules from kallsyms alone */
	err = pk_kcore_copy(src, dst);
	t_check(!err && count_dst() == 3, "kcore_copy_empty_modules",
		"err=%d", err);
	clean_dst();
	{
		char p[128];

		snprintf(p, sizeof(p), "%s/kallsyms", src);
		unlink(p);
		pk__write_new_file(p, "ffffffff81000000 D d\n", 21, 0600);
	}
	err = pk_kcore_copy(src, dst);
	t_check(err == PK_ERR_FORMAT && !count_dst(), "kcore_copy_no_text",
		"err=%d files=%d", err, count_dst());
	clean_dst();
	t_check(pk_kcore_copy(NULL, dst) == -EINVAL, "kcore_copy_null", "%s",
		"");
}

int main(void)
{
	snprintf(src, sizeof(src), "/tmp/pk_kcore_src.XXXXXX");
	snprintf(dst, sizeof(dst), "/tmp/pk_kcore_dst.XXXXXX");
	if (!mkdtemp(src) || !mkdtemp(dst)) {
		t_fail("kcore_copy_setup", "mkdtemp: %s", strerror(errno));
		return t_exit();
	}
	if (write_kcore() ||
	    write_src("pkmod 16384 0 - Live 0xffffffffc0008000\n"))
		t_fail("kcore_copy_setup", "cannot write the source files");
	else {
		test_copy();
		test_failures();
	}
	clean_dst();
	{
		char p[128];

		snprintf(p, sizeof(p), "%s/kcore", src);
		unlink(p);
		write_src(NULL);
		snprintf(p, sizeof(p), "%s/kallsyms", src);
		unlink(p);
	}
	rmdir(src);
	rmdir(dst);
	return t_exit();
}
