// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qcn-sim: a packet-level discrete-event simulation of N QCN sources
 * sharing one congestion point, built on the same cores the modules run:
 * the CP (include/qcn/qcn_cp.h: eq. 1, quantization, sampling interval),
 * AF-QCN (qcn_af.h: eqs. 4-8) and the RP (qcn_rp.h: eqs. 2-8, QCN-T).
 * Only the wiring is here: sources, a FIFO port, delays, event order.
 *
 * It reproduces the papers' settings (10 Gb/s, 1 KB frames, 50 us RTT,
 * 150 KB buffer) and the emulated testbeds' (30 Mb/s port), so parameter
 * choices can be explored in seconds before a guest run.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qcn/qcn_cp.h"
#include "qcn/qcn_af.h"
#include "qcn/qcn_rp.h"
#include "tc_units.h"

#define MAX_FLOWS	64
#define EXIT_USAGE	2

static const char usage_text[] =
"Usage: qcn-sim [OPTIONS]\n"
"\n"
"Simulates N greedy sources, each behind a QCN reaction point, sending\n"
"fixed-size frames through one congestion point (a FIFO port with tail\n"
"drop) to a sink, with the project's CP, AF-QCN and RP cores.  Frames\n"
"and CNMs each take RTT/2 between a source and the CP.  The CP samples\n"
"arrivals (culprit = the sampled arrival, the standard's choice).\n"
"\n"
"Topology and traffic:\n"
"  -n, --flows N          sources (1..64, default 4)\n"
"  -l, --link RATE        CP port service rate, qcn's rate (default 10gbit)\n"
"  -r, --rtt TIME         round-trip time source <-> CP (default 50us)\n"
"  -p, --pkt BYTES        frame size, 64..65535 (default 1000)\n"
"  -t, --time TIME        simulated time (default 6s)\n"
"  -i, --step TIME        output interval (default 10ms)\n"
"  -f, --from TIME        start of the summary window (default: half of -t)\n"
"      --start T1,T2,..   source start times (default all 0)\n"
"      --seed N           random seed (default 1)\n"
"Congestion point (qcn's options):\n"
"      --limit BYTES      buffer (default 150000)\n"
"      --qeq BYTES        Qeq (default 26000)\n"
"      --w W              weight of Qdelta, a power of two 2^-10..2^10\n"
"                         (default 2)\n"
"      --interval BYTES   base sampling interval, >= 10000 (default 150000)\n"
"      --af               AF-QCN on\n"
"      --alpha X          0 < X < 1 (default 0.125)\n"
"      --beta X           0 < X < 1 (default 0.125)\n"
"      --ts TIME          AF update period (default 1ms)\n"
"      --active BYTES     active threshold per Ts (default 20000)\n"
"      --weights W1,W2,.. the classes' weight, one per flow, 1..65535\n"
"                         (default all 1)\n"
"      --caps R1,R2,..    the classes' maxrate, one per flow (0 = none)\n"
"      --caps-at TIME     when the caps apply (default 0)\n"
"Reaction points (qcn_rp's options; the standard's defaults):\n"
"  -s, --maxrate RATE     the sources' line rate (default: --link)\n"
"      --gd N             Gd = 2^-N, 0..31 (default 7)\n"
"      --ai-rate RATE     R_AI (default 5mbit)\n"
"      --hai-rate RATE    R_HAI (default 50mbit)\n"
"      --byte-reset BYTES byte counter cycle (default 150000)\n"
"      --time-reset TIME  timer cycle T (default 15ms)\n"
"      --threshold N      fast recovery cycles, 1..1000 (default 5)\n"
"      --min-rate RATE    floor of CR (default 5mbit, at most maxrate)\n"
"      --min-dec PCT      largest cut per CNM, 0..100 (default 50)\n"
"      --mode qcn|qcn-t   byte counter + timer, or QCN-T (timer only)\n"
"      --qcnt-period TIME QCN-T timer period (default 2.4ms)\n"
"      --jitter on|off    +-15 % jitter on counter reloads (default on);\n"
"      --no-jitter        the same as --jitter off\n"
"  -h, --help             this text\n"
"\n"
"Units are tc's: RATE 30mbit, 500kbit, 10gbit (bit/s; a bare number is\n"
"bit/s), 1mbps (bytes/s); BYTES 1442, 2kb (k = 1024), 1mb; TIME 10ms,\n"
"500us, 4s, 250ns (a bare number is in us).\n"
"\n"
"Output (stdout): '#' lines with the parameters in bytes, bit/s and ns,\n"
"then every step one line\n"
"  t_ms queue_bytes rate_1_mbps .. rate_N_mbps\n"
"(rates are departures from the CP over the step), then the summary:\n"
"  # flow I: W w, MEAN mbps, SHARE %, cnms C, drops D\n"
"  # total: MEAN mbps, mean queue Q bytes, drops D, cnms C\n"
"(rates, shares and the mean queue over the window from --from; CNMs sent\n"
"to and frames dropped of each flow over the whole run)\n"
"Exit status 0, or 2 on bad usage.\n";

enum ev_type { EV_SEND, EV_ARRIVE, EV_DEPART, EV_CNM, EV_AF, EV_STEP, EV_CAPS };

struct event {
	u64 t;
	u64 seq;
	u8 type;
	u8 flow;
	u8 qfb;
};

struct heap {
	struct event *v;
	size_t n, cap;
	u64 seq;
};

static void heap_push(struct heap *h, u64 t, u8 type, u8 flow, u8 qfb)
{
	struct event e = { t, h->seq++, type, flow, qfb };
	size_t i;

	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 1024;
		h->v = realloc(h->v, h->cap * sizeof(*h->v));
		if (!h->v) {
			perror("qcn-sim");
			exit(1);
		}
	}
	for (i = h->n++; i; ) {
		size_t up = (i - 1) / 2;

		if (h->v[up].t < e.t || (h->v[up].t == e.t && h->v[up].seq < e.seq))
			break;
		h->v[i] = h->v[up];
		i = up;
	}
	h->v[i] = e;
}

static struct event heap_pop(struct heap *h)
{
	struct event top = h->v[0], last = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && (h->v[c + 1].t < h->v[c].t ||
		    (h->v[c + 1].t == h->v[c].t && h->v[c + 1].seq < h->v[c].seq)))
			c++;
		if (last.t < h->v[c].t || (last.t == h->v[c].t && last.seq < h->v[c].seq))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	h->v[i] = last;
	return top;
}

static u32 rng_state = 1;

static u32 rnd32(void)
{
	/* xorshift32 */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

__attribute__((noreturn))
static void die(const char *what, const char *arg)
{
	fprintf(stderr, "qcn-sim: invalid %s '%s' (see --help)\n", what, arg);
	exit(EXIT_USAGE);
}

static u64 unit(int (*parse)(uint64_t *, const char *), const char *opt,
		const char *s, u64 min, u64 max)
{
	uint64_t v;

	if (parse(&v, s) || v < min || v > max)
		die(opt, s);
	return v;
}

#define ALL	(~0ULL)
static const char *opt_name;	/* the option being parsed, for messages */

static u64 parse_rate(const char *s) { return unit(tcu_get_rate, opt_name, s, 0, ALL); }
static u64 parse_time(const char *s) { return unit(tcu_get_time, opt_name, s, 0, ALL); }
static u64 parse_bytes(const char *s) { return unit(tcu_get_size, opt_name, s, 0, ALL); }

/* plain decimal number min..max */
static u64 parse_num(const char *s, u64 min, u64 max)
{
	return unit(tcu_get_u64, opt_name, s, min, max);
}

static u64 parse_weight(const char *s) { return parse_num(s, 1, 65535); }

static u32 parse_frac(const char *s)
{
	uint32_t v;

	if (tcu_get_frac16(&v, s))
		die(opt_name, s);
	return v;
}

/* comma list into v[0..max), returns the count */
static int parse_list(const char *s, u64 *v, int max, u64 (*conv)(const char *))
{
	char buf[1024], *tok, *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			die("list (too long)", s);
		v[n++] = conv(tok);
	}
	return n;
}

struct flow {
	struct qcn_rp rp;
	struct qcn_af_class af;
	u64 step_bytes, win_bytes;
	u64 drops, cnms;	/* the totals are their sums */
};

int main(int argc, char **argv)
{
	enum { O_START = 256, O_SEED, O_QEQ, O_LIMIT, O_W, O_INTERVAL, O_AF,
	       O_ALPHA, O_BETA, O_TS, O_ACTIVE, O_WEIGHTS, O_CAPS, O_CAPSAT,
	       O_GD, O_AIR, O_HAIR, O_BR, O_TR, O_THR, O_MINR, O_MINDEC, O_MODE,
	       O_QCNT, O_JIT, O_NOJIT };
	static const struct option opts[] = {
		{ "flows", 1, NULL, 'n' }, { "link", 1, NULL, 'l' },
		{ "rtt", 1, NULL, 'r' }, { "pkt", 1, NULL, 'p' },
		{ "time", 1, NULL, 't' }, { "step", 1, NULL, 'i' },
		{ "from", 1, NULL, 'f' }, { "start", 1, NULL, O_START },
		{ "seed", 1, NULL, O_SEED },
		{ "limit", 1, NULL, O_LIMIT }, { "qeq", 1, NULL, O_QEQ },
		{ "w", 1, NULL, O_W }, { "interval", 1, NULL, O_INTERVAL },
		{ "af", 0, NULL, O_AF }, { "alpha", 1, NULL, O_ALPHA },
		{ "beta", 1, NULL, O_BETA }, { "ts", 1, NULL, O_TS },
		{ "active", 1, NULL, O_ACTIVE }, { "weights", 1, NULL, O_WEIGHTS },
		{ "caps", 1, NULL, O_CAPS }, { "caps-at", 1, NULL, O_CAPSAT },
		{ "maxrate", 1, NULL, 's' }, { "gd", 1, NULL, O_GD },
		{ "ai-rate", 1, NULL, O_AIR }, { "hai-rate", 1, NULL, O_HAIR },
		{ "byte-reset", 1, NULL, O_BR }, { "time-reset", 1, NULL, O_TR },
		{ "threshold", 1, NULL, O_THR }, { "min-rate", 1, NULL, O_MINR },
		{ "min-dec", 1, NULL, O_MINDEC }, { "mode", 1, NULL, O_MODE },
		{ "qcnt-period", 1, NULL, O_QCNT }, { "jitter", 1, NULL, O_JIT },
		{ "no-jitter", 0, NULL, O_NOJIT },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	u64 link = 10000000000ULL, src_rate = 0, rtt = 50000, pkt = 1000;
	u64 dur = 6000000000ULL, step = 10000000, from = ~0ULL, caps_at = 0;
	u64 starts[MAX_FLOWS] = { 0 }, weights[MAX_FLOWS], caps[MAX_FLOWS] = { 0 };
	u64 limit = 150000, seed = 1;
	int nflows = 4, nweights = 0, ncaps = 0, nstarts = 0, c, i, li;
	bool af_on = false, min_rate_set = false;
	struct qcn_cp_params cpp;
	struct qcn_af_params afp;
	struct qcn_rp_params rpp;
	struct qcn_af_class *afv[MAX_FLOWS];
	static struct flow fl[MAX_FLOWS];
	struct heap h = { 0 };
	struct qcn_cp cp;
	u64 backlog = 0, busy_until = 0, qsum = 0, qn = 0, drops = 0, cnms = 0;
	u64 ser_link, ser_src;	/* ns to serialize one frame */

	qcn_cp_params_default(&cpp);
	qcn_af_params_default(&afp);
	/* the RP's max rate is set after the options (default: the link) */
	qcn_rp_params_default(&rpp, 0);
	while ((c = getopt_long(argc, argv, "n:l:s:r:p:t:i:f:h", opts, NULL)) != -1) {
		static char name[32];

		/* the option's long name, for messages */
		for (li = 0; opts[li].name && opts[li].val != c; li++)
			;
		snprintf(name, sizeof(name), "--%s", opts[li].name ? opts[li].name : "?");
		opt_name = name;
		switch (c) {
		case 'n': nflows = (int)parse_num(optarg, 1, MAX_FLOWS); break;
		case 'l': link = parse_rate(optarg); break;
		case 'r': rtt = parse_time(optarg); break;
		case 'p': pkt = unit(tcu_get_size, name, optarg, 64, 65535); break;
		case 't': dur = parse_time(optarg); break;
		case 'i': step = parse_time(optarg); break;
		case 'f': from = parse_time(optarg); break;
		case O_START: nstarts = parse_list(optarg, starts, MAX_FLOWS, parse_time); break;
		case O_SEED: seed = parse_num(optarg, 0, ALL); break;
		case O_LIMIT: limit = parse_bytes(optarg); break;
		case O_QEQ: cpp.qeq = (u32)unit(tcu_get_size, name, optarg, 1, 0x7fffffff); break;
		case O_W:
			if (tcu_get_pow2(&cpp.w_exp, optarg, QCN_CP_W_EXP_MIN, QCN_CP_W_EXP_MAX))
				die(name, optarg);
			break;
		case O_INTERVAL:
			cpp.interval = (u32)unit(tcu_get_size, name, optarg,
						 QCN_CP_MIN_INTERVAL, 0x7fffffff);
			break;
		case O_AF: af_on = true; break;
		case O_ALPHA: afp.alpha = parse_frac(optarg); break;
		case O_BETA: afp.beta = parse_frac(optarg); break;
		case O_TS: afp.ts_ns = unit(tcu_get_time, name, optarg, 1000, 1000000000); break;
		case O_ACTIVE: afp.active_thresh = (u32)unit(tcu_get_size, name, optarg, 0, 0x7fffffff); break;
		case O_WEIGHTS: nweights = parse_list(optarg, weights, MAX_FLOWS, parse_weight); break;
		case O_CAPS: ncaps = parse_list(optarg, caps, MAX_FLOWS, parse_rate); break;
		case O_CAPSAT: caps_at = parse_time(optarg); break;
		case 's': src_rate = parse_rate(optarg); break;
		case O_GD: rpp.gd_shift = (u32)parse_num(optarg, 0, QCN_RP_MAX_GD_SHIFT); break;
		case O_AIR: rpp.ai_rate = parse_rate(optarg); break;
		case O_HAIR: rpp.hai_rate = parse_rate(optarg); break;
		case O_BR: rpp.byte_reset = (u32)unit(tcu_get_size, name, optarg, 1, 0xffffffff); break;
		case O_TR: rpp.time_reset_ns = unit(tcu_get_time, name, optarg, 1000, ALL); break;
		case O_THR: rpp.threshold = (u32)parse_num(optarg, 1, 1000); break;
		case O_MINR: rpp.min_rate = parse_rate(optarg); min_rate_set = true; break;
		case O_MINDEC: rpp.min_dec_pct = (u32)parse_num(optarg, 0, 100); break;
		case O_MODE:
			if (!strcmp(optarg, "qcn"))
				rpp.mode = QCN_RP_MODE_QCN;
			else if (!strcmp(optarg, "qcn-t"))
				rpp.mode = QCN_RP_MODE_QCNT;
			else
				die(name, optarg);
			break;
		case O_QCNT: rpp.qcnt_period_ns = unit(tcu_get_time, name, optarg, 1000, ALL); break;
		case O_JIT:
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				die(name, optarg);
			rpp.jitter = !strcmp(optarg, "on");
			break;
		case O_NOJIT: rpp.jitter = false; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc)
		die("argument", argv[optind]);
	if (!src_rate)
		src_rate = link;
	if (from == ~0ULL)
		from = dur / 2;
	rpp.max_rate = src_rate;
	/* the standard's 5 Mb/s floor, unless given, never above the line */
	if (!min_rate_set && rpp.min_rate > rpp.max_rate)
		rpp.min_rate = rpp.max_rate;
	if (!link || !step || !dur || from >= dur || !qcn_rp_params_valid(&rpp) ||
	    !qcn_cp_params_valid(&cpp) || !qcn_af_params_valid(&afp) ||
	    (nweights && nweights != nflows) || (ncaps && ncaps != nflows) ||
	    (nstarts && nstarts != nflows)) {
		fprintf(stderr, "qcn-sim: inconsistent parameters (see --help)\n");
		return EXIT_USAGE;
	}

	rng_state = (u32)(seed * 2654435761U) | 1;
	qcn_cp_init(&cp, &cpp, rnd32());
	for (i = 0; i < nflows; i++) {
		qcn_rp_init(&fl[i].rp, &rpp);
		fl[i].af.weight = nweights ? (u32)weights[i] : 1;
		afv[i] = &fl[i].af;
		heap_push(&h, starts[i], EV_SEND, (u8)i, 0);
	}
	heap_push(&h, step, EV_STEP, 0, 0);
	ser_link = pkt * 8 * 1000000000ULL / link;
	ser_src = pkt * 8 * 1000000000ULL / src_rate;
	if (af_on)
		heap_push(&h, afp.ts_ns, EV_AF, 0, 0);
	if (ncaps)
		heap_push(&h, caps_at, EV_CAPS, 0, 0);

	printf("# qcn-sim: %d flows, link %" PRIu64 " bit/s, src %" PRIu64
	       " bit/s, rtt %" PRIu64 " ns, pkt %" PRIu64 ", af %s\n",
	       nflows, link, src_rate, rtt, pkt, af_on ? "on" : "off");
	printf("# cp: limit %" PRIu64 " qeq %u w_exp %d interval %u; af: alpha %u"
	       " beta %u (/65536) ts %" PRIu64 " ns active %u\n",
	       limit, cpp.qeq, cpp.w_exp, cpp.interval, afp.alpha, afp.beta,
	       afp.ts_ns, afp.active_thresh);
	printf("# rp: maxrate %" PRIu64 " min_rate %" PRIu64 " ai_rate %" PRIu64
	       " hai_rate %" PRIu64 " (bit/s) byte_reset %u time_reset %" PRIu64
	       " ns threshold %u gd %u min_dec %u mode %s qcnt_period %" PRIu64
	       " ns jitter %s\n", rpp.max_rate, rpp.min_rate, rpp.ai_rate,
	       rpp.hai_rate, rpp.byte_reset, rpp.time_reset_ns, rpp.threshold,
	       rpp.gd_shift, rpp.min_dec_pct,
	       rpp.mode == QCN_RP_MODE_QCNT ? "qcn-t" : "qcn", rpp.qcnt_period_ns,
	       rpp.jitter ? "on" : "off");
	printf("# t_ms queue_bytes");
	for (i = 0; i < nflows; i++)
		printf(" rate_%d_mbps", i + 1);
	printf("\n");

	while (h.n) {
		struct event e = heap_pop(&h);
		struct flow *f = &fl[e.flow];
		struct qcn_cp_sample s;
		u64 gap, n;
		u8 qfb;

		if (e.t > dur)
			break;
		switch (e.type) {
		case EV_SEND:
			/* timer expiries due by now, then one frame at CR */
			while (qcn_rp_timer(&f->rp, &rpp, e.t, rnd32()) != QCN_RP_EV_NONE)
				;
			heap_push(&h, e.t + rtt / 2, EV_ARRIVE, e.flow, 0);
			/* byte counter; bytes 0 until every expiry is taken */
			for (n = pkt; qcn_rp_tx(&f->rp, &rpp, (u32)n, rnd32()) != QCN_RP_EV_NONE; n = 0)
				;
			gap = f->rp.active ? qcn_rp_tx_time_ns(&f->rp, (u32)pkt) : ser_src;
			heap_push(&h, e.t + (gap ? gap : 1), EV_SEND, e.flow, 0);
			break;
		case EV_ARRIVE:
			if (backlog + pkt > limit) {
				f->drops++;
			} else {
				backlog += pkt;
				if (busy_until < e.t)
					busy_until = e.t;
				busy_until += ser_link;
				heap_push(&h, busy_until, EV_DEPART, e.flow, 0);
			}
			if (af_on)
				qcn_af_account(&f->af, (u32)pkt);
			if (!qcn_cp_arrival(&cp, &cpp, (u32)pkt, (u32)backlog, rnd32(), &s))
				break;
			/* as sch_qcn's qcn_sampled(): eq. (4) when AF is on
			 * (s.qfb is 0 unless the sample is congested) */
			qfb = af_on ? qcn_af_combine(s.qfb, f->af.fb_af, afp.alpha) : s.qfb;
			if (!qfb)
				break;
			heap_push(&h, e.t + rtt / 2, EV_CNM, e.flow, qfb);
			f->cnms++;
			break;
		case EV_DEPART:
			backlog -= pkt;
			f->step_bytes += pkt;
			if (e.t >= from)
				f->win_bytes += pkt;
			break;
		case EV_CNM:
			qcn_rp_cnm(&f->rp, &rpp, e.qfb, e.t, rnd32());
			break;
		case EV_AF:
			qcn_af_update(afv, (u32)nflows, &afp);
			heap_push(&h, e.t + afp.ts_ns, EV_AF, 0, 0);
			break;
		case EV_CAPS:
			for (i = 0; i < nflows; i++)
				fl[i].af.max_bytes_ts = caps[i] ?
					qcn_af_rate_to_ts(caps[i] / 8, afp.ts_ns) : 0;
			break;
		case EV_STEP:
			printf("%.1f %" PRIu64, e.t / 1e6, backlog);
			for (i = 0; i < nflows; i++) {
				printf(" %.2f", fl[i].step_bytes * 8e3 / step);
				fl[i].step_bytes = 0;
			}
			printf("\n");
			if (e.t >= from) {
				qsum += backlog;
				qn++;
			}
			heap_push(&h, e.t + step, EV_STEP, 0, 0);
			break;
		}
	}

	{
		double tot = 0, win = (dur - from) / 1e9;

		for (i = 0; i < nflows; i++) {
			tot += fl[i].win_bytes;
			drops += fl[i].drops;
			cnms += fl[i].cnms;
		}
		for (i = 0; i < nflows; i++)
			printf("# flow %d: W %u, %.2f mbps, %.1f %%, cnms %" PRIu64
			       ", drops %" PRIu64 "\n", i + 1, fl[i].af.weight,
			       fl[i].win_bytes * 8 / win / 1e6,
			       tot ? 100.0 * fl[i].win_bytes / tot : 0.0,
			       fl[i].cnms, fl[i].drops);
		printf("# total: %.2f mbps, mean queue %" PRIu64 " bytes, drops %"
		       PRIu64 ", cnms %" PRIu64 "\n", tot * 8 / win / 1e6,
		       qn ? qsum / qn : 0, drops, cnms);
	}
	free(h.v);
	return 0;
}
