// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qcn-rp-trace: run the QCN reaction-point core (include/qcn/qcn_rp.h, the
 * same code the rp_limiter module runs) over an event script read from
 * stdin and print the limiter after every CNM and every counter expiry.
 * For research and for checking the RP against other models.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qcn/qcn_rp.h"
#include "tc_units.h"
#include <uapi/linux/qcn.h>

#define EXIT_INPUT	2

static const char usage_text[] =
"Usage: qcn-rp-trace [OPTIONS] < SCRIPT\n"
"\n"
"Runs the QCN reaction point (802.1Qau RP state machine, QCN-T or QCN-AIMD)\n"
"over an event script and prints the rate limiter after every event that\n"
"touches it.\n"
"\n"
"Input (stdin), one event per line, times never decreasing:\n"
"  t_us=<u64> cnm qfb=<0..63>     a CNM with quantized feedback qfb\n"
"  t_us=<u64> tx bytes=<0..2^32-1> bytes transmitted by the flow\n"
"  Blank lines and '#' comments (whole line or trailing) are allowed.\n"
"  A bad line (or a time that goes backwards) is an error naming the line\n"
"  number; the exit status is then 2.\n"
"\n"
"Output (stdout), one line after every CNM and after every byte-counter or\n"
"timer expiry, even when the rates did not change:\n"
"  t_us=<u64> cr_bps=<u64> tr_bps=<u64> bc_stage=<n> timer_stage=<n> state=<s>\n"
"  state is fr, ai or hai (the phase whose rule the expiry applied: FR while\n"
"  both stage counts are <= threshold, HAI once both exceed it, else AI) or\n"
"  released.\n"
"\n"
"Semantics:\n"
"  - The limiter starts at the max rate and is created by the first CNM; tx\n"
"    lines before it print nothing.  A CNM with qfb=0 is accepted and counts\n"
"    as a CNM (TR rule, counters and timer restart) but the decrease\n"
"    formula leaves CR unchanged.\n"
"  - Timer expiries happen at their exact times between events (with\n"
"    --no-jitter exactly every time-reset, T/2 once the timer stage count\n"
"    exceeds the threshold; every qcnt-period in QCN-T) and are processed\n"
"    before an event at the same or a later time; the printed t_us is the\n"
"    expiry time (ns truncated to us).  Expiries are reported only up to the\n"
"    time of the last event: end a script with 't_us=T tx bytes=0' to let\n"
"    time run until T.\n"
"  - A byte-counter expiry prints the t_us of the tx line; bytes beyond the\n"
"    end of a cycle carry into the next, so one tx line can expire several\n"
"    cycles (one output line each).  QCN-T has no byte counter.\n"
"  - QCN-AIMD has no timer: every byte-counter expiry adds R_AI to CR\n"
"    (eq. 27 of the convergence paper), TR follows CR, state is ai.\n"
"  - When CR reaches the max rate the limiter is released: one line with\n"
"    state=released, then nothing until the next CNM creates it again.\n"
"  - With --no-jitter the output is a deterministic function of the input;\n"
"    otherwise reloads are jittered by U(0.85, 1.15) from a PRNG (--seed).\n"
"\n"
"Options (qcn_rp's tc options; dcbnl struct ieee_qcn fields in brackets):\n"
"  --maxrate RATE       line rate [rpg_max_rate] (default 10gbit); --max-rate\n"
"                       is the same\n"
"  --gd N               Gd = 2^-N, 0..31 [rpg_gd] (default 7)\n"
"  --ai-rate RATE       R_AI [rpg_ai_rate] (default 5mbit)\n"
"  --hai-rate RATE      R_HAI [rpg_hai_rate] (default 50mbit)\n"
"  --byte-reset BYTES   byte counter cycle BC [rpg_byte_reset] (default 150000)\n"
"  --time-reset TIME    timer cycle T, 1us..10s [rpg_time_reset] (default 15ms)\n"
"  --threshold N        FR cycles, 1..1000 [rpg_threshold] (default 5)\n"
"  --min-rate RATE      floor of CR [rpg_min_rate] (default 5mbit)\n"
"  --min-dec PCT        minimum decrease factor in %, 0..100 [rpg_min_dec_fac]\n"
"                       (default 50)\n"
"  --mode MODE          qcn: 802.1Qau byte counter + timer (default); qcn-t:\n"
"                       QCN-T (timer only); qcn-aimd: QCN-AIMD (QCN's cut,\n"
"                       + R_AI every byte-reset bytes, no FR, no timer)\n"
"  --qcnt-period TIME   QCN-T timer period t, 1us..10s (default 2.4ms); QCN-T's\n"
"                       HAI threshold is time-reset * threshold / t cycles\n"
"                       (15ms * 5 / 2.4ms = 31 with the defaults)\n"
"  --jitter on|off      +-15 % jitter on counter reloads (default on)\n"
"  --no-jitter          the same as --jitter off\n"
"  --seed N             PRNG seed for the jitter (default 1)\n"
"  -h, --help           this text\n"
"Units are tc's: RATE 100mbit, 500kbit, 10gbit (bit/s; a bare number is\n"
"bit/s), 1mbps (bytes/s); BYTES 150000, 150kb (k = 1024), 1gb; TIME 15ms,\n"
"500us, 1s (a bare number is in us).  Ranges are the qdisc's: rates up to\n"
"10tbit, maxrate and min-rate at least 8bit (1 byte/s).\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

__attribute__((format(printf, 1, 2), noreturn))
static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "qcn-rp-trace: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'qcn-rp-trace --help'.\n");
	exit(EXIT_INPUT);
}

static uint64_t opt_u64(const char *name, const char *arg, uint64_t max)
{
	uint64_t v;

	if (tcu_get_u64(&v, arg) || v > max)
		die_usage("--%s: invalid value '%s' (0..%" PRIu64 ")", name, arg, max);
	return v;
}

/* a tc size, rate or time (parse) within min..max, else exit 2 */
static uint64_t opt_unit(int (*parse)(uint64_t *, const char *), const char *name,
			 const char *arg, uint64_t min, uint64_t max, const char *range)
{
	uint64_t v;

	if (parse(&v, arg) || v < min || v > max)
		die_usage("--%s: invalid value '%s' (%s)", name, arg, range);
	return v;
}

#define RATE_MAX	(TC_QCN_RP_MAX_RATE * 8)	/* 10 Tbit/s, the qdisc's */
#define TIME_MAX_NS	(TC_QCN_RP_MAX_TIME * 1000ULL)	/* 10 s */

/* splitmix64 */
static uint64_t rng_state;

static uint32_t rnd32(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static const char *state_name(enum qcn_rp_state s)
{
	switch (s) {
	case QCN_RP_FR:
		return "fr";
	case QCN_RP_AI:
		return "ai";
	case QCN_RP_HAI:
		return "hai";
	default:
		return "released";
	}
}

static void print_rp(uint64_t t_us, const struct qcn_rp *rp, const struct qcn_rp_params *p)
{
	printf("t_us=%" PRIu64 " cr_bps=%" PRIu64 " tr_bps=%" PRIu64
	       " bc_stage=%u timer_stage=%u state=%s\n",
	       t_us, rp->cr, rp->tr, rp->bc_stage, rp->timer_stage,
	       state_name(qcn_rp_state(rp, p)));
}

static unsigned long line_no;

__attribute__((format(printf, 1, 2), noreturn))
static void bad_line(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "qcn-rp-trace: line %lu: ", line_no);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(EXIT_INPUT);
}

/* "key=value" with an exact key; returns the value or NULL */
static const char *kv(const char *tok, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(tok, key, n) || tok[n] != '=')
		return NULL;
	return tok + n + 1;
}

int main(int argc, char **argv)
{
	enum {
		O_MAX = 256, O_GD, O_AI, O_HAI, O_BYTE, O_TIME, O_THR, O_MIN,
		O_MINDEC, O_MODE, O_QCNT, O_JIT, O_NOJIT, O_SEED,
	};
	static const struct option opts[] = {
		{ "maxrate", required_argument, NULL, O_MAX },
		{ "max-rate", required_argument, NULL, O_MAX },
		{ "gd", required_argument, NULL, O_GD },
		{ "ai-rate", required_argument, NULL, O_AI },
		{ "hai-rate", required_argument, NULL, O_HAI },
		{ "byte-reset", required_argument, NULL, O_BYTE },
		{ "time-reset", required_argument, NULL, O_TIME },
		{ "threshold", required_argument, NULL, O_THR },
		{ "min-rate", required_argument, NULL, O_MIN },
		{ "min-dec", required_argument, NULL, O_MINDEC },
		{ "mode", required_argument, NULL, O_MODE },
		{ "qcnt-period", required_argument, NULL, O_QCNT },
		{ "jitter", required_argument, NULL, O_JIT },
		{ "no-jitter", no_argument, NULL, O_NOJIT },
		{ "seed", required_argument, NULL, O_SEED },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct qcn_rp_params p;
	struct qcn_rp rp;
	char *line = NULL;
	size_t cap = 0;
	uint64_t prev_us = 0;
	int c, li;

	qcn_rp_params_default(&p, 10000ULL * 1000000ULL);
	rng_state = 1;
	while ((c = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		const char *name = c >= O_MAX && c <= O_SEED ? opts[li].name : "";

		switch (c) {
		case O_MAX:
			p.max_rate = opt_unit(tcu_get_rate, name, optarg, 8, RATE_MAX, "8bit..10tbit");
			break;
		case O_GD:
			p.gd_shift = (uint32_t)opt_u64(name, optarg, QCN_RP_MAX_GD_SHIFT);
			break;
		case O_AI:
			p.ai_rate = opt_unit(tcu_get_rate, name, optarg, 0, RATE_MAX, "0..10tbit");
			break;
		case O_HAI:
			p.hai_rate = opt_unit(tcu_get_rate, name, optarg, 0, RATE_MAX, "0..10tbit");
			break;
		case O_BYTE:
			p.byte_reset = (uint32_t)opt_unit(tcu_get_size, name, optarg, 1,
							  UINT32_MAX, "1..4294967295 bytes");
			break;
		case O_TIME:
			p.time_reset_ns = opt_unit(tcu_get_time, name, optarg, 1000,
						   TIME_MAX_NS, "1us..10s");
			break;
		case O_THR:
			if (!(p.threshold = (uint32_t)opt_u64(name, optarg,
							      TC_QCN_RP_MAX_THRESHOLD)))
				die_usage("--%s: invalid value '%s' (1..%u)", name, optarg,
					  TC_QCN_RP_MAX_THRESHOLD);
			break;
		case O_MIN:
			p.min_rate = opt_unit(tcu_get_rate, name, optarg, 8, RATE_MAX, "8bit..10tbit");
			break;
		case O_MINDEC:
			p.min_dec_pct = (uint32_t)opt_u64(name, optarg, TC_QCN_RP_MAX_MIN_DEC);
			break;
		case O_MODE:
			if (!strcmp(optarg, "qcn"))
				p.mode = QCN_RP_MODE_QCN;
			else if (!strcmp(optarg, "qcn-t"))
				p.mode = QCN_RP_MODE_QCNT;
			else if (!strcmp(optarg, "qcn-aimd"))
				p.mode = QCN_RP_MODE_AIMD;
			else
				die_usage("--mode: expected qcn, qcn-t or qcn-aimd, got '%s'",
					  optarg);
			break;
		case O_QCNT:
			p.qcnt_period_ns = opt_unit(tcu_get_time, name, optarg, 1000,
						    TIME_MAX_NS, "1us..10s");
			break;
		case O_JIT:
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				die_usage("--jitter: expected on or off, got '%s'", optarg);
			p.jitter = !strcmp(optarg, "on");
			break;
		case O_NOJIT:
			p.jitter = false;
			break;
		case O_SEED:
			rng_state = opt_u64(name, optarg, UINT64_MAX);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_INPUT;
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s' (the script is read from stdin)", argv[optind]);
	if (!qcn_rp_params_valid(&p)) {
		fprintf(stderr, "qcn-rp-trace: min-rate must not exceed maxrate\n");
		return EXIT_INPUT;
	}

	qcn_rp_init(&rp, &p);
	while (getline(&line, &cap, stdin) != -1) {
		char *tok[4], *s, *save = NULL, *hash;
		const char *v;
		uint64_t t_us, now_ns, x;
		int n = 0;

		line_no++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (s = strtok_r(line, " \t\r\n", &save); s; s = strtok_r(NULL, " \t\r\n", &save)) {
			if (n == 3)
				bad_line("too many fields (expected 't_us=<u64> cnm qfb=<0..63>' or "
					 "'t_us=<u64> tx bytes=<n>')");
			tok[n++] = s;
		}
		if (n == 0)
			continue;
		if (n != 3)
			bad_line("expected 't_us=<u64> cnm qfb=<0..63>' or 't_us=<u64> tx bytes=<n>'");
		v = kv(tok[0], "t_us");
		if (!v || tcu_get_u64(&t_us, v) || t_us > UINT64_MAX / 1000)
			bad_line("bad time '%s' (expected t_us=<u64>)", tok[0]);
		if (t_us < prev_us)
			bad_line("time goes backwards (t_us=%" PRIu64 " after t_us=%" PRIu64 ")",
				 t_us, prev_us);
		if (!strcmp(tok[1], "cnm")) {
			v = kv(tok[2], "qfb");
			if (!v || tcu_get_u64(&x, v) || x > 63)
				bad_line("bad feedback '%s' (expected qfb=<0..63>)", tok[2]);
		} else if (!strcmp(tok[1], "tx")) {
			v = kv(tok[2], "bytes");
			if (!v || tcu_get_u64(&x, v) || x > UINT32_MAX)
				bad_line("bad byte count '%s' (expected bytes=<0..4294967295>)", tok[2]);
		} else {
			bad_line("unknown event '%s' (expected cnm or tx)", tok[1]);
		}
		prev_us = t_us;
		now_ns = t_us * 1000;

		/* timer expiries up to and including now, each at its own time */
		while (rp.active && rp.timer_expiry_ns <= now_ns) {
			uint64_t at = rp.timer_expiry_ns;

			if (qcn_rp_timer(&rp, &p, now_ns, rnd32()) == QCN_RP_EV_NONE)
				break;
			print_rp(at / 1000, &rp, &p);
		}

		if (tok[1][0] == 'c') {
			qcn_rp_cnm(&rp, &p, (uint8_t)x, now_ns, rnd32());
			print_rp(t_us, &rp, &p);
		} else if (rp.active) {
			enum qcn_rp_event ev = qcn_rp_tx(&rp, &p, (uint32_t)x, rnd32());

			while (ev != QCN_RP_EV_NONE) {
				print_rp(t_us, &rp, &p);
				if (!rp.active)
					break;
				ev = qcn_rp_tx(&rp, &p, 0, rnd32());
			}
		}
	}
	free(line);
	if (ferror(stdin)) {
		fprintf(stderr, "qcn-rp-trace: read error: %s\n", strerror(errno));
		return 1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "qcn-rp-trace: write error\n");
		return 1;
	}
	return 0;
}
