// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of tools/qcn_model.h, the convergence paper's model (Shu,
 * Zhang, Ren, Lin, Section IV): the defaults are the standard's numbers;
 * eqs. (11) and (16) are the RP's CR/TR recursion; eq. (24) is eq. (23)
 * summed; eqs. (24), (25), (26), (28) give the values the printed
 * equations give at the paper's parameters (computed term by term
 * outside this code); the limits (p -> 0, equal rates, swapped rates);
 * p[Fb>0] near the paper's 0.2 and unique; the paper's orderings of the
 * convergence time (Figs. 4-11).  And tools/qcn_fluid.h, the fluid model
 * of Alizadeh et al. (Section II-B, eqs. 9-13): Phi is the standard's
 * sampling table; eqs. (9)-(13) at hand-computed points; the limits (no
 * feedback: TR grows by R_AI per byte counter cycle and CR follows it;
 * an empty queue stays empty below C; Fb = 0 at sum CR = C, q = Qeq);
 * the delay, the clamps, one RK4 step; 10 flows settle at C/10 near Qeq.
 */
#include "ktap.h"
#include "../../tools/qcn_fluid.h"
#include "../../tools/qcn_model.h"

/* |got - want| <= rel * |want| + abs */
static int near(double got, double want, double rel, double abs)
{
	return fabs(got - want) <= rel * fabs(want) + abs;
}

/* a test point: got within rel * |want| + abs of want */
__attribute__((format(printf, 5, 6)))
static void check_near(double got, double want, double rel, double abs, const char *fmt, ...)
{
	char diag[200];
	va_list ap;

	snprintf(diag, sizeof(diag), "got %.12g, expected %.12g", got, want);
	va_start(ap, fmt);
	ktap_vrecord(near(got, want, rel, abs), diag, fmt, ap);
	va_end(ap);
}

static struct qm_params paper(void)
{
	struct qm_params m;

	qm_params_default(&m);
	return m;
}

static double conv(const struct qm_params *m, double r1)
{
	double r[2] = { r1, m->c - r1 }, t;

	return qm_conv_time(m, r, 2, 0.9, 120, &t) ? -1 : t;
}

static void test_defaults(void)
{
	struct qm_params m = paper();

	CHECK(m.c == 1e9, "C = 1 Gbit/s (Section IV-B)");
	CHECK(m.gd == 1.0 / 128, "G_d = 1/128 (rpgGd 7)");
	CHECK(m.fb == 1, "F_b = 1 (assumption 5)");
	check_near(m.r_ai, 0.5e6, 1e-15, 0, "R_AI = 0.5 Mbit/s at 1 Gbit/s (5 Mbit/s at 10)");
	check_near(qm_default_ai_rate(10e9), 5e6, 1e-15, 0, "R_AI = 5 Mbit/s at 10 Gbit/s");
	CHECK(m.s == 8 * 150000.0 && m.bc == 8 * 150000.0 && m.tai == 8 * 75000.0,
	      "S = BC = 150 KB, T_AI = 75 KB");
	CHECK(m.threshold == 5, "5 fast recovery cycles");
	check_near(m.timer, 15e-3, 1e-15, 0, "timer 15 ms (rpgTimeReset)");
	check_near(qm_period(&m), 1.2e-3, 1e-15, 0, "T_s = 150 KB at 1 Gbit/s = 1.2 ms");
}

static void test_decrease(void)
{
	struct qm_params m = paper();

	check_near(qm_rdec(&m, 640e6), -5e6, 1e-15, 0, "eq. 7: R_dec(640 Mbit/s) = -5 Mbit/s");
	check_near(qm_p(&m, 0.2, 250e6), 0.05, 1e-15, 0, "eq. 8: p = 0.2 * 250/1000");
	m.fb = 4;
	check_near(qm_rdec(&m, 640e6), -20e6, 1e-15, 0, "eq. 7: F_b = 4 cuts 4 times as much");
}

/*
 * eqs. (11), (16) against the RP itself: a cut (TR <- CR_0,
 * CR <- (1 - G_d F_b) CR_0, eq. 2), then n FR cycles and AI cycles
 * (TR += R_AI, eqs. 3-4); the j-th increase of the CR it starts from
 */
static void test_increase_values(void)
{
	struct qm_params m = paper();
	double cr0 = 731e6, cr = (1 - m.gd) * cr0, tr = cr0, next;
	int j, bad11 = 0, bad16 = 0, bad21 = 0, bad22 = 0;

	for (j = 1; j <= 60; j++) {
		if (j > m.threshold)
			tr += m.r_ai;
		next = (cr + tr) / 2;
		if (j <= m.threshold) {
			bad11 += !near(qm_rinc_fr(&m, cr, j), next - cr, 1e-9, 1e-6);
			bad21 += !near(qm_rinc_fr_approx(&m, cr, j), next - cr, m.gd, 1e-6);
		} else {
			bad16 += !near(qm_rinc_ai(&m, cr, j), next - cr, 1e-9, 1e-6);
			bad22 += !near(qm_rinc_ai_approx(&m, cr, j), next - cr, 0, m.gd * cr0 / 32);
		}
		cr = next;
	}
	CHECK(!bad11, "eq. 11: FR increases 1..5 are the CR/TR recursion's (%d off)", bad11);
	CHECK(!bad16, "eq. 16: AI increases 6..60 are the CR/TR recursion's (%d off)", bad16);
	CHECK(!bad21, "eq. 21: within G_d of eq. 11 (%d off)", bad21);
	CHECK(!bad22, "eq. 22: within G_d CR_0 / 32 of eq. 16 (%d off)", bad22);
	/* eq. (22) at large j: R_AI (TR runs ahead of CR by 2 R_AI) */
	check_near(qm_rinc_ai_approx(&m, 500e6, 60), m.r_ai, 1e-12, 0, "eq. 22: R_inc,60 = R_AI");
	check_near(qm_rinc_ai(&m, 500e6, 6), 500e6 / 64 / 128 / (1 - 1.0 / 4096) + m.r_ai / 2,
		   1e-12, 0, "eq. 16: R_inc,6 = G_d R / 64 / (1 - G_d / 32) + R_AI / 2");

	/* threshold 3: eq. 16's "5" is the threshold */
	m.threshold = 3;
	cr = (1 - m.gd) * cr0;
	tr = cr0;
	bad16 = 0;
	for (j = 1; j <= 30; j++) {
		if (j > m.threshold)
			tr += m.r_ai;
		next = (cr + tr) / 2;
		if (j > m.threshold)
			bad16 += !near(qm_rinc_ai(&m, cr, j), next - cr, 1e-9, 1e-6);
		cr = next;
	}
	CHECK(!bad16, "eq. 16 with threshold 3: the recursion's (%d off)", bad16);
}

static void test_increase_probability(void)
{
	struct qm_params m = paper();
	double n_fr, n_ai, p = 0.07, r = 250e6;	/* C / R = 4 */

	qm_cycles(&m, r, &n_fr, &n_ai);
	CHECK(n_fr == 4 && n_ai == 2, "eq. 17: C / R = 4 periods per FR cycle, 2 per AI cycle");
	check_near(qm_pinc(&m, p, 3, n_fr, n_ai), p * pow(1 - p, 12), 1e-13, 0,
		   "eq. 18: p_inc,3 = p (1-p)^(3 C/R)");
	check_near(qm_pinc(&m, p, 9, n_fr, n_ai), p * pow(1 - p, 7 * 4), 1e-13, 0,
		   "eq. 19: p_inc,9 = p (1-p)^((9+5)/2 C/R)");
	m.mode = QM_TIMER;
	m.timer = 2.4e-3;
	qm_cycles(&m, r, &n_fr, &n_ai);
	CHECK(near(n_fr, 2, 1e-15, 0) && near(n_ai, 1, 1e-15, 0),
	      "eq. 26: C T_t / T_s = 2 periods per 2.4 ms whatever R");
}

/* eq. (24) is eq. (23) summed; eq. (23) is eq. (6) with eq. (20) */
static void test_closed_forms(void)
{
	static const double rs[] = { 30e6, 100e6, 500e6, 900e6, 990e6 };
	static const double ps[] = { 1e-6, 1e-3, 0.02, 0.1, 0.3, 0.9 };
	struct qm_params m = paper();
	int i, k, bad = 0, bad_full = 0;

	for (i = 0; i < 5; i++) {
		for (k = 0; k < 6; k++) {
			double e23 = qm_ede_series(&m, rs[i], ps[k], true);
			double e24 = qm_ede_closed(&m, rs[i], ps[k], true);
			double full = qm_ede_series(&m, rs[i], ps[k], false);
			double scale = m.gd * rs[i] * ps[k] + m.r_ai;

			bad += !near(e24, e23, 0, 1e-11 * scale);
			/* eq. (20) errs by G_d F_b / (1 - G_d F_b) of the FR terms */
			bad_full += !near(full, e23, 0, 2 * m.gd * scale);
		}
	}
	CHECK(!bad, "eq. 24 = eq. 23 summed term by term (30 points, %d off)", bad);
	CHECK(!bad_full, "eq. 6 exact (eqs. 11, 16) within G_d of eq. 23 (%d off)", bad_full);

	m.threshold = 2;
	bad = 0;
	for (i = 0; i < 5; i++)
		for (k = 0; k < 6; k++)
			bad += !near(qm_ede_closed(&m, rs[i], ps[k], true),
				     qm_ede_series(&m, rs[i], ps[k], true), 0,
				     1e-11 * (m.gd * rs[i] * ps[k] + m.r_ai));
	CHECK(!bad, "threshold 2: eq. 24 generalized = eq. 23 (%d off)", bad);
}

/*
 * eqs. (24), (25), (26), (28) at the paper's parameters (C = 1 Gbit/s,
 * G_d F_b = 1/128, R_AI = 0.5 Mbit/s, S = 150 KB), against the printed
 * equations evaluated term by term with n = 5 written out, in bit/s per
 * sampling period
 */
static void test_values(void)
{
	struct qm_params m = paper();

	check_near(qm_ede_closed(&m, 500e6, 0.1, false), 17903.785082925984, 1e-11, 0,
		   "eq. 25 at R = 500 Mbit/s, p = 0.1");
	check_near(qm_ede_closed(&m, 900e6, 0.15, false), -2873.0106110624947, 1e-10, 0,
		   "eq. 25 at R = 900 Mbit/s, p = 0.15");
	check_near(qm_ede_closed(&m, 100e6, 0.02, false), 26425.63611062912, 1e-11, 0,
		   "eq. 25 at R = 100 Mbit/s, p = 0.02");
	check_near(qm_ede_closed(&m, 500e6, 0.1, true), 18489.07091226926, 1e-11, 0,
		   "eq. 24 at R = 500 Mbit/s, p = 0.1");
	check_near(qm_ede_closed(&m, 900e6, 0.15, true), -1207.7554805165946, 1e-10, 0,
		   "eq. 24 at R = 900 Mbit/s, p = 0.15");
	m.mode = QM_AIMD;
	check_near(qm_ede(&m, 500e6, 0.1), -177467.10526315783, 1e-11, 0,
		   "eq. 28 at R = 500 Mbit/s, p = 0.1");
	check_near(qm_ede(&m, 100e6, 0.02), 29041.55793407689, 1e-11, 0,
		   "eq. 28 at R = 100 Mbit/s, p = 0.02");
	m.mode = QM_TIMER;
	m.timer = 10e-3;
	check_near(qm_ede(&m, 300e6, 0.05), -50102.853830111635, 1e-11, 0,
		   "eq. 26 at T_t = 10 ms, R = 300 Mbit/s, p = 0.05");
}

static void test_limits(void)
{
	struct qm_params m = paper();
	double r[4], pfb = -1, e1, e2;
	int eq, bad = 0, i;

	/* p -> 0: no cuts, one R_AI per AI cycle (C / 2R periods) */
	for (eq = QM_EQ_FULL; eq <= QM_EQ_25; eq++) {
		m.eq = eq;
		bad += !near(qm_ede(&m, 250e6, 1e-9), m.r_ai * 2 * 0.25, 1e-6, 0);
		bad += !near(qm_ede(&m, 250e6, 0), m.r_ai * 2 * 0.25, 1e-15, 0);
	}
	CHECK(!bad, "p -> 0: E(dR) -> R_AI 2R / C in every form (%d off)", bad);
	m.eq = QM_EQ_25;
	m.mode = QM_AIMD;
	check_near(qm_ede(&m, 250e6, 1e-9), m.r_ai * 0.25, 1e-6, 0,
		   "p -> 0, AIMD: E(dR) -> R_AI R / C");
	m.mode = QM_QCN;
	CHECK(qm_ede(&m, 0, 0.1) == 0, "a flow at rate 0 stays there");
	/* p -> 1 with C/R = 1.25: a cut nearly every period, E ~ -G_d R p */
	check_near(qm_ede(&m, 800e6, 1 - 1e-9), qm_rdec(&m, 800e6), 1e-6, 0,
		   "p -> 1: E(dR) -> -G_d F_b R");

	/* the paper's claim after eq. (24): its 3rd and 4th terms are small */
	r[0] = 500e6;
	r[1] = 500e6;
	qm_solve_pfb(&m, r, 2, &pfb);
	{
		double p = qm_p(&m, pfb, 500e6), u = pow(1 - p, 2);
		double second = m.gd * 500e6 * p * (u / 2) / (1 - u / 2);
		double d = qm_ede_closed(&m, 500e6, p, true) - qm_ede_closed(&m, 500e6, p, false);

		CHECK(fabs(d) < 0.01 * second,
		      "eq. 24's 3rd + 4th terms < 1 %% of its 2nd at (500, 500) (%.3g vs %.3g)",
		      d, second);
	}

	/* R_1 = R_2 = C/2: E(dR_1) = E(dR_2) = 0 at the root */
	e1 = qm_ede(&m, r[0], qm_p(&m, pfb, r[0]));
	e2 = qm_ede(&m, r[1], qm_p(&m, pfb, r[1]));
	CHECK(e1 == e2 && fabs(e1) < 1e-6, "R_1 = R_2 = C/2: E(dR_1) = E(dR_2) = 0 (%.3g)", e1);
	for (i = 0; i < 4; i++)
		r[i] = 250e6;
	pfb = -1;
	qm_solve_pfb(&m, r, 4, &pfb);
	CHECK(fabs(qm_ede(&m, 250e6, qm_p(&m, pfb, 250e6))) < 1e-6,
	      "4 flows at C/4: E(dR_i) = 0 (p[Fb>0] %.4f)", pfb);

	/* swapping the flows swaps their E(dR), p[Fb>0] stays */
	{
		double a[2] = { 830e6, 170e6 }, b[2] = { 170e6, 830e6 }, pa = -1, pb = 0.5;

		qm_solve_pfb(&m, a, 2, &pa);
		qm_solve_pfb(&m, b, 2, &pb);
		check_near(pb, pa, 1e-12, 0, "swapped rates: the same p[Fb>0]");
		check_near(qm_ede(&m, b[1], qm_p(&m, pb, b[1])),
			   qm_ede(&m, a[0], qm_p(&m, pa, a[0])), 1e-9, 1e-9,
			   "swapped rates: E(dR) follows the rate");
		CHECK(qm_ede(&m, a[0], qm_p(&m, pa, a[0])) < 0 &&
		      qm_ede(&m, a[1], qm_p(&m, pa, a[1])) > 0,
		      "the faster flow slows down, the slower speeds up");
	}

	/*
	 * the timer's cycles do not depend on R: with T_t = 2.4 ms (2
	 * periods) a flow at C/2 sees the byte counter's cycles
	 */
	{
		struct qm_params t = m;

		t.mode = QM_TIMER;
		t.timer = 2.4e-3;
		check_near(qm_ede(&t, 500e6, 0.1), qm_ede(&m, 500e6, 0.1), 1e-12, 0,
			   "eq. 26 at T_t = 2.4 ms = eq. 25 at R = C/2");
	}
}

static void test_pfb(void)
{
	struct qm_params m = paper();
	double r[2], pfb = -1, prev = 1, lo = 1, hi = 0, r1;
	int mono = 1, unique = 1, k, changes;

	for (r1 = 500e6; r1 < 996e6; r1 += 5e6) {
		r[0] = r1;
		r[1] = m.c - r1;
		if (qm_solve_pfb(&m, r, 2, &pfb)) {
			mono = 0;
			break;
		}
		mono &= pfb <= prev;
		prev = pfb;
		lo = fmin(lo, pfb);
		hi = fmax(hi, pfb);
	}
	r[0] = 900e6;
	r[1] = 100e6;
	pfb = -1;
	qm_solve_pfb(&m, r, 2, &pfb);
	CHECK(fabs(qm_sum_ede(&m, r, 2, pfb)) < 1e-3,
	      "sum E(dR_i) = 0 within 1e-3 bit/s at the solved p[Fb>0] (900, 100)");
	r[0] = 500e6;
	r[1] = 500e6;
	pfb = -1;
	qm_solve_pfb(&m, r, 2, &pfb);
	CHECK(pfb > 0.19 && pfb < 0.22, "p[Fb>0] ~ 0.2 at (500, 500), as the paper computes (%.4f)",
	      pfb);
	CHECK(lo > 0.15 && hi < 0.22,
	      "Fig. 3: R_1 500..995 Mbit/s moves p[Fb>0] little (%.4f..%.4f)", lo, hi);
	CHECK(mono, "Fig. 3: p[Fb>0] falls as R_1 grows");
	/* one root: sum E changes sign once on a 1000-point grid */
	for (r1 = 550e6; r1 < 1e9; r1 += 200e6) {
		double f, fprev;

		r[0] = r1;
		r[1] = m.c - r1;
		fprev = qm_sum_ede(&m, r, 2, 0);
		for (changes = 0, k = 1; k <= 1000; k++) {
			f = qm_sum_ede(&m, r, 2, k / 1000.0);
			changes += (f > 0) != (fprev > 0);
			fprev = f;
		}
		unique &= changes == 1;
	}
	CHECK(unique, "sum E(dR_i) has one root in p[Fb>0] (R_1 550, 750, 950)");
	/* no root: with G_d = 2^-31 the cuts cannot balance R_AI */
	m.gd = ldexp(1.0, -31);
	r[0] = 900e6;
	r[1] = 100e6;
	CHECK(qm_solve_pfb(&m, r, 2, &pfb) == -1, "G_d = 2^-31: no p[Fb>0] balances the increases");
}

static void test_evolution(void)
{
	struct qm_params m = paper();
	double r[2] = { 900e6, 100e6 }, pfb = -1, prev = 900e6, eps = 0, t;
	int k, rc, mono = 1, sum_ok = 1;

	for (k = 0; k < 20000; k++) {
		qm_step(&m, r, 2, &pfb);
		mono &= r[0] <= prev && r[0] >= m.c / 2 - 1 && qm_epsilon(r, 2) >= eps;
		sum_ok &= fabs(r[0] + r[1] - m.c) < 1;
		prev = r[0];
		eps = qm_epsilon(r, 2);
	}
	CHECK(mono, "from (900, 100): R_1 falls, epsilon grows, never past C/2");
	CHECK(sum_ok, "R_1 + R_2 = C within 1 bit/s over 20000 periods");
	CHECK(eps > 0.99, "after 24 s epsilon %.4f > 0.99", eps);

	r[0] = 900e6;
	r[1] = 100e6;
	rc = qm_conv_time(&m, r, 2, 0.9, 60, &t);
	CHECK(rc == 0 && t > 10 && t < 15,
	      "Fig. 5: (900, 100) converges in 10..15 s (paper: about 12 s; %.2f s)", t);
	r[0] = 900e6;
	r[1] = 100e6;
	rc = qm_conv_time(&m, r, 2, 0.9, 5, &t);
	CHECK(rc == 1 && near(t, 5, 0, 1.2e-3), "-t 5s: not converged, stops at 5 s (%.4f)", t);
	r[0] = 510e6;
	r[1] = 490e6;
	rc = qm_conv_time(&m, r, 2, 0.9, 60, &t);
	CHECK(rc == 0 && t == 0, "(510, 490): converged at 0");
}

/* the paper's orderings of the convergence time, Figs. 4 and 6-11 */
static void test_orderings(void)
{
	struct qm_params m = paper();
	double c[5], base = conv(&m, 900e6);
	int i, ok;

	for (ok = 1, i = 0; i < 5; i++) {
		c[i] = conv(&m, 550e6 + i * 100e6);
		ok &= c[i] >= 0 && (!i || c[i] > c[i - 1]);
	}
	CHECK(ok, "Fig. 4: the convergence time grows with R_1 (550..950: %.1f..%.1f s)",
	      c[0], c[4]);
	CHECK(conv(&m, 700e6) < 0.75 * base, "Fig. 6: (700, 300) much sooner than (900, 100)");

	for (ok = 1, i = 0; i < 4; i++) {
		static const int shift[] = { 8, 7, 6, 4 };

		m.gd = ldexp(1.0, -shift[i]);
		c[i] = conv(&m, 900e6);
		ok &= c[i] > 0 && (!i || c[i] < c[i - 1]);
	}
	CHECK(ok, "Fig. 7: larger G_d, sooner (1/256..1/16: %.1f..%.1f s)", c[0], c[3]);
	CHECK(c[3] > 0.4 * c[1] && c[3] < 0.7 * c[1],
	      "Fig. 7: G_d = 1/16 about halves the standard's time (%.2f)", c[3] / c[1]);
	/* Section V-B 1: a larger mean F_b acts as a larger G_d */
	m = paper();
	m.fb = 2;
	c[4] = conv(&m, 900e6);
	CHECK(c[4] == c[2], "F_b = 2 converges as G_d = 1/64 does (%.4f vs %.4f s)", c[4], c[2]);

	m = paper();
	for (ok = 1, i = 0; i < 3; i++) {
		static const double ai[] = { 0.5e6, 1e6, 5e6 };

		m.r_ai = ai[i];
		c[i] = conv(&m, 900e6);
		ok &= c[i] > 0 && (!i || c[i] < c[i - 1]);
	}
	CHECK(ok && c[2] < base / 3, "Fig. 8: larger R_AI, much sooner (%.1f, %.1f, %.1f s)",
	      c[0], c[1], c[2]);

	m = paper();
	for (ok = 1, i = 0; i < 3; i++) {
		static const double tai[] = { 37500, 75000, 150000 };

		m.tai = 8 * tai[i];
		c[i] = conv(&m, 900e6);
		ok &= c[i] > 0 && (!i || c[i] > c[i - 1]);
	}
	CHECK(ok, "Fig. 9: longer T_AI, later (%.1f, %.1f, %.1f s)", c[0], c[1], c[2]);

	m = paper();
	m.mode = QM_TIMER;
	m.timer = 2.4e-3;
	c[0] = conv(&m, 900e6);
	m.timer = 10e-3;
	c[1] = conv(&m, 900e6);
	CHECK(c[0] > 0 && c[0] < base / 3 && c[1] > c[0] && c[1] < base,
	      "Fig. 10: a 2.4 ms timer several times sooner, 10 ms sooner than QCN (%.1f, %.1f, %.1f s)",
	      c[0], c[1], base);

	m = paper();
	m.mode = QM_AIMD;
	c[0] = conv(&m, 900e6);
	CHECK(c[0] > 0 && c[0] < base, "Fig. 11: QCN-AIMD sooner at the same R_AI (%.1f vs %.1f s)",
	      c[0], base);

	/* Section V-B 3: m times the link (R_AI scaled with it), 1/m the time */
	m = paper();
	m.c = 10e9;
	m.r_ai = qm_default_ai_rate(m.c);
	c[0] = conv(&m, 9e9);
	CHECK(near(c[0], base / 10, 0, 1e-3), "10 Gbit/s, R_AI 5 Mbit/s: a tenth of the time (%.4f s)",
	      c[0]);
}

/* the fluid model at the paper's baseline, n flows, tau 100 us, h 1 us */
static struct qf_params fluid(int n)
{
	struct qf_params m;

	qf_params_default(&m);
	m.n = n;
	return m;
}

/* a state of n flows at (tr, cr), queue q, probability p */
static void fluid_state(const struct qf_params *m, double *x, double tr, double cr, double q,
			double p)
{
	int i;

	for (i = 0; i < m->n; i++) {
		QF_TR(m, x)[i] = tr;
		QF_CR(m, x)[i] = cr;
	}
	QF_Q(m, x) = q;
	QF_P(m, x) = p;
}

/*
 * Phi (Fig. 2) is the standard's table: 1500 bytes per 150000, 75000, ..,
 * 18500 bytes by qFb / 8, qFb = floor(Fb 64 / (2w + 1) Qeq) = floor(Fb /
 * 2031.25) with Qeq 26000, w 2
 */
static void test_fluid_phi(void)
{
	static const double tab[8] = { 150000, 75000, 50000, 37500, 30000, 25000, 21500, 18500 };
	struct qf_params m = fluid(1);
	double fb, prev = 0, lo = 1, hi = 0;
	int k, bad = 0, mono = 1;

	CHECK(qf_phi(&m, 0) == 0.01 && qf_phi(&m, -50000) == 0.01,
	      "Phi: 1 %% with no congestion (Fb <= 0)");
	for (k = 0; k < 8; k++) {
		/* the middle of qFb 8k..8k+7 */
		fb = (8 * k + 4) * 2031.25;
		bad += !near(qf_phi(&m, fb), 1500 / tab[k], 1e-12, 0);
	}
	CHECK(!bad, "Phi: P / the standard's interval in each of its 8 steps (%d off)", bad);
	CHECK(qf_qfb(&m, 16250) == 8 && qf_qfb(&m, 16249) == 7 && qf_qfb(&m, 2031) == 0 &&
	      qf_qfb(&m, 2032) == 1 && qf_qfb(&m, 1e9) == 63,
	      "qFb: 1 from 2032 bytes, 8 from 16250, 63 at most (qcn_cp_quantize)");
	check_near(qf_phi(&m, 1e9), 1500 / 18500.0, 1e-12, 0, "Phi at Fbmax: 8.1 %%");
	for (fb = -1000; fb < 200000; fb += 100) {
		double p = qf_phi(&m, fb);

		mono &= p >= prev;
		prev = p;
		lo = fmin(lo, p);
		hi = fmax(hi, p);
	}
	CHECK(mono && lo == 0.01 && near(hi, 1500 / 18500.0, 1e-12, 0),
	      "Phi rises with Fb from 1 %% to 8.1 %%");
	m.pkt = 1000;
	check_near(qf_phi(&m, 0), 1000 / 150000.0, 1e-12, 0, "Phi: 1000-byte frames, 1/150");
}

/* eq. (12), and eq. (10)'s cycle rate */
static void test_fluid_fb(void)
{
	struct qf_params m = fluid(2);

	CHECK(qf_fb(&m, 26000, 10e9, 0.01) == 0, "eq. 12: Fb = 0 at q = Qeq, sum CR = C");
	check_near(qf_fb(&m, 27000, 10e9, 0.03), 1000, 1e-12, 0, "eq. 12: Fb = q - Qeq at sum CR = C");
	/* w P (sum - C) / (C p) = 2 * 1500 * 0.1 / 0.01 */
	check_near(qf_fb(&m, 26000, 11e9, 0.01), 30000, 1e-12, 0,
		   "eq. 12: 10 %% above C at p 1 %% adds w P 10 = 30000 bytes");
	m.w_exp = -1;
	check_near(qf_fb(&m, 20000, 9e9, 0.02), -6000 - 0.5 * 1500 * 0.1 / 0.02, 1e-12, 0,
		   "eq. 12: w 1/2, 10 %% below C at p 2 %%");
	CHECK(qf_cycle_rate(0, 100) == 0.01, "eq. 10: p / ((1-p)^-100 - 1) -> 1/100 at p = 0");
	check_near(qf_cycle_rate(1e-12, 100), 0.01, 1e-9, 0, "eq. 10: continuous at p = 0");
	check_near(qf_cycle_rate(0.01, 100), 0.01 / (pow(0.99, -100) - 1), 1e-12, 0,
		   "eq. 10: at p 1 %% (0.00578)");
	check_near(qf_cycle(&m), 100, 0, 0, "the byte counter's cycle: 150 KB / 1500 = 100 frames");
}

/*
 * eqs. (9)-(13) at two points, with l = CR_d / 8P packets/s:
 * uncongested, 1 flow at TR 6, CR 5 Gbit/s (l = 416667, Fb_d < 0: no
 * message): dTR = R_AI l / 100, dCR = (TR - CR) / 2 l / 100;
 * congested, 2 flows at TR 7, CR 6 Gbit/s (l = 500000), q = Qeq + 20000,
 * p = 2 %: Fb = 20000 + 3000 * 2e9 / 2e8 = 50000, qFb 24 (G_d qFb =
 * 0.1875), Phi = 1500 / 37500:
 *   dTR = -1e9 * 5e5 * 0.02 + 0.98^500 * 5e6 * 5e5 / 100
 *   dCR = -0.1875 * 6e9 * 5e5 * 0.02 + 5e8 * 5e5 * 0.02 / (0.98^-100 - 1)
 *   dq  = 2e9 / 8,  dp = 500 * (0.04 - 0.02)
 */
static void test_fluid_deriv(void)
{
	struct qf_params m = fluid(1);
	double x[QF_DIM_MAX], dx[QF_DIM_MAX];

	fluid_state(&m, x, 6e9, 5e9, 0, 0.01);
	qf_deriv(&m, x, x, dx);
	check_near(dx[0], 5e6 * 5e9 / 12000 / 100, 1e-12, 0,
		   "eq. 9, no message: dTR/dt = R_AI CR / 8P / 100 (20.8 Gbit/s per s)");
	check_near(dx[1], 0.5e9 * 5e9 / 12000 / 100, 1e-12, 0,
		   "eq. 10, no message: dCR/dt = (TR - CR) / 2 CR / 8P / 100");
	CHECK(QF_Q(&m, dx) == 0, "eq. 11: an empty queue stays empty below C");
	CHECK(QF_P(&m, dx) == 0, "eq. 13: p stays at Phi(Fb <= 0) = 1 %%");

	m = fluid(2);
	fluid_state(&m, x, 7e9, 6e9, 46000, 0.02);
	check_near(qf_fb_of(&m, x), 50000, 1e-12, 0, "eq. 12: Fb = 50000 bytes");
	CHECK(qf_qfb(&m, 50000) == 24, "qFb(50000) = 24");
	qf_deriv(&m, x, x, dx);
	check_near(QF_TR(&m, dx)[1], -1e13 + pow(0.98, 500) * 2.5e10, 1e-12, 0,
		   "eq. 9 with a message per 50 frames");
	check_near(QF_CR(&m, dx)[1], -0.1875 * 6e13 + 5e12 / (pow(0.98, -100) - 1), 1e-12, 0,
		   "eq. 10 with a message per 50 frames, cut G_d qFb");
	check_near(QF_Q(&m, dx), 2.5e8, 1e-12, 0, "eq. 11: dq/dt = (sum CR - C) / 8");
	check_near(QF_P(&m, dx), 10, 1e-12, 0, "eq. 13: dp/dt = 500 (Phi - p)");
	/* the standard's TR rule: eq. 9's first term times 0.98^100 */
	m.tr_cycle = true;
	qf_deriv(&m, x, x, dx);
	check_near(QF_TR(&m, dx)[0], -1e13 * pow(0.98, 100) + pow(0.98, 500) * 2.5e10, 1e-12, 0,
		   "eq. 9, TR <- CR only after a cycle: its first term times (1-p)^100");
	m.tr_cycle = false;

	/* equilibrium: sum CR = C, q = Qeq, TR = CR: Fb = 0, no cut, no FR */
	fluid_state(&m, x, 5e9, 5e9, 26000, 0.03);
	qf_deriv(&m, x, x, dx);
	CHECK(qf_fb_of(&m, x) == 0 && QF_Q(&m, dx) == 0 && QF_CR(&m, dx)[0] == 0,
	      "equilibrium: Fb = 0, dq/dt = 0, dCR/dt = 0");
	check_near(QF_P(&m, dx), 500 * (0.01 - 0.03), 1e-12, 0, "equilibrium: p relaxes to 1 %%");
	/* the clamps: a full buffer above C, rates at the line rate */
	fluid_state(&m, x, 10e9, 10e9, 150000, 0.01);
	qf_deriv(&m, x, x, dx);
	CHECK(QF_Q(&m, dx) == 0 && QF_TR(&m, dx)[0] == 0,
	      "clamps: a full buffer does not grow, TR not above the line rate");
}

/* runs s for t seconds */
static void fluid_run(struct qf_sim *s, double t)
{
	while (qf_time(s) < t - s->m.h / 2)
		qf_step(s);
}

static void test_fluid_run(void)
{
	struct qf_params m = fluid(1);
	struct qf_sim s;
	double t, grow, mean = 0, sum = 0, lo = 1e12, hi = 0;
	int i, k, ok, same;

	/*
	 * p = 0 (no message: one flow at C/2): TR grows by R_AI per 150 KB
	 * sent, dTR/dt = R_AI / 1.2 Mbit * CR(t - tau), CR follows TR
	 * (FR halves the gap every cycle), the queue stays empty
	 */
	qf_init(&s, &m, 5e9);
	for (ok = 1, k = 0; k < 10; k++) {
		fluid_run(&s, (k + 1) * 1e-3);
		ok &= QF_Q(&m, s.x) == 0 && QF_P(&m, s.x) == 0.01;
	}
	t = qf_time(&s);
	grow = 5e6 / 1.2e6;
	CHECK(ok, "no message, CR < C: q stays 0 and p 1 %% for 10 ms");
	check_near(s.x[0], 5e9 * exp(grow * (t - m.tau)), 2e-3, 0,
		   "no message: TR grows as R_AI CR / 1.2 Mbit (exp(4.17/s t) after tau)");
	check_near(s.x[1], s.x[0], 2e-3, 0, "no message: CR tracks TR within 0.2 %%");
	qf_free(&s);

	/* one RK4 step: 2 flows at the line rate fill the queue by C/8 h */
	m = fluid(2);
	qf_init(&s, &m, 10e9);
	fluid_run(&s, 10e-6);
	check_near(QF_Q(&m, s.x), 12500, 1e-12, 0, "10 steps of 1 us at 2C: q = 12500 bytes");
	CHECK(QF_CR(&m, s.x)[0] == 10e9, "no feedback before tau: CR at the line rate");
	fluid_run(&s, 99e-6);
	CHECK(QF_CR(&m, s.x)[0] == 10e9, "a step before tau: CR still at the line rate");
	fluid_run(&s, 150e-6);
	CHECK(QF_CR(&m, s.x)[0] < 9e9 && QF_Q(&m, s.x) == m.limit,
	      "after tau: CR falls, the buffer is full (%.0f Mbit/s)", QF_CR(&m, s.x)[0] / 1e6);
	qf_free(&s);

	/* 10 flows from the line rate, tau 100 us: C/10 each near Qeq */
	m = fluid(10);
	qf_init(&s, &m, 10e9);
	fluid_run(&s, 0.1);
	for (k = 0, same = 1; qf_time(&s) < 0.2 - m.h / 2; k++) {
		qf_step(&s);
		mean += QF_Q(&m, s.x);
		sum += qf_sum_cr(&m, s.x);
		for (i = 1; i < m.n; i++)
			same &= QF_CR(&m, s.x)[i] == QF_CR(&m, s.x)[0];
		lo = fmin(lo, QF_CR(&m, s.x)[0]);
		hi = fmax(hi, QF_CR(&m, s.x)[0]);
	}
	mean /= k;
	sum /= k;
	CHECK(same, "10 equal flows stay equal");
	CHECK(near(sum, m.c, 0.005, 0) && lo > 0.95e9 && hi < 1.05e9,
	      "10 flows, tau 100 us: sum CR %.1f Mbit/s, CR_1 %.0f..%.0f Mbit/s over 0.1-0.2 s",
	      sum / 1e6, lo / 1e6, hi / 1e6);
	CHECK(mean > 0.9 * m.qeq && mean < 1.25 * m.qeq,
	      "10 flows, tau 100 us: mean queue %.0f bytes near Qeq", mean);
	qf_free(&s);
}

int main(void)
{
	test_defaults();
	test_decrease();
	test_increase_values();
	test_increase_probability();
	test_closed_forms();
	test_values();
	test_limits();
	test_pfb();
	test_evolution();
	test_orderings();
	test_fluid_phi();
	test_fluid_fb();
	test_fluid_deriv();
	test_fluid_run();
	return ktap_finish();
}
