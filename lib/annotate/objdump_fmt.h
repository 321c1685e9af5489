/* SPDX-License-Identifier: MIT */
/* Internal: instructions spelled as GNU objdump spells them. */
#ifndef PK_ANNOTATE_OBJDUMP_FMT_H
#define PK_ANNOTATE_OBJDUMP_FMT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <Zydis/Zydis.h>
#include "base/base.h"

struct pk__objdump_ctx {
	/* " <sym+0xOFF>" for address T ("" when none) into BUF */
	void (*label)(void *arg, uint64_t t, char *buf, size_t len);
	void *arg;
};

struct pk__objdump_insn {
	char text[400];
	bool has_target, has_rip;
	uint64_t target, rip;
};

/*
 * Decodes the instruction at B (LEN bytes available, address VA) into
 * OUT: AT&T, or Intel (objdump -M intel) with INTEL_SYNTAX. Returns
 * its length; 1 and "(bad)" for bytes that do not decode.
 */
int pk__objdump_insn(const ZydisDecoder *dec, bool intel_syntax,
		     const uint8_t *b, size_t len, uint64_t va,
		     const struct pk__objdump_ctx *c, struct pk__objdump_insn *out);
#endif
