#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF-QCN configuration: classes and options, bad input rejected with a
# message and nothing changed, class add/change/delete while traffic
# flows, qdisc delete under traffic, statistics per class (a GSO skb
# counted as the frames it is queued as).
source "$(dirname "$0")/lib_af.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_dmesg_mark
tb_init

opts() { nsx sw tc -j qdisc show dev sw-pr | jq -c '.[0].options'; }
test_checks setup 2
setup()
{
	af_testbed 2 $AF_ON
	ktap_check "qcn with af on" test $? -eq 0
	before=$(opts)
	ktap_check "options dumped: af on, alpha 0.25, ts 10ms, beta 0.125, active 2kb (2048 B)" \
		bash -c "echo '$before' | jq -e '.af == \"on\" and .alpha == 0.25 and .beta == 0.125 and .ts == 10000 and .active == 2048' >/dev/null"
}

# rejected: non-zero exit, a message, options and classes unchanged
state="nsx sw tc -j qdisc show dev sw-pr | jq -c '.[0].options'; nsx sw tc class show dev sw-pr"
reject() { local what=$1; shift; ktap_rejected "$what" "$state" "$@"; }
q="nsx sw tc qdisc change dev sw-pr root handle 1: qcn"
test_checks bad_options 13
bad_options()
{
	reject "alpha 0" $q alpha 0
	reject "alpha 1" $q alpha 1
	reject "beta 0" $q beta 0
	reject "beta 1.5" $q beta 1.5
	reject "ts 0" $q ts 0
	# the kernel's floor and ceiling (Ts bounds the water-filling's cost)
	reject "ts 999us (below the 1 ms floor)" $q ts 999us
	reject "ts 2s (above 1 s)" $q ts 2s
	reject "af maybe" $q af maybe
	reject "weight 0" nsx sw tc class add dev sw-pr parent 1: classid 1:9 qcn weight 0
	reject "weight 70000" nsx sw tc class add dev sw-pr parent 1: classid 1:9 qcn weight 70000
	reject "class under a class" nsx sw tc class add dev sw-pr parent 1:1 classid 1:9 qcn weight 1
	ktap_check "no class was created by the rejected commands" \
		test "$(nsx sw tc class show dev sw-pr | grep -c '^class qcn')" -eq 0
	ktap_check "ts 1ms (the floor) is accepted" $q ts 1ms
	$q ts 10ms
}

# a class counts the frames of a GSO skb, as the port queues them: UDP GSO
# bursts of 10 datagrams of 1000 B (1042 B frames), too few to congest the
# port (no CNM splits them at the sender)
test_checks gso 3
gso()
{
	local b0 p0 g0 b p avg
	# "BYTES PACKETS" of class 1:5, from its " Sent B bytes P pkt" line
	cls() { nsx sw tc -s class show dev sw-pr | awk '/^class / { c = ($3 == "1:5") }
		c && $1 == "Sent" { print $2, $4 }'; }
	gsos() { qdisc_json sw sw-pr | jq -r '.[0].gso_split'; }
	nsx sw tc class add dev sw-pr parent 1: classid 1:5 qcn weight 1 &&
	nsx sw tc filter add dev sw-pr parent 1: protocol ip prio 2 u32 \
		match ip protocol 17 0xff match ip dport 9500 0xffff flowid 1:5
	ktap_check "class 1:5 for UDP port 9500" test $? -eq 0
	read -r b0 p0 < <(cls)
	g0=$(gsos)
	nsbg h1 "$AF_SEND" -d "$QCN_NET.100" -p 9500 -s 1000 -k 10 -g -r 5mbit -t 2 > /dev/null
	wait "$TB_LAST_PID"
	bursts() { [ $(($(gsos) - g0)) -ge 20 ]; }
	busywait 5000 bursts
	ktap_check "the port takes GSO skbs (gso_split +$(($(gsos) - g0)))" bursts
	read -r b p < <(cls)
	b=$((b - b0)) p=$((p - p0))
	avg=$(awk -v b="$b" -v p="$p" 'BEGIN { printf "%d", p ? b / p : 0 }')
	ktap_check "class 1:5 counts frames: $b bytes in $p packets, $avg B each" \
		test "$avg" -ge 1000 -a "$avg" -le 1100
	nsx sw tc filter del dev sw-pr parent 1: prio 2
	nsx sw tc class del dev sw-pr parent 1: classid 1:5
}

# classes under traffic; then, with them, churn and teardown
test_checks traffic 12
traffic()
{
	af_class 1 2 && af_class 2 1
	ktap_check "classes 1:1 (weight 2) and 1:2 (weight 1) with filters" test $? -eq 0
	af_blast 1 25
	af_blast 2 25
	counting() { [ "$(af_class_x 1:1 bytes)" -gt 100000 ]; }
	busywait 15000 counting
	ktap_check "class 1:1 counts bytes" test "$(af_class_x 1:1 bytes)" -gt 100000
	rate=$(af_class_x 1:1 rate_est)
	ktap_check "class 1:1 has a rate estimate ($rate)" test -n "$rate" -a "$rate" != 0bit
	ktap_check "class 1:1 shows weight 2" test "$(af_class_x 1:1 weight)" -eq 2
	# AF-QCN's CNMs for samples with Fb >= 0 are not signed feedback's
	cnms=$(qdisc_json sw sw-pr | jq ".[0] | $QCN_JQ_CNMS")
	pos=$(qdisc_json sw sw-pr | jq '.[0].cnm_positive')
	ktap_check "af on, feedback qcn: $cnms CNMs sent, cnm_positive ($pos) counts none" \
		test "$cnms" -gt 0 -a "$pos" = 0
	reject "delete a class filters point to" \
		nsx sw tc class del dev sw-pr parent 1: classid 1:1

	# churn while traffic flows: add / change / delete classes, toggle af
	ok=1
	for k in $(seq 1 20); do
		nsx sw tc class add dev sw-pr parent 1: classid 1:$((10 + k)) qcn weight $k || ok=0
		nsx sw tc class change dev sw-pr parent 1: classid 1:1 qcn weight $((1 + k % 4)) maxrate $((k))mbit || ok=0
		[ $((k % 5)) -eq 0 ] && { nsx sw tc qdisc change dev sw-pr root handle 1: qcn af off || ok=0; }
		[ $((k % 5)) -eq 1 ] && { nsx sw tc qdisc change dev sw-pr root handle 1: qcn af on ts 5ms || ok=0; }
		nsx sw tc class del dev sw-pr parent 1: classid 1:$((10 + k)) || ok=0
	done
	ktap_check "20 rounds of class add/change/delete and af on/off under traffic" test $ok -eq 1
	ktap_check "class 1:1 kept its last change (weight 1, maxrate 20mbit)" \
		test "$(af_class_x 1:1 weight)/$(af_class_x 1:1 maxrate)" = "1/20Mbit"
	nsx sw tc filter del dev sw-pr parent 1: prio 1
	ktap_check "a class is deleted once its filters are gone" \
		nsx sw tc class del dev sw-pr parent 1: classid 1:2
	ktap_check "qdisc delete with classes, filters and traffic" nsx sw tc qdisc del dev sw-pr root
	tb_cleanup
	ktap_check "sch_qcn unloads afterwards" qcn_unload sch_qcn
	ktap_check "sch_qcn loads again" qcn_load_module sch_qcn
}

ALL_TESTS="bad_options gso traffic"
tests_plan setup kernel_log
setup
tests_run
kernel_log
ktap_finished
