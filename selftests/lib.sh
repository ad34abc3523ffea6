#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the linux-qcn selftests: KTAP output, module loading,
# and netns + veth + bridge testbeds that clean up after themselves.
#
# Usage in a test:
#	source "$(dirname "$0")/lib.sh"
#	ktap_print_header
#	ktap_set_plan 3
#	tb_init			# unique namespace prefix, cleanup trap
#	tb_star 2		# h1, h2 -> sw (bridge) -> r
#	...
#	ktap_check "name" test "$x" -gt 0
#	ktap_finished
#
# Addresses: 198.18.0.0/24 (RFC 2544 benchmarking range), only inside the
# namespaces created here.

# User-Mode Linux (scripts/uml-run) pays dearly per syscall (~4 kpps of
# 1400 B datagrams): udp_send batches its datagrams with UDP GSO there, so
# that the UDP senders offer what they do on a host.
[ -n "${QCN_UML:-}" ] && export UDP_SEND_GSO=1

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

QCN_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
QCN_NET=198.18.0

__ktap_n=0
__ktap_fail=0
__ktap_pass=0
__ktap_skip=0
__ktap_plan=

# The KTAP helpers have the names of the kernel's own
# (tools/testing/selftests/kselftest/ktap_helpers.sh, Linux 6.6 and later)
# where they mean the same; ktap_test_fail and ktap_test_skip also take a
# reason, and ktap_skip_all reports one skipped result under a plan of 1.

ktap_print_header()
{
	echo "TAP version 13"
}

# ktap_set_plan N: the number of results the test reports (ktap_finished
# holds it to that)
ktap_set_plan()
{
	__ktap_plan=$1
	echo "1..$1"
}

ktap_test_pass()
{
	__ktap_n=$((__ktap_n + 1)); __ktap_pass=$((__ktap_pass + 1))
	echo "ok $__ktap_n $1"
}

# ktap_test_fail NAME [REASON...]
ktap_test_fail()
{
	local name=$1; shift
	__ktap_n=$((__ktap_n + 1)); __ktap_fail=$((__ktap_fail + 1))
	[ $# -gt 0 ] && echo "# $*"
	echo "not ok $__ktap_n $name"
}

# ktap_test_skip NAME REASON...
ktap_test_skip()
{
	local name=$1; shift
	__ktap_n=$((__ktap_n + 1)); __ktap_skip=$((__ktap_skip + 1))
	echo "ok $__ktap_n $name # SKIP $*"
}

# ktap_check NAME CMD...: ok when CMD succeeds
ktap_check()
{
	local name=$1; shift
	if "$@"; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name" "failed: $*"
	fi
}

# ktap_rate_check NAME CMD...: ktap_check for an assertion on rates,
# shares or timing calibrated for the testbeds' speeds.  It counts where
# kernel code runs at native speed: User-Mode Linux's normal kernel (make
# check runs the whole suite there) and a real host.  In the QEMU/TCG
# guests (the distro-kernel compatibility check) the emulator's own
# stalls decide timing (a sender or a timer descheduled for 100s of ms
# while the other lane loads the host), and under the debug UML kernel
# (KASAN, lockdep and debug objects on every path) those speeds are not
# reached: there a miss is a SKIP that names the measured value; the run
# still exercises every path, which is what those kernels are for.
ktap_rate_check()
{
	local name=$1; shift
	if "$@"; then
		ktap_test_pass "$name"
	elif [ "${QCN_UML_FLAVOR:-}" = debug ]; then
		ktap_test_skip "$name" "rate/timing not reached under the debug kernel (failed: $*)"
	elif [ -n "${QCN_GUEST:-}" ]; then
		ktap_test_skip "$name" "rate/timing not reached in the emulated guest; counted in UML and on hosts (failed: $*)"
	else
		ktap_test_fail "$name" "failed: $*"
	fi
}

# __ktap_cmp VALUE OP BOUND: VALUE OP BOUND, decimals allowed; OP is <,
# <=, >, >= or "in" with BOUND "LO:HI" (both ends included).  Not a
# number, or an unknown OP, is false.
__ktap_cmp()
{
	awk -v v="$1" -v op="$2" -v b="$3" 'BEGIN {
		num = "^-?[0-9]+([.][0-9]+)?$"
		if (v !~ num) exit 1
		if (op == "in") {
			n = split(b, r, ":")
			if (n != 2 || r[1] !~ num || r[2] !~ num) exit 1
			exit !(v + 0 >= r[1] + 0 && v + 0 <= r[2] + 0)
		}
		if (b !~ num) exit 1
		if (op == "<") exit !(v + 0 < b + 0)
		if (op == "<=") exit !(v + 0 <= b + 0)
		if (op == ">") exit !(v + 0 > b + 0)
		if (op == ">=") exit !(v + 0 >= b + 0)
		exit 1
	}'
}

# ktap_bound [--timing] KEY VALUE OP BOUND NAME: a quantitative check, ok
# when VALUE OP BOUND (see __ktap_cmp).  It prints
#	# bound: KEY VALUE OP BOUND
# right above its result: the one form scripts/flaky collects over runs.
# KEY names the check the same way in every run (NAME may carry the
# measured value).  --timing: the bound holds at native speed only, and a
# miss follows ktap_rate_check's rule (a SKIP in the guests and under the
# debug kernel).
ktap_bound()
{
	local check=ktap_check
	[ "$1" = --timing ] && { check=ktap_rate_check; shift; }
	echo "# bound: $1 $2 $3 $4"
	$check "$5" __ktap_cmp "$2" "$3" "$4"
}

# ktap_target KEY VALUE OP BOUND NAME: a target that is reported, not
# asserted (a paper's or a benchmark's figure, at the edge of what the
# testbed measures): "# target: KEY VALUE OP BOUND met|missed NAME".
# scripts/flaky reports how often it is met.
ktap_target()
{
	local v=missed
	__ktap_cmp "$2" "$3" "$4" && v=met
	echo "# target: $1 $2 $3 $4 $v $5"
}

ktap_info()
{
	echo "# $*"
}

ktap_print_totals()
{
	echo "# totals: pass:$__ktap_pass fail:$__ktap_fail skip:$__ktap_skip"
}

# Exit with the kselftest code for what was reported; as kselftest's
# ksft_finished, a number of results other than the plan is a failure.
ktap_finished()
{
	if [ -n "$__ktap_plan" ] && [ "$__ktap_n" -ne "$__ktap_plan" ]; then
		echo "# Planned tests != run tests ($__ktap_plan != $__ktap_n)"
		ktap_print_totals
		exit $KSFT_FAIL
	fi
	ktap_print_totals
	if [ "$__ktap_fail" -gt 0 ]; then
		exit $KSFT_FAIL
	elif [ "$__ktap_pass" -eq 0 ] && [ "$__ktap_skip" -gt 0 ]; then
		exit $KSFT_SKIP
	fi
	exit $KSFT_PASS
}

# Skip the whole test (plan of 1) with a reason.
ktap_skip_all()
{
	ktap_print_header
	ktap_set_plan 1
	ktap_test_skip "${0##*/}" "$*"
	exit $KSFT_SKIP
}

# ------------------------------------------------------- test functions
# A test of separable phases runs them as selftests/net/forwarding does:
# a function per phase, ALL_TESTS="fn1 fn2 ..." lists them in order, and
# TESTS="fn2 ..." in the environment runs only those (make -C selftests
# run_tests T=test.sh TESTS=fn2 passes it on).  Each function declares
# beside it how many results it reports, so that the plan is computed:
#
#	test_checks fn1 3
#	fn1() { ... three results ... }
#	test_checks fn2 ${#CASES[@]}
#	fn2() { for c in "${CASES[@]}"; do ...; done; }
#	ALL_TESTS="fn1 fn2"
#	...
#	tests_plan [FN...]	# FN...: functions every selection runs
#	setup			# (one of them)
#	tests_run
#	ktap_finished
declare -gA __test_checks=()
__tests_sel=

# test_checks FN N: FN reports N results
test_checks()
{
	__test_checks[$1]=$2
}

# __tests_count FN: FN's declared count; a test's own bug (FN not a
# function, no count declared) ends it
__tests_count()
{
	if ! declare -F "$1" > /dev/null || [ -z "${__test_checks[$1]:-}" ]; then
		echo "${0##*/}: $1: not a function with a test_checks count" >&2
		exit $KSFT_FAIL
	fi
	echo "${__test_checks[$1]}"
}

# tests_plan [FN...]: the KTAP header and the plan: the results of the
# functions TESTS selects (default: all of ALL_TESTS) and of FN..., which
# the test runs in any selection (setup, a closing kernel log check).  A
# name in TESTS that ALL_TESTS does not have ends the test, status 1,
# before any KTAP.
tests_plan()
{
	local t n=0 c all want
	# word lists, whatever the spaces, tabs and newlines between
	# shellcheck disable=SC2086
	all=$(echo $ALL_TESTS)
	# shellcheck disable=SC2086
	want=$(echo ${TESTS:-$all})
	for t in $want; do
		if [[ " $all " != *" $t "* ]]; then
			echo "${0##*/}: TESTS: no test '$t' here (ALL_TESTS: $all)" >&2
			exit $KSFT_FAIL
		fi
	done
	__tests_sel=
	for t in $all; do
		[[ " $want " == *" $t "* ]] && __tests_sel+=${__tests_sel:+ }$t
	done
	for t in $__tests_sel "$@"; do
		c=$(__tests_count "$t") || exit $KSFT_FAIL
		n=$((n + c))
	done
	ktap_print_header
	ktap_set_plan "$n"
	[ -z "${TESTS:-}" ] || ktap_info "TESTS: $__tests_sel"
}

# tests_run: run the selected functions in ALL_TESTS's order (a later
# phase may end the testbed); a function that reports other than its
# count is said (ktap_finished fails the plan)
tests_run()
{
	# (names of its own: the functions run see its locals, bash's scoping)
	local __tests_fn __tests_n0
	for __tests_fn in $__tests_sel; do
		__tests_n0=$__ktap_n
		"$__tests_fn"
		[ $((__ktap_n - __tests_n0)) -eq "${__test_checks[$__tests_fn]}" ] ||
			ktap_info "$__tests_fn: declared ${__test_checks[$__tests_fn]} results, reported $((__ktap_n - __tests_n0))"
	done
}

qcn_require_root()
{
	[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root"
	command -v ip >/dev/null || ktap_skip_all "needs iproute2"
}

# Require a command (skipping with a reason when it is missing).
qcn_require_cmd()
{
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || ktap_skip_all "needs $c"
	done
}

# Require this tree's programs (PATH...: absolute, or relative to the tree),
# skipping with the make target that builds a missing one.
qcn_require_built()
{
	local f rel
	for f in "$@"; do
		[ -x "$f" ] || [ -x "$QCN_TOP/$f" ] && continue
		rel=${f#"$QCN_TOP"/}
		case $rel in
		selftests/*)	ktap_skip_all "$rel not built (make -C selftests)" ;;
		*)		ktap_skip_all "$rel not built (make tools)" ;;
		esac
	done
}

# Load a module: installed (modprobe) or from this tree's build folder.
qcn_load_module()
{
	local mod=$1 ko
	modprobe -q "$mod" 2>/dev/null && return 0
	for ko in "$QCN_TOP/build/$(uname -r)/$mod/$mod.ko" \
		  "$QCN_TOP/$mod/$mod.ko"; do
		[ -f "$ko" ] || continue
		# insmod resolves no dependencies (sch_qcn needs bridge's VLAN helpers)
		for dep in $(modinfo -F depends "$ko" 2>/dev/null | tr , ' '); do
			modprobe -q "$dep" 2>/dev/null
		done
		insmod "$ko" 2>/dev/null && return 0
	done
	lsmod | grep -q "^$mod " && return 0
	return 1
}

# busywait TIMEOUT_MS CMD...: run CMD until it succeeds, at most TIMEOUT_MS
# (as selftests/net/forwarding/lib.sh's); prints CMD's last output.  For a
# condition that a loaded machine reaches late: a counter that moves, a
# module whose last user goes away asynchronously.
busywait()
{
	local timeout=$1 start out
	shift
	start=$(date +%s%3N)
	while :; do
		out=$("$@") && { printf '%s' "$out"; return 0; }
		if [ $(($(date +%s%3N) - start)) -gt "$timeout" ]; then
			printf '%s' "$out"
			return 1
		fi
		sleep 0.05
	done
}

# qcn_unload MOD...: unload those of the modules still loaded, waiting up
# to 20 s for their last users to go: the kernel dismantles namespaces in
# a work item and frees qdiscs after an RCU grace period.  On failure it
# names the module and its use count.
__qcn_unload_once()
{
	local m rc=0
	for m in "$@"; do
		grep -q "^$m " /proc/modules || continue
		rmmod "$m" 2>/dev/null || rc=1
	done
	return $rc
}

qcn_unload()
{
	local m
	busywait 20000 __qcn_unload_once "$@" && return 0
	for m in "$@"; do
		grep "^$m " /proc/modules | awk '{ print "# still loaded: " $1 ", used by " $3 }'
	done
	return 1
}

# qcn_require_modules [MOD...]: load the modules (default both) or skip the
# test with the reason; point tc at this tree's plugins if none is installed.
qcn_require_modules()
{
	local m mods=("$@")
	[ ${#mods[@]} -gt 0 ] || mods=(sch_qcn rp_limiter)
	for m in "${mods[@]}"; do
		qcn_load_module "$m" || ktap_skip_all "cannot load $m.ko (build it: make; or make install)"
	done
	if [ -z "${TC_LIB_DIR:-}" ] && [ ! -f /usr/lib/x86_64-linux-gnu/tc/q_qcn.so ] &&
	   [ -f "$QCN_TOP/tc-plugin/q_qcn.so" ]; then
		export TC_LIB_DIR="$QCN_TOP/tc-plugin"
	fi
}

# ---------------------------------------------------------------- testbeds

TB=""
__tb_ns=()
__tb_pids=()

# tb_init: unique prefix for this test's namespaces, cleanup on exit.
tb_init()
{
	TB="qcn$$"
	trap tb_cleanup EXIT
	trap 'exit 130' INT TERM
}

# tb_wait: wait for the background processes started with nsbg
tb_wait()
{
	local p
	for p in "${__tb_pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	__tb_pids=()
}

# __tb_alive PID: the process runs (not gone, not a zombie awaiting wait)
__tb_alive()
{
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

__tb_all_gone()
{
	local p
	for p in "${__tb_pids[@]}"; do
		__tb_alive "$p" && return 1
	done
	return 0
}

# cnm_loss_allowance SENT: how many of SENT CNMs may go missing between a
# port and a capture without a drop counter (veth ring, capture buffer):
# 0.5 %, at least 2; a port counting CNMs it did not send misses them all
cnm_loss_allowance()
{
	echo $(($1 / 200 > 2 ? $1 / 200 : 2))
}

# tb_cleanup: stop the background processes (SIGTERM; SIGKILL, named in
# the log, for one still alive after 10 s: a handler that blocks must not
# hang the test), delete the namespaces
tb_cleanup()
{
	local p n
	for p in "${__tb_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	busywait 10000 __tb_all_gone
	for p in "${__tb_pids[@]}"; do
		__tb_alive "$p" || continue
		echo "# cleanup: pid $p ($(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)) outlived SIGTERM by 10 s, killed"
		kill -KILL "$p" 2>/dev/null
	done
	tb_wait
	for n in "${__tb_ns[@]}"; do
		ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$n" 2>/dev/null
	done
	__tb_ns=()
}

# tb_ns NAME: create namespace $TB-NAME with lo up.
tb_ns()
{
	local n="$TB-$1"
	ip netns add "$n" || return 1
	__tb_ns+=("$n")
	ip -n "$n" link set lo up
}

# nsx NAME CMD...: run CMD in namespace $TB-NAME.
nsx()
{
	local n="$TB-$1"; shift
	ip netns exec "$n" "$@"
}

# nsbg NAME CMD...: run CMD in the background in $TB-NAME; killed at cleanup.
# The pid is in $TB_LAST_PID.
nsbg()
{
	local n="$TB-$1"; shift
	ip netns exec "$n" "$@" &
	TB_LAST_PID=$!
	__tb_pids+=("$TB_LAST_PID")
}

# tb_veth NS1 IF1 NS2 IF2: veth pair between two namespaces, both up.
tb_veth()
{
	ip link add "$2" netns "$TB-$1" type veth peer name "$4" netns "$TB-$3" || return 1
	ip -n "$TB-$1" link set "$2" up
	ip -n "$TB-$3" link set "$4" up
}

# tb_bridge NS BR: a bridge (STP off, no forwarding delay) in NS.
tb_bridge()
{
	ip -n "$TB-$1" link add "$2" type bridge forward_delay 0 stp_state 0 || return 1
	ip -n "$TB-$1" link set "$2" up
}

# tb_port NS BR IF: enslave IF to BR.
tb_port()
{
	ip -n "$TB-$1" link set "$3" master "$2"
}

# tb_star N: senders h1..hN (eth0 = $QCN_NET.i), receiver r (eth0 =
# $QCN_NET.100), switch namespace sw with bridge br0; sw-pI faces hI and
# sw-pr faces r (the congestion point port).  MACs are fixed:
# hI 02:00:00:00:00:0I, r 02:00:00:00:00:64.
#
#	h1 --- sw-p1 -+
#	h2 --- sw-p2 -+- [sw: br0] - sw-pr (CP) --- r
#	..            |
#	hN --- sw-pN -+
tb_star()
{
	local n=$1 i
	tb_switch sw || return 1
	for i in $(seq 1 "$n"); do
		tb_host "h$i" "$i" sw "sw-p$i" || return 1
	done
	tb_host r 100 sw sw-pr || return 1
	# learn every MAC before traffic starts (fdb entries, neighbours)
	for i in $(seq 1 "$n"); do
		nsx "h$i" ping -c1 -W2 "$QCN_NET.100" >/dev/null 2>&1
	done
	return 0
}

# ------------------------------------------------- more topologies
# Shared by the selftests, scripts/experiments and scripts/topology (the
# user's command).  Hosts get $QCN_NET.I and MAC 02:00:00:00:00:I (hex);
# senders are 1..99, receivers 100 and up.  Switches are namespaces with a
# bridge br0; a switch port that faces a host is named after it.

# tb_switch NS: a switch namespace with bridge br0
tb_switch()
{
	tb_ns "$1" && tb_bridge "$1" br0
}

# tb_host NS I SW PORT: host NS ($QCN_NET.I) on switch SW's port PORT
tb_host()
{
	tb_ns "$1" || return 1
	tb_veth "$1" eth0 "$3" "$4" || return 1
	ip -n "$TB-$1" link set eth0 address "$(printf '02:00:00:00:00:%02x' "$2")"
	ip -n "$TB-$1" addr add "$QCN_NET.$2/24" dev eth0
	tb_port "$3" br0 "$4"
}

# tb_link SW1 PORT1 SW2 PORT2: a link between two switches
tb_link()
{
	tb_veth "$1" "$2" "$3" "$4" || return 1
	tb_port "$1" br0 "$2" && tb_port "$3" br0 "$4"
}

# tb_learn "SRC:I" ...: SRC resolves $QCN_NET.I and sends it one UDP
# datagram (port 9, discard), so that the bridges' FDBs and the neighbour
# tables are filled before traffic starts (no ping needed: UML runs the
# host's userspace, which may have none)
tb_learn()
{
	local p
	for p in "$@"; do
		nsx "${p%%:*}" bash -c "echo learn > /dev/udp/$QCN_NET.${p#*:}/9" 2>/dev/null
		sleep 0.05
	done
	return 0
}

# tb_parking: the parking lot (AF-QCN Fig. 5): switches sw1 - sw2 - sw3,
# link 1 leaves sw1 by sw1-up, link 2 leaves sw2 by sw2-up (the two
# congestion points).  h1, h2 on sw1; h3 and r1 (.101) on sw2; r2 (.102)
# on sw3.  Flows: h1 -> r2 crosses both links, h2 -> r1 link 1 only,
# h3 -> r2 link 2 only.
#
#	h1 -+                      h3 -+
#	h2 -+- [sw1] - sw1-up (CP) -+- [sw2] - sw2-up (CP) -- [sw3] -- r2
#	                           r1 -+
tb_parking()
{
	tb_switch sw1 && tb_switch sw2 && tb_switch sw3 || return 1
	tb_host h1 1 sw1 sw1-h1 && tb_host h2 2 sw1 sw1-h2 &&
		tb_host h3 3 sw2 sw2-h3 && tb_host r1 101 sw2 sw2-r1 &&
		tb_host r2 102 sw3 sw3-r2 || return 1
	tb_link sw1 sw1-up sw2 sw2-dn && tb_link sw2 sw2-up sw3 sw3-dn || return 1
	tb_learn h1:102 h2:101 h3:102
}

# tb_hotspot K: an input-generated hotspot (QCN-OS Fig. 2): h1 (the
# victim's source) and h2 (the culprit's) share an edge switch "in" whose
# uplink in-up is the shared input (the CP of the input buffer, e.g. qcn
# sched drr); the core switch sw has h3..hK and two outputs: sw-ra to ra
# (.101, the victim's destination, uncongested) and sw-rb to rb (.102,
# the hotspot, shared by h2..hK).  Linux bridges have no PFC: the hot
# output drops instead of pausing the input (see EXPERIMENTS.md).
#
#	h1 -+                          +- sw-ra --- ra
#	h2 -+- [in] - in-up --- sw-in -+- [sw]
#	               h3..hK ---------+- sw-rb --- rb (hotspot)
tb_hotspot()
{
	local k=$1 i
	tb_switch in && tb_switch sw || return 1
	tb_host h1 1 in in-h1 && tb_host h2 2 in in-h2 || return 1
	tb_link in in-up sw sw-in || return 1
	for i in $(seq 3 "$k"); do
		tb_host "h$i" "$i" sw "sw-h$i" || return 1
	done
	tb_host ra 101 sw sw-ra && tb_host rb 102 sw sw-rb || return 1
	# shellcheck disable=SC2046 # one argument per host
	tb_learn h1:101 $(for i in $(seq 2 "$k"); do printf 'h%d:102 ' "$i"; done)
}

# tb_ig K: the occupancy-sampling paper's input-generated hotspot (its
# Fig. 2) on one shared-buffer switch: h1 is the CNA of both the victim
# f1 (to ra, .101, an uncongested output) and the culprit f2 (to rb,
# .102, the hotspot); h3..hK send f3..fK to rb.  sw-h1 is the input f1
# and f2 share (its accounting: qcn pfc-xoff, cp input).
#
#	h1 (f1, f2) --- sw-h1 -+       +- sw-ra --- ra
#	                       +- [sw] -+
#	h3..hK -------- sw-hI -+       +- sw-rb --- rb (hotspot)
tb_ig()
{
	local k=$1 i
	tb_switch sw || return 1
	tb_host h1 1 sw sw-h1 || return 1
	for i in $(seq 3 "$k"); do
		tb_host "h$i" "$i" sw "sw-h$i" || return 1
	done
	tb_host ra 101 sw sw-ra && tb_host rb 102 sw sw-rb || return 1
	# shellcheck disable=SC2046 # one argument per host
	tb_learn h1:101 h1:102 $(for i in $(seq 3 "$k"); do printf 'h%d:102 ' "$i"; done)
}

# tb_blocking: the occupancy-sampling paper's internal blocking (its
# Fig. 8) as three switches: h1 is the CNA of f1 (to r1, .101, leaving
# sb at the line rate) and f2 (to r2, .102, crossing sb-up, the slower
# link between "supernodes").  sa's input sa-h1 is the fabric input (its
# VOQs: qcn pfc-xoff, cp input); sa-up -- sb-dn is the internal link f1
# and f2 share, where sb's input accounting pauses sa-up.
#
#	h1 (f1, f2) --- sa-h1 -[sa]- sa-up --- sb-dn -[sb]-+- sb-r1 --- r1
#	                                                   +- sb-up --- sc-dn -[sc]- sc-r2 --- r2
tb_blocking()
{
	tb_switch sa && tb_switch sb && tb_switch sc || return 1
	tb_host h1 1 sa sa-h1 && tb_host r1 101 sb sb-r1 &&
		tb_host r2 102 sc sc-r2 || return 1
	tb_link sa sa-up sb sb-dn && tb_link sb sb-up sc sc-dn || return 1
	tb_learn h1:101 h1:102
}

# tb_two_tier N M: two top-of-rack switches under a spine: h1..hN on tor1,
# r1..rM (.101..) on tor2; tor1-up and tor2-up to the spine (ports
# spine-t1, spine-t2).  Congestion points: spine-t2 (the spine's port to
# tor2) and tor2-rJ (the last hop).
#
#	             spine-t1 - [spine] - spine-t2 (CP)
#	                |                    |
#	             tor1-up              tor2-up
#	h1..hN --- [tor1]                 [tor2] - tor2-rJ (CP) --- r1..rM
tb_two_tier()
{
	local n=$1 m=$2 i
	tb_switch tor1 && tb_switch tor2 && tb_switch spine || return 1
	for i in $(seq 1 "$n"); do
		tb_host "h$i" "$i" tor1 "tor1-h$i" || return 1
	done
	for i in $(seq 1 "$m"); do
		tb_host "r$i" $((100 + i)) tor2 "tor2-r$i" || return 1
	done
	tb_link tor1 tor1-up spine spine-t1 && tb_link tor2 tor2-up spine spine-t2 || return 1
	# shellcheck disable=SC2046 # one argument per host
	tb_learn $(for i in $(seq 1 "$n"); do printf 'h%d:%d ' "$i" $((101 + (i - 1) % m)); done)
}

# udp_servers NS PORT...: the iperf3 servers udp_flow sends to in the
# guests (UML's udp_send needs none), one per PORT in NS; returns once
# they listen (tb_listening)
udp_servers()
{
	local ns=$1 p
	shift
	for p in "$@"; do
		nsbg "$ns" iperf3 -s -p "$p" >/dev/null 2>&1
	done
	tb_listening "$ns" "$@"
}

# share_gain_pct A1 A2 B1 B2: how many points flow 1's share of the
# counts grows from phase A (A1 of A1 + A2) to phase B (integer math)
share_gain_pct()
{
	echo $(($3 * 100 / ($3 + $4 + 1) - $1 * 100 / ($1 + $2 + 1)))
}

# tb_listening [-u] NS PORT...: wait until TCP servers (-u: UDP sockets)
# listen on PORT... in NS (a server started in the background on a loaded
# machine may take longer than a fixed sleep); 1 if one does not within 10 s
tb_listening()
{
	local ns=$1 p i opt=-Hltn
	[ "$ns" = -u ] && { opt=-Hlun; shift; ns=$1; }
	shift
	for p in "$@"; do
		for i in $(seq 100); do
			[ -n "$(ip netns exec "$TB-$ns" ss $opt "sport = :$p")" ] && continue 2
			sleep 0.1
		done
		ktap_info "nothing listens on $ns:$p"
		return 1
	done
}

# cnm_dump_bg NS FILE CNM_DUMP-ARGS...: selftests/cnm_dump in NS in the
# background, its output in FILE; returns once it listens (a cold start,
# libpcap and its libraries read from disk on a fresh machine, can take
# longer than a fixed sleep); 1, said, if it did not within 15 s.  Its pid
# is in TB_LAST_PID.
cnm_dump_bg()
{
	local ns=$1 out=$2 i
	shift 2
	nsbg "$ns" "$QCN_TOP/selftests/cnm_dump" "$@" > "$out"
	for i in $(seq 150); do
		grep -q '^# listening' "$out" 2>/dev/null && return 0
		kill -0 "$TB_LAST_PID" 2>/dev/null || break
		sleep 0.1
	done
	ktap_info "cnm_dump on $ns did not start"
	return 1
}

# pfc_overload NS DST SECONDS: NS sends 3 Mbit/s of priority 3 to
# $QCN_NET.DST port 7003 for SECONDS, in bursts of 10 datagrams of 1000 B
# (sleeps that overshoot cost a burst's gap, not a datagram's); prints how
# many datagrams it sent.  A frame keeps its socket's send buffer charged
# across veth until it is freed, wherever it is queued: with the default
# buffer (about 90 datagrams in flight) the socket blocks before a switch's
# 150 KB fill, so the sender's is 4 MB.
pfc_overload()
{
	nsx "$1" "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.$2" -p 7003 -P 3 -s 1000 \
		-k 10 -r 3mbit -t "$3" -B 4000000 | sed -n 's/^sent=\([0-9]*\).*/\1/p'
}

# udp_flow NS RATE SECONDS PORT SIZE [I]: a paced UDP flow from NS to r
# ($QCN_NET.100, or $QCN_NET.I) in the background, RATE in tc's units (60mbit).  iperf3 in the QEMU guests (what these
# tests were calibrated with); in User-Mode Linux, where a syscall per
# datagram caps iperf3 below the rates the tests offer (and far below with
# the debug kernel), udp_send batching its datagrams with UDP GSO.
udp_flow()
{
	if [ -n "${QCN_UML:-}" ]; then
		nsbg "$1" "$QCN_TOP/selftests/udp_send" -d "$QCN_NET.${6:-100}" -p "$4" -s "$5" \
			-r "$2" -t "$3" -g > /dev/null
	else
		nsbg "$1" iperf3 -c "$QCN_NET.${6:-100}" -u -b "${2%bit}" -t "$3" -l "$5" -p "$4" > /dev/null 2>&1
	fi
}

# tb_rp_pair [IP-LINK-OPTS...]: the reaction point testbed: sender a (eth0
# $QCN_NET.1, MAC $RP_A) and receiver b ($QCN_NET.100, MAC $RP_B) on one
# veth (IP-LINK-OPTS for both ends, e.g. numtxqueues 4), a knows b's MAC.
RP_A=02:00:00:00:00:01
RP_B=02:00:00:00:00:64
tb_rp_pair()
{
	tb_ns a && tb_ns b || return 1
	ip link add eth0 netns "$TB-a" "$@" type veth \
		peer name eth0 netns "$TB-b" "$@" || return 1
	ip -n "$TB-a" link set eth0 address $RP_A up
	ip -n "$TB-b" link set eth0 address $RP_B up
	ip -n "$TB-a" addr add "$QCN_NET.1/24" dev eth0
	ip -n "$TB-b" addr add "$QCN_NET.100/24" dev eth0
	ip -n "$TB-a" neigh add "$QCN_NET.100" lladdr $RP_B dev eth0
}

# tb_mac_of NS IF: the MAC address of IF in $TB-NS
tb_mac_of()
{
	ip -n "$TB-$1" -br link show dev "$2" | awk '{print $3}'
}

# share_pct PART TOTAL: PART as a percentage of TOTAL, one decimal (0 if
# TOTAL is 0)
share_pct()
{
	awk -v a="$1" -v t="$2" 'BEGIN { printf "%.1f", t ? 100 * a / t : 0 }'
}

# ref_pct PART REF: PART as a percentage of REF (another phase's figure),
# one decimal; "none", which no bound accepts, if REF is 0
ref_pct()
{
	awk -v a="$1" -v r="$2" 'BEGIN { if (r > 0) printf "%.1f", 100 * a / r; else print "none" }'
}

# rel_err_pct VALUE TARGET: |VALUE - TARGET| as a percentage of TARGET, one
# decimal; "inf", which no bound accepts, if TARGET is 0 and VALUE is not
rel_err_pct()
{
	awk -v v="$1" -v t="$2" 'BEGIN { d = v - t; if (d < 0) d = -d
		if (t > 0) printf "%.1f", 100 * d / t; else print (d == 0 ? "0.0" : "inf") }'
}

# percentiles P...: the P-th percentiles (nearest rank, 0 < P <= 100) of
# the numbers on standard input, on one line; "-" for each if there are none
percentiles()
{
	sort -g | awk -v ps="$*" 'BEGIN { n = split(ps, P, " ") } { a[NR] = $1 }
		END { for (i = 1; i <= n; i++) {
			k = int(NR * P[i] / 100) + 1; if (k > NR) k = NR
			printf "%s%s", (i > 1 ? " " : ""), (NR ? a[k] : "-") }
		      printf "\n" }'
}

# jain_rows W1 .. Wn: for each line X_1 .. X_n on standard input, Jain's
# fairness index of X_i / W_i, (sum y)^2 / (n sum y^2), three decimals: 1
# when every X_i is in proportion to its weight W_i, 1/n when one takes
# everything
jain_rows()
{
	awk -v ws="$*" 'BEGIN { n = split(ws, W, " ") }
		{ s = q = 0
		  for (i = 1; i <= n; i++) { y = $i / W[i]; s += y; q += y * y }
		  printf "%.3f\n", q ? s * s / (n * q) : 0 }'
}

# weighted_jain W1 X1 [W2 X2 ...]: jain_rows of one line
weighted_jain()
{
	local weights=() values=()
	while [ $# -ge 2 ]; do weights+=("$1"); values+=("$2"); shift 2; done
	echo "${values[*]}" | jain_rows "${weights[@]}"
}

# weight_share_checks KEY TOL SHARE...: the shares (% of their total) of
# flows with weights N, N-1, .., 1.  Reported: each share within +-TOL %
# of its target (targets KEY_wW).  Asserted (bounds KEY_jain, KEY_heavy,
# KEY_light): Jain's index of share/weight, and the heaviest and the
# lightest flow's shares, each halfway between its value at the weights'
# proportions and at equal shares, which is what the flows get when the
# weights are ignored.  Three results.
weight_share_checks()
{
	local key=$1 tol=$2 n i w sum t b args=() eq=()
	shift 2
	n=$#
	sum=$((n * (n + 1) / 2))
	for i in $(seq 1 "$n"); do
		w=$((n + 1 - i))
		t=$(awk -v w="$w" -v s="$sum" 'BEGIN { printf "%.1f", 100 * w / s }')
		ktap_target "${key}_w$w" "${!i}" in "$(awk -v t="$t" -v p="$tol" \
			'BEGIN { printf "%.1f:%.1f", t * (1 - p / 100), t * (1 + p / 100) }')" \
			"weight $w: ${!i} % (+-$tol % of $t %)"
		args+=("$w" "${!i}")
		eq+=("$w" "$(awk -v n="$n" 'BEGIN { print 100 / n }')")
	done
	b=$(awk -v e="$(weighted_jain "${eq[@]}")" 'BEGIN { printf "%.3f", (1 + e) / 2 }')
	t=$(weighted_jain "${args[@]}")
	ktap_bound "${key}_jain" "$t" '>=' "$b" "shares in proportion to the weights (Jain's index of share/weight $t >= $b)"
	b=$(awk -v n="$n" -v s="$sum" 'BEGIN { printf "%.1f", (100 * n / s + 100 / n) / 2 }')
	ktap_bound "${key}_heavy" "$1" '>=' "$b" "weight $n: $1 % (>= $b, halfway from equal shares to its target)"
	b=$(awk -v n="$n" -v s="$sum" 'BEGIN { printf "%.1f", (100 / s + 100 / n) / 2 }')
	ktap_bound "${key}_light" "${!n}" '<=' "$b" "weight 1: ${!n} % (<= $b, halfway from equal shares to its target)"
}

# ------------------------------------------------------------- tc helpers

# qdisc_xstat NS DEV KEY: one numeric field of `tc -s -j qdisc show`'s
# xstats for the root qdisc (python-free: jq is not assumed; uses grep).
qdisc_json()
{
	local ns=$1 dev=$2
	ip netns exec "$TB-$ns" tc -s -j qdisc show dev "$dev"
}

# jq: the CNMs a qcn qdisc sent (its xstats), all culprit-selection modes
QCN_JQ_CNMS='(.cnm_arrival + .cnm_occupancy + .cnm_two_samples)'

# cnm_phase DIR NAME SECONDS H...: the CNMs that reach each host H's eth0
# over the same SECONDS (cnm_dump, side by side), into DIR/NAME.H
cnm_phase()
{
	local dir=$1 name=$2 secs=$3 h pids=()
	shift 3
	for h in "$@"; do
		ip netns exec "$TB-$h" "$QCN_TOP/selftests/cnm_dump" -i eth0 -t "$secs" > "$dir/$name.$h" &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# cnms_from FILE MAC: how many CNMs of a cnm_dump FILE MAC sent
cnms_from()
{
	grep -c "^cnm src=$2 " "$1"
}

# qcn_cnms_sent NS DEV: the CNMs sent by the qcn root qdisc on DEV
qcn_cnms_sent()
{
	qdisc_json "$1" "$2" | jq -r ".[0] | $QCN_JQ_CNMS"
}

# json_num JSON KEY: first numeric value of "KEY": in JSON text.
json_num()
{
	printf '%s' "$1" | grep -o "\"$2\":-\?[0-9]*" | head -n1 | cut -d: -f2
}

# qcnstat_cols FILE COLUMN...: the named columns of a qcnstat CSV, found
# by the names in its header line, one tab-separated line per data row
# (RFC 4180 quotes undone: a device named l,o stays one field).  Fails
# naming a column the header does not have.
qcnstat_cols()
{
	local file=$1
	shift
	awk -v want="$*" "$(cat "$QCN_TOP/tools/qcnstat-csv.awk")"'
	NR == 1 {
		n = csv($0, h)
		for (i = 1; i <= n; i++)
			col[h[i]] = i
		nw = split(want, w, " ")
		for (j = 1; j <= nw; j++) {
			if (!(w[j] in col)) {
				print "qcnstat_cols: no column " w[j] " in " FILENAME > "/dev/stderr"
				bad = 1
				exit 1
			}
			idx[j] = col[w[j]]
		}
		next
	}
	{
		delete f
		csv($0, f)
		out = f[idx[1]]
		for (j = 2; j <= nw; j++)
			out = out "\t" f[idx[j]]
		print out
	}
	END { exit bad }' "$file"
}

# ktap_rejected NAME STATE-CMD CMD...: one KTAP point: CMD must fail, say
# why on stderr, and leave what STATE-CMD prints (a shell command line)
# unchanged -- bad input changes nothing.
ktap_rejected()
{
	local name=$1 state=$2 before after err rc
	shift 2
	before=$(eval "$state")
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	after=$(eval "$state")
	if [ $rc -eq 0 ]; then
		ktap_test_fail "$name: accepted"
	elif [ -z "$err" ]; then
		ktap_test_fail "$name: no error message"
	elif [ "$after" != "$before" ]; then
		ktap_test_fail "$name: changed" "before='$before' after='$after'"
	else
		ktap_test_pass "$name: rejected ($(head -n1 <<<"$err" | cut -c1-70))"
	fi
}

# Kernel log since the test started: fail on oops / warnings.
qcn_dmesg_mark()
{
	__dmesg_lines=$(dmesg 2>/dev/null | wc -l)
}

# ... judged by scripts/kernel-log-check (its reports are printed), the same
# judge as vm-run's and uml-run's, with the same list of known reports of
# the test kernels themselves
qcn_dmesg_clean()
{
	local f rc
	f=$(mktemp)
	dmesg 2>/dev/null | tail -n +"$((${__dmesg_lines:-0} + 1))" > "$f"
	"$QCN_TOP/scripts/kernel-log-check" "$f" | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	rm -f "$f"
	return "$rc"
}

# the last check of a test: the kernel logged no warning since qcn_dmesg_mark
kernel_log()
{
	ktap_check "no kernel warnings" qcn_dmesg_clean
}
test_checks kernel_log 1
