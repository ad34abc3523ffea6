#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcn_rp's backlog bounds: lowering `limit` trims the limiters' queues too
# (not only the unlimited FIFO), and the drops are counted; limiter ids
# are distinct class minors; a per-limiter cap (flow_limit) keeps a
# throttled flow from filling the limit, memory_limit bounds truesize.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_dmesg_mark
tb_init
CNM=$QCN_TOP/selftests/cnm_send
tmp=$(mktemp -d)
# qFb of the CNMs that cut the first flow (0 cuts nothing: the backlog
# check must fail)
RP_LIMITS_QFB=${RP_LIMITS_QFB:-63}

tb_rp_pair
A=$RP_A
B=$RP_B
cnm() { nsx b "$CNM" -i eth0 -d $A -s $B -q "$1" -e $B \
	-u "$QCN_NET.1:$2,$QCN_NET.100:9000" "${@:3}" > /dev/null; }
qj() { nsx a tc -s -j qdisc show dev eth0 | jq -r ".[0].$1"; }
send() { nsbg a "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9000 -s 1400 "$@" > /dev/null; }
# the qdisc has sent N more packets than at mark_sent; qj KEY is above N
mark_sent() { sent0=$(qj packets); }
sent_more() { [ "$(qj packets)" -ge $((sent0 + $1)) ]; }
above() { [ "$(qj "$1")" -gt "$2" ]; }
# rp_in_place: the qcn_rp an earlier phase left, or a fresh one for a
# phase that TESTS runs without it
rp_in_place()
{
	nsx a tc qdisc show dev eth0 | grep -q '^qdisc qcn_rp ' ||
		nsx a tc qdisc add dev eth0 root qcn_rp max-rate 50mbit time-reset 10s byte-reset 1gb jitter off
}

# ------------------------------------------- lowering limit
# one flow cut to ~1.6 Mbit/s by five CNMs, offered 20 Mbit/s with a 1 MB
# send buffer: its limiter holds ~400 KB
test_checks lower_limit 3
lower_limit()
{
	nsx a tc qdisc add dev eth0 root qcn_rp max-rate 50mbit min-rate 1mbit \
		time-reset 10s byte-reset 1gb jitter off
	mark_sent
	send -b 5000 -r 20000000 -B 1000000 -t 60
	x1=$TB_LAST_PID
	busywait 5000 sent_more 10 > /dev/null
	for _ in 1 2 3 4 5; do cnm "$RP_LIMITS_QFB" 5000; done
	# the limiter's queue fills (its steady state ~400 KB)
	busywait 5000 above backlog 300000 > /dev/null
	before=$(qj backlog)
	ktap_info "limited flow: backlog $before bytes, $(qj limiters_active) limiter"
	# cut to ~1.6 Mbit/s, it holds ~400 KB; not cut (20 Mbit/s < max-rate), it queues nothing
	ktap_bound limiter_backlog_bytes "$before" '>' 200000 "the limiter's queue holds more than 200 KB ($before)"
	drops0=$(qj drops)
	nsx a tc qdisc change dev eth0 root qcn_rp limit 100kb
	after=$(qj backlog)
	drops1=$(qj drops)
	ktap_info "limit 100kb: backlog $after bytes, drops $drops0 -> $drops1"
	ktap_check "limit 100kb trims the limiter's queue (backlog $after <= 102400)" \
		test "$after" -le 102400
	ktap_check "the trimmed packets are counted as drops" test "$drops1" -gt "$drops0"
	kill $x1
}

# ------------------------------- limiter ids are class minors
test_checks class_ids 3
class_ids()
{
	rp_in_place
	ktap_rejected "limiters 65536 (one more than the class minors 1..65535)" \
		"nsx a tc -j qdisc show dev eth0 | jq -c '.[0].options'" \
		nsx a tc qdisc change dev eth0 root qcn_rp limiters 65536
	nsx a tc qdisc del dev eth0 root
	# byte-reset 1gb, time-reset 10s: the limiters stay in fast recovery for
	# 50 s, and their flows send until the section ends, however slowly the
	# testbed reads them
	nsx a tc qdisc add dev eth0 root qcn_rp max-rate 50mbit time-reset 10s byte-reset 1gb jitter off
	mark_sent
	pids=()
	for p in 5000 5001 5002 5003; do send -b $p -r 1000000 -t 60; pids+=("$TB_LAST_PID"); done
	busywait 5000 sent_more 40 > /dev/null
	nsx b "$CNM" -i eth0 -d $A -s $B -q 20 -e $B \
		-u "$QCN_NET.1:5000,$QCN_NET.100:9000" -k 4 > /dev/null
	ids=$(nsx a tc class show dev eth0 | awk '/^class qcn_rp/ { print $3 }' | sort -u | tr '\n' ' ')
	ktap_check "4 limiters, 4 distinct class ids ($ids)" test "$(wc -w <<<"$ids")" = 4
	ktap_check "each class id shows its limiter" \
		bash -c "for c in $ids; do ip netns exec $TB-a tc -s class show dev eth0 classid \$c | grep -q 'state fr' || exit 1; done"
	kill "${pids[@]}" 2> /dev/null
	# the four senders are gone before the next qdisc
	wait "${pids[@]}"
}

# --------------------------- per-limiter cap, memory limit
# X (a:7000) throttled to ~1.6 Mbit/s with a 1 MB send buffer, limit
# 300kb: without a per-limiter cap X fills the limit and Y (a:7001,
# unthrottled, 5 Mbit/s) is tail-dropped; flow_limit 40 keeps X's
# limiter at 40 packets.
test_checks flow_cap 7
flow_cap()
{
	nsx a tc qdisc del dev eth0 root 2> /dev/null
	nsx a tc qdisc add dev eth0 root qcn_rp max-rate 50mbit min-rate 1mbit \
		time-reset 10s byte-reset 1gb jitter off limit 300kb flow_limit 40
	ktap_check "flow_limit 40 shown" \
		bash -c "ip netns exec $TB-a tc qdisc show dev eth0 | grep -q 'flow_limit 40 memory_limit 32Mb'"
	mark_sent
	send -b 7000 -r 10000000 -B 1000000 -t 60
	x2=$TB_LAST_PID
	busywait 5000 sent_more 10 > /dev/null
	for _ in 1 2 3 4 5; do cnm 63 7000; done
	# X's limiter is full: it drops at flow_limit
	busywait 5000 above flow_limit_drops 0 > /dev/null
	lb=$(nsx a tc -s class show dev eth0 | awk '$1 == "backlog" { sub("b", "", $2); print $2; exit }')
	nsbg b "$QCN_TOP/selftests/udp_sink" 9001 100 5 > "$tmp/sink"
	sink=$TB_LAST_PID
	sent=$(nsx a "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9001 -b 7001 \
		-s 1000 -r 5000000 -t 3 | sed -n 's/sent=\([0-9]*\).*/\1/p')
	wait $sink
	got=$(awk 'END { print $4 }' "$tmp/sink")
	ktap_info "X's limiter backlog $lb bytes; Y sent $sent received $got; flow_limit_drops $(qj flow_limit_drops)"
	ktap_check "X's limiter holds at most 40 packets ($lb bytes)" test "$lb" -le $((40 * 1442))
	ktap_check "flow_limit drops counted" test "$(qj flow_limit_drops)" -gt 0
	# every drop is one of X's at flow_limit: none at limit, none at
	# memory_limit, and Y has no limiter to hit flow_limit (the receiver's
	# count is informative: in an emulated guest the sink's window can close
	# before a late-started sender is done).  The three counters are one
	# snapshot; the qdisc's own drops are read after them in the same dump
	# (tc_fill_qdisc) while X still drops, so they are only at least as many.
	read -r ld md fd dr < <(nsx a tc -s -j qdisc show dev eth0 |
		jq -r '.[0] | "\(.limit_drops) \(.memory_drops) \(.flow_limit_drops) \(.drops)"')
	ktap_check "no tail drop at limit: Y loses nothing in qcn_rp (limit_drops $ld, memory_drops $md, flow_limit_drops $fd <= drops $dr)" \
		test "$ld" = 0 -a "$md" = 0 -a "$fd" -gt 0 -a "$fd" -le "$dr"
	# X still sending (a gap would let its limiter age out), its limiter now
	# uncapped: the memory limit bounds it
	nsx a tc qdisc change dev eth0 root qcn_rp flow_limit 100000 limit 4mb memory_limit 200kb
	busywait 5000 above memory_drops 0 > /dev/null
	mu=$(qj memory_usage)
	ktap_info "memory_limit 200kb: usage $mu, memory_drops $(qj memory_drops)"
	ktap_check "memory_limit 200kb holds (usage $mu)" test "$mu" -le $((200 * 1024))
	ktap_check "memory drops counted" test "$(qj memory_drops)" -gt 0
	kill "$x2"
	ktap_rejected "memory_limit 3gb" "nsx a tc -j qdisc show dev eth0 | jq -c '.[0].options'" \
		nsx a tc qdisc change dev eth0 root qcn_rp memory_limit 3gb
}

# ------------------------------------ floors that bound the work
test_checks floors 4
floors()
{
	rp_in_place
	st="nsx a tc -j qdisc show dev eth0 | jq -c '.[0].options'"
	ktap_rejected "time-reset 50us (floor 100us)" "$st" nsx a tc qdisc change dev eth0 root qcn_rp time-reset 50us
	ktap_rejected "qcnt-period 10us (floor 100us)" "$st" nsx a tc qdisc change dev eth0 root qcn_rp qcnt-period 10us
	ktap_rejected "byte-reset 1000 (floor 1500)" "$st" nsx a tc qdisc change dev eth0 root qcn_rp byte-reset 1000
	ktap_check "the floors themselves are accepted" \
		nsx a tc qdisc change dev eth0 root qcn_rp time-reset 100us qcnt-period 100us byte-reset 1500
}

ALL_TESTS="lower_limit class_ids flow_cap floors"
tests_plan kernel_log
tests_run
rm -rf "$tmp"
kernel_log
ktap_finished
