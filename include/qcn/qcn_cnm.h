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
 * cnmQOffset/cnmQDelta unit: 64 octets, saturated to s16.
 *
 * API CONTRACT (bodies are filled in by the cores work, issue #3):
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

/* Encode into buf (len = room); returns octets written or QCN_CNM_EINVAL. */
static inline int qcn_cnm_encode(const struct qcn_cnm *m, u8 *buf, u32 len);

/* Decode len octets; never reads past buf + len; returns QCN_CNM_OK or an error. */
static inline int qcn_cnm_decode(const u8 *buf, u32 len, struct qcn_cnm *m);

/* Bytes -> cnmQOffset/cnmQDelta units, saturating to s16. */
static inline s16 qcn_cnm_q_units(s64 bytes);

/* CPID: port MAC (6 octets) + 16-bit index, network order. */
static inline void qcn_cnm_cpid(u8 cpid[8], const u8 mac[6], u16 index);

#endif /* _QCN_CNM_H */
