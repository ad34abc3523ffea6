#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A CP on a port that forwards without a bridge.  Frames from h1 that r
# redirects (tc mirred) into its VLAN device eth1.20 leave eth1 tagged
# VID 20: their CNMs go back by r's eth0, where they came in, untagged
# as h1's link is, not in VLAN 20.  Frames r routes carry r's own address
# as their source, and frames r sends itself have no way back: for both
# the CP sends nothing and counts a skipped CNM, not a failed one.
#
#   h1 eth0 ---- eth0 r eth1 (qcn, 20 Mbit/s) [eth1.20] ---- eth0.20 h2
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules sch_qcn
DUMP=$QCN_TOP/selftests/cnm_dump
SEND=$QCN_TOP/selftests/udp_send
qcn_require_built "$DUMP" "$SEND"
qcn_dmesg_mark
tb_init
TMP=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$TMP"' EXIT

H1=02:00:00:00:00:01
H2=02:00:00:00:00:02
setup()
{
	tb_ns h1 && tb_ns r && tb_ns h2 || return 1
	tb_veth h1 eth0 r eth0 && tb_veth r eth1 h2 eth0 || return 1
	nsx h1 ip link set eth0 address $H1 &&
	nsx h2 ip link set eth0 address $H2 &&
	nsx h1 ip addr add 198.18.1.1/24 dev eth0 &&
	nsx h1 ip route add 198.18.2.0/24 via 198.18.1.254 &&
	nsx r ip addr add 198.18.1.254/24 dev eth0 &&
	nsx r ip link add link eth1 name eth1.20 type vlan id 20 &&
	nsx r ip link set eth1.20 up &&
	nsx r ip addr add 198.18.2.254/24 dev eth1.20 &&
	nsx r sysctl -qw net.ipv4.ip_forward=1 &&
	nsx h2 ip link add link eth0 name eth0.20 type vlan id 20 &&
	nsx h2 ip link set eth0.20 up &&
	nsx h2 ip addr add 198.18.2.1/24 dev eth0.20 &&
	nsx h2 ip addr add 198.18.3.2/24 dev eth0.20 &&
	nsx h2 ip route add 198.18.1.0/24 via 198.18.2.254 &&
	# h1's L2 path to h2 through r's redirect: 198.18.3.0/24
	nsx h1 ip addr add 198.18.3.1/24 dev eth0 &&
	nsx h1 ip neigh add 198.18.3.2 lladdr $H2 dev eth0 || return 1
	nsx r "$SEND" -d 198.18.2.1 -p 9 -c 1 > /dev/null
}
setup || ktap_skip_all "cannot build the testbed (CONFIG_VLAN_8021Q, forwarding)"

test_checks cp_qdisc 1
cp_qdisc()
{
	nsx r tc qdisc add dev eth1 root qcn limit 150000 rate 20mbit
	ktap_check "qcn on r's eth1 (under its VLAN device eth1.20)" test $? -eq 0
}
st() { nsx r tc -s -j qdisc show dev eth1 | jq -r ".[0] | $1"; }
sent() { st "$QCN_JQ_CNMS"; }

# ------------------------------------ forwarded by tc mirred into VLAN 20
test_checks redirected 4
redirected()
{
	nsx r tc qdisc add dev eth0 clsact &&
	nsx r tc filter add dev eth0 ingress protocol ip flower dst_ip 198.18.3.2 \
		action mirred egress redirect dev eth1.20
	ktap_check "r redirects h1's frames for 198.18.3.2 into eth1.20" test $? -eq 0
	cnm_dump_bg h1 "$TMP/h1" -V -i eth0 -t 4
	d=$TB_LAST_PID
	nsbg h1 "$SEND" -d 198.18.3.2 -p 5201 -b 5001 -s 1200 -r 40000000 -t 3 > /dev/null
	wait "$d"
	n=$(grep -c "^cnm src=[^ ]* dst=$H1 " "$TMP/h1")
	ktap_info "CP: CNMs sent $(sent), failed $(st .cnm_fail); captured on h1 $n"
	ktap_info "first CNM on h1: $(grep -m1 '^cnm ' "$TMP/h1" | cut -c1-120)"
	ktap_check "the CP sends CNMs for the redirected flow, none fails" \
		test "$(sent)" -gt 0 -a "$(st .cnm_fail)" -eq 0
	ktap_check "they reach h1 ($n)" test "$n" -gt 0
	ktap_check "h1's CNMs are untagged (the culprit left in VLAN 20)" \
		awk -v h="$H1" '/^cnm / { k++; if ($3 != "dst=" h || $4 != "vlan=none") bad++ }
			END { exit !(k > 0 && !bad) }' "$TMP/h1"
	nsx r tc qdisc del dev eth0 clsact
}

# ------------------------------------------- routed, and r's own frames
# skipped <N: the CP skipped more than N culprits and sent nothing more
skipped() { [ "$(st .cnm_skipped)" -gt "$1" ] && [ "$(sent)" -eq "$2" ] && [ "$(st .cnm_fail)" -eq 0 ]; }
test_checks routed 2
routed()
{
	k0=$(st .cnm_skipped) c0=$(sent)
	nsx h1 "$SEND" -d 198.18.2.1 -p 5202 -b 5002 -s 1200 -r 40000000 -t 2 > /dev/null
	ktap_info "routed: cnm_skipped $k0 -> $(st .cnm_skipped), sent $c0 -> $(sent), failed $(st .cnm_fail)"
	ktap_check "culprits r routed (source: r's own port) are skipped, no CNM sent" skipped "$k0" "$c0"
	k0=$(st .cnm_skipped)
	nsx r "$SEND" -d 198.18.2.1 -p 5203 -b 5003 -s 1200 -r 40000000 -t 2 > /dev/null
	ktap_info "own frames: cnm_skipped $k0 -> $(st .cnm_skipped), sent $c0 -> $(sent), failed $(st .cnm_fail)"
	ktap_check "culprits r sent itself are skipped, not failed" skipped "$k0" "$c0"
}

ALL_TESTS="redirected routed"
tests_plan cp_qdisc kernel_log
cp_qdisc
tests_run
kernel_log
ktap_finished
