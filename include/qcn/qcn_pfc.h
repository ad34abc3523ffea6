/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * IEEE 802.1Qbb priority-based flow control (PFC): the frame codec, the
 * pause time in quanta, and the XOFF/XON decision of one (port, priority)
 * counter.
 *
 * The PFC frame is a MAC Control frame (IEEE 802.3 Annex 31D, used by
 * 802.1Qbb clause 36), 60 octets without FCS:
 *   0: destination 01:80:C2:00:00:01          (6 octets)
 *   6: source, the sending port's MAC          (6 octets)
 *  12: EtherType 0x8808 (MAC Control)          (2 octets)
 *  14: opcode 0x0101 (PFC; 0x0001 is PAUSE)    (2 octets)
 *  16: priority-enable vector: bit p enables
 *      time[p], bits 15..8 reserved, zero      (2 octets)
 *  18: time[0] .. time[7], pause quanta        (8 x 2 octets)
 *  34: reserved, transmitted as zero           (26 octets)
 * A quantum is 512 bit times at the link's speed; time[p] = 0 ends a
 * pause of priority p at once (XON).  All fields are big-endian.
 *
 * Decoding is strict: destination, EtherType, opcode and the reserved
 * vector bits must match, and the frame must have its 60 octets (a frame
 * seen without its Ethernet header is decoded by qcn_pfc_decode_body()
 * from the opcode on, 46 octets).  The padding is not checked: 802.3
 * receivers ignore it.  time[p] of a priority whose enable bit is clear
 * is ignored and reported as 0.  The decoders read only buf[0 .. len-1].
 */
#ifndef _QCN_PFC_H
#define _QCN_PFC_H

#include "qcn_types.h"

#define QCN_PFC_FRAME_LEN	60	/* minimum frame, FCS excluded */
#define QCN_PFC_HDR_LEN		14	/* DA, SA, EtherType */
#define QCN_PFC_BODY_LEN	(QCN_PFC_FRAME_LEN - QCN_PFC_HDR_LEN)
#define QCN_PFC_ETHERTYPE	0x8808
#define QCN_PFC_OPCODE		0x0101
#define QCN_PFC_NPRIO		8
#define QCN_PFC_QUANTUM_BITS	512
#define QCN_PFC_QUANTA_MAX	0xffff

struct qcn_pfc {
	u8 src[6];			/* source MAC */
	u8 enable;			/* priority-enable vector, bit p */
	u16 quanta[QCN_PFC_NPRIO];	/* pause time per priority */
};

enum qcn_pfc_err {
	QCN_PFC_OK = 0,
	QCN_PFC_ETRUNC = -1,		/* shorter than the minimum frame */
	QCN_PFC_EDEST = -2,		/* destination not 01:80:C2:00:00:01 */
	QCN_PFC_ETYPE = -3,		/* EtherType not 0x8808 */
	QCN_PFC_EOPCODE = -4,		/* opcode not 0x0101 */
	QCN_PFC_ERESERVED = -5,		/* priority-enable bits 15..8 set */
	QCN_PFC_EINVAL = -6,		/* encoder: bad argument / small buffer */
};

static inline u16 qcn_pfc__get16(const u8 *p)
{
	return (u16)(((u16)p[0] << 8) | p[1]);
}

static inline void qcn_pfc__put16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

/* the reserved MAC Control group address 01:80:C2:00:00:01, octet i */
static inline u8 qcn_pfc__dest(u32 i)
{
	return i == 0 ? 0x01 : i == 1 ? 0x80 : i == 2 ? 0xc2 :
	       i == 5 ? 0x01 : 0x00;
}

/*
 * Encode the whole 60-octet frame (802.3 Annex 31D frame format, 802.1Q
 * clause 36 as added by 802.1Qbb) into buf (len = room); quanta of
 * priorities not enabled are sent as zero.  Returns QCN_PFC_FRAME_LEN
 * or QCN_PFC_EINVAL (NULL pointer or len < 60); nothing is written on
 * error.
 */
static inline int qcn_pfc_encode(const struct qcn_pfc *f, u8 *buf, u32 len)
{
	u32 i;

	if (!f || !buf || len < QCN_PFC_FRAME_LEN)
		return QCN_PFC_EINVAL;
	for (i = 0; i < 6; i++) {
		buf[i] = qcn_pfc__dest(i);
		buf[6 + i] = f->src[i];
	}
	qcn_pfc__put16(buf + 12, QCN_PFC_ETHERTYPE);
	qcn_pfc__put16(buf + 14, QCN_PFC_OPCODE);
	qcn_pfc__put16(buf + 16, f->enable);
	for (i = 0; i < QCN_PFC_NPRIO; i++)
		qcn_pfc__put16(buf + 18 + 2 * i,
			       (f->enable >> i) & 1 ? f->quanta[i] : 0);
	for (i = 34; i < QCN_PFC_FRAME_LEN; i++)
		buf[i] = 0;
	return QCN_PFC_FRAME_LEN;
}

/*
 * Decode the MAC Control body, from the opcode on (what follows the
 * EtherType; len >= 46).  Returns QCN_PFC_OK or, checked in this order,
 * ETRUNC, EOPCODE, ERESERVED.  f->src is left untouched; on error *f is
 * unspecified.
 */
static inline int qcn_pfc_decode_body(const u8 *buf, u32 len,
				      struct qcn_pfc *f)
{
	u16 vec;
	u32 i;

	if (!buf || !f || len < QCN_PFC_BODY_LEN)
		return QCN_PFC_ETRUNC;
	if (qcn_pfc__get16(buf) != QCN_PFC_OPCODE)
		return QCN_PFC_EOPCODE;
	vec = qcn_pfc__get16(buf + 2);
	if (vec & 0xff00)
		return QCN_PFC_ERESERVED;
	f->enable = (u8)vec;
	for (i = 0; i < QCN_PFC_NPRIO; i++)
		f->quanta[i] = (vec >> i) & 1 ?
			       qcn_pfc__get16(buf + 4 + 2 * i) : 0;
	return QCN_PFC_OK;
}

/*
 * Decode a whole frame from its destination address on (len >= 60).
 * Returns QCN_PFC_OK or, checked in this order, ETRUNC, EDEST, ETYPE,
 * EOPCODE, ERESERVED.
 */
static inline int qcn_pfc_decode(const u8 *buf, u32 len, struct qcn_pfc *f)
{
	u32 i;

	if (!buf || !f || len < QCN_PFC_FRAME_LEN)
		return QCN_PFC_ETRUNC;
	for (i = 0; i < 6; i++)
		if (buf[i] != qcn_pfc__dest(i))
			return QCN_PFC_EDEST;
	if (qcn_pfc__get16(buf + 12) != QCN_PFC_ETHERTYPE)
		return QCN_PFC_ETYPE;
	for (i = 0; i < 6; i++)
		f->src[i] = buf[6 + i];
	return qcn_pfc_decode_body(buf + QCN_PFC_HDR_LEN,
				   len - QCN_PFC_HDR_LEN, f);
}

/*
 * Pause time of @quanta at a link of @rate_bps bit/s, in ns, truncated
 * (a quantum is 512 bit times, 802.3 Annex 31D), so that
 * qcn_pfc_ns_to_quanta() gives the quanta back below 512 Gbit/s.  A rate
 * of 0 (unknown) returns 0: no pause can be timed without one.
 */
static inline u64 qcn_pfc_quanta_to_ns(u32 quanta, u64 rate_bps)
{
	if (!rate_bps || !quanta)
		return 0;
	return qcn_mul_div_u64((u64)quanta * QCN_PFC_QUANTUM_BITS,
			       QCN_NSEC_PER_SEC, rate_bps);
}

/*
 * The quanta that pause a link of @rate_bps bit/s for at least @ns,
 * saturated at 65535 (the field's limit); rate 0 gives 0.
 */
static inline u16 qcn_pfc_ns_to_quanta(u64 ns, u64 rate_bps)
{
	u64 bits, q;

	if (!rate_bps || !ns)
		return 0;
	bits = qcn_mul_div_u64(ns, rate_bps, QCN_NSEC_PER_SEC);
	if (bits < QCN_U64_MAX &&
	    qcn_mul_div_u64(bits, QCN_NSEC_PER_SEC, rate_bps) < ns)
		bits++;
	q = bits / QCN_PFC_QUANTUM_BITS + !!(bits % QCN_PFC_QUANTUM_BITS);
	return q > QCN_PFC_QUANTA_MAX ? QCN_PFC_QUANTA_MAX : (u16)q;
}

/*
 * Generation: the hysteresis of one (port, priority) counter of queued
 * bytes, the PFC-hi (STOP) and PFC-lo (GO) thresholds of the occupancy-
 * sampling paper (Table I: 110 KB and 44 KB).  802.1Qbb (802.1Q clause
 * 36): a port sends PFC with a nonzero time to stop its peer's priority
 * before its buffer overflows, and time 0 to release it; a pause ends by
 * itself when its quanta run out, so while the counter stays high the
 * XOFF is re-sent every @refresh_ns, set shorter than the pause time.
 */
struct qcn_pfc_params {
	u64 xoff;		/* bytes: above, pause */
	u64 xon;		/* bytes: below, resume (xon <= xoff) */
	u64 refresh_ns;		/* re-send XOFF this long after the last */
};

struct qcn_pfc_state {
	bool paused;		/* an XOFF was sent, its XON not yet */
	u64 sent_ns;		/* when the last XOFF was sent */
};

enum qcn_pfc_action {
	QCN_PFC_NONE = 0,
	QCN_PFC_XOFF = 1,	/* send time[p] = quanta (also a refresh) */
	QCN_PFC_XON = 2,	/* send time[p] = 0 */
};

/*
 * One decision for counter value @bytes at time @now (ns, monotonic);
 * updates @s when it asks for a frame.  Above xoff a running port pauses;
 * below xon a paused one resumes; between the two nothing changes but the
 * refresh of a pause that is due.
 */
static inline enum qcn_pfc_action
qcn_pfc_decide(struct qcn_pfc_state *s, const struct qcn_pfc_params *p,
	       u64 bytes, u64 now)
{
	if (!s->paused) {
		if (bytes <= p->xoff)
			return QCN_PFC_NONE;
		s->paused = true;
		s->sent_ns = now;
		return QCN_PFC_XOFF;
	}
	if (bytes < p->xon) {
		s->paused = false;
		return QCN_PFC_XON;
	}
	if (now - s->sent_ns >= p->refresh_ns) {
		s->sent_ns = now;
		return QCN_PFC_XOFF;
	}
	return QCN_PFC_NONE;
}

/* When a paused counter's XOFF is next due (for a timer); 0 if running. */
static inline u64 qcn_pfc_refresh_at(const struct qcn_pfc_state *s,
				     const struct qcn_pfc_params *p)
{
	if (!s->paused)
		return 0;
	return qcn_sat_add_u64(s->sent_ns, p->refresh_ns);
}

/*
 * Reception (802.1Qbb, 802.1Q clause 36): time[p] received at @now
 * pauses priority p until the returned instant, replacing any pause in
 * progress; time 0 ends it (returns @now).  A rate of 0 cannot time a
 * pause: returns @now.
 */
static inline u64 qcn_pfc_pause_until(u64 now, u16 quanta, u64 rate_bps)
{
	return qcn_sat_add_u64(now, qcn_pfc_quanta_to_ns(quanta, rate_bps));
}

#endif /* _QCN_PFC_H */
