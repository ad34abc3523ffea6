// SPDX-License-Identifier: GPL-2.0
/*
 * net/sched/sch_qcn: IEEE 802.1Qau Quantized Congestion Notification,
 * the congestion point (CP).
 *
 * A byte-limited queue (tail drop), optionally paced at the emulated port
 * rate, served FIFO or by per-flow deficit round robin.  Every ~150 KB of
 * arrivals (less when congested) the CP takes a sample: Fb = -(Qoff +
 * w * Qdelta) (eq. 1 of Alizadeh et al., include/qcn/qcn_cp.h).  When
 * Fb < 0 a Congestion Notification Message (CNM, ethertype 0x22E7) goes
 * back to the source of the culprit frame, chosen as
 *
 *   arrival	 the frame that completed the sampling interval (802.1Qau)
 *   occupancy	 the frame holding a uniformly random occupied byte of the
 *		 queue (QCN-OS, Gusat et al., section IV)
 *   two-samples two occupancy draws A and B; the one whose flow has the
 *		 larger path-congestion index wins, ties to B (Algorithm 1)
 *
 * Path-congestion index (two-samples): the largest normalized fill level
 * backlog/limit (qcn_culprit_fill_level(), 1/65536 units) of the qcn
 * instances of this network namespace that a frame of the flow (same
 * skb_get_hash()) crossed within the last QCN_PCI_AGE.  While any instance
 * of the namespace samples two-samples, every instance writes its fill
 * level (after the enqueue) for the flow at every arrival into a per-netns
 * table of QCN_PCI_SLOTS slots indexed by the flow hash; a slot keeps the
 * maximum until it is older than QCN_PCI_AGE, a colliding flow evicts it.
 * Updates are lockless: a racing update may lose one write, which only
 * ages the heuristic.  A flow absent from the table has index 0.
 *
 * CNMs are encoded at the sampling instant (include/qcn/qcn_cnm.h) into a
 * bounded per-qdisc ring and transmitted from a work item: through the
 * bridge when the qdisc's device is a bridge port (the bridge's forwarding
 * database sends it toward the source), otherwise out of the device the
 * culprit frame arrived on.  CNMs are never sampled themselves.
 *
 * Encapsulated priority: the VLAN PCP of a tagged frame, else skb->priority
 * when it is an 802.1p value (0..7), else 0.
 */
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include <qcn/qcn_cp.h>
#include <qcn/qcn_culprit.h>
#include <qcn/qcn_cnm.h>
#include "sch_qcn_af.h"

#define QCN_DEF_LIMIT		150000		/* bytes */
#define QCN_FLOWS		1024		/* DRR flow queues (hash buckets) */
#define QCN_CNM_RING		32		/* CNMs waiting for the work item */
#define QCN_PCI_SLOTS		1024		/* path-congestion index table */
#define QCN_PCI_AGE		(HZ / 10)	/* an index entry counts 100 ms */
#define QCN_MAX_RATE		BIT_ULL(40)	/* bytes/s, ~8.8 Tbit/s */
#define QCN_MAX_KEEPALIVE	10000000	/* us */
#define QCN_PACE_SLACK		(2 * NSEC_PER_MSEC)	/* pacing: timer latency */

/* Per-skb state while queued. */
struct qcn_skb_cb {
	u32	af_handle;	/* from qcn_af_enqueue() */
	u16	flow;		/* index into q->flows */
	u8	is_cnm;		/* a CNM: never a culprit */
};

struct qcn_flow {
	struct sk_buff	*head;
	struct sk_buff	*tail;
	struct list_head flowchain;	/* on q->active while backlogged */
	u32		backlog;	/* bytes */
	int		deficit;
};

/* A CNM encoded at a sampling instant, waiting for transmission. */
struct qcn_cnm_req {
	u8	da[ETH_ALEN];		/* the culprit's source MAC */
	u8	prio;
	u8	qfb;
	u8	mode;			/* enum tc_qcn_sample actually used */
	u8	pdu_len;
	int	ifindex;		/* the culprit's input device */
	u8	pdu[QCN_CNM_MAX_LEN];
};

struct qcn_pci_slot {
	u32		hash;
	u32		fill;		/* 1/65536 of the limit */
	unsigned long	stamp;		/* jiffies */
};

struct qcn_net {
	atomic_t	pci_users;	/* two-samples instances: the readers */
	struct qcn_pci_slot pci[QCN_PCI_SLOTS];
};

static unsigned int qcn_net_id __read_mostly;

struct qcn_sched_data {
	/* parameters: written under sch_tree_lock, READ_ONCE in dump */
	u32		limit;
	u64		rate;		/* bytes/s, 0: unpaced */
	u8		sched;		/* enum tc_qcn_sched */
	u8		sample;		/* enum tc_qcn_sample */
	u16		cpid;
	u32		keepalive;	/* us, 0: off */
	struct qcn_cp_params cp_params;

	struct qcn_flow	*flows;		/* QCN_FLOWS; FIFO uses flows[0] */
	struct list_head active;
	u32		quantum;
	u32		backlog;	/* bytes in the flow queues */
	u32		nr_active;
	u64		time_next;	/* pacing: next departure, ns */

	struct qcn_cp	cp;
	u64		ka_ref;		/* last arrival or keep-alive sample, ns */

	struct Qdisc	*sch;
	struct qcn_net	*qn;		/* this netns' path-congestion index */
	bool		pci_user;	/* counted in qn->pci_users */
	struct qcn_af	*af;
	struct qdisc_watchdog watchdog;
	struct hrtimer	ka_timer;

	spinlock_t	cnm_lock;	/* ring and the CNM counters */
	u32		cnm_head;
	u32		cnm_tail;
	struct qcn_cnm_req cnm_ring[QCN_CNM_RING];
	struct work_struct cnm_work;

	struct tc_qcn_xstats stats;	/* CNM counters under cnm_lock */
};

struct qcn_af *qcn_sched_af(struct Qdisc *sch)
{
	struct qcn_sched_data *q = qdisc_priv(sch);

	return q->af;
}

static struct qcn_skb_cb *qcn_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct qcn_skb_cb));
	return (struct qcn_skb_cb *)qdisc_skb_cb(skb)->data;
}

/* ------------------------------------------------ path-congestion index */

static void qcn_pci_update(struct qcn_net *qn, u32 hash, u32 fill)
{
	struct qcn_pci_slot *e = &qn->pci[hash & (QCN_PCI_SLOTS - 1)];
	unsigned long now = jiffies;

	if (READ_ONCE(e->hash) != hash || fill >= READ_ONCE(e->fill) ||
	    time_after(now, READ_ONCE(e->stamp) + QCN_PCI_AGE)) {
		WRITE_ONCE(e->hash, hash);
		WRITE_ONCE(e->fill, fill);
		WRITE_ONCE(e->stamp, now);
	}
}

static u32 qcn_pci_index(struct qcn_net *qn, u32 hash)
{
	struct qcn_pci_slot *e = &qn->pci[hash & (QCN_PCI_SLOTS - 1)];

	if (READ_ONCE(e->hash) != hash ||
	    time_after(jiffies, READ_ONCE(e->stamp) + QCN_PCI_AGE))
		return 0;
	return READ_ONCE(e->fill);
}

static void qcn_pci_use(struct qcn_sched_data *q, bool use)
{
	if (use == q->pci_user)
		return;
	q->pci_user = use;
	if (use)
		atomic_inc(&q->qn->pci_users);
	else
		atomic_dec(&q->qn->pci_users);
}

/* ----------------------------------------------------------- the queues */

static void qcn_flow_add(struct qcn_sched_data *q, struct sk_buff *skb)
{
	struct qcn_skb_cb *cb = qcn_cb(skb);
	struct qcn_flow *flow;

	cb->flow = q->sched == TC_QCN_SCHED_DRR ?
		   reciprocal_scale(skb_get_hash(skb), QCN_FLOWS) : 0;
	flow = &q->flows[cb->flow];
	skb->next = NULL;
	if (!flow->head)
		flow->head = skb;
	else
		flow->tail->next = skb;
	flow->tail = skb;
	flow->backlog += qdisc_pkt_len(skb);
	q->backlog += qdisc_pkt_len(skb);
	if (list_empty(&flow->flowchain)) {
		list_add_tail(&flow->flowchain, &q->active);
		flow->deficit = q->quantum;
		q->nr_active++;
	}
}

/* Next frame in service order, unlinked; NULL when empty.  No pacing. */
static struct sk_buff *qcn_flow_dequeue(struct qcn_sched_data *q)
{
	struct qcn_flow *flow;
	struct sk_buff *skb;

	while (!list_empty(&q->active)) {
		flow = list_first_entry(&q->active, struct qcn_flow, flowchain);
		if (q->sched == TC_QCN_SCHED_DRR && flow->deficit <= 0) {
			flow->deficit += q->quantum;
			list_move_tail(&flow->flowchain, &q->active);
			continue;
		}
		skb = flow->head;
		flow->head = skb->next;
		skb_mark_not_on_list(skb);
		flow->backlog -= qdisc_pkt_len(skb);
		q->backlog -= qdisc_pkt_len(skb);
		flow->deficit -= qdisc_pkt_len(skb);
		if (!flow->head) {
			flow->tail = NULL;
			list_del_init(&flow->flowchain);
			q->nr_active--;
		}
		return skb;
	}
	return NULL;
}

static struct sk_buff *qcn_dequeue_one(struct Qdisc *sch)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb = qcn_flow_dequeue(q);

	if (skb) {
		qdisc_qstats_backlog_dec(sch, skb);
		sch->q.qlen--;
	}
	return skb;
}

/* Re-sort the queued frames after a change of 'sched' (under the lock). */
static void qcn_resort(struct qcn_sched_data *q, u8 sched)
{
	struct sk_buff_head list;
	struct sk_buff *skb;

	__skb_queue_head_init(&list);
	while ((skb = qcn_flow_dequeue(q)) != NULL)
		__skb_queue_tail(&list, skb);
	q->sched = sched;
	while ((skb = __skb_dequeue(&list)) != NULL)
		qcn_flow_add(q, skb);
}

/* ------------------------------------------------------------- culprits */

/* The frame holding occupied byte 'offset' (QCN-OS), walking every flow. */
static struct sk_buff *qcn_occupied(struct qcn_sched_data *q, u32 rnd)
{
	u32 off = qcn_culprit_offset(q->backlog, rnd);
	struct qcn_flow *flow;
	struct sk_buff *skb;

	if (!q->backlog)
		return NULL;
	list_for_each_entry(flow, &q->active, flowchain) {
		if (!qcn_culprit_walk_step(&off, flow->backlog))
			continue;
		for (skb = flow->head; skb; skb = skb->next)
			if (qcn_culprit_walk_step(&off, qdisc_pkt_len(skb)))
				return skb;
		return NULL;	/* flow->backlog out of sync: not reached */
	}
	return NULL;
}

static struct sk_buff *qcn_culprit(struct Qdisc *sch, u8 *mode,
				   struct sk_buff *arrival)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct sk_buff *a, *b;

	switch (*mode) {
	case TC_QCN_SAMPLE_TWO:
		a = qcn_occupied(q, get_random_u32());
		b = qcn_occupied(q, get_random_u32());
		if (!a || !b)
			return a ? a : b;
		return qcn_culprit_two_samples(qcn_pci_index(q->qn, skb_get_hash(a)),
					       qcn_pci_index(q->qn, skb_get_hash(b))) ?
		       b : a;
	case TC_QCN_SAMPLE_OCCUPANCY:
		return qcn_occupied(q, get_random_u32());
	default:
		if (arrival)
			return arrival;
		/* keep-alive: no arrival to sample, pick by occupancy */
		*mode = TC_QCN_SAMPLE_OCCUPANCY;
		return qcn_occupied(q, get_random_u32());
	}
}

/* ----------------------------------------------------------------- CNMs */

/*
 * Encode the CNM for culprit skb into req.  Returns false when the frame
 * cannot be answered (a CNM, not Ethernet, no unicast source).
 */
static bool qcn_cnm_build(struct Qdisc *sch, struct sk_buff *skb,
			  const struct qcn_cp_sample *s, u8 qfb,
			  struct qcn_cnm_req *req)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct ethhdr _eh, *eh;
	struct qcn_cnm m = {};
	unsigned int off = offsetof(struct ethhdr, h_proto);
	__be16 _proto, *proto;
	__be16 _tci, *tci;
	int len;

	if (qcn_cb(skb)->is_cnm || dev->type != ARPHRD_ETHER)
		return false;
	eh = skb_header_pointer(skb, 0, sizeof(_eh), &_eh);
	if (!eh || !is_valid_ether_addr(eh->h_source))
		return false;

	if (skb_vlan_tag_present(skb)) {
		m.prio = skb_vlan_tag_get_prio(skb);
	} else if (eth_type_vlan(eh->h_proto)) {
		tci = skb_header_pointer(skb, off + 2, sizeof(_tci), &_tci);
		if (!tci)
			return false;
		m.prio = ntohs(*tci) >> VLAN_PRIO_SHIFT;
		off += VLAN_HLEN;
	} else {
		m.prio = skb->priority < 8 ? skb->priority : 0;
	}
	proto = skb_header_pointer(skb, off, sizeof(_proto), &_proto);
	if (!proto)
		return false;

	m.version = QCN_CNM_VERSION;
	m.qfb = qfb;
	qcn_cnm_cpid(m.cpid, dev->dev_addr, READ_ONCE(q->cpid));
	m.qoffset = qcn_cnm_q_units(s->qoff);
	m.qdelta = qcn_cnm_q_units(s->qdelta);
	ether_addr_copy(m.dst, eh->h_dest);
	m.msdu_len = min_t(unsigned int, skb->len - off, QCN_CNM_MSDU_MAX);
	if (skb_copy_bits(skb, off, m.msdu, m.msdu_len))
		return false;

	len = qcn_cnm_encode(&m, req->pdu, sizeof(req->pdu));
	if (len < 0)
		return false;
	req->pdu_len = len;
	ether_addr_copy(req->da, eh->h_source);
	req->prio = m.prio;
	req->qfb = qfb;
	req->ifindex = skb->skb_iif;
	return true;
}

/* Queue a CNM for the work item; false (counted) when the ring is full. */
static bool qcn_cnm_queue(struct qcn_sched_data *q, const struct qcn_cnm_req *req)
{
	bool queued = false;

	spin_lock(&q->cnm_lock);
	if (q->cnm_head - q->cnm_tail < QCN_CNM_RING) {
		q->cnm_ring[q->cnm_head % QCN_CNM_RING] = *req;
		q->cnm_head++;
		queued = true;
	} else {
		q->stats.cnm_fail++;
	}
	spin_unlock(&q->cnm_lock);
	if (queued)
		schedule_work(&q->cnm_work);
	return queued;
}

/* The device a CNM leaves by, held; NULL when there is none. */
static struct net_device *qcn_cnm_dev(struct net_device *port, int ifindex)
{
	struct net_device *dev = NULL;

	rcu_read_lock();
	if (netif_is_bridge_port(port))
		dev = netdev_master_upper_dev_get_rcu(port);
	else if (ifindex)
		dev = dev_get_by_index_rcu(dev_net(port), ifindex);
	if (dev && !(dev->flags & IFF_UP))
		dev = NULL;
	if (dev)
		dev_hold(dev);
	rcu_read_unlock();
	return dev;
}

static int qcn_cnm_xmit(struct net_device *port, const struct qcn_cnm_req *req)
{
	struct net_device *dev = qcn_cnm_dev(port, req->ifindex);
	unsigned int hlen, len;
	struct sk_buff *skb;
	struct ethhdr *eh;
	int ret;

	if (!dev)
		return -ENODEV;
	hlen = LL_RESERVED_SPACE(dev);
	len = max_t(unsigned int, ETH_HLEN + req->pdu_len, ETH_ZLEN);
	skb = alloc_skb(hlen + len + dev->needed_tailroom, GFP_KERNEL);
	if (!skb) {
		dev_put(dev);
		return -ENOMEM;
	}
	skb_reserve(skb, hlen);
	skb_reset_mac_header(skb);
	eh = skb_put(skb, ETH_HLEN);
	ether_addr_copy(eh->h_dest, req->da);
	ether_addr_copy(eh->h_source, port->dev_addr);
	eh->h_proto = htons(ETH_P_CNM);
	skb_put_data(skb, req->pdu, req->pdu_len);
	if (skb->len < len)
		skb_put_zero(skb, len - skb->len);
	skb_reset_network_header(skb);
	skb->protocol = htons(ETH_P_CNM);
	skb->priority = req->prio;
	skb->dev = dev;
	ret = dev_queue_xmit(skb);
	dev_put(dev);
	return net_xmit_eval(ret) ? -EIO : 0;
}

static void qcn_cnm_work(struct work_struct *work)
{
	struct qcn_sched_data *q = container_of(work, struct qcn_sched_data,
						cnm_work);
	struct net_device *port = qdisc_dev(q->sch);
	struct qcn_cnm_req req;
	int err;

	for (;;) {
		spin_lock_bh(&q->cnm_lock);
		if (q->cnm_tail == q->cnm_head) {
			spin_unlock_bh(&q->cnm_lock);
			break;
		}
		req = q->cnm_ring[q->cnm_tail % QCN_CNM_RING];
		q->cnm_tail++;
		spin_unlock_bh(&q->cnm_lock);

		err = qcn_cnm_xmit(port, &req);

		spin_lock_bh(&q->cnm_lock);
		if (err) {
			q->stats.cnm_fail++;
		} else {
			q->stats.cnm_sent[req.mode]++;
			q->stats.qfb_hist[req.qfb >> 3]++;
		}
		spin_unlock_bh(&q->cnm_lock);
		cond_resched();
	}
}

/* ------------------------------------------------------------- sampling */

/* A sampling instant (arrival NULL: keep-alive).  Under the qdisc lock. */
static void qcn_sampled(struct Qdisc *sch, const struct qcn_cp_sample *s,
			struct sk_buff *arrival)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	u8 mode = READ_ONCE(q->sample);
	struct qcn_cnm_req req;
	struct sk_buff *culprit;
	u32 handle;
	u8 qfb;

	q->stats.samples++;
	if (!arrival)
		q->stats.keepalive_samples++;
	q->stats.last_fb = s->fb;
	q->stats.last_qfb = s->qfb;

	qfb = s->congested ? s->qfb : 0;
	if (!qfb && !qcn_af_enabled(q->af))
		return;

	culprit = qcn_culprit(sch, &mode, arrival);
	if (!culprit || qcn_cb(culprit)->is_cnm) {
		if (qfb)
			q->stats.cnm_skipped++;
		return;
	}
	handle = qcn_cb(culprit)->af_handle;
	qfb = qcn_af_feedback(q->af, handle, qfb);
	if (!qfb)
		return;
	if (!qcn_cnm_build(sch, culprit, s, qfb, &req)) {
		q->stats.cnm_skipped++;
		return;
	}
	req.mode = mode;
	if (qcn_cnm_queue(q, &req))
		qcn_af_cnm_sent(q->af, handle);
}

static enum hrtimer_restart qcn_keepalive_timer(struct hrtimer *timer)
{
	struct qcn_sched_data *q = container_of(timer, struct qcn_sched_data,
						ka_timer);
	struct Qdisc *sch = q->sch;
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct qcn_cp_sample s;
	spinlock_t *root_lock;
	u64 now, ka;

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(sch));
	spin_lock(root_lock);
	ka = (u64)READ_ONCE(q->keepalive) * NSEC_PER_USEC;
	now = ktime_get_ns();
	if (qcn_cp_keepalive_due(q->backlog, q->cp_params.qeq, now,
				 q->ka_ref, ka)) {
		qcn_cp_sample_now(&q->cp, &q->cp_params, q->backlog,
				  get_random_u32(), &s);
		q->ka_ref = now;
		qcn_sampled(sch, &s, NULL);
	}
	/* an enqueue may have re-armed it while this callback waited */
	if (ka && q->backlog > q->cp_params.qeq && !hrtimer_is_queued(timer)) {
		hrtimer_set_expires(timer, ns_to_ktime(max(q->ka_ref + ka, now + 1)));
		ret = HRTIMER_RESTART;
	}
	spin_unlock(root_lock);
	rcu_read_unlock();
	return ret;
}

/* ---------------------------------------------------------- qdisc ops */

static bool qcn_skb_is_cnm(const struct sk_buff *skb)
{
	__be16 _proto, *proto;
	unsigned int off = offsetof(struct ethhdr, h_proto);

	proto = skb_header_pointer(skb, off, sizeof(_proto), &_proto);
	if (proto && eth_type_vlan(*proto))
		proto = skb_header_pointer(skb, off + VLAN_HLEN, sizeof(_proto),
					   &_proto);
	return proto && *proto == htons(ETH_P_CNM);
}

static int qcn_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct qcn_cp_sample s;
	struct qcn_skb_cb *cb;
	u32 handle, len, ka, rnd;
	bool drop;
	int ret;

	ret = qcn_af_enqueue(q->af, skb, &handle);
	if (ret) {
		if (ret & __NET_XMIT_BYPASS)
			qdisc_qstats_drop(sch);
		__qdisc_drop(skb, to_free);
		return ret;
	}

	cb = qcn_cb(skb);
	cb->af_handle = handle;
	cb->is_cnm = qdisc_dev(sch)->type == ARPHRD_ETHER && qcn_skb_is_cnm(skb);
	len = qdisc_pkt_len(skb);

	drop = sch->qstats.backlog + len > q->limit;
	if (!drop) {
		qcn_flow_add(q, skb);
		qdisc_qstats_backlog_inc(sch, skb);
		sch->q.qlen++;
	}
	if (!cb->is_cnm) {
		/* feed the index only while a two-samples instance reads it */
		if (atomic_read(&q->qn->pci_users))
			qcn_pci_update(q->qn, skb_get_hash(skb),
				       qcn_culprit_fill_level(q->backlog, q->limit));
		ka = q->keepalive;
		if (ka) {
			q->ka_ref = ktime_get_ns();
			if (q->backlog > q->cp_params.qeq &&
			    !hrtimer_is_queued(&q->ka_timer))
				hrtimer_start(&q->ka_timer,
					      ns_to_ktime(q->ka_ref + (u64)ka * NSEC_PER_USEC),
					      HRTIMER_MODE_ABS_SOFT);
		}
		/* qcn_cp_arrival() uses the draw only at a sampling instant */
		rnd = q->cp.countdown <= len ? get_random_u32() : 0;
		if (qcn_cp_arrival(&q->cp, &q->cp_params, len, q->backlog, rnd, &s))
			qcn_sampled(sch, &s, skb);
	}
	if (drop) {
		q->stats.drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	return NET_XMIT_SUCCESS;
}

static struct sk_buff *qcn_dequeue(struct Qdisc *sch)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 now = 0, rate;

	if (!sch->q.qlen)
		return NULL;
	rate = q->rate;
	if (rate) {
		now = ktime_get_ns();
		if (now < q->time_next) {
			qdisc_watchdog_schedule_ns(&q->watchdog, q->time_next);
			return NULL;
		}
	}
	skb = qcn_dequeue_one(sch);
	if (!skb)
		return NULL;
	if (rate) {
		/* a late watchdog keeps its schedule; an idle port gets no credit */
		if (now > q->time_next + QCN_PACE_SLACK)
			q->time_next = now;
		q->time_next += div64_u64((u64)qdisc_pkt_len(skb) * NSEC_PER_SEC,
					  rate);
	}
	qdisc_bstats_update(sch, skb);
	return skb;
}

static void qcn_purge(struct Qdisc *sch)
{
	struct sk_buff *skb;

	while ((skb = qcn_dequeue_one(sch)) != NULL)
		rtnl_kfree_skbs(skb, skb);
}

static void qcn_reset(struct Qdisc *sch)
{
	struct qcn_sched_data *q = qdisc_priv(sch);

	qcn_purge(sch);
	sch->qstats.backlog = 0;
	sch->q.qlen = 0;
	q->time_next = 0;
	qcn_cp_init(&q->cp, &q->cp_params, get_random_u32());
	qdisc_watchdog_cancel(&q->watchdog);
	spin_lock_bh(&q->cnm_lock);
	q->cnm_tail = q->cnm_head;	/* plain data: nothing to free */
	spin_unlock_bh(&q->cnm_lock);
	if (q->af)
		qcn_af_reset(q->af);
}

static struct netlink_range_validation qcn_limit_range = {
	.min = 1, .max = INT_MAX,
};

static struct netlink_range_validation qcn_rate_range = {
	.min = 0, .max = QCN_MAX_RATE,
};

static struct netlink_range_validation qcn_qeq_range = {
	.min = 1, .max = INT_MAX,
};

static struct netlink_range_validation qcn_interval_range = {
	.min = QCN_CP_MIN_INTERVAL, .max = INT_MAX,
};

static struct netlink_range_validation qcn_keepalive_range = {
	.min = 0, .max = QCN_MAX_KEEPALIVE,
};

static struct netlink_range_validation qcn_frac_range = {
	.min = 1, .max = QCN_FRAC_ONE - 1,
};

static struct netlink_range_validation qcn_af_ts_range = {
	.min = 1, .max = QCN_MAX_KEEPALIVE,
};

static struct netlink_range_validation qcn_af_active_range = {
	.min = 0, .max = INT_MAX,
};

static const struct nla_policy qcn_policy[TCA_QCN_MAX + 1] = {
	[TCA_QCN_LIMIT]		= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_limit_range),
	[TCA_QCN_RATE]		= NLA_POLICY_FULL_RANGE(NLA_U64, &qcn_rate_range),
	[TCA_QCN_SCHED]		= NLA_POLICY_MAX(NLA_U8, TC_QCN_SCHED_MAX),
	[TCA_QCN_QEQ]		= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_qeq_range),
	[TCA_QCN_W_EXP]		= NLA_POLICY_RANGE(NLA_S32, QCN_CP_W_EXP_MIN,
						   QCN_CP_W_EXP_MAX),
	[TCA_QCN_INTERVAL]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_interval_range),
	[TCA_QCN_SAMPLE]	= NLA_POLICY_MAX(NLA_U8, TC_QCN_SAMPLE_MAX),
	[TCA_QCN_KEEPALIVE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_keepalive_range),
	[TCA_QCN_CPID]		= { .type = NLA_U16 },
	[TCA_QCN_AF]		= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_QCN_AF_ALPHA]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_frac_range),
	[TCA_QCN_AF_TS]		= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_af_ts_range),
	[TCA_QCN_AF_BETA]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_frac_range),
	[TCA_QCN_AF_ACTIVE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_af_active_range),
};

static int qcn_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_QCN_MAX + 1];
	unsigned int dropped = 0, dropped_len = 0;
	struct qcn_cp_params p;
	struct sk_buff *skb;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG(extack, "qcn: missing options");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_QCN_MAX, opt, qcn_policy, extack);
	if (err < 0)
		return err;
	err = qcn_af_validate(tb, extack);
	if (err)
		return err;

	p = q->cp_params;
	if (tb[TCA_QCN_QEQ])
		p.qeq = nla_get_u32(tb[TCA_QCN_QEQ]);
	if (tb[TCA_QCN_W_EXP])
		p.w_exp = nla_get_s32(tb[TCA_QCN_W_EXP]);
	if (tb[TCA_QCN_INTERVAL])
		p.interval = nla_get_u32(tb[TCA_QCN_INTERVAL]);
	if (!qcn_cp_params_valid(&p)) {
		NL_SET_ERR_MSG(extack, "qcn: w or sample interval out of range");
		return -EINVAL;
	}

	sch_tree_lock(sch);
	if (tb[TCA_QCN_LIMIT])
		WRITE_ONCE(q->limit, nla_get_u32(tb[TCA_QCN_LIMIT]));
	if (tb[TCA_QCN_RATE])
		WRITE_ONCE(q->rate, nla_get_u64(tb[TCA_QCN_RATE]));
	if (tb[TCA_QCN_SAMPLE])
		WRITE_ONCE(q->sample, nla_get_u8(tb[TCA_QCN_SAMPLE]));
	qcn_pci_use(q, q->sample == TC_QCN_SAMPLE_TWO);
	if (tb[TCA_QCN_KEEPALIVE])
		WRITE_ONCE(q->keepalive, nla_get_u32(tb[TCA_QCN_KEEPALIVE]));
	if (tb[TCA_QCN_CPID])
		WRITE_ONCE(q->cpid, nla_get_u16(tb[TCA_QCN_CPID]));
	WRITE_ONCE(q->cp_params.qeq, p.qeq);
	WRITE_ONCE(q->cp_params.w_exp, p.w_exp);
	WRITE_ONCE(q->cp_params.interval, p.interval);
	if (tb[TCA_QCN_SCHED] && nla_get_u8(tb[TCA_QCN_SCHED]) != q->sched)
		qcn_resort(q, nla_get_u8(tb[TCA_QCN_SCHED]));
	if (q->af)
		qcn_af_apply(q->af, tb);

	while (sch->qstats.backlog > q->limit) {
		skb = qcn_dequeue_one(sch);
		if (!skb)
			break;
		dropped++;
		dropped_len += qdisc_pkt_len(skb);
		qdisc_qstats_drop(sch);
		rtnl_kfree_skbs(skb, skb);
	}
	qdisc_tree_reduce_backlog(sch, dropped, dropped_len);
	sch_tree_unlock(sch);
	return 0;
}

static int qcn_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	int i;

	/* everything .destroy touches first: it also runs when init fails */
	q->sch = sch;
	q->qn = net_generic(dev_net(qdisc_dev(sch)), qcn_net_id);
	spin_lock_init(&q->cnm_lock);
	INIT_WORK(&q->cnm_work, qcn_cnm_work);
	hrtimer_init(&q->ka_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	q->ka_timer.function = qcn_keepalive_timer;
	qdisc_watchdog_init(&q->watchdog, sch);
	INIT_LIST_HEAD(&q->active);

	q->af = qcn_af_create(sch, extack);
	if (!q->af)
		return -ENOMEM;
	q->flows = kvcalloc(QCN_FLOWS, sizeof(*q->flows), GFP_KERNEL);
	if (!q->flows) {
		NL_SET_ERR_MSG(extack, "qcn: no memory for the flow queues");
		return -ENOMEM;
	}
	for (i = 0; i < QCN_FLOWS; i++)
		INIT_LIST_HEAD(&q->flows[i].flowchain);

	q->limit = QCN_DEF_LIMIT;
	q->sched = TC_QCN_SCHED_FIFO;
	q->sample = TC_QCN_SAMPLE_ARRIVAL;
	q->quantum = psched_mtu(qdisc_dev(sch));
	qcn_cp_params_default(&q->cp_params);

	if (opt) {
		int err = qcn_change(sch, opt, extack);

		if (err)
			return err;
	}
	qcn_cp_init(&q->cp, &q->cp_params, get_random_u32());
	return 0;
}

static void qcn_destroy(struct Qdisc *sch)
{
	struct qcn_sched_data *q = qdisc_priv(sch);

	hrtimer_cancel(&q->ka_timer);
	qdisc_watchdog_cancel(&q->watchdog);
	cancel_work_sync(&q->cnm_work);
	qcn_pci_use(q, false);
	if (q->flows)
		qcn_purge(sch);
	kvfree(q->flows);
	if (q->af)
		qcn_af_destroy(q->af);
}

static int qcn_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_QCN_LIMIT, READ_ONCE(q->limit)) ||
	    nla_put_u64_64bit(skb, TCA_QCN_RATE, READ_ONCE(q->rate),
			      TCA_QCN_PAD) ||
	    nla_put_u8(skb, TCA_QCN_SCHED, READ_ONCE(q->sched)) ||
	    nla_put_u32(skb, TCA_QCN_QEQ, READ_ONCE(q->cp_params.qeq)) ||
	    nla_put_s32(skb, TCA_QCN_W_EXP, READ_ONCE(q->cp_params.w_exp)) ||
	    nla_put_u32(skb, TCA_QCN_INTERVAL, READ_ONCE(q->cp_params.interval)) ||
	    nla_put_u8(skb, TCA_QCN_SAMPLE, READ_ONCE(q->sample)) ||
	    nla_put_u32(skb, TCA_QCN_KEEPALIVE, READ_ONCE(q->keepalive)) ||
	    nla_put_u16(skb, TCA_QCN_CPID, READ_ONCE(q->cpid)))
		goto nla_put_failure;
	if (q->af && qcn_af_dump(q->af, skb))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int qcn_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct tc_qcn_xstats st;

	spin_lock_bh(&q->cnm_lock);
	st = q->stats;
	spin_unlock_bh(&q->cnm_lock);
	st.qold = q->cp.qold;
	st.flows = q->nr_active;
	st.af_classes = q->af ? qcn_af_tracked(q->af) : 0;
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops qcn_qdisc_ops __read_mostly = {
	.id		= "qcn",
	.priv_size	= sizeof(struct qcn_sched_data),
	.cl_ops		= &qcn_af_class_ops,
	.enqueue	= qcn_enqueue,
	.dequeue	= qcn_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= qcn_init,
	.reset		= qcn_reset,
	.destroy	= qcn_destroy,
	.change		= qcn_change,
	.dump		= qcn_dump,
	.dump_stats	= qcn_dump_stats,
	.owner		= THIS_MODULE,
};

static struct pernet_operations qcn_net_ops = {
	.id	= &qcn_net_id,
	.size	= sizeof(struct qcn_net),
};

static int __init qcn_module_init(void)
{
	int err;

	err = register_pernet_subsys(&qcn_net_ops);
	if (err)
		return err;
	err = register_qdisc(&qcn_qdisc_ops);
	if (err)
		unregister_pernet_subsys(&qcn_net_ops);
	return err;
}

static void __exit qcn_module_exit(void)
{
	unregister_qdisc(&qcn_qdisc_ops);
	unregister_pernet_subsys(&qcn_net_ops);
}

module_init(qcn_module_init);
module_exit(qcn_module_exit);
MODULE_AUTHOR("linux-qcn");
MODULE_DESCRIPTION("IEEE 802.1Qau QCN congestion point qdisc");
MODULE_LICENSE("GPL");
MODULE_VERSION(QCN_VERSION);
MODULE_ALIAS("net-sch-qcn");
