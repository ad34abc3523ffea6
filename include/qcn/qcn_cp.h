/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * QCN congestion point (CP) core: Fb (eq. 1 of Alizadeh et al., "Data
 * Center Transport Mechanisms: Congestion Control Theory and IEEE
 * Standardization"), its 6-bit quantization, the |Fb|-dependent sampling
 * interval and the keep-alive decision.  Pure integer C, header-only.
 *
 * Units: queue sizes and Fb in bytes; w = 2^w_exp with w_exp in
 * [-10, 10] (out-of-range exponents are clamped).
 *
 * Quantization scale (the choice this implementation makes, see
 * qcn_cp_quantize()): Fbmax = (2w + 1) * Qeq, the |Fb| of a queue standing
 * at 2*Qeq that grew by 2*Qeq since the previous sample;
 * qFb = min(63, floor(|Fb| * 64 / Fbmax)).  With the MIB defaults (Qeq
 * 26000, w 2) Fbmax = 130000 bytes: |Fb| < 2032 gives qFb 0, qFb 1 from
 * 2032, qFb 62 from 125938, qFb 63 from 127969.
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
	bool congested;		/* fb < 0: a CNM is due (qfb may still be 0) */
};

static inline s32 qcn_cp__clamp_w(s32 w_exp)
{
	if (w_exp < QCN_CP_W_EXP_MIN)
		return QCN_CP_W_EXP_MIN;
	if (w_exp > QCN_CP_W_EXP_MAX)
		return QCN_CP_W_EXP_MAX;
	return w_exp;
}

static inline s32 qcn_cp__sat_s32(s64 v)
{
	if (v > QCN_S32_MAX)
		return QCN_S32_MAX;
	if (v < QCN_S32_MIN)
		return QCN_S32_MIN;
	return (s32)v;
}

/* MIB defaults: Qeq 26000 bytes, w 2 (w_exp 1), base interval 150000 bytes. */
static inline void qcn_cp_params_default(struct qcn_cp_params *p)
{
	p->qeq = QCN_CP_DEF_QEQ;
	p->w_exp = QCN_CP_DEF_W_EXP;
	p->interval = QCN_CP_DEF_INTERVAL;
}

/* Ranges of the MIB: w_exp in [-10, 10], interval >= 10000 bytes. */
static inline bool qcn_cp_params_valid(const struct qcn_cp_params *p)
{
	return p->w_exp >= QCN_CP_W_EXP_MIN && p->w_exp <= QCN_CP_W_EXP_MAX &&
	       p->interval >= QCN_CP_MIN_INTERVAL;
}

/*
 * eq. (1) from its terms: Fb = -(qoff + w * qdelta), qoff = Q - Qeq and
 * qdelta = Q - Qold in bytes (|qoff|, |qdelta| < 2^32).  For w < 1
 * (negative w_exp) w * qdelta is truncated toward zero, so the sign of Fb
 * never depends on the rounding direction.  Range: |Fb| < 2^43.
 */
static inline s64 qcn_cp_fb_terms(s64 qoff, s64 qdelta, s32 w_exp)
{
	s64 wq;
	u64 mag;

	w_exp = qcn_cp__clamp_w(w_exp);
	if (w_exp >= 0) {
		wq = qdelta * ((s64)1 << w_exp);
	} else {
		mag = qdelta < 0 ? (u64)(-qdelta) : (u64)qdelta;
		mag >>= -w_exp;
		wq = qdelta < 0 ? -(s64)mag : (s64)mag;
	}
	return -(qoff + wq);
}

/* eq. (1): Fb = -(Qoff + w * Qdelta), Qoff = Q - Qeq, Qdelta = Q - Qold. */
static inline s64 qcn_cp_fb(u32 q, u32 qold, u32 qeq, s32 w_exp)
{
	return qcn_cp_fb_terms((s64)q - (s64)qeq, (s64)q - (s64)qold, w_exp);
}

/*
 * Quantize |Fb| to 6 bits: Fbmax = (2w + 1) * Qeq, the |Fb| of a queue at
 * 2*Qeq that grew by 2*Qeq since the last sample;
 * qFb = min(63, floor(|Fb| * 64 / Fbmax)); 0 when Fb >= 0.
 * Computed exactly with Fbmax scaled by 2^10 (so fractional w works):
 * qFb = floor(|Fb| * 2^16 / ((2^(w_exp+11) + 2^10) * Qeq)).
 * Qeq == 0 (no set point): any Fb < 0 maps to 63.
 */
static inline u8 qcn_cp_quantize(s64 fb, u32 qeq, s32 w_exp)
{
	u64 mag, fbmax, q;

	if (fb >= 0)
		return 0;
	if (qeq == 0)
		return QCN_QFB_MAX;
	w_exp = qcn_cp__clamp_w(w_exp);
	mag = (u64)(-(fb + 1)) + 1;		/* |fb|, also for S64_MIN */
	/* Fbmax < 2^44 bytes for any u32 Qeq and w <= 2^10: saturated */
	if (mag >= (1ULL << 47))
		return QCN_QFB_MAX;
	fbmax = ((1ULL << (w_exp + 11)) + 1024ULL) * (u64)qeq;	/* < 2^54 */
	q = qcn_div_u64(mag << 16, fbmax);
	return q > QCN_QFB_MAX ? QCN_QFB_MAX : (u8)q;
}

/*
 * Next sampling interval in bytes: base * {1, 1/2, 1/3, ..} following the
 * standard's table indexed by qfb / 8 (150000, 75000, 50000, 37500, 30000,
 * 25000, 21500, 18500 for base 150000), times a uniform factor in
 * [0.85, 1.15] drawn from rnd (uniform u32; qcn_jitter_u64()).
 * Other bases scale the table: floor(base * table[qfb/8] / 150000).
 * Result saturates at 2^32 - 1 and is at least 1.
 */
static inline u32 qcn_cp_interval(u8 qfb, u32 base, u32 rnd)
{
	static const u32 tab[8] = {
		150000, 75000, 50000, 37500, 30000, 25000, 21500, 18500
	};
	u64 v;

	if (qfb > QCN_QFB_MAX)
		qfb = QCN_QFB_MAX;
	v = qcn_div_u64((u64)base * tab[qfb >> 3], QCN_CP_DEF_INTERVAL);
	v = qcn_jitter_u64(v, rnd);
	if (v > QCN_U32_MAX)
		return QCN_U32_MAX;
	return v ? (u32)v : 1;
}

/*
 * Set defaults / start state: qold = 0 and the first countdown is one
 * jittered base interval (qcn_cp_interval(0, p->interval, rnd)).
 */
static inline void qcn_cp_init(struct qcn_cp *cp, const struct qcn_cp_params *p, u32 rnd)
{
	cp->qold = 0;
	cp->last_fb = 0;
	cp->last_qfb = 0;
	cp->countdown = qcn_cp_interval(0, p->interval, rnd);
}

/* eq. (1) at queue size q, quantization, Qold <- Q; returns qFb. */
static inline u8 qcn_cp__sample(struct qcn_cp *cp, const struct qcn_cp_params *p,
				u32 q, struct qcn_cp_sample *s)
{
	s64 fb = qcn_cp_fb(q, cp->qold, p->qeq, p->w_exp);
	u8 qfb = qcn_cp_quantize(fb, p->qeq, p->w_exp);

	s->fb = fb;
	s->qfb = qfb;
	s->qoff = qcn_cp__sat_s32((s64)q - (s64)p->qeq);
	s->qdelta = qcn_cp__sat_s32((s64)q - (s64)cp->qold);
	s->congested = fb < 0;
	cp->qold = q;
	cp->last_fb = fb;
	cp->last_qfb = qfb;
	return qfb;
}

/*
 * Take a sample now (keep-alive timer): eq. (1) with Qold of the previous
 * sample, quantization, Qold <- Q; no frame completed an interval, so the
 * countdown restarts with a full qcn_cp_interval(qFb, base, rnd).
 */
static inline void qcn_cp_sample_now(struct qcn_cp *cp, const struct qcn_cp_params *p,
				     u32 q, u32 rnd, struct qcn_cp_sample *s)
{
	u8 qfb = qcn_cp__sample(cp, p, q, s);

	cp->countdown = qcn_cp_interval(qfb, p->interval, rnd);
}

/*
 * Account one arrival of len bytes, q = queue size in bytes after the
 * enqueue.  Returns true when this arrival is a sampling instant (the
 * countdown reached <= 0: the arrival that completes the interval is the
 * sampled one); then *s is filled and cp->qold = q.
 *
 * The countdown is exact: the bytes of the sampled frame past the end of
 * the interval (the overshoot) count toward the next interval, which is
 * drawn from qcn_cp_interval(qFb, base, rnd).  A frame is sampled at most
 * once: when it also covers the end of the next interval(s) (frames larger
 * than a congested interval, e.g. 9000-byte jumbo frames against 1048
 * bytes), those ends fall inside this frame, and the countdown keeps the
 * phase: it continues with the part of the current interval that follows
 * the frame, so the samples stay one per interval of bytes on average
 * while intervals exceed frames, and never build a debt.
 */
static inline bool qcn_cp_arrival(struct qcn_cp *cp, const struct qcn_cp_params *p,
				  u32 len, u32 q, u32 rnd, struct qcn_cp_sample *s)
{
	u64 over;
	u32 next;

	cp->countdown -= len;
	if (cp->countdown > 0)
		return false;
	next = qcn_cp_interval(qcn_cp__sample(cp, p, q, s), p->interval, rnd);
	cp->countdown += next;		/* carry the overshoot (<= 0) */
	if (cp->countdown <= 0) {	/* the frame covers further ends */
		over = (u64)-cp->countdown;
		cp->countdown = next - (s64)(over - qcn_div_u64(over, next) * next);
	}
	return true;
}

/*
 * Keep-alive (QCN-OS paper, section IV: keep generating CNMs while no frame
 * arrives, e.g. during PFC pause): true when keepalive_ns != 0, q > Qeq and
 * no frame arrived for keepalive_ns (now - last_arrival >= keepalive_ns).
 * A clock that went backwards (now < last_arrival) is "not due".
 */
static inline bool qcn_cp_keepalive_due(u32 q, u32 qeq, u64 now_ns,
					u64 last_arrival_ns, u64 keepalive_ns)
{
	if (keepalive_ns == 0 || q <= qeq || now_ns < last_arrival_ns)
		return false;
	return now_ns - last_arrival_ns >= keepalive_ns;
}

#endif /* _QCN_CP_H */
