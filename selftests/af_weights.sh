#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF-QCN weighted fairness, closed loop (qcn_rp senders): four flows with
# weights 4:3:2:1 share a 30 Mbit/s port 40/30/20/10 %; then a max rate on
# the weight-4 class, and the others share the rest 3:2:1 (weighted
# max-min, Remark 4).  lib.sh's weight_share_checks asserts each phase's
# shares (weighted Jain index, heaviest and lightest share) and reports
# each share against +-15 % (+-20 % of the rest) of its target.
# The RP timer is 2 s: at this port rate a shorter timer, not the byte
# counter, drives a light flow's increases and lifts its share.
AF_RP_TIMER=${AF_RP_TIMER:-2s}
source "$(dirname "$0")/lib_af.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_dmesg_mark
tb_init
log=$(mktemp)

test_checks setup 2
setup()
{
	af_testbed 4 $AF_ON
	ktap_check "testbed: 4 qcn_rp senders, qcn with af on" test $? -eq 0
	ok=0
	for i in 1 2 3 4; do af_class "$i" $((5 - i)) && ok=$((ok + 1)); done
	ktap_check "classes 1:1..1:4 with weights 4 3 2 1 and u32 filters" test $ok -eq 4
}

# one measurement: the max rate comes 30 s into the run, and each phase's
# shares are taken from the same sink log
test_checks shares 9
shares()
{
	af_sink 52 "$log"
	tb_listening -u r 9000
	for i in 1 2 3 4; do af_blast "$i" 51; done

	# phase 1: weights only, measured over 18-30 s, once the shares have
	# settled from the equal start
	sleep 30
	nsx sw tc class change dev sw-pr parent 1: classid 1:1 qcn weight 4 maxrate 6mbit
	cap_rc=$?
	sleep 21
	wait_sink=0
	while [ "$(wc -l < "$log")" -gt 0 ] && [ "$(tail -n1 "$log" | cut -d' ' -f1)" -lt 51500 ] &&
	      [ $wait_sink -lt 20 ]; do sleep 0.5; wait_sink=$((wait_sink + 1)); done

	total=0
	for i in 1 2 3 4; do r[i]=$(af_rate "$log" 18000 30000 "$i"); total=$((total + r[i])); done
	ktap_info "weights 4:3:2:1: kbit/s ${r[1]} ${r[2]} ${r[3]} ${r[4]} (total $total)"
	# the shares' course, 2 s windows from 2 to 30 s (% of each window)
	af_windows "$log" 2000 30000 2000 4 | while read -r l; do ktap_info "  $l"; done
	for i in 1 2 3 4; do share[i]=$(share_pct "${r[i]}" "$total"); done
	weight_share_checks share 15 "${share[@]}"
	# a stalled loop carries a fraction of the port
	ktap_bound busy_kbps "$total" '>=' 18000 "the port stays busy (total $total >= 60 % of 30 Mbit/s)"

	ktap_check "class change: maxrate 6mbit on the weight-4 class" test "$cap_rc" -eq 0
	for i in 1 2 3 4; do c[i]=$(af_rate "$log" 40000 51000 "$i"); done
	rest=$((c[2] + c[3] + c[4]))
	ktap_info "maxrate 6mbit on 1:1: kbit/s ${c[1]} ${c[2]} ${c[3]} ${c[4]} (others $rest)"
	# uncapped, the class would take 40 % of the port, 12 Mbit/s
	ktap_bound capped_kbps "${c[1]}" '<=' 6900 "capped class stays near its max rate (${c[1]} <= 6900 kbit/s)"
	for i in 2 3 4; do rs[i]=$(share_pct "${c[i]}" "$rest"); done
	weight_share_checks rest 20 "${rs[@]}"
}

ALL_TESTS="shares"
tests_plan setup kernel_log
setup
tests_run
rm -f "$log"
tb_cleanup
kernel_log
ktap_finished
