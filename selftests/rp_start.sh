#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcn_rp's start-rate: every flow the qdisc learns after it is set gets a
# limiter at that rate from its first frame, as the RPs of the convergence
# paper's stage three start at given rates (Shu et al., sections IV-V,
# Figs. 5-6).  A sender a offers UDP flows at 50 Mbit/s to b behind a
# qcn_rp with start-rate 10mbit and maxrate 100mbit; no CNM is sent.
# Functional checks: no limiter without start-rate, nor for a flow learned
# before it was set; a new flow's limiter exists from its first frame
# (every byte the qdisc sent after it went through it) at CR = TR =
# start-rate in fast recovery; the RP's own increase raises it; every
# mode starts one; the limiters cap; start-rate 0 turns it off.  One
# quantitative check: the first window's rate is start-rate's (--timing).
# The timer (500 ms) and byte counter (1 MB, 0.84 s at 10 Mbit/s) are
# long, so fast recovery holds CR at start-rate for 3 s, in which the
# checks read it (the QEMU guests need seconds for a few tc calls), and
# the flows send until the checks of their limiter are done: an idle
# flow's limiter ages out after 2 s.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_dmesg_mark
tb_init
QS=$QCN_TOP/tools/qcnstat
US=$QCN_TOP/selftests/udp_send
qcn_require_built "$QS" "$US"
tmp=$(mktemp -d)

tb_rp_pair || ktap_skip_all "cannot build the testbed"
A=$RP_A
# nothing but the test's flows leaves a's eth0: no IPv6 (neighbour
# discovery, MLD), no ARP (a knows b; b, answering with ICMP, knows a)
for n in a b; do
	nsx $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 2> /dev/null
done
ip -n "$TB-b" neigh add "$QCN_NET.1" lladdr $A dev eth0

START=10000000		# bit/s
RP="maxrate 100mbit ai-rate 1mbit hai-rate 5mbit time-reset 500ms byte-reset 1mb
    qcnt-period 500ms jitter off flow l4"
# shellcheck disable=SC2086
nsx a tc qdisc add dev eth0 root qcn_rp $RP
xs() { nsx a tc -s -j qdisc show dev eth0 | jq -r ".[0].$1"; }
opt() { nsx a tc -j qdisc show dev eth0 | jq -r ".[0].options.$1"; }
# flow PORT RATE ARGS...: a UDP flow from a:PORT-4000 to b:PORT
flow() {
	local p=$1 r=$2
	shift 2
	nsbg a "$US" -d "$QCN_NET.100" -p "$p" -b $((p - 4000)) -s 1400 -r "$r" "$@" > /dev/null
}
# lim PORT: "cr_bps tr_bps state bytes" of the limiter of the flow to
# b:PORT (qcnstat, one dump), nothing without one
lim() { nsx a "$QS" -d eth0 -c 1 | qcnstat_cols /dev/stdin kind flow cr_bps tr_bps state bytes |
	awk -F'\t' -v p=":$1/" '$1 == "qcn_rp-limiter" && index($2, p) { print $3, $4, $5, $6 }'; }
# found_lim PORT: as lim, true if there is one (busywait prints it: the
# dump that found the limiter is the one read)
found_lim() {
	local l
	l=$(lim "$1")
	printf '%s' "$l"
	[ -n "$l" ]
}
sent() { [ "$(xs packets)" -ge "$1" ]; }
stopped() { kill "$1" 2> /dev/null; wait "$1" 2> /dev/null; }
idle() { [ "$(xs qlen)" = 0 ]; }
started() { [ "$(xs limiters_started)" -ge "$1" ]; }
# start_rate_on: start-rate 10mbit for a phase after before_start_rate,
# which sets it (TESTS without before_start_rate: set here)
start_rate_on()
{
	[ "$(opt start_rate)" = $((START / 8)) ] ||
		nsx a tc qdisc change dev eth0 root qcn_rp start-rate 10mbit
}

# ---- without start-rate, and for a flow learned before it: no limiter
test_checks before_start_rate 4
before_start_rate()
{
	flow 9000 20mbit -t 60
	f1=$TB_LAST_PID
	busywait 10000 sent 200 > /dev/null
	ktap_check "without start-rate a flow sends unlimited: no limiter (created $(xs limiters_created), $(xs packets) packets)" \
		test "$(xs limiters_created)/$(xs limiters_active)" = "0/0"
	nsx a tc qdisc change dev eth0 root qcn_rp start-rate 10mbit
	ktap_check "start-rate 10mbit shown (start_rate $(opt start_rate) bytes/s)" \
		test "$(opt start_rate)" = $((START / 8))
	p0=$(xs packets)
	busywait 10000 sent $((p0 + 200)) > /dev/null
	ktap_check "the flow learned before start-rate was set stays unlimited (created $(xs limiters_created))" \
		test "$(xs limiters_created)/$(xs limiters_started)" = "0/0"
	ktap_rejected "start-rate 200mbit, above maxrate" "nsx a tc -j qdisc show dev eth0 | jq -c '.[0].options'" \
		nsx a tc qdisc change dev eth0 root qcn_rp start-rate 200mbit
	stopped "$f1"
	busywait 5000 idle > /dev/null
}

# ---- a new flow: limited at start-rate from its first frame
test_checks new_flow 4
new_flow()
{
	start_rate_on
	nsbg a "$QS" -d eth0 -i 20ms -t 30s > "$tmp/poll"
	qs=$TB_LAST_PID
	polling() { [ "$(grep -c . "$tmp/poll" 2> /dev/null)" -ge 2 ]; }
	busywait 5000 polling > /dev/null
	flow 9001 50mbit -t 60 -B 300000
	f2=$TB_LAST_PID
	# (the counts are those of the one dump that found the limiter started:
	# without a CNM the RP's own increase releases it at maxrate seconds
	# later, and a tc call in the debug UML kernel takes about a second)
	snap_started() {
		nsx a tc -s -j qdisc show dev eth0 | jq -r '.[0] | "\(.limiters_started)/\(.limiters_created)/\(.limiters_active)/\(.limiters_released)"' > "$tmp/xs"
		[ "$(cut -d/ -f1 "$tmp/xs")" -ge "$1" ]
	}
	busywait 5000 snap_started 1 > /dev/null
	ktap_check "a new flow gets a limiter at start-rate (started/created/active/released $(cat "$tmp/xs"))" \
		test "$(cat "$tmp/xs")" = "1/1/1/0"
	# the poll holds a second of the limiter's dumps
	spans() { qcnstat_cols "$tmp/poll" t_ms kind flow 2> /dev/null |
		awk -F'\t' '$2 == "qcn_rp-limiter" && index($3, ":9001/") { if (!n++) t0 = $1; t = $1 }
			END { exit !(n && t - t0 >= 1000) }'; }
	busywait 15000 spans > /dev/null
	stopped "$f2"
	kill "$qs" 2> /dev/null
	wait "$qs" 2> /dev/null
	busywait 5000 idle > /dev/null

	# every byte the qdisc sent since a new flow started left through its
	# limiter: it was there for the first frame.  The flow sends 100 frames
	# below start-rate, so that its limiter holds no queue and the dump right
	# after the last frame finds it (a limiter ages out 2 s after its flow's
	# last frame); one dump gives the qdisc's bytes and the limiter's at once.
	qbytes() { nsx a "$QS" -d eth0 -c 1 | qcnstat_cols /dev/stdin kind bytes |
		awk -F'\t' '$1 == "qcn_rp" { print $2 }'; }
	b0=$(qbytes)
	flow 9004 5mbit -c 100
	wait "$TB_LAST_PID" 2> /dev/null
	drained() { nsx a "$QS" -d eth0 -c 1 | qcnstat_cols /dev/stdin kind flow qlen bytes > "$tmp/end"
		awk -F'\t' '$1 == "qcn_rp" && $3 == 0 { ok = 1 } END { exit !ok }' "$tmp/end"; }
	busywait 5000 drained > /dev/null
	b1=$(awk -F'\t' '$1 == "qcn_rp" { print $4 }' "$tmp/end")
	l1=$(awk -F'\t' '$1 == "qcn_rp-limiter" && index($2, ":9004/") { print $4 }' "$tmp/end")
	ktap_check "every byte sent since the flow's first frame went through its limiter ($l1 of $((b1 - b0)) bytes)" \
		test -n "$l1" -a "${l1:-0}" -gt 0 -a "${l1:-0}" = "$((b1 - b0))"
	qcnstat_cols "$tmp/poll" t_ms kind flow bytes cr_bps tr_bps state |
		awk -F'\t' '$2 == "qcn_rp-limiter" && index($3, ":9001/") { print $1, $4, $5, $6, $7 }' > "$tmp/f2"
	read -r _ _ cr tr st < "$tmp/f2"
	ktap_check "its first dump: cr = tr = start-rate, fast recovery ($cr $tr $st)" \
		test "$cr $tr $st" = "$START $START fr"
	# the first 800 ms of the limiter's dumps (in fast recovery throughout):
	# the rate its bytes went at.  UML reads 7.5-9.9 Mbit/s with the other
	# CPU loaded; without the limiter the flow goes at its offered 50 Mbit/s,
	# with one at maxrate up to 100.
	win=$(awk 'NR == 1 { t0 = $1; b0 = $2 } $1 - t0 <= 800 { t = $1; b = $2 }
		END { if (t > t0) printf "%.2f", (b - b0) * 8 / (t - t0) / 1000; else print "none" }' "$tmp/f2")
	ktap_bound --timing first_window_mbps "$win" in 5:15 \
		"the first window's rate is start-rate's 10 Mbit/s ($win Mbit/s over $(wc -l < "$tmp/f2") dumps)"
}

# ---- one flow (b:9002) through the RP's own increase, every mode, the
# limiters cap and start-rate 0: each step takes the flow and the mode
# the one before left
test_checks modes 7
modes()
{
	start_rate_on
	# qcn mode, no congestion: the RP's own increase raises the rate
	s0=$(xs limiters_started)
	flow 9002 50mbit -t 120 -B 1000000
	f3=$TB_LAST_PID
	busywait 5000 started $((s0 + 1)) > /dev/null
	# CR at twice start-rate, or the limiter released at maxrate by the core
	# (not aged: the previous flows' limiters age out meanwhile)
	risen() {
		local l
		l=$(lim 9002)
		[ -n "$l" ] && [ "${l%% *}" -ge $((2 * START)) ] && return 0
		[ $(($(xs limiters_released) - $(xs limiters_aged))) -ge 1 ]
	}
	t0=$(date +%s%3N)
	busywait 30000 risen > /dev/null
	rc=$?
	ktap_check "qcn mode without CNMs: the RP's increase takes CR above 2 x start-rate or to maxrate (in $(($(date +%s%3N) - t0)) ms)" \
		test $rc = 0

	# every mode starts a limiter; a mode change forgets the flows, and
	# the flow's next frame is a new flow's.  The limiter is read from the
	# dump that found it: in the QCN modes, with no CNM, the RP's own
	# increase releases it at maxrate seconds after its start
	for m in qcn-t qcn-aimd n-aimd ap-n-aimd; do
		s0=$(xs limiters_started)
		nsx a tc qdisc change dev eth0 root qcn_rp mode "$m"
		read -r cr tr st _ <<< "$(busywait 5000 found_lim 9002)"
		case $m in
		# QCN-T: fast recovery for 5 x 500 ms at start-rate; read after it
		# (a slow guest), above start-rate
		qcn-t) want="$START $START fr"
			[ "$st" != fr ] && [ "${cr:-0}" -gt $START ] && want="$cr $tr $st" ;;
		# QCN-AIMD: + R_AI per 1 MB, exactly: start-rate + k x 1 Mbit/s
		qcn-aimd) k=$(( (${cr:-0} - START) / 1000000 ))
			want="$((START + k * 1000000)) $((START + k * 1000000)) ai" ;;
		# N-AIMD: only CNMs move it; AP-N-AIMD: no averaging step pending
		*) want="$START $START fr" ;;
		esac
		ktap_check "mode $m: the flow re-learned starts limited at start-rate ($cr $tr $st, started $s0 -> $(xs limiters_started))" \
			test "$cr $tr $st" = "$want" -a "$(xs limiters_started)" = $((s0 + 1))
	done

	# the limiters cap: a new flow without a free limiter starts unlimited.
	# In mode n-aimd only CNMs move a limiter: the first flow's keeps the one
	# free limiter (a QCN mode's RP would release it at maxrate seconds after
	# its start, before a slow guest's new flow came)
	s0=$(xs limiters_started)
	r0=$(xs limiters_refused)
	nsx a tc qdisc change dev eth0 root qcn_rp mode n-aimd limiters 1
	busywait 5000 started $((s0 + 1)) > /dev/null
	flow 9003 20mbit -c 50
	f4=$TB_LAST_PID
	wait "$f4" 2> /dev/null
	refused() { [ "$(xs limiters_refused)" -ge "$1" ]; }
	busywait 5000 refused $((r0 + 1)) > /dev/null
	# (the refusal is the fact checked; limiters_active is said, not
	# compared: an emulated guest that stalls the first flow's sender for 2 s
	# ages that flow's limiter out)
	ktap_check "limiters 1 taken: the next new flow starts unlimited, counted refused ($r0 -> $(xs limiters_refused), active $(xs limiters_active))" \
		test "$(xs limiters_refused)/$(lim 9003)" = "$((r0 + 1))/"

	# start-rate 0: off again (the mode change forgets the flows)
	s0=$(xs limiters_started)
	nsx a tc qdisc change dev eth0 root qcn_rp start-rate 0 mode qcn-t
	p0=$(xs packets)
	busywait 10000 sent $((p0 + 200)) > /dev/null
	ktap_check "start-rate 0: a flow re-learned gets no limiter (active $(xs limiters_active), started $s0 -> $(xs limiters_started))" \
		test "$(xs limiters_active)/$(xs limiters_started)/$(opt start_rate)" = "0/$s0/0"
	stopped "$f3"
}

ALL_TESTS="before_start_rate new_flow modes"
tests_plan kernel_log
tests_run
tb_cleanup
rm -rf "$tmp"
kernel_log
ktap_finished
