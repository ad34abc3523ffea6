#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcn_rp keeps a flow's order when a limiter is installed while the flow
# has packets in the unlimited FIFO: qcn_rp under a 20 Mbit/s tbf, one
# sequenced UDP flow offered 40 Mbit/s (the FIFO holds ~1 MB of it), CNMs
# install and re-install its limiter; udp_sink counts datagrams that
# arrive after a higher sequence number.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_dmesg_mark
tb_init
CNM=$QCN_TOP/selftests/cnm_send
SINK=$QCN_TOP/selftests/udp_sink
tmp=$(mktemp -d)

tb_rp_pair
A=$RP_A
B=$RP_B
xs() { nsx a tc -s -j qdisc show dev eth0 | jq -r '.[] | select(.kind == "qcn_rp") | .'"$1"; }

# one flow through the FIFO while CNMs install its limiter, counted at the sink
test_checks reorder 3
reorder()
{
	# b's veth end receives through NAPI with GRO on, in order: through
	# netif_rx() an SMP guest reorders by itself (frames sent from two CPUs
	# land in two per-CPU backlogs).  veth takes the NAPI path only for skbs
	# it may aggregate (veth_skb_is_eligible_for_gro(): a sender without TSO
	# features), so a's end has TSO off (nothing here is TSO: UDP, 1400 B)
	if command -v ethtool > /dev/null; then
		nsx b ethtool -K eth0 gro on
		nsx a ethtool -K eth0 tso off > /dev/null 2>&1
	else
		ktap_info "no ethtool: b receives through netif_rx (an SMP machine may reorder there)"
	fi
	nsx a tc qdisc add dev eth0 root handle 1: tbf rate 20mbit burst 20kb latency 2s
	nsx a tc qdisc add dev eth0 parent 1:1 handle 2: qcn_rp max-rate 100mbit \
		time-reset 100ms jitter off
	nsbg b "$SINK" 9000 100 9 > "$tmp/sink"
	sink=$TB_LAST_PID
	# the sender on one CPU: veth hands each packet to the backlog of the CPU
	# that sends it, so packets leaving from two CPUs (the sender's context and
	# a qdisc watchdog on the other) can swap at the receiver whatever the qdisc
	# does; the test is about the order qcn_rp sends in
	nsbg a taskset -c 0 "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9000 -b 5000 \
		-s 1400 -r 40000000 -B 1000000 -t 7 > /dev/null
	# the FIFO fills: qcn_rp holds 500 KB (3 s at most: the sender's 7 s
	# cover the CNMs)
	fifo_full() { [ "$(xs backlog)" -ge 500000 ] 2>/dev/null; }
	busywait 3000 fifo_full > /dev/null
	# a CNM each 300 ms: the limiter recovers in ~1 s with time-reset 100ms,
	# so some install a new limiter behind a full FIFO
	for _ in $(seq 1 12); do
		nsx b "$CNM" -i eth0 -d $A -s $B -q 40 -e $B \
			-u "$QCN_NET.1:5000,$QCN_NET.100:9000" > /dev/null
		sleep 0.3	# the CNM spacing
	done
	# the sink has counted the whole flow: it exits after its 9 s
	wait "$sink"
	created=$(xs limiters_created)
	ktap_info "limiters created $created, released $(xs limiters_released), throttled $(xs throttled)"
	last=$(tail -n1 "$tmp/sink")
	ktap_info "sink: $last"
	ktap_check "limiters were installed ($created)" test "$created" -ge 1
	ktap_check "datagrams received" test "$(awk '{print $4}' <<<"$last")" -gt 1000
	ktap_check "no datagram overtaken ($(awk '{print $5}' <<<"$last") reordered)" \
		test "$(awk '{print $5}' <<<"$last")" = 0
}

ALL_TESTS="reorder"
tests_plan kernel_log
tests_run
rm -rf "$tmp"
kernel_log
ktap_finished
