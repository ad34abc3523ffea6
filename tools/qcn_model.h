/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * qcn_model.h - the convergence-time model of QCN of Shu, Zhang, Ren and
 * Lin, "Analysing Convergence of Quantized Congestion Notification in
 * Data Center Ethernet": Section IV (eqs. 6-25) and the variants of
 * Section V-B (QCN-TIMER, eq. 26; QCN-AIMD, eq. 28), for tools/qcn-model
 * and its unit tests.  Floating point: an analytical model, not an
 * algorithm core.  The standard's numbers come from include/qcn/
 * (qm_params_default()).
 *
 * The model (the paper's assumptions 1-5): N reaction points share a
 * link of capacity C in the stable state, the queue neither empty nor
 * full, so sum R_i = C and the CP samples one frame every S bytes, one
 * sampling period T_s = S / C.  A sample carries nonzero feedback with
 * probability P = p[Fb>0], and then the feedback Fb (assumption 5: 1);
 * it is flow i's with probability R_i / C, so flow i is cut with
 * probability p = P R_i / C per period (eq. 8).  After a cut the RP runs
 * `threshold` fast-recovery (FR) cycles, then active-increase (AI)
 * cycles; hyper-active increase never happens (assumption 3).  E(dR) is
 * a flow's expected rate change in one sampling period (eq. 6); P is the
 * value that makes sum E(dR_i) = 0 (the queue stays put); the rates
 * evolve by R_i += E(dR_i) once per period (Section IV-B).
 *
 * Cycles are counted in sampling periods, which generalizes the paper's
 * numbers without changing them at its values: an FR cycle lasts
 * n_fr = (BC / S) (C / R) periods and an AI cycle n_ai = (T_AI / S) (C / R)
 * (the paper has BC = S and T_AI = BC / 2: eq. 17's C / R and eq. 19's
 * C / 2R); the timer-only RP (QCN-TIMER) has n_fr = C T / S and
 * n_ai = n_fr / 2 (eq. 26); QCN-AIMD increases once per n_fr (eq. 28).
 * The FR threshold n, the paper's 5, is a parameter as well: with
 * threshold n the paper's "5" is n, "6" is n + 1, "7" is n + 2, and
 * eq. (24)'s 1/64 = 2^-(n+1).
 */
#ifndef _QCN_MODEL_H
#define _QCN_MODEL_H

#include <math.h>
#include <stdbool.h>

#include "qcn/qcn_cp.h"
#include "qcn/qcn_rp.h"

#define QM_MAX_FLOWS	64
/*
 * AI terms the series sums one by one; past them, G_d F_b / 2^(j-1) is
 * below 2^-69 and eq. (16) equals eq. (22) in double precision, so the
 * rest of the series is summed in closed form (qm_series_tail()).
 */
#define QM_SERIES_TERMS	64

enum qm_mode {
	QM_QCN,		/* byte counter (the paper's model, Section IV) */
	QM_TIMER,	/* timer only (QCN-TIMER, eq. 26) */
	QM_AIMD,	/* additive increase, no FR (QCN-AIMD, eq. 28) */
};

enum qm_eq {
	QM_EQ_FULL,	/* eq. (6) with eqs. (7), (8), (11), (16), (18), (19) */
	QM_EQ_23,	/* eq. (23): the same series with eqs. (21), (22) */
	QM_EQ_24,	/* eq. (24): eq. (23) summed */
	QM_EQ_25,	/* eq. (25): eq. (24) without its 3rd and 4th terms */
};

struct qm_params {
	double c;		/* link capacity C, bit/s */
	double gd;		/* G_d */
	double fb;		/* the nonzero feedback F_b (assumption 5: 1) */
	double r_ai;		/* R_AI, bit/s */
	double s;		/* the CP's sampling interval S, bits */
	double bc;		/* byte counter cycle BC (FR), bits */
	double tai;		/* byte counter cycle in AI, T_AI, bits */
	double timer;		/* QM_TIMER: timer period T_t, s */
	int threshold;		/* FR cycles before AI: n */
	enum qm_mode mode;
	enum qm_eq eq;
};

/*
 * R_AI by the paper's rule (Section II): the standard's rpgAiRate at
 * 10 Gbit/s, scaled to C (0.5 Mbit/s at 1 Gbit/s).
 */
static inline double qm_default_ai_rate(double c)
{
	return (double)QCN_RP_DEF_AI_RATE * c / 1e10;
}

/* The paper's setting (Section IV-B) on the standard's defaults */
static inline void qm_params_default(struct qm_params *m)
{
	m->c = 1e9;
	m->gd = ldexp(1.0, -QCN_RP_DEF_GD_SHIFT);
	m->fb = 1.0;
	m->r_ai = qm_default_ai_rate(m->c);
	m->s = 8.0 * QCN_CP_DEF_INTERVAL;
	m->bc = 8.0 * QCN_RP_DEF_BYTE_RESET;
	m->tai = m->bc / 2;
	m->timer = QCN_RP_DEF_TIME_RESET_NS * 1e-9;
	m->threshold = QCN_RP_DEF_THRESHOLD;
	m->mode = QM_QCN;
	m->eq = QM_EQ_25;
}

/* the sampling period T_s = S / C, seconds: one step of the recursion */
static inline double qm_period(const struct qm_params *m)
{
	return m->s / m->c;
}

/* (1 - p)^x and 1 - (1 - p)^x, accurate for small p */
static inline double qm_pow1m(double p, double x)
{
	return exp(x * log1p(-p));
}

static inline double qm_1m_pow1m(double p, double x)
{
	return -expm1(x * log1p(-p));
}

/* eq. (8): p = p[Fb>0] R / C, the probability of a cut per period */
static inline double qm_p(const struct qm_params *m, double pfb, double r)
{
	return pfb * r / m->c;
}

/*
 * eq. (17), generalized (see the top): sampling periods per FR cycle
 * (*n_fr) and per AI cycle (*n_ai) of a flow at rate r > 0
 */
static inline void qm_cycles(const struct qm_params *m, double r,
			     double *n_fr, double *n_ai)
{
	if (m->mode == QM_TIMER) {
		*n_fr = m->c * m->timer / m->s;
		*n_ai = *n_fr / 2;
	} else {
		*n_fr = m->bc / m->s * m->c / r;
		*n_ai = m->tai / m->s * m->c / r;
	}
}

/* eq. (7): R_dec = -G_d F_b R */
static inline double qm_rdec(const struct qm_params *m, double r)
{
	return -m->gd * m->fb * r;
}

/* 2^-(j-1) G_d F_b: what the j-th increase's factors are made of */
static inline double qm_x(const struct qm_params *m, int j)
{
	return ldexp(m->gd * m->fb, 1 - j);
}

/* eq. (14)'s R_AI coefficient of CR_j, j > n: j - 7 + 2^-(j-6) for n = 5 */
static inline double qm_a(const struct qm_params *m, int j)
{
	int k = j - m->threshold;

	return k - 2 + ldexp(1.0, 1 - k);
}

/* eq. (11): the j-th increase, j = 1..n (FR), of a flow now at R */
static inline double qm_rinc_fr(const struct qm_params *m, double r, int j)
{
	double x = qm_x(m, j);

	return x / 2 * r / (1 - x);
}

/* eq. (16): the j-th increase, j > n (AI), of a flow now at R */
static inline double qm_rinc_ai(const struct qm_params *m, double r, int j)
{
	double x = qm_x(m, j);

	return x / 2 * r / (1 - x) +
	       (j - m->threshold - qm_a(m, j) / (1 - x)) * m->r_ai / 2;
}

/* eq. (21): eq. (11) with 1 - 2^-(j-1) G_d F_b ~ 1 (eq. 20) */
static inline double qm_rinc_fr_approx(const struct qm_params *m, double r, int j)
{
	return qm_x(m, j) / 2 * r;
}

/* eq. (22): eq. (16) with eq. (20) */
static inline double qm_rinc_ai_approx(const struct qm_params *m, double r, int j)
{
	return qm_x(m, j) / 2 * r + (1 - ldexp(1.0, m->threshold - j)) * m->r_ai;
}

/*
 * eqs. (18), (19): the probability that the j-th increase falls in this
 * period: a cut, then none in the j cycles' sampling periods (j n_fr in
 * FR; n n_fr + (j - n) n_ai, the paper's (j + 5) / 2 C / R, in AI)
 */
static inline double qm_pinc(const struct qm_params *m, double p, int j,
			     double n_fr, double n_ai)
{
	int n = m->threshold;
	double periods = j <= n ? j * n_fr : n * n_fr + (j - n) * n_ai;

	return p * qm_pow1m(p, periods);
}

/*
 * The AI terms j > n + QM_SERIES_TERMS of eq. (23) (there eq. (16) is
 * eq. (22)): with u = (1-p)^n_fr, v = (1-p)^n_ai, K = QM_SERIES_TERMS,
 * p u^n [(G_d F_b R 2^-n - R_AI) (v/2)^(K+1) / (1 - v/2)
 *        + R_AI v^(K+1) / (1 - v)]
 */
static inline double qm_series_tail(const struct qm_params *m, double r, double p,
				    double n_fr, double n_ai)
{
	int n = m->threshold, k1 = QM_SERIES_TERMS + 1;
	double un = qm_pow1m(p, n * n_fr), v = qm_pow1m(p, n_ai);

	return p * un * ((m->gd * m->fb * r * ldexp(1.0, -n) - m->r_ai) *
			 pow(v / 2, k1) / (1 - v / 2) +
			 m->r_ai * qm_pow1m(p, k1 * n_ai) / qm_1m_pow1m(p, n_ai));
}

/*
 * eq. (6) summed term by term: R_dec p_dec (eqs. 7, 8) plus the increases
 * R_inc,j p_inc,j with the exact values (eqs. 11, 16: QM_EQ_FULL, the sum
 * printed after eq. 19) or the approximate ones (eqs. 21, 22: eq. 23)
 */
static inline double qm_ede_series(const struct qm_params *m, double r, double p,
				   bool approx)
{
	double n_fr, n_ai, e = qm_rdec(m, r) * p;
	int j, n = m->threshold;

	qm_cycles(m, r, &n_fr, &n_ai);
	for (j = 1; j <= n; j++)
		e += (approx ? qm_rinc_fr_approx(m, r, j) : qm_rinc_fr(m, r, j)) *
		     qm_pinc(m, p, j, n_fr, n_ai);
	for (j = n + 1; j <= n + QM_SERIES_TERMS; j++)
		e += (approx ? qm_rinc_ai_approx(m, r, j) : qm_rinc_ai(m, r, j)) *
		     qm_pinc(m, p, j, n_fr, n_ai);
	return e + qm_series_tail(m, r, p, n_fr, n_ai);
}

/*
 * eq. (24) (all_terms) and eq. (25) (without eq. 24's third and fourth
 * terms), u = (1-p)^n_fr, v = (1-p)^n_ai:
 *   -G_d F_b R p
 *   + G_d F_b R p (u/2) / (1 - u/2)
 *   - G_d F_b R p (u/2)^(n+1) / (1 - u/2)			(eq. 24 only)
 *   + G_d F_b R p 2^-(n+1) u^n v / (1 - v/2)			(eq. 24 only)
 *   + R_AI p u^n v / (1 - v)
 *   - R_AI p u^n (v/2) / (1 - v/2)
 * In QM_TIMER mode eq. (25) is eq. (26).
 */
static inline double qm_ede_closed(const struct qm_params *m, double r, double p,
				   bool all_terms)
{
	double n_fr, n_ai, u, un, v, g = m->gd * m->fb * r * p, e;
	int n = m->threshold;

	qm_cycles(m, r, &n_fr, &n_ai);
	u = qm_pow1m(p, n_fr);
	un = qm_pow1m(p, n * n_fr);
	v = qm_pow1m(p, n_ai);
	e = -g + g * (u / 2) / (1 - u / 2);
	if (all_terms)
		e += -g * pow(u / 2, n + 1) / (1 - u / 2) +
		     g * ldexp(un * v, -(n + 1)) / (1 - v / 2);
	return e + m->r_ai * p * un * v / qm_1m_pow1m(p, n_ai) -
	       m->r_ai * p * un * (v / 2) / (1 - v / 2);
}

/*
 * eq. (28), QCN-AIMD: CR += R_AI every cycle (eq. 27), no FR:
 *   -G_d F_b R p + R_AI p u / (1 - u),  u = (1-p)^n_fr
 */
static inline double qm_ede_aimd(const struct qm_params *m, double r, double p)
{
	double n_fr, n_ai;

	qm_cycles(m, r, &n_fr, &n_ai);
	return qm_rdec(m, r) * p +
	       m->r_ai * p * qm_pow1m(p, n_fr) / qm_1m_pow1m(p, n_fr);
}

/*
 * E(dR) of a flow at rate r cut with probability p per period, by the
 * mode's and m->eq's equation.  At p = 0 the limit, which every form
 * shares: one R_AI per AI cycle (R_AI / n_ai; AIMD: R_AI / n_fr), and 0
 * for a flow at rate 0 (its cycles never end).
 */
static inline double qm_ede(const struct qm_params *m, double r, double p)
{
	double n_fr, n_ai;

	if (r <= 0)
		return 0;
	if (p <= 0) {
		qm_cycles(m, r, &n_fr, &n_ai);
		return m->r_ai / (m->mode == QM_AIMD ? n_fr : n_ai);
	}
	if (p > 1)
		p = 1;
	if (m->mode == QM_AIMD)
		return qm_ede_aimd(m, r, p);
	switch (m->eq) {
	case QM_EQ_FULL:
		return qm_ede_series(m, r, p, false);
	case QM_EQ_23:
		return qm_ede_series(m, r, p, true);
	case QM_EQ_24:
		return qm_ede_closed(m, r, p, true);
	default:
		return qm_ede_closed(m, r, p, false);
	}
}

/* sum_i E(dR_i) of n flows when p[Fb>0] = pfb */
static inline double qm_sum_ede(const struct qm_params *m, const double *rates,
				int n, double pfb)
{
	double sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += qm_ede(m, rates[i], qm_p(m, pfb, rates[i]));
	return sum;
}

/*
 * Section IV-B: the p[Fb>0] in (0, 1] with sum_i E(dR_i) = 0 (the queue
 * stays near Qeq), for rates that sum to C.  *pfb in: a guess (the
 * previous step's value; anything outside (0, 1) for none); out: the
 * root, to a relative 1e-13.  At p[Fb>0] -> 0 the sum is positive (every
 * flow in AI); returns -1 when it is still >= 0 at p[Fb>0] = 1: no stable
 * state, the increases outrun any rate of cuts (the paper meets this with
 * a 15 ms timer, Section V-B).  The root is found by regula falsi
 * (Illinois) in a bracket grown from the guess.
 */
static inline int qm_solve_pfb(const struct qm_params *m, const double *rates,
			       int n, double *pfb)
{
	double lo = 0, hi = 1, flo = qm_sum_ede(m, rates, n, 0);
	double fhi = qm_sum_ede(m, rates, n, 1), g = *pfb, x, fx;
	int i, side = 0;

	if (fhi >= 0 || !(flo > 0))
		return -1;
	if (g > 0 && g < 1) {
		double f = qm_sum_ede(m, rates, n, g), d = g * 1e-4, y, fy;

		/* step outward from the guess until the sign changes */
		for (;;) {
			y = f > 0 ? fmin(1, g + d) : fmax(0, g - d);
			fy = y <= 0 ? flo : y >= 1 ? fhi : qm_sum_ede(m, rates, n, y);
			if ((f > 0) != (fy > 0) || y <= 0 || y >= 1)
				break;
			g = y;
			f = fy;
			d *= 4;
		}
		/* the bracket [lo, hi] has sum E > 0 at lo, <= 0 at hi */
		lo = f > 0 ? g : y;
		flo = f > 0 ? f : fy;
		hi = f > 0 ? y : g;
		fhi = f > 0 ? fy : f;
	}
	for (i = 0; i < 300 && hi - lo > 1e-13 * hi; i++) {
		x = hi - fhi * (hi - lo) / (fhi - flo);
		if (!(x > lo && x < hi))
			x = (lo + hi) / 2;
		fx = qm_sum_ede(m, rates, n, x);
		if (fx == 0) {
			lo = x;
			hi = x;
			break;
		}
		if (fx > 0) {
			lo = x;
			flo = fx;
			if (side == 1)
				fhi /= 2;	/* Illinois: the stuck end halves */
			side = 1;
		} else {
			hi = x;
			fhi = fx;
			if (side == -1)
				flo /= 2;
			side = -1;
		}
	}
	*pfb = (lo + hi) / 2;
	return 0;
}

/*
 * One sampling period of the paper's recursion: p[Fb>0] for the current
 * rates (qm_solve_pfb(), *pfb as there), then R_i += E(dR_i).  Returns
 * qm_solve_pfb()'s result; the rates are unchanged on -1.
 */
static inline int qm_step(const struct qm_params *m, double *rates, int n,
			  double *pfb)
{
	double d[QM_MAX_FLOWS];
	int i;

	if (n > QM_MAX_FLOWS || qm_solve_pfb(m, rates, n, pfb))
		return -1;
	for (i = 0; i < n; i++)
		d[i] = qm_ede(m, rates[i], qm_p(m, *pfb, rates[i]));
	for (i = 0; i < n; i++)
		rates[i] = fmax(0, rates[i] + d[i]);
	return 0;
}

/* Section V-B: epsilon = min_i R_i / max_i R_i */
static inline double qm_epsilon(const double *rates, int n)
{
	double lo = rates[0], hi = rates[0];
	int i;

	for (i = 1; i < n; i++) {
		lo = fmin(lo, rates[i]);
		hi = fmax(hi, rates[i]);
	}
	return hi > 0 ? lo / hi : 1;
}

/*
 * The convergence time (Section V-B): the first time epsilon >= eps, the
 * rates (changed in place) evolving by qm_step() for at most tmax
 * seconds.  Returns 0 with *t; 1 when epsilon stays below eps until
 * tmax (*t = the time reached); -1 when no p[Fb>0] solves sum E = 0 on
 * the way (*t = when).
 */
static inline int qm_conv_time(const struct qm_params *m, double *rates, int n,
			       double eps, double tmax, double *t)
{
	double pfb = -1, ts = qm_period(m);
	long k;

	for (k = 0; ; k++) {
		*t = k * ts;
		if (qm_epsilon(rates, n) >= eps)
			return 0;
		if (*t >= tmax)
			return 1;
		if (qm_step(m, rates, n, &pfb))
			return -1;
	}
}

#endif /* _QCN_MODEL_H */
