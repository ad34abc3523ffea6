/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * QCN reaction point (RP) core: the rate-limiter state machine of the QCN
 * pseudo-code (eqs. 2-8 of Alizadeh et al.; rules in shared/qcn-facts.md)
 * and QCN-T (Zhang et al., convergence paper, section VI).
 * Rates in bit/s as u64 (1 Mb/s .. 400 Gb/s without overflow), times in ns.
 *
 * API CONTRACT (bodies are filled in by the cores work, issue #3):
 */
#ifndef _QCN_RP_H
#define _QCN_RP_H

#include "qcn_types.h"

enum qcn_rp_mode { QCN_RP_MODE_QCN = 0, QCN_RP_MODE_QCNT = 1 };
/* same values as enum tc_qcn_rp_state */
enum qcn_rp_state { QCN_RP_FR = 0, QCN_RP_AI = 1, QCN_RP_HAI = 2, QCN_RP_RELEASED = 3 };

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
};

struct qcn_rp {
	u64 cr;			/* current rate, bit/s */
	u64 tr;			/* target rate, bit/s */
	s64 bc_left;		/* bytes left in this byte-counter cycle */
	u64 timer_expiry_ns;	/* absolute time of the next timer expiry */
	u32 bc_stage;
	u32 timer_stage;
	bool active;		/* false: released / never limited */
};

/* Event returned by the tx/timer entry points. */
enum qcn_rp_event { QCN_RP_EV_NONE = 0, QCN_RP_EV_INCREASE, QCN_RP_EV_RELEASE };

static inline void qcn_rp_params_default(struct qcn_rp_params *p, u64 line_rate_bps);

/* Inactive limiter at max rate. */
static inline void qcn_rp_init(struct qcn_rp *rp, const struct qcn_rp_params *p);

/* CNM with quantized feedback qfb (1..63) at time now: eqs. (2), (3). */
static inline void qcn_rp_cnm(struct qcn_rp *rp, const struct qcn_rp_params *p,
			      u8 qfb, u64 now_ns, u32 rnd);

/* bytes really transmitted; returns an event when the byte counter expired. */
static inline enum qcn_rp_event qcn_rp_tx(struct qcn_rp *rp, const struct qcn_rp_params *p,
					  u32 bytes, u32 rnd);

/*
 * Timer: processes one expiry if now >= rp->timer_expiry_ns and returns its
 * event (call in a loop to catch up); QCN_RP_EV_NONE otherwise.
 */
static inline enum qcn_rp_event qcn_rp_timer(struct qcn_rp *rp, const struct qcn_rp_params *p,
					     u64 now_ns, u32 rnd);

static inline enum qcn_rp_state qcn_rp_state(const struct qcn_rp *rp,
					     const struct qcn_rp_params *p);

/* Time in ns to send len bytes at the current rate (pacing). */
static inline u64 qcn_rp_tx_time_ns(const struct qcn_rp *rp, u32 len);

#endif /* _QCN_RP_H */
