// SPDX-License-Identifier: GPL-2.0
/*
 * q_qcn.c	tc plugin for the "qcn" qdisc (IEEE 802.1Qau congestion point)
 *		and its AF-QCN classes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tc_plugin.h"
#include <uapi/linux/qcn.h>
#include <qcn/qcn_cp.h>

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... qcn [ limit BYTES ] [ memory_limit BYTES ] [ rate RATE ]\n"
		"               [ sched fifo|drr ] [ qeq BYTES ] [ w W ] [ interval BYTES ]\n"
		"               [ sample arrival|occupancy|two-samples ]\n"
		"               [ keepalive TIME|off ] [ cpid N ]\n"
		"               [ af on|off ] [ alpha FRAC ] [ ts TIME ] [ beta FRAC ]\n"
		"               [ active BYTES ] [ af-fb clamp|signed ]\n"
		"               [ feedback qcn|signed ] [ fb-period N ]\n"
		"               [ fabric ID ]\n"
		"               [ pfc-xoff BYTES ] [ pfc-xon BYTES ] [ pfc-quanta N ]\n"
		"               [ pfc | nopfc ] [ cp output|input|both|none ]\n");
}

static void explain_class(void)
{
	fprintf(stderr, "Usage: ... qcn [ weight N ] [ maxrate RATE ]\n");
}

static const char * const qcn_sample_names[] = {
	[TC_QCN_SAMPLE_ARRIVAL]		= "arrival",
	[TC_QCN_SAMPLE_OCCUPANCY]	= "occupancy",
	[TC_QCN_SAMPLE_TWO]		= "two-samples",
};

static const char * const qcn_cp_names[] = {
	[TC_QCN_CP_OUTPUT]	= "output",
	[TC_QCN_CP_INPUT]	= "input",
	[TC_QCN_CP_BOTH]	= "both",
	[TC_QCN_CP_NONE]	= "none",
};

static const char * const qcn_sched_names[] = {
	[TC_QCN_SCHED_FIFO]	= "fifo",
	[TC_QCN_SCHED_DRR]	= "drr",
};

static const char * const qcn_feedback_names[] = {
	[TC_QCN_FEEDBACK_QCN]		= "qcn",
	[TC_QCN_FEEDBACK_SIGNED]	= "signed",
};

static const char * const qcn_af_fb_names[] = {
	[TC_QCN_AF_FB_CLAMP]	= "clamp",
	[TC_QCN_AF_FB_SIGNED]	= "signed",
};

static int bad(const char *what, const char *arg)
{
	return tcq_bad("qcn", what, arg);
}

static const char * const qcn_opts[] = {
	"limit", "memory_limit", "rate", "sched", "qeq", "w", "interval", "sample",
	"keepalive", "cpid", "af", "alpha", "ts", "beta", "active", "feedback",
	"fb-period", "af-fb", "fabric", "pfc-xoff", "pfc-xon", "pfc-quanta", "cp",
	NULL
};

static const char * const qcn_class_opts[] = { "weight", "maxrate", NULL };

static int qcn_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			 struct nlmsghdr *n, const char *dev)
{
	struct rtattr *tail;
	__u64 limit = 0, qeq = 0, interval = 0, keepalive = 0, ts = 0, active = 0;
	__u32 cpid = 0, alpha = 0, beta = 0;
	__u64 memory_limit = 0;
	bool has_memory_limit = false;
	bool has_limit = false, has_qeq = false, has_interval = false;
	bool has_keepalive = false, has_cpid = false, has_rate = false;
	bool has_w = false, has_active = false, has_fb_period = false;
	bool has_fabric = false, has_pfc_xoff = false, has_pfc_xon = false;
	__u64 pfc_xoff = 0, pfc_xon = 0;
	__u32 fabric = 0, pfc_quanta = 0;
	int sched = -1, sample = -1, af = -1, feedback = -1, af_fb = -1;
	int pfc = -1, cp = -1;
	__u32 fb_period = 0;
	__u64 rate = 0;
	__s32 w_exp = 0;

	(void)qu;
	(void)dev;
	while (argc > 0) {
		const char *opt = *argv;
		__u32 v;
		int rc;

		if (strcmp(opt, "help") == 0) {
			explain();
			return -1;
		}
		/* the flags, which take no value */
		if (strcmp(opt, "pfc") == 0 || strcmp(opt, "nopfc") == 0) {
			if (pfc >= 0 && pfc != (opt[0] == 'p')) {
				fprintf(stderr, "qcn: \"pfc\" and \"nopfc\" exclude each other\n");
				return -1;
			}
			pfc = opt[0] == 'p';
			argc--;
			argv++;
			continue;
		}
		if (tcq_check_opt("qcn", qcn_opts, argc, opt)) {
			explain();
			return -1;
		}
		argc--;
		argv++;
		if (strcmp(opt, "limit") == 0) {
			if (tcq_get_size(&limit, "qcn", opt, *argv, 1, TC_QCN_MAX_SIZE))
				return -1;
			has_limit = true;
		} else if (strcmp(opt, "memory_limit") == 0) {
			if (tcq_get_size(&memory_limit, "qcn", opt, *argv, 1, TC_QCN_MAX_SIZE))
				return bad(opt, *argv);
			has_memory_limit = true;
		} else if (strcmp(opt, "rate") == 0) {
			if (tcq_get_rate(&rate, "qcn", opt, *argv, 0, TC_QCN_MAX_RATE))
				return -1;
			has_rate = true;
		} else if (strcmp(opt, "sched") == 0) {
			sched = tcq_lookup(qcn_sched_names, 2, *argv);
			if (sched < 0)
				return bad(opt, *argv);
		} else if (strcmp(opt, "qeq") == 0) {
			if (tcq_get_size(&qeq, "qcn", opt, *argv, 1, TC_QCN_MAX_SIZE))
				return -1;
			has_qeq = true;
		} else if (strcmp(opt, "w") == 0) {
			if (tcq_get_pow2(&w_exp, "qcn", opt, *argv, QCN_CP_W_EXP_MIN,
					 QCN_CP_W_EXP_MAX))
				return -1;
			has_w = true;
		} else if (strcmp(opt, "interval") == 0) {
			if (tcq_get_size(&interval, "qcn", opt, *argv,
					 QCN_CP_MIN_INTERVAL, TC_QCN_MAX_SIZE))
				return -1;
			has_interval = true;
		} else if (strcmp(opt, "sample") == 0) {
			sample = tcq_lookup(qcn_sample_names, 3, *argv);
			if (sample < 0)
				return bad(opt, *argv);
		} else if (strcmp(opt, "cp") == 0) {
			cp = tcq_lookup(qcn_cp_names, 4, *argv);
			if (cp < 0)
				return bad(opt, *argv);
		} else if (strcmp(opt, "keepalive") == 0) {
			if (strcmp(*argv, "off") == 0)
				keepalive = 0;
			else if (tcq_get_time(&keepalive, "qcn", opt, *argv, 0,
					      TC_QCN_MAX_KEEPALIVE))
				return -1;
			if (keepalive && keepalive < TC_QCN_MIN_KEEPALIVE)
				return tcq_range("qcn", opt, *argv, "100us (or 0: off)", "10s");
			has_keepalive = true;
		} else if (strcmp(opt, "cpid") == 0) {
			if (tcq_get_uint(&cpid, "qcn", opt, *argv, 0, 0xffff))
				return -1;
			has_cpid = true;
		} else if (strcmp(opt, "af") == 0) {
			if (strcmp(*argv, "on") == 0)
				af = 1;
			else if (strcmp(*argv, "off") == 0)
				af = 0;
			else
				return bad(opt, *argv);
		} else if (strcmp(opt, "alpha") == 0 || strcmp(opt, "beta") == 0) {
			rc = tcu_get_frac16(&v, *argv);
			if (rc == -1)
				return bad(opt, *argv);
			if (rc)
				return tcq_range("qcn", opt, *argv, "0", "1, both excluded");
			*(opt[0] == 'a' ? &alpha : &beta) = v;
		} else if (strcmp(opt, "ts") == 0) {
			if (tcq_get_time(&ts, "qcn", opt, *argv, TC_QCN_MIN_AF_TS,
					 TC_QCN_MAX_AF_TS))
				return -1;
		} else if (strcmp(opt, "active") == 0) {
			if (tcq_get_size(&active, "qcn", opt, *argv, 0, TC_QCN_MAX_SIZE))
				return -1;
			has_active = true;
		} else if (strcmp(opt, "feedback") == 0) {
			feedback = tcq_lookup(qcn_feedback_names,
					      TC_QCN_FEEDBACK_MAX + 1, *argv);
			if (feedback < 0)
				return bad(opt, *argv);
		} else if (strcmp(opt, "af-fb") == 0) {
			af_fb = tcq_lookup(qcn_af_fb_names, TC_QCN_AF_FB_MAX + 1, *argv);
			if (af_fb < 0)
				return bad(opt, *argv);
		} else if (strcmp(opt, "fb-period") == 0) {
			if (tcq_get_uint(&fb_period, "qcn", opt, *argv, 1,
					 TC_QCN_MAX_FB_PERIOD))
				return -1;
			has_fb_period = true;
		} else if (strcmp(opt, "fabric") == 0) {
			if (tcq_get_uint(&fabric, "qcn", opt, *argv, 0,
					 TC_QCN_MAX_FABRIC))
				return -1;
			has_fabric = true;
		} else if (strcmp(opt, "pfc-xoff") == 0 || strcmp(opt, "pfc-xon") == 0) {
			bool xoff = strcmp(opt, "pfc-xoff") == 0;

			if (tcq_get_size(xoff ? &pfc_xoff : &pfc_xon, "qcn", opt, *argv,
					 0, TC_QCN_MAX_SIZE))
				return -1;
			*(xoff ? &has_pfc_xoff : &has_pfc_xon) = true;
		} else if (strcmp(opt, "pfc-quanta") == 0) {
			if (tcq_get_uint(&pfc_quanta, "qcn", opt, *argv, 1,
					 TC_QCN_MAX_PFC_QUANTA))
				return -1;
		}
		argc--;
		argv++;
	}

	tail = addattr_nest(n, TCQ_REQ_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	if (has_limit)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_LIMIT, limit);
	if (has_memory_limit)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_MEMORY_LIMIT, memory_limit);
	if (has_rate)
		addattr64(n, TCQ_REQ_MAXLEN, TCA_QCN_RATE, rate);
	if (sched >= 0)
		addattr8(n, TCQ_REQ_MAXLEN, TCA_QCN_SCHED, sched);
	if (has_qeq)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_QEQ, qeq);
	if (has_w)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_W_EXP, (__u32)w_exp);
	if (has_interval)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_INTERVAL, interval);
	if (sample >= 0)
		addattr8(n, TCQ_REQ_MAXLEN, TCA_QCN_SAMPLE, sample);
	if (has_keepalive)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_KEEPALIVE, keepalive);
	if (has_cpid)
		addattr16(n, TCQ_REQ_MAXLEN, TCA_QCN_CPID, cpid);
	if (af >= 0)
		addattr8(n, TCQ_REQ_MAXLEN, TCA_QCN_AF, af);
	if (alpha)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_AF_ALPHA, alpha);
	if (ts)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_AF_TS, ts);
	if (beta)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_AF_BETA, beta);
	if (has_active)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_AF_ACTIVE, active);
	if (feedback >= 0)
		addattr8(n, TCQ_REQ_MAXLEN, TCA_QCN_FEEDBACK, feedback);
	if (has_fb_period)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_FB_PERIOD, fb_period);
	if (af_fb >= 0)
		addattr8(n, TCQ_REQ_MAXLEN, TCA_QCN_AF_FB, af_fb);
	if (has_fabric)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_FABRIC, fabric);
	if (has_pfc_xoff)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_PFC_XOFF, pfc_xoff);
	if (has_pfc_xon)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_PFC_XON, pfc_xon);
	if (pfc_quanta)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_PFC_QUANTA, pfc_quanta);
	if (pfc >= 0)
		addattr8(n, TCQ_REQ_MAXLEN, TCA_QCN_PFC, pfc);
	if (cp >= 0)
		addattr8(n, TCQ_REQ_MAXLEN, TCA_QCN_CP, cp);
	addattr_nest_end(n, tail);
	return 0;
}

static void print_frac_opt(const char *key, const char *fmt, __u32 v)
{
	print_color_float(PRINT_ANY, COLOR_NONE, key, fmt,
			  (double)v / QCN_FRAC_ONE);
}

static int qcn_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_QCN_MAX + 1];
	__u8 v;

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_QCN_MAX, opt);

	if (rta_ok_len(tb[TCA_QCN_LIMIT], 4))
		tcq_print_size("limit", "limit %s ", rta_u32(tb[TCA_QCN_LIMIT]));
	if (rta_ok_len(tb[TCA_QCN_RATE], 8))
		tcq_print_rate("rate", "rate %s ", rta_u64(tb[TCA_QCN_RATE]));
	if (rta_ok_len(tb[TCA_QCN_SCHED], 1)) {
		v = rta_u8(tb[TCA_QCN_SCHED]);
		tcq_print_string("sched", "sched %s ",
				 v <= TC_QCN_SCHED_MAX ? qcn_sched_names[v] : "unknown");
	}
	if (rta_ok_len(tb[TCA_QCN_QEQ], 4))
		tcq_print_size("qeq", "qeq %s ", rta_u32(tb[TCA_QCN_QEQ]));
	if (rta_ok_len(tb[TCA_QCN_W_EXP], 4))
		tcq_print_pow2("w", "w_exp", "w %g ", rta_s32(tb[TCA_QCN_W_EXP]));
	if (rta_ok_len(tb[TCA_QCN_INTERVAL], 4))
		tcq_print_size("interval", "interval %s ", rta_u32(tb[TCA_QCN_INTERVAL]));
	if (rta_ok_len(tb[TCA_QCN_SAMPLE], 1)) {
		v = rta_u8(tb[TCA_QCN_SAMPLE]);
		tcq_print_string("sample", "sample %s ",
				 v <= TC_QCN_SAMPLE_MAX ? qcn_sample_names[v] : "unknown");
	}
	if (rta_ok_len(tb[TCA_QCN_KEEPALIVE], 4))
		tcq_print_time("keepalive", "keepalive %s ",
			       rta_u32(tb[TCA_QCN_KEEPALIVE]));
	if (rta_ok_len(tb[TCA_QCN_CPID], 2))
		tcq_print_uint("cpid", "cpid %u ", rta_u16(tb[TCA_QCN_CPID]));
	if (rta_ok_len(tb[TCA_QCN_AF], 1))
		tcq_print_string("af", "af %s ", rta_u8(tb[TCA_QCN_AF]) ? "on" : "off");
	if (rta_ok_len(tb[TCA_QCN_AF_ALPHA], 4))
		print_frac_opt("alpha", "alpha %g ", rta_u32(tb[TCA_QCN_AF_ALPHA]));
	if (rta_ok_len(tb[TCA_QCN_AF_TS], 4))
		tcq_print_time("ts", "ts %s ", rta_u32(tb[TCA_QCN_AF_TS]));
	if (rta_ok_len(tb[TCA_QCN_AF_BETA], 4))
		print_frac_opt("beta", "beta %g ", rta_u32(tb[TCA_QCN_AF_BETA]));
	if (rta_ok_len(tb[TCA_QCN_AF_ACTIVE], 4))
		tcq_print_size("active", "active %s ", rta_u32(tb[TCA_QCN_AF_ACTIVE]));
	/* absent from a module older than this plugin */
	if (rta_ok_len(tb[TCA_QCN_AF_FB], 1)) {
		v = rta_u8(tb[TCA_QCN_AF_FB]);
		tcq_print_string("af_fb", "af-fb %s ",
				 v <= TC_QCN_AF_FB_MAX ? qcn_af_fb_names[v] : "unknown");
	}
	if (rta_ok_len(tb[TCA_QCN_MEMORY_LIMIT], 4))
		tcq_print_size("memory_limit", "memory_limit %s ",
			       rta_u32(tb[TCA_QCN_MEMORY_LIMIT]));
	/* absent from a module older than this plugin */
	if (rta_ok_len(tb[TCA_QCN_FEEDBACK], 1)) {
		v = rta_u8(tb[TCA_QCN_FEEDBACK]);
		tcq_print_string("feedback", "feedback %s ",
				 v <= TC_QCN_FEEDBACK_MAX ? qcn_feedback_names[v] : "unknown");
	}
	if (rta_ok_len(tb[TCA_QCN_FB_PERIOD], 4))
		tcq_print_uint("fb_period", "fb-period %u ", rta_u32(tb[TCA_QCN_FB_PERIOD]));
	/* absent from a module older than this plugin */
	if (rta_ok_len(tb[TCA_QCN_FABRIC], 4))
		tcq_print_uint("fabric", "fabric %u ", rta_u32(tb[TCA_QCN_FABRIC]));
	/* PFC generation, shown when on */
	if (rta_ok_len(tb[TCA_QCN_PFC_XOFF], 4) && rta_u32(tb[TCA_QCN_PFC_XOFF])) {
		tcq_print_size("pfc_xoff", "pfc-xoff %s ", rta_u32(tb[TCA_QCN_PFC_XOFF]));
		if (rta_ok_len(tb[TCA_QCN_PFC_XON], 4))
			tcq_print_size("pfc_xon", "pfc-xon %s ", rta_u32(tb[TCA_QCN_PFC_XON]));
		if (rta_ok_len(tb[TCA_QCN_PFC_QUANTA], 4))
			tcq_print_uint("pfc_quanta", "pfc-quanta %u ",
				       rta_u32(tb[TCA_QCN_PFC_QUANTA]));
	}
	/* PFC reception; absent from a module older than this plugin */
	if (rta_ok_len(tb[TCA_QCN_PFC], 1)) {
		v = rta_u8(tb[TCA_QCN_PFC]);
		print_color_bool(PRINT_JSON, COLOR_NONE, "pfc", NULL, v);
		tcq_print_fp("%s", v ? "pfc " : "nopfc ");
	}
	/* where the CP measures; the text shows it when not the default */
	if (rta_ok_len(tb[TCA_QCN_CP], 1)) {
		const char *cp;

		v = rta_u8(tb[TCA_QCN_CP]);
		cp = v <= TC_QCN_CP_MAX ? qcn_cp_names[v] : "unknown";
		print_color_string(PRINT_JSON, COLOR_NONE, "cp", NULL, cp);
		if (v != TC_QCN_CP_OUTPUT)
			tcq_print_fp("cp %s ", cp);
	}
	return 0;
}

/* any PFC generation counter set: a port that generates PFC */
static bool pfc_counted(const struct tc_qcn_xstats *st)
{
	int i;

	for (i = 0; i < TC_QCN_PFC_PRIOS; i++)
		if (st->pfc_xoff_sent[i] || st->pfc_ingress_max[i])
			return true;
	return st->pfc_tx_fail != 0;
}

static void print_class_xstats(const struct tc_qcn_class_xstats *st)
{
	tcq_print_uint("weight", " weight %u", st->weight);
	tcq_print_uint("active", " active %u", st->active);
	tcq_print_rate("maxrate", " maxrate %s", st->maxrate);
	tcq_print_rate("rate_est", " rate_est %s", st->rate_est);
	tcq_print_rate("fair_share", " fair_share %s", st->fair_share);
	tcq_print_uint("last_fb_af", " last_fb_af %u", st->last_fb_af);
	tcq_print_u64("cnm_sent", " cnm_sent %llu", st->cnm_sent);
	tcq_print_u64("bytes", " bytes %llu", st->bytes);
}

static int qcn_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	struct tc_qcn_class_xstats cst;
	struct tc_qcn_xstats st;

	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	if ((size_t)RTA_PAYLOAD(xstats) == sizeof(cst)) {
		memcpy(&cst, RTA_DATA(xstats), sizeof(cst));
		print_class_xstats(&cst);
		return 0;
	}
	/* a module older than this plugin sends no gso_split */
	if ((size_t)RTA_PAYLOAD(xstats) < offsetof(struct tc_qcn_xstats, gso_split))
		return -1;
	memset(&st, 0, sizeof(st));
	memcpy(&st, RTA_DATA(xstats),
	       MIN((size_t)RTA_PAYLOAD(xstats), sizeof(st)));

	tcq_print_u64("samples", "  samples %llu", st.samples);
	tcq_print_u64("keepalive_samples", " keepalive_samples %llu",
		      st.keepalive_samples);
	tcq_print_u64("cnm_arrival", " cnm_arrival %llu",
		      st.cnm_sent[TC_QCN_SAMPLE_ARRIVAL]);
	tcq_print_u64("cnm_occupancy", " cnm_occupancy %llu",
		      st.cnm_sent[TC_QCN_SAMPLE_OCCUPANCY]);
	tcq_print_u64("cnm_two_samples", " cnm_two_samples %llu",
		      st.cnm_sent[TC_QCN_SAMPLE_TWO]);
	/* only from a module that counts it (signed feedback) */
	if ((size_t)RTA_PAYLOAD(xstats) >= offsetof(struct tc_qcn_xstats, cnm_positive) +
					     sizeof(st.cnm_positive))
		tcq_print_u64("cnm_positive", " cnm_positive %llu", st.cnm_positive);
	tcq_print_fp("%s", "\n ");
	tcq_print_u64("cnm_fail", " cnm_fail %llu", st.cnm_fail);
	tcq_print_u64("cnm_skipped", " cnm_skipped %llu", st.cnm_skipped);
	tcq_print_u64("tail_drops", " tail_drops %llu", st.drops);
	print_color_s64(PRINT_ANY, COLOR_NONE, "last_fb", " last_fb %lld",
			st.last_fb);
	tcq_print_uint("last_qfb", " last_qfb %u", st.last_qfb);
	tcq_print_uint("qold", " qold %u", st.qold);
	tcq_print_uint("flows", " flows %u", st.flows);
	tcq_print_uint("af_classes", " af_classes %u", st.af_classes);
	tcq_print_u64("gso_split", " gso_split %llu", st.gso_split);
	/* 0 from a module older than this plugin (the tail is zeroed) */
	tcq_print_u64("drops_overmemory", " drops_overmemory %llu", st.drops_overmemory);
	tcq_print_uint("memory_usage", " memory_usage %u", st.memory_usage);
	/* the queue's time integral, for means over intervals (qcnstat qavg) */
	if ((size_t)RTA_PAYLOAD(xstats) >= offsetof(struct tc_qcn_xstats, stamp_ns) +
					     sizeof(st.stamp_ns)) {
		tcq_print_fp("%s", "\n ");
		tcq_print_u64("backlog_ns", " backlog_ns %llu", st.backlog_ns);
		tcq_print_u64("stamp_ns", " stamp_ns %llu", st.stamp_ns);
	}
	if ((size_t)RTA_PAYLOAD(xstats) >= offsetof(struct tc_qcn_xstats, sample_backlog) +
					     sizeof(st.sample_backlog))
		tcq_print_u64("sample_backlog", " sample_backlog %llu", st.sample_backlog);
	/* sampling instant to CNM transmission, summed over the CNMs sent */
	if ((size_t)RTA_PAYLOAD(xstats) >= offsetof(struct tc_qcn_xstats, cnm_delay_max_ns) +
					     sizeof(st.cnm_delay_max_ns)) {
		tcq_print_u64("cnm_delay_ns", " cnm_delay_ns %llu", st.cnm_delay_ns);
		tcq_print_u64("cnm_delay_max_ns", " cnm_delay_max_ns %llu",
			      st.cnm_delay_max_ns);
	}
	tcq_print_fp("%s", "\n  qfb_hist");
	tcq_print_u64_array("qfb_hist", st.qfb_hist, TC_QCN_QFB_BUCKETS);
	/* PFC generation, from a module that has it, once it has counted */
	if ((size_t)RTA_PAYLOAD(xstats) >= offsetof(struct tc_qcn_xstats, pfc_tx_fail) +
					     sizeof(st.pfc_tx_fail) && pfc_counted(&st)) {
		tcq_print_fp("%s", "\n  pfc_xoff_sent");
		tcq_print_u64_array("pfc_xoff_sent", st.pfc_xoff_sent, TC_QCN_PFC_PRIOS);
		tcq_print_fp("%s", " pfc_xon_sent");
		tcq_print_u64_array("pfc_xon_sent", st.pfc_xon_sent, TC_QCN_PFC_PRIOS);
		tcq_print_fp("%s", "\n  pfc_pausing_ns");
		tcq_print_u64_array("pfc_pausing_ns", st.pfc_pausing_ns, TC_QCN_PFC_PRIOS);
		tcq_print_fp("%s", "\n  pfc_ingress_bytes");
		tcq_print_u64_array("pfc_ingress_bytes", st.pfc_ingress_bytes, TC_QCN_PFC_PRIOS);
		tcq_print_fp("%s", " pfc_ingress_max");
		tcq_print_u64_array("pfc_ingress_max", st.pfc_ingress_max, TC_QCN_PFC_PRIOS);
		tcq_print_u64("pfc_tx_fail", " pfc_tx_fail %llu", st.pfc_tx_fail);
	}
	/* PFC reception (option pfc), from a module that has it, once it has counted */
	if ((size_t)RTA_PAYLOAD(xstats) >= offsetof(struct tc_qcn_xstats, pfc_paused_ns) +
					     sizeof(st.pfc_paused_ns))
		tcq_print_pfc_rx(st.pfc_rx, st.pfc_rx_xon, st.pfc_rx_ignored,
				 st.pfc_paused_ns, TC_QCN_PFC_PRIOS);
	/* the input CP, from a module that has it, once it has sampled */
	if ((size_t)RTA_PAYLOAD(xstats) >= offsetof(struct tc_qcn_xstats, in_cnm_fail) +
					     sizeof(st.in_cnm_fail) &&
	    (st.in_samples || st.in_cnm_fail)) {
		tcq_print_u64("in_samples", "\n  in_samples %llu", st.in_samples);
		tcq_print_u64("in_keepalive_samples", " in_keepalive_samples %llu",
			      st.in_keepalive_samples);
		tcq_print_u64("in_cnm_arrival", " in_cnm_arrival %llu",
			      st.in_cnm_sent[TC_QCN_SAMPLE_ARRIVAL]);
		tcq_print_u64("in_cnm_occupancy", " in_cnm_occupancy %llu",
			      st.in_cnm_sent[TC_QCN_SAMPLE_OCCUPANCY]);
		tcq_print_u64("in_cnm_two_samples", " in_cnm_two_samples %llu",
			      st.in_cnm_sent[TC_QCN_SAMPLE_TWO]);
		tcq_print_u64("in_cnm_skipped", " in_cnm_skipped %llu", st.in_cnm_skipped);
		tcq_print_u64("in_cnm_fail", " in_cnm_fail %llu", st.in_cnm_fail);
	}
	return 0;
}

static int qcn_parse_copt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct rtattr *tail;
	bool has_weight = false, has_maxrate = false;
	__u64 maxrate = 0;
	__u32 weight = 0;

	(void)qu;
	(void)dev;
	while (argc > 0) {
		const char *opt = *argv;

		if (strcmp(opt, "help") == 0) {
			explain_class();
			return -1;
		}
		if (tcq_check_opt("qcn", qcn_class_opts, argc, opt)) {
			explain_class();
			return -1;
		}
		argc--;
		argv++;
		if (strcmp(opt, "weight") == 0) {
			if (tcq_get_uint(&weight, "qcn", opt, *argv, 1,
					 TC_QCN_CLASS_MAX_WEIGHT))
				return -1;
			has_weight = true;
		} else if (strcmp(opt, "maxrate") == 0) {
			if (tcq_get_rate(&maxrate, "qcn", opt, *argv, 0, UINT64_MAX / 8))
				return -1;
			has_maxrate = true;
		}
		argc--;
		argv++;
	}

	tail = addattr_nest(n, TCQ_REQ_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	if (has_weight)
		addattr32(n, TCQ_REQ_MAXLEN, TCA_QCN_CLASS_WEIGHT, weight);
	if (has_maxrate)
		addattr64(n, TCQ_REQ_MAXLEN, TCA_QCN_CLASS_MAXRATE, maxrate);
	addattr_nest_end(n, tail);
	return 0;
}

static int qcn_print_copt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_QCN_CLASS_MAX + 1];

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_QCN_CLASS_MAX, opt);
	if (rta_ok_len(tb[TCA_QCN_CLASS_WEIGHT], 4))
		tcq_print_uint("weight", "weight %u ", rta_u32(tb[TCA_QCN_CLASS_WEIGHT]));
	if (rta_ok_len(tb[TCA_QCN_CLASS_MAXRATE], 8))
		tcq_print_rate("maxrate", "maxrate %s ",
			       rta_u64(tb[TCA_QCN_CLASS_MAXRATE]));
	return 0;
}

struct qdisc_util qcn_qdisc_util = {
	.id		= "qcn",
	.parse_qopt	= qcn_parse_opt,
	.print_qopt	= qcn_print_opt,
	.print_xstats	= qcn_print_xstats,
	.parse_copt	= qcn_parse_copt,
	.print_copt	= qcn_print_copt,
};
