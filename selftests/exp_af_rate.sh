#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Native speed (UML or a host): AF-QCN's Figs. 6-7 on the modules, the
# kernel side of scripts/experiments/af-qcn (not in the suite: not fast_*).
# Four static TCP flows share one qcn port whose service rate is cut to a
# tenth and restored (`tc qdisc change ... rate`), with QCN alone and with
# AF-QCN.  Asserted (a smoke test, not the paper's figure): every testbed
# comes up, both rate changes are taken, the port carries >= 40 % of its
# rate in every phase, no kernel warnings.
#
# The phases: [PH1, CUT] s at RATE, ]CUT + SETTLE, BACK] s at RATE / 10,
# ]BACK + SETTLE, DUR] s at RATE again, from the times the changes took
# (the paper: 10 -> 1 -> 10 Gb/s at 2 s and 4 s).  Reported per run and
# phase: each flow's mean rate (the bytes its qcn_rp sent, the frames the
# port dropped included), the port's utilization (the bytes qcn sent), the
# largest deviation of a flow's mean from the flows' mean (%: the CPU, not
# only the port, bounds what UML's senders offer, so the share is of what
# the port carried), Jain's index, and the queue's time average and the sd
# of its 20 ms samples (qcnstat).  The standard's CP (limit 150 KB, Qeq
# 26 KB) and RP (qcn_rp max-rate 2gbit); "af" is the paper's alpha 0.125,
# beta 0.125, Ts 1 ms, one class of weight 1 per sender, af-fb signed
# (FAST_AF_FB), and active_thresh 20 KB per 1 ms scaled by RATE / 10 Gbit/s.
# Environment: FAST_AF_RATE (500mbit), FAST_AF_MODES ("qcn af"),
# FAST_AF_CUT_AT, FAST_AF_BACK_AT, FAST_AF_DUR (6, 12, 18 s), FAST_AF_OUT
# (a folder for fig67.csv: mode,phase,from_s,to_s,port_kbit,flow1..4
# kbit/s,util_pct,max_dev_pct,jain,queue_mean_bytes,queue_sd_bytes,
# tail_drops (the run's); default none).
source "$(dirname "$0")/lib_fast.sh"
source "$(dirname "$0")/lib_af.sh"	# af_paper_testbed
fast_require
RATE=${FAST_AF_RATE:-500mbit}
MODES=${FAST_AF_MODES:-"qcn af"}
CUT=${FAST_AF_CUT_AT:-6}
BACK=${FAST_AF_BACK_AT:-12}
DUR=${FAST_AF_DUR:-18}
PH1=2 SETTLE=2
port=$(awk -v r="$RATE" 'BEGIN { n = r + 0; if (r ~ /gbit/) n *= 1000000; else if (r ~ /mbit/) n *= 1000; print n }')
low=$((port / 10))
ACTIVE=${FAST_AF_ACTIVE:-$((port / 500))}	# 20000 B x port / 10 Gbit/s
# Every time is CLOCK_MONOTONIC in ms (/proc/uptime here, qcnstat -m):
# one clock for the schedule, the switch's queue and bytes and each
# sender's bytes (its qcn_rp), in one poller.
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# The changes go to one tc started before the flows (tc -batch reading a
# FIFO, at a high priority): a tc started under load takes seconds in UML
# to load itself and its plugin.
# change_at VAR RATE: at $VAR s after t0, qcn's rate to RATE; at_ms: when
# the command was written
change_at()
{
	local left=$((t0 + ${!1} * 1000 - $(now_ms)))
	[ "$left" -gt 0 ] && sleep "$(awk -v l="$left" 'BEGIN { printf "%.3f", l / 1000 }')"
	at_ms=$(now_ms)
	echo "qdisc change dev sw-pr root handle 1: qcn rate $2" >&7
}
# phase P: "FROM TO PORT_KBIT" (ms), from the times the changes took
phase()
{
	case $1 in
	1) echo "$((t0 + PH1 * 1000)) $cut_ms $port" ;;
	2) echo "$((cut_ms + SETTLE * 1000)) $back_ms $low" ;;
	3) echo "$((back_ms + SETTLE * 1000)) $((t0 + DUR * 1000)) $port" ;;
	esac
}
# in_window TSV A B: the rows of one object with t_ms in [A, B]
in_window() { awk -F'\t' -v a="$2" -v b="$3" '$1 >= a && $1 <= b' "$1"; }
# kbps TSV A B: its bytes' rate (kbit/s) in [A, B] (t_ms in column 1,
# bytes in column 3)
kbps()
{
	in_window "$@" | awk -F'\t' '!n++ { y0 = $3; t0 = $1 } { y1 = $3; t1 = $1 }
		END { printf "%d\n", (t1 > t0 ? (y1 - y0) * 8 / (t1 - t0) : 0) }'
}
nm=$(wc -w <<< "$MODES")
ktap_print_header
ktap_set_plan $((nm * 5 + 1))
qcn_dmesg_mark
tb_init
tmp=$(mktemp -d)
csv=$tmp/fig67.csv
echo "mode,phase,from_s,to_s,port_kbit,flow1,flow2,flow3,flow4,util_pct,max_dev_pct,jain,queue_mean_bytes,queue_sd_bytes,tail_drops" > "$csv"
ktap_info "port $RATE, cut to $((low / 1000))mbit at $CUT s, back at $BACK s, flows 0-$DUR s, active $ACTIVE bytes per 1 ms"

for mode in $MODES; do
	ktap_check "$mode: testbed (4 qcn_rp, qcn $RATE${mode/qcn/}) up" \
		af_paper_testbed "$mode" "$RATE" "$ACTIVE" 4
	fast_servers 4
	qd=(-d "$TB-sw:sw-pr")
	for i in 1 2 3 4; do qd+=(-d "$TB-h$i:eth0"); done
	nsbg sw nice -n -10 "$QS" -m -i 20ms -t "$((DUR + 1))s" "${qd[@]}" > "$tmp/q-$mode.csv"
	rm -f "$tmp/tc.fifo"
	mkfifo "$tmp/tc.fifo"
	nsbg sw nice -n -15 tc -batch "$tmp/tc.fifo" > "$tmp/tc-$mode.log" 2>&1
	exec 7> "$tmp/tc.fifo"
	for i in 1 2 3 4; do fast_tcp "$i" "$DUR" "$tmp/f-$mode-$i.json" -i 0.5; done
	t0=$(now_ms)
	renice -n -15 $$ > /dev/null	# this shell keeps the schedule
	rc=0
	change_at CUT "$((low / 1000))mbit"
	cut_ms=$at_ms
	r_low=$(nsx sw tc -j qdisc show dev sw-pr | jq '.[0].options.rate')
	change_at BACK "$RATE"
	back_ms=$at_ms
	exec 7>&-
	renice -n 0 $$ > /dev/null
	tb_wait
	[ -s "$tmp/tc-$mode.log" ] && { rc=1; sed 's/^/# tc: /' "$tmp/tc-$mode.log"; }
	r_now=$(nsx sw tc -j qdisc show dev sw-pr | jq '.[0].options.rate')
	ktap_check "$mode: rate cut at $((cut_ms - t0)) ms ($r_low bytes/s) and restored at $((back_ms - t0)) ms ($r_now bytes/s)" \
		test $rc -eq 0 -a "$r_low" = $((low * 1000 / 8)) -a "$r_now" = $((port * 1000 / 8))
	drops=$(fast_qdisc_num sw sw-pr tail_drops)
	# one TSV per object: t_ms backlog bytes (stamp_ns backlog_ns)
	qcnstat_cols "$tmp/q-$mode.csv" t_ms dev kind backlog bytes stamp_ns backlog_ns > "$tmp/q-$mode.all"
	awk -F'\t' -v sw="$TB-sw:sw-pr" '$2 == sw && $3 == "qcn" { print $1 "\t" $4 "\t" $5 "\t" $6 "\t" $7 }' \
		"$tmp/q-$mode.all" > "$tmp/sw.tsv"
	for i in 1 2 3 4; do
		awk -F'\t' -v h="$TB-h$i:eth0" '$2 == h && $3 == "qcn_rp" { print $1 "\t" $4 "\t" $5 }' \
			"$tmp/q-$mode.all" > "$tmp/h$i.tsv"
	done
	for p in 1 2 3; do
		read -r a b pk <<< "$(phase $p)"
		for i in 1 2 3 4; do r[i]=$(kbps "$tmp/h$i.tsv" "$a" "$b"); done
		pr=$(kbps "$tmp/sw.tsv" "$a" "$b")
		# the queue: its time average (backlog_ns over stamp_ns) and the
		# sd of the samples
		read -r qm qsd <<< "$(in_window "$tmp/sw.tsv" "$a" "$b" |
			awk -F'\t' '!n++ { b0 = $5; s0 = $4 } { s += $2; s2 += $2 * $2; b1 = $5; s1 = $4 }
			END { if (!n || s1 <= s0) { print "0 0"; exit } v = s2 / n - (s / n) ^ 2
				printf "%d %d\n", (b1 - b0) / (s1 - s0), (v > 0 ? sqrt(v) : 0) }')"
		read -r dev jain <<< "$(awk -v x="${r[*]}" 'BEGIN { n = split(x, a, " ")
			for (i = 1; i <= n; i++) { s += a[i]; s2 += a[i] * a[i] }
			for (i = 1; i <= n; i++) { e = s ? a[i] * n / s - 1 : 1; if (e < 0) e = -e; if (e > d) d = e }
			printf "%.1f %.3f\n", 100 * d, s2 ? s * s / n / s2 : 0 }')"
		tot=$((r[1] + r[2] + r[3] + r[4]))
		a=$(awk -v x=$((a - t0)) 'BEGIN { printf "%.1f", x / 1000 }')
		b=$(awk -v x=$((b - t0)) 'BEGIN { printf "%.1f", x / 1000 }')
		echo "$mode,$p,$a,$b,$pk,${r[1]},${r[2]},${r[3]},${r[4]},$((pr * 100 / pk)),$dev,$jain,$qm,$qsd,$drops" >> "$csv"
		ktap_info "$mode, phase $p ([$a, $b] s, port $pk kbit/s): senders' kbit/s ${r[*]} (total $tot), the port sent $pr kbit/s, largest deviation from the flows' mean $dev %, Jain $jain, queue mean/sd $qm/$qsd B"
		ktap_rate_check "$mode, phase $p: the port carries >= 40 % of $pk kbit/s ($pr)" \
			test $((pr * 10)) -ge $((pk * 4))
	done
	tb_cleanup
done
column -s, -t < "$csv" | sed 's/^/# /'
[ -n "${FAST_AF_OUT:-}" ] && mkdir -p "$FAST_AF_OUT" && cp "$csv" "$FAST_AF_OUT/fig67.csv"
[ -n "${FAST_AF_KEEP:-}" ] && cp -r "$tmp" "$FAST_AF_KEEP"
rm -rf "$tmp"
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finished
