/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path-congestion index of two-samples culprit selection (the
 * occupancy-sampling paper's Algorithm 1): per flow, the largest
 * normalized fill level backlog/limit (qcn_culprit_fill_level(), 1/65536
 * units) of the qcn instances sharing an index table that a frame of the
 * flow (same skb_get_hash()) crossed within the last QCN_PCI_AGE.
 *
 * While any instance of the table samples two-samples (at its output or
 * its input CP), every instance writes its fill level (after the enqueue)
 * for the flow at every arrival into the table's QCN_PCI_SLOTS slots, in
 * buckets of QCN_PCI_WAYS chosen by the flow hash; a slot keeps the
 * maximum until it is older than QCN_PCI_AGE.  A flow new to its bucket
 * takes the slot written longest ago (free or stale first), so two busy
 * flows that share a bucket keep their indexes.  Updates are lockless: a
 * racing update may lose one write, which only ages the heuristic.  A flow
 * absent from the table has index 0.
 *
 * The table is the network namespace's own or a fabric's, shared by the
 * instances of that fabric id in every namespace (sch_qcn_main.c).  Its
 * readers hold it by their instance: the output CP under the root lock,
 * the input CP under its port's lock (sch_qcn_pfc.c).
 */
#ifndef _SCH_QCN_PCI_H
#define _SCH_QCN_PCI_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/types.h>

#define QCN_PCI_SLOTS		1024		/* slots per table */
#define QCN_PCI_WAYS		2		/* slots per bucket */
#define QCN_PCI_AGE		(HZ / 10)	/* an index entry counts 100 ms */

struct qcn_pci_slot {
	u32		hash;
	u32		fill;		/* 1/65536 of the limit */
	unsigned long	stamp;		/* jiffies */
};

/* a path-congestion index table */
struct qcn_pci {
	atomic_t	users;		/* two-samples instances: the readers */
	struct qcn_pci_slot slot[QCN_PCI_SLOTS];
};

static inline struct qcn_pci_slot *qcn_pci_bucket(struct qcn_pci *pci,
						  u32 hash)
{
	return &pci->slot[(hash & (QCN_PCI_SLOTS / QCN_PCI_WAYS - 1)) *
			  QCN_PCI_WAYS];
}

static inline bool qcn_pci_live(const struct qcn_pci_slot *e,
				unsigned long now)
{
	return !time_after(now, READ_ONCE(e->stamp) + QCN_PCI_AGE);
}

/* a frame of flow hash joins a queue now filled to fill */
static inline void qcn_pci_update(struct qcn_pci *pci, u32 hash, u32 fill)
{
	struct qcn_pci_slot *b = qcn_pci_bucket(pci, hash), *e = NULL;
	unsigned long now = jiffies;
	int i;

	for (i = 0; i < QCN_PCI_WAYS && !e; i++)
		if (READ_ONCE(b[i].hash) == hash)
			e = &b[i];
	if (e) {
		if (fill < READ_ONCE(e->fill) && qcn_pci_live(e, now))
			return;
	} else {
		e = &b[0];
		for (i = 1; i < QCN_PCI_WAYS; i++)
			if (time_before(READ_ONCE(b[i].stamp), READ_ONCE(e->stamp)))
				e = &b[i];
	}
	WRITE_ONCE(e->hash, hash);
	WRITE_ONCE(e->fill, fill);
	WRITE_ONCE(e->stamp, now);
}

/* the flow's live index; racing updates may leave it in two slots */
static inline u32 qcn_pci_index(struct qcn_pci *pci, u32 hash)
{
	struct qcn_pci_slot *b = qcn_pci_bucket(pci, hash);
	unsigned long now = jiffies;
	u32 fill = 0;
	int i;

	for (i = 0; i < QCN_PCI_WAYS; i++)
		if (READ_ONCE(b[i].hash) == hash && qcn_pci_live(&b[i], now))
			fill = max(fill, READ_ONCE(b[i].fill));
	return fill;
}

#endif /* _SCH_QCN_PCI_H */
