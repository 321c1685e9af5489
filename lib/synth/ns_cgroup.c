/* SPDX-License-Identifier: MIT */
/* Side-band records for namespaces of processes and existing cgroups. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/base.h"
#include <perfkit/synth.h>

static size_t id_hdr(const struct pk_synth_opts *o)
{
	return o ? o->id_hdr_size : 0;
}

int pk_synth_namespaces(pid_t pid, pk_synth_fn fn, void *arg,
			const struct pk_synth_opts *o)
{
	static const char *const ns[NR_NAMESPACES] = {
		[NET_NS_INDEX] = "net", [UTS_NS_INDEX] = "uts",
		[IPC_NS_INDEX] = "ipc", [PID_NS_INDEX] = "pid",
		[USER_NS_INDEX] = "user", [MNT_NS_INDEX] = "mnt",
		[CGROUP_NS_INDEX] = "cgroup",
	};
	union {
		struct perf_event_header h;
		unsigned char b[64 + 16 * NR_NAMESPACES + 256];
	} u;
	uint32_t *ids = (uint32_t *)(u.b + 8);
	uint64_t *nr = (uint64_t *)(u.b + 16);
	struct perf_ns_link_info *links = (struct perf_ns_link_info *)(u.b + 24);
	const char *proc = o && o->proc ? o->proc : "/proc";
	size_t size = 24 + sizeof(*links) * NR_NAMESPACES;

	if (!PK_OPTS_VALID(o, pk_synth_opts) || id_hdr(o) > 256)
		return -EINVAL;
	memset(&u, 0, sizeof(u));
	ids[0] = ids[1] = (uint32_t)pid;
	*nr = NR_NAMESPACES;
	for (int i = 0; i < NR_NAMESPACES; i++) {
		char path[256];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%d/ns/%s", proc, pid, ns[i]);
		if (!stat(path, &st)) {
			links[i].dev = st.st_dev;
			links[i].ino = st.st_ino;
		} else if (errno == ENOENT && i == NET_NS_INDEX) {
			return -ESRCH;
		}
	}
	u.h.type = PERF_RECORD_NAMESPACES;
	u.h.size = (uint16_t)(size + id_hdr(o));
	return fn(&u.h, arg);
}

/* The 64-bit id the kernel gives cgroup DIR (its file handle). */
static int cgroup_id(const char *dir, uint64_t *id)
{
	union {
		struct file_handle fh;
		unsigned char b[sizeof(struct file_handle) + 16];
	} h;
	int mount_id;

	h.fh.handle_bytes = sizeof(*id);
	if (name_to_handle_at(AT_FDCWD, dir, &h.fh, &mount_id, 0))
		return -errno;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

static int emit_cgroup(const char *root, const char *rel, pk_synth_fn fn,
		       void *arg, size_t id_hdr_size)
{
	union {
		struct perf_event_header h;
		unsigned char b[4096 + 512];
	} u;
	char dir[4096];
	size_t n = strlen(rel) + 1, size;
	uint64_t id = 0;

	if (n > 4000)
		return 0;
	snprintf(dir, sizeof(dir), "%s%s", root, rel);
	if (cgroup_id(dir, &id))
		return 0;
	size = (16 + n + 7) & ~(size_t)7;
	memset(&u, 0, size + id_hdr_size);
	u.h.type = PERF_RECORD_CGROUP;
	u.h.size = (uint16_t)(size + id_hdr_size);
	memcpy(u.b + 8, &id, 8);
	memcpy(u.b + 16, rel, n);
	return fn(&u.h, arg);
}

static int walk_cgroups(const char *root, char *rel, size_t cap, pk_synth_fn fn,
			void *arg, size_t id_hdr_size, int depth)
{
	char dir[4096];
	struct dirent *d;
	DIR *dp;
	size_t len = strlen(rel);
	int err = emit_cgroup(root, rel, fn, arg, id_hdr_size);

	if (err || depth > 32)
		return err;
	snprintf(dir, sizeof(dir), "%s%s", root, rel);
	dp = opendir(dir);
	if (!dp)
		return 0;
	while (!err && (d = readdir(dp))) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		if (len + strlen(d->d_name) + 2 >= cap)
			continue;
		snprintf(rel + len, cap - len, "%s%s", len > 1 ? "/" : "", d->d_name);
		err = walk_cgroups(root, rel, cap, fn, arg, id_hdr_size, depth + 1);
		rel[len] = '\0';
	}
	closedir(dp);
	return err;
}

int pk_synth_cgroups(pk_synth_fn fn, void *arg, const struct pk_synth_opts *o)
{
	char root[4096] = "", rel[4096] = "/", line[4352], mnt[4096], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!PK_OPTS_VALID(o, pk_synth_opts) || id_hdr(o) > 256) {
		if (f)
			fclose(f);
		return -EINVAL;
	}
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s %63s", mnt, type) == 2 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(root, sizeof(root), "%s", mnt);
			break;
		}
	if (f)
		fclose(f);
	if (!root[0])
		return 0; /* no cgroup2: nothing to say */
	return walk_cgroups(root, rel, sizeof(rel), fn, arg, id_hdr(o), 0);
}
