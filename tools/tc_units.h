/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tc_units.h - sizes, rates and times spelled as tc(8) reads them, for
 * every program of the project (the tc plugins, tools/, the selftest
 * helpers), so that one spelling means one thing everywhere.
 *
 * The suffixes and their values are iproute2's (get_size() in
 * lib/utils_math.c, get_rate64() in tc/tc_util.c, get_time() and
 * get_time64() in lib/utils.c), compared case-insensitively as tc does:
 *
 *   size (bytes)   bare or b = 1; k, kb = 1024; m, mb = 1024^2;
 *                  g, gb = 1024^3; kbit = 1024/8, mbit = 1024^2/8,
 *                  gbit = 1024^3/8
 *   rate (bit/s)   bare or bit = 1; kbit, mbit, gbit, tbit = 10^3..10^12;
 *                  kibit, mibit, gibit, tibit = 2^10..2^40;
 *                  bps = 8 (bytes/s); kbps, mbps, gbps, tbps = 8*10^3..;
 *                  kibps, mibps, gibps, tibps = 8*2^10..
 *   time (ns)      bare = us (get_time()); s, sec, secs; ms, msec, msecs;
 *                  us, usec, usecs; ns, nsec, nsecs (get_time64())
 *
 * The number is decimal, with an optional fraction and exponent (what
 * strtod() reads, minus hex, inf and nan); the result is truncated
 * toward zero as tc truncates.  Unlike tc, the arithmetic is exact
 * (integers, no binary floating point: "2.4ms" is 2400000 ns, never
 * 2399999), and a sign, blanks, or a value beyond 2^64 - 1 are errors
 * instead of wrapping.
 *
 * Each parser returns 0, or -1 when the text is not a number with a
 * known suffix, or -2 when the value does not fit in 64 bits.
 *
 * Four unitless values live here too: plain counts (digits only),
 * fractions (qcn's alpha, beta: 0 < x < 1 in units of 1/65536), gains
 * (qcn_rp's naimd-gi, naimd-gd: 0 <= x <= 1 in parts per 10^9) and powers
 * of two (qcn's and qcn_rp's w).
 */
#ifndef _QCN_TC_UNITS_H
#define _QCN_TC_UNITS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct tcu_unit {
	const char *name;
	uint64_t scale;
};

#define TCU_K	1000ULL
#define TCU_KI	1024ULL

static const struct tcu_unit tcu_size_units[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", TCU_KI }, { "kb", TCU_KI },
	{ "m", TCU_KI * TCU_KI }, { "mb", TCU_KI * TCU_KI },
	{ "g", TCU_KI * TCU_KI * TCU_KI }, { "gb", TCU_KI * TCU_KI * TCU_KI },
	{ "kbit", TCU_KI / 8 }, { "mbit", TCU_KI * TCU_KI / 8 },
	{ "gbit", TCU_KI * TCU_KI * TCU_KI / 8 },
	{ NULL, 0 }
};

static const struct tcu_unit tcu_rate_units[] = {
	{ "", 1 }, { "bit", 1 },
	{ "kibit", TCU_KI }, { "kbit", TCU_K },
	{ "mibit", TCU_KI * TCU_KI }, { "mbit", TCU_K * TCU_K },
	{ "gibit", TCU_KI * TCU_KI * TCU_KI }, { "gbit", TCU_K * TCU_K * TCU_K },
	{ "tibit", TCU_KI * TCU_KI * TCU_KI * TCU_KI },
	{ "tbit", TCU_K * TCU_K * TCU_K * TCU_K },
	{ "bps", 8 },
	{ "kibps", 8 * TCU_KI }, { "kbps", 8 * TCU_K },
	{ "mibps", 8 * TCU_KI * TCU_KI }, { "mbps", 8 * TCU_K * TCU_K },
	{ "gibps", 8 * TCU_KI * TCU_KI * TCU_KI }, { "gbps", 8 * TCU_K * TCU_K * TCU_K },
	{ "tibps", 8 * TCU_KI * TCU_KI * TCU_KI * TCU_KI },
	{ "tbps", 8 * TCU_K * TCU_K * TCU_K * TCU_K },
	{ NULL, 0 }
};

static const struct tcu_unit tcu_time_units[] = {
	{ "", TCU_K },		/* tc's get_time(): a bare number is in us */
	{ "s", TCU_K * TCU_K * TCU_K }, { "sec", TCU_K * TCU_K * TCU_K },
	{ "secs", TCU_K * TCU_K * TCU_K },
	{ "ms", TCU_K * TCU_K }, { "msec", TCU_K * TCU_K }, { "msecs", TCU_K * TCU_K },
	{ "us", TCU_K }, { "usec", TCU_K }, { "usecs", TCU_K },
	{ "ns", 1 }, { "nsec", 1 }, { "nsecs", 1 },
	{ NULL, 0 }
};

/*
 * "12.5e3kbit" -> floor(125 * 10^2 * scale(kbit)); the digits are kept as
 * an integer mantissa m and a power of ten, the product is exact in 128
 * bits (m < 2^64, scale < 2^64).
 */
static inline int tcu_parse(uint64_t *val, const char *s,
			    const struct tcu_unit *units)
{
	unsigned __int128 x, p10 = 1;
	uint64_t m = 0;
	int e10 = 0, digits = 0, i;
	const char *p = s;

	if (!s)
		return -1;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (m > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -2;
		m = m * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (m > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
				continue;	/* digits beyond 2^64: truncated */
			m = m * 10 + (uint64_t)(*p - '0');
			e10--;
		}
	}
	if (!digits)
		return -1;
	if ((*p == 'e' || *p == 'E') &&
	    ((p[1] >= '0' && p[1] <= '9') ||
	     ((p[1] == '-' || p[1] == '+') && p[2] >= '0' && p[2] <= '9'))) {
		int neg = p[1] == '-', e = 0;

		p += (p[1] == '-' || p[1] == '+') ? 2 : 1;
		for (; *p >= '0' && *p <= '9'; p++)
			if (e < 1000)
				e = e * 10 + (*p - '0');
		e10 += neg ? -e : e;
	}
	for (i = 0; units[i].name; i++)
		if (!strcasecmp(p, units[i].name))
			break;
	if (!units[i].name)
		return -1;

	x = (unsigned __int128)m * units[i].scale;
	if (e10 < 0) {
		if (e10 < -38) {
			*val = 0;
			return 0;
		}
		for (; e10 < 0; e10++)
			p10 *= 10;
		x /= p10;
	} else {
		for (; e10 > 0; e10--) {
			if (x > (unsigned __int128)UINT64_MAX)
				break;
			x *= 10;
		}
	}
	if (x > (unsigned __int128)UINT64_MAX)
		return -2;
	*val = (uint64_t)x;
	return 0;
}

/* tc's get_size(): bytes */
static inline int tcu_get_size(uint64_t *bytes, const char *s)
{
	return tcu_parse(bytes, s, tcu_size_units);
}

/* tc's get_rate64() in bit/s (get_rate64() gives bytes/s: this / 8) */
static inline int tcu_get_rate(uint64_t *bits, const char *s)
{
	return tcu_parse(bits, s, tcu_rate_units);
}

/* tc's get_time() (a bare number is in microseconds), in nanoseconds */
static inline int tcu_get_time(uint64_t *ns, const char *s)
{
	return tcu_parse(ns, s, tcu_time_units);
}

/* a plain decimal count: digits only (no sign, blanks, fraction or unit) */
static inline int tcu_get_u64(uint64_t *val, const char *s)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -2;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*val = v;
	return 0;
}

/* 0 < x < 1 -> round(x * 65536), 1..65535 (qcn's alpha and beta) */
static inline int tcu_get_frac16(uint32_t *val, const char *s)
{
	static const struct tcu_unit half[] = { { "", 2 * 65536 }, { NULL, 0 } };
	uint64_t x;
	int rc = tcu_parse(&x, s, half);

	if (rc)
		return rc;
	x = (x + 1) / 2;
	if (x < 1 || x > 65535)
		return -2;
	*val = (uint32_t)x;
	return 0;
}

/*
 * 0 <= x <= 1 -> round(x * 10^9), 0..10^9 (qcn_rp's naimd-gi, naimd-gd).
 * The decimal is read exactly to 18 places (tcu_parse() at 10^18, no
 * binary floating point: "0.53333" is 533330000, "0.0026667" 2666700),
 * so anything above 1 in those places is out of range, and then rounded
 * half up to the 10^-9 step.
 */
static inline int tcu_get_ppb(uint32_t *val, const char *s)
{
	static const struct tcu_unit e18[] = {
		{ "", 1000000000000000000ULL }, { NULL, 0 }
	};
	uint64_t x;
	int rc = tcu_parse(&x, s, e18);

	if (rc)
		return rc;
	if (x > 1000000000000000000ULL)
		return -2;
	*val = (uint32_t)((x + 500000000) / 1000000000);
	return 0;
}

/* "0.25", "2", "1024": exactly 2^e with min <= e <= max (qcn's w) -> e */
static inline int tcu_get_pow2(int *exp, const char *s, int min, int max)
{
	double v, p = 1.0;
	char *end;
	int e;

	if (!s || !((*s >= '0' && *s <= '9') || *s == '.') || strpbrk(s, "xX"))
		return -1;
	v = strtod(s, &end);
	if (end == s || *end)
		return -1;
	for (e = 0; e > min; e--)
		p /= 2;
	for (e = 0; e < min; e++)
		p *= 2;
	for (e = min; e <= max; e++, p *= 2) {
		if (v == p) {
			*exp = e;
			return 0;
		}
	}
	return -2;
}

#endif /* _QCN_TC_UNITS_H */
