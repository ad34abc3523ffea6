#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# KTAP tests for tools/qcn-sim: the papers' experiments, run on the cores
# the modules run (seeded, deterministic, < 1 s each): QCN at the paper's
# scale (full link, queue near Qeq, coarse fairness), AF-QCN's weights, cap
# and 10 ms fairness (Kabbani et al., Figs. 8-9), the emulated testbed's
# scale, QCN-AIMD from given rates, several ports, a service rate that
# changes (Figs. 6-7), DRR and the culprit selections, N-AIMD vs
# AP-N-AIMD, non-greedy sources, usage errors.  Each check names its bound.

SIM=${QCN_SIM:-$(cd "$(dirname "$0")/../../tools" && pwd)/qcn-sim}
source "$(dirname "$0")/ktap.sh"

ktap_need_tool "$SIM" qcn-sim

# field F (share %, mbps) of flow I's summary line in OUT
share() { echo "$1" | awk -v i="$2" '$2 == "flow" && $3 == i ":" { print $8 }'; }
mbps() { echo "$1" | awk -v i="$2" '$2 == "flow" && $3 == i ":" { print $6 }'; }
total() { echo "$1" | awk '$2 == "total:" { print $3 }'; }
meanq() { echo "$1" | awk '$2 == "total:" { print $7 }'; }
# within V TARGET PCT: |V - TARGET| <= PCT % of TARGET
within() { awk -v v="$1" -v t="$2" -v p="$3" 'BEGIN { d = v - t; if (d < 0) d = -d; exit !(d <= t * p / 100) }'; }
# shares_within OUT PCT T1 T2 ...: every flow's share within PCT % of Ti
shares_within()
{
	local out=$1 pct=$2 i=1 t
	shift 2
	for t in "$@"; do
		within "$(share "$out" $i)" "$t" "$pct" || return 1
		i=$((i + 1))
	done
}
shares() { echo "$1" | awk '$2 == "flow" { printf "%s ", $8 }'; }

# 1-3: QCN alone, four equal flows at 10 Gb/s (8 s: with the standard's
# byte-counter rule QCN needs more than 4 s to even out)
out=$("$SIM" -t 8s)
check "qcn, 4 flows at 10 Gb/s: link busy (total $(total "$out") >= 9800 mbps)" \
	awk -v v="$(total "$out")" 'BEGIN { exit !(v >= 9800) }'
check "qcn: mean queue $(meanq "$out") B within 0.5..1.5 Qeq (26000)" \
	awk -v v="$(meanq "$out")" 'BEGIN { exit !(v >= 13000 && v <= 39000) }'
check "qcn: equal flows within +-15 % of 25 % ($(shares "$out"))" \
	shares_within "$out" 15 25 25 25 25

# 4-5: AF-QCN weights, the paper's Fig. 9 (first half)
out=$("$SIM" --af --weights 4,3,2,1 -t 4s)
check "af-qcn 4:3:2:1 at 10 Gb/s: shares within +-15 % of 40/30/20/10 ($(shares "$out"))" \
	shares_within "$out" 15 40 30 20 10

# 5-6: Fig. 8: 40 flows; per-flow rates every 10 ms against the 250 Mb/s
# fair share (paper: AF-QCN 99 % within 25 %; QCN > 45 % off by more)
fig8() { "$SIM" -n 40 -t 6s -f 2s -i 10ms "$@" | awk '!/^#/ && $1 >= 2000 {
	for (i = 3; i <= NF; i++) { n++; d = $i / 250 - 1; if (d < 0) d = -d; if (d <= 0.25) w++ } }
	END { printf "%.1f", n ? 100 * w / n : 0 }'; }
on=$(fig8 --af); off=$(fig8)
check "40 flows, af-qcn: $on % of 10 ms rates within 25 % of the fair share (>= 95 %)" \
	awk -v v="$on" 'BEGIN { exit !(v >= 95) }'
check "40 flows, qcn: $off % within 25 % (<= 75 %: coarse-grained fairness)" \
	awk -v v="$off" 'BEGIN { exit !(v <= 75) }'

# 7-8: Max_1 = 1 Gb/s from 2 s (Fig. 9, second half, Remark 4)
out=$("$SIM" --af --weights 4,3,2,1 --caps 1gbit,0,0,0 --caps-at 2s -t 5s -f 3s)
check "af-qcn cap: flow 1 at $(mbps "$out" 1) mbps <= 1150" \
	awk -v v="$(mbps "$out" 1)" 'BEGIN { exit !(v <= 1150) }'
rest=$(awk -v a="$(mbps "$out" 2)" -v b="$(mbps "$out" 3)" -v c="$(mbps "$out" 4)" 'BEGIN { print a + b + c }')
capok()
{
	local i w
	for i in 2 3 4; do
		w=$((5 - i))
		within "$(awk -v a="$(mbps "$out" $i)" -v r="$rest" 'BEGIN { print 100 * a / r }')" \
			"$(awk -v w=$w 'BEGIN { print 100 * w / 6 }')" 15 || return 1
	done
}
check "af-qcn cap: the other flows share the rest 3:2:1 within +-15 % ($(mbps "$out" 2) $(mbps "$out" 3) $(mbps "$out" 4) mbps)" capok

# 9-10: the emulated testbed's scale (selftests/lib_af.sh: 30 Mb/s port,
# 1442-byte frames, the AF selftests' RP): the same shares once the RP
# timer is long enough for the byte counter to drive the increases as at
# 10 Gb/s, and not with a timer that fires every few frames of the light
# flow
EMU="-l 30mbit -s 50mbit -r 500us -p 1442 -t 60s -f 20s -i 1s --min-rate 500kbit
     --ai-rate 200kbit --hai-rate 2mbit --af --alpha 0.25 --ts 10ms --active 2kb
     --weights 4,3,2,1"
# shellcheck disable=SC2086
out=$("$SIM" $EMU --time-reset 1s)
check "30 Mb/s, RP timer 1 s: 4:3:2:1 within +-15 % ($(shares "$out"))" \
	shares_within "$out" 15 40 30 20 10
# shellcheck disable=SC2086
out=$("$SIM" $EMU --time-reset 150ms)
check "30 Mb/s, RP timer 150 ms: the weight-1 flow is over its share ($(share "$out" 4) % > 11.5 %)" \
	awk -v v="$(share "$out" 4)" 'BEGIN { exit !(v > 11.5) }'

# 11-17: QCN-T and QCN-AIMD runs; usage errors; tc's units
out=$("$SIM" --mode qcn-t --qcnt-period 2.4ms -t 2s)
check "qcn-t at 10 Gb/s: link busy (total $(total "$out") >= 9500 mbps)" \
	awk -v v="$(total "$out")" 'BEGIN { exit !(v >= 9500) }'
# QCN-AIMD from (900, 100) Mbit/s at 1 Gb/s (the convergence paper's Fig.
# 11 start, its R_AI 0.5 Mbit/s): the rates begin there, the link stays busy
out=$("$SIM" -n 2 -l 1gbit -p 1500 --mode qcn-aimd --ai-rate 500kbit \
	--init-rates 900mbit,100mbit -t 2s -i 50ms -f 0)
first=$(echo "$out" | awk '!/^#/ { print $3, $4; exit }')
check "qcn-aimd --init-rates: the header says mode qcn-aimd, init_rates 900000000 100000000" \
	grep -q 'mode qcn-aimd .*init_rates 900000000 100000000' <<< "$(echo "$out" | grep '^# rp:' | tr '\n' ' ')"
check "qcn-aimd --init-rates: the first 50 ms at ($first) within 2 % of (900, 100) Mbit/s" \
	awk -v r="$first" 'BEGIN { split(r, a, " "); exit !(a[1] >= 882 && a[1] <= 918 && a[2] >= 98 && a[2] <= 102) }'
check "qcn-aimd at 1 Gb/s: link busy (total $(total "$out") >= 950 mbps)" \
	awk -v v="$(total "$out")" 'BEGIN { exit !(v >= 950) }'
bad=0
for args in "--alpha 1" "--weights 1,2" "-n 0" "--link 3furlongs" "--pkt 10" "--from 9s -t 2s" "extra" \
	    "--init-rates 1mbit,2mbit" "--mode aimd"; do
	# shellcheck disable=SC2086
	"$SIM" $args > /dev/null 2>&1
	[ $? -eq 2 ] || { bad=1; echo "# accepted: $args"; }
done
check "bad usage exits 2 (alpha 1, weight count, 0 flows, unit, frame size, window, argument, init-rates count, mode)" test $bad -eq 0
# tc's spellings: 2kb is 2048 bytes, a bare time is in us, 0.5mbit = 500kbit
short="-t 200ms -i 50ms -n 2 --af --seed 3"
# shellcheck disable=SC2086
check "units as tc's: --active 2kb = 2048, --rtt 500 = 500us, --ai-rate 0.5mbit = 500kbit" \
	test "$("$SIM" $short --active 2kb -r 500 --ai-rate 0.5mbit | md5sum)" = \
	     "$("$SIM" $short --active 2048 -r 500us --ai-rate 500kbit | md5sum)"
hdr=$("$SIM" -t 1ms -i 1ms --active 2kb --limit 150kb --qeq 26kb -r 500 --ts 0.5ms \
	-s 0.5gbit --ai-rate 0.5mbit --hai-rate 1kbps --byte-reset 1.5k --time-reset 1 | grep '^# [a-z-]*:' | tr '\n' ' ')
want="limit 153600 qeq 26624 .*ts 500000 ns active 2048 .*maxrate 500000000 .*ai_rate 500000 hai_rate 8000 .*byte_reset 1536 time_reset 1000 ns"
check "units as tc's, in the header: 150kb = 153600, 500 = 500us, 1kbps = 8000 bit/s, 1.5k = 1536, time 1 = 1 us" \
	bash -c "grep -q '$want' <<<'$hdr' && grep -q 'rtt 500000 ns' <<<'$hdr'"

# several ports, paths, DRR and culprit selection, N-AIMD
# parking lot (AF-QCN Fig. 5/10): QCN starves the two-hop flow, AF-QCN not
out=$("$SIM" -n 3 --link 10gbit,10gbit --paths 1,1+2,2 -t 3s)
check "parking lot, qcn: the two-hop flow gets < 20 %, about half its 33 % ($(shares "$out"))" \
	awk -v v="$(share "$out" 2)" 'BEGIN { exit !(v < 20) }'
out=$("$SIM" -n 3 --link 10gbit,10gbit --paths 1,1+2,2 -t 3s --af)
check "parking lot, af-qcn: every flow within +-15 % of 33.3 % ($(shares "$out"))" \
	shares_within "$out" 15 33.3 33.3 33.3
check "parking lot: a '# port 2:' summary line" bash -c "grep -q '^# port 2: mean' <<<'$out'"
# a port on a 2.5 Gb/s second hop caps the flow that crosses it
out=$("$SIM" -n 2 --link 10gbit,2500mbit --paths 1,1+2 -t 3s)
check "two stages: the flow over the 2.5 Gb/s port at $(mbps "$out" 2) mbps (2300..2500)" \
	awk -v v="$(mbps "$out" 2)" 'BEGIN { exit !(v >= 2300 && v <= 2501) }'
# --link-at: one greedy flow, 10 Gb/s, then 5 Gb/s from 1 s: over
# [0.5, 2] s it gets (0.5 x 10 + 1 x 5) / 1.5 = 6667 Mbit/s, and the
# utilization counts each rate over its own time (100 %, not 67 %)
out=$("$SIM" -n 1 -t 2s -f 0.5s --link-at 1s:5gbit)
util() { echo "$1" | awk '$2 == "queue:" { gsub("[,%]", ""); print $(NF - 0) }'; }
check "--link-at 1s:5gbit: $(mbps "$out" 1) mbps over [0.5, 2] s (6667 +-2 %), utilization $(util "$out") % (>= 98)" \
	awk -v v="$(mbps "$out" 1)" -v u="$(util "$out")" 'BEGIN { exit !(v >= 6533 && v <= 6800 && u >= 98 && u <= 100.5) }'
bad=0
for args in "--link-at 1s" "--link-at 1s:0" "--link-at 2s:1gbit --link-at 1s:1gbit" \
	    "--link-at 1s:1gbit,1gbit" "--link-at x:1gbit"; do
	# shellcheck disable=SC2086
	"$SIM" -n 1 -t 0.1s $args > /dev/null 2>&1
	[ $? -eq 2 ] || { bad=1; echo "# accepted: $args"; }
done
check "bad usage exits 2 (--link-at without rates, rate 0, times not increasing, rate count, time)" test $bad -eq 0
# DRR at the testbed's scale: occupancy and two-samples keep two equal
# flows even.  (Arrival sampling does too with the standard's byte-counter
# rule: printed, not asserted.)
DRR="-n 2 -l 30mbit -s 60mbit -p 1500 -r 500us --min-rate 500kbit --ai-rate 200kbit
     --hai-rate 2mbit --sched drr -t 20s"
# shellcheck disable=SC2086
a=$("$SIM" $DRR --sample arrival); o=$("$SIM" $DRR --sample occupancy); t=$("$SIM" $DRR --sample two-samples)
drr_ok=0
shares_within "$o" 5 50 50 && shares_within "$t" 5 50 50 && drr_ok=1
check "drr: occupancy ($(shares "$o")) and two-samples ($(shares "$t")) within +-5 % of 50/50 (arrival: $(shares "$a"))" \
	test $drr_ok -eq 1
bad=0
for args in "--paths 1+3" "--paths 1+1" "--paths 1,1" "-n 2 --paths 1" "--sched wfq" "--sample random" \
	    "--mode n-aimd --af" "--aimd-gi -1" "--aimd-gd x"; do
	# shellcheck disable=SC2086
	"$SIM" -n 1 $args > /dev/null 2>&1
	[ $? -eq 2 ] || { bad=1; echo "# accepted: $args"; }
done
check "bad usage exits 2 (path to a missing port, a port twice, path count, sched, sample, n-aimd with af, gains)" test $bad -eq 0
# N-AIMD vs AP-N-AIMD (the Averaging Principle, N = 2, 10 Gb/s, RTT 240 us)
AP="-n 2 -l 10gbit -p 1500 -r 240us --qeq 24000 --limit 1mb -t 3s"
sd() { echo "$1" | awk '$2 == "queue:" { gsub(",", ""); print $6 }'; }
# shellcheck disable=SC2086
na=$("$SIM" $AP --mode n-aimd); ap=$("$SIM" $AP --mode ap-n-aimd)
check "AP: AP-N-AIMD's queue sd $(sd "$ap") B < N-AIMD's $(sd "$na") B at 240 us" \
	awk -v a="$(sd "$ap")" -v b="$(sd "$na")" 'BEGIN { exit !(a < b) }'

# Non-greedy sources (AF-QCN Fig. 11, Table I).  An on-off source alone:
# 10 frames every 80 us (1 Gb/s), each burst at line rate (0.8 us a
# frame): delivered at its load, mean backlog 0.8 * (9 + .. + 0) / 80
# frames = 450 bytes.
out=$("$SIM" -n 1 --onoff 1:10000:1gbit -t 200ms -f 100ms)
onoff() { echo "$1" | awk -v f="$2" '$2 == "onoff" { gsub(",", ""); print $f }'; }
check "on-off alone: delivered $(onoff "$out" 17) mbps (1000 +-0.5 %), mean backlog $(onoff "$out" 21) B (440..460)" \
	awk -v d="$(onoff "$out" 17)" -v b="$(onoff "$out" 21)" 'BEGIN { exit !(d >= 995 && d <= 1005 && b >= 440 && b <= 460) }'
# finite flows of 10 frames, far apart: FCT = 9 frames at line rate
# (7.2 us) + RTT/2 (25 us) + one frame's service (0.8 us) = 33.0 us
tmp=$(mktemp)
out=$("$SIM" -n 1 --arrivals 1mbit --arrive-on 1 --sizes fixed:10000 -t 1s -f 0 --fct "$tmp")
fct() { echo "$1" | awk -v b="$2" '$2 == "fct" && $3 == b { gsub(",", ""); print $6, $8, $10, $13 }'; }
check "fixed 10 KB flows alone: flows, done, mean, median FCT $(fct "$out" all) (mean and median 33.0 us)" \
	awk -v v="$(fct "$out" all)" 'BEGIN { split(v, a, " "); exit !(a[1] > 5 && a[1] == a[2] && a[3] == 33.0 && a[4] == 33.0) }'
check "--fct CSV: a header and one row per flow, each done in 33 us" \
	awk -F, -v n="$(fct "$out" all | cut -d' ' -f1)" 'NR == 1 { ok = $1 == "flow" && $8 == "fct_us" }
		NR > 1 { if ($8 != "33.000" || $4 != 10000) ok = 0 } END { exit !(ok && NR - 1 == n) }' "$tmp"
rm -f "$tmp"
# Poisson arrivals of Pareto sizes (shape 3: a mean that 10^4 flows
# estimate to ~1 %), 100-byte frames: realised offered load 1 Gb/s +-5 %
out=$("$SIM" -n 2 -p 100 --arrivals 1gbit --arrive-on 2 --sizes pareto:10000:3 -t 1s -f 0)
arr() { echo "$1" | awk '$2 == "arrivals:" { print $3, $6 }'; }
check "pareto:10000:3 at 1 Gb/s: flows, offered mbps $(arr "$out") (~12500 flows, 950..1050 mbps)" \
	awk -v v="$(arr "$out")" 'BEGIN { split(v, a, " "); exit !(a[1] > 11500 && a[1] < 13500 && a[2] >= 950 && a[2] <= 1050) }'
bad=0
for args in "--onoff 2:10kb:1gbit" "--onoff 1:10kb" "--arrivals 1gbit" "--arrive-on 1" \
	    "--arrivals 1gbit --arrive-on 1 --onoff 1:10kb:1gbit" "--sizes pareto:10kb:1" \
	    "--sizes lognormal:10kb" "--sizes list:" "--flow-rp old" "--conns 65" "--af-fb x"; do
	# shellcheck disable=SC2086
	"$SIM" -n 1 -t 1ms $args > /dev/null 2>&1
	[ $? -eq 2 ] || { bad=1; echo "# accepted: $args"; }
done
check "bad usage exits 2 (on-off beyond -n or without a rate, arrivals without sources, a source both, sizes, flow-rp, conns, af-fb)" test $bad -eq 0

ktap_done
