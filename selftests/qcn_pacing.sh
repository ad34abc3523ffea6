#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pacing never stalls a queue for long: a frame holds sch_qcn's port and a
# qcn_rp limiter for at most a second, whatever the rate (as in sch_fq),
# and changing sch_qcn's rate restarts its schedule (as tbf_change does).
#
#   a (sender, qdisc on eth0) ---- veth ---- b
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_dmesg_mark
tb_init
CNM=$QCN_TOP/selftests/cnm_send
tmp=$(mktemp -d)

tb_rp_pair
qj() { nsx a tc -s -j qdisc show dev eth0 | jq -r ".[0].$1"; }
# burst N: N datagrams of 1400 bytes (1442-byte frames) from port 5000 at once
burst() { nsx a "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9000 -b 5000 -s 1400 -c "$1" > /dev/null; }
sent_at_least() { [ "$(qj packets)" -ge "$1" ]; }
drained() { [ "$(qj qlen)" -eq 0 ]; }

# ----------------------------------------------- sch_qcn: a frame's delay
# at 1 kbit/s (125 B/s) a 1442-byte frame holds the port 11.5 s, capped to 1 s
test_checks qcn_delay 2
qcn_delay()
{
	nsx a tc qdisc add dev eth0 root qcn rate 1kbit limit 100000
	burst 3
	ktap_check "rate 1kbit: the first frame leaves at once" busywait 2000 sent_at_least 1
	ktap_check "rate 1kbit: the second leaves within the 1 s cap, not 11.5 s later" \
		busywait 4000 sent_at_least 2
}

# ------------------------------------------- sch_qcn: changing the rate
# frames queued behind a 1 s departure leave as soon as the rate is raised;
# the receiver stamps their arrival (kernel time, 10 ms windows), so a slow
# testbed's tc and polling do not blur it
test_checks qcn_rate_change 2
qcn_rate_change()
{
	nsx a tc qdisc del dev eth0 root 2> /dev/null
	nsx a tc qdisc add dev eth0 root qcn rate 1kbit limit 100000
	nsbg b "$QCN_TOP/selftests/udp_sink" 9000 10 6 > "$tmp/sink"
	sink=$TB_LAST_PID
	tb_listening -u b 9000
	t0=$(date +%s%3N)
	burst 10
	nsx a tc qdisc change dev eth0 root qcn rate 1gbit
	t1=$(date +%s%3N)
	busywait 5000 drained
	wait "$sink"
	# the first window holding N datagrams
	arrived() { awk -v n="$1" '$4 >= n { print $1; exit }' "$tmp/sink"; }
	a1=$(arrived 1) a2=$(arrived 2) a10=$(arrived 10)
	ktap_info "rate 1gbit $((t1 - t0)) ms after the burst; datagrams 1, 2, 10 in by ${a1:-?}, ${a2:-?}, ${a10:-?} ms"
	if [ $((t1 - t0)) -lt 850 ]; then
		# without the restart the second frame waits for the old schedule,
		# 1 s after the first (+-20 ms: two 10 ms windows); with it, it
		# leaves at the change, before t1
		ktap_check "rate 1kbit -> 1gbit: the queue drains at once (datagram 2 $((${a2:-99999} - ${a1:-0})) ms after 1, < 920)" \
			test -n "$a1" -a -n "$a2" -a $((${a2:-99999} - ${a1:-0})) -lt 920
	else
		ktap_test_skip "rate 1kbit -> 1gbit: the change came $((t1 - t0)) ms after the burst, too late to tell a restart from the 1 s cap"
	fi
	# (with the host's own neighbour and router solicitations)
	ktap_check "rate 1kbit -> 1gbit: all 10 frames sent, none dropped" \
		test "$(qj packets)" -ge 10 -a "$(qj drops)" -eq 0
}

# --------------------------------------- qcn_rp: a limiter at min-rate
# 40 CNMs of qFb 63 cut the flow's limiter to min-rate (1 B/s), where a
# frame would hold it 1442 s; the rate recovers within a second (fast
# recovery, then active increase by 5 Mbit/s per 15 ms timer cycle)
test_checks rp_min_rate 2
rp_min_rate()
{
	nsx a tc qdisc del dev eth0 root 2> /dev/null
	nsx a tc qdisc add dev eth0 root qcn_rp max-rate 50mbit min-rate 8bit jitter off
	nsbg a "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9000 -b 5000 -s 1400 \
		-r 10mbit -t 30 > /dev/null
	x1=$TB_LAST_PID
	busywait 5000 sent_at_least 100 > /dev/null
	nsx b "$CNM" -i eth0 -d $RP_A -s $RP_B -q 63 -e $RP_B \
		-u "$QCN_NET.1:5000,$QCN_NET.100:9000" -n 40 > /dev/null
	# (the qdisc's counters: the limiter itself may be released by the time
	# a slow testbed reads its class)
	rx=$(qj cnm_matched)/$(qj limiters_created)
	ktap_check "qcn_rp: the CNMs reach the flow's limiter (cnm_matched/limiters_created $rx)" \
		test "${rx%/*}" -gt 0 -a "${rx#*/}" -gt 0
	p0=$(qj packets)
	# 10 Mbit/s of 1442-byte frames is 870 a second: a stalled limiter sends none
	ktap_check "qcn_rp: the flow sends again within 5 s of the cut to min-rate" \
		busywait 5000 sent_at_least $((p0 + 500))
	ktap_info "qcn_rp: $p0 frames before the CNMs, $(qj packets) after"
	kill "$x1" 2>/dev/null
	wait "$x1" 2>/dev/null
}

ALL_TESTS="qcn_delay qcn_rate_change rp_min_rate"
tests_plan kernel_log
tests_run
nsx a tc qdisc del dev eth0 root
rm -rf "$tmp"
kernel_log
ktap_finished
