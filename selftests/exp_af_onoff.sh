#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Native speed (UML or a host): AF-QCN's Fig. 11 on the modules, the kernel
# side of scripts/experiments/af-qcn (not in the suite: not fast_*).  Three
# static TCP flows and an on-off UDP flow share one qcn port, with QCN alone
# and with AF-QCN.  Asserted (a smoke test, not the paper's figure): every
# testbed comes up, the bursty flow below its share loses <= 5 % of what it
# sent, the port carries >= 40 % of RATE in every run, no kernel warnings.
source "$(dirname "$0")/lib_fast.sh"
source "$(dirname "$0")/lib_af.sh"	# AF_SEND (udp_send), af_paper_testbed
fast_require
# The static flows (GSO on, 4000-byte frames) start at 0, the on-off UDP
# flow (10 KB bursts: 10 datagrams of 1000 bytes in one GSO send, udp_send
# -k) at START s; the standard's CP, qcn_rp max-rate 2gbit at every sender.
# The bursty flow offers LOADS: below its fair share (RATE/4) and above it
# (the paper: 1 and 6 Gb/s of 10 Gb/s).  "af" is the paper's alpha 0.125,
# beta 0.125, Ts 1 ms, one class of weight 1 per sender, and active_thresh
# = 20 KB per 1 ms scaled by RATE / 10 Gbit/s (1000 bytes at 500 Mbit/s).
# Reported per run: each flow's goodput over [START + 3 s, DUR - 2 s]
# (TCP: iperf3's intervals; UDP: datagrams counted at r's ingress), the
# total, and the bursty flow's sent rate (what udp_send got out: it blocks
# while its RP holds a full socket buffer, and does not catch up when late)
# and loss (datagrams sent - arrived at r).
# Environment: FAST_AF_STATIC (tcp, or udp: see below), FAST_AF_RATE
# (500mbit), FAST_AF_LOADS ("50mbit 300mbit"), FAST_AF_MODES ("qcn af"),
# FAST_AF_DUR (14 s), FAST_AF_START (4 s), FAST_AF_ACTIVE (bytes per Ts;
# default the scaled 20 KB), FAST_AF_FB (qcn af-fb for the AF runs: signed,
# the paper's eq. 4, as in EXPERIMENTS.md; clamp, the default of qcn),
# FAST_AF_OUT (a folder for fig11.csv: mode,offered_kbit,flow,kind,kbps,
# sent_kbps,loss_pct,rp_drops (the bursty sender's qcn_rp),port_tail_drops
# (all flows); default none).
RATE=${FAST_AF_RATE:-500mbit}
LOADS=${FAST_AF_LOADS:-"50mbit 300mbit"}
MODES=${FAST_AF_MODES:-"qcn af"}
DUR=${FAST_AF_DUR:-14}
START=${FAST_AF_START:-4}
port=$(awk -v r="$RATE" 'BEGIN { n = r + 0; if (r ~ /gbit/) n *= 1000000; else if (r ~ /mbit/) n *= 1000; print n }')
ACTIVE=${FAST_AF_ACTIVE:-$((port / 500))}	# 20000 B x port / 10 Gbit/s
T1=$((START + 3)) T2=$((DUR - 2))
# the bursty flow is counted, and dropped, at r's ingress (a u32 filter
# on its source with action drop): a UDP sink reading 1000-byte datagrams
# one syscall each falls behind on UML's one CPU and loses them in its
# socket buffer, which is not the network's loss.
# rx I: the datagrams from hI counted so far (GSO packets count their
# segments); the filter for hI has prio I
rx()
{
	nsx r tc -s -j filter show dev eth0 ingress prio "$1" |
		jq '[.. | objects | .actions? // empty | .[] | .stats.packets // 0] | add // 0'
}
onoff_rx() { rx 4; }
# rx_at I: "COUNT MS": rx I and the time of the count (the middle of the
# tc call, ms): a tc call takes ~0.1-0.5 s in UML, too long to assume
rx_at()
{
	local a b n
	a=$(date +%s%N)
	n=$(rx "$1")
	b=$(date +%s%N)
	echo "$n $(( (a + b) / 2000000 ))"
}
# rate_of "C1 MS1" "C2 MS2" SIZE: kbit/s of SIZE-byte datagrams
rate_of()
{
	local c1 t1 c2 t2
	read -r c1 t1 <<< "$1"
	read -r c2 t2 <<< "$2"
	echo $(( t2 > t1 ? (c2 - c1) * $3 * 8 / (t2 - t1) : 0 ))
}
# FAST_AF_STATIC=udp: the static flows are greedy UDP (udp_send -g, 1400-byte
# datagrams, GSO), open-loop sources as the paper's, counted at r's ingress
# like the bursty one; tcp (default): iperf3, whose own congestion control
# (tail drops) and CPU appetite are part of the result.  The udp variant
# gives no usable result under UML (EXPERIMENTS.md, section 5).
STATIC=${FAST_AF_STATIC:-tcp}
nl=$(wc -w <<< "$LOADS")
nm=$(wc -w <<< "$MODES")
ktap_print_header
ktap_set_plan $((nl * nm * 2 + nl + 1))
qcn_dmesg_mark
tb_init
tmp=$(mktemp -d)
csv=$tmp/fig11.csv
echo "mode,offered_kbit,flow,kind,kbps,sent_kbps,loss_pct,rp_drops,port_tail_drops" > "$csv"
ktap_info "static flows $STATIC, port $RATE, active $ACTIVE bytes per 1 ms, static flows 0-$DUR s, bursty from $START s, window [$T1, $T2] s"

for load in $LOADS; do
	lk=$(awk -v r="$load" 'BEGIN { n = r + 0; if (r ~ /gbit/) n *= 1000000; else if (r ~ /mbit/) n *= 1000; print n }')
	for mode in $MODES; do
		ktap_check "$mode, bursty $load: testbed (4 qcn_rp, qcn $RATE${mode/qcn/}) up" \
			af_paper_testbed "$mode" "$RATE" "$ACTIVE" 4
		ktap_info "$mode, bursty $load: $(uptime)"
		fast_servers 3
		nsx r tc qdisc add dev eth0 clsact
		for i in 1 2 3 4; do
			[ "$i" -lt 4 ] && [ "$STATIC" = tcp ] && continue
			nsx r tc filter add dev eth0 ingress protocol ip prio "$i" u32 \
				match ip src "$QCN_NET.$i/32" action drop ||
				ktap_info "$mode, bursty $load: no counter for h$i at r's ingress"
		done
		for i in 1 2 3; do
			if [ "$STATIC" = udp ]; then
				nsbg "h$i" "$AF_SEND" -d "$QCN_NET.100" -p 9000 -s 1400 -g -t "$DUR" > /dev/null
			else
				fast_tcp "$i" "$DUR" "$tmp/f$i.json" -i 0.5
			fi
		done
		sleep 2
		if [ "$STATIC" = udp ]; then for i in 1 2 3; do s1[i]=$(rx_at "$i"); done; fi
		sleep $((START - 2))
		if [ "$STATIC" = udp ]; then for i in 1 2 3; do s2[i]=$(rx_at "$i"); done; fi
		sleep "$START"
		# nice -15: on UML's one CPU the TCP senders would delay its
		# wake-ups, and a late udp_send does not catch up (it would
		# offer less than its load)
		nsbg h4 nice -n -15 "$AF_SEND" -d "$QCN_NET.100" -p 9000 -s 1000 -k 10 -g -r "$load" \
			-t $((DUR - START - 1)) > "$tmp/sent"
		sleep $((T1 - START))
		c1=$(rx_at 4)
		if [ "$STATIC" = udp ]; then for i in 1 2 3; do u1[i]=$(rx_at "$i"); done; fi
		sleep $((T2 - T1))
		c2=$(rx_at 4)
		if [ "$STATIC" = udp ]; then for i in 1 2 3; do u2[i]=$(rx_at "$i"); done; fi
		tb_wait
		total=0
		for i in 1 2 3; do
			if [ "$STATIC" = udp ]; then
				r[i]=$(rate_of "${u1[i]}" "${u2[i]}" 1400)
				ref[i]=$(rate_of "${s1[i]}" "${s2[i]}" 1400)
			else
				r[i]=$(fast_interval_rate "$tmp/f$i.json" "$T1" "$T2")
				ref[i]=$(fast_interval_rate "$tmp/f$i.json" 1 "$START")
			fi
			total=$((total + r[i]))
			echo "$mode,$lk,$i,static,${r[i]},,,," >> "$csv"
		done
		r4=$(rate_of "$c1" "$c2" 1000)
		total=$((total + r4))
		sent=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' "$tmp/sent")
		got=$(onoff_rx)
		skbps=$(( ${sent:-0} * 8 / (DUR - START - 1) ))	# 1000-byte datagrams: kbit/s
		loss=$(awk -v s="${sent:-0}" -v g="$got" 'BEGIN { printf "%.2f", s ? 100 * (s - g) / s : 100 }')
		cnm4=$(fast_qdisc_num h4 eth0 cnm_rx)
		rpd=$(fast_qdisc_num h4 eth0 drops)
		drops=$(fast_qdisc_num sw sw-pr tail_drops)
		echo "$mode,$lk,4,bursty,$r4,$skbps,$loss,$rpd,$drops" >> "$csv"
		echo "$mode,$lk,total,,$total,,,," >> "$csv"
		ktap_info "$mode, bursty $load: kbit/s static ${r[1]} ${r[2]} ${r[3]}, bursty $r4 (sent $skbps, loss $loss %, $cnm4 CNMs to its RP, which dropped $rpd), total $total; static alone (before $START s): ${ref[1]} ${ref[2]} ${ref[3]}; port tail drops $drops"
		[ "$mode" = af ] && nsx sw tc -s class show dev sw-pr | sed 's/^/# /'
		ktap_rate_check "$mode, bursty $load: the port carries >= 40 % of $port kbit/s (total $total)" \
			test $((total * 10)) -ge $((port * 4))
		eval "loss_${mode//-/_}_$lk=$loss"
		tb_cleanup
	done
	# below its fair share the bursty flow keeps what it sent, in every mode
	bad=0; all=""
	for mode in $MODES; do
		l=$(eval echo "\$loss_${mode//-/_}_$lk"); all="$all $mode $l %"
		awk -v l="$l" 'BEGIN { exit !(l <= 5) }' || bad=1
	done
	if [ "$lk" -lt $((port / 4)) ]; then
		ktap_rate_check "bursty $load (below its fair share): loss <= 5 % ($all )" test $bad -eq 0
	else
		ktap_info "bursty $load (above its fair share): loss$all (its RP holds it back: the sender blocks or the RP drops)"
		ktap_test_pass "bursty $load: every mode ran"
	fi
done
column -s, -t < "$csv" | sed 's/^/# /'
[ -n "${FAST_AF_OUT:-}" ] && mkdir -p "$FAST_AF_OUT" && cp "$csv" "$FAST_AF_OUT/fig11.csv"
rm -rf "$tmp"
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finished
