#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcnstat: 10 ms polling with ~10 ms timestamps, CSV header and rows, JSON
# lines, -m (CLOCK_MONOTONIC stamps), the qcn and qcn_rp xstats and limiter classes, clear errors.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
QS=$QCN_TOP/tools/qcnstat
[ -x "$QS" ] || ktap_skip_all "tools/qcnstat not built (make tools)"
ktap_plan 11
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
span=$(awk -F, 'NR == 2 { a = $1 } END { print int($1 - a) }' "$tmp/csv")
ktap_check "10 ms apart: 49 intervals in $span ms (450..700)" test "$span" -ge 450 -a "$span" -le 700
ktap_check "qcn xstats columns filled (samples, last_qfb)" \
	bash -c "awk -F, 'NR == 2 { exit !(\$12 != \"\" && \$14 != \"\") }' $tmp/csv"

# -m: one clock across processes (CLOCK_MONOTONIC), as cnm_send's stamps
m0=$(nsx a "$QS" -m -d d0 -c 1 | awk -F, 'NR == 2 { print int($1) }')
sleep 1
m1=$(nsx a "$QS" -m -d d0 -c 1 | awk -F, 'NR == 2 { print int($1) }')
r1=$(nsx a "$QS" -d d0 -c 1 | awk -F, 'NR == 2 { print int($1) }')
ktap_check "-m stamps on CLOCK_MONOTONIC: 1 s apart across runs ($((m1 - m0)) ms), else from 0 ($r1 ms)" \
	test $((m1 - m0)) -ge 1000 -a $((m1 - m0)) -le 3000 -a "$r1" -lt 100

nsx a "$QS" --json -d d0 -c 3 > "$tmp/json"
ktap_check "JSON lines parse, kind qcn with samples" \
	bash -c "jq -e -s 'length == 3 and .[0].kind == \"qcn\" and (.[0].samples | type) == \"number\"' $tmp/json > /dev/null"

nsx a tc qdisc replace dev d0 root qcn_rp max-rate 100mbit
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
rm -rf "$tmp"
tb_cleanup
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finish
