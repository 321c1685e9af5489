/* SPDX-License-Identifier: MIT */
/*
 * Self-monitoring: the mmap-page read as a pure function over pages this
 * test writes (rdpmc branch, sign extension, time extrapolation, seqlock
 * retries) with injected rdpmc/rdtsc, then the live API with software
 * events and a tracepoint (read(2) fallback on this machine).
 */
#include <perfkit/selfmon.h>
#include "selfmon/mmap_read.h"
#include "counter_util.h"

/* The fake machine: counter values by index, a timestamp counter, and an
 * optional "kernel" that updates the page while the reader is inside. */
struct fake {
	uint64_t pmc[8];
	uint64_t tsc;
	int rdpmc_calls, rdtsc_calls;
	int last_counter;
	struct perf_event_mmap_page *page;
	int updates_left;		/* bump the page this many times */
	struct pk_mmap_page_vals next;
};

static uint64_t fake_rdpmc(uint32_t counter, void *ctx)
{
	struct fake *f = ctx;

	f->rdpmc_calls++;
	f->last_counter = (int)counter;
	if (f->updates_left > 0) {
		f->updates_left--;
		pk__mmap_page_write(f->page, &f->next);
	}
	return counter < 8 ? f->pmc[counter] : 0;
}

static uint64_t fake_rdtsc(void *ctx)
{
	struct fake *f = ctx;

	f->rdtsc_calls++;
	return f->tsc;
}

static struct perf_event_mmap_page page;

static int read_page(struct fake *f, struct pk_counts *c)
{
	struct pk_mmap_hw hw = { fake_rdpmc, fake_rdtsc, f };

	f->page = &page;
	return pk__mmap_page_read(&page, &hw, c);
}

static void test_rdpmc_branch(void)
{
	struct pk_mmap_page_vals v = { .index = 3, .offset = 1000,
		.cap_user_rdpmc = true, .pmc_width = 48,
		.time_enabled = 50, .time_running = 50 };
	struct fake f = { .pmc = { [2] = 500 } };
	struct pk_counts c;
	uint32_t lock0 = page.lock;
	int r;

	pk__mmap_page_write(&page, &v);
	T_CHECK("page_write_lock_even", page.lock == lock0 + 2 &&
		page.cap_user_rdpmc && page.cap_bit0_is_deprecated);
	r = read_page(&f, &c);
	t_check(r == 0 && c.val == 1500 && f.last_counter == 2, "rdpmc_index_minus_1",
		"r %d val %llu counter %d", r, (unsigned long long)c.val,
		f.last_counter);
	T_CHECK("rdpmc_times_unscaled", c.ena == 50 && c.run == 50 &&
		f.rdtsc_calls == 0);
	/* A 48-bit counter that wrapped below zero: -16. */
	f.pmc[2] = 0xfffffffffff0ull;
	r = read_page(&f, &c);
	t_check(r == 0 && c.val == 984, "rdpmc_sign_extend_negative",
		"val %lld", (long long)c.val);
	/* Bits above pmc_width are ignored. */
	f.pmc[2] = 0xdead000000000005ull;
	read_page(&f, &c);
	t_check(c.val == 1005, "rdpmc_width_masks_high", "val %llu",
		(unsigned long long)c.val);
	/* A negative offset (the kernel's count minus the counter's start). */
	v.offset = -300;
	v.pmc_width = 64;
	pk__mmap_page_write(&page, &v);
	f.pmc[2] = 1000;
	read_page(&f, &c);
	T_CHECK("rdpmc_negative_offset", c.val == 700);
}

static void test_sign_extend(void)
{
	T_CHECK("sext_positive", pk__pmc_sign_extend(0x7fffffffffffull, 48) ==
		0x7fffffffffffll);
	T_CHECK("sext_negative", pk__pmc_sign_extend(0x800000000000ull, 48) ==
		-0x800000000000ll);
	T_CHECK("sext_minus_one_40", pk__pmc_sign_extend(0xffffffffffull, 40) == -1);
	T_CHECK("sext_width_64", pk__pmc_sign_extend(~0ull, 64) == -1);
	T_CHECK("sext_width_0_raw", pk__pmc_sign_extend(5, 0) == 5);
	T_CHECK("sext_width_1", pk__pmc_sign_extend(1, 1) == -1 &&
		pk__pmc_sign_extend(2, 1) == 0);
}

static void test_no_rdpmc(void)
{
	struct pk_mmap_page_vals v = { .index = 0, .offset = 77,
		.cap_user_rdpmc = true, .time_enabled = 9, .time_running = 9 };
	struct fake f = { .pmc = { 1, 1, 1 } };
	struct pk_counts c;
	struct pk_mmap_hw none = { NULL, NULL, NULL };

	pk__mmap_page_write(&page, &v);
	T_CHECK("index0_unsupp", read_page(&f, &c) == PK_ERR_UNSUPP &&
		f.rdpmc_calls == 0 && c.ena == 9);
	v.index = 2;
	v.cap_user_rdpmc = false;
	pk__mmap_page_write(&page, &v);
	T_CHECK("no_cap_unsupp", read_page(&f, &c) == PK_ERR_UNSUPP &&
		f.rdpmc_calls == 0);
	v.cap_user_rdpmc = true;
	pk__mmap_page_write(&page, &v);
	T_CHECK("no_instruction_unsupp",
		pk__mmap_page_read(&page, &none, &c) == PK_ERR_UNSUPP);
}

/* Reference: delta = offset + cyc * mult / 2^shift, in 128 bits. */
static uint64_t ref_delta(uint64_t cyc, unsigned shift, uint32_t mult,
			  uint64_t off)
{
	return off + (uint64_t)(((unsigned __int128)cyc * mult) >> shift);
}

static void test_time(void)
{
	struct pk_mmap_page_vals v = { .index = 1, .offset = 0,
		.cap_user_rdpmc = true, .cap_user_time = true, .pmc_width = 48,
		.time_enabled = 1000000, .time_running = 400000,
		.time_shift = 31, .time_mult = 1431655765u,
		.time_offset = (uint64_t)-123456789 };
	struct fake f = { .pmc = { 10 }, .tsc = 987654321012345ull };
	struct pk_counts c;
	uint64_t d = ref_delta(f.tsc, 31, 1431655765u, (uint64_t)-123456789);

	pk__mmap_page_write(&page, &v);
	read_page(&f, &c);
	t_check(f.rdtsc_calls == 1 && c.ena == 1000000 + d &&
		c.run == 400000 + d, "time_extrapolated",
		"ena %llu run %llu, delta %llu", (unsigned long long)c.ena,
		(unsigned long long)c.run, (unsigned long long)d);
	T_CHECK("cyc_to_delta_formula",
		pk__cyc_to_delta(f.tsc, 31, 1431655765u, 5) ==
		ref_delta(f.tsc, 31, 1431655765u, 5));
	T_CHECK("cyc_to_delta_shift0",
		pk__cyc_to_delta(1000, 0, 3, 1) == 3001);
	T_CHECK("cyc_to_delta_max",
		pk__cyc_to_delta(~0ull, 32, 0xffffffffu, 0) ==
		ref_delta(~0ull, 32, 0xffffffffu, 0));
	/* Without a hardware counter only time_enabled moves. */
	v.index = 0;
	pk__mmap_page_write(&page, &v);
	read_page(&f, &c);
	T_CHECK("time_index0_run_fixed", c.ena == 1000000 + d &&
		c.run == 400000);
	/* Not multiplexed: no timestamp read. */
	v.time_running = v.time_enabled;
	pk__mmap_page_write(&page, &v);
	f.rdtsc_calls = 0;
	read_page(&f, &c);
	T_CHECK("time_equal_no_rdtsc", f.rdtsc_calls == 0 &&
		c.ena == 1000000 && c.run == 1000000);
	/* No cap_user_time: no timestamp read either. */
	v.time_running = 1;
	v.cap_user_time = false;
	pk__mmap_page_write(&page, &v);
	read_page(&f, &c);
	T_CHECK("time_no_cap", f.rdtsc_calls == 0 && c.ena == 1000000);
}

static void test_seqlock(void)
{
	struct pk_mmap_page_vals v = { .index = 1, .offset = 100,
		.cap_user_rdpmc = true, .pmc_width = 48 };
	struct fake f = { .pmc = { 5 } };
	struct pk_counts c;
	int r;

	pk__mmap_page_write(&page, &v);
	/* The "kernel" updates the page once while the reader is inside. */
	f.next = v;
	f.next.offset = 2000;
	f.updates_left = 1;
	r = read_page(&f, &c);
	t_check(r == 0 && c.val == 2005 && f.rdpmc_calls == 2,
		"seqlock_retries_after_update", "r %d val %llu passes %d", r,
		(unsigned long long)c.val, f.rdpmc_calls);
	/* A page that never settles gives up. */
	f.updates_left = 1 << 30;
	f.rdpmc_calls = 0;
	r = read_page(&f, &c);
	t_check(r == -EAGAIN && f.rdpmc_calls == PK_MMAP_READ_TRIES,
		"seqlock_gives_up", "r %d passes %d", r, f.rdpmc_calls);
}

static void test_live(void)
{
	int id = tp_id("syscalls", "sys_enter_getppid");
	struct perf_event_attr a[3] = { sw_attr(PERF_COUNT_SW_TASK_CLOCK),
		sw_attr(PERF_COUNT_SW_CONTEXT_SWITCHES), tp_attr(id) };
	struct pk_counts d[3], r1[3], raw;
	struct pk_selfmon *m;
	int n = id >= 0 ? 3 : 2, err;
	unsigned char buf[64];
	ssize_t len;

	m = pk_selfmon_new(a, n);
	if (!m) {
		t_fail("selfmon_new", "%s", strerror(errno));
		return;
	}
	T_CHECK("selfmon_nr", pk_selfmon_nr(m) == n);
	T_CHECK("selfmon_path_none", pk_selfmon_path(m, 0) == PK_SELFMON_NONE);
	T_CHECK("selfmon_begin", pk_selfmon_begin(m) == 0);
	call_getppid(1000);
	for (int i = 0; i < 5; i++)
		usleep(1000);
	err = pk_selfmon_end(m, d);
	T_CHECK("selfmon_end", err == 0);
	t_check(d[0].val > 0 && d[0].ena > 0, "selfmon_task_clock",
		"task-clock %llu", (unsigned long long)d[0].val);
	t_check(d[1].val >= 5, "selfmon_context_switches", "cs %llu",
		(unsigned long long)d[1].val);
	if (n == 3)
		t_check(d[2].val == 1000, "selfmon_getppid_exact", "%llu",
			(unsigned long long)d[2].val);
	else
		t_skip("selfmon_getppid_exact", "no tracepoint");
	/* Software events and tracepoints have no hardware counter. */
	err = 0;
	for (int i = 0; i < n; i++)
		err += pk_selfmon_path(m, i) != PK_SELFMON_READ;
	T_CHECK("selfmon_path_read", err == 0);
	T_CHECK("selfmon_path_name",
		!strcmp(pk_selfmon_path_name(PK_SELFMON_READ), "read(2)") &&
		!strcmp(pk_selfmon_path_name(PK_SELFMON_RDPMC), "rdpmc"));
	/* Agrees with a raw read of the same fd. */
	if (n == 3) {
		pk_selfmon_read(m, r1);
		len = read(pk_selfmon_fd(m, 2), buf, sizeof(buf));
		pk_read_format_parse(a[2].read_format, buf, (size_t)len, &raw, 1);
		T_CHECK("selfmon_matches_read", len > 0 && raw.val == r1[2].val);
	}
	T_CHECK("selfmon_fd_range", pk_selfmon_fd(m, n) == -EINVAL);
	pk_selfmon_free(m);
	pk_selfmon_free(NULL);
}

static void test_live_hw(void)
{
	struct perf_event_attr a;
	struct pk_selfmon *m;
	struct pk_counts c[1];

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	m = pk_selfmon_new(&a, 1);
	if (!m) {
		t_skip("selfmon_rdpmc_live", "no hardware counter (%s)",
		       strerror(errno));
		return;
	}
	pk_selfmon_begin(m);
	call_getppid(1000);
	pk_selfmon_end(m, c);
	if (pk_selfmon_path(m, 0) != PK_SELFMON_RDPMC)
		t_skip("selfmon_rdpmc_live", "rdpmc not allowed here");
	else
		t_check(c[0].val > 1000, "selfmon_rdpmc_live", "%llu",
			(unsigned long long)c[0].val);
	pk_selfmon_free(m);
}

static void test_errors(void)
{
	struct perf_event_attr a = sw_attr(0xfffff);
	struct pk_evlist *l = pk_evlist_new();
	struct pk_selfmon *m;

	errno = 0;
	T_CHECK("selfmon_zero_einval", !pk_selfmon_new(&a, 0) && errno == EINVAL);
	errno = 0;
	m = pk_selfmon_new(&a, 1);
	t_check(!m && (errno == ENOENT || errno == EINVAL),
		"selfmon_bad_event", "errno %d", errno);
	errno = 0;
	T_CHECK("selfmon_empty_evlist", !pk_selfmon_new_evlist(l) &&
		errno == EINVAL);
	a = sw_attr(PERF_COUNT_SW_TASK_CLOCK);
	a.inherit = 1;	/* dropped: an inherited event has no page */
	pk_evlist_add(l, &a, NULL);
	m = pk_selfmon_new_evlist(l);
	T_CHECK("selfmon_from_evlist", m && pk_selfmon_nr(m) == 1 &&
		pk_evsel_attr(pk_evlist_evsel(l, 0))->inherit == 1);
	pk_selfmon_free(m);
	pk_evlist_free(l);
}

int main(void)
{
	test_rdpmc_branch();
	test_sign_extend();
	test_no_rdpmc();
	test_time();
	test_seqlock();
	test_live();
	test_live_hw();
	test_errors();
	return t_exit();
}
