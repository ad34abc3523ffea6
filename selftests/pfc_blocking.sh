#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The occupancy-sampling paper's internal blocking on a lossless fabric,
# quick (scripts/experiments/qcn-blocking-pfc --quick): with PFC alone the
# local flow f1 is held to the share of f2, bottlenecked inside the
# fabric; with two-samples at the fabric input, reading sb-up's fill from
# the next switch, f1 runs near its fair share.  Passes when no switch
# drops a frame and f1 gains well over PFC alone.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_require_built "$QCN_TOP/selftests/udp_send" "$QCN_TOP/selftests/udp_sink" \
	"$QCN_TOP/selftests/cnm_dump"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ALL_TESTS="blocking"
test_checks blocking 4
blocking()
{
	"$QCN_TOP/scripts/experiments/qcn-blocking-pfc" --quick "$TMP" > "$TMP/out.txt" 2>&1
	sed 's/^/# /' "$TMP/out.txt"
	local rows drops pfc two
	rows=$(awk -F, 'NR > 1' "$TMP/pfc.csv" | grep -c .)
	drops=$(awk -F, 'NR > 1 { d += $7 } END { print d + 0 }' "$TMP/pfc.csv")
	pfc=$(awk -F, '$1 == "pfc" && $3 == 1 { print $4 }' "$TMP/qcn-blocking-pfc.csv")
	two=$(awk -F, '$1 == "in-two" && $3 == 1 { print $4 }' "$TMP/qcn-blocking-pfc.csv")
	ktap_check "both cases ran ($rows of 2)" test "$rows" -eq 2
	ktap_check "the switches dropped nothing with PFC ($drops)" test "$drops" -eq 0
	# f1 near its fair share with two-samples (141-186 % of PFC alone),
	# at f2's with PFC alone; with per-namespace indexes (FABRIC=0, the
	# broken case) two-samples is occupancy sampling (96 %): the bound
	# sits between
	ktap_bound --timing f1_two_samples_pct_of_pfc "$(share_pct "${two:-0}" "${pfc:-1}")" '>=' 120 \
		"f1 with two-samples at the input (${two:-?} Mbit/s) against PFC alone (${pfc:-?})"
	ktap_bound --timing f1_pfc_pct_of_fair "$(share_pct "${pfc:-0}" 100)" '<' 80 \
		"PFC alone holds the local flow back (${pfc:-?} of its fair 100 Mbit/s)"
}

tests_plan
tests_run
ktap_finished
