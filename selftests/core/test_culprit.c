// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for include/qcn/qcn_culprit.h: QCN-OS draw, walk, two samples. */
#include "qcn/qcn_culprit.h"
#include "ktap.h"
#include <string.h>

/* smallest rnd whose draw is offset k out of backlog n: ceil(k * 2^32 / n) */
static uint32_t rnd_for(uint32_t k, uint32_t n)
{
	return (uint32_t)((((uint64_t)k << 32) + n - 1) / n);
}

/* walk a queue of frames; returns the index of the frame holding byte off */
static int pick(const uint32_t *len, int n, uint32_t off, uint32_t *left)
{
	int i;

	for (i = 0; i < n; i++)
		if (qcn_culprit_walk_step(&off, len[i])) {
			*left = off;
			return i;
		}
	return -1;
}

static void test_offset(void)
{
	uint32_t k, bad = 0;

	CHECK_U64(qcn_culprit_offset(1000, 0), 0, "offset: rnd 0 -> first byte");
	CHECK_U64(qcn_culprit_offset(1000, 0xffffffffU), 999, "offset: rnd max -> last byte");
	CHECK_U64(qcn_culprit_offset(1000, 0x80000000U), 500, "offset: rnd 2^31 -> middle");
	CHECK_U64(qcn_culprit_offset(1, 0xffffffffU), 0, "offset: one-byte backlog");
	CHECK_U64(qcn_culprit_offset(0, 12345), 0, "offset: empty queue -> 0");
	CHECK_U64(qcn_culprit_offset(0xffffffffU, 0xffffffffU), 0xfffffffeU,
		  "offset: max backlog stays in range");
	for (k = 0; k < 1000; k++)
		if (qcn_culprit_offset(1000, rnd_for(k, 1000)) != k)
			bad++;
	CHECK_U64(bad, 0, "offset: every byte of a 1000-byte backlog is reachable (1-byte granularity)");
}

static void test_walk(void)
{
	static const uint32_t len[3] = { 100, 200, 300 };
	static const struct { uint32_t off; int frame; uint32_t left; } v[] = {
		{ 0, 0, 0 }, { 99, 0, 99 }, { 100, 1, 0 }, { 299, 1, 199 },
		{ 300, 2, 0 }, { 599, 2, 299 },
	};
	uint32_t left, off;
	unsigned int i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		left = 0xdead;
		CHECK_S64(pick(len, 3, v[i].off, &left), v[i].frame,
			  "walk: byte %u is in frame %d", v[i].off, v[i].frame);
		CHECK_U64(left, v[i].left, "walk: byte %u is offset %u inside its frame",
			  v[i].off, v[i].left);
	}
	CHECK_S64(pick(len, 3, 600, &left), -1, "walk: offset past the backlog finds no frame");
	off = 5;
	CHECK(!qcn_culprit_walk_step(&off, 0) && off == 5, "walk: zero-length frame is skipped");
}

static void test_distribution(void)
{
	/* QCN-OS: a frame of L bytes is picked with probability L / backlog */
	static const uint32_t len[3] = { 100, 200, 700 };
	uint32_t cnt[3] = { 0, 0, 0 }, k, left, x = 1;
	int f;

	for (k = 0; k < 1000; k++) {
		f = pick(len, 3, qcn_culprit_offset(1000, rnd_for(k, 1000)), &left);
		if (f >= 0)
			cnt[f]++;
	}
	CHECK(cnt[0] == 100 && cnt[1] == 200 && cnt[2] == 700,
	      "occupancy: a uniform grid of draws picks frames exactly 100:200:700 (%u:%u:%u)",
	      cnt[0], cnt[1], cnt[2]);
	cnt[0] = cnt[1] = cnt[2] = 0;
	for (k = 0; k < 1000000; k++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		f = pick(len, 3, qcn_culprit_offset(1000, x), &left);
		if (f >= 0)
			cnt[f]++;
	}
	CHECK(cnt[0] > 98000 && cnt[0] < 102000 && cnt[1] > 197000 && cnt[1] < 203000 &&
	      cnt[2] > 696000 && cnt[2] < 704000,
	      "occupancy: 1e6 random draws within 2%% of 10/20/70 %% (%u %u %u)",
	      cnt[0], cnt[1], cnt[2]);
}

static void test_two_samples(void)
{
	uint32_t idx[2], fl[2], k, x = 7, picks_b = 0;
	/* queue: flow 0 (victim, index 0.2) holds 900 bytes, flow 1 (culprit, 0.9) 100 */
	static const uint32_t len[2] = { 900, 100 };
	uint32_t left, nb = 0;

	CHECK_U64(qcn_culprit_two_samples(1, 2), 1, "two samples: index(A) < index(B) -> B");
	CHECK_U64(qcn_culprit_two_samples(2, 1), 0, "two samples: index(A) > index(B) -> A");
	CHECK_U64(qcn_culprit_two_samples(5, 5), 1, "two samples: tie -> B (Algorithm 1: <=)");
	CHECK_U64(qcn_culprit_two_samples(0, 0), 1, "two samples: tie at 0 -> B");
	CHECK_U64(qcn_culprit_two_samples(0xffffffffU, 0), 0, "two samples: max vs 0 -> A");

	fl[0] = qcn_culprit_fill_level(20, 100);
	fl[1] = qcn_culprit_fill_level(90, 100);
	for (k = 0; k < 100000; k++) {
		int a, b, w;

		x = x * 1664525U + 1013904223U;
		a = pick(len, 2, qcn_culprit_offset(1000, x), &left);
		x = x * 1664525U + 1013904223U;
		b = pick(len, 2, qcn_culprit_offset(1000, x), &left);
		idx[0] = fl[a];
		idx[1] = fl[b];
		w = qcn_culprit_two_samples(idx[0], idx[1]) ? b : a;
		if (w == 1)
			picks_b++;
		if (a == 1 || b == 1)
			nb++;
	}
	/* P(culprit in at least one of two draws) = 1 - 0.9^2 = 0.19 */
	CHECK(picks_b == nb, "two samples: the culprit is chosen whenever either draw hits it");
	CHECK(picks_b > 18000 && picks_b < 20000,
	      "two samples: culprit picked ~19%% vs 10%% with one draw (%u / 100000)", picks_b);
}

#define IDX_N 1024

/* the linear definition: walk the flows in index order */
static uint32_t walk_flows(const uint32_t *bl, uint32_t off, uint32_t *rest)
{
	uint32_t i;

	for (i = 0; i < IDX_N; i++)
		if (qcn_culprit_walk_step(&off, bl[i]))
			break;
	*rest = off;
	return i;
}

static void test_index(void)
{
	static uint32_t t[IDX_N + 1], bl[IDX_N];
	uint32_t i, k, total = 0, x = 99, bad = 0, badrest = 0, empty = 0;
	uint32_t f, g, r1, r2, t1[3] = { 0, 0, 0 };

	/* a few flows, the rest empty; then churn: bytes come and go */
	for (k = 0; k < 200000; k++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		i = (x >> 8) % 37 * 27 % IDX_N;	/* 37 flows spread over the index */
		if ((x & 3) && bl[i] >= 60) {
			bl[i] -= 60;
			total -= 60;
			qcn_culprit_index_add(t, IDX_N, i, 0U - 60);
		} else {
			bl[i] += 60 + (x >> 24);
			total += 60 + (x >> 24);
			qcn_culprit_index_add(t, IDX_N, i, 60 + (x >> 24));
		}
		if (!total)
			continue;
		r1 = qcn_culprit_offset(total, x * 2654435761U);
		f = qcn_culprit_index_find(t, IDX_N, r1, &r2);
		g = walk_flows(bl, r1, &r1);
		bad += f != g;
		badrest += r1 != r2;
		empty += f < IDX_N && !bl[f];
	}
	CHECK_U64(bad, 0, "index: 200000 draws under churn find the flow the linear walk finds");
	CHECK_U64(badrest, 0, "index: and the same offset inside it");
	CHECK_U64(empty, 0, "index: an empty flow is never returned");

	/* the first and last byte, and every boundary of a 3-flow index */
	memset(t, 0, sizeof(t));
	qcn_culprit_index_add(t, IDX_N, 0, 100);
	qcn_culprit_index_add(t, IDX_N, 511, 200);
	qcn_culprit_index_add(t, IDX_N, 1023, 300);
	CHECK(qcn_culprit_index_find(t, IDX_N, 0, &r1) == 0 && r1 == 0, "index: byte 0 -> flow 0");
	CHECK(qcn_culprit_index_find(t, IDX_N, 99, &r1) == 0 && r1 == 99, "index: byte 99 -> flow 0 at 99");
	CHECK(qcn_culprit_index_find(t, IDX_N, 100, &r1) == 511 && r1 == 0, "index: byte 100 -> flow 511 at 0");
	CHECK(qcn_culprit_index_find(t, IDX_N, 299, &r1) == 511 && r1 == 199, "index: byte 299 -> flow 511 at 199");
	CHECK(qcn_culprit_index_find(t, IDX_N, 300, &r1) == 1023 && r1 == 0, "index: byte 300 -> flow 1023 at 0");
	CHECK(qcn_culprit_index_find(t, IDX_N, 599, &r1) == 1023 && r1 == 299, "index: last byte -> last flow");
	CHECK_U64(qcn_culprit_index_find(t, IDX_N, 600, &r1), IDX_N, "index: past the total -> n (no flow)");
	/* exact proportions over a uniform grid of draws */
	for (k = 0; k < 600; k++) {
		f = qcn_culprit_index_find(t, IDX_N, qcn_culprit_offset(600, rnd_for(k, 600)), &r1);
		t1[f == 0 ? 0 : f == 511 ? 1 : 2]++;
	}
	CHECK(t1[0] == 100 && t1[1] == 200 && t1[2] == 300,
	      "index: a uniform grid of draws picks flows exactly 100:200:300 (%u:%u:%u)",
	      t1[0], t1[1], t1[2]);
	qcn_culprit_index_add(t, IDX_N, 511, 0U - 200);
	CHECK(qcn_culprit_index_find(t, IDX_N, 100, &r1) == 1023 && r1 == 0,
	      "index: a flow emptied by a negative delta is skipped");
}

static void test_frame_cmp(void)
{
	CHECK_S64(qcn_culprit_frame_cmp(1000, 60, 999), -1, "frame: target before the frame");
	CHECK_S64(qcn_culprit_frame_cmp(1000, 60, 1000), 0, "frame: its first byte");
	CHECK_S64(qcn_culprit_frame_cmp(1000, 60, 1059), 0, "frame: its last byte");
	CHECK_S64(qcn_culprit_frame_cmp(1000, 60, 1060), 1, "frame: target after the frame");
	CHECK_S64(qcn_culprit_frame_cmp(0xffffffe0U, 64, 0x10), 0,
		  "frame: a frame across the 2^32 wrap holds bytes past it");
	CHECK_S64(qcn_culprit_frame_cmp(0x20, 64, 0xfffffff0U), -1,
		  "frame: a target just before the wrap is before a frame after it");
	CHECK_S64(qcn_culprit_frame_cmp(0xfffffff0U, 8, 0x20), 1,
		  "frame: a target past the wrap is after a frame before it");
}

static void test_fill(void)
{
	CHECK_U64(qcn_culprit_fill_level(0, 100), 0, "fill: empty");
	CHECK_U64(qcn_culprit_fill_level(50, 100), 32768, "fill: half");
	CHECK_U64(qcn_culprit_fill_level(1, 3), 21845, "fill: 1/3 rounds down");
	CHECK_U64(qcn_culprit_fill_level(100, 100), 65536, "fill: full = 65536");
	CHECK_U64(qcn_culprit_fill_level(200, 100), 65536, "fill: over limit saturates");
	CHECK_U64(qcn_culprit_fill_level(0xfffffffeU, 0xffffffffU), 65535, "fill: max values, no overflow");
	CHECK_U64(qcn_culprit_fill_level(0, 0), 0, "fill: no limit, empty -> 0");
	CHECK_U64(qcn_culprit_fill_level(5, 0), 65536, "fill: no limit, backlog -> full");
}

int main(void)
{
	test_offset();
	test_walk();
	test_distribution();
	test_two_samples();
	test_index();
	test_frame_cmp();
	test_fill();
	return ktap_finish();
}
