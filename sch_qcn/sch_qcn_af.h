/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF-QCN for sch_qcn: the approximate-fairness controller of Kabbani et
 * al. ("AF-QCN", eqs. 4-8, Remarks 3-4) as tc classes with weights and max
 * rates.  The algorithm is include/qcn/qcn_af.h (qcn_af_*); this is the
 * glue (sch_qcn_af_*): classes, filters, the per-flow fallback table and
 * the Ts timer.
 *
 * This header is the whole interface between sch_qcn_main.c and
 * sch_qcn_af.c, and it is one-way: the qdisc calls these functions on the
 * struct sch_qcn_af it created, sch_qcn_af.c calls nothing in the qdisc.
 * The qdisc also owns the Qdisc_class_ops and forwards each op here.
 *
 * The qdisc calls, in this order of a packet's life:
 *	sch_qcn_af_enqueue()	classify + account (one counter increment)
 *	sch_qcn_af_feedback()	at a sampling instant: eq. (4) for the culprit
 *	sch_qcn_af_cnm_sent()	when the CNM went out
 * and sch_qcn_af_apply()/sch_qcn_af_dump() for TCA_QCN_AF_* (ranges:
 * qcn_policy).
 */
#ifndef _SCH_QCN_AF_H
#define _SCH_QCN_AF_H

#include <linux/types.h>
#include <net/sch_generic.h>
#include <uapi/linux/qcn.h>

struct sch_qcn_af;
struct qcn_cp_sample;
struct qcn_cp_params;

/* The AF state of qdisc sch, which stays its owner for the state's life. */
struct sch_qcn_af *sch_qcn_af_create(struct Qdisc *sch,
				     struct netlink_ext_ack *extack);
void sch_qcn_af_destroy(struct sch_qcn_af *af);
void sch_qcn_af_reset(struct sch_qcn_af *af);

/*
 * AF-QCN update period Ts.  The update (qcn_af_update()) runs under the
 * root lock over every class and tracked flow, up to 4096 + 1024 entries,
 * in one or more water-filling passes, up to ~100 us at the maximum entry
 * count: Ts >= 1 ms (the paper's Ts) keeps it below ~10 % of one CPU.
 */
#define SCH_QCN_AF_MIN_TS_US	TC_QCN_MIN_AF_TS
#define SCH_QCN_AF_MAX_TS_US	TC_QCN_MAX_AF_TS

/*
 * TCA_QCN_AF_*, after qcn_policy accepted them: sch_qcn_af_prepare()
 * allocates what they need (under RTNL, may fail), then
 * sch_qcn_af_apply() sets them under sch_tree_lock.
 */
int sch_qcn_af_prepare(struct sch_qcn_af *af, struct nlattr **tb,
		       struct netlink_ext_ack *extack);
void sch_qcn_af_apply(struct sch_qcn_af *af, struct nlattr **tb);
int sch_qcn_af_dump(const struct sch_qcn_af *af, struct sk_buff *skb);
bool sch_qcn_af_enabled(const struct sch_qcn_af *af);
u32 sch_qcn_af_tracked(const struct sch_qcn_af *af);

/*
 * Classify skb (skb->priority naming a class, then the tc filters, else
 * its flow bucket) and account its length.  Returns 0 and the AF handle of
 * the skb (to pass to sch_qcn_af_feedback() later), or a NET_XMIT_* verdict
 * of a filter action: the caller drops (__NET_XMIT_BYPASS set) or consumes
 * the skb.
 */
int sch_qcn_af_enqueue(struct sch_qcn_af *af, struct sk_buff *skb,
		       u32 *handle);

/* eq. (4): Fb = (1 - alpha) qFb_QCN + alpha Fb_AF for the culprit's class. */
u8 sch_qcn_af_feedback(struct sch_qcn_af *af, u32 handle,
		       const struct qcn_cp_sample *s,
		       const struct qcn_cp_params *cpp);
void sch_qcn_af_cnm_sent(struct sch_qcn_af *af, u32 handle);

/*
 * The classes, for the qdisc's Qdisc_class_ops: each function is the op
 * its name ends in, with the AF state (where it needs it) in place of the
 * Qdisc; arg is a class as the ops pass it (0: none).
 */
unsigned long sch_qcn_af_class_find(struct sch_qcn_af *af, u32 classid);
int sch_qcn_af_class_change(struct sch_qcn_af *af, u32 classid, u32 parentid,
			    struct nlattr **tca, unsigned long *arg,
			    struct netlink_ext_ack *extack);
int sch_qcn_af_class_delete(struct sch_qcn_af *af, unsigned long arg,
			    struct netlink_ext_ack *extack);
void sch_qcn_af_class_walk(struct sch_qcn_af *af, struct qdisc_walker *arg);
struct tcf_block *sch_qcn_af_tcf_block(struct sch_qcn_af *af, unsigned long cl,
				       struct netlink_ext_ack *extack);
unsigned long sch_qcn_af_bind_tcf(struct sch_qcn_af *af, u32 classid);
void sch_qcn_af_unbind_tcf(unsigned long arg);
int sch_qcn_af_class_dump(unsigned long arg, struct sk_buff *skb,
			  struct tcmsg *tcm);
int sch_qcn_af_class_dump_stats(struct sch_qcn_af *af, unsigned long arg,
				struct gnet_dump *d);

#endif /* _SCH_QCN_AF_H */
