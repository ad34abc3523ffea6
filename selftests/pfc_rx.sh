#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 802.1Qbb PFC reception (option pfc of qcn and qcn_rp): a PFC frame
# received on the qdisc's device pauses the frames of the priorities it
# names for its quanta at the port rate while the other priorities go on;
# time 0 (XON) resumes at once, a pause ends by itself when its quanta run
# out; malformed frames are counted and change nothing, and without pfc
# the same frame changes nothing.  The same for qcn_rp, also with its
# flows limited and for a frame that arrives on another link; then qcn on
# a bridge port, where the bridge drops PFC frames in its rx_handler.
#
#   h1 (qcn, then qcn_rp on eth0) --- sw-p1 [sw: br0] sw-pr (qcn) --- r
#
# h1 sends two UDP flows to r, SO_PRIORITY 1 (port 7001) and 2 (port
# 7002), 250 datagrams/s each; r counts each flow in an ingress filter.
# The ports run at 2 Mbit/s, where a quantum is 256 us: 65535 quanta
# pause a priority 16.8 s, far longer than any check below takes.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
SEND=$QCN_TOP/selftests/udp_send
PFC=$QCN_TOP/selftests/pfc_send
qcn_require_built "$SEND" "$PFC"
qcn_require_modules sch_qcn
qcn_dmesg_mark
tb_init
tb_star 1 || ktap_skip_all "cannot build the testbed"

RATE=2mbit
# 4000 quanta of 512 bit times at 2 Mbit/s, in ns
SHORT_Q=4000
SHORT_NS=$((SHORT_Q * 512 * 1000000000 / 2000000))
QCN_OPTS=(pfc rate "$RATE" limit 2000000)
# qcn_rp times pauses at its maxrate; n-aimd limiters started at
# start-rate stay while their flow sends (no timer raises them)
RP_BASE=(maxrate "$RATE" min-rate 100kbit limit 2000000)
RP_OPTS=(pfc "${RP_BASE[@]}")
RP_LIMITED=(mode n-aimd start-rate 1mbit)
# the qdisc on h1's eth0 the sections test, and their checks' prefix
KIND=qcn P=

# xj NS DEV JQ: JQ of the root qdisc's statistics (tc -s -j) on NS's DEV
xj() { qdisc_json "$1" "$2" | jq -r ".[0] | $3"; }
# pfc_state NS DEV: the PFC counters, one line
pfc_state() { xj "$1" "$2" '[.pfc_rx, .pfc_rx_xon, .pfc_rx_ignored, .pfc_paused_ns] | tostring'; }
# xj_is NS DEV JQ N: JQ is N
xj_is() { [ "$(xj "$1" "$2" "$3")" = "$4" ]; }
# rx PORT: the datagrams r has received for PORT
rx()
{
	local pref=$(($1 - 7000))
	nsx r tc -s -j filter show dev eth0 ingress |
		jq "[.[] | select(.pref == $pref) | .options.actions[0].stats.packets // empty] | add // 0"
}
# grown PORT BASE N: r has received N datagrams for PORT since it had BASE
grown() { [ "$(rx "$1")" -ge $(($2 + $3)) ]; }
# holds PORT N: the flow to PORT does not move while the other one (7001
# or 7002) receives N datagrams; "BEFORE AFTER" of PORT's count, status 1
# if the other one did not receive them
holds()
{
	local other=$((14003 - $1)) n b
	b=$(rx "$other")
	n=$(rx "$1")
	busywait 20000 grown "$other" "$b" "$2" >/dev/null
	echo "$n $(rx "$1")"
	grown "$other" "$b" "$2"
}
# same A B: two counts are equal
same() { [ "$1" -eq "$2" ]; }
# flowing: both flows reach r
flowing()
{
	local b1 b2
	b1=$(rx 7001) b2=$(rx 7002)
	busywait 20000 grown 7001 "$b1" 20 && busywait 20000 grown 7002 "$b2" 20
}

nsx r tc qdisc add dev eth0 clsact
nsx r tc filter add dev eth0 ingress pref 1 protocol ip flower ip_proto udp \
	dst_port 7001 action pass
nsx r tc filter add dev eth0 ingress pref 2 protocol ip flower ip_proto udp \
	dst_port 7002 action pass

# shows WORD JSON: h1's eth0 qdisc shows WORD in text, .options.pfc JSON
shows()
{
	nsx h1 tc qdisc show dev eth0 | grep -qw "$1" &&
		[ "$(nsx h1 tc -j qdisc show dev eth0 | jq '.[0].options.pfc')" = "$2" ]
}

test_checks setup 3
setup()
{
	nsx h1 tc qdisc add dev eth0 root handle 1: qcn "${QCN_OPTS[@]}"
	ktap_check "qcn accepts pfc" test $? -eq 0
	ktap_check "tc shows pfc, in text and JSON" shows pfc true
	nsbg h1 "$SEND" -d "$QCN_NET.100" -p 7001 -P 1 -s 100 -r 200kbit -t 600
	nsbg h1 "$SEND" -d "$QCN_NET.100" -p 7002 -P 2 -s 100 -r 200kbit -t 600
	ktap_check "priorities 1 and 2 flow" flowing
}

# XOFF for priority 1, 65535 quanta: priority 1 stops, 2 goes on
test_checks pause 4
pause()
{
	local h p t0 t1
	t0=$(date +%s%N)
	nsx sw "$PFC" -i sw-p1 -p 1=65535 >/dev/null
	ktap_check "${P}the XOFF is counted for priority 1" \
		busywait 10000 xj_is h1 eth0 '.pfc_rx | tostring' '[0,1,0,0,0,0,0,0]'
	# a frame dequeued before the XOFF may still be on its way
	busywait 20000 grown 7002 "$(rx 7002)" 10 >/dev/null
	h=$(holds 7001 50)
	ktap_check "${P}priority 2 flows while 1 is paused" test $? -eq 0
	ktap_check "${P}priority 1 sends nothing while paused (${h/ / -> })" same $h
	p=$(xj h1 eth0 '.pfc_paused_ns[1]')
	t1=$(date +%s%N)
	ktap_check "${P}pfc_paused_ns counts the pause so far ($p ns, <= $((t1 - t0)))" \
		test "$p" -gt 0 -a "$p" -le $((t1 - t0))
}

# XON: priority 1 resumes at once, its paused time stops growing
test_checks xon 3
xon()
{
	local n x0 p0
	x0=$(xj h1 eth0 .pfc_rx_xon)
	n=$(rx 7001)
	nsx sw "$PFC" -i sw-p1 -p 1=0 >/dev/null
	ktap_check "${P}XON resumes priority 1" busywait 10000 grown 7001 "$n" 20
	ktap_check "${P}the XON is counted" test "$(xj h1 eth0 .pfc_rx_xon)" -eq $((x0 + 1))
	p0=$(xj h1 eth0 '.pfc_paused_ns[1]')
	n=$(rx 7001)
	busywait 10000 grown 7001 "$n" 20 >/dev/null
	ktap_check "${P}priority 1's paused time stops at XON" \
		test "$(xj h1 eth0 '.pfc_paused_ns[1]')" -eq "$p0"
}

# a short pause (4000 quanta, 1.024 s at 2 Mbit/s) ends without XON
test_checks expire 3
expire()
{
	local n x0 p0 r0 t0 t1 ok
	x0=$(xj h1 eth0 .pfc_rx_xon)
	p0=$(xj h1 eth0 '.pfc_paused_ns[1]')
	r0=$(xj h1 eth0 '.pfc_rx[1]')
	t0=$(date +%s%N)
	nsx sw "$PFC" -i sw-p1 -p 1="$SHORT_Q" >/dev/null
	busywait 10000 xj_is h1 eth0 '.pfc_rx[1]' $((r0 + 1)) >/dev/null
	n=$(rx 7001)
	busywait 20000 grown 7001 "$n" 20 >/dev/null
	ok=$?
	t1=$(date +%s%N)
	ktap_check "${P}a pause of $SHORT_Q quanta ends by itself, after $(((t1 - t0) / 1000000)) ms (>= $((SHORT_NS / 1000000)))" \
		test "$ok" -eq 0 -a $((t1 - t0)) -ge "$SHORT_NS"
	ktap_check "${P}pfc_paused_ns grew by exactly the pause, $SHORT_NS ns" \
		test $(($(xj h1 eth0 '.pfc_paused_ns[1]') - p0)) -eq "$SHORT_NS"
	ktap_check "${P}no XON was counted" test "$(xj h1 eth0 .pfc_rx_xon)" -eq "$x0"
}

# malformed frames, each otherwise an XOFF of priority 1: counted, ignored
test_checks malformed 3
malformed()
{
	local s0 i0 m n
	s0=$(pfc_state h1 eth0)
	i0=$(xj h1 eth0 .pfc_rx_ignored)
	for m in pause reserved truncated dest; do
		nsx sw "$PFC" -i sw-p1 -p 1=65535 -m "$m" >/dev/null
	done
	ktap_check "${P}4 malformed frames counted in pfc_rx_ignored" \
		busywait 10000 xj_is h1 eth0 .pfc_rx_ignored $((i0 + 4))
	n=$(rx 7001)
	ktap_check "${P}priority 1 flows on" busywait 20000 grown 7001 "$n" 50
	ktap_check "${P}nothing else changed" test \
		"$(pfc_state h1 eth0 | jq -c '.[2] = 0')" = "$(jq -c '.[2] = 0' <<<"$s0")"
}

# rejected: pfc needs an Ethernet device; pfc and nopfc exclude each other
test_checks rejects 3
rejects()
{
	ktap_rejected "pfc on a loopback device" "nsx h1 tc qdisc show dev lo" \
		nsx h1 tc qdisc add dev lo root qcn pfc
	ktap_rejected "pfc nopfc" "nsx h1 tc qdisc show dev eth0" \
		nsx h1 tc qdisc change dev eth0 root qcn pfc nopfc
	ktap_rejected "pfc takes no value" "nsx h1 tc qdisc show dev eth0" \
		nsx h1 tc qdisc change dev eth0 root qcn pfc on
}

# nopfc: the same XOFF changes nothing
test_checks pfc_off 3
pfc_off()
{
	local s0 n
	nsx h1 tc qdisc change dev eth0 root "$KIND" nopfc
	ktap_check "${P}tc shows nopfc, in text and JSON" shows nopfc false
	s0=$(pfc_state h1 eth0)
	nsx sw "$PFC" -i sw-p1 -p 1=65535 >/dev/null
	n=$(rx 7001)
	ktap_check "${P}nopfc: priority 1 flows on after an XOFF" busywait 20000 grown 7001 "$n" 50
	ktap_check "${P}nopfc: no counter moved" test "$(pfc_state h1 eth0)" = "$s0"
}

# qcn_rp with pfc in qcn's place; the sections above run again with it
test_checks rp_setup 3
rp_setup()
{
	KIND=qcn_rp P="qcn_rp: "
	nsx h1 tc qdisc del dev eth0 root
	nsx h1 tc qdisc add dev eth0 root handle 1: qcn_rp "${RP_OPTS[@]}"
	ktap_check "qcn_rp accepts pfc" test $? -eq 0
	ktap_check "qcn_rp: tc shows pfc, in text and JSON" shows pfc true
	ktap_check "qcn_rp: priorities 1 and 2 flow" flowing
}

# limited: h1's qcn_rp has a limiter for each flow (and may have more:
# h1's ARP and IPv6 frames are flows too)
limited() { [ "$(xj h1 eth0 .limiters_active)" -ge 2 ]; }

# pause_limited NAME: an XOFF of priority 1 holds its flow back while
# priority 2's goes on, an XON resumes it (3 checks)
pause_limited()
{
	local h n
	nsx sw "$PFC" -i sw-p1 -p 1=65535 >/dev/null
	busywait 10000 xj_is h1 eth0 '.pfc_rx[1]' 1 >/dev/null
	busywait 20000 grown 7002 "$(rx 7002)" 10 >/dev/null
	h=$(holds 7001 50)
	ktap_check "$1: priority 2 flows while 1 is paused" test $? -eq 0
	ktap_check "$1: priority 1 sends nothing while paused (${h/ / -> })" same $h
	n=$(rx 7001)
	nsx sw "$PFC" -i sw-p1 -p 1=0 >/dev/null
	ktap_check "$1: XON resumes priority 1" busywait 10000 grown 7001 "$n" 20
}

# both flows limited (n-aimd limiters from their first frame): a pause
# holds a limiter back, the other band's limiter goes on
test_checks rp_limited 5
rp_limited()
{
	nsx h1 tc qdisc del dev eth0 root
	nsx h1 tc qdisc add dev eth0 root handle 1: qcn_rp "${RP_OPTS[@]}" \
		"${RP_LIMITED[@]}"
	flowing
	ktap_check "qcn_rp: both flows are limited" limited
	pause_limited "qcn_rp, limited"
	ktap_check "qcn_rp, limited: the flows stayed limited" limited
	nsx h1 tc qdisc del dev eth0 root
	nsx h1 tc qdisc add dev eth0 root handle 1: qcn_rp "${RP_OPTS[@]}"
}

# the same flows limited before pfc goes on: an idle limiter takes its
# flow's band from its next frame
test_checks rp_limited_before 3
rp_limited_before()
{
	nsx h1 tc qdisc del dev eth0 root
	nsx h1 tc qdisc add dev eth0 root handle 1: qcn_rp nopfc "${RP_BASE[@]}" \
		"${RP_LIMITED[@]}"
	flowing
	nsx h1 tc qdisc change dev eth0 root qcn_rp pfc
	pause_limited "qcn_rp, limited before pfc"
	nsx h1 tc qdisc del dev eth0 root
	nsx h1 tc qdisc add dev eth0 root handle 1: qcn_rp "${RP_OPTS[@]}"
}

# a PFC frame pauses the link it arrives on: one sent to h1 on another
# device (a veth pair inside h1, pa -> pb) pauses nothing on eth0
test_checks rp_other_link 2
rp_other_link()
{
	local s0 n
	nsx h1 ip link add name pa type veth peer name pb
	nsx h1 ip link set pa up
	nsx h1 ip link set pb up
	s0=$(pfc_state h1 eth0)
	nsx h1 "$PFC" -i pa -p 1=65535 -p 2=65535 >/dev/null
	n=$(rx 7001)
	ktap_check "qcn_rp: priority 1 flows on after an XOFF on another link" \
		busywait 20000 grown 7001 "$n" 50
	ktap_check "qcn_rp: eth0 counted nothing" test "$(pfc_state h1 eth0)" = "$s0"
	nsx h1 ip link del pa
}

# turning pfc off ends a pause in force
test_checks rp_off_resumes 2
rp_off_resumes()
{
	local n
	nsx h1 tc qdisc change dev eth0 root qcn_rp pfc
	nsx sw "$PFC" -i sw-p1 -p 1=65535 >/dev/null
	busywait 20000 grown 7002 "$(rx 7002)" 10 >/dev/null
	n=$(holds 7001 20)
	ktap_check "qcn_rp: priority 1 is paused again" same $n
	n=$(rx 7001)
	nsx h1 tc qdisc change dev eth0 root qcn_rp nopfc
	ktap_check "qcn_rp: nopfc resumes priority 1 at once" busywait 10000 grown 7001 "$n" 20
}

# rejected: pfc and nopfc exclude each other, pfc takes no value
test_checks rp_rejects 2
rp_rejects()
{
	ktap_rejected "qcn_rp: pfc nopfc" "nsx h1 tc qdisc show dev eth0" \
		nsx h1 tc qdisc change dev eth0 root qcn_rp pfc nopfc
	ktap_rejected "qcn_rp: pfc takes no value" "nsx h1 tc qdisc show dev eth0" \
		nsx h1 tc qdisc change dev eth0 root qcn_rp pfc on
}

# the same on a bridge port (sched drr, occupancy sampling: the flows and
# their index split by band); the switch gives the flows their priority
# by port on egress (veth clears skb->priority)
test_checks bridge 4
bridge()
{
	local h
	nsx h1 tc qdisc del dev eth0 root
	nsx sw tc qdisc add dev sw-pr root handle 1: qcn "${QCN_OPTS[@]}" \
		sched drr sample occupancy
	nsx sw tc qdisc add dev sw-pr clsact
	nsx sw tc filter add dev sw-pr egress pref 1 protocol ip flower ip_proto udp \
		dst_port 7001 action skbedit priority 1
	nsx sw tc filter add dev sw-pr egress pref 2 protocol ip flower ip_proto udp \
		dst_port 7002 action skbedit priority 2
	flowing
	nsx r "$PFC" -i eth0 -p 1=65535 >/dev/null
	ktap_check "bridge port: the XOFF the bridge drops is counted" \
		busywait 10000 xj_is sw sw-pr '.pfc_rx | tostring' '[0,1,0,0,0,0,0,0]'
	busywait 20000 grown 7002 "$(rx 7002)" 10 >/dev/null
	h=$(holds 7001 50)
	ktap_check "bridge port: priority 2 flows while 1 is paused" test $? -eq 0
	ktap_check "bridge port: priority 1 sends nothing while paused (${h/ / -> })" same $h
	h=$(rx 7001)
	nsx r "$PFC" -i eth0 -p 1=0 >/dev/null
	ktap_check "bridge port: XON resumes priority 1" busywait 10000 grown 7001 "$h" 20
}

ALL_TESTS="pause xon expire malformed rejects pfc_off
	rp_setup pause xon expire malformed rp_limited rp_limited_before
	rp_other_link pfc_off
	rp_off_resumes rp_rejects bridge"
tests_plan setup kernel_log
setup
tests_run
kernel_log
ktap_finished
