#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The occupancy-sampling paper's input-generated hotspot on a lossless
# switch, quick (scripts/experiments/qcn-os-pfc --quick): with PFC alone
# the victim f1 is held back with the culprit f2 that shares its input;
# with occupancy sampling at the inputs the input CP's CNMs go to f2, not
# f1.  Passes when the switch drops nothing in either case, PFC alone
# holds f1 back, and f1 gets a small share of its input's CNMs.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_require_built "$QCN_TOP/selftests/udp_send" "$QCN_TOP/selftests/udp_sink" \
	"$QCN_TOP/selftests/cnm_dump" "$QCN_TOP/tools/qcnstat"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# col CASE FLOW N: column N of the quick run's row for CASE and FLOW
col() { awk -F, -v c="$1" -v f="$2" -v n="$3" '$1 == c && $4 == f { print $n }' "$TMP/qcn-os-pfc.csv"; }

ALL_TESTS="hotspot"
test_checks hotspot 5
hotspot()
{
	"$QCN_TOP/scripts/experiments/qcn-os-pfc" --quick "$TMP" > "$TMP/out.txt" 2>&1
	sed 's/^/# /' "$TMP/out.txt"
	local rows drops pfc occ c1 c2
	rows=$(awk -F, 'NR > 1' "$TMP/pfc.csv" | grep -c .)
	drops=$(awk -F, 'NR > 1 { d += $6 } END { print d + 0 }' "$TMP/pfc.csv")
	pfc=$(col pfc 1 5)
	occ=$(col in-occupancy 1 5)
	c1=$(col in-occupancy 1 7)
	c2=$(col in-occupancy 2 7)
	ktap_check "both cases ran ($rows of 2)" test "$rows" -eq 2
	ktap_check "the switch dropped nothing with PFC ($drops)" test "$drops" -eq 0
	ktap_bound --timing f1_pfc_pct_of_fair "$(share_pct "${pfc:-0}" 100)" '<' 80 \
		"PFC alone holds the victim back (${pfc:-?} of its fair 100 Mbit/s)"
	# occupancy sampling names the flow that holds the input's buffer,
	# f2: f1 gets 7-29 % of the CNMs h1 receives; arrival sampling (the
	# broken case, OCC_SAMPLE=arrival) names them by arrival, f1 about
	# half (52 %): the bound sits between
	ktap_check "h1 receives its input CP's CNMs (f2: ${c2:-?})" test "${c2:-0}" -gt 10
	ktap_bound f1_cnm_share_pct "$(share_pct "${c1:-0}" $((${c1:-0} + ${c2:-0})))" '<' 40 \
		"occupancy sampling at h1's input sends f1 few of its CNMs (f1 ${c1:-?}, f2 ${c2:-?})"
	ktap_target f1_occupancy_pct_of_pfc "$(share_pct "${occ:-0}" "${pfc:-1}")" '>=' 140 \
		"f1 with occupancy sampling at the inputs (${occ:-?} Mbit/s) against PFC alone (${pfc:-?})"
}

tests_plan
tests_run
ktap_finished
