/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel glue shared by sch_qcn and rp_limiter (not an algorithm core):
 * split a GSO skb into the Ethernet frames that a switch port or a NIC's
 * rate limiter handles, as sch_tbf and sch_cake do.
 *
 * A GSO super-packet of 64 KB enqueued as one unit makes a 26 KB Qeq
 * meaningless: the CP would see a 44-frame burst arrive in one instant and
 * sample it once; a limiter would release 64 KB at once at line rate.
 * Usage, in an enqueue:
 *
 *	if (skb_is_gso(skb)) {
 *		unsigned int prev_len = qdisc_pkt_len(skb), len = 0, nb = 0;
 *		struct sk_buff *segs = qcn_gso_segment(skb, sch, to_free), *next;
 *
 *		skb_list_walk_safe(segs, segs, next) {
 *			skb_mark_not_on_list(segs);
 *			... enqueue segs, on success: nb++, len += its pkt_len
 *		}
 *		return qcn_gso_enqueued(sch, nb, prev_len, len);
 *	}
 */
#ifndef _NET_QCN_GSO_H
#define _NET_QCN_GSO_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/sch_generic.h>
#if __has_include(<net/gso.h>)
#include <net/gso.h>		/* skb_gso_segment() since 6.5 */
#endif

/*
 * The frames of GSO skb (a list, each with its qdisc_pkt_len set), or NULL
 * when segmentation failed: then skb went to to_free and was counted as a
 * drop of sch.  skb itself is consumed either way.
 */
static inline struct sk_buff *qcn_gso_segment(struct sk_buff *skb,
					      struct Qdisc *sch,
					      struct sk_buff **to_free)
{
	netdev_features_t features = netif_skb_features(skb);
	struct sk_buff *segs, *seg;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs)) {
		qdisc_drop(skb, sch, to_free);
		return NULL;
	}
	for (seg = segs; seg; seg = seg->next)
		qdisc_skb_cb(seg)->pkt_len = seg->len;
	consume_skb(skb);
	return segs;
}

/*
 * nb frames of len bytes in all were queued in place of one GSO skb of
 * prev_len bytes: correct the ancestors' counters (they add one packet of
 * prev_len on success) and give the verdict for the parent.
 */
static inline int qcn_gso_enqueued(struct Qdisc *sch, unsigned int nb,
				   unsigned int prev_len, unsigned int len)
{
	if (!nb)
		return NET_XMIT_DROP;
	if (nb != 1 || len != prev_len)
		qdisc_tree_reduce_backlog(sch, 1 - (int)nb, (int)prev_len - (int)len);
	return NET_XMIT_SUCCESS;
}

#endif /* _NET_QCN_GSO_H */
