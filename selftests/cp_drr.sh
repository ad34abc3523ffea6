#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Occupancy sampling under non-FIFO service (Gusat et al., QCN-OS): with
# sched drr a low-rate victim (h2, 4 Mbit/s) sharing a 30 Mbit/s CP with a
# heavy culprit (h1, 60 Mbit/s) gets a share of the CNMs roughly equal to its
# share of the arrivals under "sample arrival", and far fewer under "sample
# occupancy" (its DRR queue is nearly empty).  Same run, same traffic; the
# sampling mode is switched with tc qdisc change.  two-samples also answers.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd iperf3 jq
qcn_require_modules sch_qcn
DUMP="$QCN_TOP/selftests/cnm_dump"
qcn_require_built "$DUMP"
# the culprit selection of the second and third phases ("arrival" in
# either must fail the victim checks)
CP_DRR_OCC=${CP_DRR_OCC:-occupancy}
CP_DRR_TWO=${CP_DRR_TWO:-two-samples}

xst()
{
	qdisc_json sw sw-pr | jq -r ".[0].$1"
}

# phase NAME SECONDS: capture CNMs on h1 and h2
phase()
{
	ip netns exec "$TB-h1" "$DUMP" -i eth0 -t "$2" >"$TMP/$1.h1" &
	local p1=$!
	ip netns exec "$TB-h2" "$DUMP" -i eth0 -t "$2" >"$TMP/$1.h2" &
	local p2=$!
	wait "$p1" "$p2"
}

count()
{
	grep -c '^cnm ' "$TMP/$1"
}

# flowing: both senders' traffic (100 KB each since b1, b2) reaches the
# switch, and the CP sends CNMs
rx_bytes() { nsx sw cat "/sys/class/net/$1/statistics/rx_bytes"; }
flowing()
{
	[ $(($(rx_bytes sw-p1) - b1)) -ge 100000 ] && [ $(($(rx_bytes sw-p2) - b2)) -ge 100000 ] &&
		[ "$(qcn_cnms_sent sw sw-pr)" -gt 0 ]
}

# sampling MODE: switch to culprit selection MODE; returns once a CNM of
# MODE has left the CP, after the CNMs it queued in the previous mode (the
# tasklet sends them in order)
sampling()
{
	local key=cnm_${1//-/_} n
	nsx sw tc qdisc change dev sw-pr root qcn sample "$1"
	n=$(xst "$key")
	busywait 10000 xst_above "$key" "$n"
}
xst_above() { [ "$(xst "$1")" -gt "$2" ]; }

# share_ratio V H VA HA: the victim's share of the CNMs, V / (V + H), over
# its share under arrival, VA / (VA + HA); 99 when either share is undefined
share_ratio()
{
	awk -v v="$1" -v h="$2" -v va="$3" -v ha="$4" 'BEGIN {
		d = va * (v + h)
		if (d == 0) print "99.000"; else printf "%.3f\n", v * (va + ha) / d
	}'
}

# the arrival phase is what the others compare with (the victim's share
# of the arrivals): every selection runs it, on the traffic started here
test_checks arrival 2
arrival()
{
	nsx sw tc qdisc add dev sw-pr root handle 1: qcn limit 150000 rate 30mbit \
		sched drr sample arrival
	udp_servers r 5201 5202
	b1=$(rx_bytes sw-p1) b2=$(rx_bytes sw-p2)
	udp_flow h1 60mbit 40 5201 1200
	udp_flow h2 4mbit 40 5202 1200
	busywait 20000 flowing

	phase arrival 4
	ha=$(count arrival.h1); va=$(count arrival.h2)
	ktap_info "arrival: culprit $ha victim $va; xstats flows=$(xst flows) cnm_arrival=$(xst cnm_arrival)"
	ktap_bound --timing arrival_culprit_cnms "$ha" '>' 20 "arrival sampling notifies the culprit"
	# arrival sampling gives the victim about its share of the arrivals
	ktap_bound --timing arrival_victim_cnms "$va" '>=' 5 "arrival sampling notifies the victim too ($va)"
}

test_checks occupancy 3
occupancy()
{
	sampling "$CP_DRR_OCC"
	phase occupancy 4
	occ_xstats=$(xst cnm_occupancy)
	ho=$(count occupancy.h1); vo=$(count occupancy.h2)
	ktap_info "occupancy: culprit $ho victim $vo; xstats cnm_occupancy=$occ_xstats"
	ktap_bound --timing occupancy_culprit_cnms "$ho" '>' 20 "occupancy sampling notifies the culprit"
	# victim's share under occupancy < a third of its share under arrival
	ktap_bound --timing occupancy_victim_share_ratio "$(share_ratio "$vo" "$ho" "$va" "$ha")" '<' 0.333 \
		"victim gets far fewer CNMs with occupancy than with arrival"
	ktap_check "occupancy CNMs counted in xstats" test "$occ_xstats" -gt 0
}

test_checks two_samples 3
two_samples()
{
	sampling "$CP_DRR_TWO"
	phase two 3
	two_xstats=$(xst cnm_two_samples)
	ht=$(count two.h1); vt=$(count two.h2)
	ktap_info "two-samples: culprit $ht victim $vt; xstats cnm_two_samples=$two_xstats"
	ktap_bound --timing two_samples_culprit_cnms "$ht" '>' 10 "two-samples notifies the culprit"
	ktap_rate_check "two-samples CNMs counted in xstats" test "$two_xstats" -gt 0
	# two-samples, like occupancy, rarely picks the victim's nearly empty DRR queue
	ktap_bound --timing two_samples_victim_share_ratio "$(share_ratio "$vt" "$ht" "$va" "$ha")" '<' 0.333 \
		"two-samples spares the victim like occupancy"
}

ALL_TESTS="occupancy two_samples"
tests_plan arrival kernel_log
qcn_dmesg_mark
tb_init
tb_star 2 || ktap_skip_all "cannot build the testbed"
TMP=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$TMP"' EXIT

arrival
tests_run
kernel_log
ktap_finished
