// SPDX-License-Identifier: GPL-2.0
/*
 * pfc_send: craft IEEE 802.1Qbb PFC frames with the project's codec
 * (qcn_pfc.h) and send them on a raw AF_PACKET socket, for the tests of
 * the qcn qdisc's PFC reception.
 *
 *   pfc_send -i IFACE -p PRIO=QUANTA [-p PRIO=QUANTA ...] [-s SRC_MAC]
 *            [-n COUNT] [-m pause|reserved|truncated|dest]
 *
 * Prints "sent COUNT at_mono_ms T", T = CLOCK_MONOTONIC (ms) just before
 * the first frame.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <qcn/qcn_pfc.h>
#include "tc_units.h"

static const char usage_text[] =
"Usage: pfc_send -i IFACE -p PRIO=QUANTA [-p PRIO=QUANTA ...] [-s SRC_MAC]\n"
"                [-n COUNT] [-m pause|reserved|truncated|dest]\n"
"\n"
"Sends IEEE 802.1Qbb priority-based flow control frames (MAC Control,\n"
"EtherType 0x8808, opcode 0x0101, to 01:80:C2:00:00:01), encoded with the\n"
"project's codec, from IFACE on a raw socket (needs CAP_NET_RAW).\n"
"\n"
"  -i IFACE       the interface to send on\n"
"  -p PRIO=QUANTA enable priority PRIO (0..7) with pause time QUANTA\n"
"                 (0..65535 quanta of 512 bit times; 0 = XON); repeatable\n"
"  -s MAC         the source address (default: IFACE's)\n"
"  -n COUNT       copies to send (default 1)\n"
"  -m KIND        a malformed frame that a receiver must ignore: pause (the\n"
"                 802.3x PAUSE opcode 0x0001), reserved (a reserved bit of\n"
"                 the priority-enable vector set), truncated (30 octets),\n"
"                 dest (sent to 01:80:C2:00:00:02)\n"
"  -h, --help     this text\n"
"Exit status: 0, 1 on a socket error, 2 on bad usage.\n";

#define TOOL_NAME "pfc_send"
#include "tool_cli.h"

static int parse_mac(const char *s, unsigned char *mac)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
		      &mac[2], &mac[3], &mac[4], &mac[5]) == 6 ? 0 : -1;
}

/* "PRIO=QUANTA" into f */
static int parse_prio(const char *s, struct qcn_pfc *f)
{
	uint64_t p, q;
	char a[16], b[16];

	if (sscanf(s, "%15[^=]=%15s", a, b) != 2 || tcu_get_u64(&p, a) ||
	    tcu_get_u64(&q, b) || p >= QCN_PFC_NPRIO || q > QCN_PFC_QUANTA_MAX)
		return -1;
	f->enable |= 1u << p;
	f->quanta[p] = (u16)q;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char frame[QCN_PFC_FRAME_LEN];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct qcn_pfc f = { .enable = 0 };
	const char *ifname = NULL, *mal = NULL;
	unsigned int count = 1, i;
	int c, fd, len, have_s = 0;
	struct timespec ts;
	struct ifreq ifr;
	uint64_t v;

	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = getopt_long(argc, argv, "i:p:s:n:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			ifname = optarg;
			break;
		case 'p':
			if (parse_prio(optarg, &f))
				usage("bad -p (PRIO=QUANTA, 0..7=0..65535)", optarg);
			break;
		case 's':
			if (parse_mac(optarg, f.src))
				usage("bad MAC", optarg);
			have_s = 1;
			break;
		case 'n':
			if (tcu_get_u64(&v, optarg) || !v || v > 1000000)
				usage("bad count (1..1000000)", optarg);
			count = (unsigned int)v;
			break;
		case 'm':
			mal = optarg;
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
	if (!ifname || !f.enable)
		usage("missing one of -i, -p", "");

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("pfc_send: socket");
		return 1;
	}
	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "pfc_send: no interface %s\n", ifname);
		return 1;
	}
	if (!have_s) {
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
		if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
			perror("pfc_send: SIOCGIFHWADDR");
			return 1;
		}
		memcpy(f.src, ifr.ifr_hwaddr.sa_data, 6);
	}
	len = qcn_pfc_encode(&f, frame, sizeof(frame));
	if (len != QCN_PFC_FRAME_LEN) {
		fprintf(stderr, "pfc_send: encode failed (%d)\n", len);
		return 1;
	}
	if (mal) {
		if (!strcmp(mal, "pause"))
			frame[14] = 0x00;		/* opcode 0x0001 */
		else if (!strcmp(mal, "reserved"))
			frame[16] |= 0x01;		/* enable bit 8 */
		else if (!strcmp(mal, "truncated"))
			len = 30;
		else if (!strcmp(mal, "dest"))
			frame[5] = 0x02;		/* 01:80:C2:00:00:02 */
		else
			usage("bad -m", mal);
	}
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, frame, 6);

	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (i = 0; i < count; i++) {
		if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != len) {
			perror("pfc_send: sendto");
			return 1;
		}
	}
	printf("sent %u at_mono_ms %lld\n", count,
	       ts.tv_sec * 1000LL + ts.tv_nsec / 1000000);
	close(fd);
	return 0;
}
