#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# two-samples at an input CP (cp input) with the path-congestion index of
# the next switch's buffer (qcn option fabric).  h1 sends two flows into
# sw1; only f1 crosses the congested buffer, sw2-r1, in the other
# namespace:
#
#	h1 (f1, f2) --- sw1-h1 (cp input) -[sw1]- sw1-up (25 Mbit/s) --- sw2-dn -[sw2]-+- sw2-r1 (60 KB, 8 Mbit/s) --- r1
#	                                                                           +- sw2-r2 -------------------- r2
#
# f1 and f2 arrive at sw1-h1 at equal rates and hold equal shares of
# sw1-up's queue, h1's input.  With every qdisc in one fabric, f1's index
# (sw2-r1's fill) exceeds f2's (sw1-up's), and two-samples sends f1 a
# larger share of the input CP's CNMs than occupancy sampling does in the
# same run; with per-namespace indexes (CP_FABRIC_ID=0: the broken case)
# it does not.
source "$(dirname "$0")/lib.sh"
FAB=${CP_FABRIC_ID-7}
qcn_require_root
qcn_require_cmd iperf3 jq
qcn_require_modules sch_qcn
qcn_require_built selftests/cnm_dump selftests/udp_send

# to FILE IP: the CNMs in cnm_dump FILE from sw1-h1 whose culprit went to IP
to() { grep -c "^cnm src=$H1P_MAC .* idst=$2 " "$1"; }
xs() { qdisc_json sw1 sw1-h1 | jq -r ".[0].$1 // 0"; }
two_samples() { [ "$(xs in_cnm_two_samples)" -gt 0 ]; }

test_checks share 5
share()
{
	cnm_phase "$TMP" occ 4 h1
	nsx sw1 tc qdisc change dev sw1-h1 root qcn sample two-samples
	busywait 5000 two_samples || ktap_info "no two-samples CNM within 5 s"
	cnm_phase "$TMP" two 4 h1

	local o1 o2 t1 t2
	o1=$(to "$TMP/occ.h1" "$QCN_NET.101"); o2=$(to "$TMP/occ.h1" "$QCN_NET.102")
	t1=$(to "$TMP/two.h1" "$QCN_NET.101"); t2=$(to "$TMP/two.h1" "$QCN_NET.102")
	ktap_info "sw1-h1 CNMs, occupancy: f1 $o1 f2 $o2; two-samples: f1 $t1 f2 $t2"
	ktap_info "sw1-up backlog $(qdisc_json sw1 sw1-up | jq '.[0].backlog') of 600000, sw2-r1 backlog $(qdisc_json sw2 sw2-r1 | jq '.[0].backlog') of 60000"
	ktap_bound --timing occ_f1_cnms "$o1" '>' 10 "occupancy phase: sw1-h1's CNMs for f1"
	ktap_bound --timing occ_f2_cnms "$o2" '>' 10 "occupancy phase: sw1-h1's CNMs for f2"
	ktap_bound in_two_samples_cnms "$(xs in_cnm_two_samples)" '>' 10 \
		"two-samples phase: input CNMs counted as two-samples"
	# f1 wins every draw pair but two of f2's: its share grows from about
	# a half to three quarters; with per-namespace indexes it does not
	ktap_bound --timing f1_share_gain_pct "$(share_gain_pct "$o1" "$o2" "$t1" "$t2")" '>' 10 \
		"two-samples at sw1's input reads sw2's buffer: f1's share of the CNMs grows"
	ktap_check "no input CNM failures at sw1-h1" test "$(xs in_cnm_fail)" -eq 0
}

ALL_TESTS="share"
tests_plan kernel_log
qcn_dmesg_mark
tb_init
TMP=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$TMP"' EXIT

{ tb_switch sw1 && tb_switch sw2; } || ktap_skip_all "cannot create namespaces"
tb_host h1 1 sw1 sw1-h1 && tb_host r1 101 sw2 sw2-r1 && tb_host r2 102 sw2 sw2-r2 &&
	tb_link sw1 sw1-up sw2 sw2-dn || ktap_skip_all "cannot build the testbed"
# the switches send nothing of their own (no culprits without a source)
for s in sw1 sw2; do
	nsx "$s" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
tb_learn h1:101 h1:102
H1P_MAC=$(tb_mac_of sw1 sw1-h1)
ktap_info "fabric $FAB (0: per-namespace indexes)"

# sw1-up's backlog held below half its limit by memory_limit: f2's index
# stays below f1's, sw2-r1 full
nsx sw2 tc qdisc add dev sw2-r1 root qcn limit 60000 rate 8mbit cp none fabric "$FAB"
nsx sw1 tc qdisc add dev sw1-up root qcn limit 600000 memory_limit 300000 \
	rate 25mbit cp none fabric "$FAB"
nsx sw1 tc qdisc add dev sw1-h1 root qcn cp input sample occupancy fabric "$FAB"
udp_servers r1 5201
udp_servers r2 5202
# the flows outlast every phase (the cleanup stops them)
udp_flow h1 20mbit 600 5201 1200 101
udp_flow h1 20mbit 600 5202 1200 102
congested()
{
	[ "$(xs in_cnm_occupancy)" -gt 0 ] &&
		[ "$(qdisc_json sw2 sw2-r1 | jq '.[0].backlog')" -gt 30000 ]
}
busywait 15000 congested || ktap_info "sw1-h1 sent no CNM or sw2-r1 did not fill within 15 s"

tests_run
kernel_log
ktap_finished
