#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Grafting under load: a qcn root with a standing queue, keep-alive
# sampling every 100 us and AF-QCN updating every 1 ms is replaced by
# pfifo and put back, again and again (40 times, or for 90 s).  The
# replaced qdisc is reset and destroyed while its timers may fire (6.1
# resets it without the root lock, and its timers then take the new
# root's lock); every graft must succeed, the last qcn must work, and the
# kernel (lockdep, KASAN in the debug UML kernel) must report nothing.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd iperf3 jq
qcn_require_modules sch_qcn

QCN="limit 200000 rate 2mbit sample occupancy keepalive 100us af on ts 1ms"
st() { qdisc_json sw sw-pr | jq -r ".[0].$1"; }
standing() { [ "$(st qlen)" -gt 10 ]; }
sampled() { [ "$(st keepalive_samples)" -gt 0 ]; }

test_checks grafts 3
grafts()
{
	# up to 40 rounds in at most 90 s (a debug kernel takes seconds a round)
	bad=0 n=0 full=0 end=$((SECONDS + 90))
	while [ $n -lt 40 ] && [ $SECONDS -lt $end ]; do
		nsx sw tc qdisc replace dev sw-pr root handle 2: pfifo limit 100 || bad=$((bad + 1))
		# shellcheck disable=SC2086
		nsx sw tc qdisc replace dev sw-pr root handle 1: qcn $QCN || bad=$((bad + 1))
		# the new qcn fills before it is replaced in turn
		busywait 5000 standing > /dev/null && full=$((full + 1))
		n=$((n + 1))
	done
	ktap_info "$n rounds, a standing queue in $full"
	ktap_check "$n grafts qcn -> pfifo -> qcn under load, $full with a standing queue" \
		test "$bad" -eq 0 -a "$n" -ge 5 -a "$full" -eq "$n"
	ktap_check "the last qcn takes keep-alive samples" busywait 5000 sampled
	ktap_check "it sends CNMs" test "$(qcn_cnms_sent sw sw-pr)" -gt 0
}

ALL_TESTS="grafts"
tests_plan kernel_log
qcn_dmesg_mark
tb_init
tb_star 2 || ktap_skip_all "cannot build the testbed"
udp_servers r 5201 5202
# shellcheck disable=SC2086
nsx sw tc qdisc add dev sw-pr root handle 1: qcn $QCN
# two UDP senders keep a standing queue (their send buffers stay charged)
udp_flow h1 20mbit 250 5201 1200
udp_flow h2 10mbit 250 5202 1200
busywait 10000 standing > /dev/null

tests_run
kernel_log
ktap_finished
