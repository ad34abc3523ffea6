/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * linux-qcn netlink ABI: IEEE 802.1Qau Quantized Congestion Notification.
 *
 * Shared by sch_qcn.ko (qdisc kind "qcn", the congestion point),
 * rp_limiter.ko (qdisc kind "qcn_rp", the reaction point), the tc plugins
 * and qcnstat.  Conventions follow the built-in qdiscs: sizes in bytes,
 * rates in bytes per second (as tc's get_rate64() returns them), times in
 * microseconds, fractions in units of 1/65536.
 */
#ifndef _UAPI_LINUX_QCN_H
#define _UAPI_LINUX_QCN_H

#include <linux/types.h>

#ifndef ETH_P_CNM
#define ETH_P_CNM	0x22E7	/* 802.1Qau Congestion Notification Message */
#endif
#ifndef ETH_P_CNTAG
#define ETH_P_CNTAG	0x22E9	/* 802.1Qau CN-TAG */
#endif

#define QCN_FRAC_ONE	65536	/* fixed-point 1.0 for alpha/beta */

/*
 * Option ranges, as the kernel's netlink policies enforce them; tc's
 * plugins check the same bounds before sending (units as the attributes).
 * The algorithms' own bounds (w, the sample interval, Gd) are in
 * include/qcn/qcn_cp.h and qcn_rp.h.
 */
#define TC_QCN_MAX_SIZE		0x7fffffffU	/* limit, qeq, interval, active */
#define TC_QCN_MAX_RATE		(1ULL << 40)	/* bytes/s, ~8.8 Tbit/s */
#define TC_QCN_MIN_KEEPALIVE	100		/* us (or 0: off) */
#define TC_QCN_MAX_KEEPALIVE	10000000	/* us */
#define TC_QCN_MIN_AF_TS	1000		/* us */
#define TC_QCN_MAX_AF_TS	1000000		/* us */
#define TC_QCN_CLASS_MAX_WEIGHT	65535
#define TC_QCN_RP_MAX_RATE	(10000000000000ULL / 8)	/* 10 Tbit/s in bytes/s */
#define TC_QCN_RP_MIN_TIME	100		/* us: time-reset, qcnt-period */
#define TC_QCN_RP_MAX_TIME	10000000	/* us: time-reset, qcnt-period */
#define TC_QCN_RP_MIN_BYTE_RESET 1500		/* bytes: one frame */
#define TC_QCN_RP_MAX_THRESHOLD	1000
#define TC_QCN_RP_MAX_MIN_DEC	100		/* percent */
#define TC_QCN_RP_MAX_LIMITERS	65535		/* class minors 1..0xffff */
#define TC_QCN_RP_MAX_LIMIT	(1U << 30)	/* bytes */
#define TC_QCN_MAX_FB_PERIOD	65535		/* signed feedback: 1 in N arrivals */
#define TC_QCN_AP_ONE		1000000000U	/* N-AIMD gains: parts per 10^9 */
#define TC_QCN_RP_MAX_GAIN	1000000000U	/* G_i, G_d <= 1 */
#define TC_QCN_RP_MAX_AP_PKTS	1000000
#define TC_QCN_RP_MAX_FB_UNIT	65535		/* bytes */
#define TC_QCN_MAX_FABRIC	65535		/* fabric ids 1..N (0: none) */
#define TC_QCN_MAX_PFC_QUANTA	65535		/* 802.1Qbb time[p] */

/* ---------------------------------------------------------------- qcn */

enum tc_qcn_sample {
	TC_QCN_SAMPLE_ARRIVAL,		/* standard: the frame just enqueued */
	TC_QCN_SAMPLE_OCCUPANCY,	/* QCN-OS: random occupied byte */
	TC_QCN_SAMPLE_TWO,		/* two-samples, path-congestion index */
	__TC_QCN_SAMPLE_MAX,
};
#define TC_QCN_SAMPLE_MAX (__TC_QCN_SAMPLE_MAX - 1)

/*
 * Where an instance's congestion point measures: its own queue (the
 * switch's output), the bytes of the frames that arrived on its device and
 * are queued in the namespace's qcn instances (the switch's input buffer),
 * both, or neither (a plain port).
 */
enum tc_qcn_cp {
	TC_QCN_CP_OUTPUT,
	TC_QCN_CP_INPUT,
	TC_QCN_CP_BOTH,
	TC_QCN_CP_NONE,
	__TC_QCN_CP_MAX,
};
#define TC_QCN_CP_MAX (__TC_QCN_CP_MAX - 1)

enum tc_qcn_sched {
	TC_QCN_SCHED_FIFO,
	TC_QCN_SCHED_DRR,		/* per-flow deficit round robin */
	__TC_QCN_SCHED_MAX,
};
#define TC_QCN_SCHED_MAX (__TC_QCN_SCHED_MAX - 1)

/*
 * What a sample sends.  QCN: a CNM only when Fb < 0, arrivals sampled
 * every |Fb|-dependent interval of bytes (802.1Qau).  SIGNED: the N-AIMD
 * CP of the Averaging Principle case study (Alizadeh et al., eq. 14):
 * every arrival is sampled with probability 1/fb_period and a CNM goes to
 * the culprit whatever the sign of Fb; qFb is 0 for Fb >= 0, and the
 * cnmQOffset/cnmQDelta fields let the RP (qcn_rp mode n-aimd) compute
 * the signed Fb.
 */
enum tc_qcn_feedback {
	TC_QCN_FEEDBACK_QCN,
	TC_QCN_FEEDBACK_SIGNED,
	__TC_QCN_FEEDBACK_MAX,
};
#define TC_QCN_FEEDBACK_MAX (__TC_QCN_FEEDBACK_MAX - 1)

/*
 * AF-QCN's eq. (4), Fb = (1 - alpha) Fb_QCN + alpha Fb_AF, for a sample
 * below Qeq.  CLAMP: Fb_QCN is 0 there, so a class above its fair share
 * gets alpha Fb_AF whatever the queue (the default).  SIGNED: Fb_QCN is
 * the quantized Fb with its sign, negative below Qeq, and holds the
 * fairness term back until the queue nears Qeq (the paper's "only sent if
 * positive"; a class offering less than its share does not cut the
 * others with an idle link, but on a port whose queue sits below Qeq the
 * weighted shares are enforced less).
 */
enum tc_qcn_af_fb {
	TC_QCN_AF_FB_CLAMP,
	TC_QCN_AF_FB_SIGNED,
	__TC_QCN_AF_FB_MAX,
};
#define TC_QCN_AF_FB_MAX (__TC_QCN_AF_FB_MAX - 1)

enum {
	TCA_QCN_UNSPEC,
	TCA_QCN_LIMIT,		/* u32: queue limit, bytes */
	TCA_QCN_RATE,		/* u64: port rate, bytes/s; 0 = unpaced */
	TCA_QCN_SCHED,		/* u8: enum tc_qcn_sched */
	TCA_QCN_QEQ,		/* u32: queue set point Qeq, bytes */
	TCA_QCN_W_EXP,		/* s32: w = 2^W_EXP, -10..10 (w 2 -> 1) */
	TCA_QCN_INTERVAL,	/* u32: base sample interval, bytes */
	TCA_QCN_SAMPLE,		/* u8: enum tc_qcn_sample */
	TCA_QCN_KEEPALIVE,	/* u32: keep-alive sampling period, us; 0 off */
	TCA_QCN_CPID,		/* u16: low 16 bits of the CPID */
	TCA_QCN_AF,		/* u8: AF-QCN on (1) / off (0) */
	TCA_QCN_AF_ALPHA,	/* u32: alpha, 1/65536 units, (0, 1) */
	TCA_QCN_AF_TS,		/* u32: AF update period Ts, us */
	TCA_QCN_AF_BETA,	/* u32: EWMA beta, 1/65536 units, (0, 1) */
	TCA_QCN_AF_ACTIVE,	/* u32: active_thresh, bytes per Ts */
	TCA_QCN_PAD,
	TCA_QCN_MEMORY_LIMIT,	/* u32: queued skbs' truesize limit, bytes */
	TCA_QCN_FEEDBACK,	/* u8: enum tc_qcn_feedback */
	TCA_QCN_FB_PERIOD,	/* u32: signed feedback samples 1 in N arrivals */
	TCA_QCN_AF_FB,		/* u8: enum tc_qcn_af_fb */
	TCA_QCN_FABRIC,		/* u32: path-congestion index shared by the
				 * instances of this fabric id in every
				 * namespace; 0 = this namespace's own
				 */
	TCA_QCN_PFC_XOFF,	/* u32: PFC generation for frames arriving on
				 * this device: pause above, bytes; 0 = off
				 */
	TCA_QCN_PFC_XON,	/* u32: resume below, bytes (<= PFC_XOFF) */
	TCA_QCN_PFC_QUANTA,	/* u32: pause time sent, quanta, 1..65535 */
	TCA_QCN_PFC,		/* u8: honour 802.1Qbb PFC frames received
				 * on the device (1) / ignore them (0)
				 */
	TCA_QCN_CP,		/* u8: enum tc_qcn_cp, where the CP samples */
	__TCA_QCN_MAX
};
#define TCA_QCN_MAX (__TCA_QCN_MAX - 1)

/* class options (AF-QCN), nested in TCA_OPTIONS of a class */
enum {
	TCA_QCN_CLASS_UNSPEC,
	TCA_QCN_CLASS_WEIGHT,	/* u32: >= 1 */
	TCA_QCN_CLASS_MAXRATE,	/* u64: bytes/s; 0 = no cap */
	TCA_QCN_CLASS_PAD,
	__TCA_QCN_CLASS_MAX
};
#define TCA_QCN_CLASS_MAX (__TCA_QCN_CLASS_MAX - 1)

#define TC_QCN_QFB_BUCKETS 8	/* histogram of qFb / 8 */
#define TC_QCN_PFC_PRIOS 8	/* 802.1Q priorities */

struct tc_qcn_xstats {
	__u64	samples;		/* sampling instants (incl. keep-alive) */
	__u64	keepalive_samples;	/* samples taken by the keep-alive timer */
	__u64	cnm_sent[__TC_QCN_SAMPLE_MAX];	/* by culprit-selection mode */
	__u64	cnm_fail;		/* CNM allocation or transmit failures */
	__u64	cnm_skipped;		/* congested sample, no valid culprit */
	__u64	drops;			/* tail drops at limit */
	__u64	qfb_hist[TC_QCN_QFB_BUCKETS];	/* CNMs by qFb / 8 */
	__s64	last_fb;		/* Fb (bytes, eq. 1) at the last sample */
	__u32	qold;			/* Qold, bytes */
	__u32	last_qfb;		/* qFb of the last sample */
	__u32	flows;			/* DRR flows with backlog */
	__u32	af_classes;		/* AF-QCN classes + tracked flows */
	__u64	gso_split;		/* GSO skbs queued as their frames */
	__u64	drops_overmemory;	/* dropped at memory_limit */
	__u32	memory_usage;		/* truesize of the queued skbs, bytes */
	__u32	pad;
	__u64	cnm_positive;		/* signed feedback: CNMs with Fb >= 0 */
	/* the queue's time average: backlog_ns grows by backlog x elapsed
	 * (byte x ns, wraps) up to stamp_ns (CLOCK_MONOTONIC, the dump's
	 * time); between two dumps, the mean backlog in bytes is
	 * (backlog_ns2 - backlog_ns1) / (stamp_ns2 - stamp_ns1)
	 */
	__u64	backlog_ns;
	__u64	stamp_ns;
	/* the sum of Q at the sampling instants (bytes): between two dumps,
	 * the queue the CP's samples saw is its delta over samples' delta
	 * (arrivals in bursts see more than the time average)
	 */
	__u64	sample_backlog;
	/* CNM latency in the CP: from the sampling instant to the CNM's
	 * transmission (the tasklet), summed over the CNMs sent (ns; the
	 * mean is cnm_delay_ns over the CNMs sent), and the largest one
	 */
	__u64	cnm_delay_ns;
	__u64	cnm_delay_max_ns;
	/* PFC generation (pfc-xoff): for the frames that arrived on this
	 * device, per priority: PFC frames sent with a pause time (XOFF and
	 * its refreshes) and with time 0 (XON), the time the priority was
	 * held paused (ns), the bytes queued in the namespace's qcn
	 * instances now and at most, and frames that could not be sent
	 */
	__u64	pfc_xoff_sent[TC_QCN_PFC_PRIOS];
	__u64	pfc_xon_sent[TC_QCN_PFC_PRIOS];
	__u64	pfc_pausing_ns[TC_QCN_PFC_PRIOS];
	__u64	pfc_ingress_bytes[TC_QCN_PFC_PRIOS];
	__u64	pfc_ingress_max[TC_QCN_PFC_PRIOS];
	__u64	pfc_tx_fail;
	/* 802.1Qbb PFC reception (option pfc): per priority, the entries
	 * with a nonzero pause time received; the entries with time 0
	 * (XON); the frames of EtherType 0x8808 that do not decode as PFC
	 * (never acted on); and per priority the time spent paused (ns)
	 */
	__u64	pfc_rx[TC_QCN_PFC_PRIOS];
	__u64	pfc_rx_xon;
	__u64	pfc_rx_ignored;
	__u64	pfc_paused_ns[TC_QCN_PFC_PRIOS];
	/* the input CP (cp input|both): its sampling instants (keep-alive
	 * ones included), the keep-alive ones, CNMs sent by culprit
	 * selection, congested samples with no culprit to answer, and CNMs
	 * not sent (ring full, allocation or transmit failure)
	 */
	__u64	in_samples;
	__u64	in_keepalive_samples;
	__u64	in_cnm_sent[__TC_QCN_SAMPLE_MAX];
	__u64	in_cnm_skipped;
	__u64	in_cnm_fail;
};

struct tc_qcn_class_xstats {
	__u32	weight;
	__u32	active;			/* 1 if M_i > active_thresh */
	__u64	maxrate;		/* bytes/s, 0 = none */
	__u64	rate_est;		/* M_i as bytes/s */
	__u64	fair_share;		/* Mfair_i as bytes/s */
	__u32	last_fb_af;		/* last Fb_AF, 0..63 */
	__u32	pad;
	__u64	cnm_sent;
	__u64	bytes;			/* bytes classified */
	__u64	stamp_ns;		/* CLOCK_MONOTONIC when read: rates */
};

/* ------------------------------------------------------------- qcn_rp */

enum tc_qcn_rp_mode {
	TC_QCN_RP_MODE_QCN,		/* byte counter + timer (802.1Qau) */
	TC_QCN_RP_MODE_QCNT,		/* QCN-T: one timer of period t */
	TC_QCN_RP_MODE_NAIMD,		/* N-AIMD, eq. 14: signed Fb from the CNM */
	TC_QCN_RP_MODE_AP_NAIMD,	/* N-AIMD + the Averaging Principle */
	TC_QCN_RP_MODE_AIMD,		/* QCN-AIMD, eq. 27: + R_AI per byte cycle */
	__TC_QCN_RP_MODE_MAX,
};
#define TC_QCN_RP_MODE_MAX (__TC_QCN_RP_MODE_MAX - 1)

enum tc_qcn_rp_flow {
	TC_QCN_RP_FLOW_L4,		/* 5-tuple; non-IP: dst MAC + prio */
	TC_QCN_RP_FLOW_L3,		/* src/dst address + protocol */
	TC_QCN_RP_FLOW_DST_MAC,		/* dst MAC + priority */
	__TC_QCN_RP_FLOW_MAX,
};
#define TC_QCN_RP_FLOW_MAX (__TC_QCN_RP_FLOW_MAX - 1)

enum {
	TCA_QCN_RP_UNSPEC,
	TCA_QCN_RP_MAX_RATE,	/* u64: line rate, bytes/s */
	TCA_QCN_RP_GD,		/* u32: Gd = 2^-GD */
	TCA_QCN_RP_AI_RATE,	/* u64: R_AI, bytes/s */
	TCA_QCN_RP_HAI_RATE,	/* u64: R_HAI, bytes/s */
	TCA_QCN_RP_BYTE_RESET,	/* u32: byte counter cycle, bytes */
	TCA_QCN_RP_TIME_RESET,	/* u32: timer cycle T, us */
	TCA_QCN_RP_THRESHOLD,	/* u32: FR cycles */
	TCA_QCN_RP_MIN_RATE,	/* u64: bytes/s */
	TCA_QCN_RP_MIN_DEC,	/* u32: min decrease factor, percent */
	TCA_QCN_RP_MODE,	/* u8: enum tc_qcn_rp_mode */
	TCA_QCN_RP_QCNT_PERIOD,	/* u32: QCN-T timer period t, us */
	TCA_QCN_RP_LIMITERS,	/* u32: max rate limiters */
	TCA_QCN_RP_FLOW,	/* u8: enum tc_qcn_rp_flow */
	TCA_QCN_RP_LIMIT,	/* u32: total backlog limit, bytes */
	TCA_QCN_RP_JITTER,	/* u8: +-15 % counter jitter on (1) / off */
	TCA_QCN_RP_PAD,
	TCA_QCN_RP_FLOW_LIMIT,	/* u32: packets queued per limiter */
	TCA_QCN_RP_MEMORY_LIMIT, /* u32: queued skbs' truesize, bytes */
	TCA_QCN_RP_NAIMD_GI,	/* u32: N-AIMD G_i, parts per 10^9 */
	TCA_QCN_RP_NAIMD_RU,	/* u64: N-AIMD R_u, bytes/s */
	TCA_QCN_RP_NAIMD_GD,	/* u32: N-AIMD G_d, parts per 10^9 */
	TCA_QCN_RP_FB_UNIT,	/* u32: bytes per unit of Fb (eq. 14) */
	TCA_QCN_RP_AP_PKTS,	/* u32: AP: average after N packets (T/2) */
	TCA_QCN_RP_W_EXP,	/* s32: the CPs' w = 2^W_EXP, to rebuild Fb */
	TCA_QCN_RP_START_RATE,	/* u64: new flows start limited, bytes/s; 0 = off */
	TCA_QCN_RP_PFC,		/* u8: honour 802.1Qbb PFC frames received
				 * on the device (1) / ignore them (0)
				 */
	__TCA_QCN_RP_MAX
};
#define TCA_QCN_RP_MAX (__TCA_QCN_RP_MAX - 1)

/*
 * tc tells the qdisc's xstats from a class's by their size only: the two
 * structs must never have the same size (the module checks it at build).
 */
struct tc_qcn_rp_xstats {
	__u64	cnm_rx;
	__u64	cnm_matched;
	__u64	cnm_unmatched;		/* no recent flow: ignored */
	__u64	cnm_malformed;		/* rejected by the decoder */
	__u64	limiters_created;
	__u64	limiters_released;
	__u64	limiters_refused;	/* cap reached */
	__u64	throttled;		/* packets delayed by a limiter */
	__u64	drops;			/* dropped at limit */
	__u32	limiters_active;
	__u32	flows;			/* flows tracked (recently sent) */
	__u64	gso_split;		/* GSO skbs of limited flows paced as frames */
	__u64	cnm_not_host;		/* broadcast/multicast/other-host CNMs dropped */
	__u64	cnm_qfb0;		/* CNMs with qFb 0 (no congestion): ignored */
	__u64	flow_limit_drops;	/* a limiter's queue at flow_limit */
	__u64	memory_drops;		/* memory_limit reached */
	__u32	memory_usage;		/* truesize of the queued skbs, bytes */
	__u32	pad;
	__u64	cnm_positive;		/* n-aimd: CNMs with Fb >= 0 (increase) */
	__u64	ap_steps;		/* ap-n-aimd: averaging steps taken */
	__u64	limiters_aged;		/* released because their flow went idle */
	__u64	stamp_ns;		/* CLOCK_MONOTONIC when read: rates */
	__u64	limiters_started;	/* installed at start_rate for a new flow */
	/* 802.1Qbb PFC reception (option pfc), as struct tc_qcn_xstats */
	__u64	pfc_rx[TC_QCN_PFC_PRIOS];
	__u64	pfc_rx_xon;
	__u64	pfc_rx_ignored;
	__u64	pfc_paused_ns[TC_QCN_PFC_PRIOS];
};

enum tc_qcn_rp_state {
	TC_QCN_RP_STATE_FR,
	TC_QCN_RP_STATE_AI,
	TC_QCN_RP_STATE_HAI,
	TC_QCN_RP_STATE_RELEASED,
};

/* flow key as shown per limiter (tc -s class show) */
struct tc_qcn_rp_flow_key {
	__u8	kind;			/* enum tc_qcn_rp_flow actually used */
	__u8	family;			/* AF_INET, AF_INET6 or 0 (MAC key) */
	__u8	proto;
	__u8	prio;
	__be32	saddr[4];
	__be32	daddr[4];
	__be16	sport;
	__be16	dport;
	__u8	dmac[6];
	__u8	pad[2];
};

struct tc_qcn_rp_class_xstats {
	struct tc_qcn_rp_flow_key key;
	__u64	cr;			/* current rate, bytes/s */
	__u64	tr;			/* target rate, bytes/s */
	__u32	bc_stage;
	__u32	timer_stage;
	__u32	state;			/* enum tc_qcn_rp_state */
	__u32	backlog;		/* bytes queued */
	__u64	cnm_rx;
	__u64	bytes_sent;
	__u64	stamp_ns;		/* CLOCK_MONOTONIC when read: rates */
};

#endif /* _UAPI_LINUX_QCN_H */
