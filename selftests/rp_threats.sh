#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcn_rp against forged CNMs (threat: any host on the L2 segment can send
# frames with EtherType 0x22E7): broadcast and multicast CNMs naming a
# live flow, unicast CNMs for flows the host never sent, CNMs from a
# spoofed CP MAC, a CNM with qFb 0, and a flood of CNMs.  Nothing may
# install a limiter, everything is counted, and an unthrottled flow keeps
# its rate.  qcn_rp refuses a device whose frames carry no MAC addresses.
source "$(dirname "$0")/lib_af.sh"
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
# cnm DST QFB SPORT [cnm_send options]: a CNM from b, sent to DST, for the
# flow a:SPORT -> b:9000
cnm() { nsx b "$CNM" -i eth0 -d "$1" -s $B -q "$2" -e $B \
	-u "$QCN_NET.1:$3,$QCN_NET.100:9000" "${@:4}" > /dev/null; }
xs() { nsx a tc -s -j qdisc show dev eth0 | jq -r ".[0].$1"; }
send() { nsbg a "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9000 -s 1400 "$@" > /dev/null; }

nsx a tc qdisc add dev eth0 root qcn_rp max-rate 50mbit time-reset 10s jitter off
send -b 5000 -r 20000000 -t 30
# learned N: qcn_rp tracks N flows
learned() { [ "$(xs flows)" -ge "$1" ]; }
busywait 10000 learned 1

# ------------------------- group-addressed CNMs, and qFb 0
# (tc -s shows the counts of both)
test_checks group_qfb0 3
group_qfb0()
{
	cnm ff:ff:ff:ff:ff:ff 63 5000
	cnm 01:80:c2:00:00:01 63 5000
	cnm 33:33:00:00:00:01 63 5000
	ktap_check "broadcast and multicast CNMs for a live flow: counted not_host, no limiter" \
		test "$(xs cnm_not_host)/$(xs cnm_matched)/$(xs limiters_created)" = "3/0/0"

	# qFb 0: no congestion
	cnm $A 0 5000
	ktap_check "a CNM with qFb 0 for a live flow is counted and ignored" \
		test "$(xs cnm_qfb0)/$(xs cnm_matched)/$(xs limiters_created)" = "1/0/0"
	ktap_check "tc -s shows the counters" \
		bash -c "ip netns exec $TB-a tc -s qdisc show dev eth0 | grep -q 'cnm not_host 3 qfb0 1'"
}

# ------------------------------------- forged unicast CNMs
test_checks forged 2
forged()
{
	cnm $A 63 6000 -k 50
	ktap_check "50 unicast CNMs for flows never sent: unmatched, no limiter" \
		test "$(xs cnm_unmatched)/$(xs limiters_created)" = "50/0"
	# a spoofed CP: the victim's own MAC, and a MAC nobody has, as source
	nsx b "$CNM" -i eth0 -d $A -s $A -q 63 -e $B -u "$QCN_NET.1:6100,$QCN_NET.100:9000" > /dev/null
	nsx b "$CNM" -i eth0 -d $A -s 02:de:ad:be:ef:00 -q 63 -e $B -u "$QCN_NET.1:6101,$QCN_NET.100:9000" > /dev/null
	ktap_check "CNMs from a spoofed CP MAC for flows never sent: unmatched, no limiter" \
		test "$(xs cnm_unmatched)/$(xs limiters_created)" = "52/0"
}

# ------------------------- a flood of forged CNMs beside a live flow
# 100000 CNMs (1000 flows never sent x 100, and broadcast ones naming the
# live flow) while a:5001 sends 10 Mbit/s unthrottled: it must arrive
# whole, no limiter, every CNM counted.
test_checks flood 4
flood()
{
	nsbg b "$SINK" 9001 100 12 > "$tmp/sink"
	sink=$TB_LAST_PID
	nsbg a "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9001 -b 5001 \
		-s 1400 -r 10000000 -t 8 > "$tmp/sent"
	snd=$TB_LAST_PID
	busywait 10000 learned 2
	rx0=$(xs cnm_rx)
	t0=$(date +%s%N)
	cnm $A 63 7000 -k 1000 -n 90
	cnm ff:ff:ff:ff:ff:ff 63 5001 -n 10000
	t1=$(date +%s%N)
	rx1=$(xs cnm_rx)
	ms=$(( (t1 - t0) / 1000000 ))
	# (the rate includes starting two cnm_send processes in the namespace)
	ktap_info "100000 CNMs in $ms ms ($(( 100000 * 1000 / (ms > 0 ? ms : 1) )) per s), cnm_rx $rx0 -> $rx1"
	ktap_check "every CNM of the flood counted ($((rx1 - rx0)))" test $((rx1 - rx0)) -eq 100000
	ktap_check "the flood installed nothing (limiters $(xs limiters_created), active $(xs limiters_active))" \
		test "$(xs limiters_created)/$(xs limiters_active)" = "0/0"
	wait $snd
	wait $sink
	sent=$(sed -n 's/sent=\([0-9]*\).*/\1/p' "$tmp/sent")
	got=$(awk 'END { print $4 }' "$tmp/sink")
	# (UML has one CPU: the flood's frames take CPU time from the sender and
	# share the receive backlog with its datagrams, so its rate and loss at
	# the receiver are not the qdisc's to keep: qcn_rp must drop none)
	ktap_info "the unthrottled flow: $got of $sent datagrams arrived"
	ktap_check "qcn_rp dropped nothing of the unthrottled flow ($(xs drops))" \
		test "$(xs drops)" = 0 -a "$sent" -gt 1000
	ktap_check "no limiter ever throttled a packet ($(xs throttled))" test "$(xs throttled)" = 0
}

# ------------------------------------------------ non-Ethernet devices
# a CNM names flows by MAC address: on lo (no link-layer header) the
# frames' first bytes would be read as addresses
test_checks non_ethernet 1
non_ethernet()
{
	ktap_rejected "qcn_rp on a non-Ethernet device (lo)" "nsx a tc qdisc show dev lo" \
		nsx a tc qdisc add dev lo root qcn_rp
}

ALL_TESTS="group_qfb0 forged flood non_ethernet"
tests_plan kernel_log
tests_run
rm -rf "$tmp"
kernel_log
ktap_finished
