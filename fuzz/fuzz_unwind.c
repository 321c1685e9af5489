/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the DWARF unwinder over arbitrary registers and stack
 * bytes, against this process's own mappings (so the CFI of real files is
 * used): the ip and sp are taken as they come or near real code and a
 * plausible stack, the copy's declared size may exceed its bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/session.h>
#include <perfkit/synth.h>
#include <perfkit/unwind.h>

static struct pk_session *sess;
static struct pk_unwind *uw;

static int feed(const struct perf_event_header *h, void *arg)
{
	pk_session_process(arg, h);
	return 0;
}

static int setup(void)
{
	PK_OPTS(pk_session_opts, o, .kallsyms = "");

	sess = pk_session_new(&o);
	if (!sess || pk_synth_process(getpid(), feed, sess, NULL))
		return -1;
	uw = pk_unwind_new(sess);
	return uw ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t vals[8] = { 0 }, ips[PK_UNWIND_MAX_STACK];
	struct pk_sample sm;
	uint8_t mode;

	if (!uw && setup())
		return 0;
	if (size < 1)
		return 0;
	mode = data[0];
	memcpy(vals, data + 1, size - 1 < sizeof(vals) ? size - 1 : sizeof(vals));
	/* bx bp sp ip r12 r13 r14 r15 in perf's bit order */
	if (mode & 1)
		vals[3] = (uint64_t)(uintptr_t)&LLVMFuzzerTestOneInput +
			  (vals[3] & 0xffff) - 0x8000;
	if (mode & 2)
		vals[2] = 0x7ffd00000000ull + (vals[2] & 0xfff);
	memset(&sm, 0, sizeof(sm));
	sm.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			 PERF_SAMPLE_CALLCHAIN;
	sm.pid = sm.tid = (uint32_t)getpid();
	sm.regs_user.abi = (mode & 4) ? 0 : PERF_SAMPLE_REGS_ABI_64;
	sm.regs_user.mask = 1ull << 1 | 1ull << 6 | 1ull << 7 | 1ull << 8 |
			    0xfull << 20;
	sm.regs_user.nr = (mode & 8) ? 3 : 8;
	sm.regs_user.regs = vals;
	if (size > 65) {
		sm.stack_user.data = data + 65;
		sm.stack_user.size = size - 65;
		sm.stack_user.dyn_size = sm.stack_user.size +
					 ((mode & 16) ? 8 : 0);
	}
	pk_unwind_sample(uw, sm.pid, &sm, ips, (mode & 32) ? 2 :
			 PK_UNWIND_MAX_STACK);
	return 0;
}
