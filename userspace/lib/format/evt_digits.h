/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers as the event lines write them (evt_format.c, its only user):
 * decimal and upper-case hex, by hand (no printf on the per-event path).
 * The _wide writers put 8 digits at a time and may write up to 8 bytes
 * past the end they return: only into a line's room, which holds them.
 */
#ifndef EVT_DIGITS_H
#define EVT_DIGITS_H

#include <stdint.h>
#include <string.h>

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline unsigned int ndigits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL,
		10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL,
	};
	/* log10 from the bit length (at most 19), then one correction. */
	unsigned int t = (unsigned int)((64 - __builtin_clzll(v | 1)) * 1233) >> 12;

	return v ? t + (v >= pow10[t]) : 1;
}

/* Decimal digits of @v at @p, written in place: the end. */
static inline char *put_u64(char *p, uint64_t v)
{
	char *e = p + ndigits(v), *q = e;
	uint32_t w;

	/* 64-bit divisions only while they are needed: a 32-bit one is cheaper. */
	while (v > UINT32_MAX) {
		const uint32_t r = (uint32_t)(v % 10000);

		v /= 10000;
		q -= 4;
		memcpy(q, digits2 + (r / 100) * 2, 2);
		memcpy(q + 2, digits2 + (r % 100) * 2, 2);
	}
	w = (uint32_t)v;
	while (w >= 100) {
		const uint32_t d = (w % 100) * 2;

		w /= 100;
		q -= 2;
		memcpy(q, digits2 + d, 2);
	}
	if (w >= 10) {
		q -= 2;
		memcpy(q, digits2 + w * 2, 2);
	} else {
		*--q = (char)('0' + w);
	}
	return e;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * The 8 decimal digits of @v (< 10^8), zero-padded, as 8 bytes that land
 * most significant digit first when stored: the digits found lane by lane
 * in one register (halves of 4 digits in 32-bit lanes, then pairs in 16-bit
 * lanes, then digits in bytes), with multiplications for the divisions.
 * Checked against every value below 10^8 (unit test format_digits8).
 */
static inline uint64_t digits8(uint32_t v)
{
	const uint64_t halves = (v / 10000) | ((uint64_t)(v % 10000) << 32);
	const uint64_t top = ((halves * 10486) >> 20) & ((0x7FULL << 32) | 0x7FULL);
	const uint64_t pairs = ((halves - 100 * top) << 16) + top;
	uint64_t tens = (pairs * 103) >> 10;

	tens &= (0xFULL << 48) | (0xFULL << 32) | (0xFULL << 16) | 0xFULL;
	tens += (pairs - 10 * tens) << 8;
	return tens + 0x3030303030303030ULL;
}

/* The last @nd (1-8) digits of @v at @p, in one 8-byte store: the end. */
static inline char *put_digits8(char *p, uint32_t v, unsigned int nd)
{
	const uint64_t w = digits8(v) >> (8 * (8 - nd));

	memcpy(p, &w, 8);
	return p + nd;
}

/*
 * put_u64() for the line's room: the same digits, written 8 at a time, so
 * it may write up to 8 bytes past the end it returns. Only where the room
 * asked for (a line's bound) holds them.
 */
static inline char *put_u64_wide(char *p, uint64_t v)
{
	uint64_t hi;

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100000000)
		return put_digits8(p, (uint32_t)v, ndigits(v));
	if (v < 10000000000000000ULL) {
		hi = v / 100000000;
		p = put_digits8(p, (uint32_t)hi, ndigits(hi));
		return put_digits8(p, (uint32_t)(v - hi * 100000000), 8);
	}
	hi = v / 10000000000000000ULL;
	v -= hi * 10000000000000000ULL;
	p = put_digits8(p, (uint32_t)hi, ndigits(hi));
	p = put_digits8(p, (uint32_t)(v / 100000000), 8);
	return put_digits8(p, (uint32_t)(v % 100000000), 8);
}

#else
#define put_u64_wide put_u64
#endif

/* Exactly 9 digits. */
static inline void put9(char *out, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t w = digits8(v % 100000000);

	out[0] = (char)('0' + v / 100000000);
	memcpy(out + 1, &w, 8);
#else
	unsigned int a = v / 10000000, b = (v / 100000) % 100, c = (v / 1000) % 100,
		     d = (v / 10) % 100, e = v % 10;

	out[0] = digits2[a * 2];
	out[1] = digits2[a * 2 + 1];
	out[2] = digits2[b * 2];
	out[3] = digits2[b * 2 + 1];
	out[4] = digits2[c * 2];
	out[5] = digits2[c * 2 + 1];
	out[6] = digits2[d * 2];
	out[7] = digits2[d * 2 + 1];
	out[8] = (char)('0' + e);
#endif
}

/* Two upper-case hex digits per byte value. */
static const char hex2[513] =
	"000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
	"202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F"
	"404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F"
	"606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F"
	"808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9F"
	"A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF"
	"C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDF"
	"E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF";

/* Upper case, as babeltrace2 prints: its digits from the end, a byte at a time. */
static inline char *put_hex(char *p, uint64_t v)
{
	unsigned int nd = v ? (67 - (unsigned int)__builtin_clzll(v)) / 4 : 1;
	char *const e = p + 2 + nd, *q = e;

	p[0] = '0';
	p[1] = 'x';
	for (; nd >= 2; nd -= 2, v >>= 8) {
		q -= 2;
		memcpy(q, hex2 + (v & 0xff) * 2, 2);
	}
	if (nd)
		q[-1] = hex2[(v & 0xf) * 2 + 1];
	return e;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * The 8 upper-case hex digits of @v as 8 bytes that land most significant
 * first when stored: the nibbles spread one to a byte, then each byte
 * turned into its digit ('0' + n, and 7 more from 10 on: 'A').
 */
static inline uint64_t hex8(uint32_t v)
{
	uint64_t x = v;

	x = ((x & 0xFFFF0000ULL) << 16) | (x & 0xFFFFULL);
	x = ((x & 0x0000FF000000FF00ULL) << 8) | (x & 0x000000FF000000FFULL);
	x = ((x & 0x00F000F000F000F0ULL) << 4) | (x & 0x000F000F000F000FULL);
	x = __builtin_bswap64(x);
	return x + 0x3030303030303030ULL + 7 * (((x + 0x7676767676767676ULL) >> 7) & 0x0101010101010101ULL);
}

/* put_hex() 8 digits at a time: up to 8 bytes past the end it returns, as put_u64_wide(). */
static inline char *put_hex_wide(char *p, uint64_t v)
{
	const unsigned int nd = v ? (67 - (unsigned int)__builtin_clzll(v)) / 4 : 1;
	uint64_t w;

	p[0] = '0';
	p[1] = 'x';
	p += 2;
	if (nd > 8) {
		w = hex8((uint32_t)(v >> 32)) >> (8 * (16 - nd));
		memcpy(p, &w, 8);
		p += nd - 8;
		w = hex8((uint32_t)v);
		memcpy(p, &w, 8);
		return p + 8;
	}
	w = hex8((uint32_t)v) >> (8 * (8 - nd));
	memcpy(p, &w, 8);
	return p + nd;
}
#else
#define put_hex_wide put_hex
#endif

static inline char *put_s64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* put_s64() by put_u64_wide(): the same room past the end. */
static inline char *put_s64_wide(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64_wide(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64_wide(p, (uint64_t)v);
}

#endif /* EVT_DIGITS_H */
