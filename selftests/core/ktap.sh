#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KTAP for the shell tests of the tools: collect results, print the plan
# and the results at the end (ktap_done), so the plan is exact.
#   ok NAME, notok NAME WHY, check NAME CMD... (ok if CMD succeeds)
#   ktap_need_tool PATH NAME: a single failing plan if the tool is missing
n=0
fails=0
results=()
ok() { n=$((n + 1)); results+=("ok $n $1"); }
notok() { n=$((n + 1)); fails=$((fails + 1)); results+=("# $2" "not ok $n $1"); }
check() { local name=$1; shift; if "$@"; then ok "$name"; else notok "$name" "failed: $*"; fi; }

ktap_need_tool()
{
	[ -x "$1" ] && return 0
	echo "TAP version 13"
	echo "1..1"
	echo "not ok 1 $2 not built ($1)"
	exit 1
}

ktap_done()
{
	echo "TAP version 13"
	echo "1..$n"
	printf '%s\n' "${results[@]}"
	echo "# $((n - fails)) passed, $fails failed"
	[ "$fails" -eq 0 ]
}
