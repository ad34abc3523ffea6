// SPDX-License-Identifier: GPL-2.0
/* sch_qcn: qdisc kind "qcn" (skeleton: a byte FIFO that registers its kind). */
#include "sch_qcn_af.h"
#include <linux/module.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

static int qcn_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free)
{
	if (likely(sch->qstats.backlog + qdisc_pkt_len(skb) <= 150000))
		return qdisc_enqueue_tail(skb, sch);
	return qdisc_drop(skb, sch, to_free);
}

static struct Qdisc_ops qcn_qdisc_ops __read_mostly = {
	.id		= "qcn",
	.cl_ops		= &qcn_af_class_ops,
	.enqueue	= qcn_enqueue,
	.dequeue	= qdisc_dequeue_head,
	.peek		= qdisc_peek_head,
	.reset		= qdisc_reset_queue,
	.owner		= THIS_MODULE,
};

static int __init qcn_module_init(void)
{
	return register_qdisc(&qcn_qdisc_ops);
}

static void __exit qcn_module_exit(void)
{
	unregister_qdisc(&qcn_qdisc_ops);
}

module_init(qcn_module_init);
module_exit(qcn_module_exit);
MODULE_LICENSE("GPL");
MODULE_ALIAS("net-sch-qcn");
struct qcn_af *qcn_sched_af(struct Qdisc *sch)
{
	return NULL;
}
