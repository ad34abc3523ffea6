#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Closed loop, dumbbell: two UDP senders overload a 30 Mbit/s qcn port.
# With qcn_rp on the senders the CP queue settles around Qeq (not at the
# limit), tail drops stay near zero and goodput stays high; without qcn_rp
# (same testbed, same run) the queue sits at the limit.
source "$(dirname "$0")/lib_af.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
QS=$QCN_TOP/tools/qcnstat
qcn_require_built "$QS"
qcn_dmesg_mark
tb_init
tmp=$(mktemp -d)
# the RP scaled to a 30 Mbit/s port (the standard's values are for 10 Gb/s)
RP="maxrate 100mbit ai-rate 500kbit hai-rate 5mbit time-reset 60ms min-rate 500kbit"

tb_star 2
test_checks setup 1
setup()
{
	nsx sw tc qdisc add dev sw-pr root handle 1: qcn limit 150kb qeq 26kb rate 30mbit
	ktap_check "dumbbell: h1, h2 -> qcn 30mbit -> r" test $? -eq 0
}

# phase NAME: 14 s of two blasting senders; qcnstat samples the CP queue
# every 20 ms from 4 to 13 s (in-process polling: cheap enough not to
# starve the senders, and ~450 samples instead of a handful of tc calls)
phase()
{
	local name=$1 dd pp
	nsbg r "$AF_SINK" 9000 250 15 > "$tmp/sink-$name"
	tb_listening -u r 9000
	af_blast 1 14
	af_blast 2 14
	sleep 4
	read -r dd pp < <(af_port_window 9 "$tmp/q-$name")
	sleep 2
	eval "$(qcnstat_cols "$tmp/q-$name" kind backlog | awk -F'\t' -v n="$name" '$1 == "qcn" {
			k++; s += $2; if ($2 >= 120000) f++ }
		END { printf "%s_n=%d %s_q=%d %s_full=%d\n", n, k, n, k ? s / k : 0, n, f }')"
	eval "${name}_drops=$dd ${name}_pkts=$pp"
	eval "${name}_rate=$(( $(af_rate "$tmp/sink-$name" 4000 12000 1) + $(af_rate "$tmp/sink-$name" 4000 12000 2) ))"
}

# one measurement: the same testbed with and without qcn_rp, one phase
# after the other, and the checks compare the two
test_checks dumbbell 9
dumbbell()
{
	for i in 1 2; do nsx h$i tc qdisc add dev eth0 root qcn_rp $RP; done
	phase qcn
	# shellcheck disable=SC2154 # qcn_*, plain_*: set by phase (eval)
	ktap_info "with qcn_rp: mean queue $qcn_q B ($qcn_full of $qcn_n samples >= 120 KB), drops $qcn_drops of $qcn_pkts, goodput $qcn_rate kbit/s"
	for i in 1 2; do nsx h$i tc qdisc del dev eth0 root; done
	phase plain
	# shellcheck disable=SC2154 # set by phase (eval)
	ktap_info "without:     mean queue $plain_q B ($plain_full of $plain_n samples >= 120 KB), drops $plain_drops of $plain_pkts, goodput $plain_rate kbit/s"

	# qcnstat polls every 20 ms for 9 s (~450 samples); few means it was starved
	ktap_bound qcn_queue_samples "$qcn_n" '>' 100 "with qcn_rp the CP queue is sampled ($qcn_n samples > 100)"
	# with qcn_rp the queue settles around Qeq (26 KB); without, at the limit (150 KB)
	ktap_bound qcn_queue_mean_bytes "$qcn_q" '<=' 52000 \
		"with qcn_rp the queue stays around Qeq (mean $qcn_q <= 52000 B = 2 Qeq, $qcn_n samples)"
	ktap_bound qcn_queue_full_pct "$(share_pct "$qcn_full" "$qcn_n")" '<=' 10 \
		"with qcn_rp the queue is rarely near the limit ($qcn_full of $qcn_n <= 10 %)"
	ktap_bound qcn_drop_share_pct "$(share_pct "$qcn_drops" $((qcn_drops + qcn_pkts)))" '<=' 1 \
		"with qcn_rp tail drops stay near zero (<= 1 % of the arrivals: $qcn_drops dropped, $qcn_pkts sent)"
	# 95-100 % in UML; limiters that never rise again (mutation
	# rp-no-increase) stay where the cuts left them, 44 %: 70 % lies between.
	# A guest beside a busy CPU reads 62-99 %: the emulator's, a timing bound
	ktap_bound --timing qcn_goodput_pct_of_plain "$(ref_pct "$qcn_rate" "$plain_rate")" '>=' 70 \
		"with qcn_rp goodput stays high ($qcn_rate >= 70 % of $plain_rate kbit/s)"
	ktap_bound plain_queue_samples "$plain_n" '>' 100 "without qcn_rp the CP queue is sampled ($plain_n samples > 100)"
	# without qcn_rp the queue sits at the limit
	ktap_bound plain_queue_full_pct "$(share_pct "$plain_full" "$plain_n")" '>=' 25 \
		"without qcn_rp the queue sits near the limit ($plain_full of $plain_n >= 25 %)"
	ktap_bound plain_drop_share_pct "$(share_pct "$plain_drops" $((plain_drops + plain_pkts)))" '>' 10 \
		"without qcn_rp the port drops (> 10 % of the arrivals: $plain_drops dropped, $plain_pkts sent)"
	ktap_bound qcn_queue_pct_of_plain "$(ref_pct "$qcn_q" "$plain_q")" '<' 50 \
		"QCN holds the queue well below plain (mean $qcn_q < $plain_q / 2)"
}

ALL_TESTS="dumbbell"
tests_plan setup kernel_log
setup
tests_run
rm -rf "$tmp"
tb_cleanup
kernel_log
ktap_finished
