/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the kernel-text printer over a trace.dat image (the
 * first byte picks the layout: options, tracer), and its page reader. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <perfkit/ftrace.h>

/* libtraceevent leaks inside tep_parse_event on damaged formats */
__attribute__((visibility("default")))
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

static const char *const option_sets[] = {
	NULL, "latency-format", "latency-format,verbose", "raw", "hex", "bin",
	"fields", "noirq-info,record-tgid", "sym-offset,sym-addr",
	"nocontext-info", "funcgraph-proc,funcgraph-abstime,funcgraph-tail",
	"nofuncgraph-irqs,funcgraph-retval", "printk-msg-only",
	"verbose", "noprint-parent", "nofuncgraph-duration",
};
static const char *const tracers[] = {
	NULL, "nop", "function", "function_graph",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct pk_tracedat *td = NULL;

	if (!null)
		null = fopen("/dev/null", "w");
	if (size < 1 || !null)
		return 0;
	unsigned sel = data[0];
	if (((td = pk_tracedat_open_mem(data + 1, size - 1)) ? 0 : -errno) == 0) {
		PK_OPTS(pk_ktext_opts, o,
			.options = option_sets[sel % 16],
			.tracer = tracers[(sel >> 4) % 4],
			.tgids = "1 1\n42 40\n", .preempt = "PREEMPT(none)");
		pk_tracedat_report_kernel(td, null, &o);
		pk_tracedat_free(td);
	}
	return 0;
}
