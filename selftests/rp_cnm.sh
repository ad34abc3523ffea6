#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcn_rp against crafted CNMs (selftests/cnm_send, raw socket): counters for
# unmatched / malformed / refused CNMs, bad options, and a limiter's rate
# and phases against the RP core's own prediction (tools/qcn-rp-trace):
# the cut and fast recovery measured at the receiver in 802.1Qau mode, and
# FR -> AI -> HAI -> release in QCN-T.
source "$(dirname "$0")/lib_af.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_dmesg_mark
tb_init
TRACE=$QCN_TOP/tools/qcn-rp-trace
CNM=$QCN_TOP/selftests/cnm_send
SINK=$QCN_TOP/selftests/udp_sink
QS=$QCN_TOP/tools/qcnstat
qcn_require_built "$TRACE" "$QS"
tmp=$(mktemp -d)

tb_rp_pair || ktap_skip_all "cannot build the testbed"
A=$RP_A
B=$RP_B
# cnm QFB SPORT [cnm_send options]: a CNM from b to a for the flow from
# a:SPORT to b:9000
# cnm_send's own output, "sent N at_mono_ms T" (cnm_out)
cnm_out() { nsx b "$CNM" -i eth0 -d $A -s $B -q "$1" -e $B \
	-u "$QCN_NET.1:$2,$QCN_NET.100:9000" "${@:3}"; }
cnm() { cnm_out "$@" > /dev/null; }
xs() { nsx a tc -s -j qdisc show dev eth0 | jq -r ".[0].$1"; }
nclasses() { nsx a tc -s class show dev eth0 | grep -c '^class qcn_rp'; }
test_lims() { [ "$(xs limiters_active)" = "$1" ]; }
cnm_seen() { [ "$(xs cnm_rx)" -ge 1 ]; }
send() { nsbg a "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 9000 -s 1400 "$@" > /dev/null; }
# the qdisc has sent N more packets than at mark_sent
mark_sent() { sent0=$(xs packets 2>/dev/null || echo 0); }
sent_more() { [ "$(xs packets)" -ge $((sent0 + $1)) ]; }
sending() { mark_sent; busywait 5000 sent_more 10 > /dev/null; }
# the RP core on the qdisc's options: qcn-rp-trace takes them as --OPTION
# shellcheck disable=SC2046,SC2086
rp_trace() { "$TRACE" $(printf -- '--%s %s ' $RP); }

# ------------------------------------------------ counters, cap, options
# byte-reset 1gb and time-reset 10s: a limiter outlives the section (only
# the timer moves it, FR alone takes 50 s), however slowly the testbed runs
reject()
{
	local what=$1
	shift
	ktap_rejected "$what" "nsx a tc -j qdisc show dev eth0 | jq -c '.[0].options'" \
		nsx a tc qdisc change dev eth0 root qcn_rp "$@"
}
test_checks counters 17
counters()
{
	nsx a tc qdisc add dev eth0 root qcn_rp maxrate 50mbit limiters 1 time-reset 10s byte-reset 1gb jitter off
	ktap_check "qcn_rp with limiters 1" test $? -eq 0
	send -b 5000 -r 2000000 -t 60
	s1=$TB_LAST_PID
	send -b 5002 -r 2000000 -t 60
	s2=$TB_LAST_PID
	sending
	cnm 10 5001
	ktap_check "a CNM for a flow never sent is unmatched" \
		test "$(xs cnm_rx)/$(xs cnm_unmatched)/$(xs limiters_created)" = "1/1/0"
	for m in truncated version msdu-long msdu-trunc reserved; do cnm 10 5000 -m $m; done
	ktap_check "5 malformed CNMs counted, nothing installed" \
		test "$(xs cnm_malformed)/$(xs limiters_created)/$(nclasses)" = "5/0/0"
	cnm 10 5000
	ktap_check "a CNM for a sending flow installs a limiter" \
		test "$(xs cnm_matched)/$(xs limiters_created)/$(nclasses)" = "1/1/1"
	ktap_check "the limiter class shows the flow" \
		bash -c "ip netns exec $TB-a tc -s class show dev eth0 | grep -q 'flow $QCN_NET.1:5000>$QCN_NET.100:9000/17'"
	cnm 10 5002
	ktap_check "the limiter cap holds (refused 1, still 1 active)" \
		test "$(xs limiters_refused)/$(xs limiters_active)" = "1/1"
	tcflow=$(nsx a tc -s class show dev eth0 | sed -n 's/.* flow \([^ ]*\).*/\1/p')
	qsflow=$(nsx a "$QS" -d eth0 -c 1 | qcnstat_cols /dev/stdin kind flow | awk -F'\t' '$1 == "qcn_rp-limiter" { print $2 }')
	ktap_check "qcnstat's flow column is tc's flow ($qsflow)" test -n "$tcflow" -a "$qsflow" = "$tcflow"

	reject "gd 40" gd 40
	reject "min-dec 101" min-dec 101
	reject "mode foo" mode foo
	reject "maxrate 0" maxrate 0
	reject "max-rate 0 (maxrate's alias)" max-rate 0
	reject "min-rate above maxrate" min-rate 100mbit
	reject "limiters 0" limiters 0
	reject "time-reset 0" time-reset 0
	reject "flow ip" flow ip
	reject "unknown option" burst 10
	nsx a tc qdisc del dev eth0 root
	# the section's senders are gone before their port is reused
	kill "$s1" "$s2" 2> /dev/null
	wait "$s1" "$s2"
}

# ------------------------------------- 802.1Qau mode: cut and recovery
# One CNM with qFb 63 at t = 0; byte counter out of reach, so the timer
# alone drives recovery: FR every 500 ms, AI after the 6th, then release.
test_checks qau 6
qau()
{
	RP="maxrate 50mbit ai-rate 1mbit hai-rate 5mbit time-reset 500ms byte-reset 1gb jitter off"
	nsx a tc qdisc add dev eth0 root qcn_rp $RP
	# JSON keys with '_' as the built-in qdiscs' (tc -j), byte-reset 1gb = 2^30
	ktap_check "options in JSON: maxrate, ai_rate, hai_rate, time_reset, byte_reset (bytes/s, us, bytes)" \
		test "$(nsx a tc -j qdisc show dev eth0 | jq -c '.[0].options | [.maxrate, .ai_rate, .hai_rate, .time_reset, .byte_reset, .jitter]')" = \
		     '[6250000,125000,625000,500000,1073741824,"off"]'
	# the CNM's time on the sink's clock, both CLOCK_MONOTONIC (the emulated
	# guest can take 100s of ms to start a process: wall-clock stamps taken
	# around the commands put the windows off by as much)
	# 90 Mbit/s offered, above maxrate, and a 1 MB send buffer: the limiter
	# holds ~300 ms of this flow, so it stays backlogged through the sender's
	# own stalls in the emulated guest (~100 ms; the default buffer holds
	# ~30 ms at the cut rate, and a limiter that runs dry reads low in the
	# first window)
	nsbg b "$SINK" 9000 50 9 "$tmp/sink.start" > "$tmp/sink"
	sink=$TB_LAST_PID
	send -b 5000 -r 90000000 -B 1000000 -t 9
	s1=$TB_LAST_PID
	# the "before" window: from 1000 ms to 100 ms before the CNM
	sending
	sleep 1
	t_cnm=$(cnm_out 63 5000)
	off=$(( ${t_cnm##* } - $(cat "$tmp/sink.start") ))
	ktap_info "CNM sent at $off ms on the sink's clock"
	# the sink records the cut and the recovery to the end of its 9 s
	wait "$sink"
	printf 't_us=0 cnm qfb=63\nt_us=7000000 tx bytes=0\n' |
		rp_trace > "$tmp/trace"
	# expected CR (kbit/s of payload: 1400 of 1442 octets) at ms after the CNM
	exp_kbit() { awk -v t="$1" '{ split($1, a, "="); split($2, b, "=");
		if (a[2] / 1000 <= t) cr = b[2] } END { printf "%d", cr / 1000 * 1400 / 1442 }' "$tmp/trace"; }
	rate() { af_rate "$tmp/sink" $((off + $1)) $((off + $2)) 1; }
	pre=$(rate -1000 -100)
	ktap_info "before the CNM: $pre kbit/s (unlimited)"
	gots=() wants=() errs=()
	for w in "100 450" "600 950" "1100 1450" "1600 1950"; do
		set -- $w
		got=$(rate "$1" "$2"); want=$(exp_kbit "$1")
		err=$(rel_err_pct "$got" "$want")
		gots+=("$got"); wants+=("$want"); errs+=("$err")
		ktap_info "$1-$2 ms after the CNM: $got kbit/s, core predicts $want: $err % off"
	done
	# fast recovery's rise from the first window to the last, as a share of
	# the rise the core predicts
	rise=$(awk -v g1="${gots[0]}" -v g4="${gots[3]}" -v p1="${wants[0]}" -v p4="${wants[3]}" \
		'BEGIN { printf "%.1f", (p4 > p1 ? 100 * (g4 - g1) / (p4 - p1) : 0) }')
	# unlimited: the offered 90 Mbit/s; a limiter holds it at <= maxrate (50)
	ktap_bound --timing unlimited_before_kbit "$pre" '>' 60000 "unlimited before the CNM ($pre kbit/s > 60000)"
	# the first window 0-12 % off over scripts/flaky's runs; without the cut
	# the flow runs at maxrate, over 200 % off
	ktap_bound --timing cut_err_pct "${errs[0]}" '<=' 50 \
		"cut to the core's CR (first window ${errs[0]} % off, <= 50 %)"
	# 52-115 % of the predicted rise over scripts/flaky's runs (a loaded host
	# paces the flow below its CR: the limiter recovers at most 2 ms of a late
	# schedule); without fast recovery the rate stays at the cut, ~0 %
	ktap_bound --timing fast_recovery_rise_pct "$rise" '>=' 25 \
		"fast recovery raises the rate as the core predicts ($rise % of the predicted rise, >= 25 %)"
	ktap_check "released at max rate (3.25 s predicted)" \
		test "$(xs limiters_released)/$(xs limiters_active)/$(nclasses)" = "1/0/0"
	post=$(rate 4500 6500)
	# released: the offered 90 Mbit/s again; a limiter holds it at <= maxrate (50)
	ktap_bound --timing unlimited_after_kbit "$post" '>' 60000 "unlimited again after release ($post kbit/s > 60000)"
	nsx a tc qdisc del dev eth0 root
	wait "$s1"
}

# ------------------------------------------ QCN-T: FR -> AI -> HAI -> release
# Three CNMs 480 ms apart pull TR down; t = 400 ms, HAI threshold
# 800 ms * 5 / 400 ms = 10 cycles.
test_checks qcn_t 6
qcn_t()
{
	RP="maxrate 50mbit ai-rate 1mbit hai-rate 2mbit time-reset 800ms qcnt-period 400ms mode qcn-t jitter off"
	nsx a tc qdisc add dev eth0 root qcn_rp $RP
	ktap_check "mode qcn-t shown" bash -c "ip netns exec $TB-a tc qdisc show dev eth0 | grep -q 'mode qcn-t'"
	send -b 5000 -t 12
	sending
	# qcnstat polls the limiter's state every 20 ms from one process, stamped
	# on CLOCK_MONOTONIC like cnm_send's "at_mono_ms" (the guest can take
	# 100s of ms to start a process: stamps taken around the commands were
	# off by as much)
	nsbg a "$QS" -d eth0 -m -i 20ms -t 12s > "$tmp/poll"
	qs=$TB_LAST_PID
	# qcnstat polls (its header and a first row)
	polling() { [ "$(grep -c . "$tmp/poll" 2>/dev/null)" -ge 2 ]; }
	busywait 5000 polling > /dev/null
	# the three CNMs from one cnm_send, on its deadlines (a debug kernel
	# takes seconds to start each process)
	t=$(cnm_out 63 5000 -n 3 -g 480)
	echo "${t#*at_mono_ms }" | tr ' ' '\n' > "$tmp/mono"
	t0=$(head -n1 "$tmp/mono")
	awk -v t0="$t0" '{ printf "t_us=%d cnm qfb=63\n", ($1 - t0) * 1000 }' "$tmp/mono" > "$tmp/ev"
	echo "t_us=8000000 tx bytes=0" >> "$tmp/ev"
	rp_trace < "$tmp/ev" > "$tmp/trace"
	wait $qs
	# ms after the first CNM, state, CR
	qcnstat_cols "$tmp/poll" t_ms kind state cr_bps |
		awk -F'\t' -v t0="$t0" '$2 == "qcn_rp-limiter" { printf "%d %s %s\n", $1 - t0, $3, $4 }' > "$tmp/seen"
	ktap_info "CNMs at $(awk -v t0="$t0" '{ printf "%d ", $1 - t0 }' "$tmp/mono")ms, $(grep -c . "$tmp/seen") limiter samples"
	first() { awk -v s="$1" '$2 == s { print $1; exit }' "$tmp/seen"; }
	pred() { awk -v s="$1" '{ split($1, a, "="); if ($NF == "state=" s) { print int(a[2] / 1000); exit } }' "$tmp/trace"; }
	for s in fr ai hai released; do ktap_info "state $s: first seen at $(first $s) ms, core: $(pred $s) ms"; done
	awk '$2 != last { print "# transition at " $1 " ms: " $2 " cr " $3; last = $2 }' "$tmp/seen"
	ktap_check "FR observed" test -n "$(first fr)"
	# the core is run on the CNMs' real times: a slow kernel (KASAN) that
	# sends them further apart than 480 ms leaves TR higher, and the core may
	# then go from AI to the release without HAI; the limiter must follow it
	for s in ai hai; do
		f=$(first $s); p=$(pred $s)
		if [ -z "$p" ]; then
			ktap_check "$s never entered, as the core predicts for these CNM times (seen at '$f')" \
				test -z "$f"
			continue
		fi
		if [ -z "$f" ]; then
			ktap_test_fail "$s entered when the core predicts ($p ms, +-250 ms): never seen"
			continue
		fi
		# polled every 20 ms; a QCN-T cycle more or fewer moves a state by t = 400 ms
		ktap_bound "${s}_entry_offset_ms" $(( f - p )) in -250:250 \
			"$s entered when the core predicts ($f ms vs $p ms, +-250 ms)"
	done
	# the states seen in the core's order (HAI only where the core has it)
	order=$(awk '{ split($NF, s, "="); if (s[2] != last && s[2] != "released") { printf "%s ", s[2]; last = s[2] } }' "$tmp/trace")
	seen=$(awk '$2 != last && $2 != "released" { printf "%s ", $2; last = $2 }' "$tmp/seen")
	ktap_check "states in the core's order: '$seen' vs '$order'" \
		test -n "$(first ai)" -a "$seen" = "$order"
	p=$(pred released)
	ktap_check "released at max rate (core: $p ms)" \
		test "$(xs limiters_released)/$(nclasses)" = "1/0"
	nsx a tc qdisc del dev eth0 root
}

# ------------------------------------------------- teardown under traffic
# counters out of reach: the limiter stays (with the standard's 15 ms
# timer and 150 KB counter it is back at 50 Mbit/s and released within
# ~100 ms of the CNM, before a slow debug kernel looks)
test_checks teardown 5
teardown()
{
	nsx a tc qdisc replace dev eth0 root qcn_rp max-rate 50mbit time-reset 10s byte-reset 1gb
	ktap_check "max-rate (the alias) is shown as maxrate" \
		bash -c "ip netns exec $TB-a tc qdisc show dev eth0 | grep ' maxrate 50Mbit ' | grep -vq max-rate"
	# the flow sends until tb_cleanup: a CNM for a flow idle for 2 s finds
	# no flow to limit, and a debug kernel can take seconds to get here
	send -b 5000 -t 60
	sending
	cnm 63 5000
	ktap_check "limited flow under traffic" busywait 3000 test_lims 1
	ktap_check "qdisc delete with a limited, backlogged flow" nsx a tc qdisc del dev eth0 root
	nsx a tc qdisc add dev eth0 root qcn_rp maxrate 50mbit
	cnm 63 5000
	busywait 3000 cnm_seen > /dev/null
	tb_cleanup
	ktap_check "rp_limiter unloads after namespaces with qcn_rp are gone" qcn_unload rp_limiter
	ktap_check "rp_limiter loads again" qcn_load_module rp_limiter
}

ALL_TESTS="counters qau qcn_t teardown"
tests_plan kernel_log
tests_run
rm -rf "$tmp"
kernel_log
ktap_finished
