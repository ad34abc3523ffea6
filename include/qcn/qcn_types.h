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

/* (a * b) >> 32 for a uniform 32-bit random value: uniform pick in [0, n) */
static inline u64 qcn_scale_rnd(u64 n, u32 rnd)
{
	/* n < 2^32 in every caller (byte counts and backlogs) */
	return (n * (u64)rnd) >> 32;
}

#endif /* _QCN_TYPES_H */
