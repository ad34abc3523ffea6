// SPDX-License-Identifier: GPL-2.0
/*
 * udp_blast: send UDP datagrams as fast as the (blocking) socket allows, or
 * in on/off bursts.
 *
 *   udp_blast DST PORT DURATION_S [LEN [BURST_BYTES PERIOD_MS]]
 *
 * With a qcn_rp qdisc on the egress device a blocking socket is
 * back-pressured to the limiter's current rate.  With BURST_BYTES and
 * PERIOD_MS it sends BURST_BYTES at once every PERIOD_MS (an on/off
 * flow).  Prints the datagrams and bytes sent on exit.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char buf[65536];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	unsigned long long sent = 0, dgrams = 0;
	long burst = 0, period_ms = 0, len = 1400;
	double end;
	int fd;

	if (argc != 4 && argc != 5 && argc != 7) {
		fprintf(stderr, "usage: udp_blast DST PORT DURATION_S [LEN [BURST_BYTES PERIOD_MS]]\n");
		return 2;
	}
	if (inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1) {
		fprintf(stderr, "udp_blast: bad address %s\n", argv[1]);
		return 2;
	}
	sa.sin_port = htons(atoi(argv[2]));
	end = now_s() + atof(argv[3]);
	if (argc >= 5)
		len = atol(argv[4]);
	if (argc == 7) {
		burst = atol(argv[5]);
		period_ms = atol(argv[6]);
	}
	if (len < 1 || len > 65000 || burst < 0 || period_ms < 0) {
		fprintf(stderr, "udp_blast: bad length or burst\n");
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("udp_blast: socket/connect");
		return 1;
	}
	memset(buf, 0x5a, sizeof(buf));
	while (now_s() < end) {
		long b = 0;

		do {
			if (send(fd, buf, len, 0) == len) {
				sent += len;
				dgrams++;
			}
			b += len;
		} while (burst && b < burst);
		if (period_ms)
			usleep(period_ms * 1000);
	}
	printf("%llu %llu\n", dgrams, sent);
	return 0;
}
