// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for include/qcn/qcn_rp.h: every RP transition of qcn-facts.md
 * (decrease, FR, AI, HAI, target rate reduction, release, cycle lengths,
 * jitter), QCN-T and QCN-AIMD, at 1 Mb/s .. 400 Gb/s.  Numbers are derived in the
 * comments; G = 10^9.
 */
#include "qcn/qcn_rp.h"
#include "ktap.h"

#define G	1000000000ULL
#define M	1000000ULL
#define MS	1000000ULL	/* ns */
#define HALF	0x80000000U

static void nojitter(struct qcn_rp_params *p, uint64_t line)
{
	qcn_rp_params_default(p, line);
	p->jitter = false;
}

static void test_defaults(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp;

	qcn_rp_params_default(&p, 10 * G);
	CHECK(p.max_rate == 10 * G && p.min_rate == 5 * M && p.ai_rate == 5 * M &&
	      p.hai_rate == 50 * M, "rp defaults: rates 10G line, min 5M, AI 5M, HAI 50M");
	CHECK(p.byte_reset == 150000 && p.time_reset_ns == 15 * MS && p.threshold == 5 &&
	      p.gd_shift == 7 && p.min_dec_pct == 50, "rp defaults: BC 150000, T 15 ms, 5, Gd 1/128, 50%%");
	CHECK(p.mode == QCN_RP_MODE_QCN && p.qcnt_period_ns == 2400000 && p.jitter,
	      "rp defaults: QCN mode, t 2.4 ms, jitter on");
	CHECK(qcn_rp_params_valid(&p), "rp defaults valid");
	p.min_rate = p.max_rate + 1;
	CHECK(!qcn_rp_params_valid(&p), "rp: min rate above max rate invalid");
	p.min_rate = 5 * M;
	p.gd_shift = 32;
	CHECK(!qcn_rp_params_valid(&p), "rp: gd_shift 32 invalid");
	p.gd_shift = 7;
	p.mode = QCN_RP_MODE_QCNT;
	p.qcnt_period_ns = 0;
	CHECK(!qcn_rp_params_valid(&p), "rp: QCN-T period 0 invalid");
	p.mode = 5;
	CHECK(!qcn_rp_params_valid(&p), "rp: unknown mode invalid");

	nojitter(&p, 10 * G);
	qcn_rp_init(&rp, &p);
	CHECK(!rp.active && rp.cr == 10 * G && rp.tr == 10 * G, "rp init: inactive at max rate");
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_RELEASED, "rp init: state released");
	CHECK_U64(qcn_rp_tx(&rp, &p, 1000000, 0), QCN_RP_EV_NONE, "rp init: tx does nothing");
	CHECK_U64(qcn_rp_timer(&rp, &p, 1000 * MS, 0), QCN_RP_EV_NONE, "rp init: timer does nothing");
}

/* FR -> AI -> release on the byte counter at 10 Gb/s (QCN paper Fig. 3) */
static void test_byte_counter(void)
{
	/* CR after the k-th byte-counter expiry, TR 10G (k <= 5) then +5M per AI cycle */
	static const uint64_t cr[10] = {
		5078125000ULL,	/* CNM qFb 63: 10G - 10G*63/128 = 10G - 4921875000 */
		7539062500ULL,	/* FR: (5078125000 + 10G) / 2 */
		8769531250ULL,	/* FR: gap 2460937500 halves */
		9384765625ULL,
		9692382812ULL,	/* (9384765625 + 10G) / 2 = 9692382812.5, floor */
		9846191406ULL,	/* 5th FR cycle */
		9925595703ULL,	/* AI: TR 10005000000, (9846191406 + TR) / 2 */
		9967797851ULL,	/* AI: TR 10010000000 */
		9991398925ULL,	/* AI: TR 10015000000 */
		10000000000ULL,	/* AI: TR 10020000000, (CR+TR)/2 = 10005699462 -> release */
	};
	struct qcn_rp_params p;
	struct qcn_rp rp;
	enum qcn_rp_event ev;
	int k;

	nojitter(&p, 10 * G);
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK(rp.active, "cnm: creates the limiter");
	CHECK_U64(rp.tr, 10 * G, "cnm at line rate: TR <- CR (eq. 2)");
	CHECK_U64(rp.cr, cr[0], "cnm qFb 63: CR = CR (1 - 63/128) (eq. 3)");
	CHECK_S64(rp.bc_left, 150000, "cnm: byte counter loaded with BC");
	CHECK_U64(rp.timer_expiry_ns, 15 * MS, "cnm: timer restarted with T");
	CHECK(rp.bc_stage == 0 && rp.timer_stage == 0, "cnm: stage counts 0");
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_FR, "cnm: state FR");

	CHECK_U64(qcn_rp_tx(&rp, &p, 149999, 0), QCN_RP_EV_NONE, "bc: 149999 bytes, no expiry");
	for (k = 1; k <= 9; k++) {
		ev = qcn_rp_tx(&rp, &p, k == 1 ? 1 : (k <= 6 ? 150000 : 75000), 0);
		if (k < 9)
			CHECK_U64(ev, QCN_RP_EV_INCREASE, "bc expiry %d: increase event", k);
		CHECK_U64(rp.cr, cr[k], "bc expiry %d: CR", k);
		CHECK_U64(rp.bc_stage, k, "bc expiry %d: byte stage", k);
		if (k <= 5) {
			CHECK_U64(rp.tr, 10 * G, "bc expiry %d: FR keeps TR (eq. 4)", k);
			CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_FR, "bc expiry %d: state FR", k);
			CHECK_U64(10 * G - rp.cr, (10 * G - cr[k - 1] + 1) / 2,
				  "bc expiry %d: FR halves the gap to TR", k);
		} else {
			CHECK_U64(rp.tr, 10 * G + (k - 5) * 5 * M, "bc expiry %d: AI adds R_AI (eq. 5)", k);
		}
		if (k >= 6 && k < 9)
			CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_AI, "bc expiry %d: state AI", k);
		if (k <= 5)
			CHECK_S64(rp.bc_left, 150000, "bc expiry %d: reload BC (stage <= threshold)", k);
		else if (k < 9)
			CHECK_S64(rp.bc_left, 75000, "bc expiry %d: reload BC/2 (stage > threshold)", k);
	}
	CHECK_U64(ev, QCN_RP_EV_RELEASE, "bc expiry 9: CR reaches line rate -> release");
	CHECK(!rp.active, "release: limiter inactive");
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_RELEASED, "release: state released");
	CHECK_U64(qcn_rp_tx(&rp, &p, 1000000, 0), QCN_RP_EV_NONE, "released: tx ignored");
	CHECK_U64(qcn_rp_timer(&rp, &p, 1000 * MS, 0), QCN_RP_EV_NONE, "released: timer ignored");
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK(rp.active && rp.tr == 10 * G && rp.cr == cr[0], "released: next CNM recreates at line rate");
}

/* timer cycles: T for stages 0..5, T/2 once the stage exceeds 5 */
static void test_timer(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp;
	uint64_t t0 = 1000, expect;
	int k, n;

	nojitter(&p, 10 * G);
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, t0, 0);
	CHECK_U64(rp.timer_expiry_ns, t0 + 15 * MS, "timer: first expiry at now + T");
	CHECK_U64(qcn_rp_timer(&rp, &p, t0 + 15 * MS - 1, 0), QCN_RP_EV_NONE, "timer: 1 ns early -> none");
	expect = t0;
	for (k = 1; k <= 8; k++) {
		expect += k <= 6 ? 15 * MS : 15 * MS / 2;
		CHECK_U64(qcn_rp_timer(&rp, &p, expect, 0), k < 9 ? QCN_RP_EV_INCREASE : 0,
			  "timer expiry %d at exactly %" PRIu64 " ns", k, expect);
		CHECK_U64(rp.timer_stage, k, "timer expiry %d: timer stage", k);
		CHECK_U64(qcn_rp_state(&rp, &p), k <= 5 ? QCN_RP_FR : QCN_RP_AI,
			  "timer expiry %d: state %s (byte stage 0)", k, k <= 5 ? "FR" : "AI");
	}
	/* expiry 6 was at +90 ms, 7 at +97.5 ms, 8 at +105 ms: the 6th cycle is full */
	CHECK_U64(expect, t0 + 105 * MS, "timer: 6 x T then T/2 cycles (qcn-facts.md 'exceeds')");
	CHECK_U64(rp.tr, 10 * G + 3 * 5 * M, "timer: AI on expiries 6, 7, 8 (timer alone -> no HAI)");

	/* catch-up: one call per expiry, each at its scheduled time */
	qcn_rp_cnm(&rp, &p, 63, 0, 0);	/* byte stage 0: TR stays 10.015G */
	CHECK_U64(rp.tr, 10 * G + 15 * M, "cnm with byte stage 0: TR unchanged");
	for (n = 0; n < 100 && qcn_rp_timer(&rp, &p, 1000 * MS, 0) == QCN_RP_EV_INCREASE; n++)
		;
	CHECK(!rp.active, "timer catch-up: released within 1 s (after %d increases)", n);
	CHECK_U64(n, 7, "timer catch-up: 5 FR + 2 AI increases, the 8th releases");
}

/* HAI needs both counters past the threshold; TR += R_HAI * (min - threshold) */
static void test_hai(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp;

	nojitter(&p, 10 * G);
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 0, 0, 0);
	rp.cr = 1 * G;
	rp.tr = 2 * G;
	rp.bc_stage = 6;
	rp.timer_stage = 5;
	rp.timer_expiry_ns = 0;
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_AI, "hai: byte 6 / timer 5 is AI");
	qcn_rp_timer(&rp, &p, 0, 0);		/* timer stage 6: min(6, 6) = 6 > 5 */
	CHECK_U64(rp.tr, 2 * G + 50 * M, "hai: 1st HAI cycle adds 1 x R_HAI (eq. 7)");
	CHECK_U64(rp.cr, (1 * G + 2 * G + 50 * M) / 2, "hai: CR = (CR + TR) / 2 (eq. 8)");
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_HAI, "hai: state HAI");
	rp.bc_left = 1;
	qcn_rp_tx(&rp, &p, 1, 0);		/* byte stage 7: min(7, 6) = 6 */
	CHECK_U64(rp.tr, 2 * G + 100 * M, "hai: min stage still 6 -> +1 x R_HAI");
	CHECK_S64(rp.bc_left, 75000, "hai: byte counter reloads BC/2");
	qcn_rp_timer(&rp, &p, rp.timer_expiry_ns, 0);	/* timer 7: min 7 -> +2 x R_HAI */
	CHECK_U64(rp.tr, 2 * G + 200 * M, "hai: min stage 7 -> +2 x R_HAI");
	rp.bc_left = 1;
	qcn_rp_tx(&rp, &p, 1, 0);		/* byte 8, timer 7: min 7 */
	CHECK_U64(rp.tr, 2 * G + 300 * M, "hai: byte 8 / timer 7 -> +2 x R_HAI");
	rp.bc_stage = 1000;
	rp.timer_stage = 999;
	rp.cr = 1 * G;
	rp.tr = 1 * G;
	rp.bc_left = 1;
	qcn_rp_tx(&rp, &p, 1, 0);		/* min 999 -> +994 x 50M = 49.7G */
	CHECK_U64(rp.tr, 1 * G + 994 * 50 * M, "hai: large stage counts (no overflow)");
	CHECK(!rp.active && rp.cr == 10 * G, "hai: overshoot releases at exactly max rate");

	/* R_AI = R_HAI = 0: FR towards TR = line rate must still release */
	p.ai_rate = 0;
	p.hai_rate = 0;
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	{
		int n;

		for (n = 0; n < 200 && qcn_rp_timer(&rp, &p, rp.timer_expiry_ns, 0) ==
		     QCN_RP_EV_INCREASE; n++)
			;
		CHECK(!rp.active && rp.cr == 10 * G,
		      "no AI/HAI: CR converging on the line rate releases (after %d increases)", n);
		CHECK(n > 30 && n < 40, "no AI/HAI: release after ~33 halvings of a 4.9G gap (%d)", n);
	}
}

static void test_target_rate_reduction(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp;

	nojitter(&p, 10 * G);
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 0, 0, 0);
	rp.cr = 100 * M;
	rp.tr = 2 * G;			/* TR > 10 CR */
	rp.bc_left = 1;
	qcn_rp_tx(&rp, &p, 1, 0);		/* byte stage becomes 1 */
	CHECK_U64(rp.tr, 250 * M, "trr: stage 1 and TR > 10 CR -> TR / 8");
	CHECK_U64(rp.cr, 175 * M, "trr: then CR = (100M + 250M) / 2");
	rp.cr = 100 * M;
	rp.tr = 2 * G;
	rp.bc_left = 1;
	qcn_rp_tx(&rp, &p, 1, 0);		/* byte stage 2: no reduction */
	CHECK_U64(rp.tr, 2 * G, "trr: not at stage 2 (FR keeps TR)");
	rp.cr = 100 * M;
	rp.tr = 1 * G;			/* TR == 10 CR: not greater */
	rp.bc_stage = 0;
	rp.bc_left = 1;
	qcn_rp_tx(&rp, &p, 1, 0);
	CHECK_U64(rp.tr, 1 * G, "trr: TR == 10 CR is not reduced");
	rp.cr = 100 * M;
	rp.tr = 2 * G;
	rp.timer_stage = 0;
	qcn_rp_timer(&rp, &p, rp.timer_expiry_ns, 0);	/* timer stage becomes 1 */
	CHECK_U64(rp.tr, 250 * M, "trr: also on the timer's first expiry");
}

static void test_decrease(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp;

	nojitter(&p, 10 * G);
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 1, 0, 0);
	CHECK_U64(rp.cr, 10 * G - 78125000, "decrease qFb 1: CR - CR/128");
	qcn_rp_cnm(&rp, &p, 0, 5, 0);
	CHECK_U64(rp.cr, 10 * G - 78125000, "decrease qFb 0: CR unchanged");
	CHECK_U64(rp.tr, 10 * G, "qFb 0 CNM with byte stage 0: TR unchanged");
	CHECK_U64(rp.timer_expiry_ns, 5 + 15 * MS, "qFb 0 CNM still restarts the timer");

	/* TR <- CR only when the byte stage is non-zero (or at line rate) */
	rp.bc_left = 1;
	qcn_rp_tx(&rp, &p, 1, 0);		/* byte stage 1: CR = (9921875000 + 10G) / 2 */
	CHECK_U64(rp.cr, 9960937500ULL, "one FR step before the second CNM");
	qcn_rp_cnm(&rp, &p, 32, 10, 0);
	CHECK_U64(rp.tr, 9960937500ULL, "cnm with byte stage 1: TR <- CR");
	CHECK_U64(rp.cr, 9960937500ULL / 2 + 9960937500ULL / 4, "cnm qFb 32: CR x 0.75");
	CHECK(rp.bc_stage == 0 && rp.timer_stage == 0 && rp.bc_left == 150000,
	      "cnm: counters reset");

	/* min decrease factor: with Gd 1/64, qFb 63 would cut to 1/64 */
	p.gd_shift = 6;
	rp.cr = 10 * G;
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK_U64(rp.cr, 5 * G, "min dec factor 50%% bounds 1 - 63/64");
	p.min_dec_pct = 90;
	rp.cr = 10 * G;
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK_U64(rp.cr, 1 * G, "min dec factor 90%%: CR x 0.1");
	p.gd_shift = 0;			/* Gd = 1: 1 - qFb < 0 */
	p.min_dec_pct = 100;
	rp.cr = 10 * G;
	qcn_rp_cnm(&rp, &p, 2, 0, 0);
	CHECK_U64(rp.cr, 5 * M, "Gd 1, min dec 100%%: clamps to min rate (no underflow)");
	p.gd_shift = 7;
	p.min_dec_pct = 50;
	rp.cr = 6 * M;
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK_U64(rp.cr, 5 * M, "min rate: 6M x 65/128 = 3046875 -> 5M");
	qcn_rp_cnm(&rp, &p, 200, 0, 0);
	CHECK_U64(rp.cr, 5 * M, "qFb > 63 clamps, CR stays at min rate");
	CHECK_U64(qcn_rp_decreased_rate(10 * G, &p, 64), 5078125000ULL, "decreased_rate: qFb 64 clamps to 63");
}

/*
 * 802.1Qau RP pseudo-code (ns-3 rp-net-device.cc Receive): a CNM reloads
 * the byte counter only together with TR <- CR, i.e. at line rate or with
 * a non-zero byte stage; a second CNM within the first byte cycle of fast
 * recovery keeps TR and the bytes already counted.
 */
static void test_cnm_keeps_byte_counter(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp;
	uint64_t cr1;

	nojitter(&p, 10 * G);
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK_S64(rp.bc_left, 150000, "cnm at line rate: byte counter loaded with BC");
	CHECK_U64(qcn_rp_tx(&rp, &p, 100000, 0), QCN_RP_EV_NONE, "100000 bytes: no expiry");
	qcn_rp_cnm(&rp, &p, 10, 1 * MS, 0);
	cr1 = 5078125000ULL - 5078125000ULL * 10 / 128;
	CHECK_U64(rp.cr, cr1, "second cnm qFb 10: CR decreased (eq. 3)");
	CHECK_U64(rp.tr, 10 * G, "second cnm, byte stage 0 below line rate: TR kept");
	CHECK_S64(rp.bc_left, 50000, "second cnm, byte stage 0: byte counter keeps its 50000 bytes");
	CHECK_U64(rp.timer_expiry_ns, 16 * MS, "second cnm: the timer restarts");
	CHECK_U64(qcn_rp_tx(&rp, &p, 50000, 0), QCN_RP_EV_INCREASE,
		  "the cycle ends 150000 bytes after the first cnm");
	CHECK_U64(rp.cr, (cr1 + 10 * G) / 2, "FR step toward the kept TR");
	CHECK_S64(rp.bc_left, 150000, "next cycle BC");
	qcn_rp_cnm(&rp, &p, 10, 2 * MS, 0);
	CHECK_U64(rp.tr, (cr1 + 10 * G) / 2, "cnm with byte stage 1: TR <- CR");
	CHECK_S64(rp.bc_left, 150000, "cnm with byte stage 1: byte counter reloads");
	CHECK_U64(qcn_rp_tx(&rp, &p, 149999, 0), QCN_RP_EV_NONE, "reloaded: 149999 bytes, no expiry");
}

static void test_extremes(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp;
	const uint64_t line = 400 * G;

	/* 400 Gb/s */
	nojitter(&p, line);
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK_U64(rp.cr, 203125000000ULL, "400G: CNM qFb 63 -> 400G - 196875000000");
	rp.bc_left = 1;
	qcn_rp_tx(&rp, &p, 1, 0);
	CHECK_U64(rp.cr, 301562500000ULL, "400G: FR -> (203125000000 + 400G) / 2");
	CHECK_U64(qcn_rp_tx_time_ns(&rp, 1500), 39, "400G: 1500 B at 301.5625 Gb/s = 39.79 ns");
	rp.cr = line;
	CHECK_U64(qcn_rp_tx_time_ns(&rp, 1500), 30, "400G: 1500 B at 400 Gb/s = 30 ns");
	CHECK_U64(qcn_rp_tx_time_ns(&rp, 0xffffffffU), 85899345, "400G: 4 GiB in 85.9 ms (no overflow)");
	p.max_rate = UINT64_MAX;
	CHECK_U64(qcn_rp_decreased_rate(1ULL << 62, &p, 63), (1ULL << 62) - ((1ULL << 55) * 63),
		  "decrease at 2^62 bit/s uses the shifted form (no overflow)");
	CHECK_U64(qcn_rp_decreased_rate(UINT64_MAX, &p, 63), UINT64_MAX - (UINT64_MAX >> 7) * 63,
		  "decrease at 2^64-1 bit/s (no overflow)");

	/* 1 Mb/s line, min rate 100 kb/s */
	nojitter(&p, 1 * M);
	p.min_rate = 100000;
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK_U64(rp.cr, 507813, "1M: CNM qFb 63 -> 1000000 - floor(63000000/128) = 507813");
	rp.bc_left = 1;
	qcn_rp_tx(&rp, &p, 1, 0);
	CHECK_U64(rp.cr, 753906, "1M: FR -> (507813 + 1000000) / 2 = 753906");
	CHECK_U64(qcn_rp_tx_time_ns(&rp, 1500), 15917103, "1M: 1500 B at 753906 b/s = 15917103.2 ns");
	rp.cr = 1 * M;
	CHECK_U64(qcn_rp_tx_time_ns(&rp, 1500), 12 * MS, "1M: 1500 B at 1 Mb/s = 12 ms");
	CHECK_U64(qcn_rp_tx_time_ns(&rp, 0xffffffffU), 34359738360000ULL, "1M: 4 GiB (mul_div path)");
	/* min rate above the line rate: the limiter never exceeds the line */
	p.min_rate = 5 * M;
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK_U64(rp.cr, 1 * M, "1M line with 5M min rate: CR capped at line rate");
	rp.cr = 0;
	CHECK_U64(qcn_rp_tx_time_ns(&rp, 1500), 0, "tx time with CR 0 -> 0 (no division by zero)");
}

static void test_carry_and_jitter(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp;
	uint32_t x = 99, i;
	int64_t mn = INT64_MAX, mx = 0;
	uint64_t tmn = UINT64_MAX, tmx = 0;

	nojitter(&p, 10 * G);
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK_U64(qcn_rp_tx(&rp, &p, 400000, 0), QCN_RP_EV_INCREASE, "carry: 400000 bytes -> expiry");
	CHECK_S64(rp.bc_left, -100000, "carry: overshoot kept (150000 - 400000 + 150000)");
	CHECK_U64(qcn_rp_tx(&rp, &p, 0, 0), QCN_RP_EV_INCREASE, "carry: tx(0) catches up one cycle");
	CHECK_S64(rp.bc_left, 50000, "carry: 50000 bytes left in cycle 3");
	CHECK_U64(qcn_rp_tx(&rp, &p, 0, 0), QCN_RP_EV_NONE, "carry: caught up");
	CHECK_U64(rp.bc_stage, 2, "carry: two byte-counter cycles counted");

	qcn_rp_params_default(&p, 10 * G);	/* jitter on */
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, HALF);
	CHECK_S64(rp.bc_left, 150000, "jitter: rnd 2^31 gives BC exactly");
	rp.bc_stage = 1;	/* byte stage != 0: the CNM reloads the counter */
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK_S64(rp.bc_left, 127500, "jitter: rnd 0 gives 0.85 BC");
	for (i = 0; i < 20000; i++) {
		x = x * 1664525U + 1013904223U;
		rp.bc_stage = 1;
		qcn_rp_cnm(&rp, &p, 1, 0, x);
		mn = rp.bc_left < mn ? rp.bc_left : mn;
		mx = rp.bc_left > mx ? rp.bc_left : mx;
		tmn = rp.timer_expiry_ns < tmn ? rp.timer_expiry_ns : tmn;
		tmx = rp.timer_expiry_ns > tmx ? rp.timer_expiry_ns : tmx;
	}
	CHECK(mn >= 127500 && mn < 128500 && mx <= 172500 && mx > 171500,
	      "jitter: byte counter reloads span [0.85, 1.15] BC (%" PRId64 "..%" PRId64 ")", mn, mx);
	CHECK(tmn >= 12750000 && tmn < 12850000 && tmx <= 17250000 && tmx > 17150000,
	      "jitter: timer reloads span [0.85, 1.15] T (%" PRIu64 "..%" PRIu64 ")", tmn, tmx);
	p.jitter = false;
	rp.bc_stage = 1;
	qcn_rp_cnm(&rp, &p, 63, 0, 12345);
	CHECK(rp.bc_left == 150000 && rp.timer_expiry_ns == 15 * MS, "jitter off: exact reloads");
}

/* QCN-T: timer only, period t, HAI after T * threshold / t = 31 cycles */
static void test_qcnt(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp;
	uint64_t t0 = 3000000, tr;
	int k, bad_time = 0, bad_state = 0;

	nojitter(&p, 10 * G);
	p.mode = QCN_RP_MODE_QCNT;
	CHECK_U64(qcn_rp_hai_threshold(&p), 31, "qcn-t: HAI threshold 75 ms / 2.4 ms = 31");
	p.qcnt_period_ns = 75 * MS;
	CHECK_U64(qcn_rp_hai_threshold(&p), 5, "qcn-t: t 75 ms -> 1, raised to threshold 5");
	p.qcnt_period_ns = 1 * MS;
	CHECK_U64(qcn_rp_hai_threshold(&p), 75, "qcn-t: t 1 ms -> 75");
	p.qcnt_period_ns = 2400000;
	CHECK_U64(qcn_rp_hai_threshold(&p), 31, "qcn-t: back to 2.4 ms");

	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK_U64(rp.timer_expiry_ns, 2400000, "qcn-t: first expiry at now + t");
	CHECK_U64(qcn_rp_tx(&rp, &p, 10000000, 0), QCN_RP_EV_NONE, "qcn-t: no byte counter");
	CHECK_U64(rp.bc_stage, 0, "qcn-t: byte stage stays 0");
	qcn_rp_timer(&rp, &p, 2400000, 0);
	CHECK_U64(rp.cr, 7539062500ULL, "qcn-t: FR step at t");
	/* second CNM: the timer stage (1) stands in for the byte stage -> TR <- CR */
	qcn_rp_cnm(&rp, &p, 63, t0, 0);
	CHECK_U64(rp.tr, 7539062500ULL, "qcn-t: CNM with timer stage 1 sets TR <- CR");
	CHECK_U64(rp.cr, 3828430176ULL, "qcn-t: CR = 7539062500 - floor(7539062500*63/128)");
	for (k = 1; k <= 33; k++) {
		tr = rp.tr;
		qcn_rp_timer(&rp, &p, t0 + (uint64_t)k * 2400000 - 1, 0);
		if (rp.timer_stage != (uint32_t)k - 1)
			bad_time++;
		qcn_rp_timer(&rp, &p, t0 + (uint64_t)k * 2400000, 0);
		if (rp.timer_stage != (uint32_t)k)
			bad_time++;
		if (k <= 5 && (rp.tr != tr || qcn_rp_state(&rp, &p) != QCN_RP_FR))
			bad_state++;
		if (k >= 6 && k <= 31 && (rp.tr != tr + 5 * M || qcn_rp_state(&rp, &p) != QCN_RP_AI))
			bad_state++;
		if (k == 32)
			CHECK_U64(rp.tr, tr + 50 * M, "qcn-t: cycle 32 is the first HAI cycle (+1 x R_HAI)");
		if (k == 33)
			CHECK_U64(rp.tr, tr + 100 * M, "qcn-t: cycle 33 adds 2 x R_HAI");
		if (k >= 32 && qcn_rp_state(&rp, &p) != QCN_RP_HAI)
			bad_state++;
	}
	CHECK_U64(bad_time, 0, "qcn-t: expiries exactly every 2400 us, never halved");
	CHECK_U64(bad_state, 0, "qcn-t: cycles 1-5 FR, 6-31 AI (+R_AI), 32+ HAI");
	CHECK_U64(rp.tr, 7539062500ULL + 26 * 5 * M + 150 * M, "qcn-t: TR after 33 cycles");
	p.jitter = true;
	qcn_rp_cnm(&rp, &p, 1, 0, 5);
	CHECK(qcn_rnd_mix(5) != 5 && qcn_rnd_mix(5) != 0, "rnd mix: a different value");
	CHECK_U64(rp.timer_expiry_ns, 2400000 * 85 / 100 + ((2400000ULL * 30 / 100) *
		  (uint64_t)qcn_rnd_mix(5) >> 32), "qcn-t: jittered t uses the mixed rnd");
}

/* N-AIMD and AP-N-AIMD modes: eq. (14) on the limiter, AP step, release */
static void test_naimd(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp;
	uint32_t i, n = 0;

	nojitter(&p, 10 * G);
	p.mode = QCN_RP_MODE_NAIMD;
	CHECK(qcn_rp_params_valid(&p), "n-aimd: defaults valid");
	CHECK(p.naimd_gi == 533330000ULL && p.naimd_ru == M && p.naimd_gd == 2666700ULL &&
	      p.fb_unit == 1500 && p.ap_pkts == 50 && p.w_exp == 1,
	      "n-aimd: paper's defaults (G_i 0.53333, R_u 1 Mb/s, G_d 0.0026667, 1500 B, T/2 50, w 2)");
	qcn_rp_init(&rp, &p);
	CHECK(qcn_rp_feedback(&rp, &p, 15000) == QCN_RP_EV_NONE && !rp.active,
	      "n-aimd: Fb >= 0 does not create a limiter");
	CHECK(qcn_rp_feedback(&rp, &p, -15000) == QCN_RP_EV_INCREASE && rp.active,
	      "n-aimd: Fb < 0 activates the limiter");
	CHECK_U64(rp.cr, 10 * G - 266670000ULL, "n-aimd: eq. 14b from line rate (-10 pkts: -2.6667 %%)");
	CHECK_U64(rp.tr, 10 * G, "n-aimd: TR = CR before the feedback");
	CHECK(qcn_rp_timer(&rp, &p, ~0ULL, 0) == QCN_RP_EV_NONE, "n-aimd: no timer expiry ever");
	for (i = 0; i < 1000; i++)
		n += qcn_rp_tx(&rp, &p, 1500, 0) != QCN_RP_EV_NONE;
	CHECK_U64(n, 0, "n-aimd: no byte counter, no averaging");
	qcn_rp_feedback(&rp, &p, 1500);
	CHECK_U64(rp.cr, 10 * G - 266670000ULL + 533330ULL, "n-aimd: eq. 14a adds G_i R_u Fb'");
	CHECK(qcn_rp_state(&rp, &p) == QCN_RP_FR, "n-aimd: active limiter reports FR (no stages)");
	CHECK(qcn_rp_feedback(&rp, &p, 1500LL * 1000000) == QCN_RP_EV_RELEASE && !rp.active &&
	      rp.cr == 10 * G, "n-aimd: released at line rate");
	p.min_rate = 5 * M;
	qcn_rp_feedback(&rp, &p, -1500LL * 375);
	CHECK_U64(rp.cr, 5 * M, "n-aimd: G_d |Fb'| >= 1 gives the min rate");
	p.w_exp = 0;
	CHECK(qcn_rp_params_valid(&p), "n-aimd: w 1 valid");
	p.fb_unit = 0;
	CHECK(!qcn_rp_params_valid(&p), "n-aimd: fb unit 0 invalid");
	p.fb_unit = 1500; p.naimd_gi = QCN_AP_ONE + 1;
	CHECK(!qcn_rp_params_valid(&p), "n-aimd: G_i > 1 invalid");
	p.naimd_gi = QCN_AP_DEF_GI; p.w_exp = 11;
	CHECK(!qcn_rp_params_valid(&p), "n-aimd: w 2^11 invalid");

	/* AP-N-AIMD: the ap_pkts-th packet averages, once */
	nojitter(&p, 10 * G);
	p.mode = QCN_RP_MODE_AP_NAIMD;
	CHECK(qcn_rp_params_valid(&p), "ap-n-aimd: defaults valid");
	qcn_rp_init(&rp, &p);
	qcn_rp_feedback(&rp, &p, -15000);
	for (i = 1, n = 0; i < 50; i++)
		n += qcn_rp_tx(&rp, &p, 1500, 0) != QCN_RP_EV_NONE;
	CHECK_U64(n, 0, "ap-n-aimd: nothing for 49 packets");
	CHECK(qcn_rp_tx(&rp, &p, 0, 0) == QCN_RP_EV_NONE, "ap-n-aimd: a catch-up call (0 bytes) is not a packet");
	CHECK(qcn_rp_tx(&rp, &p, 1500, 0) == QCN_RP_EV_INCREASE, "ap-n-aimd: the 50th packet averages");
	CHECK_U64(rp.cr, 10 * G - 133335000ULL, "ap-n-aimd: CR <- (CR + TR) / 2");
	for (i = 0, n = 0; i < 200; i++)
		n += qcn_rp_tx(&rp, &p, 1500, 0) != QCN_RP_EV_NONE;
	CHECK_U64(n, 0, "ap-n-aimd: one step per feedback");
	/* a positive feedback to line rate: released only after the step */
	CHECK(qcn_rp_feedback(&rp, &p, 1500LL * 1000000) == QCN_RP_EV_INCREASE && rp.active &&
	      rp.cr == 10 * G, "ap-n-aimd: at line rate with a step pending: still active");
	for (i = 1; i < 50; i++)
		qcn_rp_tx(&rp, &p, 1500, 0);
	CHECK(qcn_rp_tx(&rp, &p, 1500, 0) == QCN_RP_EV_INCREASE && rp.active &&
	      rp.cr == 10 * G - 66667500ULL, "ap-n-aimd: the step pulls CR back toward TR");
	qcn_rp_feedback(&rp, &p, 1500LL * 1000000);
	qcn_rp_feedback(&rp, &p, 1500LL * 1000000);	/* TR = CR = line */
	for (i = 1; i < 50; i++)
		qcn_rp_tx(&rp, &p, 1500, 0);
	CHECK(qcn_rp_tx(&rp, &p, 1500, 0) == QCN_RP_EV_RELEASE && !rp.active,
	      "ap-n-aimd: released once the step leaves CR at line rate");
	p.ap_pkts = 0;
	CHECK(!qcn_rp_params_valid(&p), "ap-n-aimd: ap_pkts 0 invalid");
	p.ap_pkts = 50; p.mode = 5;
	CHECK(!qcn_rp_params_valid(&p), "mode 5 invalid");
}

/*
 * QCN-AIMD (convergence paper, eqs. 27-28) at 1 Gb/s with R_AI 5 Mb/s:
 * the qcn mode's cut, then + R_AI per BC bytes, no FR, no timer, release
 * at the line rate.
 */
static void test_aimd(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp;
	enum qcn_rp_event ev;
	uint64_t cr;
	int k, bad_cr = 0, bad_bc = 0, bad_ev = 0;

	nojitter(&p, 1 * G);
	p.mode = QCN_RP_MODE_AIMD;
	CHECK(qcn_rp_params_valid(&p), "qcn-aimd: defaults valid (mode 4)");
	CHECK(!qcn_rp_has_timer(&p) && !qcn_rp_signed(&p), "qcn-aimd: no timer, unsigned feedback");
	p.mode = QCN_RP_MODE_QCNT;
	CHECK(qcn_rp_has_timer(&p), "qcn-t has a timer");
	p.mode = QCN_RP_MODE_NAIMD;
	CHECK(!qcn_rp_has_timer(&p), "n-aimd has no timer");
	p.mode = QCN_RP_MODE_AIMD;

	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	/* 1G - floor(1G * 63 / 128) = 1G - 492187500 */
	CHECK(rp.active && rp.cr == 507812500ULL, "qcn-aimd: CNM qFb 63 cuts as qcn mode (eq. 3)");
	CHECK_U64(rp.tr, 507812500ULL, "qcn-aimd: no target rate, TR follows CR");
	CHECK(rp.bc_left == 150000 && rp.bc_stage == 0, "qcn-aimd: CNM loads the byte counter with BC");
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_AI, "qcn-aimd: state AI at once (no FR)");
	CHECK(qcn_rp_timer(&rp, &p, ~0ULL, 0) == QCN_RP_EV_NONE && rp.cr == 507812500ULL &&
	      rp.timer_stage == 0, "qcn-aimd: the timer never expires");

	CHECK_U64(qcn_rp_tx(&rp, &p, 149999, 0), QCN_RP_EV_NONE, "qcn-aimd: 149999 bytes, no increase");
	CHECK_U64(qcn_rp_tx(&rp, &p, 1, 0), QCN_RP_EV_INCREASE, "qcn-aimd: BC bytes, one increase");
	/* qcn mode's FR step would give (507812500 + 1G) / 2 = 753906250 */
	CHECK_U64(rp.cr, 512812500ULL, "qcn-aimd: CR + R_AI (eq. 27), no averaging");
	CHECK(rp.tr == rp.cr && rp.bc_stage == 1 && rp.bc_left == 150000,
	      "qcn-aimd: TR = CR, stage 1, full BC again");
	for (k = 2; k <= 12; k++) {
		if (qcn_rp_tx(&rp, &p, 150000, 0) != QCN_RP_EV_INCREASE)
			bad_ev++;
		if (rp.cr != 507812500ULL + (uint64_t)k * 5 * M || rp.tr != rp.cr)
			bad_cr++;
		if (rp.bc_left != 150000 || rp.bc_stage != (uint32_t)k)
			bad_bc++;
	}
	CHECK(!bad_ev && !bad_cr, "qcn-aimd: periods 2-12 add exactly R_AI each");
	CHECK_U64(bad_bc, 0, "qcn-aimd: the period stays BC past the threshold (never halved)");
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_AI, "qcn-aimd: state AI past the threshold (no HAI)");

	/* an overshoot of two periods: two increases, the second by bytes = 0 */
	CHECK_U64(qcn_rp_tx(&rp, &p, 300000, 0), QCN_RP_EV_INCREASE, "qcn-aimd: 2 BC at once, first increase");
	CHECK_U64(qcn_rp_tx(&rp, &p, 0, 0), QCN_RP_EV_INCREASE, "qcn-aimd: the carried BC, second increase");
	CHECK_U64(qcn_rp_tx(&rp, &p, 0, 0), QCN_RP_EV_NONE, "qcn-aimd: then nothing left");
	CHECK_U64(rp.cr, 577812500ULL, "qcn-aimd: 14 increases, 507812500 + 14 x 5M");

	/* a CNM in mid-period: qcn's cut, and a full BC from now */
	qcn_rp_tx(&rp, &p, 100000, 0);
	qcn_rp_cnm(&rp, &p, 32, 0, 0);
	/* 577812500 - floor(577812500 * 32 / 128) = 577812500 - 144453125 */
	CHECK_U64(rp.cr, 433359375ULL, "qcn-aimd: second CNM qFb 32 cuts CR x 0.75");
	CHECK(rp.tr == rp.cr && rp.bc_stage == 0 && rp.bc_left == 150000,
	      "qcn-aimd: every CNM restarts the period (the 50000 bytes left are dropped)");

	/* (1G - 433359375) / 5M = 113.33: the 114th increase reaches 1G */
	cr = rp.cr;
	for (k = 1; k <= 113; k++) {
		ev = qcn_rp_tx(&rp, &p, 150000, 0);
		cr += 5 * M;
		if (ev != QCN_RP_EV_INCREASE)
			bad_ev++;
		if (rp.cr != cr || !rp.active)
			bad_cr++;
	}
	CHECK(!bad_ev && !bad_cr, "qcn-aimd: 113 increases of R_AI up to 998359375");
	CHECK_U64(rp.cr, 998359375ULL, "qcn-aimd: CR 1640625 short of the line rate");
	CHECK_U64(qcn_rp_tx(&rp, &p, 150000, 0), QCN_RP_EV_RELEASE, "qcn-aimd: the 114th reaches 1G: release");
	CHECK(!rp.active && rp.cr == 1 * G && rp.tr == 1 * G, "qcn-aimd: released at max rate, CR capped");
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_RELEASED, "qcn-aimd: state released");
	CHECK_U64(qcn_rp_tx(&rp, &p, 1000000, 0), QCN_RP_EV_NONE, "qcn-aimd: released, tx ignored");

	/* qFb 0: no cut, the period restarts */
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	qcn_rp_tx(&rp, &p, 100000, 0);
	qcn_rp_cnm(&rp, &p, 0, 0, 0);
	CHECK(rp.cr == 507812500ULL && rp.bc_left == 150000, "qcn-aimd: qFb 0 keeps CR, reloads BC");

	/* R_AI saturating at 400 Gb/s: capped, released */
	nojitter(&p, 400 * G);
	p.mode = QCN_RP_MODE_AIMD;
	p.ai_rate = ~0ULL;
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	CHECK(qcn_rp_tx(&rp, &p, 150000, 0) == QCN_RP_EV_RELEASE && rp.cr == 400 * G,
	      "qcn-aimd: R_AI 2^64-1 saturates, capped at 400G, released");

	/* R_AI 0: increases that change nothing, never released */
	nojitter(&p, 1 * G);
	p.mode = QCN_RP_MODE_AIMD;
	p.ai_rate = 0;
	qcn_rp_init(&rp, &p);
	qcn_rp_cnm(&rp, &p, 63, 0, 0);
	for (k = 0, bad_ev = 0; k < 100; k++)
		bad_ev += qcn_rp_tx(&rp, &p, 150000, 0) != QCN_RP_EV_INCREASE;
	CHECK(!bad_ev && rp.active && rp.cr == 507812500ULL, "qcn-aimd: R_AI 0 keeps CR, never released");

	/* jitter: reloads in [0.85, 1.15] BC at any stage */
	p.jitter = true;
	p.ai_rate = 5 * M;
	qcn_rp_cnm(&rp, &p, 1, 0, 0);
	CHECK_S64(rp.bc_left, 127500, "qcn-aimd: jitter rnd 0 reloads 0.85 BC");
	rp.bc_stage = 10;
	qcn_rp_tx(&rp, &p, 127500, HALF);
	CHECK_S64(rp.bc_left, 150000, "qcn-aimd: jitter rnd 1/2 at stage 11 reloads BC, not BC/2");
}

/*
 * qcn_rp_start(): a limiter started at a rate (the convergence paper's
 * stage three starts its RPs at (900, 100) Mb/s), at 1 Gb/s, as after a
 * CNM that cut it there; then the normal cycles.
 */
static void test_start(void)
{
	struct qcn_rp_params p;
	struct qcn_rp rp, ref;
	int k, bad = 0;

	nojitter(&p, 1 * G);
	qcn_rp_init(&rp, &p);
	CHECK(qcn_rp_start(&rp, &p, 100 * M, 5 * MS, 0), "start: 100M below the line rate starts");
	CHECK(rp.active && rp.cr == 100 * M && rp.tr == 100 * M, "start: active, CR = TR = 100M");
	CHECK(rp.bc_stage == 0 && rp.timer_stage == 0 && rp.bc_left == 150000,
	      "start: stage counts 0, a full byte-counter cycle");
	CHECK_U64(rp.timer_expiry_ns, 20 * MS, "start: timer from now (5 ms + T)");
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_FR, "start: state FR");

	/* the same state as a qFb 0 CNM on an inactive limiter, CR = TR set after */
	p.jitter = true;
	qcn_rp_init(&rp, &p);
	qcn_rp_init(&ref, &p);
	qcn_rp_start(&rp, &p, 900 * M, 7 * MS, 0x12345678U);
	qcn_rp_cnm(&ref, &p, 0, 7 * MS, 0x12345678U);
	ref.cr = 900 * M;
	ref.tr = 900 * M;
	CHECK(rp.active == ref.active && rp.cr == ref.cr && rp.tr == ref.tr &&
	      rp.bc_left == ref.bc_left && rp.timer_expiry_ns == ref.timer_expiry_ns &&
	      rp.bc_stage == ref.bc_stage && rp.timer_stage == ref.timer_stage &&
	      rp.ap_pkts == ref.ap_pkts && rp.ap_done == ref.ap_done,
	      "start: = qFb 0 CNM then CR = TR = rate, jittered cycles alike");
	p.jitter = false;

	/* fast recovery towards TR = CR: five byte cycles change nothing */
	qcn_rp_init(&rp, &p);
	qcn_rp_start(&rp, &p, 100 * M, 0, 0);
	for (k = 1; k <= 5; k++)
		if (qcn_rp_tx(&rp, &p, 150000, 0) != QCN_RP_EV_INCREASE || rp.cr != 100 * M ||
		    rp.tr != 100 * M || rp.bc_stage != (uint32_t)k)
			bad++;
	CHECK(!bad, "start: byte cycles 1-5 are FR at CR = TR = 100M");
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_FR, "start: FR after 5 byte cycles");
	CHECK_U64(qcn_rp_tx(&rp, &p, 150000, 0), QCN_RP_EV_INCREASE, "start: 6th byte cycle expires");
	/* AI: TR 100M + 5M, CR (100M + 105M) / 2 */
	CHECK(rp.tr == 105 * M && rp.cr == 102500000ULL, "start: 6th byte cycle is AI, CR 102.5M");
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_AI, "start: state AI");

	/* the timer runs from the start too */
	qcn_rp_init(&rp, &p);
	qcn_rp_start(&rp, &p, 100 * M, 0, 0);
	CHECK_U64(qcn_rp_timer(&rp, &p, 15 * MS - 1, 0), QCN_RP_EV_NONE, "start: no timer expiry before T");
	CHECK(qcn_rp_timer(&rp, &p, 15 * MS, 0) == QCN_RP_EV_INCREASE && rp.timer_stage == 1 &&
	      rp.cr == 100 * M && rp.timer_expiry_ns == 30 * MS, "start: timer expiry at T is FR");

	/* min rate, max rate */
	CHECK_U64(qcn_rp_start_rate(&p, 1 * M), 5 * M, "start rate: 1M raised to min rate 5M");
	qcn_rp_init(&rp, &p);
	CHECK(qcn_rp_start(&rp, &p, 1 * M, 0, 0) && rp.cr == 5 * M && rp.tr == 5 * M,
	      "start: 1M starts at min rate 5M");
	CHECK_U64(qcn_rp_start_rate(&p, 1 * G - 1), 1 * G - 1, "start rate: 1 bit/s below max rate kept");
	CHECK_U64(qcn_rp_start_rate(&p, 1 * G), 0, "start rate: max rate: no limiter");
	qcn_rp_init(&rp, &p);
	CHECK(!qcn_rp_start(&rp, &p, 1 * G, 0, 0) && !rp.active && rp.cr == 1 * G,
	      "start: at max rate installs nothing");
	CHECK(!qcn_rp_start(&rp, &p, 2 * G, 0, 0) && !rp.active && rp.cr == 1 * G,
	      "start: above max rate installs nothing");
	p.min_rate = p.max_rate;
	CHECK_U64(qcn_rp_start_rate(&p, 1 * M), 0, "start rate: min rate = max rate: no limiter");
	p.min_rate = 5 * M;

	/* QCN-T: the timer of period t, no byte counter */
	p.mode = QCN_RP_MODE_QCNT;
	qcn_rp_init(&rp, &p);
	qcn_rp_start(&rp, &p, 100 * M, 0, 0);
	CHECK(rp.active && rp.timer_expiry_ns == 2400000ULL, "start qcn-t: timer at t = 2.4 ms");
	CHECK_U64(qcn_rp_tx(&rp, &p, 1000000, 0), QCN_RP_EV_NONE, "start qcn-t: no byte counter");
	CHECK(qcn_rp_timer(&rp, &p, 2400000ULL, 0) == QCN_RP_EV_INCREASE && rp.cr == 100 * M,
	      "start qcn-t: first expiry is FR");

	/* QCN-AIMD: + R_AI per byte cycle from the start */
	p.mode = QCN_RP_MODE_AIMD;
	qcn_rp_init(&rp, &p);
	qcn_rp_start(&rp, &p, 100 * M, 0, 0);
	CHECK_U64(qcn_rp_state(&rp, &p), QCN_RP_AI, "start qcn-aimd: state AI");
	CHECK(qcn_rp_tx(&rp, &p, 150000, 0) == QCN_RP_EV_INCREASE && rp.cr == 105 * M &&
	      rp.tr == 105 * M, "start qcn-aimd: one byte cycle adds R_AI");

	/* N-AIMD, AP-N-AIMD: CR = TR = rate, nothing to average */
	p.mode = QCN_RP_MODE_NAIMD;
	qcn_rp_init(&rp, &p);
	CHECK(qcn_rp_start(&rp, &p, 100 * M, 0, 0) && rp.active && rp.cr == 100 * M &&
	      rp.tr == 100 * M && rp.ap_done, "start n-aimd: CR = TR = 100M, no AP step pending");
	CHECK(qcn_rp_tx(&rp, &p, 1500, 0) == QCN_RP_EV_NONE &&
	      qcn_rp_timer(&rp, &p, ~0ULL, 0) == QCN_RP_EV_NONE && rp.cr == 100 * M,
	      "start n-aimd: no counters, no timer");
	CHECK(qcn_rp_feedback(&rp, &p, -150000) == QCN_RP_EV_INCREASE && rp.tr == 100 * M &&
	      rp.cr < 100 * M, "start n-aimd: Fb < 0 cuts from the start rate");
	p.mode = QCN_RP_MODE_AP_NAIMD;
	qcn_rp_init(&rp, &p);
	qcn_rp_start(&rp, &p, 100 * M, 0, 0);
	for (k = 0, bad = 0; k < 200; k++)
		bad += qcn_rp_tx(&rp, &p, 1500, 0) != QCN_RP_EV_NONE;
	CHECK(!bad && rp.cr == 100 * M && rp.active, "start ap-n-aimd: no averaging before a feedback");
}

int main(void)
{
	test_defaults();
	test_byte_counter();
	test_timer();
	test_hai();
	test_target_rate_reduction();
	test_decrease();
	test_cnm_keeps_byte_counter();
	test_extremes();
	test_carry_and_jitter();
	test_qcnt();
	test_naimd();
	test_aimd();
	test_start();
	return ktap_finish();
}
