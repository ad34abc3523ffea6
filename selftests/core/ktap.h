/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Tiny KTAP producer for the userspace core tests.  Results are buffered
 * so that "TAP version 13" and the "1..N" plan come first; diagnostics
 * ("# ...") are printed just before the failing test point.
 *
 *	CHECK(cond, "name %d", i);
 *	CHECK_U64(got, expected, "name");
 *	CHECK_S64(got, expected, "name");
 *	return ktap_finish();		(exit status 1 on any failure)
 */
#ifndef QCN_KTAP_H
#define QCN_KTAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KTAP_MAX	4096

struct ktap_result {
	int ok;
	char name[120];
	char diag[200];
};

/*
 * An exact-size heap copy of src[0 .. len-1] (NULL for 0), for decoders
 * under test: a read past len trips AddressSanitizer.  The caller frees it.
 */
static inline uint8_t *ktap_exact_copy(const void *src, uint32_t len)
{
	uint8_t *b = len ? malloc(len) : NULL;

	if (len)
		memcpy(b, src, len);
	return b;
}

static struct ktap_result ktap_results[KTAP_MAX];
static int ktap_count;
static int ktap_overflow;

static void ktap_vrecord(int ok, const char *diag, const char *fmt, va_list ap)
{
	struct ktap_result *r;
	char *p;

	if (ktap_count >= KTAP_MAX) {
		ktap_overflow = 1;
		return;
	}
	r = &ktap_results[ktap_count++];
	r->ok = ok;
	vsnprintf(r->name, sizeof(r->name), fmt, ap);
	for (p = r->name; *p; p++)	/* '#' would turn the name into a directive */
		if (*p == '#' || *p == '\n')
			*p = '_';
	snprintf(r->diag, sizeof(r->diag), "%s", ok ? "" : diag);
}

__attribute__((format(printf, 3, 4)))
static __attribute__((unused)) int ktap_check(int ok, const char *diag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vrecord(ok, diag, fmt, ap);
	va_end(ap);
	return ok;
}

__attribute__((format(printf, 4, 5)))
static __attribute__((unused)) int ktap_check_u64(uint64_t got, uint64_t exp, const char *expr, const char *fmt, ...)
{
	char diag[200];
	va_list ap;
	int ok = got == exp;

	snprintf(diag, sizeof(diag), "%s: got %" PRIu64 ", expected %" PRIu64, expr, got, exp);
	va_start(ap, fmt);
	ktap_vrecord(ok, diag, fmt, ap);
	va_end(ap);
	return ok;
}

__attribute__((format(printf, 4, 5)))
static __attribute__((unused)) int ktap_check_s64(int64_t got, int64_t exp, const char *expr, const char *fmt, ...)
{
	char diag[200];
	va_list ap;
	int ok = got == exp;

	snprintf(diag, sizeof(diag), "%s: got %" PRId64 ", expected %" PRId64, expr, got, exp);
	va_start(ap, fmt);
	ktap_vrecord(ok, diag, fmt, ap);
	va_end(ap);
	return ok;
}

#define CHECK(cond, ...)	ktap_check(!!(cond), "failed: " #cond, __VA_ARGS__)
#define CHECK_U64(got, exp, ...) \
	ktap_check_u64((uint64_t)(got), (uint64_t)(exp), #got, __VA_ARGS__)
#define CHECK_S64(got, exp, ...) \
	ktap_check_s64((int64_t)(got), (int64_t)(exp), #got, __VA_ARGS__)

static int ktap_finish(void)
{
	int i, fails = 0;

	printf("TAP version 13\n1..%d\n", ktap_count);
	for (i = 0; i < ktap_count; i++) {
		struct ktap_result *r = &ktap_results[i];

		if (!r->ok) {
			fails++;
			printf("# %s\n", r->diag);
		}
		printf("%sok %d %s\n", r->ok ? "" : "not ", i + 1, r->name);
	}
	if (ktap_overflow) {
		printf("# more than %d test points: raise KTAP_MAX\n", KTAP_MAX);
		fails++;
	}
	printf("# %d passed, %d failed\n", ktap_count - fails, fails);
	fflush(stdout);
	return fails ? 1 : 0;
}

#endif /* QCN_KTAP_H */
