/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the Intel PT packet decoder: decode the input the
 * way ptdump does (sync, decode to an error, resync) under each decoder
 * mode, run every decoded packet through the encoder and the trackers, and
 * walk PSBs backwards. Must never crash, hang or read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/pt.h>

static void track(const struct pk_pt_packet *p, struct pk_pt_last_ip *lip,
		  struct pk_pt_time *t, struct pk_pt_tcal *c,
		  const struct pk_pt_config *cfg)
{
	uint64_t fcr = 0, v;
	uint8_t buf[32];

	if (pk_pt_encode(p, buf, sizeof(buf)) < 0 && p->type != PK_PT_INVALID)
		abort();	/* whatever decodes must encode */
	switch (p->type) {
	case PK_PT_FUP: case PK_PT_TIP: case PK_PT_TIP_PGE:
	case PK_PT_TIP_PGD:
		pk_pt_last_ip_update(lip, p->u.ip.ipc, p->u.ip.ip);
		pk_pt_last_ip_query(lip, &v);
		break;
	case PK_PT_PSB: pk_pt_tcal_psb(c, cfg); break;
	case PK_PT_TSC:
		pk_pt_tcal_tsc(c, p->u.tsc.tsc, 1);
		pk_pt_time_tsc(t, p->u.tsc.tsc);
		break;
	case PK_PT_CBR:
		pk_pt_tcal_cbr(c, p->u.cbr.ratio, 0, cfg);
		pk_pt_time_cbr(t, p->u.cbr.ratio);
		break;
	case PK_PT_TMA: pk_pt_time_tma(t, p->u.tma.ctc, p->u.tma.fc, cfg); break;
	case PK_PT_MTC:
		pk_pt_tcal_mtc(c, p->u.mtc.ctc, cfg);
		pk_pt_time_mtc(t, p->u.mtc.ctc, cfg);
		break;
	case PK_PT_CYC:
		pk_pt_tcal_fcr(c, &fcr);
		pk_pt_tcal_cyc(c, p->u.cyc.value);
		pk_pt_time_cyc(t, p->u.cyc.value, cfg, fcr);
		break;
	case PK_PT_OVF: pk_pt_tcal_ovf(c); break;
	default: break;
	}
	pk_pt_time_query(t, &v);
}

static void run(const uint8_t *data, size_t size, int mode)
{
	PK_OPTS(pk_pt_config, cfg, .perf_packets = mode & 1,
		.no_trig = (mode >> 1) & 1, .mtc_freq = (uint8_t)(mode * 3),
		.nom_freq = 4, .cpuid_0x15_eax = 1, .cpuid_0x15_ebx = 3);
	struct pk_pt_decoder *d;
	struct pk_pt_last_ip lip = { 0 };
	struct pk_pt_time t;
	struct pk_pt_tcal c;
	size_t steps = 0;

	if (mode & 2)
		cfg.errata.skd007 = cfg.errata.skz84 = cfg.errata.skl168 = 1;
	pk_pt_time_init(&t);
	pk_pt_tcal_init(&c);
	d = pk_pt_decoder_new(data, size, &cfg);
	if (!d)
		return;
	if (mode == 3 ? pk_pt_sync_set(d, 0) : pk_pt_sync_forward(d)) {
		pk_pt_decoder_free(d);
		return;
	}
	for (;;) {
		struct pk_pt_packet p;
		int n = pk_pt_next(d, &p);

		if (++steps > 2 * size + 64)
			abort();	/* no progress */
		if (n > 0) {
			track(&p, &lip, &t, &c, &cfg);
			continue;
		}
		if (n == PK_ERR_EOS || pk_pt_sync_forward(d) < 0)
			break;
	}
	steps = 0;
	while (pk_pt_sync_backward(d) == 0)
		if (++steps > size)
			abort();
	pk_pt_decoder_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* decode from an unaligned copy too: alignment must not matter */
	uint8_t *copy = malloc(size + 1);

	for (int mode = 0; mode < 4; mode++)
		run(data, size, mode);
	if (copy) {
		memcpy(copy + 1, data, size);
		run(copy + 1, size, 0);
		free(copy);
	}
	return 0;
}
