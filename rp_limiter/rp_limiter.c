// SPDX-License-Identifier: GPL-2.0
/*
 * rp_limiter.c	qdisc "qcn_rp": the QCN reaction point (802.1Qau RP,
 *		Alizadeh et al. section II-A, Figs. 3-4; QCN-T of Zhang et
 *		al. section VI) as a sender's egress qdisc, standing in for
 *		the rate limiters of a QCN-capable NIC.
 *
 * - CNMs (ethertype 0x22E7) are received by one packet_type handler and
 *   handed to the qcn_rp instance of the device they arrived on, found in
 *   a per-netns RCU list (no global lock on the packet path).  They are
 *   decoded by include/qcn/qcn_cnm.h; malformed ones are counted, dropped.
 * - Flows (`flow l4|l3|dst-mac`) are tracked in a bounded hash table when
 *   they send; an entry idle for RP_FLOW_AGE is forgotten.  A CNM's
 *   encapsulated destination MAC + MSDU is classified by the same code
 *   (rp_key()); a CNM for a flow this device has not sent recently is
 *   counted unmatched and ignored, so a forged or stale CNM throttles
 *   nothing.
 * - The first CNM for a flow installs a limiter (at most `limiters`) that
 *   runs the RP core, include/qcn/qcn_rp.h.  When CR is back at the max
 *   rate the core releases it and the flow is unlimited again.
 * - Unlimited flows go through a FIFO, undelayed.  Limited flows have
 *   their own queue, ordered by next departure time in an rbtree (as in
 *   sch_fq), paced exactly at CR; a qdisc_watchdog wakes the device; the
 *   core's byte counter is fed the bytes really dequeued, its timer is
 *   advanced by a soft hrtimer tick whether or not the flow sends.
 * - Local senders are back-pressured: queued skbs keep their socket's
 *   send buffer charged, so a blocking UDP socket waits; `limit` bounds
 *   the total backlog (then tail drop).
 *
 * Locking: q->lock (a spinlock taken with BHs off) protects the flow
 * table, the limiters and both queues.  The enqueue/dequeue paths take it
 * inside the qdisc root lock; the CNM handler (softirq) and the hrtimer
 * take only q->lock, so CNMs are applied at once, without the root lock
 * (whose identity changes while a root qdisc is replaced) and without a
 * queue of pending CNMs.  sch->q.qlen and sch->qstats.backlog change only
 * in enqueue/dequeue/reset (under the root lock); the timer only moves
 * packets between our queues.  The qdisc (and q) is freed after an RCU
 * grace period, so the CNM handler may lock q->lock after destroy; it
 * then sees q->dead.
 *
 * Rates: the RP core counts bit/s, netlink carries bytes/s (as tc's
 * rates); pacing is on the L2 frame length (qdisc_pkt_len), without the
 * preamble and inter-frame gap the standard's rates include.
 */
#include <linux/module.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/hrtimer.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <uapi/linux/qcn.h>
#include <qcn/qcn_rp.h>
#include <qcn/qcn_cnm.h>

#define RP_FLOW_BUCKETS		1024
#define RP_MAX_FLOWS		8192		/* tracked flows per qdisc */
#define RP_FLOW_AGE		(2 * HZ)	/* "recently sent" */
#define RP_MAX_LIMITERS		65536
#define RP_DEF_LIMITERS		1024
#define RP_DEF_LIMIT		(4 << 20)	/* bytes */
#define RP_DEF_MAX_RATE		10000000000ULL	/* bit/s if the link speed is unknown */
#define RP_MAX_RATE		(10000000000000ULL / 8)	/* 10 Tb/s in bytes/s */
#define RP_SLACK_NS		(100 * NSEC_PER_USEC)	/* watchdog slack */
#define RP_CATCHUP_NS		(2 * NSEC_PER_MSEC)	/* pacing debt kept */
#define RP_TICK_MAX_NS		NSEC_PER_MSEC
#define RP_TICK_MIN_NS		(50 * NSEC_PER_USEC)

struct rp_limiter;

struct rp_flow {
	struct hlist_node node;
	struct tc_qcn_rp_flow_key key;
	u32 hash;
	unsigned long last_tx;		/* jiffies */
	struct rp_limiter *lim;
};

struct rp_limiter {
	struct rb_node rb;		/* in q->sched while it has packets */
	struct list_head list;		/* q->limiters */
	struct rp_flow *flow;
	struct qcn_rp rp;
	struct sk_buff *head, *tail;
	u32 qlen;
	u32 backlog;
	u64 time_next;			/* earliest departure of the head, ns */
	u64 cnm_rx;
	u64 bytes_sent;
	u32 id;				/* class minor */
	bool queued;
};

struct rp_sched {
	spinlock_t lock;
	struct qcn_rp_params p;		/* core units: bit/s, ns */
	u32 limit;
	u32 max_limiters;
	u8 flow_kind;
	bool dead;

	struct hlist_head *flows;
	u32 nflows;
	u32 seed;
	struct list_head limiters;
	u32 nlim;
	u32 next_id;
	struct rb_root sched;
	struct qdisc_skb_head direct;	/* unlimited flows */

	struct qdisc_watchdog watchdog;
	struct hrtimer timer;
	bool timer_armed;

	struct tc_qcn_rp_xstats st;

	struct Qdisc *sch;
	int ifindex;
	struct list_head net_node;	/* rp_net.list, RCU */
};

struct rp_net {
	spinlock_t lock;
	struct list_head list;
};

static unsigned int rp_net_id __read_mostly;

/* ------------------------------------------------------------ flow keys */

static bool rp_l4_proto(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_DCCP;
}

/*
 * The flow key of a frame given by its destination MAC, its octets from
 * the EtherType on (one VLAN tag skipped) and its priority: the same code
 * for outgoing skbs and for a CNM's encapsulated frame.  l4: IPv4/IPv6
 * 5-tuple (addresses + protocol for fragments and port-less protocols);
 * l3: addresses + protocol; dst-mac, and non-IP frames: destination MAC +
 * priority.
 */
static void rp_key(u8 kind, const u8 *dmac, const u8 *l2, u32 len, u8 prio,
		   struct tc_qcn_rp_flow_key *key)
{
	const u8 *p = l2 + 2;
	u32 rem = len >= 2 ? len - 2 : 0;
	u16 et = len >= 2 ? (l2[0] << 8 | l2[1]) : 0;

	memset(key, 0, sizeof(*key));
	key->kind = kind;
	if ((et == ETH_P_8021Q || et == ETH_P_8021AD) && rem >= 4) {
		prio = p[0] >> 5;
		et = p[2] << 8 | p[3];
		p += 4;
		rem -= 4;
	}
	if (kind != TC_QCN_RP_FLOW_DST_MAC) {
		if (et == ETH_P_IP && rem >= 20 && (p[0] >> 4) == 4) {
			u32 ihl = (p[0] & 15) * 4;
			bool frag = (p[6] & 0x3f) || p[7];

			key->family = AF_INET;
			key->proto = p[9];
			memcpy(key->saddr, p + 12, 4);
			memcpy(key->daddr, p + 16, 4);
			if (kind == TC_QCN_RP_FLOW_L4 && !frag && ihl >= 20 &&
			    rp_l4_proto(key->proto) && rem >= ihl + 4) {
				memcpy(&key->sport, p + ihl, 2);
				memcpy(&key->dport, p + ihl + 2, 2);
			}
			return;
		}
		if (et == ETH_P_IPV6 && rem >= 40 && (p[0] >> 4) == 6) {
			key->family = AF_INET6;
			key->proto = p[6];
			memcpy(key->saddr, p + 8, 16);
			memcpy(key->daddr, p + 24, 16);
			if (kind == TC_QCN_RP_FLOW_L4 && rp_l4_proto(key->proto) &&
			    rem >= 44) {
				memcpy(&key->sport, p + 40, 2);
				memcpy(&key->dport, p + 42, 2);
			}
			return;
		}
	}
	memcpy(key->dmac, dmac, ETH_ALEN);
	key->prio = prio & 7;
}

static void rp_skb_key(const struct rp_sched *q, const struct sk_buff *skb,
		       struct tc_qcn_rp_flow_key *key)
{
	u8 buf[ETH_HLEN + VLAN_HLEN + QCN_CNM_MSDU_MAX];
	u32 n = min_t(u32, skb->len, sizeof(buf));
	u8 prio;

	if (n < ETH_HLEN || skb_copy_bits(skb, 0, buf, n)) {
		memset(buf, 0, sizeof(buf));
		n = ETH_HLEN;
	}
	if (skb_vlan_tag_present(skb))
		prio = skb_vlan_tag_get_prio(skb);
	else
		prio = skb->priority < 8 ? skb->priority : 0;
	rp_key(READ_ONCE(q->flow_kind), buf, buf + 2 * ETH_ALEN,
	       n - 2 * ETH_ALEN, prio, key);
}

static u32 rp_hash(const struct rp_sched *q, const struct tc_qcn_rp_flow_key *k)
{
	BUILD_BUG_ON(sizeof(*k) % 4);
	return jhash2((const u32 *)k, sizeof(*k) / 4, q->seed);
}

static struct rp_flow *rp_flow_find(struct rp_sched *q,
				    const struct tc_qcn_rp_flow_key *k, u32 h)
{
	struct rp_flow *f;

	hlist_for_each_entry(f, &q->flows[h % RP_FLOW_BUCKETS], node)
		if (f->hash == h && !memcmp(&f->key, k, sizeof(*k)))
			return f;
	return NULL;
}

/* Forget this bucket's flows that are idle and unlimited. */
static void rp_flow_gc(struct rp_sched *q, u32 bucket)
{
	struct hlist_node *tmp;
	struct rp_flow *f;

	hlist_for_each_entry_safe(f, tmp, &q->flows[bucket], node) {
		if (f->lim || time_before(jiffies, f->last_tx + RP_FLOW_AGE))
			continue;
		hlist_del(&f->node);
		kfree(f);
		q->nflows--;
	}
}

/* ------------------------------------------------------------ limiters */

static u64 rp_tick_ns(const struct qcn_rp_params *p)
{
	u64 t = p->mode == QCN_RP_MODE_QCNT ? p->qcnt_period_ns : p->time_reset_ns;

	return clamp_t(u64, t / 8, RP_TICK_MIN_NS, RP_TICK_MAX_NS);
}

static void rp_timer_arm(struct rp_sched *q)
{
	if (q->timer_armed)
		return;
	q->timer_armed = true;
	hrtimer_start(&q->timer, ns_to_ktime(rp_tick_ns(&q->p)),
		      HRTIMER_MODE_REL_SOFT);
}

static void rp_sched_remove(struct rp_sched *q, struct rp_limiter *lim)
{
	if (lim->queued) {
		rb_erase(&lim->rb, &q->sched);
		lim->queued = false;
	}
}

static void rp_sched_insert(struct rp_sched *q, struct rp_limiter *lim)
{
	struct rb_node **p = &q->sched.rb_node, *parent = NULL;

	while (*p) {
		struct rp_limiter *o = rb_entry(*p, struct rp_limiter, rb);

		parent = *p;
		if (lim->time_next < o->time_next)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&lim->rb, parent, p);
	rb_insert_color(&lim->rb, &q->sched);
	lim->queued = true;
}

/* A released limiter: its queued packets continue unlimited, in order. */
static void rp_limiter_free(struct rp_sched *q, struct rp_limiter *lim)
{
	struct sk_buff *skb;

	rp_sched_remove(q, lim);
	while ((skb = lim->head)) {
		lim->head = skb->next;
		skb_mark_not_on_list(skb);
		__qdisc_enqueue_tail(skb, &q->direct);
	}
	if (lim->flow)
		lim->flow->lim = NULL;
	list_del(&lim->list);
	q->nlim--;
	kfree(lim);
}

/* Run lim's timer up to now; true if the core released it. */
static bool rp_limiter_catch_up(struct rp_sched *q, struct rp_limiter *lim,
				u64 now)
{
	while (qcn_rp_timer(&lim->rp, &q->p, now, get_random_u32()) ==
	       QCN_RP_EV_INCREASE)
		;
	return !lim->rp.active;
}

static enum hrtimer_restart rp_timer(struct hrtimer *timer)
{
	struct rp_sched *q = container_of(timer, struct rp_sched, timer);
	struct rp_limiter *lim, *tmp;
	enum hrtimer_restart ret;
	u64 now = ktime_get_ns();
	bool kick = false;

	spin_lock(&q->lock);
	if (q->dead) {
		q->timer_armed = false;
		spin_unlock(&q->lock);
		return HRTIMER_NORESTART;
	}
	list_for_each_entry_safe(lim, tmp, &q->limiters, list) {
		if (rp_limiter_catch_up(q, lim, now)) {
			kick |= lim->qlen > 0;
			rp_limiter_free(q, lim);
			q->st.limiters_released++;
		}
	}
	if (q->nlim) {
		hrtimer_forward_now(timer, ns_to_ktime(rp_tick_ns(&q->p)));
		ret = HRTIMER_RESTART;
	} else {
		q->timer_armed = false;
		ret = HRTIMER_NORESTART;
	}
	spin_unlock(&q->lock);

	if (kick) {
		rcu_read_lock();
		__netif_schedule(qdisc_root(q->sch));
		rcu_read_unlock();
	}
	return ret;
}

/* ---------------------------------------------------------- CNM intake */

/* Under q->lock. */
static void rp_cnm(struct rp_sched *q, const u8 *pdu, u32 len)
{
	struct tc_qcn_rp_flow_key key;
	struct rp_limiter *lim;
	struct qcn_cnm m;
	struct rp_flow *f;
	u32 h;

	q->st.cnm_rx++;
	if (qcn_cnm_decode(pdu, len, &m) != QCN_CNM_OK) {
		q->st.cnm_malformed++;
		return;
	}
	rp_key(q->flow_kind, m.dst, m.msdu, m.msdu_len, m.prio, &key);
	h = rp_hash(q, &key);
	f = rp_flow_find(q, &key, h);
	if (!f || time_after(jiffies, f->last_tx + RP_FLOW_AGE)) {
		q->st.cnm_unmatched++;
		return;
	}
	q->st.cnm_matched++;
	lim = f->lim;
	if (!lim) {
		if (q->nlim >= q->max_limiters) {
			q->st.limiters_refused++;
			return;
		}
		lim = kzalloc(sizeof(*lim), GFP_ATOMIC);
		if (!lim) {
			q->st.limiters_refused++;
			return;
		}
		qcn_rp_init(&lim->rp, &q->p);
		lim->flow = f;
		do {
			lim->id = ++q->next_id & 0xffff;
		} while (!lim->id);
		list_add_tail(&lim->list, &q->limiters);
		q->nlim++;
		q->st.limiters_created++;
		f->lim = lim;
	}
	lim->cnm_rx++;
	qcn_rp_cnm(&lim->rp, &q->p, m.qfb, ktime_get_ns(), get_random_u32());
	rp_timer_arm(q);
}

static struct rp_sched *rp_lookup(struct net_device *dev)
{
	struct rp_net *rn = net_generic(dev_net(dev), rp_net_id);
	struct rp_sched *q;

	list_for_each_entry_rcu(q, &rn->list, net_node)
		if (q->ifindex == dev->ifindex)
			return q;
	return NULL;
}

static int rp_cnm_rcv(struct sk_buff *skb, struct net_device *dev,
		      struct packet_type *pt, struct net_device *orig_dev)
{
	u8 pdu[QCN_CNM_HDR_LEN + QCN_CNM_MSDU_MAX];
	u32 len = min_t(u32, skb->len, sizeof(pdu));
	struct rp_sched *q;

	if (skb->pkt_type == PACKET_OTHERHOST || skb->pkt_type == PACKET_LOOPBACK)
		goto out;
	rcu_read_lock();
	q = rp_lookup(dev);
	if (q) {
		spin_lock(&q->lock);
		if (!q->dead) {
			if (skb_copy_bits(skb, 0, pdu, len))
				q->st.cnm_malformed++;
			else
				rp_cnm(q, pdu, len);
		}
		spin_unlock(&q->lock);
	}
	rcu_read_unlock();
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type rp_cnm_pt __read_mostly = {
	.type	= cpu_to_be16(ETH_P_CNM),
	.func	= rp_cnm_rcv,
};

/* ------------------------------------------------------------ qdisc ops */

static int rp_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		      struct sk_buff **to_free)
{
	struct rp_sched *q = qdisc_priv(sch);
	struct tc_qcn_rp_flow_key key;
	u32 len = qdisc_pkt_len(skb);
	struct rp_limiter *lim;
	struct rp_flow *f;
	u32 h, b;

	if (unlikely(sch->qstats.backlog + len > READ_ONCE(q->limit))) {
		spin_lock(&q->lock);
		q->st.drops++;
		spin_unlock(&q->lock);
		return qdisc_drop(skb, sch, to_free);
	}
	rp_skb_key(q, skb, &key);
	h = rp_hash(q, &key);
	b = h % RP_FLOW_BUCKETS;

	spin_lock(&q->lock);
	f = rp_flow_find(q, &key, h);
	if (!f) {
		if (q->nflows >= RP_MAX_FLOWS)
			rp_flow_gc(q, b);
		if (q->nflows < RP_MAX_FLOWS) {
			f = kzalloc(sizeof(*f), GFP_ATOMIC);
			if (f) {
				f->key = key;
				f->hash = h;
				hlist_add_head(&f->node, &q->flows[b]);
				q->nflows++;
			}
		}
	}
	lim = f ? f->lim : NULL;
	if (f)
		f->last_tx = jiffies;
	if (lim) {
		if (lim->tail)
			lim->tail->next = skb;
		else
			lim->head = skb;
		lim->tail = skb;
		skb->next = NULL;
		lim->qlen++;
		lim->backlog += len;
		if (!lim->queued) {
			u64 now = ktime_get_ns();

			if (lim->time_next < now)
				lim->time_next = now;
			rp_sched_insert(q, lim);
		}
		q->st.throttled++;
	} else {
		__qdisc_enqueue_tail(skb, &q->direct);
	}
	spin_unlock(&q->lock);

	qdisc_qstats_backlog_inc(sch, skb);
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

/* Under q->lock: the head of lim leaves now; pace and feed the core. */
static struct sk_buff *rp_limiter_dequeue(struct rp_sched *q,
					  struct rp_limiter *lim, u64 now)
{
	struct sk_buff *skb = lim->head;
	u32 len = qdisc_pkt_len(skb);
	u64 base;

	rp_sched_remove(q, lim);
	lim->head = skb->next;
	if (!lim->head)
		lim->tail = NULL;
	skb_mark_not_on_list(skb);
	lim->qlen--;
	lim->backlog -= len;
	lim->bytes_sent += len;

	/* keep the schedule across watchdog latency, but no long bursts */
	base = lim->time_next + RP_CATCHUP_NS < now ? now : lim->time_next;
	lim->time_next = base + qcn_rp_tx_time_ns(&lim->rp, len);

	if (qcn_rp_tx(&lim->rp, &q->p, len, get_random_u32()) == QCN_RP_EV_INCREASE)
		while (qcn_rp_tx(&lim->rp, &q->p, 0, get_random_u32()) ==
		       QCN_RP_EV_INCREASE)
			;
	if (lim->rp.active)
		rp_limiter_catch_up(q, lim, now);
	if (!lim->rp.active) {
		q->st.limiters_released++;
		rp_limiter_free(q, lim);
	} else if (lim->head) {
		rp_sched_insert(q, lim);
	}
	return skb;
}

static struct sk_buff *rp_dequeue(struct Qdisc *sch)
{
	struct rp_sched *q = qdisc_priv(sch);
	struct sk_buff *skb = NULL;
	struct rp_limiter *lim;
	struct rb_node *first;
	u64 now, wake = 0;

	spin_lock(&q->lock);
	first = rb_first(&q->sched);
	if (first) {
		now = ktime_get_ns();
		lim = rb_entry(first, struct rp_limiter, rb);
		if (lim->time_next <= now)
			skb = rp_limiter_dequeue(q, lim, now);
		else
			wake = lim->time_next;
	}
	if (!skb)
		skb = __qdisc_dequeue_head(&q->direct);
	spin_unlock(&q->lock);

	if (!skb) {
		if (wake)
			qdisc_watchdog_schedule_range_ns(&q->watchdog, wake,
							 RP_SLACK_NS);
		return NULL;
	}
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	qdisc_bstats_update(sch, skb);
	return skb;
}

static void rp_purge(struct rp_sched *q, bool free_limiters)
{
	struct rp_limiter *lim, *tmp;
	struct sk_buff *skb;

	list_for_each_entry_safe(lim, tmp, &q->limiters, list) {
		while ((skb = lim->head)) {
			lim->head = skb->next;
			kfree_skb(skb);
		}
		lim->tail = NULL;
		lim->qlen = 0;
		lim->backlog = 0;
		rp_sched_remove(q, lim);
		if (free_limiters)
			rp_limiter_free(q, lim);
	}
	while ((skb = __qdisc_dequeue_head(&q->direct)))
		kfree_skb(skb);
}

static void rp_flows_free(struct rp_sched *q)
{
	struct hlist_node *tmp;
	struct rp_flow *f;
	u32 b;

	for (b = 0; b < RP_FLOW_BUCKETS; b++)
		hlist_for_each_entry_safe(f, tmp, &q->flows[b], node) {
			hlist_del(&f->node);
			kfree(f);
		}
	q->nflows = 0;
}

static void rp_reset(struct Qdisc *sch)
{
	struct rp_sched *q = qdisc_priv(sch);

	spin_lock_bh(&q->lock);
	rp_purge(q, true);
	spin_unlock_bh(&q->lock);
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
}

/* ------------------------------------------------------------ netlink */

static struct netlink_range_validation rp_rate_range = {
	.min = 1, .max = RP_MAX_RATE,
};

static struct netlink_range_validation rp_rate0_range = {
	.min = 0, .max = RP_MAX_RATE,
};

static struct netlink_range_validation rp_pos_range = {
	.min = 1, .max = U32_MAX,
};

static struct netlink_range_validation rp_time_range = {
	.min = 1, .max = 10 * USEC_PER_SEC,
};

static struct netlink_range_validation rp_limiters_range = {
	.min = 1, .max = RP_MAX_LIMITERS,
};

static struct netlink_range_validation rp_limit_range = {
	.min = 1, .max = 1U << 30,
};

static struct netlink_range_validation rp_threshold_range = {
	.min = 1, .max = 1000,
};

static const struct nla_policy rp_policy[TCA_QCN_RP_MAX + 1] = {
	[TCA_QCN_RP_MAX_RATE]	 = NLA_POLICY_FULL_RANGE(NLA_U64, &rp_rate_range),
	[TCA_QCN_RP_GD]		 = NLA_POLICY_MAX(NLA_U32, QCN_RP_MAX_GD_SHIFT),
	[TCA_QCN_RP_AI_RATE]	 = NLA_POLICY_FULL_RANGE(NLA_U64, &rp_rate0_range),
	[TCA_QCN_RP_HAI_RATE]	 = NLA_POLICY_FULL_RANGE(NLA_U64, &rp_rate0_range),
	[TCA_QCN_RP_BYTE_RESET]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_pos_range),
	[TCA_QCN_RP_TIME_RESET]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_time_range),
	[TCA_QCN_RP_THRESHOLD]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_threshold_range),
	[TCA_QCN_RP_MIN_RATE]	 = NLA_POLICY_FULL_RANGE(NLA_U64, &rp_rate_range),
	[TCA_QCN_RP_MIN_DEC]	 = NLA_POLICY_MAX(NLA_U32, 100),
	[TCA_QCN_RP_MODE]	 = NLA_POLICY_MAX(NLA_U8, TC_QCN_RP_MODE_MAX),
	[TCA_QCN_RP_QCNT_PERIOD] = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_time_range),
	[TCA_QCN_RP_LIMITERS]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_limiters_range),
	[TCA_QCN_RP_FLOW]	 = NLA_POLICY_MAX(NLA_U8, TC_QCN_RP_FLOW_MAX),
	[TCA_QCN_RP_LIMIT]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_limit_range),
	[TCA_QCN_RP_JITTER]	 = NLA_POLICY_MAX(NLA_U8, 1),
};

static int rp_change(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct rp_sched *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_QCN_RP_MAX + 1];
	struct qcn_rp_params p;
	u32 limit, max_limiters;
	struct rp_limiter *lim;
	u8 kind;
	int err;

	if (!opt)
		return 0;
	err = nla_parse_nested(tb, TCA_QCN_RP_MAX, opt, rp_policy, extack);
	if (err < 0)
		return err;

	spin_lock_bh(&q->lock);
	p = q->p;
	limit = q->limit;
	max_limiters = q->max_limiters;
	kind = q->flow_kind;
	spin_unlock_bh(&q->lock);

	if (tb[TCA_QCN_RP_MAX_RATE])
		p.max_rate = nla_get_u64(tb[TCA_QCN_RP_MAX_RATE]) * 8;
	if (tb[TCA_QCN_RP_GD])
		p.gd_shift = nla_get_u32(tb[TCA_QCN_RP_GD]);
	if (tb[TCA_QCN_RP_AI_RATE])
		p.ai_rate = nla_get_u64(tb[TCA_QCN_RP_AI_RATE]) * 8;
	if (tb[TCA_QCN_RP_HAI_RATE])
		p.hai_rate = nla_get_u64(tb[TCA_QCN_RP_HAI_RATE]) * 8;
	if (tb[TCA_QCN_RP_BYTE_RESET])
		p.byte_reset = nla_get_u32(tb[TCA_QCN_RP_BYTE_RESET]);
	if (tb[TCA_QCN_RP_TIME_RESET])
		p.time_reset_ns = (u64)nla_get_u32(tb[TCA_QCN_RP_TIME_RESET]) *
				  NSEC_PER_USEC;
	if (tb[TCA_QCN_RP_THRESHOLD])
		p.threshold = nla_get_u32(tb[TCA_QCN_RP_THRESHOLD]);
	if (tb[TCA_QCN_RP_MIN_RATE])
		p.min_rate = nla_get_u64(tb[TCA_QCN_RP_MIN_RATE]) * 8;
	if (tb[TCA_QCN_RP_MIN_DEC])
		p.min_dec_pct = nla_get_u32(tb[TCA_QCN_RP_MIN_DEC]);
	if (tb[TCA_QCN_RP_MODE])
		p.mode = nla_get_u8(tb[TCA_QCN_RP_MODE]);
	if (tb[TCA_QCN_RP_QCNT_PERIOD])
		p.qcnt_period_ns = (u64)nla_get_u32(tb[TCA_QCN_RP_QCNT_PERIOD]) *
				   NSEC_PER_USEC;
	if (tb[TCA_QCN_RP_JITTER])
		p.jitter = nla_get_u8(tb[TCA_QCN_RP_JITTER]);
	if (tb[TCA_QCN_RP_LIMITERS])
		max_limiters = nla_get_u32(tb[TCA_QCN_RP_LIMITERS]);
	if (tb[TCA_QCN_RP_LIMIT])
		limit = nla_get_u32(tb[TCA_QCN_RP_LIMIT]);
	if (tb[TCA_QCN_RP_FLOW])
		kind = nla_get_u8(tb[TCA_QCN_RP_FLOW]);

	if (p.min_rate > p.max_rate) {
		NL_SET_ERR_MSG(extack, "qcn_rp: min-rate must not exceed max-rate");
		return -EINVAL;
	}
	if (!qcn_rp_params_valid(&p)) {
		NL_SET_ERR_MSG(extack, "qcn_rp: invalid reaction point parameters");
		return -EINVAL;
	}

	sch_tree_lock(sch);
	spin_lock_bh(&q->lock);
	q->p = p;
	list_for_each_entry(lim, &q->limiters, list) {
		if (lim->rp.cr > p.max_rate)
			lim->rp.cr = p.max_rate;
	}
	WRITE_ONCE(q->limit, limit);
	WRITE_ONCE(q->max_limiters, max_limiters);
	if (kind != q->flow_kind) {
		/* keys change meaning: every flow starts over, unlimited */
		while (!list_empty(&q->limiters)) {
			lim = list_first_entry(&q->limiters, struct rp_limiter, list);
			rp_limiter_free(q, lim);
			q->st.limiters_released++;
		}
		rp_flows_free(q);
		WRITE_ONCE(q->flow_kind, kind);
	}
	spin_unlock_bh(&q->lock);
	/* a smaller limit: trim the unlimited queue from its head */
	while (sch->qstats.backlog > limit) {
		struct sk_buff *skb;

		spin_lock_bh(&q->lock);
		skb = __qdisc_dequeue_head(&q->direct);
		spin_unlock_bh(&q->lock);
		if (!skb)
			break;
		qdisc_qstats_backlog_dec(sch, skb);
		sch->q.qlen--;
		qdisc_tree_reduce_backlog(sch, 1, qdisc_pkt_len(skb));
		kfree_skb(skb);
		q->st.drops++;
	}
	sch_tree_unlock(sch);
	return 0;
}

static int rp_init(struct Qdisc *sch, struct nlattr *opt,
		   struct netlink_ext_ack *extack)
{
	struct rp_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct rp_net *rn = net_generic(dev_net(dev), rp_net_id);
	struct ethtool_link_ksettings ks;
	u64 line = RP_DEF_MAX_RATE;
	int err;

	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->limiters);
	INIT_LIST_HEAD(&q->net_node);
	q->sched = RB_ROOT;
	q->sch = sch;
	q->ifindex = dev->ifindex;
	q->seed = get_random_u32();
	qdisc_watchdog_init(&q->watchdog, sch);
	hrtimer_init(&q->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	q->timer.function = rp_timer;

	/* max rate: the link speed when the device knows it (RTNL is held) */
	if (!__ethtool_get_link_ksettings(dev, &ks) &&
	    ks.base.speed && ks.base.speed != SPEED_UNKNOWN)
		line = (u64)ks.base.speed * 1000000ULL;
	qcn_rp_params_default(&q->p, line);
	if (q->p.min_rate > line)
		q->p.min_rate = line;
	q->limit = RP_DEF_LIMIT;
	q->max_limiters = RP_DEF_LIMITERS;
	q->flow_kind = TC_QCN_RP_FLOW_L4;

	q->flows = kvcalloc(RP_FLOW_BUCKETS, sizeof(*q->flows), GFP_KERNEL);
	if (!q->flows) {
		NL_SET_ERR_MSG(extack, "qcn_rp: no memory for the flow table");
		return -ENOMEM;
	}
	err = rp_change(sch, opt, extack);
	if (err)
		return err;

	spin_lock_bh(&rn->lock);
	list_add_tail_rcu(&q->net_node, &rn->list);
	spin_unlock_bh(&rn->lock);
	return 0;
}

static void rp_destroy(struct Qdisc *sch)
{
	struct rp_sched *q = qdisc_priv(sch);
	struct rp_net *rn = net_generic(dev_net(qdisc_dev(sch)), rp_net_id);

	spin_lock_bh(&rn->lock);
	if (!list_empty(&q->net_node))
		list_del_rcu(&q->net_node);
	spin_unlock_bh(&rn->lock);

	spin_lock_bh(&q->lock);
	q->dead = true;
	spin_unlock_bh(&q->lock);
	hrtimer_cancel(&q->timer);
	qdisc_watchdog_cancel(&q->watchdog);
	if (q->flows) {
		spin_lock_bh(&q->lock);
		rp_purge(q, true);
		rp_flows_free(q);
		spin_unlock_bh(&q->lock);
		kvfree(q->flows);
	}
}

static int rp_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct rp_sched *q = qdisc_priv(sch);
	struct qcn_rp_params p;
	struct nlattr *opts;
	u32 limit, limiters;
	u8 kind;

	spin_lock_bh(&q->lock);
	p = q->p;
	limit = q->limit;
	limiters = q->max_limiters;
	kind = q->flow_kind;
	spin_unlock_bh(&q->lock);

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, TCA_QCN_RP_MAX_RATE, p.max_rate / 8, TCA_QCN_RP_PAD) ||
	    nla_put_u32(skb, TCA_QCN_RP_GD, p.gd_shift) ||
	    nla_put_u64_64bit(skb, TCA_QCN_RP_AI_RATE, p.ai_rate / 8, TCA_QCN_RP_PAD) ||
	    nla_put_u64_64bit(skb, TCA_QCN_RP_HAI_RATE, p.hai_rate / 8, TCA_QCN_RP_PAD) ||
	    nla_put_u32(skb, TCA_QCN_RP_BYTE_RESET, p.byte_reset) ||
	    nla_put_u32(skb, TCA_QCN_RP_TIME_RESET,
			div_u64(p.time_reset_ns, NSEC_PER_USEC)) ||
	    nla_put_u32(skb, TCA_QCN_RP_THRESHOLD, p.threshold) ||
	    nla_put_u64_64bit(skb, TCA_QCN_RP_MIN_RATE, p.min_rate / 8, TCA_QCN_RP_PAD) ||
	    nla_put_u32(skb, TCA_QCN_RP_MIN_DEC, p.min_dec_pct) ||
	    nla_put_u8(skb, TCA_QCN_RP_MODE, p.mode) ||
	    nla_put_u32(skb, TCA_QCN_RP_QCNT_PERIOD,
			div_u64(p.qcnt_period_ns, NSEC_PER_USEC)) ||
	    nla_put_u32(skb, TCA_QCN_RP_LIMITERS, limiters) ||
	    nla_put_u8(skb, TCA_QCN_RP_FLOW, kind) ||
	    nla_put_u32(skb, TCA_QCN_RP_LIMIT, limit) ||
	    nla_put_u8(skb, TCA_QCN_RP_JITTER, p.jitter))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int rp_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct rp_sched *q = qdisc_priv(sch);
	struct tc_qcn_rp_xstats st;

	spin_lock_bh(&q->lock);
	st = q->st;
	st.limiters_active = q->nlim;
	st.flows = q->nflows;
	spin_unlock_bh(&q->lock);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

/* --------------------------------------- limiters as classes (read-only) */

static struct rp_limiter *rp_find_lim(struct rp_sched *q, u32 id)
{
	struct rp_limiter *lim;

	list_for_each_entry(lim, &q->limiters, list)
		if (lim->id == id)
			return lim;
	return NULL;
}

static struct Qdisc *rp_leaf(struct Qdisc *sch, unsigned long arg)
{
	return NULL;
}

static unsigned long rp_find(struct Qdisc *sch, u32 classid)
{
	struct rp_sched *q = qdisc_priv(sch);
	unsigned long found;

	spin_lock_bh(&q->lock);
	found = rp_find_lim(q, TC_H_MIN(classid)) ? TC_H_MIN(classid) : 0;
	spin_unlock_bh(&q->lock);
	return found;
}

static unsigned long rp_bind(struct Qdisc *sch, unsigned long parent,
			     u32 classid)
{
	return 0;
}

static void rp_unbind(struct Qdisc *q, unsigned long cl)
{
}

static struct tcf_block *rp_tcf_block(struct Qdisc *sch, unsigned long cl,
				      struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack, "qcn_rp does not take filters: flows are keyed by `flow`");
	return NULL;
}

static int rp_dump_class(struct Qdisc *sch, unsigned long cl,
			 struct sk_buff *skb, struct tcmsg *tcm)
{
	tcm->tcm_handle |= TC_H_MIN(cl);
	return 0;
}

static int rp_dump_class_stats(struct Qdisc *sch, unsigned long cl,
			       struct gnet_dump *d)
{
	struct rp_sched *q = qdisc_priv(sch);
	struct tc_qcn_rp_class_xstats xs = { };
	struct gnet_stats_queue qs = { };
	struct rp_limiter *lim;
	u32 qlen = 0;

	spin_lock_bh(&q->lock);
	lim = rp_find_lim(q, cl);
	if (lim) {
		xs.key = lim->flow->key;
		xs.cr = lim->rp.cr / 8;
		xs.tr = lim->rp.tr / 8;
		xs.bc_stage = lim->rp.bc_stage;
		xs.timer_stage = lim->rp.timer_stage;
		xs.state = qcn_rp_state(&lim->rp, &q->p);
		xs.backlog = lim->backlog;
		xs.cnm_rx = lim->cnm_rx;
		xs.bytes_sent = lim->bytes_sent;
		qlen = lim->qlen;
		qs.backlog = lim->backlog;
	} else {
		xs.state = TC_QCN_RP_STATE_RELEASED;
	}
	spin_unlock_bh(&q->lock);

	if (gnet_stats_copy_queue(d, NULL, &qs, qlen) < 0)
		return -1;
	return gnet_stats_copy_app(d, &xs, sizeof(xs));
}

static void rp_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct rp_sched *q = qdisc_priv(sch);
	struct rp_limiter *lim;
	u32 *ids, n = 0, cap, i;

	if (arg->stop)
		return;
	cap = READ_ONCE(q->nlim) + 16;
	ids = kvmalloc_array(cap, sizeof(*ids), GFP_KERNEL);
	if (!ids) {
		arg->stop = 1;
		return;
	}
	/* a snapshot: limiters come and go under us without RTNL */
	spin_lock_bh(&q->lock);
	list_for_each_entry(lim, &q->limiters, list) {
		if (n == cap)
			break;
		ids[n++] = lim->id;
	}
	spin_unlock_bh(&q->lock);
	for (i = 0; i < n; i++)
		if (!tc_qdisc_stats_dump(sch, ids[i], arg))
			break;
	kvfree(ids);
}

static const struct Qdisc_class_ops rp_class_ops = {
	.leaf		= rp_leaf,
	.find		= rp_find,
	.tcf_block	= rp_tcf_block,
	.bind_tcf	= rp_bind,
	.unbind_tcf	= rp_unbind,
	.dump		= rp_dump_class,
	.dump_stats	= rp_dump_class_stats,
	.walk		= rp_walk,
};

static struct Qdisc_ops rp_qdisc_ops __read_mostly = {
	.cl_ops		= &rp_class_ops,
	.id		= "qcn_rp",
	.priv_size	= sizeof(struct rp_sched),
	.enqueue	= rp_enqueue,
	.dequeue	= rp_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= rp_init,
	.reset		= rp_reset,
	.destroy	= rp_destroy,
	.change		= rp_change,
	.dump		= rp_dump,
	.dump_stats	= rp_dump_stats,
	.owner		= THIS_MODULE,
};

/* ------------------------------------------------------------ module */

static int __net_init rp_net_init(struct net *net)
{
	struct rp_net *rn = net_generic(net, rp_net_id);

	spin_lock_init(&rn->lock);
	INIT_LIST_HEAD(&rn->list);
	return 0;
}

static struct pernet_operations rp_net_ops = {
	.init	= rp_net_init,
	.id	= &rp_net_id,
	.size	= sizeof(struct rp_net),
};

static int __init rp_module_init(void)
{
	int err;

	err = register_pernet_subsys(&rp_net_ops);
	if (err)
		return err;
	dev_add_pack(&rp_cnm_pt);
	err = register_qdisc(&rp_qdisc_ops);
	if (err) {
		dev_remove_pack(&rp_cnm_pt);
		unregister_pernet_subsys(&rp_net_ops);
	}
	return err;
}

static void __exit rp_module_exit(void)
{
	unregister_qdisc(&rp_qdisc_ops);
	dev_remove_pack(&rp_cnm_pt);	/* synchronize_net() inside */
	unregister_pernet_subsys(&rp_net_ops);
}

module_init(rp_module_init);
module_exit(rp_module_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(QCN_VERSION);
MODULE_DESCRIPTION("QCN reaction point: per-flow rate limiters driven by 802.1Qau CNMs");
MODULE_ALIAS("net-sch-qcn_rp");
MODULE_ALIAS("sch_qcn_rp");
