/* SPDX-License-Identifier: MIT */
/* Build ids: this test's own binary against `readelf -n`, notes the test
 * builds, damaged and non-ELF files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/symbol.h>
#include "test.h"

static void test_self(void)
{
	uint8_t id[PK_BUILD_ID_MAX];
	char hex[2 * PK_BUILD_ID_MAX + 1], cmd[600], want[128] = "";
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *p;
	int len;

	self[n > 0 ? n : 0] = '\0';
	len = pk_build_id_read(self, id);
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null | awk '/Build ID:/ { print $3 }'", self);
	p = popen(cmd, "r");
	if (!p || !fgets(want, sizeof(want), p)) {
		t_skip("buildid_self", "readelf gave no build id");
		if (p)
			pclose(p);
		return;
	}
	pclose(p);
	want[strcspn(want, "\n")] = '\0';
	t_check(len > 0 && !strcmp(pk_build_id_hex(id, len, hex), want),
		"buildid_self_matches_readelf", "got %d '%s' want '%s'", len,
		len > 0 ? hex : "", want);
}

static void test_notes(void)
{
	unsigned char notes[64] = { 0 };
	uint8_t id[PK_BUILD_ID_MAX];
	/* A note of another type first, then the build id (8 bytes). */
	unsigned int h1[3] = { 4, 4, 1 }, h2[3] = { 4, 8, 3 };

	memcpy(notes, h1, 12); memcpy(notes + 12, "GNU", 4); memset(notes + 16, 0xaa, 4);
	memcpy(notes + 20, h2, 12); memcpy(notes + 32, "GNU", 4);
	for (int i = 0; i < 8; i++)
		notes[36 + i] = (unsigned char)(i + 1);
	T_CHECK("buildid_notes_len", pk_build_id_from_notes(notes, 44, id) == 8);
	T_CHECK("buildid_notes_bytes", id[0] == 1 && id[7] == 8);
	T_CHECK("buildid_notes_truncated", pk_build_id_from_notes(notes, 40, id) == PK_ERR_FORMAT);
	T_CHECK("buildid_notes_none", pk_build_id_from_notes(notes, 20, id) == -ENOENT);
}

static void test_bad_files(void)
{
	char path[] = "/tmp/pkbidXXXXXX";
	uint8_t id[PK_BUILD_ID_MAX];
	int fd = mkstemp(path);

	if (write(fd, "\177ELF\2\1\1", 7) != 7)
		t_fail("buildid_write", "write");
	close(fd);
	T_CHECK("buildid_truncated_elf", pk_build_id_read(path, id) == PK_ERR_FORMAT);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (write(fd, "hello, world, not an elf file", 29) != 29)
		t_fail("buildid_write", "write");
	close(fd);
	T_CHECK("buildid_not_elf", pk_build_id_read(path, id) == PK_ERR_FORMAT);
	unlink(path);
	T_CHECK("buildid_missing", pk_build_id_read("/nonexistent/x", id) == -ENOENT);
}

int main(void)
{
	uint8_t id[PK_BUILD_ID_MAX];
	int n;

	test_self();
	test_notes();
	test_bad_files();
	n = pk_build_id_kernel(id);
	if (n == -ENOENT || n == -EACCES)
		t_skip("buildid_kernel", "/sys/kernel/notes has no build id here");
	else
		t_check(n > 0, "buildid_kernel", "err %d", n);
	return t_exit();
}
