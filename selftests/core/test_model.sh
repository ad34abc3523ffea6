#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# KTAP tests for tools/qcn-model, the convergence paper's model as a
# command (the equations themselves: test_model.c): each figure's CSV has
# the paper's rows and the orderings the paper states, the statuses
# (timeout, no-root), the options' checks and exit statuses; `fluid`, the
# fluid model of Alizadeh et al. (eqs. 9-13, tools/qcn_fluid.h): its
# columns, its start and where 10 flows settle.  Deterministic, a few
# seconds in all.

MODEL=${QCN_MODEL:-$(cd "$(dirname "$0")/../../tools" && pwd)/qcn-model}
source "$(dirname "$0")/ktap.sh"

ktap_need_tool "$MODEL" qcn-model

rows() { tail -n +2 <<< "$1" | wc -l; }
# column N of the data rows, one a line
col() { tail -n +2 <<< "$1" | cut -d, -f"$2"; }
# true when the lines of stdin strictly increase (inc) or decrease (dec)
# the convergence time of `qcn-model ARGS... convtime` (one row)
conv_of() { "$MODEL" "$@" convtime | awk -F, 'NR == 2 { print $3 }'; }
ordered() { awk -v d="$1" 'NR > 1 && (d == "inc" ? $1 <= p : $1 >= p) { bad = 1 } { p = $1 } END { exit bad }'; }

out=$("$MODEL" fig 3)
check "fig 3: header r1_mbps,r2_mbps,p_fb and 100 rows (R_1 500..995)" \
	test "$(head -n1 <<< "$out")" = r1_mbps,r2_mbps,p_fb -a "$(rows "$out")" -eq 100
check "fig 3: p[Fb>0] 0.15..0.22, falling with R_1 ($(col "$out" 3 | sed -n '1p;$p' | tr '\n' ' '))" \
	bash -c 'awk -F, "NR > 1 && (\$3 < 0.15 || \$3 > 0.22) { exit 1 }" <<< "$1" && cut -d, -f3 <<< "$1" | tail -n +2 | awk "NR > 1 && \$1 > p { exit 1 } { p = \$1 }"' _ "$out"

out=$("$MODEL" fig 4)
check "fig 4: 49 rows (R_1 510..990), all converged" \
	test "$(rows "$out")" -eq 49 -a "$(grep -c ',converged$' <<< "$out")" -eq 49
check "fig 4: the convergence time grows with R_1" ordered inc < <(col "$out" 3 | tail -n +2)

out=$("$MODEL" fig 5)
check "fig 5: from 900,100 at t 0 ($(sed -n 2p <<< "$out"))" grep -q '^0.0000,900.0000,100.0000,' <<< "$out"
last=$(tail -n1 <<< "$out")
check "fig 5: 20 s, epsilon > 0.95 at the end ($last)" \
	awk -F, '{ exit !($1 > 19.9 && $1 < 20.1 && $5 > 0.95) }' <<< "$last"
c900=$(conv_of)
c700=$(conv_of --rates 700mbit)
check "fig 5-6: (900, 100) converges in 10..15 s ($c900), (700, 300) sooner ($c700)" \
	awk -v a="$c900" -v b="$c700" 'BEGIN { exit !(a > 10 && a < 15 && b < a) }'

out=$("$MODEL" fig 7)
check "fig 7: G_d 1/16, 1/64, 1/128, 1/256; larger G_d, sooner" \
	bash -c '[ "$(cut -d, -f1 <<< "$1" | tail -n +2 | tr "\n" " ")" = "0.0625 0.015625 0.0078125 0.00390625 " ] &&
		 cut -d, -f2 <<< "$1" | tail -n +2 | awk "NR > 1 && \$1 <= p { exit 1 } { p = \$1 }"' _ "$out"
out=$("$MODEL" fig 8)
check "fig 8: larger R_AI, sooner" ordered dec < <(col "$out" 2)
out=$("$MODEL" fig 9)
check "fig 9: longer T_AI, later" ordered inc < <(col "$out" 2)
out=$("$MODEL" fig 10)
check "fig 10: timer 15, 10, 2.4 ms; the shorter, the sooner" ordered dec < <(col "$out" 2)
out=$("$MODEL" fig 11)
check "fig 11: QCN-AIMD at 0.5 Mbit/s sooner than QCN ($(col "$out" 2 | head -n1) vs $c900)" \
	awk -v a="$(col "$out" 2 | head -n1)" -v b="$c900" 'BEGIN { exit !(a < b) }'

c10=$(conv_of -l 10gbit --rates 9gbit)
check "10 Gbit/s (R_AI 5 Mbit/s): a tenth of the time ($c10 vs $c900)" \
	awk -v a="$c10" -v b="$c900" 'BEGIN { d = a * 10 - b; exit !(d < 0.002 && d > -0.002) }'
full=$(conv_of --eq full)
check "--eq full within 2 % of eq. 25 ($full vs $c900)" \
	awk -v a="$full" -v b="$c900" 'BEGIN { exit !(a > 0.98 * b && a < 1.02 * b) }'
out=$("$MODEL" -i 0 -t 12ms evolve)
check "-i 0: a row every 1.2 ms period, 0..12 ms: 11 rows" test "$(rows "$out")" -eq 11
out=$("$MODEL" --rates 400mbit,300mbit,200mbit,100mbit -t 1s evolve)
check "4 flows: 4 rate columns, rates sum to 1000" \
	awk -F, 'NR == 1 { ok = NF == 7 } NR > 1 && ($2 + $3 + $4 + $5 < 999.99 || $2 + $3 + $4 + $5 > 1000.01) { ok = 0 } END { exit !ok }' <<< "$out"

out=$("$MODEL" -t 2s convtime)
check "-t 2s: timeout ($(tail -n1 <<< "$out"))" grep -q '^900.0000,100.0000,,timeout$' <<< "$out"
out=$("$MODEL" sweep gd 7,31)
check "sweep gd 7,31: G_d 2^-31 has no root" \
	bash -c 'grep -q "^0.0078125,[0-9.]*,converged$" <<< "$1" && grep -q "^4.[0-9]*e-10,,no-root$" <<< "$1"' _ "$out"
"$MODEL" --gd 31 evolve > /dev/null 2> "${TMPDIR:-/tmp}/qcn-model-err.$$"
rc=$?
check "evolve with no root: exit 1, says so (rc $rc)" \
	bash -c '[ "$1" -eq 1 ] && grep -q "no p\[Fb>0\]" "$2"' _ "$rc" "${TMPDIR:-/tmp}/qcn-model-err.$$"
rm -f "${TMPDIR:-/tmp}/qcn-model-err.$$"

out=$("$MODEL" fluid -n 3 -t 20ms -i 10ms)
check "fluid -n 3: header with cr1..cr3, tr1..tr3, rows at 0, 10, 20 ms" \
	bash -c '[ "$(head -n1 <<< "$1")" = t_s,q_bytes,p,fb_bytes,cr1_mbps,cr2_mbps,cr3_mbps,tr1_mbps,tr2_mbps,tr3_mbps ] &&
		 [ "$(cut -d, -f1 <<< "$1" | tail -n +2 | tr "\n" " ")" = "0.000000 0.010000 0.020000 " ]' _ "$out"
check "fluid: starts at the line rate, the queue empty, p 1 % ($(sed -n 2p <<< "$out" | cut -d, -f1-5))" \
	grep -q '^0.000000,0.0,0.010000,[0-9.]*,10000.0000,10000.0000,10000.0000,10000.0000,' <<< "$out"
last=$("$MODEL" fluid -t 150ms -i 50ms | tail -n1)
check "fluid: 10 flows near 1000 Mbit/s each, the queue near Qeq at 150 ms ($(cut -d, -f1-5 <<< "$last"))" \
	awk -F, '{ exit !($2 > 20000 && $2 < 35000 && $5 > 950 && $5 < 1050) }' <<< "$last"

bad()	# NAME ARGS...: exit status 2, a message on stderr, nothing on stdout
{
	local name=$1 o e rc
	shift
	o=$("$MODEL" "$@" 2> /dev/null)
	rc=$?
	e=$("$MODEL" "$@" 2>&1 > /dev/null)
	check "$name: exit 2 (rc $rc)" test $rc -eq 2 -a -z "$o" -a -n "$e"
}
bad "rates that do not sum to C" --rates 600mbit,300mbit evolve
bad "R1 >= C" --rates 1gbit evolve
bad "unknown sweep parameter" sweep qeq 1,2
bad "figure 12" fig 12
bad "--eq 26" --eq 26 evolve
bad "--gd 32" --gd 32 evolve
bad "--fb 0" --fb 0 evolve
bad "--epsilon 1.5" --epsilon 1.5 evolve
bad "--r1 above C" --r1 1gbit pfb
bad "no command"
bad "unknown command" simulate
bad "fluid: --w 3 (not a power of two)" --w 3 fluid
bad "fluid: --dt above --rtt" --rtt 1us --dt 2us fluid
bad "fluid: 65 flows" -n 65 fluid

ktap_done
