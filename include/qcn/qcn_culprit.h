/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Culprit selection (Gusat et al., QCN occupancy sampling, IBM):
 * arrival (standard QCN), occupancy (QCN-OS, section IV: the frame holding
 * a uniformly random occupied buffer unit) and two-samples (Algorithm 1).
 * Buffer unit granularity: 1 byte, so a frame of L bytes is picked with
 * probability L / backlog (the paper's eq. (5): flow sampling probability
 * q_n / q).  The queue walk itself is glue (the qdisc owns its lists); the
 * core gives the draw and the decision.  Arrival sampling needs no core
 * function: the culprit is the frame just enqueued.
 */
#ifndef _QCN_CULPRIT_H
#define _QCN_CULPRIT_H

#include "qcn_types.h"

#define QCN_CULPRIT_FILL_ONE	65536	/* fill level 1.0 */

/*
 * QCN-OS: uniform occupied byte offset in [0, backlog), backlog > 0
 * (floor(backlog * rnd / 2^32)); 0 for an empty queue.
 */
static inline u32 qcn_culprit_offset(u32 backlog, u32 rnd)
{
	return (u32)qcn_scale_rnd(backlog, rnd);
}

/*
 * Locate the frame holding byte 'offset' while walking frames in queue
 * order: call once per frame with its length; returns true on the frame
 * that holds it (*offset is consumed as the walk proceeds).  A frame of
 * length L holds offsets [0, L) of what is left of *offset.
 */
static inline bool qcn_culprit_walk_step(u32 *offset, u32 frame_len)
{
	if (*offset < frame_len)
		return true;
	*offset -= frame_len;
	return false;
}

/*
 * Algorithm 1 (two samples): given the path-congestion indexes of sample A
 * and sample B (any monotone unit, e.g. fill level in 1/65536), return 1
 * to pick B (index(A) <= index(B), ties go to B), 0 to pick A.
 */
static inline int qcn_culprit_two_samples(u32 index_a, u32 index_b)
{
	return index_a <= index_b ? 1 : 0;
}

/*
 * Normalized fill level backlog/limit in 1/65536 units, saturating at
 * 65536 (1.0).  limit == 0 (no limit known) is "full" when backlog > 0.
 */
static inline u32 qcn_culprit_fill_level(u32 backlog, u32 limit)
{
	u64 v;

	if (limit == 0)
		return backlog ? QCN_CULPRIT_FILL_ONE : 0;
	if (backlog >= limit)
		return QCN_CULPRIT_FILL_ONE;
	v = qcn_div_u64((u64)backlog << 16, limit);
	return (u32)v;
}

#endif /* _QCN_CULPRIT_H */
