#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcn_tdc.sh [FILE.json...]: tc-testing (tdc) cases run by the kernel's own
# tdc.py with its nsPlugin, one KTAP point per case.  Without arguments:
# tc-testing/qcn.json, every qcn option set and shown back (checked with
# jq -e on tc -j).  qcn_tdc_reject.sh, qcn_tdc_class.sh, qcn_tdc_rp.sh and
# qcn_tdc_rp_reject.sh run the other files: the bad values, rejected with
# the qdisc unchanged, apart from the options set, one file each, so that
# every run stays well within the runner's per-test timeout in the
# emulator.
source "$(dirname "$0")/lib.sh"
for f in "$@"; do	# absolute: tdc.py runs in its own folder
	set -- "$@" "$(realpath "$f")"
	shift
done
qcn_require_root
qcn_require_cmd python3 jq
qcn_require_modules

TESTS=("$@")
[ $# -gt 0 ] || TESTS=("$QCN_TOP/selftests/tc-testing/qcn.json")

# tdc.py (tools/testing/selftests/tc-testing of Debian's linux-source-6.1)
# is found in $QCN_TDC_DIR, else in the UML build cache scripts/setup fills
# ($QCN_CACHE/uml/src-VER-PSUM/..., see scripts/uml-build).  It runs from a
# writable copy (it writes its results and Python caches next to itself)
# with a tdc_config_local.py that names this system's tc and ip, a netns
# and devices of its own, and the environment tc needs to find q_qcn.so.
find_tdc()
{
	local d
	if [ -n "${QCN_TDC_DIR:-}" ]; then
		echo "$QCN_TDC_DIR"
		return
	fi
	. "$QCN_TOP/scripts/uml/lib.sh"	# UML_CACHE
	# src-VER-PSUM (scripts/uml-build), the newest first
	for d in $(printf '%s\n' "$UML_CACHE"/src-* | sort -rV); do
		d="$d/tools/testing/selftests/tc-testing"
		[ -f "$d/tdc.py" ] && { echo "$d"; return; }
	done
}
SRC=$(find_tdc)
[ -n "$SRC" ] && [ -f "$SRC/tdc.py" ] && [ -f "$SRC/plugin-lib/nsPlugin.py" ] ||
	ktap_skip_all "no tc-testing/tdc.py (scripts/setup unpacks linux-source-6.1; or set QCN_TDC_DIR)"

# the case ids, in file order: one KTAP point each
ids=$(python3 -c '
import json, sys
for f in sys.argv[1:]:
    for t in json.load(open(f)):
        print(t["id"])' "${TESTS[@]}") || ktap_skip_all "cannot read ${TESTS[*]}"
mapfile -t IDS <<<"$ids"
[ -n "$ids" ] || ktap_skip_all "no test cases in ${TESTS[*]}"

ktap_print_header
ktap_set_plan $((${#IDS[@]} + 2))
qcn_dmesg_mark
ktap_info "tdc.py from $SRC, ${#IDS[@]} cases in ${TESTS[*]##*/}"

TMP=$(mktemp -d)
trap 'ip netns del "$NS" 2>/dev/null; ip link del "$DEV0" 2>/dev/null; rm -rf "$TMP"' EXIT
W="$TMP/tc-testing"
mkdir -p "$W"
cp -r "$SRC"/*.py "$SRC/plugin-lib" "$SRC/plugins" "$W/"

NS="qcntdc$$"
DEV0="qtdc$$a"
cat >"$W/tdc_config_local.py" <<EOF
# written by selftests/qcn_tdc.sh
EXTRA_NAMES = {
    'TC': '$(command -v tc)',
    'IP': '$(command -v ip)',
    'NS': '$NS',
    'DEV0': '$DEV0',
    'DEV1': 'qtdc$$b',
    'DUMMY': 'qcnd0',
    'TIMEOUT': 60,
}
# tdc runs its commands with this environment only
ENVIR = {
    'PATH': '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    'LANG': 'C',
}
EOF
[ -n "${TC_LIB_DIR:-}" ] && echo "ENVIR['TC_LIB_DIR'] = '$TC_LIB_DIR'" >>"$W/tdc_config_local.py"

start=$(date +%s)
(cd "$W" && python3 ./tdc.py -f "${TESTS[@]}" --outfile "$TMP/results.tap") >"$TMP/tdc.log" 2>&1
rc=$?
ktap_info "tdc.py ran $(( $(date +%s) - start )) s"
[ -d "${QCN_OUT:-}" ] && cp "$TMP/tdc.log" "$QCN_OUT/${0##*/}.log" 2>/dev/null

# tdc's TAP: "ok N ID - NAME", "not ok N ID - NAME" + tab-indented reason,
# "ok N ID - NAME # skipped - WHY" (after a failed setup: not a pass here)
python3 - "$TMP/results.tap" "${IDS[@]}" >"$TMP/ktap" <<'EOF'
import re, sys
path, ids = sys.argv[1], sys.argv[2:]
res, cur = {}, None
try:
    lines = open(path).read().splitlines()
except OSError:
    lines = []
for line in lines:
    m = re.match(r'^(not )?ok \d+ (\S+) - (.*?)(?: # skipped - (.*))?$', line)
    if m:
        cur = m.group(2)
        state = 'fail' if m.group(1) else ('skip' if m.group(4) is not None else 'pass')
        res[cur] = [state, m.group(3), [m.group(4)] if m.group(4) else []]
    elif cur and line.strip():
        res[cur][2].append(line.strip())
for i in ids:
    state, name, why = res.get(i, ['missing', '', ['no result from tdc']])
    print('%s\t%s: %s\t%s' % (state, i, name, ' | '.join(why)[:400]))
EOF
while IFS=$'\t' read -r state name why; do
	case "$state" in
	pass)	ktap_test_pass "$name" ;;
	skip)	ktap_test_fail "$name" "tdc skipped it: $why" ;;
	*)	ktap_test_fail "$name" "$why" ;;
	esac
done <"$TMP/ktap"
if [ $rc -ne 0 ] || grep -qiE "traceback|exception" "$TMP/tdc.log"; then
	grep -iE -A3 "traceback|exception|error" "$TMP/tdc.log" | head -n 20 | sed 's/^/# tdc: /'
fi
ktap_check "tdc.py exited with 0 (status $rc)" test $rc -eq 0
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finished
