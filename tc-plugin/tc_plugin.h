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

/* lib/utils.c, tc/tc_util.c */
extern int show_stats, show_details, use_iec, oneline;
int matches(const char *prefix, const char *string);
int get_u8(__u8 *val, const char *arg, int base);
int get_u16(__u16 *val, const char *arg, int base);
int get_u32(__u32 *val, const char *arg, int base);
int get_u64(__u64 *val, const char *arg, int base);
int get_s32(__s32 *val, const char *arg, int base);
int get_integer(int *val, const char *arg, int base);
/* "150kb", "1mb", ... -> bytes */
int get_size(unsigned int *size, const char *str);
/* "100mbit", ... -> bytes per second */
int get_rate64(__u64 *rate, const char *str);
/* "10ms", "100us", "1s" -> microseconds (TIME_UNITS_PER_SEC = 1000000) */
int get_time(unsigned int *time, const char *str);
char *sprint_time(__u32 time, char *buf);
int get_tc_classid(__u32 *h, const char *str);
int print_tc_classid(char *buf, int len, __u32 h);

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

#define tcp_string(key, fmt, v)	print_color_string(PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcp_uint(key, fmt, v)	print_color_uint(PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcp_u64(key, fmt, v)	print_color_u64(PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcp_int(key, fmt, v)	print_color_int(PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcp_rate(key, fmt, v)	print_color_rate(use_iec, PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcp_size(key, fmt, v)	print_color_size(PRINT_ANY, COLOR_NONE, key, fmt, v)
#define tcp_fp(fmt, v)		print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt, v)

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

#define TCP_MAXLEN 1024	/* tc's request buffer (struct req.buf) */


/* ------------------------------------------ shared option helpers */
#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

static inline int tcq_bad(const char *kind, const char *what, const char *arg)
{
	fprintf(stderr, "%s: illegal value for \"%s\": \"%s\"\n", kind, what, arg);
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

/* a decimal/hex unsigned number <= max, nothing else */
static inline int tcq_parse_uint(__u32 *val, const char *arg, unsigned long max)
{
	unsigned long v;
	char *end;

	if (!*arg || *arg == '-')
		return -1;
	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*val = v;
	return 0;
}

/* microseconds as tc prints times: 1s, 10ms, 100us */
static inline const char *tcq_time(char *buf, size_t len, __u32 us)
{
	if (us == 0)
		snprintf(buf, len, "0");
	else if (us >= 1000000 && us % 1000000 == 0)
		snprintf(buf, len, "%us", us / 1000000);
	else if (us >= 1000)
		snprintf(buf, len, "%gms", us / 1000.0);
	else
		snprintf(buf, len, "%uus", us);
	return buf;
}

/* a time option: JSON the number of us, text "10ms" */
static inline void tcq_print_time(const char *key, const char *fmt, __u32 us)
{
	char buf[64];

	print_color_uint(PRINT_JSON, COLOR_NONE, key, NULL, us);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt,
			   tcq_time(buf, sizeof(buf), us));
}

#endif /* _QCN_TC_PLUGIN_H */
