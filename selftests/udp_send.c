// SPDX-License-Identifier: GPL-2.0
/*
 * udp_send: a tiny paced UDP sender for the selftests (no ping/iperf3
 * needed).  Prints "sent=N errors=N".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tc_units.h"

static const char usage_text[] =
"Usage: udp_send -d ADDR [-p PORT] [-b SRC_PORT] [-s SIZE] [-r RATE]\n"
"                [-t SECONDS] [-c COUNT] [-B SIZE] [-g] [-k N] [-P PRIO]\n"
"\n"
"Sends UDP datagrams of SIZE payload to ADDR:PORT at RATE until SECONDS\n"
"passed or COUNT datagrams went out (one of -t and -c is needed).  A sender\n"
"that falls behind (an emulator hiccup) does not catch up with a burst.\n"
"Prints \"sent=N errors=N\".\n"
"\n"
"  -d ADDR      IPv4 destination\n"
"  -p PORT      destination port (default 9)\n"
"  -b PORT      bind to this source port (default: any)\n"
"  -s SIZE      payload bytes, tc's units (default 1000; 1kb = 1024)\n"
"  -r RATE      payload rate, tc's units: 90mbit, 500kbit, 1mbps (bytes/s);\n"
"               a bare number is bit/s; 0 = as fast as the socket takes\n"
"               them (default)\n"
"  -t SECONDS   stop after SECONDS (decimal, e.g. 8 or 0.5)\n"
"  -c COUNT     stop after COUNT datagrams\n"
"  -B SIZE      the socket's send buffer (SO_SNDBUFFORCE as root, else\n"
"               SO_SNDBUF), tc's units: the datagrams a rate limiter\n"
"               downstream can hold for this sender, so that the sender's\n"
"               own stalls (100 ms happen in an emulated guest) do not leave\n"
"               it idle\n"
"  -g           batch datagrams with UDP GSO (UDP_SEGMENT; also when\n"
"               UDP_SEND_GSO=1 is in the environment): one syscall carries\n"
"               up to 64 KB of datagrams of SIZE each, every one with its\n"
"               own sequence number, where a syscall per datagram is too\n"
"               slow (User-Mode Linux: ~4 kpps); a paced sender batches at\n"
"               most 1 ms of its rate\n"
"  -k N         bursts: N datagrams back to back (one send with -g, else N\n"
"               sends; N * SIZE <= 65000), then a pause that keeps the\n"
"               average at RATE (an on-off source: -s 1000 -k 10 -r 50mbit\n"
"               sends a 10 KB burst every 1.6 ms); without -k, one datagram\n"
"               per send, or up to 1 ms of RATE with -g\n"
"  -P PRIO      the socket's SO_PRIORITY (skb->priority of its frames;\n"
"               0..6, or any as root)\n"
"  -h, --help   this text\n"
"Exit status: 0, 1 on a socket error, 2 on bad usage.\n";

#define TOOL_NAME "udp_send"
#include "tool_cli.h"

static uint64_t num(const char *what, const char *s, uint64_t max)
{
	uint64_t v;

	if (tcu_get_u64(&v, s) || v > max)
		usage(what, s);
	return v;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct sockaddr_in src = { .sin_family = AF_INET };
	unsigned long count = 0, sent = 0, errors = 0;
	double rate = 0, seconds = 0, t0, next, t;
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *addr = NULL;
	size_t size = 1000;
	static char buf[65536];
	int c, fd, sndbuf = 0, gso, seg, prio = -1;
	const char *env = getenv("UDP_SEND_GSO");
	size_t batch = 1, k, burst = 0;
	uint64_t v;
	char *end;

	gso = env && atoi(env) > 0;
	while ((c = getopt_long(argc, argv, "d:p:b:s:r:t:c:B:gk:P:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			addr = optarg;
			if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
				usage("bad IPv4 address", optarg);
			break;
		case 'b':
			src.sin_port = htons(num("bad port", optarg, 65535));
			break;
		case 'p':
			sin.sin_port = htons(num("bad port", optarg, 65535));
			break;
		case 's':
			if (tcu_get_size(&v, optarg) || v > sizeof(buf))
				usage("bad size (up to 65536 bytes)", optarg);
			size = v;
			break;
		case 'r':
			if (tcu_get_rate(&v, optarg))
				usage("bad rate (e.g. 90mbit)", optarg);
			rate = v;
			break;
		case 't':
			errno = 0;
			seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(seconds > 0))
				usage("bad -t (seconds)", optarg);
			break;
		case 'c':
			count = num("bad count", optarg, UINT64_MAX);
			break;
		case 'B':
			if (tcu_get_size(&v, optarg) || !v || v > 0x7fffffff)
				usage("bad send buffer size", optarg);
			sndbuf = (int)v;
			break;
		case 'g':
			gso = 1;
			break;
		case 'k':
			burst = num("bad burst (datagrams, 1..65536)", optarg, 65536);
			if (!burst)
				usage("bad burst (datagrams, 1..65536)", optarg);
			break;
		case 'P':
			prio = (int)num("bad priority", optarg, 0x7fffffff);
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
	if (!addr || (!seconds && !count))
		usage("need -d, and -t or -c", "");
	if (burst && burst * size > 65000) {
		fprintf(stderr, "udp_send: -k %zu: a burst of N * SIZE = %zu bytes, at most 65000\n",
			burst, burst * size);
		usage(NULL, NULL);
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || (src.sin_port &&
		       bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0)) {
		perror("udp_send");
		return 1;
	}
	if (prio >= 0 && setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)) < 0) {
		perror("udp_send: SO_PRIORITY");
		return 1;
	}
	if (sndbuf && setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0) {
		perror("udp_send: SO_SNDBUF");
		return 1;
	}
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
	if (burst && gso && size > 0 && size <= 1472) {
		batch = burst;
		seg = size;
		if (batch > 1 &&
		    setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &seg, sizeof(seg)) < 0) {
			perror("udp_send: UDP_SEGMENT");
			return 1;
		}
	} else if (burst) {
		batch = burst;
		gso = 0;	/* N sends of one datagram each */
	} else if (gso && size > 0 && size <= 1472) {
		/* datagrams per send: 64 KB, at most 1 ms of a paced rate */
		batch = 65000 / size;
		if (rate > 0 && batch > rate / 1000 / (size * 8.0))
			batch = rate / 1000 / (size * 8.0);
		if (batch < 1)
			batch = 1;
		seg = size;
		if (batch > 1 &&
		    setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &seg, sizeof(seg)) < 0) {
			perror("udp_send: UDP_SEGMENT");
			return 1;
		}
	}
	memset(buf, 0x5a, sizeof(buf));
	t0 = now();
	next = t0;
	while ((!count || sent < count) && (!seconds || (t = now()) - t0 < seconds)) {
		k = batch;
		if (count && k > count - sent)
			k = count - sent;
		if (rate > 0) {
			t = now();
			if (t < next) {
				struct timespec d = {
					.tv_sec = (time_t)(next - t),
					.tv_nsec = (long)((next - t - (time_t)(next - t)) * 1e9),
				};

				nanosleep(&d, NULL);
			} else if (t - next > 0.002)
				next = t;	/* late (descheduled): no catch-up burst */
			next += k * size * 8.0 / rate;
		}
		/* every datagram starts with its own sequence number */
		for (size_t i = 0; i < k; i++) {
			unsigned long seq = sent + i;

			memcpy(buf + i * size, &seq, sizeof(seq));
		}
		/* unconnected: ICMP port unreachable does not fail the next send */
		if (!gso && k > 1) {
			/* a burst without GSO: k sends of one datagram */
			for (size_t i = 0; i < k; i++) {
				if (sendto(fd, buf + i * size, size, 0, (struct sockaddr *)&sin,
					   sizeof(sin)) < 0)
					errors++;
				else
					sent++;
			}
			continue;
		}
		if (sendto(fd, buf, k * size, 0, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
			errors++;
			continue;
		}
		sent += k;
	}
	printf("sent=%lu errors=%lu\n", sent, errors);
	close(fd);
	return 0;
}
