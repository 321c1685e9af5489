/* SPDX-License-Identifier: MIT */
/* Endian-aware loads and stores for file formats. */
#ifndef PK_BASE_BYTES_H
#define PK_BASE_BYTES_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t pk_ld16(const void *p, bool big)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return big ? __builtin_bswap16(v) : v;
}
static inline uint32_t pk_ld32(const void *p, bool big)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return big ? __builtin_bswap32(v) : v;
}
static inline uint64_t pk_ld64(const void *p, bool big)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return big ? __builtin_bswap64(v) : v;
}
static inline uint64_t pk_ldn(const void *p, unsigned n, bool big)
{
	return n == 8 ? pk_ld64(p, big) : n == 4 ? pk_ld32(p, big) :
	       n == 2 ? pk_ld16(p, big) : *(const uint8_t *)p;
}
static inline void pk_st32(void *p, uint32_t v, bool big)
{
	if (big)
		v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}
static inline void pk_st64(void *p, uint64_t v, bool big)
{
	if (big)
		v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}
static inline void pk_stn(void *p, uint64_t v, unsigned n, bool big)
{
	if (n == 8)
		pk_st64(p, v, big);
	else
		pk_st32(p, (uint32_t)v, big);
}
#endif
