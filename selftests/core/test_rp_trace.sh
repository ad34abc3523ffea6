#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# KTAP tests for tools/qcn-rp-trace: scripts of CNMs and timer expiries,
# each trace compared line for line with numbers worked out by hand from
# the defaults and rules below.
#
# Defaults: line 10 Gb/s (G = 10^9), Gd = 1/128, R_AI 5 Mb/s, R_HAI 50 Mb/s,
# BC 150000 B, T 15 ms, threshold 5, min dec 50 %, min rate 5 Mb/s.
# Rules (include/qcn/qcn_rp.h): CNM: TR <- CR and the byte counter reloads
# if at line rate or byte stage != 0; CR <- CR - floor(CR*qFb/128) (>= CR/2, >= 5M).  Expiry: stage++;
# HAI if min(stages) > 5: TR += 50M*(min-5); AI if max(stages) > 5:
# TR += 5M; CR <- floor((CR+TR)/2); release when CR >= line rate.
# Reloads: BC / T while the counter's stage <= 5, BC/2 / T/2 after.

TRACE=${QCN_RP_TRACE:-$(cd "$(dirname "$0")/../../tools" && pwd)/qcn-rp-trace}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

source "$(dirname "$0")/ktap.sh"
# expect NAME ARGS... : stdin is the script, $TMP/want the expected output
expect_out()
{
	local name=$1; shift
	if "$TRACE" "$@" > "$TMP/got" 2> "$TMP/err" && diff -u "$TMP/want" "$TMP/got" > "$TMP/diff"; then
		ok "$name"
	else
		notok "$name" "output differs: $(head -c 600 "$TMP/diff" "$TMP/err" | tr '\n' '|')"
	fi
}

ktap_need_tool "$TRACE" qcn-rp-trace

# ---------------------------------------------------------------------------
# (1) FR -> AI -> HAI (QCN paper Fig. 3/4)
# t=0    CNM 63 on a new limiter: TR = 10G; 10G*63/128 = 4921875000,
#        CR = 5078125000 (1 - 63/128 = 0.508 > 0.5, min dec not binding)
# t=100  byte cycle 1 (FR): CR = (5078125000 + 10G)/2 = 7539062500
# t=200  CNM 63, byte stage 1 != 0: TR <- CR = 7539062500;
#        7539062500*63/128 = 3710632324.2 -> CR = 3828430176; timer -> 15200
# t=1000..5000 byte cycles 1-5 (FR), CR = floor((CR + 7539062500)/2), the gap
#        to TR halves: 5683746338, 6611404419, 7075233459, 7307147979,
#        7423105239
# t=6000 byte cycle 6: stage 6 > 5 -> AI: TR = 7544062500,
#        CR = (7423105239 + 7544062500)/2 = 7483583869; next cycle BC/2
# t=15200..75200 timer cycles 1-5 (T each): min(6, k) <= 5, max 6 > 5 -> AI,
#        TR + 5M each: 7549062500 .. 7569062500
# t=90200 timer stage 6: min(6, 6) = 6 > 5 -> HAI: TR + 1*50M = 7619062500,
#        CR = (7562328792 + 7619062500)/2 = 7590695646; next cycle T/2
# t=97700 (90200 + 7500) timer 7, min 6 -> +1*50M: TR 7669062500
# t=100000 75000 B finish byte cycle 7: min(7, 7) = 7 -> +2*50M: TR 7769062500,
#        CR = (7629879073 + 7769062500)/2 = 7699470786
# ---------------------------------------------------------------------------
cat > "$TMP/want" <<'EOF'
t_us=0 cr_bps=5078125000 tr_bps=10000000000 bc_stage=0 timer_stage=0 state=fr
t_us=100 cr_bps=7539062500 tr_bps=10000000000 bc_stage=1 timer_stage=0 state=fr
t_us=200 cr_bps=3828430176 tr_bps=7539062500 bc_stage=0 timer_stage=0 state=fr
t_us=1000 cr_bps=5683746338 tr_bps=7539062500 bc_stage=1 timer_stage=0 state=fr
t_us=2000 cr_bps=6611404419 tr_bps=7539062500 bc_stage=2 timer_stage=0 state=fr
t_us=3000 cr_bps=7075233459 tr_bps=7539062500 bc_stage=3 timer_stage=0 state=fr
t_us=4000 cr_bps=7307147979 tr_bps=7539062500 bc_stage=4 timer_stage=0 state=fr
t_us=5000 cr_bps=7423105239 tr_bps=7539062500 bc_stage=5 timer_stage=0 state=fr
t_us=6000 cr_bps=7483583869 tr_bps=7544062500 bc_stage=6 timer_stage=0 state=ai
t_us=15200 cr_bps=7516323184 tr_bps=7549062500 bc_stage=6 timer_stage=1 state=ai
t_us=30200 cr_bps=7535192842 tr_bps=7554062500 bc_stage=6 timer_stage=2 state=ai
t_us=45200 cr_bps=7547127671 tr_bps=7559062500 bc_stage=6 timer_stage=3 state=ai
t_us=60200 cr_bps=7555595085 tr_bps=7564062500 bc_stage=6 timer_stage=4 state=ai
t_us=75200 cr_bps=7562328792 tr_bps=7569062500 bc_stage=6 timer_stage=5 state=ai
t_us=90200 cr_bps=7590695646 tr_bps=7619062500 bc_stage=6 timer_stage=6 state=hai
t_us=97700 cr_bps=7629879073 tr_bps=7669062500 bc_stage=6 timer_stage=7 state=hai
t_us=100000 cr_bps=7699470786 tr_bps=7769062500 bc_stage=7 timer_stage=7 state=hai
EOF
expect_out "fr-ai-hai: exact trace (FR halves the gap, AI +R_AI, HAI +i*R_HAI)" --no-jitter <<'EOF'
# FR -> AI -> HAI
t_us=0 tx bytes=9999
t_us=0 cnm qfb=63
t_us=100 tx bytes=150000
t_us=200 cnm qfb=63

t_us=1000 tx bytes=150000
t_us=2000 tx bytes=150000
t_us=3000 tx bytes=150000
t_us=4000 tx bytes=150000
t_us=5000 tx bytes=150000
t_us=6000 tx bytes=150000
t_us=100000 tx bytes=75000   # completes the BC/2 cycle
EOF
# the same with explicit default options
expect_out "fr-ai-hai: explicit default options give the same trace" --no-jitter \
	--maxrate 10gbit --gd 7 --ai-rate 5mbit --hai-rate 50mbit --byte-reset 150000 \
	--time-reset 15ms --threshold 5 --min-rate 5mbit --min-dec 50 --mode qcn --jitter off \
	< <(grep -v '^#' <<'EOF'
t_us=0 cnm qfb=63
t_us=100 tx bytes=150000
t_us=200 cnm qfb=63
t_us=1000 tx bytes=150000
t_us=2000 tx bytes=150000
t_us=3000 tx bytes=150000
t_us=4000 tx bytes=150000
t_us=5000 tx bytes=150000
t_us=6000 tx bytes=150000
t_us=100000 tx bytes=75000
EOF
)

# min decrease factor: Gd 1/64 -> 1 - 63/64 is below 0.5, CR = 10G * 50 % = 5G
printf 't_us=0 cnm qfb=63\n' > "$TMP/in"
echo "t_us=0 cr_bps=5000000000 tr_bps=10000000000 bc_stage=0 timer_stage=0 state=fr" > "$TMP/want"
expect_out "min-dec: --gd 6, qfb 63 clamps CR at 50 % (5 Gb/s)" --no-jitter --gd 6 < "$TMP/in"
# qfb=0 is a CNM: creates the limiter, CR unchanged, counters start
echo "t_us=0 cr_bps=10000000000 tr_bps=10000000000 bc_stage=0 timer_stage=0 state=fr" > "$TMP/want"
expect_out "qfb=0: accepted as a CNM, rate unchanged" --no-jitter <<< "t_us=0 cnm qfb=0"

# ---------------------------------------------------------------------------
# (2) QCN-T, t = 2400 us: HAI threshold 75000/2400 = 31 cycles.
# t=0 CNM 63: CR 5078125000, TR 10G; t=2400 expiry 1 (FR): 7539062500;
# t=3000 CNM 63 with timer stage 1 (stands in for the byte stage):
#   TR = 7539062500, CR = 3828430176; expiries at 3000 + 2400 k:
#   k = 1..5 FR, k = 6..31 AI (TR + 5M: 7539062500 + 26*5M = 7669062500
#   at k = 31, t = 77400), k = 32 HAI (t = 79800): TR + 1*50M = 7719062500,
#   CR = (7664062498 + 7719062500)/2 = 7691562499.  tx does nothing.
# ---------------------------------------------------------------------------
printf 't_us=0 cnm qfb=63\nt_us=3000 cnm qfb=63\nt_us=50000 tx bytes=1000000\nt_us=82000 tx bytes=0\n' > "$TMP/in"
"$TRACE" --no-jitter --mode qcn-t --qcnt-period 2.4ms < "$TMP/in" > "$TMP/qt"
check "qcn-t: 35 lines (2 CNMs, 1 + 32 timer expiries, no byte counter)" \
	test "$(wc -l < "$TMP/qt")" -eq 35
bad=$(awk -F'[ =]' 'NR >= 4 { if ($2 != 3000 + 2400 * (NR - 3)) print NR }' "$TMP/qt")
check "qcn-t: expiries exactly every 2400 us after the CNM at 3000" test -z "$bad"
check "qcn-t: first expiry at 2400 us" grep -qx \
	"t_us=2400 cr_bps=7539062500 tr_bps=10000000000 bc_stage=0 timer_stage=1 state=fr" "$TMP/qt"
check "qcn-t: CNM with timer stage 1 sets TR <- CR" grep -qx \
	"t_us=3000 cr_bps=3828430176 tr_bps=7539062500 bc_stage=0 timer_stage=0 state=fr" "$TMP/qt"
check "qcn-t: cycle 5 FR, cycle 6 AI" test "$(awk -F'state=' 'NR==8 || NR==9 { printf "%s,", $2 }' "$TMP/qt")" = "fr,ai,"
check "qcn-t: cycle 31 (t=77400) still AI, TR 7669062500" grep -qx \
	"t_us=77400 cr_bps=7664062498 tr_bps=7669062500 bc_stage=0 timer_stage=31 state=ai" "$TMP/qt"
check "qcn-t: cycle 32 (t=79800) HAI, TR + 50M" grep -qx \
	"t_us=79800 cr_bps=7691562499 tr_bps=7719062500 bc_stage=0 timer_stage=32 state=hai" "$TMP/qt"
check "qcn-t: cycles 6..31 are all AI" test "$(sed -n '9,34p' "$TMP/qt" | grep -c 'state=ai$')" -eq 26

# ---------------------------------------------------------------------------
# (3) Release on the timer alone: CNM 63 at 0, timer cycles at 15, 30, 45,
# 60, 75 ms (FR, same CR values as the byte counter: 7539062500 ..
# 9846191406), 90 ms (stage 6: AI, TR 10005000000, CR 9925595703), then T/2:
# 97.5 ms (TR 10010000000, CR 9967797851), 105 ms (10015000000,
# 9991398925), 112.5 ms: TR 10020000000, (9991398925 + 10020000000)/2 =
# 10005699462 >= 10G -> CR = 10G, released.  The tx at 300 ms prints
# nothing; the CNM qfb=0 at 400 ms creates a new limiter at line rate.
# ---------------------------------------------------------------------------
cat > "$TMP/want" <<'EOF'
t_us=0 cr_bps=5078125000 tr_bps=10000000000 bc_stage=0 timer_stage=0 state=fr
t_us=15000 cr_bps=7539062500 tr_bps=10000000000 bc_stage=0 timer_stage=1 state=fr
t_us=30000 cr_bps=8769531250 tr_bps=10000000000 bc_stage=0 timer_stage=2 state=fr
t_us=45000 cr_bps=9384765625 tr_bps=10000000000 bc_stage=0 timer_stage=3 state=fr
t_us=60000 cr_bps=9692382812 tr_bps=10000000000 bc_stage=0 timer_stage=4 state=fr
t_us=75000 cr_bps=9846191406 tr_bps=10000000000 bc_stage=0 timer_stage=5 state=fr
t_us=90000 cr_bps=9925595703 tr_bps=10005000000 bc_stage=0 timer_stage=6 state=ai
t_us=97500 cr_bps=9967797851 tr_bps=10010000000 bc_stage=0 timer_stage=7 state=ai
t_us=105000 cr_bps=9991398925 tr_bps=10015000000 bc_stage=0 timer_stage=8 state=ai
t_us=112500 cr_bps=10000000000 tr_bps=10020000000 bc_stage=0 timer_stage=9 state=released
t_us=400000 cr_bps=10000000000 tr_bps=10000000000 bc_stage=0 timer_stage=0 state=fr
EOF
expect_out "release: timer-only recovery releases once at line rate" --no-jitter <<'EOF'
t_us=0 cnm qfb=63
t_us=200000 tx bytes=0
t_us=300000 tx bytes=150000
t_us=400000 cnm qfb=0
EOF
# a timer expiry and an event at the same time: the expiry comes first (the
# CNM then cuts 7539062500, not 5078125000); byte stage 0, so TR stays 10G
cat > "$TMP/want" <<'EOF'
t_us=0 cr_bps=5078125000 tr_bps=10000000000 bc_stage=0 timer_stage=0 state=fr
t_us=15000 cr_bps=7539062500 tr_bps=10000000000 bc_stage=0 timer_stage=1 state=fr
t_us=15000 cr_bps=3828430176 tr_bps=10000000000 bc_stage=0 timer_stage=0 state=fr
EOF
expect_out "ordering: expiry at t is processed before a CNM at t" --no-jitter <<'EOF'
t_us=0 cnm qfb=63
t_us=15000 cnm qfb=63
EOF
# one tx line covering several byte cycles: one line per expiry (carry)
printf 't_us=0 cnm qfb=63\nt_us=10 tx bytes=450000\n' > "$TMP/in"
check "carry: 450000 bytes = 3 byte-counter cycles -> 3 lines at t=10" \
	test "$("$TRACE" --no-jitter < "$TMP/in" | grep -c '^t_us=10 ')" -eq 3
check "tx before the first CNM prints nothing" \
	test -z "$(printf 't_us=5 tx bytes=1000000\n' | "$TRACE" --no-jitter)"
# 400 Gb/s and 1 Mb/s lines (400G: 4e11*63/128 = 196875000000)
check "400G: CNM qfb 63 -> CR 203125000000" \
	test "$(echo 't_us=0 cnm qfb=63' | "$TRACE" --no-jitter --maxrate 400gbit | sed 's/ tr_bps.*//')" \
	= "t_us=0 cr_bps=203125000000"
check "1M line (min rate 1 Mb/s = line): CR stays at 1000000" \
	test "$(echo 't_us=0 cnm qfb=63' | "$TRACE" --no-jitter --maxrate 1mbit --min-rate 1mbit | sed 's/ tr_bps.*//')" \
	= "t_us=0 cr_bps=1000000"
# 2 Mb/s line, 1 Mb/s min: 2e6*63/128 = 984375 -> CR 1015625; FR -> 1507812
printf 't_us=0 cnm qfb=63\nt_us=1 tx bytes=150000\n' > "$TMP/in"
check "2M line (--max-rate, the alias): CNM qfb 63 -> 1015625, one FR cycle -> 1507812" \
	test "$("$TRACE" --no-jitter --max-rate 2mbit --min-rate 1mbit < "$TMP/in" | sed 's/ tr_bps.*//' | tr '\n' ' ')" \
	= "t_us=0 cr_bps=1015625 t_us=1 cr_bps=1507812 "

# jitter: deterministic per seed, and not the exact grid
printf 't_us=0 cnm qfb=63\nt_us=60000 tx bytes=0\n' > "$TMP/in"
"$TRACE" --seed 7 < "$TMP/in" > "$TMP/j1"
"$TRACE" --seed 7 < "$TMP/in" > "$TMP/j2"
"$TRACE" --seed 8 < "$TMP/in" > "$TMP/j3"
check "jitter: same seed, same output" cmp -s "$TMP/j1" "$TMP/j2"
check "jitter: another seed, another output" test "$(cat "$TMP/j1")" != "$(cat "$TMP/j3")"
first=$(sed -n 2p "$TMP/j1" | sed 's/^t_us=\([0-9]*\) .*/\1/')
check "jitter: first expiry within 15 ms +-15 % ($first us)" \
	test "${first:-0}" -ge 12750 -a "${first:-0}" -le 17250

# ---------------------------------------------------------------------------
# (3b) A CNM reloads the byte counter only with TR <- CR (802.1Qau RP
# pseudo-code; ns-3 rp-net-device.cc): at line rate or byte stage != 0.
# t=0   CNM 63, new limiter: TR = 10G, CR = 5078125000, BC 150000 loaded
# t=100 100000 bytes: 50000 left, no expiry (no line)
# t=200 CNM 10, byte stage 0 and CR < line: TR stays 10G, counter keeps
#       50000; 5078125000*10/128 = 396728515.6 -> CR = 4681396485
# t=300 50000 bytes end the cycle: FR, CR = (4681396485 + 10G)/2 = 7340698242
# t=400 CNM 10, byte stage 1: TR <- 7340698242, BC reloads;
#       7340698242*10/128 = 573492050.2 -> CR = 6767206192
# t=500 149999 bytes: no expiry; t=600 1 byte: CR = (6767206192 +
#       7340698242)/2 = 7053952217
# (The old rule, reload at every CNM, printed no line at t=300.)
# ---------------------------------------------------------------------------
cat > "$TMP/want" <<'EOF2'
t_us=0 cr_bps=5078125000 tr_bps=10000000000 bc_stage=0 timer_stage=0 state=fr
t_us=200 cr_bps=4681396485 tr_bps=10000000000 bc_stage=0 timer_stage=0 state=fr
t_us=300 cr_bps=7340698242 tr_bps=10000000000 bc_stage=1 timer_stage=0 state=fr
t_us=400 cr_bps=6767206192 tr_bps=7340698242 bc_stage=0 timer_stage=0 state=fr
t_us=600 cr_bps=7053952217 tr_bps=7340698242 bc_stage=1 timer_stage=0 state=fr
EOF2
expect_out "cnm: byte counter reloads only with TR <- CR (line rate or byte stage != 0)" --no-jitter <<'EOF2'
t_us=0 cnm qfb=63
t_us=100 tx bytes=100000
t_us=200 cnm qfb=10
t_us=300 tx bytes=50000
t_us=400 cnm qfb=10
t_us=500 tx bytes=149999
t_us=600 tx bytes=1
EOF2

# ---------------------------------------------------------------------------
# (3b) QCN-AIMD at 1 Gb/s, R_AI 5 Mb/s: CNM 63 cuts to 1G - 492187500; each
# BC = 150000 bytes adds 5M (300000 bytes: two increases); the CNM qfb=32 at
# 300 cuts 517812500 by 129453125 and restarts the byte counter (the 50000
# bytes counted before it are dropped); no timer expiry in a second.
# ---------------------------------------------------------------------------
cat > "$TMP/want" <<'EOF2'
t_us=0 cr_bps=507812500 tr_bps=507812500 bc_stage=0 timer_stage=0 state=ai
t_us=100 cr_bps=512812500 tr_bps=512812500 bc_stage=1 timer_stage=0 state=ai
t_us=100 cr_bps=517812500 tr_bps=517812500 bc_stage=2 timer_stage=0 state=ai
t_us=300 cr_bps=388359375 tr_bps=388359375 bc_stage=0 timer_stage=0 state=ai
t_us=1000000 cr_bps=393359375 tr_bps=393359375 bc_stage=1 timer_stage=0 state=ai
EOF2
expect_out "qcn-aimd: QCN's cut, + R_AI per BC, no FR, no timer (eq. 27)" --no-jitter \
	--mode qcn-aimd --maxrate 1gbit <<'EOF2'
t_us=0 cnm qfb=63
t_us=100 tx bytes=300000
t_us=200 tx bytes=100000
t_us=300 cnm qfb=32
t_us=400 tx bytes=149999
t_us=1000000 tx bytes=1
EOF2
# 1G - 507812500 = 492187500 = 98.4 x 5M: the 99th increase releases at 1G
printf 't_us=0 cnm qfb=63\nt_us=100 tx bytes=15000000\n' |
	"$TRACE" --no-jitter --mode qcn-aimd --maxrate 1gbit > "$TMP/aimd"
check "qcn-aimd: 98 increases, then released at the line rate" \
	test "$(wc -l < "$TMP/aimd")" -eq 100 -a \
	"$(tail -1 "$TMP/aimd")" = "t_us=100 cr_bps=1000000000 tr_bps=1000000000 bc_stage=99 timer_stage=0 state=released"

# ---------------------------------------------------------------------------
# (4) bad input: exit 2 and a message naming the line
# ---------------------------------------------------------------------------
bad_input()
{
	local name=$1 line=$2 text=$3 rc
	shift 3
	printf "%b" "$text" | "$TRACE" --no-jitter "$@" > /dev/null 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "line $line:" "$TMP/err"; then
		ok "$name"
	else
		notok "$name" "rc $rc, stderr: $(tr '\n' '|' < "$TMP/err")"
	fi
}
bad_input "bad input: qfb=64 -> exit 2, line 2" 2 't_us=0 cnm qfb=0\nt_us=1 cnm qfb=64\n'
bad_input "bad input: time goes backwards -> line 3" 3 '# c\nt_us=10 cnm qfb=1\nt_us=9 tx bytes=1\n'
bad_input "bad input: unknown event -> line 1" 1 't_us=1 pause bytes=1\n'
bad_input "bad input: missing field -> line 2" 2 '\nt_us=1 cnm\n'
bad_input "bad input: extra field -> line 1" 1 't_us=1 cnm qfb=1 x=2\n'
bad_input "bad input: negative bytes -> line 1" 1 't_us=1 tx bytes=-5\n'
bad_input "bad input: bytes > 2^32-1 -> line 1" 1 't_us=1 tx bytes=4294967296\n'
bad_input "bad input: garbage time -> line 1" 1 't_us=1x cnm qfb=1\n'
bad_input "bad input: no t_us key -> line 1" 1 't=1 cnm qfb=1\n'
printf 't_us=0 cnm qfb=1\n' | "$TRACE" --mode foo > /dev/null 2>&1
check "bad option: --mode foo -> exit 2" test $? -eq 2
printf 't_us=0 cnm qfb=1\n' | "$TRACE" --min-rate 20gbit > /dev/null 2>&1
check "bad option: min rate above max rate -> exit 2" test $? -eq 2
bad=""
for o in "--maxrate 3furlongs" "--maxrate 0" "--ai-rate 20tbit" "--time-reset 11s" \
	 "--time-reset 500ns" "--threshold 0" "--threshold 1001" "--gd 32" "--min-dec 101" \
	 "--byte-reset 0" "--byte-reset 4gb" "--qcnt-period 0" "--jitter maybe" "--bogus"; do
	# shellcheck disable=SC2086
	printf 't_us=0 cnm qfb=1\n' | "$TRACE" $o > /dev/null 2> "$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && [ -s "$TMP/err" ] || bad="$bad [$o: rc $rc]"
done
check "bad option values (unit, range as the qdisc's, unknown option) -> exit 2 and a message" test -z "$bad"
# the README's qcn_rp example, ai-rate 500kbit: the first AI step adds 500 kbit/s to TR
printf 't_us=0 cnm qfb=63\nt_us=200000 tx bytes=0\n' > "$TMP/in"
check "--ai-rate 500kbit: the first AI expiry sets TR = 100mbit + 500000" \
	test "$("$TRACE" --no-jitter --maxrate 100mbit --ai-rate 500kbit < "$TMP/in" | grep -m1 'state=ai' | sed 's/.*tr_bps=\([0-9]*\).*/\1/')" = 100500000
# tc's spellings: a bare time is in us, 0.5mbit = 500kbit = 62500bps, 150kb = 153600
printf 't_us=0 cnm qfb=63\nt_us=100 tx bytes=300000\nt_us=400000 tx bytes=0\n' > "$TMP/in"
"$TRACE" --no-jitter --maxrate 100mbit --ai-rate 500kbit --time-reset 15ms --byte-reset 153600 < "$TMP/in" > "$TMP/u1"
"$TRACE" --no-jitter --maxrate 0.1gbit --ai-rate 62500bps --time-reset 15000 --byte-reset 150kb < "$TMP/in" > "$TMP/u2"
check "units as tc's: 15000 = 15ms, 62500bps = 500kbit, 150kb = 153600, 0.1gbit = 100mbit" \
	test -s "$TMP/u1" -a "$(md5sum < "$TMP/u1")" = "$(md5sum < "$TMP/u2")"
"$TRACE" --help > "$TMP/help"
check "--help exits 0" test $? -eq 0
missing=""
for o in --maxrate --max-rate --gd --ai-rate --hai-rate --byte-reset --time-reset \
	 --threshold --min-rate --min-dec --mode --qcnt-period --jitter --no-jitter --seed \
	 "t_us=<u64> cnm qfb" "tx bytes" "state=" "qfb=0" "default 10gbit" "default 2.4ms" \
	 "bare number is in us"; do
	grep -q -- "$o" "$TMP/help" || missing="$missing $o"
done
check "--help documents options, defaults, input and output formats" test -z "$missing"

ktap_done
