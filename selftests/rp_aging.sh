#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Limiters leave with their flows: a flow that stops while throttled gives
# its limiter back once it has been idle for 2 s (qcn_rp's flow age), in
# the qcn mode where R_AI = 0 keeps TR below maxrate and in n-aimd (no
# timer), so the `limiters` cap never fills with flows that left; a flow
# still sending keeps its limiter (n-aimd); ai-rate and hai-rate both 0
# are refused.
#
#   a (sender, qcn_rp on eth0) ---- veth ---- b (receiver, sends the CNMs)
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
CNM=$QCN_TOP/selftests/cnm_send
qcn_require_built "$CNM"
qcn_dmesg_mark
tb_init

tb_rp_pair
A=$RP_A
B=$RP_B
# cnm PORT ARGS...: CNMs for the UDP flow from a's PORT to b:9000
cnm() { local p=$1; shift; nsx b "$CNM" -i eth0 -d $A -s $B -e $B \
	-u "$QCN_NET.1:$p,$QCN_NET.100:9000" "$@" > /dev/null; }
xs() { nsx a tc -s -j qdisc show dev eth0 | jq -r ".[0].$1 // 0"; }
send() { nsbg a "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9000 -s 1400 "$@" > /dev/null; }
st="nsx a tc -j qdisc show dev eth0 | jq -c '.[0].options'"
# lims_is A/AGED: limiters active / aged
lims_is() { [ "$(xs limiters_active)/$(xs limiters_aged)" = "$1" ]; }
# sending: the qdisc has sent 10 more packets since start_count
sending() { [ "$(xs packets)" -ge $((start_count + 10)) ]; }
start() { start_count=$(xs packets); send "$@"; busywait 5000 sending > /dev/null; }

# -------------------------------------------------- settings refused
# (and the next section's qdisc)
# byte-reset 2mb, time-reset 10s: the next section's flow (20 Mbit/s)
# expires its byte counter every 0.8 s, and fast recovery takes its
# limiter back to maxrate (about 25 halvings of the gap) in about 12 s,
# long enough for a slow testbed to send the second CNM before that
test_checks qcn_aging 5
qcn_aging()
{
	nsx a tc qdisc add dev eth0 root qcn_rp maxrate 50mbit limiters 1 ai-rate 0 time-reset 10s byte-reset 2mb
	ktap_check "qcn_rp takes ai-rate 0 (hai-rate 50mbit)" test $? -eq 0
	ktap_rejected "hai-rate 0 with ai-rate 0 (never released)" "$st" \
		nsx a tc qdisc change dev eth0 root qcn_rp hai-rate 0

	# ------------------------------------------ qcn, R_AI = 0, flow stops
	# A second CNM after a byte counter expiry sets TR to the CR the first one
	# cut; with R_AI = 0 (and no hyper-active increase before the timer's 5th
	# stage, 50 s away) TR stays there: only aging releases the limiter, once
	# its flow stops.
	stage_ge1() { nsx a tc -s class show dev eth0 | grep -qE 'bc_stage [1-9]'; }
	tr_below_max() { nsx a tc -s class show dev eth0 | grep -qE ' tr [0-9]+Kbit '; }
	start -b 5000 -r 20000000 -t 30
	x=$TB_LAST_PID
	cnm 5000 -q 63
	busywait 20000 stage_ge1 > /dev/null
	cnm 5000 -q 63
	ktap_check "two CNMs install one limiter with TR below maxrate" \
		busywait 20000 tr_below_max
	kill "$x"
	ktap_check "the limiter of the stopped flow ages out (limiters active/aged 0/1)" \
		busywait 8000 lims_is 0/1
	start -b 5001 -r 20000000 -t 30
	y=$TB_LAST_PID
	c0=$(xs limiters_created)
	cnm 5001 -q 63
	# (created, not active: this flow's limiter ages out too once it stops)
	ktap_check "a new flow gets the freed limiter (created $c0 -> $(xs limiters_created), refused $(xs limiters_refused))" \
		test "$(xs limiters_created)/$(xs limiters_refused)" = "$((c0 + 1))/0"
	kill "$y"
}

# -------------------------------------------------- n-aimd, flow stops
test_checks naimd_aging 4
naimd_aging()
{
	nsx a tc qdisc del dev eth0 root 2> /dev/null
	nsx a tc qdisc add dev eth0 root qcn_rp maxrate 50mbit limiters 1 mode n-aimd
	start -b 5002 -r 20000000 -t 30
	x=$TB_LAST_PID
	# cnmQOffset 100 (a queue above Qeq): the rebuilt Fb is negative, a cut
	cnm 5002 -q 20 -o 100
	ktap_check "n-aimd: a CNM with Fb < 0 installs a limiter" busywait 20000 lims_is 1/0
	sleep 3
	ktap_check "n-aimd: the sending flow keeps it past the age" lims_is 1/0
	kill "$x"
	ktap_check "n-aimd: the limiter of the stopped flow ages out (limiters active/aged 0/1)" \
		busywait 8000 lims_is 0/1
	ktap_check "tc -s shows the aged count" \
		bash -c "ip netns exec $TB-a tc -s qdisc show dev eth0 | grep -q 'released 1 refused 0 aged 1'"
}

ALL_TESTS="qcn_aging naimd_aging"
tests_plan kernel_log
tests_run
kernel_log
ktap_finished
