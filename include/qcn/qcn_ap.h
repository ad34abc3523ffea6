/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * N-AIMD and AP-N-AIMD: the Averaging Principle case study of Alizadeh et
 * al., "Data Center Transport Mechanisms: Congestion Control Theory and
 * IEEE Standardization", section "The Averaging Principle" (eq. 14,
 * Fig. 7-8).  Pure integer C, header-only, shared by qcn-sim and the
 * modules (sch_qcn `feedback signed`, qcn_rp `mode n-aimd|ap-n-aimd`
 * through include/qcn/qcn_rp.h).
 *
 * CP (qcn_naimd_cp_arrival): every arrival is sampled with probability
 * 1/T (the paper: "switches randomly sample packets with 1% probability",
 * T = 100); a sample computes Fb = -(Qoff + w Qdelta) exactly as eq. (1)
 * (qcn_cp_fb(), Qold = Q at the previous sample) and, unlike QCN, sends it
 * whether positive or negative.  Fb stays in bytes here: no 6-bit
 * quantization (the paper: "computed in exactly the same way as in
 * equation (1)"); the source divides by fb_unit.  On the wire (sch_qcn)
 * the CNM carries Qoff and Qdelta in its cnmQOffset/cnmQDelta fields
 * (64-octet units) and the RP rebuilds Fb with qcn_cnm_fb().
 *
 * Source (qcn_naimd_feedback, eq. 14), with Fb' = Fb / fb_unit (Fb in
 * units of fb_unit bytes; the paper's BCN parameters count packets, so
 * fb_unit is the frame size):
 *   Fb >= 0: R <- R + G_i R_u Fb'				(14a)
 *   Fb <  0: R <- R (1 - G_d |Fb'|)				(14b)
 * clamped to [min_rate, max_rate]; G_d |Fb'| >= 1 gives min_rate.  G_i and
 * G_d are in parts per 10^9 (0.53333 = 533330000), R_u in bit/s.
 *
 * AP (qcn_naimd_tx, "The Averaging Principle, basic form"): on each
 * feedback TR <- CR (the CR before that feedback) and a packet counter
 * resets; when the counter reaches ap_pkts (T/2 = 50) CR <- (CR + TR)/2,
 * once, until the next feedback.  Without AP (plain N-AIMD) the counter
 * is never used and TR just records the previous rate.
 */
#ifndef _QCN_AP_H
#define _QCN_AP_H

#include "qcn_types.h"
#include "qcn_cp.h"
#include "qcn_cnm.h"

#define QCN_AP_ONE		1000000000ULL	/* gains are parts per 10^9 */
#define QCN_AP_DEF_GI		533330000ULL	/* G_i 0.53333 */
#define QCN_AP_DEF_RU		1000000ULL	/* R_u 1 Mb/s */
#define QCN_AP_DEF_GD		2666700ULL	/* G_d 0.0026667 */
#define QCN_AP_DEF_PERIOD	100		/* T: 1 % sampling */
#define QCN_AP_DEF_FB_UNIT	1500		/* bytes per unit of Fb */

struct qcn_naimd_params {
	u64 max_rate;		/* bit/s: line rate, and the start rate */
	u64 min_rate;		/* bit/s: floor of CR */
	u64 gi;			/* G_i, parts per 10^9 */
	u64 ru;			/* R_u, bit/s */
	u64 gd;			/* G_d, parts per 10^9 */
	u32 fb_unit;		/* bytes per unit of Fb (frame size) */
	u32 ap_pkts;		/* averaging after this many packets; 0 = N-AIMD */
};

struct qcn_naimd {
	u64 cr;			/* current rate, bit/s */
	u64 tr;			/* CR before the last feedback, bit/s */
	u32 pkts;		/* packets sent since the last feedback */
	bool averaged;		/* the AP step of this interval is done */
};

/* The paper's parameters (BCN baseline), N-AIMD (no AP), 1500-byte units. */
static inline void qcn_naimd_params_default(struct qcn_naimd_params *p,
					    u64 line_rate_bps)
{
	p->max_rate = line_rate_bps;
	p->min_rate = line_rate_bps < 1000000 ? line_rate_bps : 1000000;
	p->gi = QCN_AP_DEF_GI;
	p->ru = QCN_AP_DEF_RU;
	p->gd = QCN_AP_DEF_GD;
	p->fb_unit = QCN_AP_DEF_FB_UNIT;
	p->ap_pkts = 0;
}

/* 0 < min_rate <= max_rate <= 10 Tb/s, fb_unit >= 1, gains <= 1000. */
static inline bool qcn_naimd_params_valid(const struct qcn_naimd_params *p)
{
	return p->min_rate > 0 && p->min_rate <= p->max_rate &&
	       p->max_rate <= 10000000000000ULL && p->fb_unit >= 1 &&
	       p->gi <= 1000 * QCN_AP_ONE && p->gd <= 1000 * QCN_AP_ONE &&
	       p->ru <= 10000000000000ULL;
}

/* A source starts at the line rate with no feedback yet. */
static inline void qcn_naimd_init(struct qcn_naimd *s, const struct qcn_naimd_params *p)
{
	s->cr = p->max_rate;
	s->tr = p->max_rate;
	s->pkts = 0;
	s->averaged = true;	/* nothing to average before a feedback */
}

/*
 * A source that starts at rate (raised to min_rate) instead of the line
 * rate, with no feedback yet (nothing to average): the initial condition
 * of the convergence paper's stage three (qcn_rp_start()).  false, s
 * unchanged, when the rate is not below max_rate.
 */
static inline bool qcn_naimd_start(struct qcn_naimd *s, const struct qcn_naimd_params *p,
				   u64 rate)
{
	rate = rate < p->min_rate ? p->min_rate : rate;
	if (rate >= p->max_rate)
		return false;
	s->cr = rate;
	s->tr = rate;
	s->pkts = 0;
	s->averaged = true;
	return true;
}

/*
 * The CP's sampling decision for one arrival: true with probability
 * 1/period (rnd uniform u32: floor(period * rnd / 2^32) == 0, exact).
 * period 0 or 1 samples every arrival.
 */
static inline bool qcn_naimd_cp_sampled(u32 period, u32 rnd)
{
	return period <= 1 || qcn_scale_rnd(period, rnd) == 0;
}

/*
 * One arrival at an N-AIMD CP with the queue at q bytes after the
 * enqueue: when qcn_naimd_cp_sampled(), *s is the sample of eq. (1) with
 * Qold = Q at the previous sample (cp->qold, which becomes q; s->fb
 * signed, s->qfb its 6-bit quantization, 0 for Fb >= 0) and true is
 * returned: a feedback with that signed Fb is due to the frame's source.
 */
static inline bool qcn_naimd_cp_arrival(struct qcn_cp *cp, const struct qcn_cp_params *p,
					u32 period, u32 q, u32 rnd,
					struct qcn_cp_sample *s)
{
	if (!qcn_naimd_cp_sampled(period, rnd))
		return false;
	qcn_cp__sample(cp, p, q, s);
	return true;
}

/*
 * The signed Fb a CNM reports, eq. (1) rebuilt from its cnmQOffset
 * (Q - Qeq) and cnmQDelta (Q - Qold), both in 64-octet units, with the
 * CP's w = 2^w_exp: -(64 qoffset + w 64 qdelta).  The CP truncated both
 * toward zero, so |error| < 64 (1 + w) bytes.
 */
static inline s64 qcn_cnm_fb(const struct qcn_cnm *m, s32 w_exp)
{
	return qcn_cp_fb_terms((s64)m->qoffset * QCN_CNM_Q_UNIT,
			       (s64)m->qdelta * QCN_CNM_Q_UNIT, w_exp);
}

/*
 * eq. (14) applied to rate r for a signed Fb in bytes:
 *   (14a) r + floor(G_i R_u Fb / fb_unit)	(Fb >= 0)
 *   (14b) r - floor(r G_d |Fb| / fb_unit)	(Fb < 0; min_rate once the
 *						 factor G_d |Fb'| reaches 1)
 * clamped to [min_rate, max_rate].
 */
static inline u64 qcn_naimd_apply(u64 r, s64 fb, const struct qcn_naimd_params *p)
{
	u64 mag = fb < 0 ? (u64)(-(fb + 1)) + 1 : (u64)fb;
	u64 unit = p->fb_unit ? p->fb_unit : 1;
	u64 den = qcn_sat_mul_u64(QCN_AP_ONE, unit);
	u64 inc, frac;

	if (fb >= 0) {
		inc = qcn_mul_div_u64(qcn_sat_mul_u64(p->gi, p->ru), mag, den);
		r = qcn_sat_add_u64(r, inc);
	} else {
		frac = qcn_sat_mul_u64(p->gd, mag);	/* G_d |Fb'| * den */
		if (frac >= den)
			r = p->min_rate;
		else
			r -= qcn_mul_div_u64(r, frac, den);
	}
	if (r > p->max_rate)
		r = p->max_rate;
	if (r < p->min_rate)
		r = p->min_rate;
	return r;
}

/*
 * A feedback message with signed Fb (bytes) reaches the source:
 * TR <- CR, CR <- eq. (14)(CR), the AP's packet counter restarts (an
 * averaging step still pending is dropped, as the paper says).
 */
static inline void qcn_naimd_feedback(struct qcn_naimd *s, const struct qcn_naimd_params *p,
				      s64 fb)
{
	s->tr = s->cr;
	s->cr = qcn_naimd_apply(s->cr, fb, p);
	s->pkts = 0;
	s->averaged = false;
}

/*
 * The source transmitted one packet.  AP-N-AIMD (ap_pkts > 0): the
 * ap_pkts-th packet since the last feedback applies CR <- (CR + TR)/2
 * (floor) and returns true; nothing more until the next feedback.
 * N-AIMD (ap_pkts == 0): never changes the rate.
 */
static inline bool qcn_naimd_tx(struct qcn_naimd *s, const struct qcn_naimd_params *p)
{
	if (!p->ap_pkts || s->averaged)
		return false;
	if (++s->pkts < p->ap_pkts)
		return false;
	s->cr = s->cr / 2 + s->tr / 2 + (s->cr & s->tr & 1);
	s->averaged = true;
	return true;
}

#endif /* _QCN_AP_H */
