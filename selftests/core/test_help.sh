#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every program of the project answers -h and --help with its usage on
# stdout and exit status 0 (nothing on stderr); an unknown option fails
# with the usage on stderr, nothing on stdout and exit status 2.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/ktap.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for p in selftests/cnm_send selftests/cnm_dump selftests/udp_send selftests/udp_sink selftests/flow_gen \
	 tools/qcnstat tools/qcn-sim tools/qcn-rp-trace tools/qcn-model; do
	name=${p##*/}
	if [ ! -x "$TOP/$p" ]; then
		notok "$name: built" "missing $TOP/$p (make -C selftests/core all builds it)"
		continue
	fi
	"$TOP/$p" --help > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "$name --help: usage on stdout, exit 0 (rc $rc)" \
		test $rc -eq 0 -a ! -s "$TMP/err" -a "$(head -c $((7 + ${#name})) "$TMP/out")" = "Usage: $name"
	"$TOP/$p" -h > "$TMP/out2" 2> "$TMP/err"
	rc=$?
	check "$name -h: the same text, exit 0 (rc $rc)" \
		bash -c "[ $rc -eq 0 ] && [ ! -s '$TMP/err' ] && cmp -s '$TMP/out' '$TMP/out2'"
	"$TOP/$p" --no-such-option < /dev/null > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "$name --no-such-option: usage on stderr, nothing on stdout, exit 2 (rc $rc)" \
		test $rc -eq 2 -a ! -s "$TMP/out" -a -n "$(grep "^Usage: $name" "$TMP/err")"
done

ktap_done
