#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PFC generation at a switch (qcn pfc-xoff): h1's frames, priority 3 by
# the switch's classification, back up behind a 500 kbit/s port to r.  Above
# pfc-xoff the switch pauses h1's priority 3 with 802.1Qbb frames that
# tshark decodes as PFC, re-sends the pause while the backlog stays above
# pfc-xon, and releases it (time 0) below pfc-xon, not before; turning PFC
# off releases a held pause; without pfc-xoff no PFC frame is sent; bad
# settings are refused and change nothing.
#
#	h1 --- sw-p1 (pfc-xoff) -+- [sw: br0] - sw-pr (qcn rate 500kbit) --- r
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq tcpdump tshark iperf3
qcn_require_modules sch_qcn
qcn_require_built "$QCN_TOP/selftests/udp_send"
TMP=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$TMP"' EXIT

XOFF=80000 XON=16000 QUANTA=500		# 500 quanta at 1 Mbit/s: 256 ms
ALL_TESTS="generate release off reject"
# pfc KEY [PRIO]: a PFC counter of sw-p1's qcn (0 while it has counted none)
pfc() { qdisc_json sw sw-p1 | jq -r ".[0].$1[${2:-3}] // 0"; }
above() { [ "$(pfc "$1")" -ge "$2" ]; }
drained() { [ "$(pfc pfc_ingress_bytes)" -eq 0 ]; }

# ports [PFC-OPTS...]: fresh qdiscs, sw-p1's qcn with PFC-OPTS
ports()
{
	nsx sw tc qdisc del dev sw-pr root 2>/dev/null
	nsx sw tc qdisc del dev sw-p1 root 2>/dev/null
	nsx sw tc qdisc add dev sw-pr root qcn rate 500kbit limit 1000000
	nsx sw tc qdisc add dev sw-p1 root qcn rate 1mbit "$@"
}

# capture FILE: PFC frames reaching h1, until stop_capture
capture()
{
	nsbg h1 tcpdump -Z root -U --immediate-mode -n -i eth0 -w "$1" \
		ether proto 0x8808 2>"$1.log"
	CAP=$TB_LAST_PID
	busywait 30000 grep -q "listening on" "$1.log"
}
stop_capture() { kill -INT "$CAP" 2>/dev/null; wait "$CAP" 2>/dev/null; }

# frames FILE: "src dst enable time3" per PFC frame tshark decodes
frames()
{
	tshark -n -r "$1" -Y macc.opcode==0x0101 -T fields -e eth.src -e eth.dst \
		-e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 2>/dev/null
}

# overload PORT: 3 Mbit/s for 1.5 s into the 500 kbit/s port, a backlog
# of ~470 KB that drains in ~7.5 s (each phase its own iperf3 server's PORT)
overload() { udp_flow h1 3mbit 1.5 "$1" 1000; SND=$TB_LAST_PID; }

test_checks generate 8
generate()
{
	ports pfc-xoff $XOFF pfc-xon $XON pfc-quanta $QUANTA
	capture "$TMP/gen.pcap"
	overload 5201
	ktap_check "XOFF once priority 3's backlog passes pfc-xoff" \
		busywait 20000 above pfc_xoff_sent 1
	ktap_info "sw-pr $(qdisc_json sw sw-pr | jq -c '.[0] | [.packets, .backlog, .drops]')," \
		"sw-p1 ingress max $(qdisc_json sw sw-p1 | jq -c '.[0].pfc_ingress_max')"
	ktap_check "the pause is re-sent while the backlog stays above pfc-xon" \
		busywait 20000 above pfc_xoff_sent 3
	# draining at 500 kbit/s, the backlog spends ~1 s between the
	# thresholds: a dump there must find the pause still held (catching
	# that window takes a testbed whose dumps are fast: a rate check)
	local b x seen="" end=$(($(date +%s) + 20))
	while [ "$(date +%s)" -lt $end ]; do
		read -r b x <<<"$(qdisc_json sw sw-p1 |
			jq -r '.[0] | "\(.pfc_ingress_bytes[3]) \(.pfc_xon_sent[3])"')"
		if [ "${b:-0}" -lt $XOFF ] && [ "${b:-0}" -gt $XON ]; then
			seen="$b $x"
			break
		fi
	done
	ktap_rate_check "hysteresis: between pfc-xon and pfc-xoff (${seen%% *} bytes) no XON yet" \
		test -n "$seen" -a "${seen#* }" = 0
	ktap_check "XON once the backlog falls below pfc-xon" \
		busywait 20000 above pfc_xon_sent 1
	wait "$SND"
	ktap_check "every byte counted is given back (pfc_ingress_bytes 0)" \
		busywait 20000 drained
	local others
	others=$(qdisc_json sw sw-p1 | jq '[.[0] | .pfc_xoff_sent, .pfc_ingress_max |
		to_entries[] | select(.key != 3) | .value] | add')
	ktap_check "other priorities count nothing ($others)" test "$others" -eq 0
	stop_capture
	frames "$TMP/gen.pcap" > "$TMP/gen.txt"
	local n xoff xon bad
	n=$(grep -c . "$TMP/gen.txt")
	xoff=$(pfc pfc_xoff_sent)
	xon=$(pfc pfc_xon_sent)
	ktap_check "h1 received the $((xoff + xon)) PFC frames counted, decoded by tshark ($n)" \
		test "$n" -eq $((xoff + xon))
	bad=$(awk -v src="$P1_MAC" -v q=$QUANTA '
		$1 != src || $2 != "01:80:c2:00:00:01" || $3 != "0x0008" { bad++; next }
		{ last = $4; if ($4 != q && $4 != 0) bad++ }
		END { if (last != 0) bad++; print bad + 0 }' "$TMP/gen.txt")
	ktap_check "each from sw-p1 to 01:80:c2:00:00:01, priority 3 alone, time $QUANTA or 0, the last 0" \
		test "$bad" -eq 0
}

test_checks release 2
release()
{
	ports pfc-xoff $XOFF pfc-xon $XON pfc-quanta $QUANTA
	capture "$TMP/rel.pcap"
	overload 5202
	busywait 20000 above pfc_xoff_sent 1 >/dev/null
	nsx sw tc qdisc change dev sw-p1 root qcn pfc-xoff 0
	wait "$SND"
	stop_capture
	ktap_check "pfc-xoff 0 releases the held pause (last frame time 0)" \
		test "$(frames "$TMP/rel.pcap" | tail -n1 | cut -f4)" = 0
	ktap_check "and PFC leaves the options" \
		sh -c "! ip netns exec $TB-sw tc qdisc show dev sw-p1 | grep -q pfc-x"
}

test_checks off 2
off()
{
	ports
	capture "$TMP/off.pcap"
	overload 5203
	wait "$SND"
	stop_capture
	ktap_check "without pfc-xoff no PFC frame is sent" \
		test "$(frames "$TMP/off.pcap" | grep -c .)" -eq 0
	ktap_check "and no PFC counter shows" \
		test "$(qdisc_json sw sw-p1 | jq '.[0] | has("pfc_xoff_sent")')" = false
}

test_checks reject 5
reject()
{
	local state="ip netns exec $TB-sw tc qdisc show dev sw-p1"
	ports pfc-xoff $XOFF
	ktap_rejected "pfc-xon above pfc-xoff" "$state" \
		nsx sw tc qdisc change dev sw-p1 root qcn pfc-xon $((XOFF + 1))
	ktap_rejected "pfc-quanta 0" "$state" \
		nsx sw tc qdisc change dev sw-p1 root qcn pfc-quanta 0
	ktap_rejected "pfc-quanta 65536" "$state" \
		nsx sw tc qdisc change dev sw-p1 root qcn pfc-quanta 65536
	ports
	ktap_rejected "pfc-xon without pfc-xoff" "$state" \
		nsx sw tc qdisc change dev sw-p1 root qcn pfc-xon 1000
	ktap_rejected "PFC on a device that is not Ethernet" \
		"ip netns exec $TB-sw tc qdisc show dev lo" \
		nsx sw tc qdisc add dev lo root qcn pfc-xoff $XOFF
}

tests_plan kernel_log
qcn_dmesg_mark
tb_init
tb_star 1 || ktap_skip_all "cannot build the testbed"
nsx sw sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
# the switch classifies h1's frames into priority 3
nsx sw tc qdisc add dev sw-p1 clsact
nsx sw tc filter add dev sw-p1 ingress matchall action skbedit priority 3
P1_MAC=$(ip -n "$TB-sw" -br link show dev sw-p1 | awk '{print $3}')
udp_servers r 5201 5202 5203

tests_run
kernel_log
ktap_finished
