/* Test-only LD_PRELOAD shim for the intel_pt fixture PMU (tests/data/
 * intel_pt, type 10 unless PK_FAKE_PT_TYPE says otherwise): there is no
 * Intel PT here, so perf_event_open of that type is made on a software
 * dummy event instead (same attr otherwise). perf and perfkit then go on
 * past the AUX event and print the attrs of the events they add after it.
 * Built by the tests that use it (cc -shared -fPIC -ldl). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>

long syscall(long nr, ...);

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[6];
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == SYS_perf_event_open && a[0]) {
		const char *t = getenv("PK_FAKE_PT_TYPE");
		struct perf_event_attr *in = (void *)a[0], copy;

		if (in->type == (unsigned)(t ? atoi(t) : 10)) {
			copy = *in;
			copy.type = PERF_TYPE_SOFTWARE;
			copy.config = PERF_COUNT_SW_DUMMY;
			copy.aux_watermark = 0;
			a[0] = (long)&copy;
			return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		}
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
