# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the native-speed selftests (fast_*.sh): they need kernel code
# running at native speed (User-Mode Linux: scripts/uml-run, or a real
# host), ports of 500 Mbit/s - 1 Gbit/s, TCP with GSO on and the standard's
# parameters.  In the QEMU/TCG guests (~100x slower) they skip.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QS=$QCN_TOP/tools/qcnstat

# fast_require: root, modules, tools; skip in the emulated guests.
fast_require()
{
	qcn_require_root
	[ -z "${QCN_GUEST:-}" ] ||
		ktap_skip_all "needs native speed (run it in scripts/uml-run or on a host), not the TCG guest"
	qcn_require_cmd iperf3 jq ethtool
	qcn_require_modules
	qcn_require_built "$QS"
}

# fast_servers N [IPERF3 OPTIONS]: iperf3 servers for flows 1..N in r
# (port 5200+i)
fast_servers()
{
	local i n=$1
	shift
	for i in $(seq 1 "$n"); do
		nsx r iperf3 -s -D -p $((5200 + i)) "$@" || return 1
	done
	tb_listening r $(seq 5201 $((5200 + n)))
}

# fast_tcp I SECONDS OUT [IPERF3 OPTIONS]: TCP from hI to r in the
# background, iperf3 JSON into OUT.
fast_tcp()
{
	local i=$1 s=$2 o=$3
	shift 3
	nsbg "h$i" iperf3 -c "$QCN_NET.100" -p $((5200 + i)) -t "$s" -J "$@" > "$o"
}

# fast_goodput FILE...: received bit/s of iperf3 JSON results, summed (kbit/s)
fast_goodput()
{
	local f t=0 b
	for f in "$@"; do
		b=$(jq '.end.sum_received.bits_per_second // 0' "$f" 2>/dev/null)
		t=$((t + ${b%.*} / 1000))
	done
	echo "$t"
}

# fast_rtt JSON...: "MIN/MEAN" TCP RTT (us) of iperf3 senders: the
# smallest min_rtt, the mean of the mean_rtt
fast_rtt()
{
	jq -s -r '[.[].end.streams[0].sender // empty] |
		if length == 0 then "-" else
		"\(map(.min_rtt) | min)/\(map(.mean_rtt) | add / length | floor)" end' "$@" 2>/dev/null || echo -
}

# qs_col CSV NAME: values of qcnstat's column NAME for qdisc kind qcn
# (lib.sh's qcnstat_cols: columns by header name, RFC 4180 quoting)
qs_col()
{
	qcnstat_cols "$1" kind "$2" | awk -F'\t' '$1 == "qcn" { print $2 }'
}

# fast_queue_stats CSV: "mean p10 p50 p99 max n" of the qcn backlog.  The
# mean is the kernel's time average over the CSV's window (the backlog_ns
# and stamp_ns columns: exact, on the kernel's clock); the percentiles come
# from the samples.  A poller's samples are biased low on a busy one-CPU
# machine: it runs when the stack is idle, i.e. when bursts have drained.
# Older modules without the integral: the samples' mean.
fast_queue_stats()
{
	local m b
	m=$(paste <(qs_col "$1" backlog_ns) <(qs_col "$1" stamp_ns) |
		awk -F'\t' '$1 != "" && $2 != "" { if (!n++) { b0 = $1; s0 = $2 } b = $1; s = $2 }
			END { if (n > 1 && s > s0) printf "%d\n", (b - b0) / (s - s0) }')
	b=$(qs_col "$1" backlog)
	[ -n "$b" ] || { echo "0 0 0 0 0 0"; return; }
	awk -v m="$m" -v p="$(percentiles 10 50 99 100 <<<"$b")" '{ s += $1 }
		END { printf "%d %s %d\n", m != "" ? m : s / NR, p, NR }' <<<"$b"
}

# fast_sampled_q CSV: the mean queue (bytes) at the CP's sampling
# instants over the CSV's window, the Q its Fb used ("-" from an older
# module): with arrivals in bursts it exceeds the time average
fast_sampled_q()
{
	paste <(qs_col "$1" sample_backlog) <(qs_col "$1" samples) |
		awk -F'\t' '$1 != "" { if (!n++) { b0 = $1; s0 = $2 } b = $1; s = $2 }
			END { if (n > 1 && s > s0) printf "%d\n", (b - b0) / (s - s0); else print "-" }'
}

# fast_qdisc_num NS DEV KEY: one number of `tc -s -j qdisc show` (root)
fast_qdisc_num()
{
	nsx "$1" tc -s -j qdisc show dev "$2" | jq ".[0].$3 // 0"
}

# fast_offloads I on|off: TSO/GSO of hI's eth0
fast_offloads()
{
	nsx "h$1" ethtool -K eth0 tso "$2" gso "$2" >/dev/null 2>&1
}

# fast_interval_rate JSON T1 T2: mean sender rate (kbit/s) of an iperf3
# JSON over the intervals that start in [T1, T2) seconds
fast_interval_rate()
{
	jq --argjson a "$2" --argjson b "$3" '
		[.intervals[] | select(.sum.start >= $a - 0.01 and .sum.start < $b - 0.01) | .sum]
		| if length == 0 then 0 else ((map(.bytes) | add) * 8 / (map(.seconds) | add) / 1000 | floor) end' "$1"
}

# fast_series JSON: "start_s kbit/s" per iperf3 interval (sender side)
fast_series()
{
	jq -r '.intervals[] | .sum | "\(.start) \(.bits_per_second / 1000 | floor)"' "$1"
}

# fast_mtu MTU: every link of the star (tb_star) at MTU.  The native-speed
# tests run jumbo frames of 4000 bytes (FAST_MTU; RoCE's 4096-byte class,
# and DCB fabrics commonly run jumbo frames): UML carries ~1.3 Gbit/s of
# them on one CPU, far fewer 1500-byte ones, so that the 500 Mbit/s and
# 1 Gbit/s ports, not the CPU, are the bottleneck.  With the standard's
# parameters 4000-byte frames hold the queue as 1500-byte ones do
# (tools/qcn-sim).
FAST_MTU=${FAST_MTU:-4000}
fast_mtu()
{
	local ns dev
	for dev in $(ip -n "$TB-sw" -o link show | awk -F': ' '{ sub("@.*", "", $2); print $2 }'); do
		[ "$dev" = lo ] || ip -n "$TB-sw" link set "$dev" mtu "$1"
	done
	for ns in "${__tb_ns[@]}"; do
		[ "$ns" = "$TB-sw" ] || ip -n "$ns" link set eth0 mtu "$1" 2>/dev/null
	done
}
