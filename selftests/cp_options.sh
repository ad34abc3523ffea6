#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcn configuration: every option is parsed, applied and dumped (text and
# JSON); every out-of-range or malformed option fails with a message and
# leaves the qdisc unchanged (the plugin checks the kernel policy's ranges,
# names an unknown option as unknown; the kernel's extack for the rest);
# shrinking the limit trims the queue; qcn works as a child of tbf and htb.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
SEND="$QCN_TOP/selftests/udp_send"
qcn_require_built "$SEND"
qcn_require_modules sch_qcn
qcn_dmesg_mark
tb_init
tb_ns a || ktap_skip_all "cannot create a namespace"
tb_ns b
tb_veth a va b vb
ip -n "$TB-a" addr add 10.9.0.1/24 dev va
ip -n "$TB-b" addr add 10.9.0.2/24 dev vb
nsx a ip link add d0 type dummy
nsx a ip link set d0 up
# a knows b's MAC
resolved() { nsx a ip neigh show 10.9.0.2 dev va | grep -q lladdr; }
# resolve b's MAC before a phase's first frame on va, unless a phase did
resolve()
{
	resolved && return
	nsx a "$SEND" -d 10.9.0.2 -s 100 -c 1 >/dev/null
	busywait 10000 resolved
}
# dump_arrived N: va's qdisc statistics (tc -s -j); fails until N frames
# have reached the qdisc (sent, queued or dropped)
dump_arrived()
{
	local j
	j=$(nsx a tc -s -j qdisc show dev va)
	printf '%s' "$j"
	jq -e ".[0] | .packets + .qlen + .drops >= $1" <<<"$j" > /dev/null
}
# standing_bytes: "TIME_NS BYTES", the clock before a dump and the bytes
# va's qdisc has sent; fails until the dump shows a standing queue (over 10
# frames): its dequeue runs at the qdisc's rate
standing_bytes()
{
	local t q b
	t=$(date +%s%N)
	read -r q b <<<"$(nsx a tc -s -j qdisc show dev va | jq -r '.[0] | "\(.qlen) \(.bytes)"')"
	echo "$t $b"
	[ "${q:-0}" -gt 10 ]
}
# b has received N frames since rx0
received() { [ $(($(nsx b cat /sys/class/net/vb/statistics/rx_packets) - rx0)) -ge "$1" ]; }

# rejected by the plugin; the last ones are beyond the kernel policy's
# ranges (TC_QCN_* in include/uapi/linux/qcn.h), which tc checks too
BAD_TC=(
	"limit 0" "limit abc" "limit" "rate fast" "sched prio" "qeq 0"
	"w 3" "w 0" "w -2" "w 2048" "w 0.0001" "w two" "interval 5000"
	"sample random" "keepalive soon" "cpid 65536" "cpid -1" "cpid x"
	"af maybe" "alpha 0" "alpha 1" "alpha 1.5" "ts 0" "ts never"
	"beta 0" "beta 2" "active lots" "bogus 1" "ecn" "limit 0x10"
	"keepalive 20s" "keepalive 4295s" "rate 10tbit" "limit 3gb" "qeq 3gb"
	"limit 2147483648" "interval 2gb" "active 2gb" "ts 2s" "ts 500ns"
	"limit 100000 keepalive 20s" "sched drr rate 10tbit" "limit 1e30"
	"memory_limit 0" "memory_limit lots" "memory_limit 3gb"
	"keepalive 99us" "keepalive 1us" "ts 999us"
)

# d0's qdisc with every option, for the phases up to usage
test_checks setup 3
setup()
{
	nsx a tc qdisc add dev d0 root handle 1: qcn limit 150kb rate 100mbit sched drr \
		qeq 30kb w 0.5 interval 20000 sample two-samples keepalive 10ms cpid 7
	ktap_check "qcn accepts every option" test $? -eq 0
	J=$(nsx a tc -j qdisc show dev d0)
	want='{"limit":153600,"rate":12500000,"sched":"drr","qeq":30720,"w_exp":-1,"interval":20000,"sample":"two-samples","keepalive":10000,"cpid":7}'
	got=$(printf '%s' "$J" | jq -c '.[0].options | {limit,rate,sched,qeq,w_exp,interval,sample,keepalive,cpid}')
	ktap_check "JSON dump shows every option ($got)" test "$got" = "$want"
	txt=$(nsx a tc qdisc show dev d0)
	ktap_check "text dump shows every option" bash -c "grep -q 'limit 150Kb rate 100Mbit sched drr qeq 30Kb w 0.5 interval 20000b sample two-samples keepalive 10ms cpid 7' <<<'$txt'"
}

reject()	# OPTS...: tc fails, says why, and the qdisc is unchanged
{
	ktap_rejected "$*" "nsx a tc -d qdisc show dev d0" \
		ip netns exec "$TB-a" tc qdisc change dev d0 root qcn "$@"
}
test_checks bad_values ${#BAD_TC[@]}
bad_values()
{
	for o in "${BAD_TC[@]}"; do
		# shellcheck disable=SC2086
		reject $o
	done
}
msg()	# WANT OPTS...: tc's message for qcn OPTS contains WANT
{
	local want=$1
	shift
	ip netns exec "$TB-a" tc qdisc change dev d0 root qcn "$@" 2>&1 | grep -qF "$want"
}
test_checks messages 8
messages()
{
	ktap_check "an unknown option is named as unknown (qcn ecn)" msg 'qcn: unknown option "ecn"' ecn
	ktap_check "an unknown option is unknown, not missing its value (qcn ecn 1)" msg 'unknown option "ecn"' ecn 1
	ktap_check "a known option without its value says so (qcn limit)" msg 'option "limit" needs a value' limit
	ktap_check "a size beyond the policy's range says the range (limit 3gb)" \
		msg '"limit" 3gb is out of range (1b .. 2147483647b)' limit 3gb
	ktap_check "a time beyond the range (keepalive 4295s: tc's own get_time() would wrap it to 32705us)" \
		msg '"keepalive" 4295s is out of range (0 .. 10s)' keepalive 4295s
	# the kernel's extack: a class under a class (qcn's classes are flat)
	err=$(ip netns exec "$TB-a" tc class add dev d0 parent 1:1 classid 1:2 qcn weight 1 2>&1)
	ktap_check "the kernel's rejection carries an extack message ($(head -n1 <<<"$err" | cut -c1-60))" \
		bash -c "grep -q '^Error: qcn classes are flat' <<<'$err'"
	ktap_check "keepalive below the 100us floor: the message names the range" \
		msg '"keepalive" 50us is out of range (100us (or 0: off) .. 10s)' keepalive 50us
	ktap_check "keepalive 100us (the floor) is accepted" \
		bash -c "ip netns exec $TB-a tc qdisc change dev d0 root qcn keepalive 100us &&
			 ip netns exec $TB-a tc qdisc change dev d0 root qcn keepalive 10ms"
}

# footguns taken with a warning: a rate without a unit (tc's bit/s), a
# class weight that only af on uses
test_checks warnings 2
warnings()
{
	err=$(ip netns exec "$TB-a" tc qdisc change dev d0 root qcn rate 500 2>&1)
	rc=$?
	ktap_check "rate 500 (no unit) is 500 bit/s, with a warning ($(head -n1 <<<"$err" | cut -c1-50))" \
		test "$rc/$(nsx a tc -j qdisc show dev d0 | jq '.[0].options.rate')" = 0/62 -a \
		     -n "$(grep '^Warning: qcn: rate 500 has no unit' <<<"$err")"
	nsx a tc qdisc change dev d0 root qcn rate 100mbit
	err=$(ip netns exec "$TB-a" tc class add dev d0 parent 1: classid 1:7 qcn weight 4 2>&1)
	rc=$?
	ktap_check "a class weight with af off is taken, with the kernel's warning ($(head -n1 <<<"$err" | cut -c1-50))" \
		test "$rc" = 0 -a -n "$(grep '^Warning: qcn: af is off' <<<"$err")"
	nsx a tc class del dev d0 classid 1:7
}

class_reject()	# OPT VALUE: tc class change fails naming the option
{
	local err
	err=$(ip netns exec "$TB-a" tc class change dev d0 classid 1:1 qcn "$@" 2>&1) && return 1
	grep -q "$1" <<<"$err"
}
test_checks class_options 4
class_options()
{
	ktap_check "class option weight 0 rejected with a message" class_reject weight 0
	ktap_check "class option maxrate garbage rejected with a message" class_reject maxrate fast
	cerr=$(ip netns exec "$TB-a" tc class add dev d0 parent 1: classid 1:7 qcn weight 70000 2>&1)
	ktap_check "class weight 70000: out of range (1 .. 65535), no class made" \
		bash -c "grep -qF '\"weight\" 70000 is out of range (1 .. 65535)' <<<'$cerr' && ! ip netns exec $TB-a tc class show dev d0 | grep -q '1:7'"
	ktap_check "class weight 65535 accepted" \
		bash -c "ip netns exec $TB-a tc class add dev d0 parent 1: classid 1:7 qcn weight 65535 2> /dev/null && ip netns exec $TB-a tc class show dev d0 | grep -q 'weight 65535'"
	ip netns exec "$TB-a" tc class del dev d0 classid 1:7
}
test_checks change_one 1
change_one()
{
	ktap_check "a change of one option keeps the others" \
		bash -c "ip netns exec $TB-a tc qdisc change dev d0 root qcn sample occupancy && ip netns exec $TB-a tc qdisc show dev d0 | grep -q 'limit 150Kb rate 100Mbit sched drr qeq 30Kb w 0.5 interval 20000b sample occupancy'"
}
test_checks usage 1
usage()
{
	usage=$(ip netns exec "$TB-a" tc qdisc change dev d0 root qcn help 2>&1)
	ktap_check "help prints the usage" bash -c "grep -q 'Usage: ... qcn' <<<'$usage'"
}

# shrinking limit trims a standing queue (paced at 200 kbit/s)
test_checks limit_trim 5
limit_trim()
{
	resolve
	# (interval 20000: a few samples within the 144 KB sent)
	nsx a tc qdisc add dev va root handle 1: qcn limit 150000 rate 200kbit interval 20000
	nsx a "$SEND" -d 10.9.0.2 -s 1400 -c 100 -r 50000000 >/dev/null
	S1=$(busywait 10000 dump_arrived 100)
	# the time average's span: 0.5 s of draining
	sleep 0.5
	S2=$(nsx a tc -s -j qdisc show dev va)
	# the time average between the two dumps lies between the backlogs seen
	# at them (frames only leave)
	read -r b1 n1 t1 <<<"$(jq -r '.[0] | "\(.backlog) \(.backlog_ns) \(.stamp_ns)"' <<<"$S1")"
	read -r b12 n2 t2 <<<"$(jq -r '.[0] | "\(.backlog) \(.backlog_ns) \(.stamp_ns)"' <<<"$S2")"
	# Q at the sampling instants (the sender may block on its socket buffer
	# while frames leave, so Q can rise and fall): each is at least the frame
	# that arrived and at most the limit; the last one is qold
	read -r ns sb qo <<<"$(jq -r '.[0] | "\(.samples) \(.sample_backlog) \(.qold)"' <<<"$S1")"
	ktap_info "sampling: $ns samples, sum of Q $sb B, qold $qo B"
	ktap_check "the queue at the samples (sum $sb B over $ns) lies in [a frame, the limit], qold $qo too" \
		test "$ns" -ge 1 -a "$sb" -ge $((ns * 1442)) -a "$sb" -le $((ns * 150000)) -a \
			"$sb" -ge "$qo" -a "$qo" -ge 1442 -a "$qo" -le 150000
	qavg=$(( (n2 - n1) / (t2 - t1 > 0 ? t2 - t1 : 1) ))
	ktap_info "time average: backlog $b1 -> $b12 B over $(( (t2 - t1) / 1000000 )) ms, mean $qavg B"
	ktap_check "the backlog's time average ($qavg B) lies between the backlogs $b12 and $b1 seen at its ends" \
		test "$qavg" -le "$b1" -a "$qavg" -ge "$b12" -a "$b12" -lt "$b1"
	# stamp_ns follows the clock: the dumps are 0.5 s apart
	ktap_bound dump_gap_ns $((t2 - t1)) in 400000000:5000000000 \
		"the time average spans the 0.5 s between the dumps ($(( (t2 - t1) / 1000000 )) ms)"
	# refill before trimming: the queue drains 25 KB/s, and a slow TCG guest
	# spent over 0.9 s on the two dumps above (6.12: 43260 B left, 15904 B by
	# the change); 40 more frames (56 KB, under the limit) keep it above 20000
	# drops: the qdisc's and qcn's own (tail_drops), which count the trim
	# alike; none happen between S2 and the trim (the queue only drains, and
	# the refill fits under the limit)
	read -r d1 td1 <<<"$(jq -r '.[0] | "\(.drops) \(.tail_drops)"' <<<"$S2")"
	nsx a "$SEND" -d 10.9.0.2 -s 1400 -c 40 -r 50000000 >/dev/null
	nsx a tc qdisc change dev va root qcn limit 20000
	S=$(nsx a tc -s -j qdisc show dev va)
	b2=$(printf '%s' "$S" | jq '.[0].backlog')
	d2=$(printf '%s' "$S" | jq '.[0].drops')
	td2=$(printf '%s' "$S" | jq '.[0].tail_drops')
	ktap_info "backlog $b1 -> $b12, 40 frames more, then $b2 after limit 20000, drops $d1 -> $d2, tail_drops $td1 -> $td2"
	ktap_bound standing_queue_bytes "$b1" '>' 40000 "a standing queue built up"
	ktap_check "shrinking the limit trims the queue, its drops counted in tail_drops too" \
		test "$b2" -le 20000 -a "$d2" -gt 0 -a $((td2 - td1)) -eq $((d2 - d1))
	nsx a tc qdisc del dev va root
}

# memory_limit: the queued skbs' truesize (>= their length) is bounded,
# frames past it are dropped and counted, a lower limit trims the queue
test_checks memory_limit 4
memory_limit()
{
	resolve
	nsx a tc qdisc add dev va root handle 1: qcn limit 1000000 memory_limit 100000 rate 200kbit
	ktap_check "memory_limit is dumped" \
		bash -c "ip netns exec $TB-a tc -j qdisc show dev va | jq -e '.[0].options.memory_limit == 100000' >/dev/null"
	nsx a "$SEND" -d 10.9.0.2 -s 1400 -c 150 -r 50000000 >/dev/null
	S=$(busywait 10000 dump_arrived 150)
	mu=$(printf '%s' "$S" | jq '.[0].memory_usage')
	bl=$(printf '%s' "$S" | jq '.[0].backlog')
	dom=$(printf '%s' "$S" | jq '.[0].drops_overmemory')
	dt=$(printf '%s' "$S" | jq '.[0].tail_drops')
	ktap_info "memory_limit 100000: backlog $bl B, memory_usage $mu B, drops_overmemory $dom, tail_drops $dt"
	ktap_check "memory_limit bounds the truesize ($mu <= 100000, >= backlog $bl), overmemory drops counted ($dom > 0), no tail drop ($dt)" \
		test "$mu" -le 100000 -a "$mu" -ge "$bl" -a "$dom" -gt 0 -a "$dt" -eq 0
	ktap_bound memlimit_backlog_bytes "$bl" '>' 20000 "a queue above 20000 B builds up under memory_limit ($bl B)"
	# refill (the queue drains 25 KB/s): over-memory drops at enqueue and the
	# trim's count in drops_overmemory as in drops
	read -r d1 dom1 <<<"$(jq -r '.[0] | "\(.drops) \(.drops_overmemory)"' <<<"$S")"
	nsx a "$SEND" -d 10.9.0.2 -s 1400 -c 40 -r 50000000 >/dev/null
	nsx a tc qdisc change dev va root qcn memory_limit 20000
	read -r mu2 d2 dom2 <<<"$(nsx a tc -s -j qdisc show dev va |
		jq -r '.[0] | "\(.memory_usage) \(.drops) \(.drops_overmemory)"')"
	ktap_check "lowering memory_limit trims the queue (memory_usage $mu -> $mu2 <= 20000), drops_overmemory counts it ($dom1 -> $dom2, drops $d1 -> $d2)" \
		test "$mu2" -le 20000 -a "$mu2" -lt "$mu" -a $((dom2 - dom1)) -eq $((d2 - d1))
	nsx a tc qdisc del dev va root
}

# rate paces the dequeue: a saturating sender, bytes sent over ~2 s
test_checks rate 1
rate()
{
	resolve
	nsx a tc qdisc add dev va root handle 1: qcn rate 10mbit
	nsx a "$SEND" -d 10.9.0.2 -s 1400 -t 4 >/dev/null &
	read -r t0 s0 <<<"$(busywait 20000 standing_bytes)"
	# the measurement: 2 s of paced dequeue
	sleep 2
	t1=$(date +%s%N); s1=$(nsx a tc -s -j qdisc show dev va | jq '.[0].bytes')
	kbit=$(( (s1 - s0) * 8 * 1000000 / (t1 - t0) ))
	ktap_info "rate 10mbit: $kbit kbit/s dequeued"
	ktap_bound --timing dequeue_rate_kbit "$kbit" in 8000:12000 \
		"rate 10mbit paces the dequeue to 10 Mbit/s +-20% ($kbit kbit/s)"
	wait
	nsx a tc qdisc del dev va root
}

# peek: under tbf and htb
test_checks children 3
children()
{
	resolve
	nsx a tc qdisc add dev va root handle 1: tbf rate 20mbit burst 20kb latency 50ms
	nsx a tc qdisc add dev va parent 1: handle 10: qcn rate 10mbit
	rx0=$(nsx b cat /sys/class/net/vb/statistics/rx_packets)
	nsx a "$SEND" -d 10.9.0.2 -s 1000 -c 100 -r 5000000 >/dev/null
	busywait 20000 received 100
	rx1=$(nsx b cat /sys/class/net/vb/statistics/rx_packets)
	ktap_check "qcn (paced) as the child of tbf forwards ($((rx1 - rx0)) of 100)" test $((rx1 - rx0)) -ge 100
	sent=$(nsx a tc -s -j qdisc show dev va | jq '.[] | select(.kind == "qcn") | .packets')
	ktap_check "the qcn child counted the frames ($sent)" test "$sent" -ge 100
	nsx a tc qdisc del dev va root
	nsx a tc qdisc add dev va root handle 1: htb default 1
	nsx a tc class add dev va parent 1: classid 1:1 htb rate 20mbit
	nsx a tc qdisc add dev va parent 1:1 handle 10: qcn rate 10mbit sched drr
	rx0=$(nsx b cat /sys/class/net/vb/statistics/rx_packets)
	nsx a "$SEND" -d 10.9.0.2 -s 1000 -c 100 -r 5000000 >/dev/null
	busywait 20000 received 100
	rx1=$(nsx b cat /sys/class/net/vb/statistics/rx_packets)
	ktap_check "qcn (paced, drr) as the child of htb forwards ($((rx1 - rx0)) of 100)" test $((rx1 - rx0)) -ge 100
}

ALL_TESTS="bad_values messages warnings class_options change_one usage
	limit_trim memory_limit rate children"
tests_plan setup kernel_log
setup
tests_run
kernel_log
ktap_finished
