// SPDX-License-Identifier: GPL-2.0
/*
 * q_qcn_rp.c	tc plugin for the "qcn_rp" qdisc (QCN reaction point):
 *		options with dcbnl's struct ieee_qcn names, xstats, and the
 *		limiters shown as classes.
 */
#include "tc_plugin.h"
#include "qcn_flow.h"
#include <uapi/linux/qcn.h>
#include <qcn/qcn_rp.h>
#include <qcn/qcn_cp.h>

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... qcn_rp [ maxrate|max-rate RATE ] [ min-rate RATE ]\n"
		"                  [ start-rate RATE ]\n"
		"                  [ gd N ] [ min-dec PERCENT ]\n"
		"                  [ ai-rate RATE ] [ hai-rate RATE ]\n"
		"                  [ byte-reset BYTES ] [ time-reset TIME ] [ threshold N ]\n"
		"                  [ mode qcn|qcn-t|n-aimd|ap-n-aimd|qcn-aimd ]\n"
		"                  [ qcnt-period TIME ]\n"
		"                  [ jitter on|off ] [ limiters N ] [ flow l4|l3|dst-mac ]\n"
		"                  [ limit BYTES ] [ flow_limit PACKETS ]\n"
		"                  [ memory_limit BYTES ]\n"
		"                  [ naimd-gi FRAC ] [ naimd-ru RATE ] [ naimd-gd FRAC ]\n"
		"                  [ fb-unit BYTES ] [ ap-packets N ] [ w W ]\n"
		"                  [ pfc | nopfc ]\n");
}

static const char * const rp_mode_names[] = {
	[TC_QCN_RP_MODE_QCN]		= "qcn",
	[TC_QCN_RP_MODE_QCNT]		= "qcn-t",
	[TC_QCN_RP_MODE_NAIMD]		= "n-aimd",
	[TC_QCN_RP_MODE_AP_NAIMD]	= "ap-n-aimd",
	[TC_QCN_RP_MODE_AIMD]		= "qcn-aimd",
};

static const char * const rp_flow_names[] = {
	[TC_QCN_RP_FLOW_L4]	 = "l4",
	[TC_QCN_RP_FLOW_L3]	 = "l3",
	[TC_QCN_RP_FLOW_DST_MAC] = "dst-mac",
};

static const char * const rp_state_names[] = {
	[TC_QCN_RP_STATE_FR]	   = "fr",
	[TC_QCN_RP_STATE_AI]	   = "ai",
	[TC_QCN_RP_STATE_HAI]	   = "hai",
	[TC_QCN_RP_STATE_RELEASED] = "released",
};

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char * const rp_opts[] = {
	"maxrate", "max-rate", "gd", "ai-rate", "hai-rate", "byte-reset",
	"time-reset", "threshold", "min-rate", "min-dec", "mode", "qcnt-period",
	"limiters", "flow", "limit", "jitter", "flow_limit", "memory_limit",
	"naimd-gi", "naimd-ru", "naimd-gd", "fb-unit", "ap-packets", "w",
	"start-rate", NULL
};

static int rp_bad(const char *what, const char *arg)
{
	return tcq_bad("qcn_rp", what, arg);
}

static int rp_rate_opt(struct nlmsghdr *n, int type, const char *what,
		       const char *arg, __u64 min)
{
	__u64 rate;

	if (tcq_get_rate(&rate, "qcn_rp", what, arg, min, TC_QCN_RP_MAX_RATE))
		return -1;
	addattr64(n, TCQ_REQ_MAXLEN, type, rate);
	return 0;
}

static int rp_time_opt(struct nlmsghdr *n, int type, const char *what,
		       const char *arg)
{
	__u64 us;

	if (tcq_get_time(&us, "qcn_rp", what, arg, TC_QCN_RP_MIN_TIME,
			 TC_QCN_RP_MAX_TIME))
		return -1;
	addattr32(n, TCQ_REQ_MAXLEN, type, us);
	return 0;
}

static int rp_size_opt(struct nlmsghdr *n, int type, const char *what,
		       const char *arg, __u32 min, __u32 max)
{
	__u64 size;

	if (tcq_get_size(&size, "qcn_rp", what, arg, min, max))
		return -1;
	addattr32(n, TCQ_REQ_MAXLEN, type, size);
	return 0;
}

/* an N-AIMD gain: a decimal 0 .. 1, sent in parts per 10^9 */
static int rp_gain_opt(struct nlmsghdr *n, int type, const char *what,
		       const char *arg)
{
	__u32 v;
	int rc = tcu_get_ppb(&v, arg);

	if (rc == -1)
		return rp_bad(what, arg);
	if (rc || v > TC_QCN_RP_MAX_GAIN)
		return tcq_range("qcn_rp", what, arg, "0", "1");
	addattr32(n, TCQ_REQ_MAXLEN, type, v);
	return 0;
}

static int rp_uint_opt(struct nlmsghdr *n, int type, const char *what,
		       const char *arg, __u32 min, __u32 max)
{
	__u32 v;

	if (tcq_get_uint(&v, "qcn_rp", what, arg, min, max))
		return -1;
	addattr32(n, TCQ_REQ_MAXLEN, type, v);
	return 0;
}

static int rp_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			struct nlmsghdr *n, const char *dev)
{
	struct rtattr *tail;
	int v, err = 0, pfc = -1;

	(void)qu;
	(void)dev;

	tail = addattr_nest(n, TCQ_REQ_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	for (; argc > 0 && !err; argc--, argv++) {
		const char *opt = *argv;

		if (strcmp(opt, "help") == 0) {
			explain();
			return -1;
		}
		/* the flags, which take no value */
		if (strcmp(opt, "pfc") == 0 || strcmp(opt, "nopfc") == 0) {
			if (pfc >= 0 && pfc != (opt[0] == 'p')) {
				fprintf(stderr, "qcn_rp: \"pfc\" and \"nopfc\" exclude each other\n");
				return -1;
			}
			pfc = opt[0] == 'p';
			continue;
		}
		if (tcq_check_opt("qcn_rp", rp_opts, argc, opt)) {
			explain();
			return -1;
		}
		argc--;
		argv++;
		if (strcmp(opt, "maxrate") == 0 || strcmp(opt, "max-rate") == 0)
			err = rp_rate_opt(n, TCA_QCN_RP_MAX_RATE, opt, *argv, 1);
		else if (strcmp(opt, "ai-rate") == 0)
			err = rp_rate_opt(n, TCA_QCN_RP_AI_RATE, opt, *argv, 0);
		else if (strcmp(opt, "hai-rate") == 0)
			err = rp_rate_opt(n, TCA_QCN_RP_HAI_RATE, opt, *argv, 0);
		else if (strcmp(opt, "min-rate") == 0)
			err = rp_rate_opt(n, TCA_QCN_RP_MIN_RATE, opt, *argv, 1);
		else if (strcmp(opt, "start-rate") == 0)	/* 0: off */
			err = rp_rate_opt(n, TCA_QCN_RP_START_RATE, opt, *argv, 0);
		else if (strcmp(opt, "gd") == 0)
			err = rp_uint_opt(n, TCA_QCN_RP_GD, opt, *argv, 0,
					  QCN_RP_MAX_GD_SHIFT);
		else if (strcmp(opt, "threshold") == 0)
			err = rp_uint_opt(n, TCA_QCN_RP_THRESHOLD, opt, *argv, 1,
					  TC_QCN_RP_MAX_THRESHOLD);
		else if (strcmp(opt, "min-dec") == 0)
			err = rp_uint_opt(n, TCA_QCN_RP_MIN_DEC, opt, *argv, 0,
					  TC_QCN_RP_MAX_MIN_DEC);
		else if (strcmp(opt, "limiters") == 0)
			err = rp_uint_opt(n, TCA_QCN_RP_LIMITERS, opt, *argv, 1,
					  TC_QCN_RP_MAX_LIMITERS);
		else if (strcmp(opt, "time-reset") == 0)
			err = rp_time_opt(n, TCA_QCN_RP_TIME_RESET, opt, *argv);
		else if (strcmp(opt, "qcnt-period") == 0)
			err = rp_time_opt(n, TCA_QCN_RP_QCNT_PERIOD, opt, *argv);
		else if (strcmp(opt, "byte-reset") == 0)
			err = rp_size_opt(n, TCA_QCN_RP_BYTE_RESET, opt, *argv,
					  TC_QCN_RP_MIN_BYTE_RESET, UINT32_MAX);
		else if (strcmp(opt, "limit") == 0)
			err = rp_size_opt(n, TCA_QCN_RP_LIMIT, opt, *argv, 1,
					  TC_QCN_RP_MAX_LIMIT);
		else if (strcmp(opt, "flow_limit") == 0)
			err = rp_uint_opt(n, TCA_QCN_RP_FLOW_LIMIT, opt, *argv, 1,
					  UINT32_MAX);
		else if (strcmp(opt, "memory_limit") == 0)
			err = rp_size_opt(n, TCA_QCN_RP_MEMORY_LIMIT, opt, *argv, 1,
					  1U << 31);
		else if (strcmp(opt, "naimd-gi") == 0)
			err = rp_gain_opt(n, TCA_QCN_RP_NAIMD_GI, opt, *argv);
		else if (strcmp(opt, "naimd-gd") == 0)
			err = rp_gain_opt(n, TCA_QCN_RP_NAIMD_GD, opt, *argv);
		else if (strcmp(opt, "naimd-ru") == 0)
			err = rp_rate_opt(n, TCA_QCN_RP_NAIMD_RU, opt, *argv, 0);
		else if (strcmp(opt, "fb-unit") == 0)
			err = rp_size_opt(n, TCA_QCN_RP_FB_UNIT, opt, *argv, 1,
					  TC_QCN_RP_MAX_FB_UNIT);
		else if (strcmp(opt, "ap-packets") == 0)
			err = rp_uint_opt(n, TCA_QCN_RP_AP_PKTS, opt, *argv, 1,
					  TC_QCN_RP_MAX_AP_PKTS);
		else if (strcmp(opt, "mode") == 0 || strcmp(opt, "flow") == 0) {
			bool mode = opt[0] == 'm';

			v = mode ? tcq_lookup(rp_mode_names, ARRAY_LEN(rp_mode_names), *argv) :
				   tcq_lookup(rp_flow_names, ARRAY_LEN(rp_flow_names), *argv);
			if (v < 0)
				return rp_bad(opt, *argv);
			addattr8(n, TCQ_REQ_MAXLEN, mode ? TCA_QCN_RP_MODE : TCA_QCN_RP_FLOW, v);
		} else if (strcmp(opt, "jitter") == 0) {
			if (strcmp(*argv, "on") && strcmp(*argv, "off"))
				return rp_bad(opt, *argv);
			addattr8(n, TCQ_REQ_MAXLEN, TCA_QCN_RP_JITTER,
				 strcmp(*argv, "on") == 0);
		} else if (strcmp(opt, "w") == 0) {
			__s32 w_exp;

			err = tcq_get_pow2(&w_exp, "qcn_rp", opt, *argv,
					   QCN_CP_W_EXP_MIN, QCN_CP_W_EXP_MAX);
			if (!err)
				addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_RP_W_EXP, (__u32)w_exp);
		}
	}
	if (err)
		return -1;
	if (pfc >= 0)
		addattr8(n, TCQ_REQ_MAXLEN, TCA_QCN_RP_PFC, pfc);
	addattr_nest_end(n, tail);
	return 0;
}

static void rp_print_name(const char *key, const char * const *names, int n,
			  unsigned int v)
{
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "%s %%s ", key);
	tcq_print_string(key, fmt, (int)v < n && names[v] ? names[v] : "?");
}

/*
 * An N-AIMD gain in parts per 10^9: text the exact decimal ("0.53333"),
 * JSON the fraction (key, a float as alpha's in qcn) and the attribute
 * itself (key_ppb, exact).
 */
static void rp_print_gain(const char *key, const char *key_ppb,
			  const char *fmt, __u32 ppb)
{
	char buf[32];
	size_t i;

	snprintf(buf, sizeof(buf), "%u.%09u", ppb / TC_QCN_AP_ONE,
		 ppb % TC_QCN_AP_ONE);
	for (i = strlen(buf) - 1; buf[i] == '0'; i--)
		buf[i] = '\0';
	if (buf[i] == '.')
		buf[i] = '\0';
	print_color_float(PRINT_JSON, COLOR_NONE, key, NULL,
			  (double)ppb / TC_QCN_AP_ONE);
	print_color_uint(PRINT_JSON, COLOR_NONE, key_ppb, NULL, ppb);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt, buf);
}

static int rp_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_QCN_RP_MAX + 1];

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_QCN_RP_MAX, opt);
/* JSON keys with '_' as the built-in qdiscs', text as the options */
#define RATE(a, key, opt) \
	do { if (rta_ok_len(tb[a], 8)) tcq_print_rate(key, opt " %s ", rta_u64(tb[a])); } while (0)
#define U32(a, key, opt) \
	do { if (rta_ok_len(tb[a], 4)) tcq_print_uint(key, opt " %u ", rta_u32(tb[a])); } while (0)
#define TIME(a, key, opt) \
	do { if (rta_ok_len(tb[a], 4)) tcq_print_time(key, opt " %s ", rta_u32(tb[a])); } while (0)
	if (rta_ok_len(tb[TCA_QCN_RP_MODE], 1))
		rp_print_name("mode", rp_mode_names, ARRAY_LEN(rp_mode_names),
			      rta_u8(tb[TCA_QCN_RP_MODE]));
	RATE(TCA_QCN_RP_MAX_RATE, "maxrate", "maxrate");
	U32(TCA_QCN_RP_GD, "gd", "gd");
	RATE(TCA_QCN_RP_AI_RATE, "ai_rate", "ai-rate");
	RATE(TCA_QCN_RP_HAI_RATE, "hai_rate", "hai-rate");
	if (rta_ok_len(tb[TCA_QCN_RP_BYTE_RESET], 4))
		tcq_print_size("byte_reset", "byte-reset %s ", rta_u32(tb[TCA_QCN_RP_BYTE_RESET]));
	TIME(TCA_QCN_RP_TIME_RESET, "time_reset", "time-reset");
	U32(TCA_QCN_RP_THRESHOLD, "threshold", "threshold");
	RATE(TCA_QCN_RP_MIN_RATE, "min_rate", "min-rate");
	U32(TCA_QCN_RP_MIN_DEC, "min_dec", "min-dec");
	TIME(TCA_QCN_RP_QCNT_PERIOD, "qcnt_period", "qcnt-period");
	U32(TCA_QCN_RP_LIMITERS, "limiters", "limiters");
	if (rta_ok_len(tb[TCA_QCN_RP_FLOW], 1))
		rp_print_name("flow", rp_flow_names, ARRAY_LEN(rp_flow_names),
			      rta_u8(tb[TCA_QCN_RP_FLOW]));
	if (rta_ok_len(tb[TCA_QCN_RP_LIMIT], 4))
		tcq_print_size("limit", "limit %s ", rta_u32(tb[TCA_QCN_RP_LIMIT]));
	if (rta_ok_len(tb[TCA_QCN_RP_JITTER], 1))
		tcq_print_string("jitter", "jitter %s ",
				 rta_u8(tb[TCA_QCN_RP_JITTER]) ? "on" : "off");
	U32(TCA_QCN_RP_FLOW_LIMIT, "flow_limit", "flow_limit");
	if (rta_ok_len(tb[TCA_QCN_RP_MEMORY_LIMIT], 4))
		tcq_print_size("memory_limit", "memory_limit %s ",
			       rta_u32(tb[TCA_QCN_RP_MEMORY_LIMIT]));
	/* N-AIMD, AP-N-AIMD: absent from a module older than this plugin */
	if (rta_ok_len(tb[TCA_QCN_RP_NAIMD_GI], 4))
		rp_print_gain("naimd_gi", "naimd_gi_ppb", "naimd-gi %s ",
			      rta_u32(tb[TCA_QCN_RP_NAIMD_GI]));
	RATE(TCA_QCN_RP_NAIMD_RU, "naimd_ru", "naimd-ru");
	if (rta_ok_len(tb[TCA_QCN_RP_NAIMD_GD], 4))
		rp_print_gain("naimd_gd", "naimd_gd_ppb", "naimd-gd %s ",
			      rta_u32(tb[TCA_QCN_RP_NAIMD_GD]));
	if (rta_ok_len(tb[TCA_QCN_RP_FB_UNIT], 4))
		tcq_print_size("fb_unit", "fb-unit %s ", rta_u32(tb[TCA_QCN_RP_FB_UNIT]));
	U32(TCA_QCN_RP_AP_PKTS, "ap_packets", "ap-packets");
	if (rta_ok_len(tb[TCA_QCN_RP_W_EXP], 4))
		tcq_print_pow2("w", "w_exp", "w %g ", rta_s32(tb[TCA_QCN_RP_W_EXP]));
	/*
	 * start-rate: 0 is off, in JSON only (start_rate 0); absent from a
	 * module older than this plugin
	 */
	if (rta_ok_len(tb[TCA_QCN_RP_START_RATE], 8)) {
		__u64 start = rta_u64(tb[TCA_QCN_RP_START_RATE]);

		print_color_rate(use_iec, start ? PRINT_ANY : PRINT_JSON, COLOR_NONE,
				 "start_rate", "start-rate %s ", start);
	}
	/* pfc: absent from a module older than this plugin */
	if (rta_ok_len(tb[TCA_QCN_RP_PFC], 1)) {
		bool pfc = rta_u8(tb[TCA_QCN_RP_PFC]);

		print_color_bool(PRINT_JSON, COLOR_NONE, "pfc", NULL, pfc);
		tcq_print_fp("%s", pfc ? "pfc " : "nopfc ");
	}
#undef RATE
#undef U32
#undef TIME
	return 0;
}

static int rp_print_xstats(struct qdisc_util *qu, FILE *f,
			   struct rtattr *xstats)
{
	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	if (RTA_PAYLOAD(xstats) == sizeof(struct tc_qcn_rp_class_xstats)) {
		const struct tc_qcn_rp_class_xstats *c = RTA_DATA(xstats);

		char flow[QCN_FLOW_STRLEN];

		tcq_print_string("flow", " flow %s", qcn_flow_str(flow, sizeof(flow), &c->key));
		print_nl();
		tcq_print_rate("cr", "  cr %s", c->cr);
		tcq_print_rate("tr", " tr %s", c->tr);
		tcq_print_string("state", " state %s ", c->state < ARRAY_LEN(rp_state_names) ?
				 rp_state_names[c->state] : "?");
		tcq_print_uint("bc_stage", "bc_stage %u", c->bc_stage);
		tcq_print_uint("timer_stage", " timer_stage %u", c->timer_stage);
		tcq_print_u64("cnm_rx", " cnm_rx %llu", (unsigned long long)c->cnm_rx);
		tcq_print_u64("bytes_sent", " bytes_sent %llu",
			      (unsigned long long)c->bytes_sent);
		tcq_print_uint("backlog", " backlog %u", c->backlog);
		return 0;
	}
	/* a module older than this plugin sends no gso_split */
	if (RTA_PAYLOAD(xstats) < (int)offsetof(struct tc_qcn_rp_xstats, gso_split))
		return -1;
	{
		struct tc_qcn_rp_xstats st = {}, *s = &st;

		memcpy(&st, RTA_DATA(xstats),
		       MIN((size_t)RTA_PAYLOAD(xstats), sizeof(st)));

		tcq_print_u64("cnm_rx", "  cnm_rx %llu", (unsigned long long)s->cnm_rx);
		tcq_print_u64("cnm_matched", " matched %llu",
			      (unsigned long long)s->cnm_matched);
		tcq_print_u64("cnm_unmatched", " unmatched %llu",
			      (unsigned long long)s->cnm_unmatched);
		tcq_print_u64("cnm_malformed", " malformed %llu",
			      (unsigned long long)s->cnm_malformed);
		print_nl();
		tcq_print_uint("limiters_active", "  limiters active %u",
			       s->limiters_active);
		tcq_print_u64("limiters_created", " created %llu",
			      (unsigned long long)s->limiters_created);
		tcq_print_u64("limiters_released", " released %llu",
			      (unsigned long long)s->limiters_released);
		tcq_print_u64("limiters_refused", " refused %llu",
			      (unsigned long long)s->limiters_refused);
		/* a module older than this plugin does not age limiters */
		if (RTA_PAYLOAD(xstats) >= (int)(offsetof(struct tc_qcn_rp_xstats,
							   limiters_aged) +
						  sizeof(s->limiters_aged)))
			tcq_print_u64("limiters_aged", " aged %llu",
				      (unsigned long long)s->limiters_aged);
		/* nor install limiters at start-rate */
		if (RTA_PAYLOAD(xstats) >= (int)(offsetof(struct tc_qcn_rp_xstats,
							   limiters_started) +
						  sizeof(s->limiters_started)))
			tcq_print_u64("limiters_started", " started %llu",
				      (unsigned long long)s->limiters_started);
		print_nl();
		tcq_print_uint("flows", "  flows %u", s->flows);
		tcq_print_u64("throttled", " throttled %llu",
			      (unsigned long long)s->throttled);
		tcq_print_u64("limit_drops", " limit_drops %llu",
			      (unsigned long long)s->drops);
		tcq_print_u64("gso_split", " gso_split %llu",
			      (unsigned long long)s->gso_split);
		print_nl();
		tcq_print_u64("cnm_not_host", "  cnm not_host %llu",
			      (unsigned long long)s->cnm_not_host);
		tcq_print_u64("cnm_qfb0", " qfb0 %llu",
			      (unsigned long long)s->cnm_qfb0);
		print_nl();
		tcq_print_u64("flow_limit_drops", "  flow_limit_drops %llu",
			      (unsigned long long)s->flow_limit_drops);
		tcq_print_u64("memory_drops", " memory_drops %llu",
			      (unsigned long long)s->memory_drops);
		tcq_print_uint("memory_usage", " memory_usage %u", s->memory_usage);
		/* N-AIMD counters: only from a module that has them */
		if (RTA_PAYLOAD(xstats) >= (int)(offsetof(struct tc_qcn_rp_xstats, ap_steps) +
						  sizeof(s->ap_steps))) {
			print_nl();
			tcq_print_u64("cnm_positive", "  cnm_positive %llu",
				      (unsigned long long)s->cnm_positive);
			tcq_print_u64("ap_steps", " ap_steps %llu",
				      (unsigned long long)s->ap_steps);
		}
		/* PFC reception, from a module that has it, once it has counted */
		if (RTA_PAYLOAD(xstats) >= (int)(offsetof(struct tc_qcn_rp_xstats,
							   pfc_paused_ns) +
						  sizeof(s->pfc_paused_ns)))
			tcq_print_pfc_rx(s->pfc_rx, s->pfc_rx_xon, s->pfc_rx_ignored,
					 s->pfc_paused_ns, TC_QCN_PFC_PRIOS);
	}
	return 0;
}

static int rp_print_copt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	(void)qu;
	(void)f;
	(void)opt;
	return 0;
}

struct qdisc_util qcn_rp_qdisc_util = {
	.id		= "qcn_rp",
	.parse_qopt	= rp_parse_opt,
	.print_qopt	= rp_print_opt,
	.print_xstats	= rp_print_xstats,
	.print_copt	= rp_print_copt,
};
