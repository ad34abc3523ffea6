#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/run_kselftest.sh on fake tests: results are counted against
# each test's plan (a test that plans 5 and reports 2 fails, with the 3
# missing counted as failures), a missing plan, surplus results, a silent
# crash and a timeout fail, a whole-test skip does not, and the timeout
# comes from ./settings.
cd "$(dirname "$0")" || exit 1
source ./ktap.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp ../run_kselftest.sh "$tmp/"
unset QCN_TEST_TIMEOUT

fake()	# NAME EXIT-STATUS LINE...: a test printing the lines
{
	local name=$1 rc=$2; shift 2
	{
		echo '#!/bin/bash'
		printf 'echo %q\n' "$@"
		echo "exit $rc"
	} > "$tmp/$name"
	chmod +x "$tmp/$name"
}

fake short.sh 0 "TAP version 13" "1..5" "ok 1 a" "ok 2 b"
fake full.sh 0 "TAP version 13" "1..2" "ok 1 a" "ok 2 b"
fake noplan.sh 0 "ok 1 a"
fake surplus.sh 0 "1..1" "ok 1 a" "ok 2 b"
fake crash.sh 139 "1..2" "ok 1 a" "ok 2 b"
fake notok.sh 1 "1..3" "ok 1 a" "not ok 2 b" "ok 3 c"
fake skipall.sh 4 "1..1" "ok 1 skipall.sh # SKIP needs a thing"
# a test that planned, then found it cannot run: the last plan counts
fake replan.sh 4 "1..8" "TAP version 13" "1..1" "ok 1 replan.sh # SKIP no testbed"
{ echo '#!/bin/bash'; echo 'echo 1..1'; echo 'sleep 30'; echo 'echo ok 1 late'; } > "$tmp/slow.sh"
chmod +x "$tmp/slow.sh"

run()	# TEST...: the runner's output; its status in $rs
{
	out=$("$tmp/run_kselftest.sh" "$@" 2>&1)
	rs=$?
}
summary() { grep -E '^# selftests: [0-9]+ passed' <<< "$out"; }

run short.sh
check "1..5 with two results fails (runner status $rs)" test "$rs" -ne 0
check "1..5 with two results: 'not ok 1' for the test" grep -q '^not ok 1 selftests: qcn: short.sh' <<< "$out"
check "1..5 with two results: 2 passed, 3 failed" grep -q '^# selftests: 2 passed, 3 failed, 0 skipped$' <<< "$out"
check "1..5 with two results: says what is missing" grep -q 'planned 5 results, reported 2' <<< "$out"

run full.sh
check "1..2 with two results passes ($(summary))" test "$rs" -eq 0 -a "$(summary)" = "# selftests: 2 passed, 0 failed, 0 skipped"

run noplan.sh
check "no plan fails ($(summary))" test "$rs" -ne 0 -a "$(summary)" = "# selftests: 1 passed, 1 failed, 0 skipped"

run surplus.sh
check "more results than planned fails ($(summary))" test "$rs" -ne 0 -a "$(summary)" = "# selftests: 2 passed, 1 failed, 0 skipped"

run crash.sh
check "status 139 after a full plan fails ($(summary))" test "$rs" -ne 0 -a "$(summary)" = "# selftests: 2 passed, 1 failed, 0 skipped"

run notok.sh
check "a 'not ok' counts once ($(summary))" test "$rs" -ne 0 -a "$(summary)" = "# selftests: 2 passed, 1 failed, 0 skipped"

run skipall.sh replan.sh
check "whole-test skips are skips, the last plan counts ($(summary))" \
	test "$rs" -eq 0 -a "$(summary)" = "# selftests: 0 passed, 0 failed, 2 skipped"
check "a skipped test is 'ok ... # SKIP'" grep -q '^ok 2 selftests: qcn: replan.sh # SKIP' <<< "$out"

run full.sh short.sh full.sh
check "suite plan 1..3, one failure among three ($(summary))" \
	test "$rs" -ne 0 -a "$(summary)" = "# selftests: 6 passed, 3 failed, 0 skipped" -a \
	"$(grep -c '^ok [0-9] ' <<< "$out")" -eq 2
check "suite: top-level plan 1..3" grep -qx '1\.\.3' <<< "$out"

echo "timeout=1" > "$tmp/settings"
SECONDS=0
run slow.sh
t=$SECONDS
check "timeout=1 from settings stops a 30 s test (${t}s, $(summary))" \
	test "$rs" -ne 0 -a "$t" -lt 15 -a "$(summary)" = "# selftests: 0 passed, 1 failed, 0 skipped"
check "the timeout is reported" grep -q 'slow.sh: timed out after 1s' <<< "$out"

ktap_done
