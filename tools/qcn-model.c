// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qcn-model: the convergence-time model of QCN of the convergence paper
 * (Shu, Zhang, Ren, Lin: Section IV, eqs. 6-25, and Section V-B's
 * variants, eqs. 26 and 28; tools/qcn_model.h) as a command: p[Fb>0],
 * E(dR), the two flows' rate evolution and the convergence time, as CSV
 * for the paper's Figs. 3-11.  The defaults are the paper's setting on
 * the standard's numbers (include/qcn/).  Command `fluid`: the QCN fluid
 * model of Alizadeh et al. (Section II-B, eqs. 9-13; tools/qcn_fluid.h)
 * integrated in time.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qcn_fluid.h"
#include "qcn_model.h"
#include "tc_units.h"

#define EXIT_USAGE	2
#define MAX_SWEEP	256

static const char usage_text[] =
"Usage: qcn-model [OPTIONS] COMMAND [ARGS]\n"
"\n"
"The convergence-time model of QCN (Shu, Zhang, Ren, Lin, \"Analysing\n"
"Convergence of Quantized Congestion Notification in Data Center\n"
"Ethernet\", Section IV): N flows share a link of capacity C in the stable\n"
"state; each sampling period (S / C) the CP's sample has nonzero feedback\n"
"Fb with probability p[Fb>0] and belongs to flow i with probability R_i / C;\n"
"E(dR_i) is flow i's expected rate change per period (eq. 25), p[Fb>0] the\n"
"value with sum E(dR_i) = 0, and R_i += E(dR_i) every period.  Convergence\n"
"time: the first time epsilon = min R_i / max R_i >= 0.9 (Section V-B).\n"
"\n"
"Commands (CSV with a header line on stdout; rates in Mbit/s, times in s):\n"
"  pfb                p[Fb>0] against R_1 (Fig. 3):\n"
"                       r1_mbps,r2_mbps,p_fb\n"
"  convtime           the convergence time from --rates, or with --r1 against\n"
"                     the initial R_1 (Fig. 4):\n"
"                       r1_mbps,..,rN_mbps,conv_s,status\n"
"  evolve             the rates from --rates every --step (Figs. 5, 6):\n"
"                       t_s,r1_mbps,..,rN_mbps,p_fb,epsilon\n"
"  sweep PARAM LIST   the convergence time from --rates for each value of\n"
"                     PARAM (Figs. 7-11): gd (N of Gd = 2^-N), ai-rate\n"
"                     (RATE), tai (BYTES) or time-reset (TIME; --mode timer):\n"
"                       PARAM,conv_s,status\n"
"                     with PARAM in its unit: gd as a fraction, ai-rate in\n"
"                     Mbit/s, tai in KB (1000 bytes), time-reset in ms\n"
"  ede                each flow of --rates at the p[Fb>0] --eq solves for, and\n"
"                     its E(dR) by every equation (Mbit/s per sampling\n"
"                     period):\n"
"                       flow,r_mbps,p_fb,p,ede_full,ede_23,ede_24,ede_25\n"
"  fig N              the paper's figure N, 3..11, with its settings: 3 pfb,\n"
"                     4 convtime over R_1, 5 and 6 evolve from (900, 100)\n"
"                     and (700, 300) Mbit/s (-t 20s unless given), 7 sweep\n"
"                     gd 4,6,7,8, 8 sweep ai-rate 0.5,1,5 mbit, 9 sweep tai\n"
"                     37.5,75,150 KB, 10 sweep time-reset 15,10,2.4 ms\n"
"                     (--mode timer), 11 sweep ai-rate 0.5,5 mbit (--mode\n"
"                     aimd); the options set the rest\n"
"  fluid              the QCN fluid model (Alizadeh et al., \"Data Center\n"
"                     Transport Mechanisms\", Section II-B, eqs. 9-13): --flows\n"
"                     sources from the line rate, the queue, Fb and the\n"
"                     sampling probability p integrated in time (RK4, step\n"
"                     --dt), every --step:\n"
"                       t_s,q_bytes,p,fb_bytes,cr1_mbps,..,crN_mbps,\n"
"                       tr1_mbps,..,trN_mbps\n"
"                     (defaults there: -l 10gbit, -t 1s, -i 1ms)\n"
"status: converged; timeout (epsilon below --epsilon until -t); no-root\n"
"(no p[Fb>0] in (0, 1] gives sum E(dR_i) = 0: the increases outrun any\n"
"rate of cuts).\n"
"\n"
"Model (defaults: the paper's setting, the standard's numbers):\n"
"  -l, --link RATE        link capacity C (default 1gbit)\n"
"      --rates R1,R2,..   initial rates, 1..64 flows summing to C; a single\n"
"                         R1 means R1,C-R1 (default 900mbit,100mbit)\n"
"      --r1 LO[:HI[:STEP]]\n"
"                         pfb and convtime: R_1 from LO to HI by STEP, R_2\n"
"                         = C - R_1 (STEP: pfb 5mbit, convtime 10mbit; pfb's\n"
"                         default C/2:C-5mbit, fig 4's C/2+10mbit:C-10mbit)\n"
"      --gd N             Gd = 2^-N, 0..31 (default 7)\n"
"      --fb X             the nonzero feedback's mean Fb, 0 < X <= 63\n"
"                         (default 1, the paper's assumption 5)\n"
"      --ai-rate RATE     R_AI, > 0 (default 5mbit * C / 10gbit: 0.5mbit at\n"
"                         1gbit, the paper's rule)\n"
"      --byte-reset BYTES byte counter cycle BC in fast recovery (default\n"
"                         150000)\n"
"      --tai BYTES        byte counter cycle in active increase, T_AI\n"
"                         (default BC/2)\n"
"      --interval BYTES   the CP's sampling interval S (default 150000)\n"
"      --threshold N      fast recovery cycles, 1..1000 (default 5)\n"
"      --mode MODE        qcn: byte counter (eqs. 6-25); timer: timer only,\n"
"                         QCN-TIMER (eq. 26); aimd: QCN-AIMD (eq. 28)\n"
"                         (default qcn)\n"
"      --time-reset TIME  the timer period T_t of --mode timer (default 15ms)\n"
"      --eq EQ            E(dR) by full (eq. 6 with eqs. 7-8, 11, 16, 18-19),\n"
"                         23, 24 or 25 (default 25, the paper's; --mode timer:\n"
"                         25 is eq. 26)\n"
"Fluid model (fluid; also -l, --gd, --ai-rate, --byte-reset, --interval,\n"
"--threshold):\n"
"  -n, --flows N          sources, 1..64 (default 10)\n"
"      --rtt TIME         the feedback delay tau (default 100us)\n"
"      --qeq BYTES        Qeq (default 26000)\n"
"      --w W              weight of Qdelta, a power of two 2^-10..2^10\n"
"                         (default 2)\n"
"      --limit BYTES      buffer (default 150000)\n"
"      --pkt BYTES        frame size P, 64..65535 (default 1500)\n"
"      --dt TIME          integration step, at most --rtt unless --rtt is 0\n"
"                         (default 1us)\n"
"      --tr-reset RULE    paper: every message sets TR <- CR (eq. 9 as\n"
"                         printed); cycle: only one after a byte counter\n"
"                         cycle since the last cut, the standard's rule\n"
"                         (eq. 9's first term times (1 - p)^(BC/P))\n"
"                         (default paper)\n"
"Evolution:\n"
"  -t, --time TIME        run at most TIME (default 60s)\n"
"  -i, --step TIME        evolve: a row every TIME, 0 every sampling period\n"
"                         (default 100ms)\n"
"      --epsilon X        converged at min/max >= X, 0 < X <= 1 (default 0.9)\n"
"  -h, --help             this text\n"
"\n"
"Units are tc's: RATE 1gbit, 500kbit (bit/s; a bare number is bit/s),\n"
"1mbps (bytes/s); BYTES 150000, 150kb (k = 1024); TIME 15ms, 2.4ms, 20s\n"
"(a bare number is in us).\n"
"Exit status 0; 1 when evolve stops at no-root; 2 on bad usage.\n";

enum {
	O_RATES = 256, O_R1, O_GD, O_FB, O_AIR, O_BR, O_TAI, O_INTERVAL,
	O_THR, O_MODE, O_TR, O_EQ, O_EPS, O_RTT, O_QEQ, O_W, O_LIMIT, O_PKT, O_DT,
	O_TRR
};

static const struct option opts[] = {
	{ "link", 1, NULL, 'l' }, { "rates", 1, NULL, O_RATES },
	{ "r1", 1, NULL, O_R1 }, { "gd", 1, NULL, O_GD },
	{ "fb", 1, NULL, O_FB }, { "ai-rate", 1, NULL, O_AIR },
	{ "byte-reset", 1, NULL, O_BR }, { "tai", 1, NULL, O_TAI },
	{ "interval", 1, NULL, O_INTERVAL }, { "threshold", 1, NULL, O_THR },
	{ "mode", 1, NULL, O_MODE }, { "time-reset", 1, NULL, O_TR },
	{ "eq", 1, NULL, O_EQ }, { "time", 1, NULL, 't' },
	{ "step", 1, NULL, 'i' }, { "epsilon", 1, NULL, O_EPS },
	{ "flows", 1, NULL, 'n' }, { "rtt", 1, NULL, O_RTT },
	{ "qeq", 1, NULL, O_QEQ }, { "w", 1, NULL, O_W },
	{ "limit", 1, NULL, O_LIMIT }, { "pkt", 1, NULL, O_PKT },
	{ "dt", 1, NULL, O_DT }, { "tr-reset", 1, NULL, O_TRR },
	{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
};

/* The options as given; what is unset follows from the others. */
struct config {
	struct qm_params m;
	double rates[QM_MAX_FLOWS];
	int nrates;
	const char *rates_arg, *r1_arg;
	bool ai_set, tai_set, tmax_set, link_set, step_set;
	double tmax, step, eps;
	struct qf_params f;	/* fluid: the options of its own */
};

static const char *opt_name = "";

__attribute__((noreturn))
static void die(const char *what, const char *arg)
{
	fprintf(stderr, "qcn-model: invalid %s '%s' (see --help)\n", what, arg);
	exit(EXIT_USAGE);
}

static uint64_t unit(int (*parse)(uint64_t *, const char *), const char *s,
		     uint64_t min, uint64_t max)
{
	uint64_t v;

	if (parse(&v, s) || v < min || v > max)
		die(opt_name, s);
	return v;
}

#define ALL	UINT64_MAX

/* a decimal min < x <= max (no hex, inf or nan) */
static double parse_real(const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !((*s >= '0' && *s <= '9') || *s == '.') ||
	    strpbrk(s, "xXnN") || !(v > min && v <= max))
		die(opt_name, s);
	return v;
}

static double parse_rate(const char *s) { return (double)unit(tcu_get_rate, s, 1, ALL); }

/* w = 2^e, e in [-10, 10]: returns e */
static int parse_w(const char *s)
{
	double w = parse_real(s, 0, 1024);
	int e;

	if (frexp(w, &e) != 0.5 || e - 1 < QCN_CP_W_EXP_MIN)
		die(opt_name, s);
	return e - 1;
}

/* "A,B,.." into v[0..max) by conv, returns the count */
static int parse_list(const char *s, double *v, int max, double (*conv)(const char *))
{
	char buf[4096], *tok, *save = NULL;
	int n = 0;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		die(opt_name, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			die(opt_name, s);
		v[n++] = conv(tok);
	}
	if (!n)
		die(opt_name, s);
	return n;
}

static void parse_option(struct config *cfg, int opt, const char *arg)
{
	struct qm_params *m = &cfg->m;

	switch (opt) {
	case 'l':
		m->c = parse_rate(arg);
		cfg->link_set = true;
		break;
	case O_RATES:
		cfg->rates_arg = arg;
		break;
	case O_R1:
		cfg->r1_arg = arg;
		break;
	case O_GD:
		m->gd = ldexp(1.0, -(int)unit(tcu_get_u64, arg, 0, 31));
		break;
	case O_FB:
		m->fb = parse_real(arg, 0, QCN_QFB_MAX);
		break;
	case O_AIR:
		m->r_ai = parse_rate(arg);
		cfg->ai_set = true;
		break;
	case O_BR:
		m->bc = 8.0 * unit(tcu_get_size, arg, 1, UINT32_MAX);
		break;
	case O_TAI:
		m->tai = 8.0 * unit(tcu_get_size, arg, 1, UINT32_MAX);
		cfg->tai_set = true;
		break;
	case O_INTERVAL:
		m->s = 8.0 * unit(tcu_get_size, arg, 1, UINT32_MAX);
		break;
	case O_THR:
		m->threshold = (int)unit(tcu_get_u64, arg, 1, 1000);
		break;
	case O_MODE:
		if (!strcmp(arg, "qcn"))
			m->mode = QM_QCN;
		else if (!strcmp(arg, "timer"))
			m->mode = QM_TIMER;
		else if (!strcmp(arg, "aimd"))
			m->mode = QM_AIMD;
		else
			die(opt_name, arg);
		break;
	case O_TR:
		m->timer = unit(tcu_get_time, arg, 1000, ALL) * 1e-9;
		break;
	case O_EQ:
		if (!strcmp(arg, "full"))
			m->eq = QM_EQ_FULL;
		else if (!strcmp(arg, "23"))
			m->eq = QM_EQ_23;
		else if (!strcmp(arg, "24"))
			m->eq = QM_EQ_24;
		else if (!strcmp(arg, "25"))
			m->eq = QM_EQ_25;
		else
			die(opt_name, arg);
		break;
	case 't':
		cfg->tmax = unit(tcu_get_time, arg, 0, ALL) * 1e-9;
		cfg->tmax_set = true;
		break;
	case 'i':
		cfg->step = unit(tcu_get_time, arg, 0, ALL) * 1e-9;
		cfg->step_set = true;
		break;
	case 'n':
		cfg->f.n = (int)unit(tcu_get_u64, arg, 1, QF_MAX_FLOWS);
		break;
	case O_RTT:
		cfg->f.tau = unit(tcu_get_time, arg, 0, ALL) * 1e-9;
		break;
	case O_QEQ:
		cfg->f.qeq = (u32)unit(tcu_get_size, arg, 0, UINT32_MAX);
		break;
	case O_W:
		cfg->f.w_exp = parse_w(arg);
		break;
	case O_LIMIT:
		cfg->f.limit = (double)unit(tcu_get_size, arg, 1, UINT32_MAX);
		break;
	case O_PKT:
		cfg->f.pkt = (double)unit(tcu_get_size, arg, 64, 65535);
		break;
	case O_DT:
		cfg->f.h = unit(tcu_get_time, arg, 1, ALL) * 1e-9;
		break;
	case O_TRR:
		if (!strcmp(arg, "paper"))
			cfg->f.tr_cycle = false;
		else if (!strcmp(arg, "cycle"))
			cfg->f.tr_cycle = true;
		else
			die(opt_name, arg);
		break;
	case O_EPS:
		cfg->eps = parse_real(arg, 0, 1);
		break;
	default:
		fputs(usage_text, stderr);
		exit(EXIT_USAGE);
	}
}

/* --rates against C: the rates must sum to C (to one part in 10^6) */
static void set_rates(struct config *cfg)
{
	double sum = 0;
	int i;

	opt_name = "--rates";
	if (!cfg->rates_arg) {
		cfg->rates[0] = 0.9 * cfg->m.c;
		cfg->rates[1] = 0.1 * cfg->m.c;
		cfg->nrates = 2;
		return;
	}
	cfg->nrates = parse_list(cfg->rates_arg, cfg->rates, QM_MAX_FLOWS, parse_rate);
	if (cfg->nrates == 1) {
		if (cfg->rates[0] >= cfg->m.c)
			die("--rates (R1 must be below C)", cfg->rates_arg);
		cfg->rates[1] = cfg->m.c - cfg->rates[0];
		cfg->nrates = 2;
	}
	for (i = 0; i < cfg->nrates; i++)
		sum += cfg->rates[i];
	if (fabs(sum - cfg->m.c) > 1e-6 * cfg->m.c)
		die("--rates (they must sum to C)", cfg->rates_arg);
}

/* --r1 LO[:HI[:STEP]] (or the command's default) into lo, hi, step */
static void r1_range(const struct config *cfg, double def_lo, double def_hi,
		     double def_step, double *lo, double *hi, double *step)
{
	char buf[256], *p[3] = { buf, NULL, NULL };
	int i;

	*lo = def_lo, *hi = def_hi, *step = def_step;
	if (!cfg->r1_arg)
		return;
	opt_name = "--r1";
	if (snprintf(buf, sizeof(buf), "%s", cfg->r1_arg) >= (int)sizeof(buf))
		die(opt_name, cfg->r1_arg);
	for (i = 0; i < 2 && p[i] && (p[i + 1] = strchr(p[i], ':')); i++)
		*p[i + 1]++ = 0;
	*lo = parse_rate(p[0]);
	*hi = p[1] ? parse_rate(p[1]) : *lo;
	*step = p[2] ? parse_rate(p[2]) : def_step;
	if (*lo > *hi || *hi >= cfg->m.c)
		die("--r1 (LO <= HI < C)", cfg->r1_arg);
}

static const char *const status_name[] = { "no-root", "converged", "timeout" };

/* the convergence time from rates[] (copied), as CSV fields */
static void print_conv(const struct config *cfg, const struct qm_params *m,
		       const double *rates, int n)
{
	double r[QM_MAX_FLOWS], t;
	int rc;

	memcpy(r, rates, n * sizeof(*r));
	rc = qm_conv_time(m, r, n, cfg->eps, cfg->tmax, &t);
	if (rc)
		printf(",,%s\n", status_name[rc + 1]);
	else
		printf(",%.4f,%s\n", t, status_name[1]);
}

/* R_1 from lo to hi by step, with a half step's slack for rounding */
#define FOR_R1(r1, lo, hi, step) \
	for (long k_ = 0; ((r1) = (lo) + k_ * (step)) <= (hi) + (step) / 2; k_++)

static void cmd_pfb(const struct config *cfg)
{
	const struct qm_params *m = &cfg->m;
	double lo, hi, step, r1, r[2], pfb = -1;

	r1_range(cfg, m->c / 2, m->c - 5e6, 5e6, &lo, &hi, &step);
	printf("r1_mbps,r2_mbps,p_fb\n");
	FOR_R1(r1, lo, hi, step) {
		r[0] = r1;
		r[1] = m->c - r1;
		printf("%.4f,%.4f,", r[0] / 1e6, r[1] / 1e6);
		if (qm_solve_pfb(m, r, 2, &pfb))
			printf("\n");
		else
			printf("%.6f\n", pfb);
	}
}

/* Fig. 4: one row for --rates, or with --r1 (or for fig 4) a sweep of R_1 */
static void cmd_convtime(const struct config *cfg, bool sweep_r1)
{
	const struct qm_params *m = &cfg->m;
	double lo, hi, step, r1, r[2];
	int i;

	if (!sweep_r1 && !cfg->r1_arg) {
		for (i = 0; i < cfg->nrates; i++)
			printf("r%d_mbps,", i + 1);
		printf("conv_s,status\n");
		for (i = 0; i < cfg->nrates; i++)
			printf("%s%.4f", i ? "," : "", cfg->rates[i] / 1e6);
		print_conv(cfg, m, cfg->rates, cfg->nrates);
		return;
	}
	r1_range(cfg, m->c / 2 + 10e6, m->c - 10e6, 10e6, &lo, &hi, &step);
	printf("r1_mbps,r2_mbps,conv_s,status\n");
	FOR_R1(r1, lo, hi, step) {
		r[0] = r1;
		r[1] = m->c - r1;
		printf("%.4f,%.4f", r[0] / 1e6, r[1] / 1e6);
		print_conv(cfg, m, r, 2);
	}
}

static int cmd_evolve(const struct config *cfg)
{
	const struct qm_params *m = &cfg->m;
	double r[QM_MAX_FLOWS], ts = qm_period(m), next = 0, pfb = -1, t;
	int i, n = cfg->nrates;
	long k;

	memcpy(r, cfg->rates, n * sizeof(*r));
	printf("t_s");
	for (i = 0; i < n; i++)
		printf(",r%d_mbps", i + 1);
	printf(",p_fb,epsilon\n");
	for (k = 0; (t = k * ts) <= cfg->tmax + ts / 2; k++) {
		double now[QM_MAX_FLOWS];

		memcpy(now, r, n * sizeof(*r));
		if (qm_step(m, r, n, &pfb)) {
			fprintf(stderr, "qcn-model: no p[Fb>0] in (0, 1] gives sum E(dR) = 0 at t = %.4f s\n",
				t);
			return 1;
		}
		if (t + ts / 2 < next)
			continue;
		printf("%.4f", t);
		for (i = 0; i < n; i++)
			printf(",%.4f", now[i] / 1e6);
		printf(",%.6f,%.6f\n", pfb, qm_epsilon(now, n));
		next += cfg->step;
	}
	return 0;
}

enum { SW_GD, SW_AI, SW_TAI, SW_TIMER };
static const char *const sweep_name[] = { "gd", "ai-rate", "tai", "time-reset" };

static double parse_gd_shift(const char *s) { return (double)unit(tcu_get_u64, s, 0, 31); }
static double parse_bytes(const char *s) { return (double)unit(tcu_get_size, s, 1, UINT32_MAX); }
static double parse_time(const char *s) { return unit(tcu_get_time, s, 1000, ALL) * 1e-9; }

static void sweep(const struct config *cfg, int param, const double *v, int nv)
{
	static const char *const head[] = { "gd", "r_ai_mbps", "tai_kb", "timer_ms" };
	struct qm_params m = cfg->m;
	int i;

	if (param == SW_TIMER)
		m.mode = QM_TIMER;
	printf("%s,conv_s,status\n", head[param]);
	for (i = 0; i < nv; i++) {
		switch (param) {
		case SW_GD:
			m.gd = ldexp(1.0, -(int)v[i]);
			printf("%.8g", m.gd);
			break;
		case SW_AI:
			m.r_ai = v[i];
			printf("%.8g", v[i] / 1e6);
			break;
		case SW_TAI:
			m.tai = 8 * v[i];
			printf("%.8g", v[i] / 1e3);
			break;
		default:
			m.timer = v[i];
			printf("%.8g", v[i] * 1e3);
		}
		print_conv(cfg, &m, cfg->rates, cfg->nrates);
	}
}

static void cmd_sweep(const struct config *cfg, const char *param, const char *list)
{
	static double (*const conv[])(const char *) = {
		parse_gd_shift, parse_rate, parse_bytes, parse_time
	};
	double v[MAX_SWEEP];
	int p, nv;

	for (p = 0; p < 4 && strcmp(param, sweep_name[p]); p++)
		;
	if (p == 4)
		die("sweep parameter", param);
	opt_name = param;
	nv = parse_list(list, v, MAX_SWEEP, conv[p]);
	sweep(cfg, p, v, nv);
}

static void cmd_ede(const struct config *cfg)
{
	struct qm_params m = cfg->m;
	double pfb = -1, p;
	int i, e;

	if (qm_solve_pfb(&m, cfg->rates, cfg->nrates, &pfb))
		pfb = NAN;
	printf("flow,r_mbps,p_fb,p,ede_full,ede_23,ede_24,ede_25\n");
	for (i = 0; i < cfg->nrates; i++) {
		p = qm_p(&m, pfb, cfg->rates[i]);
		printf("%d,%.4f,%.6f,%.6f", i + 1, cfg->rates[i] / 1e6, pfb, p);
		for (e = QM_EQ_FULL; e <= QM_EQ_25; e++) {
			m.eq = e;
			printf(",%.6e", qm_ede(&m, cfg->rates[i], p) / 1e6);
		}
		printf("\n");
	}
}

/*
 * fluid: eqs. (9)-(13) from every source at the line rate, a row every
 * --step.  The shared options (-l, --gd, --ai-rate, --byte-reset,
 * --interval, --threshold) carry over from the convergence model's.
 */
static int cmd_fluid(struct config *cfg)
{
	struct qf_params *f = &cfg->f;
	struct qf_sim s;
	double next = 0, t, tmax = cfg->tmax_set ? cfg->tmax : 1;
	double step = cfg->step_set ? cfg->step : 1e-3;
	int i;

	f->c = cfg->link_set ? cfg->m.c : 10e9;
	f->line = f->c;
	f->gd = cfg->m.gd;
	f->r_ai = cfg->ai_set ? cfg->m.r_ai : qm_default_ai_rate(f->c);
	f->bc = cfg->m.bc / 8;
	f->interval = (u32)(cfg->m.s / 8);
	f->threshold = cfg->m.threshold;
	if (f->interval < QCN_CP_MIN_INTERVAL)
		die("--interval (at least 10000 bytes in the fluid model)", "fluid");
	if (f->tau > 0 && f->h > f->tau)
		die("--dt (at most --rtt)", "fluid");
	if (qf_init(&s, f, f->line)) {
		fprintf(stderr, "qcn-model: out of memory for a %g s delay at a %g s step\n",
			f->tau, f->h);
		return 1;
	}
	printf("t_s,q_bytes,p,fb_bytes");
	for (i = 0; i < f->n; i++)
		printf(",cr%d_mbps", i + 1);
	for (i = 0; i < f->n; i++)
		printf(",tr%d_mbps", i + 1);
	printf("\n");
	for (;;) {
		t = qf_time(&s);
		if (t + f->h / 2 >= next) {
			printf("%.6f,%.1f,%.6f,%.1f", t, QF_Q(f, s.x), QF_P(f, s.x),
			       qf_fb_of(f, s.x));
			for (i = 0; i < 2 * f->n; i++)
				printf(",%.4f", s.x[(i + f->n) % (2 * f->n)] / 1e6);
			printf("\n");
			next += step;
		}
		if (t + f->h / 2 >= tmax)
			break;
		qf_step(&s);
	}
	qf_free(&s);
	return 0;
}

/* fig N: the paper's figure N's setting, then its command */
static int cmd_fig(struct config *cfg, const char *arg)
{
	static const double gd[] = { 4, 6, 7, 8 }, ai[] = { 0.5e6, 1e6, 5e6 },
		tai[] = { 37500, 75000, 150000 }, timer[] = { 15e-3, 10e-3, 2.4e-3 },
		ai11[] = { 0.5e6, 5e6 };
	int fig;

	opt_name = "figure";
	fig = (int)unit(tcu_get_u64, arg, 3, 11);
	switch (fig) {
	case 3:
		cmd_pfb(cfg);
		return 0;
	case 4:
		cmd_convtime(cfg, true);
		return 0;
	case 5:
	case 6:
		cfg->rates[0] = (fig == 5 ? 0.9 : 0.7) * cfg->m.c;
		cfg->rates[1] = cfg->m.c - cfg->rates[0];
		cfg->nrates = 2;
		if (!cfg->tmax_set)
			cfg->tmax = 20;
		return cmd_evolve(cfg);
	case 7:
		sweep(cfg, SW_GD, gd, 4);
		return 0;
	case 8:
		sweep(cfg, SW_AI, ai, 3);
		return 0;
	case 9:
		sweep(cfg, SW_TAI, tai, 3);
		return 0;
	case 10:
		sweep(cfg, SW_TIMER, timer, 3);
		return 0;
	default:
		cfg->m.mode = QM_AIMD;
		sweep(cfg, SW_AI, ai11, 2);
		return 0;
	}
}

int main(int argc, char **argv)
{
	struct config cfg = { .tmax = 60, .step = 0.1, .eps = 0.9 };
	const char *cmd;
	int opt, nargs;

	qm_params_default(&cfg.m);
	qf_params_default(&cfg.f);
	while ((opt = getopt_long(argc, argv, "l:t:i:n:h", opts, NULL)) != -1) {
		static char name[32];
		int li;

		for (li = 0; opts[li].name && opts[li].val != opt; li++)
			;
		snprintf(name, sizeof(name), "--%s", opts[li].name ? opts[li].name : "?");
		opt_name = name;
		if (opt == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		parse_option(&cfg, opt, optarg);
	}
	if (!cfg.ai_set)
		cfg.m.r_ai = qm_default_ai_rate(cfg.m.c);
	if (!cfg.tai_set)
		cfg.m.tai = cfg.m.bc / 2;
	set_rates(&cfg);
	if (optind >= argc)
		die("command", "");
	cmd = argv[optind++];
	nargs = argc - optind;
	if (!strcmp(cmd, "sweep") && nargs == 2) {
		cmd_sweep(&cfg, argv[optind], argv[optind + 1]);
		return 0;
	}
	if (!strcmp(cmd, "fig") && nargs == 1)
		return cmd_fig(&cfg, argv[optind]);
	if (nargs)
		die("argument", argv[optind]);
	if (!strcmp(cmd, "fluid"))
		return cmd_fluid(&cfg);
	if (!strcmp(cmd, "pfb"))
		cmd_pfb(&cfg);
	else if (!strcmp(cmd, "convtime"))
		cmd_convtime(&cfg, false);
	else if (!strcmp(cmd, "evolve"))
		return cmd_evolve(&cfg);
	else if (!strcmp(cmd, "ede"))
		cmd_ede(&cfg);
	else
		die("command", cmd);
	return 0;
}
