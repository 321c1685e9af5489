/* SPDX-License-Identifier: MIT */
/*
 * pk_pt_perf_line against Linux perf itself: `perf script -D` on the two
 * Intel PT perf.data files of the corpus prints every AUX buffer as packet
 * lines; the bytes are read back from perf's own hex columns and perfkit
 * must print the same lines. Skipped when perf is not installed. Also a
 * few perf-only rules on hand-made bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/pt.h>
#include "test.h"

enum { MAXBUF = 1 << 22, MAXLINES = 1 << 20 };

static void rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = 0;
}

/* Compares perfkit's lines for one buffer with perf's. */
static size_t check_buffer(const uint8_t *buf, size_t len, char **lines,
			   size_t nlines, size_t *bad, char *what, size_t wl)
{
	size_t off = 0, i = 0;
	int ctx = 0;
	char mine[256];

	while (off < len && i < nlines) {
		int n = pk_pt_perf_line(buf, len, off, &ctx, mine, sizeof(mine));

		if (n <= 0)
			break;
		rstrip(mine);
		if (strcmp(mine, lines[i])) {
			if (!*bad)
				snprintf(what, wl, "perf '%s' perfkit '%s'",
					 lines[i], mine);
			++*bad;
		}
		off += (size_t)n;
		i++;
	}
	if (i != nlines || off != len) {
		if (!*bad)
			snprintf(what, wl, "%zu of %zu lines, %zu of %zu bytes",
				 i, nlines, off, len);
		++*bad;
	}
	return i;
}

static void test_file(const char *name)
{
	char cmd[4096], line[1024], what[600] = "", tname[128];
	uint8_t *buf = malloc(MAXBUF);
	char **lines = calloc(MAXLINES, sizeof(*lines));
	size_t len = 0, nlines = 0, total = 0, bad = 0, buffers = 0;
	bool in = false;
	const char *path;
	FILE *f;

	snprintf(tname, sizeof(tname), "pt_perf_dump:%s", name);
	path = t_shared_need(tname, name);
	if (!path)
		goto out;
	snprintf(cmd, sizeof(cmd), "perf script -D -i %s 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f || !buf || !lines) {
		t_skip(tname, "cannot run perf");
		goto out;
	}
	for (;;) {
		bool eof = !fgets(line, sizeof(line), f);
		bool pkt = !eof && !strncmp(line, ".  ", 3) &&
			   strlen(line) > 62 && line[11] == ':';

		if (pkt && in) {
			/* the bytes are perf's hex columns 13..60 */
			char *p = line + 13;

			for (int k = 0; k < 16 && len < MAXBUF; k++, p += 3)
				if (p[0] == ' ' && p[1] != ' ')
					buf[len++] = (uint8_t)strtoul(p + 1,
								      NULL, 16);
			rstrip(line);
			if (nlines < MAXLINES)
				lines[nlines++] = strdup(line);
			continue;
		}
		if (in && nlines) {	/* end of a buffer */
			total += check_buffer(buf, len, lines, nlines, &bad,
					      what, sizeof(what));
			buffers++;
			for (size_t i = 0; i < nlines; i++)
				free(lines[i]);
			nlines = len = 0;
		}
		if (eof)
			break;
		in = strstr(line, "Intel Processor Trace data: size") != NULL;
	}
	pclose(f);
	if (!buffers)
		t_skip(tname, "perf printed no Intel PT data (perf missing?)");
	else
		t_check(!bad && total > 1000, tname,
			"%zu mismatches in %zu lines (%zu buffers): %s", bad,
			total, buffers, what);
out:
	free(buf);
	free(lines);
}

static void test_rules(void)
{
	/* TRIG is a bad byte for perf; TNT-64 without bits is "TNT  (0)";
	 * BBP makes 0x0c a BIP; PADs merge after a short packet. */
	static const uint8_t b[] = {
		0xd9, 2, 0xa3, 1, 0, 0, 0, 0, 0, 2, 0x63, 0x81, 0x0c, 1, 2, 3,
		4, 2, 0xb3, 0x99, 0x01, 0x00, 0x00,
	};
	static const char *const want[] = {
		"Bad packet!", "TNT  (0)", "BBP SZ 4-byte Type 0x1",
		"BIP ID 0x01 Value 0x4030201", "BEP IP:1", "MODE.Exec IF:0 64",
	};
	char line[256];
	size_t off = 0, i = 0, bad = 0;
	int ctx = 0, n;

	while ((n = pk_pt_perf_line(b, sizeof(b), off, &ctx, line,
				    sizeof(line))) > 0 && i < 6) {
		char *desc = line + 62;

		rstrip(line);
		if (strlen(line) < 62 || strcmp(desc, want[i]))
			bad++;
		off += (size_t)n;
		i++;
	}
	t_check(!bad && i == 6 && off == sizeof(b), "pt_perf_rules",
		"%zu wrong of %zu lines, %zu bytes", bad, i, off);
}

int main(void)
{
	test_rules();
	test_file("corpus/perf-data/perf.data.intel_pt-4.14");
	test_file("corpus/perf-data/perf.data.piped.intel_pt-4.14");
	return t_exit();
}
