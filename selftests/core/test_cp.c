// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for include/qcn/qcn_cp.h: eq. (1), quantization, sampling. */
#include "qcn/qcn_cp.h"
#include "ktap.h"

#define HALF	0x80000000U		/* rnd giving the factor 1.00 */

static void test_fb(void)
{
	/* eq. (1): Fb = -(Qoff + w * Qdelta) */
	CHECK_S64(qcn_cp_fb(26000, 26000, 26000, 1), 0, "fb: Q = Qeq = Qold -> 0");
	CHECK_S64(qcn_cp_fb(30000, 26000, 26000, 1), -(4000 + 2 * 4000),
		  "fb: Qoff 4000, Qdelta 4000, w 2 -> -12000");
	CHECK_S64(qcn_cp_fb(20000, 30000, 26000, 1), 26000,
		  "fb: Qoff -6000, Qdelta -10000, w 2 -> +26000");
	CHECK_S64(qcn_cp_fb(60000, 50000, 26000, 1), -54000, "fb: 60000/50000 -> -54000");
	CHECK_S64(qcn_cp_fb(30000, 26000, 26000, 0), -8000, "fb: w 1 -> -8000");
	CHECK_S64(qcn_cp_fb(30000, 26001, 26000, -1), -(4000 + 1999),
		  "fb: w 1/2 truncates 3999/2 to 1999");
	CHECK_S64(qcn_cp_fb(26000, 26001, 26000, -1), 0,
		  "fb: w 1/2, Qdelta -1 truncates toward zero");
	CHECK_S64(qcn_cp_fb(26000, 27024, 26000, -10), 1, "fb: w 2^-10, Qdelta -1024 -> +1");
	CHECK_S64(qcn_cp_fb(1000, 0, 0, 10), -(1000 + 1024 * 1000), "fb: w 2^10");
	CHECK_S64(qcn_cp_fb(1000, 0, 0, 50), -(1000 + 1024 * 1000), "fb: w_exp 50 clamps to 10");
	CHECK_S64(qcn_cp_fb(1000, 0, 0, -50), -(1000 + 0), "fb: w_exp -50 clamps to -10");
	CHECK_S64(qcn_cp_fb(0xffffffffU, 0, 0, 10), -(int64_t)0xffffffffLL * 1025,
		  "fb: max queue, w 2^10 (no overflow)");
	CHECK_S64(qcn_cp_fb(0, 0xffffffffU, 0xffffffffU, 10), (int64_t)0xffffffffLL * 1025,
		  "fb: queue drained from max, w 2^10");
}

static void test_quantize(void)
{
	/* defaults: Fbmax = (2*2 + 1) * 26000 = 130000, qFb = |Fb| * 64 / 130000 */
	static const struct { int64_t fb; unsigned int qfb; } v[] = {
		{ 0, 0 }, { 12345, 0 }, { -1, 0 }, { -2031, 0 }, { -2032, 1 },
		{ -4062, 1 }, { -4063, 2 }, { -54000, 26 }, { -125937, 61 },
		{ -125938, 62 }, { -127968, 62 }, { -127969, 63 }, { -130000, 63 },
		{ -1000000, 63 }, { -1000000000000LL, 63 }, { INT64_MIN, 63 },
	};
	unsigned int i;
	uint64_t fbmax;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		CHECK_U64(qcn_cp_quantize(v[i].fb, 26000, 1), v[i].qfb,
			  "quantize defaults: Fb %" PRId64 " -> %u", v[i].fb, v[i].qfb);
	/* w = 2^-10, Qeq 1024: Fbmax = (2/1024 + 1) * 1024 = 1026 */
	CHECK_U64(qcn_cp_quantize(-16, 1024, -10), 0, "quantize w 2^-10: 16*64/1026 -> 0");
	CHECK_U64(qcn_cp_quantize(-17, 1024, -10), 1, "quantize w 2^-10: 17*64/1026 -> 1");
	CHECK_U64(qcn_cp_quantize(-513, 1024, -10), 32, "quantize w 2^-10: half of Fbmax -> 32");
	CHECK_U64(qcn_cp_quantize(-1026, 1024, -10), 63, "quantize w 2^-10: Fbmax saturates");
	CHECK_U64(qcn_cp_quantize(-1010, 1024, -10), 63, "quantize w 2^-10: 1010 -> 63");
	CHECK_U64(qcn_cp_quantize(-1009, 1024, -10), 62, "quantize w 2^-10: 1009 -> 62");
	/* w = 2^10, Qeq 1: Fbmax = 2049 */
	CHECK_U64(qcn_cp_quantize(-32, 1, 10), 0, "quantize w 2^10: 32*64/2049 -> 0");
	CHECK_U64(qcn_cp_quantize(-33, 1, 10), 1, "quantize w 2^10: 33*64/2049 -> 1");
	CHECK_U64(qcn_cp_quantize(-2049, 1, 10), 63, "quantize w 2^10: Fbmax -> 63");
	/* biggest Fbmax: Qeq 2^32-1, w 2^10 */
	fbmax = 2049ULL * 0xffffffffULL;
	CHECK_U64(qcn_cp_quantize(-(int64_t)fbmax, 0xffffffffU, 10), 63, "quantize max Fbmax: Fbmax -> 63");
	CHECK_U64(qcn_cp_quantize(-(int64_t)(fbmax / 2), 0xffffffffU, 10), 31,
		  "quantize max Fbmax: Fbmax/2 (rounded down) -> 31");
	CHECK_U64(qcn_cp_quantize(-(int64_t)(fbmax / 2) - 1, 0xffffffffU, 10), 32,
		  "quantize max Fbmax: Fbmax/2 + 1 -> 32");
	CHECK_U64(qcn_cp_quantize(-5, 0, 1), 63, "quantize Qeq 0: any congestion -> 63");
	CHECK_U64(qcn_cp_quantize(5, 0, 1), 0, "quantize Qeq 0: no congestion -> 0");
	/* monotone in |Fb| */
	{
		int64_t fb;
		unsigned int prev = 0, ok = 1;

		for (fb = 0; fb >= -140000; fb--) {
			unsigned int q = qcn_cp_quantize(fb, 26000, 1);

			if (q < prev || q > 63 || q != (unsigned int)((-fb * 64 / 130000) > 63 ? 63 : (-fb * 64 / 130000)))
				ok = 0;
			prev = q;
		}
		CHECK(ok, "quantize: every Fb in [-140000, 0] matches min(63, |Fb|*64/130000)");
	}
}

static void test_interval(void)
{
	static const uint32_t tab[8] = {
		150000, 75000, 50000, 37500, 30000, 25000, 21500, 18500
	};
	unsigned int q;
	uint32_t i, mn = 0xffffffffU, mx = 0, x = 12345;
	uint64_t sum = 0;

	for (q = 0; q < 8; q++) {
		CHECK_U64(qcn_cp_interval(q * 8, 150000, HALF), tab[q],
			  "interval qfb %u (first of group %u) -> %u", q * 8, q, tab[q]);
		CHECK_U64(qcn_cp_interval(q * 8 + 7, 150000, HALF), tab[q],
			  "interval qfb %u (last of group %u) -> %u", q * 8 + 7, q, tab[q]);
	}
	CHECK_U64(qcn_cp_interval(0, 150000, 0), 127500, "interval jitter rnd 0 -> 0.85 x 150000");
	CHECK_U64(qcn_cp_interval(0, 150000, 0xffffffffU), 172499,
		  "interval jitter rnd max -> just below 1.15 x 150000");
	CHECK_U64(qcn_cp_interval(63, 150000, 0), 15725, "interval qfb 63 rnd 0 -> 0.85 x 18500");
	CHECK_U64(qcn_cp_interval(200, 150000, HALF), 18500, "interval qfb > 63 clamps to 63");
	CHECK_U64(qcn_cp_interval(56, 300000, HALF), 37000, "interval base 300000, qfb 56 -> 37000");
	CHECK_U64(qcn_cp_interval(0, 10000, HALF), 10000, "interval base 10000 (MIB minimum)");
	CHECK_U64(qcn_cp_interval(0, 0xffffffffU, 0xffffffffU), 0xffffffffU,
		  "interval saturates at 2^32-1");
	CHECK_U64(qcn_cp_interval(0, 0, HALF), 1, "interval never 0");
	for (i = 0; i < 100000; i++) {
		uint32_t v;

		x = x * 1664525U + 1013904223U;
		v = qcn_cp_interval(0, 150000, x);
		mn = v < mn ? v : mn;
		mx = v > mx ? v : mx;
		sum += v;
	}
	CHECK(mn >= 127500 && mn < 128000, "interval jitter: min of 1e5 draws in [127500, 128000) (%u)", mn);
	CHECK(mx <= 172499 && mx > 172000, "interval jitter: max of 1e5 draws in (172000, 172499] (%u)", mx);
	CHECK(sum / 100000 > 149500 && sum / 100000 < 150500,
	      "interval jitter: mean of 1e5 draws within 0.33%% of 150000 (%" PRIu64 ")", sum / 100000);
}

static void test_sampling(void)
{
	struct qcn_cp_params p;
	struct qcn_cp cp;
	struct qcn_cp_sample s;
	int i, n;

	qcn_cp_params_default(&p);
	CHECK(p.qeq == 26000 && p.w_exp == 1 && p.interval == 150000,
	      "cp defaults: Qeq 26000, w 2, interval 150000");
	CHECK(qcn_cp_params_valid(&p), "cp defaults valid");
	p.interval = 9999;
	CHECK(!qcn_cp_params_valid(&p), "cp interval 9999 invalid");
	p.interval = 150000;
	p.w_exp = 11;
	CHECK(!qcn_cp_params_valid(&p), "cp w_exp 11 invalid");
	p.w_exp = 1;

	qcn_cp_init(&cp, &p, HALF);
	CHECK_S64(cp.countdown, 150000, "cp init: countdown one base interval");
	CHECK_U64(cp.qold, 0, "cp init: qold 0");

	/* 100 arrivals of 1500 bytes complete the 150000-byte interval */
	for (i = 0, n = 0; i < 99; i++)
		n += qcn_cp_arrival(&cp, &p, 1500, 60000, HALF, &s);
	CHECK_U64(n, 0, "cp: no sample within the first 99 x 1500 bytes");
	CHECK(qcn_cp_arrival(&cp, &p, 1500, 60000, HALF, &s), "cp: the 100th arrival is sampled");
	/* Qoff = 34000, Qdelta = 60000 - 0: Fb = -(34000 + 120000) */
	CHECK_S64(s.fb, -154000, "cp sample 1: Fb -154000");
	CHECK_U64(s.qfb, 63, "cp sample 1: qFb 63");
	CHECK_S64(s.qoff, 34000, "cp sample 1: qoff");
	CHECK_S64(s.qdelta, 60000, "cp sample 1: qdelta");
	CHECK(s.congested, "cp sample 1: congested");
	CHECK_U64(cp.qold, 60000, "cp sample 1: Qold <- Q");
	CHECK_S64(cp.countdown, 18500, "cp sample 1: next interval 18500 (qFb 63)");
	CHECK_S64(cp.last_fb, -154000, "cp sample 1: last_fb");
	CHECK_U64(cp.last_qfb, 63, "cp sample 1: last_qfb");

	/* 12 x 1500 = 18000 < 18500: the 13th arrival is sampled */
	for (i = 0, n = 0; i < 12; i++)
		n += qcn_cp_arrival(&cp, &p, 1500, 60000, HALF, &s);
	CHECK_U64(n, 0, "cp: no sample within 12 x 1500 bytes of an 18500 interval");
	CHECK(qcn_cp_arrival(&cp, &p, 1500, 60000, HALF, &s), "cp: 13th arrival sampled");
	/* Qoff 34000, Qdelta 0: Fb = -34000 -> qFb = 34000*64/130000 = 16 */
	CHECK_S64(s.fb, -34000, "cp sample 2: Fb -34000 (Qold from the previous sample)");
	CHECK_U64(s.qfb, 16, "cp sample 2: qFb 16");
	CHECK_S64(cp.countdown, 50000 - 1000,
		  "cp sample 2: next interval 50000 (qFb/8 = 2) less the 1000-byte overshoot");

	/* queue drained: Fb > 0, no CNM, base interval */
	qcn_cp_sample_now(&cp, &p, 10000, HALF, &s);
	CHECK_S64(s.fb, 16000 + 2 * 50000, "cp sample_now: Fb = -(-16000 + 2 * -50000)");
	CHECK(!s.congested && s.qfb == 0, "cp sample_now: not congested, qFb 0");
	CHECK_S64(cp.countdown, 150000, "cp sample_now: base interval reloaded");
	CHECK_U64(cp.qold, 10000, "cp sample_now: Qold updated");

	/* congested with qFb 0: a CNM is still due (Fb < 0) */
	qcn_cp_sample_now(&cp, &p, 26090, HALF, &s);
	qcn_cp_sample_now(&cp, &p, 26100, HALF, &s);
	CHECK_S64(s.fb, -(100 + 2 * 10), "cp: Q 26100 after 26090 -> Fb -120");
	CHECK(s.congested && s.qfb == 0,
	      "cp: small negative Fb is congested with qFb 0 (a CNM with qFb 0 is due)");

	/* saturation of qoff/qdelta */
	p.qeq = 0;
	cp.qold = 0;
	qcn_cp_sample_now(&cp, &p, 0xffffffffU, HALF, &s);
	CHECK_S64(s.qoff, INT32_MAX, "cp: qoff saturates to S32_MAX");
	CHECK_S64(s.qdelta, INT32_MAX, "cp: qdelta saturates to S32_MAX");
	qcn_cp_sample_now(&cp, &p, 0, HALF, &s);
	CHECK_S64(s.qdelta, INT32_MIN, "cp: qdelta saturates to S32_MIN");
	p.qeq = 26000;

	/* a huge frame samples at once */
	qcn_cp_init(&cp, &p, HALF);
	CHECK(qcn_cp_arrival(&cp, &p, 150000, 1000, HALF, &s), "cp: one 150000-byte arrival is sampled");
}

/* the byte countdown carries the overshoot into the next interval */
static void test_countdown_exact(void)
{
	struct qcn_cp_params p;
	struct qcn_cp cp;
	struct qcn_cp_sample s;
	long i, n;

	qcn_cp_params_default(&p);
	qcn_cp_init(&cp, &p, HALF);
	for (i = 0, n = 0; i < 93; i++)
		n += qcn_cp_arrival(&cp, &p, 1600, 60000, HALF, &s);
	CHECK_U64(n, 0, "countdown: 93 x 1600 = 148800 bytes, no sample");
	CHECK(qcn_cp_arrival(&cp, &p, 1600, 60000, HALF, &s),
	      "countdown: the 94th 1600-byte arrival (150400) is sampled");
	CHECK_S64(cp.countdown, 18500 - 400,
		  "countdown: the 400-byte overshoot counts toward the next 18500 (qFb 63)");

	/* uncongested (qFb 0, interval 150000): one sample per 150000 bytes */
	qcn_cp_init(&cp, &p, HALF);
	for (i = 0, n = 0; i < 1000000; i++)
		n += qcn_cp_arrival(&cp, &p, 1499, 1000, HALF, &s);
	CHECK_U64(n, 1499000000ULL / 150000,
		  "countdown: 1e6 x 1499 bytes -> floor(1499e6 / 150000) = 9993 samples");

	/* a frame over more than one interval: sampled once, phase kept */
	p.interval = 10000;
	qcn_cp_init(&cp, &p, HALF);
	CHECK(qcn_cp_arrival(&cp, &p, 25000, 1000, HALF, &s), "countdown: a 25000-byte frame is sampled");
	CHECK_S64(cp.countdown, 5000, "countdown: next end at byte 30000 -> 5000 left");
	CHECK(!qcn_cp_arrival(&cp, &p, 4999, 1000, HALF, &s), "countdown: 4999 more bytes, no sample");
	CHECK(qcn_cp_arrival(&cp, &p, 1, 1000, HALF, &s), "countdown: byte 30000 is sampled");
	CHECK_S64(cp.countdown, 10000, "countdown: exact end, full interval next");
	CHECK(qcn_cp_arrival(&cp, &p, 30000, 1000, HALF, &s), "countdown: a frame of 3 intervals is sampled");
	CHECK_S64(cp.countdown, 10000, "countdown: ends exactly on a boundary -> 10000");
}

static void test_keepalive(void)
{
	const uint64_t ms = 1000000;

	CHECK(qcn_cp_keepalive_due(30000, 26000, 10 * ms, 9 * ms, 1 * ms),
	      "keepalive: q > Qeq, idle for exactly the period -> due");
	CHECK(!qcn_cp_keepalive_due(30000, 26000, 10 * ms - 1, 9 * ms, 1 * ms),
	      "keepalive: idle 1 ns short of the period -> not due");
	CHECK(!qcn_cp_keepalive_due(26000, 26000, 10 * ms, 0, 1 * ms), "keepalive: q == Qeq -> not due");
	CHECK(!qcn_cp_keepalive_due(30000, 26000, 10 * ms, 0, 0), "keepalive: period 0 = off");
	CHECK(!qcn_cp_keepalive_due(30000, 26000, 1 * ms, 9 * ms, 1 * ms),
	      "keepalive: clock behind the last arrival -> not due");
}

int main(void)
{
	test_fb();
	test_quantize();
	test_interval();
	test_sampling();
	test_countdown_exact();
	test_keepalive();
	return ktap_finish();
}
