/* SPDX-License-Identifier: MIT */
/* The build-id cache in a directory the test makes: adding this test's
 * own binary, a kallsyms file and the vdso, listing, validity, removal,
 * and where perf's config puts the cache. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/bidcache.h>
#include <perfkit/symbol.h>
#include "test.h"

static char top[] = "/tmp/pkbidcXXXXXX";

static unsigned mode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : (unsigned)(st.st_mode & 07777);
}

static void test_file(const char *self, const char *hex)
{
	char dir[256], p[4600], lnk[4600], want[4600];
	struct pk_bidcache_entry *e = NULL;
	ssize_t n;
	int cnt;

	snprintf(dir, sizeof(dir), "%s/cache", top);
	T_CHECK("bidcache_add_file", pk_bidcache_add_file(dir, self, hex, "") == 0);
	T_CHECK("bidcache_add_file_again", pk_bidcache_add_file(dir, self, hex, "") == 0);
	snprintf(p, sizeof(p), "%s%s/%s/elf", dir, self, hex);
	T_CHECK("bidcache_elf_there", access(p, R_OK) == 0);
	snprintf(p, sizeof(p), "%s%s/%s/probes", dir, self, hex);
	T_CHECK("bidcache_probes_0644", mode_of(p) == 0644);
	snprintf(lnk, sizeof(lnk), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	n = readlink(lnk, p, sizeof(p) - 1);
	p[n > 0 ? n : 0] = '\0';
	snprintf(want, sizeof(want), "../..%s/%s", self, hex);
	t_check(!strcmp(p, want), "bidcache_link_target", "'%s' want '%s'", p, want);
	cnt = pk_bidcache_list(dir, &e);
	t_check(cnt == 1 && !strcmp(e[0].hex, hex) && !strcmp(e[0].name, self),
		"bidcache_list", "%d '%s' '%s'", cnt, cnt > 0 ? e[0].hex : "",
		cnt > 0 ? e[0].name : "");
	T_CHECK("bidcache_valid", cnt == 1 && pk_bidcache_valid(&e[0]));
	if (cnt == 1) {
		e[0].hex[0] = e[0].hex[0] == '0' ? '1' : '0';
		T_CHECK("bidcache_invalid_other_id", !pk_bidcache_valid(&e[0]));
	}
	pk_bidcache_entries_free(e, cnt);
	cnt = pk_bidcache_list_path(dir, self, &e);
	T_CHECK("bidcache_list_path", cnt == 1 && !strcmp(e[0].hex, hex));
	pk_bidcache_entries_free(e, cnt);
	T_CHECK("bidcache_remove", pk_bidcache_remove(dir, hex) == 0);
	T_CHECK("bidcache_removed_link", access(lnk, F_OK) < 0);
	snprintf(p, sizeof(p), "%s%s/%s", dir, self, hex);
	T_CHECK("bidcache_removed_dir", access(p, F_OK) < 0);
	T_CHECK("bidcache_remove_twice", pk_bidcache_remove(dir, hex) == -ENOENT);
	T_CHECK("bidcache_list_path_empty", pk_bidcache_list_path(dir, self, &e) == 0);
	pk_bidcache_entries_free(e, 0);
	T_CHECK("bidcache_list_path_none",
		pk_bidcache_list_path(dir, "/no/such", &e) == -ENOENT);
	snprintf(p, sizeof(p), "%s/none", top);
	T_CHECK("bidcache_list_missing_cache", pk_bidcache_list(p, &e) == 0);
}

static void test_kallsyms_vdso(void)
{
	char dir[256], ks[256], p[512];
	const void *img;
	size_t size;
	uint8_t id[PK_BUILD_ID_MAX];
	char hex[PK_BIDCACHE_HEX];
	struct pk_bidcache_entry *e;
	FILE *f;
	int n;

	snprintf(dir, sizeof(dir), "%s/c2", top);
	snprintf(ks, sizeof(ks), "%s/kallsyms", top);
	f = fopen(ks, "w");
	fputs("ffffffff81000000 T _stext\n", f);
	fclose(f);
	T_CHECK("bidcache_add_kallsyms", pk_bidcache_add_kallsyms(dir, "ab12", ks) == 0);
	snprintf(p, sizeof(p), "%s/[kernel.kallsyms]/ab12/kallsyms", dir);
	T_CHECK("bidcache_kallsyms_0755", mode_of(p) == 0755);
	f = fopen(p, "r");
	if (f) {
		char line[64] = "";

		T_CHECK("bidcache_kallsyms_copy",
			fgets(line, sizeof(line), f) && !strcmp(line, "ffffffff81000000 T _stext\n"));
		fclose(f);
	}
	n = pk_bidcache_list(dir, &e);
	T_CHECK("bidcache_list_kallsyms",
		n == 1 && !strcmp(e[0].name, "[kernel.kallsyms]") && !strcmp(e[0].hex, "ab12"));
	pk_bidcache_entries_free(e, n);
	if (pk_vdso_image(&img, &size)) {
		t_skip("bidcache_vdso", "this process has no vdso");
		return;
	}
	n = pk_build_id_from_elf(img, size, id);
	t_check(n > 0 && !memcmp(img, "\177ELF", 4), "bidcache_vdso_build_id", "%d", n);
	if (n <= 0)
		return;
	pk_build_id_hex(id, n, hex);
	T_CHECK("bidcache_add_vdso", pk_bidcache_add_vdso(dir, hex, img, size) == 0);
	snprintf(p, sizeof(p), "%s/[vdso]/%s/vdso", dir, hex);
	T_CHECK("bidcache_vdso_0600", mode_of(p) == 0600);
	T_CHECK("bidcache_vdso_bytes", pk_build_id_read(p, id) == n);
	T_CHECK("bidcache_elf_image_truncated",
		pk_build_id_from_elf(img, 40, id) == PK_ERR_FORMAT);
	T_CHECK("bidcache_elf_image_not_elf",
		pk_build_id_from_elf("hello, world", 12, id) == PK_ERR_FORMAT);
}

static void test_config(void)
{
	char cfg[256], buf[512];
	FILE *f;

	snprintf(cfg, sizeof(cfg), "%s/perfconfig", top);
	f = fopen(cfg, "w");
	fputs("[core]\n\tdir = /wrong\n# dir = /comment\n[buildid]\n"
	      "\tdir = \"/from/config\"\n[report]\ndir = /wrong2\n", f);
	fclose(f);
	setenv("PERF_CONFIG", cfg, 1);
	T_CHECK("bidcache_dir_config", pk_bidcache_dir(buf, sizeof(buf)) == 0 &&
		!strcmp(buf, "/from/config"));
	T_CHECK("bidcache_dir_too_long", pk_bidcache_dir(buf, 4) == -ENAMETOOLONG);
	setenv("PERF_CONFIG", "/nonexistent/perfconfig", 1);
	setenv("HOME", "/some/home", 1);
	T_CHECK("bidcache_dir_home", pk_bidcache_dir(buf, sizeof(buf)) == 0 &&
		!strcmp(buf, "/some/home/.debug"));
	unsetenv("HOME");
	T_CHECK("bidcache_dir_no_home", pk_bidcache_dir(buf, sizeof(buf)) == 0 &&
		!strcmp(buf, ".debug"));
	unsetenv("PERF_CONFIG");
}

int main(void)
{
	char self[4096], hex[PK_BIDCACHE_HEX], cmd[64];
	uint8_t id[PK_BUILD_ID_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int n;

	if (!mkdtemp(top)) {
		t_fail("bidcache_tmpdir", "mkdtemp: %s", strerror(errno));
		return t_exit();
	}
	self[len > 0 ? len : 0] = '\0';
	n = pk_build_id_read(self, id);
	if (n <= 0)
		t_skip("bidcache_file", "this test binary has no build id");
	else
		test_file(self, pk_build_id_hex(id, n, hex));
	test_kallsyms_vdso();
	test_config();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd))
		t_fail("bidcache_cleanup", "%s", cmd);
	return t_exit();
}
