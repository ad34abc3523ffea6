#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CNMs reach qcn_rp on the physical device under a VLAN or a bond.  A CP
# tags a CNM with its culprit's VID: a host whose flow leaves through
# eth0.10 gets the CNM on eth0.10, while qcn_rp sits on eth0, whose qdisc
# the flow passes; a host without a device for that VID still takes a CNM
# sent to its MAC.  A tagged CNM for another MAC stays not-for-host.  A
# CNM received by a bond's slave is delivered on the bond and reaches
# qcn_rp on the slave.
#
#   a eth0 (qcn_rp) [eth0.10] ---- veth ---- b eth0, eth0.10 (sends CNMs)
#   a bond0 [eth1 (qcn_rp)]   ---- veth ---- b eth1 (sends CNMs)
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
CNM=$QCN_TOP/selftests/cnm_send
SEND=$QCN_TOP/selftests/udp_send
qcn_require_built "$CNM" "$SEND"
qcn_dmesg_mark
tb_init

N10=198.18.10
N20=198.18.20
tb_rp_pair || ktap_skip_all "cannot build the testbed"
A=$RP_A
B=$RP_B
nsx b ip link add link eth0 name eth0.10 type vlan id 10 &&
nsx b ip link set eth0.10 up &&
nsx b ip addr add $N10.100/24 dev eth0.10 ||
	ktap_skip_all "cannot add a VLAN device (CONFIG_VLAN_8021Q)"

# cnm DEV SADDR SPORT DADDR [DST [CULPRIT_DST]]: a CNM from b's DEV for a's
# UDP flow, to DST (a's eth0) naming a frame sent to CULPRIT_DST (b's eth0)
cnm()
{
	nsx b "$CNM" -i "$1" -d "${5:-$A}" -s "${6:-$B}" -q 40 -e "${6:-$B}" \
		-u "$2:$3,$4:9000" > /dev/null
}
RPDEV=eth0	# a's device with qcn_rp that xs reads
xs() { nsx a tc -s -j qdisc show dev $RPDEV | jq -r ".[0].$1 // 0"; }
# start DADDR SPORT: a UDP flow from a, once the qdisc has sent its frames
sending() { [ "$(xs packets)" -ge $((start_count + 10)) ]; }
start()
{
	start_count=$(xs packets)
	nsbg a "$SEND" -d "$1" -p 9000 -b "$2" -s 1000 -r 5000000 -t 20 > /dev/null
	busywait 5000 sending > /dev/null
}
counts() { echo "$(xs cnm_rx)/$(xs cnm_matched)/$(xs limiters_created)/$(xs cnm_not_host)"; }

test_checks setup 1
setup()
{
	# counters out of reach: the limiters stay while the test looks
	nsx a tc qdisc add dev eth0 root qcn_rp maxrate 50mbit time-reset 10s byte-reset 1gb
	ktap_check "qcn_rp on a's eth0" test $? -eq 0
}

# ---------------- a VID the host has no device for, then a VLAN device
# The second section's counts go on from the first's, and a's eth0.10
# would change what the first tests: one function.
test_checks vlan 6
vlan()
{
	# a sends untagged; the CNM comes tagged VID 10 to a's MAC: the stack
	# marks it for another host (no eth0.10 on a) and strips the tag
	start "$QCN_NET.100" 5000
	cnm eth0.10 "$QCN_NET.1" 5000 "$QCN_NET.100"
	ktap_check "a CNM tagged with a VID a has no device for is taken (rx/matched/created/not_host $(counts))" \
		test "$(counts)" = "1/1/1/0"
	cnm eth0.10 "$QCN_NET.1" 5000 "$QCN_NET.100" 02:00:00:00:00:99
	ktap_check "a tagged CNM for another MAC is not for the host ($(counts))" \
		test "$(counts)" = "2/1/1/1"

	# the flow leaves through a VLAN device
	nsx a ip link add link eth0 name eth0.10 type vlan id 10 &&
	nsx a ip link set eth0.10 up &&
	nsx a ip addr add $N10.1/24 dev eth0.10 &&
	nsx a ip neigh add $N10.100 lladdr $B dev eth0.10
	ktap_check "a VLAN device on a's eth0" test $? -eq 0
	start $N10.100 5010
	ktap_check "eth0's qcn_rp sees the tagged flow's frames" test "$(xs packets)" -gt "$start_count"
	cnm eth0.10 $N10.1 5010 $N10.100
	ktap_check "a CNM delivered on eth0.10 reaches qcn_rp on eth0 ($(counts))" \
		test "$(counts)" = "3/2/2/1"
	ktap_check "the tagged flow's limiter is installed" \
		bash -c "ip netns exec $TB-a tc -s class show dev eth0 | grep -q 'flow $N10.1:5010>$N10.100:9000/17'"
}

# ----------------------------------- the flow leaves through a bond's slave
test_checks bond 4
bond()
{
	B1=02:00:00:00:01:64
	tb_veth a eth1 b eth1 &&
	nsx b ip link set eth1 address $B1 &&
	nsx b ip addr add $N20.100/24 dev eth1
	ktap_check "a second veth pair" test $? -eq 0
	if nsx a ip link add bond0 type bond mode active-backup 2> /dev/null; then
		nsx a ip link set eth1 down &&
		nsx a ip link set eth1 master bond0 &&
		nsx a ip link set bond0 up &&
		nsx a ip addr add $N20.1/24 dev bond0 &&
		nsx a ip neigh add $N20.100 lladdr $B1 dev bond0 &&
		nsx a tc qdisc add dev eth1 root qcn_rp maxrate 50mbit time-reset 10s byte-reset 1gb
		ktap_check "a bond0 with slave eth1, qcn_rp on eth1" test $? -eq 0
		RPDEV=eth1
		start $N20.100 5020
		ktap_check "eth1's qcn_rp sees the bond's frames" test "$(xs packets)" -gt "$start_count"
		cnm eth1 $N20.1 5020 $N20.100 "$(tb_mac_of a bond0)" $B1
		ktap_check "a CNM delivered on bond0 reaches qcn_rp on its slave eth1 ($(counts))" \
			test "$(counts)" = "1/1/1/0"
	else
		for c in "a bond0 with slave eth1, qcn_rp on eth1" \
			 "eth1's qcn_rp sees the bond's frames" \
			 "a CNM delivered on bond0 reaches qcn_rp on its slave eth1"; do
			ktap_test_skip "$c" "no bonding driver (CONFIG_BONDING)"
		done
	fi
}

ALL_TESTS="vlan bond"
tests_plan setup kernel_log
setup
tests_run
kernel_log
ktap_finished
