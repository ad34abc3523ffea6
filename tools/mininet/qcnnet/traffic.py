# SPDX-License-Identifier: GPL-2.0
"""
Traffic and results for experiments: iperf3 servers and clients on
Mininet hosts (processes the caller owns and ends, not daemons: a daemon
would keep its namespace alive after the network stops), the receivers'
goodput from iperf3's JSON, Jain's fairness index, gnuplot, and the
examples' command line.
"""
import argparse
import json
import os
import shutil
import subprocess
import time

from mininet.nodelib import LinuxBridge

from .env import TOP, QcnUnavailable
from .net import QcnBridge


def example_parser(doc, secs_help):
    """The examples' command line: --out, --rate, --secs (SECS_HELP),
    --mtu and --switch; parse it with example_args()."""
    ap = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', default=os.environ.get('QCN_OUT') or
                    os.path.join(TOP, 'out', 'mininet'),
                    help='where the files go')
    ap.add_argument('--rate', type=int, default=500,
                    help='the port, Mbit/s (500)')
    ap.add_argument('--secs', type=int, default=12, help=secs_help)
    ap.add_argument('--mtu', type=int, default=4000,
                    help='every link (4000, as make demo)')
    ap.add_argument('--switch', choices=('lxbr', 'qcnbr'), default='lxbr',
                    help="lxbr: Mininet's Linux bridge in the root "
                    'namespace; qcnbr: in a namespace of its own')
    return ap


def example_args(ap):
    """example_parser()'s arguments, with switch_cls the --switch class."""
    args = ap.parse_args()
    args.switch_cls = LinuxBridge if args.switch == 'lxbr' else QcnBridge
    return args


def listening(host, port, timeout=10.0):
    """Wait until a TCP socket listens on PORT in HOST; False if none
    does within TIMEOUT seconds (a server started on a busy machine may
    take longer than a fixed sleep)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if host.cmd('ss -Hltn "sport = :%d"' % port).strip():
            return True
        time.sleep(0.1)
    return False


def iperf3_servers(host, ports, args=()):
    """One-off iperf3 servers (-1) on HOST, one per port, reporting JSON
    in 0.5 s intervals to their clients (--get-server-output); returns
    their Popen objects once all listen."""
    if not shutil.which('iperf3'):
        raise QcnUnavailable('needs iperf3 (scripts/setup installs it)')
    procs = [host.popen(['iperf3', '-s', '-1', '-J', '-i', '0.5',
                         '-p', str(p)] + list(args),
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for p in ports]
    for p in ports:
        if not listening(host, p):
            stop(procs)
            raise RuntimeError('iperf3 does not listen on %s:%d'
                               % (host.name, p))
    return procs


def iperf3_client(src, dst, port, seconds, out_path, args=()):
    """A TCP flow from host SRC to host DST's server on PORT for SECONDS,
    iperf3's JSON (with the server's, 0.5 s intervals; an error is its
    "error" key) into OUT_PATH; returns its Popen."""
    with open(out_path, 'w') as out:
        return src.popen(['iperf3', '-c', dst.IP(), '-p', str(port),
                          '-t', str(seconds), '-J', '-i', '0.5',
                          '--get-server-output'] + list(args),
                         stdout=out, stderr=subprocess.DEVNULL)


def stop(procs, timeout=5.0):
    """Terminate PROCS (Popen objects), killing one that outlives
    TIMEOUT."""
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def iperf3_result(path):
    """The JSON of an iperf3 client, or {} if it has none."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def received_series(result, start):
    """The goodput the receiver counted, as [(t, Mbit/s)]: t the end of
    each interval in seconds on the experiment's clock, the flow having
    started at START on it."""
    out = []
    server = result.get('server_output_json') or {}
    for iv in server.get('intervals', []):
        s = iv['sum']
        out.append((start + s['end'], s['bits_per_second'] / 1e6))
    return out


def mean_between(series, t_from, t_to):
    """The mean of the values of SERIES whose time is in (T_FROM, T_TO]."""
    vals = [v for t, v in series if t_from < t <= t_to]
    return sum(vals) / len(vals) if vals else 0.0


def jain(values, weights=None):
    """Jain's fairness index of VALUES over WEIGHTS: 1 when every value is
    in proportion to its weight, 1/n when one takes everything."""
    weights = weights or [1] * len(values)
    y = [v / w for v, w in zip(values, weights)]
    q = sum(v * v for v in y)
    return sum(y) ** 2 / (len(y) * q) if q else 0.0


def gnuplot(script):
    """Run a gnuplot SCRIPT (text)."""
    if not shutil.which('gnuplot'):
        raise QcnUnavailable('needs gnuplot (scripts/setup installs '
                             'gnuplot-nox)')
    subprocess.run(['gnuplot'], input=script, universal_newlines=True,
                   check=True)
