/* Test-only LD_PRELOAD shim for the intel_pt fixture PMU (tests/data/
 * intel_pt, type 10 unless PK_FAKE_PT_TYPE says otherwise): there is no
 * Intel PT here, so perf_event_open of that type is made on a software
 * dummy event instead (same attr otherwise). perf and perfkit then go on
 * past the AUX event and print the attrs of the events they add after it.
 *
 * With PK_FAKE_PT_AUX=FILE.pt it also stands in for the AUX area: a
 * mapping of such an fd past its ring (mmap or mmap64, as perf and
 * perfkit map the area) gets shared anonymous memory, and a thread
 * "produces" the Intel PT bytes of FILE into the first such area, as the
 * kernel's driver would: in pieces ending before a PSB (where a real
 * trace stop leaves aux_head: on a packet boundary) of about
 * PK_FAKE_PT_PIECE bytes (default a quarter of the area), moving aux_head
 * in the real ring's control page (the kernel leaves it alone for a
 * dummy). A full-trace area (mapped writable) is written only where
 * aux_tail allows, so the area wraps as the reader frees it; a snapshot
 * area (read-only) is overwritten round and round with aux_head a
 * position in it, and at the end the shim sends its process SIGUSR2 (the
 * snapshot request). Then it creates PK_FAKE_PT_DONE (the workload waits
 * for it). With PK_FAKE_PT_SNAP_MID=N a snapshot area also gets a
 * SIGUSR2 once the bytes left to produce are N or fewer (the producer
 * waits then), so that the snapshots overlap. poll() waits at most 10 ms while the thread runs (perf polls
 * without timeout; AUX bytes wake nobody here).
 * PERF_EVENT_IOC_SET_FILTER on a faked fd succeeds (the kernel would
 * take an address filter for an intel_pt event, not for the dummy), and
 * with PK_FAKE_PT_FILTER_LOG=FILE its string is appended there, a line
 * each: what the recorder asked of the kernel.
 * An event sampling the AUX area (PERF_SAMPLE_AUX) in a faked event's
 * group is opened without it (its samples then lack the AUX bytes), and
 * the aux_action word (6.13: aux_start_paused, aux_pause, aux_resume;
 * __reserved_3 in older headers) is cleared on faked events and their
 * group's members (the kernel takes it only with an AUX event).
 * With PK_FAKE_PT_PAUSE=N:M the trace between its N-th and M-th PSB
 * (counted from 0; M 0 or past the last: to the end) is never produced,
 * as while an aux-action pause holds the trace back until a resume: the
 * bytes before the N-th PSB are followed by those from the M-th.
 * With PK_FAKE_NO_SWITCH set, every perf_event_open asking for
 * context_switch fails with EINVAL, as on a kernel without it (before
 * 4.3): the recorders then fall back to sched:sched_switch.
 * With PK_FAKE_PT_TSC=MULT:SHIFT[:ZERO] a faked event's ring page gets
 * the time conversion a machine with a stable TSC gives
 * (cap_user_time_zero 1, time_mult, time_shift, time_zero) as it is
 * mapped, before the recorder reads it: perf and perfkit then take the
 * file as TSC-timed (TIME_CONV, AUXTRACE_INFO's fields). Without ZERO,
 * time_zero puts the PK_FAKE_PT_AUX trace's first TSC value 1 s after
 * the ring is mapped (perf's clock), once the workload runs, and the
 * producer creates PK_FAKE_PT_DONE only once perf's clock is 50 ms past
 * the trace's last PSB+'s TSC: the trace's times fall among the side
 * band of a workload that waits for that file.
 * Built by the tests that use it (cc -shared -fPIC -ldl -lpthread). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_FD 4096

long syscall(long nr, ...);
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int munmap(void *addr, size_t len);
int poll(struct pollfd *fds, nfds_t n, int timeout);

static unsigned char fake[MAX_FD];
static struct perf_event_mmap_page *page[MAX_FD];
static void refake_time(void);
static volatile int producing;

static long real_syscall(long nr, long *a)
{
	static long (*real)(long, ...);

	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

#define AUX_ACTION_OFF (offsetof(struct perf_event_attr, aux_sample_size) + 4)

static unsigned aux_action(const struct perf_event_attr *a)
{
	unsigned v;

	memcpy(&v, (const char *)a + AUX_ACTION_OFF, sizeof(v));
	return v;
}

static void clear_aux_action(struct perf_event_attr *a)
{
	memset((char *)a + AUX_ACTION_OFF, 0, 4);
}

long syscall(long nr, ...)
{
	const char *t = getenv("PK_FAKE_PT_TYPE");
	struct perf_event_attr *in, copy;
	va_list ap;
	long a[6], fd;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	in = (void *)a[0];
	if (nr == SYS_perf_event_open && in && in->context_switch &&
	    getenv("PK_FAKE_NO_SWITCH")) {
		errno = EINVAL;	/* a kernel before 4.3 */
		return -1;
	}
	if (nr == SYS_perf_event_open && in && a[3] >= 0 && a[3] < MAX_FD &&
	    fake[a[3]] && ((in->sample_type & PERF_SAMPLE_AUX) ||
			   aux_action(in))) {
		/* AUX area sampling or pause/resume in the faked event's
		 * group: the kernel takes them with an AUX leader only */
		copy = *in;
		copy.sample_type &= ~(uint64_t)PERF_SAMPLE_AUX;
		copy.aux_sample_size = 0;
		clear_aux_action(&copy);
		a[0] = (long)&copy;
		return real_syscall(nr, a);
	}
	if (nr != SYS_perf_event_open || !in ||
	    in->type != (unsigned)(t ? atoi(t) : 10))
		return real_syscall(nr, a);
	copy = *in;
	copy.type = PERF_TYPE_SOFTWARE;
	copy.config = PERF_COUNT_SW_DUMMY;
	copy.aux_watermark = 0;
	clear_aux_action(&copy);
	a[0] = (long)&copy;
	fd = real_syscall(nr, a);
	if (fd >= 0 && fd < MAX_FD)
		fake[fd] = 1;
	return fd;
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	const char *log = getenv("PK_FAKE_PT_FILTER_LOG");
	va_list ap;
	void *arg;
	FILE *f;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT,
							      "ioctl");
	if (req != PERF_EVENT_IOC_SET_FILTER || fd < 0 || fd >= MAX_FD ||
	    !fake[fd]) {
		int r = real(fd, req, arg);

		refake_time();
		return r;
	}
	if (log && arg && (f = fopen(log, "a"))) {
		fprintf(f, "%s\n", (const char *)arg);
		fclose(f);
	}
	return 0;
}

/* ---- the producer ---- */

struct area {
	struct perf_event_mmap_page *pc;
	unsigned char *aux;
	size_t size;
	int snapshot;
	unsigned char *pt;
	size_t len, piece;
};

static int read_file(const char *path, unsigned char **p, size_t *n)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*n = (size_t)st.st_size;
	*p = malloc(*n ? *n : 1);
	if (!*p || read(fd, *p, *n) != (ssize_t)*n) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int is_psb(const unsigned char *p, size_t left);
static int read_file(const char *path, unsigned char **p, size_t *n);

/* The trace's first TSC packet's value (0 without one): ptgen's trace
 * starts PSB, TSC. */
static uint64_t first_tsc(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t at = 0; at + 8 <= n; at++) {
		if (is_psb(p + at, n - at)) {
			at += 15;
			continue;
		}
		if (p[at] != 0x19)
			continue;
		for (int i = 7; i >= 1; i--)
			v = v << 8 | p[at + i];
		return v;
	}
	return 0;
}

/* perf's clock now (the kernel's local_clock, not CLOCK_MONOTONIC
 * here): the time of the COMM record renaming this thread makes on a
 * dummy event; CLOCK_MONOTONIC if that fails */
static uint64_t now_ns(void)
{
	struct perf_event_attr at = {
		.size = sizeof(at), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY, .sample_type = PERF_SAMPLE_TIME,
		.sample_id_all = 1, .comm = 1, .exclude_kernel = 1,
	};
	long a[6] = { (long)&at, 0, -1, -1, 0, 0 };
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pc;
	struct perf_event_header *h;
	char name[16] = "";
	uint64_t t = 0;
	struct timespec ts;
	long fd = real_syscall(SYS_perf_event_open, a);
	void *p;

	if (fd >= 0) {
		p = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) {
			prctl(PR_GET_NAME, name);
			prctl(PR_SET_NAME, name);
			pc = p;
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			h = (void *)((char *)p + psz);
			if (pc->data_head >= h->size && h->type == PERF_RECORD_COMM)
				memcpy(&t, (char *)h + h->size - 8, 8);
			munmap(p, 2 * psz);
		}
		close(fd);
	}
	if (t)
		return t;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static uint64_t tsc_ns(uint64_t tsc, uint64_t mult, uint64_t shift,
		       uint64_t zero)
{
	return zero + (tsc >> shift) * mult +
	       (((tsc & ((1ULL << shift) - 1)) * mult) >> shift);
}

/* PK_FAKE_PT_TSC's values, taken once: 0 without them */
static int time_conv(unsigned long long *mult, unsigned long long *shift,
		     unsigned long long *zero)
{
	static unsigned long long m, sh, z;
	static int state; /* 0: not read, 1: set, -1: none */
	const char *v = getenv("PK_FAKE_PT_TSC"), *aux = getenv("PK_FAKE_PT_AUX");
	unsigned char *pt;
	uint64_t tsc = 0;
	size_t n;
	int k;

	if (!state) {
		k = v ? sscanf(v, "%llu:%llu:%llu", &m, &sh, &z) : 0;
		state = k >= 2 && sh < 32 ? 1 : -1;
		if (state > 0 && k < 3) {
			if (aux && !read_file(aux, &pt, &n)) {
				tsc = first_tsc(pt, n);
				free(pt);
			}
			z = now_ns() + 1000000000 - tsc_ns(tsc, m, sh, 0);
		}
	}
	*mult = m, *shift = sh, *zero = z;
	return state > 0;
}

/* PK_FAKE_PT_TSC: the page's time conversion, as the kernel's
 * arch_perf_update_userpage writes it (under the lock's sequence); the
 * kernel clears the capability bits again when it updates the page (the
 * real clock is not a stable TSC), so the shim writes them again after
 * each ioctl and mapping (the recorders read the page after those). */
static void fake_time(struct perf_event_mmap_page *pc)
{
	unsigned long long mult, shift, zero;

	if (!time_conv(&mult, &shift, &zero) ||
	    (pc->cap_user_time_zero && pc->time_mult == mult))
		return;
	pc->lock++;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	pc->time_mult = (uint32_t)mult;
	pc->time_shift = (uint16_t)shift;
	pc->time_zero = zero;
	pc->cap_user_time = 1;
	pc->cap_user_time_zero = 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	pc->lock++;
}

static void refake_time(void)
{
	for (int fd = 0; fd < MAX_FD; fd++)
		if (page[fd])
			fake_time(page[fd]);
}

static int is_psb(const unsigned char *p, size_t left)
{
	static const unsigned char psb[16] = {
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };

	return left >= 16 && !memcmp(p, psb, 16);
}

/* The end of the piece from FROM: the first PSB at or past FROM + PIECE
 * (not past the area's size), or the stream's end. */
static size_t piece_end(const struct area *a, size_t from)
{
	size_t best = 0;

	for (size_t at = from + 1; at < a->len; at++) {
		if (!is_psb(a->pt + at, a->len - at))
			continue;
		if (at - from > a->size)
			break;
		best = at;
		if (at - from >= a->piece)
			return at;
	}
	if (a->len - from <= a->size)
		return a->len;
	return best ? best : from + a->size;
}

static void put(struct area *a, uint64_t pos, const unsigned char *p,
		size_t n)
{
	size_t off = (size_t)(pos & (a->size - 1)), first = a->size - off;

	if (first > n)
		first = n;
	memcpy(a->aux + off, p, first);
	memcpy(a->aux, p + first, n - first);
}

static void produce(struct area *a)
{
	const char *mid = getenv("PK_FAKE_PT_SNAP_MID");
	size_t left = mid ? strtoul(mid, NULL, 0) : 0;
	uint64_t head = 0;
	size_t from = 0;

	while (from < a->len) {
		size_t to = piece_end(a, from), n = to - from;

		if (!a->snapshot)
			while (head + n - __atomic_load_n(&a->pc->aux_tail,
						__ATOMIC_ACQUIRE) > a->size)
				usleep(1000);
		put(a, head, a->pt + from, n);
		head += n;
		__atomic_store_n(&a->pc->aux_head,
				 a->snapshot ? head % a->size : head,
				 __ATOMIC_RELEASE);
		from = to;
		usleep(2000);
		if (a->snapshot && left && a->len - from <= left) {
			left = 0;
			usleep(200000);
			kill(getpid(), SIGUSR2);
			usleep(300000);
		}
	}
}

/* The TSC of the trace's last PSB+ (ptgen's PSB+ starts PSB, TSC). */
static uint64_t last_psb_tsc(const struct area *a)
{
	uint64_t v = 0;

	for (size_t at = 0; at + 24 <= a->len; at++)
		if (is_psb(a->pt + at, a->len - at) && a->pt[at + 16] == 0x19) {
			v = 0;
			for (int i = 7; i >= 1; i--)
				v = v << 8 | a->pt[at + 16 + i];
		}
	return v;
}

/* PK_FAKE_PT_TSC: the workload lives on past the trace's times (at most
 * 10 s more) */
static void wait_trace_time(const struct area *a)
{
	unsigned long long m, sh, z;
	uint64_t end;

	if (!time_conv(&m, &sh, &z))
		return;
	end = tsc_ns(last_psb_tsc(a), m, sh, z) + 50000000;
	for (int i = 0; i < 1000 && now_ns() < end; i++)
		usleep(10000);
}

static void *producer(void *arg)
{
	struct area *a = arg;
	const char *done = getenv("PK_FAKE_PT_DONE");

	usleep(100000); /* the workload starts */
	produce(a);
	if (a->snapshot) {
		usleep(200000);
		kill(getpid(), SIGUSR2);
		usleep(300000);
	}
	wait_trace_time(a);
	if (done)
		close(open(done, O_WRONLY | O_CREAT, 0644));
	producing = 0;
	return NULL;
}

/* The offset of FILE's K-th PSB, or its length. */
static size_t psb_nth(const struct area *a, unsigned long k)
{
	for (size_t at = 0; at < a->len; at++)
		if (is_psb(a->pt + at, a->len - at) && !k--)
			return at;
	return a->len;
}

/* PK_FAKE_PT_PAUSE=N:M: the N-th to M-th PSB's stretch cut out. */
static void pause_cut(struct area *a)
{
	const char *v = getenv("PK_FAKE_PT_PAUSE");
	unsigned long n, m;
	size_t from, to;

	if (!v || sscanf(v, "%lu:%lu", &n, &m) != 2)
		return;
	from = psb_nth(a, n);
	to = m ? psb_nth(a, m) : a->len;
	if (to <= from)
		return;
	memmove(a->pt + from, a->pt + to, a->len - to);
	a->len -= to - from;
}

static void start(struct perf_event_mmap_page *pc, void *aux, size_t size,
		  int snapshot)
{
	static int started;
	struct area *a;
	const char *piece = getenv("PK_FAKE_PT_PIECE");
	pthread_t t;

	if (started++ || !pc)
		return;
	a = calloc(1, sizeof(*a));
	if (!a || read_file(getenv("PK_FAKE_PT_AUX"), &a->pt, &a->len))
		return;
	pause_cut(a);
	a->pc = pc;
	a->aux = aux;
	a->size = size;
	a->snapshot = snapshot;
	a->piece = piece ? strtoul(piece, NULL, 0) : size / 4;
	producing = 1;
	if (pthread_create(&t, NULL, producer, a))
		producing = 0;
	else
		pthread_detach(t);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	void *p;

	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))
			dlsym(RTLD_NEXT, "mmap");
	if (fd < 0 || fd >= MAX_FD || !fake[fd] || !getenv("PK_FAKE_PT_AUX"))
		return real(addr, len, prot, flags, fd, off);
	if (!off) {
		p = real(addr, len, prot, flags, fd, off);
		if (p != MAP_FAILED)
			page[fd] = p;
		refake_time();
		return p;
	}
	p = real(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	if (p != MAP_FAILED)
		start(page[fd], p, len, !(prot & PROT_WRITE));
	refake_time();
	return p;
}

int munmap(void *addr, size_t len)
{
	static int (*real)(void *, size_t);

	if (!real)
		real = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
	for (int fd = 0; fd < MAX_FD; fd++)
		if (page[fd] == addr)
			page[fd] = NULL;
	return real(addr, len);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	static int (*real)(struct pollfd *, nfds_t, int);

	if (!real)
		real = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT,
								    "poll");
	if (producing && (timeout < 0 || timeout > 10))
		timeout = 10;
	return real(fds, n, timeout);
}
