#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# two-samples (Gusat et al., Algorithm 1) with the per-namespace
# path-congestion index.  In the switch namespace h1's frames cross two qcn
# instances: x1 (a full 60 KB queue at 8 Mbit/s between bridge br1 and bridge br0) and
# sw-pr (a 600 KB queue toward r); h2's frames cross only sw-pr.  h1's
# index (x1's fill level) is higher than h2's, so at sw-pr two-samples
# gives h1 a larger share of the CNMs than occupancy sampling does in the
# same run.  CNMs cross two bridges to reach h1.
# CP_TS_SAMPLE=occupancy keeps occupancy sampling in the second phase: the
# index unused, the two-samples checks fail (the broken case).
source "$(dirname "$0")/lib.sh"
CP_TS_SAMPLE=${CP_TS_SAMPLE:-two-samples}
qcn_require_root
qcn_require_cmd iperf3 jq
qcn_require_modules sch_qcn
qcn_require_built selftests/cnm_dump	# cnm_phase

congested()
{
	[ "$(qcn_cnms_sent sw sw-pr)" -gt 0 ] && [ "$(qdisc_json sw x1 | jq '.[0].backlog')" -gt 0 ]
}
two_samples() { [ "$(qdisc_json sw sw-pr | jq '.[0].cnm_two_samples')" -gt 0 ]; }

test_checks share 6
share()
{
	cnm_phase "$TMP" occ 4 h1 h2
	nsx sw tc qdisc change dev sw-pr root qcn sample "$CP_TS_SAMPLE"
	# the index fills from the first arrivals after the change
	busywait 5000 two_samples || ktap_info "no two-samples CNM within 5 s"
	cnm_phase "$TMP" two 4 h1 h2
	J=$(qdisc_json sw sw-pr)

	o1=$(cnms_from "$TMP/occ.h1" "$PR_MAC"); o2=$(cnms_from "$TMP/occ.h2" "$PR_MAC")
	t1=$(cnms_from "$TMP/two.h1" "$PR_MAC"); t2=$(cnms_from "$TMP/two.h2" "$PR_MAC")
	x1cnm=$(grep -c '^cnm ' "$TMP/two.h1")
	ktap_info "sw-pr CNMs, occupancy: h1 $o1 h2 $o2; two-samples: h1 $t1 h2 $t2; all CNMs at h1 $x1cnm"
	ktap_info "sw-pr backlog $(printf '%s' "$J" | jq '.[0].backlog'), x1 backlog $(qdisc_json sw x1 | jq '.[0].backlog')"
	ktap_bound --timing occ_h1_cnms "$o1" '>' 10 "occupancy phase: CNMs for h1's flow"
	ktap_bound --timing occ_h2_cnms "$o2" '>' 10 "occupancy phase: CNMs for h2's flow"
	# both need sw-pr congested, which the senders' 80 Mbit/s do not reach
	# under the debug kernel beside a busy CPU (a SKIP there, as the rates)
	ktap_bound --timing two_samples_cnms "$(printf '%s' "$J" | jq '.[0].cnm_two_samples')" '>' 10 \
		"two-samples phase: CNMs counted as two-samples"
	ktap_rate_check "sw-pr's CNMs reach h1 across two bridges, x1's across one" test "$t1" -gt 0 -a "$x1cnm" -gt "$t1"
	# h1's share of sw-pr's CNMs grows by more than 0.08 (x100 integer math)
	ktap_bound --timing h1_share_gain_pct "$(share_gain_pct "$o1" "$o2" "$t1" "$t2")" '>' 8 \
		"two-samples favours the flow with the higher path-congestion index"
	ktap_check "no CNM failures at sw-pr" test "$(printf '%s' "$J" | jq '.[0].cnm_fail')" -eq 0
}

ALL_TESTS="share"
tests_plan kernel_log
qcn_dmesg_mark
tb_init
TMP=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$TMP"' EXIT

tb_ns sw && tb_ns h1 && tb_ns h2 && tb_ns r || ktap_skip_all "cannot create namespaces"
tb_bridge sw br0
tb_bridge sw br1
tb_veth sw x1 sw x0
tb_port sw br1 x1
tb_port sw br0 x0
for i in 1 2; do
	tb_veth "h$i" eth0 sw "sw-p$i"
	ip -n "$TB-h$i" link set eth0 address "02:00:00:00:00:0$i"
	ip -n "$TB-h$i" addr add "$QCN_NET.$i/24" dev eth0
done
tb_port sw br1 sw-p1
tb_port sw br0 sw-p2
tb_veth r eth0 sw sw-pr
ip -n "$TB-r" link set eth0 address 02:00:00:00:00:64
ip -n "$TB-r" addr add "$QCN_NET.100/24" dev eth0
tb_port sw br0 sw-pr
PR_MAC=$(ip -n "$TB-sw" -br link show dev sw-pr | awk '{print $3}')

nsx sw tc qdisc add dev x1 root handle 1: qcn limit 60000 rate 8mbit
nsx sw tc qdisc add dev sw-pr root handle 1: qcn limit 600000 rate 25mbit \
	sample occupancy
udp_servers r 5201 5202
# the flows outlast both phases however slow the testbed (the cleanup
# stops them); the phases start once both queues have built up
udp_flow h1 40mbit 60 5201 1200
udp_flow h2 40mbit 60 5202 1200
busywait 15000 congested || ktap_info "sw-pr sent no CNM or x1 queued nothing within 15 s"

tests_run
kernel_log
ktap_finished
