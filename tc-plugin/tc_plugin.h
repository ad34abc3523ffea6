/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_plugin.h - the part of iproute2's tc ABI that a qdisc plugin uses.
 *
 * tc (iproute2 6.1 .. current) dlopen()s $TC_LIB_DIR/q_<kind>.so and looks
 * up "<kind>_qdisc_util".  Debian's tc is linked with -rdynamic, so the
 * helpers below are resolved against the running tc binary: no iproute2
 * source is needed to build a plugin.  Since iproute2 6.9 the qu argument
 * of every callback is const; the layout is unchanged, so one plugin serves
 * both.
 */
#ifndef _QCN_TC_PLUGIN_H
#define _QCN_TC_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/pkt_sched.h>

struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx);
};

/* lib/utils.c, tc/tc_util.c: sizes, rates and times are parsed with
 * tools/tc_units.h instead (the same spellings, with overflow checks) */
extern int show_stats, show_details, use_iec, oneline;

/* lib/libnetlink.c */
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
int addattr8(struct nlmsghdr *n, int maxlen, int type, __u8 data);
int addattr16(struct nlmsghdr *n, int maxlen, int type, __u16 data);
int addattr32(struct nlmsghdr *n, int maxlen, int type, __u32 data);
int addattr64(struct nlmsghdr *n, int maxlen, int type, __u64 data);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
int parse_rtattr(struct rtattr *tb[], int max, struct rtattr *rta, int len);

/* lib/json_print.c: print_* are static inline wrappers in tc's headers */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

enum color_attr {
	COLOR_IFNAME,
	COLOR_MAC,
	COLOR_INET,
	COLOR_INET6,
	COLOR_OPERSTATE_UP,
	COLOR_OPERSTATE_DOWN,
	COLOR_NONE
};

bool is_json_context(void);
void open_json_object(const char *str);
void close_json_object(void);
void open_json_array(enum output_type type, const char *delim);
void close_json_array(enum output_type type, const char *delim);
void print_nl(void);
int print_color_string(enum output_type t, enum color_attr c, const char *key,
		       const char *fmt, const char *value);
int print_color_int(enum output_type t, enum color_attr c, const char *key,
		    const char *fmt, int value);
int print_color_uint(enum output_type t, enum color_attr c, const char *key,
		     const char *fmt, unsigned int value);
int print_color_u64(enum output_type t, enum color_attr c, const char *key,
		    const char *fmt, uint64_t value);
int print_color_s64(enum output_type t, enum color_attr c, const char *key,
		    const char *fmt, int64_t value);
int print_color_bool(enum output_type t, enum color_attr c, const char *key,
		     const char *fmt, bool value);
int print_color_float(enum output_type t, enum color_attr c, const char *key,
		      const char *fmt, double value);
/* rate in bytes/s: text "100Mbit", JSON the number in bytes/s */
int print_color_rate(bool use_iec, enum output_type t, enum color_attr c,
		     const char *key, const char *fmt, unsigned long long rate);
/* size in bytes: text "150Kb", JSON the number */
int print_color_size(enum output_type t, enum color_attr c, const char *key,
		     const char *fmt, __u32 size);

#define tcq_print_string(key, fmt, v)	print_color_string(PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcq_print_uint(key, fmt, v)	print_color_uint(PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcq_print_u64(key, fmt, v)	print_color_u64(PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcq_print_int(key, fmt, v)	print_color_int(PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcq_print_rate(key, fmt, v)	\
	print_color_rate(use_iec, PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcq_print_size(key, fmt, v)	print_color_size(PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcq_print_fp(fmt, v)		print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt, v)

#ifndef RTA_PAYLOAD
#define RTA_PAYLOAD(rta) ((int)((rta)->rta_len) - RTA_LENGTH(0))
#endif
#define NLMSG_TAIL(nmsg) \
	((struct rtattr *)(((void *)(nmsg)) + NLMSG_ALIGN((nmsg)->nlmsg_len)))

static inline int parse_rtattr_nested(struct rtattr *tb[], int max,
				      struct rtattr *rta)
{
	return parse_rtattr(tb, max, (struct rtattr *)RTA_DATA(rta),
			    RTA_PAYLOAD(rta));
}

static inline __u8 rta_u8(const struct rtattr *rta)
{
	return *(const __u8 *)RTA_DATA(rta);
}

static inline __u16 rta_u16(const struct rtattr *rta)
{
	return *(const __u16 *)RTA_DATA(rta);
}

static inline __u32 rta_u32(const struct rtattr *rta)
{
	return *(const __u32 *)RTA_DATA(rta);
}

static inline __s32 rta_s32(const struct rtattr *rta)
{
	return *(const __s32 *)RTA_DATA(rta);
}

static inline __u64 rta_u64(const struct rtattr *rta)
{
	__u64 v;

	__builtin_memcpy(&v, RTA_DATA(rta), sizeof(v));
	return v;
}

/* An attribute of at least len octets? Kernel dumps are trusted, not blindly. */
static inline bool rta_ok_len(const struct rtattr *rta, int len)
{
	return rta && (int)RTA_PAYLOAD(rta) >= len;
}

#define TCQ_REQ_MAXLEN 1024	/* tc's request buffer (struct req.buf) */


/* ------------------------------------------ shared option helpers */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "tc_units.h"

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

static inline int tcq_bad(const char *kind, const char *what, const char *arg)
{
	fprintf(stderr, "%s: illegal value for \"%s\": \"%s\"\n", kind, what, arg);
	return -1;
}

static inline int tcq_range(const char *kind, const char *what, const char *arg,
			    const char *lo, const char *hi)
{
	fprintf(stderr, "%s: \"%s\" %s is out of range (%s .. %s)\n", kind,
		what, arg, lo, hi);
	return -1;
}

static inline int tcq_lookup(const char * const *names, int n, const char *arg)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], arg) == 0)
			return i;
	return -1;
}

/*
 * Before an option's value is taken: a name not in known[] (NULL-ended) is
 * reported as unknown, a known one at the end of the line as missing its
 * value.  Returns 0 when the option and a value are there.
 */
static inline int tcq_check_opt(const char *kind, const char * const *known,
				int argc, const char *opt)
{
	int i;

	for (i = 0; known[i]; i++)
		if (strcmp(known[i], opt) == 0)
			break;
	if (!known[i]) {
		fprintf(stderr, "%s: unknown option \"%s\"\n", kind, opt);
		return -1;
	}
	if (argc < 2) {
		fprintf(stderr, "%s: option \"%s\" needs a value\n", kind, opt);
		return -1;
	}
	return 0;
}

/* a decimal/hex unsigned number, min..max */
static inline int tcq_get_uint(__u32 *val, const char *kind, const char *what,
			       const char *arg, __u32 min, __u32 max)
{
	char lo[16], hi[16];
	unsigned long v;
	char *end;

	if (!*arg || *arg == '-' || *arg == '+' || *arg == ' ')
		return tcq_bad(kind, what, arg);
	errno = 0;
	v = strtoul(arg, &end, 0);
	if (*end)
		return tcq_bad(kind, what, arg);
	if (errno || v < min || v > max) {
		snprintf(lo, sizeof(lo), "%u", min);
		snprintf(hi, sizeof(hi), "%u", max);
		return tcq_range(kind, what, arg, lo, hi);
	}
	*val = v;
	return 0;
}

/* microseconds as tc prints times: 1s, 10ms, 100us */
static inline const char *tcq_time(char *buf, size_t len, uint64_t us)
{
	if (us == 0)
		snprintf(buf, len, "0");
	else if (us >= 1000000 && us % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 "s", us / 1000000);
	else if (us >= 1000)
		snprintf(buf, len, "%gms", us / 1000.0);
	else
		snprintf(buf, len, "%" PRIu64 "us", us);
	return buf;
}

/* bytes/s as bit/s: the largest of bit, Kbit, Mbit, Gbit, Tbit that is exact */
static inline const char *tcq_rate(char *buf, size_t len, uint64_t bytes)
{
	static const char * const u[] = { "bit", "Kbit", "Mbit", "Gbit", "Tbit" };
	uint64_t bits = bytes * 8;
	int i = 0;

	while (i < 4 && bits && bits % 1000 == 0) {
		bits /= 1000;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 "%s", bits, u[i]);
	return buf;
}

static inline const char *tcq_size(char *buf, size_t len, uint64_t bytes)
{
	snprintf(buf, len, "%" PRIu64 "b", bytes);
	return buf;
}

/*
 * A size, rate or time in tc's spellings (parse: tools/tc_units.h), in
 * the attribute's unit (the parser's / div: bytes, bytes/s, us), within
 * min..max; else a message naming the option, with the range as show()
 * writes it.
 */
static inline int tcq_get_unit(__u64 *val, int (*parse)(uint64_t *, const char *),
			       uint64_t div, const char *(*show)(char *, size_t, uint64_t),
			       const char *kind, const char *what, const char *arg,
			       __u64 min, __u64 max)
{
	char lo[32], hi[32];
	uint64_t v;
	int rc = parse(&v, arg);

	if (rc == -1)
		return tcq_bad(kind, what, arg);
	v /= div;
	if (rc || v < min || v > max)
		return tcq_range(kind, what, arg, show(lo, sizeof(lo), min),
				 show(hi, sizeof(hi), max));
	*val = v;
	return 0;
}

#define tcq_get_size(v, ...)	tcq_get_unit(v, tcu_get_size, 1, tcq_size, __VA_ARGS__)

/*
 * A rate (bytes/s) in tc's spellings.  A bare number is bit/s, as tc
 * reads it; 'rate 500' meaning 500 Mbit/s is a likely slip, so a non-zero
 * rate without a unit is taken with a warning.
 */
static inline int tcq_get_rate(__u64 *val, const char *kind, const char *what,
			       const char *arg, __u64 min, __u64 max)
{
	int rc = tcq_get_unit(val, tcu_get_rate, 8, tcq_rate, kind, what, arg,
			      min, max);
	const char *p = arg;

	while (*p == '.' || (*p >= '0' && *p <= '9'))
		p++;
	if (!rc && !*p && strspn(arg, "0.") != strlen(arg))
		fprintf(stderr, "Warning: %s: %s %s has no unit: %s bit/s, as tc reads a bare number (%smbit is %s Mbit/s)\n",
			kind, what, arg, arg, arg, arg);
	return rc;
}
#define tcq_get_time(v, ...)	tcq_get_unit(v, tcu_get_time, 1000, tcq_time, __VA_ARGS__)

/* 2^e, exact for the exponents of w (no libm in a plugin) */
static inline double tcq_pow2(int e)
{
	double v = 1.0;

	for (; e > 0; e--)
		v *= 2;
	for (; e < 0; e++)
		v /= 2;
	return v;
}

/*
 * A power of two 2^min .. 2^max written as a number ("0.25", "2", "1024";
 * tcu_get_pow2()) -> its exponent: qcn's w and qcn_rp's w, which must be
 * the same CPs' w.
 */
static inline int tcq_get_pow2(__s32 *exp, const char *kind, const char *what,
			       const char *arg, int min, int max)
{
	char lo[48], hi[32];
	int e, rc = tcu_get_pow2(&e, arg, min, max);

	if (rc == -1)
		return tcq_bad(kind, what, arg);
	if (rc) {
		snprintf(lo, sizeof(lo), "a power of two, %.10g", tcq_pow2(min));
		snprintf(hi, sizeof(hi), "%.10g", tcq_pow2(max));
		return tcq_range(kind, what, arg, lo, hi);
	}
	*exp = e;
	return 0;
}

/* a power-of-two option: JSON the exponent (key_exp) and the value (key),
 * text the value ("w 2") */
static inline void tcq_print_pow2(const char *key, const char *key_exp,
				  const char *fmt, __s32 e)
{
	print_color_int(PRINT_JSON, COLOR_NONE, key_exp, NULL, e);
	print_color_float(PRINT_ANY, COLOR_NONE, key, fmt, tcq_pow2(e));
}

/* a time option: JSON the number of us, text "10ms" */
static inline void tcq_print_time(const char *key, const char *fmt, __u32 us)
{
	char buf[64];

	print_color_uint(PRINT_JSON, COLOR_NONE, key, NULL, us);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt,
			   tcq_time(buf, sizeof(buf), us));
}

/* " v0 v1 ..." as text, an array KEY in JSON */
static inline void tcq_print_u64_array(const char *key, const __u64 *v, int n)
{
	int i;

	open_json_array(PRINT_JSON, key);
	for (i = 0; i < n; i++)
		tcq_print_u64(NULL, " %llu", (unsigned long long)v[i]);
	close_json_array(PRINT_JSON, NULL);
}

/*
 * The 802.1Qbb PFC reception counters of qcn's and qcn_rp's option pfc
 * (rx and paused_ns: one per priority, n of them), once any has counted.
 */
static inline void tcq_print_pfc_rx(const __u64 *rx, __u64 xon, __u64 ignored,
				    const __u64 *paused_ns, int n)
{
	bool any = xon || ignored;
	int i;

	for (i = 0; i < n; i++)
		any = any || rx[i] || paused_ns[i];
	if (!any)
		return;
	tcq_print_fp("%s", "\n  pfc_rx");
	tcq_print_u64_array("pfc_rx", rx, n);
	tcq_print_u64("pfc_rx_xon", " pfc_rx_xon %llu", (unsigned long long)xon);
	tcq_print_u64("pfc_rx_ignored", " pfc_rx_ignored %llu",
		      (unsigned long long)ignored);
	tcq_print_fp("%s", "\n  pfc_paused_ns");
	tcq_print_u64_array("pfc_paused_ns", paused_ns, n);
}

#endif /* _QCN_TC_PLUGIN_H */
