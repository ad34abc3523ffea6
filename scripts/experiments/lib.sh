# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared by scripts/experiments/*: options, qcn-sim, the kernel side.
#   NAME [--quick] [--sim-only] [OUTDIR]
# OUTDIR defaults to out/experiments/NAME.  The kernel side runs the
# selftests' native-speed testbed (selftests/lib_fast.sh: network
# namespaces, veth, qcn and qcn_rp) and needs root with the modules
# loadable: under scripts/uml-run, or on a host with the modules
# installed.  Without them, or with --sim-only, only qcn-sim runs.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
EXP=$(basename "$0")
QUICK=0 SIM_ONLY=0
# shellcheck disable=SC2034 # QUICK: read by the experiments that source this
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) QUICK=1; shift ;;
	--sim-only) SIM_ONLY=1; shift ;;
	-h|--help) sed -n '3,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "$EXP: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
OUT=${1:-$TOP/out/experiments/$EXP}
mkdir -p "$OUT"
SIM=${QCN_SIM:-$TOP/tools/qcn-sim}
[ -x "$SIM" ] || make -s -C "$TOP/tools" qcn-sim

# kernel_ok: true when the kernel side can run here (else says why)
kernel_ok()
{
	if [ $SIM_ONLY = 1 ]; then
		echo "# $EXP: kernel side skipped (--sim-only)"
		return 1
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "# $EXP: kernel side skipped (needs root: run under scripts/uml-run)"
		return 1
	fi
	if [ ! -f "$TOP/selftests/lib_fast.sh" ]; then
		echo "# $EXP: kernel side skipped (no selftests/lib_fast.sh in this tree)"
		return 1
	fi
	if ! modprobe -n sch_qcn 2> /dev/null && [ ! -f "$TOP/sch_qcn/sch_qcn.ko" ]; then
		echo "# $EXP: kernel side skipped (sch_qcn not loadable)"
		return 1
	fi
	return 0
}

# eps_conv STEP_MS: reads "t_ms r1 r2" lines (t = interval end), prints
# "CONV FIRST MEAN": the start (ms) of the first interval after which
# epsilon = min/max stays >= 0.9 (the last time when it never settles),
# the start of the first interval with epsilon >= 0.9, and epsilon's mean
eps_conv()
{
	awk -v step="$1" '{ t[n] = $1; lo = $2 < $3 ? $2 : $3; hi = $2 < $3 ? $3 : $2
			   e[n] = hi > 0 ? lo / hi : 0; sum += e[n++] }
		END { c = t[n - 1]; for (i = n - 1; i >= 0 && e[i] >= 0.9; i--) c = t[i] - step
		      f = t[n - 1]; for (i = 0; i < n; i++) if (e[i] >= 0.9) { f = t[i] - step; break }
		      printf "%d %d %.3f\n", c, f, n ? sum / n : 0 }'
}

have_gnuplot() { command -v gnuplot > /dev/null; }

# rate_bps RATE: a rate in tc's bit units (200mbit, 1gbit, 500kbit; a bare
# number is bit/s) in bit/s
rate_bps()
{
	awk -v r="$1" 'BEGIN { n = r + 0; u = tolower(r); sub(/^[0-9.]+/, "", u)
		printf "%d", n * (u == "gbit" ? 1e9 : u == "mbit" ? 1e6 : u == "kbit" ? 1e3 : 1) }'
}

# pfc_rp_opts RATE: qcn_rp's options for a host whose NIC runs at RATE in
# the PFC experiments (qcn-os-pfc, qcn-blocking-pfc): pause-honouring,
# the standard's time and rate constants scaled by 10 Gb/s / RATE, so the
# loop runs as the paper's at 10 Gb/s in units of frames
pfc_rp_opts()
{
	local bps scale
	bps=$(rate_bps "$1")
	scale=$((10000000000 / bps))
	echo "pfc maxrate $1 ai-rate $((5000000 / scale / 1000))kbit" \
		"hai-rate $((50000000 / scale / 1000))kbit" \
		"time-reset $((15 * scale))ms min-rate $((5000000 / scale / 1000))kbit"
}

# runs_summary WIDTH: reads "key<TAB>mbps<TAB>fair<TAB>cnms" lines, one per
# run, and prints per key the median, min-max, fair rate and mean CNMs
runs_summary()
{
	sort -t "$(printf '\t')" -k1,1 -k2,2n |
		awk -F'\t' -v w="$1" 'function out() { if (n) printf "%-" w "s %5d  %d-%d  fair %d  CNMs mean %.0f (n=%d)\n",
				k, v[int((n + 1) / 2)], v[1], v[n], f, c / n, n }
			$1 != k { out(); k = $1; n = 0; c = 0 }
			{ v[++n] = $2; f = $3; c += $4 } END { out() }'
}

# src_rates LOG SRC: "t_s mbit/s" per interval of host SRC's datagrams in
# an af_sink LOG ("t_ms source bytes" lines)
src_rates()
{
	awk -v s="$QCN_NET.$2" '$2 == s { if (n++) printf "%.1f %.2f\n", $1 / 1000,
		($3 - b) * 8 / ($1 - t) / 1000; t = $1; b = $3 }' "$1"
}
