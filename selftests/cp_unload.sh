#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Teardown while traffic flows and CNMs are in flight: qdisc delete and
# re-add, module unload and reload, and deleting the namespace that holds an
# active qcn (pernet exit, pending CNM work).  No oops, no warning.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd iperf3 jq
qcn_require_modules sch_qcn

# cnms_flowing: the CP has sent a CNM
cnms_flowing() { local n; n=$(qcn_cnms_sent sw sw-pr); echo "$n"; [ "${n:-0}" -gt 0 ]; }
# passing DEV: the qcn root of DEV has sent frames
passing() { [ "$(qdisc_json sw "$1" | jq '.[0].packets')" -gt 100 ]; }

# the qcn every teardown phase starts from, under traffic with CNMs
test_checks setup 1
setup()
{
	udp_servers r 5201 5202
	nsx sw tc qdisc add dev sw-pr root handle 1: qcn rate 30mbit sched drr \
		sample occupancy keepalive 1ms
	udp_flow h1 40mbit 9 5201 1200
	udp_flow h2 40mbit 9 5202 1200
	cnms=$(busywait 10000 cnms_flowing)
	ktap_check "CNMs flowing before the teardown ($cnms)" test "${cnms:-0}" -gt 0
}

test_checks qdisc_readd 2
qdisc_readd()
{
	ktap_check "qdisc delete under traffic" nsx sw tc qdisc del dev sw-pr root
	ktap_check "qdisc re-add under traffic" nsx sw tc qdisc add dev sw-pr root handle 1: \
		qcn rate 30mbit sample two-samples keepalive 1ms
	busywait 10000 passing sw-pr || ktap_info "the re-added qcn passed no traffic within 10 s"
}

test_checks module_reload 3
module_reload()
{
	nsx sw tc qdisc del dev sw-pr root
	ktap_check "module unload while traffic flows" qcn_unload sch_qcn
	ktap_check "module reload and attach under traffic" nsx sw tc qdisc add dev sw-pr root \
		handle 1: qcn rate 30mbit sample arrival keepalive 1ms
	nsx sw tc qdisc add dev sw-p1 root handle 1: tbf rate 50mbit burst 20kb latency 20ms
	ktap_check "qcn as a tbf child under traffic" nsx sw tc qdisc add dev sw-p1 parent 1: qcn rate 40mbit
	busywait 10000 passing sw-pr || ktap_info "the reloaded qcn passed no traffic within 10 s"
}

test_checks netns_delete 2
netns_delete()
{
	ktap_check "deleting the namespace with active qcn instances" ip netns del "$TB-sw"
	tb_cleanup
	ktap_check "module unloads after the namespaces are gone" qcn_unload sch_qcn
}

ALL_TESTS="qdisc_readd module_reload netns_delete"
tests_plan setup kernel_log
qcn_dmesg_mark
tb_init
tb_star 2 || ktap_skip_all "cannot build the testbed"

setup
tests_run
kernel_log
ktap_finished
