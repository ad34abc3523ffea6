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
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/route/link.h>

#include <uapi/linux/qcn.h>

#define MAX_DEVS	16
#define MAX_PREV	4096

static const char *usage_text =
"Usage: qcnstat [OPTIONS] -d DEV [-d DEV ...]\n"
"\n"
"Polls the statistics of the qcn and qcn_rp qdiscs on DEV, and of their\n"
"classes (AF-QCN classes of qcn, rate limiters of qcn_rp), every INTERVAL,\n"
"and prints one line per qdisc or class and poll.\n"
"\n"
"Options:\n"
"  -d, --dev DEV        device to poll (repeatable, up to 16)\n"
"  -i, --interval T     polling interval: 10ms (default 100ms), 1s, 500us\n"
"  -c, --count N        stop after N polls\n"
"  -t, --duration T     stop after T (e.g. 30s)\n"
"      --csv            CSV with a header line (default)\n"
"      --json           one JSON object per line\n"
"  -o, --output FILE    write to FILE instead of stdout\n"
"  -n, --netns NAME     poll inside network namespace NAME (/run/netns/NAME)\n"
"  -a, --all            all qdiscs on DEV, not only qcn and qcn_rp\n"
"  -m, --monotonic      t_ms is CLOCK_MONOTONIC itself, not since the start\n"
"                       (to line up with cnm_send's or udp_sink's stamps)\n"
"  -h, --help           this text\n"
"\n"
"Columns (CSV; JSON lines use the same keys, omitting empty ones):\n"
"  t_ms        ms since qcnstat started (CLOCK_MONOTONIC; -m: absolute)\n"
"  dev kind handle parent   the object (class lines: kind qcn-class or\n"
"              qcn_rp-limiter)\n"
"  bytes packets drops backlog qlen   the standard tc counters\n"
"  rate_bps    bit/s from the bytes delta since the previous poll\n"
"  qcn:        samples cnms last_qfb qold tail_drops\n"
"  qcn_rp:     cnm_rx cnm_unmatched cnm_malformed limiters\n"
"  limiter:    flow cr_bps tr_bps state cnm_rx\n"
"  AF class:   weight rate_est_bps fair_bps fb_af cnm_sent\n";

static const char *cols =
	"t_ms,dev,kind,handle,parent,bytes,packets,drops,backlog,qlen,rate_bps,"
	"samples,cnms,last_qfb,qold,tail_drops,cnm_rx,cnm_unmatched,cnm_malformed,"
	"limiters,flow,cr_bps,tr_bps,state,weight,rate_est_bps,fair_bps,fb_af,cnm_sent";

enum { F_SAMPLES = 11, F_CNMS, F_QFB, F_QOLD, F_TDROPS, F_CNMRX, F_UNM, F_MAL,
	F_LIMS, F_FLOW, F_CR, F_TR, F_STATE, F_WEIGHT, F_REST, F_FAIR, F_FBAF,
	F_CNMSENT, F_NUM };

struct row {
	char v[F_NUM][128];
};

static const char *keys[F_NUM] = {
	"t_ms", "dev", "kind", "handle", "parent", "bytes", "packets", "drops",
	"backlog", "qlen", "rate_bps", "samples", "cnms", "last_qfb", "qold",
	"tail_drops", "cnm_rx", "cnm_unmatched", "cnm_malformed", "limiters",
	"flow", "cr_bps", "tr_bps", "state", "weight", "rate_est_bps", "fair_bps",
	"fb_af", "cnm_sent",
};

static struct {
	int ifindex;
	char name[IFNAMSIZ];
} devs[MAX_DEVS];
static int ndevs, json, all, origin_abs;
static FILE *out;
static double now_ms;

/* previous byte counters, for rates: (ifindex, handle, class?) */
static struct {
	int ifindex;
	__u32 handle;
	int cls;
	__u64 bytes;
	double t;
} prev[MAX_PREV];
static int nprev;

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* "10ms", "1s", "500us", "2.5s" -> microseconds */
static long long parse_time_us(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	if (!*end || !strcmp(end, "s"))
		return (long long)(v * 1e6);
	if (!strcmp(end, "ms"))
		return (long long)(v * 1e3);
	if (!strcmp(end, "us"))
		return (long long)v;
	return -1;
}

static double rate_of(int ifindex, __u32 handle, int cls, __u64 bytes)
{
	int i;

	for (i = 0; i < nprev; i++) {
		if (prev[i].ifindex == ifindex && prev[i].handle == handle &&
		    prev[i].cls == cls) {
			double r = -1;

			if (now_ms > prev[i].t && bytes >= prev[i].bytes)
				r = (bytes - prev[i].bytes) * 8.0 * 1000.0 /
				    (now_ms - prev[i].t);
			prev[i].bytes = bytes;
			prev[i].t = now_ms;
			return r;
		}
	}
	if (nprev < MAX_PREV) {
		prev[nprev].ifindex = ifindex;
		prev[nprev].handle = handle;
		prev[nprev].cls = cls;
		prev[nprev].bytes = bytes;
		prev[nprev].t = now_ms;
		nprev++;
	}
	return -1;
}

static void handle_str(char *buf, size_t len, __u32 h)
{
	if (h == TC_H_ROOT)
		snprintf(buf, len, "root");
	else
		snprintf(buf, len, "%x:%x", TC_H_MAJ(h) >> 16, TC_H_MIN(h));
}

static void emit(struct row *r)
{
	int i, first = 1;

	if (!json) {
		for (i = 0; i < F_NUM; i++)
			fprintf(out, "%s%s", i ? "," : "", r->v[i]);
		fputc('\n', out);
		return;
	}
	fputc('{', out);
	for (i = 0; i < F_NUM; i++) {
		const char *v = r->v[i];
		char *end;

		if (!*v)
			continue;
		strtod(v, &end);
		if (*end || i == 1 || i == 2 || i == 3 || i == 4)
			fprintf(out, "%s\"%s\":\"%s\"", first ? "" : ",", keys[i], v);
		else
			fprintf(out, "%s\"%s\":%s", first ? "" : ",", keys[i], v);
		first = 0;
	}
	fputs("}\n", out);
}

#define SETF(r, f, fmt, ...) snprintf((r)->v[f], sizeof((r)->v[f]), fmt, __VA_ARGS__)

static const char *state_name(__u32 s)
{
	static const char * const n[] = { "fr", "ai", "hai", "released" };

	return s < 4 ? n[s] : "?";
}

static void flow_str(char *buf, size_t len, const struct tc_qcn_rp_flow_key *k)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	if (k->family == AF_INET || k->family == AF_INET6) {
		inet_ntop(k->family, k->saddr, a, sizeof(a));
		inet_ntop(k->family, k->daddr, b, sizeof(b));
		snprintf(buf, len, "%s:%u>%s:%u/%u", a, ntohs(k->sport), b,
			 ntohs(k->dport), k->proto);
	} else {
		snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x/%u", k->dmac[0],
			 k->dmac[1], k->dmac[2], k->dmac[3], k->dmac[4],
			 k->dmac[5], k->prio);
	}
}

static int on_msg(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct tcmsg *tcm = nlmsg_data(nlh);
	struct nlattr *tb[TCA_MAX + 1], *st[TCA_STATS_MAX + 1];
	const char *kind = "";
	int cls = nlh->nlmsg_type == RTM_NEWTCLASS, i, dev = -1;
	struct row r;
	__u64 bytes = 0;

	(void)arg;
	if (nlh->nlmsg_type != RTM_NEWQDISC && !cls)
		return NL_OK;
	for (i = 0; i < ndevs; i++)
		if (devs[i].ifindex == tcm->tcm_ifindex)
			dev = i;
	if (dev < 0 ||
	    nlmsg_parse(nlh, sizeof(*tcm), tb, TCA_MAX, NULL) < 0)
		return NL_OK;
	if (tb[TCA_KIND])
		kind = nla_get_string(tb[TCA_KIND]);
	if (!all && strcmp(kind, "qcn") && strcmp(kind, "qcn_rp"))
		return NL_OK;

	memset(&r, 0, sizeof(r));
	SETF(&r, 0, "%.1f", now_ms);
	SETF(&r, 1, "%s", devs[dev].name);
	SETF(&r, 2, "%s%s", kind, !cls ? "" : !strcmp(kind, "qcn") ? "-class" :
	     !strcmp(kind, "qcn_rp") ? "-limiter" : "-class");
	handle_str(r.v[3], sizeof(r.v[3]), tcm->tcm_handle);
	handle_str(r.v[4], sizeof(r.v[4]), tcm->tcm_parent);

	if (tb[TCA_STATS2] &&
	    nla_parse_nested(st, TCA_STATS_MAX, tb[TCA_STATS2], NULL) >= 0) {
		if (st[TCA_STATS_BASIC] &&
		    nla_len(st[TCA_STATS_BASIC]) >= (int)sizeof(struct gnet_stats_basic)) {
			struct gnet_stats_basic b;

			memcpy(&b, nla_data(st[TCA_STATS_BASIC]), sizeof(b));
			bytes = b.bytes;
			SETF(&r, 5, "%llu", (unsigned long long)b.bytes);
			SETF(&r, 6, "%u", b.packets);
		}
		if (st[TCA_STATS_QUEUE] &&
		    nla_len(st[TCA_STATS_QUEUE]) >= (int)sizeof(struct gnet_stats_queue)) {
			struct gnet_stats_queue q;

			memcpy(&q, nla_data(st[TCA_STATS_QUEUE]), sizeof(q));
			SETF(&r, 7, "%u", q.drops);
			SETF(&r, 8, "%u", q.backlog);
			SETF(&r, 9, "%u", q.qlen);
		}
		if (r.v[5][0]) {
			double rate = rate_of(tcm->tcm_ifindex, tcm->tcm_handle, cls, bytes);

			if (rate >= 0)
				SETF(&r, 10, "%.0f", rate);
		}
		if (st[TCA_STATS_APP]) {
			void *x = nla_data(st[TCA_STATS_APP]);
			int len = nla_len(st[TCA_STATS_APP]);

			/* older modules send a shorter struct (no gso_split, no
			 * memory counters): the fields shown here are all there
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
			} else if (!strcmp(kind, "qcn") && cls &&
				   len >= (int)sizeof(struct tc_qcn_class_xstats)) {
				struct tc_qcn_class_xstats s;

				memcpy(&s, x, sizeof(s));
				SETF(&r, F_WEIGHT, "%u", s.weight);
				SETF(&r, F_REST, "%llu", (unsigned long long)s.rate_est * 8);
				SETF(&r, F_FAIR, "%llu", (unsigned long long)s.fair_share * 8);
				SETF(&r, F_FBAF, "%u", s.last_fb_af);
				SETF(&r, F_CNMSENT, "%llu", (unsigned long long)s.cnm_sent);
			} else if (!strcmp(kind, "qcn_rp") && !cls &&
				   len >= (int)sizeof(struct tc_qcn_rp_xstats)) {
				struct tc_qcn_rp_xstats s;

				memcpy(&s, x, sizeof(s));
				SETF(&r, F_CNMRX, "%llu", (unsigned long long)s.cnm_rx);
				SETF(&r, F_UNM, "%llu", (unsigned long long)s.cnm_unmatched);
				SETF(&r, F_MAL, "%llu", (unsigned long long)s.cnm_malformed);
				SETF(&r, F_LIMS, "%u", s.limiters_active);
			} else if (!strcmp(kind, "qcn_rp") && cls &&
				   len >= (int)sizeof(struct tc_qcn_rp_class_xstats)) {
				struct tc_qcn_rp_class_xstats s;

				memcpy(&s, x, sizeof(s));
				flow_str(r.v[F_FLOW], sizeof(r.v[F_FLOW]), &s.key);
				SETF(&r, F_CR, "%llu", (unsigned long long)s.cr * 8);
				SETF(&r, F_TR, "%llu", (unsigned long long)s.tr * 8);
				SETF(&r, F_STATE, "%s", state_name(s.state));
				SETF(&r, F_CNMRX, "%llu", (unsigned long long)s.cnm_rx);
				if (!r.v[5][0]) {
					bytes = s.bytes_sent;
					SETF(&r, 5, "%llu", (unsigned long long)bytes);
					double rate = rate_of(tcm->tcm_ifindex, tcm->tcm_handle, cls, bytes);

					if (rate >= 0)
						SETF(&r, 10, "%.0f", rate);
				}
			}
		}
	}
	emit(&r);
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
	long count = -1, polls = 0;
	struct nl_cache *links;
	struct nl_sock *sk;
	double start, next;
	int c, i, err;

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
			interval_us = parse_time_us(optarg);
			if (interval_us < 100) {
				fprintf(stderr, "qcnstat: bad interval \"%s\" (>= 100us)\n", optarg);
				return 2;
			}
			break;
		case 'c':
			count = strtol(optarg, NULL, 10);
			if (count <= 0) {
				fprintf(stderr, "qcnstat: bad count \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 't':
			duration_us = parse_time_us(optarg);
			if (duration_us <= 0) {
				fprintf(stderr, "qcnstat: bad duration \"%s\"\n", optarg);
				return 2;
			}
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
	if (netns) {
		char path[256];
		int fd;

		snprintf(path, sizeof(path), "/run/netns/%s", netns);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
			fprintf(stderr, "qcnstat: netns %s: %s\n", netns, strerror(errno));
			return 1;
		}
		close(fd);
	}
	out = stdout;
	if (outfile && !(out = fopen(outfile, "w"))) {
		fprintf(stderr, "qcnstat: %s: %s\n", outfile, strerror(errno));
		return 1;
	}
	sk = nl_socket_alloc();
	if (!sk || nl_connect(sk, NETLINK_ROUTE) < 0) {
		fprintf(stderr, "qcnstat: cannot open an rtnetlink socket\n");
		return 1;
	}
	if (rtnl_link_alloc_cache(sk, AF_UNSPEC, &links) < 0) {
		fprintf(stderr, "qcnstat: cannot read the links\n");
		return 1;
	}
	for (i = 0; i < ndevs; i++) {
		devs[i].ifindex = rtnl_link_name2i(links, names[i]);
		if (!devs[i].ifindex) {
			fprintf(stderr, "qcnstat: no such device \"%s\"\n", names[i]);
			return 1;
		}
		snprintf(devs[i].name, sizeof(devs[i].name), "%s", names[i]);
	}
	nl_cache_free(links);
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_msg, NULL);

	if (!json)
		fprintf(out, "%s\n", cols);
	start = mono_ms();
	next = start;
	for (;;) {
		now_ms = mono_ms() - (origin_abs ? 0 : start);
		/* the qdisc dump covers every device; classes are per device */
		err = dump(sk, RTM_GETQDISC, 0);
		for (i = 0; i < ndevs && err >= 0; i++) {
			err = dump(sk, RTM_GETTCLASS, devs[i].ifindex);
			if (err < 0) {
				fprintf(stderr, "qcnstat: %s: %s\n", devs[i].name,
					nl_geterror(err));
				return 1;
			}
		}
		if (err < 0) {
			fprintf(stderr, "qcnstat: qdisc dump: %s\n", nl_geterror(err));
			return 1;
		}
		fflush(out);
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
	nl_socket_free(sk);
	if (out != stdout)
		fclose(out);
	return 0;
}
