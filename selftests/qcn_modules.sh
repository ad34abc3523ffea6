#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Both modules load, register their qdisc kinds (also by autoload), attach
# to and detach from a device, and unload cleanly; sch_qcn loads without
# bridge.ko.
source "$(dirname "$0")/lib.sh"
qcn_require_root

test_checks lifecycle 6
lifecycle()
{
	tb_init
	tb_ns a
	nsx a ip link add d0 type dummy
	nsx a ip link set d0 up

	ktap_check "qcn attaches (module autoloaded)" nsx a tc qdisc add dev d0 root handle 1: qcn
	ktap_check "sch_qcn is loaded" grep -q '^sch_qcn ' /proc/modules
	ktap_check "qcn shows as root qdisc" bash -c "ip netns exec $TB-a tc qdisc show dev d0 | grep -q '^qdisc qcn 1: root'"
	ktap_check "qcn_rp replaces it (module autoloaded)" nsx a tc qdisc replace dev d0 root handle 2: qcn_rp
	ktap_check "rp_limiter is loaded" grep -q '^rp_limiter ' /proc/modules
	nsx a tc qdisc del dev d0 root
	tb_cleanup
	ktap_check "both modules unload" qcn_unload sch_qcn rp_limiter
}

# with the modules unloaded (by the rmmod at the start, and by lifecycle)
test_checks without_bridge 2
without_bridge()
{
	# sch_qcn resolves the bridge's VLAN helpers when a CNM first leaves by a
	# bridge port: loading it does not load bridge.ko
	rmmod bridge 2>/dev/null
	if grep -q '^bridge ' /proc/modules; then
		ktap_test_skip "sch_qcn loads without bridge.ko" "bridge.ko is in use"
	elif grep -qw br_vlan_enabled /proc/kallsyms; then
		ktap_test_skip "sch_qcn loads without bridge.ko" "the bridge is built into this kernel"
	else
		ktap_check "sch_qcn loads without bridge.ko" \
			bash -c "modprobe sch_qcn && ! grep -q '^bridge ' /proc/modules"
	fi
	ktap_check "modules reload" bash -c "modprobe sch_qcn && modprobe rp_limiter"
}

ALL_TESTS="lifecycle without_bridge"
tests_plan kernel_log
qcn_dmesg_mark

rmmod sch_qcn rp_limiter 2>/dev/null

# the kernel loads the modules on demand (request_module net-sch-<kind>)
if [ -z "${TC_LIB_DIR:-}" ] && [ ! -f /usr/lib/x86_64-linux-gnu/tc/q_qcn.so ] &&
   [ -f "$QCN_TOP/tc-plugin/q_qcn.so" ]; then
	export TC_LIB_DIR="$QCN_TOP/tc-plugin"
fi
tests_run
kernel_log
ktap_finished
