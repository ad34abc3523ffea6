// SPDX-License-Identifier: GPL-2.0
/*
 * sch_qcn_af.c	AF-QCN (approximately fair QCN) for the qcn qdisc.
 *
 * Kabbani, Alizadeh, Yasuda, Pan, Prabhakar, "AF-QCN: Approximate Fairness
 * with Quantized Congestion Notification for Multi-tenanted Data Centers".
 * The algorithm (eqs. 4-8, Remarks 3-4) is include/qcn/qcn_af.h; this file
 * is the Linux glue:
 *
 *  - classes: `tc class add dev D parent 1: classid 1:10 qcn weight 4
 *    [maxrate 10mbit]`, flat under the qdisc, kept in a Qdisc_class_hash;
 *  - classification as htb does it: skb->priority naming a class of this
 *    qdisc, then the tc filters attached to the qdisc; traffic no class
 *    claims is tracked per flow in SCH_QCN_AF_BUCKETS hashed buckets of
 *    weight 1 (the paper's per-flow mode; flows sharing a bucket share a
 *    weight);
 *  - per packet: one counter increment (M_i-new of eq. 5);
 *  - every Ts a soft hrtimer takes the root qdisc lock (as the sch_pie and
 *    sch_dualpi2 timers do) and runs qcn_af_update() over the classes and
 *    the buckets that carried traffic recently: eq. (5) rate estimates,
 *    the active set (Remark 3), weighted max-min fair shares with the
 *    classes' max rates (eq. 8, Remark 4) and Fb_AF (eq. 7);
 *  - at a sampling instant the qdisc asks for eq. (4):
 *    Fb = (1 - alpha) Fb_QCN + alpha Fb_AF of the culprit's class.  As in
 *    the paper, the result is fed back if positive, so an active class above
 *    its fair share can be told to slow down before the queue crosses Qeq.
 *
 * Locking: everything here runs under the qdisc root lock (enqueue,
 * sampling, the timer) or under RTNL + sch_tree_lock (configuration).
 * A class is freed only after it left the hash under sch_tree_lock, and
 * the timer rebuilds its class vector under the lock every period, so no
 * pointer to a class outlives it.  The qdisc keeps only handles (classid,
 * or bucket + 1) in its skbs, resolved at sampling time.
 */
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/reciprocal_div.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/pkt_cls.h>
#include <qcn/qcn_af.h>
#include "sch_qcn_af.h"

#define SCH_QCN_AF_BUCKETS	1024	/* per-flow table (unclassified) */
#define SCH_QCN_AF_MAX_CLASSES	4096	/* tc classes per qdisc */
#define SCH_QCN_AF_MAX_WEIGHT	TC_QCN_CLASS_MAX_WEIGHT

struct sch_qcn_af_class {
	struct Qdisc_class_common common;
	struct qcn_af_class core;	/* weight, Max_i, M_i, Mfair_i, Fb_AF */
	u64 maxrate;			/* bytes/s as configured, 0 = none */
	struct gnet_stats_basic_sync bstats;	/* bytes/packets classified */
	u64 cnm_sent;
	unsigned int filters;		/* filters bound to this class */
};

struct sch_qcn_af {
	struct Qdisc *sch;
	struct tcf_proto __rcu *filter_list;
	struct tcf_block *block;
	struct Qdisc_class_hash clhash;
	u32 nclasses;

	struct qcn_af_params p;
	u32 ts_us;			/* Ts as configured */
	u8 enabled;
	u8 fb;				/* enum tc_qcn_af_fb */

	struct hrtimer timer;
	/*
	 * The Ts update and reset, which 6.1's __qdisc_destroy() calls
	 * without the root lock (after a graft the timer takes the new
	 * root's lock).  Taken inside the root lock.
	 */
	spinlock_t lock;
	/*
	 * From sch_qcn_af_prepare(), NULL until AF is first switched on.
	 * buckets[] that carried traffic in the last update or since:
	 */
	struct qcn_af_class *buckets;
	unsigned long *live;		/* bitmap of such buckets */
	u32 nlive;
	struct qcn_af_class **vec;	/* classes + live buckets, for update */
};

/* ------------------------------------------------------------ helpers */

bool sch_qcn_af_enabled(const struct sch_qcn_af *af)
{
	return af && READ_ONCE(af->enabled);
}

u32 sch_qcn_af_tracked(const struct sch_qcn_af *af)
{
	return af ? READ_ONCE(af->nclasses) + READ_ONCE(af->nlive) : 0;
}

static struct sch_qcn_af_class *
__sch_qcn_af_class_find(const struct sch_qcn_af *af, u32 classid)
{
	struct Qdisc_class_common *c;

	c = qdisc_class_find(&af->clhash, classid);
	return c ? container_of(c, struct sch_qcn_af_class, common) : NULL;
}

/* handle: a classid of this qdisc (major != 0), or bucket + 1 (major 0) */
static struct qcn_af_class *sch_qcn_af_lookup(struct sch_qcn_af *af,
					      u32 handle,
					      struct sch_qcn_af_class **clp)
{
	struct sch_qcn_af_class *cl;

	*clp = NULL;
	if (!handle)
		return NULL;
	if (!TC_H_MAJ(handle)) {
		if (handle > SCH_QCN_AF_BUCKETS)
			return NULL;
		return &af->buckets[handle - 1];
	}
	cl = __sch_qcn_af_class_find(af, handle);
	*clp = cl;
	return cl ? &cl->core : NULL;
}

static void sch_qcn_af_set_cap(struct sch_qcn_af *af,
			       struct sch_qcn_af_class *cl)
{
	cl->core.max_bytes_ts = cl->maxrate ?
		max_t(u64, 1, qcn_af_rate_to_ts(cl->maxrate, af->p.ts_ns)) : 0;
}

/* --------------------------------------------------------- packet path */

/*
 * htb_classify()'s order: skb->priority naming one of our classes, then
 * the filters.  Returns the class, NULL for "no class" (use the flow
 * bucket) or an ERR_PTR when a filter action consumed or dropped the skb
 * (*verdict set).
 */
static struct sch_qcn_af_class *sch_qcn_af_classify(struct sch_qcn_af *af,
						    struct sk_buff *skb,
						    int *verdict)
{
	struct tcf_result res;
	struct tcf_proto *fl;
	struct sch_qcn_af_class *cl;
	int result;

	if (TC_H_MAJ(skb->priority) == af->sch->handle) {
		cl = __sch_qcn_af_class_find(af, skb->priority);
		if (cl)
			return cl;
	}
	fl = rcu_dereference_bh(af->filter_list);
	if (!fl)
		return NULL;
	result = tcf_classify(skb, NULL, fl, &res, false);
	if (result < 0)
		return NULL;
#ifdef CONFIG_NET_CLS_ACT
	switch (result) {
	case TC_ACT_QUEUED:
	case TC_ACT_STOLEN:
	case TC_ACT_TRAP:
		*verdict = NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
		return ERR_PTR(-EINPROGRESS);
	case TC_ACT_SHOT:
		*verdict = NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
		return ERR_PTR(-EINPROGRESS);
	}
#endif
	cl = (struct sch_qcn_af_class *)res.class;
	if (!cl) {
		if (TC_H_MAJ(res.classid) != af->sch->handle &&
		    TC_H_MAJ(res.classid))
			return NULL;
		cl = __sch_qcn_af_class_find(af, res.classid);
	}
	return cl;
}

int sch_qcn_af_enqueue(struct sch_qcn_af *af, struct sk_buff *skb, u32 *handle)
{
	struct sch_qcn_af_class *cl;
	int verdict = 0;
	u32 b;

	*handle = 0;
	if (!af || !READ_ONCE(af->enabled))
		return 0;

	cl = sch_qcn_af_classify(af, skb, &verdict);
	if (IS_ERR(cl))
		return verdict;
	if (cl) {
		qcn_af_account(&cl->core, qdisc_pkt_len(skb));
		/* a GSO skb counts as the frames it is queued as */
		_bstats_update(&cl->bstats, qdisc_pkt_len(skb),
			       skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1);
		*handle = cl->common.classid;
		return 0;
	}
	b = reciprocal_scale(skb_get_hash(skb), SCH_QCN_AF_BUCKETS);
	qcn_af_account(&af->buckets[b], qdisc_pkt_len(skb));
	if (!__test_and_set_bit(b, af->live))
		WRITE_ONCE(af->nlive, af->nlive + 1);
	*handle = b + 1;
	return 0;
}

/* eq. (4) for the culprit's class; Fb_QCN clamped or signed (af-fb) */
u8 sch_qcn_af_feedback(struct sch_qcn_af *af, u32 handle,
		       const struct qcn_cp_sample *s,
		       const struct qcn_cp_params *cpp)
{
	u8 qfb = s->congested ? s->qfb : 0;
	struct qcn_af_class *c;
	struct sch_qcn_af_class *cl;

	if (!af || !READ_ONCE(af->enabled))
		return qfb;
	c = sch_qcn_af_lookup(af, handle, &cl);
	if (!c)
		return qfb;
	if (READ_ONCE(af->fb) == TC_QCN_AF_FB_SIGNED)
		return qcn_af_combine(qcn_af_fb_qcn(s, cpp), c->fb_af,
				      af->p.alpha);
	return qcn_af_combine(qfb, c->fb_af, af->p.alpha);
}

void sch_qcn_af_cnm_sent(struct sch_qcn_af *af, u32 handle)
{
	struct sch_qcn_af_class *cl;

	if (af && sch_qcn_af_lookup(af, handle, &cl) && cl)
		cl->cnm_sent++;
}

/* ------------------------------------------------------ the Ts update */

/*
 * Under the root lock: eqs. (5)-(8) over classes + recently used buckets,
 * for the `periods` Ts since the last run.
 */
static void sch_qcn_af_run(struct sch_qcn_af *af, u32 periods)
{
	struct qcn_af_class *c;
	struct sch_qcn_af_class *cl;
	u32 n = 0, b;

	for (b = 0; b < af->clhash.hashsize; b++)
		hlist_for_each_entry(cl, &af->clhash.hash[b], common.hnode)
			af->vec[n++] = &cl->core;
	for_each_set_bit(b, af->live, SCH_QCN_AF_BUCKETS)
		af->vec[n++] = &af->buckets[b];

	qcn_af_update_periods(af->vec, n, &af->p, periods);

	/* a bucket whose estimate decayed to nothing is forgotten */
	for_each_set_bit(b, af->live, SCH_QCN_AF_BUCKETS) {
		c = &af->buckets[b];
		if (!c->m && !c->arrived) {
			__clear_bit(b, af->live);
			c->fb_af = 0;
			c->active = false;
			WRITE_ONCE(af->nlive, af->nlive - 1);
		}
	}
}

static enum hrtimer_restart sch_qcn_af_timer(struct hrtimer *timer)
{
	struct sch_qcn_af *af = container_of(timer, struct sch_qcn_af, timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	spinlock_t *root_lock;		/* the qdisc tree's: AF state is under it */

	/* qdisc_root_sleeping() is an RCU dereference (as in sch_pie's timer) */
	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(af->sch));
	spin_lock(root_lock);
	/*
	 * af off then on while this callback waited for the lock: the
	 * configuration path already queued the timer again (hrtimer_start
	 * on a running timer), which then owns the next period.
	 */
	if (af->enabled && !hrtimer_is_queued(timer)) {
		/* a late timer: what arrived spans every period it missed */
		u64 periods = hrtimer_forward_now(timer,
						  ns_to_ktime(af->p.ts_ns));

		spin_lock(&af->lock);
		sch_qcn_af_run(af, min_t(u64, max_t(u64, periods, 1), U32_MAX));
		spin_unlock(&af->lock);
		ret = HRTIMER_RESTART;
	}
	spin_unlock(root_lock);
	rcu_read_unlock();
	return ret;
}

/* ------------------------------------------------ qdisc-level options */

/* Under sch_tree_lock; tb passed qcn_policy (every range is there). */
void sch_qcn_af_apply(struct sch_qcn_af *af, struct nlattr **tb)
{
	struct sch_qcn_af_class *cl;
	u32 b;

	if (tb[TCA_QCN_AF_ALPHA])
		WRITE_ONCE(af->p.alpha, nla_get_u32(tb[TCA_QCN_AF_ALPHA]));
	if (tb[TCA_QCN_AF_BETA])
		WRITE_ONCE(af->p.beta, nla_get_u32(tb[TCA_QCN_AF_BETA]));
	if (tb[TCA_QCN_AF_ACTIVE])
		WRITE_ONCE(af->p.active_thresh,
			   nla_get_u32(tb[TCA_QCN_AF_ACTIVE]));
	if (tb[TCA_QCN_AF_FB])
		WRITE_ONCE(af->fb, nla_get_u8(tb[TCA_QCN_AF_FB]));
	if (tb[TCA_QCN_AF_TS]) {
		WRITE_ONCE(af->ts_us, nla_get_u32(tb[TCA_QCN_AF_TS]));
		af->p.ts_ns = (u64)af->ts_us * NSEC_PER_USEC;
		for (b = 0; b < af->clhash.hashsize; b++)
			hlist_for_each_entry(cl, &af->clhash.hash[b],
					     common.hnode)
				sch_qcn_af_set_cap(af, cl);
	}
	if (tb[TCA_QCN_AF]) {
		u8 on = nla_get_u8(tb[TCA_QCN_AF]);

		if (on && !af->enabled)
			hrtimer_start(&af->timer, ns_to_ktime(af->p.ts_ns),
				      HRTIMER_MODE_REL_SOFT);
		/* off: the timer sees it and stops re-arming */
		WRITE_ONCE(af->enabled, on);
	}
}

int sch_qcn_af_dump(const struct sch_qcn_af *af, struct sk_buff *skb)
{
	if (nla_put_u8(skb, TCA_QCN_AF, READ_ONCE(af->enabled)) ||
	    nla_put_u32(skb, TCA_QCN_AF_ALPHA, READ_ONCE(af->p.alpha)) ||
	    nla_put_u32(skb, TCA_QCN_AF_TS, READ_ONCE(af->ts_us)) ||
	    nla_put_u32(skb, TCA_QCN_AF_BETA, READ_ONCE(af->p.beta)) ||
	    nla_put_u32(skb, TCA_QCN_AF_ACTIVE, READ_ONCE(af->p.active_thresh)) ||
	    nla_put_u8(skb, TCA_QCN_AF_FB, READ_ONCE(af->fb)))
		return -EMSGSIZE;
	return 0;
}

/* ------------------------------------------------------ life cycle */

struct sch_qcn_af *sch_qcn_af_create(struct Qdisc *sch,
				     struct netlink_ext_ack *extack)
{
	struct sch_qcn_af *af;
	int err;

	af = kzalloc(sizeof(*af), GFP_KERNEL);
	if (!af)
		goto nomem;
	af->sch = sch;
	spin_lock_init(&af->lock);
	qcn_af_params_default(&af->p);
	af->ts_us = div_u64(af->p.ts_ns, NSEC_PER_USEC);
	hrtimer_init(&af->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	af->timer.function = sch_qcn_af_timer;

	err = qdisc_class_hash_init(&af->clhash);
	if (err)
		goto free;
	err = tcf_block_get(&af->block, &af->filter_list, sch, extack);
	if (err) {
		qdisc_class_hash_destroy(&af->clhash);
		kfree(af);
		return NULL;
	}
	return af;

free:
	kfree(af);
nomem:
	NL_SET_ERR_MSG(extack, "qcn: no memory for the AF-QCN state");
	return NULL;
}

/*
 * The flow buckets and the update vector (~90 KB) are allocated the first
 * time AF is switched on and kept until the qdisc goes: an instance that
 * never runs AF (every TX queue's under mq, say) does not carry them.
 * Called under RTNL before sch_tree_lock, as it sleeps; until af->enabled
 * is set under that lock nothing on the packet path reads the tables.
 */
int sch_qcn_af_prepare(struct sch_qcn_af *af, struct nlattr **tb,
		       struct netlink_ext_ack *extack)
{
	int node = netdev_queue_numa_node_read(af->sch->dev_queue);
	struct qcn_af_class *buckets;
	struct qcn_af_class **vec;
	unsigned long *live;

	if (!tb[TCA_QCN_AF] || !nla_get_u8(tb[TCA_QCN_AF]) || af->buckets)
		return 0;
	buckets = kvzalloc_node(array_size(SCH_QCN_AF_BUCKETS,
					   sizeof(*buckets)), GFP_KERNEL, node);
	vec = kvzalloc_node(array_size(SCH_QCN_AF_MAX_CLASSES +
				       SCH_QCN_AF_BUCKETS, sizeof(*vec)),
			    GFP_KERNEL, node);
	live = bitmap_zalloc(SCH_QCN_AF_BUCKETS, GFP_KERNEL);
	if (!buckets || !vec || !live) {
		bitmap_free(live);
		kvfree(vec);
		kvfree(buckets);
		NL_SET_ERR_MSG(extack, "qcn: no memory for the AF-QCN state");
		return -ENOMEM;
	}
	spin_lock_bh(&af->lock);
	af->buckets = buckets;
	af->live = live;
	af->vec = vec;
	spin_unlock_bh(&af->lock);
	return 0;
}

void sch_qcn_af_reset(struct sch_qcn_af *af)
{
	struct sch_qcn_af_class *cl;
	u32 b;

	if (!af)
		return;
	spin_lock_bh(&af->lock);
	for (b = 0; b < af->clhash.hashsize; b++)
		hlist_for_each_entry(cl, &af->clhash.hash[b], common.hnode) {
			cl->core.arrived = 0;
			cl->core.m = 0;
			cl->core.fair = 0;
			cl->core.fb_af = 0;
			cl->core.active = false;
		}
	if (af->buckets) {
		memset(af->buckets, 0,
		       SCH_QCN_AF_BUCKETS * sizeof(*af->buckets));
		bitmap_zero(af->live, SCH_QCN_AF_BUCKETS);
	}
	WRITE_ONCE(af->nlive, 0);
	spin_unlock_bh(&af->lock);
}

void sch_qcn_af_destroy(struct sch_qcn_af *af)
{
	struct hlist_node *next;
	struct sch_qcn_af_class *cl;
	u32 b;

	if (!af)
		return;
	WRITE_ONCE(af->enabled, 0);
	hrtimer_cancel(&af->timer);
	tcf_block_put(af->block);
	for (b = 0; b < af->clhash.hashsize; b++)
		hlist_for_each_entry_safe(cl, next, &af->clhash.hash[b],
					  common.hnode)
			kfree(cl);
	qdisc_class_hash_destroy(&af->clhash);
	kvfree(af->vec);
	bitmap_free(af->live);
	kvfree(af->buckets);
	kfree(af);
}

/* ----------------------------------------------------------- classes */

static struct netlink_range_validation sch_qcn_af_weight_range = {
	.min = 1,
	.max = SCH_QCN_AF_MAX_WEIGHT,
};

static const struct nla_policy sch_qcn_af_class_policy[TCA_QCN_CLASS_MAX + 1] = {
	[TCA_QCN_CLASS_WEIGHT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sch_qcn_af_weight_range),
	[TCA_QCN_CLASS_MAXRATE]	= { .type = NLA_U64 },
};

int sch_qcn_af_class_change(struct sch_qcn_af *af, u32 classid, u32 parentid,
			    struct nlattr **tca, unsigned long *arg,
			    struct netlink_ext_ack *extack)
{
	struct sch_qcn_af_class *cl = (struct sch_qcn_af_class *)*arg;
	struct nlattr *tb[TCA_QCN_CLASS_MAX + 1] = { };
	struct nlattr *opt = tca[TCA_OPTIONS];
	struct Qdisc *sch = af->sch;
	int err;

	if (!cl && parentid && parentid != TC_H_ROOT && parentid != sch->handle) {
		NL_SET_ERR_MSG(extack, "qcn classes are flat: parent must be the qcn qdisc");
		return -EINVAL;
	}
	if (opt) {
		err = nla_parse_nested(tb, TCA_QCN_CLASS_MAX, opt,
				       sch_qcn_af_class_policy, extack);
		if (err < 0)
			return err;
	}
	if (tca[TCA_RATE]) {
		NL_SET_ERR_MSG(extack, "qcn classes have no rate estimator: the AF rate estimate is in the class statistics");
		return -EOPNOTSUPP;
	}
	/* taken, and said: the setting is kept for when af is switched on */
	if (!READ_ONCE(af->enabled) &&
	    (tb[TCA_QCN_CLASS_WEIGHT] || tb[TCA_QCN_CLASS_MAXRATE]))
		NL_SET_ERR_MSG(extack, "qcn: af is off: class weight and maxrate take effect with af on");

	if (cl) {
		sch_tree_lock(sch);
		if (tb[TCA_QCN_CLASS_WEIGHT])
			WRITE_ONCE(cl->core.weight,
				   nla_get_u32(tb[TCA_QCN_CLASS_WEIGHT]));
		if (tb[TCA_QCN_CLASS_MAXRATE]) {
			WRITE_ONCE(cl->maxrate,
				   nla_get_u64(tb[TCA_QCN_CLASS_MAXRATE]));
			sch_qcn_af_set_cap(af, cl);
		}
		sch_tree_unlock(sch);
		return 0;
	}

	if (!classid || TC_H_MAJ(classid) != sch->handle || !TC_H_MIN(classid)) {
		NL_SET_ERR_MSG(extack, "qcn class id must be <qdisc major>:<minor != 0>");
		return -EINVAL;
	}
	if (af->nclasses >= SCH_QCN_AF_MAX_CLASSES) {
		NL_SET_ERR_MSG(extack, "qcn: too many classes (at most 4096)");
		return -ENOSPC;
	}
	cl = kzalloc(sizeof(*cl), GFP_KERNEL);
	if (!cl) {
		NL_SET_ERR_MSG(extack, "qcn: no memory for the class");
		return -ENOBUFS;
	}
	cl->common.classid = classid;
	gnet_stats_basic_sync_init(&cl->bstats);
	cl->core.weight = tb[TCA_QCN_CLASS_WEIGHT] ?
			  nla_get_u32(tb[TCA_QCN_CLASS_WEIGHT]) : 1;
	cl->maxrate = tb[TCA_QCN_CLASS_MAXRATE] ?
		      nla_get_u64(tb[TCA_QCN_CLASS_MAXRATE]) : 0;

	sch_tree_lock(sch);
	sch_qcn_af_set_cap(af, cl);
	qdisc_class_hash_insert(&af->clhash, &cl->common);
	WRITE_ONCE(af->nclasses, af->nclasses + 1);
	sch_tree_unlock(sch);
	qdisc_class_hash_grow(sch, &af->clhash);

	*arg = (unsigned long)cl;
	return 0;
}

int sch_qcn_af_class_delete(struct sch_qcn_af *af, unsigned long arg,
			    struct netlink_ext_ack *extack)
{
	struct sch_qcn_af_class *cl = (struct sch_qcn_af_class *)arg;

	if (cl->filters) {
		NL_SET_ERR_MSG(extack, "qcn class is in use by filters");
		return -EBUSY;
	}
	sch_tree_lock(af->sch);
	qdisc_class_hash_remove(&af->clhash, &cl->common);
	WRITE_ONCE(af->nclasses, af->nclasses - 1);
	sch_tree_unlock(af->sch);
	kfree(cl);
	return 0;
}

unsigned long sch_qcn_af_class_find(struct sch_qcn_af *af, u32 classid)
{
	return (unsigned long)__sch_qcn_af_class_find(af, classid);
}

unsigned long sch_qcn_af_bind_tcf(struct sch_qcn_af *af, u32 classid)
{
	struct sch_qcn_af_class *cl = __sch_qcn_af_class_find(af, classid);

	if (cl)
		cl->filters++;
	return (unsigned long)cl;
}

void sch_qcn_af_unbind_tcf(unsigned long arg)
{
	struct sch_qcn_af_class *cl = (struct sch_qcn_af_class *)arg;

	if (cl)
		cl->filters--;
}

struct tcf_block *sch_qcn_af_tcf_block(struct sch_qcn_af *af, unsigned long cl,
				       struct netlink_ext_ack *extack)
{
	if (cl) {
		NL_SET_ERR_MSG(extack, "qcn filters attach to the qdisc, not to a class");
		return NULL;
	}
	return af->block;
}

int sch_qcn_af_class_dump(unsigned long arg, struct sk_buff *skb,
			  struct tcmsg *tcm)
{
	struct sch_qcn_af_class *cl = (struct sch_qcn_af_class *)arg;
	struct nlattr *nest;

	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = cl->common.classid;
	tcm->tcm_info = 0;

	nest = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!nest)
		goto nla_put_failure;
	if (nla_put_u32(skb, TCA_QCN_CLASS_WEIGHT, READ_ONCE(cl->core.weight)) ||
	    nla_put_u64_64bit(skb, TCA_QCN_CLASS_MAXRATE, READ_ONCE(cl->maxrate),
			      TCA_QCN_CLASS_PAD))
		goto nla_put_failure;
	return nla_nest_end(skb, nest);

nla_put_failure:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int sch_qcn_af_class_dump_stats(struct sch_qcn_af *af, unsigned long arg,
				struct gnet_dump *d)
{
	struct sch_qcn_af_class *cl = (struct sch_qcn_af_class *)arg;
	struct tc_qcn_class_xstats xstats = { };
	u64 ts_ns;

	/* dumps run under RTNL without the qdisc lock: a snapshot */
	sch_tree_lock(af->sch);
	ts_ns = af->p.ts_ns;
	xstats.weight = cl->core.weight;
	xstats.active = cl->core.active;
	xstats.maxrate = cl->maxrate;
	xstats.rate_est = qcn_af_ts_to_rate(cl->core.m, ts_ns);
	xstats.fair_share = qcn_af_ts_to_rate(cl->core.fair, ts_ns);
	xstats.last_fb_af = cl->core.fb_af;
	xstats.cnm_sent = cl->cnm_sent;
	xstats.bytes = u64_stats_read(&cl->bstats.bytes);
	xstats.stamp_ns = ktime_get_ns();
	sch_tree_unlock(af->sch);

	if (gnet_stats_copy_basic(d, NULL, &cl->bstats, true) < 0)
		return -1;
	return gnet_stats_copy_app(d, &xstats, sizeof(xstats));
}

void sch_qcn_af_class_walk(struct sch_qcn_af *af, struct qdisc_walker *arg)
{
	struct sch_qcn_af_class *cl;
	u32 b;

	if (arg->stop)
		return;
	for (b = 0; b < af->clhash.hashsize; b++)
		hlist_for_each_entry(cl, &af->clhash.hash[b], common.hnode)
			if (!tc_qdisc_stats_dump(af->sch, (unsigned long)cl, arg))
				return;
}
