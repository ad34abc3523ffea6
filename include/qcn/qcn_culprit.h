/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Culprit selection (Gusat et al., QCN occupancy sampling, IBM):
 * arrival (standard QCN), occupancy (QCN-OS, section IV: the frame holding
 * a uniformly random occupied buffer unit) and two-samples (Algorithm 1).
 * Buffer unit granularity: 1 byte, so a frame of L bytes is picked with
 * probability L / backlog.  The queue walk itself is glue (the qdisc owns
 * its lists); the core gives the draw and the decision.
 *
 * API CONTRACT (bodies are filled in by the cores work, issue #3):
 */
#ifndef _QCN_CULPRIT_H
#define _QCN_CULPRIT_H

#include "qcn_types.h"

/* Uniform occupied byte offset in [0, backlog), backlog > 0. */
static inline u32 qcn_culprit_offset(u32 backlog, u32 rnd);

/*
 * Locate the frame holding byte 'offset' while walking frames in queue
 * order: call once per frame with its length; returns true on the frame
 * that holds it (*offset is consumed as the walk proceeds).
 */
static inline bool qcn_culprit_walk_step(u32 *offset, u32 frame_len);

/*
 * Algorithm 1: given the path-congestion indexes of sample A and sample B
 * (any monotone unit, e.g. fill level in 1/65536), return 1 to pick B
 * (index(A) <= index(B), ties go to B), 0 to pick A.
 */
static inline int qcn_culprit_two_samples(u32 index_a, u32 index_b);

/* Normalized fill level backlog/limit in 1/65536 units, saturating. */
static inline u32 qcn_culprit_fill_level(u32 backlog, u32 limit);

#endif /* _QCN_CULPRIT_H */
