#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lossless Ethernet from PFC generation and reception together.  A host
# offers 3 Mbit/s of priority 3 into a 1 Mbit/s port.  Without PFC the
# port tail-drops.  With the occupancy-sampling paper's thresholds
# (Table I: pfc-xoff 110 KB, pfc-xon 44 KB, in a 150 KB port buffer) the
# switch pauses the host before its buffer fills and the host's qcn holds
# the frames (its socket then blocks): nothing drops and r receives every
# datagram sent.  The same with a reaction point as h1's NIC: qcn_rp,
# under a tbf that gives the veth the line rate PFC's headroom is sized
# for (unpaced, a paused backlog would reach the switch all at once).
# Across two switches the pause spreads hop by hop: the paused uplink
# fills and its switch pauses the host (a saturation tree).
#
#	h1 (pfc) --- sw-p1 (pfc-xoff) -+- [sw] - sw-pr (1 Mbit/s) --- r
#
#	h2 (pfc) --- sw1-h2 (pfc-xoff) -+- [sw1] - sw1-up (pfc) ---
#	    --- sw2-dn (pfc-xoff) -+- [sw2] - sw2-r2 (1 Mbit/s) --- r2
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules sch_qcn
QS=$QCN_TOP/tools/qcnstat
qcn_require_built "$QCN_TOP/selftests/udp_send" "$QS"
TMP=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$TMP"' EXIT

LINK=10mbit LIMIT=150000 XOFF=110000 XON=44000
GEN=(pfc-xoff "$XOFF" pfc-xon "$XON")
ALL_TESTS="lossy lossless lossless_rp tree"

# xs NS DEV KEY: a statistic of NS's DEV's root qdisc (0 while absent)
xs() { qdisc_json "$1" "$2" | jq -r ".[0].$3 // 0"; }
# rps KEY: a statistic of h1's qcn_rp
rps() { qdisc_json h1 eth0 | jq -r ".[] | select(.kind == \"qcn_rp\") | .$1 // 0"; }
drops() { xs "$1" "$2" drops; }
# received NS: the datagrams NS's eth0 has received for port 7003
received()
{
	nsx "$1" tc -s -j filter show dev eth0 ingress |
		jq '[.[] | .options.actions[0].stats.packets // empty] | add // 0'
}
# empty NS:DEV...: nothing is queued in these qdiscs
empty()
{
	local d
	for d in "$@"; do
		[ "$(xs "${d%%:*}" "${d#*:}" qlen)" = 0 ] || return 1
	done
}
# count_rx NS: a fresh count of NS's UDP datagrams for port 7003
count_rx()
{
	nsx "$1" tc qdisc del dev eth0 clsact 2>/dev/null
	nsx "$1" tc qdisc add dev eth0 clsact
	nsx "$1" tc filter add dev eth0 ingress pref 1 protocol ip flower \
		ip_proto udp dst_port 7003 action pass
}
# the one-switch path; PFC on with "pfc", h1's qdisc qcn_rp with "rp"
star()
{
	local gen=() rx=()
	[ "${1:-}" = pfc ] && { gen=("${GEN[@]}"); rx=(pfc); }
	if [ "${2:-}" = rp ]; then
		nsx h1 tc qdisc del dev eth0 root 2>/dev/null
		nsx h1 tc qdisc add dev eth0 root handle 1: tbf rate $LINK \
			burst 3000 latency 1s
		nsx h1 tc qdisc add dev eth0 parent 1: qcn_rp maxrate $LINK \
			min-rate 1mbit limit 2000000 "${rx[@]}"
	else
		nsx h1 tc qdisc replace dev eth0 root qcn rate $LINK limit 2000000 "${rx[@]}"
	fi
	nsx sw tc qdisc del dev sw-p1 root 2>/dev/null
	nsx sw tc qdisc add dev sw-p1 root qcn rate $LINK "${gen[@]}"
	nsx sw tc qdisc del dev sw-pr root 2>/dev/null
	nsx sw tc qdisc add dev sw-pr root qcn rate 1mbit limit $LIMIT
	count_rx r
}

test_checks lossy 2
lossy()
{
	local sent got

	star
	sent=$(pfc_overload h1 100 3)
	busywait 30000 empty h1:eth0 sw:sw-pr > /dev/null
	got=$(received r)
	ktap_check "without PFC sw-pr tail-drops ($(drops sw sw-pr) frames)" \
		test "$(drops sw sw-pr)" -gt 0
	ktap_check "and r misses datagrams (${got} of ${sent:-?})" \
		test -n "$sent" -a "$got" -lt "${sent:-0}"
}

# lossless_run [rp]: the overload with PFC on, h1's qdisc as star's; the
# datagrams h1 sent
lossless_run()
{
	star pfc "$@"
	pfc_overload h1 100 3
	busywait 60000 empty h1:eth0 sw:sw-pr > /dev/null
}

test_checks lossless 6
lossless()
{
	local sent got

	sent=$(lossless_run)
	got=$(received r)
	ktap_info "sw-p1: pfc_xoff_sent $(xs sw sw-p1 'pfc_xoff_sent[3]')," \
		"pfc_ingress_max $(xs sw sw-p1 'pfc_ingress_max[3]');" \
		"h1: pfc_rx $(xs h1 eth0 'pfc_rx[3]')," \
		"paused $(xs h1 eth0 'pfc_paused_ns[3]') ns; sent $sent"
	ktap_check "sw-p1 pauses h1's priority 3" test "$(xs sw sw-p1 'pfc_xoff_sent[3]')" -gt 0
	ktap_check "h1 honours it" test "$(xs h1 eth0 'pfc_rx[3]')" -gt 0
	ktap_check "no drop in the switch (sw-pr $(drops sw sw-pr), sw-p1 $(drops sw sw-p1))" \
		test "$(drops sw sw-pr)" -eq 0 -a "$(drops sw sw-p1)" -eq 0
	ktap_check "no drop at h1, whose qdisc holds what the pause holds back" \
		test "$(drops h1 eth0)" -eq 0
	ktap_check "r receives every datagram h1 sent ($got of ${sent:-?})" \
		test -n "$sent" -a "$got" = "${sent:-x}"
	nsx sw "$QS" -d sw-p1 -c 1 > "$TMP/sw.csv"
	nsx h1 "$QS" -d eth0 -c 1 > "$TMP/h1.csv"
	ktap_check "qcnstat shows the pauses sent and received" test \
		"$(qcnstat_cols "$TMP/sw.csv" pfc_xoff_sent) $(qcnstat_cols "$TMP/h1.csv" pfc_rx)" = \
		"$(xs sw sw-p1 'pfc_xoff_sent[3]') $(xs h1 eth0 'pfc_rx[3]')"
}

test_checks lossless_rp 6
lossless_rp()
{
	local sent got

	sent=$(lossless_run rp)
	got=$(received r)
	ktap_info "qcn_rp: sw-p1: pfc_xoff_sent $(xs sw sw-p1 'pfc_xoff_sent[3]')," \
		"pfc_ingress_max $(xs sw sw-p1 'pfc_ingress_max[3]');" \
		"h1: pfc_rx $(rps 'pfc_rx[3]')," \
		"paused $(rps 'pfc_paused_ns[3]') ns; sent $sent"
	ktap_check "qcn_rp: sw-p1 pauses h1's priority 3" \
		test "$(xs sw sw-p1 'pfc_xoff_sent[3]')" -gt 0
	ktap_check "qcn_rp: h1 honours it" test "$(rps 'pfc_rx[3]')" -gt 0
	ktap_check "qcn_rp: no drop in the switch (sw-pr $(drops sw sw-pr), sw-p1 $(drops sw sw-p1))" \
		test "$(drops sw sw-pr)" -eq 0 -a "$(drops sw sw-p1)" -eq 0
	ktap_check "qcn_rp: no drop at h1, whose qdiscs hold what the pause holds back" \
		test "$(drops h1 eth0)" -eq 0 -a "$(rps drops)" -eq 0
	ktap_check "qcn_rp: r receives every datagram h1 sent ($got of ${sent:-?})" \
		test -n "$sent" -a "$got" = "${sent:-x}"
	nsx h1 "$QS" -d eth0 -c 1 > "$TMP/h1-rp.csv"
	ktap_check "qcn_rp: qcnstat shows the pauses received" \
		test "$(qcnstat_cols "$TMP/h1-rp.csv" pfc_rx)" = "$(rps 'pfc_rx[3]')"
}

test_checks tree 6
tree()
{
	local sent got

	nsx h2 tc qdisc replace dev eth0 root qcn rate $LINK limit 2000000 pfc
	nsx sw1 tc qdisc replace dev sw1-h2 root qcn rate $LINK "${GEN[@]}"
	nsx sw1 tc qdisc replace dev sw1-up root qcn rate $LINK limit $LIMIT pfc
	nsx sw2 tc qdisc replace dev sw2-dn root qcn rate $LINK "${GEN[@]}"
	nsx sw2 tc qdisc replace dev sw2-r2 root qcn rate 1mbit limit $LIMIT
	count_rx r2
	sent=$(pfc_overload h2 102 3)
	busywait 60000 empty h2:eth0 sw1:sw1-up sw2:sw2-r2 > /dev/null
	got=$(received r2)
	ktap_info "sw2-dn: pfc_xoff_sent $(xs sw2 sw2-dn 'pfc_xoff_sent[3]');" \
		"sw1-up: pfc_rx $(xs sw1 sw1-up 'pfc_rx[3]'), paused $(xs sw1 sw1-up 'pfc_paused_ns[3]') ns;" \
		"sw1-h2: pfc_xoff_sent $(xs sw1 sw1-h2 'pfc_xoff_sent[3]'); h2: pfc_rx $(xs h2 eth0 'pfc_rx[3]');" \
		"sent $sent"
	ktap_check "sw2 pauses sw1's uplink" test "$(xs sw2 sw2-dn 'pfc_xoff_sent[3]')" -gt 0
	ktap_check "sw1-up honours it" test "$(xs sw1 sw1-up 'pfc_rx[3]')" -gt 0
	ktap_check "the paused uplink's backlog makes sw1 pause h2" \
		test "$(xs sw1 sw1-h2 'pfc_xoff_sent[3]')" -gt 0
	ktap_check "h2 honours it" test "$(xs h2 eth0 'pfc_rx[3]')" -gt 0
	ktap_check "no drop in either switch (sw2-r2 $(drops sw2 sw2-r2), sw1-up $(drops sw1 sw1-up))" \
		test "$(drops sw2 sw2-r2)" -eq 0 -a "$(drops sw1 sw1-up)" -eq 0
	ktap_check "r2 receives every datagram h2 sent ($got of ${sent:-?})" \
		test -n "$sent" -a "$got" = "${sent:-x}"
}

tests_plan kernel_log
qcn_dmesg_mark
tb_init
{ tb_star 1 && tb_switch sw1 && tb_switch sw2 &&
	tb_host h2 2 sw1 sw1-h2 && tb_host r2 102 sw2 sw2-r2 &&
	tb_link sw1 sw1-up sw2 sw2-dn && tb_learn h2:102; } ||
	ktap_skip_all "cannot build the testbed"
# the switches classify the frames of their inputs into priority 3, the
# priority the hosts' sockets give them (veth does not carry skb->priority
# across namespaces)
for p in sw:sw-p1 sw1:sw1-h2 sw2:sw2-dn; do
	nsx "${p%%:*}" tc qdisc add dev "${p#*:}" clsact
	nsx "${p%%:*}" tc filter add dev "${p#*:}" ingress matchall action skbedit priority 3
done

tests_run
kernel_log
ktap_finished
