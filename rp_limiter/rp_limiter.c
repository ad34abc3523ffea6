// SPDX-License-Identifier: GPL-2.0
/*
 * rp_limiter.c	qdisc "qcn_rp": the QCN reaction point (802.1Qau RP,
 *		Alizadeh et al. section II-A, Figs. 3-4; QCN-T of Zhang et
 *		al. section VI) as a sender's egress qdisc, standing in for
 *		the rate limiters of a QCN-capable NIC.
 *
 * - CNMs (ethertype 0x22E7) are received by one packet_type handler and
 *   offered to the qcn_rp instances of the device they arrived on (one
 *   per TX queue under mq), found in a per-netns RCU hash by device (no
 *   global lock on the packet path); an instance that has sent no flow of
 *   the CNM's hash is passed over without its lock (rp_sched.seen).
 *   They are decoded by include/qcn/qcn_cnm.h;
 *   malformed, group-addressed and qFb 0 ones are counted, dropped
 *   (qFb 0 is taken in the N-AIMD modes, below).
 * - Flows (`flow l4|l3|dst-mac`) are tracked in a bounded hash table when
 *   they send; an entry idle for RP_FLOW_AGE is forgotten.  A CNM's
 *   encapsulated destination MAC + MSDU is classified by the same code
 *   (rp_key()); a CNM for a flow this device has not sent recently is
 *   counted unmatched and ignored, so a forged or stale CNM throttles
 *   nothing.
 * - The first CNM for a flow installs a limiter (at most `limiters`) that
 *   runs the RP core, include/qcn/qcn_rp.h.  With `start-rate`, a flow
 *   gets one at that rate from the first frame the qdisc learns it by
 *   (qcn_rp_start(): the convergence paper's stage three starts its RPs
 *   at given rates), in every mode; none when `limiters` are all taken.
 *   When CR is back at the max rate the core releases it; the frames it
 *   still holds leave at the line rate (rp_limiter_release()), and the
 *   flow is unlimited again.
 *   A limiter whose flow has sent nothing for RP_FLOW_AGE is released
 *   too (aged), as sch_fq forgets idle flows: no CNM can reach it any
 *   more, and without aging a flow that stops while throttled would hold
 *   its limiter forever in the modes without a timer (N-AIMD, QCN-AIMD)
 *   or where R_AI is 0.
 * - `mode n-aimd|ap-n-aimd`: the Averaging Principle case study
 *   (include/qcn/qcn_ap.h, eq. 14) against a CP with `feedback signed`:
 *   the signed Fb is rebuilt from the CNM's cnmQOffset/cnmQDelta with
 *   the CPs' w; Fb < 0 installs a limiter, Fb >= 0 raises an installed
 *   one; AP-N-AIMD averages CR with TR ap_packets frames after a
 *   feedback.  No counters, no timer.
 * - `mode qcn-aimd`: QCN-AIMD of the convergence paper (eq. 27): QCN's
 *   cut on a CNM, then CR + R_AI every byte-reset bytes sent, no fast
 *   recovery and no timer (include/qcn/qcn_rp.h).
 * - Unlimited flows go through a FIFO, undelayed.  Limited flows have
 *   their own queue, ordered by next departure time in an rbtree (as in
 *   sch_fq), paced exactly at CR; a qdisc_watchdog wakes the device; the
 *   core's byte counter is fed the bytes really dequeued; its timer runs
 *   lazily (rp_limiter_plan()): caught up exactly when the limiter is
 *   touched, one hrtimer for the release of idle limiters.
 * - `pfc`: 802.1Qbb PFC frames received on the device pause the packets
 *   of the priorities they name, the other priorities go on, as the NIC of
 *   a lossless Ethernet host pauses (rp_pfc_rcv(), rp_pfc_dequeue(); the
 *   pause state is include/net/qcn_pfc_rx.h's, shared with sch_qcn).
 *   The queues are then split into a band per priority, each with its
 *   limiters and its FIFO; without pfc everything is in band 0.
 * - Local senders are back-pressured: queued skbs keep their socket's
 *   send buffer charged, so a blocking UDP socket waits; `limit` bounds
 *   the total backlog, `flow_limit` a limiter's queue (packets; checked
 *   before a GSO skb's frames are added), `memory_limit` the queued
 *   truesize (then drop).
 *
 * Locking: q->lock (a spinlock taken with BHs off) protects the flow
 * table, the limiters and both queues.  The enqueue/dequeue paths take it
 * inside the qdisc root lock; the CNM handler (softirq) and the hrtimer
 * take only q->lock, so CNMs are applied at once, without the root lock
 * (whose identity changes while a root qdisc is replaced) and without a
 * queue of pending CNMs.  sch->q.qlen and sch->qstats.backlog change only
 * in enqueue/dequeue/reset (under the root lock); the timer only moves
 * packets between our queues.  q is allocated apart from the qdisc and
 * freed after an RCU grace period (rp_q()), so the CNM handler may lock
 * q->lock after destroy; it then sees q->dead.
 *
 * Rates: the RP core counts bit/s, netlink carries bytes/s (as tc's
 * rates); pacing is on the L2 frame length (qdisc_pkt_len), without the
 * preamble and inter-frame gap the standard's rates include.
 */
#include <linux/module.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/qcn_gso.h>
#include <net/qcn_pfc_rx.h>
#include <uapi/linux/qcn.h>
#include <qcn/qcn_rp.h>
#include <qcn/qcn_cnm.h>

#define RP_FLOW_BUCKETS		1024
#define RP_MAX_FLOWS		8192		/* tracked flows per qdisc */
#define RP_FLOW_AGE		(2 * HZ)	/* "recently sent" */
#define RP_SEEN_SLOTS		4096		/* see rp_sched.seen */
#define RP_NET_HASH_BITS	6		/* rp_net.devs */
#define RP_MAX_LIMITERS		TC_QCN_RP_MAX_LIMITERS
#define RP_DEF_LIMITERS		1024
#define RP_DEF_LIMIT		(4 << 20)	/* bytes */
#define RP_DEF_FLOW_LIMIT	1000		/* packets per limiter */
#define RP_DEF_MEMORY_LIMIT	(32 << 20)	/* truesize bytes, as fq_codel */
#define RP_DEF_MAX_RATE		10000000000ULL	/* bit/s if the link speed is unknown */
#define RP_MAX_RATE		TC_QCN_RP_MAX_RATE	/* 10 Tb/s in bytes/s */
#define RP_NPRIO		QCN_PFC_NPRIO	/* 802.1Q priorities: PFC bands */
#define RP_SLACK_NS		(100 * NSEC_PER_USEC)	/* watchdog slack */
#define RP_CATCHUP_NS		(2 * NSEC_PER_MSEC)	/* pacing debt kept */
/*
 * A frame holds its limiter for at most a second (as sch_fq caps a packet's
 * delay): a frame sent at a rate near min-rate must not stall the flow for
 * minutes after the rate has recovered.
 */
#define RP_MAX_FRAME_DELAY_NS	NSEC_PER_SEC
#define RP_WAKE_EXPIRIES	16		/* see rp_limiter_plan() */
/*
 * Floors that bound the work a configuration can ask for (user
 * namespaces with CAP_NET_ADMIN can set them): the RP timer (T, QCN-T's
 * t) at 100 us, so a limiter has at most 10000 expiries a second to
 * catch up; the byte counter at one 1500-octet frame, so a dequeued frame
 * ends at most one byte-counter cycle (a 64 KB frame on a jumbo device
 * 44).  The standard's values are 15 ms, 2.4 ms and 150000 octets.
 */
#define RP_MIN_PERIOD_US	TC_QCN_RP_MIN_TIME
#define RP_MIN_BYTE_RESET	TC_QCN_RP_MIN_BYTE_RESET

struct rp_limiter;

static struct kmem_cache *rp_flow_cache __read_mostly;
static struct kmem_cache *rp_limiter_cache __read_mostly;

struct rp_flow {
	struct hlist_node node;
	struct tc_qcn_rp_flow_key key;
	u32 hash;
	unsigned long last_tx;		/* jiffies */
	struct rp_limiter *lim;
	u8 prio;			/* pfc: its last frame's priority */
};

struct rp_limiter {
	struct rb_node rb;		/* in q->sched while it has packets */
	struct rb_node wake_node;	/* in q->wake unless draining */
	u64 wake_ns;			/* the timer must visit it by then */
	struct list_head list;		/* q->limiters */
	struct rp_flow *flow;
	struct qcn_rp rp;
	struct sk_buff *head, *tail;
	u32 qlen;
	u32 backlog;
	u64 time_next;			/* earliest departure of the head, ns */
	u64 cnm_rx;
	u64 bytes_sent;
	u64 hold;			/* leaves once direct_out[prio] reached it */
	u32 drain;			/* released: frames still to leave at line rate */
	u32 id;				/* class minor */
	u8 prio;			/* pfc: the band it is scheduled in */
	bool queued;
};

struct rp_sched {
	spinlock_t lock;		/* the flows, limiters and their queues */
	struct qcn_rp_params p;		/* core units: bit/s, ns */
	u32 limit;
	u32 flow_limit;
	u32 memory_limit;
	u32 memory_usage;
	u32 max_limiters;
	u64 start_rate;			/* bit/s, new flows start limited; 0: off */
	u8 flow_kind;
	bool dead;

	struct hlist_head *flows;
	u32 nflows;
	u32 seed;
	struct list_head limiters;
	u32 nlim;
	struct xarray ids;		/* class minor -> limiter */
	u32 next_id;

	struct qdisc_watchdog watchdog;
	struct hrtimer timer;		/* at the first of q->wake */
	u64 timer_at;			/* armed for (ns), 0: not armed */
	struct rb_root wake;		/* limiters by wake_ns */

	struct tc_qcn_rp_xstats st;

	struct Qdisc *sch;
	int ifindex;
	struct list_head net_node;	/* in rp_net.devs, RCU */
	struct rcu_head rcu;		/* kfree_rcu(): within 4 KB of q */

	/*
	 * Tracked flows per slot of their hash (saturating at 255, then
	 * never decremented): the CNM handler reads it without q->lock and
	 * passes over an instance that has sent no flow of that hash, so a
	 * flood of forged CNMs takes no instance lock it does not need.
	 */
	u8 seen[RP_SEEN_SLOTS];

	/*
	 * The queues, by band: a band is an 802.1Q priority under pfc, and
	 * everything is in band 0 without it.  Each band has its limiters
	 * with packets, by next departure, and its FIFO of unlimited flows.
	 */
	struct rb_root sched[RP_NPRIO];
	struct qdisc_skb_head direct[RP_NPRIO];
	u64 direct_in[RP_NPRIO];	/* packets ever queued in direct[b] */
	u64 direct_out[RP_NPRIO];	/* ... and left it */
	u8 band;			/* pfc: the FIFO served next */
	/*
	 * pfc: 802.1Qbb PFC frames received on the device pause the bands
	 * of the priorities they name (rp_pfc_rcv(), one handler for every
	 * instance; the state and its lock are include/net/qcn_pfc_rx.h's).
	 */
	bool pfc;
	struct qcn_pfc_rx pfc_rx;
};

/* the netns' instances by device (ifindex hash), in the order added */
struct rp_net {
	spinlock_t lock;		/* writers of devs (RCU for readers) */
	struct list_head devs[1 << RP_NET_HASH_BITS];
};

static struct list_head *rp_net_devs(struct rp_net *rn, int ifindex)
{
	return &rn->devs[hash_32(ifindex, RP_NET_HASH_BITS)];
}

static unsigned int rp_net_id __read_mostly;

/*
 * The qdisc's private area holds only a pointer to its rp_sched: the CNM
 * handler finds rp_sched on an RCU list, and qdisc_create() frees a qdisc
 * at once (no grace period) when it fails after ->init succeeded (a bad
 * TCA_RATE estimator), so what the handler may touch is allocated apart
 * and freed by kfree_rcu() in ->destroy.
 */
static struct rp_sched *rp_q(struct Qdisc *sch)
{
	return *(struct rp_sched **)qdisc_priv(sch);
}

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
	const u8 *l2;
	u8 prio;

	/* the headers in place when they are linear (no copy), as
	 * skb_header_pointer()
	 */
	l2 = n >= ETH_HLEN ? skb_header_pointer(skb, 0, n, buf) : NULL;
	if (!l2) {
		memset(buf, 0, ETH_HLEN);
		l2 = buf;
		n = ETH_HLEN;
	}
	/*
	 * The priority the CP sees: the PCP of a tagged frame (an in-band
	 * tag is read by rp_key()), 0 for an untagged one -- skb->priority
	 * is local and never on the wire (sch_qcn encapsulates 0 for it).
	 */
	prio = skb_vlan_tag_present(skb) ? skb_vlan_tag_get_prio(skb) : 0;
	rp_key(READ_ONCE(q->flow_kind), l2, l2 + 2 * ETH_ALEN,
	       n - 2 * ETH_ALEN, prio, key);
}

static u32 rp_hash(const struct rp_sched *q, const struct tc_qcn_rp_flow_key *k)
{
	BUILD_BUG_ON(sizeof(*k) % 4);
	return jhash2((const u32 *)k, sizeof(*k) / 4, q->seed);
}

/* keys are whole u32 words (rp_hash()); no byte-wise memcmp() per packet */
static bool rp_key_equal(const struct tc_qcn_rp_flow_key *a,
			 const struct tc_qcn_rp_flow_key *b)
{
	const u32 *x = (const u32 *)a, *y = (const u32 *)b;
	u32 i, d = 0;

	for (i = 0; i < sizeof(*a) / 4; i++)
		d |= x[i] ^ y[i];
	return !d;
}

static struct rp_flow *rp_flow_find(struct rp_sched *q,
				    const struct tc_qcn_rp_flow_key *k, u32 h)
{
	struct rp_flow *f;

	hlist_for_each_entry(f, &q->flows[h % RP_FLOW_BUCKETS], node)
		if (f->hash == h && rp_key_equal(&f->key, k))
			return f;
	return NULL;
}

static void rp_seen_inc(struct rp_sched *q, u32 h)
{
	u8 *c = &q->seen[h % RP_SEEN_SLOTS];

	if (*c != U8_MAX)
		WRITE_ONCE(*c, *c + 1);
}

static void rp_seen_dec(struct rp_sched *q, u32 h)
{
	u8 *c = &q->seen[h % RP_SEEN_SLOTS];

	if (*c != U8_MAX)
		WRITE_ONCE(*c, *c - 1);
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
		rp_seen_dec(q, f->hash);
		kmem_cache_free(rp_flow_cache, f);
		q->nflows--;
	}
}

/* ------------------------------------------------------------ limiters */

static void rp_sched_remove(struct rp_sched *q, struct rp_limiter *lim)
{
	if (lim->queued) {
		rb_erase(&lim->rb, &q->sched[lim->prio]);
		lim->queued = false;
	}
}

static void rp_sched_insert(struct rp_sched *q, struct rp_limiter *lim)
{
	struct rb_node **p = &q->sched[lim->prio].rb_node, *parent = NULL;

	while (*p) {
		struct rp_limiter *o = rb_entry(*p, struct rp_limiter, rb);

		parent = *p;
		if (lim->time_next < o->time_next)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&lim->rb, parent, p);
	rb_insert_color(&lim->rb, &q->sched[lim->prio]);
	lim->queued = true;
}

struct rp_skb_cb {
	u32 mem;	/* charged against memory_limit (truesize may change) */
	u8 band;	/* its FIFO when unlimited */
};

static struct rp_skb_cb *rp_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct rp_skb_cb));
	return (struct rp_skb_cb *)qdisc_skb_cb(skb)->data;
}

static void rp_charge(struct rp_sched *q, struct sk_buff *skb)
{
	rp_cb(skb)->mem = skb->truesize;
	q->memory_usage += skb->truesize;
}

static void rp_uncharge(struct rp_sched *q, const struct sk_buff *skb)
{
	q->memory_usage -= rp_cb(skb)->mem;
}

/* A frame's band: its PFC priority under pfc (qcn_skb_pfc_prio()), else 0. */
static u8 rp_skb_band(const struct rp_sched *q, const struct sk_buff *skb)
{
	return q->pfc ? qcn_skb_pfc_prio(skb) : 0;
}

static void rp_direct_add(struct rp_sched *q, struct sk_buff *skb)
{
	u8 b = rp_cb(skb)->band;

	__qdisc_enqueue_tail(skb, &q->direct[b]);
	q->direct_in[b]++;
}

static struct sk_buff *rp_direct_take(struct rp_sched *q, u8 b)
{
	struct sk_buff *skb = __qdisc_dequeue_head(&q->direct[b]);

	if (skb)
		q->direct_out[b]++;
	return skb;
}

/*
 * A limiter installed while its flow has packets in the unlimited FIFO
 * must not send before they left, or its first packet overtakes them (TCP
 * answers reordering with dupacks and a spurious retransmit): it holds
 * its head until every packet queued there before it was installed left.
 * Without the flow's own count, all of them: they leave at once, unpaced.
 */
static bool rp_limiter_held(const struct rp_sched *q,
			    const struct rp_limiter *lim)
{
	return q->direct_out[lim->prio] < lim->hold;
}

/* A released limiter: its queued packets continue unlimited, in order. */
static void rp_limiter_free(struct rp_sched *q, struct rp_limiter *lim)
{
	struct sk_buff *skb;

	rp_sched_remove(q, lim);
	while ((skb = lim->head)) {
		lim->head = skb->next;
		skb_mark_not_on_list(skb);
		rp_direct_add(q, skb);
	}
	if (lim->flow)
		lim->flow->lim = NULL;
	if (!RB_EMPTY_NODE(&lim->wake_node))
		rb_erase(&lim->wake_node, &q->wake);
	list_del(&lim->list);
	xa_erase(&q->ids, lim->id);
	q->nlim--;
	kmem_cache_free(rp_limiter_cache, lim);
}

/*
 * Under q->lock: the core released lim (CR reached the line rate).  The
 * frames it holds leave at the line rate (CR = max rate now), as a NIC's
 * rate limiter that lets a flow go still sends what it holds at its line
 * rate, and the flow is unlimited after them.  Handed to the FIFO at once,
 * a TCP flow's backlog (~1 ms of its rate: TCP small queues) reaches the
 * CP as one burst on a port slower than the host's device, and the burst's
 * string of CNMs cuts the flow far below its share.  true if lim is gone
 * (it held nothing); a draining limiter needs no timer.
 */
static bool rp_limiter_release(struct rp_sched *q, struct rp_limiter *lim)
{
	if (!lim->qlen) {
		rp_limiter_free(q, lim);
		q->st.limiters_released++;
		return true;
	}
	if (!lim->drain)
		lim->drain = lim->qlen;
	if (!RB_EMPTY_NODE(&lim->wake_node)) {
		rb_erase(&lim->wake_node, &q->wake);
		RB_CLEAR_NODE(&lim->wake_node);
	}
	return false;
}

/*
 * RP timers run lazily: the core catches up exactly (expiries are
 * scheduled from the previous expiry, not from now), so a limiter's timer
 * is advanced when it is touched -- a packet queued on or sent by it, a
 * CNM, a dump -- and q->timer (one hrtimer per qdisc, no periodic tick)
 * visits a limiter only when something must happen at a time: its
 * release at line rate while it is idle.  rp_limiter_plan() predicts
 * that time on a copy of the state, at most RP_WAKE_EXPIRIES expiries
 * ahead (an RP with R_AI = R_HAI = 0 may never be released), so no
 * catch-up runs more than about that many expiries.
 */

/* Under q->lock: run lim's timer up to now; true if the core released it. */
static bool rp_limiter_catch_up(struct rp_sched *q, struct rp_limiter *lim,
				u64 now)
{
	while (qcn_rp_timer(&lim->rp, &q->p, now, get_random_u32()) ==
	       QCN_RP_EV_INCREASE)
		;
	return !lim->rp.active;
}

static void rp_wake_insert(struct rp_sched *q, struct rp_limiter *lim)
{
	struct rb_node **p = &q->wake.rb_node, *parent = NULL;

	while (*p) {
		struct rp_limiter *o = rb_entry(*p, struct rp_limiter, wake_node);

		parent = *p;
		if (lim->wake_ns < o->wake_ns)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&lim->wake_node, parent, p);
	rb_insert_color(&lim->wake_node, &q->wake);
}

/* Under q->lock: arm q->timer for the first wake-up, if it is earlier. */
static void rp_timer_arm(struct rp_sched *q)
{
	struct rb_node *first = rb_first(&q->wake);
	u64 at;

	if (!first)
		return;
	at = rb_entry(first, struct rp_limiter, wake_node)->wake_ns;
	if (q->timer_at && q->timer_at <= at)
		return;
	q->timer_at = at;
	hrtimer_start(&q->timer, ns_to_ktime(at), HRTIMER_MODE_ABS_SOFT);
}

/* Under q->lock: lim holds nothing and its flow has not sent for RP_FLOW_AGE */
static bool rp_limiter_aged(const struct rp_limiter *lim)
{
	return !lim->qlen &&
	       time_after_eq(jiffies, lim->flow->last_tx + RP_FLOW_AGE);
}

/*
 * Under q->lock: when must the timer visit lim (see above)?  By the time
 * its flow would age out if it sent nothing more, and for a QCN limiter
 * by its release at line rate as predicted.
 */
static void rp_limiter_plan(struct rp_sched *q, struct rp_limiter *lim)
{
	long age = (long)(lim->flow->last_tx + RP_FLOW_AGE - jiffies);
	/* a limiter still sending what an aged flow queued: look again later */
	u64 aged = ktime_get_ns() +
		   jiffies_to_nsecs(age > 0 ? age : RP_FLOW_AGE);
	struct qcn_rp rp = lim->rp;
	u64 at = rp.timer_expiry_ns;
	int i;

	/*
	 * N-AIMD and QCN-AIMD limiters have no timer: only CNMs and the
	 * packets they send move them
	 */
	if (!qcn_rp_has_timer(&q->p)) {
		at = aged;
	} else {
		for (i = 0; i < RP_WAKE_EXPIRIES && rp.active; i++) {
			at = rp.timer_expiry_ns;
			qcn_rp_timer(&rp, &q->p, at, get_random_u32());
		}
		at = min(at, aged);
	}
	if (!RB_EMPTY_NODE(&lim->wake_node))
		rb_erase(&lim->wake_node, &q->wake);
	lim->wake_ns = at;
	rp_wake_insert(q, lim);
	rp_timer_arm(q);
}

static enum hrtimer_restart rp_timer(struct hrtimer *timer)
{
	struct rp_sched *q = container_of(timer, struct rp_sched, timer);
	u64 now = ktime_get_ns();
	struct rp_limiter *lim;
	struct rb_node *first;

	spin_lock(&q->lock);
	if (q->dead) {
		q->timer_at = 0;
		spin_unlock(&q->lock);
		return HRTIMER_NORESTART;
	}
	/* no re-arming in the loop: every re-planned wake_ns is > now */
	q->timer_at = now;
	while ((first = rb_first(&q->wake))) {
		lim = rb_entry(first, struct rp_limiter, wake_node);
		if (lim->wake_ns > now)
			break;
		if (rp_limiter_catch_up(q, lim, now)) {
			rp_limiter_release(q, lim);	/* off q->wake either way */
		} else if (rp_limiter_aged(lim)) {
			rp_limiter_free(q, lim);
			q->st.limiters_released++;
			q->st.limiters_aged++;
		} else {
			rp_limiter_plan(q, lim);
		}
	}
	q->timer_at = 0;
	rp_timer_arm(q);
	spin_unlock(&q->lock);
	return HRTIMER_NORESTART;
}

/*
 * Under q->lock: bring lim (may be NULL) up to now before it is used;
 * NULL if the core released it (its packets went to the FIFO).
 */
static struct rp_limiter *rp_limiter_touch(struct rp_sched *q,
					   struct rp_limiter *lim, u64 now)
{
	if (!lim || !rp_limiter_catch_up(q, lim, now) ||
	    !rp_limiter_release(q, lim))
		return lim;
	return NULL;
}

/*
 * Under q->lock: a new limiter for f, inactive at the max rate (the
 * caller starts it); NULL, counted in limiters_refused, when `limiters`
 * are all taken or there is no memory.
 */
static struct rp_limiter *rp_limiter_new(struct rp_sched *q, struct rp_flow *f)
{
	struct rp_limiter *lim;

	if (q->nlim >= q->max_limiters) {
		q->st.limiters_refused++;
		return NULL;
	}
	lim = kmem_cache_zalloc(rp_limiter_cache, GFP_ATOMIC | __GFP_NOWARN);
	if (!lim || xa_alloc_cyclic(&q->ids, &lim->id, lim,
				    XA_LIMIT(1, RP_MAX_LIMITERS),
				    &q->next_id, GFP_ATOMIC | __GFP_NOWARN) < 0) {
		if (lim)
			kmem_cache_free(rp_limiter_cache, lim);
		q->st.limiters_refused++;
		return NULL;
	}
	qcn_rp_init(&lim->rp, &q->p);
	lim->flow = f;
	lim->prio = q->pfc ? f->prio : 0;
	lim->hold = q->direct_in[lim->prio];
	RB_CLEAR_NODE(&lim->wake_node);
	list_add_tail(&lim->list, &q->limiters);
	q->nlim++;
	q->st.limiters_created++;
	f->lim = lim;
	return lim;
}

/*
 * Under q->lock: f is new (its first frame is being queued) and the
 * qdisc has a start-rate: f starts limited at it, as the RPs of the
 * convergence paper's stage three start at given rates (qcn_rp_start():
 * as just after a CNM that cut it there; in the N-AIMD modes CR = TR =
 * the rate).  Without a free limiter f starts unlimited
 * (limiters_refused).
 */
static struct rp_limiter *rp_limiter_start(struct rp_sched *q, struct rp_flow *f,
					   u64 rate)
{
	struct rp_limiter *lim;

	/* rp_change() keeps min-rate <= rate < maxrate; the core agrees */
	if (!qcn_rp_start_rate(&q->p, rate))
		return NULL;
	lim = rp_limiter_new(q, f);
	if (!lim)
		return NULL;
	qcn_rp_start(&lim->rp, &q->p, rate, ktime_get_ns(), get_random_u32());
	q->st.limiters_started++;
	rp_limiter_plan(q, lim);
	return lim;
}

/* ---------------------------------------------------------- CNM intake */

/*
 * Under q->lock: apply the valid CNM m if it names a flow q's device sent
 * recently; false if it does not (q counts nothing then).
 */
static bool rp_cnm(struct rp_sched *q, const struct qcn_cnm *m)
{
	bool sgn = qcn_rp_signed(&q->p);
	struct tc_qcn_rp_flow_key key;
	struct rp_limiter *lim;
	struct rp_flow *f;
	s64 fb = 0;
	u64 now;
	u32 h;

	if (!m->qfb && !sgn)
		return false;	/* counted as cnm_qfb0 (rp_cnm_rcv()) */
	rp_key(q->flow_kind, m->dst, m->msdu, m->msdu_len, m->prio, &key);
	h = rp_hash(q, &key);
	f = rp_flow_find(q, &key, h);
	if (!f || time_after(jiffies, f->last_tx + RP_FLOW_AGE))
		return false;
	q->st.cnm_rx++;
	q->st.cnm_matched++;
	now = ktime_get_ns();
	lim = rp_limiter_touch(q, f->lim, now);
	if (sgn) {
		/* N-AIMD: the signed Fb, eq. (1) rebuilt from the CNM */
		fb = qcn_cnm_fb(m, q->p.w_exp);
		if (fb >= 0)
			q->st.cnm_positive++;
		if (!lim && fb >= 0)
			return true;	/* a flow at line rate: nothing to raise */
	}
	if (!lim) {
		lim = rp_limiter_new(q, f);
		if (!lim)
			return true;
	}
	lim->cnm_rx++;
	if (sgn) {
		if (qcn_rp_feedback(&lim->rp, &q->p, fb) == QCN_RP_EV_RELEASE) {
			rp_limiter_release(q, lim);
			return true;
		}
	} else {
		qcn_rp_cnm(&lim->rp, &q->p, m->qfb, now, get_random_u32());
	}
	lim->drain = 0;		/* limited again, if it was draining */
	rp_limiter_plan(q, lim);
	return true;
}

enum rp_cnm_verdict { RP_CNM_VALID, RP_CNM_NOT_HOST, RP_CNM_MALFORMED, RP_CNM_QFB0 };

static void rp_cnm_count(struct rp_sched *q, enum rp_cnm_verdict v)
{
	q->st.cnm_rx++;
	switch (v) {
	case RP_CNM_VALID:
		q->st.cnm_unmatched++;
		break;
	case RP_CNM_NOT_HOST:
		q->st.cnm_not_host++;
		break;
	case RP_CNM_MALFORMED:
		q->st.cnm_malformed++;
		break;
	case RP_CNM_QFB0:
		q->st.cnm_qfb0++;
		break;
	}
}

/*
 * A CNM is offered to every qcn_rp instance of the device it arrived on
 * until one has sent the flow it names: under mq (the default root of a
 * multi-queue device) there is one instance per TX queue, each seeing the
 * flows hashed to its queue.  A CNM nobody takes is counted by the
 * device's first instance.
 *
 * "Arrived on" is either device the stack names: dev, where it is
 * delivered (a VLAN device for a tagged CNM, the bond for a slave's), and
 * orig_dev, the device that received it (the VLAN's real device, the
 * slave).  The CP tags a CNM with its culprit's VID, so a host whose flows
 * leave through eth0.100 gets them on eth0.100, while qcn_rp sits on eth0,
 * whose qdisc those flows pass.
 */
static bool rp_cnm_for(const struct rp_sched *q, const struct net_device *dev,
		       const struct net_device *orig_dev)
{
	return q->ifindex == dev->ifindex || q->ifindex == orig_dev->ifindex;
}

/*
 * A CNM addressed to this host: PACKET_HOST, or a CNM with a VID the host
 * has no VLAN device for (the stack marks it PACKET_OTHERHOST and strips
 * the tag) whose destination is the receiving device's own address.
 */
static bool rp_cnm_to_host(const struct sk_buff *skb,
			   const struct net_device *orig_dev)
{
	return skb->pkt_type == PACKET_HOST ||
	       (skb->pkt_type == PACKET_OTHERHOST &&
		skb_mac_header_was_set(skb) &&
		ether_addr_equal(eth_hdr(skb)->h_dest, orig_dev->dev_addr));
}

/*
 * Without q->lock: may q have sent the flow m names?  False when no flow
 * of its hash is tracked (rp_sched.seen); true may be a collision, which
 * rp_cnm() tells under the lock.
 */
static bool rp_cnm_maybe(const struct rp_sched *q, const struct qcn_cnm *m)
{
	struct tc_qcn_rp_flow_key key;

	rp_key(READ_ONCE(q->flow_kind), m->dst, m->msdu, m->msdu_len, m->prio,
	       &key);
	return READ_ONCE(q->seen[rp_hash(q, &key) % RP_SEEN_SLOTS]);
}

static int rp_cnm_rcv(struct sk_buff *skb, struct net_device *dev,
		      struct packet_type *pt, struct net_device *orig_dev)
{
	struct rp_net *rn = net_generic(dev_net(dev), rp_net_id);
	u8 pdu[QCN_CNM_HDR_LEN + QCN_CNM_MSDU_MAX];
	u32 len = min_t(u32, skb->len, sizeof(pdu));
	struct rp_sched *q, *first = NULL;
	struct list_head *head[2];
	enum rp_cnm_verdict v;
	struct qcn_cnm m;
	bool taken = false;
	int i;

	/*
	 * A CP sends a CNM to the sampled frame's source address, never to
	 * a group; a broadcast CNM is forged (anyone on the segment can
	 * send one), and with `flow dst-mac` one naming the gateway would
	 * throttle every host's traffic to it.
	 */
	if (!rp_cnm_to_host(skb, orig_dev))
		v = RP_CNM_NOT_HOST;
	else if (skb_copy_bits(skb, 0, pdu, len) ||
		 qcn_cnm_decode(pdu, len, &m) != QCN_CNM_OK)
		v = RP_CNM_MALFORMED;
	/*
	 * qFb 0 reports no congestion: no 802.1Qau CP sends one (a sample
	 * with Fb >= 0 sends nothing) and the public RP models discard it.
	 * Acting on it would install a limiter at line rate and reset the
	 * counters of a recovering one.  The N-AIMD modes take it: a CP
	 * with signed feedback reports Fb >= 0 so (rp_cnm()).
	 */
	else if (!m.qfb)
		v = RP_CNM_QFB0;
	else
		v = RP_CNM_VALID;

	head[0] = rp_net_devs(rn, dev->ifindex);
	head[1] = orig_dev != dev ? rp_net_devs(rn, orig_dev->ifindex) : NULL;
	if (head[1] == head[0])
		head[1] = NULL;
	rcu_read_lock();
	for (i = 0; i < 2 && head[i] && !taken; i++) {
		list_for_each_entry_rcu(q, head[i], net_node) {
			if (!rp_cnm_for(q, dev, orig_dev))
				continue;
			if (!first)
				first = q;
			if (v != RP_CNM_VALID && v != RP_CNM_QFB0)
				break;
			if (!rp_cnm_maybe(q, &m))
				continue;
			spin_lock(&q->lock);
			taken = !q->dead && rp_cnm(q, &m);
			spin_unlock(&q->lock);
			if (taken)
				break;
		}
	}
	if (first && !taken) {
		spin_lock(&first->lock);
		if (v == RP_CNM_QFB0 && qcn_rp_signed(&first->p))
			v = RP_CNM_VALID;	/* a signed CNM nobody sent to */
		if (!first->dead)
			rp_cnm_count(first, v);
		spin_unlock(&first->lock);
	}
	rcu_read_unlock();
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type rp_cnm_pt __read_mostly = {
	.type	= cpu_to_be16(ETH_P_CNM),
	.func	= rp_cnm_rcv,
};

/* ---------------------------------------------------------- PFC intake */

/*
 * An 802.1Qbb PFC frame (EtherType 0x8808) pauses the qcn_rp instances
 * with pfc of the device that received it, orig_dev (a bond's slave, not
 * the bond): a PFC frame pauses one link.  The state is written under its
 * own lock (qcn_pfc_rx_frame()), never q->lock; a pause that ends early
 * kicks the qdisc, under q->lock, where q->dead says whether q->sch is
 * still there (a qdisc whose creation fails after ->init is freed without
 * a grace period).  A device that is a bridge port sees no PFC here: its
 * rx_handler drops the frames (qcn honours PFC there).
 */
static int rp_pfc_rcv(struct sk_buff *skb, struct net_device *dev,
		      struct packet_type *pt, struct net_device *orig_dev)
{
	struct rp_net *rn = net_generic(dev_net(orig_dev), rp_net_id);
	u64 now = ktime_get_ns();
	struct rp_sched *q;

	rcu_read_lock();
	list_for_each_entry_rcu(q, rp_net_devs(rn, orig_dev->ifindex), net_node) {
		if (q->ifindex != orig_dev->ifindex || !READ_ONCE(q->pfc) ||
		    !qcn_pfc_rx_frame(&q->pfc_rx, skb, now))
			continue;
		spin_lock(&q->lock);
		if (!q->dead && READ_ONCE(q->sch->q.qlen))
			__netif_schedule(qdisc_root(q->sch));
		spin_unlock(&q->lock);
	}
	rcu_read_unlock();
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type rp_pfc_pt __read_mostly = {
	.type	= cpu_to_be16(ETH_P_PAUSE),
	.func	= rp_pfc_rcv,
};

/*
 * Under the root lock and q->lock: pfc turns on or off.  Every queued
 * packet moves to its band under the new setting (the FIFOs' in band
 * order, each band's in its own), each limiter to its head's band, and a
 * limiter waits for everything its band's FIFO holds now, so that no
 * flow's packets overtake each other.
 */
static void rp_resort(struct rp_sched *q, bool pfc)
{
	struct sk_buff *head = NULL, **tail = &head, *skb;
	struct rp_limiter *lim;
	bool queued;
	u32 b;

	for (b = 0; b < RP_NPRIO; b++) {
		while ((skb = __qdisc_dequeue_head(&q->direct[b]))) {
			*tail = skb;
			tail = &skb->next;
		}
		q->direct_in[b] = 0;
		q->direct_out[b] = 0;
	}
	WRITE_ONCE(q->pfc, pfc);
	while ((skb = head)) {
		head = skb->next;
		skb_mark_not_on_list(skb);
		rp_cb(skb)->band = rp_skb_band(q, skb);
		rp_direct_add(q, skb);
	}
	list_for_each_entry(lim, &q->limiters, list) {
		queued = lim->queued;
		rp_sched_remove(q, lim);
		for (skb = lim->head; skb; skb = skb->next)
			rp_cb(skb)->band = rp_skb_band(q, skb);
		if (lim->head)
			lim->prio = rp_cb(lim->head)->band;
		else
			lim->prio = pfc && lim->flow ? lim->flow->prio : 0;
		lim->hold = q->direct_in[lim->prio];
		if (queued)
			rp_sched_insert(q, lim);
	}
	q->band = 0;
}

/* ------------------------------------------------------------ qdisc ops */

/* Under q->lock: queue one frame on lim, behind its queued ones. */
static void rp_limiter_add(struct rp_sched *q, struct rp_limiter *lim,
			   struct sk_buff *skb)
{
	if (lim->tail)
		lim->tail->next = skb;
	else
		lim->head = skb;
	lim->tail = skb;
	skb->next = NULL;
	lim->qlen++;
	lim->backlog += qdisc_pkt_len(skb);
	if (!lim->queued) {
		u64 now = ktime_get_ns();
		u8 b = rp_cb(skb)->band;

		if (lim->time_next < now)
			lim->time_next = now;
		/*
		 * An idle limiter takes its flow's band from the frame
		 * (pfc was turned on since, or the flow's priority changed),
		 * behind what that band's FIFO holds
		 */
		if (b != lim->prio) {
			lim->prio = b;
			lim->hold = q->direct_in[b];
		}
		rp_sched_insert(q, lim);
	}
	q->st.throttled++;
}

/*
 * A GSO skb of a limited flow goes on its limiter as its Ethernet frames,
 * each paced at CR and counted by the byte counter, as a NIC's limiter
 * paces the frames its TSO engine cuts.  Pacing the 64 KB skb as one unit
 * would send line-rate bursts of 44 frames at any CR, and a CP with Qeq
 * 26 KB would see congestion at every average rate.  Unlimited flows keep
 * their GSO skbs (no cost while QCN is idle).
 *
 * Called without q->lock: the skb is segmented first, so that the CNM
 * handler and the timer do not wait for it; the flow's limiter is looked
 * up again after (it may have been released meanwhile: the frames then
 * go to the FIFO).
 */
static int rp_enqueue_gso(struct rp_sched *q, struct sk_buff *skb,
			  const struct tc_qcn_rp_flow_key *key, u32 h,
			  struct Qdisc *sch, struct sk_buff **to_free)
{
	unsigned int prev_len = qdisc_pkt_len(skb), len = 0, nb = 0;
	struct sk_buff *segs, *next;
	struct rp_limiter *lim;
	struct rp_flow *f;

	segs = qcn_gso_segment(skb, sch, to_free);
	if (!segs)
		return NET_XMIT_DROP;
	spin_lock(&q->lock);
	q->st.gso_split++;
	f = rp_flow_find(q, key, h);
	lim = f ? f->lim : NULL;
	skb_list_walk_safe(segs, segs, next) {
		skb_mark_not_on_list(segs);
		rp_cb(segs)->band = rp_skb_band(q, segs);
		rp_charge(q, segs);
		if (lim)
			rp_limiter_add(q, lim, segs);
		else
			rp_direct_add(q, segs);
		qdisc_qstats_backlog_inc(sch, segs);
		sch->q.qlen++;
		nb++;
		len += qdisc_pkt_len(segs);
	}
	spin_unlock(&q->lock);
	return qcn_gso_enqueued(sch, nb, prev_len, len);
}

static int rp_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		      struct sk_buff **to_free)
{
	struct rp_sched *q = rp_q(sch);
	struct tc_qcn_rp_flow_key key;
	u32 len = qdisc_pkt_len(skb);
	struct rp_limiter *lim;
	struct rp_flow *f;
	bool learned = false;
	u64 start;
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
	if (unlikely(q->memory_usage + skb->truesize > READ_ONCE(q->memory_limit))) {
		q->st.memory_drops++;
		goto drop;
	}
	f = rp_flow_find(q, &key, h);
	if (!f) {
		if (q->nflows >= RP_MAX_FLOWS)
			rp_flow_gc(q, b);
		if (q->nflows < RP_MAX_FLOWS) {
			f = kmem_cache_zalloc(rp_flow_cache,
					      GFP_ATOMIC | __GFP_NOWARN);
			if (f) {
				f->key = key;
				f->hash = h;
				hlist_add_head(&f->node, &q->flows[b]);
				rp_seen_inc(q, h);
				q->nflows++;
				learned = true;
			}
		}
	}
	rp_cb(skb)->band = rp_skb_band(q, skb);
	lim = f ? f->lim : NULL;
	if (f) {
		f->last_tx = jiffies;
		f->prio = rp_cb(skb)->band;
	}
	start = READ_ONCE(q->start_rate);
	if (learned && start)
		lim = rp_limiter_start(q, f, start);
	/* an idle limiter's timer has not run since it went idle */
	if (lim && !lim->queued)
		lim = rp_limiter_touch(q, lim, ktime_get_ns());
	/*
	 * One throttled flow (perhaps by a forged CNM) must not fill the
	 * whole limit and tail-drop every unthrottled flow: as fq's
	 * flow_limit.
	 */
	if (lim && unlikely(lim->qlen >= READ_ONCE(q->flow_limit))) {
		q->st.flow_limit_drops++;
		goto drop;
	}
	if (lim && skb_is_gso(skb)) {
		spin_unlock(&q->lock);
		return rp_enqueue_gso(q, skb, &key, h, sch, to_free);
	}
	rp_charge(q, skb);
	if (lim)
		rp_limiter_add(q, lim, skb);
	else
		rp_direct_add(q, skb);
	spin_unlock(&q->lock);

	qdisc_qstats_backlog_inc(sch, skb);
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;

drop:
	spin_unlock(&q->lock);
	return qdisc_drop(skb, sch, to_free);
}

/* Under q->lock: the head of lim leaves now; pace and feed the core. */
static struct sk_buff *rp_limiter_dequeue(struct rp_sched *q,
					  struct rp_limiter *lim, u64 now)
{
	struct sk_buff *skb = lim->head;
	u32 len = qdisc_pkt_len(skb);
	enum qcn_rp_event ev;
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
	lim->time_next = base + min_t(u64, RP_MAX_FRAME_DELAY_NS,
				      qcn_rp_tx_time_ns(&lim->rp, len));

	if (lim->drain) {	/* released: at the line rate, then unlimited */
		if (--lim->drain && lim->head) {
			rp_sched_insert(q, lim);
		} else {
			rp_limiter_free(q, lim);
			q->st.limiters_released++;
		}
		return skb;
	}
	ev = qcn_rp_tx(&lim->rp, &q->p, len, get_random_u32());
	if (ev != QCN_RP_EV_NONE && qcn_rp_signed(&q->p))
		q->st.ap_steps++;	/* AP-N-AIMD: the averaging step */
	if (ev == QCN_RP_EV_INCREASE)
		while (qcn_rp_tx(&lim->rp, &q->p, 0, get_random_u32()) ==
		       QCN_RP_EV_INCREASE)
			;
	if (lim->rp.active)
		rp_limiter_catch_up(q, lim, now);
	if (lim->rp.active ? !!lim->head : !rp_limiter_release(q, lim))
		rp_sched_insert(q, lim);
	return skb;
}

/*
 * Under q->lock, pfc: the next packet of the bands not paused, the first
 * limiter due among theirs before their FIFOs, which take turns packet by
 * packet; NULL with *wake the earliest time a limiter falls due or a
 * pause that holds packets back ends (0: nothing queued).
 */
static struct sk_buff *rp_pfc_dequeue(struct rp_sched *q, u64 *wake)
{
	struct rp_limiter *lim, *due = NULL;
	u64 now = ktime_get_ns(), at;
	struct rb_node *first;
	u32 b, ready = 0;

	*wake = 0;
	for (b = 0; b < RP_NPRIO; b++) {
		first = rb_first(&q->sched[b]);
		if (!first && !q->direct[b].qlen)
			continue;
		at = qcn_pfc_rx_until(&q->pfc_rx, b);
		if (at <= now) {
			if (q->direct[b].qlen)
				ready |= BIT(b);
			if (!first)
				continue;
			lim = rb_entry(first, struct rp_limiter, rb);
			/* a held limiter: its band's FIFO is not empty */
			if (rp_limiter_held(q, lim))
				continue;
			if (lim->time_next <= now) {
				if (!due || lim->time_next < due->time_next)
					due = lim;
				continue;
			}
			at = lim->time_next;
		}
		if (!*wake || at < *wake)
			*wake = at;
	}
	if (due)
		return rp_limiter_dequeue(q, due, now);
	if (!ready)
		return NULL;
	for (b = q->band; !(ready & BIT(b)); b = (b + 1) % RP_NPRIO)
		;
	q->band = (b + 1) % RP_NPRIO;
	return rp_direct_take(q, b);
}

static struct sk_buff *rp_dequeue(struct Qdisc *sch)
{
	struct rp_sched *q = rp_q(sch);
	struct sk_buff *skb = NULL;
	struct rp_limiter *lim;
	struct rb_node *first;
	u64 now, wake = 0;

	spin_lock(&q->lock);
	if (q->pfc) {
		skb = rp_pfc_dequeue(q, &wake);
		goto out;
	}
	first = rb_first(&q->sched[0]);
	if (first) {
		now = ktime_get_ns();
		lim = rb_entry(first, struct rp_limiter, rb);
		/* a held limiter: the FIFO is not empty, serve it */
		if (rp_limiter_held(q, lim))
			;
		else if (lim->time_next <= now)
			skb = rp_limiter_dequeue(q, lim, now);
		else
			wake = lim->time_next;
	}
	if (!skb)
		skb = rp_direct_take(q, 0);
out:
	if (skb)
		rp_uncharge(q, skb);
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

/* Under RTNL (reset, destroy): drop every queued packet. */
static void rp_purge(struct rp_sched *q, bool free_limiters)
{
	struct rp_limiter *lim, *tmp;
	u32 b;

	list_for_each_entry_safe(lim, tmp, &q->limiters, list) {
		if (lim->head)
			rtnl_kfree_skbs(lim->head, lim->tail);
		lim->head = NULL;
		lim->tail = NULL;
		lim->qlen = 0;
		lim->backlog = 0;
		rp_sched_remove(q, lim);
		if (free_limiters)
			rp_limiter_free(q, lim);
	}
	for (b = 0; b < RP_NPRIO; b++) {
		if (q->direct[b].head)
			rtnl_kfree_skbs(q->direct[b].head, q->direct[b].tail);
		q->direct[b].head = NULL;
		q->direct[b].tail = NULL;
		q->direct[b].qlen = 0;
		q->direct_out[b] = q->direct_in[b];
	}
	q->memory_usage = 0;
}

/* Packets dropped under q->lock, freed and accounted after it. */
struct rp_drops {
	struct sk_buff *head, *tail;
	unsigned int n, len;
};

static void rp_drops_add(struct Qdisc *sch, struct rp_sched *q,
			 struct rp_drops *d, struct sk_buff *skb)
{
	skb->next = NULL;
	if (d->tail)
		d->tail->next = skb;
	else
		d->head = skb;
	d->tail = skb;
	d->n++;
	d->len += qdisc_pkt_len(skb);
	rp_uncharge(q, skb);
	qdisc_qstats_backlog_dec(sch, skb);
	qdisc_qstats_drop(sch);
	sch->q.qlen--;
	q->st.drops++;
}

/* Under q->lock: the head of lim is dropped (lim keeps its time_next). */
static struct sk_buff *rp_limiter_drop_head(struct rp_sched *q,
					    struct rp_limiter *lim)
{
	struct sk_buff *skb = lim->head;

	lim->head = skb->next;
	if (!lim->head) {
		lim->tail = NULL;
		rp_sched_remove(q, lim);
	}
	skb_mark_not_on_list(skb);
	lim->qlen--;
	lim->backlog -= qdisc_pkt_len(skb);
	return skb;
}

/*
 * Under the root lock (RTNL held): drop packets until the backlog fits
 * limit, the unlimited FIFOs' oldest first, then one oldest packet of
 * each limiter in turn; freed after q->lock, accounted up the tree once.
 */
static void rp_trim(struct Qdisc *sch, struct rp_sched *q, u32 limit)
{
	struct rp_drops d = { };
	struct rp_limiter *lim, *tmp;
	struct sk_buff *skb;
	bool any = true;
	u32 b;

	spin_lock_bh(&q->lock);
	for (b = 0; b < RP_NPRIO; b++)
		while (sch->qstats.backlog > limit &&
		       (skb = rp_direct_take(q, b)))
			rp_drops_add(sch, q, &d, skb);
	while (sch->qstats.backlog > limit && any) {
		any = false;
		list_for_each_entry_safe(lim, tmp, &q->limiters, list) {
			if (sch->qstats.backlog <= limit)
				break;
			if (lim->head) {
				rp_drops_add(sch, q, &d, rp_limiter_drop_head(q, lim));
				any = true;
			}
			/* a released limiter emptied here has nothing to drain */
			if (lim->drain && !lim->qlen)
				rp_limiter_release(q, lim);
		}
	}
	spin_unlock_bh(&q->lock);
	if (!d.n)
		return;
	rtnl_kfree_skbs(d.head, d.tail);
	qdisc_tree_reduce_backlog(sch, d.n, d.len);
}

static void rp_flows_free(struct rp_sched *q)
{
	struct hlist_node *tmp;
	struct rp_flow *f;
	u32 b;

	for (b = 0; b < RP_FLOW_BUCKETS; b++)
		hlist_for_each_entry_safe(f, tmp, &q->flows[b], node) {
			hlist_del(&f->node);
			kmem_cache_free(rp_flow_cache, f);
		}
	q->nflows = 0;
	memset(q->seen, 0, sizeof(q->seen));
}

static void rp_reset(struct Qdisc *sch)
{
	struct rp_sched *q = rp_q(sch);

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
	.min = RP_MIN_PERIOD_US, .max = TC_QCN_RP_MAX_TIME,
};

static struct netlink_range_validation rp_byte_reset_range = {
	.min = RP_MIN_BYTE_RESET, .max = U32_MAX,
};

static struct netlink_range_validation rp_limiters_range = {
	.min = 1, .max = RP_MAX_LIMITERS,
};

static struct netlink_range_validation rp_limit_range = {
	.min = 1, .max = TC_QCN_RP_MAX_LIMIT,
};

static struct netlink_range_validation rp_memory_range = {
	.min = 1, .max = 1U << 31,
};

static struct netlink_range_validation rp_threshold_range = {
	.min = 1, .max = TC_QCN_RP_MAX_THRESHOLD,
};

static struct netlink_range_validation rp_gain_range = {
	.min = 0, .max = TC_QCN_RP_MAX_GAIN,
};

static struct netlink_range_validation rp_ap_pkts_range = {
	.min = 1, .max = TC_QCN_RP_MAX_AP_PKTS,
};

static struct netlink_range_validation rp_fb_unit_range = {
	.min = 1, .max = TC_QCN_RP_MAX_FB_UNIT,
};

static const struct nla_policy rp_policy[TCA_QCN_RP_MAX + 1] = {
	[TCA_QCN_RP_MAX_RATE]	 = NLA_POLICY_FULL_RANGE(NLA_U64, &rp_rate_range),
	[TCA_QCN_RP_GD]		 = NLA_POLICY_MAX(NLA_U32, QCN_RP_MAX_GD_SHIFT),
	[TCA_QCN_RP_AI_RATE]	 = NLA_POLICY_FULL_RANGE(NLA_U64, &rp_rate0_range),
	[TCA_QCN_RP_HAI_RATE]	 = NLA_POLICY_FULL_RANGE(NLA_U64, &rp_rate0_range),
	[TCA_QCN_RP_BYTE_RESET]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_byte_reset_range),
	[TCA_QCN_RP_TIME_RESET]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_time_range),
	[TCA_QCN_RP_THRESHOLD]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_threshold_range),
	[TCA_QCN_RP_MIN_RATE]	 = NLA_POLICY_FULL_RANGE(NLA_U64, &rp_rate_range),
	[TCA_QCN_RP_MIN_DEC]	 = NLA_POLICY_MAX(NLA_U32, TC_QCN_RP_MAX_MIN_DEC),
	[TCA_QCN_RP_MODE]	 = NLA_POLICY_MAX(NLA_U8, TC_QCN_RP_MODE_MAX),
	[TCA_QCN_RP_QCNT_PERIOD] = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_time_range),
	[TCA_QCN_RP_LIMITERS]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_limiters_range),
	[TCA_QCN_RP_FLOW]	 = NLA_POLICY_MAX(NLA_U8, TC_QCN_RP_FLOW_MAX),
	[TCA_QCN_RP_LIMIT]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_limit_range),
	[TCA_QCN_RP_JITTER]	 = NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_QCN_RP_FLOW_LIMIT]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_pos_range),
	[TCA_QCN_RP_MEMORY_LIMIT] = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_memory_range),
	[TCA_QCN_RP_NAIMD_GI]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_gain_range),
	[TCA_QCN_RP_NAIMD_RU]	 = NLA_POLICY_FULL_RANGE(NLA_U64, &rp_rate0_range),
	[TCA_QCN_RP_NAIMD_GD]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_gain_range),
	[TCA_QCN_RP_FB_UNIT]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_fb_unit_range),
	[TCA_QCN_RP_AP_PKTS]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &rp_ap_pkts_range),
	[TCA_QCN_RP_W_EXP]	 = NLA_POLICY_RANGE(NLA_S32, QCN_CP_W_EXP_MIN,
						    QCN_CP_W_EXP_MAX),
	[TCA_QCN_RP_START_RATE]	 = NLA_POLICY_FULL_RANGE(NLA_U64, &rp_rate0_range),
	[TCA_QCN_RP_PFC]	 = NLA_POLICY_MAX(NLA_U8, 1),
};

static int rp_change(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct rp_sched *q = rp_q(sch);
	struct nlattr *tb[TCA_QCN_RP_MAX + 1];
	struct qcn_rp_params p;
	u32 limit, max_limiters, flow_limit, memory_limit;
	struct rp_limiter *lim;
	bool mode_changed, pfc, pfc_changed;
	u64 start_rate;
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
	flow_limit = q->flow_limit;
	memory_limit = q->memory_limit;
	max_limiters = q->max_limiters;
	start_rate = q->start_rate;
	kind = q->flow_kind;
	pfc = q->pfc;
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
	if (tb[TCA_QCN_RP_FLOW_LIMIT])
		flow_limit = nla_get_u32(tb[TCA_QCN_RP_FLOW_LIMIT]);
	if (tb[TCA_QCN_RP_MEMORY_LIMIT])
		memory_limit = nla_get_u32(tb[TCA_QCN_RP_MEMORY_LIMIT]);
	if (tb[TCA_QCN_RP_NAIMD_GI])
		p.naimd_gi = nla_get_u32(tb[TCA_QCN_RP_NAIMD_GI]);
	if (tb[TCA_QCN_RP_NAIMD_RU])
		p.naimd_ru = nla_get_u64(tb[TCA_QCN_RP_NAIMD_RU]) * 8;
	if (tb[TCA_QCN_RP_NAIMD_GD])
		p.naimd_gd = nla_get_u32(tb[TCA_QCN_RP_NAIMD_GD]);
	if (tb[TCA_QCN_RP_FB_UNIT])
		p.fb_unit = nla_get_u32(tb[TCA_QCN_RP_FB_UNIT]);
	if (tb[TCA_QCN_RP_AP_PKTS])
		p.ap_pkts = nla_get_u32(tb[TCA_QCN_RP_AP_PKTS]);
	if (tb[TCA_QCN_RP_W_EXP])
		p.w_exp = nla_get_s32(tb[TCA_QCN_RP_W_EXP]);
	if (tb[TCA_QCN_RP_START_RATE])
		start_rate = nla_get_u64(tb[TCA_QCN_RP_START_RATE]) * 8;
	if (tb[TCA_QCN_RP_PFC])
		pfc = nla_get_u8(tb[TCA_QCN_RP_PFC]);

	if (p.min_rate > p.max_rate) {
		NL_SET_ERR_MSG(extack, "qcn_rp: min-rate must not exceed maxrate");
		return -EINVAL;
	}
	/*
	 * Without any increase a second cut leaves TR below maxrate for
	 * good: every limiter would stay, paced and re-planned, forever.
	 */
	if (!qcn_rp_signed(&p) && !p.ai_rate && !p.hai_rate) {
		NL_SET_ERR_MSG(extack,
			       "qcn_rp: ai-rate and hai-rate both 0: a limiter could never be released");
		return -EINVAL;
	}
	/*
	 * A flow at maxrate has no limiter, and below min-rate the core
	 * would raise it: a start-rate out of that range is a mistake, not
	 * a request to turn the option off (0 does that).
	 */
	if (start_rate && start_rate >= p.max_rate) {
		NL_SET_ERR_MSG(extack, "qcn_rp: start-rate must be below maxrate (0 turns it off)");
		return -EINVAL;
	}
	if (start_rate && start_rate < p.min_rate) {
		NL_SET_ERR_MSG(extack, "qcn_rp: start-rate must not be below min-rate");
		return -EINVAL;
	}
	/* QCN-AIMD increases by R_AI alone (eq. 27): R_HAI does not help */
	if (p.mode == QCN_RP_MODE_AIMD && !p.ai_rate) {
		NL_SET_ERR_MSG(extack,
			       "qcn_rp: mode qcn-aimd with ai-rate 0: a limiter could never be released");
		return -EINVAL;
	}

	/*
	 * A pause in force is not carried across turning pfc on or off:
	 * the state is cleared while the receive handler leaves it alone
	 * (q->pfc false), before pfc goes on, after it went off.
	 */
	pfc_changed = pfc != q->pfc;
	if (pfc_changed && pfc)
		qcn_pfc_rx_clear(&q->pfc_rx);
	/* quanta are 512 bit times of the line rate */
	qcn_pfc_rx_set_bps(&q->pfc_rx, p.max_rate);

	sch_tree_lock(sch);
	spin_lock_bh(&q->lock);
	if (pfc_changed)
		rp_resort(q, pfc);
	mode_changed = p.mode != q->p.mode;
	q->p = p;
	list_for_each_entry(lim, &q->limiters, list) {
		if (mode_changed)
			break;		/* all released below */
		if (lim->drain)
			continue;	/* released, sending what it holds */
		if (lim->rp.cr > p.max_rate)
			lim->rp.cr = p.max_rate;
		rp_limiter_plan(q, lim);	/* the new parameters' pace */
	}
	WRITE_ONCE(q->limit, limit);
	WRITE_ONCE(q->flow_limit, flow_limit);
	WRITE_ONCE(q->memory_limit, memory_limit);
	WRITE_ONCE(q->max_limiters, max_limiters);
	WRITE_ONCE(q->start_rate, start_rate);	/* flows learned from now on */
	/*
	 * keys change meaning, or the limiters' state does (a QCN limiter
	 * has counters and a timer, an N-AIMD one neither): every flow
	 * starts over, unlimited
	 */
	if (kind != q->flow_kind || mode_changed) {
		while (!list_empty(&q->limiters)) {
			lim = list_first_entry(&q->limiters, struct rp_limiter, list);
			rp_limiter_free(q, lim);
			q->st.limiters_released++;
		}
		rp_flows_free(q);
		WRITE_ONCE(q->flow_kind, kind);
	}
	spin_unlock_bh(&q->lock);
	rp_trim(sch, q, limit);
	sch_tree_unlock(sch);
	if (pfc_changed && !pfc)
		qcn_pfc_rx_clear(&q->pfc_rx);
	/* packets a pause held back may leave now */
	if (pfc_changed && sch->q.qlen)
		__netif_schedule(qdisc_root(sch));
	return 0;
}

static int rp_init(struct Qdisc *sch, struct nlattr *opt,
		   struct netlink_ext_ack *extack)
{
	struct net_device *dev = qdisc_dev(sch);
	struct rp_net *rn = net_generic(dev_net(dev), rp_net_id);
	struct ethtool_link_ksettings ks;
	u64 line = RP_DEF_MAX_RATE;
	struct rp_sched *q;
	int err, i;

	/* flows and CNMs are keyed by Ethernet addresses (rp_key()) */
	if (dev->type != ARPHRD_ETHER) {
		NL_SET_ERR_MSG(extack, "qcn_rp: needs an Ethernet device");
		return -EOPNOTSUPP;
	}
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q) {
		NL_SET_ERR_MSG(extack, "qcn_rp: no memory");
		return -ENOMEM;
	}
	*(struct rp_sched **)qdisc_priv(sch) = q;
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->limiters);
	xa_init_flags(&q->ids, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&q->net_node);
	for (i = 0; i < RP_NPRIO; i++)
		q->sched[i] = RB_ROOT;
	q->wake = RB_ROOT;
	qcn_pfc_rx_init(&q->pfc_rx);
	q->sch = sch;
	q->ifindex = dev->ifindex;
	q->seed = get_random_u32();
	qdisc_watchdog_init(&q->watchdog, sch);
	hrtimer_init(&q->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	q->timer.function = rp_timer;

	/* max rate: the link speed when the device knows it (RTNL is held) */
	if (!__ethtool_get_link_ksettings(dev, &ks) &&
	    ks.base.speed && ks.base.speed != SPEED_UNKNOWN)
		line = (u64)ks.base.speed * 1000000ULL;
	qcn_rp_params_default(&q->p, line);
	if (q->p.min_rate > line)
		q->p.min_rate = line;
	q->limit = RP_DEF_LIMIT;
	q->flow_limit = RP_DEF_FLOW_LIMIT;
	q->memory_limit = RP_DEF_MEMORY_LIMIT;
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
	list_add_tail_rcu(&q->net_node, rp_net_devs(rn, q->ifindex));
	spin_unlock_bh(&rn->lock);
	return 0;
}

static void rp_destroy(struct Qdisc *sch)
{
	struct rp_sched *q = rp_q(sch);
	struct rp_net *rn = net_generic(dev_net(qdisc_dev(sch)), rp_net_id);

	if (!q)
		return;
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
	xa_destroy(&q->ids);
	/* the CNM handler may hold q until a grace period has passed */
	kfree_rcu(q, rcu);
}

static int rp_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct rp_sched *q = rp_q(sch);
	struct qcn_rp_params p;
	struct nlattr *opts;
	u32 limit, limiters, flow_limit, memory_limit;
	u64 start_rate;
	bool pfc;
	u8 kind;

	spin_lock_bh(&q->lock);
	p = q->p;
	limit = q->limit;
	flow_limit = q->flow_limit;
	memory_limit = q->memory_limit;
	limiters = q->max_limiters;
	start_rate = q->start_rate;
	kind = q->flow_kind;
	pfc = q->pfc;
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
	    nla_put_u8(skb, TCA_QCN_RP_JITTER, p.jitter) ||
	    nla_put_u32(skb, TCA_QCN_RP_FLOW_LIMIT, flow_limit) ||
	    nla_put_u32(skb, TCA_QCN_RP_MEMORY_LIMIT, memory_limit) ||
	    nla_put_u32(skb, TCA_QCN_RP_NAIMD_GI, p.naimd_gi) ||
	    nla_put_u64_64bit(skb, TCA_QCN_RP_NAIMD_RU, p.naimd_ru / 8, TCA_QCN_RP_PAD) ||
	    nla_put_u32(skb, TCA_QCN_RP_NAIMD_GD, p.naimd_gd) ||
	    nla_put_u32(skb, TCA_QCN_RP_FB_UNIT, p.fb_unit) ||
	    nla_put_u32(skb, TCA_QCN_RP_AP_PKTS, p.ap_pkts) ||
	    nla_put_s32(skb, TCA_QCN_RP_W_EXP, p.w_exp) ||
	    nla_put_u64_64bit(skb, TCA_QCN_RP_START_RATE, start_rate / 8,
			      TCA_QCN_RP_PAD) ||
	    nla_put_u8(skb, TCA_QCN_RP_PFC, pfc))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int rp_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct rp_sched *q = rp_q(sch);
	struct tc_qcn_rp_xstats st;

	spin_lock_bh(&q->lock);
	st = q->st;
	st.limiters_active = q->nlim;
	st.flows = q->nflows;
	st.memory_usage = q->memory_usage;
	st.stamp_ns = ktime_get_ns();
	spin_unlock_bh(&q->lock);
	qcn_pfc_rx_stats(&q->pfc_rx, st.pfc_rx, &st.pfc_rx_xon,
			 &st.pfc_rx_ignored, st.pfc_paused_ns);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

/* --------------------------------------- limiters as classes (read-only) */

static struct rp_limiter *rp_find_lim(struct rp_sched *q, u32 id)
{
	return xa_load(&q->ids, id);
}

static struct Qdisc *rp_leaf(struct Qdisc *sch, unsigned long arg)
{
	return NULL;
}

static unsigned long rp_find(struct Qdisc *sch, u32 classid)
{
	struct rp_sched *q = rp_q(sch);
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
	struct rp_sched *q = rp_q(sch);
	struct tc_qcn_rp_class_xstats xs = { };
	struct gnet_stats_queue qs = { };
	struct rp_limiter *lim;
	u32 qlen = 0;

	spin_lock_bh(&q->lock);
	lim = rp_find_lim(q, cl);
	/*
	 * Its timer up to now (lazy).  A limiter the core released shows
	 * state released until the hrtimer or its flow's next frame frees
	 * it: a dump does not change the classes tc is walking.
	 */
	if (lim)
		rp_limiter_catch_up(q, lim, ktime_get_ns());
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
		xs.stamp_ns = ktime_get_ns();
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
	struct rp_sched *q = rp_q(sch);
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
	.priv_size	= sizeof(struct rp_sched *),
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
	unsigned int i;

	spin_lock_init(&rn->lock);
	for (i = 0; i < ARRAY_SIZE(rn->devs); i++)
		INIT_LIST_HEAD(&rn->devs[i]);
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

	BUILD_BUG_ON(sizeof(struct tc_qcn_rp_xstats) ==
		     sizeof(struct tc_qcn_rp_class_xstats));

	rp_flow_cache = KMEM_CACHE(rp_flow, 0);
	rp_limiter_cache = KMEM_CACHE(rp_limiter, 0);
	if (!rp_flow_cache || !rp_limiter_cache) {
		err = -ENOMEM;
		goto err_cache;
	}
	err = register_pernet_subsys(&rp_net_ops);
	if (err)
		goto err_cache;
	dev_add_pack(&rp_cnm_pt);
	dev_add_pack(&rp_pfc_pt);
	err = register_qdisc(&rp_qdisc_ops);
	if (err) {
		dev_remove_pack(&rp_pfc_pt);
		dev_remove_pack(&rp_cnm_pt);
		unregister_pernet_subsys(&rp_net_ops);
		goto err_cache;
	}
	return 0;

err_cache:
	kmem_cache_destroy(rp_limiter_cache);
	kmem_cache_destroy(rp_flow_cache);
	return err;
}

static void __exit rp_module_exit(void)
{
	unregister_qdisc(&rp_qdisc_ops);
	dev_remove_pack(&rp_pfc_pt);
	dev_remove_pack(&rp_cnm_pt);	/* synchronize_net() inside */
	unregister_pernet_subsys(&rp_net_ops);
	kmem_cache_destroy(rp_limiter_cache);
	kmem_cache_destroy(rp_flow_cache);
}

module_init(rp_module_init);
module_exit(rp_module_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(QCN_VERSION);
MODULE_DESCRIPTION("QCN reaction point: per-flow rate limiters driven by 802.1Qau CNMs");
MODULE_ALIAS("net-sch-qcn_rp");
MODULE_ALIAS("sch_qcn_rp");
