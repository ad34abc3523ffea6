// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qcn-sim: a packet-level discrete-event simulation of N QCN sources
 * sharing one congestion point, built on the same cores the modules run:
 * the CP (include/qcn/qcn_cp.h: eq. 1, quantization, sampling interval),
 * AF-QCN (qcn_af.h: eqs. 4-8), the RP (qcn_rp.h: eqs. 2-8, QCN-T,
 * QCN-AIMD) and
 * N-AIMD / AP-N-AIMD (qcn_ap.h: eq. 14 and the Averaging Principle).
 * Only the wiring is here: sources, ports (FIFO or DRR), paths of one or
 * more ports, culprit selection (qcn_culprit.h), delays, event order.
 *
 * It reproduces the papers' settings (10 Gb/s, 1 KB frames, 50 us RTT,
 * 150 KB buffer) and the emulated testbeds' (30 Mb/s port), so that a
 * parameter choice can be explored in seconds, without a kernel.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "qcn/qcn_cp.h"
#include "qcn/qcn_af.h"
#include "qcn/qcn_rp.h"
#include "qcn/qcn_ap.h"
#include "qcn/qcn_culprit.h"
#include "tc_units.h"

#define MAX_FLOWS	64
#define MAX_PORTS	8
#define MAX_LINK_AT	8	/* --link-at changes */
#define MAX_CONNS	64
#define EXIT_USAGE	2

static const char usage_text[] =
"Usage: qcn-sim [OPTIONS]\n"
"\n"
"Simulates N sources (greedy unless told otherwise), each behind a QCN\n"
"reaction point, sending fixed-size frames through one or more congestion\n"
"points (ports with tail drop, FIFO or DRR, each a CP) to a sink, with the\n"
"project's CP, AF-QCN, culprit and RP cores.  Frames take RTT/2 from a\n"
"source to its first port, none between ports; CNMs take RTT/2 back from\n"
"any port.\n"
"\n"
"Topology and traffic:\n"
"  -n, --flows N          sources (1..64, default 4)\n"
"  -l, --link R1,R2,..    the ports' service rates, qcn's rate; one rate per\n"
"                         port (default one port, 10gbit)\n"
"      --paths P1,P2,..   each flow's ports, '+' between hops, ports counted\n"
"                         from 1 (e.g. 1,1+2,2: a parking lot; default: all 1)\n"
"      --link-at TIME:R1,R2,..\n"
"                         from TIME on, the ports serve at these rates (one\n"
"                         per port, as --link; repeatable, times increasing,\n"
"                         up to 8): a service rate cut and restored; a frame\n"
"                         in service finishes at the rate it started at\n"
"  -r, --rtt TIME         round-trip time source <-> CP (default 50us)\n"
"  -p, --pkt BYTES        frame size, 64..65535 (default 1000)\n"
"  -t, --time TIME        simulated time (default 6s)\n"
"  -i, --step TIME        output interval (default 10ms)\n"
"  -f, --from TIME        start of the summary window (default: half of -t)\n"
"      --start T1,T2,..   source start times (default all 0)\n"
"      --slow-start R,T   for T after its start a source sends at most R\n"
"                         (a gentle start below the line rate; default off)\n"
"      --seed N           random seed (default 1)\n"
"Non-greedy sources (the others stay greedy; sizes are rounded to whole\n"
"frames, at least one):\n"
"      --onoff I:BYTES:RATE[,..]\n"
"                         source I (1..N) is on-off: a burst of BYTES every\n"
"                         BYTES*8/RATE (offered load RATE) from\n"
"                         its --start time; each burst is sent at once (at\n"
"                         line rate, or at the RP's rate when it limits);\n"
"                         what it cannot send waits at the source\n"
"      --arrivals RATE    finite flows arrive as a Poisson process of offered\n"
"                         load RATE (mean gap = mean size * 8 / RATE), from 0\n"
"      --arrive-on I1,I2,.. the sources that carry them (the others' traffic\n"
"                         is greedy or on-off); each arrival picks one\n"
"                         uniformly, and one of its connections\n"
"      --conns N          connections per such source, 1..64 (default 1): a\n"
"                         connection sends its flows one after another, a\n"
"                         source its busy connections' frames in turn, all\n"
"                         through the source's one RP (as a NIC's RP serves\n"
"                         several permanent connections)\n"
"      --sizes DIST       flow sizes: pareto:MEAN:SHAPE (MEAN in BYTES, SHAPE\n"
"                         1 < SHAPE <= 100), fixed:BYTES, or list:B1/B2/..\n"
"                         (one drawn uniformly) (default pareto:10000:1.1)\n"
"      --max-flows N      no arrivals after the N-th flow (default: until -t)\n"
"      --flow-rp new|keep new: a flow that arrives while its source has\n"
"                         nothing to send starts as a new flow does (the RP\n"
"                         reset: line rate, no limiter until a CNM); keep: it\n"
"                         inherits the source's RP as it is (default new)\n"
"      --fct FILE         per finite flow, CSV: flow,source,conn,bytes,\n"
"                         arrive_us,start_us,end_us,fct_us (FCT = the last\n"
"                         frame at the sink - arrival; end and fct empty when\n"
"                         not done by -t)\n"
"Congestion point (qcn's options):\n"
"      --limit BYTES      buffer (default 150000)\n"
"      --qeq BYTES        Qeq (default 26000)\n"
"      --w W              weight of Qdelta, a power of two 2^-10..2^10\n"
"                         (default 2)\n"
"      --interval BYTES   base sampling interval, >= 10000 (default 150000)\n"
"      --sched fifo|drr   service at every port: FIFO, or round robin over\n"
"                         the flows' queues (DRR with equal frames)\n"
"      --sample MODE      culprit: arrival (the sampled arrival, 802.1Qau),\n"
"                         occupancy (a uniformly drawn occupied byte, QCN-OS)\n"
"                         or two-samples (two occupancy draws, the flow whose\n"
"                         path's fullest port is fuller wins; Algorithm 1)\n"
"      --af               AF-QCN on\n"
"      --alpha X          0 < X < 1 (default 0.125)\n"
"      --beta X           0 < X < 1 (default 0.125)\n"
"      --ts TIME          AF update period (default 1ms)\n"
"      --active BYTES     active threshold per Ts (default 20000)\n"
"      --af-fb clamp|signed  eq. (4) for a sample below Qeq, as qcn's af-fb:\n"
"                         clamp: Fb_QCN taken as 0, so Fb = alpha Fb_AF\n"
"                         (default); signed: Fb_QCN = -(quantized Fb), i.e.\n"
"                         negative, and a CNM only when the sum is positive\n"
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
"      --mode MODE        qcn: byte counter + timer; qcn-t: QCN-T (timer\n"
"                         only); qcn-aimd: QCN-AIMD (QCN's cut, + R_AI every\n"
"                         byte-reset bytes, no FR, no timer; the convergence\n"
"                         paper's eq. 27); n-aimd, ap-n-aimd: the Averaging Principle\n"
"                         paper's N-AIMD without / with the AP (the CP samples\n"
"                         1 arrival in --sample-period and sends Fb of either\n"
"                         sign; the QCN RP options do not apply)\n"
"      --qcnt-period TIME QCN-T timer period (default 2.4ms)\n"
"      --init-rates R1,R2,..\n"
"                         each source's RP starts limited at its rate, one\n"
"                         per flow (as after a cut to R: TR = CR = R, stage\n"
"                         counts 0; R >= --maxrate: unlimited, as without\n"
"                         the option)\n"
"      --jitter on|off    +-15 % jitter on counter reloads (default on);\n"
"      --no-jitter        the same as --jitter off\n"
"N-AIMD (--mode n-aimd|ap-n-aimd; the paper's BCN baseline values):\n"
"      --aimd-gi X        G_i of eq. 14a, 0..1000 (default 0.53333)\n"
"      --aimd-ru RATE     R_u of eq. 14a (default 1mbit)\n"
"      --aimd-gd X        G_d of eq. 14b, 0..1000 (default 0.0026667)\n"
"      --fb-unit BYTES    bytes per unit of Fb (default: --pkt, Fb in frames)\n"
"      --sample-period N  T: the CP samples 1/N of the arrivals (default 100)\n"
"      --ap-pkts N        the AP step after N frames (default T/2)\n"
"  -h, --help             this text\n"
"\n"
"Units are tc's: RATE 30mbit, 500kbit, 10gbit (bit/s; a bare number is\n"
"bit/s), 1mbps (bytes/s); BYTES 1442, 2kb (k = 1024), 1mb; TIME 10ms,\n"
"500us, 4s, 250ns (a bare number is in us).\n"
"\n"
"Output (stdout): '#' lines with the parameters in bytes, bit/s and ns,\n"
"then every step one line\n"
"  t_ms queue_bytes rate_1_mbps .. rate_N_mbps\n"
"(rates over the step), then the summary:\n"
"  # flow I: W w, MEAN mbps, SHARE %, cnms C, drops D\n"
"  # total: MEAN mbps, mean queue Q bytes, drops D, cnms C\n"
"  # queue: mean Q, sd S, min A, max B (bytes, time-weighted), empty E %,\n"
"    utilization U %\n"
"(port 1) and with more than one port, for each, the same fields as\n"
"  # port P: mean Q, sd S, min A, max B, empty E %, utilization U %, cnms C,\n"
"    drops D\n"
"and the step lines end with the other ports' queues (queue_2_bytes ..).\n"
"Rates are measured at the sink (after the last port).\n"
"With non-greedy sources, after the summary:\n"
"  # onoff I: burst B bytes every P ns, offered X mbps, sent S mbps,\n"
"    delivered D mbps, backlog mean A bytes, now B bytes, max M bytes\n"
"(the backlog at the source: time-weighted mean over the window)\n"
"  # arrivals: G flows, offered X mbps, done D, retransmitted R frames,\n"
"    mean size S bytes\n"
"  # fct [LO,HI[ KB: flows N, done D, mean M us, median P us\n"
"(KB = 1000 bytes; offered, sent, delivered and the FCT lines over the\n"
"window from --from: flows that arrived in it; a frame of a finite flow\n"
"that is dropped is sent again, RTT/2 after the drop, ahead of new data)\n"
"(rates, shares and the queue over the window from --from; CNMs (or N-AIMD\n"
"feedback messages) sent\n"
"to and frames dropped of each flow over the whole run)\n"
"Exit status 0, or 2 on bad usage.\n";

enum ev_type { EV_SEND, EV_ARRIVE, EV_DEPART, EV_CNM, EV_AF, EV_STEP, EV_CAPS,
	       EV_BURST, EV_FLOW, EV_RETX, EV_LINK };
enum src_kind { SRC_GREEDY, SRC_ONOFF, SRC_FINITE };
enum sched { SCHED_FIFO, SCHED_DRR };
enum sample { SAMPLE_ARRIVAL, SAMPLE_OCCUPANCY, SAMPLE_TWO };

struct event {
	u64 t;
	u64 seq;
	u8 type;
	u8 flow;
	u8 qfb;
	u8 hop;		/* EV_ARRIVE: index in the flow's path; EV_DEPART: port */
	s64 fb;		/* N-AIMD's signed Fb, bytes */
	u32 tag;	/* EV_ARRIVE, EV_RETX: the frame's finite flow (0: none) */
};

struct heap {
	struct event *v;
	size_t n, cap;
	u64 seq;
};

static void heap_push_tag(struct heap *h, u64 t, u8 type, u8 flow, u8 qfb, u8 hop, s64 fb,
			  u32 tag)
{
	struct event e = { t, h->seq++, type, flow, qfb, hop, fb, tag };
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

static void heap_push_ev(struct heap *h, u64 t, u8 type, u8 flow, u8 qfb, u8 hop, s64 fb)
{
	heap_push_tag(h, t, type, flow, qfb, hop, fb, 0);
}

static void heap_push(struct heap *h, u64 t, u8 type, u8 flow, u8 qfb)
{
	heap_push_ev(h, t, type, flow, qfb, 0, 0);
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

/*
 * The non-greedy sources' draws (arrival gaps, sizes, sources) come from a
 * stream of their own, so that runs that differ only in the CP or RP (QCN
 * vs AF-QCN) offer the same flows at the same times.
 */
static u32 trf_state = 1;

static u32 trf32(void)
{
	trf_state ^= trf_state << 13;
	trf_state ^= trf_state >> 17;
	trf_state ^= trf_state << 5;
	return trf_state;
}

/*
 * -log2(x / 2^32) for x in 1..2^32-1, in 1/65536 (0 < result <= 32 << 16):
 * the integer part from the top bit, 16 fraction bits by squaring the
 * mantissa (Q31, in [1, 2)) and halving it whenever it reaches 2.
 */
static u32 nlog2_q16(u32 x)
{
	int e = 31 - __builtin_clz(x ? x : 1), b;
	u64 m = (u64)(x ? x : 1) << (31 - e);
	u32 frac = 0;

	for (b = 15; b >= 0; b--) {
		m = (m * m) >> 31;
		if (m >= (1ULL << 32)) {
			m >>= 1;
			frac |= 1U << b;
		}
	}
	return ((u32)(32 - e) << 16) - frac;
}

/* n * 2^(y / 65536), saturated: 2^(2^-k) in Q30 for the fraction bits */
static u64 mul_exp2_q16(u64 n, u64 y)
{
	static const u32 c[16] = {
		1518500250, 1276901417, 1170923762, 1121280436, 1097253708,
		1085434106, 1079572136, 1076653033, 1075196443, 1074468888,
		1074105294, 1073923544, 1073832680, 1073787251, 1073764537,
		1073753181
	};
	u64 r = 1ULL << 30, ip = y >> 16;
	int k;

	for (k = 0; k < 16; k++)
		if (y & (1U << (15 - k)))
			r = (r * c[k]) >> 30;
	n = qcn_mul_div_u64(n, r, 1ULL << 30);
	if (ip >= 64 || (n && n > (QCN_U64_MAX >> ip)))
		return QCN_U64_MAX;
	return n << ip;
}

/* Exp(mean): -ln(U) * mean = -log2(U) * ln 2 * mean (ln 2 in Q32) */
static u64 draw_exp(u64 mean)
{
	return qcn_mul_div_u64(qcn_mul_div_u64(mean, nlog2_q16(trf32()), 65536),
			       2977044472U, 1ULL << 32);
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
static u64 parse_flow_index(const char *s) { return parse_num(s, 1, MAX_FLOWS); }

/* a decimal gain 0..1000 in parts per 10^9 (N-AIMD's G_i, G_d) */
static u64 parse_gain(const char *s)
{
	double v;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(*s >= '0' && *s <= '9') ||
	    strpbrk(s, "xXnN") || v < 0 || v > 1000)
		die(opt_name, s);
	return (u64)(v * 1e9 + 0.5);
}

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
	struct qcn_naimd na;
	u64 step_bytes, win_bytes;
	u64 drops, cnms;	/* the totals are their sums */
	int npath;
	u8 path[MAX_PORTS];	/* port indexes, first hop first */
	/* non-greedy sources */
	u8 kind;		/* SRC_GREEDY, SRC_ONOFF, SRC_FINITE */
	bool busy;		/* an EV_SEND is pending */
	u64 next_tx;		/* the earliest next send (line or limiter pace) */
	u64 last_tx;		/* the last send */
	u64 pending;		/* on-off: frames not sent yet */
	u64 burst, period;	/* on-off: frames per burst, ns between bursts */
	u64 pend_max;		/* on-off: the largest backlog, frames */
	u64 pend_t;		/* on-off: when pending last changed */
	double pend_int;	/* on-off: its time integral over the window */
	u64 offered_win, sent_win;	/* frames offered / sent in the window */
	u32 cq_head[MAX_CONNS], cq_tail[MAX_CONNS];	/* finite flows per connection */
	u32 nbusy, rr;		/* connections with a flow; the next in turn */
	u32 *retx, nretx, retx_cap;	/* finite flows' dropped frames to resend */
};

/* A finite flow (index 1..: 0 tags the frames of no finite flow) */
struct fin {
	u64 arrive, start, end;	/* ns; end 0 until done */
	u32 frames, sent, done;	/* its size; sent; at the sink */
	u32 next;		/* the next flow on its connection */
	u8 src, conn;
};

static struct fin *fins;
static u32 nfins, fins_cap;
static u32 nconns = 1;
static u64 retx_frames;

/* flow sizes: Pareto (mean, shape), fixed or a list drawn uniformly */
enum sz_kind { SZ_PARETO, SZ_FIXED, SZ_LIST };
static struct {
	int kind, n;
	u64 mean, xm;		/* bytes */
	u64 shape;		/* 1/65536 */
	u64 v[64];
} sizes = { SZ_PARETO, 0, 10000, 0, 72090, { 0 } };

/* pareto: xm * U^(-1/shape) = xm * 2^(-log2(U) / shape), xm = mean (a-1)/a */
static u64 draw_size(void)
{
	switch (sizes.kind) {
	case SZ_FIXED:
		return sizes.mean;
	case SZ_LIST:
		return sizes.v[(u64)trf32() * (u64)sizes.n >> 32];
	default:
		return mul_exp2_q16(sizes.xm, (u64)nlog2_q16(trf32()) * 65536 / sizes.shape);
	}
}

/* A port: a queue with tail drop served at 'rate', and its CP. */
struct port {
	u64 rate, ser;		/* bit/s; ns per frame */
	struct qcn_cp cp;
	u64 backlog;		/* bytes, the frame in service included */
	u32 wait[MAX_FLOWS];	/* frames waiting, per flow */
	u8 *ring;		/* FIFO: flows of the waiting frames, in order */
	u32 ring_cap, head, nring;
	int insvc;		/* flow of the frame in service, -1 when idle */
	u32 insvc_tag;		/* its finite flow (0: none) */
	u32 *tq;		/* per flow, the finite flows of its waiting frames */
	u32 tq_head[MAX_FLOWS];	/* (ring_cap entries each, wait[] of them used) */
	int rr;			/* DRR: the next flow to serve */
	struct qcn_af_class af[MAX_FLOWS];
	struct qcn_af_class *afv[MAX_FLOWS];
	/* over the window: time integrals of Q, Q^2 and of Q == 0 */
	double qint, q2int, empty_ns;
	u64 qlast_t, qmin, qmax, win_bytes, cnms, drops;
	double cap_bits;	/* the window's capacity up to cap_t (--link-at) */
	u64 cap_t;
};

static int nflows = 4, nports = 1;
static struct flow fl[MAX_FLOWS];
static struct port pt[MAX_PORTS];

/* frames of flow f at port p, the one in service included */
static u32 port_occ(const struct port *p, int f)
{
	return p->wait[f] + (p->insvc == f);
}

/*
 * QCN-OS: the flow holding a uniformly drawn occupied byte (qcn_culprit.h,
 * 1-byte units).  With equal frames, walking the flows' byte counts gives
 * each flow the same probability as walking the frames in queue order:
 * its share of the backlog (the paper's eq. 5).  -1 for an empty port.
 */
static int port_occupied(const struct port *p, u32 pkt, u32 rnd)
{
	u32 off = qcn_culprit_offset((u32)p->backlog, rnd);
	int i;

	for (i = 0; i < nflows && p->backlog; i++)
		if (qcn_culprit_walk_step(&off, port_occ(p, i) * pkt))
			return i;
	return -1;
}

/*
 * Path-congestion index of flow f for two-samples: the largest fill level
 * (qcn_culprit_fill_level()) of the ports on its path, as sch_qcn's
 * per-netns index holds the fullest qcn instance the flow crossed (here
 * the current level rather than the last 100 ms's maximum).
 */
static u32 path_index(int f, u64 limit)
{
	u32 v, m = 0;
	int k;

	for (k = 0; k < fl[f].npath; k++) {
		v = qcn_culprit_fill_level((u32)pt[fl[f].path[k]].backlog, (u32)limit);
		m = v > m ? v : m;
	}
	return m;
}

/* the culprit of a sample at port p whose arrival is flow 'arr' */
static int port_culprit(const struct port *p, int mode, int arr, u32 pkt, u64 limit)
{
	int a, b;

	switch (mode) {
	case SAMPLE_OCCUPANCY:
		a = port_occupied(p, pkt, rnd32());
		return a < 0 ? arr : a;
	case SAMPLE_TWO:
		a = port_occupied(p, pkt, rnd32());
		b = port_occupied(p, pkt, rnd32());
		if (a < 0 || b < 0)
			return a >= 0 ? a : b >= 0 ? b : arr;
		return qcn_culprit_two_samples(path_index(a, limit), path_index(b, limit)) ? b : a;
	default:
		return arr;
	}
}

/* start serving the next frame: FIFO's head or DRR's next flow */
static void port_next(struct port *p, int sched)
{
	int f = -1, k;

	if (sched == SCHED_FIFO) {
		f = p->ring[p->head];
		p->head = (p->head + 1) % p->ring_cap;
		p->nring--;
	} else {
		for (k = 0; k < nflows; k++) {
			int i = (p->rr + k) % nflows;

			if (p->wait[i]) {
				f = i;
				p->rr = (i + 1) % nflows;
				break;
			}
		}
	}
	p->wait[f]--;
	p->insvc = f;
	p->insvc_tag = p->tq[f * p->ring_cap + p->tq_head[f]];
	p->tq_head[f] = (p->tq_head[f] + 1) % p->ring_cap;
}

/* window statistics: the queue held p->backlog since p->qlast_t */
static void port_account(struct port *p, u64 now, u64 from)
{
	if (now > p->qlast_t && now > from) {
		double dt = (double)(now - (p->qlast_t > from ? p->qlast_t : from));

		p->qint += dt * p->backlog;
		p->q2int += dt * (double)p->backlog * p->backlog;
		if (!p->backlog)
			p->empty_ns += dt;
	}
	p->qlast_t = now;
	if (now >= from) {
		p->qmin = p->backlog < p->qmin ? p->backlog : p->qmin;
		p->qmax = p->backlog > p->qmax ? p->backlog : p->qmax;
	}
}

/* the window's capacity: the bits p could serve from from to now */
static void port_capacity(struct port *p, u64 now, u64 from)
{
	u64 t0 = p->cap_t > from ? p->cap_t : from;

	if (now > t0)
		p->cap_bits += p->rate * (double)(now - t0) / 1e9;
	p->cap_t = now;
}

/* "mean Q, sd S, min A, max B, empty E %, utilization U %" over the window */
static void port_print(const struct port *p, u64 dur, u64 from)
{
	double wns = (double)(dur - from);
	double m = p->qint / wns, var = p->q2int / wns - m * m;
	u64 t0 = p->cap_t > from ? p->cap_t : from;
	double cap = p->cap_bits + p->rate * (double)(dur - t0) / 1e9;

	printf("mean %.0f, sd %.0f, min %" PRIu64 ", max %" PRIu64
	       ", empty %.2f %%, utilization %.2f %%", m, var > 0 ? sqrt(var) : 0.0,
	       p->qmin == ~0ULL ? 0 : p->qmin, p->qmax, 100.0 * p->empty_ns / wns,
	       100.0 * p->win_bytes * 8 / cap);
}

/* on-off: pending held since f->pend_t; the window's integral */
static void src_account(struct flow *f, u64 now, u64 from)
{
	if (now > from)
		f->pend_int += (double)(now - (f->pend_t > from ? f->pend_t : from)) * f->pending;
	f->pend_t = now;
}

static bool src_has_data(const struct flow *f)
{
	switch (f->kind) {
	case SRC_ONOFF:
		return f->pending > 0;
	case SRC_FINITE:
		return f->nretx || f->nbusy;
	default:
		return true;
	}
}

/*
 * Source f sends a frame at 'now': which finite flow's (0: none).  A
 * finite source resends dropped frames first, then takes its busy
 * connections in turn; a flow that has sent its last frame leaves its
 * connection to the next one, which starts then.
 */
static u32 src_take(struct flow *f, u64 now)
{
	u32 id, c = 0, k;

	if (f->kind == SRC_ONOFF)
		f->pending--;
	if (f->kind != SRC_FINITE)
		return 0;
	if (f->nretx)
		return f->retx[--f->nretx];
	for (k = 0; k < nconns; k++) {
		c = (f->rr + k) % nconns;
		if (f->cq_head[c])
			break;
	}
	f->rr = (c + 1) % nconns;
	id = f->cq_head[c];
	if (++fins[id].sent == fins[id].frames) {
		f->cq_head[c] = fins[id].next;
		if (f->cq_head[c]) {
			fins[f->cq_head[c]].start = now;
		} else {
			f->cq_tail[c] = 0;
			f->nbusy--;
		}
	}
	return id;
}

/* source i has something to send from 'now': an EV_SEND unless pending */
static void src_wake(struct heap *h, int i, u64 now)
{
	struct flow *f = &fl[i];

	if (f->busy)
		return;
	f->busy = true;
	heap_push(h, qcn_max_u64(now, f->next_tx), EV_SEND, (u8)i, 0);
}

/* --sizes: pareto:MEAN:SHAPE, fixed:BYTES or list:B1/B2/.. */
static void parse_sizes(const char *s)
{
	static const struct tcu_unit half[] = { { "", 2 * 65536 }, { NULL, 0 } };
	char buf[1024], *tok, *save = NULL;
	uint64_t x;

	snprintf(buf, sizeof(buf), "%s", s);
	tok = strtok_r(buf, ":", &save);
	if (tok && !strcmp(tok, "pareto")) {
		sizes.kind = SZ_PARETO;
		tok = strtok_r(NULL, ":", &save);
		sizes.mean = tok ? parse_bytes(tok) : 0;
		tok = strtok_r(NULL, ":", &save);
		if (!tok || tcu_parse(&x, tok, half) || strtok_r(NULL, ":", &save))
			die(opt_name, s);
		sizes.shape = (x + 1) / 2;
		if (sizes.shape <= 65536 || sizes.shape > 100 * 65536 || !sizes.mean)
			die(opt_name, s);
	} else if (tok && !strcmp(tok, "fixed")) {
		sizes.kind = SZ_FIXED;
		tok = strtok_r(NULL, ":", &save);
		sizes.mean = tok ? parse_bytes(tok) : 0;
		if (!sizes.mean || strtok_r(NULL, ":", &save))
			die(opt_name, s);
	} else if (tok && !strcmp(tok, "list")) {
		sizes.kind = SZ_LIST;
		sizes.n = 0;
		sizes.mean = 0;
		tok = strtok_r(NULL, ":", &save);
		if (!tok || strtok_r(NULL, ":", &save))
			die(opt_name, s);
		for (tok = strtok_r(tok, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
			if (sizes.n == 64)
				die("--sizes (more than 64 sizes)", s);
			sizes.v[sizes.n] = parse_bytes(tok);
			if (!sizes.v[sizes.n] || sizes.v[sizes.n] > (1ULL << 40))
				die(opt_name, s);
			sizes.mean += sizes.v[sizes.n++];
		}
		if (!sizes.n)
			die(opt_name, s);
		sizes.mean /= (u64)sizes.n;
	} else {
		die(opt_name, s);
	}
	if (sizes.mean > (1ULL << 40))
		die(opt_name, s);
	sizes.xm = sizes.mean * (sizes.shape - 65536) / sizes.shape;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * "# arrivals: .." and "# fct [LO,HI[ KB: .." over the finite flows that
 * arrived in the window; -1 on allocation failure
 */
static int fct_summary(u64 pkt, u64 from, double win)
{
	static const u64 lo[] = { 0, 1000, 10000, 100000, 1000000 };
	static const char *const name[] = { "[0,1[", "[1,10[", "[10,100[", "[100,1000[",
					    "[1000,inf[", "all" };
	u64 *v = malloc((nfins + 1) * sizeof(*v)), bytes = 0, nd, sum;
	u32 id, arrived = 0, done = 0, nb;
	int b;

	if (!v) {
		perror("qcn-sim");
		return -1;
	}
	for (id = 1; id <= nfins; id++) {
		if (fins[id].arrive < from)
			continue;
		arrived++;
		bytes += (u64)fins[id].frames * pkt;
		done += fins[id].end != 0;
	}
	printf("# arrivals: %u flows, offered %.2f mbps, done %u, retransmitted %" PRIu64
	       " frames, mean size %.0f bytes\n", arrived, bytes * 8 / win / 1e6, done,
	       retx_frames, arrived ? (double)bytes / arrived : 0.0);
	for (b = 0; b < 6; b++) {
		nb = 0;
		nd = 0;
		sum = 0;
		for (id = 1; id <= nfins; id++) {
			u64 sz = (u64)fins[id].frames * pkt;

			if (fins[id].arrive < from ||
			    (b < 5 && (sz < lo[b] || (b < 4 && sz >= lo[b + 1]))))
				continue;
			nb++;
			if (fins[id].end) {
				v[nd++] = fins[id].end - fins[id].arrive;
				sum += fins[id].end - fins[id].arrive;
			}
		}
		if (!nb)
			continue;
		qsort(v, nd, sizeof(*v), cmp_u64);
		printf("# fct %s KB: flows %u, done %" PRIu64 ", mean %.1f us, median %.1f us\n",
		       name[b], nb, nd, nd ? sum / 1e3 / nd : 0.0, nd ? v[(nd - 1) / 2] / 1e3 : 0.0);
	}
	free(v);
	return 0;
}

/* --fct FILE: every finite flow; -1 when it cannot be written */
static int fct_csv(const char *path, u64 pkt)
{
	FILE *out = fopen(path, "w");
	u32 id;

	if (!out) {
		fprintf(stderr, "qcn-sim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(out, "flow,source,conn,bytes,arrive_us,start_us,end_us,fct_us\n");
	for (id = 1; id <= nfins; id++) {
		const struct fin *x = &fins[id];

		fprintf(out, "%u,%u,%u,%" PRIu64 ",%.3f,", id, x->src + 1, x->conn + 1,
			(u64)x->frames * pkt, x->arrive / 1e3);
		if (x->start != ~0ULL)
			fprintf(out, "%.3f", x->start / 1e3);
		if (x->end)
			fprintf(out, ",%.3f,%.3f\n", x->end / 1e3, (x->end - x->arrive) / 1e3);
		else
			fprintf(out, ",,\n");
	}
	if (fclose(out)) {
		fprintf(stderr, "qcn-sim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* "1+2" -> path of port indexes (from 0); returns the hop count */
static int parse_path(const char *s, u8 *path)
{
	char buf[64], *tok, *save = NULL;
	int n = 0, k;
	u64 v;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		v = parse_num(tok, 1, MAX_PORTS);
		for (k = 0; k < n; k++)
			if (path[k] == v - 1)
				die("path (a port twice)", s);
		if (n == MAX_PORTS)
			die("path (too long)", s);
		path[n++] = (u8)(v - 1);
	}
	if (!n)
		die(opt_name, s);
	return n;
}

/* getopt_long()'s values for the options without a short form */
enum {
	O_START = 256, O_SEED, O_QEQ, O_LIMIT, O_W, O_INTERVAL, O_AF,
	O_ALPHA, O_BETA, O_TS, O_ACTIVE, O_WEIGHTS, O_CAPS, O_CAPSAT,
	O_GD, O_AIR, O_HAIR, O_BR, O_TR, O_THR, O_MINR, O_MINDEC, O_MODE,
	O_QCNT, O_JIT, O_NOJIT, O_GI, O_RU, O_AGD, O_FBU, O_SPER, O_APP,
	O_PATHS, O_SCHED, O_SAMPLE, O_ONOFF, O_ARR, O_ARRON, O_CONNS,
	O_SIZES, O_MAXFL, O_FLOWRP, O_FCT, O_AFFB, O_SLOW, O_INIT, O_LINKAT
};

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
	{ "aimd-gi", 1, NULL, O_GI }, { "aimd-ru", 1, NULL, O_RU },
	{ "aimd-gd", 1, NULL, O_AGD }, { "fb-unit", 1, NULL, O_FBU },
	{ "sample-period", 1, NULL, O_SPER }, { "ap-pkts", 1, NULL, O_APP },
	{ "paths", 1, NULL, O_PATHS }, { "sched", 1, NULL, O_SCHED },
	{ "sample", 1, NULL, O_SAMPLE },
	{ "onoff", 1, NULL, O_ONOFF }, { "arrivals", 1, NULL, O_ARR },
	{ "arrive-on", 1, NULL, O_ARRON }, { "conns", 1, NULL, O_CONNS },
	{ "sizes", 1, NULL, O_SIZES }, { "max-flows", 1, NULL, O_MAXFL },
	{ "flow-rp", 1, NULL, O_FLOWRP }, { "fct", 1, NULL, O_FCT },
	{ "af-fb", 1, NULL, O_AFFB }, { "slow-start", 1, NULL, O_SLOW },
	{ "init-rates", 1, NULL, O_INIT }, { "link-at", 1, NULL, O_LINKAT },
	{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
};

/*
 * The run's parameters: the options (bytes, bit/s, ns), and after
 * finish_options() the values that follow from them.  -n, --link and
 * --conns go to nflows, nports and nconns, --sizes to sizes, and each
 * flow's path and kind of source (--paths, --onoff, --arrive-on) to fl[].
 */
struct config {
	u64 links[MAX_PORTS];	/* the ports' rates */
	struct link_at {	/* --link-at: the ports' rates from t on */
		u64 t, rates[MAX_PORTS];
		int n;
	} link_at[MAX_LINK_AT];
	int nlink_at;
	u64 src_rate, rtt, pkt;
	u64 dur, step, from;
	u64 starts[MAX_FLOWS];
	int nstarts;
	u64 slow_rate, slow_for;	/* --slow-start */
	u64 seed;
	char *paths, *onoff;	/* as given, parsed once -n and --link are known */
	/* congestion points */
	u64 limit;
	int sched, sample;
	bool af_on, af_signed;
	u64 weights[MAX_FLOWS], caps[MAX_FLOWS], caps_at;
	int nweights, ncaps;
	/* reaction points; N-AIMD */
	bool min_rate_set, naimd, ap;
	u64 init_rates[MAX_FLOWS];	/* --init-rates */
	int ninit;
	u64 fb_unit, ap_pkts, period;
	/* finite flows */
	u64 arr_load, max_flows;
	u64 arr_on[MAX_FLOWS];	/* from 1 as given, from 0 once finished */
	int narr_on;
	bool flow_rp_new;
	const char *fct_path;
	struct qcn_naimd_params nap;
	struct qcn_cp_params cpp;
	struct qcn_af_params afp;
	struct qcn_rp_params rpp;
};

/* --link-at TIME:R1,R2,..: one more change of the ports' rates */
static void parse_link_at(struct config *cfg, const char *arg)
{
	struct link_at *la = &cfg->link_at[cfg->nlink_at];
	const char *colon = strchr(arg, ':');
	char buf[64];

	if (cfg->nlink_at == MAX_LINK_AT || !colon || (size_t)(colon - arg) >= sizeof(buf))
		die("--link-at (TIME:R1,R2,.., at most 8)", arg);
	snprintf(buf, sizeof(buf), "%.*s", (int)(colon - arg), arg);
	la->t = parse_time(buf);
	la->n = parse_list(colon + 1, la->rates, MAX_PORTS, parse_rate);
	if (cfg->nlink_at && la->t <= la[-1].t)
		die("--link-at (times must increase)", arg);
	cfg->nlink_at++;
}

/*
 * The options of one family of --help, each parse_*_option() false for an
 * option not its own; opt_name names the option for die().
 */
static bool parse_topo_option(struct config *cfg, int opt, char *arg)
{
	switch (opt) {
	case 'n': nflows = (int)parse_num(arg, 1, MAX_FLOWS); break;
	case 'l': nports = parse_list(arg, cfg->links, MAX_PORTS, parse_rate); break;
	case O_LINKAT: parse_link_at(cfg, arg); break;
	case O_PATHS: cfg->paths = arg; break;
	case 'r': cfg->rtt = parse_time(arg); break;
	case 'p': cfg->pkt = unit(tcu_get_size, opt_name, arg, 64, 65535); break;
	case 't': cfg->dur = parse_time(arg); break;
	case 'i': cfg->step = parse_time(arg); break;
	case 'f': cfg->from = parse_time(arg); break;
	case O_START: cfg->nstarts = parse_list(arg, cfg->starts, MAX_FLOWS, parse_time); break;
	case O_SLOW: {
		char *comma = strchr(arg, ',');

		if (!comma)
			die(opt_name, arg);
		*comma = 0;
		cfg->slow_rate = unit(tcu_get_rate, opt_name, arg, 1, ALL);
		cfg->slow_for = parse_time(comma + 1);
		break;
	}
	case O_SEED: cfg->seed = parse_num(arg, 0, ALL); break;
	default: return false;
	}
	return true;
}

static bool parse_traffic_option(struct config *cfg, int opt, char *arg)
{
	switch (opt) {
	case O_ONOFF: cfg->onoff = arg; break;
	case O_ARR: cfg->arr_load = unit(tcu_get_rate, opt_name, arg, 1, ALL); break;
	case O_ARRON:
		cfg->narr_on = parse_list(arg, cfg->arr_on, MAX_FLOWS, parse_flow_index);
		break;
	case O_CONNS: nconns = (u32)parse_num(arg, 1, MAX_CONNS); break;
	case O_SIZES: parse_sizes(arg); break;
	case O_MAXFL: cfg->max_flows = parse_num(arg, 1, 0xfffffffe); break;
	case O_FLOWRP:
		if (strcmp(arg, "new") && strcmp(arg, "keep"))
			die(opt_name, arg);
		cfg->flow_rp_new = !strcmp(arg, "new");
		break;
	case O_FCT: cfg->fct_path = arg; break;
	default: return false;
	}
	return true;
}

static bool parse_cp_option(struct config *cfg, int opt, char *arg)
{
	struct qcn_cp_params *cpp = &cfg->cpp;
	struct qcn_af_params *afp = &cfg->afp;

	switch (opt) {
	case O_LIMIT: cfg->limit = parse_bytes(arg); break;
	case O_QEQ: cpp->qeq = (u32)unit(tcu_get_size, opt_name, arg, 1, 0x7fffffff); break;
	case O_W:
		if (tcu_get_pow2(&cpp->w_exp, arg, QCN_CP_W_EXP_MIN, QCN_CP_W_EXP_MAX))
			die(opt_name, arg);
		break;
	case O_INTERVAL:
		cpp->interval = (u32)unit(tcu_get_size, opt_name, arg,
					  QCN_CP_MIN_INTERVAL, 0x7fffffff);
		break;
	case O_SCHED:
		if (!strcmp(arg, "fifo"))
			cfg->sched = SCHED_FIFO;
		else if (!strcmp(arg, "drr"))
			cfg->sched = SCHED_DRR;
		else
			die(opt_name, arg);
		break;
	case O_SAMPLE:
		if (!strcmp(arg, "arrival"))
			cfg->sample = SAMPLE_ARRIVAL;
		else if (!strcmp(arg, "occupancy"))
			cfg->sample = SAMPLE_OCCUPANCY;
		else if (!strcmp(arg, "two-samples"))
			cfg->sample = SAMPLE_TWO;
		else
			die(opt_name, arg);
		break;
	case O_AF: cfg->af_on = true; break;
	case O_ALPHA: afp->alpha = parse_frac(arg); break;
	case O_BETA: afp->beta = parse_frac(arg); break;
	case O_TS: afp->ts_ns = unit(tcu_get_time, opt_name, arg, 1000, 1000000000); break;
	case O_ACTIVE:
		afp->active_thresh = (u32)unit(tcu_get_size, opt_name, arg, 0, 0x7fffffff);
		break;
	case O_AFFB:
		if (strcmp(arg, "clamp") && strcmp(arg, "signed"))
			die(opt_name, arg);
		cfg->af_signed = !strcmp(arg, "signed");
		break;
	case O_WEIGHTS:
		cfg->nweights = parse_list(arg, cfg->weights, MAX_FLOWS, parse_weight);
		break;
	case O_CAPS: cfg->ncaps = parse_list(arg, cfg->caps, MAX_FLOWS, parse_rate); break;
	case O_CAPSAT: cfg->caps_at = parse_time(arg); break;
	default: return false;
	}
	return true;
}

static bool parse_rp_option(struct config *cfg, int opt, char *arg)
{
	struct qcn_rp_params *rpp = &cfg->rpp;

	switch (opt) {
	case 's': cfg->src_rate = parse_rate(arg); break;
	case O_GD: rpp->gd_shift = (u32)parse_num(arg, 0, QCN_RP_MAX_GD_SHIFT); break;
	case O_AIR: rpp->ai_rate = parse_rate(arg); break;
	case O_HAIR: rpp->hai_rate = parse_rate(arg); break;
	case O_BR: rpp->byte_reset = (u32)unit(tcu_get_size, opt_name, arg, 1, 0xffffffff); break;
	case O_TR: rpp->time_reset_ns = unit(tcu_get_time, opt_name, arg, 1000, ALL); break;
	case O_THR: rpp->threshold = (u32)parse_num(arg, 1, 1000); break;
	case O_MINR: rpp->min_rate = parse_rate(arg); cfg->min_rate_set = true; break;
	case O_MINDEC: rpp->min_dec_pct = (u32)parse_num(arg, 0, 100); break;
	case O_MODE:
		if (!strcmp(arg, "qcn"))
			rpp->mode = QCN_RP_MODE_QCN;
		else if (!strcmp(arg, "qcn-t"))
			rpp->mode = QCN_RP_MODE_QCNT;
		else if (!strcmp(arg, "qcn-aimd"))
			rpp->mode = QCN_RP_MODE_AIMD;
		else if (!strcmp(arg, "n-aimd"))
			cfg->naimd = true, cfg->ap = false;
		else if (!strcmp(arg, "ap-n-aimd"))
			cfg->naimd = true, cfg->ap = true;
		else
			die(opt_name, arg);
		break;
	case O_QCNT: rpp->qcnt_period_ns = unit(tcu_get_time, opt_name, arg, 1000, ALL); break;
	case O_INIT: cfg->ninit = parse_list(arg, cfg->init_rates, MAX_FLOWS, parse_rate); break;
	case O_JIT:
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			die(opt_name, arg);
		rpp->jitter = !strcmp(arg, "on");
		break;
	case O_NOJIT: rpp->jitter = false; break;
	default: return false;
	}
	return true;
}

static bool parse_naimd_option(struct config *cfg, int opt, char *arg)
{
	switch (opt) {
	case O_GI: cfg->nap.gi = parse_gain(arg); break;
	case O_RU: cfg->nap.ru = unit(tcu_get_rate, opt_name, arg, 0, 10000000000000ULL); break;
	case O_AGD: cfg->nap.gd = parse_gain(arg); break;
	case O_FBU: cfg->fb_unit = unit(tcu_get_size, opt_name, arg, 1, 0xffffffff); break;
	case O_SPER: cfg->period = parse_num(arg, 1, 1000000); break;
	case O_APP: cfg->ap_pkts = parse_num(arg, 1, 1000000); break;
	default: return false;
	}
	return true;
}

/* the defaults, then the options in their order; exits on -h or bad usage */
static void parse_options(int argc, char **argv, struct config *cfg)
{
	int opt, li;

	*cfg = (struct config){
		.links = { 10000000000ULL }, .rtt = 50000, .pkt = 1000,
		.dur = 6000000000ULL, .step = 10000000, .from = ~0ULL,
		.seed = 1, .limit = 150000, .sched = SCHED_FIFO,
		.sample = SAMPLE_ARRIVAL, .period = QCN_AP_DEF_PERIOD,
		.flow_rp_new = true,
	};
	qcn_cp_params_default(&cfg->cpp);
	qcn_af_params_default(&cfg->afp);
	/* the RP's max rate is set after the options (default: the link) */
	qcn_rp_params_default(&cfg->rpp, 0);
	qcn_naimd_params_default(&cfg->nap, 0);
	while ((opt = getopt_long(argc, argv, "n:l:s:r:p:t:i:f:h", opts, NULL)) != -1) {
		static char name[32];

		/* the option's long name, for messages */
		for (li = 0; opts[li].name && opts[li].val != opt; li++)
			;
		snprintf(name, sizeof(name), "--%s", opts[li].name ? opts[li].name : "?");
		opt_name = name;
		if (parse_topo_option(cfg, opt, optarg) ||
		    parse_traffic_option(cfg, opt, optarg) ||
		    parse_cp_option(cfg, opt, optarg) ||
		    parse_rp_option(cfg, opt, optarg) ||
		    parse_naimd_option(cfg, opt, optarg))
			continue;
		if (opt == 'h') {
			fputs(usage_text, stdout);
			exit(0);
		}
		fputs(usage_text, stderr);
		exit(EXIT_USAGE);
	}
	if (optind < argc)
		die("argument", argv[optind]);
}

/* --paths: each listed flow's path into fl[]; returns how many are listed */
static int parse_paths(const char *paths)
{
	char buf[1024], *tok, *save = NULL;
	int npaths = 0, k;

	opt_name = "--paths";
	snprintf(buf, sizeof(buf), "%s", paths);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (npaths == nflows)
			die("--paths (more paths than flows)", paths);
		fl[npaths].npath = parse_path(tok, fl[npaths].path);
		for (k = 0; k < fl[npaths].npath; k++)
			if (fl[npaths].path[k] >= nports)
				die("--paths (a port beyond --link's list)", paths);
		npaths++;
	}
	return npaths;
}

/* --onoff I:BYTES:RATE,..: the on-off sources' burst and, for now, rate */
static void parse_onoff(const char *onoff)
{
	char buf[1024], *tok, *save = NULL, *a, *b, *save2 = NULL;
	u64 fi;

	opt_name = "--onoff";
	snprintf(buf, sizeof(buf), "%s", onoff);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		a = strtok_r(tok, ":", &save2);
		fi = a ? parse_num(a, 1, (u64)nflows) : 0;
		a = strtok_r(NULL, ":", &save2);
		b = strtok_r(NULL, ":", &save2);
		if (!a || !b || strtok_r(NULL, ":", &save2) || fl[fi - 1].kind)
			die("--onoff", onoff);
		fl[fi - 1].kind = SRC_ONOFF;
		fl[fi - 1].burst = parse_bytes(a);
		fl[fi - 1].period = parse_rate(b);	/* the rate, for now */
		if (!fl[fi - 1].burst || !fl[fi - 1].period ||
		    fl[fi - 1].burst > (1ULL << 40))
			die("--onoff", onoff);
	}
}

/*
 * What needs -n and --link (the paths, the sources' kinds), the defaults
 * that follow from other options, and the checks across options; exits
 * on bad usage.
 */
static void finish_options(struct config *cfg)
{
	struct qcn_rp_params *rpp = &cfg->rpp;
	struct qcn_naimd_params *nap = &cfg->nap;
	int npaths = 0, i, k;

	for (i = 0; i < nflows; i++) {
		fl[i].npath = 1;
		fl[i].path[0] = 0;
	}
	if (cfg->paths)
		npaths = parse_paths(cfg->paths);
	if (cfg->onoff)
		parse_onoff(cfg->onoff);
	for (i = 0; i < cfg->narr_on; i++) {
		if (cfg->arr_on[i] > (u64)nflows || fl[cfg->arr_on[i] - 1].kind == SRC_ONOFF)
			die("--arrive-on (beyond -n, or an on-off source)", "");
		fl[cfg->arr_on[i] - 1].kind = SRC_FINITE;
		cfg->arr_on[i]--;
	}
	if (!!cfg->arr_load != !!cfg->narr_on) {
		fprintf(stderr, "qcn-sim: --arrivals and --arrive-on go together (see --help)\n");
		exit(EXIT_USAGE);
	}
	if (!cfg->src_rate)
		cfg->src_rate = cfg->links[0];
	if (cfg->from == ~0ULL)
		cfg->from = cfg->dur / 2;
	rpp->max_rate = cfg->src_rate;
	/* the standard's 5 Mb/s floor, unless given, never above the line */
	if (!cfg->min_rate_set && rpp->min_rate > rpp->max_rate)
		rpp->min_rate = rpp->max_rate;
	nap->max_rate = cfg->src_rate;
	nap->min_rate = rpp->min_rate;
	nap->fb_unit = (u32)(cfg->fb_unit ? cfg->fb_unit : cfg->pkt);
	nap->ap_pkts = cfg->ap ? (u32)(cfg->ap_pkts ? cfg->ap_pkts :
				       qcn_max_u64(cfg->period / 2, 1)) : 0;
	for (i = 0; i < nports; i++)
		if (!cfg->links[i] || cfg->pkt * 8 * QCN_NSEC_PER_SEC / cfg->links[i] == 0)
			die("--link (a port rate 0 or above 8 Tbit/s)", "");
	for (k = 0; k < cfg->nlink_at; k++) {
		if (cfg->link_at[k].n != nports)
			die("--link-at (one rate per port of --link)", "");
		for (i = 0; i < nports; i++)
			if (!cfg->link_at[k].rates[i] ||
			    cfg->pkt * 8 * QCN_NSEC_PER_SEC / cfg->link_at[k].rates[i] == 0)
				die("--link-at (a port rate 0 or above 8 Tbit/s)", "");
	}
	if ((npaths && npaths != nflows) || !cfg->step || !cfg->dur || cfg->from >= cfg->dur ||
	    !qcn_rp_params_valid(rpp) || !qcn_cp_params_valid(&cfg->cpp) ||
	    !qcn_af_params_valid(&cfg->afp) ||
	    (cfg->nweights && cfg->nweights != nflows) || (cfg->ncaps && cfg->ncaps != nflows) ||
	    (cfg->nstarts && cfg->nstarts != nflows) || !qcn_naimd_params_valid(nap) ||
	    (cfg->ninit && cfg->ninit != nflows) ||
	    (cfg->naimd && cfg->af_on)) {
		fprintf(stderr, "qcn-sim: inconsistent parameters (see --help)\n");
		exit(EXIT_USAGE);
	}
}

/* The run's state besides the ports (pt[]), flows (fl[]) and fins[] */
struct sim {
	struct heap h;		/* the pending events */
	u64 ser_src;		/* ns to serialize one frame at the source */
	u64 slow_gap;		/* ns between frames at --slow-start's rate */
	u64 mean_gap;		/* ns between finite flows' arrivals, mean */
	u64 qsum, qn;		/* port 1's queue at the steps in the window */
};

/* every port's queue, CP and AF classes; -1 on allocation failure */
static int setup_ports(const struct config *cfg)
{
	int i, k;

	for (k = 0; k < nports; k++) {
		struct port *p = &pt[k];

		qcn_cp_init(&p->cp, &cfg->cpp, rnd32());
		p->rate = cfg->links[k];
		p->ser = cfg->pkt * 8 * QCN_NSEC_PER_SEC / cfg->links[k];
		p->insvc = -1;
		p->qmin = ~0ULL;
		p->ring_cap = (u32)(cfg->limit / cfg->pkt) + 2;
		p->ring = calloc(p->ring_cap, 1);
		p->tq = calloc((size_t)p->ring_cap * (size_t)nflows, sizeof(*p->tq));
		if (!p->ring || !p->tq) {
			perror("qcn-sim");
			return -1;
		}
		for (i = 0; i < nflows; i++) {
			p->af[i].weight = cfg->nweights ? (u32)cfg->weights[i] : 1;
			p->afv[i] = &p->af[i];
		}
	}
	return 0;
}

/*
 * --init-rates: source i's RP limited at rate from time 0, as just after a
 * CNM that cut it to rate (qcn_rp_start(): TR = CR = rate, at least the
 * min rate, counters and timer started); N-AIMD's source the same way
 * (qcn_naimd_start()).  A source at the line rate draws no random number.
 */
static void init_rate(const struct config *cfg, struct flow *f, u64 rate)
{
	if (!qcn_rp_start_rate(&cfg->rpp, rate))
		return;
	qcn_rp_start(&f->rp, &cfg->rpp, rate, 0, rnd32());
	qcn_naimd_start(&f->na, &cfg->nap, rate);
}

/* every source's RP, and its first send (greedy) or burst (on-off) */
static void setup_flows(const struct config *cfg, struct sim *s)
{
	u64 pkt = cfg->pkt;
	int i;

	for (i = 0; i < nflows; i++) {
		struct flow *f = &fl[i];

		qcn_rp_init(&f->rp, &cfg->rpp);
		qcn_naimd_init(&f->na, &cfg->nap);
		if (cfg->ninit)
			init_rate(cfg, f, cfg->init_rates[i]);
		if (f->kind == SRC_GREEDY) {
			f->busy = true;
			heap_push(&s->h, cfg->starts[i], EV_SEND, (u8)i, 0);
		} else if (f->kind == SRC_ONOFF) {
			/* the burst in whole frames; period from the rate */
			f->burst = qcn_max_u64((f->burst + pkt / 2) / pkt, 1);
			f->period = qcn_max_u64(qcn_mul_div_u64(f->burst * pkt * 8,
							       QCN_NSEC_PER_SEC, f->period), 1);
			heap_push(&s->h, cfg->starts[i], EV_BURST, (u8)i, 0);
		}
	}
}

/*
 * The random streams from --seed, the ports, the sources and the first
 * events; -1 on allocation failure.  The order of the heap pushes (ties
 * go in push order) and of the draws is part of the output.
 */
static int sim_setup(const struct config *cfg, struct sim *s)
{
	int i;

	rng_state = (u32)(cfg->seed * 2654435761U) | 1;
	if (setup_ports(cfg) < 0)
		return -1;
	trf_state = (u32)(cfg->seed * 2246822519U + 0x9e3779b9U) | 1;
	sizes.xm = sizes.mean * (sizes.shape - 65536) / sizes.shape;
	if (cfg->arr_load)
		s->mean_gap = qcn_mul_div_u64(sizes.mean * 8, QCN_NSEC_PER_SEC, cfg->arr_load);
	setup_flows(cfg, s);
	heap_push(&s->h, cfg->step, EV_STEP, 0, 0);
	s->ser_src = cfg->pkt * 8 * 1000000000ULL / cfg->src_rate;
	if (cfg->slow_rate)
		s->slow_gap = qcn_mul_div_u64(cfg->pkt * 8, QCN_NSEC_PER_SEC, cfg->slow_rate);
	if (cfg->af_on)
		heap_push(&s->h, cfg->afp.ts_ns, EV_AF, 0, 0);
	if (cfg->ncaps)
		heap_push(&s->h, cfg->caps_at, EV_CAPS, 0, 0);
	for (i = 0; i < cfg->nlink_at; i++)
		heap_push(&s->h, cfg->link_at[i].t, EV_LINK, (u8)i, 0);
	if (cfg->arr_load)
		heap_push(&s->h, draw_exp(s->mean_gap), EV_FLOW, 0, 0);
	return 0;
}

/* the '#' lines with the parameters, and the step lines' column names */
static void print_header(const struct config *cfg, const struct sim *s)
{
	const struct qcn_cp_params *cpp = &cfg->cpp;
	const struct qcn_af_params *afp = &cfg->afp;
	const struct qcn_rp_params *rpp = &cfg->rpp;
	const struct qcn_naimd_params *nap = &cfg->nap;
	int i, k;

	printf("# qcn-sim: %d flows, link %" PRIu64 " bit/s, src %" PRIu64
	       " bit/s, rtt %" PRIu64 " ns, pkt %" PRIu64 ", af %s\n",
	       nflows, cfg->links[0], cfg->src_rate, cfg->rtt, cfg->pkt,
	       cfg->af_on ? "on" : "off");
	if (nports > 1 || cfg->paths || cfg->sched != SCHED_FIFO ||
	    cfg->sample != SAMPLE_ARRIVAL) {
		printf("# ports:");
		for (k = 0; k < nports; k++)
			printf(" %" PRIu64, cfg->links[k]);
		printf(" bit/s; sched %s, sample %s; paths",
		       cfg->sched == SCHED_DRR ? "drr" : "fifo",
		       cfg->sample == SAMPLE_TWO ? "two-samples" :
		       cfg->sample == SAMPLE_OCCUPANCY ? "occupancy" : "arrival");
		for (i = 0; i < nflows; i++)
			for (k = 0; k < fl[i].npath; k++)
				printf("%s%d", k ? "+" : " ", fl[i].path[k] + 1);
		printf("\n");
	}
	printf("# cp: limit %" PRIu64 " qeq %u w_exp %d interval %u; af: alpha %u"
	       " beta %u (/65536) ts %" PRIu64 " ns active %u\n",
	       cfg->limit, cpp->qeq, cpp->w_exp, cpp->interval, afp->alpha, afp->beta,
	       afp->ts_ns, afp->active_thresh);
	printf("# rp: maxrate %" PRIu64 " min_rate %" PRIu64 " ai_rate %" PRIu64
	       " hai_rate %" PRIu64 " (bit/s) byte_reset %u time_reset %" PRIu64
	       " ns threshold %u gd %u min_dec %u mode %s qcnt_period %" PRIu64
	       " ns jitter %s\n", rpp->max_rate, rpp->min_rate, rpp->ai_rate,
	       rpp->hai_rate, rpp->byte_reset, rpp->time_reset_ns, rpp->threshold,
	       rpp->gd_shift, rpp->min_dec_pct,
	       rpp->mode == QCN_RP_MODE_QCNT ? "qcn-t" :
	       rpp->mode == QCN_RP_MODE_AIMD ? "qcn-aimd" : "qcn", rpp->qcnt_period_ns,
	       rpp->jitter ? "on" : "off");
	if (cfg->ninit) {
		printf("# rp: init_rates");
		for (i = 0; i < nflows; i++)
			printf(" %" PRIu64, cfg->init_rates[i]);
		printf(" (bit/s)\n");
	}
	if (cfg->naimd)
		printf("# n-aimd: ap %s ap_pkts %u gi %" PRIu64 " ru %" PRIu64
		       " gd %" PRIu64 " (gains /1e9) fb_unit %u sample_period %"
		       PRIu64 "\n", cfg->ap ? "on" : "off", nap->ap_pkts, nap->gi,
		       nap->ru, nap->gd, nap->fb_unit, cfg->period);
	for (i = 0; i < nflows; i++)
		if (fl[i].kind == SRC_ONOFF)
			printf("# traffic: source %d on-off, %" PRIu64 " frames every %" PRIu64
			       " ns from %" PRIu64 " ns\n", i + 1, fl[i].burst, fl[i].period,
			       cfg->starts[i]);
	if (cfg->arr_load) {
		printf("# traffic: finite flows, %" PRIu64 " bit/s offered on sources",
		       cfg->arr_load);
		for (i = 0; i < cfg->narr_on; i++)
			printf("%s%d", i ? "," : " ", (int)cfg->arr_on[i] + 1);
		printf(", %u conns each, sizes %s mean %" PRIu64 " bytes", nconns,
		       sizes.kind == SZ_PARETO ? "pareto" :
		       sizes.kind == SZ_FIXED ? "fixed" : "list", sizes.mean);
		if (sizes.kind == SZ_PARETO)
			printf(" shape %" PRIu64 "/65536 xm %" PRIu64, sizes.shape, sizes.xm);
		printf(", mean gap %" PRIu64 " ns, flow-rp %s, max-flows %" PRIu64 "\n",
		       s->mean_gap, cfg->flow_rp_new ? "new" : "keep", cfg->max_flows);
	}
	printf("# t_ms queue_bytes");
	for (i = 0; i < nflows; i++)
		printf(" rate_%d_mbps", i + 1);
	for (k = 1; k < nports; k++)
		printf(" queue_%d_bytes", k + 1);
	printf("\n");
}

/*
 * The event handlers, one per event type: e is the event due now
 * (e->t), e->flow the source (or culprit) it concerns.
 */

/* source e->flow sends a frame, and schedules its next at the RP's rate */
static void handle_send(const struct config *cfg, struct sim *s, const struct event *e)
{
	struct flow *f = &fl[e->flow];
	u64 gap, n;
	u32 tag;

	if (f->kind == SRC_ONOFF)
		src_account(f, e->t, cfg->from);
	tag = src_take(f, e->t);
	if (e->t >= cfg->from)
		f->sent_win++;
	heap_push_tag(&s->h, e->t + cfg->rtt / 2, EV_ARRIVE, e->flow, 0, 0, 0, tag);
	if (cfg->naimd) {
		qcn_naimd_tx(&f->na, &cfg->nap);
		gap = qcn_mul_div_u64(cfg->pkt * 8, QCN_NSEC_PER_SEC, f->na.cr);
	} else {
		/* timer expiries due by now, then one frame at CR */
		while (qcn_rp_timer(&f->rp, &cfg->rpp, e->t, rnd32()) != QCN_RP_EV_NONE)
			;
		/* byte counter; bytes 0 until every expiry is taken */
		for (n = cfg->pkt; qcn_rp_tx(&f->rp, &cfg->rpp, (u32)n, rnd32()) != QCN_RP_EV_NONE;
		     n = 0)
			;
		gap = f->rp.active ? qcn_rp_tx_time_ns(&f->rp, (u32)cfg->pkt) : s->ser_src;
	}
	/* --slow-start: at most slow_rate for slow_for after the start */
	if (e->t < cfg->starts[e->flow] + cfg->slow_for && gap < s->slow_gap)
		gap = s->slow_gap;
	f->last_tx = e->t;
	f->next_tx = e->t + (gap ? gap : 1);
	if (src_has_data(f))
		heap_push(&s->h, f->next_tx, EV_SEND, e->flow, 0);
	else
		f->busy = false;
}

/* on-off source e->flow: a burst to send, and the next one a period later */
static void handle_burst(const struct config *cfg, struct sim *s, const struct event *e)
{
	struct flow *f = &fl[e->flow];

	src_account(f, e->t, cfg->from);
	f->pending += f->burst;
	f->pend_max = qcn_max_u64(f->pend_max, f->pending);
	if (e->t >= cfg->from)
		f->offered_win += f->burst;
	src_wake(&s->h, e->flow, e->t);
	heap_push(&s->h, e->t + f->period, EV_BURST, e->flow, 0);
}

/*
 * A finite flow arrives on a source and connection drawn uniformly, and
 * the next arrival is drawn; -1 on allocation failure
 */
static int handle_flow(const struct config *cfg, struct sim *s, const struct event *e)
{
	u64 pkt = cfg->pkt, fr = (draw_size() + pkt / 2) / pkt;
	u32 src = (u32)cfg->arr_on[(u64)trf32() * (u64)cfg->narr_on >> 32];
	u32 conn = (u32)((u64)trf32() * nconns >> 32), id;
	struct flow *g = &fl[src];

	if (nfins + 1 >= fins_cap) {
		fins_cap = fins_cap ? 2 * fins_cap : 4096;
		fins = realloc(fins, fins_cap * sizeof(*fins));
		if (!fins) {
			perror("qcn-sim");
			return -1;
		}
	}
	id = ++nfins;
	fins[id] = (struct fin){ .arrive = e->t, .start = ~0ULL,
		.frames = (u32)qcn_min_u64(qcn_max_u64(fr, 1), 0xffffffffU),
		.src = (u8)src, .conn = (u8)conn };
	/* a source with nothing to send: the flow starts as new */
	if (!g->busy && cfg->flow_rp_new) {
		qcn_rp_init(&g->rp, &cfg->rpp);
		qcn_naimd_init(&g->na, &cfg->nap);
		g->next_tx = qcn_min_u64(g->next_tx, g->last_tx + s->ser_src);
	}
	if (g->cq_tail[conn]) {
		fins[g->cq_tail[conn]].next = id;
	} else {
		g->cq_head[conn] = id;
		fins[id].start = e->t;
		g->nbusy++;
	}
	g->cq_tail[conn] = id;
	src_wake(&s->h, (int)src, e->t);
	if (!cfg->max_flows || nfins < cfg->max_flows)
		heap_push(&s->h, e->t + draw_exp(s->mean_gap), EV_FLOW, 0, 0);
	return 0;
}

/* source e->flow learns of a drop: the frame to resend; -1 on allocation failure */
static int handle_retx(struct sim *s, const struct event *e)
{
	struct flow *f = &fl[e->flow];

	if (f->nretx == f->retx_cap) {
		f->retx_cap = f->retx_cap ? 2 * f->retx_cap : 64;
		f->retx = realloc(f->retx, f->retx_cap * sizeof(*f->retx));
		if (!f->retx) {
			perror("qcn-sim");
			return -1;
		}
	}
	f->retx[f->nretx++] = e->tag;
	retx_frames++;
	src_wake(&s->h, e->flow, e->t);
	return 0;
}

/*
 * A frame of flow e->flow reaches hop e->hop of its path: tail drop or
 * the queue, then the port's CP (N-AIMD's, or QCN's and AF-QCN's), which
 * may send the culprit a CNM
 */
static void handle_arrive(const struct config *cfg, struct sim *s, const struct event *e)
{
	struct flow *f = &fl[e->flow];
	struct port *p = &pt[f->path[e->hop]];
	struct qcn_cp_sample smp;
	u64 pkt = cfg->pkt;
	int cul;
	u8 qfb;

	port_account(p, e->t, cfg->from);
	if (p->backlog + pkt > cfg->limit) {
		f->drops++;
		p->drops++;
		if (e->tag)	/* the source learns it RTT/2 later */
			heap_push_tag(&s->h, e->t + cfg->rtt / 2, EV_RETX, e->flow, 0, 0, 0,
				      e->tag);
	} else {
		p->backlog += pkt;
		p->tq[e->flow * p->ring_cap +
		      (p->tq_head[e->flow] + p->wait[e->flow]) % p->ring_cap] = e->tag;
		p->wait[e->flow]++;
		if (cfg->sched == SCHED_FIFO) {
			p->ring[(p->head + p->nring) % p->ring_cap] = e->flow;
			p->nring++;
		}
		if (p->insvc < 0) {
			port_next(p, cfg->sched);
			heap_push_ev(&s->h, e->t + p->ser, EV_DEPART, 0, 0, (u8)(p - pt), 0);
		}
	}
	if (cfg->af_on)
		qcn_af_account(&p->af[e->flow], (u32)pkt);
	if (cfg->naimd) {
		if (qcn_naimd_cp_arrival(&p->cp, &cfg->cpp, (u32)cfg->period, (u32)p->backlog,
					 rnd32(), &smp)) {
			cul = port_culprit(p, cfg->sample, e->flow, (u32)pkt, cfg->limit);
			heap_push_ev(&s->h, e->t + cfg->rtt / 2, EV_CNM, (u8)cul, 0, 0, smp.fb);
			fl[cul].cnms++;
			p->cnms++;
		}
		return;
	}
	if (!qcn_cp_arrival(&p->cp, &cfg->cpp, (u32)pkt, (u32)p->backlog, rnd32(), &smp))
		return;
	cul = port_culprit(p, cfg->sample, e->flow, (u32)pkt, cfg->limit);
	/* as sch_qcn's qcn_sampled(): eq. (4) when AF is on
	 * (smp.qfb is 0 unless the sample is congested) */
	if (cfg->af_on && cfg->af_signed)
		qfb = qcn_af_combine(qcn_af_fb_qcn(&smp, &cfg->cpp),
				     p->af[cul].fb_af, cfg->afp.alpha);
	else if (cfg->af_on)
		qfb = qcn_af_combine(smp.qfb, p->af[cul].fb_af, cfg->afp.alpha);
	else
		qfb = smp.qfb;
	if (!qfb)
		return;
	heap_push(&s->h, e->t + cfg->rtt / 2, EV_CNM, (u8)cul, qfb);
	fl[cul].cnms++;
	p->cnms++;
}

/*
 * Port e->hop finishes a frame: on to the next hop, or to the sink; then
 * the next frame into service
 */
static void handle_depart(const struct config *cfg, struct sim *s, const struct event *e)
{
	struct port *p = &pt[e->hop];
	u64 pkt = cfg->pkt;
	int c2, hop;
	u32 tg;

	port_account(p, e->t, cfg->from);
	c2 = p->insvc;
	tg = p->insvc_tag;
	p->backlog -= pkt;
	p->insvc = -1;
	if (e->t >= cfg->from)
		p->win_bytes += pkt;
	for (hop = 0; fl[c2].path[hop] != e->hop; hop++)
		;
	if (hop + 1 < fl[c2].npath) {
		heap_push_tag(&s->h, e->t, EV_ARRIVE, (u8)c2, 0, (u8)(hop + 1), 0, tg);
	} else {
		fl[c2].step_bytes += pkt;
		if (e->t >= cfg->from)
			fl[c2].win_bytes += pkt;
		if (tg && ++fins[tg].done == fins[tg].frames)
			fins[tg].end = e->t;
	}
	if (p->backlog) {
		port_next(p, cfg->sched);
		heap_push_ev(&s->h, e->t + p->ser, EV_DEPART, 0, 0, e->hop, 0);
	}
}

/* a CNM (or N-AIMD's feedback) reaches source e->flow's RP */
static void handle_cnm(const struct config *cfg, const struct event *e)
{
	struct flow *f = &fl[e->flow];

	if (cfg->naimd) {
		qcn_naimd_feedback(&f->na, &cfg->nap, e->fb);
		return;
	}
	qcn_rp_cnm(&f->rp, &cfg->rpp, e->qfb, e->t, rnd32());
}

/* every Ts: AF-QCN's update at every port */
static void handle_af(const struct config *cfg, struct sim *s, const struct event *e)
{
	int k;

	for (k = 0; k < nports; k++)
		qcn_af_update(pt[k].afv, (u32)nflows, &cfg->afp);
	heap_push(&s->h, e->t + cfg->afp.ts_ns, EV_AF, 0, 0);
}

/* --caps-at: the classes' maxrate at every port */
static void handle_caps(const struct config *cfg)
{
	int i, k;

	for (k = 0; k < nports; k++)
		for (i = 0; i < nflows; i++)
			pt[k].af[i].max_bytes_ts = cfg->caps[i] ?
				qcn_af_rate_to_ts(cfg->caps[i] / 8, cfg->afp.ts_ns) : 0;
}

/*
 * --link-at: the ports serve at new rates from now on.  The frame in
 * service departs as scheduled; the window's capacity (utilization) is
 * integrated piecewise.
 */
static void handle_link(const struct config *cfg, const struct event *e)
{
	const struct link_at *la = &cfg->link_at[e->flow];
	int k;

	for (k = 0; k < nports; k++) {
		struct port *p = &pt[k];

		port_account(p, e->t, cfg->from);
		port_capacity(p, e->t, cfg->from);
		p->rate = la->rates[k];
		p->ser = cfg->pkt * 8 * QCN_NSEC_PER_SEC / la->rates[k];
	}
}

/* every -i: a step line, the rates over the step; port 1's queue sampled */
static void handle_step(const struct config *cfg, struct sim *s, const struct event *e)
{
	int i, k;

	printf("%.1f %" PRIu64, e->t / 1e6, pt[0].backlog);
	for (i = 0; i < nflows; i++) {
		printf(" %.2f", fl[i].step_bytes * 8e3 / cfg->step);
		fl[i].step_bytes = 0;
	}
	for (k = 1; k < nports; k++)
		printf(" %" PRIu64, pt[k].backlog);
	printf("\n");
	if (e->t >= cfg->from) {
		s->qsum += pt[0].backlog;
		s->qn++;
	}
	heap_push(&s->h, e->t + cfg->step, EV_STEP, 0, 0);
}

/* the events in time order (ties in push order) up to -t; -1 on allocation failure */
static int sim_run(const struct config *cfg, struct sim *s)
{
	while (s->h.n) {
		struct event e = heap_pop(&s->h);

		if (e.t > cfg->dur)
			break;
		switch (e.type) {
		case EV_SEND:
			handle_send(cfg, s, &e);
			break;
		case EV_BURST:
			handle_burst(cfg, s, &e);
			break;
		case EV_FLOW:
			if (handle_flow(cfg, s, &e) < 0)
				return -1;
			break;
		case EV_RETX:
			if (handle_retx(s, &e) < 0)
				return -1;
			break;
		case EV_ARRIVE:
			handle_arrive(cfg, s, &e);
			break;
		case EV_DEPART:
			handle_depart(cfg, s, &e);
			break;
		case EV_CNM:
			handle_cnm(cfg, &e);
			break;
		case EV_AF:
			handle_af(cfg, s, &e);
			break;
		case EV_CAPS:
			handle_caps(cfg);
			break;
		case EV_LINK:
			handle_link(cfg, &e);
			break;
		case EV_STEP:
			handle_step(cfg, s, &e);
			break;
		}
	}
	return 0;
}

/* the summary lines over the window; -1 on allocation failure */
static int print_summary(const struct config *cfg, const struct sim *s)
{
	u64 pkt = cfg->pkt, dur = cfg->dur, from = cfg->from, drops = 0, cnms = 0;
	double tot = 0, win = (dur - from) / 1e9;
	int i, k;

	for (i = 0; i < nflows; i++) {
		tot += fl[i].win_bytes;
		drops += fl[i].drops;
		cnms += fl[i].cnms;
	}
	for (i = 0; i < nflows; i++)
		printf("# flow %d: W %u, %.2f mbps, %.1f %%, cnms %" PRIu64
		       ", drops %" PRIu64 "\n", i + 1, pt[0].af[i].weight,
		       fl[i].win_bytes * 8 / win / 1e6,
		       tot ? 100.0 * fl[i].win_bytes / tot : 0.0,
		       fl[i].cnms, fl[i].drops);
	printf("# total: %.2f mbps, mean queue %" PRIu64 " bytes, drops %"
	       PRIu64 ", cnms %" PRIu64 "\n", tot * 8 / win / 1e6,
	       s->qn ? s->qsum / s->qn : 0, drops, cnms);
	for (k = 0; k < nports; k++)
		port_account(&pt[k], dur, from);	/* the last stretch */
	printf("# queue: ");
	port_print(&pt[0], dur, from);
	printf("\n");
	for (k = 0; nports > 1 && k < nports; k++) {
		printf("# port %d: ", k + 1);
		port_print(&pt[k], dur, from);
		printf(", cnms %" PRIu64 ", drops %" PRIu64 "\n", pt[k].cnms, pt[k].drops);
	}
	for (i = 0; i < nflows; i++)
		if (fl[i].kind == SRC_ONOFF)
			printf("# onoff %d: burst %" PRIu64 " bytes every %" PRIu64
			       " ns, offered %.2f mbps, sent %.2f mbps, delivered %.2f mbps,"
			       " backlog mean %.0f bytes, now %" PRIu64 " bytes, max %" PRIu64
			       " bytes\n",
			       i + 1, fl[i].burst * pkt, fl[i].period,
			       fl[i].offered_win * pkt * 8 / win / 1e6,
			       fl[i].sent_win * pkt * 8 / win / 1e6,
			       fl[i].win_bytes * 8 / win / 1e6,
			       (src_account(&fl[i], dur, from), fl[i].pend_int * pkt / (win * 1e9)),
			       fl[i].pending * pkt,
			       fl[i].pend_max * pkt);
	if (cfg->arr_load && fct_summary(pkt, from, win) < 0)
		return -1;
	return 0;
}

static void sim_free(struct sim *s)
{
	int i, k;

	for (k = 0; k < nports; k++) {
		free(pt[k].ring);
		free(pt[k].tq);
	}
	for (i = 0; i < nflows; i++)
		free(fl[i].retx);
	free(fins);
	free(s->h.v);
}

int main(int argc, char **argv)
{
	struct config cfg;
	struct sim s = { 0 };

	parse_options(argc, argv, &cfg);
	finish_options(&cfg);
	if (sim_setup(&cfg, &s) < 0)
		return 1;
	print_header(&cfg, &s);
	if (sim_run(&cfg, &s) < 0 || print_summary(&cfg, &s) < 0)
		return 1;
	if (cfg.fct_path && fct_csv(cfg.fct_path, cfg.pkt) < 0)
		return 1;
	sim_free(&s);
	return 0;
}
