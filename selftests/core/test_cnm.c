// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for include/qcn/qcn_cnm.h.  Every decode runs on a heap buffer
 * of exactly the length passed, so ASan (make run builds with it) or
 * valgrind flags any read past the end.
 */
#include "qcn/qcn_cnm.h"
#include "ktap.h"

static const uint8_t mac[6] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30 };
static const uint8_t dst[6] = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };

static void sample(struct qcn_cnm *m, uint16_t mlen)
{
	unsigned int i;

	memset(m, 0, sizeof(*m));
	m->version = 0;
	m->qfb = 45;
	qcn_cnm_cpid(m->cpid, mac, 0x1234);
	m->qoffset = -100;
	m->qdelta = 200;
	m->prio = 5;
	memcpy(m->dst, dst, 6);
	m->msdu_len = mlen;
	for (i = 0; i < mlen; i++)
		m->msdu[i] = (uint8_t)(0xa0 + i);
}

/* decode len octets from an exact-size heap copy of src */
static int decode_exact(const uint8_t *src, uint32_t len, struct qcn_cnm *m)
{
	uint8_t *b = ktap_exact_copy(src, len);
	int r;

	r = qcn_cnm_decode(b, len, m);
	free(b);
	return r;
}

static int same(const struct qcn_cnm *a, const struct qcn_cnm *b)
{
	return a->version == b->version && a->qfb == b->qfb &&
	       !memcmp(a->cpid, b->cpid, 8) && a->qoffset == b->qoffset &&
	       a->qdelta == b->qdelta && a->prio == b->prio &&
	       !memcmp(a->dst, b->dst, 6) && a->msdu_len == b->msdu_len &&
	       !memcmp(a->msdu, b->msdu, a->msdu_len);
}

static void test_layout(void)
{
	static const uint8_t want[34] = {
		0x00, 0x2d,					/* version 0, qFb 45 */
		0x02, 0x00, 0x5e, 0x10, 0x20, 0x30, 0x12, 0x34,	/* CPID */
		0xff, 0x9c,					/* qOffset -100 */
		0x00, 0xc8,					/* qDelta 200 */
		0xa0, 0x00,					/* priority 5 << 13 */
		0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,		/* encapsulated DA */
		0x00, 0x0a,					/* MSDU length 10 */
		0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9,
	};
	struct qcn_cnm m, d;
	uint8_t buf[QCN_CNM_MAX_LEN + 8];
	int n;

	sample(&m, 10);
	n = qcn_cnm_encode(&m, buf, sizeof(buf));
	CHECK_S64(n, 34, "encode: returns 24 + msdu_len octets");
	CHECK(!memcmp(buf, want, sizeof(want)), "encode: wire layout matches the 802.1Qau table");
	CHECK_S64(decode_exact(want, sizeof(want), &d), QCN_CNM_OK, "decode: reference frame accepted");
	CHECK(same(&m, &d), "decode: reference frame fields");
	CHECK(d.qoffset == -100 && d.qdelta == 200 && d.prio == 5 && d.qfb == 45,
	      "decode: signed offsets, priority bits 15..13, qFb");
	CHECK(d.msdu[10] == 0 && d.msdu[63] == 0, "decode: unused msdu octets zeroed");
	/* qFb 63 and priority 7 use the top/bottom bits exactly */
	m.qfb = 63;
	m.prio = 7;
	qcn_cnm_encode(&m, buf, sizeof(buf));
	CHECK(buf[0] == 0x00 && buf[1] == 0x3f && buf[14] == 0xe0 && buf[15] == 0x00,
	      "encode: qFb 63 -> 0x003f, priority 7 -> 0xe000");
	CHECK(qcn_cnm_decode(buf, 34, &d) == QCN_CNM_OK && d.qfb == 63 && d.prio == 7,
	      "decode: qFb 63, priority 7");
}

static void test_roundtrip(void)
{
	struct qcn_cnm m, d;
	uint8_t buf[QCN_CNM_MAX_LEN];
	unsigned int len, bad = 0, badlen = 0, q;
	int n;

	for (len = 0; len <= QCN_CNM_MSDU_MAX; len++) {
		sample(&m, (uint16_t)len);
		m.qfb = (uint8_t)(len % 64);
		m.prio = (uint8_t)(len % 8);
		m.qoffset = (int16_t)(len * 1000 - 32768);
		n = qcn_cnm_encode(&m, buf, QCN_CNM_HDR_LEN + len);
		if (n != (int)(QCN_CNM_HDR_LEN + len))
			badlen++;
		if (decode_exact(buf, QCN_CNM_HDR_LEN + len, &d) != QCN_CNM_OK || !same(&m, &d))
			bad++;
	}
	CHECK_U64(badlen, 0, "round trip: encode into an exact-size buffer, msdu 0..64");
	CHECK_U64(bad, 0, "round trip: decode(encode(m)) == m for msdu 0..64 (exact heap buffers)");
	for (q = 0, bad = 0; q < 64; q++) {
		sample(&m, 0);
		m.qfb = (uint8_t)q;
		qcn_cnm_encode(&m, buf, sizeof(buf));
		if (qcn_cnm_decode(buf, QCN_CNM_HDR_LEN, &d) != QCN_CNM_OK || d.qfb != q)
			bad++;
	}
	CHECK_U64(bad, 0, "round trip: every qFb 0..63");
	sample(&m, 0);
	m.qoffset = INT16_MIN;
	m.qdelta = INT16_MAX;
	qcn_cnm_encode(&m, buf, sizeof(buf));
	CHECK(decode_exact(buf, QCN_CNM_HDR_LEN, &d) == QCN_CNM_OK && d.qoffset == INT16_MIN &&
	      d.qdelta == INT16_MAX, "round trip: s16 extremes of qOffset/qDelta");
	/* Ethernet padding after the MSDU is ignored */
	sample(&m, 10);
	memset(buf, 0, sizeof(buf));
	qcn_cnm_encode(&m, buf, sizeof(buf));
	CHECK(decode_exact(buf, 60, &d) == QCN_CNM_OK && same(&m, &d),
	      "decode: trailing padding after the MSDU accepted");
}

static void test_reject(void)
{
	struct qcn_cnm m, d;
	uint8_t buf[QCN_CNM_MAX_LEN + 4], b2[QCN_CNM_MAX_LEN + 4];
	unsigned int i, bad;

	sample(&m, 10);
	qcn_cnm_encode(&m, buf, sizeof(buf));

	CHECK_S64(qcn_cnm_decode(NULL, 0, &d), QCN_CNM_ETRUNC, "reject: empty frame -> ETRUNC");
	for (i = 1, bad = 0; i < QCN_CNM_HDR_LEN; i++)
		if (decode_exact(buf, i, &d) != QCN_CNM_ETRUNC)
			bad++;
	CHECK_U64(bad, 0, "reject: every length 1..23 -> ETRUNC (exact heap buffers)");
	CHECK_S64(decode_exact(buf, 24 + 9, &d), QCN_CNM_EMSDU_TRUNC,
		  "reject: msdu_len 10 with 9 octets present -> EMSDU_TRUNC");
	CHECK_S64(decode_exact(buf, 24, &d), QCN_CNM_EMSDU_TRUNC,
		  "reject: msdu_len 10 with no MSDU -> EMSDU_TRUNC");

	memcpy(b2, buf, sizeof(b2));
	b2[22] = 0;
	b2[23] = 65;
	CHECK_S64(decode_exact(b2, 24 + 65, &d), QCN_CNM_EMSDU_LONG,
		  "reject: msdu_len 65 (all present) -> EMSDU_LONG");
	b2[22] = 0xff;
	b2[23] = 0xff;
	CHECK_S64(decode_exact(b2, 24, &d), QCN_CNM_EMSDU_LONG, "reject: msdu_len 65535 -> EMSDU_LONG");
	b2[22] = 0;
	b2[23] = 64;
	CHECK_S64(decode_exact(b2, 24 + 63, &d), QCN_CNM_EMSDU_TRUNC,
		  "reject: msdu_len 64 with 63 present -> EMSDU_TRUNC");
	CHECK_S64(decode_exact(b2, 24 + 64, &d), QCN_CNM_OK, "accept: msdu_len 64 exactly present");

	for (i = 1, bad = 0; i < 16; i++) {
		memcpy(b2, buf, sizeof(b2));
		b2[0] = (uint8_t)(i << 4);
		if (decode_exact(b2, 34, &d) != QCN_CNM_EVERSION)
			bad++;
	}
	CHECK_U64(bad, 0, "reject: versions 1..15 -> EVERSION");
	for (i = 6, bad = 0; i < 12; i++) {
		memcpy(b2, buf, sizeof(b2));
		b2[0] |= (uint8_t)((1U << i) >> 8);
		b2[1] |= (uint8_t)(1U << i);
		if (decode_exact(b2, 34, &d) != QCN_CNM_ERESERVED)
			bad++;
	}
	CHECK_U64(bad, 0, "reject: each reserved bit 6..11 of octets 0-1 -> ERESERVED");
	for (i = 0, bad = 0; i < 13; i++) {
		memcpy(b2, buf, sizeof(b2));
		b2[14] |= (uint8_t)((1U << i) >> 8);
		b2[15] |= (uint8_t)(1U << i);
		if (decode_exact(b2, 34, &d) != QCN_CNM_ERESERVED)
			bad++;
	}
	CHECK_U64(bad, 0, "reject: each low priority bit 0..12 -> ERESERVED");
	memcpy(b2, buf, sizeof(b2));
	b2[0] = 0x10;		/* version 1 and truncated MSDU: version wins */
	CHECK_S64(decode_exact(b2, 30, &d), QCN_CNM_EVERSION, "reject: version checked before MSDU");

	CHECK(QCN_CNM_ETRUNC != QCN_CNM_EVERSION && QCN_CNM_EVERSION != QCN_CNM_EMSDU_LONG &&
	      QCN_CNM_EMSDU_LONG != QCN_CNM_EMSDU_TRUNC && QCN_CNM_EMSDU_TRUNC != QCN_CNM_ERESERVED &&
	      QCN_CNM_ERESERVED != QCN_CNM_EINVAL && QCN_CNM_ETRUNC < 0 && QCN_CNM_EINVAL < 0,
	      "error codes are distinct and negative");
}

static void test_encode_errors(void)
{
	struct qcn_cnm m;
	uint8_t buf[QCN_CNM_MAX_LEN + 4];
	unsigned int i, clean = 1;

	memset(buf, 0x5a, sizeof(buf));
	sample(&m, 10);
	CHECK_S64(qcn_cnm_encode(NULL, buf, sizeof(buf)), QCN_CNM_EINVAL, "encode: NULL message");
	CHECK_S64(qcn_cnm_encode(&m, NULL, 100), QCN_CNM_EINVAL, "encode: NULL buffer");
	CHECK_S64(qcn_cnm_encode(&m, buf, 33), QCN_CNM_EINVAL, "encode: buffer one octet short");
	m.qfb = 64;
	CHECK_S64(qcn_cnm_encode(&m, buf, sizeof(buf)), QCN_CNM_EINVAL, "encode: qFb 64");
	m.qfb = 1;
	m.prio = 8;
	CHECK_S64(qcn_cnm_encode(&m, buf, sizeof(buf)), QCN_CNM_EINVAL, "encode: priority 8");
	m.prio = 0;
	m.msdu_len = 65;
	CHECK_S64(qcn_cnm_encode(&m, buf, sizeof(buf)), QCN_CNM_EINVAL, "encode: msdu_len 65");
	m.msdu_len = 0;
	m.version = 16;
	CHECK_S64(qcn_cnm_encode(&m, buf, sizeof(buf)), QCN_CNM_EINVAL, "encode: version 16");
	for (i = 0; i < sizeof(buf); i++)
		if (buf[i] != 0x5a)
			clean = 0;
	CHECK(clean, "encode: nothing written on error");
	m.version = 0;
	{
		uint8_t *b = malloc(QCN_CNM_HDR_LEN);

		CHECK_S64(qcn_cnm_encode(&m, b, QCN_CNM_HDR_LEN), 24,
			  "encode: empty MSDU into an exact 24-octet heap buffer");
		free(b);
	}
}

static void test_units(void)
{
	uint8_t cpid[8];
	static const uint8_t want[8] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30, 0xbe, 0xef };

	CHECK_S64(qcn_cnm_q_units(0), 0, "q units: 0");
	CHECK_S64(qcn_cnm_q_units(63), 0, "q units: 63 bytes -> 0");
	CHECK_S64(qcn_cnm_q_units(64), 1, "q units: 64 bytes -> 1");
	CHECK_S64(qcn_cnm_q_units(26000), 406, "q units: 26000 bytes -> 406");
	CHECK_S64(qcn_cnm_q_units(-63), 0, "q units: -63 -> 0 (toward zero)");
	CHECK_S64(qcn_cnm_q_units(-64), -1, "q units: -64 -> -1");
	CHECK_S64(qcn_cnm_q_units(-26000), -406, "q units: -26000 -> -406");
	CHECK_S64(qcn_cnm_q_units(64LL * 32767), 32767, "q units: 32767 units exactly");
	CHECK_S64(qcn_cnm_q_units(64LL * 32768), 32767, "q units: saturates at 32767");
	CHECK_S64(qcn_cnm_q_units(-64LL * 32768), -32768, "q units: -32768 units exactly");
	CHECK_S64(qcn_cnm_q_units(-64LL * 40000), -32768, "q units: saturates at -32768");
	CHECK_S64(qcn_cnm_q_units(INT64_MAX), 32767, "q units: S64_MAX");
	CHECK_S64(qcn_cnm_q_units(INT64_MIN), -32768, "q units: S64_MIN");
	qcn_cnm_cpid(cpid, mac, 0xbeef);
	CHECK(!memcmp(cpid, want, 8), "cpid: MAC + 16-bit index in network order");
}

int main(void)
{
	test_layout();
	test_roundtrip();
	test_reject();
	test_encode_errors();
	test_units();
	return ktap_finish();
}
