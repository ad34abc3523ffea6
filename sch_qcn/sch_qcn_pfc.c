// SPDX-License-Identifier: GPL-2.0
/*
 * 802.1Qbb PFC generation and the input CP for sch_qcn (sch_qcn_pfc.h):
 * per namespace, the ports whose qcn instance set pfc-xoff or cp input,
 * their per-priority counters of queued bytes, the PFC frames that pause
 * and release their peers, and the input CPs' samples and CNMs.
 *
 * Lifetime.  A port is found by ifindex (an RCU hash, written under RTNL)
 * and named in a queued frame's control block by its slot, one octet.  Its
 * reference count is one for its instance plus one per queued frame that
 * counted it, so the slot stays the port's until the last such frame has
 * left, whatever instance holds it; the port is then freed after an RCU
 * grace period and the slot reused.  When the instance goes (or turns PFC
 * and the input CP off) the port leaves the hash, is marked dead, releases any pause it
 * holds and makes no more decisions; its frames still give their bytes
 * back.
 *
 * Frames go out by dev_direct_xmit() from a tasklet, bypassing the port's
 * own qdisc: a MAC Control frame is not queued behind the data it stops,
 * and a CNM leaves at cnmTransmitPriority, ahead of the port's data.
 * Not from the enqueue that decided it, which holds another device's root
 * lock; the tasklet is the CNMs' mechanism (sch_qcn_main.c says why).
 * The port lock is taken in softirq context only, but for the dump and
 * the release (_bh).
 */
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include <qcn/qcn_culprit.h>
#include <qcn/qcn_pfc.h>
#include "sch_qcn_cnm.h"
#include "sch_qcn_pci.h"
#include "sch_qcn_pfc.h"

#define SCH_QCN_IN_FLOWS	64	/* an input's flow slots */
#define SCH_QCN_IN_PROBE	8	/* the slots a flow may take */
#define SCH_QCN_IN_RING		16	/* its CNMs waiting for the tasklet */

/*
 * A flow of the input, as its CP sees it: a slot for its skb_get_hash(),
 * its queued bytes and the headers of the frame that opened it (what its
 * CNM names).  A flow takes a free slot among the SCH_QCN_IN_PROBE from
 * its hash on (in_flow_slot()); past that many busy flows there, it shares
 * the first slot and its culprit.
 */
struct sch_qcn_in_flow {
	u32			hash;		/* of the frame that opened it */
	u32			bytes;
	u8			prio;
	bool			valid;		/* c can be answered */
	struct sch_qcn_culprit	c;
};

/* The input CP (cp input): under its port's lock. */
struct sch_qcn_in_cp {
	struct sch_qcn_pfc_port	*port;
	bool			on;
	u8			sample;		/* enum tc_qcn_sample */
	u16			cpid;
	u64			keepalive_ns;
	struct qcn_pci		*pci;		/* two-samples' index table */
	struct qcn_cp_params	params;
	struct qcn_cp		cp[QCN_PFC_NPRIO];
	u64			last_arrival[QCN_PFC_NPRIO];	/* ns */
	struct hrtimer		ka;
	struct sch_qcn_in_flow	flow[SCH_QCN_IN_FLOWS];
	u32			head;		/* ring[] of CNMs, by count */
	u32			tail;
	struct qcn_cnm_req	ring[SCH_QCN_IN_RING];
	/* counters (struct tc_qcn_xstats in_*) */
	u64			samples;
	u64			keepalive_samples;
	u64			cnm_sent[__TC_QCN_SAMPLE_MAX];
	u64			cnm_skipped;
	u64			cnm_fail;
};

struct sch_qcn_pfc_port {
	struct hlist_node	node;		/* pn->hash while live */
	refcount_t		refs;		/* instance + queued frames */
	struct sch_qcn_pfc_net	*pn;
	struct rcu_head		rcu;
	int			ifindex;
	u8			slot;
	struct net_device	*dev;		/* NULL once dead */
	netdevice_tracker	tracker;
	struct hrtimer		refresh;	/* the next pause re-send */
	struct tasklet_struct	tx;

	spinlock_t		lock;		/* everything below */
	bool			dead;
	struct qcn_pfc_params	params;
	u16			quanta;
	u8			pending;	/* priorities whose frame is due */
	u64			bytes[QCN_PFC_NPRIO];
	struct qcn_pfc_state	state[QCN_PFC_NPRIO];
	u64			paused_at[QCN_PFC_NPRIO];	/* ns */
	/* counters (struct tc_qcn_xstats pfc_*) */
	u64			xoff_sent[QCN_PFC_NPRIO];
	u64			xon_sent[QCN_PFC_NPRIO];
	u64			pausing_ns[QCN_PFC_NPRIO];
	u64			bytes_max[QCN_PFC_NPRIO];
	u64			tx_fail;
	struct sch_qcn_in_cp	*in;		/* allocated once, kept */
};

static struct hlist_head *pfc_bucket(struct sch_qcn_pfc_net *pn, int ifindex)
{
	return &pn->hash[(unsigned int)ifindex % SCH_QCN_PFC_HASH];
}

static void pfc_port_free(struct rcu_head *head)
{
	struct sch_qcn_pfc_port *port = container_of(head, typeof(*port), rcu);

	kfree(port->in);
	kfree(port);
}

static void pfc_port_put(struct sch_qcn_pfc_port *port)
{
	if (!refcount_dec_and_test(&port->refs))
		return;
	/* nothing names the slot any more: hand it back */
	RCU_INIT_POINTER(port->pn->slot[port->slot], NULL);
	call_rcu(&port->rcu, pfc_port_free);
}

/*
 * One decision for priority p (under port->lock): a frame becomes due on
 * XOFF and XON, and the time the priority is held paused is counted.
 */
static enum qcn_pfc_action pfc_step(struct sch_qcn_pfc_port *port, int p,
				    u64 now)
{
	bool was_paused = port->state[p].paused;
	enum qcn_pfc_action act;

	act = qcn_pfc_decide(&port->state[p], &port->params, port->bytes[p],
			     now);
	if (act == QCN_PFC_NONE)
		return act;
	port->pending |= BIT(p);
	if (act == QCN_PFC_XON)
		port->pausing_ns[p] += now - port->paused_at[p];
	else if (!was_paused)
		port->paused_at[p] = now;
	return act;
}

/* The earliest re-send of a held pause, 0 if none (under port->lock). */
static u64 pfc_next_refresh(const struct sch_qcn_pfc_port *port)
{
	u64 at, next = 0;
	int p;

	for (p = 0; p < QCN_PFC_NPRIO; p++) {
		at = qcn_pfc_refresh_at(&port->state[p], &port->params);
		if (at && (!next || at < next))
			next = at;
	}
	return next;
}

/* --------------------------------------------------------- the input CP */

/*
 * QCN-OS at the input: the flow holding a uniformly random byte of the
 * input's queued bytes of priority p (the paper's eq. (5): a flow with
 * probability q_n / q); NULL when none is queued.
 */
static struct sch_qcn_in_flow *in_occupancy(struct sch_qcn_in_cp *in, u8 p)
{
	u32 total = 0, off;
	int i;

	for (i = 0; i < SCH_QCN_IN_FLOWS; i++)
		if (in->flow[i].prio == p)
			total += in->flow[i].bytes;
	if (!total)
		return NULL;
	off = qcn_culprit_offset(total, get_random_u32());
	for (i = 0; i < SCH_QCN_IN_FLOWS; i++) {
		if (in->flow[i].prio != p || !in->flow[i].bytes)
			continue;
		if (qcn_culprit_walk_step(&off, in->flow[i].bytes))
			return &in->flow[i];
	}
	return NULL;
}

/*
 * Two-samples at the input (the paper's Algorithm 1): two occupancy draws
 * A and B; the one whose flow has the larger path-congestion index, ties
 * to B.
 */
static struct sch_qcn_in_flow *in_two_samples(struct sch_qcn_in_cp *in, u8 p)
{
	struct sch_qcn_in_flow *a = in_occupancy(in, p);
	struct sch_qcn_in_flow *b = in_occupancy(in, p);

	if (!a || !b)
		return a ?: b;
	return qcn_culprit_two_samples(qcn_pci_index(in->pci, a->hash),
				       qcn_pci_index(in->pci, b->hash)) ? b : a;
}

/*
 * A sampling instant of priority p (arrival NULL: keep-alive), under the
 * port's lock: for Fb < 0 the CNM of the culprit joins the ring.  Returns
 * true when one did.
 */
static bool in_sampled(struct sch_qcn_pfc_port *port, u8 p,
		       const struct qcn_cp_sample *s, struct sk_buff *arrival)
{
	struct sch_qcn_in_cp *in = port->in;
	const struct sch_qcn_culprit *c = NULL;
	struct sch_qcn_culprit ac;
	struct sch_qcn_in_flow *f;
	struct qcn_cnm_req *req;
	u8 mode = in->sample;

	in->samples++;
	if (!arrival)
		in->keepalive_samples++;
	if (!s->congested || !s->qfb)
		return false;
	if (arrival && mode == TC_QCN_SAMPLE_ARRIVAL) {
		if (sch_qcn_culprit_read(arrival, &ac))
			c = &ac;
	} else {
		/* keep-alive: no arrival to sample, arrival picks by occupancy */
		if (mode == TC_QCN_SAMPLE_ARRIVAL)
			mode = TC_QCN_SAMPLE_OCCUPANCY;
		f = mode == TC_QCN_SAMPLE_TWO ? in_two_samples(in, p) :
						in_occupancy(in, p);
		if (f && f->valid)
			c = &f->c;
	}
	/* a frame this switch sent itself has no reaction point behind */
	if (!c || ether_addr_equal(c->sa, port->dev->dev_addr)) {
		in->cnm_skipped++;
		return false;
	}
	if (in->head - in->tail >= SCH_QCN_IN_RING) {
		in->cnm_fail++;
		return false;
	}
	req = &in->ring[in->head % SCH_QCN_IN_RING];
	if (!sch_qcn_cnm_encode(c, port->dev->dev_addr, in->cpid, s, s->qfb,
				req)) {
		in->cnm_skipped++;
		return false;
	}
	req->mode = mode;
	req->stamp = ktime_get_ns();
	in->head++;
	return true;
}

/*
 * The slot of the input flow that an arriving frame of flow hash and
 * priority p counts in: the flow's own among the SCH_QCN_IN_PROBE from
 * hash on, else the first free one there (the flow restarts: its headers
 * name it), else the first, shared, if it holds priority p; NULL: none.
 */
static struct sch_qcn_in_flow *in_flow_slot(struct sch_qcn_in_cp *in,
					    u32 hash, u8 p,
					    struct sk_buff *skb)
{
	struct sch_qcn_in_flow *f, *free = NULL;
	int i;

	for (i = 0; i < SCH_QCN_IN_PROBE; i++) {
		f = &in->flow[(hash + i) % SCH_QCN_IN_FLOWS];
		if (!f->bytes) {
			if (!free)
				free = f;
		} else if (f->hash == hash && f->prio == p) {
			return f;
		}
	}
	if (free) {
		free->hash = hash;
		free->prio = p;
		free->valid = sch_qcn_culprit_read(skb, &free->c);
		return free;
	}
	f = &in->flow[hash % SCH_QCN_IN_FLOWS];
	return f->prio == p ? f : NULL;
}

/*
 * A frame of priority p moves the input's bytes by delta (under the lock,
 * the port live): the flow's count, and for an arrival the CP's sample.
 * A CNM (skb NULL) counts in the input's bytes only: it is never a
 * culprit.  Returns true when a CNM is due.
 */
static bool in_frame(struct sch_qcn_pfc_port *port, u8 p, s64 delta,
		     struct sk_buff *skb, u8 *flow, u64 now)
{
	struct sch_qcn_in_cp *in = port->in;
	struct qcn_cp_sample s;
	struct sch_qcn_in_flow *f;
	u32 len, q, rnd;
	bool due = false;

	if (delta < 0) {
		if (*flow != SCH_QCN_IN_NOFLOW)
			in->flow[*flow].bytes -= (u32)-delta;
		return false;
	}
	if (!in->on || !skb)
		return false;
	len = (u32)delta;
	f = in_flow_slot(in, skb_get_hash(skb), p, skb);
	if (f) {
		f->bytes += len;
		*flow = f - in->flow;
	}

	q = (u32)min_t(u64, port->bytes[p], U32_MAX);
	in->last_arrival[p] = now;
	rnd = in->cp[p].countdown <= len ? get_random_u32() : 0;
	if (qcn_cp_arrival(&in->cp[p], &in->params, len, q, rnd, &s))
		due = in_sampled(port, p, &s, skb);
	if (in->keepalive_ns && q > in->params.qeq &&
	    !hrtimer_is_queued(&in->ka))
		hrtimer_start(&in->ka, ns_to_ktime(now + in->keepalive_ns),
			      HRTIMER_MODE_ABS_SOFT);
	return due;
}

/* The keep-alive clock: sample inputs that hold more than Qeq, idle. */
static enum hrtimer_restart in_keepalive_timer(struct hrtimer *timer)
{
	struct sch_qcn_in_cp *in = container_of(timer, typeof(*in), ka);
	struct sch_qcn_pfc_port *port = in->port;
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	u64 now = ktime_get_ns(), next = 0, at;
	struct qcn_cp_sample s;
	bool due = false;
	u32 q;
	int p;

	spin_lock(&port->lock);
	if (port->dead || !in->on || !in->keepalive_ns)
		goto out;
	for (p = 0; p < QCN_PFC_NPRIO; p++) {
		q = (u32)min_t(u64, port->bytes[p], U32_MAX);
		if (q <= in->params.qeq)
			continue;
		if (qcn_cp_keepalive_due(q, in->params.qeq, now,
					 in->last_arrival[p],
					 in->keepalive_ns)) {
			qcn_cp_sample_now(&in->cp[p], &in->params, q,
					  get_random_u32(), &s);
			in->last_arrival[p] = now;
			due |= in_sampled(port, p, &s, NULL);
		}
		at = max(in->last_arrival[p] + in->keepalive_ns, now + 1);
		if (!next || at < next)
			next = at;
	}
	/* an arrival may have re-armed it while this callback waited */
	if (next && !hrtimer_is_queued(timer)) {
		hrtimer_set_expires(timer, ns_to_ktime(next));
		ret = HRTIMER_RESTART;
	}
out:
	spin_unlock(&port->lock);
	if (due)
		tasklet_schedule(&port->tx);
	return ret;
}

/* Send the input CP's CNMs out of the port, toward their sources. */
static void in_cnm_tx(struct sch_qcn_pfc_port *port, struct net_device *dev)
{
	struct sch_qcn_in_cp *in = port->in;
	struct qcn_cnm_req req;
	struct sk_buff *skb;
	bool ok;

	for (;;) {
		spin_lock(&port->lock);
		if (in->tail == in->head) {
			spin_unlock(&port->lock);
			return;
		}
		req = in->ring[in->tail % SCH_QCN_IN_RING];
		in->tail++;
		spin_unlock(&port->lock);

		/* in the culprit's VLAN, as it arrived */
		skb = sch_qcn_cnm_skb(dev, dev->dev_addr, &req,
				      req.vlan_proto, req.vid);
		ok = skb && dev_direct_xmit(skb, 0) == NET_XMIT_SUCCESS;
		spin_lock(&port->lock);
		if (ok)
			in->cnm_sent[req.mode]++;
		else
			in->cnm_fail++;
		spin_unlock(&port->lock);
	}
}

/*
 * Decide for one priority after its counter moved; softirq context.  The
 * tasklet and the timer are scheduled under the lock, where the port is
 * known to be live: sch_qcn_pfc_port_del() marks it dead under the lock
 * before it stops them.
 */
static void pfc_decide(struct sch_qcn_pfc_port *port, u8 prio, s64 delta,
		       struct sk_buff *skb, u8 *flow)
{
	enum qcn_pfc_action act = QCN_PFC_NONE;
	bool cnm = false;
	u64 now, next;

	spin_lock(&port->lock);
	port->bytes[prio] += delta;
	if (port->bytes[prio] > port->bytes_max[prio])
		port->bytes_max[prio] = port->bytes[prio];
	if (port->dead)
		goto out;
	now = ktime_get_ns();
	if (port->in)
		cnm = in_frame(port, prio, delta, skb, flow, now);
	if (port->params.xoff)
		act = pfc_step(port, prio, now);
	if (act == QCN_PFC_NONE && !cnm)
		goto out;
	tasklet_schedule(&port->tx);
	if (act == QCN_PFC_NONE)
		goto out;
	next = pfc_next_refresh(port);
	if (next && !hrtimer_is_queued(&port->refresh))
		hrtimer_start(&port->refresh, ns_to_ktime(next),
			      HRTIMER_MODE_ABS_SOFT);
out:
	spin_unlock(&port->lock);
}

u8 sch_qcn_pfc_account(struct sch_qcn_pfc_net *pn, struct sk_buff *skb,
		       bool cnm, u8 prio, u32 len, u8 *flow)
{
	struct sch_qcn_pfc_port *port;
	int iif = skb->skb_iif;
	u8 slot = 0;

	*flow = SCH_QCN_IN_NOFLOW;
	if (!READ_ONCE(pn->nports) || !iif)
		return 0;
	rcu_read_lock();
	hlist_for_each_entry_rcu(port, pfc_bucket(pn, iif), node) {
		if (port->ifindex != iif)
			continue;
		if (refcount_inc_not_zero(&port->refs)) {
			slot = port->slot;
			pfc_decide(port, prio & 7, len, cnm ? NULL : skb, flow);
		}
		break;
	}
	rcu_read_unlock();
	return slot;
}

void sch_qcn_pfc_unaccount(struct sch_qcn_pfc_net *pn, u8 slot, u8 prio,
			   u32 len, u8 flow)
{
	struct sch_qcn_pfc_port *port;

	if (!slot)
		return;
	/* the frame's reference keeps the slot the port's */
	port = rcu_dereference_protected(pn->slot[slot], true);
	pfc_decide(port, prio & 7, -(s64)len, NULL, &flow);
	pfc_port_put(port);
}

/* Send the due priorities' state: time = quanta while paused, else 0. */
static void pfc_tx(struct sch_qcn_pfc_port *port, struct net_device *dev)
{
	struct qcn_pfc f = {};
	struct sk_buff *skb;
	u8 xoff = 0;
	bool ok;
	int p;

	spin_lock(&port->lock);
	f.enable = port->pending;
	port->pending = 0;
	for (p = 0; p < QCN_PFC_NPRIO; p++) {
		if (!(f.enable & BIT(p)))
			continue;
		if (port->state[p].paused) {
			f.quanta[p] = port->quanta;
			xoff |= BIT(p);
		}
	}
	spin_unlock(&port->lock);
	if (!f.enable)
		return;

	ether_addr_copy(f.src, dev->dev_addr);
	skb = alloc_skb(LL_RESERVED_SPACE(dev) + QCN_PFC_FRAME_LEN +
			dev->needed_tailroom, GFP_ATOMIC | __GFP_NOWARN);
	if (skb) {
		skb_reserve(skb, LL_RESERVED_SPACE(dev));
		qcn_pfc_encode(&f, skb_put(skb, QCN_PFC_FRAME_LEN),
			       QCN_PFC_FRAME_LEN);
		skb_reset_mac_header(skb);
		skb_set_network_header(skb, ETH_HLEN);
		skb->protocol = htons(ETH_P_PAUSE);
		skb->priority = TC_PRIO_CONTROL;
		skb->dev = dev;
	}
	ok = skb && dev_direct_xmit(skb, 0) == NET_XMIT_SUCCESS;
	spin_lock(&port->lock);
	if (!ok) {
		port->tx_fail++;
	} else {
		for (p = 0; p < QCN_PFC_NPRIO; p++) {
			if (xoff & BIT(p))
				port->xoff_sent[p]++;
			else if (f.enable & BIT(p))
				port->xon_sent[p]++;
		}
	}
	spin_unlock(&port->lock);
}

/* The port's due PFC frame, then its input CP's CNMs. */
static void pfc_tx_tasklet(struct tasklet_struct *t)
{
	struct sch_qcn_pfc_port *port = from_tasklet(port, t, tx);
	struct net_device *dev = port->dev;

	if (!dev)
		return;
	pfc_tx(port, dev);
	if (READ_ONCE(port->in))
		in_cnm_tx(port, dev);
}

static enum hrtimer_restart pfc_refresh_timer(struct hrtimer *timer)
{
	struct sch_qcn_pfc_port *port = container_of(timer, typeof(*port),
						     refresh);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	u64 now = ktime_get_ns(), next = 0;
	bool due = false;
	int p;

	spin_lock(&port->lock);
	if (!port->dead && port->params.xoff) {
		for (p = 0; p < QCN_PFC_NPRIO; p++)
			due |= pfc_step(port, p, now) != QCN_PFC_NONE;
		next = pfc_next_refresh(port);
	}
	/* a decision may have re-armed it while this callback waited */
	if (next && !hrtimer_is_queued(timer)) {
		hrtimer_set_expires(timer, ns_to_ktime(next));
		ret = HRTIMER_RESTART;
	}
	spin_unlock(&port->lock);
	if (due)
		tasklet_schedule(&port->tx);
	return ret;
}

/* pfc-xoff, pfc-xon, pfc-quanta at a link of rate_bps: the parameters */
static void pfc_params(const struct sch_qcn_pfc_cfg *cfg,
		       struct qcn_pfc_params *params)
{
	params->xoff = cfg->xoff;
	params->xon = cfg->xon;
	/* re-send at half the pause time, so that a lost or late frame
	 * still leaves the peer paused
	 */
	params->refresh_ns = max_t(u64, qcn_pfc_quanta_to_ns(cfg->quanta,
							     cfg->rate_bps) / 2,
				   NSEC_PER_USEC);
}

/* The input CP's settings (under port->lock); a new one starts afresh. */
static void in_set(struct sch_qcn_in_cp *in, const struct sch_qcn_pfc_cfg *cfg)
{
	int p;

	if (cfg->in_cp && !in->on) {
		for (p = 0; p < QCN_PFC_NPRIO; p++)
			qcn_cp_init(&in->cp[p], &cfg->cp, get_random_u32());
	}
	in->on = cfg->in_cp;
	in->sample = cfg->sample;
	in->pci = cfg->pci;
	in->cpid = cfg->cpid;
	in->keepalive_ns = (u64)cfg->keepalive * NSEC_PER_USEC;
	in->params = cfg->cp;
}

static void pfc_release(struct sch_qcn_pfc_port *port);

static struct sch_qcn_in_cp *in_alloc(struct sch_qcn_pfc_port *port)
{
	struct sch_qcn_in_cp *in = kzalloc(sizeof(*in), GFP_KERNEL);

	if (!in)
		return NULL;
	in->port = port;
	hrtimer_init(&in->ka, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	in->ka.function = in_keepalive_timer;
	return in;
}

int sch_qcn_pfc_port_set(struct sch_qcn_pfc_net *pn, struct net_device *dev,
			 const struct sch_qcn_pfc_cfg *cfg,
			 struct sch_qcn_pfc_port **portp,
			 struct netlink_ext_ack *extack)
{
	struct sch_qcn_pfc_port *port = *portp;
	struct sch_qcn_in_cp *in = NULL;
	int slot;

	ASSERT_RTNL();
	if (port) {
		bool was_pfc = port->params.xoff;

		if (cfg->in_cp && !port->in) {
			in = in_alloc(port);
			if (!in) {
				NL_SET_ERR_MSG(extack,
					       "qcn: no memory for the input CP");
				return -ENOMEM;
			}
		}
		spin_lock_bh(&port->lock);
		pfc_params(cfg, &port->params);
		port->quanta = cfg->quanta;
		if (in)
			WRITE_ONCE(port->in, in);
		if (port->in)
			in_set(port->in, cfg);
		spin_unlock_bh(&port->lock);
		/* off: the clock stops for good; on again, arrivals restart it */
		if (port->in && !cfg->in_cp)
			hrtimer_cancel(&port->in->ka);
		/* PFC off, the input CP on: no peer waits for its pause (and
		 * no XOFF the tasklet took before follows the release)
		 */
		if (was_pfc && !cfg->xoff) {
			hrtimer_cancel(&port->refresh);
			tasklet_disable(&port->tx);
			pfc_release(port);
			tasklet_enable(&port->tx);
		}
		return 0;
	}
	hlist_for_each_entry(port, pfc_bucket(pn, dev->ifindex), node) {
		if (port->ifindex == dev->ifindex) {
			NL_SET_ERR_MSG(extack,
				       "qcn: another qcn instance accounts the input of this device");
			return -EBUSY;
		}
	}
	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (port && cfg->in_cp) {
		port->in = in_alloc(port);
		if (!port->in) {
			kfree(port);
			port = NULL;
		}
	}
	if (!port) {
		NL_SET_ERR_MSG(extack, "qcn: no memory for the input port");
		return -ENOMEM;
	}
	for (slot = 1; slot < SCH_QCN_PFC_PORTS; slot++)
		if (!cmpxchg((struct sch_qcn_pfc_port __force **)&pn->slot[slot],
			     NULL, port))
			break;
	if (slot == SCH_QCN_PFC_PORTS) {
		kfree(port->in);
		kfree(port);
		NL_SET_ERR_MSG(extack,
			       "qcn: the namespace has 255 input ports already");
		return -ENOSPC;
	}
	refcount_set(&port->refs, 1);
	port->pn = pn;
	port->slot = slot;
	port->ifindex = dev->ifindex;
	spin_lock_init(&port->lock);
	pfc_params(cfg, &port->params);
	port->quanta = cfg->quanta;
	if (port->in)
		in_set(port->in, cfg);
	hrtimer_init(&port->refresh, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	port->refresh.function = pfc_refresh_timer;
	tasklet_setup(&port->tx, pfc_tx_tasklet);
	port->dev = dev;
	netdev_hold(dev, &port->tracker, GFP_KERNEL);
	hlist_add_head_rcu(&port->node, pfc_bucket(pn, dev->ifindex));
	WRITE_ONCE(pn->nports, pn->nports + 1);
	*portp = port;
	return 0;
}

/*
 * Send time 0 for every priority held paused (process context, the
 * tasklet stopped): a port that stops generating PFC leaves no peer
 * waiting for its pause to run out.
 */
static void pfc_release(struct sch_qcn_pfc_port *port)
{
	u64 now = ktime_get_ns();
	int p;

	spin_lock_bh(&port->lock);
	for (p = 0; p < QCN_PFC_NPRIO; p++) {
		if (!port->state[p].paused)
			continue;
		port->state[p].paused = false;
		port->pending |= BIT(p);
		port->pausing_ns[p] += now - port->paused_at[p];
	}
	spin_unlock_bh(&port->lock);
	local_bh_disable();
	pfc_tx(port, port->dev);
	local_bh_enable();
}

void sch_qcn_pfc_port_del(struct sch_qcn_pfc_port *port)
{
	struct sch_qcn_pfc_net *pn;

	ASSERT_RTNL();
	if (!port)
		return;
	pn = port->pn;
	hlist_del_rcu(&port->node);
	WRITE_ONCE(pn->nports, pn->nports - 1);
	/* no new decision: the timer and the tasklet stop for good */
	spin_lock_bh(&port->lock);
	port->dead = true;
	spin_unlock_bh(&port->lock);
	hrtimer_cancel(&port->refresh);
	if (port->in)
		hrtimer_cancel(&port->in->ka);
	tasklet_kill(&port->tx);
	pfc_release(port);
	netdev_put(port->dev, &port->tracker);
	port->dev = NULL;
	pfc_port_put(port);
}

void sch_qcn_pfc_stats(struct sch_qcn_pfc_port *port,
		       struct tc_qcn_xstats *st)
{
	u64 now = ktime_get_ns();
	int p;

	if (!port)
		return;
	spin_lock_bh(&port->lock);
	for (p = 0; p < QCN_PFC_NPRIO; p++) {
		st->pfc_xoff_sent[p] = port->xoff_sent[p];
		st->pfc_xon_sent[p] = port->xon_sent[p];
		st->pfc_pausing_ns[p] = port->pausing_ns[p];
		if (port->state[p].paused)
			st->pfc_pausing_ns[p] += now - port->paused_at[p];
		st->pfc_ingress_bytes[p] = port->bytes[p];
		st->pfc_ingress_max[p] = port->bytes_max[p];
	}
	st->pfc_tx_fail = port->tx_fail;
	if (port->in) {
		st->in_samples = port->in->samples;
		st->in_keepalive_samples = port->in->keepalive_samples;
		for (p = 0; p < __TC_QCN_SAMPLE_MAX; p++)
			st->in_cnm_sent[p] = port->in->cnm_sent[p];
		st->in_cnm_skipped = port->in->cnm_skipped;
		st->in_cnm_fail = port->in->cnm_fail;
	}
	spin_unlock_bh(&port->lock);
}
