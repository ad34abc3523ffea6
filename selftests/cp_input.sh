#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Congestion points at the switch's input buffer (qcn cp input): the CP of
# sw-p1 measures the bytes of h1's frames queued behind sw-pr's 2 Mbit/s
# port and sends CNMs to h1 out of sw-p1, by arrival, occupancy or
# two-samples, and by keep-alive while the input holds more than Qeq and
# receives nothing; h2's input, without one, gets none; cp none samples
# nothing, both placements work at once, cp output removes the input CP,
# bad settings are refused and change nothing.
#
#	h1 --- sw-p1 (cp input) -+- [sw: br0] - sw-pr (qcn rate 2mbit) --- r
#	h2 --- sw-p2 -----------/
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules sch_qcn
qcn_require_built "$QCN_TOP/selftests/cnm_dump" "$QCN_TOP/selftests/udp_send"
TMP=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$TMP"' EXIT

QEQ=20000
ALL_TESTS="arrival occupancy two keepalive both off reject"
# xs DEV KEY: a counter of DEV's qcn in sw (0 while it shows none)
xs() { qdisc_json sw "$1" | jq -r ".[0].$2 // 0"; }
above() { [ "$(xs "$1" "$2")" -ge "$3" ]; }
drained() { [ "$(xs sw-p1 'pfc_ingress_bytes[0]')" -eq 0 ]; }

# ports OUT-OPTS -- P1-OPTS: fresh qdiscs on sw-pr, sw-p1 and sw-p2 (a
# short sampling interval at sw-p1: many samples of a small overload)
ports()
{
	local out=()
	while [ "$1" != -- ]; do out+=("$1"); shift; done
	shift
	local d
	for d in sw-pr sw-p1 sw-p2; do
		nsx sw tc qdisc del dev $d root 2>/dev/null
	done
	nsx sw tc qdisc add dev sw-pr root qcn rate 2mbit limit 1000000 \
		qeq $QEQ "${out[@]}"
	nsx sw tc qdisc add dev sw-p1 root qcn qeq $QEQ interval 15000 "$@"
	nsx sw tc qdisc add dev sw-p2 root qcn qeq $QEQ
}

# overload NAME PORT: h1 at 4 Mbit/s and h2 at 2 Mbit/s for 2 s into the
# 2 Mbit/s port, the CNMs reaching h1 and h2 captured from before the
# first frame until 5 s later into $TMP/NAME.h1 and $TMP/NAME.h2
overload()
{
	local h pids=()
	for h in h1 h2; do
		nsbg $h "$QCN_TOP/selftests/cnm_dump" -i eth0 -t 6 > "$TMP/$1.$h"
		pids+=("$TB_LAST_PID")
		busywait 10000 sh -c "ip netns exec $TB-$h ss -0 -H | grep -q ." >/dev/null
	done
	udp_flow h1 4mbit 2 "$2" 1000
	udp_flow h2 2mbit 2 $(($2 + 10)) 1000
	wait "${pids[@]}"
}

# bad FILE MAC DST: CNMs in FILE from MAC not to DST, or with qFb 0
bad_cnms()
{
	awk -v src="$2" -v dst="$3" '/^cnm / {
		ok = 0
		for (i = 2; i <= NF; i++) {
			if ($i == "src=" src || $i == "dst=" dst) ok++
			if ($i ~ /^qfb=/ && $i != "qfb=0") ok++
		}
		if (ok != 3) n++
	} END { print n + 0 }' "$1"
}

test_checks arrival 8
arrival()
{
	ports cp none -- cp input
	overload arr 5201
	local n sent
	n=$(grep -c "^cnm " "$TMP/arr.h1")
	sent=$(xs sw-p1 in_cnm_arrival)
	ktap_info "sw-p1: $(qdisc_json sw sw-p1 | jq -c '.[0] | [.in_samples,
		.in_cnm_arrival, .in_cnm_skipped, .in_cnm_fail, .pfc_ingress_max[0]]')"
	ktap_check "the input CP samples h1's input" above sw-p1 in_samples 1
	ktap_check "and sends h1 CNMs by arrival ($sent)" test "$sent" -gt 0
	ktap_check "h1 receives each CNM counted ($n of $sent)" test "$n" -eq "$sent"
	ktap_check "each from sw-p1 to h1, with qFb > 0" \
		test "$(bad_cnms "$TMP/arr.h1" "$P1_MAC" "$H1_MAC")" -eq 0
	ktap_check "without keepalive, no keep-alive sample" \
		test "$(xs sw-p1 in_keepalive_samples)" -eq 0
	ktap_check "h2's input has no input CP: h2 receives no CNM" \
		test "$(grep -c "^cnm " "$TMP/arr.h2")" -eq 0
	local held
	held=$(xs sw-p1 'pfc_ingress_max[0]')
	ktap_check "cp none: sw-pr, holding $held bytes of h1's (Qeq $QEQ), samples nothing" \
		test "$(xs sw-pr samples)" -eq 0 -a "$held" -gt $QEQ
	ktap_check "every byte counted is given back (ingress bytes 0)" \
		busywait 20000 drained
}

test_checks occupancy 3
occupancy()
{
	ports cp none -- cp input sample occupancy
	overload occ 5202
	local sent
	sent=$(xs sw-p1 in_cnm_occupancy)
	ktap_check "cp input sample occupancy: CNMs by occupancy ($sent), none by arrival" \
		test "$sent" -gt 0 -a "$(xs sw-p1 in_cnm_arrival)" -eq 0
	ktap_check "h1 receives each ($(grep -c "^cnm " "$TMP/occ.h1"))" \
		test "$(grep -c "^cnm " "$TMP/occ.h1")" -eq "$sent"
	ktap_check "each from sw-p1 to h1, with qFb > 0" \
		test "$(bad_cnms "$TMP/occ.h1" "$P1_MAC" "$H1_MAC")" -eq 0
}

test_checks two 3
two()
{
	ports cp none -- cp input sample two-samples
	overload two 5206
	local sent
	sent=$(xs sw-p1 in_cnm_two_samples)
	ktap_check "cp input sample two-samples: CNMs by two-samples ($sent), none by the others" \
		test "$sent" -gt 0 -a "$(xs sw-p1 in_cnm_occupancy)" -eq 0 -a \
		"$(xs sw-p1 in_cnm_arrival)" -eq 0
	ktap_check "h1 receives each ($(grep -c "^cnm " "$TMP/two.h1"))" \
		test "$(grep -c "^cnm " "$TMP/two.h1")" -eq "$sent"
	ktap_check "each from sw-p1 to h1, with qFb > 0" \
		test "$(bad_cnms "$TMP/two.h1" "$P1_MAC" "$H1_MAC")" -eq 0
}

test_checks keepalive 2
keepalive()
{
	ports cp none -- cp input keepalive 1ms
	overload ka 5203
	# the senders ended 3 s ago; the 2 Mbit/s port still drains h1's bytes
	ktap_info "sw-p1: $(qdisc_json sw sw-p1 | jq -c '.[0] | [.in_samples,
		.in_keepalive_samples, .in_cnm_arrival, .in_cnm_occupancy]')"
	ktap_check "an input above Qeq that receives nothing is sampled by keep-alive" \
		above sw-p1 in_keepalive_samples 1
	ktap_check "whose CNMs pick their culprit by occupancy" \
		above sw-p1 in_cnm_occupancy 1
}

test_checks both 2
both()
{
	ports -- cp input
	overload both 5204
	local pr p1
	pr=$(cnms_from "$TMP/both.h1" "$PR_MAC")
	p1=$(cnms_from "$TMP/both.h1" "$P1_MAC")
	ktap_check "both placements at once: h1 gets CNMs from sw-pr's output CP ($pr)" \
		test "$pr" -gt 0
	ktap_check "and from sw-p1's input CP ($p1)" test "$p1" -gt 0
}

test_checks off 2
off()
{
	ports cp none -- cp input
	nsx sw tc qdisc change dev sw-p1 root qcn cp output
	ktap_check "cp output removes the input CP and its counters" \
		test "$(qdisc_json sw sw-p1 | jq '.[0] | has("in_samples") or has("pfc_ingress_max")')" = false
	overload off 5205
	ktap_check "and sw-p1 sends h1 no CNM" \
		test "$(cnms_from "$TMP/off.h1" "$P1_MAC")" -eq 0
}

test_checks reject 4
reject()
{
	local state="ip netns exec $TB-sw tc qdisc show dev sw-p1"
	ports cp none --
	ktap_rejected "cp input with signed feedback" "$state" \
		nsx sw tc qdisc change dev sw-p1 root qcn cp input feedback signed
	nsx sw tc qdisc change dev sw-p1 root qcn cp input
	ktap_rejected "signed feedback on an input CP" "$state" \
		nsx sw tc qdisc change dev sw-p1 root qcn feedback signed
	ktap_rejected "cp sideways (tc)" "$state" \
		nsx sw tc qdisc change dev sw-p1 root qcn cp sideways
	ktap_rejected "cp input on a device that is not Ethernet" \
		"ip netns exec $TB-sw tc qdisc show dev lo" \
		nsx sw tc qdisc add dev lo root qcn cp input
}

tests_plan kernel_log
qcn_dmesg_mark
tb_init
tb_star 2 || ktap_skip_all "cannot build the testbed"
# the switch's own IPv6 would be queued, sampled and skipped
nsx sw sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
mac() { ip -n "$TB-$1" -br link show dev "$2" | awk '{print $3}'; }
P1_MAC=$(mac sw sw-p1)
PR_MAC=$(mac sw sw-pr)
H1_MAC=$(mac h1 eth0)
udp_servers r 5201 5202 5203 5204 5205 5206 5211 5212 5213 5214 5215 5216

tests_run
kernel_log
