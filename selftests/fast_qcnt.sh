#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Native speed (UML or a host): convergence to fairness, QCN vs QCN-T, in
# the setting of Zhang et al. (QCN convergence, Section III and Fig. 12):
# dumbbell, 2 RPs starting at line rate, Qeq 64 KB, Qmax 512 KB, w 2,
# Gd 1/128, R_AI 0.5 Mbit/s (R_HAI 10 x), QCN-T period t = 2.4 ms; here
# greedy TCP sources (GSO on, 4000-byte frames) and a 500 Mbit/s port
# (FAST_CONV_RATE), the
# rate this one-CPU testbed carries frame by frame.  epsilon(t) =
# min/max of the two flows' rates over 0.5 s intervals; the convergence
# time is the start of the first interval after which epsilon stays >= 0.9
# (the run's length when it never does).  Trials alternate between the
# modes; QCN-T's mean convergence time must be below QCN's (the paper:
# QCN ~10-12 s at 1 Gb/s, QCN-T several times faster).
source "$(dirname "$0")/lib_fast.sh"
fast_require
RATE=${FAST_CONV_RATE:-500mbit}
DUR=${FAST_CONV_DUR:-20}
TRIALS=${FAST_CONV_TRIALS:-2}
RP="max-rate $RATE ai-rate 500kbit hai-rate 5mbit"
ktap_plan 4
qcn_dmesg_mark
tb_init
tmp=$(mktemp -d)
tb_star 2
fast_mtu "$FAST_MTU"
nsx sw tc qdisc add dev sw-pr root handle 1: qcn limit 512000 qeq 64000 w 2 rate "$RATE"
ktap_check "dumbbell: 2 senders -> qcn $RATE (Qeq 64 KB, Qmax 512 KB) -> r" test $? -eq 0
fast_servers 2

# trial MODE N: prints the convergence time in ms
trial()
{
	local mode=$1 k=$2 i
	for i in 1 2; do
		nsx "h$i" tc qdisc replace dev eth0 root qcn_rp $RP $mode
	done
	for i in 1 2; do fast_tcp "$i" "$DUR" "$tmp/$k-$i.json" -i 0.5; done
	for i in "${__tb_pids[@]}"; do wait "$i"; done
	__tb_pids=()
	# the flows' intervals pair by index (their start stamps differ by
	# microseconds)
	paste -d' ' <(fast_series "$tmp/$k-1.json") <(fast_series "$tmp/$k-2.json" | cut -d' ' -f2) |
		awk -v dur="$DUR" '
		$1 + 0.5 <= dur { t[n] = $1; lo = $2 < $3 ? $2 : $3; hi = $2 < $3 ? $3 : $2
			  e[n++] = hi > 0 ? lo / hi : 0 }
		END { c = dur * 1000
		      for (i = n - 1; i >= 0 && e[i] >= 0.9; i--) c = t[i] * 1000
		      printf "%d\n", c }'
}

qcn_sum=0 qcnt_sum=0 qcn_all= qcnt_all=
for k in $(seq 1 "$TRIALS"); do
	c=$(trial "mode qcn" "qcn$k"); qcn_sum=$((qcn_sum + c)); qcn_all="$qcn_all $c"
	c=$(trial "mode qcn-t qcnt-period 2.4ms" "qcnt$k"); qcnt_sum=$((qcnt_sum + c)); qcnt_all="$qcnt_all $c"
done
ktap_info "convergence to epsilon >= 0.9 (ms, $DUR s runs at $RATE): QCN$qcn_all, QCN-T$qcnt_all"
for f in "$tmp"/qcn1-1.json "$tmp"/qcnt1-1.json; do
	ktap_info "$(basename "$f" -1.json) rates (s kbit/s kbit/s): $(paste -d' ' <(fast_series "$f") <(fast_series "${f%-1.json}-2.json" | cut -d' ' -f2) | tr '\n' ';' | cut -c1-600)"
done
ktap_check "both modes ran ($TRIALS trials each)" test -n "$qcn_all" -a -n "$qcnt_all"
ktap_check "QCN-T converges faster than QCN (mean $((qcnt_sum / TRIALS)) < $((qcn_sum / TRIALS)) ms)" \
	test "$qcnt_sum" -lt "$qcn_sum"
rm -rf "$tmp"
tb_cleanup
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finish
