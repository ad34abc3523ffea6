#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CNMs on the wire: h1, h2 -> bridge -> r with qcn on the port to r, UDP
# senders overloading it.  The CNMs captured on h1 and h2 decode, carry
# the right addresses, CPID and a copy of a frame the host sent, and their
# number agrees with xstats.  Below the port rate no CNM is sent; the mean qFb
# grows with the overload; the keep-alive timer samples a standing queue.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd iperf3 jq
qcn_require_modules sch_qcn
DUMP="$QCN_TOP/selftests/cnm_dump"
qcn_require_built "$DUMP"

R_MAC=02:00:00:00:00:64

xst()	# xstats KEY
{
	qdisc_json sw sw-pr | jq -r ".[0].$1"
}

# udp HOST RATE SECONDS PORT: a paced UDP flow of 1200-byte datagrams
udp()
{
	udp_flow "$1" "$2" "$3" "$4" 1200
}

server()
{
	nsbg r iperf3 -s -p "$1" >/dev/null 2>&1
}

# server_idle PORT: r's iperf3 server on PORT listens and holds no test's
# connection (a closed one may linger in TIME-WAIT), so that a client
# started now is served (after a test it closes its socket and listens on
# a new one)
server_idle()
{
	local s
	s=$(nsx r ss -Htan "sport = :$1" | grep -v '^TIME-WAIT')
	[ "$(grep -c . <<<"$s")" -eq 1 ] && grep -q '^LISTEN' <<<"$s"
}

# the CP has sent a CNM; its queue has drained
cnms_flowing() { [ "$(qcn_cnms_sent sw sw-pr)" -gt 0 ]; }
drained() { [ "$(xst qlen)" -eq 0 ]; }

# a new qdisc (fresh counters)
cp_fresh()
{
	nsx sw tc qdisc del dev sw-pr root 2>/dev/null
	nsx sw tc qdisc add dev sw-pr root handle 1: qcn "$@"
}

# the iperf3 senders a phase leaves running; a phase that needs the port
# and r's servers to itself waits for them first
SENDERS=()
wait_senders()
{
	[ ${#SENDERS[@]} -eq 0 ] || wait "${SENDERS[@]}"
	SENDERS=()
}

# the low-rate phase's qeq (the default 26000; a few hundred bytes must fail
# its no-CNM checks) and the keep-alive phase's interval (0, off, must fail
# the keep-alive checks)
CP_CNM_LOW_QEQ=${CP_CNM_LOW_QEQ:-26000}
CP_CNM_KEEPALIVE=${CP_CNM_KEEPALIVE:-10ms}

# ---------------------------------------------------------------- overload
# input-backlog drops (all CPUs): a CNM dropped there never reaches a host
backlog_drops()
{
	local n=0 d
	while read -r _ d _; do n=$((n + 0x$d)); done < /proc/net/softnet_stat
	echo "$n"
}

# Every CNM line carries the expected fields.  Frames other than the UDP
# stream (the host's own IPv6 router solicitations, ARP) may be sampled too:
# their common fields must be right and there may be only a few of them.
fields_ok()	# FILE HOSTMAC HOSTIP
{
	awk -v pm="$PORT_MAC" -v hm="$2" -v hip="$3" -v rm="$R_MAC" -v rip="$QCN_NET.100" \
	    -v cpid="$(echo "$PORT_MAC" | tr -d :)1234" '
	/^cnm / {
		n++
		delete f
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		if (f["src"] != pm || f["dst"] != hm || f["ver"] != 0 ||
		    f["qfb"] < 1 || f["qfb"] > 63 || f["cpid"] != cpid || f["prio"] != 0) {
			print "# bad CNM: " $0; bad++
		} else if (substr(f["msdu"], 1, 4) != "0800") {
			other++
		} else if (f["edst"] != rm || f["msdu_len"] != 64 || f["inner"] != "ipv4" ||
			   f["isrc"] != hip || f["idst"] != rip || f["proto"] != 17 ||
			   f["ipcsum"] != "ok" || f["dport"] !~ /^520[12]$/) {
			print "# bad CNM: " $0; bad++
		}
	}
	END {
		if (other) print "# " other " CNMs for non-IPv4 frames of the host"
		exit !(n > 0 && bad == 0 && other * 20 <= n)
	}' "$1"
}

# mean qFb of the CNMs captured in one overload run
mean_qfb()
{
	cat "$@" | awk '/^cnm /{ for (i = 2; i <= NF; i++) if ($i ~ /^qfb=/) { s += substr($i, 5); n++ } }
		END { if (n) printf "%d\n", s * 10 / n; else print 0 }'
}

# The overload is what the later phases compare with (its CNMs sent, their
# mean qFb, heavy): every selection runs it.
test_checks overload 12
overload()
{
	# 2 x 40 Mbit/s into 15: an overload even where the kernel forwards
	# less than the senders offer (the debug kernel, an emulated guest)
	nsx sw tc qdisc add dev sw-pr root handle 1: qcn limit 150000 qeq 26000 w 2 \
		rate 15mbit cpid 0x1234
	bd0=$(backlog_drops)
	cnm_dump_bg h1 "$TMP/h1" -i eth0 -t 8
	p1=$TB_LAST_PID
	cnm_dump_bg h2 "$TMP/h2" -i eth0 -t 8
	p2=$TB_LAST_PID
	udp h1 40mbit 5 5201
	SENDERS+=("$TB_LAST_PID")
	udp h2 40mbit 5 5202
	SENDERS+=("$TB_LAST_PID")
	# xstats are one snapshot (taken under the root lock): while CNMs flow,
	# every dump has CNMs sent + failed + skipped <= samples, and the qFb
	# histogram counts exactly the CNMs sent
	busywait 20000 cnms_flowing
	snaps=0; torn=0
	for _ in $(seq 15); do
		snaps=$((snaps + 1))
		qdisc_json sw sw-pr | jq -e ".[0] | $QCN_JQ_CNMS"' as $sent | $sent + .cnm_fail + .cnm_skipped <= .samples and
			([.qfb_hist[]] | add) == $sent' >/dev/null || torn=$((torn + 1))
		# the dumps' spacing: they spread over the overload
		sleep 0.15
	done
	wait "$p1" "$p2"

	n1=$(grep -c '^cnm ' "$TMP/h1")
	n2=$(grep -c '^cnm ' "$TMP/h2")
	bad=$(cat "$TMP/h1" "$TMP/h2" | grep -c '^bad ')
	total=$(qcn_cnms_sent sw sw-pr)
	fail=$(xst cnm_fail)
	ktap_info "CNMs captured h1=$n1 h2=$n2 bad=$bad; xstats sent=$total fail=$fail samples=$(xst samples);" \
		"input-backlog drops during the run: $(($(backlog_drops) - bd0))"
	ktap_check "CNMs reach h1" test "$n1" -gt 0
	ktap_check "CNMs reach h2" test "$n2" -gt 0
	ktap_check "every captured CNM decodes" test "$bad" -eq 0

	ktap_check "h1's CNMs: addresses, CPID, qFb, MSDU = start of its UDP frame" \
		fields_ok "$TMP/h1" 02:00:00:00:00:01 "$QCN_NET.1"
	ktap_check "h2's CNMs: addresses, CPID, qFb, MSDU = start of its UDP frame" \
		fields_ok "$TMP/h2" 02:00:00:00:00:02 "$QCN_NET.2"
	ktap_check "no more CNMs captured ($((n1 + n2))) than xstats count sent ($total)" \
		test "$((n1 + n2))" -le "$total"
	ktap_bound cnm_capture_loss $((total - n1 - n2)) '<=' "$(cnm_loss_allowance "$total")" \
		"the CNMs counted as sent are on the wire (captured $((n1 + n2)) of $total)"
	ktap_check "no CNM transmit failures" test "$fail" -eq 0
	ktap_check "xstats dumped under load are consistent snapshots ($torn of $snaps torn)" \
		test "$torn" -eq 0
	hist=$(qdisc_json sw sw-pr | jq '[.[0].qfb_hist[]] | add')
	ktap_check "qFb histogram counts every CNM ($hist)" test "$hist" -eq "$total"
	ktap_check "CNMs are counted as arrival-sampled" test "$(xst cnm_occupancy)" -eq 0
	# the CNMs' latency in the CP: a sum over the CNMs sent, and its largest
	# term (0 < max <= sum; timing itself is for benchmarks)
	read -r dsum dmax <<<"$(qdisc_json sw sw-pr | jq -r '.[0] | "\(.cnm_delay_ns) \(.cnm_delay_max_ns)"')"
	ktap_info "CNM latency in the CP: mean $((dsum / (total ? total : 1) / 1000)) us, max $((dmax / 1000)) us over $total CNMs"
	ktap_check "CNM latency: 0 < max ($dmax ns) <= sum ($dsum ns)" \
		test "$dmax" -gt 0 -a "$dmax" -le "$dsum"

	heavy=$(mean_qfb "$TMP/h1" "$TMP/h2")
}

# --------------------------------------------------------- below the rate
test_checks below_rate 3
below_rate()
{
	# the overload's senders are done before the port is measured below its rate
	wait_senders
	cp_fresh limit 150000 rate 30mbit qeq "$CP_CNM_LOW_QEQ"
	cnm_dump_bg h1 "$TMP/low" -i eth0 -t 4
	p1=$TB_LAST_PID
	# a smooth sender: iperf3 sends in bursts that can queue past Qeq
	nsx h1 "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.100" -p 5201 -s 1200 -r 10000000 -t 3 >/dev/null
	wait "$p1"
	s=$(xst samples)
	t=$(qcn_cnms_sent sw sw-pr)
	low=$(grep -c '^cnm ' "$TMP/low")
	ktap_info "10 Mbit/s into 30 Mbit/s: samples=$s cnms=$t captured=$low (overload: $total)"
	ktap_bound low_samples "$s" '>' 5 "below the port rate the CP samples"
	# an emulator stall can still queue a burst past Qeq: at most 2, against
	# hundreds under overload
	ktap_bound low_cnms_sent "$t" '<=' 2 "below the port rate no CNM is sent (<= 2 for emulator stalls)"
	ktap_bound low_cnms_captured "$low" '<=' 2 "below the port rate no CNM is captured (<= 2 for emulator stalls)"
}

# ----------------------------------------------------- a milder overload
test_checks milder 1
milder()
{
	# the server on 5201 is done with the overload's test
	wait_senders
	busywait 20000 server_idle 5201
	cp_fresh limit 150000 rate 30mbit
	cnm_dump_bg h1 "$TMP/mild" -i eth0 -t 6
	p1=$TB_LAST_PID
	udp h1 34mbit 5 5201
	SENDERS+=("$TB_LAST_PID")
	wait "$p1"
	mild=$(mean_qfb "$TMP/mild")
	ktap_info "mean qFb x10: 34 Mbit/s into 30: $mild, 2 x 40 Mbit/s into 15: $heavy"
	# the heavier overload queues deeper: its CNMs carry a larger mean qFb
	ktap_bound qfb_rise "$((heavy - mild))" '>' 0 "qFb rises with the overload"
}

# ---------------------------------------------------------- keep-alive
# a standing queue drained at 2 Mbit/s with no arrivals: keep-alive samples
test_checks keepalive 2
keepalive()
{
	# the earlier phase's sender and its test on 5201 are done
	wait_senders
	busywait 20000 server_idle 5201
	cp_fresh limit 100000 rate 2mbit keepalive "$CP_CNM_KEEPALIVE"
	udp h1 20mbit 1 5201
	wait "$TB_LAST_PID"
	# keep-alive samples the queue while it is above Qeq: until it has drained
	busywait 20000 drained
	ka=$(xst keepalive_samples)
	ka_cnm=$(qcn_cnms_sent sw sw-pr)
	ktap_info "keep-alive samples $ka, CNMs $ka_cnm"
	# with no arrivals only the keep-alive timer (every 10 ms) samples the queue
	ktap_bound keepalive_samples "$ka" '>' 5 "keep-alive samples a queue above Qeq without arrivals"
	ktap_check "keep-alive samples send CNMs" test "$ka_cnm" -gt 0
	qlen=$(qdisc_json sw sw-pr | jq '.[0].backlog')
	ktap_info "backlog after the burst: $qlen"
}

ALL_TESTS="below_rate milder keepalive"
tests_plan overload kernel_log
qcn_dmesg_mark
tb_init
tb_star 2 || ktap_skip_all "cannot build the testbed"
TMP=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$TMP"' EXIT

PORT_MAC=$(ip -n "$TB-sw" -br link show dev sw-pr | awk '{print $3}')

server 5201
server 5202
tb_listening r 5201 5202

overload
tests_run
kernel_log
ktap_finished
