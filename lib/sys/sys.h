/* SPDX-License-Identifier: MIT */
/*
 * Internal: the one place for raw perf kernel calls. Each wrapper maps 1:1
 * to a syscall, ioctl or prctl and returns a non-negative result or -errno
 * (never -1). Nothing here retries, falls back or prints, except that reads
 * restart on EINTR.
 */
#ifndef PK_SYS_SYS_H
#define PK_SYS_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

/* perf_event_open(2): the new fd or -errno. ATTR may be written by the
 * kernel (size on E2BIG). */
int pk__sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			   int group_fd, unsigned long flags);

/* PERF_EVENT_IOC_ENABLE / DISABLE / RESET, with PERF_IOC_FLAG_GROUP when
 * GROUP. */
int pk__sys_ioc_enable(int fd, bool group);
int pk__sys_ioc_disable(int fd, bool group);
int pk__sys_ioc_reset(int fd, bool group);
/* PERF_EVENT_IOC_REFRESH: enable for COUNT more overflows. */
int pk__sys_ioc_refresh(int fd, int count);
/* PERF_EVENT_IOC_PERIOD: new sample period (pointer argument). */
int pk__sys_ioc_period(int fd, uint64_t period);
/* PERF_EVENT_IOC_SET_OUTPUT: redirect samples to TARGET (-1: none). */
int pk__sys_ioc_set_output(int fd, int target);
/* PERF_EVENT_IOC_SET_FILTER: ftrace filter string. */
int pk__sys_ioc_set_filter(int fd, const char *filter);
/* PERF_EVENT_IOC_ID: the event's id. */
int pk__sys_ioc_id(int fd, uint64_t *id);
/* PERF_EVENT_IOC_SET_BPF: attach BPF program PROG_FD. */
int pk__sys_ioc_set_bpf(int fd, int prog_fd);
/* PERF_EVENT_IOC_PAUSE_OUTPUT: pause (true) or resume the ring buffer. */
int pk__sys_ioc_pause_output(int fd, bool pause);
/* PERF_EVENT_IOC_QUERY_BPF: program ids attached to the tracepoint. */
int pk__sys_ioc_query_bpf(int fd, struct perf_event_query_bpf *query);
/* PERF_EVENT_IOC_MODIFY_ATTRIBUTES (breakpoints). */
int pk__sys_ioc_modify_attributes(int fd, struct perf_event_attr *attr);

/* prctl(PR_TASK_PERF_EVENTS_ENABLE / _DISABLE). */
int pk__sys_task_events(bool enable);

/* read(2) restarting on EINTR: bytes read (0 at EOF) or -errno. */
ssize_t pk__sys_read(int fd, void *buf, size_t len);
/* close(2) when FD >= 0. */
void pk__sys_close(int fd);
/* fcntl(F_SETFD, FD_CLOEXEC). */
int pk__sys_set_cloexec(int fd);

/* mmap(2) of LEN bytes of an event fd at offset 0 (PROT_READ, or also
 * PROT_WRITE when WRITABLE), MAP_SHARED. NULL with errno on failure. */
void *pk__sys_mmap_event(int fd, size_t len, bool writable);
void pk__sys_munmap(void *addr, size_t len);
/* bpf(2): BPF_PROG_GET_NEXT_ID (the next loaded program's id after ID;
 * -ENOENT past the last), BPF_PROG_GET_FD_BY_ID and BPF_BTF_GET_FD_BY_ID
 * (a new fd), BPF_OBJ_GET_INFO_BY_FD (fills LEN bytes of INFO, sets LEN
 * to what the kernel wrote). 0 or an fd, else -errno. */
int pk__sys_bpf_prog_next_id(uint32_t id, uint32_t *next);
int pk__sys_bpf_prog_fd(uint32_t id);
int pk__sys_bpf_btf_fd(uint32_t id);
int pk__sys_bpf_obj_info(int fd, void *info, uint32_t *len);

/* The system page size. */
size_t pk__sys_page_size(void);

/*
 * Test hook: when set, pk__sys_perf_event_open calls it instead of the
 * syscall (so tests can play an older kernel). NULL restores the syscall.
 */
typedef int (*pk_sys_open_fn)(struct perf_event_attr *attr, pid_t pid,
			      int cpu, int group_fd, unsigned long flags);
void pk__sys_set_open_hook(pk_sys_open_fn fn);
/* The raw syscall, for hooks that pass calls through. */
int pk__sys_perf_event_open_raw(struct perf_event_attr *attr, pid_t pid,
				int cpu, int group_fd, unsigned long flags);

#endif
