// SPDX-License-Identifier: GPL-2.0
/*
 * q_qcn_rp.c	tc plugin for the "qcn_rp" qdisc (QCN reaction point):
 *		options with dcbnl's struct ieee_qcn names, xstats, and the
 *		limiters shown as classes.
 */
#include <arpa/inet.h>
#include <sys/socket.h>

#include "tc_plugin.h"
#include <uapi/linux/qcn.h>

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... qcn_rp [ max-rate RATE ] [ gd N ] [ ai-rate RATE ]\n"
		"                  [ hai-rate RATE ] [ byte-reset BYTES ]\n"
		"                  [ time-reset TIME ] [ threshold N ]\n"
		"                  [ min-rate RATE ] [ min-dec PERCENT ]\n"
		"                  [ mode qcn|qcn-t ] [ qcnt-period TIME ]\n"
		"                  [ limiters N ] [ flow l4|l3|dst-mac ]\n"
		"                  [ limit BYTES ] [ jitter on|off ]\n"
		"                  [ flow_limit PACKETS ] [ memory_limit BYTES ]\n"
		"  max-rate     line rate, rpg_max_rate (default: link speed, else 10gbit)\n"
		"  gd           Gd = 2^-N, rpg_gd (default 7)\n"
		"  ai-rate      active increase R_AI, rpg_ai_rate (default 5mbit)\n"
		"  hai-rate     hyper-active increase R_HAI, rpg_hai_rate (default 50mbit)\n"
		"  byte-reset   byte counter cycle, rpg_byte_reset (default 150000)\n"
		"  time-reset   timer cycle T, rpg_time_reset (default 15ms)\n"
		"  threshold    fast recovery cycles, rpg_threshold (default 5)\n"
		"  min-rate     rpg_min_rate (default 5mbit)\n"
		"  min-dec      minimum decrease factor %%, rpg_min_dec_fac (default 50)\n"
		"  mode         802.1Qau byte counter + timer, or QCN-T (timer only)\n"
		"  qcnt-period  QCN-T timer period t (default 2.4ms)\n"
		"  limiters     most rate limiters at once (default 1024)\n"
		"  flow         flow key: 5-tuple, addresses, or dst MAC (default l4)\n"
		"  limit        total backlog (default 4mb)\n"
		"  jitter       +-15 %% jitter on counter reloads (default on)\n"
		"  flow_limit   packets queued per limiter (default 1000)\n"
		"  memory_limit truesize of all queued packets (default 32Mb)\n");
}

static const char * const rp_mode_names[] = {
	[TC_QCN_RP_MODE_QCN]	= "qcn",
	[TC_QCN_RP_MODE_QCNT]	= "qcn-t",
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

static int rp_bad(const char *what, const char *arg)
{
	return tcq_bad("qcn_rp", what, arg);
}

static int rp_rate_opt(struct nlmsghdr *n, int type, const char *what,
		       const char *arg, bool zero_ok)
{
	__u64 rate;

	if (get_rate64(&rate, arg) || (!rate && !zero_ok))
		return rp_bad(what, arg);
	addattr64(n, TCP_MAXLEN, type, rate);
	return 0;
}

static int rp_time_opt(struct nlmsghdr *n, int type, const char *what,
		       const char *arg)
{
	unsigned int us;

	if (get_time(&us, arg) || !us || us > 10000000)
		return rp_bad(what, arg);
	addattr32(n, TCP_MAXLEN, type, us);
	return 0;
}

static int rp_uint_opt(struct nlmsghdr *n, int type, const char *what,
		       const char *arg, unsigned long min, unsigned long max)
{
	__u32 v;

	if (tcq_parse_uint(&v, arg, max) || v < min)
		return rp_bad(what, arg);
	addattr32(n, TCP_MAXLEN, type, v);
	return 0;
}

static int rp_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			struct nlmsghdr *n, const char *dev)
{
	struct rtattr *tail;
	unsigned int size;
	int v;

	(void)qu;
	(void)dev;

	tail = addattr_nest(n, TCP_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	for (; argc > 0; argc--, argv++) {
		const char *opt = *argv;

		if (strcmp(opt, "help") == 0) {
			explain();
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr, "qcn_rp: \"%s\" needs a value\n", opt);
			explain();
			return -1;
		}
		argc--;
		argv++;
		if (strcmp(opt, "max-rate") == 0) {
			if (rp_rate_opt(n, TCA_QCN_RP_MAX_RATE, opt, *argv, false))
				return -1;
		} else if (strcmp(opt, "ai-rate") == 0) {
			if (rp_rate_opt(n, TCA_QCN_RP_AI_RATE, opt, *argv, true))
				return -1;
		} else if (strcmp(opt, "hai-rate") == 0) {
			if (rp_rate_opt(n, TCA_QCN_RP_HAI_RATE, opt, *argv, true))
				return -1;
		} else if (strcmp(opt, "min-rate") == 0) {
			if (rp_rate_opt(n, TCA_QCN_RP_MIN_RATE, opt, *argv, false))
				return -1;
		} else if (strcmp(opt, "gd") == 0) {
			if (rp_uint_opt(n, TCA_QCN_RP_GD, opt, *argv, 0, 31))
				return -1;
		} else if (strcmp(opt, "threshold") == 0) {
			if (rp_uint_opt(n, TCA_QCN_RP_THRESHOLD, opt, *argv, 1, 1000))
				return -1;
		} else if (strcmp(opt, "min-dec") == 0) {
			if (rp_uint_opt(n, TCA_QCN_RP_MIN_DEC, opt, *argv, 0, 100))
				return -1;
		} else if (strcmp(opt, "limiters") == 0) {
			if (rp_uint_opt(n, TCA_QCN_RP_LIMITERS, opt, *argv, 1, 65535))
				return -1;
		} else if (strcmp(opt, "time-reset") == 0) {
			if (rp_time_opt(n, TCA_QCN_RP_TIME_RESET, opt, *argv))
				return -1;
		} else if (strcmp(opt, "qcnt-period") == 0) {
			if (rp_time_opt(n, TCA_QCN_RP_QCNT_PERIOD, opt, *argv))
				return -1;
		} else if (strcmp(opt, "byte-reset") == 0 || strcmp(opt, "limit") == 0) {
			if (get_size(&size, *argv) || !size)
				return rp_bad(opt, *argv);
			addattr32(n, TCP_MAXLEN, opt[0] == 'b' ? TCA_QCN_RP_BYTE_RESET :
				  TCA_QCN_RP_LIMIT, size);
		} else if (strcmp(opt, "flow_limit") == 0) {
			if (rp_uint_opt(n, TCA_QCN_RP_FLOW_LIMIT, opt, *argv, 1, UINT32_MAX))
				return -1;
		} else if (strcmp(opt, "memory_limit") == 0) {
			if (get_size(&size, *argv) || !size || size > (1U << 31))
				return rp_bad(opt, *argv);
			addattr32(n, TCP_MAXLEN, TCA_QCN_RP_MEMORY_LIMIT, size);
		} else if (strcmp(opt, "mode") == 0) {
			v = tcq_lookup(rp_mode_names, ARRAY_LEN(rp_mode_names), *argv);
			if (v < 0)
				return rp_bad(opt, *argv);
			addattr8(n, TCP_MAXLEN, TCA_QCN_RP_MODE, v);
		} else if (strcmp(opt, "flow") == 0) {
			v = tcq_lookup(rp_flow_names, ARRAY_LEN(rp_flow_names), *argv);
			if (v < 0)
				return rp_bad(opt, *argv);
			addattr8(n, TCP_MAXLEN, TCA_QCN_RP_FLOW, v);
		} else if (strcmp(opt, "jitter") == 0) {
			if (strcmp(*argv, "on") && strcmp(*argv, "off"))
				return rp_bad(opt, *argv);
			addattr8(n, TCP_MAXLEN, TCA_QCN_RP_JITTER,
				 strcmp(*argv, "on") == 0);
		} else {
			fprintf(stderr, "qcn_rp: unknown option \"%s\"\n", opt);
			explain();
			return -1;
		}
	}
	addattr_nest_end(n, tail);
	return 0;
}

static void rp_print_name(const char *key, const char * const *names, int n,
			  unsigned int v)
{
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "%s %%s ", key);
	tcp_string(key, fmt, (int)v < n && names[v] ? names[v] : "?");
}

static int rp_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_QCN_RP_MAX + 1];

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_QCN_RP_MAX, opt);
#define RATE(a, key) \
	do { if (rta_ok_len(tb[a], 8)) tcp_rate(key, key " %s ", rta_u64(tb[a])); } while (0)
#define U32(a, key) \
	do { if (rta_ok_len(tb[a], 4)) tcp_uint(key, key " %u ", rta_u32(tb[a])); } while (0)
#define TIME(a, key) \
	do { if (rta_ok_len(tb[a], 4)) tcq_print_time(key, key " %s ", rta_u32(tb[a])); } while (0)
	if (rta_ok_len(tb[TCA_QCN_RP_MODE], 1))
		rp_print_name("mode", rp_mode_names, ARRAY_LEN(rp_mode_names),
			      rta_u8(tb[TCA_QCN_RP_MODE]));
	RATE(TCA_QCN_RP_MAX_RATE, "max-rate");
	U32(TCA_QCN_RP_GD, "gd");
	RATE(TCA_QCN_RP_AI_RATE, "ai-rate");
	RATE(TCA_QCN_RP_HAI_RATE, "hai-rate");
	if (rta_ok_len(tb[TCA_QCN_RP_BYTE_RESET], 4))
		tcp_size("byte-reset", "byte-reset %s ", rta_u32(tb[TCA_QCN_RP_BYTE_RESET]));
	TIME(TCA_QCN_RP_TIME_RESET, "time-reset");
	U32(TCA_QCN_RP_THRESHOLD, "threshold");
	RATE(TCA_QCN_RP_MIN_RATE, "min-rate");
	U32(TCA_QCN_RP_MIN_DEC, "min-dec");
	TIME(TCA_QCN_RP_QCNT_PERIOD, "qcnt-period");
	U32(TCA_QCN_RP_LIMITERS, "limiters");
	if (rta_ok_len(tb[TCA_QCN_RP_FLOW], 1))
		rp_print_name("flow", rp_flow_names, ARRAY_LEN(rp_flow_names),
			      rta_u8(tb[TCA_QCN_RP_FLOW]));
	if (rta_ok_len(tb[TCA_QCN_RP_LIMIT], 4))
		tcp_size("limit", "limit %s ", rta_u32(tb[TCA_QCN_RP_LIMIT]));
	if (rta_ok_len(tb[TCA_QCN_RP_JITTER], 1))
		tcp_string("jitter", "jitter %s ",
			   rta_u8(tb[TCA_QCN_RP_JITTER]) ? "on" : "off");
	U32(TCA_QCN_RP_FLOW_LIMIT, "flow_limit");
	if (rta_ok_len(tb[TCA_QCN_RP_MEMORY_LIMIT], 4))
		tcp_size("memory_limit", "memory_limit %s ",
			 rta_u32(tb[TCA_QCN_RP_MEMORY_LIMIT]));
#undef RATE
#undef U32
#undef TIME
	return 0;
}

static void rp_print_key(const struct tc_qcn_rp_flow_key *k)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], buf[160];

	if (k->family == AF_INET || k->family == AF_INET6) {
		inet_ntop(k->family, k->saddr, a, sizeof(a));
		inet_ntop(k->family, k->daddr, b, sizeof(b));
		if (k->sport || k->dport)
			snprintf(buf, sizeof(buf), "%s:%u>%s:%u/%u", a,
				 ntohs(k->sport), b, ntohs(k->dport), k->proto);
		else
			snprintf(buf, sizeof(buf), "%s>%s/%u", a, b, k->proto);
	} else {
		snprintf(buf, sizeof(buf),
			 "%02x:%02x:%02x:%02x:%02x:%02x/prio%u", k->dmac[0],
			 k->dmac[1], k->dmac[2], k->dmac[3], k->dmac[4],
			 k->dmac[5], k->prio);
	}
	tcp_string("flow", " flow %s", buf);
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

		rp_print_key(&c->key);
		print_nl();
		tcp_rate("cr", "  cr %s", c->cr);
		tcp_rate("tr", " tr %s", c->tr);
		tcp_string("state", " state %s ", c->state < ARRAY_LEN(rp_state_names) ?
			   rp_state_names[c->state] : "?");
		tcp_uint("bc_stage", "bc_stage %u", c->bc_stage);
		tcp_uint("timer_stage", " timer_stage %u", c->timer_stage);
		tcp_u64("cnm_rx", " cnm_rx %llu", (unsigned long long)c->cnm_rx);
		tcp_u64("bytes_sent", " bytes_sent %llu",
			(unsigned long long)c->bytes_sent);
		tcp_uint("backlog", " backlog %u", c->backlog);
		return 0;
	}
	/* a module older than this plugin sends no gso_split */
	if (RTA_PAYLOAD(xstats) < (int)offsetof(struct tc_qcn_rp_xstats, gso_split))
		return -1;
	{
		struct tc_qcn_rp_xstats st = {}, *s = &st;

		memcpy(&st, RTA_DATA(xstats),
		       MIN((size_t)RTA_PAYLOAD(xstats), sizeof(st)));

		tcp_u64("cnm_rx", "  cnm_rx %llu", (unsigned long long)s->cnm_rx);
		tcp_u64("cnm_matched", " matched %llu",
			(unsigned long long)s->cnm_matched);
		tcp_u64("cnm_unmatched", " unmatched %llu",
			(unsigned long long)s->cnm_unmatched);
		tcp_u64("cnm_malformed", " malformed %llu",
			(unsigned long long)s->cnm_malformed);
		print_nl();
		tcp_uint("limiters_active", "  limiters active %u",
			 s->limiters_active);
		tcp_u64("limiters_created", " created %llu",
			(unsigned long long)s->limiters_created);
		tcp_u64("limiters_released", " released %llu",
			(unsigned long long)s->limiters_released);
		tcp_u64("limiters_refused", " refused %llu",
			(unsigned long long)s->limiters_refused);
		print_nl();
		tcp_uint("flows", "  flows %u", s->flows);
		tcp_u64("throttled", " throttled %llu",
			(unsigned long long)s->throttled);
		tcp_u64("limit_drops", " limit_drops %llu",
			(unsigned long long)s->drops);
		tcp_u64("gso_split", " gso_split %llu",
			(unsigned long long)s->gso_split);
		print_nl();
		tcp_u64("cnm_not_host", "  cnm not_host %llu",
			(unsigned long long)s->cnm_not_host);
		tcp_u64("cnm_qfb0", " qfb0 %llu",
			(unsigned long long)s->cnm_qfb0);
		print_nl();
		tcp_u64("flow_limit_drops", "  flow_limit_drops %llu",
			(unsigned long long)s->flow_limit_drops);
		tcp_u64("memory_drops", " memory_drops %llu",
			(unsigned long long)s->memory_drops);
		tcp_uint("memory_usage", " memory_usage %u", s->memory_usage);
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
