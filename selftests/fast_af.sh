#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Native speed (UML or a host): AF-QCN with the paper's alpha, beta and Ts
# (the qdisc's defaults) and the standard's CP and RP parameters; four TCP
# flows (GSO on, 4000-byte frames) with weights 4:3:2:1 through a 1 Gbit/s
# port.  Asserted: the shares follow the weights (weight_share_checks) and
# the port stays busy; the paper's +-10 % per share is reported.  The
# active threshold is the paper's 20 KB per 1 ms scaled from 10 Gb/s to
# the port (2 KB): unscaled, it calls the weight-1 flow inactive.
source "$(dirname "$0")/lib_fast.sh"
fast_require
RATE=${FAST_AF_RATE:-1gbit}
DUR=24
# the CP's AF-QCN options ("af off": the weights go unused, which must fail)
FAST_AF=${FAST_AF:-"af on active 2000"}
weights()
{
	tb_init
	tmp=$(mktemp -d)
	tb_star 4
	fast_mtu "$FAST_MTU"
	for i in 1 2 3 4; do nsx "h$i" tc qdisc add dev eth0 root qcn_rp max-rate 2gbit; done
	nsx sw tc qdisc add dev sw-pr root handle 1: qcn limit 150000 qeq 26000 rate "$RATE" $FAST_AF
	ok=0
	for i in 1 2 3 4; do
		nsx sw tc class add dev sw-pr parent 1: classid "1:$i" qcn weight $((5 - i)) &&
		nsx sw tc filter add dev sw-pr parent 1: protocol ip prio 1 u32 \
			match ip src "$QCN_NET.$i/32" flowid "1:$i" && ok=$((ok + 1))
	done
	ktap_check "testbed: 4 qcn_rp senders, qcn $RATE af on, classes with weights 4 3 2 1" test $ok -eq 4
	fast_servers 4
	for i in 1 2 3 4; do fast_tcp "$i" "$DUR" "$tmp/f$i.json" -i 0.5; done
	tb_wait

	# shares over [8 s, 22 s]: past the start-up
	total=0
	for i in 1 2 3 4; do
		r[i]=$(fast_interval_rate "$tmp/f$i.json" 8 22)
		total=$((total + r[i]))
	done
	ktap_info "weights 4:3:2:1 at $RATE: kbit/s ${r[1]} ${r[2]} ${r[3]} ${r[4]} (total $total)"
	nsx sw tc -s class show dev sw-pr | sed 's/^/# /'
	for i in 1 2 3 4; do share[i]=$(share_pct "${r[i]}" "$total"); done
	weight_share_checks share 10 "${share[@]}"
	port=$(awk -v r="$RATE" 'BEGIN { n = r + 0; if (r ~ /gbit/) n *= 1000000; else if (r ~ /mbit/) n *= 1000; print n }')
	# a guard against AF-QCN stalling the loop, not a throughput target
	ktap_bound busy_pct "$(share_pct "$total" "$port")" '>=' 40 "the port stays busy (total $total of $port kbit/s)"
	rm -rf "$tmp"
	tb_cleanup
}

test_checks weights $((2 + 3))	# weight_share_checks: 3
ALL_TESTS="weights"
tests_plan kernel_log
qcn_dmesg_mark
tests_run
kernel_log
ktap_finished
