/* SPDX-License-Identifier: MIT */
/*
 * Instruction-flow decode speed: perfkit's pk_pt_insn_next against libipt's
 * block decoder (pt_blk_next, linked into this bench only) on the same PT
 * stream and code image. Optionally checks perfkit's instruction addresses
 * against a ground-truth list (ptgen's NAME.ips: one hex IP per line).
 *   pt_flow_bench --pt FILE --raw FILE:ADDR [--ips FILE] [--repeat N]
 * Without arguments (make bench) it uses $PK_PTGEN_DIR/sort.pt and
 * sort.img from ../shared/tools/ptgen/gen.sh DIR (194M instructions of
 * busybox sort), or says how to make them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <intel-pt.h>
#include <perfkit/pt.h>
#include <perfkit/pt_insn.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);	/* CPU time: the machine is shared */
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (!f) {
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(2);
	}
	fclose(f);
	*size = (size_t)n;
	return b;
}

/* perfkit, blocks: returns instructions. */
static uint64_t run_pk_blocks(const uint8_t *buf, size_t len,
			      const struct pk_pt_image *img)
{
	struct pk_pt_insn_decoder *d = pk_pt_insn_decoder_new(buf, len, NULL,
							       img, NULL);
	uint64_t n = 0;

	for (;;) {
		int s = pk_pt_insn_sync_forward(d);

		if (s < 0)
			break;
		for (;;) {
			struct pk_pt_block b;

			while (s >= 0 && (s & PK_PT_STS_EVENT)) {
				struct pk_pt_event ev;

				s = pk_pt_insn_event(d, &ev);
			}
			if (s < 0 || (s & PK_PT_STS_EOS))
				break;
			s = pk_pt_insn_next_block(d, &b);
			n += b.ninsn;
			if (s < 0)
				break;
		}
		if (s == PK_ERR_EOS || (s >= 0 && (s & PK_PT_STS_EOS)))
			break;
	}
	pk_pt_insn_decoder_free(d);
	return n;
}

/* perfkit: returns instructions; with IPS, counts mismatches. */
static uint64_t run_pk(const uint8_t *buf, size_t len,
		       const struct pk_pt_image *img, FILE *ips,
		       uint64_t *bad)
{
	struct pk_pt_insn_decoder *d = pk_pt_insn_decoder_new(buf, len, NULL,
							       img, NULL);
	uint64_t n = 0;
	char line[64];

	for (;;) {
		int s = pk_pt_insn_sync_forward(d);

		if (s < 0)
			break;
		for (;;) {
			struct pk_pt_insn in;

			while (s >= 0 && (s & PK_PT_STS_EVENT)) {
				struct pk_pt_event ev;

				s = pk_pt_insn_event(d, &ev);
			}
			if (s < 0 || (s & PK_PT_STS_EOS))
				break;
			s = pk_pt_insn_next(d, &in);
			if (s < 0 && in.iclass == PK_PT_IC_ERROR)
				break;
			n++;
			if (ips && (!fgets(line, sizeof(line), ips) ||
				    strtoull(line, NULL, 16) != in.ip)) {
				if (!*bad)
					fprintf(stderr, "first mismatch at insn "
						"%" PRIu64 ": %" PRIx64 "\n", n,
						in.ip);
				++*bad;
			}
			if (s < 0)
				break;
		}
		if (s == PK_ERR_EOS || (s >= 0 && (s & PK_PT_STS_EOS)))
			break;
	}
	pk_pt_insn_decoder_free(d);
	return n;
}

static uint64_t run_blk(uint8_t *buf, size_t len, const char *file,
			uint64_t addr)
{
	struct pt_config cfg;
	struct pt_block_decoder *d;
	uint64_t n = 0;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	d = pt_blk_alloc_decoder(&cfg);
	if (pt_image_add_file(pt_blk_get_image(d), file, 0, UINT64_MAX, NULL,
			      addr) < 0)
		exit(2);
	for (;;) {
		int s = pt_blk_sync_forward(d);

		if (s < 0)
			break;
		for (;;) {
			struct pt_block b;

			while (s >= 0 && (s & pts_event_pending)) {
				struct pt_event ev;

				s = pt_blk_event(d, &ev, sizeof(ev));
			}
			if (s < 0 || (s & pts_eos))
				break;
			s = pt_blk_next(d, &b, sizeof(b));
			n += b.ninsn;
			if (s < 0)
				break;
		}
	}
	pt_blk_free_decoder(d);
	return n;
}

int main(int argc, char **argv)
{
	const char *pt = NULL, *raw = NULL, *ipsf = NULL;
	int rep = 3;
	char file[4096];
	uint64_t addr, n[2] = { 0, 0 }, bad = 0;
	double best[3] = { 1e30, 1e30, 1e30 };
	uint64_t nb = 0;
	struct pk_pt_image *img;
	uint8_t *buf;
	size_t len;
	char *colon;

	static char dflt_pt[4096], dflt_raw[4096];
	const char *dir = getenv("PK_PTGEN_DIR");

	if (argc == 1) {
		FILE *f;

		if (!dir)
			dir = "/tmp/ptgen-out";
		snprintf(dflt_pt, sizeof(dflt_pt), "%s/sort.pt", dir);
		snprintf(dflt_raw, sizeof(dflt_raw), "%s/sort.img:0x401000",
			 dir);
		f = fopen(dflt_pt, "rb");
		if (!f) {
			printf("pt_flow_bench: no %s; make it with "
			       "../shared/tools/ptgen/gen.sh %s --only sort "
			       "(or set PK_PTGEN_DIR)\n", dflt_pt, dir);
			return 0;
		}
		fclose(f);
		pt = dflt_pt;
		raw = dflt_raw;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pt") && i + 1 < argc)
			pt = argv[++i];
		else if (!strcmp(argv[i], "--raw") && i + 1 < argc)
			raw = argv[++i];
		else if (!strcmp(argv[i], "--ips") && i + 1 < argc)
			ipsf = argv[++i];
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			rep = atoi(argv[++i]);
		else
			raw = NULL, i = argc;
	}
	if (!pt || !raw || !(colon = strrchr(raw, ':'))) {
		fprintf(stderr, "usage: pt_flow_bench --pt FILE --raw FILE:ADDR "
			"[--ips FILE] [--repeat N]\n");
		return 2;
	}
	snprintf(file, sizeof(file), "%.*s", (int)(colon - raw), raw);
	addr = strtoull(colon + 1, NULL, 0);
	buf = slurp(pt, &len);
	img = pk_pt_image_new();
	if (pk_pt_image_add_file(img, file, 0, 0, addr) < 0)
		return 2;
	if (ipsf) {
		FILE *f = fopen(ipsf, "r");

		if (!f) {
			perror(ipsf);
			return 2;
		}
		n[0] = run_pk(buf, len, img, f, &bad);
		fclose(f);
		printf("check: %" PRIu64 " instructions, %" PRIu64
		       " mismatches\n", n[0], bad);
	}
	for (int r = 0; r < rep; r++) {
		double t0 = now(), t1, t2;

		n[0] = run_pk(buf, len, img, NULL, &bad);
		t1 = now();
		n[1] = run_blk(buf, len, file, addr);
		t2 = now();
		nb = run_pk_blocks(buf, len, img);
		if (t1 - t0 < best[0])
			best[0] = t1 - t0;
		if (t2 - t1 < best[1])
			best[1] = t2 - t1;
		if (now() - t2 < best[2])
			best[2] = now() - t2;
	}
	printf("perfkit insn decoder: %" PRIu64 " insns %.3f s %.1f M insn/s\n",
	       n[0], best[0], (double)n[0] / best[0] / 1e6);
	printf("libipt block decoder: %" PRIu64 " insns %.3f s %.1f M insn/s\n",
	       n[1], best[1], (double)n[1] / best[1] / 1e6);
	printf("perfkit block API:    %" PRIu64 " insns %.3f s %.1f M insn/s\n",
	       nb, best[2], (double)nb / best[2] / 1e6);
	printf("ratio vs libipt block decoder: insn API %.2fx, block API %.2fx\n",
	       best[1] / best[0], best[1] / best[2]);
	pk_pt_image_free(img);
	free(buf);
	return bad || n[0] != n[1] || nb != n[1];
}
