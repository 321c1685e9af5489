/* SPDX-License-Identifier: MIT */
/*
 * perfkit: Intel PT instruction-flow decoding.
 *
 *   pk_pt_image         code memory: raw files mapped at addresses
 *   pk_pt_insn_decoder  PT packets + image -> executed instructions and
 *                       events, with libipt's event semantics (what Intel's
 *                       ptxed prints)
 *
 * Use: pk_pt_insn_sync_forward(), then loop: while the returned status has
 * PK_PT_STS_EVENT call pk_pt_insn_event(); stop at PK_PT_STS_EOS; else
 * pk_pt_insn_next(). A negative return is an error (enum pk_pt_error,
 * PK_ERR_*); pk_pt_insn_sync_forward() resumes at the next PSB.
 */
#ifndef PERFKIT_PT_INSN_H
#define PERFKIT_PT_INSN_H

#include <stdint.h>
#include <perfkit/pt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* More PT flow errors (continuing enum pk_pt_error). */
enum pk_pt_flow_error {
	PK_PT_ERR_NOMAP      = -10120, /* no code mapped at the IP */
	PK_PT_ERR_BAD_INSN   = -10121, /* undecodable instruction */
	PK_PT_ERR_BAD_QUERY  = -10122, /* trace does not match the code */
	PK_PT_ERR_NO_ENABLE  = -10123, /* expected tracing enabled event */
	PK_PT_ERR_RETSTACK   = -10124, /* compressed return without call */
	PK_PT_ERR_BAD_RETCOMP = -10125, /* not-taken compressed return */
	PK_PT_ERR_BAD_STATUS = -10126, /* PSB+ contradicts the decoded state */
	PK_PT_ERR_LOOP       = -10127, /* code that loops reading no packet */
	/* perf_binding: a branch that needs a packet met before the IP of
	 * the FUP read (perf's walk to the FUP fails there) */
	PK_PT_ERR_FUP_MISSED = -10128,
};

struct pk_pt_image;

/* An empty image. NULL with errno ENOMEM. */
PK_API struct pk_pt_image *pk_pt_image_new(void);
/* Frees IMG; NULL is fine. */
PK_API void pk_pt_image_free(struct pk_pt_image *img);
/*
 * Maps SIZE bytes (0: to the end) of file PATH from file offset OFFSET at
 * virtual address ADDR. Later mappings hide earlier ones where they
 * overlap. 0, -errno (file), PK_ERR_RANGE (offset/size beyond the file).
 */
PK_API int pk_pt_image_add_file(struct pk_pt_image *img, const char *path,
				uint64_t offset, uint64_t size, uint64_t addr);
/*
 * Maps the executable PT_LOAD segments of the ELF file PATH at their
 * virtual addresses plus BIAS (the load address of a PIE or shared
 * object; 0 for a fixed executable). Returns the number of segments
 * mapped (> 0), -errno, or PK_ERR_FORMAT (not an ELF file, or no
 * executable segment).
 */
PK_API int pk_pt_image_add_elf(struct pk_pt_image *img, const char *path,
			       uint64_t bias);
/* Maps a copy of LEN bytes at DATA at virtual address ADDR (tests, JIT
 * code, memory dumps). 0 or -ENOMEM. */
PK_API int pk_pt_image_add_buf(struct pk_pt_image *img, const void *data,
			       size_t len, uint64_t addr);
/* Copies up to LEN bytes at ADDR into BUF; returns the count (0 when
 * nothing is mapped at ADDR). */
PK_API size_t pk_pt_image_read(const struct pk_pt_image *img, uint64_t addr,
			       uint8_t *buf, size_t len);

enum pk_pt_exec_mode {
	PK_PT_MODE_UNKNOWN = 0,
	PK_PT_MODE_16,
	PK_PT_MODE_32,
	PK_PT_MODE_64,
};

/* Instruction classes, as far as the flow is concerned. */
enum pk_pt_iclass {
	PK_PT_IC_ERROR = 0,
	PK_PT_IC_OTHER,
	PK_PT_IC_CALL,		/* near direct call */
	PK_PT_IC_RETURN,	/* near return */
	PK_PT_IC_JUMP,		/* near direct jump */
	PK_PT_IC_COND_JUMP,
	PK_PT_IC_CALL_IND,	/* near indirect call */
	PK_PT_IC_JUMP_IND,	/* near indirect jump */
	PK_PT_IC_FAR_CALL,	/* far call, int, syscall, sysenter, vmcall */
	PK_PT_IC_FAR_RETURN,	/* far ret, iret, sysret, sysexit, vm entry */
	PK_PT_IC_FAR_JUMP,
	PK_PT_IC_PTWRITE,
	PK_PT_IC_MOV_CR3,
};

struct pk_pt_insn {
	uint64_t ip;
	uint8_t size;		/* bytes */
	uint8_t iclass;		/* enum pk_pt_iclass */
	uint8_t mode;		/* enum pk_pt_exec_mode */
	uint8_t speculative;	/* inside a TSX transaction */
	uint8_t raw[15];
};

enum pk_pt_event_type {
	PK_PT_EV_ENABLED = 1,	/* ip; resumed */
	PK_PT_EV_DISABLED,	/* ip unless ip_suppressed */
	PK_PT_EV_ASYNC_DISABLED, /* at; ip unless ip_suppressed */
	PK_PT_EV_ASYNC_BRANCH,	/* from; to (ip) */
	PK_PT_EV_PAGING,	/* cr3, nr; ip for the asynchronous kind */
	PK_PT_EV_OVERFLOW,	/* ip unless ip_suppressed */
	PK_PT_EV_EXEC_MODE,	/* mode; ip */
	PK_PT_EV_TSX,		/* speculative, aborted; ip */
	PK_PT_EV_STOP,
	PK_PT_EV_VMCS,		/* base */
	PK_PT_EV_EXSTOP,	/* ip */
	PK_PT_EV_MWAIT,		/* hints, ext; ip */
	PK_PT_EV_PWRE,		/* state, sub_state, hw */
	PK_PT_EV_PWRX,		/* last, deepest, wake reasons */
	PK_PT_EV_PTWRITE,	/* payload; ip */
	PK_PT_EV_TICK,		/* ip */
	PK_PT_EV_CBR,		/* ratio */
	PK_PT_EV_MNT,		/* payload */
	PK_PT_EV_TRIG,		/* trbv, mult, icnt; ip */
	PK_PT_EV_IFLAGS,	/* iflag; ip */
	PK_PT_EV_CFE,		/* cfe_type, vector, evd payloads; ip */
	PK_PT_EV_PSB,		/* offset; ip: the PSB+'s FUP unless
				   ip_suppressed (psb_events option) */
	PK_PT_EV_CYC,		/* cycles; ip_suppressed: tracing off
				   (cyc_events option) */
	/* perf_binding: a FUP perf's decoder takes on its own, no TIP
	 * after it and no event waiting for it (with tracing on its
	 * mismatch error; after an error where it takes the flow up
	 * again); ip; enabled: tracing was on */
	PK_PT_EV_FUP,
	/* perf_binding: a packet perf's decoder cannot read though libipt
	 * does (MODE.TSX with InTX and TXAbort both set): its bad packet
	 * error where the flow stands, the transaction state cleared */
	PK_PT_EV_BAD_PACKET,
	/* perf_packets (the config's): a BEP ended a record of block
	 * items (PEBS via Intel PT); u.blk.items the items since the BBP
	 * that began it. A BEP without IP is delivered where the flow
	 * stands when the packet is read (ip_suppressed); a BEP.IP takes
	 * the FUP right after it (ip; none: the record is lost), as a FUP
	 * no TIP follows, where perf's decoder delivers it. */
	PK_PT_EV_BLK_ITEMS,
};

/* The block types perf knows (BBP type: its position in the items). */
enum pk_pt_blk_pos {
	PK_PT_BLK_GP_REGS,	/* type 1: rflags, rip, rax, rcx, rdx, rbx,
				   rsp, rbp, rsi, rdi, r8 .. r15 */
	PK_PT_BLK_PEBS_BASIC,	/* type 4: ip, applicable counters, tsc */
	PK_PT_BLK_PEBS_MEM,	/* type 5: address, aux info, latency,
				   tsx aux info */
	PK_PT_BLK_LBR_0,	/* types 8, 9, 10: from, to, info ... */
	PK_PT_BLK_LBR_1,
	PK_PT_BLK_LBR_2,
	PK_PT_BLK_XMM,		/* type 16 */
	PK_PT_BLK_NPOS,
};
#define PK_PT_BLK_ITEM_IDS 32

/* The block items of one PEBS record as perf's decoder gathers them
 * (BIP ID k of a block of type at position p: val[p][k], mask[p] bit
 * k); items of unknown types or IDs are left out. */
struct pk_pt_blk_items {
	uint32_t mask[PK_PT_BLK_NPOS];
	uint8_t is_32_bit;	/* the GP registers block had 4-byte items */
	uint64_t val[PK_PT_BLK_NPOS][PK_PT_BLK_ITEM_IDS];
};
/* The position of block TYPE (a BBP's), or -1 when perf knows none. */
PK_API int pk_pt_blk_pos(unsigned type);

#define PK_PT_MAX_EVD 4

struct pk_pt_event {
	uint8_t type;		/* enum pk_pt_event_type */
	uint8_t ip_suppressed;
	uint8_t status_update;	/* restates state (PSB+); not a change */
	uint8_t has_tsc;
	uint64_t tsc;
	uint64_t ip;		/* the event's IP (to: for async branch) */
	uint64_t at;		/* from/at: async branch and disable */
	union {
		struct { uint8_t resumed; } enabled;
		struct { uint64_t cr3; uint8_t nr; } paging;
		/* fup: (perf_binding) at a FUP no TIP follows */
		struct { uint8_t mode, iflag, fup; } exec_mode;
		struct { uint8_t speculative, aborted; } tsx;
		struct { uint64_t base; } vmcs;
		struct { uint32_t hints, ext; } mwait;
		/* payload: the packet's (see struct pk_pt_packet) */
		struct { uint8_t state, sub_state, hw; uint16_t payload; } pwre;
		struct { uint8_t last, deepest, interrupt, store,
			 autonomous; uint64_t payload; } pwrx;
		struct { uint64_t payload; } ptwrite;
		/* cut: of a PSB+ the trace ended in (perf's decoder takes
		 * the ratio, its sample waits for a later state) */
		struct { uint8_t ratio, cut; } cbr;
		struct { uint64_t payload; } mnt;
		struct { uint8_t trbv, mult, icntv; uint16_t icnt; } trig;
		struct { uint8_t iflag, fup; } iflags;
		/* cut: the trace ended inside its PSB+ (perf's decoder
		 * moved its PSB offset there but makes no psb sample) */
		struct { uint64_t offset; uint8_t cut; } psb;
		struct { uint64_t cycles; } cyc;
		struct { uint8_t enabled; } fup;
		/* BAD_PACKET (perf_binding): the byte perf's decoder reads
		 * after the packet it rejects, as the next packet */
		struct { uint8_t byte; } bad;
		/* the decoder's copy, valid until the decoder is freed or
		 * has delivered 64 more events */
		struct { const struct pk_pt_blk_items *items; } blk;
		struct {
			uint8_t type, vector, has_cr2, has_vmxq, has_vmxr;
			uint64_t cr2, vmxq, vmxr;
			/* perf_binding: the EVDs before it in their order
			 * (the first PK_PT_MAX_EVD), perf's IP field of
			 * its sample, and whether perf's state at its FUP
			 * (one no TIP follows) is also a branch from the
			 * FUP to 0 (a CFE without IP bit, tracing on);
			 * tx: a MODE.TSX at its FUP begins a transaction */
			uint8_t nevd, ip_bit, ip_flag, fup_branch, tx;
			uint8_t evd_type[4];
			uint64_t evd[4];
		} cfe;
	} u;
};

/* Status bits returned by the functions below (>= 0). */
enum {
	PK_PT_STS_EVENT = 1 << 0,	/* an event is pending */
	PK_PT_STS_EOS = 1 << 1,		/* the trace ended */
	PK_PT_STS_IP_SUPPRESSED = 1 << 2, /* ... with tracing disabled */
};

/* Flow decoder options. Declare with PK_OPTS(pk_pt_insn_opts, o, ...). */
struct pk_pt_insn_opts {
	size_t sz;
	uint8_t tick_events;	/* report PK_PT_EV_TICK on time changes */
	uint8_t cbr_events;	/* report PK_PT_EV_CBR */
	/* report PK_PT_EV_IFLAGS (MODE.Exec IF); 2: only those of a
	 * MODE.Exec right before a FUP (perf_binding: perf's state there
	 * is a change of the flag even when it stays) */
	uint8_t iflags_events;
	uint8_t keep_tcal_on_ovf;
	/* IP filter ranges (IA32_RTIT_ADDRn_A/B; cfg 1 = FilterEn,
	 * 2 = TraceStop); used for erratum SKL014 */
	uint8_t addr_cfg[4];
	uint64_t addr_a[4], addr_b[4];
	/* report PK_PT_EV_PSB at each PSB, and PK_PT_EV_CBR also for the
	 * CBR of a PSB+ (perf's view: its psb and cbr samples) */
	uint8_t psb_events;
	/* bind events as perf's decoder does (its synthesized ptwrite and
	 * power samples): PTWRITE without IP, PWRE without MWAIT, EXSTOP
	 * without IP and PWRX where the flow stands (no waiting for a
	 * PTWRITE instruction, an EXSTOP or a PWRX); MWAIT, and a PWRE
	 * after it, at the next FUP */
	uint8_t perf_binding;
	/* report PK_PT_EV_CYC for each CYC packet outside a PSB+, where
	 * the flow stands when the packet is read (perf's IPC) */
	uint8_t cyc_events;
};

struct pk_pt_insn_decoder;

/*
 * A flow decoder over the PT stream BUF[0..LEN) and IMAGE (both borrowed).
 * NULL with errno EINVAL or ENOMEM.
 */
PK_API struct pk_pt_insn_decoder *
pk_pt_insn_decoder_new(const uint8_t *buf, size_t len,
		       const struct pk_pt_config *config,
		       const struct pk_pt_image *image,
		       const struct pk_pt_insn_opts *opts);
PK_API void pk_pt_insn_decoder_free(struct pk_pt_insn_decoder *dec);

/* Synchronises at the next PSB. Status bits, PK_ERR_EOS at the end. */
PK_API int pk_pt_insn_sync_forward(struct pk_pt_insn_decoder *dec);
/* The next instruction in *INSN. Status bits for what follows it, or an
 * error (on error *INSN may still hold the instruction at the failing IP
 * with iclass != PK_PT_IC_ERROR). */
PK_API int pk_pt_insn_next(struct pk_pt_insn_decoder *dec,
			   struct pk_pt_insn *insn);
/* A run of instructions ending in a branch (or the next event). */
struct pk_pt_block {
	uint64_t ip;		/* first instruction */
	uint64_t end_ip;	/* last instruction */
	uint32_t ninsn;
	uint8_t mode;		/* enum pk_pt_exec_mode */
	uint8_t speculative;
	uint8_t end_iclass;	/* class of the last instruction */
	uint8_t end_size;	/* its length in bytes */
};

/*
 * Like pk_pt_insn_next() but advances over a whole block of instructions
 * at once where no event can intervene (the block cache makes this cost
 * one lookup per block). Status bits or an error; on error *BLK holds the
 * instructions done (possibly none), the last one the instruction whose
 * flow failed when it could be decoded (as pk_pt_insn_next() returns it
 * with the error), and END_IP the address where decoding stopped.
 */
PK_API int pk_pt_insn_next_block(struct pk_pt_insn_decoder *dec,
				 struct pk_pt_block *blk);

/*
 * pk_pt_insn_next_block() called for as long as it returns 0 (no event
 * pending, not the end), up to some thousands of blocks, for callers that
 * only count: *NINSN the instructions of all those blocks, *BLK the last
 * one (as that call left it). Runs of blocks that the next TNT bits
 * decide go at once. Returns what the last pk_pt_insn_next_block() call
 * would: status bits or an error; 0 when it stopped at its limit (call
 * again).
 */
PK_API int pk_pt_insn_next_blocks(struct pk_pt_insn_decoder *dec,
				  struct pk_pt_block *blk, uint64_t *ninsn);

/* The pending event in *EV. Status bits or an error. */
PK_API int pk_pt_insn_event(struct pk_pt_insn_decoder *dec,
			    struct pk_pt_event *ev);
/*
 * After an error from pk_pt_insn_next(): continue without a PSB. The flow
 * IP is forgotten and taken from the next packet or event that gives one
 * (TIP, FUP+TIP, TIP.PGE, OVF+FUP, PSB+ FUP). Status bits or an error.
 */
PK_API int pk_pt_insn_resync(struct pk_pt_insn_decoder *dec);

/* Offset in the PT stream of the decoder's packet position (as libipt
 * reports it: after the last packet decoded). */
PK_API int pk_pt_insn_offset(const struct pk_pt_insn_decoder *dec,
			     uint64_t *offset);

/* The address of the next instruction, when the flow knows it (after a
 * branch, once its outcome was read): 0, or PK_ERR_NOSYNC. */
PK_API int pk_pt_insn_next_ip(const struct pk_pt_insn_decoder *dec,
			      uint64_t *ip);

/* Decodes from now on over IMG (borrowed), e.g. another process's code
 * after a context switch; what was cached from the old image is dropped.
 * 0, or PK_ERR_INTERNAL. */
PK_API int pk_pt_insn_set_image(struct pk_pt_insn_decoder *dec,
				const struct pk_pt_image *img);

/* The instruction at IP in MODE as the decoder knows it (from its cache,
 * else decoded from its image and kept), for callers that step through
 * the instructions of a block pk_pt_insn_next_block() returned: ip,
 * size, iclass and mode are set; the bytes only on a miss (read them
 * with pk_pt_image_read() when wanted). The flow is not moved. 0, or
 * PK_PT_ERR_NOMAP / PK_PT_ERR_BAD_INSN. */
PK_API int pk_pt_insn_at(struct pk_pt_insn_decoder *dec, uint64_t ip,
			 enum pk_pt_exec_mode mode, struct pk_pt_insn *insn);

/* The work done so far: PACKETS decoded (look-aheads and re-reads
 * counted again) and INSNS instructions walked. A damaged trace must not
 * cost much more than a sound one of its size (tests compare them). 0 or
 * PK_ERR_INTERNAL. */
PK_API int pk_pt_insn_work(const struct pk_pt_insn_decoder *dec,
			   uint64_t *packets, uint64_t *insns);

/* TNT bits read but not yet used by conditional branches: a decoder
 * that reads packets only when it needs one (perf's) meets the packets
 * after them once these run out. */
PK_API int pk_pt_insn_tnt_left(const struct pk_pt_insn_decoder *dec);

/* The TSC of the decoder's position: as of the last branch query (the
 * TNT or TIP that decided the flow so far), else of the last timing
 * packet read. 0, or PK_PT_ERR_NO_TIME when none was seen. */
PK_API int pk_pt_insn_time(const struct pk_pt_insn_decoder *dec,
			   uint64_t *tsc);

/* Decodes the instruction at IP (for tools): 0 or PK_PT_ERR_NOMAP /
 * PK_PT_ERR_BAD_INSN. */
PK_API int pk_pt_insn_decode(const struct pk_pt_image *img, uint64_t ip,
			     enum pk_pt_exec_mode mode, struct pk_pt_insn *insn,
			     uint64_t *target);

/* Intel-syntax disassembly of INSN (its raw bytes, mode and ip) into BUF
 * of LEN bytes. 0, PK_PT_ERR_BAD_INSN, or PK_ERR_RANGE if BUF is too
 * small. */
PK_API int pk_pt_insn_disasm(const struct pk_pt_insn *insn, char *buf,
			     size_t len);

/* The same in AT&T syntax, spelled as Intel's xed prints it with -A
 * where Zydis can ("movq 0x8(%rsp), %rsi", "pushq %rsi"; other
 * mnemonics keep Zydis's spelling, without xed's size suffix). */
PK_API int pk_pt_insn_disasm_att(const struct pk_pt_insn *insn, char *buf,
				 size_t len);

#ifdef __cplusplus
}
#endif
#endif
