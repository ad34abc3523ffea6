#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF-QCN Remark 3: a short on/off flow whose arrivals stay below
# active_thresh is not active, gets Fb_AF = 0 and keeps its rate, while the
# two heavy classes next to it are active and take the CNMs.
source "$(dirname "$0")/lib_af.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_dmesg_mark
tb_init
log=$(mktemp); sent=$(mktemp)

test_checks setup 1
setup()
{
	af_testbed 3 $AF_ON && af_class 1 1 && af_class 2 3 && af_class 3 1
	ktap_check "testbed: 2 heavy + 1 on/off sender, af on" test $? -eq 0
}

# one measurement: the polls while the on/off flow sends, then what it
# got over the same run
test_checks onoff_flow 7
onoff_flow()
{
	# the heavy senders outlast the polls (tc is slow in the emulator); the
	# sink outlasts the on/off sender, which is waited for
	af_sink 45 "$log"
	tb_listening -u r 9000
	af_blast 1 42
	af_blast 2 42
	# the on/off flow joins once the heavy senders' start-up burst (line rate
	# until the first CNMs: the only tail drops of a run) is over, as the
	# paper's bursty flow joins at 0.5 s
	sleep 3
	# 500 B datagrams at 80 kbit/s: ~100 B per 10 ms Ts << active 2kb
	nsbg h3 "$AF_SEND" -d "$QCN_NET.100" -p 9000 -s 500 -r 80000 -t 20 > "$sent"
	onoff=$TB_LAST_PID

	sleep 3
	fb_bad=0; act_bad=0; heavy_act=0
	for k in 1 2 3 4 5 6 7 8; do
		fb=$(af_class_x 1:3 last_fb_af); act=$(af_class_x 1:3 active)
		[ "${fb:-x}" = 0 ] || fb_bad=$((fb_bad + 1))
		[ "${act:-x}" = 0 ] || act_bad=$((act_bad + 1))
		for c in 1:1 1:2; do
			[ "$(af_class_x $c active)" = 1 ] && heavy_act=$((heavy_act + 1))
		done
		sleep 1
	done
	ktap_check "on/off class: Fb_AF = 0 at every poll ($fb_bad bad of 8)" test $fb_bad -eq 0
	ktap_check "on/off class: never active ($act_bad bad of 8)" test $act_bad -eq 0
	# blasting, the heavy classes arrive far above active 2kb per Ts; never active is broken
	ktap_bound --timing heavy_active_polls "$heavy_act" '>=' 8 "heavy classes are active ($heavy_act of 16 polls)"
	wait "$onoff"
	sleep 1
	got=$(awk -v s="$QCN_NET.3" '$2 == s { d = $4 } END { print d + 0 }' "$log")
	want=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' "$sent")
	ktap_info "on/off flow: $want datagrams sent, $got received"
	# not singled out: its class's Fb_AF is 0, so it gets only what eq. (4)
	# leaves of QCN's own feedback, (1 - alpha) Fb_QCN, when one of its frames
	# is the sampled one while the queue is above Qeq.  It is 0.3 % of the
	# arrivals, so a CNM now and then is QCN, not AF-QCN: at most 2 % of the
	# CP's CNMs (and 1 CNM is always allowed), against the heavy classes'
	# many.  A datagram may still meet the shared FIFO's tail drop in a burst
	# of the heavy flows (the paper's claim is about CNMs, not the FIFO).
	h3cnm=$(nsx h3 tc -s -j qdisc show dev eth0 | jq '.[0].cnm_rx // 0')
	cpcnm=$(qcn_cnms_sent sw sw-pr)
	ktap_check "on/off flow sent ($want), received no more ($got), the CP sent CNMs ($cpcnm)" \
		test "${want:-0}" -gt 0 -a "${cpcnm:-0}" -gt 0 -a "$got" -le "${want:-0}"
	# h3's % of the CP's CNMs, allowed up to 2 % or one CNM's share (1 CNM is always allowed)
	h3pct=$(share_pct "$h3cnm" "${cpcnm:-0}")
	h3max=$(awk -v c="${cpcnm:-0}" 'BEGIN { b = c > 0 ? int((1000 + c - 1) / c) / 10 : 0; printf "%.1f", (b > 2 ? b : 2) }')
	# about its 0.3 % of the arrivals when it is QCN's; singled out by AF-QCN, far more
	ktap_bound --timing onoff_cnm_pct "$h3pct" '<=' "$h3max" \
		"on/off flow not singled out (h3 got $h3cnm of the CP's $cpcnm CNMs: <= 1 or 2 %)"
	ktap_bound --timing onoff_loss_pct "$(share_pct $((${want:-0} - got)) "${want:-0}")" '<=' 1 \
		"on/off flow loses <= 1 % ($((want - got)) of $want)"
	r3=$(af_rate "$log" 8000 18000 3)
	# it offers 80 kbit/s, and keeps it unless CNMs throttle it
	ktap_bound --timing onoff_rate_kbit "$r3" '>=' 70 "on/off flow keeps its 80 kbit/s (got $r3)"
}

ALL_TESTS="onoff_flow"
tests_plan setup kernel_log
setup
tests_run
rm -f "$log" "$sent"
tb_cleanup
kernel_log
ktap_finished
