/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel glue shared by sch_qcn and rp_limiter (not an algorithm core):
 * the receiving side of 802.1Qbb PFC for a qdisc that honours it (option
 * pfc of qcn and qcn_rp).  The frame codec and the pause time are the
 * core's (include/qcn/qcn_pfc.h); this is the per-device pause state the
 * receive handler writes and the dequeue reads.
 *
 * A PFC frame that decodes sets, for each priority it enables, a pause of
 * its quanta at the port rate from now, replacing any pause in force;
 * time 0 (XON) resumes at once; one that does not decode is counted and
 * ignored.  A priority is paused while now < until[p].  The receive
 * handler writes the state under @lock (a softirq's, without the qdisc
 * root lock); the dequeue reads until[] without it (READ_ONCE):
 *
 *	rcv:	if (qcn_pfc_rx_frame(&q->pfc, skb, ktime_get_ns()))
 *			kick the qdisc (a pause ended early)
 *	deq:	until = qcn_pfc_rx_until(&q->pfc, prio);
 *		if (until > now)  the priority waits, at most until then
 *
 * A frame's priority is what its peer's accounting counts it for
 * (qcn_skb_pfc_prio()).
 */
#ifndef _NET_QCN_PFC_RX_H
#define _NET_QCN_PFC_RX_H

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <qcn/qcn_pfc.h>

struct qcn_pfc_rx {
	spinlock_t	lock;			/* the fields below, for writers */
	u64	bps;				/* port rate pauses are timed at */
	u64	until[QCN_PFC_NPRIO];		/* paused while now < this, ns */
	u64	start[QCN_PFC_NPRIO];		/* when that pause began */
	u64	rx[QCN_PFC_NPRIO];		/* frames with a pause time */
	u64	rx_xon;				/* entries with time 0 */
	u64	rx_ignored;			/* 0x8808 frames not PFC */
	u64	paused_ns[QCN_PFC_NPRIO];	/* ended pauses' time */
};

static inline void qcn_pfc_rx_init(struct qcn_pfc_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
	spin_lock_init(&rx->lock);
}

/* The end of priority @p's pause in force (ns), if it is > now. */
static inline u64 qcn_pfc_rx_until(const struct qcn_pfc_rx *rx, u32 p)
{
	return READ_ONCE(rx->until[p]);
}

/*
 * Time priority p's pause so far into the ended pauses' sum and start a
 * new one at @now lasting until @until (until == now: none).  Under
 * rx->lock.  Returns true when a pause in force ends earlier than it
 * would have: the queue must be kicked, its watchdog may wait longer.
 */
static inline bool __qcn_pfc_rx_set(struct qcn_pfc_rx *rx, u32 p, u64 now,
				    u64 until)
{
	u64 old = rx->until[p];

	if (old > rx->start[p])
		rx->paused_ns[p] += min(old, now) - rx->start[p];
	rx->start[p] = now;
	WRITE_ONCE(rx->until[p], until);
	return old > now && until < old;
}

/* End every pause: the option was turned on or off.  Process context. */
static inline void qcn_pfc_rx_clear(struct qcn_pfc_rx *rx)
{
	u64 now = ktime_get_ns();
	u32 p;

	spin_lock_bh(&rx->lock);
	for (p = 0; p < QCN_PFC_NPRIO; p++)
		__qcn_pfc_rx_set(rx, p, now, now);
	spin_unlock_bh(&rx->lock);
}

/* The port rate pauses are timed at from now on, bit/s. */
static inline void qcn_pfc_rx_set_bps(struct qcn_pfc_rx *rx, u64 bps)
{
	WRITE_ONCE(rx->bps, bps);
}

/*
 * A frame received on the device (its MAC header before skb->data, as the
 * stack hands it to a packet_type): if it is of EtherType 0x8808, apply
 * it as above.  Softirq context.  Returns true when a pause ended early.
 */
static inline bool qcn_pfc_rx_frame(struct qcn_pfc_rx *rx,
				    const struct sk_buff *skb, u64 now)
{
	int err = QCN_PFC_ETRUNC;
	u8 buf[QCN_PFC_FRAME_LEN];
	struct qcn_pfc f;
	bool kick = false;
	u32 len, p;
	u64 bps;

	if (likely(skb->protocol != htons(ETH_P_PAUSE)))
		return false;
	if (skb_mac_header_was_set(skb) &&
	    skb->data - skb_mac_header(skb) == ETH_HLEN) {
		memcpy(buf, skb_mac_header(skb), ETH_HLEN);
		len = min_t(u32, skb->len, QCN_PFC_BODY_LEN);
		if (!skb_copy_bits(skb, 0, buf + ETH_HLEN, len))
			err = qcn_pfc_decode(buf, ETH_HLEN + len, &f);
	}
	bps = READ_ONCE(rx->bps);
	spin_lock(&rx->lock);
	if (err) {
		rx->rx_ignored++;
	} else {
		for (p = 0; p < QCN_PFC_NPRIO; p++) {
			if (!(f.enable & BIT(p)))
				continue;
			if (f.quanta[p])
				rx->rx[p]++;
			else
				rx->rx_xon++;
			kick |= __qcn_pfc_rx_set(rx, p, now,
						 qcn_pfc_pause_until(now, f.quanta[p],
								     bps));
		}
	}
	spin_unlock(&rx->lock);
	return kick;
}

/*
 * The counters as xstats report them, into the xstats' own fields (arrays
 * of QCN_PFC_NPRIO): a pause in force counts up to now.
 */
static inline void qcn_pfc_rx_stats(struct qcn_pfc_rx *rx, u64 *rxc,
				    u64 *xon, u64 *ignored, u64 *paused_ns)
{
	u64 now;
	u32 p;

	spin_lock_bh(&rx->lock);
	now = ktime_get_ns();
	for (p = 0; p < QCN_PFC_NPRIO; p++) {
		rxc[p] = rx->rx[p];
		paused_ns[p] = rx->paused_ns[p];
		if (rx->until[p] > rx->start[p])
			paused_ns[p] += min(rx->until[p], now) - rx->start[p];
	}
	*xon = rx->rx_xon;
	*ignored = rx->rx_ignored;
	spin_unlock_bh(&rx->lock);
}

/*
 * A frame's 802.1Q priority, the one its link peer counts it for and PFC
 * names: the PCP of its VLAN tag (accelerated or in-band), else
 * skb->priority modulo 8: its socket's or tc skbedit's (the bridge keeps
 * it, veth resets it to 0, which is also 802.1Q's default priority for an
 * untagged frame).
 */
static inline u8 qcn_skb_pfc_prio(const struct sk_buff *skb)
{
	__be16 _hdr[2], *hdr;

	if (skb_vlan_tag_present(skb))
		return skb_vlan_tag_get_prio(skb);
	hdr = skb_header_pointer(skb, offsetof(struct ethhdr, h_proto),
				 sizeof(_hdr), _hdr);
	if (hdr && eth_type_vlan(hdr[0]))
		return ntohs(hdr[1]) >> VLAN_PRIO_SHIFT;
	return skb->priority & (QCN_PFC_NPRIO - 1);
}

#endif /* _NET_QCN_PFC_RX_H */
