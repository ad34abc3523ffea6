// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of tools/tc_units.h: tc's size, rate and time spellings
 * (iproute2's get_size(), get_rate64(), get_time()/get_time64()) give
 * tc's values; what tc rejects is rejected, and what tc would wrap or
 * misread (signs, hex, inf, values beyond 64 bits) is an error.
 */
#include "ktap.h"
#include "../../tools/tc_units.h"

struct good {
	const char *in;
	uint64_t want;
};

static void good(const char *what, int (*parse)(uint64_t *, const char *),
		 const struct good *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t v = 12345;
		int rc = parse(&v, t[i].in);

		if (rc)
			ktap_check(0, "rejected", "%s \"%s\" = %" PRIu64, what,
				   t[i].in, t[i].want);
		else
			CHECK_U64(v, t[i].want, "%s \"%s\" = %" PRIu64, what,
				  t[i].in, t[i].want);
	}
}

static void bad(const char *what, int (*parse)(uint64_t *, const char *),
		const char *const *in, size_t n, int want_rc)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t v = 777;
		int rc = parse(&v, in[i]);

		CHECK(rc == want_rc && v == 777, "%s \"%s\" rejected (%d), value untouched",
		      what, in[i], want_rc);
	}
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* qcn's w (a power of two 2^-10..2^10) and alpha/beta (1/65536 units) */
static void pow2_and_frac(void)
{
	static const struct { const char *in; int rc, exp; } w[] = {
		{ "2", 0, 1 }, { "1", 0, 0 }, { "0.5", 0, -1 }, { "1024", 0, 10 },
		{ "0.0009765625", 0, -10 }, { "0.25", 0, -2 }, { "2048", -2, 0 },
		{ "0.00048828125", -2, 0 }, { "3", -2, 0 }, { "0", -2, 0 },
		{ "0.0009765626", -2, 0 }, { "-2", -1, 0 }, { "0x2", -1, 0 },
		{ "two", -1, 0 }, { "2kb", -1, 0 }, { "", -1, 0 }, { "inf", -1, 0 },
	};
	static const struct { const char *in; int rc; uint32_t v; } f[] = {
		{ "0.125", 0, 8192 }, { "0.25", 0, 16384 }, { "0.5", 0, 32768 },
		{ "0.00001", 0, 1 }, { "0.99999", 0, 65535 }, { "0.1", 0, 6554 },
		{ "0.000007", -2, 0 }, { "0.999995", -2, 0 }, { "0", -2, 0 },
		{ "1", -2, 0 }, { "1.5", -2, 0 }, { "-0.5", -1, 0 }, { "half", -1, 0 },
		{ "0.5s", -1, 0 },
	};
	size_t i;

	for (i = 0; i < N(w); i++) {
		int e = 99, rc = tcu_get_pow2(&e, w[i].in, -10, 10);

		CHECK(rc == w[i].rc && (rc || e == w[i].exp),
		      "w \"%s\": rc %d (want %d), 2^%d (want 2^%d)", w[i].in, rc,
		      w[i].rc, e, w[i].exp);
	}
	for (i = 0; i < N(f); i++) {
		uint32_t v = 99;
		int rc = tcu_get_frac16(&v, f[i].in);

		CHECK(rc == f[i].rc && (rc ? v == 99 : v == f[i].v),
		      "fraction \"%s\": rc %d (want %d), %u/65536 (want %u)",
		      f[i].in, rc, f[i].rc, v, f[i].v);
	}
}

/* qcn_rp's naimd-gi, naimd-gd: 0 .. 1 in parts per 10^9, exact decimals */
static void gains(void)
{
	static const struct { const char *in; int rc; uint32_t v; } g[] = {
		{ "0.53333", 0, 533330000 }, { "0.0026667", 0, 2666700 },
		{ "1", 0, 1000000000 }, { "0", 0, 0 }, { "1.000000000", 0, 1000000000 },
		{ "0.1", 0, 100000000 }, { "0.3", 0, 300000000 }, { ".7", 0, 700000000 },
		{ "0.123456789", 0, 123456789 }, { "5e-1", 0, 500000000 },
		{ "0.0000000005", 0, 1 }, { "0.0000000004999", 0, 0 },
		{ "0.9999999995", 0, 1000000000 }, { "0.000000000000000000001", 0, 0 },
		{ "1.0000001", -2, 0 }, { "1.000000000000000001", -2, 0 }, { "2", -2, 0 },
		{ "1e3", -2, 0 }, { "18446744073709551616", -2, 0 },
		{ "-0.5", -1, 0 }, { "+0.5", -1, 0 }, { "half", -1, 0 }, { "", -1, 0 },
		{ ".", -1, 0 }, { "0.5x", -1, 0 }, { "0x1", -1, 0 }, { "nan", -1, 0 },
		{ "inf", -1, 0 }, { " 0.5", -1, 0 }, { "0.5kbit", -1, 0 },
	};
	size_t i;

	for (i = 0; i < N(g); i++) {
		uint32_t v = 99;
		int rc = tcu_get_ppb(&v, g[i].in);

		CHECK(rc == g[i].rc && (rc ? v == 99 : v == g[i].v),
		      "gain \"%s\": rc %d (want %d), %u ppb (want %u)",
		      g[i].in, rc, g[i].rc, v, g[i].v);
	}
}

int main(void)
{
	/* get_size(): k/kb = 1024 (the README's "limit 150kb qeq 26kb") */
	static const struct good sizes[] = {
		{ "150kb", 153600 }, { "26kb", 26624 }, { "150000", 150000 },
		{ "100b", 100 }, { "100B", 100 }, { "1k", 1024 }, { "2KB", 2048 },
		{ "1.5k", 1536 }, { "4mb", 4194304 }, { "4M", 4194304 },
		{ "1g", 1073741824 }, { "3gb", 3221225472ULL },
		{ "8kbit", 1024 }, { "1mbit", 131072 }, { "1gbit", 134217728 },
		{ "0", 0 }, { "0.3333kb", 341 }, { "1.9b", 1 }, { "1e3", 1000 },
		{ "1.5e1kb", 15360 }, { ".5k", 512 }, { "5.", 5 },
		{ "18446744073709551615", UINT64_MAX },
		{ "0.0000000000000000000000000000000000000001", 0 },
	};
	static const char *const bad_sizes[] = {
		"", "kb", "b", ".", "1 kb", " 1kb", "1kb ", "-1", "+1", "0x10",
		"inf", "nan", "1kib", "1kB/s", "1.5.3", "1e", "1e+", "one",
		"1kbps", "1t", "1tb",
	};
	static const char *const huge_sizes[] = {
		"18446744073709551616", "16777216tb" /* not a unit: -1 below */,
		"17179869184gb", "1e20", "99999999999999999999999",
	};
	/* get_rate64(): kbit = 1000, kibit = 1024, bps = bytes/s */
	static const struct good rates[] = {
		{ "500kbit", 500000 }, { "0.5mbit", 500000 }, { "100mbit", 100000000 },
		{ "100Mbit", 100000000 }, { "10gbit", 10000000000ULL },
		{ "1tbit", 1000000000000ULL }, { "10Tbit", 10000000000000ULL },
		{ "1kibit", 1024 }, { "1Kibit", 1024 }, { "1mibit", 1048576 },
		{ "1gibit", 1073741824 }, { "1tibit", 1099511627776ULL },
		{ "1bps", 8 }, { "1Bps", 8 }, { "1kbps", 8000 }, { "1KBps", 8000 },
		{ "1kibps", 8192 }, { "1mbps", 8000000 }, { "1MiBps", 8388608 },
		{ "1gbps", 8000000000ULL }, { "1gibps", 8589934592ULL },
		{ "1tbps", 8000000000000ULL }, { "1tibps", 8796093022208ULL },
		{ "100", 100 }, { "7bit", 7 }, { "0", 0 }, { "2.5e3kbit", 2500000 },
		{ "0.0001kbit", 0 },
	};
	static const char *const bad_rates[] = {
		"", "fast", "10mbits", "1kb", "1k", "1m", "-1mbit", "1 mbit",
		"mbit", "0x10mbit", "infbit", "1mbit/s", "1pbit",
	};
	static const char *const huge_rates[] = {
		"18446744073709551616bit", "20000000tbit", "1e30bit",
	};
	/* get_time(): bare = us; get_time64()'s ns spellings too */
	static const struct good times[] = {
		{ "10ms", 10000000 }, { "1s", 1000000000 }, { "2.4ms", 2400000 },
		{ "500us", 500000 }, { "500usec", 500000 }, { "500usecs", 500000 },
		{ "100", 100000 }, { "1.5us", 1500 }, { "1secs", 1000000000 },
		{ "1sec", 1000000000 }, { "3msecs", 3000000 }, { "3MSEC", 3000000 },
		{ "250ns", 250 }, { "250nsec", 250 }, { "7nsecs", 7 }, { "0", 0 },
		{ "0.29s", 290000000 }, { "4.35ms", 4350000 }, { "1.0000001s", 1000000100 },
		{ "60ms", 60000000 }, { "15000", 15000000 }, { "1e-3s", 1000000 },
	};
	static const char *const bad_times[] = {
		"", "soon", "1min", "1h", "-1s", "1 s", "s", "0x5ms", "nans",
		"1mss", "1m",
	};
	static const char *const huge_times[] = {
		"18446744073709552s", "18446744073709552000000000us",
	};

	good("size", tcu_get_size, sizes, N(sizes));
	bad("size", tcu_get_size, bad_sizes, N(bad_sizes), -1);
	bad("size", tcu_get_size, huge_sizes, 1, -2);
	bad("size", tcu_get_size, huge_sizes + 1, 1, -1);
	bad("size", tcu_get_size, huge_sizes + 2, N(huge_sizes) - 2, -2);
	good("rate", tcu_get_rate, rates, N(rates));
	bad("rate", tcu_get_rate, bad_rates, N(bad_rates), -1);
	bad("rate", tcu_get_rate, huge_rates, N(huge_rates), -2);
	good("time", tcu_get_time, times, N(times));
	bad("time", tcu_get_time, bad_times, N(bad_times), -1);
	bad("time", tcu_get_time, huge_times, N(huge_times), -2);
	{
		uint64_t v = 0;

		CHECK(tcu_get_size(&v, NULL) == -1, "a NULL string is rejected");
	}
	pow2_and_frac();
	gains();
	{
		static const struct good counts[] = {
			{ "0", 0 }, { "7", 7 }, { "007", 7 }, { "65535", 65535 },
			{ "18446744073709551615", UINT64_MAX },
		};
		static const char *const bad_counts[] = {
			"", "-1", "+1", "1.5", "1e3", "0x10", " 1", "1 ", "1k", "one",
		};
		static const char *const huge_counts[] = { "18446744073709551616" };

		good("count", tcu_get_u64, counts, N(counts));
		bad("count", tcu_get_u64, bad_counts, N(bad_counts), -1);
		bad("count", tcu_get_u64, huge_counts, N(huge_counts), -2);
	}
	return ktap_finish();
}
