#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/mininet (the qcnnet package) in a Mininet network: its dumbbell of
# two senders on Mininet's Linux bridge (lxbr, in the root namespace), the
# topology's plan putting a 30 Mbit/s qcn on sw-pr and qcn_rp on the
# senders, one TCP flow per sender.  Asserted: the module check names a
# missing plugin, qcnnet's option names are the plugins', the network has
# scripts/topology's names and addresses, the CP sends CNMs and they come
# back through the root namespace's bridge to the senders, whose qcn_rp
# installs limiters, one qcnstat polls the root namespace's port and the
# hosts' eth0, and stopping the network leaves nothing behind.
source "$(dirname "$0")/lib.sh"
qcn_require_root
PY=/usr/bin/python3
"$PY" -c 'import mininet.net' 2>/dev/null ||
	ktap_skip_all "needs Mininet (Debian's mininet: scripts/setup installs it)"
qcn_require_cmd mnexec brctl ifconfig iperf3
qcn_require_modules
qcn_require_built tools/qcnstat
# Mininet's lxbr switch takes the topology's name in the root namespace
[ -e /sys/class/net/sw ] &&
	ktap_skip_all "a device named sw exists in the root namespace (a Mininet network is up?)"
ktap_print_header
ktap_set_plan 11
qcn_dmesg_mark
SECS=5
prefix=qmn$$
tmp=$(mktemp -d)
driver=
cleanup()
{
	local n
	# a driver cut short leaves its network: its shells go with it (their
	# terminal closes), the root namespace's bridge and names do not
	if [ -n "$driver" ] && kill -0 "$driver" 2>/dev/null; then
		kill "$driver"
		wait "$driver" 2>/dev/null
		[ -e /sys/class/net/sw ] && ip link del sw 2>/dev/null
	fi
	for n in $(ip netns list 2>/dev/null | awk -v p="$prefix-" 'index($1, p) == 1 { print $1 }'); do
		ip netns delete "$n"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the module check, where tc finds no plugin (scripts/topology's test too)
err=$(TC_LIB_DIR=/nonexistent "$PY" -c 'import sys; sys.path.insert(0, sys.argv[1])
import qcnnet; qcnnet.require_qcn()' "$QCN_TOP/tools/mininet" 2>&1)
rc=$?
ktap_check "without the plugins require_qcn() fails and names what is missing ($(grep -o 'tc finds no q_qcn.so' <<<"$err"))" \
	test "$rc" != 0 -a -n "$(grep 'tc finds no q_qcn.so' <<<"$err")"

"$PY" "$QCN_TOP/selftests/qcn_mininet.py" "$prefix" "$tmp" "$SECS" > "$tmp/out" 2> "$tmp/err" &
driver=$!
wait "$driver"
rc=$?
driver=
sed -n 's/^# /# mininet: /p' "$tmp/out"
[ "$rc" = 0 ] || { ktap_info "the driver exited with $rc:"; sed 's/^/# /' "$tmp/err" | tail -n 20; }
val() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$tmp/out"; }
rp() { awk -v h="$1" -v f="$2" '$1 == "rp" && $2 == h { print $(f + 2); exit }' "$tmp/out"; }

ktap_check "qcnnet's option names are the plugins' (differences: $(val opts_diff))" \
	test "$(val opts_diff)" = -
ktap_check "lxbr in the root namespace, ports sw-p1 sw-p2 sw-pr ($(val switch_ns): $(val ports))" \
	test "$(val switch_ns) $(val ports)" = "root sw-p1 sw-p2 sw-pr"
ktap_check "h1's eth0 has scripts/topology's address and MAC ($(val addr))" \
	test "$(val addr)" = "198.18.0.1/24 02:00:00:00:00:01"
ktap_check "the topology's plan put qcn on sw-pr and qcn_rp on h1, h2 ($(val kinds))" \
	test "$(val kinds)" = "qcn qcn_rp qcn_rp"
ktap_check "the flows ran ($(val goodput_kbit) kbit/s received in all)" \
	test "$(val goodput_kbit)" -gt 0
ktap_check "the congestion point sent CNMs ($(val cnms))" test "$(val cnms)" -gt 0
# cnm_rx, cnm_matched, limiters_created of each sender: the CNMs left
# sw-pr through the bridge sw, whose forwarding database sent them out of
# the senders' ports
ktap_check "they came back through the root namespace's bridge: each sender took CNMs and installed limiters (h1 $(rp h1 2)/$(rp h1 3), h2 $(rp h2 2)/$(rp h2 3))" \
	test "$(rp h1 2)" -gt 0 -a "$(rp h1 3)" -gt 0 -a "$(rp h2 2)" -gt 0 -a "$(rp h2 3)" -gt 0
# (rows of kind qcn_rp-limiter too while a limiter is installed)
ktap_check "one qcnstat polled sw-pr and the senders' eth0 by attached names ($(val qcnstat_devs); $(val qcnstat_kinds))" \
	test "$(val qcnstat_devs)" = "$prefix-h1:eth0 $prefix-h2:eth0 sw-pr" -a \
	"$(val qcnstat_kinds | tr ' ' '\n' | grep -cxE 'qcn|qcn_rp')" = 2
ktap_check "net.stop() leaves no bridge, name or shell ($(val left))" test "$(val left)" = -
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finished
