// SPDX-License-Identifier: GPL-2.0
/*
 * udp_send: a tiny paced UDP sender for the selftests (no ping/iperf3
 * needed).
 *
 *   udp_send -d ADDR [-p PORT] [-b SRC_PORT] [-s BYTES] [-r BITS_PER_S] [-t SECONDS] [-c COUNT]
 *            [-B SNDBUF] [-g]
 *
 * Sends datagrams of BYTES payload to ADDR:PORT (default 9, 1000 bytes) at
 * RATE (payload bits/s; 0 = as fast as the socket takes them) until SECONDS
 * passed or COUNT datagrams went out.  A sender that falls behind (an
 * emulator hiccup) does not catch up with a burst.  -B sets the socket's
 * send buffer (SO_SNDBUFFORCE as root, else SO_SNDBUF): the datagrams a
 * rate limiter downstream can hold for this sender, so that the sender's
 * own stalls (100 ms happen in an emulated guest) do not leave it idle.
 * -g (or UDP_SEND_GSO=1 in the environment) batches datagrams with UDP GSO
 * (UDP_SEGMENT): one syscall carries up to 64 KB of datagrams of BYTES
 * each, every one with its own sequence number, where a syscall per
 * datagram is too slow (User-Mode Linux: ~4 kpps).  A paced sender
 * batches at most 1 ms of its rate, so pacing keeps its grain.
 * Prints "sent=N errors=N".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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
	const char *addr = NULL;
	size_t size = 1000;
	static char buf[65536];
	int c, fd, sndbuf = 0, gso = 0, seg;
	size_t batch = 1, k;
	const char *env = getenv("UDP_SEND_GSO");

	gso = env && atoi(env) > 0;
	while ((c = getopt(argc, argv, "d:p:b:s:r:t:c:B:g")) != -1) {
		switch (c) {
		case 'd':
			addr = optarg;
			break;
		case 'b':
			src.sin_port = htons(atoi(optarg));
			break;
		case 'p':
			sin.sin_port = htons(atoi(optarg));
			break;
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rate = atof(optarg);
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 'c':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'B':
			sndbuf = atoi(optarg);
			if (sndbuf <= 0)
				goto usage;
			break;
		case 'g':
			gso = 1;
			break;
		default:
			goto usage;
		}
	}
	if (!addr || inet_pton(AF_INET, addr, &sin.sin_addr) != 1 ||
	    size > sizeof(buf) || (!seconds && !count))
		goto usage;
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
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
	if (gso && size > 0 && size <= 1472) {
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
		if (sendto(fd, buf, k * size, 0, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
			errors++;
			continue;
		}
		sent += k;
	}
	printf("sent=%lu errors=%lu\n", sent, errors);
	close(fd);
	return 0;
usage:
	fprintf(stderr, "usage: udp_send -d ADDR [-p PORT] [-b SRC_PORT] [-s BYTES] [-r BITS_PER_S] [-t SECONDS] [-c COUNT] [-B SNDBUF] [-g]\n");
	return 2;
}
