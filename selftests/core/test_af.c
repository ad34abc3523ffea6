// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for include/qcn/qcn_af.h: AF-QCN eqs. (4)-(8), Remarks 3-4. */
#include "qcn/qcn_af.h"
#include "ktap.h"

#define S8(x)	((uint64_t)(x) << QCN_AF_SHIFT)	/* bytes per Ts -> M units */
#define NMAX	4096

static struct qcn_af_class store[NMAX];
static struct qcn_af_class *ptrs[NMAX];

/* n classes with weights w[], caps cap[] (bytes/Ts, 0 none) */
static void setup(uint32_t n, const uint32_t *w, const uint64_t *cap)
{
	uint32_t i;

	memset(store, 0, sizeof(store));
	for (i = 0; i < n; i++) {
		store[i].weight = w ? w[i] : 1;
		store[i].max_bytes_ts = cap ? cap[i] : 0;
		ptrs[i] = &store[i];
	}
}

/* one update with beta = 1 so that M_i equals this Ts's arrivals exactly */
static void run_exact(uint32_t n, const uint64_t *bytes)
{
	struct qcn_af_params p;
	uint32_t i;

	qcn_af_params_default(&p);
	p.beta = QCN_AF_ONE;
	for (i = 0; i < n; i++)
		store[i].arrived = bytes[i];
	qcn_af_update(ptrs, n, &p);
}

static void test_defaults(void)
{
	struct qcn_af_params p;

	qcn_af_params_default(&p);
	CHECK(p.alpha == 8192 && p.beta == 8192, "af defaults: alpha = beta = 0.125");
	CHECK(p.ts_ns == 1000000 && p.active_thresh == 20000, "af defaults: Ts 1 ms, active 20 KB");
	CHECK(qcn_af_params_valid(&p), "af defaults valid");
	p.alpha = QCN_AF_ONE;
	CHECK(!qcn_af_params_valid(&p), "af alpha 1.0 invalid (open interval)");
	p.alpha = 8192;
	p.beta = 0;
	CHECK(!qcn_af_params_valid(&p), "af beta 0 invalid");
}

static void test_ewma(void)
{
	struct qcn_af_params p;
	int i;

	qcn_af_params_default(&p);
	setup(1, NULL, NULL);
	qcn_af_account(&store[0], 60000);
	qcn_af_account(&store[0], 40000);
	CHECK_U64(store[0].arrived, 100000, "account: arrivals add up");
	qcn_af_update(ptrs, 1, &p);
	/* eq. (5): M = 0.875 * 0 + 0.125 * 100000 = 12500 bytes/Ts */
	CHECK_U64(store[0].m, S8(12500), "eq. 5: first update 0.125 x 100000");
	CHECK_U64(store[0].arrived, 0, "eq. 5: arrived reset every Ts");
	store[0].arrived = 100000;
	qcn_af_update(ptrs, 1, &p);
	/* 12500 + 0.125 * (100000 - 12500) = 23437.5 */
	CHECK_U64(store[0].m, S8(23437) + 128, "eq. 5: second update 23437.5 (fixed point 2^-8)");
	for (i = 0; i < 300; i++) {
		store[0].arrived = 100000;
		qcn_af_update(ptrs, 1, &p);
	}
	CHECK(store[0].m >= S8(100000) - 8 && store[0].m <= S8(100000),
	      "eq. 5: constant input converges to 100000 (m = %" PRIu64 ")", store[0].m);
	store[0].m = S8(100000);
	store[0].arrived = 100000;
	qcn_af_update(ptrs, 1, &p);
	CHECK_U64(store[0].m, S8(100000), "eq. 5: steady state is exact (rounding to nearest)");
	store[0].arrived = 0;
	qcn_af_update(ptrs, 1, &p);
	CHECK_U64(store[0].m, S8(87500), "eq. 5: no arrivals decays by (1 - beta)");
	/* a late timer: k periods' arrivals at once = k updates of the mean */
	{
		struct qcn_af_class one = { .weight = 1 };
		struct qcn_af_class *po = &one;
		uint32_t k;

		for (k = 2; k <= 40; k += 19) {
			uint64_t m;

			store[0].m = S8(20000);
			store[0].arrived = 0;
			one.m = S8(20000);
			for (i = 0; i < (int)k; i++) {
				store[0].arrived = 60000;
				qcn_af_update(ptrs, 1, &p);
			}
			one.arrived = 60000ULL * k;
			qcn_af_update_periods(&po, 1, &p, k);
			m = store[0].m > one.m ? store[0].m - one.m : one.m - store[0].m;
			CHECK(m <= S8(20), "eq. 5 over %u late periods = %u updates of the mean "
			      "(%" PRIu64 " vs %" PRIu64 ")", k, k, one.m, store[0].m);
		}
		one.m = S8(20000);
		one.arrived = 60000;
		qcn_af_update_periods(&po, 1, &p, 1);
		store[0].m = S8(20000);
		store[0].arrived = 60000;
		qcn_af_update(ptrs, 1, &p);
		CHECK_U64(one.m, store[0].m, "eq. 5: one period is qcn_af_update() exactly");
	}
	/* overflow: a huge count is clamped, not wrapped */
	store[0].m = 0;
	store[0].arrived = 1ULL << 50;
	p.beta = QCN_AF_ONE;
	qcn_af_update(ptrs, 1, &p);
	CHECK_U64(store[0].m, S8(QCN_AF_ARRIVED_MAX), "eq. 5: arrivals > 2^38 per Ts clamp (beta 1, no overflow)");
	store[0].arrived = 1ULL << 50;
	p.beta = 8192;
	qcn_af_update(ptrs, 1, &p);
	CHECK_U64(store[0].m, S8(QCN_AF_ARRIVED_MAX), "eq. 5: clamped EWMA stays in range");
}

static void test_shares(void)
{
	static const uint32_t w4321[4] = { 4, 3, 2, 1 };
	static const uint64_t eq[4] = { 100000, 100000, 100000, 100000 };
	static const uint64_t uneven[4] = { 400000, 100000, 100000, 100000 };
	uint64_t cap[4] = { 40000, 0, 0, 0 };
	uint64_t sum;
	int i;

	/* eq. (8) with weights 4:3:2:1, S = 400000: 40/30/20/10 % */
	setup(4, w4321, NULL);
	run_exact(4, eq);
	CHECK_U64(store[0].fair, S8(160000), "eq. 8: weight 4 gets 40%% (160000)");
	CHECK_U64(store[1].fair, S8(120000), "eq. 8: weight 3 gets 30%% (120000)");
	CHECK_U64(store[2].fair, S8(80000), "eq. 8: weight 2 gets 20%% (80000)");
	CHECK_U64(store[3].fair, S8(40000), "eq. 8: weight 1 gets 10%% (40000)");
	/* eq. (7): D = (1 - fair/M)+ -> 0, 0, 0.2, 0.6 -> floor(64 D) */
	CHECK_U64(store[0].fb_af, 0, "eq. 7: M < fair -> Fb_AF 0 (weight 4)");
	CHECK_U64(store[1].fb_af, 0, "eq. 7: M < fair -> Fb_AF 0 (weight 3)");
	CHECK_U64(store[2].fb_af, 12, "eq. 7: D 0.2 -> Fb_AF floor(12.8) = 12");
	CHECK_U64(store[3].fb_af, 38, "eq. 7: D 0.6 -> Fb_AF floor(38.4) = 38");
	CHECK_U64(qcn_af_fb(&store[3]), 38, "eq. 7: qcn_af_fb agrees with the stored value");

	/* uneven arrivals, S = 700000: 280000/210000/140000/70000 */
	setup(4, w4321, NULL);
	run_exact(4, uneven);
	CHECK(store[0].fair == S8(280000) && store[1].fair == S8(210000) &&
	      store[2].fair == S8(140000) && store[3].fair == S8(70000),
	      "eq. 8: uneven arrivals shared 4:3:2:1 of the sum 700000");
	CHECK(store[0].fb_af == 19 && store[1].fb_af == 0 && store[2].fb_af == 0 &&
	      store[3].fb_af == 19, "eq. 7: D 0.3 -> 19 for the two heavy-for-their-weight classes");

	/* Remark 4: cap the weight-4 class at 10 %: the rest is shared 3:2:1 */
	setup(4, w4321, cap);
	run_exact(4, eq);
	CHECK_U64(store[0].fair, S8(40000), "remark 4: capped weight-4 class gets its cap 40000");
	CHECK_U64(store[1].fair, S8(180000), "remark 4: weight 3 gets 3/6 of 360000");
	CHECK_U64(store[2].fair, S8(120000), "remark 4: weight 2 gets 2/6 of 360000");
	CHECK_U64(store[3].fair, S8(60000), "remark 4: weight 1 gets 1/6 of 360000");
	CHECK_U64(store[0].fb_af, 38, "remark 4: capped class D 0.6 -> Fb_AF 38");
	CHECK(store[1].fb_af == 0 && store[2].fb_af == 0, "remark 4: under-share classes Fb_AF 0");
	CHECK_U64(store[3].fb_af, 25, "remark 4: weight 1, D 0.4 -> Fb_AF floor(25.6) = 25");

	/* a cap above the share changes nothing */
	cap[0] = 200000;
	setup(4, w4321, cap);
	run_exact(4, eq);
	CHECK(store[0].fair == S8(160000) && store[3].fair == S8(40000),
	      "remark 4: a non-binding cap leaves 40/30/20/10 %%");

	/* cascade: caps that bind only after another class was capped */
	{
		static const uint64_t c3[3] = { 60000, 110000, 0 };
		static const uint64_t m3[3] = { 100000, 100000, 100000 };

		setup(3, NULL, c3);
		run_exact(3, m3);
		/* lambda 100000: class 0 fixed at 60000; lambda 120000: class 1 fixed at 110000 */
		CHECK(store[0].fair == S8(60000) && store[1].fair == S8(110000) &&
		      store[2].fair == S8(130000),
		      "remark 4: water-filling cascade 60000/110000/130000");
	}
	/* everybody capped below the share: caps, remainder unallocated */
	{
		static const uint64_t c2[2] = { 10000, 20000 };
		static const uint64_t m2[2] = { 100000, 100000 };

		setup(2, NULL, c2);
		run_exact(2, m2);
		CHECK(store[0].fair == S8(10000) && store[1].fair == S8(20000),
		      "remark 4: all classes capped -> each gets its cap");
	}

	/* shares always sum to the active total (up to rounding) */
	setup(4, w4321, NULL);
	{
		static const uint64_t odd[4] = { 123457, 99991, 77777, 31337 };

		run_exact(4, odd);
		for (i = 0, sum = 0; i < 4; i++)
			sum += store[i].fair;
		CHECK(sum <= S8(123457 + 99991 + 77777 + 31337) &&
		      sum + 10 >= S8(123457 + 99991 + 77777 + 31337),
		      "eq. 8: shares sum to the active total within rounding");
	}
}

static void test_remark3(void)
{
	static const uint64_t m[3] = { 100000, 100000, 10000 };
	static const uint64_t edge[2] = { 20000, 20001 };
	static const uint32_t w0[2] = { 0, 3 };
	static const uint64_t m2[2] = { 100000, 300000 };

	setup(3, NULL, NULL);
	run_exact(3, m);
	CHECK(store[0].active && store[1].active, "remark 3: 100 KB per Ts classes are active");
	CHECK(!store[2].active, "remark 3: a 10 KB per Ts class is inactive");
	CHECK_U64(store[2].fb_af, 0, "remark 3: inactive class gets Fb_AF 0");
	CHECK_U64(store[2].fair, 0, "remark 3: inactive class has no fair share");
	CHECK(store[0].fair == S8(100000) && store[1].fair == S8(100000),
	      "remark 3: the inactive class is left out of the shared sum and weights");

	setup(2, NULL, NULL);
	run_exact(2, edge);
	CHECK(!store[0].active && store[1].active, "remark 3: active means M > active_thresh (strict)");

	store[1].active = false;
	store[1].m = S8(100000);
	store[1].fair = S8(10);
	CHECK_U64(qcn_af_fb(&store[1]), 0, "qcn_af_fb: inactive -> 0 whatever M and fair");
	store[1].active = true;
	store[1].fair = 0;
	CHECK_U64(qcn_af_fb(&store[1]), 63, "qcn_af_fb: fair 0 -> D 1 -> 64 clamped to 63");
	store[1].fair = S8(100000);
	CHECK_U64(qcn_af_fb(&store[1]), 0, "qcn_af_fb: M == fair -> 0");
	store[1].m = 1ULL << 60;
	store[1].fair = 1ULL << 59;
	CHECK_U64(qcn_af_fb(&store[1]), 32, "qcn_af_fb: huge M, D 0.5 -> 32 (no overflow)");

	/* weight 0 is treated as 1 */
	setup(2, w0, NULL);
	run_exact(2, m2);
	CHECK(store[0].fair == S8(100000) && store[1].fair == S8(300000),
	      "weight 0 counts as 1 (shares 1:3 of 400000)");
}

static void test_scale(void)
{
	static uint64_t bytes[NMAX];
	uint32_t i, n = 4000, bad = 0;
	uint64_t sum = 0, caps;

	/* 4000 equal classes, one of them sending double: it alone is cut */
	setup(n, NULL, NULL);
	for (i = 0; i < n; i++)
		bytes[i] = 100000;
	bytes[0] = 200000;
	run_exact(n, bytes);
	/* S = 4001 * 100000, lambda = 100025 per class */
	for (i = 1; i < n; i++)
		if (store[i].fair != S8(400100000ULL) / n || store[i].fb_af)
			bad++;
	CHECK_U64(bad, 0, "4000 classes: every normal class has share S/n and Fb_AF 0");
	CHECK_U64(store[0].fb_af, 31, "4000 classes: the double-rate class gets D ~0.4999 -> 31");

	/* worst case for the cap passes: every class capped, caps increasing */
	setup(n, NULL, NULL);
	for (i = 0; i < n; i++) {
		store[i].max_bytes_ts = 1000 + i;
		bytes[i] = 100000;
	}
	run_exact(n, bytes);
	for (i = 0, bad = 0, caps = 0; i < n; i++) {
		sum += store[i].fair;
		caps += S8(1000 + i);
		if (store[i].fair != S8(1000 + i))
			bad++;
	}
	CHECK_U64(bad, 0, "4000 capped classes: each at its cap (no allocation, bounded passes)");
	CHECK_U64(sum, caps, "4000 capped classes: sum of shares is the sum of caps");

	/* 39 capped classes below the level and one uncapped taking the rest */
	n = 40;
	setup(n, NULL, NULL);
	for (i = 0; i < n; i++) {
		bytes[i] = 1000000;
		store[i].max_bytes_ts = i < 39 ? (1000000ULL - 24000ULL * (39 - i)) : 0;
	}
	run_exact(n, bytes);
	for (i = 0, sum = 0; i < n; i++)
		sum += store[i].fair;
	CHECK(sum <= S8(40000000ULL) && sum + 64 >= S8(40000000ULL),
	      "39 capped + 1 uncapped: the full sum is allocated (%" PRIu64 ")", sum >> 8);
	for (i = 0, bad = 0; i < 39; i++)
		if (store[i].fair > S8(store[i].max_bytes_ts))
			bad++;
	CHECK_U64(bad, 0, "39 capped + 1 uncapped: no share above its cap");
}

static void test_combine_and_units(void)
{
	CHECK_U64(qcn_af_combine(0, 0, 8192), 0, "eq. 4: 0, 0 -> 0");
	CHECK_U64(qcn_af_combine(63, 63, 8192), 63, "eq. 4: 63, 63 -> 63");
	CHECK_U64(qcn_af_combine(0, 63, 8192), 8, "eq. 4: 0.125 x 63 = 7.875 -> 8");
	CHECK_U64(qcn_af_combine(63, 0, 8192), 55, "eq. 4: 0.875 x 63 = 55.125 -> 55");
	CHECK_U64(qcn_af_combine(40, 8, 8192), 36, "eq. 4: 0.875 x 40 + 0.125 x 8 = 36");
	CHECK_U64(qcn_af_combine(32, 0, 32768), 16, "eq. 4: alpha 0.5");
	CHECK_U64(qcn_af_combine(10, 20, 0), 10, "eq. 4: alpha 0 -> Fb_QCN");
	CHECK_U64(qcn_af_combine(10, 20, 65536), 20, "eq. 4: alpha 1 -> Fb_AF");
	CHECK_U64(qcn_af_combine(10, 20, 100000), 20, "eq. 4: alpha > 1 clamps");
	CHECK_U64(qcn_af_combine(200, 200, 8192), 63, "eq. 4: inputs > 63 clamp");
	/* Fb_QCN signed: a queue below Qeq weighs against Fb_AF */
	CHECK_U64(qcn_af_combine(-8, 63, 8192), 1, "eq. 4: -0.875 x 8 + 0.125 x 63 = 0.875 -> 1");
	CHECK_U64(qcn_af_combine(-9, 63, 8192), 0, "eq. 4: -0.875 x 9 + 0.125 x 63 = 0: no CNM");
	CHECK_U64(qcn_af_combine(-63, 63, 8192), 0, "eq. 4: negative sum: no CNM");
	CHECK_U64(qcn_af_combine(-1, 0, 0), 0, "eq. 4: alpha 0, Fb_QCN < 0: no CNM");
	CHECK_U64(qcn_af_combine(-200, 63, 65536), 63, "eq. 4: alpha 1 ignores Fb_QCN < 0");
	CHECK_U64(qcn_af_combine(-200, 63, 32768), 0, "eq. 4: Fb_QCN < -63 clamps to -63");
	CHECK_U64(qcn_af_combine(-2147483647 - 1, 63, 8192), 0, "eq. 4: S32_MIN clamps");
	{
		struct qcn_cp_params cpp = { .qeq = 26000, .w_exp = 1, .interval = 150000 };
		struct qcn_cp_sample sm = { .fb = -70000, .qfb = 33, .congested = true };

		CHECK_U64(qcn_af_fb_qcn(&sm, &cpp), 33, "Fb_QCN: congested: qFb");
		sm = (struct qcn_cp_sample){ .fb = 65000 };
		CHECK_U64((u64)-qcn_af_fb_qcn(&sm, &cpp), 32,
			  "Fb_QCN: Fb = +65000 B (Fbmax 130000): -32");
		sm = (struct qcn_cp_sample){ .fb = 26000 };
		CHECK_U64((u64)-qcn_af_fb_qcn(&sm, &cpp), 12, "Fb_QCN: empty queue, Qeq 26000: -12");
		CHECK_U64(qcn_af_combine(qcn_af_fb_qcn(&sm, &cpp), 63, 8192), 0,
			  "eq. 4: an empty queue sends no fairness CNM (0.875 x 12 > 0.125 x 63)");
		sm = (struct qcn_cp_sample){ .fb = 0 };
		CHECK_U64(qcn_af_fb_qcn(&sm, &cpp), 0, "Fb_QCN: Fb = 0: 0");
		sm = (struct qcn_cp_sample){ .fb = -100, .qfb = 0, .congested = true };
		CHECK_U64(qcn_af_fb_qcn(&sm, &cpp), 0, "Fb_QCN: congested with qFb 0: 0");
		sm = (struct qcn_cp_sample){ .fb = 0x7fffffffffffffffLL };
		CHECK_U64((u64)-qcn_af_fb_qcn(&sm, &cpp), 63, "Fb_QCN: S64_MAX saturates at -63");
	}

	CHECK_U64(qcn_af_rate_to_ts(125000000, 1000000), 125000, "units: 1 Gb/s = 125000 bytes per 1 ms");
	CHECK_U64(qcn_af_rate_to_ts(50000000000ULL, 1000000), 50000000, "units: 400 Gb/s per 1 ms");
	CHECK_U64(qcn_af_rate_to_ts(50000000000ULL, 10000000000ULL), 500000000000ULL,
		  "units: 400 Gb/s per 10 s (no overflow)");
	CHECK_U64(qcn_af_ts_to_rate(S8(125000), 1000000), 125000000, "units: back to bytes/s");
	CHECK_U64(qcn_af_ts_to_rate(S8(50000000), 1000000), 50000000000ULL, "units: 400 Gb/s back");
	CHECK_U64(qcn_af_ts_to_rate(S8(125000), 0), 0, "units: Ts 0 -> 0");
	CHECK_U64(qcn_af_ts_to_rate(S8(12500) + 128, 1000000), 12500500, "units: fractional M kept");
}

int main(void)
{
	test_defaults();
	test_ewma();
	test_shares();
	test_remark3();
	test_scale();
	test_combine_and_units();
	return ktap_finish();
}
