/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * AF-QCN approximate-fairness controller (Kabbani et al., "AF-QCN:
 * Approximate Fairness with Quantized Congestion Notification for
 * Multi-tenanted Data Centers"), eqs. (4)-(8), Remarks 3 and 4.
 * Fixed point: alpha and beta in 1/65536 units, M_i in bytes per Ts
 * scaled by 2^8.  No floating point, no allocation.
 *
 * Interpretation choices:
 * - The amount shared by eq. (8) is the sum of the arrival estimates of
 *   the active classes, sum_{j in A} M_j.  With per-class caps (Remark 4)
 *   the shares are the weighted max-min (water-filling) allocation of that
 *   sum with the caps Max_i as the only bounds: a class's own M_i is not a
 *   demand bound (otherwise every class would get exactly its M_i and
 *   D_i would always be 0).  If every active class is capped below its
 *   weighted share, the remainder is left unallocated.
 * - Eq. (4) is evaluated on 6-bit values and rounded to nearest.  Below
 *   Qeq, Fb_QCN is 0 (the default) or, with tc's af-fb signed, negative
 *   (qcn_af_fb_qcn()): the paper does not say which.
 */
#ifndef _QCN_AF_H
#define _QCN_AF_H

#include "qcn_types.h"
#include "qcn_cp.h"

#define QCN_AF_ONE		65536	/* 1.0 in alpha/beta units */
#define QCN_AF_DEF_ALPHA	8192	/* 0.125 */
#define QCN_AF_DEF_BETA		8192	/* 0.125 */
#define QCN_AF_DEF_TS_NS	1000000	/* 1 ms */
#define QCN_AF_DEF_ACTIVE	20000	/* bytes per Ts (20 KB) */
#define QCN_AF_SHIFT		8	/* M_i and Mfair_i are bytes per Ts << 8 */
/*
 * Per-Ts byte counts (and M_i) above 2^38 bytes (400 Gb/s for 5 s) are
 * clamped so that the eq. (5) products stay below 2^63.
 */
#define QCN_AF_ARRIVED_MAX	(1ULL << 38)

struct qcn_af_params {
	u32 alpha;		/* (0, 1) in 1/65536 */
	u32 beta;		/* (0, 1) in 1/65536 */
	u64 ts_ns;		/* Ts */
	u32 active_thresh;	/* bytes per Ts */
};

/* One class or tracked flow.  Glue owns the storage. */
struct qcn_af_class {
	u32 weight;		/* W_i >= 1 (0 is treated as 1) */
	u64 max_bytes_ts;	/* Max_i as bytes per Ts, 0 = uncapped */
	u64 arrived;		/* bytes since the last update (per packet) */
	u64 m;			/* M_i, bytes per Ts << 8 (eq. 5) */
	u64 fair;		/* Mfair_i, bytes per Ts << 8 (eqs. 6/8, Remark 4) */
	u8 fb_af;		/* last Fb_AF (eq. 7) */
	bool active;		/* M_i > active_thresh (Remark 3) */
};

/* Paper section III-B: alpha 0.125, Ts 1 ms, beta 0.125, active_thresh 20 KB. */
static inline void qcn_af_params_default(struct qcn_af_params *p)
{
	p->alpha = QCN_AF_DEF_ALPHA;
	p->beta = QCN_AF_DEF_BETA;
	p->ts_ns = QCN_AF_DEF_TS_NS;
	p->active_thresh = QCN_AF_DEF_ACTIVE;
}

/* alpha, beta in (0, 1), Ts > 0. */
static inline bool qcn_af_params_valid(const struct qcn_af_params *p)
{
	return p->alpha > 0 && p->alpha < QCN_AF_ONE &&
	       p->beta > 0 && p->beta < QCN_AF_ONE && p->ts_ns > 0;
}

/* Per packet: the only packet-path work (M_i-new of eq. 5). */
static inline void qcn_af_account(struct qcn_af_class *c, u32 len)
{
	c->arrived += len;
}

static inline u64 qcn_af__weight(const struct qcn_af_class *c)
{
	return c->weight ? c->weight : 1;
}

/* Max_i << 8, saturated (0 = uncapped) */
static inline u64 qcn_af__cap(const struct qcn_af_class *c)
{
	if (c->max_bytes_ts >= (1ULL << (63 - QCN_AF_SHIFT)))
		return 1ULL << 63;
	return c->max_bytes_ts << QCN_AF_SHIFT;
}

/*
 * eq. (7): Fb_AF = floor(64 * D_i), D_i = (1 - Mfair_i / M_i)+, i.e.
 * floor(64 * (M_i - Mfair_i) / M_i), at most 63; 0 if inactive (Remark 3)
 * or M_i <= Mfair_i.
 */
static inline u8 qcn_af_fb(const struct qcn_af_class *c)
{
	u64 m = c->m, fair = c->fair, v;

	if (!c->active || m == 0 || fair >= m)
		return 0;
	if (m >= (1ULL << 57)) {		/* keep (m - fair) << 6 in range */
		m >>= 8;
		fair >>= 8;
		if (m == 0 || fair >= m)
			return 0;
	}
	v = qcn_div_u64((m - fair) << 6, m);
	return v > 63 ? 63 : (u8)v;
}

/* (1 - beta)^k in 1/65536 (k >= 1), by squaring: k EWMA steps' decay */
static inline u64 qcn_af__decay(u64 beta, u32 k)
{
	u64 r = QCN_AF_ONE, b = QCN_AF_ONE - beta;

	for (; k; k >>= 1) {
		if (k & 1)
			r = (r * b + QCN_AF_ONE / 2) >> 16;
		b = (b * b + QCN_AF_ONE / 2) >> 16;
	}
	return r;
}

/*
 * Every Ts: eq. (5) EWMA for every class, active set (Remark 3), weighted
 * max-min fair shares over active classes with caps (eq. 8, Remark 4,
 * water-filling), and Fb_AF (eq. 7) stored in c->fb_af.  cls is an array
 * of n pointers; no allocation, no recursion, O(n * (1 + number of capped
 * classes that end up saturated)).  arrived is reset to 0.
 *
 * eq. (5): M_i <- (1 - beta) M_i + beta M_i-new, rounded to nearest in the
 *          2^-8 byte unit (a constant input X converges to exactly X).
 * eq. (8): Mfair_i = W_i / sum_{j in A} W_j * sum_{j in A} M_j,
 *          A = {j : M_j > active_thresh}; Mfair_i = 0 for i not in A.
 * Remark 4: with caps, level lambda such that
 *          sum_{i in A} min(W_i lambda, Max_i) = sum_{j in A} M_j;
 *          Mfair_i = min(W_i lambda, Max_i).  Found by repeated passes:
 *          lambda = remaining sum / remaining weight; every capped class
 *          with Max_i < W_i lambda is fixed at Max_i (lambda can only grow
 *          afterwards, so a fixed class stays fixed); stop when a pass
 *          fixes nothing.  During the passes c->fair != 0 marks "fixed".
 *
 * After `periods` Ts (a late timer: periods > 1) the bytes arrived span
 * them all: eq. (5) is applied `periods` times with the per-Ts mean
 * arrived / periods as M_i-new, in closed form
 * M_i <- (1 - beta)^k M_i + (1 - (1 - beta)^k) arrived / k.
 */
static inline void qcn_af_update_periods(struct qcn_af_class *const *cls,
					 u32 n, const struct qcn_af_params *p,
					 u32 periods)
{
	u64 beta = p->beta > QCN_AF_ONE ? QCN_AF_ONE : p->beta;
	u64 thresh = (u64)p->active_thresh << QCN_AF_SHIFT;
	u64 rem_s = 0, rem_w = 0, lambda, cap, w, keep;
	struct qcn_af_class *c;
	bool changed;
	u32 i;

	if (periods == 0)
		periods = 1;
	keep = periods == 1 ? QCN_AF_ONE - beta : qcn_af__decay(beta, periods);
	for (i = 0; i < n; i++) {
		u64 x;

		c = cls[i];
		x = periods == 1 ? c->arrived : qcn_div_u64(c->arrived, periods);
		if (x > QCN_AF_ARRIVED_MAX)
			x = QCN_AF_ARRIVED_MAX;
		c->arrived = 0;
		if (c->m > (QCN_AF_ARRIVED_MAX << QCN_AF_SHIFT))
			c->m = QCN_AF_ARRIVED_MAX << QCN_AF_SHIFT;
		/* eq. (5): both products <= 2^46 * 2^16 */
		c->m = (keep * c->m + (QCN_AF_ONE - keep) * (x << QCN_AF_SHIFT) +
			(QCN_AF_ONE / 2)) >> 16;
		c->active = c->m > thresh;		/* Remark 3 */
		c->fair = 0;
		if (c->active) {
			rem_s += c->m;
			rem_w += qcn_af__weight(c);
		}
	}

	/* Remark 4: fix the capped classes that cannot take their share */
	do {
		changed = false;
		if (rem_w == 0)
			break;
		lambda = qcn_div_u64(rem_s, rem_w);
		for (i = 0; i < n; i++) {
			c = cls[i];
			if (!c->active || c->fair || !c->max_bytes_ts)
				continue;
			w = qcn_af__weight(c);
			cap = qcn_af__cap(c);
			/* w * lambda <= rem_s: no overflow */
			if (cap < w * lambda) {
				c->fair = cap;
				rem_s = rem_s > cap ? rem_s - cap : 0;
				rem_w -= w;
				changed = true;
			}
		}
	} while (changed);

	/* eq. (8) for the others: W_i * lambda */
	lambda = rem_w ? qcn_div_u64(rem_s, rem_w) : 0;
	for (i = 0; i < n; i++) {
		c = cls[i];
		if (c->active && !c->fair)
			c->fair = qcn_af__weight(c) * lambda;
		c->fb_af = qcn_af_fb(c);
	}
}

/* One Ts (see qcn_af_update_periods()) */
static inline void qcn_af_update(struct qcn_af_class *const *cls, u32 n,
				 const struct qcn_af_params *p)
{
	qcn_af_update_periods(cls, n, p, 1);
}

/*
 * Fb_QCN of eq. (4): "the original QCN congestion measure given by (1)"
 * as a signed 6-bit number: the quantized |Fb| (qcn_cp_quantize()),
 * positive when the queue is congested (eq. 1's Fb < 0), negative below
 * the set point.  The sign matters: eq. (4)'s Fb "is only sent if
 * positive", so an uncongested queue holds back the fairness term until
 * alpha Fb_AF outweighs (1 - alpha) |Fb_QCN|.  With Fb_QCN clamped to 0
 * instead, a class offering less than its share (Fig. 11's bursty flow)
 * keeps Fb_AF > 0 for the others and cuts them with an idle link.
 */
static inline s32 qcn_af_fb_qcn(const struct qcn_cp_sample *s,
				const struct qcn_cp_params *p)
{
	if (s->congested)
		return s->qfb;
	return -(s32)qcn_cp_quantize(-s->fb, p->qeq, p->w_exp);
}

/*
 * eq. (4): Fb = (1 - alpha) Fb_QCN + alpha Fb_AF, on 6-bit values
 * (Fb_QCN signed, -63..63, see qcn_af_fb_qcn(); Fb_AF 0..63), rounded to
 * nearest (alpha in 1/65536, clamped to 1); 0 (no CNM) unless positive.
 */
static inline u8 qcn_af_combine(s32 fb_qcn, u8 fb_af, u32 alpha)
{
	s64 a = alpha > QCN_AF_ONE ? QCN_AF_ONE : alpha;
	s64 q = fb_qcn > 63 ? 63 : fb_qcn < -63 ? -63 : fb_qcn;
	s64 f = fb_af > 63 ? 63 : fb_af;
	s64 v = (QCN_AF_ONE - a) * q + a * f;

	if (v <= 0)
		return 0;
	v = (v + QCN_AF_ONE / 2) >> 16;
	return v > 63 ? 63 : (u8)v;
}

/*
 * Convert bytes/s <-> bytes per Ts (for caps and reporting):
 * rate_to_ts = floor(bytes_per_sec * Ts / 1e9) (unshifted, as
 * max_bytes_ts wants it); ts_to_rate takes a shifted M_i / Mfair_i and
 * returns floor((x / 2^8) * 1e9 / Ts) bytes/s.  Ts == 0 returns 0.
 */
static inline u64 qcn_af_rate_to_ts(u64 bytes_per_sec, u64 ts_ns)
{
	return qcn_mul_div_u64(bytes_per_sec, ts_ns, QCN_NSEC_PER_SEC);
}

static inline u64 qcn_af_ts_to_rate(u64 bytes_per_ts_shifted, u64 ts_ns)
{
	if (ts_ns == 0)
		return 0;
	return qcn_mul_div_u64(bytes_per_ts_shifted, QCN_NSEC_PER_SEC, ts_ns) >>
	       QCN_AF_SHIFT;
}

#endif /* _QCN_AF_H */
