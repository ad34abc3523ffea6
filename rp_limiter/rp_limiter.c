// SPDX-License-Identifier: GPL-2.0
/* rp_limiter: qdisc kind "qcn_rp" (skeleton: a byte FIFO that registers its kind). */
#include <linux/module.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

static int qcn_rp_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free)
{
	if (likely(sch->qstats.backlog + qdisc_pkt_len(skb) <= 150000))
		return qdisc_enqueue_tail(skb, sch);
	return qdisc_drop(skb, sch, to_free);
}

static struct Qdisc_ops qcn_rp_qdisc_ops __read_mostly = {
	.id		= "qcn_rp",
	.enqueue	= qcn_rp_enqueue,
	.dequeue	= qdisc_dequeue_head,
	.peek		= qdisc_peek_head,
	.reset		= qdisc_reset_queue,
	.owner		= THIS_MODULE,
};

static int __init qcn_rp_module_init(void)
{
	return register_qdisc(&qcn_rp_qdisc_ops);
}

static void __exit qcn_rp_module_exit(void)
{
	unregister_qdisc(&qcn_rp_qdisc_ops);
}

module_init(qcn_rp_module_init);
module_exit(qcn_rp_module_exit);
MODULE_LICENSE("GPL");
MODULE_ALIAS("net-sch-qcn_rp");
MODULE_ALIAS("sch_qcn_rp");
