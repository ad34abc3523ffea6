#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qcn's memory follows what it runs: an instance with FIFO and AF off (each
# TX queue's under mq, say) carries neither the DRR flow table nor the AF
# tables; sched drr and af on allocate them, and deleting the qdiscs gives
# everything back.  Measured over N instances on one mq device.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules sch_qcn
N=256

# KiB the kernel holds in kmalloc (large ones included) and vmalloc: what
# kvzalloc() takes from.  Not MemFree, which also moves with the per-CPU
# page lists.
used_kb()
{
	awk '/^SUnreclaim:/ {s = $2} /^VmallocUsed:/ {v = $2}
	     END {print s + v}' /proc/meminfo
}

# qdisc VERB KIND OPTS... on every TX queue of d0, in one tc -batch
on_queues()
{
	local verb=$1 i

	shift
	for i in $(seq 1 $N); do
		printf 'qdisc %s dev d0 parent 1:%x %s\n' "$verb" "$i" "$*"
	done | nsx a tc -batch -
}

# KiB per instance between two readings
per_instance() { echo $(( ($2 - $1) / N )); }
# less than 8 KiB per instance left over the first reading
freed() { [ $(( $(used_kb) - u0 )) -lt $((N * 8)) ]; }

test_checks memory 6
memory()
{
	# a small qdisc in place first: what mq created per queue is freed here,
	# not inside the measurement
	on_queues replace pfifo limit 10
	on_queues replace pfifo limit 10
	u0=$(used_kb)
	on_queues replace qcn
	n=$(nsx a tc -j qdisc show dev d0 | jq '[.[] | select(.kind == "qcn")] | length')
	ktap_check "qcn on each of $N TX queues ($n)" test "$n" = $N
	u1=$(used_kb)
	fifo=$(per_instance "$u0" "$u1")
	ktap_info "qcn, FIFO and AF off: $fifo KiB per instance"
	# the DRR flow table and index take ~132 KiB, the AF tables ~128 KiB
	# (kmalloc rounds them to powers of two); an instance without them is
	# ~8 KiB, ~34 under the debug kernel (KASAN, lockdep, debug objects)
	ktap_bound fifo_kib "$fifo" '<' 64 "a FIFO qcn without AF allocates no flow or AF table ($fifo KiB)"

	on_queues change qcn sched drr
	u2=$(used_kb)
	drr=$(per_instance "$u1" "$u2")
	ktap_info "sched drr: $drr KiB more per instance"
	# 1024 flows of 72 bytes and their 4 KiB index; nothing: not allocated
	ktap_bound drr_kib "$drr" '>=' 48 "sched drr allocates the flow table ($drr KiB)"

	# ts 1s: 256 AF timers at the default 1 ms would keep a one-CPU testbed
	# (UML) in softirq
	on_queues change qcn af on ts 1s
	u3=$(used_kb)
	af=$(per_instance "$u2" "$u3")
	ktap_info "af on: $af KiB more per instance"
	# 1024 buckets of 48 bytes and a 5120-entry update vector
	ktap_bound af_kib "$af" '>=' 48 "af on allocates the AF tables ($af KiB)"

	# off and back to FIFO keeps the tables; on again allocates nothing more
	on_queues change qcn af off sched fifo
	on_queues change qcn af on ts 1s sched drr
	u4=$(used_kb)
	again=$(per_instance "$u3" "$u4")
	ktap_bound again_kib "$again" '<' 8 "switching back and forth allocates nothing more ($again KiB)"

	# the device and its qdiscs go (their Qdisc structs after an RCU grace
	# period); deleting only the root would attach default qdiscs
	nsx a ip link del d0
	busywait 10000 freed
	left=$(( ($(used_kb) - u0) / N ))
	ktap_bound left_kib "$left" '<' 8 "deleting the qdiscs gives the memory back ($left KiB per instance left)"
}

ALL_TESTS="memory"
tests_plan kernel_log
qcn_dmesg_mark
tb_init
tb_ns a || ktap_skip_all "cannot create a namespace"
nsx a ip link add d0 numtxqueues $N type dummy
nsx a ip link set d0 up
nsx a tc qdisc add dev d0 root handle 1: mq

tests_run
kernel_log
tb_cleanup
ktap_finished
