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
# The stack has a ceiling of its own (UML runs on one CPU): a limited flow
# is paced frame by frame, as a NIC's rate limiter sends the frames its TSO
# engine cut, so the reference is the same testbed without qcn_rp and with
# GSO off at the senders (every frame handled alone), measured in the same
# run; the port rate caps it.  For each case, over the same 6 s window:
#   throughput at the port >= 90 % of the reference,
#   the CP queue's mean within Qeq +-50 % and its 99th percentile below
#   the limit, tail drops < 0.1 % of the packets.
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
	awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["kind"] == "qcn" {
			if (!n++) { t0 = $c["t_ms"]; b0 = $c["bytes"]; p0 = $c["packets"]; d0 = $c["tail_drops"] }
			t = $c["t_ms"]; b = $c["bytes"]; p = $c["packets"]; d = $c["tail_drops"] }
		END { printf "%d %d %d\n", (t > t0 ? (b - b0) * 8 / (t - t0) : 0), p - p0, d - d0 }' "$1"
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
				-s 1400 -g -t "$DUR" -B 1000000 > /dev/null
		fi
	done
	sleep 3
	nsx sw "$QS" -d sw-pr -i 10ms -t 6s > "$tmp/$name.csv"
	sleep $((DUR - 8))
	w=$(window "$tmp/$name.csv")
	read -r "${name}_kbps" "${name}_pkts" "${name}_drops" <<<"$w"
	eval "${name}_q=\"$(fast_queue_stats "$tmp/$name.csv")\""
	tb_cleanup_pids
}

tb_cleanup_pids()
{
	local p
	for p in "${__tb_pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	__tb_pids=()
}

# one testbed per flow count; the port rate changes between cases
check_case()
{
	local rate=$1 n=$2 tag=$3 kind=$4 ref q_mean q_p99 i
	ref=${tag}_ref_kbps; ref=${!ref}
	eval "set -- \$${tag}_qcn_q"
	q_mean=$1 q_p99=$4
	local kbps=${tag}_qcn_kbps pk=${tag}_qcn_pkts dr=${tag}_qcn_drops
	kbps=${!kbps} pk=${!pk} dr=${!dr}
	ktap_check "$rate $n $kind: QCN throughput $kbps kbit/s >= 90 % of the reference $ref" \
		test $((kbps * 10)) -ge $((ref * 9))
	ktap_check "$rate $n $kind: queue mean $q_mean B within Qeq +-50 % ($((QEQ / 2))..$((QEQ * 3 / 2)))" \
		test "$q_mean" -ge $((QEQ / 2)) -a "$q_mean" -le $((QEQ * 3 / 2))
	ktap_check "$rate $n $kind: queue p99 $q_p99 B below the limit $LIMIT" \
		test "$q_p99" -lt "$LIMIT"
	ktap_check "$rate $n $kind: tail drops $dr < 0.1 % of $pk packets" \
		test $((dr * 1000)) -lt "$pk" -a "$pk" -gt 0
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
	# QCN: qcn_rp with the standard's RP parameters, GSO on
	for i in $(seq 1 "$n"); do
		fast_offloads "$i" on
		nsx "h$i" tc qdisc add dev eth0 root qcn_rp max-rate 2gbit
	done
	phase "${tag}_qcn" "$n" "$kind"
	eval "set -- \$${tag}_ref_q"; local rq="$*"
	eval "set -- \$${tag}_qcn_q"; local qq="$*"
	local r=${tag}_ref_kbps k=${tag}_qcn_kbps d=${tag}_qcn_drops p=${tag}_qcn_pkts rd=${tag}_ref_drops
	ktap_info "$rate, $n $kind flows: reference ${!r} kbit/s (queue mean/p10/p50/p99/max/n $rq, drops ${!rd});" \
		"QCN ${!k} kbit/s (queue $qq, drops ${!d} of ${!p})"
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
		fast_servers "$n"
		cur_n=$n
	fi
	tag=c${rate}_$n
	run_case "$rate" "$n" tcp "$tag"
	check_case "$rate" "$n" "$tag" tcp
done

# a UDP source: two senders with UDP GSO (up to 64 KB of 1400 B datagrams
# per send), back-pressured only by the limiter through their socket buffer
tb_cleanup
tb_init
tb_star 2
run_case 500mbit 2 udp udp
check_case 500mbit 2 udp udp
tb_cleanup
rm -rf "$tmp"
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finish
