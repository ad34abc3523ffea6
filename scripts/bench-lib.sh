# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# pktgen helpers shared by scripts/bench-cp and scripts/bench-rp (sourced).
# Every run is xmit_mode queue_xmit (through the device's qdisc) from
# kpktgend_0, UDP from SRC to DST, source ports SPMIN..SPMAX (at random
# with RND=1, else in turn), destination port 9.

# bench_pg_setup NS DEV PKT_SIZE COUNT SRC DST SMAC DMAC SPMIN SPMAX RND
# (SPMAX inclusive: pktgen's own udp_src_max is exclusive in both modes)
bench_pg_setup()
{
	local ns=$1 dev=$2 d=/proc/net/pktgen flag='' spmax=${10}
	[ "${11}" = 1 ] && flag="flag UDPSRC_RND"
	[ "$spmax" -gt "$9" ] && spmax=$((spmax + 1))
	ip netns exec "$ns" sh -c "echo rem_device_all > $d/kpktgend_0
		echo 'add_device $dev' > $d/kpktgend_0
		for c in 'pkt_size $3' 'count $4' 'delay 0' 'xmit_mode queue_xmit' \
			 'src_min $5' 'src_max $5' 'dst $6' 'src_mac $7' 'dst_mac $8' \
			 'udp_src_min $9' 'udp_src_max $spmax' 'udp_dst_min 9' \
			 'udp_dst_max 9' '$flag'; do
			[ -n \"\$c\" ] || continue
			echo \"\$c\" > $d/$dev ||
				echo \"bench: pktgen '\$c' on $dev failed\" >&2
		done"
}

# bench_pg_run NS: run the configured device to its COUNT (COUNT > 0)
bench_pg_run()
{
	ip netns exec "$1" sh -c "echo start > /proc/net/pktgen/pgctrl"
}

# bench_pg_start NS DEV / bench_pg_stop NS: run in the background until
# stopped.  Start returns once the device runs: a stop that reached
# pktgen's thread before its start would be lost (count 0 runs forever).
bench_pg_start()
{
	local i
	ip netns exec "$1" sh -c "echo start > /proc/net/pktgen/pgctrl" &
	BENCH_PG_PID=$!
	for ((i = 0; i < 500; i++)); do
		ip netns exec "$1" grep -q "^Running:.*\<$2\>" /proc/net/pktgen/kpktgend_0 && return 0
		sleep 0.01
	done
	echo "bench: pktgen on $2 did not start" >&2
}

bench_pg_stop()
{
	local i
	for ((i = 0; i < 100; i++)); do
		ip netns exec "$1" sh -c "echo stop > /proc/net/pktgen/pgctrl"
		kill -0 "$BENCH_PG_PID" 2>/dev/null || break
		sleep 0.1
		kill -0 "$BENCH_PG_PID" 2>/dev/null || break
	done
	wait "$BENCH_PG_PID" 2>/dev/null
}

# bench_pg_offered NS DEV: frames offered per second by the last run
# (sent + errors: a frame the qdisc dropped is work done too)
bench_pg_offered()
{
	local res us sent errs
	res=$(ip netns exec "$1" cat "/proc/net/pktgen/$2")
	us=$(sed -n 's/^Result: OK: \([0-9]*\)(.* usec, \([0-9]*\) .*/\1/p' <<<"$res")
	sent=$(sed -n 's/^Result: OK: \([0-9]*\)(.* usec, \([0-9]*\) .*/\2/p' <<<"$res")
	errs=$(grep -o 'errors: [0-9]*' <<<"$res" | tail -n1 | tr -dc 0-9)
	if [ -z "$us" ] || [ "$us" -eq 0 ]; then
		echo 0
		return
	fi
	echo $(( (sent + ${errs:-0}) * 1000000 / us ))
}

# bench_prio_root NS DEV: a prio root (handle 1:, every priority to band
# 1:1) under which a benchmark's row is the one leaf.  At the root, pfifo
# and fq_codel set TCQ_F_CAN_BYPASS and, into an idle device, are never
# called at all; under prio every row is enqueued and dequeued per frame.
bench_prio_root()
{
	ip netns exec "$1" tc qdisc add dev "$2" root handle 1: prio bands 2 \
		priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
}

# bench_pg_timed NS DEV SECS: run for SECS, print frames offered per second
# BENCH_MARK (scripts/bench-profile): a file that names the row while its
# pktgen runs, so that a profiler outside the guest samples that row only.
bench_pg_timed()
{
	bench_pg_start "$1" "$2"
	[ -n "${BENCH_MARK:-}" ] && echo "${BENCH_ROW:-}" > "$BENCH_MARK"
	sleep "$3"
	[ -n "${BENCH_MARK:-}" ] && rm -f "$BENCH_MARK"
	bench_pg_stop "$1"
	bench_pg_offered "$1" "$2"
}

# bench_median: the median of the numbers on stdin (one per word)
bench_median()
{
	tr ' ' '\n' | grep . | sort -g |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'
}
