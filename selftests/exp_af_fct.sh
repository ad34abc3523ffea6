#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Native speed (UML or a host): AF-QCN's Table I / Fig. 12 on the modules,
# the kernel side of scripts/experiments/af-qcn (not in the suite: not
# fast_*).  Four static TCP flows and dynamic flows from four more sources
# share one qcn port, with QCN alone and with AF-QCN.  Asserted (a smoke
# test): testbeds up, >= 95 % of the flows done, the port >= 40 % busy, no
# kernel warnings.
source "$(dirname "$0")/lib_fast.sh"
source "$(dirname "$0")/lib_af.sh"	# af_paper_testbed
fast_require
# The static flows: h1..h4, iperf3, GSO on, 4000-byte frames.  h5..h8 hold
# 4 permanent TCP connections each, over which flow_gen sends dynamic
# flows: Poisson arrivals, Pareto sizes (mean 10 KB, shape 1.1, whole
# 1000-byte units), offered LOAD in total (the paper: 1 of 10 Gb/s; default
# 10 % of RATE), a quarter per source.  One qcn port of RATE, the
# standard's CP, qcn_rp max-rate 2gbit at every sender; h5..h8's qcn_rp
# keys flows by addresses (flow l3): one limiter per source, which its
# connections share and its flows inherit, as the paper's 8 RPs.  Each
# mode runs the same arrivals (same seeds): QCN alone ("qcn") and AF-QCN
# ("af": alpha 0.125, beta 0.125, Ts 1 ms, one class of weight 1 per
# sender, active_thresh 20 KB per 1 ms scaled by RATE / 10 Gbit/s).
# Reported: mean and median FCT (arrival to the sink's answer) by size bin
# over the flows arriving after WARM s; the static flows' goodput and the
# fraction of their 0.5 s rates within 25 % of the four's mean (Fig. 12).
# Environment: FAST_AF_RATE (500mbit), FAST_AF_FCT_LOAD (RATE / 10),
# FAST_AF_MODES ("qcn af"), FAST_AF_DUR (16 s of arrivals), FAST_AF_WARM
# (3 s), FAST_AF_ACTIVE (bytes per Ts), FAST_AF_FB (qcn af-fb for the AF
# runs: signed, as in EXPERIMENTS.md; or clamp), FAST_AF_OUT (a folder for
# table1.csv: mode,bin_kb,flows,done,mean_us,median_us; fig12.csv:
# mode,flow,kbps,share_pct,within25_pct; fct-MODE.csv: every flow,
# flow_gen's columns and the source; default none).
GEN=$QCN_TOP/selftests/flow_gen
qcn_require_built "$GEN"
RATE=${FAST_AF_RATE:-500mbit}
MODES=${FAST_AF_MODES:-"qcn af"}
DUR=${FAST_AF_DUR:-16}
WARM=${FAST_AF_WARM:-3}
port=$(awk -v r="$RATE" 'BEGIN { n = r + 0; if (r ~ /gbit/) n *= 1000000; else if (r ~ /mbit/) n *= 1000; print n }')
LOAD=${FAST_AF_FCT_LOAD:-$((port / 10))kbit}
ACTIVE=${FAST_AF_ACTIVE:-$((port / 500))}	# 20000 B x port / 10 Gbit/s
load=$(awk -v r="$LOAD" 'BEGIN { n = r + 0; if (r ~ /gbit/) n *= 1000000; else if (r ~ /mbit/) n *= 1000; print n }')
nm=$(wc -w <<< "$MODES")
ktap_print_header
ktap_set_plan $((nm * 4 + 1))
qcn_dmesg_mark
tb_init
tmp=$(mktemp -d)
echo "mode,bin_kb,flows,done,mean_us,median_us" > "$tmp/table1.csv"
echo "mode,flow,kbps,share_pct,within25_pct" > "$tmp/fig12.csv"
ktap_info "port $RATE, active $ACTIVE bytes per 1 ms, dynamic load ${load} kbit/s over 4 x 4 connections, arrivals 0-$DUR s, summary from $WARM s"

for mode in $MODES; do
	ktap_check "$mode: testbed (8 qcn_rp, qcn $RATE${mode/qcn/}) up" \
		af_paper_testbed "$mode" "$RATE" "$ACTIVE" 8 5
	ktap_info "$mode: $(uptime)"
	fast_servers 4
	rm -f "$tmp"/fct-?.csv "$tmp"/gen-?.txt
	# flow_gen at nice -15: on UML's one CPU the static flows' senders and
	# receivers would otherwise delay its writes and the sink's answers by
	# milliseconds (the FCT would measure the CPU queue, not the network)
	nsbg r nice -n -15 "$GEN" sink -p 9100 -t $((DUR + 8))
	sleep 1
	pids=()
	for i in 1 2 3 4; do
		fast_tcp "$i" $((DUR + 1)) "$tmp/f$i.json" -i 0.5
		pids+=("$TB_LAST_PID")
	done
	sleep 0.5
	for i in 5 6 7 8; do
		nsbg "h$i" nice -n -15 "$GEN" send -d "$QCN_NET.100" -p 9100 -n 4 -l $((load / 4))kbit \
			-t "$DUR" -w "$WARM" -D 5 -S "$i" -o "$tmp/fct-$i.csv" > "$tmp/gen-$i.txt"
		pids+=("$TB_LAST_PID")
	done
	# every second: the RP limiters of a static (h1) and a dynamic (h5)
	# source, the port's classes (trace-MODE.txt in FAST_AF_OUT)
	(
		for s in $(seq 1 "$DUR"); do
			sleep 1
			echo "t $s"
			for h in h1 h5; do echo "$h"; nsx "$h" tc -s class show dev eth0; done
			[ "$mode" = af ] && nsx sw tc -s class show dev sw-pr
		done
	) > "$tmp/trace-$mode.txt" 2>&1 &
	pids+=("$!")
	# the senders; the sink (it outlasts them) goes with the testbed
	for p in "${pids[@]}"; do wait "$p"; done
	# the dynamic source's limiter: samples with one, mean CR (Mbit/s)
	ktap_info "$mode: h5's limiter (cr) in $(awk '/^h5/ { h = 1 } /^h1|^t / { h = 0 } h && $1 == "cr" { n++; v = $2; m = v ~ /Gbit/ ? 1000 : v ~ /Kbit/ ? 0.001 : v ~ /Mbit/ ? 1 : 1e-6; s += v * m } END { printf "%d samples, mean %.1f Mbit/s", n, n ? s / n : 0 }' "$tmp/trace-$mode.txt") of $DUR s"
	# every flow of the four sources; FCT by the paper's bins (KB = 1000 bytes)
	for i in 5 6 7 8; do
		[ -f "$tmp/fct-$i.csv" ] && awk -F, -v s="$i" 'NR > 1 { print $0 "," s }' "$tmp/fct-$i.csv"
	done > "$tmp/fct-$mode.csv"
	awk -F, -v w="$WARM" -v m="$mode" '$4 / 1e6 >= w { b = $3 < 10000 ? "1-10" : $3 < 100000 ? "10-100" : $3 < 1000000 ? "100-1000" : "1000-inf"
			n[b]++; if ($7 != "") { d[b]++; print b, $7 } }
		END { for (b in n) print "count", b, n[b], d[b] + 0 }' "$tmp/fct-$mode.csv" |
		sort -k1,1 -k2,2g > "$tmp/bins"
	for b in 1-10 10-100 100-1000 1000-inf; do
		read -r n d < <(awk -v b="$b" '$1 == "count" && $2 == b { print $3, $4 }' "$tmp/bins")
		awk -v b="$b" '$1 == b { print $2 }' "$tmp/bins" | sort -g |
			awk -v m="$mode" -v b="$b" -v n="${n:-0}" -v d="${d:-0}" \
				'{ v[NR] = $1; s += $1 } END { printf "%s,%s,%d,%d,%.1f,%.1f\n", m, b, n, d,
					NR ? s / NR : 0, NR ? v[int((NR + 1) / 2)] : 0 }'
	done >> "$tmp/table1.csv"
	read -r nall dall < <(awk -F, -v w="$WARM" '$4 / 1e6 >= w { n++; if ($7 != "") d++ } END { print n + 0, d + 0 }' "$tmp/fct-$mode.csv")
	ktap_info "$mode: flow_gen summaries: $(grep -h '^# arrivals' "$tmp"/gen-*.txt | sed 's/^# arrivals: //' | tr '\n' ';')"
	ktap_check "$mode: >= 95 % of the $nall flows done ($dall)" test $((dall * 100)) -ge $((nall * 95)) -a "$nall" -gt 0
	# Fig. 12: the static flows over [WARM, DUR]
	total=0
	for i in 1 2 3 4; do
		r[i]=$(fast_interval_rate "$tmp/f$i.json" "$WARM" "$DUR")
		total=$((total + r[i]))
	done
	paste <(fast_series "$tmp/f1.json") <(fast_series "$tmp/f2.json") \
		<(fast_series "$tmp/f3.json") <(fast_series "$tmp/f4.json") |
		awk -v w="$WARM" -v d="$DUR" '$1 >= w - 0.01 && $1 < d - 0.01 { a = ($2 + $4 + $6 + $8) / 4; n++
			for (i = 1; i <= 4; i++) { x = a ? $(2 * i) / a - 1 : 1; if (x < 0) x = -x; if (x <= 0.25) c[i]++ } }
			END { for (i = 1; i <= 4; i++) printf "%.1f\n", n ? 100 * c[i] / n : 0 }' > "$tmp/w25"
	for i in 1 2 3 4; do
		echo "$mode,$i,${r[i]},$(share_pct "${r[i]}" "$total"),$(sed -n "${i}p" "$tmp/w25")"
	done >> "$tmp/fig12.csv"
	dyn=$(awk -F, -v w="$WARM" -v d="$DUR" '$4 / 1e6 >= w && $4 / 1e6 < d { b += $3 } END { printf "%d", b * 8 / (d - w) / 1000 }' "$tmp/fct-$mode.csv")
	drops=$(fast_qdisc_num sw sw-pr tail_drops)
	ktap_info "$mode: static kbit/s ${r[1]} ${r[2]} ${r[3]} ${r[4]} (total $total), dynamic offered $dyn kbit/s, port tail drops $drops"
	ktap_rate_check "$mode: the port carries >= 40 % of $port kbit/s (static $total + dynamic $dyn)" \
		test $(((total + dyn) * 10)) -ge $((port * 4))
	[ "$mode" = af ] && nsx sw tc -s class show dev sw-pr | sed 's/^/# /'
	[ -n "${FAST_AF_OUT:-}" ] && mkdir -p "$FAST_AF_OUT" &&
		cp "$tmp/fct-$mode.csv" "$tmp/trace-$mode.txt" "$FAST_AF_OUT/"
	tb_cleanup
	ktap_test_pass "$mode: ran"
done
column -s, -t < "$tmp/table1.csv" | sed 's/^/# /'
column -s, -t < "$tmp/fig12.csv" | sed 's/^/# /'
[ -n "${FAST_AF_OUT:-}" ] && cp "$tmp/table1.csv" "$tmp/fig12.csv" "$FAST_AF_OUT/"
rm -rf "$tmp"
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finished
