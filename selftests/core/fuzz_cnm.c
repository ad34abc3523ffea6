// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for qcn_cnm_decode():
 *   clang -fsanitize=fuzzer,address,undefined -I../../include fuzz_cnm.c
 * libFuzzer hands over an exact-size heap copy of the input, so ASan traps
 * any read past it.  Properties checked (abort() on violation):
 *  - the result is QCN_CNM_OK or one of the decoder's error codes, and
 *    ETRUNC exactly when fewer than 24 octets are present;
 *  - an accepted frame has version 0, qFb <= 63, prio <= 7 and an MSDU
 *    length <= 64 that fits in the input;
 *  - re-encoding an accepted frame reproduces the input's 24 fixed octets
 *    and its MSDU exactly, and decoding that again gives the same message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qcn/qcn_cnm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qcn_cnm m, m2;
	uint8_t out[QCN_CNM_MAX_LEN];
	u32 len = size > 0xffffffffU ? 0xffffffffU : (u32)size;
	int r, n;

	memset(&m, 0xa5, sizeof(m));
	r = qcn_cnm_decode(data, len, &m);
	if ((r == QCN_CNM_ETRUNC) != (size < QCN_CNM_HDR_LEN))
		abort();
	if (r != QCN_CNM_OK) {
		if (r != QCN_CNM_ETRUNC && r != QCN_CNM_EVERSION && r != QCN_CNM_EMSDU_LONG &&
		    r != QCN_CNM_EMSDU_TRUNC && r != QCN_CNM_ERESERVED)
			abort();
		return 0;
	}
	if (m.version != 0 || m.qfb > 63 || m.prio > 7 || m.msdu_len > QCN_CNM_MSDU_MAX ||
	    m.msdu_len > size - QCN_CNM_HDR_LEN)
		abort();
	n = qcn_cnm_encode(&m, out, sizeof(out));
	if (n != QCN_CNM_HDR_LEN + m.msdu_len)
		abort();
	if (memcmp(out, data, (size_t)n))
		abort();
	memset(&m2, 0x5a, sizeof(m2));
	if (qcn_cnm_decode(out, (u32)n, &m2) != QCN_CNM_OK)
		abort();
	if (m2.version != m.version || m2.qfb != m.qfb || memcmp(m2.cpid, m.cpid, 8) ||
	    m2.qoffset != m.qoffset || m2.qdelta != m.qdelta || m2.prio != m.prio ||
	    memcmp(m2.dst, m.dst, 6) || m2.msdu_len != m.msdu_len ||
	    memcmp(m2.msdu, m.msdu, sizeof(m.msdu)))
		abort();
	return 0;
}
