/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Culprit selection (Gusat et al., QCN occupancy sampling, IBM):
 * arrival (standard QCN), occupancy (QCN-OS, section IV: the frame holding
 * a uniformly random occupied buffer unit) and two-samples (Algorithm 1).
 * Buffer unit granularity: 1 byte, so a frame of L bytes is picked with
 * probability L / backlog (the paper's eq. (5): flow sampling probability
 * q_n / q).  The core gives the draw, the decision and the O(log n)
 * byte-position index the qdisc locates the frame with (a Fenwick tree
 * over the flows' backlogs, then a search by enqueue offset inside the
 * flow); qcn_culprit_walk_step() is the linear definition it must agree
 * with.  Arrival sampling needs no core function: the culprit is the frame
 * just enqueued.
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
 * Byte-position index over the backlogs of n flows (n a power of two): a
 * Fenwick tree t[1..n] (n + 1 words, t[0] unused), flow i is element
 * i + 1.  Flows are in index order: flow 0's bytes, then flow 1's...  Sums
 * wrap modulo 2^32, so the total backlog must stay below 2^32.
 *
 * qcn_culprit_index_add: flow's backlog += delta (a wrapped negative
 * delta, e.g. -len, removes bytes).  O(log n).
 */
static inline void qcn_culprit_index_add(u32 *t, u32 n, u32 flow, u32 delta)
{
	u32 i;

	for (i = flow + 1; i <= n; i += i & (0U - i))
		t[i] += delta;
}

/*
 * The flow holding byte 'offset' of the flows' bytes in index order
 * (offset below the total backlog); *rest = the offset inside that flow.
 * Empty flows are never returned.  O(log n).
 */
static inline u32 qcn_culprit_index_find(const u32 *t, u32 n, u32 offset,
					 u32 *rest)
{
	u32 pos = 0, step;

	for (step = n; step; step >>= 1) {
		if (t[pos + step] <= offset) {
			pos += step;
			offset -= t[pos];
			if (pos == n)	/* offset >= total: out of range */
				break;
		}
	}
	*rest = offset;
	return pos;
}

/*
 * Search step inside one flow whose frames carry their enqueue offset
 * (the flow's byte count when the frame was queued, modulo 2^32): the
 * frame starting at 'start' with 'len' bytes against byte 'target' (the
 * head frame's start + the offset inside the flow).  Returns < 0 when the
 * target lies before the frame, 0 when the frame holds it, > 0 after it.
 * Wrap-safe while the flow's backlog is below 2^31.
 */
static inline int qcn_culprit_frame_cmp(u32 start, u32 len, u32 target)
{
	u32 d = target - start;

	if ((s32)d < 0)
		return -1;
	return d < len ? 0 : 1;
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
