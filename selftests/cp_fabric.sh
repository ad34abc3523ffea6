#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# two-samples with a path-congestion index shared across namespaces
# (qcn option fabric).  Two switches, each its own namespace, in a chain:
#
#	h1 -+                             +- sw2-r1 (60 KB, 8 Mbit/s) --- r1
#	h2 -+- [sw1] - sw1-up (CP) --- [sw2]
#	                                  +- sw2-r2 ---------------------- r2
#
# h1 -> r1 and h2 -> r2 share sw1-up (25 Mbit/s, its backlog held below
# half its limit by memory_limit), where the two-samples decision is taken;
# only h1's flow crosses the congested buffer, sw2-r1 (full), in the other
# namespace.  With both qdiscs in one fabric, h1's index (sw2-r1's fill)
# exceeds h2's (sw1-up's), and at sw1-up two-samples sends h1 a larger
# share of the CNMs than occupancy sampling does in the same run.  With
# per-namespace indexes (CP_FABRIC_ID=0: the broken case) both flows'
# indexes are sw1-up's own fill, neither says more than the other, and
# h1's share does not grow.
# Then: the fabric changed under traffic, joining one refused outside the
# initial user namespace, every member deleted.
source "$(dirname "$0")/lib.sh"
FAB=${CP_FABRIC_ID-9}
qcn_require_root
qcn_require_cmd iperf3 jq
qcn_require_modules sch_qcn
qcn_require_built selftests/cnm_dump	# cnm_phase

# sent_more N: sw1-up sent N packets more since mark_sent
mark_sent() { p0=$(qdisc_json sw1 sw1-up | jq '.[0].packets'); }
sent_more() { [ "$(qdisc_json sw1 sw1-up | jq '.[0].packets')" -ge $((p0 + $1)) ]; }
two_samples() { [ "$(qdisc_json sw1 sw1-up | jq '.[0].cnm_two_samples')" -gt 0 ]; }

test_checks share 5
share()
{
	cnm_phase "$TMP" occ 4 h1 h2
	nsx sw1 tc qdisc change dev sw1-up root qcn sample two-samples
	# the index fills from the first arrivals after the change
	busywait 5000 two_samples || ktap_info "no two-samples CNM within 5 s"
	cnm_phase "$TMP" two 4 h1 h2
	J=$(qdisc_json sw1 sw1-up)

	o1=$(cnms_from "$TMP/occ.h1" "$UP_MAC"); o2=$(cnms_from "$TMP/occ.h2" "$UP_MAC")
	t1=$(cnms_from "$TMP/two.h1" "$UP_MAC"); t2=$(cnms_from "$TMP/two.h2" "$UP_MAC")
	ktap_info "sw1-up CNMs, occupancy: h1 $o1 h2 $o2; two-samples: h1 $t1 h2 $t2"
	ktap_info "sw1-up backlog $(printf '%s' "$J" | jq '.[0].backlog') of 600000, sw2-r1 backlog $(qdisc_json sw2 sw2-r1 | jq '.[0].backlog') of 60000"
	ktap_bound --timing occ_h1_cnms "$o1" '>' 10 "occupancy phase: sw1-up's CNMs for h1's flow"
	ktap_bound --timing occ_h2_cnms "$o2" '>' 10 "occupancy phase: sw1-up's CNMs for h2's flow"
	ktap_bound two_samples_cnms "$(printf '%s' "$J" | jq '.[0].cnm_two_samples')" '>' 10 \
		"two-samples phase: CNMs counted as two-samples"
	# h1 wins every draw pair but two of h2's: its share grows by about a
	# quarter; with per-namespace indexes it does not (--timing: in an
	# emulated guest the queue's dynamics make the gain smaller)
	ktap_bound --timing h1_share_gain_pct "$(share_gain_pct "$o1" "$o2" "$t1" "$t2")" '>' 10 \
		"two-samples at sw1 reads sw2's buffer: h1's share of the CNMs grows"
	ktap_check "no CNM failures at sw1-up" test "$(printf '%s' "$J" | jq '.[0].cnm_fail')" -eq 0
}

# the fabric changes under traffic: tables joined, left, created, freed
test_checks changes 1
changes()
{
	bad=0
	for change in "fabric 0" "fabric 11" "fabric $FAB" "sample occupancy fabric 12" \
		      "sample two-samples" "fabric 0 sample arrival" "fabric 11 sample two-samples"; do
		# shellcheck disable=SC2086
		nsx sw1 tc qdisc change dev sw1-up root qcn $change || bad=$((bad + 1))
		# shellcheck disable=SC2086
		nsx sw2 tc qdisc change dev sw2-r1 root qcn ${change%% sample*} || bad=$((bad + 1))
		# traffic through the new tables before the next change
		mark_sent
		busywait 5000 sent_more 20 || bad=$((bad + 1))
	done
	f1=$(qdisc_json sw1 sw1-up | jq '.[0].options.fabric')
	f2=$(qdisc_json sw2 sw2-r1 | jq '.[0].options.fabric')
	ktap_check "the fabric changes under traffic ($bad failed), both qdiscs show fabric 11 ($f1, $f2)" \
		test "$bad" -eq 0 -a "$f1" = 11 -a "$f2" = 11
}

# a fabric shares state across namespaces: a user namespace's root may
# not join one, and keeps its own index
test_checks userns 2
userns()
{
	if unshare -U -r -n true 2>/dev/null; then
		out=$(unshare -U -r -n tc qdisc add dev lo root qcn fabric 3 2>&1)
		rc=$?
		ktap_info "in a user namespace: $out"
		ktap_check "joining a fabric outside the initial user namespace is refused" \
			test "$rc" -ne 0 -a -n "$(printf '%s' "$out" | grep 'CAP_NET_ADMIN')"
		ktap_check "a user namespace's root adds qcn fabric 0" \
			unshare -U -r -n tc qdisc add dev lo root qcn fabric 0 sample two-samples
	else
		ktap_test_skip "joining a fabric outside the initial user namespace is refused" "no user namespaces"
		ktap_test_skip "a user namespace's root adds qcn fabric 0" "no user namespaces"
	fi
}

# the last members leave under traffic: the table is freed
test_checks teardown 1
teardown()
{
	ktap_check "every member of the fabric deleted" \
		eval 'nsx sw1 tc qdisc del dev sw1-up root && nsx sw2 tc qdisc del dev sw2-r1 root'
}

ALL_TESTS="share changes userns teardown"
tests_plan kernel_log
qcn_dmesg_mark
tb_init
TMP=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$TMP"' EXIT

{ tb_switch sw1 && tb_switch sw2; } || ktap_skip_all "cannot create namespaces"
tb_host h1 1 sw1 sw1-h1 && tb_host h2 2 sw1 sw1-h2 &&
	tb_host r1 100 sw2 sw2-r1 && tb_host r2 102 sw2 sw2-r2 &&
	tb_link sw1 sw1-up sw2 sw2-dn || ktap_skip_all "cannot build the testbed"
# the switches send nothing of their own (no culprits without a source)
for s in sw1 sw2; do
	nsx "$s" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
tb_learn h1:100 h2:102
UP_MAC=$(tb_mac_of sw1 sw1-up)
ktap_info "fabric $FAB (0: per-namespace indexes)"

nsx sw2 tc qdisc add dev sw2-r1 root handle 1: qcn limit 60000 rate 8mbit fabric "$FAB"
nsx sw1 tc qdisc add dev sw1-up root handle 1: qcn limit 600000 memory_limit 300000 \
	rate 25mbit sample occupancy fabric "$FAB"
udp_servers r1 5201
udp_servers r2 5202
# the flows outlast every phase (the cleanup stops them)
udp_flow h1 40mbit 600 5201 1200 100
udp_flow h2 40mbit 600 5202 1200 102
congested()
{
	[ "$(qcn_cnms_sent sw1 sw1-up)" -gt 0 ] &&
		[ "$(qdisc_json sw2 sw2-r1 | jq '.[0].backlog')" -gt 30000 ]
}
busywait 15000 congested || ktap_info "sw1-up sent no CNM or sw2-r1 did not fill within 15 s"

tests_run
kernel_log
ktap_finished
