#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CNMs in the culprit's VLAN, across a VLAN-filtering bridge.  h1 sends on
# VID 10 through a trunk: its CNMs must come back tagged VID 10 with PCP 6
# (the CNM transmit priority) and be matched by qcn_rp on h1's eth0.10.  h2
# sits on an access port of VLAN 20: its CNMs must come back untagged,
# encapsulate priority 0 (an untagged frame's), and match h2's qcn_rp
# (`flow dst-mac`) though h2's frames leave with skb->priority 3.
source "$(dirname "$0")/lib.sh"
# the testbed:
#
#   h1 eth0.10 ---tagged 10--- sw-p1 \
#                                    br0 (vlan_filtering 1) -- sw-pr (qcn, 8 Mbit/s,
#   h2 eth0 ---untagged (PVID 20)- sw-p2 /            tagged 10 and 20) -- r eth0.10, eth0.20
#
# skb->priority is a local value, never on the wire: the switch resets it
# at its ports, as a wire between two hosts does (veth keeps it across
# namespaces).
qcn_require_root
qcn_require_cmd jq bridge
qcn_require_modules
DUMP="$QCN_TOP/selftests/cnm_dump"
SEND="$QCN_TOP/selftests/udp_send"
qcn_require_built "$DUMP" "$SEND"

H1=02:00:00:00:00:01
H2=02:00:00:00:00:02
R=02:00:00:00:00:64
N10=198.18.10
N20=198.18.20

setup()
{
	tb_ns sw && tb_ns h1 && tb_ns h2 && tb_ns r || return 1
	# no IPv6 (router solicitations, MLD): an untagged frame of h1's
	# eth0 crosses VLAN 1 into the CP's queue, and a CNM for it goes
	# back untagged, to no qcn_rp
	for n in sw h1 h2 r; do
		nsx $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 || return 1
	done
	ip -n "$TB-sw" link add br0 type bridge forward_delay 0 stp_state 0 \
		vlan_filtering 1 || return 1
	ip -n "$TB-sw" link set br0 up
	tb_veth h1 eth0 sw sw-p1 && tb_veth h2 eth0 sw sw-p2 &&
		tb_veth r eth0 sw sw-pr || return 1
	nsx h1 ip link set eth0 address $H1
	nsx h2 ip link set eth0 address $H2
	nsx r ip link set eth0 address $R
	for p in sw-p1 sw-p2 sw-pr; do
		tb_port sw br0 $p || return 1
		# a wire between hosts carries no skb->priority
		nsx sw tc qdisc add dev $p clsact &&
		nsx sw tc filter add dev $p ingress matchall action skbedit priority 0 ||
			return 1
	done
	nsx sw bridge vlan add dev sw-p1 vid 10 &&
	nsx sw bridge vlan del dev sw-p2 vid 1 &&
	nsx sw bridge vlan add dev sw-p2 vid 20 pvid untagged &&
	nsx sw bridge vlan add dev sw-pr vid 10 &&
	nsx sw bridge vlan add dev sw-pr vid 20 || return 1
	nsx h1 ip link add link eth0 name eth0.10 type vlan id 10 &&
	nsx h1 ip link set eth0.10 up &&
	nsx h1 ip addr add $N10.1/24 dev eth0.10 || return 1
	nsx h2 ip addr add $N20.2/24 dev eth0 || return 1
	for v in 10 20; do
		nsx r ip link add link eth0 name eth0.$v type vlan id $v &&
		nsx r ip link set eth0.$v up || return 1
	done
	nsx r ip addr add $N10.100/24 dev eth0.10 &&
	nsx r ip addr add $N20.100/24 dev eth0.20 || return 1
	# neighbours and FDB entries before the measurement
	nsx h1 "$SEND" -d $N10.100 -p 9 -c 3 -r 100000 >/dev/null &&
	nsx h2 "$SEND" -d $N20.100 -p 9 -c 3 -r 100000 >/dev/null &&
	nsx r "$SEND" -d $N10.1 -p 9 -c 1 >/dev/null &&
	nsx r "$SEND" -d $N20.2 -p 9 -c 1 >/dev/null
}
# the CP's and the RPs' qdiscs, for every selection
test_checks qdiscs 2
qdiscs()
{
	# 8 Mbit/s: the two senders (25 Mbit/s each offered) congest it even in
	# the slowest testbed (the debug UML kernel sends about 16 Mbit/s)
	nsx sw tc qdisc add dev sw-pr root handle 1: qcn limit 150000 rate 8mbit
	ktap_check "qcn on the trunk port of a VLAN-filtering bridge" test $? -eq 0
	nsx h1 tc qdisc add dev eth0.10 root qcn_rp max-rate 100mbit flow l4 &&
	nsx h2 tc qdisc add dev eth0 root qcn_rp max-rate 100mbit flow dst-mac
	ktap_check "qcn_rp on h1's eth0.10 (flow l4) and h2's eth0 (flow dst-mac)" test $? -eq 0
	# h2's frames leave with skb->priority 3
	nsx h2 tc qdisc add dev eth0 clsact &&
	nsx h2 tc filter add dev eth0 egress matchall action skbedit priority 3
}

rpx() { nsx "$1" tc -s -j qdisc show dev "$2" | jq -r ".[0].$3"; }
cpx() { nsx sw tc -s -j qdisc show dev sw-pr | jq -r ".[0] | $1"; }

test_checks vlan_cnms 9
vlan_cnms()
{
	# the captures outlast the 4 s flows by 5 s: a slow kernel starts the
	# senders late, and every CNM sent must be captured
	cnm_dump_bg h1 "$TMP/h1" -V -i eth0 -t 9
	d1=$TB_LAST_PID
	cnm_dump_bg h2 "$TMP/h2" -V -i eth0 -t 9
	d2=$TB_LAST_PID
	nsbg h1 "$SEND" -d $N10.100 -p 5201 -b 5001 -s 1200 -r 25000000 -t 4 >/dev/null
	nsbg h2 "$SEND" -d $N20.100 -p 5202 -b 5002 -s 1200 -r 25000000 -t 4 >/dev/null
	# h2's limiters while they live (one is released once its rate recovers)
	for i in $(seq 12); do
		sleep 0.3
		nsx h2 tc -s class show dev eth0 >>"$TMP/h2-classes"
	done
	wait "$d1" "$d2"

	sent=$(cpx "$QCN_JQ_CNMS")
	# CNMs addressed to the host (a CNM flooded in a wrong VLAN reaches others)
	n1=$(grep -c "^cnm src=[^ ]* dst=$H1 " "$TMP/h1")
	n2=$(grep -c "^cnm src=[^ ]* dst=$H2 " "$TMP/h2")
	ktap_info "CP: CNMs sent $sent, failed $(cpx .cnm_fail); captured h1 $n1, h2 $n2"
	ktap_info "h1 rp: rx $(rpx h1 eth0.10 cnm_rx) matched $(rpx h1 eth0.10 cnm_matched) unmatched $(rpx h1 eth0.10 cnm_unmatched)"
	ktap_info "h2 rp: rx $(rpx h2 eth0 cnm_rx) matched $(rpx h2 eth0 cnm_matched) unmatched $(rpx h2 eth0 cnm_unmatched)"
	ktap_info "first h1 CNM: $(grep -m1 '^cnm ' "$TMP/h1" | cut -c1-150)"
	ktap_info "first h2 CNM: $(grep -m1 '^cnm ' "$TMP/h2" | cut -c1-150)"

	ktap_check "the CP sends CNMs ($sent) and none fails" \
		test "$sent" -gt 0 -a "$(cpx .cnm_fail)" -eq 0
	ktap_check "CNMs reach h1 across the trunk ($n1)" test "$n1" -gt 0
	# every CNM on h1's wire: tagged VID 10, PCP 6, 802.1Q, for h1, prio 0
	ktap_check "h1's CNMs are tagged VID 10, PCP 6, encapsulated priority 0" \
		awk -v h="$H1" '/^cnm / { n++; if ($3 != "dst=" h || $4 != "vlan=10" ||
			$5 != "pcp=6" || $6 != "tpid=0x8100" || $0 !~ / prio=0 /) bad++ }
			END { exit !(n > 0 && !bad) }' "$TMP/h1"
	ktap_check "h1's qcn_rp matches them (cnm_matched $(rpx h1 eth0.10 cnm_matched) > 0)" \
		test "$(rpx h1 eth0.10 cnm_matched)" -gt 0
	ktap_check "CNMs reach h2 on its access port ($n2)" test "$n2" -gt 0
	ktap_check "h2's CNMs are untagged, encapsulated priority 0" \
		awk -v h="$H2" '/^cnm / { n++; if ($3 != "dst=" h || $4 != "vlan=none" ||
			$0 !~ / prio=0 /) bad++ } END { exit !(n > 0 && !bad) }' "$TMP/h2"
	ktap_check "h2's qcn_rp (dst-mac, skb->priority 3) matches them ($(rpx h2 eth0 cnm_matched) > 0)" \
		test "$(rpx h2 eth0 cnm_matched)" -gt 0
	# its limiters (seen while they lived, 12 looks) are keyed on priority 0
	seen=$(grep -o 'flow [^ ]*' "$TMP/h2-classes" | sort -u | tr '\n' ' ')
	ktap_check "h2 installed limiters ($(rpx h2 eth0 limiters_created)), none keyed on its skb->priority (${seen:-none seen})" \
		bash -c "test $(rpx h2 eth0 limiters_created) -gt 0 && ! grep -q 'flow $R/prio[1-7]' '$TMP/h2-classes'"
	ktap_check "every CNM sent was captured ($sent = $n1 + $n2)" test "$sent" -eq $((n1 + n2))
}

ALL_TESTS="vlan_cnms"
tests_plan qdiscs kernel_log
qcn_dmesg_mark
tb_init
TMP=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$TMP"' EXIT
setup || ktap_skip_all "cannot build the VLAN testbed"

qdiscs
tests_run
kernel_log
ktap_finished
