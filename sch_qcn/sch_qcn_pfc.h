/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 802.1Qbb PFC generation for sch_qcn: a switch's input accounting.
 *
 * A testbed switch is a network namespace whose bridge ports carry qcn, and
 * the qcn instances of the namespace are its shared buffer.  An instance
 * with pfc-xoff set makes its device a PFC port of the namespace: every qcn
 * instance there then counts, per priority, the bytes that arrived on that
 * port (skb->skb_iif) and are still queued in it, so that the port's
 * counter is what its input holds of the buffer (the input accounting of
 * the occupancy-sampling paper's Fig. 1).  Above pfc-xoff the port pauses
 * that priority of its link peer; below pfc-xon it releases it; while the
 * counter stays above pfc-xon the pause is re-sent at half its time
 * (qcn_pfc_decide(), include/qcn/qcn_pfc.h).
 *
 * The same counter is the queue of the port's input CP (cp input): a
 * congestion point at the switch's input buffer, as the occupancy-sampling
 * paper places it.  Per priority it runs the CP core (include/qcn/
 * qcn_cp.h) on the bytes of each arriving frame against the input's
 * occupancy, picks the culprit among the input's frames (the arriving one;
 * by occupancy, a flow with probability of its share of the input's
 * queued bytes, the paper's eq. (5); or two-samples, the one of two such
 * draws whose path is more congested, by the index table of the port's
 * instance, sch_qcn_pci.h), and sends the CNM back out of the
 * port, toward the culprit's source.  Its keep-alive clock samples an
 * input holding more than Qeq that receives nothing, as a paused one does
 * (the paper's section III).  A port exists while pfc-xoff or the input CP
 * is set.
 *
 * The interface between sch_qcn_main.c and sch_qcn_pfc.c, one-way:
 *	sch_qcn_pfc_port_set()	the port's thresholds (RTNL)
 *	sch_qcn_pfc_port_del()	its instance goes: pauses released (RTNL)
 *	sch_qcn_pfc_account()	a frame is queued: returns the slot (and
 *				input flow) to keep
 *	sch_qcn_pfc_unaccount()	the frame leaves the queue (any way)
 *	sch_qcn_pfc_stats()	the port's counters, for xstats
 */
#ifndef _SCH_QCN_PFC_H
#define _SCH_QCN_PFC_H

#include <linux/netdevice.h>
#include <linux/types.h>
#include <uapi/linux/qcn.h>
#include <qcn/qcn_cp.h>

#define SCH_QCN_PFC_PORTS	256	/* per namespace; slot 0: none */
#define SCH_QCN_PFC_HASH	16
#define SCH_QCN_IN_NOFLOW	0xff	/* a frame counted in no input flow */

struct sch_qcn_pfc_port;
struct qcn_pci;

/* a namespace's PFC ports (in struct qcn_net, zeroed with it) */
struct sch_qcn_pfc_net {
	unsigned int		nports;		/* registered; RTNL, READ_ONCE */
	struct hlist_head	hash[SCH_QCN_PFC_HASH];	/* by ifindex */
	struct sch_qcn_pfc_port __rcu *slot[SCH_QCN_PFC_PORTS];
};

struct sch_qcn_pfc_cfg {
	u32	xoff;		/* bytes: pause above, 0: no PFC */
	u32	xon;		/* bytes: resume below */
	u16	quanta;		/* the pause time sent, in quanta */
	u64	rate_bps;	/* the link's rate, for the refresh period */
	/* the input CP */
	bool	in_cp;
	u8	sample;		/* enum tc_qcn_sample */
	u16	cpid;
	u32	keepalive;	/* us, 0: off */
	struct qcn_cp_params cp;
	struct qcn_pci *pci;	/* two-samples: the instance's index table */
};

int sch_qcn_pfc_port_set(struct sch_qcn_pfc_net *pn, struct net_device *dev,
			 const struct sch_qcn_pfc_cfg *cfg,
			 struct sch_qcn_pfc_port **portp,
			 struct netlink_ext_ack *extack);
void sch_qcn_pfc_port_del(struct sch_qcn_pfc_port *port);
u8 sch_qcn_pfc_account(struct sch_qcn_pfc_net *pn, struct sk_buff *skb,
		       bool cnm, u8 prio, u32 len, u8 *flow);
void sch_qcn_pfc_unaccount(struct sch_qcn_pfc_net *pn, u8 slot, u8 prio,
			   u32 len, u8 flow);
void sch_qcn_pfc_stats(struct sch_qcn_pfc_port *port,
		       struct tc_qcn_xstats *st);

#endif /* _SCH_QCN_PFC_H */
