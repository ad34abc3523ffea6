/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF-QCN for sch_qcn: the approximate-fairness controller of Kabbani et
 * al. ("AF-QCN", eqs. 4-8, Remarks 3-4) as tc classes with weights and max
 * rates.  The algorithm is include/qcn/qcn_af.h; this is the glue: classes,
 * filters, the per-flow fallback table and the Ts timer.
 *
 * The qdisc calls, in this order of a packet's life:
 *	qcn_af_enqueue()	classify + account (one counter increment)
 *	qcn_af_feedback()	at a sampling instant: eq. (4) for the culprit
 *	qcn_af_cnm_sent()	when the CNM went out
 * and qcn_af_apply()/qcn_af_dump() for TCA_QCN_AF_* (ranges: qcn_policy).
 */
#ifndef _SCH_QCN_AF_H
#define _SCH_QCN_AF_H

#include <linux/types.h>
#include <net/sch_generic.h>
#include <uapi/linux/qcn.h>

struct qcn_af;
struct qcn_cp_sample;
struct qcn_cp_params;

/* sch_qcn_main.c provides the AF state of a qcn qdisc. */
struct qcn_af *qcn_sched_af(struct Qdisc *sch);

struct qcn_af *qcn_af_create(struct Qdisc *sch, struct netlink_ext_ack *extack);
void qcn_af_destroy(struct qcn_af *af);
void qcn_af_reset(struct qcn_af *af);

/*
 * AF-QCN update period Ts.  The update (qcn_af_update()) runs under the
 * root lock over every class and tracked flow, up to 4096 + 1024 entries,
 * in one or more water-filling passes, up to ~100 us at the maximum entry
 * count: Ts >= 1 ms (the paper's Ts) keeps it below ~10 % of one CPU.
 */
#define QCN_AF_MIN_TS_US	TC_QCN_MIN_AF_TS
#define QCN_AF_MAX_TS_US	TC_QCN_MAX_AF_TS

/* TCA_QCN_AF_*, after qcn_policy accepted them, under sch_tree_lock. */
void qcn_af_apply(struct qcn_af *af, struct nlattr **tb);
int qcn_af_dump(const struct qcn_af *af, struct sk_buff *skb);
bool qcn_af_enabled(const struct qcn_af *af);
u32 qcn_af_tracked(const struct qcn_af *af);

/*
 * Classify skb (skb->priority naming a class, then the tc filters, else
 * its flow bucket) and account its length.  Returns 0 and the AF handle of
 * the skb (to pass to qcn_af_feedback() later), or a NET_XMIT_* verdict of
 * a filter action: the caller drops (__NET_XMIT_BYPASS set) or consumes
 * the skb.
 */
int qcn_af_enqueue(struct qcn_af *af, struct sk_buff *skb, u32 *handle);

/* eq. (4): Fb = (1 - alpha) qFb_QCN + alpha Fb_AF for the culprit's class. */
u8 qcn_af_feedback(struct qcn_af *af, u32 handle,
		   const struct qcn_cp_sample *s, const struct qcn_cp_params *cpp);
void qcn_af_cnm_sent(struct qcn_af *af, u32 handle);

extern const struct Qdisc_class_ops qcn_af_class_ops;

#endif /* _SCH_QCN_AF_H */
