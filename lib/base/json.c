/* SPDX-License-Identifier: MIT */
/* JSON strings (common.h): the library's one escaper. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include "base/base.h"
#include <perfkit/common.h>

/* The length of the valid UTF-8 sequence at S (N bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 :
		     s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	uint32_t cp;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	cp = len == 2 ? (uint32_t)(s[0] & 0x1f) :
	     len == 3 ? (uint32_t)(s[0] & 0x0f) : (uint32_t)(s[0] & 0x07);
	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

int pk_json_str(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	putc('"', f);
	while (i < len) {
		unsigned char ch = s[i];
		size_t u = ch >= 0x80 ? utf8_len(s + i, len - i) : 1;

		if (ch >= 0x20 && ch != '"' && ch != '\\' && u) {
			i += u;         /* passes as it is */
			run += u;
			continue;
		}
		fwrite(s + i - run, 1, run, f);
		run = 0;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else
			fprintf(f, "\\u%04x", ch);  /* a control or stray byte */
		i++;
	}
	fwrite(s + i - run, 1, run, f);
	putc('"', f);
	return ferror(f) ? -EIO : 0;
}
