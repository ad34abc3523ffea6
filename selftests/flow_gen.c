// SPDX-License-Identifier: GPL-2.0
/*
 * flow_gen: dynamic flows over permanent TCP connections, for the flow
 * completion time experiment of AF-QCN (Kabbani et al., Table I): flows
 * arrive as a Poisson process with Pareto sizes, each goes out on a free
 * connection (or waits for one), and its FCT is the time from its arrival
 * until the sink has acknowledged its last byte.
 *
 *   flow_gen sink -t SECONDS [-p PORT]
 *   flow_gen send -d ADDR -l LOAD -t SECONDS [options]
 *
 * On the wire a flow is a 16-byte header (flow id and payload size, both
 * 64-bit big-endian) and its payload; the sink answers each complete flow
 * with its 8-byte id.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "tc_units.h"

#define MAX_CONNS 1024
#define HDR 16

static const char usage_text[] =
"Usage: flow_gen sink -t SECONDS [-p PORT]\n"
"       flow_gen send -d ADDR -l LOAD -t SECONDS [-p PORT] [-n CONNS]\n"
"                     [-m MEAN] [-a SHAPE] [-u UNIT] [-w WARMUP] [-D DRAIN]\n"
"                     [-S SEED] [-o FILE]\n"
"\n"
"Dynamic flows over permanent TCP connections (AF-QCN's Table I).\n"
"sink: accepts connections on PORT for SECONDS, reads flows (a 16-byte\n"
"header: id and payload size, 64-bit big-endian; then the payload) and\n"
"answers each complete flow with its 8-byte id.\n"
"send: opens CONNS connections to ADDR:PORT; flows arrive as a Poisson\n"
"process of offered load LOAD (mean gap = MEAN * 8 / LOAD: the nominal\n"
"mean, as the paper offers it; Pareto(1.1) draws average less) until\n"
"SECONDS, with Pareto sizes of mean MEAN and shape SHAPE rounded to whole\n"
"UNITs (at least one); a flow goes out on a free connection, else waits in\n"
"arrival order for one.  Its FCT is from its arrival to the sink's answer.\n"
"It then waits up to DRAIN seconds for the flows still open and prints,\n"
"over the flows that arrived at or after WARMUP:\n"
"  # arrivals: N flows, offered X mbps, done D, mean size S bytes, mean\n"
"    wait W us\n"
"  # fct [LO,HI[ KB: flows N, done D, mean M us, median P us\n"
"(bins [1,10[, [10,100[, [100,1000[, [1000,inf[ KB and all; KB = 1000\n"
"bytes; wait: arrival to the first byte written).\n"
"\n"
"  -p PORT      TCP port (default 9100)\n"
"  -t SECONDS   sink: run time; send: arrivals until then (decimal)\n"
"  -d ADDR      IPv4 address of the sink\n"
"  -l LOAD      offered load, tc's units (50mbit; a bare number is bit/s)\n"
"  -n CONNS     connections, 1..1024 (default 4)\n"
"  -m MEAN      mean flow size, tc's units (default 10000 bytes; 1kb = 1024)\n"
"  -a SHAPE     Pareto shape, 1 < SHAPE <= 100 (default 1.1)\n"
"  -u UNIT      sizes are whole UNITs, tc's units (default 1000 bytes)\n"
"  -w WARMUP    summary over flows arriving from WARMUP seconds (default 0)\n"
"  -D DRAIN     seconds to wait for open flows after -t (default 2)\n"
"  -S SEED      random seed, a whole number (default 1)\n"
"  -o FILE      every flow, CSV: flow,conn,bytes,arrive_us,start_us,end_us,\n"
"               fct_us (end and fct empty when not done)\n"
"  -h, --help   this text\n"
"Exit status: 0, 1 on a socket or file error, 2 on bad usage.\n";

#define TOOL_NAME "flow_gen"
#include "tool_cli.h"

static double seconds_arg(const char *what, const char *s, int zero_ok)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || (!zero_ok && !(v > 0)) || v > 1e6)
		usage(what, s);
	return v;
}

static int nonblock_nodelay(int fd)
{
	int one = 1, fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static char buf[65536];

/* ------------------------------------------------------------ sink */

struct sconn {
	int fd;
	unsigned char hdr[HDR];
	unsigned int got;	/* header bytes read */
	uint64_t id, left;	/* payload bytes still to come */
};

static int sink_reply(struct sconn *c)
{
	uint64_t id = htobe64(c->id);

	/* 8 bytes into an almost empty send buffer: a short write is an error */
	if (send(c->fd, &id, sizeof(id), MSG_NOSIGNAL) != sizeof(id))
		return -1;
	c->got = 0;
	return 0;
}

/* consume n bytes read on c; -1 when the peer must be dropped */
static int sink_data(struct sconn *c, const unsigned char *p, size_t n)
{
	while (n) {
		if (c->got < HDR) {
			size_t k = HDR - c->got < n ? HDR - c->got : n;

			memcpy(c->hdr + c->got, p, k);
			c->got += k;
			p += k;
			n -= k;
			if (c->got < HDR)
				break;
			memcpy(&c->id, c->hdr, 8);
			memcpy(&c->left, c->hdr + 8, 8);
			c->id = be64toh(c->id);
			c->left = be64toh(c->left);
			if (!c->left && sink_reply(c) < 0)
				return -1;
			continue;
		}
		size_t k = c->left < n ? c->left : n;

		c->left -= k;
		p += k;
		n -= k;
		if (!c->left && sink_reply(c) < 0)
			return -1;
	}
	return 0;
}

static int run_sink(unsigned short port, double secs)
{
	static struct pollfd pfd[MAX_CONNS + 1];
	static struct sconn conns[MAX_CONNS];
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int lfd, one = 1, n = 0, i;
	double t0 = now(), left;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(lfd, 128) < 0) {
		perror("flow_gen sink");
		return 1;
	}
	while ((left = secs - (now() - t0)) > 0) {
		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (i = 0; i < n; i++)
			pfd[i + 1] = (struct pollfd){ .fd = conns[i].fd, .events = POLLIN };
		if (poll(pfd, n + 1, (int)(left * 1000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			perror("flow_gen sink: poll");
			return 1;
		}
		for (i = n - 1; i >= 0; i--) {
			ssize_t r;

			if (!pfd[i + 1].revents)
				continue;
			r = recv(conns[i].fd, buf, sizeof(buf), 0);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r > 0 && sink_data(&conns[i], (unsigned char *)buf, r) < 0)
				r = -2;
			if (r < 0)
				fprintf(stderr, "flow_gen sink: dropping a connection: %s\n",
					r == -2 ? "answer not sent" : strerror(errno));
			if (r <= 0) {
				close(conns[i].fd);
				conns[i] = conns[--n];
			}
		}
		if (pfd[0].revents & POLLIN) {
			int fd = accept(lfd, NULL, NULL);

			if (fd < 0)
				continue;
			if (n == MAX_CONNS || nonblock_nodelay(fd) < 0) {
				close(fd);
				continue;
			}
			conns[n++] = (struct sconn){ .fd = fd };
		}
	}
	return 0;
}

/* ------------------------------------------------------------ sender */

struct flow {
	uint64_t bytes;
	double arrive, start, end;	/* s; start/end 0 until then */
	int conn;
};

struct cconn {
	int fd;
	long flow;		/* index of the flow it carries, -1 when free */
	uint64_t sent, total;	/* header + payload bytes */
	unsigned char hdr[HDR], rep[8];
	unsigned int rgot;
};

static uint64_t rng_state;

/* splitmix64: uniform in (0, 1) */
static double uniform(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((z >> 11) + 0.5) / 9007199254740992.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void summary(const struct flow *f, long nf, double warm, double until)
{
	static const double lo[] = { 1000, 10000, 100000, 1000000, 0 };
	static const char *const name[] = { "[1,10[", "[10,100[", "[100,1000[",
					    "[1000,inf[", "all" };
	double *v = malloc((nf + 1) * sizeof(*v)), bytes = 0, wait = 0;
	long i, arrived = 0, done = 0, started = 0;
	int b;

	if (!v) {
		perror("flow_gen");
		exit(1);
	}
	for (i = 0; i < nf; i++) {
		if (f[i].arrive < warm)
			continue;
		arrived++;
		bytes += f[i].bytes;
		done += f[i].end > 0;
		if (f[i].start > 0) {
			started++;
			wait += f[i].start - f[i].arrive;
		}
	}
	printf("# arrivals: %ld flows, offered %.2f mbps, done %ld, mean size %.0f bytes, "
	       "mean wait %.1f us\n", arrived, until > warm ? bytes * 8 / (until - warm) / 1e6 : 0,
	       done, arrived ? bytes / arrived : 0, started ? wait / started * 1e6 : 0);
	for (b = 0; b < 5; b++) {
		long nb = 0, nd = 0;
		double sum = 0;

		for (i = 0; i < nf; i++) {
			if (f[i].arrive < warm ||
			    (b < 4 && (f[i].bytes < lo[b] || (b < 3 && f[i].bytes >= lo[b + 1]))))
				continue;
			nb++;
			if (f[i].end > 0) {
				v[nd++] = f[i].end - f[i].arrive;
				sum += f[i].end - f[i].arrive;
			}
		}
		if (!nb)
			continue;
		qsort(v, nd, sizeof(*v), cmp_double);
		printf("# fct %s KB: flows %ld, done %ld, mean %.1f us, median %.1f us\n", name[b],
		       nb, nd, nd ? sum / nd * 1e6 : 0, nd ? v[(nd - 1) / 2] * 1e6 : 0);
	}
	free(v);
}

struct send_opts {
	struct sockaddr_in sin;
	double load, mean, shape, unit, secs, warm, drain;
	int nconns;
	const char *out;
};

/* write what the socket takes of c's flow; -1 on error */
static int conn_write(struct cconn *c)
{
	while (c->sent < c->total) {
		struct iovec iov[2];
		int k = 0;
		uint64_t pay = c->total - (c->sent > HDR ? c->sent : HDR);
		ssize_t r;

		if (c->sent < HDR)
			iov[k++] = (struct iovec){ c->hdr + c->sent, HDR - c->sent };
		if (pay)
			iov[k++] = (struct iovec){ buf, pay < sizeof(buf) ? pay : sizeof(buf) };
		r = writev(c->fd, iov, k);
		if (r < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		c->sent += r;
	}
	return 0;
}

static int run_send(const struct send_opts *o)
{
	static struct cconn cc[MAX_CONNS];
	static struct pollfd pfd[MAX_CONNS];
	double gap = o->mean * 8 / o->load, xm = o->mean * (o->shape - 1) / o->shape;
	double t0, t, next, stop;
	long nf = 0, cap = 0, head = 0, open = 0, i;
	struct flow *f = NULL;
	int k;

	for (k = 0; k < o->nconns; k++) {
		cc[k] = (struct cconn){ .fd = socket(AF_INET, SOCK_STREAM, 0), .flow = -1 };
		if (cc[k].fd < 0 ||
		    connect(cc[k].fd, (const struct sockaddr *)&o->sin, sizeof(o->sin)) < 0 ||
		    nonblock_nodelay(cc[k].fd) < 0) {
			perror("flow_gen send: connect");
			return 1;
		}
	}
	t0 = now();
	next = -log(uniform()) * gap;
	stop = o->secs + o->drain;
	for (;;) {
		t = now() - t0;
		/* arrivals due by now, at their own (Poisson) times */
		while (next < o->secs && next <= t) {
			double x = xm * pow(uniform(), -1 / o->shape), u = floor(x / o->unit + 0.5);

			if (nf == cap) {
				cap = cap ? 2 * cap : 4096;
				f = realloc(f, cap * sizeof(*f));
				if (!f) {
					perror("flow_gen");
					return 1;
				}
			}
			f[nf++] = (struct flow){ .bytes = (uint64_t)((u < 1 ? 1 : u) * o->unit),
						 .arrive = next, .conn = -1 };
			next += -log(uniform()) * gap;
		}
		/* waiting flows onto free connections, in arrival order */
		for (k = 0; k < o->nconns && head < nf; k++) {
			struct cconn *c = &cc[k];
			uint64_t id, sz;

			if (c->flow >= 0)
				continue;
			c->flow = head;
			f[head].conn = k;
			f[head].start = t > f[head].arrive ? t : f[head].arrive;
			id = htobe64((uint64_t)head);
			sz = htobe64(f[head].bytes);
			memcpy(c->hdr, &id, 8);
			memcpy(c->hdr + 8, &sz, 8);
			c->sent = 0;
			c->total = HDR + f[head].bytes;
			c->rgot = 0;
			head++;
			open++;
			if (conn_write(c) < 0) {
				perror("flow_gen send: write");
				return 1;
			}
		}
		if ((t >= o->secs && !open && head == nf) || t >= stop)
			break;
		for (k = 0; k < o->nconns; k++)
			pfd[k] = (struct pollfd){ .fd = cc[k].fd, .events = POLLIN |
				(cc[k].flow >= 0 && cc[k].sent < cc[k].total ? POLLOUT : 0) };
		{
			/* the next arrival, else the end of arrivals (done if
			 * nothing is open then), else the end of the drain */
			double w = (next < o->secs ? next : t < o->secs ? o->secs : stop) - t;
			struct timespec ts = { .tv_sec = (time_t)w,
					       .tv_nsec = (long)((w - (time_t)w) * 1e9) };

			if (w < 0)
				ts = (struct timespec){ 0, 0 };
			if (ppoll(pfd, o->nconns, &ts, NULL) < 0 && errno != EINTR) {
				perror("flow_gen send: poll");
				return 1;
			}
		}
		for (k = 0; k < o->nconns; k++) {
			struct cconn *c = &cc[k];
			ssize_t r;

			if (pfd[k].revents & POLLOUT && conn_write(c) < 0) {
				perror("flow_gen send: write");
				return 1;
			}
			if (!(pfd[k].revents & (POLLIN | POLLERR | POLLHUP)))
				continue;
			r = recv(c->fd, c->rep + c->rgot, sizeof(c->rep) - c->rgot, 0);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				fprintf(stderr, "flow_gen send: connection %d: %s\n", k,
					r ? strerror(errno) : "closed by the sink");
				return 1;
			}
			c->rgot += r;
			if (c->rgot == sizeof(c->rep)) {
				uint64_t id;

				memcpy(&id, c->rep, 8);
				id = be64toh(id);
				if (c->flow < 0 || id != (uint64_t)c->flow) {
					fprintf(stderr, "flow_gen send: connection %d: answer for flow %llu, "
						"expected %ld\n", k, (unsigned long long)id, c->flow);
					return 1;
				}
				f[c->flow].end = now() - t0;
				c->flow = -1;
				c->rgot = 0;
				open--;
			}
		}
	}
	if (o->out) {
		FILE *out = fopen(o->out, "w");

		if (!out) {
			perror(o->out);
			return 1;
		}
		fprintf(out, "flow,conn,bytes,arrive_us,start_us,end_us,fct_us\n");
		for (i = 0; i < nf; i++) {
			fprintf(out, "%ld,%d,%llu,%.1f,", i, f[i].conn, (unsigned long long)f[i].bytes,
				f[i].arrive * 1e6);
			if (f[i].start > 0)
				fprintf(out, "%.1f", f[i].start * 1e6);
			if (f[i].end > 0)
				fprintf(out, ",%.1f,%.1f\n", f[i].end * 1e6,
					(f[i].end - f[i].arrive) * 1e6);
			else
				fprintf(out, ",,\n");
		}
		if (fclose(out)) {
			perror(o->out);
			return 1;
		}
	}
	summary(f, nf, o->warm, o->secs);
	free(f);
	for (k = 0; k < o->nconns; k++)
		close(cc[k].fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct send_opts o = {
		.sin = { .sin_family = AF_INET, .sin_port = htons(9100) },
		.mean = 10000, .shape = 1.1, .unit = 1000, .drain = 2, .nconns = 4,
	};
	int c, sink, have_addr = 0;
	uint64_t v;
	char *end;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc < 2 || (strcmp(argv[1], "sink") && strcmp(argv[1], "send")))
		usage("need a mode, sink or send:", argc < 2 ? "" : argv[1]);
	sink = !strcmp(argv[1], "sink");
	optind = 2;
	rng_state = 1;
	while ((c = getopt_long(argc, argv, "p:t:d:l:n:m:a:u:w:D:S:o:h", opts, NULL)) != -1) {
		if (sink && !strchr("pth", c))
			usage("not an option of sink:", argv[optind - 1]);
		switch (c) {
		case 'p':
			if (tcu_get_u64(&v, optarg) || !v || v > 65535)
				usage("bad port", optarg);
			o.sin.sin_port = htons((unsigned short)v);
			break;
		case 't':
			o.secs = seconds_arg("bad -t (seconds)", optarg, 0);
			break;
		case 'd':
			if (inet_pton(AF_INET, optarg, &o.sin.sin_addr) != 1)
				usage("bad IPv4 address", optarg);
			have_addr = 1;
			break;
		case 'l':
			if (tcu_get_rate(&v, optarg) || !v)
				usage("bad load (e.g. 50mbit)", optarg);
			o.load = (double)v;
			break;
		case 'n':
			if (tcu_get_u64(&v, optarg) || !v || v > MAX_CONNS)
				usage("bad connection count (1..1024)", optarg);
			o.nconns = (int)v;
			break;
		case 'm':
			if (tcu_get_size(&v, optarg) || !v)
				usage("bad mean size", optarg);
			o.mean = (double)v;
			break;
		case 'a':
			errno = 0;
			o.shape = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o.shape > 1 && o.shape <= 100))
				usage("bad shape (1 < SHAPE <= 100)", optarg);
			break;
		case 'u':
			if (tcu_get_size(&v, optarg) || !v || v > 1000000000)
				usage("bad unit", optarg);
			o.unit = (double)v;
			break;
		case 'w':
			o.warm = seconds_arg("bad -w (seconds)", optarg, 1);
			break;
		case 'D':
			o.drain = seconds_arg("bad -D (seconds)", optarg, 1);
			break;
		case 'S':
			if (tcu_get_u64(&v, optarg))
				usage("bad seed", optarg);
			rng_state = v;
			break;
		case 'o':
			o.out = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			usage(NULL, NULL);
		}
	}
	if (optind < argc)
		usage("unexpected argument", argv[optind]);
	if (!o.secs)
		usage("need -t SECONDS", "");
	signal(SIGPIPE, SIG_IGN);
	if (sink)
		return run_sink(ntohs(o.sin.sin_port), o.secs);
	if (!have_addr || !o.load)
		usage("send needs -d ADDR and -l LOAD", "");
	if (o.warm >= o.secs)
		usage("-w must be below -t", "");
	return run_send(&o);
}
