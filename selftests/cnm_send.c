// SPDX-License-Identifier: GPL-2.0
/*
 * cnm_send: craft 802.1Qau CNMs with the project's codec (qcn_cnm.h) and
 * send them on a raw AF_PACKET socket, for the reaction point tests.
 *
 *   cnm_send -i IFACE -d DST_MAC -s SRC_MAC -q QFB
 *            [-e ENCAP_DST_MAC] [-u SADDR:SPORT,DADDR:DPORT] [-n COUNT]
 *            [-m truncated|version|msdu-long|msdu-trunc|reserved] [-k N]
 *
 * -u encapsulates the start of an IPv4/UDP frame of that 5-tuple (as a CP
 * copies it: from the EtherType on); without it the MSDU is an ARP-like
 * non-IP frame.  -m sends a deliberately malformed CNM.  -k N sends one
 * CNM for each of N flows, source ports SPORT .. SPORT + N - 1.  -n COUNT
 * sends COUNT copies of each (sendmmsg batches of 256: a flood); -g GAP
 * sends them GAP ms apart instead, on absolute deadlines, so that a slow
 * testbed's process start-up does not stretch a sequence of CNMs.
 * Prints "sent COUNT at_mono_ms T", T = CLOCK_MONOTONIC (ms) just before
 * the first frame (with -g, each CNM's T), to align the CNMs with
 * udp_sink's time base.
 */
#define _GNU_SOURCE		/* sendmmsg */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <qcn/qcn_cnm.h>
#include <uapi/linux/qcn.h>
#include "tc_units.h"

static int parse_mac(const char *s, unsigned char *mac)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
		      &mac[2], &mac[3], &mac[4], &mac[5]) == 6 ? 0 : -1;
}

/* "198.18.0.1:5000,198.18.0.100:9000" -> an IPv4 + UDP header */
static int build_udp(const char *spec, unsigned char *msdu, unsigned int *len)
{
	char a[64], b[64];
	unsigned int sp, dp;
	struct in_addr sa, da;

	if (sscanf(spec, "%63[^:]:%u,%63[^:]:%u", a, &sp, b, &dp) != 4 ||
	    inet_pton(AF_INET, a, &sa) != 1 || inet_pton(AF_INET, b, &da) != 1 ||
	    sp > 65535 || dp > 65535)
		return -1;
	memset(msdu, 0, 64);
	msdu[0] = 0x08;			/* EtherType IPv4 */
	msdu[1] = 0x00;
	msdu[2] = 0x45;			/* version 4, IHL 5 */
	msdu[4] = 0x05;			/* total length 1428 */
	msdu[5] = 0x94;
	msdu[10] = 64;			/* TTL */
	msdu[11] = 17;			/* UDP */
	memcpy(msdu + 14, &sa, 4);
	memcpy(msdu + 18, &da, 4);
	msdu[22] = sp >> 8;
	msdu[23] = sp & 0xff;
	msdu[24] = dp >> 8;
	msdu[25] = dp & 0xff;
	*len = 64;
	return 0;
}

static const char usage_text[] =
"Usage: cnm_send -i IFACE -d DST_MAC -s SRC_MAC -q QFB [-e ENCAP_DST_MAC]\n"
"                [-u SADDR:SPORT,DADDR:DPORT] [-n COUNT] [-k FLOWS] [-o QOFF]\n"
"                [-m truncated|version|msdu-long|msdu-trunc|reserved]\n"
"\n"
"Sends IEEE 802.1Qau CNMs, encoded with the project's codec, from IFACE on a\n"
"raw socket (needs CAP_NET_RAW), for reaction point experiments.\n"
"\n"
"  -i IFACE     the interface to send on\n"
"  -d MAC       the CNM's destination (the reaction point's MAC)\n"
"  -s MAC       the CNM's source (the congestion point's MAC; CPID: MAC, index 1)\n"
"  -q QFB       quantized feedback, 0..63\n"
"  -e MAC       encapsulated destination MAC (default 00:00:00:00:00:00)\n"
"  -u S:P,D:Q   encapsulate the start of an IPv4/UDP frame S:P -> D:Q, as a\n"
"               CP copies it (default: a 30-octet non-IP MSDU, ARP)\n"
"  -n COUNT     CNMs per flow (default 1)\n"
"  -g GAP       the COUNT CNMs GAP ms apart (1..60000), one flow only\n"
"  -k FLOWS     one CNM per flow for FLOWS flows, source ports P .. P+FLOWS-1\n"
"  -o QOFF      cnmQOffset, -32768..32767 (default -100: a short queue;\n"
"               cnmQDelta is 10); positive for a CNM whose rebuilt Fb is\n"
"               negative, as qcn_rp's n-aimd modes need for a cut\n"
"  -m KIND      a malformed CNM: truncated (< 24 octets), version (1),\n"
"               msdu-long (length 65), msdu-trunc (length beyond the frame),\n"
"               reserved (a reserved bit set)\n"
"  -h, --help   this text\n"
"Prints \"sent N at_mono_ms T\", T = CLOCK_MONOTONIC in ms just before the\n"
"first frame (with -g, each CNM's T: \"sent N at_mono_ms T1 T2 ...\"), to\n"
"line up with udp_sink's and qcnstat -m's stamps.\n"
"Exit status: 0, 1 on a socket error, 2 on bad usage.\n";

#define TOOL_NAME "cnm_send"
#include "tool_cli.h"

#define BATCH 256

/* decimal min..max, else usage */
static unsigned long num(const char *what, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (tcu_get_u64(&v, s) || v < min || v > max)
		usage(what, s);
	return v;
}

int main(int argc, char **argv)
{
	static struct mmsghdr mm[BATCH];
	static struct iovec iov[BATCH];
	unsigned char frame[ETH_HLEN + QCN_CNM_HDR_LEN + QCN_CNM_MSDU_MAX];
	unsigned char dst[6], src[6], *pdu = frame + ETH_HLEN;
	const char *ifname = NULL, *udp = NULL, *mal = NULL;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct qcn_cnm m = { .version = 0 };
	unsigned int msdu_len = 0, count = 1, flows = 1, gap_ms = 0, i, f;
	int c, fd, have_d = 0, have_s = 0, qfb = -1, len, qoff = -100;
	char *end;
	struct timespec ts;
	long long t0;

	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = getopt_long(argc, argv, "i:d:s:q:e:u:n:g:m:k:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': ifname = optarg; break;
		case 'd': if (parse_mac(optarg, dst)) usage("bad MAC", optarg); have_d = 1; break;
		case 's': if (parse_mac(optarg, src)) usage("bad MAC", optarg); have_s = 1; break;
		case 'q': qfb = (int)num("bad qfb (0..63)", optarg, 0, 63); break;
		case 'e': if (parse_mac(optarg, m.dst)) usage("bad MAC", optarg); break;
		case 'u': udp = optarg; break;
		case 'n': count = num("bad count", optarg, 1, 1000000); break;
		case 'g': gap_ms = num("bad gap (1..60000 ms)", optarg, 1, 60000); break;
		case 'm': mal = optarg; break;
		case 'k': flows = num("bad flow count", optarg, 1, 65535); break;
		case 'o':
			qoff = (int)strtol(optarg, &end, 10);
			if (end == optarg || *end || qoff < -32768 || qoff > 32767)
				usage("bad cnmQOffset (-32768..32767)", optarg);
			break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: usage(NULL, NULL);
		}
	}
	if (optind < argc)
		usage("unexpected argument", argv[optind]);
	if (!ifname || !have_d || !have_s || qfb < 0)
		usage("missing one of -i, -d, -s, -q", "");
	if (gap_ms && (flows > 1 || count > 1000))
		usage("-g takes one flow and at most 1000 CNMs", "");
	m.qfb = qfb;
	qcn_cnm_cpid(m.cpid, src, 1);
	m.qoffset = (int16_t)qoff;
	m.qdelta = 10;
	if (udp) {
		if (build_udp(udp, m.msdu, &msdu_len))
			usage("bad -u (SADDR:SPORT,DADDR:DPORT)", udp);
	} else {
		m.msdu[0] = 0x08;	/* ARP: a non-IP frame */
		m.msdu[1] = 0x06;
		msdu_len = 30;
	}
	m.msdu_len = msdu_len;
	len = qcn_cnm_encode(&m, pdu, QCN_CNM_HDR_LEN + QCN_CNM_MSDU_MAX);
	if (len < 0) {
		fprintf(stderr, "cnm_send: encode failed (%d)\n", len);
		return 1;
	}
	if (mal) {
		if (!strcmp(mal, "truncated"))
			len = 20;			/* < 24 fixed octets */
		else if (!strcmp(mal, "version"))
			pdu[0] |= 0x10;			/* version 1 */
		else if (!strcmp(mal, "msdu-long"))
			pdu[23] = 65;			/* length > 64 */
		else if (!strcmp(mal, "msdu-trunc"))
			len = QCN_CNM_HDR_LEN + msdu_len / 2;
		else if (!strcmp(mal, "reserved"))
			pdu[1] |= 0x40;			/* a reserved bit */
		else
			usage("bad -m", mal);
	}
	memcpy(frame, dst, 6);
	memcpy(frame + 6, src, 6);
	frame[12] = ETH_P_CNM >> 8;
	frame[13] = ETH_P_CNM & 0xff;
	len += ETH_HLEN;
	if (len < 60) {				/* pad a short frame */
		memset(frame + len, 0, 60 - len);
		if (!mal || strcmp(mal, "truncated"))
			len = 60;
	}

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("cnm_send: socket");
		return 1;
	}
	sll.sll_ifindex = if_nametoindex(ifname);
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, dst, 6);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "cnm_send: no interface %s\n", ifname);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
	if (gap_ms) {
		struct timespec at = ts;

		printf("sent %u at_mono_ms", count);
		for (i = 0; i < count; i++) {
			if (i) {
				at.tv_nsec += gap_ms % 1000 * 1000000L;
				at.tv_sec += gap_ms / 1000 + at.tv_nsec / 1000000000L;
				at.tv_nsec %= 1000000000L;
				while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						       &at, NULL) == EINTR)
					;
			}
			clock_gettime(CLOCK_MONOTONIC, &ts);
			if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll,
				   sizeof(sll)) != len) {
				perror("cnm_send: sendto");
				return 1;
			}
			printf(" %lld", ts.tv_sec * 1000LL + ts.tv_nsec / 1000000);
		}
		printf("\n");
		return 0;
	}
	for (f = 0; f < flows; f++) {
		if (udp && f) {	/* next source port; the UDP ports sit at MSDU 22 */
			unsigned char *sp = pdu + QCN_CNM_HDR_LEN + 22;
			unsigned int port = ((sp[0] << 8) | sp[1]) + 1;

			sp[0] = port >> 8;
			sp[1] = port & 0xff;
		}
		/* the copies of one CNM in batches: a flood at ~100k/s
		 * even where a syscall is slow (UML) */
		for (i = 0; i < count; ) {
			unsigned int b = count - i < BATCH ? count - i : BATCH, k;
			int r;

			for (k = 0; k < b; k++) {
				iov[k].iov_base = frame;
				iov[k].iov_len = len;
				mm[k].msg_hdr = (struct msghdr) {
					.msg_name = &sll, .msg_namelen = sizeof(sll),
					.msg_iov = &iov[k], .msg_iovlen = 1,
				};
			}
			r = sendmmsg(fd, mm, b, 0);
			if (r <= 0) {
				perror("cnm_send: sendmmsg");
				return 1;
			}
			i += r;
		}
	}
	count *= flows;
	printf("sent %u at_mono_ms %lld\n", count, t0);
	return 0;
}
