/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * QCN congestion point (CP) core: Fb (eq. 1 of Alizadeh et al., "Data
 * Center Transport Mechanisms: Congestion Control Theory and IEEE
 * Standardization"), its 6-bit quantization, the |Fb|-dependent sampling
 * interval and the keep-alive decision.  Pure integer C.
 *
 * API CONTRACT (bodies are filled in by the cores work, issue #3):
 */
#ifndef _QCN_CP_H
#define _QCN_CP_H

#include "qcn_types.h"

#define QCN_QFB_BITS		6
#define QCN_QFB_MAX		63
#define QCN_CP_W_EXP_MIN	(-10)
#define QCN_CP_W_EXP_MAX	10
#define QCN_CP_DEF_QEQ		26000	/* bytes (IEEE8021-CN-MIB) */
#define QCN_CP_DEF_W_EXP	1	/* w = 2 */
#define QCN_CP_DEF_INTERVAL	150000	/* bytes */
#define QCN_CP_MIN_INTERVAL	10000	/* bytes */

struct qcn_cp_params {
	u32 qeq;		/* Qeq, bytes */
	s32 w_exp;		/* w = 2^w_exp */
	u32 interval;		/* base sample interval, bytes (150000) */
};

/* Per-CP sampling state. */
struct qcn_cp {
	u32 qold;		/* Q at the previous sample */
	s64 countdown;		/* bytes of arrivals until the next sample */
	s64 last_fb;		/* Fb of the last sample (eq. 1) */
	u8 last_qfb;
};

/* Result of one sampling instant. */
struct qcn_cp_sample {
	s64 fb;			/* eq. 1, bytes; < 0 means congestion */
	u8 qfb;			/* quantized |Fb|, 0 when fb >= 0 */
	s32 qoff;		/* Q - Qeq, bytes (saturated to s32) */
	s32 qdelta;		/* Q - Qold, bytes (saturated to s32) */
	bool congested;		/* fb < 0: a CNM is due */
};

/* Set defaults / start state (countdown = one base interval, qold = 0). */
static inline void qcn_cp_params_default(struct qcn_cp_params *p);
static inline void qcn_cp_init(struct qcn_cp *cp, const struct qcn_cp_params *p, u32 rnd);

/* eq. (1): Fb = -(Qoff + w * Qdelta), Qoff = Q - Qeq, Qdelta = Q - Qold. */
static inline s64 qcn_cp_fb(u32 q, u32 qold, u32 qeq, s32 w_exp);

/*
 * Quantize |Fb| to 6 bits: Fbmax = (2w + 1) * Qeq, the |Fb| of a queue at
 * 2*Qeq that grew by 2*Qeq since the last sample;
 * qFb = min(63, floor(|Fb| * 64 / Fbmax)); 0 when Fb >= 0.
 */
static inline u8 qcn_cp_quantize(s64 fb, u32 qeq, s32 w_exp);

/*
 * Next sampling interval in bytes: base * {1, 1/2, 1/3, ..} following the
 * standard's table indexed by qfb / 8 (150000, 75000, 50000, 37500, 30000,
 * 25000, 21500, 18500 for base 150000), times a uniform factor in
 * [0.85, 1.15] drawn from rnd (uniform u32).
 */
static inline u32 qcn_cp_interval(u8 qfb, u32 base, u32 rnd);

/*
 * Account one arrival of len bytes, q = queue size in bytes after the
 * enqueue.  Returns true when this arrival is a sampling instant; then *s
 * is filled, cp->qold = q and the countdown reloads from qcn_cp_interval().
 */
static inline bool qcn_cp_arrival(struct qcn_cp *cp, const struct qcn_cp_params *p,
				  u32 len, u32 q, u32 rnd, struct qcn_cp_sample *s);

/* Take a sample now (keep-alive timer); same effects as a sampling arrival. */
static inline void qcn_cp_sample_now(struct qcn_cp *cp, const struct qcn_cp_params *p,
				     u32 q, u32 rnd, struct qcn_cp_sample *s);

/*
 * Keep-alive: true when keepalive_ns != 0, q > Qeq and no frame arrived
 * for keepalive_ns (now - last_arrival >= keepalive_ns).
 */
static inline bool qcn_cp_keepalive_due(u32 q, u32 qeq, u64 now_ns,
					u64 last_arrival_ns, u64 keepalive_ns);

#endif /* _QCN_CP_H */
