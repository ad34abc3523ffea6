// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bench_af: cost of one AF-QCN Ts update (qcn_af_update(), the code
 * sch_qcn runs every Ts under the qdisc root lock) for 1..4096 classes,
 * in ns per update on this CPU (the fastest of many updates: the machine
 * is shared, preemption only adds).  Not a test: `make -C selftests/core bench`.
 *   uncapped       every class active, no caps: one pass
 *   capped, 1 pass every class capped above its share: one pass
 *   capped below   every class capped below its share: the first pass
 *                  fixes them all, a second pass finds nothing more
 * The worst case, one class fixed per pass (n passes, O(n^2)), needs caps
 * that each fall below the share only once the previous one is fixed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "qcn/qcn_af.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* mode 0: uncapped, 1: capped above the share, 2: capped below it */
static double run(u32 n, int mode, u32 *passes)
{
	struct qcn_af_class *cls = calloc(n, sizeof(*cls));
	struct qcn_af_class **vec = calloc(n, sizeof(*vec));
	struct qcn_af_params p;
	double t0, t, best = 1e18;
	u32 i, k, iters = n >= 1000 ? 300 : 3000;

	qcn_af_params_default(&p);
	for (i = 0; i < n; i++) {
		vec[i] = &cls[i];
		cls[i].weight = 1 + i % 4;
		cls[i].m = (u64)100000 << QCN_AF_SHIFT;
		if (mode == 1)
			cls[i].max_bytes_ts = 1000000000;
		else if (mode == 2)
			cls[i].max_bytes_ts = 1000 + (u64)(n - i) * 10;
	}
	for (k = 0; k < iters; k++) {
		for (i = 0; i < n; i++)
			cls[i].arrived = 100000;
		t0 = now_ns();
		qcn_af_update(vec, n, &p);
		t = now_ns() - t0;
		if (t < best)
			best = t;
	}
	for (*passes = 0, i = 0; i < n; i++)	/* fixed at the cap */
		*passes += cls[i].max_bytes_ts && cls[i].fair == qcn_af__cap(&cls[i]);
	free(cls);
	free(vec);
	return best;
}

int main(void)
{
	static const u32 ns[] = { 1, 100, 1000, 4096, 4096 + 1024 };
	u32 i, fixed;
	double a, b, c;

	printf("# qcn_af_update(), ns per Ts update (Ts default 1 ms)\n");
	printf("%-8s %14s %16s %22s\n", "classes", "uncapped", "capped, 1 pass", "capped below (fixed)");
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		a = run(ns[i], 0, &fixed);
		b = run(ns[i], 1, &fixed);
		c = run(ns[i], 2, &fixed);
		printf("%-8u %14.0f %16.0f %14.0f (%u)\n", ns[i], a, b, c, fixed);
	}
	return 0;
}
