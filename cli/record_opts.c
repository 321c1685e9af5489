/* SPDX-License-Identifier: MIT */
/* perfkit record: values of the options that shape perf_event_attr
 * (-F, -j, --user-regs/--intr-regs, -D, --max-size), parsed as perf 6.1
 * reads them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <perfkit/features.h>
#include "cli.h"
#include "record.h"

/* -F HZ or -F max, checked against the kernel's current limit: above it
 * perf 6.1 throttles to the limit with a warning, or refuses under
 * --strict-freq. Runs once every option is known. */
int rec_resolve_freq(struct rec_cfg *c)
{
	int max;

	if (!c->freq_arg)
		return 0;
	if (pk_perf_event_max_sample_rate(&max) || max <= 0)
		max = 0;
	if (!strcmp(c->freq_arg, "max")) {
		if (!max) {
			cli_error("record", "-F max: cannot read "
				  "/proc/sys/kernel/perf_event_max_sample_rate");
			return -1;
		}
		c->freq = (uint64_t)max;
		if (!c->quiet)
			fprintf(stderr, "info: Using a maximum frequency rate "
				"of %d Hz\n", max);
		return 0;
	}
	if (!max || c->freq <= (uint64_t)max)
		return 0;
	if (c->strict_freq) {
		cli_error("record", "-F %llu: above the maximum frequency rate "
			  "(%d Hz) and --strict-freq is given; lower -F or "
			  "raise /proc/sys/kernel/perf_event_max_sample_rate",
			  (unsigned long long)c->freq, max);
		return -1;
	}
	if (!c->quiet)
		fprintf(stderr,
"warning: Maximum frequency rate (%d Hz) exceeded, throttling from %llu Hz to %d Hz.\n"
"         The limit can be raised via /proc/sys/kernel/perf_event_max_sample_rate.\n"
"         The kernel will lower it when perf's interrupts take too long.\n"
"         Use --strict-freq to disable this throttling, refusing to record.\n",
			max, (unsigned long long)c->freq, max);
	c->freq = (uint64_t)max;
	return 0;
}

#define BRANCH_PLM (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | \
		    PERF_SAMPLE_BRANCH_HV)

/* -j LIST: comma-separated filters; privilege levels alone mean any
 * branch at the event's own levels (perf drops the u/k/hv then). */
int rec_parse_branch(struct rec_cfg *c, const char *s)
{
	char buf[256], *tok, *save = NULL;
	uint64_t mode = 0;

	if (strlen(s) >= sizeof(buf) || !*s) {
		cli_error("record", "-j: empty or too long filter list '%s'", s);
		return -1;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t bit = pk_branch_filter_bit(tok);

		if (!bit) {
			cli_error("record", "-j: unknown branch filter '%s' in "
				  "'%s'", tok, s);
			return -1;
		}
		mode |= bit;
	}
	if (!(mode & ~(uint64_t)BRANCH_PLM))
		mode = PERF_SAMPLE_BRANCH_ANY;
	c->branch_mode = mode;
	return 0;
}

/* x86-64 sample registers (perf's PERF_REG_X86_* numbering): the mask of
 * what can be sampled leaves out the segment registers DS, ES, FS, GS. */
static const char *const x86_regs[] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS",
	"SS", "DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13",
	"R14", "R15",
};

#define REGS_MASK 0xff0fffull

static void list_regs(void)
{
	fputs("available registers:", stdout);
	for (unsigned int i = 0; i < sizeof(x86_regs) / sizeof(x86_regs[0]); i++)
		if (REGS_MASK & (1ull << i))
			printf(" %s", x86_regs[i]);
	putchar('\n');
}

/* --user-regs[=LIST] / --intr-regs[=LIST]: no LIST = every register
 * that can be sampled; '?' lists them. */
int rec_parse_regs(const char *opt, const char *s, uint64_t *mask)
{
	char buf[256], *tok, *save = NULL;

	if (!s) {
		*mask = REGS_MASK;
		return 0;
	}
	if (!strcmp(s, "?")) {
		list_regs();
		exit(0);
	}
	if (strlen(s) >= sizeof(buf)) {
		cli_error("record", "%s: register list too long", opt);
		return -1;
	}
	strcpy(buf, s);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned int i, n = sizeof(x86_regs) / sizeof(x86_regs[0]);

		for (i = 0; i < n; i++)
			if ((REGS_MASK & (1ull << i)) && !strcasecmp(tok, x86_regs[i]))
				break;
		if (i == n) {
			cli_error("record", "%s: unknown register '%s' (%s=? "
				  "lists them)", opt, tok, opt);
			return -1;
		}
		*mask |= 1ull << i;
	}
	if (!*mask) {
		cli_error("record", "%s: empty register list", opt);
		return -1;
	}
	return 0;
}

/* -D MS: the events start MS milliseconds after the command. perf's
 * -D -1 (wait for --control) and time ranges are refused: no control
 * channel here. */
int rec_parse_delay(struct rec_cfg *c, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 86400000) {
		cli_error("record", "-D '%s': give a delay in milliseconds "
			  "(ranges and -1 need --control, which perfkit record "
			  "does not have)", s);
		return -1;
	}
	c->delay_ms = (int)v;
	return 0;
}

/* --max-size SIZE[BKMG] (bytes, or B/K/M/G units as perf reads them). */
int rec_parse_size(const char *opt, const char *s, uint64_t *v)
{
	char *end;
	unsigned long long n;
	int shift = 0;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (end != s && *end && !end[1]) {
		const char *u = strchr("BKMG", *end >= 'a' ? *end - 32 : *end);

		shift = u && *u ? 10 * (int)(u - "BKMG") : -1;
		end++;
	}
	if (errno || end == s || *end || shift < 0 || !n) {
		cli_error("record", "%s: invalid size '%s' (a number with "
			  "B, K, M or G)", opt, s);
		return -1;
	}
	*v = (uint64_t)n << shift;
	return 0;
}

/* "16K" for 16384: the size in the largest unit it is a whole number of. */
static void size_text(uint64_t v, char *buf, size_t size)
{
	const char *units = "BKMG";
	int u = 0;

	while (u < 3 && v >= 1024 && !(v % 1024)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%llu%c", (unsigned long long)v, units[u]);
}

/* -m PAGES or -m SIZE[BKMG], either part of "DATA,AUX" (the AUX area
 * pages are for AUX area events: Intel PT): a count that is not a power
 * of two is rounded up, saying so, as perf does. */
static int parse_pages(struct rec_cfg *c, const char *s, size_t *out)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), v, pages = 1;
	char *end, text[32];

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end != s && !*end && !errno && v)
		v *= page;
	else if (rec_parse_size("-m", s, &v))
		return -1;
	while (pages * page < v && pages < (1ull << 30))
		pages <<= 1;
	if (pages * page != v && !c->quiet) {
		size_text(pages * page, text, sizeof(text));
		fprintf(stderr, "rounding mmap pages size to %s (%llu pages)\n",
			text, (unsigned long long)pages);
	}
	*out = (size_t)pages;
	return 0;
}

int rec_parse_mmap_pages(struct rec_cfg *c, const char *arg)
{
	size_t n = strcspn(arg, ",");
	char s[64];

	/* argv stays as given (CMDLINE) */
	snprintf(s, sizeof(s), "%.*s", (int)n, arg);
	if (*s && parse_pages(c, s, &c->mmap_pages))
		return -1;
	if (arg[n] == ',' && arg[n + 1])
		return parse_pages(c, arg + n + 1, &c->aux_pages);
	return 0;
}
