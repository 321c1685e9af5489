/* SPDX-License-Identifier: MIT */
/*
 * Function tracer output (function, function_graph with leaf folding,
 * kernel_stack) from ring-buffer pages built here with this machine's
 * events/ftrace formats, against trace-cmd (the kernel refuses the
 * function tracers here, so pages are encoded by the test).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include "base/base.h"
#include "tracedat/rbpage.h"
#include "test.h"

T_LSAN_LIBTRACEEVENT
static char *rf(const char *p, long *n) { char *s; *n = pk__read_file(p, &s); return *n < 0 ? NULL : s; }
struct fn { unsigned short type; unsigned char fl, pc; int pid; unsigned long ip, parent; };
struct ge { unsigned short type; unsigned char fl, pc; int pid; unsigned long func; unsigned depth; unsigned pad; };
struct gx { unsigned short type; unsigned char fl, pc; int pid; unsigned long func; unsigned depth, overrun; unsigned long long calltime, rettime; };
static char *run(const char *cmd)
{
	char *out = NULL, chunk[4096];
	size_t len = 0, got;
	FILE *p = popen(cmd, "r"), *m = open_memstream(&out, &len);
	while (p && (got = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, got, m);
	if (p)
		pclose(p);
	fclose(m);
	return out;
}

/* Builds a file from this machine's ftrace formats and kallsyms. */
static int build(const char *path) {
	long n; char *ks = rf("/proc/kallsyms", &n);
	if (!ks || geteuid() != 0)
		return -1;
	unsigned long a[4]; char names[4][128]; int k = 0;
	char *line = ks;
	struct pk_buf kb = {0};
	while (line && *line && k < 4) {
		char *nl = strchr(line, '\n'); unsigned long addr; char t; char nm[128];
		if (sscanf(line, "%lx %c %127s", &addr, &t, nm) == 3 && t == 'T' && addr && strncmp(nm, "__pfx", 5) && strncmp(nm, "srso", 4) && !strchr(nm, '.') && (k == 0 || addr > a[k-1] + 64)) {
			a[k] = addr; strcpy(names[k], nm); k++;
		}
		line = nl ? nl + 1 : NULL;
	}
	pk__buf_append(&kb, ks, (size_t)n);
	int idf = 1, ide = 11, idx = 10;
	char tmp[] = "/tmp/fnXXXXXX"; int fd = mkstemp(tmp); unlink(tmp);
	static unsigned char page[4096]; struct pk_rb_layout l; struct pk_rb_enc e;
	pk__rb_layout_default(&l, 8, 0);
	unsigned long long t0 = 5000000000ull;
	pk__rb_enc_init(&e, page, 4096, &l, t0);
	struct fn f1 = { idf, 0, 0, 42, a[0] + 4, a[1] + 0x10 }; pk__rb_enc_event(&e, t0, &f1, sizeof f1, 0);
	struct ge g1 = { ide, 0, 0, 42, a[0], 0, 0 }; pk__rb_enc_event(&e, t0 + 1000, &g1, sizeof g1, 0);
	struct ge g2 = { ide, 0, 0, 42, a[1], 1, 0 }; pk__rb_enc_event(&e, t0 + 2000, &g2, sizeof g2, 0);
	struct ge g3 = { ide, 0, 0, 42, a[2], 2, 0 }; pk__rb_enc_event(&e, t0 + 3000, &g3, sizeof g3, 0);
	struct gx x3 = { idx, 0, 0, 42, a[2], 2, 0, t0 + 3000, t0 + 3500 }; pk__rb_enc_event(&e, t0 + 3500, &x3, sizeof x3, 0);
	struct gx x2 = { idx, 0, 0, 42, a[1], 1, 0, t0 + 2000, t0 + 150000 }; pk__rb_enc_event(&e, t0 + 150000, &x2, sizeof x2, 0);
	struct gx x1 = { idx, 0, 0, 42, a[0], 0, 0, t0 + 1000, t0 + 2000000 }; pk__rb_enc_event(&e, t0 + 2000000, &x1, sizeof x1, 0);
	struct { unsigned short type; unsigned char fl, pc; int pid; int size; int pad; unsigned long caller[8]; } ks1 = { 4, 0, 0, 42, 3, 0, { a[0] + 8, a[1] + 3, a[2], 0x1234, (unsigned long)-1, 0, 0, 0 } };
	pk__rb_enc_event(&e, t0 + 2000100, &ks1, sizeof ks1, 0);
	struct fn f2 = { idf, 0, 0, 42, a[3], 0x10 }; pk__rb_enc_event(&e, t0 + 2000200, &f2, sizeof f2, 0);
	pk__rb_enc_finish(&e, 0); write(fd, page, 4096);
	PK_OPTS(pk_tdwriter_opts, o, .compression = "zstd", .page_size = 4096, .long_size = 8);
	struct pk_tdwriter *w = pk_tdwriter_open(path, &o);
	char *hp = rf("/sys/kernel/tracing/events/header_page", &n); pk_tdwriter_set_item(w, PK_TD_HEADER_PAGE, hp, n);
	const char *fm[] = { "function", "funcgraph_entry", "funcgraph_exit", "kernel_stack" };
	for (int i = 0; i < 4; i++) { char p[256]; snprintf(p, sizeof p, "/sys/kernel/tracing/events/ftrace/%s/format", fm[i]); char *s = rf(p, &n); if (!s) return -1; pk_tdwriter_add_format(w, "ftrace", s, n); pk__free(s); }
	pk_tdwriter_set_item(w, PK_TD_KALLSYMS, kb.data, kb.len);
	pk_tdwriter_set_item(w, PK_TD_CMDLINES, "42 fn\n", 6);
	int id = 0; pk_tdwriter_add_buffer(w, "", "local", 1, &id, &fd);
	pk__free(ks); pk__free(hp); pk__buf_fini(&kb);
	int r = pk_tdwriter_close(w);
	close(fd);
	return r;
}

int main(void)
{
	const char *path = "/tmp/pk-functions.dat";
	struct pk_tracedat *td = NULL;
	char *out = NULL;
	size_t len = 0;

	if (build(path) != 0) {
		t_skip("ftrace_functions", "needs root, tracefs formats and kallsyms");
		return t_exit();
	}
	if (!t_check(((td = pk_tracedat_open(path)) ? 0 : -errno) == 0, "functions_open", "open"))
		return t_exit();
	FILE *f = open_memstream(&out, &len);
	pk_tracedat_report(td, f, NULL);
	fclose(f);
	pk_tracedat_free(td);
	/* trace-cmd's function_graph layout: nested, leaf folded, marks */
	T_CHECK("functions_graph_nested", strstr(out, "funcgraph_entry:                   |  ") != NULL);
	T_CHECK("functions_graph_leaf", strstr(out, "funcgraph_entry:        0.500 us   |      ") && strstr(out, "();\n"));
	T_CHECK("functions_graph_exit_marks", strstr(out, "funcgraph_exit:       ! 148.000 us |    }\n") &&
		strstr(out, "funcgraph_exit:       # 1999.000 us |  }\n"));
	T_CHECK("functions_leaf_exit_folded", strstr(out, "5.000004") == NULL);
	T_CHECK("functions_stack", strstr(out, "kernel_stack:         <stack trace >\n=> ") != NULL);
	if (access("/usr/bin/trace-cmd", X_OK) == 0) {
		char *tc = run("trace-cmd report -i /tmp/pk-functions.dat 2>&1");
		t_check(tc && !strcmp(tc, out), "functions_vs_tracecmd", "%s", tc ? tc : "");
		free(tc);
	} else {
		t_skip("functions_vs_tracecmd", "trace-cmd not installed");
	}
	free(out);
	unlink(path);
	return t_exit();
}
