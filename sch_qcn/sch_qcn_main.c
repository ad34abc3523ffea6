// SPDX-License-Identifier: GPL-2.0
/*
 * net/sched/sch_qcn: IEEE 802.1Qau Quantized Congestion Notification,
 * the congestion point (CP).
 *
 * A byte-limited queue (tail drop; also at memory_limit, the queued skbs'
 * truesize, as fq_codel counts it), optionally paced at the emulated port
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
 * feedback signed: the N-AIMD CP of the Averaging Principle case study
 * (Alizadeh et al., section "The Averaging Principle", eq. 14;
 * include/qcn/qcn_ap.h): every arrival is sampled with probability
 * 1/fb_period (the paper: 1 %), and every sample sends a CNM to the
 * culprit whatever the sign of Fb (qFb 0 for Fb >= 0); the RP (qcn_rp
 * mode n-aimd|ap-n-aimd) rebuilds the signed Fb from cnmQOffset and
 * cnmQDelta.  AF-QCN, which rewrites qFb, is not combined with it.
 *
 * Path-congestion index (two-samples): sch_qcn_pci.h.  The table is the
 * network namespace's own (net_generic), or with option fabric N that of
 * fabric N, shared by the instances of that id in every namespace: a
 * testbed whose switches are namespaces is one fabric, and a switch reads
 * the fill of the buffers its flows cross in the next ones.
 * The fabric tables are module-global, created by their first instance
 * and freed, after an RCU grace period, with their last (qcn_fabric_get(),
 * qcn_fabric_put(), under qcn_fabric_mutex).  Joining one needs
 * CAP_NET_ADMIN in the initial user namespace, since it shares state
 * across namespaces.  The flow hash is the same in every namespace of the
 * host: veth hands the skb to its peer with skb->hash kept
 * (skb_scrub_packet() clears no hash), a bridge forwards it unchanged, and
 * a hash the flow dissector computes anew uses one boot-time key for all
 * namespaces.  (A namespace with its own BPF flow dissector hashes by its
 * program; it does not share indexes with the others.)  An instance
 * changes tables under the root lock, where its packet path reads q->pci,
 * and hands its input CP the new table under the port's lock.
 *
 * CNMs are encoded at the sampling instant (include/qcn/qcn_cnm.h) into a
 * bounded per-qdisc ring and transmitted from a tasklet.  Not from the
 * sampling context itself: a sample is taken in enqueue under the root
 * lock, and dev_queue_xmit() there would take the root lock of the device
 * the CNM leaves by, possibly this one.  Not from a work item: the CNM's
 * delay is part of the control loop's, and a work item waits for a
 * kworker, which a busy host schedules late, where a tasklet runs in
 * softirq context right after the current one.  A BH workqueue would do
 * the same as the tasklet, but 6.1 has none, and one mechanism keeps both
 * kernels' behaviour alike (xstats cnm_delay_ns measures the delay).
 *
 * A CNM goes through the bridge when the qdisc's device is a bridge port
 * (the bridge's forwarding database sends it toward the source), otherwise
 * out of the device the culprit frame arrived on.  CNMs are never sampled
 * themselves.
 *
 * VLANs: a CNM travels in the VLAN of its culprit.  A tagged culprit (an
 * accelerated or in-band 802.1Q/802.1ad tag) gets a CNM with the same VID
 * and TPID; on a port of a VLAN-filtering bridge an untagged culprit was
 * relayed in the port's PVID.  Forwarded without a bridge (tc mirred, say)
 * a culprit's CNM goes back in the VLAN of the device the culprit came in
 * on (untagged from a real device, tagged by a VLAN device), not in the
 * one it left by.  A culprit this host sent itself, not through a bridge,
 * has no way back, and one it routed carries the port's own address as
 * its source: both are skipped.
 * Through a VLAN-filtering bridge the CNM leaves by the bridge port the
 * culprit came in by (the port its source is behind), tagged or untagged
 * as that port sends the VLAN, since the bridge device itself is usually
 * no member of the VLAN; a bridge without VLAN filtering forwards it by
 * its FDB, as above.  The tag's PCP and the CNM's skb->priority are the
 * CNM transmit priority, 6 (802.1Qau cnmTransmitPriority, IEEE8021-CN-MIB
 * default).
 *
 * Encapsulated priority: the VLAN PCP of a tagged culprit; 0 for an
 * untagged one, the priority 802.1Q gives an untagged frame at a port with
 * the default port priority.  The CP's own skb->priority is a local value
 * the source never sees (qcn_rp keys untagged flows on priority 0 too).
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/hrtimer.h>
#include <linux/if_arp.h>
#include <linux/if_bridge.h>
#include <linux/if_vlan.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/qcn_gso.h>
#include <net/qcn_pfc_rx.h>

#include <qcn/qcn_ap.h>
#include <qcn/qcn_cp.h>
#include <qcn/qcn_culprit.h>
#include <qcn/qcn_cnm.h>
#include <qcn/qcn_pfc.h>
#include "sch_qcn_af.h"
#include "sch_qcn_cnm.h"
#include "sch_qcn_pci.h"
#include "sch_qcn_pfc.h"

#define QCN_DEF_LIMIT		150000		/* bytes */
#define QCN_DEF_MEMORY_LIMIT	(32 << 20)	/* truesize bytes, as fq_codel */
#define QCN_FLOWS		1024		/* DRR flow queues (hash buckets) */
#define QCN_CNM_RING		32		/* CNMs waiting for the tasklet */
#define QCN_MAX_RATE		TC_QCN_MAX_RATE		/* bytes/s, ~8.8 Tbit/s */
#define QCN_MAX_KEEPALIVE	TC_QCN_MAX_KEEPALIVE	/* us */
/*
 * Pacing debt kept across a late watchdog: a port emulated on a loaded host
 * (or in an emulator, descheduled for milliseconds) keeps its long-run rate
 * exact and sends what it owes; longer gaps count as idle.  10 ms is 12.5 KB
 * at 10 Mbit/s and more than a default 150 KB queue at 1 Gbit/s.
 */
#define QCN_PACE_SLACK		(10 * NSEC_PER_MSEC)
/*
 * Pacing: the watchdog may fire up to this late (as fq's timer_slack), so
 * that one wake-up serves a few frames (4 of 1514 bytes at 500 Mbit/s)
 * instead of one hrtimer per frame; time_next keeps the schedule, so the
 * rate stays exact and only bursts of that length appear.
 */
#define QCN_TIMER_SLACK		(100 * NSEC_PER_USEC)
/*
 * Pacing: one frame holds the port for at most a second (as sch_fq caps a
 * packet's delay), so that a frame sent at a very low rate cannot leave the
 * queue stalled for minutes; below one frame per second the rate is not kept.
 */
#define QCN_MAX_FRAME_DELAY	NSEC_PER_SEC
/*
 * A keep-alive sample looks for a culprit (occupancy) and queues a CNM:
 * at most 10000 of them per second.
 */
#define QCN_MIN_KEEPALIVE	TC_QCN_MIN_KEEPALIVE	/* us, or 0: off */
#define QCN_NPRIO		QCN_PFC_NPRIO	/* 802.1Q priorities: PFC bands */
#define QCN_BAND_FLOWS		(QCN_FLOWS / QCN_NPRIO)	/* DRR flows per band */
/* PFC: a port whose ethtool speed is unknown times pauses at 1 Gbit/s */
#define QCN_PFC_DEF_BPS		1000000000ULL

/* The CP measures the instance's own queue (enum tc_qcn_cp). */
static bool qcn_cp_output(u8 cp_at)
{
	return cp_at == TC_QCN_CP_OUTPUT || cp_at == TC_QCN_CP_BOTH;
}

/* The CP measures the input buffer share of the device's frames. */
static bool qcn_cp_input(u8 cp_at)
{
	return cp_at == TC_QCN_CP_INPUT || cp_at == TC_QCN_CP_BOTH;
}

/* Per-skb state while queued. */
struct qcn_skb_cb {
	u32	af_handle;	/* from sch_qcn_af_enqueue() */
	u32	off;		/* indexed: the flow's byte count at enqueue */
	u16	flow;		/* index into q->flows */
	u8	is_cnm;		/* a CNM: never a culprit */
	u8	pfc_prio;	/* its priority, for pfc_slot */
	u8	pfc_slot;	/* the input port it counts for, 0: none */
	u8	in_flow;	/* and its flow there (sch_qcn_pfc_account()) */
};

/*
 * A flow queue.  Unindexed (arrival sampling, no keep-alive: no culprit
 * is ever searched for) it is a list through skb->next.  Indexed, it is an
 * rbtree of its skbs (skb->rbnode, as sch_fq keeps them) keyed by their
 * enqueue offset, appended at the rightmost node: O(1) amortized to add
 * and remove, O(log n) to find the frame holding a byte; q->index, a
 * Fenwick tree over the flows' backlogs (DRR), finds the flow.
 */
struct qcn_flow {
	struct sk_buff	*head;		/* unindexed */
	struct sk_buff	*tail;
	struct rb_root_cached tree;	/* indexed */
	struct rb_node	*last;		/* indexed: the rightmost node */
	struct list_head flowchain;	/* on its band's q->active[] while
					 * backlogged
					 */
	u32		backlog;	/* bytes */
	u32		in_off;		/* indexed: bytes ever queued, mod 2^32 */
	int		deficit;
};

struct qcn_net {
	struct qcn_pci	pci;		/* the namespace's own table */
	struct sch_qcn_pfc_net pfc;	/* its PFC ports (sch_qcn_pfc.h) */
};

static unsigned int qcn_net_id __read_mostly;

/* a fabric's table, shared by its instances in every namespace */
struct qcn_fabric {
	struct list_head list;		/* on qcn_fabrics */
	u32		id;
	unsigned int	refs;		/* its qcn instances */
	struct rcu_head	rcu;
	struct qcn_pci	pci;
};

/* the fabrics in use, their refs: under qcn_fabric_mutex */
static LIST_HEAD(qcn_fabrics);
static DEFINE_MUTEX(qcn_fabric_mutex);

struct qcn_sched_data {
	/* parameters: written under sch_tree_lock, READ_ONCE in dump */
	u32		limit;
	u32		memory_limit;	/* truesize bytes */
	u64		rate;		/* bytes/s, 0: unpaced */
	u8		sched;		/* enum tc_qcn_sched */
	u8		sample;		/* enum tc_qcn_sample */
	u8		cp_at;		/* enum tc_qcn_cp */
	u16		cpid;
	u32		keepalive;	/* us, 0: off */
	u8		feedback;	/* enum tc_qcn_feedback */
	u32		fb_period;	/* signed: 1 in fb_period arrivals sampled */
	struct qcn_cp_params cp_params;

	/*
	 * FIFO queues in flows[0].  flows is &fifo until DRR is first chosen,
	 * then QCN_FLOWS flows and their index (qcn_flows_alloc()), kept
	 * until the qdisc goes.
	 */
	struct qcn_flow	*flows;
	u32		*index;		/* QCN_FLOWS + 1: flow backlogs (DRR) */
	struct qcn_flow	fifo;
	bool		indexed;	/* occupancy culprits can be asked for */
	/*
	 * pfc: 802.1Qbb PFC frames received on the device pause the frames
	 * of their priorities.  The queue is then split into QCN_NPRIO
	 * bands, one per priority (flows[band] under FIFO, QCN_BAND_FLOWS
	 * flows per band under DRR), served by DRR among the bands not
	 * paused.  Without pfc every flow is on active[0].
	 */
	bool		pfc;
	u8		band;		/* pfc: the band DRR serves next */
	int		band_deficit[QCN_NPRIO];
	struct list_head active[QCN_NPRIO];
	u32		quantum;
	u32		backlog;	/* bytes in the flow queues */
	u32		memory_usage;	/* their truesize */
	u32		nr_active;
	u64		time_next;	/* pacing: next departure, ns */
	u64		bl_stamp;	/* stats.backlog_ns counted up to here */

	struct qcn_cp	cp;
	u64		ka_ref;		/* last arrival or keep-alive sample, ns */

	struct Qdisc	*sch;
	struct qcn_pci	*pci;		/* the path-congestion index table */
	struct qcn_fabric *fabric;	/* whose table it is, NULL: the netns' */
	u32		fabric_id;	/* 0: none */
	bool		pci_user;	/* counted in pci->users */
	struct sch_qcn_af *af;
	struct sch_qcn_pfc_net *pfc_net;	/* the namespace's PFC ports */
	struct sch_qcn_pfc_port *pfc_port;	/* this device's, if pfc-xoff */
	u32		pfc_xoff;	/* bytes, 0: no PFC generation */
	u32		pfc_xon;
	u32		pfc_quanta;
	struct qdisc_watchdog watchdog;
	struct hrtimer	ka_timer;
	/*
	 * The keep-alive timer's work and ->reset, which 6.1's
	 * __qdisc_destroy() calls without the root lock (and after a graft
	 * the timer takes the new root's lock): the timer must not walk the
	 * queue while reset frees it.  Taken inside the root lock.
	 */
	spinlock_t	timer_lock;

	spinlock_t	cnm_lock;	/* ring and the CNM counters */
	u32		cnm_head;
	u32		cnm_tail;
	struct qcn_cnm_req cnm_ring[QCN_CNM_RING];
	struct tasklet_struct cnm_tasklet;

	struct tc_qcn_xstats stats;	/* CNM counters also under cnm_lock */

	/*
	 * PFC reception.  pfc_pt is a per-device ETH_P_ALL tap: taps run
	 * in __netif_receive_skb_core() before the device's rx_handler,
	 * so a bridge port's tap sees the PFC frames br_handle_frame()
	 * drops.  The tap never takes the root lock: it writes the pause
	 * state (include/net/qcn_pfc_rx.h), which dequeue reads, and kicks
	 * the qdisc when a pause ends early.
	 */
	struct packet_type pfc_pt;
	bool		pfc_tap;	/* pfc_pt registered (RTNL) */
	struct qcn_pfc_rx pfc_rx;
};

static struct qcn_skb_cb *qcn_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct qcn_skb_cb));
	return (struct qcn_skb_cb *)qdisc_skb_cb(skb)->data;
}

/*
 * The backlog is about to change (or be dumped): count its time so far.
 * The integral is kept modulo 2^64, product and sum alike, so the
 * difference of two dumps (what a reader uses) is exact while the true
 * one is below 2^64 byte*ns: 8.6 s of a 2 GB backlog, 9 min of 32 MB.
 */
static void qcn_backlog_time(struct qcn_sched_data *q, u32 backlog, u64 now)
{
	if (now > q->bl_stamp) {
		q->stats.backlog_ns += (u64)backlog * (now - q->bl_stamp);
		q->bl_stamp = now;
	}
}

/* ------------------------------------------------ path-congestion index */

static void qcn_pci_use(struct qcn_sched_data *q, bool use)
{
	if (use == q->pci_user)
		return;
	q->pci_user = use;
	if (use)
		atomic_inc(&q->pci->users);
	else
		atomic_dec(&q->pci->users);
}

/* the table of the qdisc's namespace */
static struct qcn_pci *qcn_net_pci(struct Qdisc *sch)
{
	struct qcn_net *qn = net_generic(dev_net(qdisc_dev(sch)), qcn_net_id);

	return &qn->pci;
}

static struct sch_qcn_pfc_net *qcn_net_pfc(struct Qdisc *sch)
{
	struct qcn_net *qn = net_generic(dev_net(qdisc_dev(sch)), qcn_net_id);

	return &qn->pfc;
}

/* fabric ID's table, created for its first instance */
static struct qcn_fabric *qcn_fabric_get(u32 id)
{
	struct qcn_fabric *f;

	mutex_lock(&qcn_fabric_mutex);
	list_for_each_entry(f, &qcn_fabrics, list) {
		if (f->id == id) {
			f->refs++;
			goto out;
		}
	}
	f = kvzalloc(sizeof(*f), GFP_KERNEL);
	if (f) {
		f->id = id;
		f->refs = 1;
		list_add(&f->list, &qcn_fabrics);
	}
out:
	mutex_unlock(&qcn_fabric_mutex);
	return f;
}

/* an instance leaves: the last one frees the table after a grace period */
static void qcn_fabric_put(struct qcn_fabric *f)
{
	if (!f)
		return;
	mutex_lock(&qcn_fabric_mutex);
	if (!--f->refs) {
		list_del(&f->list);
		kvfree_rcu(f, rcu);
	}
	mutex_unlock(&qcn_fabric_mutex);
}

/* ----------------------------------------------------------- the queues */

/*
 * Indexed flows keep their skbs in an rbtree, whose node overlays skb->dev
 * (restored at dequeue): what reads skb->dev while the skb is queued must
 * run before it is linked.  Two-samples reads skb_get_hash() of queued
 * frames, and the flow dissector reads skb->dev: hash it first.
 */
static bool qcn_needs_index(u8 sample, u32 keepalive)
{
	return sample != TC_QCN_SAMPLE_ARRIVAL || keepalive;
}

/* frames spread over several flows: q->index finds occupied bytes */
static bool qcn_multi(const struct qcn_sched_data *q)
{
	return q->sched == TC_QCN_SCHED_DRR || q->pfc;
}

static void qcn_flow_link(struct qcn_sched_data *q, struct qcn_flow *flow,
			  struct sk_buff *skb)
{
	struct qcn_skb_cb *cb = qcn_cb(skb);
	struct rb_node **link;

	if (!q->indexed) {
		skb->next = NULL;
		if (!flow->head)
			flow->head = skb;
		else
			flow->tail->next = skb;
		flow->tail = skb;
		return;
	}
	if (q->sample == TC_QCN_SAMPLE_TWO)
		skb_get_hash(skb);
	cb->off = flow->in_off;
	flow->in_off += qdisc_pkt_len(skb);
	/* offsets only grow: the new node is the rightmost one */
	link = flow->last ? &flow->last->rb_right : &flow->tree.rb_root.rb_node;
	rb_link_node(&skb->rbnode, flow->last, link);
	rb_insert_color_cached(&skb->rbnode, &flow->tree, !flow->last);
	flow->last = &skb->rbnode;
	if (qcn_multi(q))
		qcn_culprit_index_add(q->index, QCN_FLOWS, cb->flow,
				      qdisc_pkt_len(skb));
}

/* Unlink the head frame of a backlogged flow. */
static struct sk_buff *qcn_flow_unlink(struct qcn_sched_data *q,
				       struct qcn_flow *flow)
{
	struct rb_node *n;
	struct sk_buff *skb;

	if (!q->indexed) {
		skb = flow->head;
		flow->head = skb->next;
		if (!flow->head)
			flow->tail = NULL;
		skb_mark_not_on_list(skb);
		return skb;
	}
	n = rb_first_cached(&flow->tree);
	rb_erase_cached(n, &flow->tree);
	if (flow->last == n)
		flow->last = NULL;
	skb = rb_to_skb(n);
	skb_mark_not_on_list(skb);
	skb->dev = qdisc_dev(q->sch);
	if (qcn_multi(q))
		qcn_culprit_index_add(q->index, QCN_FLOWS, qcn_cb(skb)->flow,
				      0U - qdisc_pkt_len(skb));
	return skb;
}

/* Under pfc, cb->pfc_prio is set: the frame's band. */
static void qcn_flow_add(struct qcn_sched_data *q, struct sk_buff *skb)
{
	struct qcn_skb_cb *cb = qcn_cb(skb);
	struct qcn_flow *flow;
	u32 band;

	if (likely(!q->pfc)) {
		cb->flow = q->sched == TC_QCN_SCHED_DRR ?
			   reciprocal_scale(skb_get_hash(skb), QCN_FLOWS) : 0;
	} else {
		band = cb->pfc_prio;
		cb->flow = q->sched == TC_QCN_SCHED_DRR ?
			   band * QCN_BAND_FLOWS +
			   reciprocal_scale(skb_get_hash(skb), QCN_BAND_FLOWS) :
			   band;
	}
	flow = &q->flows[cb->flow];
	qcn_flow_link(q, flow, skb);
	flow->backlog += qdisc_pkt_len(skb);
	q->backlog += qdisc_pkt_len(skb);
	if (list_empty(&flow->flowchain)) {
		list_add_tail(&flow->flowchain, &q->active[band]);
		flow->deficit = q->quantum;
		q->nr_active++;
	}
}

/* Next frame of the flows on @active, unlinked; NULL when empty. */
static struct sk_buff *qcn_band_dequeue(struct qcn_sched_data *q,
					struct list_head *active)
{
	struct qcn_flow *flow;
	struct sk_buff *skb;

	while (!list_empty(active)) {
		flow = list_first_entry(active, struct qcn_flow, flowchain);
		if (q->sched == TC_QCN_SCHED_DRR && flow->deficit <= 0) {
			flow->deficit += q->quantum;
			list_move_tail(&flow->flowchain, active);
			continue;
		}
		skb = qcn_flow_unlink(q, flow);
		flow->backlog -= qdisc_pkt_len(skb);
		q->backlog -= qdisc_pkt_len(skb);
		flow->deficit -= qdisc_pkt_len(skb);
		if (q->indexed ? RB_EMPTY_ROOT(&flow->tree.rb_root) : !flow->head) {
			list_del_init(&flow->flowchain);
			q->nr_active--;
		}
		return skb;
	}
	return NULL;
}

/*
 * Next frame, unlinked, whatever pauses are in force (re-sorting, drops
 * at a lowered limit, purges); NULL when empty.  No pacing.
 */
static struct sk_buff *qcn_flow_dequeue(struct qcn_sched_data *q)
{
	u32 b;

	if (likely(!q->pfc))
		return qcn_band_dequeue(q, &q->active[0]);
	for (b = 0; b < QCN_NPRIO; b++)
		if (!list_empty(&q->active[b]))
			return qcn_band_dequeue(q, &q->active[b]);
	return NULL;
}

/*
 * pfc: the next frame of the bands not paused at @now, by DRR among
 * them (quantum q->quantum bytes); NULL with *wake the end of the
 * earliest pause that holds a backlog back (0: nothing queued).
 */
static struct sk_buff *qcn_pfc_dequeue(struct qcn_sched_data *q, u64 now,
				       u64 *wake)
{
	struct sk_buff *skb;
	u32 b, ready = 0;
	u64 until;

	*wake = 0;
	for (b = 0; b < QCN_NPRIO; b++) {
		if (list_empty(&q->active[b]))
			continue;
		until = qcn_pfc_rx_until(&q->pfc_rx, b);
		if (until > now) {
			if (!*wake || until < *wake)
				*wake = until;
			continue;
		}
		ready |= BIT(b);
	}
	if (!ready)
		return NULL;
	/* each turn round the bands raises every ready band's deficit */
	for (b = q->band; !(ready & BIT(b)) || q->band_deficit[b] <= 0;
	     b = (b + 1) % QCN_NPRIO)
		if (ready & BIT(b))
			q->band_deficit[b] += q->quantum;
	skb = qcn_band_dequeue(q, &q->active[b]);
	q->band_deficit[b] -= qdisc_pkt_len(skb);
	if (list_empty(&q->active[b])) {
		q->band_deficit[b] = 0;
		b = (b + 1) % QCN_NPRIO;
	}
	q->band = b;
	return skb;
}

/* skb has left the flow queues: the qdisc's counters follow */
static void qcn_dequeued(struct Qdisc *sch, struct sk_buff *skb)
{
	struct qcn_sched_data *q = qdisc_priv(sch);

	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	q->memory_usage -= skb->truesize;
	sch_qcn_pfc_unaccount(q->pfc_net, qcn_cb(skb)->pfc_slot,
			      qcn_cb(skb)->pfc_prio, qdisc_pkt_len(skb),
			      qcn_cb(skb)->in_flow);
}

static struct sk_buff *qcn_dequeue_one(struct Qdisc *sch)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb = qcn_flow_dequeue(q);

	if (skb)
		qcn_dequeued(sch, skb);
	return skb;
}

static void qcn_flows_init(struct qcn_flow *flows, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		INIT_LIST_HEAD(&flows[i].flowchain);
		flows[i].tree = RB_ROOT_CACHED;
	}
}

/* DRR's flows and index, from process context; freed with kvfree(). */
static int qcn_flows_alloc(struct Qdisc *sch, struct qcn_flow **flows,
			   u32 **index)
{
	int node = netdev_queue_numa_node_read(sch->dev_queue);

	*flows = kvzalloc_node(array_size(QCN_FLOWS, sizeof(**flows)),
			       GFP_KERNEL, node);
	*index = kvzalloc_node(array_size(QCN_FLOWS + 1, sizeof(**index)),
			       GFP_KERNEL, node);
	if (!*flows || !*index) {
		kvfree(*flows);
		kvfree(*index);
		return -ENOMEM;
	}
	qcn_flows_init(*flows, QCN_FLOWS);
	return 0;
}

/*
 * Re-queue the queued frames after a change of 'sched', 'pfc' or of the
 * flows' layout (indexed or not, frames hashed or not), under the lock;
 * flows and index, if not NULL, replace &q->fifo (DRR or pfc chosen the
 * first time).
 */
static void qcn_resort(struct qcn_sched_data *q, u8 sched, bool pfc,
		       bool indexed, struct qcn_flow *flows, u32 *index)
{
	struct sk_buff_head list;
	struct sk_buff *skb;

	__skb_queue_head_init(&list);
	while ((skb = qcn_flow_dequeue(q)) != NULL)
		__skb_queue_tail(&list, skb);
	if (flows) {
		q->flows = flows;
		q->index = index;
	}
	q->sched = sched;
	WRITE_ONCE(q->pfc, pfc);
	q->indexed = indexed;
	q->band = 0;
	memset(q->band_deficit, 0, sizeof(q->band_deficit));
	while ((skb = __skb_dequeue(&list)) != NULL) {
		if (pfc)
			qcn_cb(skb)->pfc_prio = qcn_skb_pfc_prio(skb);
		qcn_flow_add(q, skb);
	}
}

/* ------------------------------------------------------------- culprits */

/*
 * The frame holding a uniformly random occupied byte (QCN-OS), in
 * O(log n): the flow from q->index, then the frame by enqueue offset.
 * Only indexed queues are searched (qcn_needs_index()).
 */
static struct sk_buff *qcn_occupied(struct qcn_sched_data *q, u32 rnd)
{
	u32 off = qcn_culprit_offset(q->backlog, rnd);
	struct qcn_flow *flow;
	struct sk_buff *skb;
	struct rb_node *n;
	u32 f = 0, target;
	int c;

	if (!q->backlog || !q->indexed)
		return NULL;
	if (qcn_multi(q)) {
		f = qcn_culprit_index_find(q->index, QCN_FLOWS, off, &off);
		if (f >= QCN_FLOWS)
			return NULL;	/* index out of sync: not reached */
	}
	flow = &q->flows[f];
	n = rb_first_cached(&flow->tree);
	if (!n)
		return NULL;
	target = qcn_cb(rb_to_skb(n))->off + off;
	for (n = flow->tree.rb_root.rb_node; n; ) {
		skb = rb_to_skb(n);
		c = qcn_culprit_frame_cmp(qcn_cb(skb)->off, qdisc_pkt_len(skb),
					  target);
		if (!c)
			return skb;
		n = c < 0 ? n->rb_left : n->rb_right;
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
		return qcn_culprit_two_samples(qcn_pci_index(q->pci, skb_get_hash(a)),
					       qcn_pci_index(q->pci, skb_get_hash(b))) ?
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
 * cannot be answered (a CNM, not Ethernet, sent by this host through no
 * bridge, no unicast source).
 */
static bool qcn_cnm_build(struct Qdisc *sch, struct sk_buff *skb,
			  const struct qcn_cp_sample *s, u8 qfb,
			  struct qcn_cnm_req *req)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct sch_qcn_culprit c;

	if (qcn_cb(skb)->is_cnm || dev->type != ARPHRD_ETHER)
		return false;
	/* sent by this host, not through a bridge: no device leads back */
	if (!skb->skb_iif && !netif_is_bridge_port(dev))
		return false;
	if (!sch_qcn_culprit_read(skb, &c))
		return false;
	/*
	 * A frame this host routed (or sent) carries the port's own address
	 * as its source: the CNM would be addressed to this host, which runs
	 * no reaction point for it.  QCN ends at a router.
	 */
	if (ether_addr_equal(c.sa, dev->dev_addr))
		return false;
	return sch_qcn_cnm_encode(&c, dev->dev_addr, READ_ONCE(q->cpid), s,
				  qfb, req);
}

/* Queue a CNM for the tasklet; false (counted) when the ring is full. */
static bool qcn_cnm_queue(struct qcn_sched_data *q, const struct qcn_cnm_req *req)
{
	struct qcn_cnm_req *slot;
	bool queued = false;

	spin_lock(&q->cnm_lock);
	if (q->cnm_head - q->cnm_tail < QCN_CNM_RING) {
		slot = &q->cnm_ring[q->cnm_head % QCN_CNM_RING];
		*slot = *req;
		slot->stamp = ktime_get_ns();
		q->cnm_head++;
		queued = true;
	} else {
		q->stats.cnm_fail++;
	}
	spin_unlock(&q->cnm_lock);
	if (queued)
		tasklet_schedule(&q->cnm_tasklet);
	return queued;
}

/*
 * The bridge's VLAN helpers.  sch_qcn does not depend on bridge.ko: the
 * first CNM that leaves through a bridge port, which bridge.ko must be
 * loaded for, resolves them with symbol_get(), and they are held until
 * sch_qcn is unloaded.  Without VLAN filtering in the kernel, or should
 * they not resolve, bridges are treated as not VLAN-aware.
 */
struct qcn_br_vlan {
	bool (*enabled)(const struct net_device *br);
	int (*get_pvid_rcu)(const struct net_device *dev, u16 *pvid);
	int (*get_info_rcu)(const struct net_device *dev, u16 vid,
			    struct bridge_vlan_info *info);
	int (*get_proto)(const struct net_device *br, u16 *proto);
};

#if IS_ENABLED(CONFIG_BRIDGE) && IS_ENABLED(CONFIG_BRIDGE_VLAN_FILTERING)
static struct qcn_br_vlan qcn_br_vlan __read_mostly;
static bool qcn_br_vlan_ready;		/* qcn_br_vlan is set: acquire/release */
static DEFINE_SPINLOCK(qcn_br_vlan_lock);

static void qcn_br_vlan_put(struct qcn_br_vlan *v)
{
	if (v->enabled)
		symbol_put(br_vlan_enabled);
	if (v->get_pvid_rcu)
		symbol_put(br_vlan_get_pvid_rcu);
	if (v->get_info_rcu)
		symbol_put(br_vlan_get_info_rcu);
	if (v->get_proto)
		symbol_put(br_vlan_get_proto);
	memset(v, 0, sizeof(*v));
}

/* From the CNM tasklet (BH) only. */
static const struct qcn_br_vlan *qcn_br_vlan_get(void)
{
	struct qcn_br_vlan v;

	/* pairs with the release below: ready means qcn_br_vlan is set */
	if (smp_load_acquire(&qcn_br_vlan_ready))
		return &qcn_br_vlan;
	spin_lock(&qcn_br_vlan_lock);
	if (!qcn_br_vlan_ready) {
		v.enabled = symbol_get(br_vlan_enabled);
		v.get_pvid_rcu = symbol_get(br_vlan_get_pvid_rcu);
		v.get_info_rcu = symbol_get(br_vlan_get_info_rcu);
		v.get_proto = symbol_get(br_vlan_get_proto);
		if (v.enabled && v.get_pvid_rcu && v.get_info_rcu &&
		    v.get_proto) {
			qcn_br_vlan = v;
			/* publish the pointers before the flag */
			smp_store_release(&qcn_br_vlan_ready, true);
		} else {
			qcn_br_vlan_put(&v);
		}
	}
	spin_unlock(&qcn_br_vlan_lock);
	return qcn_br_vlan_ready ? &qcn_br_vlan : NULL;
}

static void qcn_br_vlan_release(void)
{
	if (qcn_br_vlan_ready)
		qcn_br_vlan_put(&qcn_br_vlan);
}
#else
static const struct qcn_br_vlan *qcn_br_vlan_get(void)
{
	return NULL;
}

static void qcn_br_vlan_release(void)
{
}
#endif

/*
 * Through a VLAN-filtering bridge: the bridge port the culprit came in by
 * (the port behind which its source sits), if it is a member of the
 * culprit's VLAN; *tagged as that port sends the VLAN.  Under RCU.
 */
static struct net_device *qcn_cnm_vlan_port(const struct qcn_br_vlan *brv,
					    struct net_device *port,
					    struct net_device *br,
					    const struct qcn_cnm_req *req,
					    u16 *vid, bool *tagged)
{
	struct bridge_vlan_info info;
	struct net_device *in;

	*vid = req->vid;
	if (!req->vlan_proto && brv->get_pvid_rcu(port, vid))
		return NULL;	/* untagged egress: relayed in the PVID */
	in = req->ifindex ? dev_get_by_index_rcu(dev_net(port), req->ifindex) :
			    NULL;
	if (!in || !netif_is_bridge_port(in) ||
	    netdev_master_upper_dev_get_rcu(in) != br ||
	    brv->get_info_rcu(in, *vid, &info))
		return NULL;
	*tagged = !(info.flags & BRIDGE_VLAN_INFO_UNTAGGED);
	return in;
}

/*
 * The device a CNM leaves by, held (*tracker), with the VLAN tag it
 * carries (*vid, *tagged); NULL when there is none.
 */
static struct net_device *qcn_cnm_dev(struct net_device *port,
				      const struct qcn_cnm_req *req,
				      u16 *vid, bool *tagged,
				      netdevice_tracker *tracker)
{
	const struct qcn_br_vlan *brv;
	struct net_device *dev = NULL;

	*vid = req->vid;
	*tagged = !!req->vlan_proto;
	rcu_read_lock();
	if (netif_is_bridge_port(port)) {
		dev = netdev_master_upper_dev_get_rcu(port);
		brv = qcn_br_vlan_get();
		/* the port may have left its bridge since the test above */
		if (dev && !netif_is_bridge_master(dev))
			dev = NULL;
		else if (dev && brv && brv->enabled(dev))
			dev = qcn_cnm_vlan_port(brv, port, dev, req, vid,
						tagged);
	} else if (req->ifindex) {
		/*
		 * Forwarded without a bridge: the CNM goes back by the device
		 * the culprit came in on, in that device's VLAN, not the
		 * culprit's egress one: a VLAN device tags it itself, and a
		 * frame that arrived on a real device with a VID would have
		 * been delivered to a VLAN device (or dropped), so it came
		 * untagged.
		 */
		dev = dev_get_by_index_rcu(dev_net(port), req->ifindex);
		*tagged = false;
	}
	if (dev && !(dev->flags & IFF_UP))
		dev = NULL;
	if (dev)
		netdev_hold(dev, tracker, GFP_ATOMIC);
	rcu_read_unlock();
	return dev;
}

/* The TPID of a tag the culprit did not carry: the bridge's VLAN protocol. */
static __be16 qcn_cnm_vlan_proto(struct net_device *port,
				 const struct qcn_cnm_req *req)
{
	const struct qcn_br_vlan *brv;
	struct net_device *br;
	u16 proto = ETH_P_8021Q;

	if (req->vlan_proto)
		return req->vlan_proto;
	rcu_read_lock();
	br = netdev_master_upper_dev_get_rcu(port);
	brv = br && netif_is_bridge_master(br) ? qcn_br_vlan_get() : NULL;
	if (brv)
		brv->get_proto(br, &proto);
	rcu_read_unlock();
	return htons(proto);
}

static int qcn_cnm_xmit(struct net_device *port, const struct qcn_cnm_req *req)
{
	netdevice_tracker tracker;
	struct net_device *dev;
	struct sk_buff *skb;
	bool tagged;
	u16 vid;
	int ret;

	dev = qcn_cnm_dev(port, req, &vid, &tagged, &tracker);
	if (!dev)
		return -ENODEV;
	skb = sch_qcn_cnm_skb(dev, port->dev_addr, req,
			      tagged ? qcn_cnm_vlan_proto(port, req) : 0, vid);
	if (!skb) {
		netdev_put(dev, &tracker);
		return -ENOMEM;
	}
	ret = dev_queue_xmit(skb);
	netdev_put(dev, &tracker);
	return net_xmit_eval(ret) ? -EIO : 0;
}

/* Softirq context (BH off), so cnm_lock is taken without _bh here. */
static void qcn_cnm_tasklet(struct tasklet_struct *t)
{
	struct qcn_sched_data *q = from_tasklet(q, t, cnm_tasklet);
	struct net_device *port = qdisc_dev(q->sch);
	struct qcn_cnm_req req;
	u64 delay;
	int err;

	for (;;) {
		spin_lock(&q->cnm_lock);
		if (q->cnm_tail == q->cnm_head) {
			spin_unlock(&q->cnm_lock);
			break;
		}
		req = q->cnm_ring[q->cnm_tail % QCN_CNM_RING];
		q->cnm_tail++;
		spin_unlock(&q->cnm_lock);

		delay = ktime_get_ns() - req.stamp;
		err = qcn_cnm_xmit(port, &req);

		spin_lock(&q->cnm_lock);
		if (err) {
			q->stats.cnm_fail++;
		} else {
			q->stats.cnm_delay_ns += delay;
			if (delay > q->stats.cnm_delay_max_ns)
				q->stats.cnm_delay_max_ns = delay;
			q->stats.cnm_sent[req.mode]++;
			q->stats.qfb_hist[req.qfb >> 3]++;
			if (req.positive)
				q->stats.cnm_positive++;
		}
		spin_unlock(&q->cnm_lock);
	}
}

/* ------------------------------------------------------------- sampling */

/*
 * A sampling instant (arrival NULL: keep-alive).  Under the qdisc lock.
 * Standard feedback sends a CNM for Fb < 0 only (AF-QCN may turn it into
 * a CNM of its own, sch_qcn_af_feedback()); signed feedback (N-AIMD,
 * include/qcn/qcn_ap.h) sends one whatever the sign, qFb 0 for Fb >= 0.
 */
static void qcn_sampled(struct Qdisc *sch, const struct qcn_cp_sample *s,
			struct sk_buff *arrival)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	bool sgn = READ_ONCE(q->feedback) == TC_QCN_FEEDBACK_SIGNED;
	u8 mode = READ_ONCE(q->sample);
	struct qcn_cnm_req req;
	struct sk_buff *culprit;
	u32 handle;
	u8 qfb;

	q->stats.samples++;
	q->stats.sample_backlog += q->backlog;
	if (!arrival)
		q->stats.keepalive_samples++;
	q->stats.last_fb = s->fb;
	q->stats.last_qfb = s->qfb;

	qfb = s->congested ? s->qfb : 0;
	if (!qfb && !sgn && !sch_qcn_af_enabled(q->af))
		return;

	culprit = qcn_culprit(sch, &mode, arrival);
	if (!culprit || qcn_cb(culprit)->is_cnm) {
		if (qfb || sgn)
			q->stats.cnm_skipped++;
		return;
	}
	handle = qcn_cb(culprit)->af_handle;
	if (!sgn) {
		qfb = sch_qcn_af_feedback(q->af, handle, s, &q->cp_params);
		if (!qfb)
			return;
	}
	if (!qcn_cnm_build(sch, culprit, s, qfb, &req)) {
		q->stats.cnm_skipped++;
		return;
	}
	req.mode = mode;
	/* signed feedback's increase; AF-QCN's qFb for Fb >= 0 is not one */
	req.positive = sgn && !s->congested;
	if (qcn_cnm_queue(q, &req))
		sch_qcn_af_cnm_sent(q->af, handle);
}

static enum hrtimer_restart qcn_keepalive_timer(struct hrtimer *timer)
{
	struct qcn_sched_data *q = container_of(timer, struct qcn_sched_data,
						ka_timer);
	struct Qdisc *sch = q->sch;
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct qcn_cp_sample s;
	spinlock_t *root_lock;		/* the qdisc tree's: the CP is under it */
	u64 now, ka;

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(sch));
	spin_lock(root_lock);
	spin_lock(&q->timer_lock);
	ka = (u64)READ_ONCE(q->keepalive) * NSEC_PER_USEC;
	/* cp input or none: the instance's own queue is not sampled */
	if (!qcn_cp_output(READ_ONCE(q->cp_at)))
		ka = 0;
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
	spin_unlock(&q->timer_lock);
	spin_unlock(root_lock);
	rcu_read_unlock();
	return ret;
}

/* ------------------------------------------------------ PFC reception */

static void qcn_pfc_kick(struct qcn_sched_data *q)
{
	if (!READ_ONCE(q->sch->q.qlen))
		return;
	rcu_read_lock();
	__netif_schedule(qdisc_root(q->sch));
	rcu_read_unlock();
}

/*
 * The device's tap: every frame received on it, before its rx_handler.
 * A PFC frame sets the pause state (qcn_pfc_rx_frame()); every frame goes
 * on to the stack (a bridge port's rx_handler drops PFC frames).
 */
static int qcn_pfc_rcv(struct sk_buff *skb, struct net_device *dev,
		       struct packet_type *pt, struct net_device *orig_dev)
{
	struct qcn_sched_data *q = container_of(pt, struct qcn_sched_data,
						pfc_pt);

	if (qcn_pfc_rx_frame(&q->pfc_rx, skb, ktime_get_ns()))
		qcn_pfc_kick(q);
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

/*
 * The port rate pauses are timed at (bit/s): the qdisc's rate, else the
 * device's ethtool speed, else 1 Gbit/s.  Under RTNL.
 */
static u64 qcn_pfc_port_bps(struct Qdisc *sch, u64 rate)
{
	struct ethtool_link_ksettings ks;

	if (rate)
		return rate * 8;
	if (!__ethtool_get_link_ksettings(qdisc_dev(sch), &ks) &&
	    ks.base.speed && ks.base.speed != (u32)SPEED_UNKNOWN)
		return (u64)ks.base.speed * 1000000;
	return QCN_PFC_DEF_BPS;
}

/* Register or remove the tap as pfc says.  Under RTNL, not atomic. */
static void qcn_pfc_tap(struct Qdisc *sch, bool on)
{
	struct qcn_sched_data *q = qdisc_priv(sch);

	if (on == q->pfc_tap)
		return;
	if (on) {
		qcn_pfc_rx_clear(&q->pfc_rx);
		q->pfc_pt.type = htons(ETH_P_ALL);
		q->pfc_pt.dev = qdisc_dev(sch);
		q->pfc_pt.func = qcn_pfc_rcv;
		/* what the device sends does not visit the tap */
		q->pfc_pt.ignore_outgoing = true;
		dev_add_pack(&q->pfc_pt);
	} else {
		/* returns after the taps running now (synchronize_net()) */
		dev_remove_pack(&q->pfc_pt);
		qcn_pfc_rx_clear(&q->pfc_rx);
		qcn_pfc_kick(q);
	}
	q->pfc_tap = on;
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

/* One Ethernet frame of AF handle 'handle' arrives: queue or tail-drop it, sample. */
static int qcn_enqueue_frame(struct sk_buff *skb, struct Qdisc *sch,
			     struct sk_buff **to_free, u32 handle)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	u32 len, ka, rnd, hash = 0;
	struct qcn_cp_sample s;
	struct qcn_skb_cb *cb;
	bool drop, over_memory, pci, acct;

	cb = qcn_cb(skb);
	cb->af_handle = handle;
	cb->is_cnm = qdisc_dev(sch)->type == ARPHRD_ETHER && qcn_skb_is_cnm(skb);
	cb->pfc_slot = 0;
	len = qdisc_pkt_len(skb);
	/* feed the index only while a two-samples instance reads it; hash
	 * before the skb is linked (qcn_flow_link())
	 */
	pci = !cb->is_cnm && atomic_read(&q->pci->users);
	if (pci)
		hash = skb_get_hash(skb);

	drop = sch->qstats.backlog + len > q->limit;
	over_memory = !drop &&
		      q->memory_usage + skb->truesize > q->memory_limit;
	if (!drop && !over_memory) {
		/* the switch's input accounting: the port it came in by */
		acct = READ_ONCE(q->pfc_net->nports) && skb->skb_iif;
		if (q->pfc || acct)
			cb->pfc_prio = qcn_skb_pfc_prio(skb);
		/* before the skb is linked: the input CP hashes it */
		if (acct)
			cb->pfc_slot = sch_qcn_pfc_account(q->pfc_net, skb,
							   cb->is_cnm,
							   cb->pfc_prio, len,
							   &cb->in_flow);
		qcn_flow_add(q, skb);
		qdisc_qstats_backlog_inc(sch, skb);
		sch->q.qlen++;
		q->memory_usage += skb->truesize;
	}
	if (pci && !cb->is_cnm)
		qcn_pci_update(q->pci, hash,
			       qcn_culprit_fill_level(q->backlog, q->limit));
	if (!cb->is_cnm && qcn_cp_output(q->cp_at)) {
		ka = q->keepalive;
		if (ka) {
			q->ka_ref = ktime_get_ns();
			if (q->backlog > q->cp_params.qeq &&
			    !hrtimer_is_queued(&q->ka_timer))
				hrtimer_start(&q->ka_timer,
					      ns_to_ktime(q->ka_ref + (u64)ka * NSEC_PER_USEC),
					      HRTIMER_MODE_ABS_SOFT);
		}
		if (q->feedback == TC_QCN_FEEDBACK_SIGNED) {
			/* N-AIMD: each arrival sampled with probability 1/T */
			if (qcn_naimd_cp_arrival(&q->cp, &q->cp_params, q->fb_period,
						 q->backlog, get_random_u32(), &s))
				qcn_sampled(sch, &s, skb);
		} else {
			/* qcn_cp_arrival() uses the draw only at a sampling instant */
			rnd = q->cp.countdown <= len ? get_random_u32() : 0;
			if (qcn_cp_arrival(&q->cp, &q->cp_params, len, q->backlog, rnd, &s))
				qcn_sampled(sch, &s, skb);
		}
	}
	if (drop || over_memory) {
		if (drop)
			q->stats.drops++;
		else
			q->stats.drops_overmemory++;
		return qdisc_drop(skb, sch, to_free);
	}
	return NET_XMIT_SUCCESS;
}

/*
 * Classify once (AF-QCN), then queue frames: a GSO skb is split into the
 * Ethernet frames a switch port queues, so that queue length, sampling,
 * culprits and CNMs act on frames (include/net/qcn_gso.h).
 */
static int qcn_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	unsigned int prev_len, len = 0, nb = 0;
	struct sk_buff *segs, *next;
	u32 handle;
	int ret;

	qcn_backlog_time(q, sch->qstats.backlog, ktime_get_ns());
	ret = sch_qcn_af_enqueue(q->af, skb, &handle);
	if (ret) {
		if (ret & __NET_XMIT_BYPASS)
			qdisc_qstats_drop(sch);
		__qdisc_drop(skb, to_free);
		return ret;
	}
	if (!skb_is_gso(skb))
		return qcn_enqueue_frame(skb, sch, to_free, handle);

	prev_len = qdisc_pkt_len(skb);
	segs = qcn_gso_segment(skb, sch, to_free);
	skb_list_walk_safe(segs, segs, next) {
		skb_mark_not_on_list(segs);
		if (qcn_enqueue_frame(segs, sch, to_free, handle) ==
		    NET_XMIT_SUCCESS) {
			nb++;
			len += qdisc_pkt_len(segs);
		}
	}
	q->stats.gso_split += nb > 0;
	return qcn_gso_enqueued(sch, nb, prev_len, len);
}

static struct sk_buff *qcn_dequeue(struct Qdisc *sch)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 now, rate;

	if (!sch->q.qlen)
		return NULL;
	rate = q->rate;
	now = ktime_get_ns();
	if (rate) {
		if (now < q->time_next) {
			qdisc_watchdog_schedule_range_ns(&q->watchdog, q->time_next,
							 QCN_TIMER_SLACK);
			return NULL;
		}
	}
	qcn_backlog_time(q, sch->qstats.backlog, now);
	if (likely(!q->pfc)) {
		skb = qcn_dequeue_one(sch);
		if (!skb)
			return NULL;
	} else {
		u64 wake;

		skb = qcn_pfc_dequeue(q, now, &wake);
		if (!skb) {
			/* every backlogged priority is paused */
			if (wake)
				qdisc_watchdog_schedule_range_ns(&q->watchdog,
								 wake, 0);
			return NULL;
		}
		qcn_dequeued(sch, skb);
	}
	if (rate) {
		/* a late watchdog keeps its schedule; an idle port gets no credit */
		if (now > q->time_next + QCN_PACE_SLACK)
			q->time_next = now;
		q->time_next += min_t(u64, QCN_MAX_FRAME_DELAY,
				      div64_u64((u64)qdisc_pkt_len(skb) *
						NSEC_PER_SEC, rate));
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

	spin_lock_bh(&q->timer_lock);
	qcn_backlog_time(q, sch->qstats.backlog, ktime_get_ns());
	qcn_purge(sch);
	sch->qstats.backlog = 0;
	sch->q.qlen = 0;
	q->time_next = 0;
	qcn_cp_init(&q->cp, &q->cp_params, get_random_u32());
	spin_unlock_bh(&q->timer_lock);
	qdisc_watchdog_cancel(&q->watchdog);
	spin_lock_bh(&q->cnm_lock);
	q->cnm_tail = q->cnm_head;	/* plain data: nothing to free */
	spin_unlock_bh(&q->cnm_lock);
	if (q->af)
		sch_qcn_af_reset(q->af);
}

static struct netlink_range_validation qcn_limit_range = {
	.min = 1, .max = TC_QCN_MAX_SIZE,
};

static struct netlink_range_validation qcn_rate_range = {
	.min = 0, .max = QCN_MAX_RATE,
};

static struct netlink_range_validation qcn_qeq_range = {
	.min = 1, .max = TC_QCN_MAX_SIZE,
};

static struct netlink_range_validation qcn_interval_range = {
	.min = QCN_CP_MIN_INTERVAL, .max = TC_QCN_MAX_SIZE,
};

/* keep-alive period: 0 (off) or QCN_MIN_KEEPALIVE .. QCN_MAX_KEEPALIVE us */
static int qcn_validate_keepalive(const struct nlattr *attr,
				  struct netlink_ext_ack *extack)
{
	u32 v = nla_get_u32(attr);

	if (v && (v < QCN_MIN_KEEPALIVE || v > QCN_MAX_KEEPALIVE)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "qcn: keepalive must be 0 (off) or 100us .. 10s");
		return -ERANGE;
	}
	return 0;
}

/* fabric id: 0 (the namespace's own index) or 1 .. TC_QCN_MAX_FABRIC */
static int qcn_validate_fabric(const struct nlattr *attr,
			       struct netlink_ext_ack *extack)
{
	if (nla_get_u32(attr) > TC_QCN_MAX_FABRIC) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "qcn: fabric must be 0 (this namespace's index) or 1 .. 65535");
		return -ERANGE;
	}
	return 0;
}

static struct netlink_range_validation qcn_frac_range = {
	.min = 1, .max = QCN_FRAC_ONE - 1,
};

static struct netlink_range_validation qcn_af_ts_range = {
	.min = SCH_QCN_AF_MIN_TS_US, .max = SCH_QCN_AF_MAX_TS_US,
};

static struct netlink_range_validation qcn_af_active_range = {
	.min = 0, .max = TC_QCN_MAX_SIZE,
};

static struct netlink_range_validation qcn_fb_period_range = {
	.min = 1, .max = TC_QCN_MAX_FB_PERIOD,
};

static struct netlink_range_validation qcn_pfc_bytes_range = {
	.max	= TC_QCN_MAX_SIZE,
};

static struct netlink_range_validation qcn_pfc_quanta_range = {
	.min = 1, .max = TC_QCN_MAX_PFC_QUANTA,
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
	[TCA_QCN_KEEPALIVE]	= NLA_POLICY_VALIDATE_FN(NLA_U32, qcn_validate_keepalive),
	[TCA_QCN_CPID]		= { .type = NLA_U16 },
	[TCA_QCN_AF]		= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_QCN_AF_ALPHA]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_frac_range),
	[TCA_QCN_AF_TS]		= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_af_ts_range),
	[TCA_QCN_AF_BETA]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_frac_range),
	[TCA_QCN_AF_ACTIVE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_af_active_range),
	[TCA_QCN_MEMORY_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_limit_range),
	[TCA_QCN_FEEDBACK]	= NLA_POLICY_MAX(NLA_U8, TC_QCN_FEEDBACK_MAX),
	[TCA_QCN_AF_FB]		= NLA_POLICY_MAX(NLA_U8, TC_QCN_AF_FB_MAX),
	[TCA_QCN_FB_PERIOD]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_fb_period_range),
	[TCA_QCN_FABRIC]	= NLA_POLICY_VALIDATE_FN(NLA_U32, qcn_validate_fabric),
	[TCA_QCN_PFC_XOFF]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_pfc_bytes_range),
	[TCA_QCN_PFC_XON]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_pfc_bytes_range),
	[TCA_QCN_PFC_QUANTA]	= NLA_POLICY_FULL_RANGE(NLA_U32, &qcn_pfc_quanta_range),
	[TCA_QCN_PFC]		= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_QCN_CP]		= NLA_POLICY_MAX(NLA_U8, TC_QCN_CP_MAX),
};

/*
 * The PFC generation settings after a change: pfc-xoff 0 turns it off;
 * pfc-xon defaults to 2/5 of pfc-xoff (the occupancy-sampling paper's
 * Table I: 44 KB of 110 KB), pfc-quanta to the largest pause.  The
 * caller sets the port rate the pause is timed at (qcn_pfc_port_bps()).
 */
static int qcn_pfc_cfg(struct Qdisc *sch, struct nlattr **tb,
		       struct sch_qcn_pfc_cfg *pfc,
		       struct netlink_ext_ack *extack)
{
	struct qcn_sched_data *q = qdisc_priv(sch);

	pfc->xoff = tb[TCA_QCN_PFC_XOFF] ? nla_get_u32(tb[TCA_QCN_PFC_XOFF]) :
					   q->pfc_xoff;
	if (tb[TCA_QCN_PFC_XON])
		pfc->xon = nla_get_u32(tb[TCA_QCN_PFC_XON]);
	else if (tb[TCA_QCN_PFC_XOFF])
		pfc->xon = div_u64((u64)pfc->xoff * 2, 5);
	else
		pfc->xon = q->pfc_xon;
	pfc->quanta = tb[TCA_QCN_PFC_QUANTA] ?
		      nla_get_u32(tb[TCA_QCN_PFC_QUANTA]) :
		      (q->pfc_quanta ?: TC_QCN_MAX_PFC_QUANTA);
	if (!pfc->xoff) {
		if (tb[TCA_QCN_PFC_XON] || tb[TCA_QCN_PFC_QUANTA]) {
			NL_SET_ERR_MSG(extack,
				       "qcn: pfc-xon and pfc-quanta need pfc-xoff");
			return -EINVAL;
		}
		pfc->xon = 0;
		pfc->quanta = 0;
		return 0;
	}
	if (pfc->xon > pfc->xoff) {
		NL_SET_ERR_MSG(extack, "qcn: pfc-xon must not exceed pfc-xoff");
		return -EINVAL;
	}
	return 0;
}

static int qcn_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_QCN_MAX + 1];
	unsigned int dropped = 0, dropped_len = 0;
	struct qcn_fabric *fabric = NULL, *old_fabric = NULL;
	struct sch_qcn_pfc_port *pfc_gone = NULL;
	struct qcn_flow *flows = NULL;
	struct sch_qcn_pfc_cfg pfc = {};
	struct qcn_cp_params p;
	struct sk_buff *skb;
	bool was_two, indexed, af, pfc_rx;
	u32 *index = NULL, fabric_id;
	u8 sched, feedback, sample, cp_at;
	u64 pfc_bps = 0;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG(extack, "qcn: missing options");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_QCN_MAX, opt, qcn_policy, extack);
	if (err < 0)
		return err;

	p = q->cp_params;
	if (tb[TCA_QCN_QEQ])
		p.qeq = nla_get_u32(tb[TCA_QCN_QEQ]);
	if (tb[TCA_QCN_W_EXP])
		p.w_exp = nla_get_s32(tb[TCA_QCN_W_EXP]);
	if (tb[TCA_QCN_INTERVAL])
		p.interval = nla_get_u32(tb[TCA_QCN_INTERVAL]);
	feedback = tb[TCA_QCN_FEEDBACK] ? nla_get_u8(tb[TCA_QCN_FEEDBACK]) :
					  q->feedback;
	af = tb[TCA_QCN_AF] ? nla_get_u8(tb[TCA_QCN_AF]) :
			      sch_qcn_af_enabled(q->af);
	if (feedback == TC_QCN_FEEDBACK_SIGNED && af) {
		NL_SET_ERR_MSG(extack,
			       "qcn: feedback signed (N-AIMD) does not combine with AF-QCN");
		return -EINVAL;
	}
	err = qcn_pfc_cfg(sch, tb, &pfc, extack);
	if (err)
		return err;
	pfc_rx = tb[TCA_QCN_PFC] ? nla_get_u8(tb[TCA_QCN_PFC]) : q->pfc;
	if ((pfc.xoff || pfc_rx) && qdisc_dev(sch)->type != ARPHRD_ETHER) {
		NL_SET_ERR_MSG(extack,
			       "qcn: PFC needs an Ethernet device (802.1Qbb PFC is a MAC Control frame)");
		return -EOPNOTSUPP;
	}
	cp_at = tb[TCA_QCN_CP] ? nla_get_u8(tb[TCA_QCN_CP]) : q->cp_at;
	sample = tb[TCA_QCN_SAMPLE] ? nla_get_u8(tb[TCA_QCN_SAMPLE]) : q->sample;
	pfc.in_cp = qcn_cp_input(cp_at);
	if (pfc.in_cp) {
		if (qdisc_dev(sch)->type != ARPHRD_ETHER) {
			NL_SET_ERR_MSG(extack,
				       "qcn: cp input needs an Ethernet device (its CNMs go back out of it)");
			return -EOPNOTSUPP;
		}
		if (feedback == TC_QCN_FEEDBACK_SIGNED) {
			NL_SET_ERR_MSG(extack,
				       "qcn: cp input sends standard feedback, not signed");
			return -EINVAL;
		}
		pfc.sample = sample;
		pfc.cpid = tb[TCA_QCN_CPID] ? nla_get_u16(tb[TCA_QCN_CPID]) :
					      q->cpid;
		pfc.keepalive = tb[TCA_QCN_KEEPALIVE] ?
				nla_get_u32(tb[TCA_QCN_KEEPALIVE]) :
				q->keepalive;
		pfc.cp = p;
	}
	/* generation and reception time pauses at the same port rate */
	if (pfc.xoff || pfc_rx)
		pfc.rate_bps = qcn_pfc_port_bps(sch, tb[TCA_QCN_RATE] ?
						nla_get_u64(tb[TCA_QCN_RATE]) :
						q->rate);
	if (pfc_rx)
		pfc_bps = pfc.rate_bps;
	fabric_id = tb[TCA_QCN_FABRIC] ? nla_get_u32(tb[TCA_QCN_FABRIC]) :
					 q->fabric_id;
	if (fabric_id && fabric_id != q->fabric_id) {
		/* a fabric's index is shared with every namespace */
		if (!capable(CAP_NET_ADMIN)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_QCN_FABRIC],
					    "qcn: joining a fabric needs CAP_NET_ADMIN in the initial user namespace");
			return -EPERM;
		}
		fabric = qcn_fabric_get(fabric_id);
		if (!fabric) {
			NL_SET_ERR_MSG(extack, "qcn: no memory for the fabric's index");
			return -ENOMEM;
		}
	}
	/* the input CP reads the table the instance has after the change */
	if (fabric)
		pfc.pci = &fabric->pci;
	else
		pfc.pci = fabric_id ? q->pci : qcn_net_pci(sch);
	sched = tb[TCA_QCN_SCHED] ? nla_get_u8(tb[TCA_QCN_SCHED]) : q->sched;
	if ((sched == TC_QCN_SCHED_DRR || pfc_rx) && q->flows == &q->fifo &&
	    qcn_flows_alloc(sch, &flows, &index)) {
		qcn_fabric_put(fabric);
		NL_SET_ERR_MSG(extack, "qcn: no memory for the flow queues");
		return -ENOMEM;
	}
	err = sch_qcn_af_prepare(q->af, tb, extack);
	if (!err && (pfc.xoff || pfc.in_cp))
		err = sch_qcn_pfc_port_set(q->pfc_net, qdisc_dev(sch), &pfc,
					   &q->pfc_port, extack);
	if (err) {
		kvfree(flows);
		kvfree(index);
		qcn_fabric_put(fabric);
		return err;
	}
	if (!pfc.xoff && !pfc.in_cp) {
		pfc_gone = q->pfc_port;
		q->pfc_port = NULL;
	}

	sch_tree_lock(sch);
	was_two = q->sample == TC_QCN_SAMPLE_TWO;
	if (tb[TCA_QCN_LIMIT])
		WRITE_ONCE(q->limit, nla_get_u32(tb[TCA_QCN_LIMIT]));
	if (tb[TCA_QCN_MEMORY_LIMIT])
		WRITE_ONCE(q->memory_limit, nla_get_u32(tb[TCA_QCN_MEMORY_LIMIT]));
	if (tb[TCA_QCN_RATE]) {
		WRITE_ONCE(q->rate, nla_get_u64(tb[TCA_QCN_RATE]));
		/* the old rate's schedule is void (as tbf_change refills its
		 * buckets): the head may leave now, not when the old rate
		 * would have let it
		 */
		q->time_next = 0;
		if (sch->q.qlen)
			qdisc_watchdog_schedule_ns(&q->watchdog,
						   ktime_get_ns());
	}
	WRITE_ONCE(q->sample, sample);
	WRITE_ONCE(q->cp_at, cp_at);
	if (fabric_id != q->fabric_id) {
		/* the packet path reads q->pci under this lock; the reader
		 * count moves with the instance
		 */
		qcn_pci_use(q, false);
		old_fabric = q->fabric;
		q->fabric = fabric;
		q->pci = fabric ? &fabric->pci : qcn_net_pci(sch);
		WRITE_ONCE(q->fabric_id, fabric_id);
	}
	qcn_pci_use(q, q->sample == TC_QCN_SAMPLE_TWO);
	if (tb[TCA_QCN_KEEPALIVE])
		WRITE_ONCE(q->keepalive, nla_get_u32(tb[TCA_QCN_KEEPALIVE]));
	if (tb[TCA_QCN_CPID])
		WRITE_ONCE(q->cpid, nla_get_u16(tb[TCA_QCN_CPID]));
	WRITE_ONCE(q->feedback, feedback);
	if (tb[TCA_QCN_FB_PERIOD])
		WRITE_ONCE(q->fb_period, nla_get_u32(tb[TCA_QCN_FB_PERIOD]));
	WRITE_ONCE(q->pfc_xoff, pfc.xoff);
	WRITE_ONCE(q->pfc_xon, pfc.xon);
	WRITE_ONCE(q->pfc_quanta, pfc.quanta);
	WRITE_ONCE(q->cp_params.qeq, p.qeq);
	WRITE_ONCE(q->cp_params.w_exp, p.w_exp);
	WRITE_ONCE(q->cp_params.interval, p.interval);
	indexed = qcn_needs_index(q->sample, q->keepalive);
	qcn_pfc_rx_set_bps(&q->pfc_rx, pfc_bps);
	/* queued frames join the new layout; an indexed two-samples queue
	 * holds hashed frames only (qcn_flow_link())
	 */
	if (sched != q->sched || pfc_rx != q->pfc || indexed != q->indexed ||
	    (indexed && !was_two && q->sample == TC_QCN_SAMPLE_TWO))
		qcn_resort(q, sched, pfc_rx, indexed, flows, index);
	sch_qcn_af_apply(q->af, tb);

	qcn_backlog_time(q, sch->qstats.backlog, ktime_get_ns());
	while (sch->qstats.backlog > q->limit ||
	       q->memory_usage > q->memory_limit) {
		bool over_limit = sch->qstats.backlog > q->limit;

		skb = qcn_dequeue_one(sch);
		if (!skb)
			break;
		dropped++;
		dropped_len += qdisc_pkt_len(skb);
		/* counted as enqueue counts its drops */
		if (over_limit)
			q->stats.drops++;
		else
			q->stats.drops_overmemory++;
		qdisc_qstats_drop(sch);
		rtnl_kfree_skbs(skb, skb);
	}
	qdisc_tree_reduce_backlog(sch, dropped, dropped_len);
	sch_tree_unlock(sch);
	qcn_fabric_put(old_fabric);
	sch_qcn_pfc_port_del(pfc_gone);
	qcn_pfc_tap(sch, pfc_rx);
	return 0;
}

static int qcn_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct qcn_sched_data *q = qdisc_priv(sch);
	u32 i;

	/* everything .destroy touches first: it also runs when init fails */
	q->sch = sch;
	q->pci = qcn_net_pci(sch);
	q->pfc_net = qcn_net_pfc(sch);
	spin_lock_init(&q->cnm_lock);
	spin_lock_init(&q->timer_lock);
	qcn_pfc_rx_init(&q->pfc_rx);
	tasklet_setup(&q->cnm_tasklet, qcn_cnm_tasklet);
	hrtimer_init(&q->ka_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	q->ka_timer.function = qcn_keepalive_timer;
	qdisc_watchdog_init(&q->watchdog, sch);
	for (i = 0; i < QCN_NPRIO; i++)
		INIT_LIST_HEAD(&q->active[i]);
	qcn_flows_init(&q->fifo, 1);
	q->flows = &q->fifo;

	q->af = sch_qcn_af_create(sch, extack);
	if (!q->af)
		return -ENOMEM;

	q->limit = QCN_DEF_LIMIT;
	q->memory_limit = QCN_DEF_MEMORY_LIMIT;
	q->sched = TC_QCN_SCHED_FIFO;
	q->sample = TC_QCN_SAMPLE_ARRIVAL;
	q->quantum = psched_mtu(qdisc_dev(sch));
	q->feedback = TC_QCN_FEEDBACK_QCN;
	q->fb_period = QCN_AP_DEF_PERIOD;
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

	sch_qcn_pfc_port_del(q->pfc_port);
	/* returns after the taps running now; nothing is left to kick */
	if (q->pfc_tap)
		dev_remove_pack(&q->pfc_pt);
	hrtimer_cancel(&q->ka_timer);
	qdisc_watchdog_cancel(&q->watchdog);
	tasklet_kill(&q->cnm_tasklet);
	qcn_pci_use(q, false);
	qcn_fabric_put(q->fabric);
	if (q->flows)
		qcn_purge(sch);
	if (q->flows != &q->fifo)
		kvfree(q->flows);
	kvfree(q->index);
	if (q->af)
		sch_qcn_af_destroy(q->af);
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
	    nla_put_u16(skb, TCA_QCN_CPID, READ_ONCE(q->cpid)) ||
	    nla_put_u32(skb, TCA_QCN_MEMORY_LIMIT, READ_ONCE(q->memory_limit)) ||
	    nla_put_u8(skb, TCA_QCN_FEEDBACK, READ_ONCE(q->feedback)) ||
	    nla_put_u32(skb, TCA_QCN_FB_PERIOD, READ_ONCE(q->fb_period)) ||
	    nla_put_u32(skb, TCA_QCN_FABRIC, READ_ONCE(q->fabric_id)) ||
	    nla_put_u32(skb, TCA_QCN_PFC_XOFF, READ_ONCE(q->pfc_xoff)) ||
	    nla_put_u32(skb, TCA_QCN_PFC_XON, READ_ONCE(q->pfc_xon)) ||
	    nla_put_u32(skb, TCA_QCN_PFC_QUANTA, READ_ONCE(q->pfc_quanta)) ||
	    nla_put_u8(skb, TCA_QCN_PFC, READ_ONCE(q->pfc)) ||
	    nla_put_u8(skb, TCA_QCN_CP, READ_ONCE(q->cp_at)))
		goto nla_put_failure;
	if (q->af && sch_qcn_af_dump(q->af, skb))
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

	/*
	 * One snapshot: the sampling counters, qold and the flow count change
	 * under the root lock (enqueue, keep-alive), the CNM counters under
	 * cnm_lock (also taken inside the root lock by enqueue), as sch_fq
	 * dumps its counters under sch_tree_lock.
	 */
	sch_tree_lock(sch);
	qcn_backlog_time(q, sch->qstats.backlog, ktime_get_ns());
	spin_lock(&q->cnm_lock);
	st = q->stats;
	spin_unlock(&q->cnm_lock);
	st.qold = q->cp.qold;
	st.flows = q->nr_active;
	st.memory_usage = q->memory_usage;
	st.af_classes = q->af ? sch_qcn_af_tracked(q->af) : 0;
	st.stamp_ns = q->bl_stamp;
	sch_qcn_pfc_stats(q->pfc_port, &st);
	sch_tree_unlock(sch);

	qcn_pfc_rx_stats(&q->pfc_rx, st.pfc_rx, &st.pfc_rx_xon,
			 &st.pfc_rx_ignored, st.pfc_paused_ns);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

/* ------------------------------------------------- classes (AF-QCN) */

/* The class ops hand the AF state to sch_qcn_af.c, which owns the classes. */
static struct sch_qcn_af *qcn_sched_af(struct Qdisc *sch)
{
	struct qcn_sched_data *q = qdisc_priv(sch);

	return q->af;
}

static struct Qdisc *qcn_class_leaf(struct Qdisc *sch, unsigned long arg)
{
	return NULL;	/* classes schedule nothing: they weigh feedback */
}

static unsigned long qcn_class_find(struct Qdisc *sch, u32 classid)
{
	return sch_qcn_af_class_find(qcn_sched_af(sch), classid);
}

static int qcn_class_change(struct Qdisc *sch, u32 classid, u32 parentid,
			    struct nlattr **tca, unsigned long *arg,
			    struct netlink_ext_ack *extack)
{
	return sch_qcn_af_class_change(qcn_sched_af(sch), classid, parentid,
				       tca, arg, extack);
}

static int qcn_class_delete(struct Qdisc *sch, unsigned long arg,
			    struct netlink_ext_ack *extack)
{
	return sch_qcn_af_class_delete(qcn_sched_af(sch), arg, extack);
}

static void qcn_class_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	sch_qcn_af_class_walk(qcn_sched_af(sch), arg);
}

static struct tcf_block *qcn_tcf_block(struct Qdisc *sch, unsigned long cl,
				       struct netlink_ext_ack *extack)
{
	return sch_qcn_af_tcf_block(qcn_sched_af(sch), cl, extack);
}

static unsigned long qcn_bind_tcf(struct Qdisc *sch, unsigned long parent,
				  u32 classid)
{
	return sch_qcn_af_bind_tcf(qcn_sched_af(sch), classid);
}

static void qcn_unbind_tcf(struct Qdisc *sch, unsigned long arg)
{
	sch_qcn_af_unbind_tcf(arg);
}

static int qcn_class_dump(struct Qdisc *sch, unsigned long arg,
			  struct sk_buff *skb, struct tcmsg *tcm)
{
	return sch_qcn_af_class_dump(arg, skb, tcm);
}

static int qcn_class_dump_stats(struct Qdisc *sch, unsigned long arg,
				struct gnet_dump *d)
{
	return sch_qcn_af_class_dump_stats(qcn_sched_af(sch), arg, d);
}

static const struct Qdisc_class_ops qcn_class_ops = {
	.leaf		= qcn_class_leaf,
	.find		= qcn_class_find,
	.change		= qcn_class_change,
	.delete		= qcn_class_delete,
	.walk		= qcn_class_walk,
	.tcf_block	= qcn_tcf_block,
	.bind_tcf	= qcn_bind_tcf,
	.unbind_tcf	= qcn_unbind_tcf,
	.dump		= qcn_class_dump,
	.dump_stats	= qcn_class_dump_stats,
};

static struct Qdisc_ops qcn_qdisc_ops __read_mostly = {
	.id		= "qcn",
	.priv_size	= sizeof(struct qcn_sched_data),
	.cl_ops		= &qcn_class_ops,
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
	qcn_br_vlan_release();
}

module_init(qcn_module_init);
module_exit(qcn_module_exit);
MODULE_AUTHOR("linux-qcn");
MODULE_DESCRIPTION("IEEE 802.1Qau QCN congestion point qdisc");
MODULE_LICENSE("GPL");
MODULE_VERSION(QCN_VERSION);
MODULE_ALIAS("net-sch-qcn");
