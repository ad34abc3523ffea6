#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cnm_dump through libpcap: CNMs crafted by cnm_send (plain, VLAN-tagged,
# malformed) decode the same live on an interface, live on "any", and
# from captures written by tcpdump (Ethernet; tcpdump -i any: LINUX_SLL2;
# -y LINUX_SLL) and dumpcap (pcapng); a capture of another link type or
# a file that is no capture fails with a message.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd tcpdump
DUMP=$QCN_TOP/selftests/cnm_dump
SEND=$QCN_TOP/selftests/cnm_send
qcn_require_built "$DUMP" "$SEND"
A=02:00:00:00:00:01
B=02:00:00:00:00:64

# capture in a until SIGINT (60 s at most); every capturer says when it
# listens (tcpdump on stderr; -Z root: Debian's tcpdump drops to user
# tcpdump, who may not write here); cooked captures take no VLAN filter
F="ether proto 0x22e7 or (vlan and ether proto 0x22e7)"
cap=()
capture() { nsbg a "$@"; cap+=("$TB_LAST_PID"); }
ready()
{
	[ "$(grep -l '^# listening' "$tmp/live-eth0" "$tmp/live-any" 2>/dev/null | wc -l)" -eq 2 ] &&
	grep -q 'listening on' "$tmp/t1" && grep -q 'listening on' "$tmp/t2" &&
	grep -q 'listening on' "$tmp/t3" &&
	{ [ $have_dumpcap -eq 0 ] || [ -s "$tmp/eth0.pcapng" ]; } &&
	# and the kernel has a packet socket of each in a's namespace
	[ "$(nsx a tail -n +2 /proc/net/packet | wc -l)" -ge ${#cap[@]} ]
}
# cnm OPTS...: cnm_send's CNMs from b to a
cnm() { nsx b "$SEND" -d $A -s $B -e $B "$@" > /dev/null; }
handed()	# FILE N: the last statistics in FILE count N packets captured
{
	[ "$(grep -o '[0-9]* packets\? captured' "$1" | tail -n1 | cut -d' ' -f1)" -ge "$2" ]
}
all_in()
{
	[ "$(grep -c '^cnm \|^bad ' "$tmp/live-eth0")" -ge 6 ] &&
	[ "$(grep -c '^cnm \|^bad ' "$tmp/live-any")" -ge 4 ] || return 1
	kill -USR1 "${cap[@]:2:3}"
	handed "$tmp/t1" 6 && handed "$tmp/t2" 4 && handed "$tmp/t3" 4
} 2>/dev/null
same()	# FILE EXPECTED: cnm_dump -r FILE prints EXPECTED's lines, exit 0
{
	"$DUMP" -r "$1" > "$tmp/r" 2> "$tmp/rerr" || return 1
	grep -v '^# listening' "$2" > "$tmp/want"
	cmp -s "$tmp/want" "$tmp/r"
}
magic() { [ "$(head -c4 "$1" | od -An -tx1 | tr -d ' \n')" = "$2" ]; }
sll2() { grep -q LINUX_SLL2 "$tmp/t2" && same "$tmp/any.pcap" "$tmp/live-any"; }
ng() { magic "$1" 0a0d0d0a && same "$1" "$2"; }

# the capture every phase reads: the CNMs b sends, taken by each capturer
capture_all()
{
	capture "$DUMP" -i eth0 -t 60 > "$tmp/live-eth0"
	capture "$DUMP" -i any -Q in -t 60 > "$tmp/live-any"
	capture tcpdump -Z root -i eth0 -w "$tmp/eth0.pcap" "$F" 2> "$tmp/t1"
	capture tcpdump -Z root -i any -Q in -w "$tmp/any.pcap" ether proto 0x22e7 2> "$tmp/t2"
	capture tcpdump -Z root -i any -Q in -y LINUX_SLL -w "$tmp/sll.pcap" ether proto 0x22e7 2> "$tmp/t3"
	have_dumpcap=0
	if command -v dumpcap > /dev/null; then
		have_dumpcap=1
		capture dumpcap -q -i eth0 -f "$F" -a duration:60 -w "$tmp/eth0.pcapng" 2> "$tmp/t4"
	fi
	t0=$(date +%s%3N)
	busywait 20000 ready > /dev/null
	ktap_info "capturers ready after $(($(date +%s%3N) - t0)) ms"

	# 3 CNMs for a UDP flow, 1 malformed (version 1), 2 tagged with VLAN 5
	cnm -i eth0 -q 33 -u "$QCN_NET.1:5000,$QCN_NET.100:9000" -n 3
	cnm -i eth0 -q 1 -m version
	cnm -i eth0.5 -q 7 -n 2
	# every capturer has been handed the 6 frames (4 untagged on "any", where
	# the tagged ones depend on libpcap): cnm_dump prints each one, tcpdump
	# (libpcap's ring hands frames over per block, or after 1 s) counts them
	# in its statistics on SIGUSR1 (printed by the time of the next poll)
	busywait 20000 all_in > /dev/null
	kill -INT "${cap[@]}"
	for p in "${cap[@]}"; do wait "$p"; done
	ktap_info "decoded: $(for f in live-eth0 live-any eth0.pcap any.pcap sll.pcap eth0.pcapng; do
		[ -e "$tmp/$f" ] && printf '%s %s, ' "$f" "$(case $f in live*) tail -n1 "$tmp/$f";; *) "$DUMP" -r "$tmp/$f" 2>&1 | tail -n1;; esac)"; done)"
}

test_checks live 4
live()
{
	want="cnm src=$B dst=$A ver=0 qfb=33 cpid=${B//:/}0001 qoff=-100 qdelta=10 prio=0 edst=$B msdu_len=64"
	ktap_check "live on eth0: 5 CNMs (2 of them VLAN-tagged) and 1 bad decode" \
		test "$(grep -c '^cnm ' "$tmp/live-eth0")/$(grep -c '^bad ' "$tmp/live-eth0")/$(grep -c ' qfb=7 ' "$tmp/live-eth0")" = "5/1/2"
	ktap_check "live on eth0: the fields (MACs, qFb, CPID, offsets, MSDU, 5-tuple)" \
		test "$(grep -c "^$want msdu=08004500.* inner=ipv4 isrc=$QCN_NET.1 idst=$QCN_NET.100 proto=17 sport=5000 dport=9000" "$tmp/live-eth0")" -eq 3
	ktap_check "live on eth0: the malformed CNM is reported (err=-2, version)" \
		grep -q "^bad src=$B dst=$A err=-2 " "$tmp/live-eth0"
	ktap_info "live on any: $(tail -n1 "$tmp/live-any"), $(grep -c ' qfb=7 ' "$tmp/live-any") of them tagged"
	# (whether libpcap passes the tagged ones through "ether proto" on a cooked
	# socket depends on its version: not asserted, printed above)
	ktap_check "live on any (cooked, LINUX_SLL2): the 3 + 1 untagged CNMs, no destination MAC" \
		test "$(grep -c "^cnm src=$B dst=- ver=0 qfb=33 " "$tmp/live-any")/$(grep -c "^bad src=$B dst=- err=-2 " "$tmp/live-any")/$(grep -vc ' dst=- \|^#' "$tmp/live-any")" = "3/1/0"
}

test_checks files 5
files()
{
	ktap_info "$(head -n1 "$tmp/t1"); $(head -n1 "$tmp/t2"); $(head -n1 "$tmp/t3")"
	ktap_check "-r of tcpdump -i eth0 (pcap, Ethernet): the same lines as live" same "$tmp/eth0.pcap" "$tmp/live-eth0"
	ktap_check "-r of tcpdump -i any (pcap, LINUX_SLL2): the same lines as live on any" sll2
	ktap_check "-r of tcpdump -i any -y LINUX_SLL: the same lines" same "$tmp/sll.pcap" "$tmp/live-any"
	if [ $have_dumpcap -eq 1 ]; then
		ktap_check "-r of dumpcap -i eth0 (pcapng): the same lines as live" ng "$tmp/eth0.pcapng" "$tmp/live-eth0"
	else
		ktap_test_skip "-r of a pcapng capture" "dumpcap not installed (Debian: wireshark-common)"
	fi
	"$DUMP" -r "$tmp/eth0.pcap" -c 2 > "$tmp/r2"
	ktap_check "-r -c 2 stops after 2 CNMs" test "$(grep -c '^cnm ' "$tmp/r2")" -eq 2
}

test_checks errors 5
errors()
{
	# errors: not a capture, another link type, no such interface, usage
	echo "not a capture" > "$tmp/text"
	"$DUMP" -r "$tmp/text" > /dev/null 2> "$tmp/err"
	ktap_check "-r of a text file: exit 1 and libpcap's message" test $? -eq 1 -a -s "$tmp/err"
	# the Ethernet capture relabelled as raw IP (link type 101 at offset 20 of
	# a little-endian pcap header, as tcpdump writes it on x86)
	cp "$tmp/eth0.pcap" "$tmp/raw.pcap"
	printf '\x65\x00\x00\x00' | dd of="$tmp/raw.pcap" bs=1 seek=20 conv=notrunc status=none
	"$DUMP" -r "$tmp/raw.pcap" > /dev/null 2> "$tmp/err"
	rc=$?
	ktap_check "-r of a raw-IP capture: exit 1, link type not supported ($(head -c 60 "$tmp/err"))" \
		test $rc -eq 1 -a -n "$(grep 'RAW.*not supported' "$tmp/err")"
	nsx a "$DUMP" -i nosuch -t 1 > /dev/null 2> "$tmp/err"
	ktap_check "-i of a missing interface: exit 1 and a message" test $? -eq 1 -a -s "$tmp/err"
	"$DUMP" -i eth0 -r "$tmp/eth0.pcap" > /dev/null 2> "$tmp/err"
	ktap_check "-i and -r together: exit 2 and the usage" \
		test $? -eq 2 -a -n "$(grep '^Usage' "$tmp/err")"
	"$DUMP" --help > "$tmp/help"
	ktap_check "--help: the usage on stdout, exit 0" test $? -eq 0 -a -n "$(grep -- '-r FILE' "$tmp/help")"
}

ALL_TESTS="live files errors"
tests_plan
tb_init
tmp=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$tmp"' EXIT

tb_ns a; tb_ns b
for n in a b; do nsx $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1; done
tb_veth a eth0 b eth0
nsx a ip link set eth0 address $A
nsx b ip link set eth0 address $B
nsx b ip link add link eth0 name eth0.5 type vlan id 5
nsx b ip link set eth0.5 up

capture_all
tests_run
ktap_finished
