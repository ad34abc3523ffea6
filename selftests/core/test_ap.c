// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for include/qcn/qcn_ap.h: N-AIMD (eq. 14) and the AP step. */
#include "qcn/qcn_ap.h"
#include "ktap.h"

#define G10	10000000000ULL

static void params(struct qcn_naimd_params *p, uint32_t ap)
{
	qcn_naimd_params_default(p, G10);
	p->ap_pkts = ap;
}

static void test_defaults(void)
{
	struct qcn_naimd_params p;
	struct qcn_naimd s;

	params(&p, 0);
	CHECK(qcn_naimd_params_valid(&p), "defaults: valid");
	CHECK_U64(p.gi, 533330000, "defaults: G_i 0.53333");
	CHECK_U64(p.ru, 1000000, "defaults: R_u 1 Mb/s");
	CHECK_U64(p.gd, 2666700, "defaults: G_d 0.0026667");
	qcn_naimd_init(&s, &p);
	CHECK_U64(s.cr, G10, "init: CR = line rate");
	CHECK(!qcn_naimd_tx(&s, &p), "init: no averaging before a feedback");
	p.min_rate = 0;
	CHECK(!qcn_naimd_params_valid(&p), "invalid: min rate 0");
	params(&p, 0);
	p.fb_unit = 0;
	CHECK(!qcn_naimd_params_valid(&p), "invalid: fb unit 0");
	params(&p, 0);
	p.min_rate = G10 + 1;
	CHECK(!qcn_naimd_params_valid(&p), "invalid: min rate above max rate");
}

static void test_eq14(void)
{
	struct qcn_naimd_params p;
	uint64_t r = 5000000000ULL;

	params(&p, 0);
	/* (14a): +G_i R_u Fb, Fb = 10 packets of 1500 B: +5333300 bit/s */
	CHECK_U64(qcn_naimd_apply(r, 15000, &p), r + 5333300, "14a: Fb +10 pkts adds G_i R_u 10");
	/* fractional Fb: 750 B = half a packet: +266665 */
	CHECK_U64(qcn_naimd_apply(r, 750, &p), r + 266665, "14a: Fb +0.5 pkt adds half a step");
	CHECK_U64(qcn_naimd_apply(r, 0, &p), r, "14a: Fb 0 keeps the rate");
	/* (14b): R (1 - G_d |Fb|), Fb -10 pkts: 5e9 * 0.026667 = 133335000 */
	CHECK_U64(qcn_naimd_apply(r, -15000, &p), r - 133335000, "14b: Fb -10 pkts cuts G_d 10 R");
	CHECK_U64(qcn_naimd_apply(r, -1, &p), r - 8889, "14b: Fb -1 byte cuts floor(R G_d / 1500)");
	/* G_d |Fb'| >= 1: floor */
	CHECK_U64(qcn_naimd_apply(r, -1500LL * 374, &p), r - qcn_mul_div_u64(r, 2666700ULL * 374, QCN_AP_ONE),
		  "14b: G_d |Fb'| just under 1 (374 pkts) leaves 0.27 %% of R");
	CHECK_U64(qcn_naimd_apply(r, -1500LL * 375, &p), p.min_rate, "14b: G_d |Fb'| >= 1 gives the min rate");
	CHECK_U64(qcn_naimd_apply(r, INT64_MIN, &p), p.min_rate, "14b: most negative Fb gives the min rate");
	CHECK_U64(qcn_naimd_apply(G10 - 1000, 1500000, &p), G10, "clamp: increase capped at the line rate");
	CHECK_U64(qcn_naimd_apply(G10, INT64_MAX, &p), G10, "clamp: huge Fb saturates at the line rate");
	CHECK_U64(qcn_naimd_apply(1000000, -1500LL * 300, &p), 1000000, "clamp: never below the min rate");
	p.fb_unit = 1;
	CHECK_U64(qcn_naimd_apply(r, 10, &p), r + 5333300, "fb unit 1: Fb counted in bytes");
}

static void test_ap(void)
{
	struct qcn_naimd_params p;
	struct qcn_naimd s;
	uint32_t i, n = 0;

	params(&p, 50);
	qcn_naimd_init(&s, &p);
	s.cr = 4000000000ULL;
	qcn_naimd_feedback(&s, &p, -15000);	/* -2.6667 %: CR 3893332000 */
	CHECK_U64(s.tr, 4000000000ULL, "AP: TR = CR before the feedback");
	CHECK_U64(s.cr, 3893332000ULL, "AP: feedback applies eq. 14b to CR");
	for (i = 1; i < 50; i++)
		n += qcn_naimd_tx(&s, &p);
	CHECK_U64(n, 0, "AP: no averaging during the first 49 packets");
	CHECK_U64(s.cr, 3893332000ULL, "AP: CR unchanged before T/2");
	CHECK(qcn_naimd_tx(&s, &p), "AP: the 50th packet averages");
	CHECK_U64(s.cr, 3946666000ULL, "AP: CR <- (CR + TR) / 2");
	for (i = 0; i < 200; i++)
		n += qcn_naimd_tx(&s, &p);
	CHECK_U64(n, 0, "AP: one averaging step per feedback");
	/* a feedback before 50 packets: counter restarts, no averaging */
	qcn_naimd_feedback(&s, &p, 15000);
	for (i = 0; i < 30; i++)
		n += qcn_naimd_tx(&s, &p);
	qcn_naimd_feedback(&s, &p, 15000);
	for (i = 0; i < 49; i++)
		n += qcn_naimd_tx(&s, &p);
	CHECK_U64(n, 0, "AP: an early feedback restarts the count (no step at 50 since the first)");
	CHECK(qcn_naimd_tx(&s, &p), "AP: the step comes 50 packets after the latest feedback");
	/* odd rates: exact floor of the mean */
	s.cr = 3; s.tr = 4; s.averaged = false; s.pkts = 49;
	qcn_naimd_tx(&s, &p);
	CHECK_U64(s.cr, 3, "AP: floor((3 + 4) / 2)");
	s.cr = 3; s.tr = 5; s.averaged = false; s.pkts = 49;
	qcn_naimd_tx(&s, &p);
	CHECK_U64(s.cr, 4, "AP: (3 + 5) / 2");
	s.cr = ~0ULL; s.tr = ~0ULL; s.averaged = false; s.pkts = 49;
	qcn_naimd_tx(&s, &p);
	CHECK_U64(s.cr, ~0ULL, "AP: no overflow at 2^64 - 1");

	/* plain N-AIMD never averages */
	params(&p, 0);
	qcn_naimd_init(&s, &p);
	qcn_naimd_feedback(&s, &p, -15000);
	for (i = 0, n = 0; i < 1000; i++)
		n += qcn_naimd_tx(&s, &p);
	CHECK_U64(n, 0, "N-AIMD: no averaging step");
	CHECK_U64(s.cr, G10 - 266670000ULL, "N-AIMD: CR stays at eq. 14b's value");
}

/* Theorem 1: with AP, the effective rate (R1 + R2)/2 follows the feedback
 * (3 Fb[n] - Fb[n-1]) / 4 applied without AP (additive case, exact). */
static void test_theorem1(void)
{
	struct qcn_naimd_params p;
	struct qcn_naimd s;
	static const int64_t fb[] = { 3000, 6000, 1500, 9000, 0, 4500, 12000 };
	int64_t re, prev = 0, r;
	unsigned int i, bad = 0;

	params(&p, 50);
	p.gi = QCN_AP_ONE;	/* G_i R_u = 1 Mb/s per packet */
	qcn_naimd_init(&s, &p);
	s.cr = s.tr = 1000000000ULL;
	r = 1000000000LL;
	for (i = 0; i < sizeof(fb) / sizeof(fb[0]); i++) {
		qcn_naimd_feedback(&s, &p, fb[i]);
		re = (int64_t)s.cr;		/* R1[n] */
		while (!qcn_naimd_tx(&s, &p))
			;
		re = (re + (int64_t)s.cr) / 2;	/* (R1 + R2)/2 */
		r += (3 * fb[i] - prev) * 1000000 / 4 / 1500;
		prev = fb[i];
		if (re != r)
			bad++;
	}
	CHECK_U64(bad, 0, "Theorem 1: AP's effective rate = (3Fb[n] - Fb[n-1])/4 without AP");
}

static void test_cp(void)
{
	struct qcn_cp_params cpp;
	struct qcn_cp cp;
	uint32_t i, n = 0;
	struct qcn_cp_sample s = { 0 };

	CHECK(qcn_naimd_cp_sampled(100, 0), "CP: rnd 0 samples");
	CHECK(qcn_naimd_cp_sampled(100, 42949672), "CP: rnd < 2^32/100 samples");
	CHECK(!qcn_naimd_cp_sampled(100, 42949673), "CP: rnd >= 2^32/100 does not");
	CHECK(qcn_naimd_cp_sampled(1, 0xffffffffU), "CP: period 1 samples every arrival");
	CHECK(qcn_naimd_cp_sampled(0, 0xffffffffU), "CP: period 0 samples every arrival");
	for (i = 0; i < 100; i++)
		n += qcn_naimd_cp_sampled(100, (uint32_t)((((uint64_t)i << 32) + 99) / 100));
	CHECK_U64(n, 1, "CP: 1 of 100 evenly spaced draws is sampled");

	qcn_cp_params_default(&cpp);
	cpp.qeq = 24000;	/* 16 packets of 1500 B, w 2 */
	qcn_cp_init(&cp, &cpp, 0);
	CHECK(qcn_naimd_cp_arrival(&cp, &cpp, 100, 12000, 0, &s), "CP: a sample");
	CHECK_S64(s.fb, -(12000 - 24000 + 2 * 12000), "CP: Fb = -(Qoff + w Qdelta)");
	CHECK_U64(s.qfb, qcn_cp_quantize(s.fb, 24000, 1), "CP: qFb quantizes Fb < 0");
	CHECK_U64(cp.qold, 12000, "CP: Qold <- Q");
	CHECK(qcn_naimd_cp_arrival(&cp, &cpp, 100, 9000, 0, &s), "CP: a second sample");
	CHECK_S64(s.fb, 21000, "CP: positive Fb is sent too (queue under Qeq and falling)");
	CHECK_U64(s.qfb, 0, "CP: qFb 0 for Fb >= 0");
	CHECK_S64(s.qoff, -15000, "CP: Qoff = Q - Qeq");
	CHECK_S64(s.qdelta, -3000, "CP: Qdelta = Q - Qold");
	s.fb = 77;
	CHECK(!qcn_naimd_cp_arrival(&cp, &cpp, 100, 50000, 0x80000000U, &s), "CP: unsampled arrival");
	CHECK_S64(s.fb, 77, "CP: unsampled arrival leaves the sample alone");
	CHECK_U64(cp.qold, 9000, "CP: unsampled arrival leaves Qold alone");
}

/* the RP rebuilds Fb from the CNM's cnmQOffset / cnmQDelta */
static void test_cnm_fb(void)
{
	struct qcn_cnm m = { 0 };

	m.qoffset = qcn_cnm_q_units(12000 - 24000);	/* -187 units */
	m.qdelta = qcn_cnm_q_units(12000);		/* 187 units */
	CHECK_S64(qcn_cnm_fb(&m, 1), -(-187 * 64 + 2 * 187 * 64), "CNM Fb: -(64 qoff + w 64 qdelta)");
	m.qoffset = -234; m.qdelta = -46;
	CHECK_S64(qcn_cnm_fb(&m, 1), 234 * 64 + 2 * 46 * 64, "CNM Fb: positive (queue short and falling)");
	CHECK_S64(qcn_cnm_fb(&m, -1), 234 * 64 + 46 * 32, "CNM Fb: w 1/2");
	m.qoffset = QCN_S16_MIN; m.qdelta = QCN_S16_MIN;
	CHECK_S64(qcn_cnm_fb(&m, 10), 32768LL * 64 * 1025, "CNM Fb: extreme fields, w 1024, no overflow");
	m.qoffset = QCN_S16_MAX; m.qdelta = QCN_S16_MAX;
	CHECK_S64(qcn_cnm_fb(&m, 10), -32767LL * 64 * 1025, "CNM Fb: extreme positive fields");
}

/* qcn_naimd_start(): a source started below the line rate (stage three) */
static void test_start(void)
{
	struct qcn_naimd_params p;
	struct qcn_naimd s;
	int k, avg = 0;

	params(&p, 50);
	qcn_naimd_init(&s, &p);
	CHECK(qcn_naimd_start(&s, &p, 1000000000ULL) && s.cr == 1000000000ULL &&
	      s.tr == 1000000000ULL && s.averaged, "start: CR = TR = 1G, nothing to average");
	for (k = 0; k < 100; k++)
		avg += qcn_naimd_tx(&s, &p);
	CHECK(!avg && s.cr == 1000000000ULL, "start: no averaging step before a feedback");
	CHECK(qcn_naimd_start(&s, &p, 100) && s.cr == 1000000, "start: 100 bit/s raised to min rate 1M");
	qcn_naimd_init(&s, &p);
	CHECK(!qcn_naimd_start(&s, &p, G10) && s.cr == G10, "start: at the line rate, unchanged");
}

int main(void)
{
	test_defaults();
	test_eq14();
	test_ap();
	test_theorem1();
	test_cp();
	test_cnm_fb();
	test_start();
	return ktap_finish();
}
