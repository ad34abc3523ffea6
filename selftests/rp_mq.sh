#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcn_rp under mq (the default root of a multi-queue device): one instance
# per TX queue, each seeing the flows hashed to its queue.  CNMs for 8 live
# flows of a 4-queue veth must all find their flow's instance.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_dmesg_mark
tb_init
CNM=$QCN_TOP/selftests/cnm_send

tb_rp_pair numtxqueues 4 numrxqueues 4
A=$RP_A
B=$RP_B

# sum of one xstats field over the four instances
sum() { nsx a tc -s -j qdisc show dev eth0 |
	jq "[.[] | select(.kind == \"qcn_rp\") | .$1] | add"; }

# mq with four qcn_rp and 8 flows they have learned
test_checks setup 1
setup()
{
	nsx a tc qdisc add dev eth0 root handle 1: mq
	for i in 1 2 3 4; do
		nsx a tc qdisc add dev eth0 parent 1:$i qcn_rp max-rate 50mbit time-reset 10s jitter off
	done
	ktap_check "mq with four qcn_rp children" \
		test "$(nsx a tc -j qdisc show dev eth0 | jq '[.[] | select(.kind == "qcn_rp")] | length')" = 4

	for p in $(seq 5000 5007); do
		nsbg a "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9000 -b "$p" \
			-s 1000 -r 1000000 -t 20 > /dev/null
	done
	learned() { [ "$(sum flows)" -ge 8 ]; }
	busywait 10000 learned || ktap_info "the instances track $(sum flows) of 8 flows after 10 s"
}

test_checks spread 1
spread()
{
	# a queue carries data once it has sent 20 KB: ARP and neighbour
	# discovery alone leave flows on queues that carry none
	sent() { [ "$(sum bytes)" -gt 400000 ]; }
	busywait 10000 sent || ktap_info "the instances sent $(sum bytes) bytes after 10 s"
	busy=$(nsx a tc -s -j qdisc show dev eth0 |
		jq '[.[] | select(.kind == "qcn_rp" and .bytes > 20000)] | length')
	ktap_info "8 flows spread over $busy of 4 TX queues"
	# 8 flows hashed over 4 TX queues; all on one means they are not spread
	# (one flow, mutation rp-mq-one-queue: 1)
	ktap_bound tx_queues_busy "$busy" '>' 1 "the flows use more than one TX queue ($busy)"
}

# CNMs for the flows setup started, and for two it did not
test_checks cnms 2
cnms()
{
	nsx b "$CNM" -i eth0 -d $A -s $B -q 20 -e $B \
		-u "$QCN_NET.1:5000,$QCN_NET.100:9000" -k 8 > /dev/null
	ktap_info "matched $(sum cnm_matched) unmatched $(sum cnm_unmatched) limiters $(sum limiters_created)"
	ktap_check "CNMs for 8 live flows: all matched, 8 limiters" \
		test "$(sum cnm_matched)/$(sum cnm_unmatched)/$(sum limiters_created)" = "8/0/8"
	nsx b "$CNM" -i eth0 -d $A -s $B -q 20 -e $B \
		-u "$QCN_NET.1:6000,$QCN_NET.100:9000" -k 2 > /dev/null
	ktap_check "CNMs for 2 flows never sent: counted once each, unmatched" \
		test "$(sum cnm_rx)/$(sum cnm_unmatched)/$(sum limiters_created)" = "10/2/8"
}

ALL_TESTS="spread cnms"
tests_plan setup kernel_log
setup
tests_run
kernel_log
ktap_finished
