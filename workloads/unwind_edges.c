/* SPDX-License-Identifier: MIT */
/*
 * Edge cases for DWARF unwinding: time spent in the vdso (clock_gettime)
 * and in a signal handler (the stack goes through the kernel's signal
 * frame and glibc's __restore_rt).
 *   unwind_edges vdso|signal [SCALE]   (about 0.3 s of CPU per SCALE)
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;
static volatile sig_atomic_t ticks;

static __attribute__((noinline)) void spin(int n)
{
	for (int i = 0; i < n; i++)
		sink = sink * 6364136223846793005ull + (uint64_t)i;
}

static __attribute__((noinline)) void in_handler(int n)
{
	spin(n);
	sink++; /* not a tail call: the frame stays */
}

static void on_signal(int sig)
{
	(void)sig;
	in_handler(400000);
	ticks++;
}

static __attribute__((noinline)) void clocks(long n)
{
	struct timespec t;

	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		sink += (uint64_t)t.tv_nsec;
	}
}

static __attribute__((noinline)) void busy(long n)
{
	for (long i = 0; i < n; i++) {
		spin(100000);
		raise(SIGUSR1);
	}
}

int main(int argc, char **argv)
{
	long scale = argc > 2 ? atol(argv[2]) : 1;

	if (argc > 1 && !strcmp(argv[1], "signal")) {
		struct sigaction sa;

		/* raised from the loop: the handler runs on each return from
		 * the kill system call, with busy()'s frames below it */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigaction(SIGUSR1, &sa, NULL);
		busy(150 * scale);
		printf("%d\n", ticks > 0);
	} else {
		clocks(1500000 * scale);
		printf("%d\n", (int)(sink & 1));
	}
	return 0;
}
