#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run selftests kselftest-style: top-level KTAP, each test's own KTAP nested
# behind "# ", a per-test timeout, and a closing summary line
#   # selftests: N passed, N failed, N skipped
# that counts the tests' individual points (a test that dies or times out
# without reporting a failure counts as one failure).
#
# Usage: run_kselftest.sh TEST...   (QCN_TEST_TIMEOUT, default 300 s)
cd "$(dirname "$0")" || exit 1
timeout_s=${QCN_TEST_TIMEOUT:-300}
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
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$f" -eq 0 ]; then
		f=1
		[ "$rc" -eq 124 ] && echo "# $t: timed out after ${timeout_s}s"
		echo "# $t: exited with status $rc without reporting a failure"
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
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
