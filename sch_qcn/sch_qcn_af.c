// SPDX-License-Identifier: GPL-2.0
/*
 * AF-QCN glue for sch_qcn (interim: the interface of sch_qcn_af.h with AF
 * always off and no classes; the classful implementation replaces it).
 */
#include <linux/slab.h>
#include <net/pkt_sched.h>
#include "sch_qcn_af.h"

struct qcn_af {
	struct Qdisc *sch;
};

struct qcn_af *qcn_af_create(struct Qdisc *sch, struct netlink_ext_ack *extack)
{
	struct qcn_af *af = kzalloc(sizeof(*af), GFP_KERNEL);

	if (!af) {
		NL_SET_ERR_MSG(extack, "qcn: no memory for the AF-QCN state");
		return NULL;
	}
	af->sch = sch;
	return af;
}

void qcn_af_destroy(struct qcn_af *af)
{
	kfree(af);
}

void qcn_af_reset(struct qcn_af *af)
{
}

int qcn_af_validate(struct nlattr **tb, struct netlink_ext_ack *extack)
{
	return 0;
}

void qcn_af_apply(struct qcn_af *af, struct nlattr **tb)
{
}

int qcn_af_dump(const struct qcn_af *af, struct sk_buff *skb)
{
	return 0;
}

bool qcn_af_enabled(const struct qcn_af *af)
{
	return false;
}

u32 qcn_af_tracked(const struct qcn_af *af)
{
	return 0;
}

int qcn_af_enqueue(struct qcn_af *af, struct sk_buff *skb, u32 *handle)
{
	*handle = 0;
	return 0;
}

u8 qcn_af_feedback(struct qcn_af *af, u32 handle, u8 qfb_qcn)
{
	return qfb_qcn;
}

void qcn_af_cnm_sent(struct qcn_af *af, u32 handle)
{
}

static struct Qdisc *qcn_af_leaf(struct Qdisc *sch, unsigned long arg)
{
	return NULL;
}

static unsigned long qcn_af_find(struct Qdisc *sch, u32 classid)
{
	return 0;
}

static void qcn_af_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
}

const struct Qdisc_class_ops qcn_af_class_ops = {
	.leaf	= qcn_af_leaf,
	.find	= qcn_af_find,
	.walk	= qcn_af_walk,
};
