/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * qcn_fluid.h - the QCN fluid model of Alizadeh et al., "Data Center
 * Transport Mechanisms: Congestion Control Theory and IEEE
 * Standardization", Section II-B, eqs. (9)-(13), for tools/qcn-model
 * (command `fluid`) and its unit tests.  Floating point: a model, not an
 * algorithm core.
 *
 * N sources share one link of capacity C; source i has a target rate
 * TR_i and a current rate CR_i (eqs. 9, 10), the switch a queue q
 * (eq. 11), the congestion price Fb (eq. 12) and the sampling
 * probability p (eq. 13).  The sources see the switch, and the switch the
 * sources, tau late: the terms written at t - tau come from a history of
 * the state.
 *
 * Units.  The paper counts in packets: a rate is packets per second, p
 * the probability of sampling a packet, "100" the byte counter's cycle
 * (150 KB of 1500-byte frames) and "500" the threshold's 5 cycles.  Here
 * rates are in bit/s and q and Fb in bytes, with a frame size P: a source
 * at CR sends CR / 8P packets per second, the cycle is BC / P packets
 * and the exponent 500 is threshold * BC / P.  Eq. (12)'s w / (C p)
 * (sum CR - C) is w times the queue's growth over one sampling interval,
 * P / p bytes of arrivals: w P (sum CR - C) / (C p) bytes.
 *
 * What the equations leave open, and the choices made here:
 *  - Fb is positive for congestion (eq. 12 is eq. 1 with the sign
 *    turned); a feedback message is sent only then (Section II-A: none
 *    for Fb >= 0 in eq. 1's sign), so the sources' equations use the
 *    message probability p 1[Fb > 0], both at t - tau;
 *  - G_d Fb is the standard's cut, G_d times the quantized feedback qFb
 *    (0..63; G_d Fbmax = 1/2 with G_d = 1/128, Section II-A) that
 *    qcn_cp_quantize() makes of Fb, as the CNM carries it;
 *  - Phi (Fig. 2) is the standard's sampling table, qcn_cp_interval()
 *    without jitter: p = P / interval(qFb), 1 % at qFb 0 (and for Fb <= 0)
 *    up to P / 18500 (8.1 % for 1500-byte frames) at qFb 56..63;
 *  - CR and TR stay within [0, the line rate] (the RP's cap), q within
 *    [0, the buffer] (tail drop);
 *  - before t = 0 the sources send nothing (CR = TR = 0, q = 0): no
 *    feedback reaches a source before tau;
 *  - a variant (tr_cycle) of eq. (9)'s first term for the standard's rule
 *    (qcn_rp.h): a CNM sets TR <- CR only when the byte counter has
 *    completed a cycle since the previous cut, so the term is weighted by
 *    the probability of n packets without a message, (1 - p)^n.
 *
 * Integration: classical fourth-order Runge-Kutta, fixed step h, tau a
 * whole number of steps; the delayed terms at the half step are the mean
 * of the two stored states around it (linear interpolation).  A fixed
 * step keeps the history a plain ring; RK4 at h = 1 us is far below the
 * model's fastest time constant (eq. 13's 2 ms, the queue's
 * Qeq / (C / 8), 21 us at 10 Gbit/s), and where the right side jumps (qFb's
 * steps, the gate, the clamps) the step bounds the error instead.
 */
#ifndef _QCN_FLUID_H
#define _QCN_FLUID_H

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "qcn/qcn_cp.h"
#include "qcn/qcn_rp.h"

#define QF_MAX_FLOWS	64
#define QF_DIM_MAX	(2 * QF_MAX_FLOWS + 2)
/* eq. (13): dp/dt = 500 (Phi(Fb) - p), a 2 ms low-pass */
#define QF_P_GAIN	500.0
/* qcn_jitter_u64()'s draw that leaves the interval unjittered */
#define QF_RND_MID	(1U << 31)

struct qf_params {
	int n;			/* sources N */
	double c;		/* link capacity C, bit/s */
	double line;		/* the sources' line rate, bit/s */
	double gd;		/* G_d per unit of qFb */
	double r_ai;		/* R_AI, bit/s */
	double pkt;		/* frame size P, bytes */
	double bc;		/* byte counter cycle BC, bytes */
	int threshold;		/* fast recovery cycles */
	u32 qeq;		/* Qeq, bytes */
	s32 w_exp;		/* w = 2^w_exp */
	u32 interval;		/* the CP's base sampling interval, bytes */
	double limit;		/* buffer, bytes */
	double tau;		/* feedback delay, s */
	double h;		/* integration step, s */
	bool tr_cycle;		/* TR <- CR only after a byte counter cycle */
};

/*
 * The state, x[]: TR_1..TR_N, CR_1..CR_N (bit/s), q (bytes), p; and the
 * history of the last d + 1 states (d = tau / h steps), a ring indexed
 * by the step number.
 */
struct qf_sim {
	struct qf_params m;
	int dim;
	long d, k;		/* delay in steps, steps done */
	double *hist;
	double x[QF_DIM_MAX];
	double pre[QF_DIM_MAX];	/* the state before t = 0 */
};

#define QF_TR(m, x)	(x)
#define QF_CR(m, x)	((x) + (m)->n)
#define QF_Q(m, x)	((x)[2 * (m)->n])
#define QF_P(m, x)	((x)[2 * (m)->n + 1])

/*
 * The paper's baseline (Section II-A) on the standard's numbers
 * (include/qcn/): C = 10 Gbit/s, G_d 1/128, R_AI 5 Mbit/s, BC 150 KB of
 * 1500-byte frames, 5 cycles, Qeq 26000 bytes, w 2, 150 KB sampling
 * interval, a 150 KB buffer; 10 sources, tau 100 us, h 1 us.
 */
static inline void qf_params_default(struct qf_params *m)
{
	m->n = 10;
	m->c = 10e9;
	m->line = m->c;
	m->gd = ldexp(1.0, -QCN_RP_DEF_GD_SHIFT);
	m->r_ai = (double)QCN_RP_DEF_AI_RATE;
	m->pkt = 1500;
	m->bc = QCN_RP_DEF_BYTE_RESET;
	m->threshold = QCN_RP_DEF_THRESHOLD;
	m->qeq = QCN_CP_DEF_QEQ;
	m->w_exp = QCN_CP_DEF_W_EXP;
	m->interval = QCN_CP_DEF_INTERVAL;
	m->limit = 150000;
	m->tau = 100e-6;
	m->h = 1e-6;
	m->tr_cycle = false;
}

/* w = 2^w_exp as a number */
static inline double qf_w(const struct qf_params *m)
{
	return ldexp(1.0, m->w_exp);
}

/*
 * qFb of a congestion price fb > 0 (eq. 12's sign), by the CP core's
 * quantizer (eq. 1's sign: Fb < 0 is congestion); 0 for fb <= 0
 */
static inline int qf_qfb(const struct qf_params *m, double fb)
{
	if (!(fb > 0))
		return 0;
	if (fb > 1e15)
		fb = 1e15;
	return qcn_cp_quantize(-(s64)ceil(fb), m->qeq, m->w_exp);
}

/*
 * Phi of eq. (13) (Fig. 2): the probability of sampling a frame at price
 * fb, one frame of P bytes per interval of the standard's table
 * (qcn_cp_interval(), unjittered)
 */
static inline double qf_phi(const struct qf_params *m, double fb)
{
	u32 iv = qcn_cp_interval((u8)qf_qfb(m, fb), m->interval, QF_RND_MID);

	return fmin(1.0, m->pkt / iv);
}

/* eq. (12): Fb = q - Qeq + w P (sum CR - C) / (C p), bytes */
static inline double qf_fb(const struct qf_params *m, double q, double sum_cr, double p)
{
	return q - m->qeq + qf_w(m) * m->pkt * (sum_cr - m->c) / (m->c * p);
}

/* the byte counter's cycle in packets: eqs. (9), (10)'s 100 */
static inline double qf_cycle(const struct qf_params *m)
{
	return m->bc / m->pkt;
}

/*
 * eq. (10)'s p / ((1 - p)^-n - 1): byte counter cycles completed per
 * packet sent with a cut per packet at probability p; 1/n at p = 0
 */
static inline double qf_cycle_rate(double p, double n)
{
	if (p <= 0)
		return 1 / n;
	if (p >= 1)
		return 0;
	return p / expm1(-n * log1p(-p));
}

static inline double qf_sum_cr(const struct qf_params *m, const double *x)
{
	const double *cr = QF_CR(m, x);
	double s = 0;
	int i;

	for (i = 0; i < m->n; i++)
		s += cr[i];
	return s;
}

/* Fb of a state (eq. 12) */
static inline double qf_fb_of(const struct qf_params *m, const double *x)
{
	return qf_fb(m, QF_Q(m, x), qf_sum_cr(m, x), QF_P(m, x));
}

/*
 * The right side of eqs. (9)-(13) into dx, x the state at t and xd the
 * state at t - tau:
 *   (9)  dTR_i/dt = -(TR_i - CR_i) l_i pm + (1 - pm)^(n T) R_AI l_i / n
 *   (10) dCR_i/dt = -G_d qFb(Fb_d) CR_i l_i pm
 *                   + (TR_i,d - CR_i,d) / 2 l_i pm / ((1 - pm)^-n - 1)
 *   (11) dq/dt    = (sum CR_i - C) / 8
 *   (13) dp/dt    = 500 (Phi(Fb) - p), Fb by eq. (12)
 * with l_i = CR_i,d / 8P the packets per second tau ago, pm = p_d when
 * Fb_d > 0 (a message is sent) and 0 otherwise, n = BC / P, T the
 * threshold; with tr_cycle eq. (9)'s first term times (1 - pm)^n; the
 * clamps hold q in [0, limit], CR_i and TR_i in [0, line].
 */
static inline void qf_deriv(const struct qf_params *m, const double *x, const double *xd,
			    double *dx)
{
	const double *tr = QF_TR(m, x), *cr = QF_CR(m, x);
	const double *trd = QF_TR(m, xd), *crd = QF_CR(m, xd);
	double fbd = qf_fb_of(m, xd), pm = fbd > 0 ? QF_P(m, xd) : 0;
	double n = qf_cycle(m), cut = m->gd * qf_qfb(m, fbd);
	double ai = pow(1 - pm, m->threshold * n) * m->r_ai / n;
	double fr = qf_cycle_rate(pm, n) / 2, sum = qf_sum_cr(m, x), q = QF_Q(m, x);
	double reset = m->tr_cycle ? pm * pow(1 - pm, n) : pm;
	double *dtr = QF_TR(m, dx), *dcr = QF_CR(m, dx), dq;
	int i;

	for (i = 0; i < m->n; i++) {
		double l = crd[i] / (8 * m->pkt);

		dtr[i] = -(tr[i] - cr[i]) * l * reset + ai * l;
		dcr[i] = -cut * cr[i] * l * pm + (trd[i] - crd[i]) * l * fr;
		if ((tr[i] >= m->line && dtr[i] > 0) || (tr[i] <= 0 && dtr[i] < 0))
			dtr[i] = 0;
		if ((cr[i] >= m->line && dcr[i] > 0) || (cr[i] <= 0 && dcr[i] < 0))
			dcr[i] = 0;
	}
	dq = (sum - m->c) / 8;
	if ((q <= 0 && dq < 0) || (q >= m->limit && dq > 0))
		dq = 0;
	QF_Q(m, dx) = dq;
	QF_P(m, dx) = QF_P_GAIN * (qf_phi(m, qf_fb(m, q, sum, QF_P(m, x))) - QF_P(m, x));
}

/* the state of step j (j < 0: before the start) */
static inline const double *qf_at(const struct qf_sim *s, long j)
{
	return j < 0 ? s->pre : s->hist + (j % (s->d + 1)) * s->dim;
}

/*
 * Start: every source at rate r0 (CR = TR = r0), the queue empty, p at
 * Phi of no congestion (1 %).  Returns -1 without memory or with more
 * than QF_MAX_FLOWS sources.
 */
static inline int qf_init(struct qf_sim *s, const struct qf_params *m, double r0)
{
	int i;

	memset(s, 0, sizeof(*s));
	if (m->n < 1 || m->n > QF_MAX_FLOWS || !(m->h > 0) || !(m->tau >= 0))
		return -1;
	s->m = *m;
	s->dim = 2 * m->n + 2;
	s->d = lround(m->tau / m->h);
	s->hist = calloc((size_t)(s->d + 1) * s->dim, sizeof(double));
	if (!s->hist)
		return -1;
	for (i = 0; i < m->n; i++) {
		QF_TR(m, s->x)[i] = r0;
		QF_CR(m, s->x)[i] = r0;
	}
	QF_P(m, s->x) = qf_phi(m, 0);
	QF_P(m, s->pre) = QF_P(m, s->x);
	memcpy(s->hist, s->x, s->dim * sizeof(double));
	return 0;
}

static inline void qf_free(struct qf_sim *s)
{
	free(s->hist);
	s->hist = NULL;
}

static inline double qf_time(const struct qf_sim *s)
{
	return s->k * s->m.h;
}

/* the stage's delayed state: t - tau + frac h, frac 0, 1/2 or 1 */
static inline void qf_delayed(const struct qf_sim *s, const double *stage, double frac,
			      double *xd)
{
	const double *a, *b;
	int j;

	if (s->d == 0) {	/* no delay: the stage itself */
		memcpy(xd, stage, s->dim * sizeof(double));
		return;
	}
	a = qf_at(s, s->k - s->d);
	b = qf_at(s, s->k - s->d + 1);
	for (j = 0; j < s->dim; j++)
		xd[j] = a[j] + frac * (b[j] - a[j]);
}

/* the clamps of qf_deriv() on a state */
static inline void qf_clamp(const struct qf_params *m, double *x)
{
	int j;

	for (j = 0; j < 2 * m->n; j++)
		x[j] = fmin(m->line, fmax(0, x[j]));
	QF_Q(m, x) = fmin(m->limit, fmax(0, QF_Q(m, x)));
}

/* one RK4 step of h: the state and the history move to t + h */
static inline void qf_step(struct qf_sim *s)
{
	const struct qf_params *m = &s->m;
	double k1[QF_DIM_MAX], k2[QF_DIM_MAX], k3[QF_DIM_MAX], k4[QF_DIM_MAX];
	double y[QF_DIM_MAX], xd[QF_DIM_MAX] = { 0 }, h = m->h;
	int j, n = s->dim;

	qf_delayed(s, s->x, 0, xd);
	qf_deriv(m, s->x, xd, k1);
	for (j = 0; j < n; j++)
		y[j] = s->x[j] + h / 2 * k1[j];
	qf_clamp(m, y);
	qf_delayed(s, y, 0.5, xd);
	qf_deriv(m, y, xd, k2);
	for (j = 0; j < n; j++)
		y[j] = s->x[j] + h / 2 * k2[j];
	qf_clamp(m, y);
	qf_delayed(s, y, 0.5, xd);
	qf_deriv(m, y, xd, k3);
	for (j = 0; j < n; j++)
		y[j] = s->x[j] + h * k3[j];
	qf_clamp(m, y);
	qf_delayed(s, y, 1, xd);
	qf_deriv(m, y, xd, k4);
	for (j = 0; j < n; j++)
		s->x[j] += h / 6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
	qf_clamp(m, s->x);
	s->k++;
	memcpy(s->hist + (s->k % (s->d + 1)) * n, s->x, n * sizeof(double));
}

#endif /* _QCN_FLUID_H */
