#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/topology: `up` refuses, with the reason and nothing left behind,
# where tc cannot add qcn (here: tc pointed at a folder without the
# plugins); builds a dumbbell whose CP port and senders take qcn and
# qcn_rp as it prints; `down` removes it.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_modules
TOPO=$QCN_TOP/scripts/topology
name=qtopo$$

test_checks refused 2
refused()
{
	TC_LIB_DIR=/nonexistent "$TOPO" --name "$name" up dumbbell > "$tmp/out" 2> "$tmp/err"
	rc=$?
	ktap_check "without the plugins: up fails and names what is missing ($(grep -m1 -o 'tc finds no q_qcn.so' "$tmp/err"))" \
		test "$rc" = 1 -a -n "$(grep 'tc finds no q_qcn.so' "$tmp/err")"
	ktap_check "without the plugins: no namespace is left" \
		test -z "$(ip netns list | grep "^$name-")"
}

# up, what it builds, down: one dumbbell's life
test_checks dumbbell 6
dumbbell()
{
	"$TOPO" --name "$name" up dumbbell 2 > "$tmp/out" 2> "$tmp/err" || ktap_info "up: $(cat "$tmp/err")"
	ktap_check "up dumbbell 2: h1, h2, sw, r" \
		test "$(ip netns list | awk '{ print $1 }' | grep "^$name-" | sort | tr '\n' ' ')" = \
		     "$name-h1 $name-h2 $name-r $name-sw "
	# the printed example, as printed
	cmd=$(sed -n 's/^e\.g\. //p' "$tmp/out")
	ktap_check "the example it prints runs ($cmd)" bash -c "[ -n \"\$1\" ] && eval \"\$1\"" _ "$cmd"
	ktap_check "qcn_rp on a sender as it says" \
		ip netns exec "$name-h1" tc qdisc add dev eth0 root qcn_rp maxrate 1gbit
	# qcnstat(8)'s example on it: the switch's port and a sender, one process
	ktap_check "qcnstat -d NS:DEV polls the switch's qcn and h1's qcn_rp" \
		test "$("$QCN_TOP/tools/qcnstat" -d "$name-sw:sw-pr" -d "$name-h1:eth0" -c 1 |
			qcnstat_cols /dev/stdin kind | sort | tr '\n' ' ')" = "qcn qcn_rp "
	# qcnplot(8) on qcnstat's CSV: a PNG with the panels the rows allow
	"$QCN_TOP/tools/qcnstat" -d "$name-sw:sw-pr" -d "$name-h1:eth0" -i 20ms -c 10 -o "$tmp/run.csv"
	if command -v gnuplot > /dev/null; then
		msg=$("$QCN_TOP/tools/qcnplot" -o "$tmp/run.png" --qeq 26000 "$tmp/run.csv")
		ktap_check "qcnplot draws the port's rate and queue, the sender's rate, CNMs ($msg)" \
			test -s "$tmp/run.png" -a "${msg#*(}" = "rates queue cnms)"
	else
		ktap_test_skip "qcnplot draws qcnstat's CSV" "no gnuplot here"
	fi
	"$TOPO" --name "$name" down > /dev/null
	ktap_check "down removes it" test -z "$(ip netns list | grep "^$name-")"
}

ALL_TESTS="refused dumbbell"
tests_plan kernel_log
qcn_dmesg_mark
tmp=$(mktemp -d)
trap '"$TOPO" --name "$name" down > /dev/null 2>&1; rm -rf "$tmp"' EXIT

tests_run
kernel_log
ktap_finished
