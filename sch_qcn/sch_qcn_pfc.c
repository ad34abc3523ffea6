// SPDX-License-Identifier: GPL-2.0
/*
 * 802.1Qbb PFC generation for sch_qcn (sch_qcn_pfc.h): per namespace, the
 * ports whose qcn instance set pfc-xoff, their per-priority counters of
 * queued bytes, and the PFC frames that pause and release their peers.
 *
 * Lifetime.  A port is found by ifindex (an RCU hash, written under RTNL)
 * and named in a queued frame's control block by its slot, one octet.  Its
 * reference count is one for its instance plus one per queued frame that
 * counted it, so the slot stays the port's until the last such frame has
 * left, whatever instance holds it; the port is then freed after an RCU
 * grace period and the slot reused.  When the instance goes (or turns PFC
 * off) the port leaves the hash, is marked dead, releases any pause it
 * holds and makes no more decisions; its frames still give their bytes
 * back.
 *
 * Frames go out by dev_direct_xmit() from a tasklet, bypassing the port's
 * own qdisc: a MAC Control frame is not queued behind the data it stops.
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

#include <qcn/qcn_pfc.h>
#include "sch_qcn_pfc.h"

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
};

static struct hlist_head *pfc_bucket(struct sch_qcn_pfc_net *pn, int ifindex)
{
	return &pn->hash[(unsigned int)ifindex % SCH_QCN_PFC_HASH];
}

static void pfc_port_put(struct sch_qcn_pfc_port *port)
{
	if (!refcount_dec_and_test(&port->refs))
		return;
	/* nothing names the slot any more: hand it back */
	RCU_INIT_POINTER(port->pn->slot[port->slot], NULL);
	kfree_rcu(port, rcu);
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

/*
 * Decide for one priority after its counter moved; softirq context.  The
 * tasklet and the timer are scheduled under the lock, where the port is
 * known to be live: sch_qcn_pfc_port_del() marks it dead under the lock
 * before it stops them.
 */
static void pfc_decide(struct sch_qcn_pfc_port *port, u8 prio, s64 delta)
{
	enum qcn_pfc_action act;
	u64 now, next;

	spin_lock(&port->lock);
	port->bytes[prio] += delta;
	if (port->bytes[prio] > port->bytes_max[prio])
		port->bytes_max[prio] = port->bytes[prio];
	if (port->dead)
		goto out;
	now = ktime_get_ns();
	act = pfc_step(port, prio, now);
	if (act == QCN_PFC_NONE)
		goto out;
	tasklet_schedule(&port->tx);
	next = pfc_next_refresh(port);
	if (next && !hrtimer_is_queued(&port->refresh))
		hrtimer_start(&port->refresh, ns_to_ktime(next),
			      HRTIMER_MODE_ABS_SOFT);
out:
	spin_unlock(&port->lock);
}

u8 sch_qcn_pfc_account(struct sch_qcn_pfc_net *pn, int iif, u8 prio,
		       u32 len)
{
	struct sch_qcn_pfc_port *port;
	u8 slot = 0;

	if (!READ_ONCE(pn->nports) || !iif)
		return 0;
	rcu_read_lock();
	hlist_for_each_entry_rcu(port, pfc_bucket(pn, iif), node) {
		if (port->ifindex != iif)
			continue;
		if (refcount_inc_not_zero(&port->refs)) {
			slot = port->slot;
			pfc_decide(port, prio & 7, len);
		}
		break;
	}
	rcu_read_unlock();
	return slot;
}

void sch_qcn_pfc_unaccount(struct sch_qcn_pfc_net *pn, u8 slot, u8 prio,
			   u32 len)
{
	struct sch_qcn_pfc_port *port;

	if (!slot)
		return;
	/* the frame's reference keeps the slot the port's */
	port = rcu_dereference_protected(pn->slot[slot], true);
	pfc_decide(port, prio & 7, -(s64)len);
	pfc_port_put(port);
}

/* Send the due priorities' state: time = quanta while paused, else 0. */
static void pfc_tx_tasklet(struct tasklet_struct *t)
{
	struct sch_qcn_pfc_port *port = from_tasklet(port, t, tx);
	struct net_device *dev = port->dev;
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
	if (!f.enable || !dev)
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

static enum hrtimer_restart pfc_refresh_timer(struct hrtimer *timer)
{
	struct sch_qcn_pfc_port *port = container_of(timer, typeof(*port),
						     refresh);
	u64 now = ktime_get_ns(), next = 0;
	bool due = false;
	int p;

	spin_lock(&port->lock);
	if (!port->dead) {
		for (p = 0; p < QCN_PFC_NPRIO; p++)
			due |= pfc_step(port, p, now) != QCN_PFC_NONE;
		next = pfc_next_refresh(port);
	}
	spin_unlock(&port->lock);
	if (due)
		tasklet_schedule(&port->tx);
	if (!next)
		return HRTIMER_NORESTART;
	hrtimer_set_expires(timer, ns_to_ktime(next));
	return HRTIMER_RESTART;
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

int sch_qcn_pfc_port_set(struct sch_qcn_pfc_net *pn, struct net_device *dev,
			 const struct sch_qcn_pfc_cfg *cfg,
			 struct sch_qcn_pfc_port **portp,
			 struct netlink_ext_ack *extack)
{
	struct sch_qcn_pfc_port *port = *portp;
	int slot;

	ASSERT_RTNL();
	if (port) {
		spin_lock_bh(&port->lock);
		pfc_params(cfg, &port->params);
		port->quanta = cfg->quanta;
		spin_unlock_bh(&port->lock);
		return 0;
	}
	hlist_for_each_entry(port, pfc_bucket(pn, dev->ifindex), node) {
		if (port->ifindex == dev->ifindex) {
			NL_SET_ERR_MSG(extack,
				       "qcn: another qcn instance generates PFC for this device");
			return -EBUSY;
		}
	}
	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port) {
		NL_SET_ERR_MSG(extack, "qcn: no memory for the PFC port");
		return -ENOMEM;
	}
	for (slot = 1; slot < SCH_QCN_PFC_PORTS; slot++)
		if (!cmpxchg((struct sch_qcn_pfc_port __force **)&pn->slot[slot],
			     NULL, port))
			break;
	if (slot == SCH_QCN_PFC_PORTS) {
		kfree(port);
		NL_SET_ERR_MSG(extack,
			       "qcn: the namespace has 255 PFC ports already");
		return -ENOSPC;
	}
	refcount_set(&port->refs, 1);
	port->pn = pn;
	port->slot = slot;
	port->ifindex = dev->ifindex;
	spin_lock_init(&port->lock);
	pfc_params(cfg, &port->params);
	port->quanta = cfg->quanta;
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
	pfc_tx_tasklet(&port->tx);
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
	spin_unlock_bh(&port->lock);
}
