// SPDX-License-Identifier: GPL-2.0
/*
 * qcnstat: poll the statistics of qcn and qcn_rp qdiscs and their classes
 * (AF-QCN classes, rate limiters) over rtnetlink every N ms and print CSV
 * or JSON lines.  One netlink socket (libnl-3), device names through a
 * libnl-route-3 link cache, absolute deadlines on CLOCK_MONOTONIC.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <json-c/json.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/route/link.h>

#include <uapi/linux/qcn.h>
#include "qcn_flow.h"
#include "tc_units.h"

#define MAX_DEVS	16
#define MAX_PREV	4096

static const char *usage_text =
"Usage: qcnstat [OPTIONS] -d [NS:]DEV [-d [NS:]DEV ...]\n"
"\n"
"Polls the statistics of the qcn and qcn_rp qdiscs on DEV, and of their\n"
"classes (AF-QCN classes of qcn, rate limiters of qcn_rp), every INTERVAL,\n"
"and prints one line per qdisc or class and poll.\n"
"\n"
"Options:\n"
"  -d, --dev [NS:]DEV   device to poll (repeatable, up to 16); NS:DEV is\n"
"                       DEV in network namespace NS (/run/netns/NS), shown\n"
"                       as NS:DEV\n"
"  -i, --interval T     polling interval, >= 100us (default 100ms)\n"
"  -c, --count N        stop after N polls\n"
"  -t, --duration T     stop after T (e.g. 30s)\n"
"      --csv            CSV with a header line (default); fields with a\n"
"                       comma or a double quote are quoted (RFC 4180)\n"
"      --json           one JSON object per line\n"
"  -o, --output FILE    write to FILE instead of stdout\n"
"  -n, --netns NAME     devices without NS: are in namespace NAME\n"
"  -a, --all            all qdiscs on DEV, not only qcn and qcn_rp\n"
"  -m, --monotonic      t_ms is CLOCK_MONOTONIC itself, not since the start\n"
"                       (to line up with cnm_send's or udp_sink's stamps)\n"
"  -h, --help           this text\n"
"Times are tc's: 10ms, 500us, 1s, 2.5s (a bare number is in us).\n"
"\n"
"Columns (CSV, in this order; JSON lines use the same keys, omitting\n"
"empty ones; pick CSV columns by their header name):\n"
"  t_ms        ms since qcnstat started (CLOCK_MONOTONIC; -m: absolute)\n"
"  dev kind handle parent   the object (class lines: kind qcn-class or\n"
"              qcn_rp-limiter)\n"
"  bytes packets drops backlog qlen   the standard tc counters\n"
"  rate_bps    bit/s from the bytes delta since the previous poll, over\n"
"              the kernel's clock at the two reads (the poller's with\n"
"              modules that send no stamp)\n"
"  qcn:        samples cnms last_qfb qold tail_drops\n"
"  qcn_rp:     cnm_rx cnm_unmatched cnm_malformed limiters\n"
"  limiter:    flow cr_bps tr_bps state cnm_rx (flow as tc -s class shows it)\n"
"  AF class:   weight rate_est_bps fair_bps fb_af cnm_sent\n"
"  N-AIMD:     cnm_positive (qcn, qcn_rp: CNMs with Fb >= 0), ap_steps\n"
"              (qcn_rp: averaging steps); empty from older modules\n"
"  qcn:        qavg (bytes: the backlog's time average since the previous\n"
"              poll, on the kernel's clock, not a sample), backlog_ns and\n"
"              stamp_ns (the integral and its time: a window's mean is\n"
"              the ratio of their deltas); qsample (bytes: the mean queue\n"
"              at the CP's sampling instants since the previous poll, the\n"
"              Q its Fb used) and its raw sum sample_backlog (over the\n"
"              samples column); empty from older modules\n"
"  qcn PFC:    pfc_ingress (bytes of this device's input queued in the\n"
"              switch now), pfc_xoff_sent pfc_xon_sent pfc_pausing_ns\n"
"              (pfc-xoff: pauses sent, releases sent, time the peer was\n"
"              held paused), pfc_rx pfc_paused_ns (pfc, also qcn_rp's:\n"
"              pauses received, time this qdisc was paused); sums over\n"
"              the priorities, empty from modules without PFC\n";

enum { F_T, F_DEV, F_KIND, F_HANDLE, F_PARENT, F_BYTES, F_PACKETS, F_DROPS,
	F_BACKLOG, F_QLEN, F_RATE, F_SAMPLES, F_CNMS, F_QFB, F_QOLD, F_TDROPS,
	F_CNMRX, F_UNM, F_MAL, F_LIMS, F_FLOW, F_CR, F_TR, F_STATE, F_WEIGHT,
	F_REST, F_FAIR, F_FBAF, F_CNMSENT, F_CNMPOS, F_APSTEPS, F_QAVG, F_BLNS,
	F_STAMP, F_QSAMPLE, F_SBL, F_PFC_IN, F_PFC_XOFF, F_PFC_XON, F_PFC_PAUSING,
	F_PFC_RX, F_PFC_PAUSED, F_NUM };

/* the columns: name (CSV header, JSON key) and JSON type */
enum col_type { C_NUM, C_DEC, C_STR };
static const struct {
	const char *key;
	enum col_type type;
} cols[F_NUM] = {
	[F_T] = { "t_ms", C_DEC },	[F_DEV] = { "dev", C_STR },
	[F_KIND] = { "kind", C_STR },	[F_HANDLE] = { "handle", C_STR },
	[F_PARENT] = { "parent", C_STR }, [F_BYTES] = { "bytes", C_NUM },
	[F_PACKETS] = { "packets", C_NUM }, [F_DROPS] = { "drops", C_NUM },
	[F_BACKLOG] = { "backlog", C_NUM }, [F_QLEN] = { "qlen", C_NUM },
	[F_RATE] = { "rate_bps", C_NUM }, [F_SAMPLES] = { "samples", C_NUM },
	[F_CNMS] = { "cnms", C_NUM },	[F_QFB] = { "last_qfb", C_NUM },
	[F_QOLD] = { "qold", C_NUM },	[F_TDROPS] = { "tail_drops", C_NUM },
	[F_CNMRX] = { "cnm_rx", C_NUM }, [F_UNM] = { "cnm_unmatched", C_NUM },
	[F_MAL] = { "cnm_malformed", C_NUM }, [F_LIMS] = { "limiters", C_NUM },
	[F_FLOW] = { "flow", C_STR },	[F_CR] = { "cr_bps", C_NUM },
	[F_TR] = { "tr_bps", C_NUM },	[F_STATE] = { "state", C_STR },
	[F_WEIGHT] = { "weight", C_NUM }, [F_REST] = { "rate_est_bps", C_NUM },
	[F_FAIR] = { "fair_bps", C_NUM }, [F_FBAF] = { "fb_af", C_NUM },
	[F_CNMSENT] = { "cnm_sent", C_NUM }, [F_CNMPOS] = { "cnm_positive", C_NUM },
	[F_APSTEPS] = { "ap_steps", C_NUM }, [F_QAVG] = { "qavg", C_NUM },
	[F_BLNS] = { "backlog_ns", C_NUM }, [F_STAMP] = { "stamp_ns", C_NUM },
	[F_QSAMPLE] = { "qsample", C_NUM }, [F_SBL] = { "sample_backlog", C_NUM },
	[F_PFC_IN] = { "pfc_ingress", C_NUM }, [F_PFC_XOFF] = { "pfc_xoff_sent", C_NUM },
	[F_PFC_XON] = { "pfc_xon_sent", C_NUM },
	[F_PFC_PAUSING] = { "pfc_pausing_ns", C_NUM },
	[F_PFC_RX] = { "pfc_rx", C_NUM }, [F_PFC_PAUSED] = { "pfc_paused_ns", C_NUM },
};

struct row {
	char v[F_NUM][128];
};

static struct {
	int ifindex;
	int ns;				/* its socket: nss[ns] */
	char name[IFNAMSIZ + 256];	/* as given: DEV or NS:DEV */
} devs[MAX_DEVS];
/* one rtnetlink socket per network namespace polled (a socket stays in
 * the namespace it was opened in)
 */
static struct {
	const char *name;		/* NULL: qcnstat's own (or --netns) */
	struct nl_sock *sk;
} nss[MAX_DEVS];
static int ndevs, nnss, json, all, origin_abs;
static long rows;			/* rows printed, all polls */
static FILE *out;
static double now_ms;

/* previous counters, for rates and means: (device, handle, class?) */
static struct prev_slot {
	int dev;
	__u32 handle;
	int cls;
	__u64 bytes;
	double t;		/* ms of the bytes read: kernel's or ours */
	int kclock;		/* t is the kernel's clock (stamp_ns) */
	__u64 bl_ns, stamp;	/* qcn: the backlog's time integral */
	__u64 sbl, samples;	/* qcn: Q summed over the sampling instants */
} prev[MAX_PREV];
static int nprev;

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* the previous poll's counters of (devs[dev], handle, class?); NULL if full */
static struct prev_slot *prev_of(int dev, __u32 handle, int cls, int *fresh)
{
	int i;

	*fresh = 0;
	for (i = 0; i < nprev; i++)
		if (prev[i].dev == dev && prev[i].handle == handle &&
		    prev[i].cls == cls)
			return &prev[i];
	if (nprev == MAX_PREV)
		return NULL;
	memset(&prev[nprev], 0, sizeof(prev[nprev]));
	prev[nprev].dev = dev;
	prev[nprev].handle = handle;
	prev[nprev].cls = cls;
	*fresh = 1;
	return &prev[nprev++];
}

/*
 * bit/s from the bytes delta since the previous poll, over the kernel's
 * clock at the two reads (stamp_ns of the xstats) if it sent one: the
 * poller's own clock counts its scheduling delays into the interval, and
 * a dump delayed by one poll's worth reads twice the rate.  -1 at first.
 */
static double rate_of(int dev, __u32 handle, int cls, __u64 bytes,
		      __u64 stamp_ns)
{
	double t = stamp_ns ? stamp_ns / 1e6 : now_ms;
	struct prev_slot *p;
	double r = -1;
	int fresh;

	p = prev_of(dev, handle, cls, &fresh);
	if (!p)
		return -1;
	if (!fresh && t > p->t && bytes >= p->bytes &&
	    !p->kclock == !stamp_ns)
		r = (bytes - p->bytes) * 8.0 * 1000.0 / (t - p->t);
	p->bytes = bytes;
	p->t = t;
	p->kclock = !!stamp_ns;
	return r;
}

/* (n - *pn) / (d - *pd) since the previous call, -1 at first or when d
 * did not grow; *pn, *pd then take n, d
 */
static double delta_ratio(__u64 *pn, __u64 *pd, __u64 n, __u64 d)
{
	double r = -1;

	if (*pd && d > *pd)
		r = (double)(n - *pn) / (double)(d - *pd);
	*pn = n;
	*pd = d;
	return r;
}

/* mean Q (bytes) at the CP's sampling instants since the previous poll;
 * -1 at first or without a sample
 */
static double qsample_of(int dev, __u32 handle, __u64 sbl, __u64 samples)
{
	struct prev_slot *p;
	int fresh;

	p = prev_of(dev, handle, 0, &fresh);
	return p ? delta_ratio(&p->sbl, &p->samples, sbl, samples) : -1;
}

/* mean backlog (bytes) between this dump and the previous one, on the
 * kernel's clock (struct tc_qcn_xstats backlog_ns, stamp_ns); -1 at first
 */
static double qavg_of(int dev, __u32 handle, __u64 bl_ns, __u64 stamp)
{
	struct prev_slot *p;
	int fresh;

	p = prev_of(dev, handle, 0, &fresh);
	return p ? delta_ratio(&p->bl_ns, &p->stamp, bl_ns, stamp) : -1;
}

static void handle_str(char *buf, size_t len, __u32 h)
{
	if (h == TC_H_ROOT)
		snprintf(buf, len, "root");
	else
		snprintf(buf, len, "%x:%x", TC_H_MAJ(h) >> 16, TC_H_MIN(h));
}

/* one CSV field, quoted (RFC 4180) if it holds a comma, quote or newline */
static void csv_field(const char *v)
{
	if (!strpbrk(v, ",\"\r\n")) {
		fputs(v, out);
		return;
	}
	fputc('"', out);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', out);
		fputc(*v, out);
	}
	fputc('"', out);
}

static int emit(struct row *r)
{
	struct json_object *o;
	int i, err = 0;

	if (!json) {
		for (i = 0; i < F_NUM; i++) {
			if (i)
				fputc(',', out);
			csv_field(r->v[i]);
		}
		fputc('\n', out);
		return 0;
	}
	o = json_object_new_object();
	for (i = 0; o && i < F_NUM && !err; i++) {
		const char *v = r->v[i];
		struct json_object *x;

		if (!*v)
			continue;
		switch (cols[i].type) {
		case C_NUM:
			x = json_object_new_uint64(strtoull(v, NULL, 10));
			break;
		case C_DEC:	/* printed as formatted, e.g. 12.5 */
			x = json_object_new_double_s(strtod(v, NULL), v);
			break;
		default:
			x = json_object_new_string(v);
			break;
		}
		err = !x || json_object_object_add(o, cols[i].key, x);
	}
	if (!o || err) {
		json_object_put(o);
		return -1;
	}
	fprintf(out, "%s\n", json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return 0;
}

#define SETF(r, f, fmt, ...) snprintf((r)->v[f], sizeof((r)->v[f]), fmt, __VA_ARGS__)

/* the PFC reception columns (qcn and qcn_rp): per-priority counters summed */
static void pfc_rx_cols(struct row *r, const __u64 *rx, const __u64 *paused)
{
	__u64 n = 0, ns = 0;
	int p;

	for (p = 0; p < TC_QCN_PFC_PRIOS; p++) {
		n += rx[p];
		ns += paused[p];
	}
	SETF(r, F_PFC_RX, "%llu", (unsigned long long)n);
	SETF(r, F_PFC_PAUSED, "%llu", (unsigned long long)ns);
}

/* the PFC columns of a qcn qdisc: its per-priority counters summed */
static void pfc_cols(struct row *r, const struct tc_qcn_xstats *s)
{
	__u64 in = 0, xoff = 0, xon = 0, pausing = 0;
	int p;

	for (p = 0; p < TC_QCN_PFC_PRIOS; p++) {
		in += s->pfc_ingress_bytes[p];
		xoff += s->pfc_xoff_sent[p];
		xon += s->pfc_xon_sent[p];
		pausing += s->pfc_pausing_ns[p];
	}
	SETF(r, F_PFC_IN, "%llu", (unsigned long long)in);
	SETF(r, F_PFC_XOFF, "%llu", (unsigned long long)xoff);
	SETF(r, F_PFC_XON, "%llu", (unsigned long long)xon);
	SETF(r, F_PFC_PAUSING, "%llu", (unsigned long long)pausing);
	pfc_rx_cols(r, s->pfc_rx, s->pfc_paused_ns);
}

static const char *state_name(__u32 s)
{
	static const char * const n[] = { "fr", "ai", "hai", "released" };

	return s < 4 ? n[s] : "?";
}

static int on_msg(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct tcmsg *tcm = nlmsg_data(nlh);
	struct nlattr *tb[TCA_MAX + 1], *st[TCA_STATS_MAX + 1];
	const char *kind = "";
	int cls = nlh->nlmsg_type == RTM_NEWTCLASS, i, dev = -1;
	struct row r;
	__u64 bytes = 0, stamp = 0;

	if (nlh->nlmsg_type != RTM_NEWQDISC && !cls)
		return NL_OK;
	/* arg: the namespace of the socket this came by */
	for (i = 0; i < ndevs; i++)
		if (devs[i].ns == (int)(intptr_t)arg &&
		    devs[i].ifindex == tcm->tcm_ifindex)
			dev = i;
	if (dev < 0 ||
	    nlmsg_parse(nlh, sizeof(*tcm), tb, TCA_MAX, NULL) < 0)
		return NL_OK;
	if (tb[TCA_KIND])
		kind = nla_get_string(tb[TCA_KIND]);
	if (!all && strcmp(kind, "qcn") && strcmp(kind, "qcn_rp"))
		return NL_OK;

	memset(&r, 0, sizeof(r));
	SETF(&r, F_T, "%.1f", now_ms);
	SETF(&r, F_DEV, "%s", devs[dev].name);
	SETF(&r, F_KIND, "%s%s", kind, !cls ? "" : !strcmp(kind, "qcn") ? "-class" :
	     !strcmp(kind, "qcn_rp") ? "-limiter" : "-class");
	handle_str(r.v[F_HANDLE], sizeof(r.v[F_HANDLE]), tcm->tcm_handle);
	handle_str(r.v[F_PARENT], sizeof(r.v[F_PARENT]), tcm->tcm_parent);

	if (tb[TCA_STATS2] &&
	    nla_parse_nested(st, TCA_STATS_MAX, tb[TCA_STATS2], NULL) >= 0) {
		if (st[TCA_STATS_BASIC] &&
		    nla_len(st[TCA_STATS_BASIC]) >= (int)sizeof(struct gnet_stats_basic)) {
			struct gnet_stats_basic b;

			memcpy(&b, nla_data(st[TCA_STATS_BASIC]), sizeof(b));
			bytes = b.bytes;
			SETF(&r, F_BYTES, "%llu", (unsigned long long)b.bytes);
			SETF(&r, F_PACKETS, "%u", b.packets);
		}
		if (st[TCA_STATS_QUEUE] &&
		    nla_len(st[TCA_STATS_QUEUE]) >= (int)sizeof(struct gnet_stats_queue)) {
			struct gnet_stats_queue q;

			memcpy(&q, nla_data(st[TCA_STATS_QUEUE]), sizeof(q));
			SETF(&r, F_DROPS, "%u", q.drops);
			SETF(&r, F_BACKLOG, "%u", q.backlog);
			SETF(&r, F_QLEN, "%u", q.qlen);
		}
		if (st[TCA_STATS_APP]) {
			void *x = nla_data(st[TCA_STATS_APP]);
			int len = nla_len(st[TCA_STATS_APP]);

			/* older modules send a shorter struct (no gso_split, no
			 * memory counters): the fields shown here are all there,
			 * but for the N-AIMD counters, left empty when absent
			 */
			if (!strcmp(kind, "qcn") && !cls &&
			    len >= (int)offsetof(struct tc_qcn_xstats, gso_split)) {
				struct tc_qcn_xstats s;
				__u64 c = 0;

				memset(&s, 0, sizeof(s));
				memcpy(&s, x, len < (int)sizeof(s) ? (size_t)len : sizeof(s));
				for (i = 0; i < __TC_QCN_SAMPLE_MAX; i++)
					c += s.cnm_sent[i];
				SETF(&r, F_SAMPLES, "%llu", (unsigned long long)s.samples);
				SETF(&r, F_CNMS, "%llu", (unsigned long long)c);
				SETF(&r, F_QFB, "%u", s.last_qfb);
				SETF(&r, F_QOLD, "%u", s.qold);
				SETF(&r, F_TDROPS, "%llu", (unsigned long long)s.drops);
				if (len >= (int)(offsetof(struct tc_qcn_xstats, cnm_positive) +
						 sizeof(s.cnm_positive)))
					SETF(&r, F_CNMPOS, "%llu",
					     (unsigned long long)s.cnm_positive);
				if (len >= (int)(offsetof(struct tc_qcn_xstats, stamp_ns) +
						 sizeof(s.stamp_ns))) {
					double a = qavg_of(dev, tcm->tcm_handle,
							   s.backlog_ns, s.stamp_ns);

					if (a >= 0)
						SETF(&r, F_QAVG, "%.0f", a);
					SETF(&r, F_BLNS, "%llu", (unsigned long long)s.backlog_ns);
					SETF(&r, F_STAMP, "%llu", (unsigned long long)s.stamp_ns);
					stamp = s.stamp_ns;
				}
				if (len >= (int)(offsetof(struct tc_qcn_xstats, sample_backlog) +
						 sizeof(s.sample_backlog))) {
					double a = qsample_of(dev, tcm->tcm_handle,
							      s.sample_backlog, s.samples);

					if (a >= 0)
						SETF(&r, F_QSAMPLE, "%.0f", a);
					SETF(&r, F_SBL, "%llu", (unsigned long long)s.sample_backlog);
				}
				if (len >= (int)(offsetof(struct tc_qcn_xstats, pfc_paused_ns) +
						 sizeof(s.pfc_paused_ns)))
					pfc_cols(&r, &s);
			} else if (!strcmp(kind, "qcn") && cls &&
				   len >= (int)offsetof(struct tc_qcn_class_xstats, stamp_ns)) {
				struct tc_qcn_class_xstats s;

				memset(&s, 0, sizeof(s));
				memcpy(&s, x, len < (int)sizeof(s) ? (size_t)len : sizeof(s));
				stamp = s.stamp_ns;
				SETF(&r, F_WEIGHT, "%u", s.weight);
				SETF(&r, F_REST, "%llu", (unsigned long long)s.rate_est * 8);
				SETF(&r, F_FAIR, "%llu", (unsigned long long)s.fair_share * 8);
				SETF(&r, F_FBAF, "%u", s.last_fb_af);
				SETF(&r, F_CNMSENT, "%llu", (unsigned long long)s.cnm_sent);
			} else if (!strcmp(kind, "qcn_rp") && !cls &&
				   len >= (int)offsetof(struct tc_qcn_rp_xstats, gso_split)) {
				struct tc_qcn_rp_xstats s;

				memset(&s, 0, sizeof(s));
				memcpy(&s, x, len < (int)sizeof(s) ? (size_t)len : sizeof(s));
				SETF(&r, F_CNMRX, "%llu", (unsigned long long)s.cnm_rx);
				SETF(&r, F_UNM, "%llu", (unsigned long long)s.cnm_unmatched);
				SETF(&r, F_MAL, "%llu", (unsigned long long)s.cnm_malformed);
				SETF(&r, F_LIMS, "%u", s.limiters_active);
				if (len >= (int)(offsetof(struct tc_qcn_rp_xstats, ap_steps) +
						 sizeof(s.ap_steps))) {
					SETF(&r, F_CNMPOS, "%llu",
					     (unsigned long long)s.cnm_positive);
					SETF(&r, F_APSTEPS, "%llu",
					     (unsigned long long)s.ap_steps);
				}
				if (len >= (int)(offsetof(struct tc_qcn_rp_xstats, stamp_ns) +
						 sizeof(s.stamp_ns)))
					stamp = s.stamp_ns;
				if (len >= (int)(offsetof(struct tc_qcn_rp_xstats, pfc_paused_ns) +
						 sizeof(s.pfc_paused_ns)))
					pfc_rx_cols(&r, s.pfc_rx, s.pfc_paused_ns);
			} else if (!strcmp(kind, "qcn_rp") && cls &&
				   len >= (int)offsetof(struct tc_qcn_rp_class_xstats, stamp_ns)) {
				struct tc_qcn_rp_class_xstats s;

				memset(&s, 0, sizeof(s));
				memcpy(&s, x, len < (int)sizeof(s) ? (size_t)len : sizeof(s));
				stamp = s.stamp_ns;
				qcn_flow_str(r.v[F_FLOW], sizeof(r.v[F_FLOW]), &s.key);
				SETF(&r, F_CR, "%llu", (unsigned long long)s.cr * 8);
				SETF(&r, F_TR, "%llu", (unsigned long long)s.tr * 8);
				SETF(&r, F_STATE, "%s", state_name(s.state));
				SETF(&r, F_CNMRX, "%llu", (unsigned long long)s.cnm_rx);
				if (!r.v[F_BYTES][0]) {
					bytes = s.bytes_sent;
					SETF(&r, F_BYTES, "%llu", (unsigned long long)bytes);
				}
			}
		}
		if (r.v[F_BYTES][0]) {
			double rate = rate_of(dev, tcm->tcm_handle,
					      cls, bytes, stamp);

			if (rate >= 0)
				SETF(&r, F_RATE, "%.0f", rate);
		}
	}
	if (emit(&r)) {
		fprintf(stderr, "qcnstat: out of memory\n");
		exit(1);
	}
	rows++;
	return NL_OK;
}

static int dump(struct nl_sock *sk, int type, int ifindex)
{
	struct tcmsg tcm = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex };
	int err;

	err = nl_send_simple(sk, type, NLM_F_DUMP, &tcm, sizeof(tcm));
	if (err < 0)
		return err;
	return nl_recvmsgs_default(sk);
}

/* setns() into /run/netns/NAME */
static int enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "qcnstat: netns %s: %s\n", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * Opens a socket in each namespace named by -d NS:DEV (and one for plain
 * DEVs, in qcnstat's own namespace) and finds the devices' ifindexes
 * there; qcnstat itself stays in its own namespace.
 */
static int open_devs(const char **names)
{
	int home, i, n, err = -1;
	struct nl_cache *links;

	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0) {
		fprintf(stderr, "qcnstat: /proc/self/ns/net: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < ndevs; i++) {
		const char *colon = strrchr(names[i], ':');
		char ns[256] = "";

		snprintf(devs[i].name, sizeof(devs[i].name), "%s", names[i]);
		if (colon)
			snprintf(ns, sizeof(ns), "%.*s", (int)(colon - names[i]), names[i]);
		if (colon && (!*ns || !colon[1] || strchr(ns, '/'))) {
			fprintf(stderr, "qcnstat: bad device \"%s\" (DEV or NS:DEV)\n",
				names[i]);
			goto out;
		}
		for (n = 0; n < nnss; n++)
			if (!nss[n].name == !colon &&
			    (!colon || !strcmp(nss[n].name, ns)))
				break;
		if (n == nnss) {
			nss[n].name = colon ? strdup(ns) : NULL;
			if (colon && (!nss[n].name || enter_netns(ns)))
				goto out;
			nss[n].sk = nl_socket_alloc();
			if (!nss[n].sk || nl_connect(nss[n].sk, NETLINK_ROUTE) < 0) {
				fprintf(stderr, "qcnstat: cannot open an rtnetlink socket\n");
				goto out;
			}
			nl_socket_disable_seq_check(nss[n].sk);
			nl_socket_modify_cb(nss[n].sk, NL_CB_VALID, NL_CB_CUSTOM, on_msg,
					    (void *)(intptr_t)n);
			nnss++;
			if (colon && setns(home, CLONE_NEWNET) < 0) {
				fprintf(stderr, "qcnstat: back to our netns: %s\n",
					strerror(errno));
				goto out;
			}
		}
		devs[i].ns = n;
		if (rtnl_link_alloc_cache(nss[n].sk, AF_UNSPEC, &links) < 0) {
			fprintf(stderr, "qcnstat: cannot read the links\n");
			goto out;
		}
		devs[i].ifindex = rtnl_link_name2i(links, colon ? colon + 1 : names[i]);
		nl_cache_free(links);
		if (!devs[i].ifindex) {
			fprintf(stderr, "qcnstat: no such device \"%s\"\n", names[i]);
			goto out;
		}
	}
	err = 0;
out:
	close(home);
	return err;
}

/* the first poll printed nothing: say where qcnstat looked */
static void nothing_found(const char *when)
{
	int i;

	fprintf(stderr, "qcnstat: no %s on", all ? "qdisc" : "qcn or qcn_rp qdisc");
	for (i = 0; i < ndevs; i++)
		fprintf(stderr, "%s %s", i ? "," : "", devs[i].name);
	fprintf(stderr, "%s\n", when);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "netns", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },
		{ "monotonic", no_argument, NULL, 'm' },
		{ "csv", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *names[MAX_DEVS], *netns = NULL, *outfile = NULL;
	long long interval_us = 100000, duration_us = -1;
	uint64_t ns;
	long count = -1, polls = 0;
	double start, next;
	int c, i, n, err;

	while ((c = getopt_long(argc, argv, "d:i:c:t:o:n:amh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (ndevs == MAX_DEVS) {
				fprintf(stderr, "qcnstat: at most %d devices\n", MAX_DEVS);
				return 2;
			}
			names[ndevs++] = optarg;
			break;
		case 'i':
			if (tcu_get_time(&ns, optarg) || ns < 100000 ||
			    ns > 86400000000000ULL) {
				fprintf(stderr, "qcnstat: bad interval \"%s\" (100us .. 1 day, e.g. 10ms)\n",
					optarg);
				return 2;
			}
			interval_us = (long long)(ns / 1000);
			break;
		case 'c':
			if (tcu_get_u64(&ns, optarg) || !ns || ns > LONG_MAX) {
				fprintf(stderr, "qcnstat: bad count \"%s\"\n", optarg);
				return 2;
			}
			count = (long)ns;
			break;
		case 't':
			if (tcu_get_time(&ns, optarg) || ns < 1000 ||
			    ns > 100 * 365 * 86400000000000ULL) {
				fprintf(stderr, "qcnstat: bad duration \"%s\" (e.g. 30s)\n", optarg);
				return 2;
			}
			duration_us = (long long)(ns / 1000);
			break;
		case 'o': outfile = optarg; break;
		case 'n': netns = optarg; break;
		case 'a': all = 1; break;
		case 'm': origin_abs = 1; break;
		case 'C': json = 0; break;
		case 'J': json = 1; break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (!ndevs || optind != argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (netns && enter_netns(netns))
		return 1;
	out = stdout;
	if (outfile && !(out = fopen(outfile, "w"))) {
		fprintf(stderr, "qcnstat: %s: %s\n", outfile, strerror(errno));
		return 1;
	}
	if (open_devs(names))
		return 1;

	if (!json)
		for (i = 0; i < F_NUM; i++)
			fprintf(out, "%s%s", cols[i].key, i + 1 < F_NUM ? "," : "\n");
	start = mono_ms();
	next = start;
	for (;;) {
		now_ms = mono_ms() - (origin_abs ? 0 : start);
		/* a namespace's qdisc dump covers its every device;
		 * classes are per device
		 */
		for (n = 0; n < nnss; n++) {
			err = dump(nss[n].sk, RTM_GETQDISC, 0);
			if (err < 0) {
				fprintf(stderr, "qcnstat: qdisc dump: %s\n", nl_geterror(err));
				return 1;
			}
		}
		for (i = 0; i < ndevs; i++) {
			err = dump(nss[devs[i].ns].sk, RTM_GETTCLASS, devs[i].ifindex);
			if (err < 0) {
				fprintf(stderr, "qcnstat: %s: %s\n", devs[i].name,
					nl_geterror(err));
				return 1;
			}
		}
		fflush(out);
		if (!polls && !rows)
			nothing_found(count == 1 ? "" : " (yet)");
		if (++polls == count)
			break;
		next += interval_us / 1000.0;
		if (duration_us > 0 && (next - start) * 1000.0 > duration_us)
			break;
		for (;;) {
			double t = mono_ms();
			struct timespec ts;

			if (t >= next)
				break;
			ts.tv_sec = (time_t)((next - t) / 1000);
			ts.tv_nsec = (long)(((next - t) - ts.tv_sec * 1000.0) * 1e6);
			nanosleep(&ts, NULL);
		}
	}
	for (n = 0; n < nnss; n++)
		nl_socket_free(nss[n].sk);
	if (out != stdout)
		fclose(out);
	/* polled and found nothing: a wrong device, namespace or option */
	return rows ? 0 : 1;
}
