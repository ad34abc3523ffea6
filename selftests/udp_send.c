// SPDX-License-Identifier: GPL-2.0
/*
 * udp_send: a tiny paced UDP sender for the selftests (no ping/iperf3
 * needed).  Prints "sent=N errors=N".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tc_units.h"

static const char usage_text[] =
"Usage: udp_send -d ADDR [-p PORT] [-b SRC_PORT] [-s SIZE] [-r RATE]\n"
"                [-t SECONDS] [-c COUNT] [-B SIZE]\n"
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
"  -h, --help   this text\n"
"Exit status: 0, 1 on a socket error, 2 on bad usage.\n";

static void usage(const char *why, const char *arg)
{
	if (why)
		fprintf(stderr, "udp_send: %s '%s'\n", why, arg);
	fputs(usage_text, stderr);
	exit(2);
}

static uint64_t num(const char *what, const char *s, uint64_t max)
{
	uint64_t v;

	if (tcu_get_u64(&v, s) || v > max)
		usage(what, s);
	return v;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
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
	int c, fd, sndbuf = 0;
	uint64_t v;
	char *end;

	while ((c = getopt_long(argc, argv, "d:p:b:s:r:t:c:B:h", opts, NULL)) != -1) {
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
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || (src.sin_port &&
		       bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0)) {
		perror("udp_send");
		return 1;
	}
	if (sndbuf && setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0) {
		perror("udp_send: SO_SNDBUF");
		return 1;
	}
	memset(buf, 0x5a, sizeof(buf));
	t0 = now();
	next = t0;
	while ((!count || sent < count) && (!seconds || (t = now()) - t0 < seconds)) {
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
			next += size * 8.0 / rate;
		}
		memcpy(buf, &sent, sizeof(sent));
		/* unconnected: ICMP port unreachable does not fail the next send */
		if (sendto(fd, buf, size, 0, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
			errors++;
			continue;
		}
		sent++;
	}
	printf("sent=%lu errors=%lu\n", sent, errors);
	close(fd);
	return 0;
}
