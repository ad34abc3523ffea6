#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The examples of README's "Examples" section (its ```sh blocks) and of the
# man pages' EXAMPLES (their .nf blocks, roff undone), read from those files
# at run time, run as written on `scripts/topology up dumbbell 2`.  Each is
# two results: every command exits 0 (124 for one cut while it runs for its
# stated time), and it does what it says (the qdiscs, classes, filters it
# adds; the CNMs, rows, JSON, PNG it prints or writes).
source "$(dirname "$0")/lib.sh"
qcn_require_root
qcn_require_cmd jq
qcn_require_modules
qcn_require_built tools/qcnstat selftests/cnm_dump selftests/cnm_send selftests/udp_send
# the examples name the default testbed, qcn-h1, qcn-sw, ...
if ip netns list 2>/dev/null | grep -q '^qcn-'; then
	ktap_skip_all "namespaces qcn-* exist (a testbed is up: scripts/topology down), the examples' names are taken"
fi
# the documents run their programs by name
export PATH="$QCN_TOP/tools:$QCN_TOP/selftests:$PATH"

# What is extracted: README 5 blocks (the testbed's, the CP, the lossless
# inputs, AF-QCN, the reaction point); the man pages' blocks, page by page, in this order: the
# configurations first, then the tools on the testbed they watch (qcn-model
# needs none).  A page
# or a count that differs fails, so that an example no rule here runs is
# seen, not skipped.
README_BLOCKS=5
MAN_ORDER=(tc-qcn tc-qcn_rp qcn-model cnm_send cnm_dump qcnstat qcnplot)
declare -A MAN_BLOCKS=([tc-qcn]=3 [tc-qcn_rp]=4 [qcn-model]=4 [cnm_send]=1 [cnm_dump]=2 [qcnstat]=3
		       [qcnplot]=1)
# a command that runs until stopped, or longer than this (s), is cut here
# (timeout): it must still be running then (status 124).  Under the debug
# kernel and in the emulated guests a program takes seconds to start
# (tcpdump must have opened its capture file before the cut).
WATCH=3
[ "${QCN_UML_FLAVOR:-}" = debug ] || [ -n "${QCN_GUEST:-}" ] && WATCH=8

tmp=$(mktemp -d)
mkdir "$tmp/run"		# the man pages' examples' files (cnm.pcap, run.csv, ...)
flows=()
cleanup()
{
	local p
	for p in "${flows[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${flows[@]}"; do
		wait "$p" 2>/dev/null
	done
	"$QCN_TOP/scripts/topology" down > /dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------ extraction
# Blocks come one command a line ("\"-continued lines and a line ending in
# "|" joined to the next), each block after a line "@".
join_lines()
{
	awk '
	function flush() { if (acc !~ /^[ \t]*$/) print acc; acc = "" }
	/^@$/ { flush(); print; next }
	{
		line = $0
		if (acc != "") { sub(/^[ \t]+/, "", line); acc = acc " " line } else acc = line
		if (acc ~ /\\$/) { sub(/[ \t]*\\$/, "", acc); next }
		if (acc ~ /\|[ \t]*$/) next
		flush()
	}
	END { flush() }'
}

# README's "## Examples" section: its ```sh blocks
readme_blocks()
{
	awk '/^## / { ex = ($0 ~ /^## Examples[ \t]*$/) }
	     ex && /^```sh[ \t]*$/ { inb = 1; print "@"; next }
	     inb && /^```/ { inb = 0; next }
	     inb' "$QCN_TOP/README.md" | join_lines
}

# a man page's .SH EXAMPLES: its .nf/.fi blocks, .RS/.RE dropped, \- and
# \e (roff's escapes for - and \) undone
man_blocks()
{
	awk '/^\.SH / { ex = ($0 ~ /^\.SH "?EXAMPLES"?[ \t]*$/); next }
	     ex && /^\.nf/ { inb = 1; print "@"; next }
	     inb && /^\.fi/ { inb = 0; next }
	     inb && /^\.(RS|RE)([ \t]|$)/ { next }
	     inb' "$1" | sed -e 's/\\-/-/g' -e 's/\\e/\\/g' | join_lines
}

EX_NAME=() EX_DIR=() EX_CMDS=()
# collect SOURCE DIR: the blocks on stdin as examples "SOURCE example N",
# run in DIR
collect()
{
	local src=$1 dir=$2 line n=0 cmds=
	while IFS= read -r line; do
		if [ "$line" = @ ]; then
			[ $n -gt 0 ] && { EX_NAME+=("$src example $n"); EX_DIR+=("$dir"); EX_CMDS+=("$cmds"); }
			n=$((n + 1)); cmds=
		else
			cmds+="$line"$'\n'
		fi
	done
	[ $n -gt 0 ] && { EX_NAME+=("$src example $n"); EX_DIR+=("$dir"); EX_CMDS+=("$cmds"); }
	return 0
}

# README's commands run at the top of the tree (scripts/topology), the
# man pages' in a scratch folder
collect README "$QCN_TOP" < <(readme_blocks)
n_readme=${#EX_NAME[@]}
declare -A FIRST LAST
found_man=
for page in "${MAN_ORDER[@]}"; do
	FIRST[$page]=${#EX_NAME[@]}
	[ -f "$QCN_TOP/man/$page.8" ] && collect "$page(8)" "$tmp/run" < <(man_blocks "$QCN_TOP/man/$page.8")
	LAST[$page]=${#EX_NAME[@]}
	found_man+=" $page $((LAST[$page] - FIRST[$page]))"
done
want_man=$(for page in "${MAN_ORDER[@]}"; do printf ' %s %s' "$page" "${MAN_BLOCKS[$page]}"; done)
pages=$(cd "$QCN_TOP/man" && ls -- *.8 | sed 's/\.8$//' | sort | tr '\n' ' ')
want_pages=$(printf '%s\n' "${MAN_ORDER[@]}" | sort | tr '\n' ' ')

# README's testbed block: its `scripts/topology up` makes the testbed, its
# `down` ends the test (and the trap runs it in any case), an interactive
# shell in it (ip netns exec NS bash) is skipped
tb=-1
for ((i = 0; i < n_readme; i++)); do
	[[ $'\n'${EX_CMDS[$i]} == *$'\n'"scripts/topology up"* ]] && { tb=$i; break; }
done
if [ $tb -lt 0 ]; then
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "README's Examples have a scripts/topology up block" "found $n_readme blocks, none with it"
	ktap_finished
fi
tb_up=$(grep -v '^scripts/topology down' <<<"${EX_CMDS[$tb]}")$'\n'
tb_down=$(grep '^scripts/topology down' <<<"${EX_CMDS[$tb]}")$'\n'
EX_CMDS[tb]=$tb_up
EX_NAME+=("${EX_NAME[$tb]}, down"); EX_DIR+=("$QCN_TOP"); EX_CMDS+=("$tb_down")
down_ex=$((${#EX_NAME[@]} - 1))

# each example 2 results; the counts, the tools' testbed (2), the kernel log
ktap_print_header
ktap_set_plan $((2 * ${#EX_NAME[@]} + 4))
qcn_dmesg_mark
ktap_check "found README's $n_readme example blocks (want $README_BLOCKS), the man pages'$found_man" \
	test "$n_readme$found_man/$pages" = "$README_BLOCKS$want_man/$want_pages"

# -------------------------------------------------------- how they run
# (shell builtins where they do: a process costs tens of ms in UML)

# parse CMD: C the command without its comment, B without a leading "ip
# netns exec NS" too, W B's words, NS where the test runs it (ns_of), TNS
# the namespace it acts in (NS, or the one it names), CUT 1 if it is cut
# at WATCH s (is_cut), PROGS the programs it needs
parse()
{
	local part w
	local -a parts
	C=$1
	[[ $C =~ ^(.*[^[:space:]])[[:space:]]+#[^\'\"]*$ ]] && C=${BASH_REMATCH[1]}
	B=$C
	[[ $C =~ ^ip\ netns\ exec\ [^\ ]+\ (.*)$ ]] && B=${BASH_REMATCH[1]}
	read -ra W <<<"$B"
	ns_of
	TNS=$NS
	[[ $C =~ ^ip\ netns\ exec\ ([^\ ]+)\  ]] && TNS=${BASH_REMATCH[1]}
	is_cut && CUT=1 || CUT=0
	# the first word of each part of a pipeline; qcnplot runs gnuplot
	PROGS=()
	IFS='|' read -ra parts <<<"$B"
	for part in "${parts[@]}"; do
		read -r w _ <<<"$part"
		[[ $w =~ ^[A-Za-z_][A-Za-z0-9_./-]*$ ]] && PROGS+=("$w")
		[ "$w" = qcnplot ] && PROGS+=(gnuplot)
	done
	return 0
}

# ns_of: where C runs.  One that names its namespace (ip netns exec;
# qcnstat -n NS, -d NS:DEV) or runs scripts/topology runs as it is, in the
# root namespace; else one that names a switch port (sw-*) runs in the
# switch, qcn-sw, one that names eth0 in the sender h1, qcn-h1 (as README's
# prose and the pages say); any other (cnm_dump -r, qcnplot) as it is
ns_of()
{
	local c=" $C "
	NS=
	if [[ $c =~ ^\ ip\ netns\ exec\  || $c == " scripts/topology "* ||
	      ( $c == " qcnstat "* && $c =~ \ (-n\ [^-]|-d\ [^\ :]+:) ) ]]; then
		NS=
	elif [[ $c =~ \ (dev|-i|-d)\ sw- ]]; then
		NS=qcn-sw
	elif [[ $c =~ \ (dev|-i|-d)\ eth0\  ]]; then
		NS=qcn-h1
	fi
}

# is_cut: B is a watcher that runs until stopped or longer than WATCH s as
# written: qcnstat, cnm_dump -i and tcpdump without a count; -t in tc's
# units for qcnstat (a bare number is microseconds), seconds for cnm_dump
is_cut()
{
	local c=" $B " ms=1000 n
	case $c in
	" tcpdump "*) [[ $c != *" -c "* ]]; return ;;
	" qcnstat "*) ms=0 ;;
	" cnm_dump "*) [[ $c == *" -r "* ]] && return 1 ;;
	*) return 1 ;;
	esac
	[[ $c == *" -c "* ]] && return 1
	[[ $c =~ \ (-t|--duration)\ ([0-9]+)(\.[0-9]+)?([a-z]*)\  ]] || return 0
	n=${BASH_REMATCH[2]}
	case ${BASH_REMATCH[4]} in
	s|sec) ms=1000 ;;
	ms|msec) ms=1 ;;
	us|usec) ms=0 ;;
	"") ;;
	*) return 0 ;;
	esac
	[ $((n * ms)) -gt $((WATCH * 1000)) ]
}

# in_ns NS CMD...: CMD in NS, or here if NS is empty
in_ns()
{
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

# tcn TC-ARGS...: tc in TNS (its own netns switch: cheaper than ip netns
# exec's in UML)
tcn() { tc ${TNS:+-n "$TNS"} "$@"; }

# path_of FILE: REPLY the file an example's command names, from its folder
path_of() { if [[ $1 == /* ]]; then REPLY=$1; else REPLY=$EXDIR/$1; fi; }

# arg_of KEY: REPLY the word after KEY in W
arg_of()
{
	local k
	for ((k = 0; k + 1 < ${#W[@]}; k++)); do
		[ "${W[$k]}" = "$1" ] && { REPLY=${W[$((k + 1))]}; return 0; }
	done
	REPLY=
	return 1
}

# mac_ns MAC: REPLY the testbed's namespace whose eth0 has MAC
mac_ns()
{
	local n
	for n in /run/netns/qcn-*; do
		n=${n##*/}
		ip -n "$n" link show eth0 2>/dev/null | grep -qi "link/ether $1 " && { REPLY=$n; return 0; }
	done
	REPLY=
	return 1
}

# rp_x NS KEY...: xstats of the qcn_rp on NS's eth0, one line
rp_x()
{
	local ns=$1 k q=
	shift
	for k in "$@"; do q+="${q:+, }.$k"; done
	tc -n "$ns" -s -j qdisc show dev eth0 |
		jq -r "[.[] | select(.kind == \"qcn_rp\")][0] | [$q] | map(. // 0) | join(\" \")"
}

# cp_cnms: the CNMs the qcn on sw-pr sent
cp_cnms()
{
	tc -n qcn-sw -s -j qdisc show dev sw-pr |
		jq -r "[.[] | select(.kind == \"qcn\")][0] | $QCN_JQ_CNMS // 0"
}

# the testbed's namespaces, sorted, one line
qcn_nss() { ip netns list | awk '$1 ~ /^qcn-/ { print $1 }' | sort | tr '\n' ' '; }

EXDIR=""	# the example's folder
RATE=0	# its check missed what only native speed reaches
SAID=""	# what the check of an example found
ADDED=""	# the classes it added
declare -A PRE	# cnm_send's target's counters before it (and the CP's CNMs)

# before: a root qdisc C adds goes on a clean device (as a reader types
# each example on its own); cnm_send's target's counters are kept, read
# before the CP's (every CNM the CP sends after is counted at the target)
before()
{
	if [[ " ${W[*]} " =~ ^\ tc\ qdisc\ add\ .*\ root\  ]]; then
		arg_of dev && tcn qdisc del dev "$REPLY" root 2> /dev/null
	elif [ "${W[0]}" = cnm_send ] && arg_of -d && mac_ns "$REPLY"; then
		PRE[$REPLY]="$(rp_x "$REPLY" cnm_matched limiters_created) $(cp_cnms)"
	fi
	return 0
}

# check_cmd OUT: does C (run with stdout in OUT) what it says?  Adds to
# SAID; 1 if not (RATE=1 where what it says needs the testbed congested,
# which the emulated guests and the debug kernel may not reach), 2 if
# there is nothing to check
check_cmd()
{
	local out=$1 dev kind h k v show f n to rows cp1 now
	local -a pre
	case "${W[*]}" in
	"tc qdisc add "*|"tc qdisc replace "*|"tc qdisc change "*)
		arg_of dev || return 1
		dev=$REPLY
		arg_of handle; h=$REPLY
		# the kind: the first word after dev, root, handle and their values
		for ((k = 3; k < ${#W[@]}; k++)); do
			case ${W[$k]} in dev|root|handle|parent) continue ;; esac
			case ${W[$((k - 1))]} in dev|handle|parent) continue ;; esac
			kind=${W[$k]}; break
		done
		# a root qdisc, or the child of the parent it names
		if arg_of parent; then
			to=" parent $REPLY"
			show=" $(tcn qdisc show dev "$dev" | grep "^qdisc $kind .* parent $REPLY") "
			[[ $show == *" qdisc $kind "* ]] || { said "no qdisc $kind under $REPLY on $dev"; return 1; }
		else
			to=
			show=" $(tcn qdisc show dev "$dev" | grep " root ") "
			[[ $show == *" qdisc $kind ${h:+$h }"* ]] || { said "no root qdisc $kind ${h:+$h }on $dev: $show"; return 1; }
		fi
		# its options whose value is a word show as given (af on, mode qcn-t)
		for ((k = k + 1; k + 1 < ${#W[@]}; k += 2)); do
			v=${W[$((k + 1))]}
			[[ $v =~ ^[a-z][a-z-]*$ ]] || continue
			[[ $show == *" ${W[$k]} $v "* ]] || { said "$dev: '${W[$k]} $v' not shown: $show"; return 1; }
			kind+=" ${W[$k]} $v"
		done
		said "$dev: $kind${h:+ $h}$to" ;;
	"tc class add "*)
		arg_of dev && dev=$REPLY && arg_of classid || return 1
		tcn class show dev "$dev" | grep -q "^class [^ ]* $REPLY " ||
			{ said "no class $REPLY on $dev"; return 1; }
		ADDED+=" $REPLY"
		said "class $REPLY" ;;
	"tc filter add "*)
		arg_of dev && dev=$REPLY && arg_of flowid || return 1
		tcn filter show dev "$dev" | grep -q "flowid $REPLY " ||
			{ said "no filter to $REPLY on $dev"; return 1; }
		said "filter to $REPLY" ;;
	"tc -s qdisc show "*)
		grep -q '^qdisc ' "$out" && grep -q ' Sent ' "$out" ||
			{ said "no qdisc with statistics shown"; return 1; }
		said "the qdisc with statistics" ;;
	"tc -s class show "*)
		# the classes the example added, with their statistics
		[ -n "$ADDED" ] || return 2
		for v in $ADDED; do
			grep -q "^class [^ ]* $v " "$out" || { said "class $v not shown"; return 1; }
		done
		grep -q ' Sent ' "$out" || { said "no statistics shown"; return 1; }
		said "classes$ADDED shown with statistics" ;;
	qcnstat*)
		f=$out
		arg_of -o && path_of "$REPLY" && f=$REPLY
		if [[ " ${W[*]} " == *" --json "* ]]; then
			n=$(jq -rs '"\(length) JSON values, kinds \(map(.kind) | unique | join(" "))"' < "$f" 2>/dev/null)
			# (a filter on limiters prints nothing where none is)
			[[ $n == [1-9]* ]] || { RATE=1; said "no JSON printed"; return 1; }
			said "$n"
			return 0
		fi
		# a row for every device it polls
		rows=$(qcnstat_cols "$f" dev | sort | uniq -c | awk '{ printf "%s%s %s", s, $2, $1; s = ", " }')
		for ((k = 0; k + 1 < ${#W[@]}; k++)); do
			[ "${W[$k]}" = -d ] || continue
			[[ ", $rows" == *", ${W[$((k + 1))]} "* ]] || { said "no rows of ${W[$((k + 1))]} ($rows)"; return 1; }
		done
		said "CSV rows: $rows" ;;
	qcn-model*)
		# CSV: a header, then rows of as many fields
		n=$(awk -F, 'NR == 1 { nf = NF; ok = $0 ~ /^[a-z][a-z0-9_]*(,[a-z][a-z0-9_]*)+$/; next }
			     NF != nf { ok = 0 } END { print (ok && NR > 1) ? NR - 1 : 0 }' "$out")
		[ "$n" -gt 0 ] || { said "no CSV printed ($(head -c 80 "$out"))"; return 1; }
		said "CSV: $(head -n1 "$out"), $n rows" ;;
	qcnplot*)
		arg_of -o || return 1
		path_of "$REPLY"
		f=$REPLY
		[ "$(head -c4 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] ||
			{ said "$f is no PNG"; return 1; }
		said "a PNG of $(stat -c %s "$f") bytes" ;;
	cnm_dump*)
		n=$(grep -c '^cnm ' "$out")
		[ "$n" -gt 0 ] || { RATE=1; said "no CNM decoded ($(tail -n1 "$out"))"; return 1; }
		said "$n CNMs decoded" ;;
	tcpdump*)
		arg_of -w || return 2
		path_of "$REPLY"
		n=$(stat -c %s "$REPLY" 2>/dev/null || echo 0)
		[ "$n" -gt 24 ] || { RATE=1; said "no frame captured in $REPLY"; return 1; }
		said "a capture of $n bytes" ;;
	cnm_send*)
		arg_of -d && mac_ns "$REPLY" || { said "no host has MAC $REPLY"; return 1; }
		to=$REPLY
		read -ra pre <<<"${PRE[$to]:-0 0 0}"
		cp1=$(cp_cnms)
		now=$(rp_x "$to" cnm_matched limiters_created)
		# more CNMs matched than the CP sent meanwhile (all to h1: the
		# only flow): cnm_send's among them
		n=$(( ${now% *} - pre[0] - (cp1 - pre[2]) ))
		[ "$n" -ge 1 ] ||
			{ said "$to's qcn_rp: cnm_matched, limiters_created ${pre[0]} ${pre[1]} -> $now, the CP's CNMs ${pre[2]} -> $cp1"; return 1; }
		said "$to's qcn_rp matched it to the flow and limits it (cnm_matched ${pre[0]} -> ${now% *}, the CP's CNMs meanwhile $((cp1 - pre[2])); limiters_created ${pre[1]} -> ${now#* })" ;;
	"scripts/topology up "*)
		[ "${W[2]}" = dumbbell ] || return 2
		v=$(qcn_nss)
		n=$(for ((k = 1; k <= ${W[3]:-2}; k++)); do echo "qcn-h$k"; done; echo qcn-r; echo qcn-sw)
		[ "$v" = "$(sort <<<"$n" | tr '\n' ' ')" ] || { said "namespaces: $v"; return 1; }
		said "namespaces $v" ;;
	"scripts/topology down"*)
		v=$(qcn_nss)
		[ -z "$v" ] || { said "left: $v"; return 1; }
		said "no qcn-* namespace left" ;;
	*)
		return 2 ;;
	esac
	return 0
}
said() { SAID+="${SAID:+, }$*"; }

# cmds_of I: CMDS the commands of example I
cmds_of()
{
	local cmd
	CMDS=()
	while IFS= read -r cmd; do
		[ -n "$cmd" ] && CMDS+=("$cmd")
	done <<<"${EX_CMDS[$1]}"
}

# exec_example I: runs example I's commands in order, each where ns_of
# says (cut at WATCH s if is_cut), stdout of command J in $tmp/I.J; its
# outcome in $tmp/I.rc ("ok", "fail" or "skip REASON"), what it has to
# say in $tmp/I.log.  Prints nothing: examples can run side by side.
exec_example()
{
	local i=$1 j=0 cmd run rc want p
	cmds_of "$i"
	: > "$tmp/$i.log"
	for cmd in "${CMDS[@]}"; do
		parse "$cmd"
		for p in "${PROGS[@]}"; do
			# (a path from the example's folder: scripts/topology)
			case $p in
			/*) [ -x "$p" ] ;;
			*/*) [ -x "${EX_DIR[$i]}/$p" ] ;;
			*) command -v "$p" > /dev/null ;;
			esac || { echo "skip needs $p" > "$tmp/$i.rc"; return; }
		done
	done
	for cmd in "${CMDS[@]}"; do
		j=$((j + 1))
		parse "$cmd"
		if [[ $C =~ ^ip\ netns\ exec\ [^\ ]+\ (ba|z)?sh$ ]]; then
			echo "# ${EX_NAME[$i]}: '$cmd' skipped: an interactive shell" >> "$tmp/$i.log"
			continue
		fi
		before
		run=$cmd want=0
		[ $CUT = 1 ] && { run="timeout $WATCH $cmd"; want=124; }
		(cd "${EX_DIR[$i]}" && in_ns "$NS" bash -o pipefail -c "$run") \
			> "$tmp/$i.$j" 2> "$tmp/$i.$j.err" < /dev/null
		rc=$?
		if [ $rc -ne $want ]; then
			{ echo "# ${EX_NAME[$i]}: '$run' in ${NS:-the root namespace}: status $rc, not $want"
			  tail -n 5 "$tmp/$i.$j.err" | sed 's/^/#   /'; } >> "$tmp/$i.log"
			echo fail > "$tmp/$i.rc"
			return
		fi
	done
	echo ok > "$tmp/$i.rc"
}

# report_example I: example I's two results: it ran, and it did what it
# says (a miss where RATE says so is ktap_rate_check's)
report_example()
{
	local i=$1 j=0 cmd nss='' first name rc bad=0 any=0 r
	cmds_of "$i"
	parse "${CMDS[0]:-}"
	first=$C
	[ ${#first} -gt 64 ] && first="${first:0:60} ..."
	[ ${#CMDS[@]} -gt 1 ] && first+=" (+$((${#CMDS[@]} - 1)))"
	for cmd in "${CMDS[@]}"; do
		parse "$cmd"
		[[ ",$nss," == *",${NS:-root ns},"* ]] || nss+="${nss:+,}${NS:-root ns}"
	done
	name="${EX_NAME[$i]} (${nss//,/, }): $first"
	cat "$tmp/$i.log" 2> /dev/null
	rc=$(cat "$tmp/$i.rc" 2> /dev/null)
	case $rc in
	ok) ktap_test_pass "$name" ;;
	"skip "*)
		ktap_test_skip "$name" "${rc#skip }"
		ktap_test_skip "${EX_NAME[$i]} does what it says" "${rc#skip }"
		return ;;
	*)
		ktap_test_fail "$name"
		ktap_test_skip "${EX_NAME[$i]} does what it says" "it did not run"
		return ;;
	esac
	SAID="" ADDED="" RATE=0 EXDIR=${EX_DIR[$i]}
	for cmd in "${CMDS[@]}"; do
		j=$((j + 1))
		parse "$cmd"
		check_cmd "$tmp/$i.$j"
		r=$?
		[ $r -eq 2 ] && continue
		any=1
		[ $r -eq 0 ] || { bad=1; break; }
	done
	if [ $any -eq 0 ]; then
		ktap_test_skip "${EX_NAME[$i]} does what it says" "no command of it that this test checks"
	elif [ $bad -eq 0 ]; then
		ktap_test_pass "${EX_NAME[$i]} does what it says: $SAID"
	elif [ "$RATE" = 1 ]; then
		ktap_rate_check "${EX_NAME[$i]} does what it says ($SAID)" false
	else
		ktap_test_fail "${EX_NAME[$i]} does what it says" "$SAID"
	fi
}

run_example() { exec_example "$1"; report_example "$1"; }

# ------------------------------------------------------------ the run

# flow NS SPORT DPORT RATE: a UDP flow to r in the background until the end
flow()
{
	ip netns exec "$1" udp_send -d "$QCN_NET.100" -b "$2" -p "$3" -s 1400 -r "$4" -t 300 > /dev/null &
	flows+=($!)
}

# run_page PAGE: the examples of man/PAGE.8
run_page()
{
	local i
	for ((i = FIRST[$1]; i < LAST[$1]; i++)); do
		run_example "$i"
	done
}

# README's examples, the testbed's first; the configurations' pages
run_example "$tb"
for ((i = 0; i < n_readme; i++)); do
	[ "$i" -eq "$tb" ] || run_example "$i"
done
run_page tc-qcn
run_page tc-qcn_rp
run_page qcn-model

# The tools' examples watch a working testbed (the test's own set-up):
# a 30 Mbit/s CP on sw-pr (Qeq and limit as qcnplot's example draws them),
# qcn_rp on both senders with README's set for such a port, and h1's flow
# 198.18.0.1:5000 -> .100:9000 at 20 Mbit/s, below the port's rate: the
# flow cnm_send's example cuts.  Then h2's flow at 30 Mbit/s congests the
# port, and its CNMs are what cnm_dump, qcnstat and qcnplot watch.
tools_qdiscs()
{
	local h
	tc -n qcn-sw qdisc del dev sw-pr root 2> /dev/null
	tc -n qcn-sw qdisc add dev sw-pr root qcn limit 150000 qeq 26000 rate 30mbit || return 1
	for h in qcn-h1 qcn-h2; do
		tc -n $h qdisc del dev eth0 root 2> /dev/null
		tc -n $h qdisc add dev eth0 root qcn_rp maxrate 100mbit \
			ai-rate 500kbit hai-rate 5mbit time-reset 60ms || return 1
	done
}
h1_flowing() { [ "$(rp_x qcn-h1 bytes)" -gt 100000 ]; }
congested() { [ "$(cp_cnms)" -ge 5 ]; }

# The watchers' examples only watch: they run side by side and report in
# order.  qcnplot's, the longest (gnuplot), starts first and draws it all:
# h1's flow, cnm_send's CNM, the congestion's onset.
watchers=()
watch_page()
{
	local i
	for ((i = FIRST[$1]; i < LAST[$1]; i++)); do
		exec_example "$i" &
		watchers+=($!)
	done
}

tools_qdiscs
watch_page qcnplot
flow qcn-h1 5000 9000 20mbit
# h1's flow is on its way (its qcn_rp passed 100 KB)
busywait 10000 h1_flowing > /dev/null
ktap_check "the tools' testbed: qcn on sw-pr, qcn_rp on the senders, h1's flow on its way ($(rp_x qcn-h1 bytes) B)" \
	h1_flowing
run_page cnm_send

flow qcn-h2 5001 9001 30mbit
busywait 10000 congested > /dev/null
ktap_rate_check "the tools' testbed congested: 50 Mbit/s into 30, the CP sends CNMs ($(cp_cnms))" \
	congested
watch_page cnm_dump
watch_page qcnstat
wait "${watchers[@]}"
for page in cnm_dump qcnstat qcnplot; do
	for ((i = FIRST[$page]; i < LAST[$page]; i++)); do
		report_example "$i"
	done
done
ktap_info "the CP sent $(cp_cnms) CNMs; h1's qcn_rp received, created limiters: $(rp_x qcn-h1 cnm_rx limiters_created)"

for p in "${flows[@]}"; do
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
done
flows=()
run_example "$down_ex"
ktap_check "no kernel warnings" qcn_dmesg_clean
ktap_finished
