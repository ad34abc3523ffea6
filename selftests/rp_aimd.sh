#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcn_rp in mode qcn-aimd (QCN-AIMD, eq. 27 of Shu et al.'s convergence
# paper) against crafted CNMs (selftests/cnm_send): a CNM cuts the limiter
# as in qcn mode; there is no timer; then every byte-reset bytes the flow
# sends add exactly ai-rate to CR, without fast recovery's averaging, until
# the limiter is released at maxrate.  The checks read the limiter's class
# dump (cr and tr by qcnstat, which reads them exactly in one netlink
# dump; state, bc_stage and timer_stage): the core fixes those values
# whatever the timing, so they are compared exactly.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_dmesg_mark
tb_init
CNM=$QCN_TOP/selftests/cnm_send
QS=$QCN_TOP/tools/qcnstat
qcn_require_built "$CNM" "$QS"
tmp=$(mktemp -d)

tb_rp_pair || ktap_skip_all "cannot build the testbed"
A=$RP_A
B=$RP_B
# cnm QFB: a CNM from b to a for the flow from a:5000 to b:9000
cnm() { nsx b "$CNM" -i eth0 -d $A -s $B -q "$1" -e $B \
	-u "$QCN_NET.1:5000,$QCN_NET.100:9000" > /dev/null; }
xs() { nsx a tc -s -j qdisc show dev eth0 | jq -r ".[0].$1"; }
# the limiter: "cr_bps tr_bps state" from qcnstat (one dump), and its
# "bc_stage timer_stage" from tc -s class show (tc prints the class
# statistics as text even with -j)
lim_rates() { nsx a "$QS" -d eth0 -c 1 | qcnstat_cols /dev/stdin kind cr_bps tr_bps state |
	awk -F'\t' '$1 == "qcn_rp-limiter" { print $2, $3, $4 }'; }
lim_stages() { nsx a tc -s class show dev eth0 |
	sed -n 's/.* bc_stage \([0-9]*\) timer_stage \([0-9]*\) .*/\1 \2/p'; }
lim() { echo "$(lim_rates) $(lim_stages)"; }
lim_is() { [ "$(lim)" = "$1" ]; }
# CR in bit/s as the dump shows it: the kernel's bytes/s (floor) x 8
bps() { echo $(($1 / 8 * 8)); }
cnm_matched() { [ "$(xs cnm_matched)" -ge "$1" ]; }

# maxrate 50 Mbit/s, R_AI 1 Mbit/s; a byte counter out of reach first, so
# that nothing but CNMs moves the limiter
RP="maxrate 50mbit ai-rate 1mbit hai-rate 5mbit time-reset 15ms byte-reset 1gb jitter off flow l4"
test_checks setup 2
setup()
{
	nsx a tc qdisc add dev eth0 root qcn_rp $RP mode qcn-aimd
	ktap_check "mode qcn-aimd shown" \
		test "$(nsx a tc -j qdisc show dev eth0 | jq -r '.[0].options.mode')" = qcn-aimd
	ktap_rejected "mode qcn-aimd with ai-rate 0" "nsx a tc -j qdisc show dev eth0 | jq -c '.[0].options'" \
		nsx a tc qdisc change dev eth0 root qcn_rp ai-rate 0
}

# the limiter from its first cut to its release: each step starts from
# the CR the one before left, the values the core fixes exactly
test_checks limiter 8
limiter()
{
	# 90 Mbit/s offered, above maxrate: the limiter stays backlogged
	nsbg a "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9000 -b 5000 -s 1400 \
		-r 90000000 -B 1000000 -t 60 > /dev/null
	snd=$TB_LAST_PID
	sent_some() { [ "$(xs packets)" -ge 100 ]; }
	busywait 5000 sent_some > /dev/null

	# qFb 63: 50000000 - floor(50000000 * 63 / 128) = 25390625 bit/s
	cr1=25390625
	cnm 63
	busywait 3000 cnm_matched 1 > /dev/null
	ktap_check "a CNM installs the limiter cut as in qcn mode (eq. 3): cr $(bps $cr1) bit/s, tr = cr, state ai, stages 0" \
		busywait 3000 lim_is "$(bps $cr1) $(bps $cr1) ai 0 0"
	# with the standard's 15 ms timer, qcn mode would be in AI by now
	sleep 1
	ktap_check "no timer: a second later CR, stages and state unchanged ($(lim))" \
		lim_is "$(bps $cr1) $(bps $cr1) ai 0 0"
	# qFb 32: 25390625 - floor(25390625 * 32 / 128) = 19042969
	cr2=19042969
	cnm 32
	busywait 3000 cnm_matched 2 > /dev/null
	ktap_check "a second CNM qFb 32 cuts CR to $(bps $cr2) bit/s, tr = cr" \
		busywait 3000 lim_is "$(bps $cr2) $(bps $cr2) ai 0 0"

	# byte-reset 1mb: the change keeps the limiter; a CNM reloads the byte
	# counter with it.  qFb 1: 19042969 - floor(19042969 / 128) = 18894196
	nsx a tc qdisc change dev eth0 root qcn_rp byte-reset 1mb
	ktap_check "byte-reset changed, the limiter kept" \
		test "$(xs limiters_active)/$(xs limiters_released)" = "1/0"
	base=18894196
	# qcnstat polls the limiter every 20 ms from one process through the rise
	# (32 increases of 1048576 bytes at 19-50 Mbit/s: about 8 s)
	nsbg a "$QS" -d eth0 -i 20ms -t 60s > "$tmp/poll"
	qs=$TB_LAST_PID
	polling() { [ "$(grep -c . "$tmp/poll" 2>/dev/null)" -ge 2 ]; }
	busywait 5000 polling > /dev/null
	cnm 1
	busywait 3000 cnm_matched 3 > /dev/null
	# until the release, the stage counts on the side
	released() { [ "$(xs limiters_released)/$(xs limiters_active)" = "1/0" ]; }
	stages_or_released() { lim_stages >> "$tmp/stages"; released; }
	touch "$tmp/stages"
	busywait 60000 stages_or_released > /dev/null
	kill "$qs" 2> /dev/null
	wait "$qs"
	# the limiter's rows after the last cut (before it, CR was 19042968)
	qcnstat_cols "$tmp/poll" kind cr_bps tr_bps state |
		awk -F'\t' '$1 == "qcn_rp-limiter" && $2 != 19042968 { print $2, $3, $4 }' > "$tmp/samples"
	# every active sample: cr = base + k x R_AI exactly, k = 0, 1, ... (the
	# dump's floor to bytes/s drops base's remainder 4: R_AI is a multiple of
	# 8); fast recovery's averaging would land between the steps
	b8=$(bps $base)
	bad=$(awk -v b="$b8" '$3 != "released" { d = $1 - b
		if (d < 0 || d % 1000000 || $2 != $1 || $3 != "ai") print }' "$tmp/samples")
	n=$(grep -vc released "$tmp/samples")
	steps=$(awk -v b="$b8" '$3 != "released" { print ($1 - b) / 1000000 }' "$tmp/samples" |
		sort -nu | tr '\n' ' ')
	ktap_info "$n samples, increases seen: $steps"
	ktap_check "each increase adds exactly R_AI: cr = $b8 + k x 1000000 bit/s, tr = cr, state ai ($n samples)" \
		test "$n" -gt 0 -a -z "$bad"
	[ -n "$bad" ] && ktap_info "off: $(head -n3 <<< "$bad" | tr '\n' '|')"
	ktap_check "CR rises step by step: at least 3 values of k seen ($steps)" \
		test "$(wc -w <<< "$steps")" -ge 3
	# 50000000 - 18894196 = 31.1 x R_AI: the 32nd increase reaches maxrate;
	# the timer stage stays 0 (no timer)
	maxk=$(awk -v b="$b8" '$3 != "released" && $1 - b > m { m = $1 - b } END { print m / 1000000 }' "$tmp/samples")
	ktap_check "at most 31 increases before the release (highest $maxk), timer stage always 0" \
		test "$maxk" -le 31 -a -z "$(awk '$2 != 0' "$tmp/stages")"
	ktap_check "released at maxrate by the core, not aged (released/active/aged $(xs limiters_released)/$(xs limiters_active)/$(xs limiters_aged))" \
		test "$(xs limiters_released)/$(xs limiters_active)/$(xs limiters_aged)" = "1/0/0"
	kill "$snd" 2> /dev/null
	wait "$snd"
}

test_checks reload 2
reload()
{
	tb_cleanup
	ktap_check "rp_limiter unloads after namespaces with qcn_rp are gone" qcn_unload rp_limiter
	ktap_check "rp_limiter loads again" qcn_load_module rp_limiter
}

ALL_TESTS="limiter reload"
tests_plan setup kernel_log
setup
tests_run
rm -rf "$tmp"
kernel_log
ktap_finished
