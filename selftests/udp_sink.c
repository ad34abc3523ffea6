// SPDX-License-Identifier: GPL-2.0
/*
 * udp_sink: receive UDP on a port and count bytes per source address.
 *
 *   udp_sink PORT INTERVAL_MS DURATION_S [START_FILE]
 *
 * Every INTERVAL_MS prints one line per source seen so far:
 *   <ms since start> <source address> <cumulative payload bytes> <datagrams>
 * so a test can take per-flow throughput over any window.  Exits after
 * DURATION_S seconds.  START_FILE receives the CLOCK_MONOTONIC time (ms)
 * of "ms since start" 0, to align other events with the counts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SRC 64

struct src {
	struct in_addr addr;
	unsigned long long bytes, dgrams;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	static char buf[65536];
	struct src srcs[MAX_SRC];
	long long start, next, end, interval;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd, n = 0, i, rcvbuf = 4 << 20;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: udp_sink PORT INTERVAL_MS DURATION_S [START_FILE]\n");
		return 2;
	}
	sa.sin_port = htons(atoi(argv[1]));
	interval = atoll(argv[2]);
	if (interval <= 0 || atoi(argv[3]) <= 0) {
		fprintf(stderr, "udp_sink: bad interval or duration\n");
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("udp_sink: socket/bind");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	start = now_ms();
	if (argc == 5) {	/* CLOCK_MONOTONIC ms of time 0, to align events */
		FILE *f = fopen(argv[4], "w");

		if (!f || fprintf(f, "%lld\n", start) < 0 || fclose(f)) {
			perror("udp_sink: start file");
			return 1;
		}
	}
	next = start + interval;
	end = start + atoll(argv[3]) * 1000;
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long t = now_ms();
		int wait = next - t;

		if (t >= next) {
			for (i = 0; i < n; i++)
				printf("%lld %s %llu %llu\n", t - start,
				       inet_ntoa(srcs[i].addr), srcs[i].bytes,
				       srcs[i].dgrams);
			next += interval;
			if (next < t)
				next = t + interval;
			if (t >= end)
				return 0;
			continue;
		}
		if (poll(&pfd, 1, wait) <= 0)
			continue;
		for (;;) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t r = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
					     (struct sockaddr *)&from, &fl);

			if (r < 0)
				break;
			for (i = 0; i < n; i++)
				if (srcs[i].addr.s_addr == from.sin_addr.s_addr)
					break;
			if (i == n) {
				if (n == MAX_SRC)
					continue;
				srcs[n].addr = from.sin_addr;
				srcs[n].bytes = srcs[n].dgrams = 0;
				n++;
			}
			srcs[i].bytes += r;
			srcs[i].dgrams++;
		}
	}
}
