#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF-QCN testbeds: senders h1..hN each with a qcn_rp reaction point on its
# egress, a bridge whose port to the receiver (sw-pr) has a qcn congestion
# point with AF-QCN, UDP blasters and a per-source byte counter on r.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The port is slower than what the emulated senders can offer, and the RP
# is scaled to it: R_AI / R_HAI small against 30 Mb/s as the standard's
# 5 / 50 Mb/s are against 10 Gb/s.  The RP timer is 1 s: at 10 Gb/s the
# byte counter (150 KB) drives the increases, so they scale with a flow's
# rate like the CNMs it gets; at 30 Mb/s a 150 ms timer fires every ~40
# frames of a 3 Mb/s flow, the increases become rate-independent, and the
# light flows end above their share whatever Fb_AF says.
AF_PORT_RATE=${AF_PORT_RATE:-30mbit}
AF_CP=${AF_CP:-"limit 150kb qeq 26kb rate $AF_PORT_RATE"}
AF_RP_TIMER=${AF_RP_TIMER:-1s}	# time-reset (af_weights: 2 s)
AF_RP=${AF_RP:-"maxrate 50mbit ai-rate 200kbit hai-rate 2mbit time-reset $AF_RP_TIMER min-rate 500kbit"}
# Ts 10 ms (1 ms at 30 Mb/s is 2.7 frames), active_thresh scaled likewise;
# alpha 0.25, the paper's upper bound for stability (0.125 leaves the
# weight-1 class above its share in the noisier emulated loop)
AF_ON=${AF_ON:-"af on alpha 0.25 beta 0.125 ts 10ms active 2kb"}
AF_SINK=$QCN_TOP/selftests/udp_sink
AF_SEND=$QCN_TOP/selftests/udp_send

# af_testbed N CP-EXTRA...: the star, qcn_rp on h1..hN, qcn 1: on sw-pr
af_testbed()
{
	local n=$1 i
	shift
	tb_star "$n" || return 1
	for i in $(seq 1 "$n"); do
		[ "$AF_RP" = none ] && break	# open loop (debugging)
		# shellcheck disable=SC2086
		nsx "h$i" tc qdisc add dev eth0 root qcn_rp $AF_RP || return 1
	done
	# shellcheck disable=SC2086
	nsx sw tc qdisc add dev sw-pr root handle 1: qcn $AF_CP "$@"
}

# af_class I WEIGHT [MAXRATE]: class 1:I for host hI (u32 on its address)
af_class()
{
	# shellcheck disable=SC2086
	nsx sw tc class add dev sw-pr parent 1: classid "1:$1" qcn weight "$2" \
		${3:+maxrate $3} || return 1
	nsx sw tc filter add dev sw-pr parent 1: protocol ip prio 1 u32 \
		match ip src "$QCN_NET.$1/32" flowid "1:$1"
}

# af_paper_testbed MODE RATE ACTIVE N [L3_FROM]: the native-speed
# experiments' testbed (lib_fast.sh): the star of h1..hN at FAST_MTU, each
# sender with qcn_rp max-rate 2gbit (from hL3_FROM on with flow l3: one
# limiter per source for the flows it carries), and the standard's
# congestion point (limit 150 KB, Qeq 26 KB) at RATE on sw-pr; MODE af adds
# AF-QCN as the paper runs it (alpha 0.125, beta 0.125, Ts 1 ms,
# active_thresh ACTIVE bytes, af-fb $FAST_AF_FB, default signed) and one
# class of weight 1 for each sender.  Fails if any step does.
af_paper_testbed()
{
	local mode=$1 rate=$2 active=$3 n=$4 l3=${5:-0} i
	tb_star "$n" || return 1
	fast_mtu "$FAST_MTU"
	for i in $(seq 1 "$n"); do
		# shellcheck disable=SC2046
		nsx "h$i" tc qdisc add dev eth0 root qcn_rp max-rate 2gbit \
			$([ "$l3" -gt 0 ] && [ "$i" -ge "$l3" ] && echo flow l3) || return 1
	done
	if [ "$mode" != af ]; then
		nsx sw tc qdisc add dev sw-pr root handle 1: qcn limit 150000 qeq 26000 rate "$rate"
		return
	fi
	nsx sw tc qdisc add dev sw-pr root handle 1: qcn limit 150000 qeq 26000 rate "$rate" \
		af on alpha 0.125 beta 0.125 ts 1ms active "$active" af-fb "${FAST_AF_FB:-signed}" ||
		return 1
	for i in $(seq 1 "$n"); do af_class "$i" 1 || return 1; done
}

# af_sink SECONDS LOG: per-source byte counts on r every 250 ms
af_sink()
{
	nsbg r "$AF_SINK" 9000 250 "$1" > "$2"
}

# af_blast I SECONDS [UDP_SEND OPTIONS]: UDP from hI to r, as fast as the
# (back-pressured) socket takes it unless -r RATE is given
af_blast()
{
	local i=$1 s=$2
	shift 2
	nsbg "h$i" "$AF_SEND" -d "$QCN_NET.100" -p 9000 -s 1400 -t "$s" "$@" > /dev/null
}

# af_port_window SECONDS CSV: qcnstat samples sw-pr's queue every 20 ms
# for SECONDS into CSV; prints "DROPS PACKETS", the tail drops and packets
# the port counted meanwhile
af_port_window()
{
	local d0 p0 d1 p1 q='.[0] | "\(.tail_drops) \(.packets)"'
	read -r d0 p0 < <(nsx sw tc -s -j qdisc show dev sw-pr | jq -r "$q")
	nsx sw "$QCN_TOP/tools/qcnstat" -d sw-pr -i 20ms -t "${1}s" > "$2"
	read -r d1 p1 < <(nsx sw tc -s -j qdisc show dev sw-pr | jq -r "$q")
	echo "$((d1 - d0)) $((p1 - p0))"
}

# af_bytes LOG T_MS I: bytes from hI counted by the sink up to T_MS
af_bytes()
{
	awk -v t="$2" -v s="$QCN_NET.$3" '$1 <= t && $2 == s { b = $3 }
		END { print b + 0 }' "$1"
}

# af_rate LOG T1 T2 I: hI's goodput in kbit/s over [T1, T2] ms
af_rate()
{
	local b1 b2
	b1=$(af_bytes "$1" "$2" "$4")
	b2=$(af_bytes "$1" "$3" "$4")
	echo $(( (b2 - b1) * 8 / ($3 - $2) ))
}

# af_windows LOG T0 T1 STEP N: the shares of h1..hN in each STEP ms window
# from T0 to T1 ms, one line each: "a-b s: S1 .. SN % (total K kbit/s)",
# rates as af_rate computes them, in one pass over the log
af_windows()
{
	awk -v t0="$2" -v t1="$3" -v st="$4" -v n="$5" -v net="$QCN_NET" '
		{ for (t = t0; t <= t1; t += st) if ($1 <= t) b[t, $2] = $3 }
		END {
			for (t = t0; t + st <= t1; t += st) {
				tot = 0
				for (i = 1; i <= n; i++) {
					h = net "." i
					r[i] = int((b[t + st, h] - b[t, h]) * 8 / st)
					tot += r[i]
				}
				line = ""
				for (i = 1; i <= n; i++)
					line = line sprintf(" %.1f", tot ? 100 * r[i] / tot : 0)
				printf "%d-%d s:%s %% (total %d kbit/s)\n", t / 1000, (t + st) / 1000, line, tot
			}
		}' "$1"
}

# af_class_x CLASSID KEY: a field of the class's statistics, as
# `tc -s class show` prints it (iproute2 6.1 prints classes as text only,
# even with -j): the word after KEY on the class's last statistics line.
af_class_x()
{
	nsx sw tc -s class show dev sw-pr |
		awk -v h="$1" -v k="$2" '
		/^class / { inside = ($3 == h) }
		inside { for (i = 1; i < NF; i++) if ($i == k) v = $(i + 1) }
		END { print v }'
}
