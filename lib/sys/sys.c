/* SPDX-License-Identifier: MIT */
/*
 * System calls: perf_event_open (with a hook tests use to see or refuse each
 * open), the perf ioctls and the bpf(2) queries perf record makes.
 */
#include <errno.h>
#include <stdint.h>
#include <linux/bpf.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sys/sys.h"

static pk_sys_open_fn open_hook;

void pk__sys_set_open_hook(pk_sys_open_fn fn)
{
	open_hook = fn;
}

int pk__sys_perf_event_open_raw(struct perf_event_attr *attr, pid_t pid,
				int cpu, int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

int pk__sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			   int group_fd, unsigned long flags)
{
	if (open_hook)
		return open_hook(attr, pid, cpu, group_fd, flags);
	return pk__sys_perf_event_open_raw(attr, pid, cpu, group_fd, flags);
}

static int ioc(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

static int ioc_ptr(int fd, unsigned long req, const void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int pk__sys_ioc_enable(int fd, bool group)
{
	return ioc(fd, PERF_EVENT_IOC_ENABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}

int pk__sys_ioc_disable(int fd, bool group)
{
	return ioc(fd, PERF_EVENT_IOC_DISABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}

int pk__sys_ioc_reset(int fd, bool group)
{
	return ioc(fd, PERF_EVENT_IOC_RESET, group ? PERF_IOC_FLAG_GROUP : 0);
}

int pk__sys_ioc_refresh(int fd, int count)
{
	return ioc(fd, PERF_EVENT_IOC_REFRESH, (unsigned long)count);
}

int pk__sys_ioc_period(int fd, uint64_t period)
{
	return ioc_ptr(fd, PERF_EVENT_IOC_PERIOD, &period);
}

int pk__sys_ioc_set_output(int fd, int target)
{
	return ioc(fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)target);
}

int pk__sys_ioc_set_filter(int fd, const char *filter)
{
	return ioc_ptr(fd, PERF_EVENT_IOC_SET_FILTER, filter);
}

int pk__sys_ioc_id(int fd, uint64_t *id)
{
	return ioc_ptr(fd, PERF_EVENT_IOC_ID, id);
}

int pk__sys_ioc_set_bpf(int fd, int prog_fd)
{
	return ioc(fd, PERF_EVENT_IOC_SET_BPF, (unsigned long)prog_fd);
}

int pk__sys_ioc_pause_output(int fd, bool pause)
{
	return ioc(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0);
}

int pk__sys_ioc_query_bpf(int fd, struct perf_event_query_bpf *query)
{
	return ioc_ptr(fd, PERF_EVENT_IOC_QUERY_BPF, query);
}

int pk__sys_ioc_modify_attributes(int fd, struct perf_event_attr *attr)
{
	return ioc_ptr(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, attr);
}

int pk__sys_task_events(bool enable)
{
	int op = enable ? PR_TASK_PERF_EVENTS_ENABLE
			: PR_TASK_PERF_EVENTS_DISABLE;

	return prctl(op, 0, 0, 0, 0) < 0 ? -errno : 0;
}

ssize_t pk__sys_read(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

void pk__sys_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

int pk__sys_set_cloexec(int fd)
{
	return fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ? -errno : 0;
}

void *pk__sys_mmap_event(int fd, size_t len, bool writable)
{
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

void pk__sys_munmap(void *addr, size_t len)
{
	if (addr)
		munmap(addr, len);
}

size_t pk__sys_page_size(void)
{
	long n = sysconf(_SC_PAGESIZE);

	return n > 0 ? (size_t)n : 4096;
}

static int bpf(int cmd, union bpf_attr *a)
{
	long r = syscall(__NR_bpf, cmd, a, sizeof(*a));

	return r < 0 ? -errno : (int)r;
}

int pk__sys_bpf_prog_next_id(uint32_t id, uint32_t *next)
{
	union bpf_attr a = { .start_id = id };
	int err = bpf(BPF_PROG_GET_NEXT_ID, &a);

	if (!err)
		*next = a.next_id;
	return err;
}

int pk__sys_bpf_prog_fd(uint32_t id)
{
	union bpf_attr a = { .prog_id = id };

	return bpf(BPF_PROG_GET_FD_BY_ID, &a);
}

int pk__sys_bpf_btf_fd(uint32_t id)
{
	union bpf_attr a = { .btf_id = id };

	return bpf(BPF_BTF_GET_FD_BY_ID, &a);
}

int pk__sys_bpf_obj_info(int fd, void *info, uint32_t *len)
{
	union bpf_attr a = { .info = { .bpf_fd = (uint32_t)fd,
				       .info_len = *len,
				       .info = (uint64_t)(uintptr_t)info } };
	int err = bpf(BPF_OBJ_GET_INFO_BY_FD, &a);

	if (!err)
		*len = a.info.info_len;
	return err;
}
