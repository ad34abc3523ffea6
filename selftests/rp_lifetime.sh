#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcn_rp's lifetime against the CNM handler: qdiscs added and deleted
# while CNMs for a live flow keep arriving (each delete unlinks the
# instance from the handler's RCU list and frees its state after a grace
# period).  Meant for the debug kernel (scripts/uml-run --debug: KASAN,
# lockdep, PROVE_RCU, object debugging): any report fails the run.
# (qdisc_create()'s failure after ->init -- a bad TCA_RATE or TCA_STAB --
# takes the same ->destroy path; stock tc validates both before sending.)
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_dmesg_mark
tb_init
CNM=$QCN_TOP/selftests/cnm_send

tb_rp_pair
# add/delete cycles under a CNM stream, then the instance left takes the CNMs
test_checks lifetime 2
lifetime()
{
	nsbg a "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9000 -b 5000 \
		-s 1400 -r 5000000 -t 60 > /dev/null
	sending() { [ "$(nsx a cat /sys/class/net/eth0/statistics/tx_packets)" -gt 100 ]; }
	busywait 10000 sending
	# a stream of CNMs for the live flow (bursts of 2000, until killed)
	nsbg b bash -c "while :; do '$CNM' -i eth0 -d $RP_A -s $RP_B -q 30 -e $RP_B \
		-u '$QCN_NET.1:5000,$QCN_NET.100:9000' -n 2000 > /dev/null || exit 1; done"
	flood=$TB_LAST_PID

	ok=0
	for i in $(seq 1 20); do
		nsx a tc qdisc add dev eth0 root qcn_rp max-rate 50mbit &&
			nsx a tc qdisc del dev eth0 root && ok=$((ok + 1))
	done
	ktap_check "20 add/delete cycles under the CNM stream ($ok)" test $ok -eq 20
	nsx a tc qdisc add dev eth0 root qcn_rp max-rate 50mbit
	matched() { local n; n=$(nsx a tc -s -j qdisc show dev eth0 | jq .[0].cnm_matched); echo "$n"; [ "${n:-0}" -gt 0 ]; }
	m=$(busywait 10000 matched)
	ktap_check "the last instance takes the CNMs ($m matched)" test "$m" -gt 0
	kill $flood
}

ALL_TESTS="lifetime"
tests_plan kernel_log
tests_run
tb_cleanup
kernel_log
ktap_finished
