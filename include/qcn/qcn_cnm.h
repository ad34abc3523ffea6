/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * IEEE 802.1Qau CNM PDU codec (the octets after the 0x22E7 EtherType):
 *   0: Version(4) | Reserved(6) | qFb(6)     (2 octets, network order)
 *   2: CPID                                  (8 octets)
 *  10: cnmQOffset, signed                    (2 octets)
 *  12: cnmQDelta, signed                     (2 octets)
 *  14: Encapsulated priority                 (2 octets, priority in bits 15..13)
 *  16: Encapsulated destination MAC          (6 octets)
 *  22: Encapsulated MSDU length              (2 octets)
 *  24: Encapsulated MSDU                     (0..64 octets)
 * cnmQOffset/cnmQDelta unit: 64 octets, saturated to s16 (round toward 0).
 * All multi-octet fields are in network (big-endian) order.
 *
 * Decoding is strict: reserved bits (octet 0/1 bits 11..6 and the low 13
 * bits of the priority field) must be zero; octets after the MSDU (e.g.
 * Ethernet padding up to the 60-octet minimum frame) are accepted and
 * ignored.  The decoder reads only buf[0 .. len-1].
 */
#ifndef _QCN_CNM_H
#define _QCN_CNM_H

#include "qcn_types.h"

#define QCN_CNM_HDR_LEN		24
#define QCN_CNM_MSDU_MAX	64
#define QCN_CNM_MAX_LEN		(QCN_CNM_HDR_LEN + QCN_CNM_MSDU_MAX)
#define QCN_CNM_VERSION		0
#define QCN_CNM_Q_UNIT		64	/* octets per cnmQOffset/cnmQDelta unit */

struct qcn_cnm {
	u8 version;
	u8 qfb;				/* 0..63 */
	u8 cpid[8];
	s16 qoffset;			/* units of QCN_CNM_Q_UNIT octets */
	s16 qdelta;
	u8 prio;			/* 0..7 */
	u8 dst[6];			/* encapsulated destination MAC */
	u16 msdu_len;			/* 0..64 */
	u8 msdu[QCN_CNM_MSDU_MAX];
};

enum qcn_cnm_err {
	QCN_CNM_OK = 0,
	QCN_CNM_ETRUNC = -1,		/* fewer than 24 octets */
	QCN_CNM_EVERSION = -2,		/* version != 0 */
	QCN_CNM_EMSDU_LONG = -3,	/* msdu_len > 64 */
	QCN_CNM_EMSDU_TRUNC = -4,	/* msdu_len > octets present */
	QCN_CNM_ERESERVED = -5,		/* reserved bits or priority low bits set */
	QCN_CNM_EINVAL = -6,		/* encoder: bad argument / buffer too small */
};

static inline u16 qcn_cnm__get16(const u8 *p)
{
	return (u16)(((u16)p[0] << 8) | p[1]);
}

static inline void qcn_cnm__put16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

/*
 * Encode into buf (len = room); returns octets written (24 + msdu_len) or
 * QCN_CNM_EINVAL (NULL pointer, version > 15, qfb > 63, prio > 7,
 * msdu_len > 64 or len < 24 + msdu_len).  Nothing is written on error.
 */
static inline int qcn_cnm_encode(const struct qcn_cnm *m, u8 *buf, u32 len)
{
	u32 need, i;

	if (!m || !buf)
		return QCN_CNM_EINVAL;
	if (m->version > 15 || m->qfb > 63 || m->prio > 7 ||
	    m->msdu_len > QCN_CNM_MSDU_MAX)
		return QCN_CNM_EINVAL;
	need = QCN_CNM_HDR_LEN + m->msdu_len;
	if (len < need)
		return QCN_CNM_EINVAL;
	qcn_cnm__put16(buf, (u16)(((u16)m->version << 12) | m->qfb));
	for (i = 0; i < 8; i++)
		buf[2 + i] = m->cpid[i];
	qcn_cnm__put16(buf + 10, (u16)m->qoffset);
	qcn_cnm__put16(buf + 12, (u16)m->qdelta);
	qcn_cnm__put16(buf + 14, (u16)((u16)m->prio << 13));
	for (i = 0; i < 6; i++)
		buf[16 + i] = m->dst[i];
	qcn_cnm__put16(buf + 22, m->msdu_len);
	for (i = 0; i < m->msdu_len; i++)
		buf[QCN_CNM_HDR_LEN + i] = m->msdu[i];
	return (int)need;
}

/*
 * Decode len octets; never reads past buf + len; returns QCN_CNM_OK or an
 * error, checked in this order: ETRUNC (len < 24), EVERSION, ERESERVED,
 * EMSDU_LONG (> 64), EMSDU_TRUNC (> len - 24).  On error *m is left in an
 * unspecified state.  Unused msdu[] octets are zeroed.
 */
static inline int qcn_cnm_decode(const u8 *buf, u32 len, struct qcn_cnm *m)
{
	u16 w0, prio, mlen;
	u32 i;

	if (!buf || !m || len < QCN_CNM_HDR_LEN)
		return QCN_CNM_ETRUNC;
	w0 = qcn_cnm__get16(buf);
	if ((w0 >> 12) != QCN_CNM_VERSION)
		return QCN_CNM_EVERSION;
	prio = qcn_cnm__get16(buf + 14);
	if ((w0 & 0x0fc0) || (prio & 0x1fff))
		return QCN_CNM_ERESERVED;
	mlen = qcn_cnm__get16(buf + 22);
	if (mlen > QCN_CNM_MSDU_MAX)
		return QCN_CNM_EMSDU_LONG;
	if (mlen > len - QCN_CNM_HDR_LEN)
		return QCN_CNM_EMSDU_TRUNC;

	m->version = (u8)(w0 >> 12);
	m->qfb = (u8)(w0 & 0x3f);
	for (i = 0; i < 8; i++)
		m->cpid[i] = buf[2 + i];
	m->qoffset = (s16)qcn_cnm__get16(buf + 10);
	m->qdelta = (s16)qcn_cnm__get16(buf + 12);
	m->prio = (u8)(prio >> 13);
	for (i = 0; i < 6; i++)
		m->dst[i] = buf[16 + i];
	m->msdu_len = mlen;
	for (i = 0; i < QCN_CNM_MSDU_MAX; i++)
		m->msdu[i] = i < mlen ? buf[QCN_CNM_HDR_LEN + i] : 0;
	return QCN_CNM_OK;
}

/*
 * Bytes -> cnmQOffset/cnmQDelta units (64 octets), truncated toward zero
 * and saturated to [-32768, 32767].
 */
static inline s16 qcn_cnm_q_units(s64 bytes)
{
	u64 mag = bytes < 0 ? (u64)(-(bytes + 1)) + 1 : (u64)bytes;

	mag >>= 6;				/* / QCN_CNM_Q_UNIT */
	if (bytes < 0)
		return mag >= 32768 ? QCN_S16_MIN : (s16)(-(s32)mag);
	return mag >= 32767 ? QCN_S16_MAX : (s16)mag;
}

/* CPID: port MAC (6 octets) + 16-bit index, network order. */
static inline void qcn_cnm_cpid(u8 cpid[8], const u8 mac[6], u16 index)
{
	u32 i;

	for (i = 0; i < 6; i++)
		cpid[i] = mac[i];
	qcn_cnm__put16(cpid + 6, index);
}

#endif /* _QCN_CNM_H */
