/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * QCN reaction point (RP) core: the rate-limiter state machine of the QCN
 * pseudo-code (eqs. 2-8 of Alizadeh et al.; rules below), QCN-T (Zhang
 * et al., convergence paper, section VI) and QCN-AIMD (the convergence
 * paper, section V-B, eq. 27).
 * Rates in bit/s as u64 (1 Mb/s .. 400 Gb/s without overflow; every
 * product is bounded or saturating), times in ns.  Header-only, pure
 * integer C.
 *
 * Rules (the 802.1Qau RP pseudo-code v2.x as the public models transcribe
 * it), and the interpretation chosen where the text leaves room:
 * - CNM (qcn_rp_cnm): if the limiter is at line rate (CR >= max rate,
 *   which includes a limiter created by this CNM) or its byte stage count
 *   is non-zero, TR <- CR (eq. 2) and the byte counter reloads (a full
 *   cycle BC); otherwise TR and the byte counter's remaining bytes are
 *   kept.  That is the 802.1Qau RP pseudo-code's CNM reception (v2.2):
 *   the byte counter restarts only together with TR <- CR, so CNMs
 *   arriving during fast recovery's first byte cycle do not keep
 *   postponing its end; the ns-3 QCN model (rp-net-device.cc, Receive)
 *   and the PCN-simulation RP do the same.
 *   (Section II-A of the averaging-principle paper says the byte counter
 *   is reset at every rate decrease: a summary that holds for the first
 *   decrease of an episode, not for a second CNM within its first cycle.)
 *   In QCN-T, which has no byte counter, the timer stage count plays the
 *   byte stage's role.  Then
 *   CR <- max(MinRate, CR * max(1 - MinDecFac, 1 - Gd*qFb)) (eq. 3), with
 *   CR*Gd*qFb computed as floor(CR * qFb / 2^gd_shift) and
 *   CR*(1 - MinDecFac) as floor(CR * (100 - min_dec_pct) / 100); both
 *   stage counts <- 0 and the timer restarts (expiry = now + cycle).
 *   qFb 0 is a valid CNM: it resets the counters (and may set TR) but does
 *   not change CR.
 * - Cycle lengths: the byte counter reloads to BC and the timer to T,
 *   halved (BC/2, T/2) once the counter's own stage count exceeds the
 *   threshold, i.e. the reload that follows the expiry taking the count to
 *   threshold + 1 and all later ones (so with threshold 5 the first six
 *   cycles are full length, as the pseudo-code's "exceeds" says; the
 *   paper's Fig. 4 halves from the sixth).  With params.jitter each reload
 *   is multiplied by U(0.85, 1.15) (qcn_jitter_u64()).  Byte counter
 *   overshoot is carried into the next cycle (bc_left += reload), timer
 *   expiries are scheduled from the previous expiry time, so late callers
 *   catch up exactly.
 * - Expiry (eqs. 4-8): the expiring counter's stage count is incremented
 *   and, with m = min(byte stages, timer stages):
 *     target rate reduction: if the expiring counter's stage count is now
 *       1 and TR > 10 * CR, TR <- TR / 8 (instead of any increase);
 *     else if m > threshold: TR += R_HAI * (m - threshold) (HAI, eq. 7);
 *     else if max(stages) > threshold: TR += R_AI (AI, eq. 5);
 *     else fast recovery (TR unchanged, eq. 4);
 *   then CR <- min(max rate, floor((CR + TR) / 2)) (eqs. 4, 6, 8).  TR is
 *   not capped at the line rate (an AI/HAI step past it is what lets CR
 *   reach the line rate); when CR reaches max rate the limiter is released
 *   (QCN_RP_EV_RELEASE, rp->active = false) and CR = max rate.  CR one
 *   bit/s short of the line rate with TR at or above it also releases (the
 *   floor would otherwise stall there forever when R_AI = 0).
 * - QCN-T: no byte counter (qcn_rp_tx() does nothing), one timer of period
 *   t (qcnt_period_ns, never halved, jittered only if params.jitter); FR /
 *   AI threshold unchanged; HAI threshold = T * threshold / t cycles
 *   (75 ms / t with the defaults: 31 for t = 2.4 ms), at least threshold;
 *   HAI adds R_HAI * (timer stages - HAI threshold).
 * - QCN-AIMD (mode 4; Shu et al., convergence paper, section V-B, eqs.
 *   27-28): the qcn mode's decrease (eq. 3) on a CNM, no fast recovery,
 *   no target rate and no timer.  Every CNM reloads the byte counter to a
 *   full BC (eq. 28 counts the increases from the latest cut: the j-th
 *   comes after j whole periods without feedback); every expiry of the
 *   byte counter adds R_AI, CR <- min(max rate, CR + R_AI) (eq. 27), and
 *   releases the limiter when CR reaches max rate.  The period is always
 *   BC ("the duration of sending 150 KB data"): never halved, jittered
 *   only if params.jitter.  TR follows CR (TR = CR after every step), and
 *   the byte stage counts the increases since the latest CNM.  The
 *   paper's model ignores the timer (its assumption 3: at 1 Gb/s the byte
 *   counter's 1.2 ms beats the timer's 15 ms) and so does this mode:
 *   qcn_rp_timer() never expires, and a limiter whose flow stops sending
 *   stays at its rate until the glue ages it out.
 * - N-AIMD and AP-N-AIMD (modes 2, 3; include/qcn/qcn_ap.h, eq. 14 of
 *   the averaging-principle paper): no counters and no timer.  A signed
 *   feedback (qcn_rp_feedback(), Fb from the CNM by qcn_cnm_fb()) applies
 *   eq. (14) to CR with TR <- CR; Fb >= 0 to an inactive limiter does
 *   nothing (the flow is at line rate).  In AP-N-AIMD the ap_pkts-th
 *   packet sent after the latest feedback sets CR <- (CR + TR)/2 once
 *   (qcn_rp_tx() with bytes > 0 counts packets).  The limiter is released
 *   when CR reaches max rate with no averaging step pending.
 *   qcn_rp_timer() never expires in these modes.
 * - State (qcn_rp_state): the phase whose rule the last expiry applied,
 *   from the current stage counts: FR if max(stages) <= threshold, HAI if
 *   m > HAI threshold, AI otherwise; RELEASED when not active; FR for an
 *   active N-AIMD limiter (it has no stages), AI for an active QCN-AIMD
 *   one (it has no fast recovery).
 */
#ifndef _QCN_RP_H
#define _QCN_RP_H

#include "qcn_types.h"
#include "qcn_ap.h"

/* same values as enum tc_qcn_rp_mode */
enum qcn_rp_mode {
	QCN_RP_MODE_QCN = 0,
	QCN_RP_MODE_QCNT = 1,
	QCN_RP_MODE_NAIMD = 2,
	QCN_RP_MODE_AP_NAIMD = 3,
	QCN_RP_MODE_AIMD = 4,
};

/* same values as enum tc_qcn_rp_state */
enum qcn_rp_state { QCN_RP_FR = 0, QCN_RP_AI = 1, QCN_RP_HAI = 2, QCN_RP_RELEASED = 3 };

#define QCN_RP_DEF_MIN_RATE	5000000ULL	/* rpgMinRate 5 Mb/s */
#define QCN_RP_DEF_AI_RATE	5000000ULL	/* rpgAiRate 5 Mb/s */
#define QCN_RP_DEF_HAI_RATE	50000000ULL	/* rpgHaiRate 50 Mb/s */
#define QCN_RP_DEF_BYTE_RESET	150000		/* rpgByteReset, bytes */
#define QCN_RP_DEF_TIME_RESET_NS 15000000ULL	/* rpgTimeReset 15 ms */
#define QCN_RP_DEF_THRESHOLD	5		/* rpgThreshold */
#define QCN_RP_DEF_GD_SHIFT	7		/* rpgGd: Gd = 1/128 */
#define QCN_RP_DEF_MIN_DEC_PCT	50		/* rpgMinDecFac */
#define QCN_RP_DEF_QCNT_PERIOD_NS 2400000ULL	/* QCN-T t = 2.4 ms */
#define QCN_RP_MIN_PERIOD_NS	1000ULL		/* timer cycles are >= 1 us */
#define QCN_RP_MAX_GD_SHIFT	31

struct qcn_rp_params {
	u64 max_rate;		/* bit/s: line rate (rpgMaxRate) */
	u64 min_rate;		/* bit/s: 5 Mb/s */
	u64 ai_rate;		/* bit/s: R_AI 5 Mb/s */
	u64 hai_rate;		/* bit/s: R_HAI 50 Mb/s */
	u32 byte_reset;		/* bytes: 150000 */
	u64 time_reset_ns;	/* T: 15 ms */
	u32 threshold;		/* 5 */
	u32 gd_shift;		/* Gd = 2^-gd_shift, 7 */
	u32 min_dec_pct;	/* 50 */
	u32 mode;		/* enum qcn_rp_mode */
	u64 qcnt_period_ns;	/* QCN-T t: 2.4 ms */
	bool jitter;		/* +-15 % on counter reloads */
	/* N-AIMD, AP-N-AIMD (qcn_ap.h) */
	u64 naimd_gi;		/* G_i, parts per 10^9: 0.53333 */
	u64 naimd_ru;		/* R_u, bit/s: 1 Mb/s */
	u64 naimd_gd;		/* G_d, parts per 10^9: 0.0026667 */
	u32 fb_unit;		/* bytes per unit of Fb: 1500 */
	u32 ap_pkts;		/* AP step after this many packets: 50 */
	s32 w_exp;		/* the CPs' w = 2^w_exp, to rebuild Fb: 1 */
};

struct qcn_rp {
	u64 cr;			/* current rate, bit/s */
	u64 tr;			/* target rate, bit/s */
	s64 bc_left;		/* bytes left in this byte-counter cycle */
	u64 timer_expiry_ns;	/* absolute time of the next timer expiry */
	u32 bc_stage;
	u32 timer_stage;
	bool active;		/* false: released / never limited */
	u32 ap_pkts;		/* AP-N-AIMD: packets since the last feedback */
	bool ap_done;		/* AP-N-AIMD: no averaging step pending */
};

/* Event returned by the tx/timer entry points. */
enum qcn_rp_event { QCN_RP_EV_NONE = 0, QCN_RP_EV_INCREASE, QCN_RP_EV_RELEASE };

/* Standard defaults (IEEE8021-CN-MIB); max rate = line rate. */
static inline void qcn_rp_params_default(struct qcn_rp_params *p, u64 line_rate_bps)
{
	p->max_rate = line_rate_bps;
	p->min_rate = QCN_RP_DEF_MIN_RATE;
	p->ai_rate = QCN_RP_DEF_AI_RATE;
	p->hai_rate = QCN_RP_DEF_HAI_RATE;
	p->byte_reset = QCN_RP_DEF_BYTE_RESET;
	p->time_reset_ns = QCN_RP_DEF_TIME_RESET_NS;
	p->threshold = QCN_RP_DEF_THRESHOLD;
	p->gd_shift = QCN_RP_DEF_GD_SHIFT;
	p->min_dec_pct = QCN_RP_DEF_MIN_DEC_PCT;
	p->mode = QCN_RP_MODE_QCN;
	p->qcnt_period_ns = QCN_RP_DEF_QCNT_PERIOD_NS;
	p->jitter = true;
	p->naimd_gi = QCN_AP_DEF_GI;
	p->naimd_ru = QCN_AP_DEF_RU;
	p->naimd_gd = QCN_AP_DEF_GD;
	p->fb_unit = QCN_AP_DEF_FB_UNIT;
	p->ap_pkts = QCN_AP_DEF_PERIOD / 2;
	p->w_exp = QCN_CP_DEF_W_EXP;
}

/* N-AIMD or AP-N-AIMD: the limiter acts on signed feedback (qcn_ap.h). */
static inline bool qcn_rp_signed(const struct qcn_rp_params *p)
{
	return p->mode == QCN_RP_MODE_NAIMD || p->mode == QCN_RP_MODE_AP_NAIMD;
}

/*
 * QCN and QCN-T: the limiter has a timer (qcn_rp_timer() may expire);
 * QCN-AIMD and the N-AIMD modes have none.
 */
static inline bool qcn_rp_has_timer(const struct qcn_rp_params *p)
{
	return p->mode == QCN_RP_MODE_QCN || p->mode == QCN_RP_MODE_QCNT;
}

/*
 * Sanity of a parameter set (for the glue's netlink validation):
 * 0 < min_rate <= max_rate <= 10 Tb/s, byte_reset >= 1, T >= 1 us,
 * gd_shift <= 31, min_dec_pct <= 100, known mode, t >= 1 us in QCN-T;
 * in the N-AIMD modes qcn_naimd_params_valid() with G_i, G_d <= 1,
 * w_exp in range and ap_pkts >= 1.
 * The core never divides by zero or loops forever on invalid values
 * either (cycles are clamped to >= 1 us / >= 1 byte).
 */
static inline bool qcn_rp_params_valid(const struct qcn_rp_params *p)
{
	return p->min_rate > 0 && p->min_rate <= p->max_rate &&
	       p->max_rate <= 10000000000000ULL && p->byte_reset >= 1 &&
	       p->time_reset_ns >= QCN_RP_MIN_PERIOD_NS &&
	       p->gd_shift <= QCN_RP_MAX_GD_SHIFT && p->min_dec_pct <= 100 &&
	       p->mode <= QCN_RP_MODE_AIMD &&
	       (p->mode != QCN_RP_MODE_QCNT ||
		p->qcnt_period_ns >= QCN_RP_MIN_PERIOD_NS) &&
	       (!qcn_rp_signed(p) ||
		(p->naimd_gi <= QCN_AP_ONE && p->naimd_gd <= QCN_AP_ONE &&
		 p->fb_unit >= 1 && p->ap_pkts >= 1 &&
		 p->w_exp >= QCN_CP_W_EXP_MIN && p->w_exp <= QCN_CP_W_EXP_MAX));
}

/*
 * HAI threshold in cycles of the counter(s) that drive it: threshold in
 * QCN mode; in QCN-T (15 ms x 5) / t generalized to T * threshold / t
 * (floor), never below threshold.
 */
static inline u32 qcn_rp_hai_threshold(const struct qcn_rp_params *p)
{
	u64 t = p->qcnt_period_ns, th;

	if (p->mode != QCN_RP_MODE_QCNT)
		return p->threshold;
	if (t < QCN_RP_MIN_PERIOD_NS)
		t = QCN_RP_MIN_PERIOD_NS;
	th = qcn_mul_div_u64(p->time_reset_ns, p->threshold, t);
	if (th < p->threshold)
		th = p->threshold;
	return th > QCN_U32_MAX ? QCN_U32_MAX : (u32)th;
}

/* Length of the next timer cycle for the current timer stage count. */
static inline u64 qcn_rp__timer_cycle(const struct qcn_rp *rp,
				      const struct qcn_rp_params *p, u32 rnd)
{
	u64 len;

	if (p->mode == QCN_RP_MODE_QCNT) {
		len = p->qcnt_period_ns;
	} else {
		len = p->time_reset_ns;
		if (rp->timer_stage > p->threshold)
			len >>= 1;
	}
	if (p->jitter)
		len = qcn_jitter_u64(len, rnd);
	return len < QCN_RP_MIN_PERIOD_NS ? QCN_RP_MIN_PERIOD_NS : len;
}

/*
 * Length of the next byte-counter cycle for the current byte stage count;
 * QCN-AIMD's is BC in every cycle (eq. 28's period of 150 KB).
 */
static inline s64 qcn_rp__bc_cycle(const struct qcn_rp *rp,
				   const struct qcn_rp_params *p, u32 rnd)
{
	u64 len = p->byte_reset;

	if (rp->bc_stage > p->threshold && p->mode != QCN_RP_MODE_AIMD)
		len >>= 1;
	if (p->jitter)
		len = qcn_jitter_u64(len, rnd);
	return len ? (s64)len : 1;
}

/* Inactive limiter at max rate. */
static inline void qcn_rp_init(struct qcn_rp *rp, const struct qcn_rp_params *p)
{
	rp->cr = p->max_rate;
	rp->tr = p->max_rate;
	rp->bc_left = p->byte_reset;
	rp->timer_expiry_ns = 0;
	rp->bc_stage = 0;
	rp->timer_stage = 0;
	rp->active = false;
	rp->ap_pkts = 0;
	rp->ap_done = true;
}

/*
 * A limiter that starts at a given rate: the initial condition of the
 * convergence paper's stage three (Shu et al., sections IV-V, Figs. 5-6:
 * the model and the NetFPGA runs start two RPs at (900, 100) or
 * (700, 300) Mb/s with C = 1 Gb/s).  qcn_rp_start_rate() is the rate
 * such a limiter starts at: rate raised to min_rate, or 0 when that is
 * not below max_rate (a flow at the line rate has no limiter).
 */
static inline u64 qcn_rp_start_rate(const struct qcn_rp_params *p, u64 rate)
{
	rate = qcn_max_u64(rate, p->min_rate);
	return rate < p->max_rate ? rate : 0;
}

/*
 * Start rp limited at rate (qcn_rp_start_rate()) at time now, as just
 * after a CNM that cut it to that rate: active, CR = TR = rate, both
 * stage counts 0, the byte counter loaded with a full cycle (rnd jitters
 * it) and the timer restarted (qcn_rnd_mix(rnd)), exactly what
 * qcn_rp_cnm() with qFb 0 does to an inactive limiter, with CR and TR set
 * after it.  The counters' next cycles then run the normal rules: in the
 * qcn and qcn-t modes fast recovery towards TR = CR (no change) for
 * threshold cycles, then active increase; in QCN-AIMD + R_AI per byte
 * cycle; in the N-AIMD modes (no counters) CR = TR = rate with no
 * averaging step pending, as qcn_naimd_start().  false, rp unchanged,
 * when the rate is not below max_rate.
 */
static inline bool qcn_rp_start(struct qcn_rp *rp, const struct qcn_rp_params *p,
				u64 rate, u64 now_ns, u32 rnd)
{
	rate = qcn_rp_start_rate(p, rate);
	if (!rate)
		return false;
	rp->active = true;
	rp->bc_stage = 0;
	rp->timer_stage = 0;
	rp->ap_pkts = 0;
	rp->ap_done = true;
	rp->bc_left = qcn_rp__bc_cycle(rp, p, rnd);
	rp->timer_expiry_ns = now_ns + qcn_rp__timer_cycle(rp, p, qcn_rnd_mix(rnd));
	rp->cr = rate;
	rp->tr = rate;
	return true;
}

/*
 * eq. (3) with the min decrease factor and min rate:
 * max(MinRate, CR * max(1 - MinDecFac, 1 - Gd*qFb)), capped at max rate.
 */
static inline u64 qcn_rp_decreased_rate(u64 cr, const struct qcn_rp_params *p, u8 qfb)
{
	u32 gd = p->gd_shift > 63 ? 63 : p->gd_shift;
	u32 pct = p->min_dec_pct > 100 ? 100 : p->min_dec_pct;
	u64 dec, rate, floor_rate;

	if (qfb > 63)
		qfb = 63;
	/* CR * Gd * qFb: exact while CR * 63 fits (CR < 2^57 bit/s) */
	if (cr < (1ULL << 57))
		dec = (cr * qfb) >> gd;
	else
		dec = (cr >> gd) * qfb;
	rate = dec >= cr ? 0 : cr - dec;
	floor_rate = qcn_mul_div_u64(cr, 100 - pct, 100);	/* CR * (1 - MinDecFac) */
	rate = qcn_max_u64(rate, floor_rate);
	rate = qcn_max_u64(rate, p->min_rate);
	return qcn_min_u64(rate, p->max_rate);
}

/*
 * CNM with quantized feedback qfb (0..63, larger values are clamped) at
 * time now: eqs. (2), (3).  Creates (activates) the limiter at max rate if
 * it was inactive.  rnd jitters the byte counter reload; qcn_rnd_mix(rnd)
 * jitters the timer.  QCN-AIMD: eq. (3) with TR <- CR after it, and the
 * byte counter reloads on every CNM (see the rules at the top).
 */
static inline void qcn_rp_cnm(struct qcn_rp *rp, const struct qcn_rp_params *p,
			      u8 qfb, u64 now_ns, u32 rnd)
{
	bool stage_nonzero, reload;

	if (!rp->active) {
		rp->cr = p->max_rate;
		rp->tr = p->max_rate;
		rp->bc_stage = 0;
		rp->timer_stage = 0;
		rp->active = true;
	}
	stage_nonzero = p->mode == QCN_RP_MODE_QCNT ? rp->timer_stage != 0 :
						       rp->bc_stage != 0;
	reload = rp->cr >= p->max_rate || stage_nonzero ||
		 p->mode == QCN_RP_MODE_AIMD;
	if (reload)
		rp->tr = rp->cr;				/* eq. (2) */
	rp->cr = qcn_rp_decreased_rate(rp->cr, p, qfb);		/* eq. (3) */
	if (p->mode == QCN_RP_MODE_AIMD)
		rp->tr = rp->cr;		/* no target rate */
	rp->bc_stage = 0;
	rp->timer_stage = 0;
	if (reload)		/* a full cycle: the stage count is 0 now */
		rp->bc_left = qcn_rp__bc_cycle(rp, p, rnd);
	rp->timer_expiry_ns = now_ns + qcn_rp__timer_cycle(rp, p, qcn_rnd_mix(rnd));
}

/*
 * One counter expiry (eqs. 4-8): 'stage' is the expiring counter's stage
 * count after its increment.  See the rules at the top of this file.
 */
static inline enum qcn_rp_event qcn_rp__expire(struct qcn_rp *rp,
					       const struct qcn_rp_params *p, u32 stage)
{
	u32 lo, hi, hai_th;

	if (p->mode == QCN_RP_MODE_QCNT) {
		lo = rp->timer_stage;
		hi = rp->timer_stage;
		hai_th = qcn_rp_hai_threshold(p);
	} else {
		lo = rp->bc_stage < rp->timer_stage ? rp->bc_stage : rp->timer_stage;
		hi = rp->bc_stage > rp->timer_stage ? rp->bc_stage : rp->timer_stage;
		hai_th = p->threshold;
	}

	if (stage == 1 && rp->cr <= QCN_U64_MAX / 10 && rp->tr > rp->cr * 10)
		rp->tr >>= 3;			/* target rate reduction */
	else if (lo > hai_th)			/* HAI, eq. (7) */
		rp->tr = qcn_sat_add_u64(rp->tr,
					 qcn_sat_mul_u64(p->hai_rate, lo - hai_th));
	else if (hi > p->threshold)		/* AI, eq. (5) */
		rp->tr = qcn_sat_add_u64(rp->tr, p->ai_rate);
	/* else fast recovery, eq. (4): TR unchanged */

	/* eqs. (4), (6), (8): floor((CR + TR) / 2) without overflow */
	rp->cr = (rp->cr >> 1) + (rp->tr >> 1) + (rp->cr & rp->tr & 1);
	/*
	 * Release at line rate.  With TR at (or above) the line rate, the
	 * floor would leave CR 1 bit/s short forever when R_AI is 0; the
	 * real-valued recursion converges to the line rate, so release then.
	 */
	if (rp->cr >= p->max_rate ||
	    (rp->tr >= p->max_rate && p->max_rate - rp->cr <= 1)) {
		rp->cr = p->max_rate;
		rp->active = false;
		return QCN_RP_EV_RELEASE;
	}
	return QCN_RP_EV_INCREASE;
}

/*
 * QCN-AIMD: one byte-counter expiry, eq. (27): CR <- CR + R_AI (saturating,
 * at most max rate), no averaging with a target rate; TR follows CR.  The
 * limiter is released when CR reaches max rate.
 */
static inline enum qcn_rp_event qcn_rp__aimd_expire(struct qcn_rp *rp,
						    const struct qcn_rp_params *p)
{
	rp->cr = qcn_min_u64(qcn_sat_add_u64(rp->cr, p->ai_rate), p->max_rate);
	rp->tr = rp->cr;
	if (rp->cr >= p->max_rate) {
		rp->active = false;
		return QCN_RP_EV_RELEASE;
	}
	return QCN_RP_EV_INCREASE;
}

/* ------------------------------------------- N-AIMD, AP-N-AIMD (qcn_ap.h) */

static inline void qcn_rp__naimd(const struct qcn_rp *rp, const struct qcn_rp_params *p,
				 struct qcn_naimd *s, struct qcn_naimd_params *np)
{
	np->max_rate = p->max_rate;
	np->min_rate = p->min_rate;
	np->gi = p->naimd_gi;
	np->ru = p->naimd_ru;
	np->gd = p->naimd_gd;
	np->fb_unit = p->fb_unit;
	np->ap_pkts = p->mode == QCN_RP_MODE_AP_NAIMD ? p->ap_pkts : 0;
	s->cr = rp->cr;
	s->tr = rp->tr;
	s->pkts = rp->ap_pkts;
	s->averaged = rp->ap_done;
}

/* Write s back; release at max rate with no averaging step pending. */
static inline enum qcn_rp_event qcn_rp__naimd_put(struct qcn_rp *rp,
						  const struct qcn_naimd_params *np,
						  const struct qcn_naimd *s)
{
	rp->cr = s->cr;
	rp->tr = s->tr;
	rp->ap_pkts = s->pkts;
	rp->ap_done = s->averaged || !np->ap_pkts;
	if (rp->cr >= np->max_rate && rp->ap_done) {
		rp->cr = np->max_rate;
		rp->active = false;
		return QCN_RP_EV_RELEASE;
	}
	return QCN_RP_EV_INCREASE;
}

/*
 * A signed feedback Fb (bytes, eq. 1; from a CNM: qcn_cnm_fb()) in the
 * N-AIMD modes: TR <- CR, CR <- eq. (14)(CR), the AP count restarts
 * (qcn_naimd_feedback()).  A limiter that was inactive starts at max rate;
 * Fb >= 0 does not activate one (QCN_RP_EV_NONE).  Returns
 * QCN_RP_EV_RELEASE when the limiter is released (CR at max rate, nothing
 * pending), QCN_RP_EV_INCREASE otherwise (the rate changed or may have).
 */
static inline enum qcn_rp_event qcn_rp_feedback(struct qcn_rp *rp,
						const struct qcn_rp_params *p, s64 fb)
{
	struct qcn_naimd_params np;
	struct qcn_naimd s;

	if (!rp->active) {
		if (fb >= 0)
			return QCN_RP_EV_NONE;
		rp->cr = p->max_rate;
		rp->tr = p->max_rate;
		rp->bc_stage = 0;
		rp->timer_stage = 0;
		rp->active = true;
	}
	qcn_rp__naimd(rp, p, &s, &np);
	qcn_naimd_feedback(&s, &np, fb);
	return qcn_rp__naimd_put(rp, &np, &s);
}

/* AP-N-AIMD: one packet sent; QCN_RP_EV_INCREASE when it averaged. */
static inline enum qcn_rp_event qcn_rp__naimd_tx(struct qcn_rp *rp,
						 const struct qcn_rp_params *p)
{
	struct qcn_naimd_params np;
	struct qcn_naimd s;

	if (p->mode != QCN_RP_MODE_AP_NAIMD || rp->ap_done)
		return QCN_RP_EV_NONE;
	qcn_rp__naimd(rp, p, &s, &np);
	if (!qcn_naimd_tx(&s, &np)) {
		rp->ap_pkts = s.pkts;
		return QCN_RP_EV_NONE;
	}
	return qcn_rp__naimd_put(rp, &np, &s);
}

/*
 * bytes really transmitted; returns an event when the byte counter expired
 * (at most one expiry per call: if the overshoot covers further cycles,
 * call again with bytes = 0 until QCN_RP_EV_NONE).  No-op in QCN-T and on
 * an inactive limiter.  AP-N-AIMD: a call with bytes > 0 is one packet
 * (qcn_naimd_tx()), QCN_RP_EV_INCREASE or _RELEASE when it averaged.
 * QCN-AIMD: an expiry is eq. (27)'s increase (qcn_rp__aimd_expire()).
 */
static inline enum qcn_rp_event qcn_rp_tx(struct qcn_rp *rp, const struct qcn_rp_params *p,
					  u32 bytes, u32 rnd)
{
	if (!rp->active || p->mode == QCN_RP_MODE_QCNT)
		return QCN_RP_EV_NONE;
	if (qcn_rp_signed(p))
		return bytes ? qcn_rp__naimd_tx(rp, p) : QCN_RP_EV_NONE;
	rp->bc_left -= bytes;
	if (rp->bc_left > 0)
		return QCN_RP_EV_NONE;
	if (rp->bc_stage < QCN_U32_MAX)
		rp->bc_stage++;
	rp->bc_left += qcn_rp__bc_cycle(rp, p, rnd);
	if (p->mode == QCN_RP_MODE_AIMD)
		return qcn_rp__aimd_expire(rp, p);
	return qcn_rp__expire(rp, p, rp->bc_stage);
}

/*
 * Timer: processes one expiry if now >= rp->timer_expiry_ns and returns its
 * event (call in a loop to catch up); QCN_RP_EV_NONE otherwise.  The next
 * expiry is scheduled from the previous expiry time, not from now.  Never
 * expires without a timer (QCN-AIMD, N-AIMD: qcn_rp_has_timer()).
 */
static inline enum qcn_rp_event qcn_rp_timer(struct qcn_rp *rp, const struct qcn_rp_params *p,
					     u64 now_ns, u32 rnd)
{
	if (!rp->active || !qcn_rp_has_timer(p) || now_ns < rp->timer_expiry_ns)
		return QCN_RP_EV_NONE;
	if (rp->timer_stage < QCN_U32_MAX)
		rp->timer_stage++;
	rp->timer_expiry_ns += qcn_rp__timer_cycle(rp, p, rnd);
	return qcn_rp__expire(rp, p, rp->timer_stage);
}

static inline enum qcn_rp_state qcn_rp_state(const struct qcn_rp *rp,
					     const struct qcn_rp_params *p)
{
	u32 lo, hi;

	if (!rp->active)
		return QCN_RP_RELEASED;
	if (p->mode == QCN_RP_MODE_AIMD)
		return QCN_RP_AI;
	if (p->mode == QCN_RP_MODE_QCNT) {
		lo = rp->timer_stage;
		hi = rp->timer_stage;
	} else {
		lo = rp->bc_stage < rp->timer_stage ? rp->bc_stage : rp->timer_stage;
		hi = rp->bc_stage > rp->timer_stage ? rp->bc_stage : rp->timer_stage;
	}
	if (hi <= p->threshold)
		return QCN_RP_FR;
	if (lo > qcn_rp_hai_threshold(p))
		return QCN_RP_HAI;
	return QCN_RP_AI;
}

/*
 * Time in ns to send len bytes at the current rate (pacing):
 * ceil(len * 8 * 1e9 / CR) would overshoot by up to 1 ns; we return the
 * floor.  CR == 0 returns 0.
 */
static inline u64 qcn_rp_tx_time_ns(const struct qcn_rp *rp, u32 len)
{
	if (rp->cr == 0)
		return 0;
	if (len < (1U << 30))		/* len * 8e9 < 2^64 */
		return qcn_div_u64((u64)len * 8ULL * QCN_NSEC_PER_SEC, rp->cr);
	return qcn_mul_div_u64((u64)len * 8ULL, QCN_NSEC_PER_SEC, rp->cr);
}

#endif /* _QCN_RP_H */
