#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcnstat: 10 ms polling with ~10 ms timestamps, CSV header and rows, JSON
# lines, -m (CLOCK_MONOTONIC stamps), the qcn and qcn_rp xstats and limiter
# classes, devices named with a quote or a comma (JSON escaped, CSV quoted
# per RFC 4180), tc's time units, clear errors.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
QS=$QCN_TOP/tools/qcnstat
[ -x "$QS" ] || ktap_skip_all "tools/qcnstat not built (make tools)"
ktap_plan 19
qcn_dmesg_mark
tb_init
tmp=$(mktemp -d)
tb_ns a
nsx a ip link add d0 type dummy
nsx a ip link set d0 up
nsx a tc qdisc add dev d0 root handle 1: qcn limit 150kb

nsx a "$QS" -d d0 -i 10ms -c 50 > "$tmp/csv"
ktap_check "CSV header" bash -c "head -n1 $tmp/csv | grep -q '^t_ms,dev,kind,handle,parent,bytes,packets,drops,backlog'"
ktap_check "50 polls, one qcn row each" test "$(grep -c ',d0,qcn,' "$tmp/csv")" -eq 50
span=$(qcnstat_cols "$tmp/csv" t_ms | awk 'NR == 1 { a = $1 } END { print int($1 - a) }')
# 49 intervals of 10 ms are 490 ms: a late poll catches up on its deadlines
ktap_bound poll_10ms_span_ms "$span" in 450:700 "10 ms apart: 49 intervals in $span ms (450..700)"
ktap_check "qcn xstats columns filled (samples, last_qfb)" \
	test -n "$(qcnstat_cols "$tmp/csv" samples last_qfb | awk -F'\t' 'NR == 1 && $1 != "" && $2 != ""')"
# (a late poll catches up on its deadlines: the stamps only rise, and span
# most of the 49 intervals)
# (no traffic but the odd IPv6 control frame on the dummy: a few bytes)
r=$(qcnstat_cols "$tmp/csv" qavg stamp_ns | awk -F'\t' '
	NR == 1 { ok = $1 == ""; s0 = $2 }
	NR > 1 { ok = ok && $1 ~ /^[0-9]+$/ && $1 < 1500 && $2 > s; m = $1 > m ? $1 : m }
	{ s = $2 } END { print (ok && NR == 50) " " m + 0 " " int((s - s0) / 1e6) }')
read -r r_ok r_max r_span <<<"$r"
ktap_check "qavg from the second poll on (largest $r_max B, no traffic), stamp_ns rising" \
	test "$r_ok" = 1
ktap_bound stamp_span_ms "$r_span" '>=' 400 "stamp_ns span most of the 49 intervals ($r_span ms, >= 400)"

# -m: one clock across processes (CLOCK_MONOTONIC), as cnm_send's stamps
t_ms() { nsx a "$QS" "$@" -d d0 -c 1 | qcnstat_cols /dev/stdin t_ms | awk 'NR == 1 { print int($1) }'; }
m0=$(t_ms -m)
sleep 1
m1=$(t_ms -m)
r1=$(t_ms)
ktap_bound --timing mono_gap_ms $((m1 - m0)) in 1000:3000 \
	"-m stamps on CLOCK_MONOTONIC: 1 s apart across runs ($((m1 - m0)) ms)"
ktap_bound --timing rel_start_ms "$r1" '<' 100 "without -m the stamps start from 0 ($r1 ms)"

nsx a "$QS" --json -d d0 -c 3 > "$tmp/json"
ktap_check "JSON lines parse, kind qcn with samples" \
	bash -c "jq -e -s 'length == 3 and .[0].kind == \"qcn\" and (.[0].samples | type) == \"number\"' $tmp/json > /dev/null"

nsx a tc qdisc replace dev d0 root qcn_rp maxrate 100mbit
nsx a "$QS" --json -d d0 -c 1 -o "$tmp/rp" 
ktap_check "qcn_rp row with cnm_rx and limiters (-o FILE)" \
	bash -c "jq -e '.kind == \"qcn_rp\" and .cnm_rx == 0 and .limiters == 0' $tmp/rp > /dev/null"
ktap_check "--netns polls a named namespace" \
	bash -c "$QS --netns $TB-a -d d0 -c 1 | grep -q ',d0,qcn_rp,'"
nsx a "$QS" -d nosuch -c 1 2> "$tmp/err"
ktap_check "no such device: exit 1 and a message" \
	test $? -eq 1 -a -n "$(grep 'no such device' "$tmp/err")"
"$QS" -d d0 -i fast 2> "$tmp/err"
ktap_check "bad interval: exit 2 and a message" test $? -eq 2 -a -s "$tmp/err"
# tc's times: a bare number is in us (50 is below the 100 us floor)
"$QS" -d d0 -i 50 -c 1 > /dev/null 2> "$tmp/err"
rc=$?
span=$(nsx a "$QS" -d d0 -i 20000 -c 3 | qcnstat_cols /dev/stdin t_ms | awk 'NR == 1 { a = $1 } END { print int($1 - a) }')
ktap_check "tc's times: -i 50 (us) rejected" test $rc -eq 2
ktap_bound poll_20ms_span_ms "$span" in 35:200 "tc's times: -i 20000 polls every 20 ms (2 intervals in $span ms)"

# devices named l"o and l,o: valid JSON, one CSV field each
Q='l"o'
C='l,o'
for d in "$Q" "$C"; do
	nsx a ip link add "$d" type dummy
	nsx a ip link set "$d" up
	nsx a tc qdisc add dev "$d" root qcn
done
nsx a "$QS" -d "$Q" -d "$C" -c 2 > "$tmp/odd.csv"
nsx a "$QS" --json -d "$Q" -d "$C" -c 2 > "$tmp/odd.json"
ktap_check "JSON with devices l\"o and l,o: every line parses, dev names intact" \
	test "$(jq -r -s 'map(.dev) | sort | join(" ")' "$tmp/odd.json" 2>/dev/null)" = "$Q $Q $C $C"
ktap_check "CSV: the names quoted as RFC 4180 says (\"l\"\"o\", \"l,o\")" \
	test "$(grep -c '^[0-9.]*,"l""o",qcn,' "$tmp/odd.csv")/$(grep -c '^[0-9.]*,"l,o",qcn,' "$tmp/odd.csv")" = "2/2"
ktap_check "CSV: by header name, the columns after the names stay in place" \
	test "$(qcnstat_cols "$tmp/odd.csv" dev kind parent | LC_ALL=C sort | uniq -c | awk '{ $1 = $1 } 1' | tr '\n' '|')" = \
	     "2 $Q qcn root|2 $C qcn root|"
rm -rf "$tmp"
tb_cleanup
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finish
