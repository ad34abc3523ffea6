#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF-QCN converges faster than QCN (same run, same testbed): flow 1 runs
# alone, flow 2 starts 6 s later; the time from flow 2's start until the
# two goodputs stay within 10 % of each other for 1 s, with af on and with
# af off.
source "$(dirname "$0")/lib_af.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
ktap_plan 6
qcn_dmesg_mark
tb_init

# converge_ms LOG START_MS END_MS: first t >= START where |r1 - r2| <=
# 10 % of the larger for 4 consecutive 250 ms intervals; END if never.
converge_ms()
{
	awk -v st="$2" -v en="$3" -v a="$QCN_NET.1" -v b="$QCN_NET.2" '
	function check(t,   ra, rb, hi, d) {
		ra = A[t] - A[p]; rb = B[t] - B[p]
		hi = ra > rb ? ra : rb; d = ra - rb; if (d < 0) d = -d
		if (t >= st && hi > 0 && d <= hi / 10) {
			if (run == 0) from = p
			if (++run >= 4 && first == en) first = from
		} else run = 0
	}
	BEGIN { first = en; run = 0; p = -1 }
	{ if ($1 != cur) { if (cur != "" && p >= 0) check(cur); if (cur != "") p = cur; cur = $1 } }
	$2 == a { A[$1] = $3 } $2 == b { B[$1] = $3 }
	END { if (cur != "" && p >= 0) check(cur); print first - st }' "$1"
}

# one experiment: sink, flow 1 at 0 s, flow 2 at 6 s, 30 s in all
experiment()
{
	local log=$1
	af_sink 31 "$log"
	sleep 0.2
	af_blast 1 30
	sleep 6
	af_blast 2 24
	sleep 25
}

af_testbed 2 $AF_ON && af_class 1 1 && af_class 2 1
ktap_check "testbed: 2 qcn_rp senders, equal-weight classes, af on" test $? -eq 0

on=$(mktemp); off=$(mktemp)
experiment "$on"
t_on=$(converge_ms "$on" 6200 31000)
ktap_info "af on: converged $t_on ms after flow 2 started"

# the same testbed with AF off; let the limiters return to line rate first
nsx sw tc qdisc change dev sw-pr root handle 1: qcn af off
ktap_check "af off" test $? -eq 0
sleep 3
experiment "$off"
t_off=$(converge_ms "$off" 6200 31000)
ktap_info "af off: converged $t_off ms after flow 2 started"

ktap_check "flows converge with af on (within 24 s)" test "$t_on" -lt 24000
ktap_check "af on converges faster than af off ($t_on < $t_off ms)" test "$t_on" -lt "$t_off"
r1=$(af_rate "$on" 20000 30000 1); r2=$(af_rate "$on" 20000 30000 2)
ktap_info "af on, 20-30 s: $r1 / $r2 kbit/s"
ktap_check "af on: equal shares at the end (within 15 %)" af_within "$r1" "$r2" 15
rm -f "$on" "$off"
tb_cleanup
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finish
