#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF-QCN weighted fairness, closed loop (qcn_rp senders): four flows with
# weights 4:3:2:1 share a 30 Mbit/s port 40/30/20/10 % (+-15 %); then a max
# rate on the weight-4 class: it stays under it and the others share the
# rest 3:2:1 (weighted max-min, Remark 4) within +-20 %: the weight-1 part
# of the rest (16.7 %) measured 14.0-17.7 % in six guest runs, and
# without AF-QCN the three would get ~33 % each.
# RP timer 2 s here: the weight-1 flow's byte counter (150 KB at 3 Mb/s)
# completes every 0.4 s, and a 1 s timer still gave it a rate-independent
# share of the increases, as the standard's 15 ms timer does not to a
# 1 Gb/s flow (150 KB in 1.2 ms): weight 1 measured 9.7-12.3 % in ten
# runs with 1 s (two outside +-15 %), 9.5-10.5 % in seven with 2 s
# (6.1 guest and debug UML, side by side)
AF_RP_TIMER=${AF_RP_TIMER:-2s}
source "$(dirname "$0")/lib_af.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
ktap_plan 13
qcn_dmesg_mark
tb_init
log=$(mktemp)

af_testbed 4 $AF_ON
ktap_check "testbed: 4 qcn_rp senders, qcn with af on" test $? -eq 0
ok=0
for i in 1 2 3 4; do af_class "$i" $((5 - i)) && ok=$((ok + 1)); done
ktap_check "classes 1:1..1:4 with weights 4 3 2 1 and u32 filters" test $ok -eq 4

af_sink 52 "$log"
sleep 0.2
for i in 1 2 3 4; do af_blast "$i" 51; done

# phase 1: weights only; measure 18..30 s (the shares settle over the
# first 15-20 s: the weight-1 flow's share fell from 14-16 % at 8-12 s to
# 10.8 % at 20-22 s in one guest run, which measured 11.7 % over 12-22 s)
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
for i in 1 2 3 4; do
	want=$(( (5 - i) * 10 ))
	share[i]=$(share_pct "${r[i]}" "$total")
	ktap_check "weight $((5 - i)): ${share[i]} % of the port (target $want % +-15 %)" \
		within_pct "${share[i]}" "$want" 15
done
ktap_check "the port stays busy (total >= 60 % of 30 Mbit/s)" test "$total" -ge 18000

ktap_check "class change: maxrate 6mbit on the weight-4 class" test "$cap_rc" -eq 0
rest=0
for i in 1 2 3 4; do c[i]=$(af_rate "$log" 40000 51000 "$i"); done
rest=$((c[2] + c[3] + c[4]))
ktap_info "maxrate 6mbit on 1:1: kbit/s ${c[1]} ${c[2]} ${c[3]} ${c[4]} (others $rest)"
ktap_check "capped class stays near its max rate (${c[1]} <= 6900 kbit/s)" test "${c[1]}" -le 6900
for i in 2 3 4; do
	want=$(awk -v w=$((5 - i)) 'BEGIN { printf "%.1f", 100 * w / 6 }')
	rs[i]=$(share_pct "${c[i]}" "$rest")
	ktap_check "weight $((5 - i)): ${rs[i]} % of the rest (target $want % +-20 %)" \
		within_pct "${rs[i]}" "$want" 20
done
rm -f "$log"
tb_cleanup
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finish
