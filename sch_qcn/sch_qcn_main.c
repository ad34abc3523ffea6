// SPDX-License-Identifier: GPL-2.0
/* sch_qcn: qdisc kind "qcn" (interim: a byte FIFO with the AF-QCN hooks). */
#include <linux/module.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include "sch_qcn_af.h"

struct qcn_sched {
	struct qcn_af *af;
};

struct qcn_af *qcn_sched_af(struct Qdisc *sch)
{
	return ((struct qcn_sched *)qdisc_priv(sch))->af;
}

static int qcn_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	struct qcn_sched *q = qdisc_priv(sch);
	u32 handle;
	int ret;

	ret = qcn_af_enqueue(q->af, skb, &handle);
	if (ret) {
		if (ret & __NET_XMIT_BYPASS)
			qdisc_qstats_drop(sch);
		__qdisc_drop(skb, to_free);
		return ret;
	}
	if (likely(sch->qstats.backlog + qdisc_pkt_len(skb) <= 150000))
		return qdisc_enqueue_tail(skb, sch);
	return qdisc_drop(skb, sch, to_free);
}

static const struct nla_policy qcn_policy[TCA_QCN_MAX + 1] = {
	[TCA_QCN_AF]		= { .type = NLA_U8 },
	[TCA_QCN_AF_ALPHA]	= { .type = NLA_U32 },
	[TCA_QCN_AF_TS]		= { .type = NLA_U32 },
	[TCA_QCN_AF_BETA]	= { .type = NLA_U32 },
	[TCA_QCN_AF_ACTIVE]	= { .type = NLA_U32 },
};

static int qcn_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct qcn_sched *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_QCN_MAX + 1];
	int err;

	err = nla_parse_nested(tb, TCA_QCN_MAX, opt, qcn_policy, extack);
	if (err < 0)
		return err;
	err = qcn_af_validate(tb, extack);
	if (err)
		return err;
	sch_tree_lock(sch);
	qcn_af_apply(q->af, tb);
	sch_tree_unlock(sch);
	return 0;
}

static int qcn_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct qcn_sched *q = qdisc_priv(sch);

	q->af = qcn_af_create(sch, extack);
	if (!q->af)
		return -ENOMEM;
	return opt ? qcn_change(sch, opt, extack) : 0;
}

static void qcn_destroy(struct Qdisc *sch)
{
	struct qcn_sched *q = qdisc_priv(sch);

	qcn_af_destroy(q->af);
}

static void qcn_reset(struct Qdisc *sch)
{
	qdisc_reset_queue(sch);
	qcn_af_reset(((struct qcn_sched *)qdisc_priv(sch))->af);
}

static int qcn_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct qcn_sched *q = qdisc_priv(sch);
	struct nlattr *opts = nla_nest_start_noflag(skb, TCA_OPTIONS);

	if (!opts || qcn_af_dump(q->af, skb))
		return -1;
	return nla_nest_end(skb, opts);
}

static struct Qdisc_ops qcn_qdisc_ops __read_mostly = {
	.id		= "qcn",
	.cl_ops		= &qcn_af_class_ops,
	.priv_size	= sizeof(struct qcn_sched),
	.enqueue	= qcn_enqueue,
	.dequeue	= qdisc_dequeue_head,
	.peek		= qdisc_peek_head,
	.init		= qcn_init,
	.change		= qcn_change,
	.destroy	= qcn_destroy,
	.reset		= qcn_reset,
	.dump		= qcn_dump,
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
