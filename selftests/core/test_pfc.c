// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for include/qcn/qcn_pfc.h.  Every decode runs on a heap buffer
 * of exactly the length passed, so ASan (make run builds with it) flags any
 * read past the end.
 */
#include "qcn/qcn_pfc.h"
#include "ktap.h"

static const uint8_t mac[6] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30 };

/* the reference frame: priorities 3 and 5 paused, 0xffff and 0x1234 */
static const uint8_t ref[60] = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,		/* DA */
	0x02, 0x00, 0x5e, 0x10, 0x20, 0x30,		/* SA */
	0x88, 0x08,					/* MAC Control */
	0x01, 0x01,					/* opcode PFC */
	0x00, 0x28,					/* enable 3, 5 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff,	/* time[0..3] */
	0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x00, 0x00,	/* time[4..7] */
};

static int decode_exact(const uint8_t *src, uint32_t len, struct qcn_pfc *f)
{
	uint8_t *b = ktap_exact_copy(src, len);
	int r;

	r = qcn_pfc_decode(b, len, f);
	free(b);
	return r;
}

static int body_exact(const uint8_t *src, uint32_t len, struct qcn_pfc *f)
{
	uint8_t *b = ktap_exact_copy(src, len);
	int r;

	r = qcn_pfc_decode_body(b, len, f);
	free(b);
	return r;
}

static void test_layout(void)
{
	struct qcn_pfc f, d;
	uint8_t buf[64];
	int n;

	memset(&f, 0, sizeof(f));
	memcpy(f.src, mac, 6);
	f.enable = 0x28;
	f.quanta[3] = 0xffff;
	f.quanta[5] = 0x1234;
	f.quanta[6] = 77;		/* not enabled: sent as 0 */
	memset(buf, 0xaa, sizeof(buf));
	n = qcn_pfc_encode(&f, buf, sizeof(buf));
	CHECK_S64(n, 60, "encode: 60 octets, FCS excluded");
	CHECK(!memcmp(buf, ref, 60), "encode: wire layout (802.3 Annex 31D)");
	CHECK(buf[60] == 0xaa, "encode: nothing past 60 octets");
	CHECK_S64(decode_exact(ref, 60, &d), QCN_PFC_OK, "decode: reference frame");
	CHECK(!memcmp(d.src, mac, 6) && d.enable == 0x28, "decode: source and enable vector");
	CHECK(d.quanta[3] == 0xffff && d.quanta[5] == 0x1234 && d.quanta[0] == 0 &&
	      d.quanta[6] == 0, "decode: quanta per priority");
	CHECK_S64(body_exact(ref + 14, 46, &d), QCN_PFC_OK, "decode body: 46 octets after the EtherType");
	CHECK(d.quanta[3] == 0xffff && d.quanta[5] == 0x1234, "decode body: quanta");
	memcpy(buf, ref, 60);
	memset(buf + 60, 0, 4);
	CHECK_S64(decode_exact(buf, 64, &d), QCN_PFC_OK, "decode: longer frame accepted");
}

static void test_roundtrip(void)
{
	struct qcn_pfc f, d;
	uint8_t buf[60];
	unsigned int v, p, bad = 0;

	for (v = 0; v < 256; v++) {
		memset(&f, 0, sizeof(f));
		memcpy(f.src, mac, 6);
		f.src[5] = (uint8_t)v;
		f.enable = (uint8_t)v;
		for (p = 0; p < 8; p++)
			f.quanta[p] = (v >> p) & 1 ? (uint16_t)(v * 257 + p * 4099) : 0;
		if (qcn_pfc_encode(&f, buf, sizeof(buf)) != 60 ||
		    decode_exact(buf, 60, &d) != QCN_PFC_OK ||
		    memcmp(d.src, f.src, 6) || d.enable != f.enable ||
		    memcmp(d.quanta, f.quanta, sizeof(f.quanta)))
			bad++;
	}
	CHECK_U64(bad, 0, "round trip: every enable vector, distinct quanta");
	/* disabled priorities' times are ignored on receive */
	memcpy(buf, ref, 60);
	buf[18] = 0x55;
	buf[19] = 0x55;
	CHECK_S64(decode_exact(buf, 60, &d), QCN_PFC_OK, "decode: time of a disabled priority accepted");
	CHECK_U64(d.quanta[0], 0, "decode: ... and ignored");
	/* nonzero padding is ignored, as 802.3 receivers do */
	buf[59] = 0xee;
	CHECK_S64(decode_exact(buf, 60, &d), QCN_PFC_OK, "decode: padding not checked");
}

/* the reference frame with one octet changed, and the error it must give */
static const struct {
	unsigned int off;
	uint8_t val;
	int err;
	const char *what;
} mutations[] = {
	{ 5, 0x02, QCN_PFC_EDEST, "other DA (01:80:C2:00:00:02)" },
	{ 0, 0x00, QCN_PFC_EDEST, "unicast DA" },
	{ 13, 0x09, QCN_PFC_ETYPE, "EtherType 0x8809" },
	{ 14, 0x00, QCN_PFC_EOPCODE, "802.3x PAUSE (0x0001) is not PFC" },
	{ 15, 0x02, QCN_PFC_EOPCODE, "opcode 0x0102" },
	{ 16, 0x01, QCN_PFC_ERESERVED, "enable bit 8 reserved" },
	{ 16, 0x80, QCN_PFC_ERESERVED, "enable bit 15 reserved" },
};

static void test_reject(void)
{
	struct qcn_pfc d;
	uint8_t buf[60];
	uint32_t len;
	unsigned int i;
	int bad = 0;

	for (len = 0; len < 60; len++)
		if (decode_exact(ref, len, &d) != QCN_PFC_ETRUNC)
			bad++;
	CHECK_S64(bad, 0, "decode: every length below 60 is ETRUNC");
	bad = 0;
	for (len = 0; len < 46; len++)
		if (body_exact(ref + 14, len, &d) != QCN_PFC_ETRUNC)
			bad++;
	CHECK_S64(bad, 0, "decode body: every length below 46 is ETRUNC");
	CHECK_S64(qcn_pfc_decode(NULL, 60, &d), QCN_PFC_ETRUNC, "decode: NULL buffer");
	CHECK_S64(qcn_pfc_decode(ref, 60, NULL), QCN_PFC_ETRUNC, "decode: NULL result");
	for (i = 0; i < sizeof(mutations) / sizeof(mutations[0]); i++) {
		memcpy(buf, ref, 60);
		buf[mutations[i].off] = mutations[i].val;
		CHECK_S64(decode_exact(buf, 60, &d), mutations[i].err, "decode: %s",
			  mutations[i].what);
	}
}

static void test_encode_errors(void)
{
	struct qcn_pfc f;
	uint8_t buf[60];

	memset(&f, 0, sizeof(f));
	memset(buf, 0x5a, sizeof(buf));
	CHECK_S64(qcn_pfc_encode(&f, buf, 59), QCN_PFC_EINVAL, "encode: 59-octet buffer refused");
	CHECK(buf[0] == 0x5a && buf[58] == 0x5a, "encode: nothing written on error");
	CHECK_S64(qcn_pfc_encode(NULL, buf, 60), QCN_PFC_EINVAL, "encode: NULL frame");
	CHECK_S64(qcn_pfc_encode(&f, NULL, 60), QCN_PFC_EINVAL, "encode: NULL buffer");
	CHECK_S64(qcn_pfc_encode(&f, buf, 60), 60, "encode: exact buffer");
}

static void test_units(void)
{
	const uint64_t g10 = 10000000000ULL, g1 = 1000000000ULL;
	uint64_t r;
	unsigned int q, bad = 0;

	CHECK_U64(qcn_pfc_quanta_to_ns(1, g1), 512, "quanta: 1 at 1 Gbit/s = 512 ns");
	CHECK_U64(qcn_pfc_quanta_to_ns(1, g10), 51, "quanta: 1 at 10 Gbit/s = 51.2 ns, truncated");
	CHECK_U64(qcn_pfc_quanta_to_ns(65535, g10), 3355392, "quanta: 65535 at 10 Gbit/s = 3.355392 ms");
	CHECK_U64(qcn_pfc_quanta_to_ns(65535, 1000000), 33553920000ULL, "quanta: 65535 at 1 Mbit/s = 33.55 s");
	CHECK_U64(qcn_pfc_quanta_to_ns(0, g10), 0, "quanta: 0 = no pause");
	CHECK_U64(qcn_pfc_quanta_to_ns(100, 0), 0, "quanta: rate 0 times no pause");
	CHECK_U64(qcn_pfc_quanta_to_ns(65535, 1), 33553920ULL * 1000000000ULL,
		  "quanta: 1 bit/s does not overflow");
	CHECK_U64(qcn_pfc_ns_to_quanta(512, g1), 1, "ns: 512 at 1 Gbit/s = 1 quantum");
	CHECK_U64(qcn_pfc_ns_to_quanta(513, g1), 2, "ns: rounded up");
	CHECK_U64(qcn_pfc_ns_to_quanta(1, g1), 1, "ns: 1 ns is one quantum");
	CHECK_U64(qcn_pfc_ns_to_quanta(0, g1), 0, "ns: 0");
	CHECK_U64(qcn_pfc_ns_to_quanta(1000000, 0), 0, "ns: rate 0");
	CHECK_U64(qcn_pfc_ns_to_quanta(1000000000ULL, g10), 65535, "ns: saturates at 65535");
	CHECK_U64(qcn_pfc_ns_to_quanta(UINT64_MAX, UINT64_MAX), 65535, "ns: no overflow at the limits");
	for (r = 1000000; r <= 100 * g1; r *= 10)
		for (q = 1; q < 65536; q = q * 3 + 1)
			if (qcn_pfc_ns_to_quanta(qcn_pfc_quanta_to_ns(q, r), r) != q)
				bad++;
	CHECK_U64(bad, 0, "quanta -> ns -> quanta round trip, 1 Mbit/s .. 100 Gbit/s");
	CHECK_U64(qcn_pfc_pause_until(1000, 2, g1), 2024, "pause until: now + time");
	CHECK_U64(qcn_pfc_pause_until(1000, 0, g1), 1000, "pause until: time 0 resumes now");
	CHECK_U64(qcn_pfc_pause_until(UINT64_MAX - 5, 65535, 1), UINT64_MAX, "pause until: saturates");
}

static void test_hysteresis(void)
{
	/* the paper's Table I: PFC-hi 110 KB, PFC-lo 44 KB */
	struct qcn_pfc_params p = { .xoff = 110000, .xon = 44000, .refresh_ns = 1000 };
	struct qcn_pfc_state s = { 0 };

	CHECK_S64(qcn_pfc_decide(&s, &p, 0, 0), QCN_PFC_NONE, "decide: empty, running");
	CHECK_S64(qcn_pfc_decide(&s, &p, 110000, 10), QCN_PFC_NONE, "decide: at xoff, not above: running");
	CHECK_U64(qcn_pfc_refresh_at(&s, &p), 0, "refresh at: none while running");
	CHECK_S64(qcn_pfc_decide(&s, &p, 110001, 20), QCN_PFC_XOFF, "decide: above xoff pauses");
	CHECK(s.paused && s.sent_ns == 20, "decide: state paused, sent at 20");
	CHECK_U64(qcn_pfc_refresh_at(&s, &p), 1020, "refresh at: sent + refresh");
	CHECK_S64(qcn_pfc_decide(&s, &p, 200000, 30), QCN_PFC_NONE, "decide: no repeat before refresh");
	CHECK_S64(qcn_pfc_decide(&s, &p, 60000, 500), QCN_PFC_NONE, "decide: between xon and xoff, paused stays");
	CHECK_S64(qcn_pfc_decide(&s, &p, 44000, 600), QCN_PFC_NONE, "decide: at xon, not below: paused");
	CHECK_S64(qcn_pfc_decide(&s, &p, 60000, 1019), QCN_PFC_NONE, "decide: 1 ns before refresh");
	CHECK_S64(qcn_pfc_decide(&s, &p, 60000, 1020), QCN_PFC_XOFF, "decide: refresh due, XOFF again");
	CHECK_U64(s.sent_ns, 1020, "decide: refresh restarts the clock");
	CHECK_S64(qcn_pfc_decide(&s, &p, 43999, 1100), QCN_PFC_XON, "decide: below xon resumes");
	CHECK(!s.paused, "decide: state running");
	CHECK_S64(qcn_pfc_decide(&s, &p, 43999, 5000), QCN_PFC_NONE, "decide: one XON only");
	CHECK_S64(qcn_pfc_decide(&s, &p, 100000, 5100), QCN_PFC_NONE, "decide: between, running stays");
	CHECK_S64(qcn_pfc_decide(&s, &p, 110001, 5200), QCN_PFC_XOFF, "decide: above xoff again");
	/* xon == xoff: a single threshold still alternates */
	p.xon = p.xoff = 1000;
	s.paused = false;
	CHECK_S64(qcn_pfc_decide(&s, &p, 1001, 0), QCN_PFC_XOFF, "decide: xon == xoff, above");
	CHECK_S64(qcn_pfc_decide(&s, &p, 1000, 1), QCN_PFC_NONE, "decide: xon == xoff, at");
	CHECK_S64(qcn_pfc_decide(&s, &p, 999, 2), QCN_PFC_XON, "decide: xon == xoff, below");
	/* a clock wrapped around u64 still refreshes */
	p.refresh_ns = 10;
	s.paused = true;
	s.sent_ns = UINT64_MAX - 4;
	CHECK_S64(qcn_pfc_decide(&s, &p, 5000, 5), QCN_PFC_XOFF, "decide: refresh across a clock wrap");
	s.sent_ns = UINT64_MAX - 4;
	CHECK_U64(qcn_pfc_refresh_at(&s, &p), UINT64_MAX, "refresh at: saturates");
}

int main(void)
{
	test_layout();
	test_roundtrip();
	test_reject();
	test_encode_errors();
	test_units();
	test_hysteresis();
	return ktap_finish();
}
