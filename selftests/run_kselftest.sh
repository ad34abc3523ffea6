#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run selftests kselftest-style: top-level KTAP, each test's own KTAP nested
# behind "# ", a per-test timeout, each test's counts right above its
# result line
#   # TEST: N passed, N failed, N skipped
# and a closing summary line that adds them up
#   # selftests: N passed, N failed, N skipped  A test's results are checked
# against its plan (its last "1..N" line): each planned result it did not
# report counts as a failure, more results than planned, or no plan, as one;
# a test that dies or times out without reporting a failure counts as one.
#
# Usage: run_kselftest.sh TEST...
# The per-test timeout is "timeout=" in ./settings, as kselftest reads it
# (QCN_TEST_TIMEOUT overrides it).
cd "$(dirname "$0")" || exit 1
timeout_s=${QCN_TEST_TIMEOUT:-$(sed -n 's/^timeout=//p' settings 2>/dev/null)}
timeout_s=${timeout_s:-45}	# kselftest's default
n=0 pass=0 fail=0 skip=0 any_fail=0

echo "TAP version 13"
echo "1..$#"
for t in "$@"; do
	n=$((n + 1))
	echo "# selftests: qcn: $t"
	log=$(mktemp)
	start=$(date +%s)
	timeout -k 10 "$timeout_s" "./$t" 2>&1 | tee "$log" | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	p=$(grep -cE '^ok [0-9]+' "$log")
	s=$(grep -cE '^ok [0-9]+ .*# [Ss][Kk][Ii][Pp]' "$log")
	f=$(grep -cE '^not ok [0-9]+' "$log")
	p=$((p - s))
	ran=$((p + s + f))
	plan=$(sed -nE 's/^1\.\.([0-9]+).*/\1/p' "$log" | tail -n1)
	if [ -z "$plan" ]; then
		echo "# $t: no KTAP plan (1..N)"
		f=$((f + 1))
	elif [ "$ran" -lt "$plan" ]; then
		echo "# $t: planned $plan results, reported $ran: $((plan - ran)) missing, counted as failed"
		f=$((f + plan - ran))
	elif [ "$ran" -gt "$plan" ]; then
		echo "# $t: planned $plan results, reported $ran"
		f=$((f + 1))
	fi
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; then
		[ "$rc" -eq 124 ] && echo "# $t: timed out after ${timeout_s}s"
		if [ "$f" -eq 0 ]; then
			echo "# $t: exited with status $rc without reporting a failure"
			f=1
		fi
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	echo "# $t: $p passed, $f failed, $s skipped"
	dur=$(($(date +%s) - start))
	if [ "$f" -gt 0 ]; then
		any_fail=1
		echo "not ok $n selftests: qcn: $t # exit=$rc, ${dur}s"
	elif [ "$rc" -eq 4 ]; then
		echo "ok $n selftests: qcn: $t # SKIP"
	else
		echo "ok $n selftests: qcn: $t # ${dur}s"
	fi
	rm -f "$log"
done
echo "# selftests: $pass passed, $fail failed, $skip skipped"
exit $any_fail
