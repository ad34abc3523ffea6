/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fixed-width types for the linux-qcn algorithm cores.
 *
 * The cores (qcn_cp.h, qcn_culprit.h, qcn_af.h, qcn_rp.h, qcn_cnm.h) are
 * pure integer C: no floating point, no kernel and no libc calls.  They are
 * compiled into the kernel modules and into the userspace unit tests and
 * tools, in the manner of include/net/codel_impl.h.  This header is the
 * only place that knows which side it is on.
 */
#ifndef _QCN_TYPES_H
#define _QCN_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#define qcn_div_u64(a, b)	div64_u64((a), (b))
#else
#include <stdint.h>	/* freestanding headers: no libc code is used */
#include <stdbool.h>
#include <stddef.h>
#ifndef QCN_HAVE_KERNEL_TYPES
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#endif
#define qcn_div_u64(a, b)	((u64)(a) / (u64)(b))
#endif

#define QCN_NSEC_PER_USEC	1000ULL
#define QCN_NSEC_PER_SEC	1000000000ULL

#define QCN_U32_MAX		((u32)~0U)
#define QCN_U64_MAX		((u64)~0ULL)
#define QCN_S16_MAX		((s16)0x7fff)
#define QCN_S16_MIN		((s16)(-0x7fff - 1))
#define QCN_S32_MAX		((s32)0x7fffffff)
#define QCN_S32_MIN		((s32)(-0x7fffffff - 1))

/*
 * Uniform pick in [0, n) from a uniform 32-bit random value:
 * floor(n * rnd / 2^32).  Exact for n < 2^32 (byte counts and backlogs);
 * larger n are split in two halves so the product never overflows.
 */
static inline u64 qcn_scale_rnd(u64 n, u32 rnd)
{
	if (n >> 32)
		return (n >> 32) * (u64)rnd +
		       (((n & 0xffffffffULL) * (u64)rnd) >> 32);
	return (n * (u64)rnd) >> 32;
}

static inline u64 qcn_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static inline u64 qcn_max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* a + b, saturating at 2^64 - 1 */
static inline u64 qcn_sat_add_u64(u64 a, u64 b)
{
	return a > QCN_U64_MAX - b ? QCN_U64_MAX : a + b;
}

/* a * b, saturating at 2^64 - 1 */
static inline u64 qcn_sat_mul_u64(u64 a, u64 b)
{
	if (a == 0 || b == 0)
		return 0;
	if (a > qcn_div_u64(QCN_U64_MAX, b))
		return QCN_U64_MAX;
	return a * b;
}

/*
 * floor(a * b / d) without a 128-bit product, saturating at 2^64 - 1.
 * a = q*d + r, so a*b/d = q*b + r*b/d.  Exact whenever r*b < 2^64 (always
 * true for b, d < 2^32); otherwise r and d are scaled down together, which
 * costs at most a relative error of 2^-31 on the r*b/d term.  d == 0
 * returns the saturated value.  Bounded loop, no recursion.
 */
static inline u64 qcn_mul_div_u64(u64 a, u64 b, u64 d)
{
	u64 q, r, hi, lo;

	if (d == 0)
		return QCN_U64_MAX;
	q = qcn_div_u64(a, d);
	r = a - q * d;
	hi = qcn_sat_mul_u64(q, b);
	if (r == 0 || b == 0)
		return hi;
	while (r > qcn_div_u64(QCN_U64_MAX, b)) {
		r >>= 1;
		d >>= 1;
	}
	lo = qcn_div_u64(r * b, d);
	return qcn_sat_add_u64(hi, lo);
}

/*
 * n * U(0.85, 1.15): the +-15 % jitter the standard puts on the CP sample
 * interval and the RP byte counter / timer reloads.  rnd = 0 gives
 * floor(0.85 n), rnd = 2^31 gives n (for n a multiple of 100), rnd =
 * 2^32 - 1 gives just below 1.15 n.  n * 85 / 100 is computed as
 * (n / 100) * 85 + (n % 100) * 85 / 100, so any u64 n works.
 */
static inline u64 qcn_jitter_u64(u64 n, u32 rnd)
{
	u64 q = qcn_div_u64(n, 100);
	u32 r = (u32)(n - q * 100);		/* < 100: 32-bit arithmetic */
	u64 lo = q * 85 + (r * 85U) / 100U;
	u64 span = q * 30 + (r * 30U) / 100U;

	return lo + qcn_scale_rnd(span, rnd);
}

/*
 * A second, different uniform value derived from one random draw (the
 * "lowbias32" integer hash, a bijection of u32), for functions that need
 * two independent-looking factors but get one rnd argument.
 */
static inline u32 qcn_rnd_mix(u32 x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

#endif /* _QCN_TYPES_H */
