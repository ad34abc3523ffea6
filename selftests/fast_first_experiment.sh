#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/first-experiment, as README shows it, at native speed: it runs,
# both TCP flows get through the 1 Gbit/s qcn port, the port sends CNMs,
# and qcnstat's CSV and qcnplot's PNG are written.
source "$(dirname "$0")/lib_fast.sh"
fast_require
qcn_require_cmd gnuplot
first_experiment()
{
	"$QCN_TOP/scripts/first-experiment" "$tmp" > "$tmp/out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/out"
	ktap_check "it runs (exit $rc)" test "$rc" = 0
	mbit() { jq '.end.sum_received.bits_per_second / 1e6 | floor' "$tmp/$1.json" 2>/dev/null || echo 0; }
	# 1040-1108 over scripts/flaky's runs (receiver-side, both flows); half
	# the port separates them from a loop whose limiters stay cut
	ktap_bound --timing first_flows_mbit "$(( $(mbit h1) + $(mbit h2) ))" '>' 500 \
		"both flows get through the 1 Gbit/s port ($(mbit h1) + $(mbit h2) Mbit/s > 500)"
	ktap_check "the port sent CNMs ($(grep -o '[0-9]* CNMs' "$tmp/out"))" \
		test "$(grep -o '[0-9]* CNMs' "$tmp/out" | cut -d' ' -f1)" -gt 0
	ktap_check "qcnstat's CSV and qcnplot's PNG are written" test -s "$tmp/first.csv" -a -s "$tmp/first.png"
}

test_checks first_experiment 4
ALL_TESTS="first_experiment"
tests_plan kernel_log
qcn_dmesg_mark
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tests_run
kernel_log
ktap_finished
