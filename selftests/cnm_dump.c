// SPDX-License-Identifier: GPL-2.0
/*
 * cnm_dump: print one line per 802.1Qau CNM, decoded with qcn_cnm.h.
 *
 *   cnm_dump -i IFACE [-Q in|out|inout] [-t SECONDS] [-c COUNT]   live
 *   cnm_dump -r FILE [-c COUNT]                                   a capture
 *
 * Through libpcap: live on one interface or "any", or from a pcap or
 * pcapng file (tcpdump -w, dumpcap, tshark -w), of Ethernet frames or of
 * Linux cooked captures (tcpdump -i any: LINUX_SLL2, LINUX_SLL).
 *
 * Line format (key=value, for tests to assert on):
 *   cnm src=MAC dst=MAC [vlan=VID|none [pcp=N tpid=HEX]] ver=N qfb=N
 *       cpid=HEX16 qoff=N qdelta=N prio=N edst=MAC msdu_len=N msdu=HEX
 *       [inner=ipv4 isrc=IP idst=IP proto=N sport=N dport=N ipcsum=ok|bad]
 * vlan (with -V): the frame's outer 802.1Q/802.1ad tag as captured on IFACE (libpcap
 * puts a tag the kernel took off, PACKET_AUXDATA, back in the frame; live
 * capture sees frames before a VLAN device on IFACE strips the tag).
 * A cooked capture has no destination MAC: dst=- there.  A frame the
 * decoder rejects prints "bad src=MAC dst=MAC err=N len=N".  Frames that
 * are not CNMs are ignored.  Ends with "# cnms=N bad=N".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <qcn/qcn_cnm.h>
#include <uapi/linux/qcn.h>

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2	276
#endif
#define SLL_HDR_LEN	16
#define SLL2_HDR_LEN	20
#define SNAPLEN		512	/* a CNM is at most 14 + 8 + 24 + 64 octets */

static const char usage_text[] =
"Usage: cnm_dump -i IFACE [-Q in|out|inout] [-t SECONDS] [-c COUNT] [-V]\n"
"       cnm_dump -r FILE [-c COUNT] [-V]\n"
"\n"
"Prints one line per IEEE 802.1Qau CNM (ethertype 0x22E7), decoded with the\n"
"project's codec (include/qcn/qcn_cnm.h):\n"
"  cnm src=MAC dst=MAC ver=N qfb=N cpid=HEX qoff=N qdelta=N prio=N edst=MAC\n"
"      msdu_len=N msdu=HEX [inner=ipv4 isrc=IP idst=IP proto=N [sport=N\n"
"      dport=N] ipcsum=ok|bad]\n"
"or \"bad src=MAC dst=MAC err=N len=N\" for a CNM the decoder rejects, and at\n"
"the end \"# cnms=N bad=N\".  Cooked captures (-i any) carry no destination\n"
"MAC: dst=- there.\n"
"\n"
"  -i IFACE     capture live on IFACE (\"any\": every interface; needs\n"
"               CAP_NET_RAW)\n"
"  -Q DIR       live: frames received (in), sent (out) or both (inout,\n"
"               the default), as tcpdump -Q\n"
"  -t SECONDS   live: stop after SECONDS (decimal, e.g. 8 or 0.5)\n"
"  -r FILE      read a capture: pcap or pcapng, Ethernet or Linux cooked\n"
"               (tcpdump -i any), as written by tcpdump, dumpcap or tshark\n"
"  -c COUNT     stop after COUNT CNMs (good or bad)\n"
"  -V           after dst=, the frame's outer VLAN tag: vlan=VID pcp=N\n"
"               tpid=HEX, or vlan=none (live capture sees a tag before a\n"
"               VLAN device on IFACE strips it)\n"
"  -h, --help   this text\n"
"Exit status: 0, 1 on a capture error (no such interface or file, an\n"
"unsupported link type), 2 on bad usage.\n";

static unsigned long n_cnm, n_bad, count;
static int show_vlan;		/* -V */
static volatile sig_atomic_t stop;
static pcap_t *pc;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
	if (pc)
		pcap_breakloop(pc);
}

static void print_mac(const char *key, const unsigned char *m)
{
	if (!m) {
		printf(" %s=-", key);
		return;
	}
	printf(" %s=%02x:%02x:%02x:%02x:%02x:%02x", key,
	       m[0], m[1], m[2], m[3], m[4], m[5]);
}

static unsigned int get16(const unsigned char *p)
{
	return (p[0] << 8) | p[1];
}

static void print_inner(const struct qcn_cnm *m)
{
	const unsigned char *p = m->msdu;
	unsigned int ihl, i, sum = 0;
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

	/* MSDU starts at the EtherType: 2 + 20 + 4 octets for IPv4/UDP ports */
	if (m->msdu_len < 2 + 20 || get16(p) != ETH_P_IP || (p[2] >> 4) != 4)
		return;
	ihl = (p[2] & 0x0f) * 4;
	if (ihl < 20 || m->msdu_len < 2 + ihl)
		return;
	for (i = 0; i < ihl; i += 2)
		sum += get16(p + 2 + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	inet_ntop(AF_INET, p + 2 + 12, a, sizeof(a));
	inet_ntop(AF_INET, p + 2 + 16, b, sizeof(b));
	printf(" inner=ipv4 isrc=%s idst=%s proto=%u", a, b, p[2 + 9]);
	if ((p[2 + 9] == 6 || p[2 + 9] == 17) && m->msdu_len >= 2 + ihl + 4)
		printf(" sport=%u dport=%u", get16(p + 2 + ihl),
		       get16(p + 2 + ihl + 2));
	printf(" ipcsum=%s", sum == 0xffff ? "ok" : "bad");
}

/*
 * A frame's payload p of EtherType type (VLAN tags still in it are skipped:
 * TCI, then the inner EtherType); src and dst may be NULL (unknown).
 */
static void payload(const unsigned char *src, const unsigned char *dst,
		    unsigned int type, const unsigned char *p, unsigned int len)
{
	unsigned int i, tpid = 0, tci = 0;
	struct qcn_cnm m;
	int err, tags;

	for (tags = 0; tags < 2 && len >= 4 &&
	     (type == ETH_P_8021Q || type == ETH_P_8021AD); tags++) {
		if (!tags) {
			tpid = type;
			tci = get16(p);
		}
		type = get16(p + 2);
		p += 4;
		len -= 4;
	}
	if (type != ETH_P_CNM)
		return;
	err = qcn_cnm_decode(p, len, &m);
	if (err) {
		n_bad++;
		printf("bad");
		print_mac("src", src);
		print_mac("dst", dst);
		printf(" err=%d len=%u\n", err, len);
		fflush(stdout);
		return;
	}
	n_cnm++;
	printf("cnm");
	print_mac("src", src);
	print_mac("dst", dst);
	if (show_vlan && tpid)
		printf(" vlan=%u pcp=%u tpid=0x%04x", tci & 0xfff, tci >> 13, tpid);
	else if (show_vlan)
		printf(" vlan=none");
	printf(" ver=%u qfb=%u cpid=", m.version, m.qfb);
	for (i = 0; i < 8; i++)
		printf("%02x", m.cpid[i]);
	printf(" qoff=%d qdelta=%d prio=%u", m.qoffset, m.qdelta, m.prio);
	print_mac("edst", m.dst);
	printf(" msdu_len=%u msdu=", m.msdu_len);
	for (i = 0; i < m.msdu_len; i++)
		printf("%02x", m.msdu[i]);
	print_inner(&m);
	printf("\n");
	fflush(stdout);
}

/* one captured frame of link type *dlt */
static void on_frame(u_char *user, const struct pcap_pkthdr *h,
		     const u_char *f)
{
	int dlt = *(int *)user;
	unsigned int len = h->caplen, halen;

	switch (dlt) {
	case DLT_EN10MB:
		if (len >= 14)
			payload(f + 6, f, get16(f + 12), f + 14, len - 14);
		break;
	case DLT_LINUX_SLL:	/* pkttype, hatype, halen, addr[8], protocol */
		if (len < SLL_HDR_LEN)
			break;
		halen = get16(f + 4);
		payload(halen == 6 ? f + 6 : NULL, NULL, get16(f + 14),
			f + SLL_HDR_LEN, len - SLL_HDR_LEN);
		break;
	case DLT_LINUX_SLL2:	/* protocol, 0, ifindex, hatype, pkttype, halen, addr[8] */
		if (len < SLL2_HDR_LEN)
			break;
		halen = f[11];
		payload(halen == 6 ? f + 12 : NULL, NULL, get16(f),
			f + SLL2_HDR_LEN, len - SLL2_HDR_LEN);
		break;
	}
	if (count && n_cnm + n_bad >= count && pc)
		pcap_breakloop(pc);
}

static int check_dlt(const char *what)
{
	int dlt = pcap_datalink(pc);

	if (dlt != DLT_EN10MB && dlt != DLT_LINUX_SLL && dlt != DLT_LINUX_SLL2) {
		fprintf(stderr, "cnm_dump: %s: link type %s (%s) is not supported "
			"(Ethernet, LINUX_SLL or LINUX_SLL2)\n", what,
			pcap_datalink_val_to_name(dlt) ?: "?",
			pcap_datalink_val_to_description(dlt) ?: "?");
		return -1;
	}
	return dlt;
}

static int read_file(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	int dlt, rc;

	pc = pcap_open_offline(path, err);
	if (!pc) {
		fprintf(stderr, "cnm_dump: %s\n", err);
		return 1;
	}
	dlt = check_dlt(path);
	if (dlt < 0) {
		pcap_close(pc);
		return 1;
	}
	rc = pcap_loop(pc, -1, on_frame, (u_char *)&dlt);
	if (rc == PCAP_ERROR)
		fprintf(stderr, "cnm_dump: %s: %s\n", path, pcap_geterr(pc));
	pcap_close(pc);
	pc = NULL;
	return rc == PCAP_ERROR ? 1 : 0;
}

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int live(const char *ifname, pcap_direction_t dir, double seconds)
{
	/* only CNMs reach userspace, tagged or not (libpcap matches the
	 * tag the kernel took off, too) */
	static const char *const filters[] = {
		"ether proto 0x22e7 or (vlan and ether proto 0x22e7)",
		"ether proto 0x22e7",
	};
	char err[PCAP_ERRBUF_SIZE];
	struct bpf_program prog;
	double t0 = mono();
	int dlt, fd, rc, i;

	pc = pcap_create(ifname, err);
	if (!pc) {
		fprintf(stderr, "cnm_dump: %s\n", err);
		return 1;
	}
	/* a small ring (CNMs are rare and short): quick to set up */
	if (pcap_set_snaplen(pc, SNAPLEN) || pcap_set_immediate_mode(pc, 1) ||
	    pcap_set_timeout(pc, 100) || pcap_set_buffer_size(pc, 256 << 10)) {
		fprintf(stderr, "cnm_dump: %s: cannot set up the capture\n", ifname);
		goto fail;
	}
	rc = pcap_activate(pc);
	if (rc < 0) {
		fprintf(stderr, "cnm_dump: %s: %s\n", ifname,
			rc == PCAP_ERROR ? pcap_geterr(pc) : pcap_statustostr(rc));
		goto fail;
	}
	dlt = check_dlt(ifname);
	if (dlt < 0)
		goto fail;
	for (i = 0; i < 2; i++)
		if (!pcap_compile(pc, &prog, filters[i], 1, PCAP_NETMASK_UNKNOWN))
			break;
	if (i == 2 || pcap_setfilter(pc, &prog)) {
		fprintf(stderr, "cnm_dump: %s: filter: %s\n", ifname, pcap_geterr(pc));
		goto fail;
	}
	pcap_freecode(&prog);
	if (pcap_setdirection(pc, dir)) {
		fprintf(stderr, "cnm_dump: %s: direction: %s\n", ifname, pcap_geterr(pc));
		goto fail;
	}
	if (pcap_setnonblock(pc, 1, err) || (fd = pcap_get_selectable_fd(pc)) < 0) {
		fprintf(stderr, "cnm_dump: %s: cannot poll the capture\n", ifname);
		goto fail;
	}
	printf("# listening on %s\n", ifname);
	fflush(stdout);
	while (!stop && (!count || n_cnm + n_bad < count)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int ms = 200;

		if (seconds > 0) {
			double left = seconds - (mono() - t0);

			if (left <= 0)
				break;
			if (left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
			break;
		rc = pcap_dispatch(pc, -1, on_frame, (u_char *)&dlt);
		if (rc == PCAP_ERROR) {
			fprintf(stderr, "cnm_dump: %s: %s\n", ifname, pcap_geterr(pc));
			goto fail;
		}
	}
	pcap_close(pc);
	pc = NULL;
	return 0;
fail:
	pcap_close(pc);
	pc = NULL;
	return 1;
}

static void usage_error(const char *fmt, const char *arg)
{
	if (fmt) {
		fprintf(stderr, "cnm_dump: ");
		fprintf(stderr, fmt, arg);
		fprintf(stderr, "\n");
	}
	fputs(usage_text, stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ifname = NULL, *file = NULL;
	pcap_direction_t dir = PCAP_D_INOUT;
	double seconds = 0;
	char *end;
	int c, ret;

	while ((c = getopt_long(argc, argv, "i:r:t:c:Q:Vh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			ifname = optarg;
			break;
		case 'r':
			file = optarg;
			break;
		case 't':
			errno = 0;
			seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(seconds > 0))
				usage_error("bad -t '%s' (seconds, e.g. 8 or 0.5)", optarg);
			break;
		case 'V':
			show_vlan = 1;
			break;
		case 'c':
			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-' || !count)
				usage_error("bad -c '%s' (a count >= 1)", optarg);
			break;
		case 'Q':
			if (!strcmp(optarg, "in"))
				dir = PCAP_D_IN;
			else if (!strcmp(optarg, "out"))
				dir = PCAP_D_OUT;
			else if (!strcmp(optarg, "inout"))
				dir = PCAP_D_INOUT;
			else
				usage_error("bad -Q '%s' (in, out or inout)", optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			usage_error(NULL, NULL);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!!ifname == !!file)
		usage_error("%s", "give one of -i IFACE and -r FILE");
	if (file && seconds > 0)
		usage_error("%s", "-t is for live captures");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = file ? read_file(file) : live(ifname, dir, seconds);
	printf("# cnms=%lu bad=%lu\n", n_cnm, n_bad);
	return ret;
}
