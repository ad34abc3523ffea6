// SPDX-License-Identifier: GPL-2.0
/*
 * cnm_dump: print one line per 802.1Qau CNM, decoded with qcn_cnm.h.
 *
 *   cnm_dump -i IFACE [-t SECONDS] [-c COUNT]	live (AF_PACKET, ETH_P_CNM)
 *   cnm_dump -r FILE.pcap			a tcpdump capture
 *
 * Line format (key=value, for tests to assert on):
 *   cnm src=MAC dst=MAC vlan=VID|none [pcp=N tpid=HEX] ver=N qfb=N
 *       cpid=HEX16 qoff=N qdelta=N prio=N edst=MAC msdu_len=N msdu=HEX
 *       [inner=ipv4 isrc=IP idst=IP proto=N sport=N dport=N ipcsum=ok|bad]
 * vlan: the frame's 802.1Q/802.1ad tag as it arrived on IFACE, accelerated
 * (PACKET_AUXDATA) or in-band; live capture reads every incoming frame
 * (ETH_P_ALL, before a VLAN device takes the tag off) through a socket
 * filter that passes CNMs only.
 * A frame the decoder rejects prints "bad src=MAC dst=MAC err=N len=N".
 * Frames that are not CNMs are ignored.  Ends with "# cnms=N bad=N".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <qcn/qcn_cnm.h>
#include <uapi/linux/qcn.h>

static unsigned long n_cnm, n_bad;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void print_mac(const char *key, const unsigned char *m)
{
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
 * One Ethernet frame; tci/tpid: an accelerated tag AF_PACKET took off
 * (tpid 0: none).
 */
static void frame(const unsigned char *f, unsigned int len, unsigned int tci,
		  unsigned int tpid)
{
	struct qcn_cnm m;
	unsigned int i, off = 12;
	int err;

	if (len < 14)
		return;
	if (get16(f + 12) == ETH_P_8021Q || get16(f + 12) == ETH_P_8021AD) {
		if (len < 18)
			return;
		if (!tpid) {
			tpid = get16(f + 12);
			tci = get16(f + 14);
		}
		off += 4;
	}
	if (len < off + 2 || get16(f + off) != ETH_P_CNM)
		return;
	off += 2;
	err = qcn_cnm_decode(f + off, len - off, &m);
	if (err) {
		n_bad++;
		printf("bad");
		print_mac("src", f + 6);
		print_mac("dst", f);
		printf(" err=%d len=%u\n", err, len - off);
		fflush(stdout);
		return;
	}
	n_cnm++;
	printf("cnm");
	print_mac("src", f + 6);
	print_mac("dst", f);
	if (tpid)
		printf(" vlan=%u pcp=%u tpid=0x%04x", tci & 0xfff, tci >> 13, tpid);
	else
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

static int read_pcap(const char *path)
{
	unsigned char hdr[24], rec[16], buf[65536];
	FILE *fp = fopen(path, "rb");
	unsigned int caplen;
	int swap;

	if (!fp) {
		perror(path);
		return 1;
	}
	if (fread(hdr, 1, sizeof(hdr), fp) != sizeof(hdr)) {
		fprintf(stderr, "%s: not a pcap file\n", path);
		fclose(fp);
		return 1;
	}
	if (!memcmp(hdr, "\xd4\xc3\xb2\xa1", 4) || !memcmp(hdr, "\x4d\x3c\xb2\xa1", 4)) {
		swap = 0;	/* little-endian file */
	} else if (!memcmp(hdr, "\xa1\xb2\xc3\xd4", 4) || !memcmp(hdr, "\xa1\xb2\x3c\x4d", 4)) {
		swap = 1;
	} else {
		fprintf(stderr, "%s: not a pcap file\n", path);
		fclose(fp);
		return 1;
	}
	while (fread(rec, 1, sizeof(rec), fp) == sizeof(rec)) {
		const unsigned char *c = rec + 8;

		caplen = swap ? (c[0] << 24 | c[1] << 16 | c[2] << 8 | c[3]) :
				(c[3] << 24 | c[2] << 16 | c[1] << 8 | c[0]);
		if (caplen > sizeof(buf) || fread(buf, 1, caplen, fp) != caplen)
			break;
		frame(buf, caplen, 0, 0);
	}
	fclose(fp);
	return 0;
}

/* incoming frames with EtherType CNM, directly or behind one VLAN tag */
static struct sock_filter cnm_filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 6, 0),
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_CNM, 5, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_8021Q, 1, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_8021AD, 0, 2),
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 16),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_CNM, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, 0),
	BPF_STMT(BPF_RET | BPF_K, 0xffff),
};

/* Receive one frame with its accelerated VLAN tag, if any. */
static ssize_t recv_frame(int fd, unsigned char *buf, size_t size,
			  unsigned int *tci, unsigned int *tpid)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = &ctl, .msg_controllen = sizeof(ctl),
	};
	struct tpacket_auxdata aux;
	struct cmsghdr *c;
	ssize_t n;

	*tci = 0;
	*tpid = 0;
	n = recvmsg(fd, &msg, MSG_DONTWAIT);
	if (n <= 0)
		return n;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA)
			continue;
		memcpy(&aux, CMSG_DATA(c), sizeof(aux));
		if (aux.tp_status & TP_STATUS_VLAN_VALID) {
			*tci = aux.tp_vlan_tci;
			*tpid = (aux.tp_status & TP_STATUS_VLAN_TPID_VALID) ?
				aux.tp_vlan_tpid : ETH_P_8021Q;
		}
	}
	return n;
}

static int live(const char *ifname, double seconds, unsigned long count)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct sock_fprog prog = {
		.len = sizeof(cnm_filter) / sizeof(cnm_filter[0]),
		.filter = cnm_filter,
	};
	unsigned int tci, tpid;
	unsigned char buf[2048];
	struct timespec t0, t;
	struct pollfd pfd;
	int fd, ms, one = 1;
	ssize_t n;

	fd = socket(AF_PACKET, SOCK_RAW, 0);	/* bound below, filter first */
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one))) {
		perror("setsockopt");
		close(fd);
		return 1;
	}
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "cnm_dump: cannot bind to %s\n", ifname);
		close(fd);
		return 1;
	}
	printf("# listening on %s\n", ifname);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (!stop && (!count || n_cnm + n_bad < count)) {
		ms = 200;
		if (seconds > 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			double left = seconds - (t.tv_sec - t0.tv_sec) -
				      (t.tv_nsec - t0.tv_nsec) / 1e9;
			if (left <= 0)
				break;
			if (left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		if (poll(&pfd, 1, ms) <= 0)
			continue;
		n = recv_frame(fd, buf, sizeof(buf), &tci, &tpid);
		if (n > 0)
			frame(buf, (unsigned int)n, tci, tpid);
	}
	close(fd);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: cnm_dump -i IFACE [-t SECONDS] [-c COUNT] | -r FILE.pcap\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *file = NULL;
	unsigned long count = 0;
	double seconds = 0;
	int c, ret;

	while ((c = getopt(argc, argv, "i:r:t:c:h")) != -1) {
		switch (c) {
		case 'i':
			ifname = optarg;
			break;
		case 'r':
			file = optarg;
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 'c':
			count = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (!!ifname == !!file)
		usage();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = file ? read_pcap(file) : live(ifname, seconds, count);
	printf("# cnms=%lu bad=%lu\n", n_cnm, n_bad);
	return ret;
}
