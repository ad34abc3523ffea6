#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Wireshark dissector (tools/wireshark/qcn.lua) agrees with the
# project's codec (include/qcn/qcn_cnm.h, through cnm_dump) field for field
# on the CNMs a congested qcn port sends (captured on h1 and h2, with the
# encapsulated IPv4/UDP header), on crafted CNMs at every field's edges, on
# every malformed kind (same error code) and on CN-TAG frames; on a
# lossless port, CNMs beside 802.1Qbb PFC frames on one capture (stock
# tshark decodes PFC); installed by `make install-wireshark`, tshark finds
# it without -X.
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd tshark tcpdump mergecap python3 jq
qcn_require_modules sch_qcn
DUMP="$QCN_TOP/selftests/cnm_dump"
SEND="$QCN_TOP/selftests/udp_send"
LUA="$QCN_TOP/tools/wireshark/qcn.lua"
qcn_require_built "$DUMP" "$SEND"
TMP=$(mktemp -d)
trap 'tb_cleanup; rm -rf "$TMP"' EXIT
: >"$TMP/ts.err"

# tshark ARGS...: with the dissector; stderr into $TMP/ts.err without the
# warning tshark always prints as root ("Running as user "root" ...")
ts()
{
	local rc
	HOME="$TS_HOME" tshark "${TS_LOAD[@]}" "$@" 2>"$TMP/ts.err1"
	rc=$?
	grep -v '^Running as user "root" and group "root"' "$TMP/ts.err1" >>"$TMP/ts.err"
	return $rc
}

# A copy of the dissector installed for this user or system-wide is loaded
# by every tshark: loading the tree's copy as well would register "cnm"
# twice.  Test the installed one if it is this tree's, else say so.
TS_HOME=$HOME
TS_LOAD=(-X "lua_script:$LUA")
installed=""
folders=$(tshark -G folders 2>/dev/null)
while IFS=$'\t' read -r what dir; do
	case "$what" in
	*"Lua Plugins:") ;;
	*) continue ;;
	esac
	dir=${dir#"${dir%%[![:space:]]*}"}
	for f in "$dir"/*.lua; do
		grep -qs 'Proto("cnm"' "$f" && installed=$f
	done
done <<<"$folders"
if [ -n "$installed" ]; then
	cmp -s "$installed" "$LUA" ||
		ktap_skip_all "$installed differs from tools/wireshark/qcn.lua (make install-wireshark)"
	TS_LOAD=()
fi

qcn_dmesg_mark
tb_init
tb_star 2 || ktap_skip_all "cannot build the testbed"
tb_ns ca && tb_ns cb && tb_veth ca eth0 cb eth0 || ktap_skip_all "cannot build the testbed"

PORT_MAC=$(ip -n "$TB-sw" -br link show dev sw-pr | awk '{print $3}')

# capture NS IF FILE FILTER: tcpdump in the background, returns once it
# listens.  --immediate-mode: libpcap's default TPACKET_V3 ring hands frames
# over per block (or after 1 s), and tcpdump stopped by SIGINT drops what
# it has not been handed yet.
capture()
{
	nsbg "$1" tcpdump -Z root -U --immediate-mode -n -i "$2" -w "$3" "$4" 2>"$3.log"
	for _ in $(seq 1 300); do
		grep -q "listening on" "$3.log" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

stop_captures()	# PID...
{
	kill -INT "$@" 2>/dev/null
	wait "$@" 2>/dev/null
}

# tshark -T fields -> cnm_dump -V's line format (cnm_dump.c), one per CNM:
#   cnm src= dst= vlan=VID|none [pcp= tpid=] ver= qfb= cpid= qoff= qdelta=
#   prio= edst= msdu_len= msdu= [inner=ipv4 isrc= idst= proto= sport= dport=
#   ipcsum=], or bad src= dst= err= len= (octets from the CNM's EtherType on)
FIELDS=()
for f in eth.src eth.dst frame.len cnm.error cnm.version cnm.qfb cnm.cpid cnm.qoffset \
	 cnm.qdelta cnm.prio cnm.encap_dst cnm.msdu_len cnm.msdu ip.src ip.dst ip.proto \
	 udp.srcport udp.dstport tcp.srcport tcp.dstport ip.checksum.status \
	 vlan.id vlan.priority eth.type ieee8021ad.id ieee8021ad.priority; do
	FIELDS+=(-e "$f")
done
ts_lines()	# PCAP
{
	ts -n -o ip.check_checksum:TRUE -r "$1" -Y cnm -T fields "${FIELDS[@]}" |
	awk -F'\t' '
	{	# VLAN tags: cnm_dump shows the outer one (tshark: an 802.1ad
		# outer tag is ieee8021ad.*, 802.1Q ones vlan.*), decodes after all
		tags = ($22 == "" ? 0 : split($22, vid, ",")) + ($25 == "" ? 0 : 1)
		split($23, pcp, ",")
		if ($25 != "")
			vlan = sprintf("vlan=%s pcp=%s tpid=%s", $25, $26, $24)
		else if (tags)
			vlan = sprintf("vlan=%s pcp=%s tpid=%s", vid[1], pcp[1], $24)
		else
			vlan = "vlan=none"
	}
	$4 != "" { printf "bad src=%s dst=%s err=%s len=%d\n", $1, $2, $4, $3 - 14 - 4 * tags; next }
	{
		l = sprintf("cnm src=%s dst=%s %s ver=%s qfb=%s cpid=%s qoff=%s qdelta=%s prio=%s edst=%s msdu_len=%s msdu=%s",
			    $1, $2, vlan, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		if ($14 != "") {
			l = l sprintf(" inner=ipv4 isrc=%s idst=%s proto=%s", $14, $15, $16)
			if ($17 != "")
				l = l sprintf(" sport=%s dport=%s", $17, $18)
			else if ($19 != "")
				l = l sprintf(" sport=%s dport=%s", $19, $20)
			l = l " ipcsum=" ($21 == 1 ? "ok" : "bad")
		}
		print l
	}'
}

dump_lines()	# PCAP
{
	"$DUMP" -V -r "$1" | grep -E '^(cnm|bad) '
}

# same FILE1 FILE2 WHAT: equal and not empty, else the first differences
same()
{
	[ -s "$1" ] || { ktap_info "$3: nothing decoded"; return 1; }
	diff "$1" "$2" >"$TMP/diff" && return 0
	ktap_info "$3: codec (<) and tshark (>) differ:"
	head -n 8 "$TMP/diff" | sed 's/^/#   /'
	return 1
}

# ------------------------------------------------- CNMs of a congested port
test_checks congested 5
congested()
{
	nsx sw tc qdisc add dev sw-pr root handle 1: qcn limit 150000 qeq 26000 w 2 \
		rate 30mbit cpid 0x1234
	capture h1 eth0 "$TMP/h1.pcap" "ether proto 0x22e7" && p1=$TB_LAST_PID &&
	capture h2 eth0 "$TMP/h2.pcap" "ether proto 0x22e7" && p2=$TB_LAST_PID ||
		ktap_skip_all "tcpdump does not start"
	rxdrop() { nsx "$1" ip -s -j link show dev eth0 | jq '.[0].stats64.rx.dropped // 0'; }
	drop0=$(( $(rxdrop h1) + $(rxdrop h2) ))
	nsbg h1 "$SEND" -d "$QCN_NET.100" -p 5201 -s 1200 -r 40000000 -t 4 >/dev/null
	s1=$TB_LAST_PID
	nsbg h2 "$SEND" -d "$QCN_NET.100" -p 5202 -s 1200 -r 40000000 -t 4 >/dev/null
	wait "$s1" "$TB_LAST_PID" 2>/dev/null
	# the port's queue is empty (no CNM to come) and every CNM it sent is on a
	# capture or counted in the hosts' rx dropped
	ncap() { "$DUMP" -r "$1" 2>/dev/null | grep -c '^cnm '; }
	cnms_in()
	{
		[ "$(qdisc_json sw sw-pr | jq '.[0].backlog')" -eq 0 ] &&
		[ $(( $(ncap "$TMP/h1.pcap") + $(ncap "$TMP/h2.pcap") + $(rxdrop h1) + $(rxdrop h2) - drop0 )) \
			-ge "$(qcn_cnms_sent sw sw-pr)" ]
	} 2>/dev/null
	busywait 10000 cnms_in > /dev/null
	stop_captures "$p1" "$p2"
	mergecap -F pcap -a -w "$TMP/cp.pcap" "$TMP/h1.pcap" "$TMP/h2.pcap"
	dump_lines "$TMP/cp.pcap" >"$TMP/cp.codec"
	ts_lines "$TMP/cp.pcap" >"$TMP/cp.tshark"
	n1=$("$DUMP" -r "$TMP/h1.pcap" | grep -c '^cnm ')
	n2=$("$DUMP" -r "$TMP/h2.pcap" | grep -c '^cnm ')
	sent=$(qcn_cnms_sent sw sw-pr)
	ktap_info "CNMs captured: h1 $n1, h2 $n2 (the port sent $sent;" \
		"tcpdump: $(grep -h 'dropped by kernel' "$TMP/h1.pcap.log" "$TMP/h2.pcap.log" | tr '\n' ' '))"
	# a CNM the receiving veth dropped (its CPU's backlog full: one CPU
	# carries every namespace's traffic under UML) was sent but is not on
	# the capture; those are counted in eth0's rx dropped
	lost=$(( $(rxdrop h1) + $(rxdrop h2) - drop0 ))
	ktap_check "no more CNMs captured on h1 ($n1) and h2 ($n2) than the port sent ($sent)" \
		test "$n1" -gt 0 -a "$n2" -gt 0 -a "$((n1 + n2))" -le "$sent"
	ktap_bound cnm_capture_loss $((sent - n1 - n2 - lost)) '<=' "$(cnm_loss_allowance "$sent")" \
		"the port's CNMs were captured or dropped by the hosts' eth0 ($lost)"
	ktap_check "tshark decodes the $((n1 + n2)) captured CNMs exactly as the codec" \
		same "$TMP/cp.codec" "$TMP/cp.tshark" "port CNMs"

	# the hosts' own UDP streams, as tshark dissects the encapsulated MSDU
	inner_ok()	# HOSTMAC HOSTIP DPORT: >= 95 % of the host's CNMs carry its stream
	{
		awk -v hm="$1" -v hip="$2" -v dp="$3" -v pm="$PORT_MAC" \
		    -v cpid="$(echo "$PORT_MAC" | tr -d :)1234" -v rip="$QCN_NET.100" '
		$2 != hm { next }
		{ n++ }
		$1 == pm && $3 == cpid && $4 == hip && $5 == rip && $6 == 17 && $7 == dp && $8 == "0x0800" { ok++ }
		END { printf "# %s: %d of %d CNMs carry %s -> %s:%s\n", hm, ok, n, hip, rip, dp
		      exit !(n > 0 && ok * 100 >= n * 95) }' "$TMP/cp.inner"
}
ts -n -r "$TMP/cp.pcap" -Y cnm -T fields -e eth.src -e eth.dst -e cnm.cpid -e ip.src \
	-e ip.dst -e ip.proto -e udp.dstport -e cnm.msdu.etype >"$TMP/cp.inner"
ktap_check "tshark shows h1's IPv4/UDP stream (to port 5201) inside its CNMs" \
	inner_ok 02:00:00:00:00:01 "$QCN_NET.1" 5201
ktap_check "tshark shows h2's IPv4/UDP stream (to port 5202) inside its CNMs" \
	inner_ok 02:00:00:00:00:02 "$QCN_NET.2" 5202
}

# --------------------------------------------- CNMs beside PFC frames
# h1 offers 3 Mbit/s of priority 3 into a 1 Mbit/s port; sw-p1 pauses h1
# (pfc-xoff 110 KB, pfc-xon 44 KB) while the port's CP samples h1's frames
# and sends it CNMs: both kinds reach h1 on one link
test_checks pfc 3
pfc()
{
	local p n_pfc n_cnm n_all
	nsx h1 tc qdisc replace dev eth0 root qcn rate 10mbit limit 2000000 pfc &&
	nsx sw tc qdisc replace dev sw-p1 root qcn rate 10mbit pfc-xoff 110000 pfc-xon 44000 &&
	nsx sw tc qdisc del dev sw-pr root &&
	nsx sw tc qdisc add dev sw-pr root qcn rate 1mbit limit 150000 ||
		ktap_skip_all "cannot set up PFC"
	capture h1 eth0 "$TMP/pfc.pcap" "ether proto 0x22e7 or ether proto 0x8808" ||
		ktap_skip_all "tcpdump does not start"
	p=$TB_LAST_PID
	pfc_overload h1 100 2 > /dev/null
	# sw-p1's pause frames (every priority) and sw-pr's CNMs
	pauses() { qdisc_json sw sw-p1 | jq '.[0] | (.pfc_xoff_sent + .pfc_xon_sent) | add'; }
	npcap() { tcpdump -Z root -n -q -r "$TMP/pfc.pcap" "$1" 2>/dev/null | wc -l; }
	drained()
	{
		[ "$(qdisc_json sw sw-pr | jq '.[0].backlog')" -eq 0 ] &&
		[ "$(qdisc_json h1 eth0 | jq '.[0].backlog')" -eq 0 ] &&
		[ "$(npcap "ether proto 0x8808")" -ge "$(pauses)" ] &&
		[ "$(npcap "ether proto 0x22e7")" -ge "$(qcn_cnms_sent sw sw-pr)" ]
	} 2>/dev/null
	busywait 30000 drained > /dev/null
	stop_captures "$p"
	n_pfc=$(ts -n -r "$TMP/pfc.pcap" -Y "macc.opcode == 0x0101 && eth.src == $(tb_mac_of sw sw-p1)" | wc -l)
	n_cnm=$(ts -n -r "$TMP/pfc.pcap" -Y cnm | wc -l)
	n_all=$(ts -n -r "$TMP/pfc.pcap" | wc -l)
	ktap_info "h1's capture: $n_all frames, $n_pfc PFC (sw-p1 sent $(pauses))," \
		"$n_cnm CNMs (sw-pr sent $(qcn_cnms_sent sw sw-pr))"
	ktap_check "tshark decodes sw-p1's $(pauses) pause frames as PFC ($n_pfc)" \
		test "$n_pfc" -gt 0 -a "$n_pfc" -eq "$(pauses)"
	ktap_check "and the CNMs among them with the dissector ($n_cnm), every frame one or the other ($n_all)" \
		test "$n_cnm" -gt 0 -a "$((n_pfc + n_cnm))" -eq "$n_all"
	dump_lines "$TMP/pfc.pcap" >"$TMP/pfc.codec"
	ts_lines "$TMP/pfc.pcap" >"$TMP/pfc.tshark"
	ktap_check "tshark decodes those CNMs exactly as the codec" \
		same "$TMP/pfc.codec" "$TMP/pfc.tshark" "CNMs beside PFC"
}

# --------------------------------------- crafted CNMs and CN-TAG frames
# (then the installed dissector reads their capture)
test_checks crafted 7
crafted()
{
	capture cb eth0 "$TMP/craft.pcap" "ether proto 0x22e7 or ether proto 0x22e9 or vlan" ||
		ktap_skip_all "tcpdump does not start"
	p=$TB_LAST_PID
	out=$(nsx ca python3 "$QCN_TOP/selftests/cn_frames.py" eth0 \
		"$(nsx cb cat /sys/class/net/eth0/address)" 02:00:00:00:00:7e)
	# the capture holds every frame sent (CNMs and CN-TAG frames)
	crafted_in()
	{
		local n=$(($(sed -n 's/^sent CNM=\([0-9]*\) CNTAG=\([0-9]*\).*/\1 + \2/p' <<<"$out")))
		[ "$(tcpdump -Z root -n -r "$TMP/craft.pcap" 2>/dev/null | wc -l)" -ge "$n" ]
}
busywait 10000 crafted_in > /dev/null
stop_captures "$p"
ktap_info "cn_frames.py: $out"
dump_lines "$TMP/craft.pcap" >"$TMP/craft.codec"
ts_lines "$TMP/craft.pcap" >"$TMP/craft.tshark"
nc=$(grep -c '^cnm ' "$TMP/craft.codec")
nb=$(grep -c '^bad ' "$TMP/craft.codec")
want=$(sed -n 's/^sent CNM=\([0-9]*\).*/\1/p' <<<"$out")
ktap_check "all $want crafted CNMs captured ($nc valid, $nb malformed)" \
	test "$((nc + nb))" -eq "${want:-0}" -a "$nc" -gt 0 -a "$nb" -gt 0
ktap_check "tshark agrees with the codec on every field of the crafted CNMs" \
	same "$TMP/craft.codec" "$TMP/craft.tshark" "crafted CNMs"
errs=$(grep -o 'err=-[0-9]' "$TMP/craft.tshark" | sort -u | tr '\n' ' ')
prios=$(grep -o ' prio=[0-7]' "$TMP/craft.tshark" | sort -u | wc -l)
tagged=$(grep -c ' vlan=[0-9]' "$TMP/craft.tshark")
ktap_check "the crafted set covers every decoder error ($errs), all 8 priorities, VLAN tags ($tagged)" \
	test "$errs" = "err=-1 err=-2 err=-3 err=-4 err=-5 " -a "$prios" -eq 8 -a "$tagged" -eq 2

ts -n -r "$TMP/craft.pcap" -Y cntag -T fields -e cntag.flowid -e cntag.etype \
	-e ip.src -e ip.dst -e udp.srcport -e udp.dstport -e udp.length >"$TMP/cntag"
printf '0xbeef\t0x0800\t198.18.0.7\t198.18.0.8\t4242\t4343\t108\n0x0001\t0x88b5\t\t\t\t\t\n' \
	>"$TMP/cntag.want"
ktap_check "CN-TAG: Flow ID and EtherType, then the IPv4/UDP frame behind it" \
	same "$TMP/cntag.want" "$TMP/cntag" "CN-TAG"

ktap_check "tshark ran without errors (its root warning aside)" test ! -s "$TMP/ts.err"
[ -s "$TMP/ts.err" ] && head -n 5 "$TMP/ts.err" | sed 's/^/# tshark: /'

# ------------------------------------------ installed where tshark looks
if [ -n "$installed" ]; then
	ktap_test_pass "installed dissector found by tshark # SKIP already installed: $installed"
	ktap_test_pass "make uninstall-wireshark # SKIP already installed: $installed"
else
	TS_HOME="$TMP/home"
	TS_LOAD=()
	plug="$TS_HOME/.local/lib/wireshark/plugins"
	make -s -C "$QCN_TOP" install-wireshark WIRESHARK_LUA_DIR="$plug" >/dev/null
	n=$(ts -n -r "$TMP/craft.pcap" -Y "cnm || cntag" | wc -l)
	ktap_check "make install-wireshark: tshark finds the dissector in $plug ($n frames)" \
		test -f "$plug/qcn.lua" -a "$n" -eq "$((want + 2))" -a ! -s "$TMP/ts.err"
	make -s -C "$QCN_TOP" uninstall-wireshark WIRESHARK_LUA_DIR="$plug" >/dev/null
	ktap_check "make uninstall-wireshark removes it" test ! -e "$plug/qcn.lua"
fi
}

ALL_TESTS="congested pfc crafted"
tests_plan kernel_log
tests_run
kernel_log
ktap_finished
