/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * AF-QCN approximate-fairness controller (Kabbani et al., "AF-QCN:
 * Approximate Fairness with Quantized Congestion Notification for
 * Multi-tenanted Data Centers"), eqs. (4)-(8), Remarks 3 and 4.
 * Fixed point: alpha and beta in 1/65536 units, M_i in bytes per Ts
 * scaled by 2^8.
 *
 * API CONTRACT (bodies are filled in by the cores work, issue #3):
 */
#ifndef _QCN_AF_H
#define _QCN_AF_H

#include "qcn_types.h"

#define QCN_AF_ONE		65536	/* 1.0 in alpha/beta units */
#define QCN_AF_DEF_ALPHA	8192	/* 0.125 */
#define QCN_AF_DEF_BETA		8192	/* 0.125 */
#define QCN_AF_DEF_TS_NS	1000000	/* 1 ms */
#define QCN_AF_DEF_ACTIVE	20000	/* bytes per Ts (20 KB) */

struct qcn_af_params {
	u32 alpha;		/* (0, 1) in 1/65536 */
	u32 beta;		/* (0, 1) in 1/65536 */
	u64 ts_ns;		/* Ts */
	u32 active_thresh;	/* bytes per Ts */
};

/* One class or tracked flow.  Glue owns the storage. */
struct qcn_af_class {
	u32 weight;		/* W_i >= 1 */
	u64 max_bytes_ts;	/* Max_i as bytes per Ts, 0 = uncapped */
	u64 arrived;		/* bytes since the last update (per packet) */
	u64 m;			/* M_i, bytes per Ts << 8 (eq. 5) */
	u64 fair;		/* Mfair_i, bytes per Ts << 8 (eqs. 6/8, Remark 4) */
	u8 fb_af;		/* last Fb_AF (eq. 7) */
	bool active;		/* M_i > active_thresh (Remark 3) */
};

static inline void qcn_af_params_default(struct qcn_af_params *p);

/* Per packet: the only packet-path work. */
static inline void qcn_af_account(struct qcn_af_class *c, u32 len)
{
	c->arrived += len;
}

/*
 * Every Ts: eq. (5) EWMA for every class, active set (Remark 3), weighted
 * max-min fair shares over active classes with caps (eq. 8, Remark 4,
 * water-filling).  cls is an array of n pointers; no allocation.
 */
static inline void qcn_af_update(struct qcn_af_class *const *cls, u32 n,
				 const struct qcn_af_params *p);

/* eq. (7): Fb_AF = floor(64 * D_i), D_i = (1 - Mfair_i / M_i)+; 0 if inactive. */
static inline u8 qcn_af_fb(const struct qcn_af_class *c);

/* eq. (4): Fb = (1 - alpha) Fb_QCN + alpha Fb_AF, on 6-bit values, 0..63. */
static inline u8 qcn_af_combine(u8 qfb_qcn, u8 fb_af, u32 alpha);

/* Convert bytes/s <-> bytes per Ts (for caps and reporting). */
static inline u64 qcn_af_rate_to_ts(u64 bytes_per_sec, u64 ts_ns);
static inline u64 qcn_af_ts_to_rate(u64 bytes_per_ts_shifted, u64 ts_ns);

#endif /* _QCN_AF_H */
