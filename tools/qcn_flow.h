/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qcn_flow.h - a qcn_rp limiter's flow key as text, the one spelling that
 * tc's plugin (tc -s class show: "flow ...") and qcnstat (the flow
 * column) print:
 *
 *   l4 key, IPv4   198.18.0.1:5000>198.18.0.100:9000/17
 *   l4 key, IPv6   [2001:db8::1]:5000>[2001:db8::2]:9000/17
 *   l3 key         198.18.0.1>198.18.0.100/17 (no ports; IPv6 unbracketed)
 *   MAC key        02:00:00:00:00:64/prio3   (non-IP traffic, flow dst-mac)
 *
 * The number after '/' is the IP protocol, or the priority of a MAC key.
 */
#ifndef _QCN_FLOW_H
#define _QCN_FLOW_H

#include <stdio.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <uapi/linux/qcn.h>

#define QCN_FLOW_STRLEN	112	/* two bracketed IPv6 addresses, ports, proto */

static inline const char *qcn_flow_str(char *buf, size_t len,
				       const struct tc_qcn_rp_flow_key *k)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	if (k->family == AF_INET || k->family == AF_INET6) {
		const char *o = k->family == AF_INET6 ? "[" : "";
		const char *c = k->family == AF_INET6 ? "]" : "";

		if (!inet_ntop(k->family, k->saddr, a, sizeof(a)) ||
		    !inet_ntop(k->family, k->daddr, b, sizeof(b))) {
			snprintf(buf, len, "?");
		} else if (k->sport || k->dport) {
			snprintf(buf, len, "%s%s%s:%u>%s%s%s:%u/%u", o, a, c,
				 ntohs(k->sport), o, b, c, ntohs(k->dport),
				 k->proto);
		} else {
			snprintf(buf, len, "%s>%s/%u", a, b, k->proto);
		}
	} else {
		snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x/prio%u",
			 k->dmac[0], k->dmac[1], k->dmac[2], k->dmac[3],
			 k->dmac[4], k->dmac[5], k->prio);
	}
	return buf;
}

#endif /* _QCN_FLOW_H */
