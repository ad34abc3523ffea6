#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The occupancy-sampling paper's input-generated hotspot on a lossless
# switch, quick (scripts/experiments/qcn-os-pfc --quick): with PFC alone
# the victim f1 is held back with the culprit f2 that shares its input;
# with occupancy sampling at the inputs f1 runs free.  Passes when the
# switch drops nothing in either case and f1 gains well over PFC alone.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_require_built "$QCN_TOP/selftests/udp_send" "$QCN_TOP/selftests/udp_sink" \
	"$QCN_TOP/selftests/cnm_dump" "$QCN_TOP/tools/qcnstat"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ALL_TESTS="hotspot"
test_checks hotspot 4
hotspot()
{
	"$QCN_TOP/scripts/experiments/qcn-os-pfc" --quick "$TMP" > "$TMP/out.txt" 2>&1
	sed 's/^/# /' "$TMP/out.txt"
	local rows drops pfc occ
	rows=$(awk -F, 'NR > 1' "$TMP/pfc.csv" | grep -c .)
	drops=$(awk -F, 'NR > 1 { d += $6 } END { print d + 0 }' "$TMP/pfc.csv")
	pfc=$(awk -F, '$1 == "pfc" && $4 == 1 { print $5 }' "$TMP/qcn-os-pfc.csv")
	occ=$(awk -F, '$1 == "in-occupancy" && $4 == 1 { print $5 }' "$TMP/qcn-os-pfc.csv")
	ktap_check "both cases ran ($rows of 2)" test "$rows" -eq 2
	ktap_check "the switch dropped nothing with PFC ($drops)" test "$drops" -eq 0
	# f1 near its fair share (half the line) with occupancy sampling,
	# about half of it with PFC alone; arrival sampling (the broken case
	# of culprit selection) throttles it below PFC alone
	ktap_bound --timing f1_occupancy_pct_of_pfc "$(share_pct "${occ:-0}" "${pfc:-1}")" '>=' 140 \
		"f1 with occupancy sampling at the inputs (${occ:-?} Mbit/s) against PFC alone (${pfc:-?})"
	ktap_bound --timing f1_pfc_pct_of_fair "$(share_pct "${pfc:-0}" 100)" '<' 80 \
		"PFC alone holds the victim back (${pfc:-?} of its fair 100 Mbit/s)"
}

tests_plan
tests_run
ktap_finished
