#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The occupancy index under a standing queue: sch_qcn keeps its flows as
# lists (arrival sampling) or as rbtrees by enqueue offset with a Fenwick
# tree over the flows (occupancy, two-samples, keep-alive).  Changes of
# sample, sched, keepalive and limit re-queue the queue from one layout to
# the other: it must stay consistent, occupancy and two-samples must find
# culprits (CNMs), and once the senders stop the port must drain every frame.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd iperf3 jq
qcn_require_modules sch_qcn

st() { qdisc_json sw sw-pr | jq -r ".[0].$1"; }
standing() { [ "$(st qlen)" -gt 10 ]; }
# 30 frames leave after a change before the next one: the port serves
# the re-queued layout and the senders refill it
served() { [ "$(st packets)" -ge "$1" ]; }
drained() { [ "$(st qlen)" = 0 ] && [ "$(st backlog)" = 0 ]; }

test_checks requeue 6
requeue()
{
	bad=0 steps=0 full=0
	for change in "sample occupancy" "sched drr" "sample two-samples" \
		      "sample arrival keepalive 1ms" "keepalive 0" "sample two-samples" \
		      "sched fifo" "limit 100000" "sample occupancy" "sample arrival" \
		      "sched drr sample occupancy" "limit 200000 sample two-samples"; do
		sent=$(st packets)
		# shellcheck disable=SC2086
		nsx sw tc qdisc change dev sw-pr root qcn $change || bad=$((bad + 1))
		busywait 10000 served $((sent + 30)) || bad=$((bad + 1))
		read -r q b <<<"$(qdisc_json sw sw-pr | jq -r '.[0] | "\(.qlen) \(.backlog)"')"
		steps=$((steps + 1))
		ktap_info "after '$change': qlen $q backlog $b"
		[ "${q:-0}" -gt 10 ] && full=$((full + 1))
		# frames of 60..1514 bytes, within the limit
		if ! [[ "$q $b" =~ ^[0-9]+\ [0-9]+$ ]] || [ "$b" -lt $((q * 60)) ] ||
		   [ "$b" -gt $((q * 1514)) ] || [ "$b" -gt 200000 ]; then
			bad=$((bad + 1))
		fi
	done
	ktap_check "$steps changes re-queue a standing queue consistently" test "$bad" -eq 0
	# the senders keep ~100 frames queued (over 10 counts as standing) through the changes
	ktap_bound standing_queue_changes "$full" '>=' $((steps / 2)) "a standing queue at $full of the $steps changes"
	ktap_check "occupancy culprits found in the index" test "$(st cnm_occupancy)" -gt 0
	ktap_check "two-samples culprits found in the index" test "$(st cnm_two_samples)" -gt 0
	ktap_check "no culprit search came back empty" test "$(st cnm_skipped)" -eq 0
	# the senders stop; the 2 Mbit/s port drains 200 KB in 0.8 s
	kill "$c1" "$c2" 2>/dev/null
	wait "$c1" "$c2" 2>/dev/null
	busywait 10000 drained
	ktap_check "every queued frame drains (qlen $(st qlen), backlog $(st backlog))" \
		test "$(st qlen)" -eq 0 -a "$(st backlog)" -eq 0
}

ALL_TESTS="requeue"
tests_plan kernel_log
qcn_dmesg_mark
tb_init
tb_star 2 || ktap_skip_all "cannot build the testbed"
# the switch sends nothing of its own: IPv6 on its ports (router
# solicitations, MLD reports) would queue frames from the CP's own port,
# culprits no reaction point stands behind (counted in cnm_skipped)
nsx sw sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1

udp_servers r 5201 5202
nsx sw tc qdisc add dev sw-pr root handle 1: qcn limit 200000 rate 2mbit
# two UDP senders keep a standing queue of ~100 frames (their send buffers
# stay charged while frames queue), which every change of requeue
# re-queues; they run until requeue kills them, however long the changes
# take
udp_flow h1 20mbit 600 5201 1200
c1=$TB_LAST_PID
udp_flow h2 10mbit 600 5202 1200
c2=$TB_LAST_PID
busywait 10000 standing > /dev/null

tests_run
kernel_log
ktap_finished
