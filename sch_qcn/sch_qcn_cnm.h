/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CNM a congestion point sends, between its sampling instant and its
 * transmission: what the CP keeps of a culprit frame (its addresses, its
 * VLAN tag and the first octets of its MSDU, which the reaction point
 * matches against its flows) and the encoded PDU.  Shared by the output
 * CP (sch_qcn_main.c), whose culprit is a queued skb, and the input CP
 * (sch_qcn_pfc.c), which keeps a copy per flow of its input.
 */
#ifndef _SCH_QCN_CNM_H
#define _SCH_QCN_CNM_H

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <uapi/linux/qcn.h>

#include <qcn/qcn_cnm.h>
#include <qcn/qcn_cp.h>

#define SCH_QCN_CNM_TX_PRIO	6	/* cnmTransmitPriority (IEEE8021-CN-MIB) */

/* What a CNM needs of its culprit frame. */
struct sch_qcn_culprit {
	u8	sa[ETH_ALEN];		/* its source: the CNM's destination */
	u8	da[ETH_ALEN];		/* its destination, encapsulated */
	__be16	vlan_proto;		/* its tag's TPID, 0: untagged */
	u16	vid;
	u8	prio;			/* encapsulated priority */
	u8	msdu_len;
	int	ifindex;		/* the device it came in on */
	u8	msdu[QCN_CNM_MSDU_MAX];
};

/* A CNM encoded at a sampling instant, waiting for transmission. */
struct qcn_cnm_req {
	u8	da[ETH_ALEN];		/* the culprit's source MAC */
	u8	prio;
	u8	qfb;
	u8	mode;			/* enum tc_qcn_sample actually used */
	u8	pdu_len;
	bool	positive;		/* signed feedback with Fb >= 0 */
	__be16	vlan_proto;		/* the culprit's tag TPID, 0: untagged */
	u16	vid;			/* and its VID */
	int	ifindex;		/* the culprit's input device */
	u64	stamp;			/* the sampling instant, ns */
	u8	pdu[QCN_CNM_MAX_LEN];
};

/*
 * Read the culprit's headers from skb (an Ethernet frame, its MAC header
 * at skb->data).  False when it has no valid unicast source or is too
 * short.  Encapsulated priority: the PCP of a tagged frame; 0 for an
 * untagged one, the priority 802.1Q gives an untagged frame at a port with
 * the default port priority.
 */
static inline bool sch_qcn_culprit_read(const struct sk_buff *skb,
					struct sch_qcn_culprit *c)
{
	unsigned int off = offsetof(struct ethhdr, h_proto);
	struct ethhdr _eh, *eh;
	__be16 _tci, *tci;

	eh = skb_header_pointer(skb, 0, sizeof(_eh), &_eh);
	if (!eh || !is_valid_ether_addr(eh->h_source))
		return false;
	c->vlan_proto = 0;
	c->vid = 0;
	c->prio = 0;
	if (skb_vlan_tag_present(skb)) {
		c->vlan_proto = skb->vlan_proto;
		c->vid = skb_vlan_tag_get_id(skb);
		c->prio = skb_vlan_tag_get_prio(skb);
	} else if (eth_type_vlan(eh->h_proto)) {
		tci = skb_header_pointer(skb, off + 2, sizeof(_tci), &_tci);
		if (!tci)
			return false;
		c->vlan_proto = eh->h_proto;
		c->vid = ntohs(*tci) & VLAN_VID_MASK;
		c->prio = ntohs(*tci) >> VLAN_PRIO_SHIFT;
		off += VLAN_HLEN;
	}
	/* the MSDU starts at the (inner) EtherType */
	if (skb->len < off + 2)
		return false;
	c->msdu_len = min_t(unsigned int, skb->len - off, QCN_CNM_MSDU_MAX);
	if (skb_copy_bits(skb, off, c->msdu, c->msdu_len))
		return false;
	ether_addr_copy(c->sa, eh->h_source);
	ether_addr_copy(c->da, eh->h_dest);
	c->ifindex = skb->skb_iif;
	return true;
}

/*
 * Encode the CNM of sample s for culprit c into req: CPID from the CP
 * port's address and cpid, qFb qfb, cnmQOffset and cnmQDelta from s.
 * False when the PDU does not encode.
 */
static inline bool sch_qcn_cnm_encode(const struct sch_qcn_culprit *c,
				      const u8 *cp_addr, u16 cpid,
				      const struct qcn_cp_sample *s, u8 qfb,
				      struct qcn_cnm_req *req)
{
	struct qcn_cnm m = {};
	int len;

	m.version = QCN_CNM_VERSION;
	m.qfb = qfb;
	qcn_cnm_cpid(m.cpid, cp_addr, cpid);
	m.qoffset = qcn_cnm_q_units(s->qoff);
	m.qdelta = qcn_cnm_q_units(s->qdelta);
	m.prio = c->prio;
	ether_addr_copy(m.dst, c->da);
	m.msdu_len = c->msdu_len;
	memcpy(m.msdu, c->msdu, c->msdu_len);

	len = qcn_cnm_encode(&m, req->pdu, sizeof(req->pdu));
	if (len < 0)
		return false;
	req->pdu_len = len;
	ether_addr_copy(req->da, c->sa);
	req->prio = c->prio;
	req->qfb = qfb;
	req->vlan_proto = c->vlan_proto;
	req->vid = c->vid;
	req->ifindex = c->ifindex;
	req->positive = false;
	return true;
}

/*
 * The CNM frame of req, to leave dev with source address src: the PDU
 * after an Ethernet header, padded to the minimum frame, at
 * cnmTransmitPriority.  Tagged vlan_proto/vid (in the skb, the core
 * inserts it in-band if dev cannot) unless vlan_proto is 0.  NULL without
 * memory; a failure is counted by the caller, not logged per CNM.
 */
static inline struct sk_buff *sch_qcn_cnm_skb(struct net_device *dev,
					      const u8 *src,
					      const struct qcn_cnm_req *req,
					      __be16 vlan_proto, u16 vid)
{
	unsigned int hlen, len;
	struct sk_buff *skb;
	struct ethhdr *eh;

	hlen = LL_RESERVED_SPACE(dev) + (vlan_proto ? VLAN_HLEN : 0);
	len = max_t(unsigned int, ETH_HLEN + req->pdu_len, ETH_ZLEN);
	skb = alloc_skb(hlen + len + dev->needed_tailroom,
			GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		return NULL;
	skb_reserve(skb, hlen);
	eh = skb_put(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	ether_addr_copy(eh->h_dest, req->da);
	ether_addr_copy(eh->h_source, src);
	eh->h_proto = htons(ETH_P_CNM);
	skb_set_network_header(skb, ETH_HLEN);
	skb_put_data(skb, req->pdu, req->pdu_len);
	if (skb->len < len)
		skb_put_zero(skb, len - skb->len);
	skb->protocol = htons(ETH_P_CNM);
	skb->priority = SCH_QCN_CNM_TX_PRIO;
	if (vlan_proto)
		__vlan_hwaccel_put_tag(skb, vlan_proto,
				       vid | (SCH_QCN_CNM_TX_PRIO << VLAN_PRIO_SHIFT));
	skb->dev = dev;
	return skb;
}

#endif /* _SCH_QCN_CNM_H */
