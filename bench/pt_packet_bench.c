/* SPDX-License-Identifier: MIT */
/*
 * Packet-decode throughput: perfkit's pk_pt_next against libipt's
 * pt_pkt_next (linked into this bench only) on the same PT stream.
 *   pt_packet_bench FILE.pt [REPEAT]
 * Prints MB/s and packets/s for both and the ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <intel-pt.h>
#include <perfkit/pt.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Decodes the whole buffer, resyncing after errors; returns packets. */
static size_t run_pk(const uint8_t *buf, size_t len, uint64_t *sum)
{
	struct pk_pt_decoder *d = pk_pt_decoder_new(buf, len, NULL);
	struct pk_pt_packet p;
	size_t n = 0;

	if (!d || pk_pt_sync_forward(d))
		goto out;
	for (;;) {
		int r = pk_pt_next(d, &p);

		if (r > 0) {
			n++;
			*sum += p.type;
			continue;
		}
		if (r == PK_ERR_EOS || pk_pt_sync_forward(d))
			break;
	}
out:
	pk_pt_decoder_free(d);
	return n;
}

static size_t run_ipt(const uint8_t *buf, size_t len, uint64_t *sum)
{
	struct pt_config cfg;
	struct pt_packet_decoder *d;
	struct pt_packet p;
	size_t n = 0;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d || pt_pkt_sync_forward(d) < 0)
		goto out;
	for (;;) {
		int r = pt_pkt_next(d, &p, sizeof(p));

		if (r >= 0) {
			n++;
			*sum += p.type;
			continue;
		}
		if (r == -pte_eos || pt_pkt_sync_forward(d) < 0)
			break;
	}
out:
	pt_pkt_free_decoder(d);
	return n;
}

int main(int argc, char **argv)
{
	FILE *f;
	uint8_t *buf;
	long len;
	int rep = argc > 2 ? atoi(argv[2]) : 5;
	double best[2] = { 1e9, 1e9 };
	size_t pk[2] = { 0, 0 };
	uint64_t sum = 0;

	if (argc < 2) {	/* make bench: ptgen's sort stream if made */
		static char path[4096];
		const char *dir = getenv("PK_PTGEN_DIR");

		snprintf(path, sizeof(path), "%s/sort.pt",
			 dir ? dir : "/tmp/ptgen-out");
		if (!(f = fopen(path, "rb"))) {
			printf("pt_packet_bench: no %s (make it with "
			       "../shared/tools/ptgen/gen.sh DIR --only sort "
			       "and set PK_PTGEN_DIR)\n", path);
			return 0;
		}
		fclose(f);
		argv[1] = path;
		argc = 2;
	}
	if (!(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: pt_packet_bench FILE.pt [REPEAT]\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		return 1;
	fclose(f);
	for (int r = 0; r < rep; r++) {
		double t0 = now();

		pk[0] = run_pk(buf, (size_t)len, &sum);
		double t1 = now();

		pk[1] = run_ipt(buf, (size_t)len, &sum);
		double t2 = now();

		if (t1 - t0 < best[0])
			best[0] = t1 - t0;
		if (t2 - t1 < best[1])
			best[1] = t2 - t1;
	}
	printf("stream %s: %ld bytes\n", argv[1], len);
	printf("perfkit pk_pt_next:  %zu packets %8.1f MB/s %7.1f Mpkt/s\n",
	       pk[0], (double)len / best[0] / 1e6, (double)pk[0] / best[0] / 1e6);
	printf("libipt  pt_pkt_next: %zu packets %8.1f MB/s %7.1f Mpkt/s\n",
	       pk[1], (double)len / best[1] / 1e6, (double)pk[1] / best[1] / 1e6);
	printf("ratio: %.2fx (checksum %llu)\n", best[1] / best[0],
	       (unsigned long long)sum);
	return pk[0] == pk[1] ? 0 : 1;
}
