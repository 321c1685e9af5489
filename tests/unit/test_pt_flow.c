/* SPDX-License-Identifier: MIT */
/*
 * Intel PT instruction flow: random programs (nops, conditional, direct,
 * indirect branches, calls, returns) are "executed" by a simulator that
 * writes the PT stream with perfkit's encoder (TNT batching, return
 * compression, IP compression, periodic PSB+) and the exact instruction
 * sequence. perfkit's flow decoder must reproduce the sequence (per
 * instruction and per block), and libipt's instruction decoder (linked
 * into this test only) must agree, which checks the generator itself.
 * Also: events (interrupt FUP+TIP, disable, enable, overflow) and damaged
 * streams (never crash, always terminate).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <link.h>
#include <intel-pt.h>
#include <perfkit/pt.h>
#include <perfkit/pt_insn.h>
#include "pt_flowgen.h"
#include "test.h"

enum { MAXINSN = 200000 };

static void make_prog(struct prog *p)
{
	memset(p->code, 0xf4, sizeof(p->code));
	for (int b = 0; b < NBLK; b++) {
		int nops = (int)(rnd() % 8), t = (int)(rnd() % 6);

		/* direct branches only go forward and the last block is
		 * indirect: no loop without packets, so every run ends */
		if (b == NBLK - 1)
			t = T_JMP_IND;
		prog_block(p, b, nops, (enum term)t, b == NBLK - 1 ? blk_ip(0) :
			   blk_ip(b + 1 + (int)(rnd() % (NBLK - 1 - b))));
	}
}

/* Runs the program from block 0 for about N instructions, writing the PT
 * stream to G and the executed IPs to IPS (room for MAXINSN). It stops at
 * a block start right after a branch that wrote a packet, so the final
 * FUP + TIP.PGD names an unambiguous place. Returns the count. */
static size_t run(const struct prog *p, struct gen *g, uint64_t *ips,
		  size_t n, bool events)
{
	uint64_t stack[64];
	int sp = 0, b = 0;
	size_t k = 0, cap = MAXINSN - 64;
	uint64_t ip = blk_ip(0);
	bool packet = false;

	psb_plus(g, ip, NULL);
	while (k < cap && !(k >= n && packet)) {
		uint64_t next;

		packet = false;
		/* the block's nops */
		while (ip < p->term_ip[b] && k < cap) {
			if (events && one_in(500)) {
				b = interrupt(g, ip);
				ip = blk_ip(b);
				sp = 0;	/* returns above the handler: TIP */
				continue;
			}
			ips[k++] = ip++;
		}
		ips[k++] = ip;
		switch (p->term[b]) {
		case T_JCC:
			next = jcc(g, p, b, ip, ips, &k);
			packet = true;
			break;
		case T_JMP:
			next = p->target[b];
			break;
		case T_CALL:
			if (sp == 64)
				sp = 0;	/* decoders keep the newest 64 */
			stack[sp++] = ip + 5;
			next = p->target[b];
			break;
		case T_CALL_IND:
			if (sp == 64)
				sp = 0;
			stack[sp++] = ip + 2;
			next = blk_ip((int)(rnd() % NBLK));
			ip_pkt(g, PK_PT_TIP, next);
			packet = true;
			break;
		case T_JMP_IND:
			next = blk_ip((int)(rnd() % NBLK));
			ip_pkt(g, PK_PT_TIP, next);
			packet = true;
			break;
		case T_RET:
		default:
			if (sp) {
				next = stack[--sp];
				tnt(g, 1);	/* compressed return */
			} else {
				next = blk_ip((int)(rnd() % NBLK));
				ip_pkt(g, PK_PT_TIP, next);
			}
			packet = true;
			break;
		}
		ip = land(next, ips, &k);
		b = blk_of(ip);
		if (g->since_psb > 2048) {
			psb_plus(g, ip, NULL);
			sp = 0;	/* decoders may forget returns at PSB */
		}
	}
	gen_end(g, ip);
	return k;
}

/* perfkit decodes; returns instructions matching IPS in order. */
static size_t decode_pk(const struct prog *p, const struct gen *g,
			const uint64_t *ips, size_t n, bool blocks,
			size_t *events)
{
	struct pk_pt_image *img = pk_pt_image_new();
	struct pk_pt_insn_decoder *d;
	size_t k = 0;
	int s;

	pk_pt_image_add_buf(img, p->code, sizeof(p->code), BASE);
	d = pk_pt_insn_decoder_new(g->buf, g->len, NULL, img, NULL);
	s = pk_pt_insn_sync_forward(d);
	while (s >= 0) {
		while (s >= 0 && (s & PK_PT_STS_EVENT)) {
			struct pk_pt_event ev;

			s = pk_pt_insn_event(d, &ev);
			++*events;
		}
		if (s < 0 || (s & PK_PT_STS_EOS))
			break;
		if (blocks) {
			struct pk_pt_block b;
			uint64_t ip;

			s = pk_pt_insn_next_block(d, &b);
			/* a block is contiguous up to its last instruction */
			ip = b.ip;
			for (uint32_t i = 0; i < b.ninsn; i++) {
				if (k >= n || ips[k] != ip)
					goto out;
				k++;
				if (i + 1 < b.ninsn) {
					/* stepped through the decoder's
					 * cache (the flow stays), checked
					 * against a fresh decode */
					struct pk_pt_insn in, c;
					uint64_t t;

					pk_pt_insn_decode(img, ip, PK_PT_MODE_64,
							  &in, &t);
					if (pk_pt_insn_at(d, ip, PK_PT_MODE_64,
							  &c) < 0 ||
					    c.ip != ip || c.size != in.size ||
					    c.iclass != in.iclass)
						goto out;
					ip += in.size;
				}
			}
		} else {
			struct pk_pt_insn in;

			s = pk_pt_insn_next(d, &in);
			if (in.iclass == PK_PT_IC_ERROR)
				break;
			if (k >= n || ips[k] != in.ip) {
				if (getenv("PT_FLOW_DEBUG"))
					fprintf(stderr, "at %zu: want %llx got %llx (prev %llx %llx)\n",
						k, (unsigned long long)(k < n ? ips[k] : 0),
						(unsigned long long)in.ip,
						(unsigned long long)(k > 1 ? ips[k-2] : 0),
						(unsigned long long)(k ? ips[k-1] : 0));
				break;
			}
			k++;
		}
	}
out:
	pk_pt_insn_decoder_free(d);
	pk_pt_image_free(img);
	return k;
}

static size_t decode_ipt(const struct prog *p, struct gen *g,
			 const uint64_t *ips, size_t n)
{
	char path[] = "/tmp/pt_flow_codeXXXXXX";
	struct pt_config cfg;
	struct pt_insn_decoder *d;
	size_t k = 0;
	FILE *f;
	int s, fd;

	pt_config_init(&cfg);
	cfg.begin = g->buf;
	cfg.end = g->buf + g->len;
	d = pt_insn_alloc_decoder(&cfg);
	/* libipt 2.0 maps files only (and reads them lazily) */
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (f) {
		fwrite(p->code, 1, sizeof(p->code), f);
		fclose(f);
		pt_image_add_file(pt_insn_get_image(d), path, 0,
				  sizeof(p->code), NULL, BASE);
	}
	s = pt_insn_sync_forward(d);
	while (s >= 0) {
		struct pt_insn in;

		while (s >= 0 && (s & pts_event_pending)) {
			struct pt_event ev;

			s = pt_insn_event(d, &ev, sizeof(ev));
		}
		if (s < 0 || (s & pts_eos))
			break;
		s = pt_insn_next(d, &in, sizeof(in));
		if (in.iclass == ptic_error || k >= n || ips[k] != in.ip)
			break;
		k++;
	}
	pt_insn_free_decoder(d);
	unlink(path);
	return k;
}

static void test_random_programs(bool events)
{
	static uint64_t ips[MAXINSN];
	size_t bad_pk = 0, bad_blk = 0, bad_ipt = 0, total = 0, nev = 0;
	char what[200] = "";
	const char *tag = events ? "pt_flow_interrupts" : "pt_flow_programs";

	for (int r = 0; r < 40; r++) {
		struct prog p;
		struct gen g = { .tnt_max = 6, .full = 4 };
		size_t n, a, b, c, ev1 = 0, ev2 = 0;

		make_prog(&p);
		n = run(&p, &g, ips, 1000 + rnd() % 20000, events);
		a = decode_pk(&p, &g, ips, n, false, &ev1);
		b = decode_pk(&p, &g, ips, n, true, &ev2);
		c = decode_ipt(&p, &g, ips, n);
		total += n;
		nev += ev1;
		if (a != n && !bad_pk && getenv("PT_FLOW_DEBUG") &&
		    access("/tmp/ptf.pt", F_OK)) {
			FILE *f = fopen("/tmp/ptf.pt", "wb");

			fwrite(g.buf, 1, g.len, f);
			fclose(f);
			f = fopen("/tmp/ptf.bin", "wb");
			fwrite(p.code, 1, sizeof(p.code), f);
			fclose(f);
			f = fopen("/tmp/ptf.ips", "w");
			for (size_t i = 0; i < n; i++)
				fprintf(f, "%016llx\n", (unsigned long long)ips[i]);
			fclose(f);
		}
		if (a != n && !bad_pk++)
			snprintf(what, sizeof(what), "run %d: insn %zu of %zu "
				 "(ip %llx)", r, a, n,
				 (unsigned long long)ips[a]);
		bad_blk += b != n;
		bad_ipt += c != n;
		free(g.buf);
	}
	t_check(!bad_ipt, events ? "pt_flow_generator_interrupts"
				 : "pt_flow_generator",
		"libipt disagrees with the generator in %zu runs", bad_ipt);
	t_check(!bad_pk && total > 100000, tag,
		"%zu runs differ (%zu insns): %s", bad_pk, total, what);
	t_check(!bad_blk, events ? "pt_flow_blocks_interrupts"
				 : "pt_flow_blocks",
		"block API differs in %zu runs", bad_blk);
	if (events)
		t_check(nev > 40, "pt_flow_interrupt_events",
			"only %zu events", nev);
}

/* Damaged streams must never crash or hang the flow decoder. */
static void test_damaged(void)
{
	static uint64_t ips[MAXINSN];
	struct prog p;
	struct gen g = { .tnt_max = 6, .full = 4 };
	struct pk_pt_image *img = pk_pt_image_new();
	size_t n, worst = 0;
	int hung = 0;

	make_prog(&p);
	n = run(&p, &g, ips, 20000, true);
	(void)n;
	pk_pt_image_add_buf(img, p.code, sizeof(p.code), BASE);
	for (int r = 0; r < 200; r++) {
		uint8_t *b = malloc(g.len);
		struct pk_pt_insn_decoder *d;
		size_t steps = 0;

		memcpy(b, g.buf, g.len);
		for (int k = 0; k < 1 + r % 8; k++)
			b[rnd() % g.len] ^= (uint8_t)(1 << (rnd() % 8));
		d = pk_pt_insn_decoder_new(b, g.len, NULL, img, NULL);
		for (int sync = 0; sync < 1000; sync++) {
			int s = pk_pt_insn_sync_forward(d);

			if (s < 0)
				break;
			while (s >= 0 && !(s & PK_PT_STS_EOS)) {
				struct pk_pt_insn in;
				struct pk_pt_event ev;

				if (++steps > 10 * MAXINSN)
					break;
				if (s & PK_PT_STS_EVENT)
					s = pk_pt_insn_event(d, &ev);
				else
					s = pk_pt_insn_next(d, &in);
			}
			if (s >= 0 || steps > 10 * MAXINSN)
				break;
		}
		if (steps > 10 * MAXINSN)
			hung++;
		worst = steps > worst ? steps : worst;
		pk_pt_insn_decoder_free(d);
		free(b);
	}
	t_check(!hung, "pt_flow_damaged", "%d runs did not end", hung);
	pk_pt_image_free(img);
	free(g.buf);
}

static int first_base(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_addr;
	return 1;	/* the main program comes first */
}

/* pk_pt_image_add_elf on a text file (a memfd: nothing is left behind). */
static int not_elf(struct pk_pt_image *img)
{
	static const char text[] = "perfkit: not an ELF file\n";
	int fd = memfd_create("not-elf", MFD_CLOEXEC), r = -1;
	char path[64];

	if (fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1)
		r = pk_pt_image_add_elf(img, path, 0);
	close(fd);
	return r;
}

/* ELF images: this test's own code, mapped from its file, must read back
 * as the bytes the process runs; a non-ELF file is refused. */
static void test_elf(void)
{
	struct pk_pt_image *img = pk_pt_image_new();
	uint64_t base = 0, at = (uint64_t)(uintptr_t)&test_elf;
	uint8_t got[32];
	int n;

	dl_iterate_phdr(first_base, &base);
	n = pk_pt_image_add_elf(img, "/proc/self/exe", base);
	t_check(n > 0 && pk_pt_image_read(img, at, got, sizeof(got)) ==
			 sizeof(got) &&
		!memcmp(got, (const void *)(uintptr_t)at, sizeof(got)),
		"pt_image_elf", "add_elf %d: code bytes differ", n);
	t_check(not_elf(img) == PK_ERR_FORMAT, "pt_image_elf_not_elf",
		"a text file accepted as ELF");
	pk_pt_image_free(img);
}

/* A block packet (BBP of TYPE, items 8 bytes unless SZ4). */
static void bbp(struct gen *g, uint8_t type, bool sz4)
{
	struct pk_pt_packet p = { .type = PK_PT_BBP };

	p.u.bbp.type = type;
	p.u.bbp.sz8 = !sz4;
	emit(g, &p);
}

static void bip(struct gen *g, uint8_t id, uint64_t v, bool sz4)
{
	struct pk_pt_packet p = { .type = PK_PT_BIP, .size = sz4 ? 5 : 9 };

	p.u.bip.id = id;
	p.u.bip.value = v;
	emit(g, &p);
}

static void bep(struct gen *g, bool ip)
{
	struct pk_pt_packet p = { .type = PK_PT_BEP };

	p.u.bep.ip = ip;
	emit(g, &p);
}

/* PEBS via PT (perf_packets): each BEP is a PK_PT_EV_BLK_ITEMS event
 * with the record's items; BBPs inside a record add to it, one after a
 * BEP begins a new one; a BEP.IP takes its FUP's IP; one without FUP
 * is lost. Built with the encoder. */
static void test_pebs(void)
{
	struct prog p;
	struct gen g = { .tnt_max = 6 };
	struct pk_pt_image *img = pk_pt_image_new();
	PK_OPTS(pk_pt_config, cfg, .perf_packets = 1);
	PK_OPTS(pk_pt_insn_opts, io, .perf_binding = 1);
	struct pk_pt_blk_items got[4];
	uint64_t ip[4];
	bool sup[4];
	int n = 0, s, steps = 0;
	struct pk_pt_insn_decoder *d;

	make_prog(&p);
	pk_pt_image_add_buf(img, p.code, sizeof(p.code), BASE);
	psb_plus(&g, blk_ip(0), NULL);
	bbp(&g, 4, false);			/* basic: ip, tsc */
	bip(&g, 0, 0x401234, false);
	bip(&g, 2, 0x1122334455ull, false);
	bep(&g, false);
	bbp(&g, 1, true);			/* GP (4-byte items) ... */
	bip(&g, 2, 0xaabbccdd, true);
	bbp(&g, 5, true);			/* ... and memory: one record */
	bip(&g, 0, 0x7fff0000, true);
	bbp(&g, 3, true);			/* unknown type: left out */
	bip(&g, 1, 0x99, true);
	bep(&g, true);
	ip_pkt(&g, PK_PT_FUP, blk_ip(0));
	bbp(&g, 4, false);			/* a new record */
	bip(&g, 1, 3, false);
	bep(&g, false);
	bep(&g, true);				/* no FUP: lost */
	emit_type(&g, PK_PT_PAD);
	ip_pkt(&g, PK_PT_TIP_PGD, blk_ip(0));
	d = pk_pt_insn_decoder_new(g.buf, g.len, &cfg, img, &io);
	s = pk_pt_insn_sync_forward(d);
	while (s >= 0 && !(s & PK_PT_STS_EOS) && ++steps < 1000) {
		struct pk_pt_insn in;
		struct pk_pt_event ev;

		if (!(s & PK_PT_STS_EVENT)) {
			s = pk_pt_insn_next(d, &in);
			continue;
		}
		s = pk_pt_insn_event(d, &ev);
		if (ev.type != PK_PT_EV_BLK_ITEMS || n == 4 || !ev.u.blk.items)
			continue;
		got[n] = *ev.u.blk.items;
		ip[n] = ev.ip;
		sup[n++] = ev.ip_suppressed;
	}
	t_check(n == 3, "pt_flow_pebs_events", "%d block item events", n);
	if (n == 3) {
		t_check(sup[0] && got[0].mask[PK_PT_BLK_PEBS_BASIC] == 5 &&
			got[0].val[PK_PT_BLK_PEBS_BASIC][0] == 0x401234 &&
			got[0].val[PK_PT_BLK_PEBS_BASIC][2] == 0x1122334455ull &&
			!got[0].mask[PK_PT_BLK_GP_REGS],
			"pt_flow_pebs_basic", "mask %x", got[0].mask[1]);
		t_check(!sup[1] && ip[1] == blk_ip(0) && got[1].is_32_bit &&
			got[1].mask[PK_PT_BLK_GP_REGS] == 4 &&
			got[1].val[PK_PT_BLK_GP_REGS][2] == 0xaabbccdd &&
			got[1].mask[PK_PT_BLK_PEBS_MEM] == 1 &&
			got[1].val[PK_PT_BLK_PEBS_MEM][0] == 0x7fff0000 &&
			!got[1].mask[PK_PT_BLK_PEBS_BASIC],
			"pt_flow_pebs_record", "ip %llx gp %x mem %x",
			(unsigned long long)ip[1], got[1].mask[0],
			got[1].mask[2]);
		t_check(sup[2] && got[2].mask[PK_PT_BLK_PEBS_BASIC] == 2 &&
			!got[2].mask[PK_PT_BLK_GP_REGS] &&
			!got[2].mask[PK_PT_BLK_PEBS_MEM] && !got[2].is_32_bit,
			"pt_flow_pebs_new_record", "gp %x", got[2].mask[0]);
	}
	t_check(pk_pt_blk_pos(16) == PK_PT_BLK_XMM && pk_pt_blk_pos(3) < 0,
		"pt_flow_pebs_pos", "positions");
	pk_pt_insn_decoder_free(d);
	pk_pt_image_free(img);
	free(g.buf);
}

int main(void)
{
	rng_state = 88172645463325252ull;
	test_elf();
	test_random_programs(false);
	test_random_programs(true);
	test_damaged();
	test_pebs();
	return t_exit();
}
