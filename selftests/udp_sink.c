// SPDX-License-Identifier: GPL-2.0
/*
 * udp_sink: receive UDP on a port and count bytes per source address.
 *
 *   udp_sink PORT INTERVAL_MS DURATION_S [START_FILE]
 *
 * Every INTERVAL_MS prints one line per source seen so far:
 *   <ms since start> <source address> <cumulative payload bytes> <datagrams>
 *   <reordered>
 * so a test can take per-flow throughput over any window.  <reordered>
 * counts the datagrams of that address that arrived after one with a
 * higher sequence number from the same source port (udp_send puts its
 * datagram counter in the first 8 octets).  Exits after
 * DURATION_S seconds.  START_FILE receives the CLOCK_MONOTONIC time (ms)
 * of "ms since start" 0, to align other events with the counts.
 *
 * Datagrams are counted at the kernel's receive time (SO_TIMESTAMPNS),
 * not when this process gets to read them: in an emulated guest the
 * reader can lag by 100s of ms and then drain a backlog, which put
 * datagrams into the wrong windows.  A line for time T is printed once a
 * datagram stamped at or after T was read, or the socket is empty at T,
 * so it counts exactly the datagrams that arrived before T.
 */
#define _GNU_SOURCE		/* recvmmsg() */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "tc_units.h"

#define MAX_SRC 64
#define BATCH 64	/* datagrams read per recvmmsg() */
#define NSEC_MS 1000000LL

static const char usage_text[] =
"Usage: udp_sink PORT INTERVAL_MS DURATION_S [START_FILE]\n"
"\n"
"Receives UDP on PORT and counts payload bytes per source address.  Every\n"
"INTERVAL_MS it prints one line per source seen so far:\n"
"  <ms since start> <source address> <cumulative payload bytes> <datagrams>\n"
"and exits after DURATION_S seconds (both whole numbers).  START_FILE\n"
"receives the CLOCK_MONOTONIC time (ms) of \"ms since start\" 0.\n"
"Datagrams count at the kernel's receive time (SO_TIMESTAMPNS), and the\n"
"line for time T is printed once every datagram received before T was\n"
"read, so a slow reader does not move datagrams into later windows.\n"
"\n"
"  -h, --help   this text\n"
"Exit status: 0, 1 on a socket error, 2 on bad usage.\n";

/* a whole number 1..max, else 0 */
static long long whole(const char *s, uint64_t max)
{
	uint64_t v;

	return tcu_get_u64(&v, s) || v < 1 || v > max ? 0 : (long long)v;
}

struct src {
	struct in_addr addr;
	unsigned long long bytes, dgrams, reordered;
};

/* highest sequence number seen per source address + port */
#define MAX_PORTS 256
static struct {
	struct in_addr addr;
	unsigned short port;
	unsigned long long top;
} seqs[MAX_PORTS];
static int nseq;

/* 1 if seq from addr:port arrives after a higher one did */
static int reordered(struct in_addr addr, unsigned short port,
		     unsigned long long seq)
{
	int i;

	for (i = 0; i < nseq; i++)
		if (seqs[i].addr.s_addr == addr.s_addr && seqs[i].port == port)
			break;
	if (i == nseq) {
		if (nseq == MAX_PORTS)
			return 0;
		seqs[nseq].addr = addr;
		seqs[nseq].port = port;
		seqs[nseq++].top = seq;
		return 0;
	}
	if (seq < seqs[i].top)
		return 1;
	seqs[i].top = seq;
	return 0;
}

static struct src srcs[MAX_SRC];
static int n;
static long long start, next, end, interval;

static long long clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* print the lines for every boundary up to t (ns, CLOCK_MONOTONIC);
 * returns 1 once the duration is over */
static int lines_until(long long t)
{
	int i;

	while (next <= t) {
		for (i = 0; i < n; i++)
			printf("%lld %s %llu %llu %llu\n", (next - start) / NSEC_MS,
			       inet_ntoa(srcs[i].addr), srcs[i].bytes,
			       srcs[i].dgrams, srcs[i].reordered);
		if (next >= end)
			return 1;
		next += interval;
	}
	return 0;
}

/*
 * Count one datagram of r bytes, received as msg; returns 1 once the
 * duration is over.
 */
static int account(struct msghdr *msg, ssize_t r, long long rt_off)
{
	struct sockaddr_in *from = msg->msg_name;
	const char *buf = msg->msg_iov->iov_base;
	struct cmsghdr *cm;
	long long ts = 0;
	int i;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec st;

			memcpy(&st, CMSG_DATA(cm), sizeof(st));
			ts = st.tv_sec * 1000000000LL + st.tv_nsec - rt_off;
		}
	if (!ts)
		ts = clock_ns(CLOCK_MONOTONIC);
	if (lines_until(ts))
		return 1;
	for (i = 0; i < n; i++)
		if (srcs[i].addr.s_addr == from->sin_addr.s_addr)
			break;
	if (i == n) {
		if (n == MAX_SRC)
			return 0;
		srcs[n].addr = from->sin_addr;
		srcs[n].bytes = srcs[n].dgrams = 0;
		srcs[n].reordered = 0;
		n++;
	}
	srcs[i].bytes += r;
	srcs[i].dgrams++;
	if (r >= 8) {
		unsigned long long seq;

		memcpy(&seq, buf, sizeof(seq));
		srcs[i].reordered += reordered(from->sin_addr, from->sin_port,
					       seq);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char bufs[BATCH][65536];
	static char cbuf[BATCH][CMSG_SPACE(sizeof(struct timespec))];
	static struct sockaddr_in from[BATCH];
	static struct iovec iov[BATCH];
	static struct mmsghdr mm[BATCH];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long rt_off, m0, m1, port, secs;
	int fd, c, on = 1, rcvbuf = 4 << 20;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		fputs(usage_text, stderr);
		return 2;
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc != 4 && argc != 5) {
		fputs(usage_text, stderr);
		return 2;
	}
	port = whole(argv[1], 65535);
	interval = whole(argv[2], 3600000) * NSEC_MS;
	secs = whole(argv[3], 1000000);
	if (!port || !interval || !secs) {
		fprintf(stderr, "udp_sink: bad port, interval or duration\n");
		fputs(usage_text, stderr);
		return 2;
	}
	sa.sin_port = htons(port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) < 0) {
		perror("udp_sink: socket/bind/SO_TIMESTAMPNS");
		return 1;
	}
	/* as root beyond net.core.rmem_max: a reader descheduled for a few
	 * ms (User-Mode Linux's one CPU) must not lose datagrams */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	/* receive stamps are CLOCK_REALTIME: offset to CLOCK_MONOTONIC */
	m0 = clock_ns(CLOCK_MONOTONIC);
	rt_off = clock_ns(CLOCK_REALTIME);
	m1 = clock_ns(CLOCK_MONOTONIC);
	rt_off -= m0 + (m1 - m0) / 2;
	start = m1;
	if (argc == 5) {	/* CLOCK_MONOTONIC ms of time 0, to align events */
		FILE *f = fopen(argv[4], "w");

		if (!f || fprintf(f, "%lld\n", start / NSEC_MS) < 0 || fclose(f)) {
			perror("udp_sink: start file");
			return 1;
		}
	}
	next = start + interval;
	end = start + secs * 1000 * NSEC_MS;
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long t = clock_ns(CLOCK_MONOTONIC);
		int wait = t >= next ? 0 : (int)((next - t + NSEC_MS - 1) / NSEC_MS);

		if (poll(&pfd, 1, wait) <= 0) {
			/* nothing queued: every arrival before now was read */
			if (lines_until(clock_ns(CLOCK_MONOTONIC)))
				return 0;
			continue;
		}
		for (;;) {
			int k, got;

			/* a batch per system call: in User-Mode Linux each
			 * costs a round trip through the host */
			for (k = 0; k < BATCH; k++) {
				iov[k].iov_base = bufs[k];
				iov[k].iov_len = sizeof(bufs[k]);
				mm[k].msg_hdr = (struct msghdr) {
					.msg_name = &from[k],
					.msg_namelen = sizeof(from[k]),
					.msg_iov = &iov[k], .msg_iovlen = 1,
					.msg_control = cbuf[k],
					.msg_controllen = sizeof(cbuf[k]),
				};
			}
			got = recvmmsg(fd, mm, BATCH, MSG_DONTWAIT, NULL);
			if (got <= 0)
				break;
			for (k = 0; k < got; k++)
				if (account(&mm[k].msg_hdr, mm[k].msg_len, rt_off))
					return 0;
		}
	}
}
