/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the Intel PT instruction-flow decoder: the input's
 * first 64 bytes are code mapped at 0x1000 (and again at 0x2000), the rest
 * is the PT stream. Decodes as ptxed does (sync, events, instructions,
 * resync after errors) with a step bound: must never crash, read out of
 * bounds or leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/pt.h>
#include <perfkit/pt_insn.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	PK_OPTS(pk_pt_config, cfg, .mtc_freq = 3, .nom_freq = 4,
		.cpuid_0x15_eax = 1, .cpuid_0x15_ebx = 2);
	PK_OPTS(pk_pt_insn_opts, io, .tick_events = 1, .iflags_events = 1);
	struct pk_pt_insn_decoder *d;
	struct pk_pt_image *img;
	size_t code = size < 64 ? size : 64, steps = 0;

	if (size && (data[0] & 1))
		pk_pt_cpu_errata(&cfg.errata, 6, data[0] & 2 ? 0x3d : 0x4e);
	if (size && (data[0] & 4)) {	/* perf's view: block packets */
		cfg.perf_packets = 1;
		io.perf_binding = 1;
		io.psb_events = 1;
	}
	img = pk_pt_image_new();
	if (!img)
		return 0;
	pk_pt_image_add_buf(img, data, code, 0x1000);
	pk_pt_image_add_buf(img, data, code, 0x2000);
	d = pk_pt_insn_decoder_new(data + code, size - code, &cfg, img, &io);
	for (int sync = 0; d && sync < 64; sync++) {
		int s = pk_pt_insn_sync_forward(d);

		if (s < 0)
			break;
		while (s >= 0 && !(s & PK_PT_STS_EOS) && ++steps < 5000) {
			struct pk_pt_insn in;
			struct pk_pt_block b;
			struct pk_pt_event ev;
			uint64_t off;

			if (s & PK_PT_STS_EVENT)
				s = pk_pt_insn_event(d, &ev);
			else if (steps & 1)
				s = pk_pt_insn_next(d, &in);
			else
				s = pk_pt_insn_next_block(d, &b);
			pk_pt_insn_offset(d, &off);
		}
		if (s >= 0 || steps >= 5000)
			break;
	}
	pk_pt_insn_decoder_free(d);
	pk_pt_image_free(img);
	return 0;
}
