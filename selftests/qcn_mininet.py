#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
qcn_mininet.py PREFIX OUTDIR SECS: the Mininet side of qcn_mininet.sh.
Builds tools/mininet's dumbbell of two senders with Mininet's Linux bridge
(lxbr, in the root namespace), the topology's plan putting a 30 Mbit/s
qcn on sw-pr and qcn_rp (scaled to the port) on h1 and h2, runs one
iperf3 TCP flow per sender for SECS s under one qcnstat, stops the
network and prints what the test asserts, one "KEY VALUE..." a line.
Namespace names for qcnstat are PREFIX-NODE; files go to OUTDIR.
"""
import os
import re
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'mininet'))

from mininet.log import setLogLevel  # noqa: E402
from mininet.nodelib import LinuxBridge  # noqa: E402

import qcnnet  # noqa: E402
from qcnnet import traffic  # noqa: E402

# the 30 Mbit/s port of the suite, the RP's steps and timer scaled to it
# (selftests/rp_dumbbell.sh)
CP = 'limit 150kb qeq 26kb rate 30mbit'
RP = 'maxrate 100mbit ai-rate 500kbit hai-rate 5mbit time-reset 60ms'


def say(key, *values):
    print(key, *values, flush=True)


def plugin_opts(path, array):
    """The option names of a plugin's NULL-terminated ARRAY."""
    with open(os.path.join(TOP, 'tc-plugin', path)) as f:
        src = f.read()
    m = re.search(r'%s\[\]\s*=\s*\{(.*?)\}' % array, src, re.S)
    return set(re.findall(r'"([^"]+)"', m.group(1))) if m else set()


def check_opts():
    """Names the plugins take that qcnnet does not, or the reverse."""
    diff = []
    for path, array, ours in (('q_qcn.c', 'qcn_opts', qcnnet.QCN_OPTS),
                              ('q_qcn.c', 'qcn_class_opts',
                               qcnnet.QCN_CLASS_OPTS),
                              ('q_qcn_rp.c', 'rp_opts', qcnnet.QCN_RP_OPTS)):
        theirs = plugin_opts(path, array)
        if not theirs:
            diff.append('%s:%s-unreadable' % (path, array))
        diff += ['%s:%s' % (array, o) for o in theirs ^ set(ours)]
    say('opts_diff', *(diff or ['-']))


def main():
    prefix, out, secs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    setLogLevel('warning')
    check_opts()
    topo = qcnnet.DumbbellTopo(2, qcn=CP, qcn_rp=RP)
    net = qcnnet.QcnMininet(topo, switch=LinuxBridge, netns_prefix=prefix)
    procs = []
    shells = []
    try:
        net.start()
        sw, r, senders = net['sw'], net['r'], net.rps()
        shells = [(n.name, n.shell) for n in net.hosts + net.switches]
        say('switch_ns', 'own' if sw.inNamespace else 'root')
        say('ports', *sorted(sw.cmd('ls /sys/class/net/sw/brif').split()))
        say('addr', senders[0].cmd('ip -br addr show dev eth0').split()[2],
            senders[0].cmd('cat /sys/class/net/eth0/address').strip())
        say('kinds', qcnnet.cp_stats(sw, 'sw-pr').get('kind', '-'),
            *[qcnnet.rp_stats(h).get('kind', '-') for h in senders])
        ports = [5201, 5202]
        procs += traffic.iperf3_servers(r, ports)
        csv = os.path.join(out, 'qcnstat.csv')
        stat = net.qcnstat(csv, interval='100ms', duration='%ds' % secs)
        for h, p in zip(senders, ports):
            procs.append(traffic.iperf3_client(
                h, r, p, secs, os.path.join(out, '%s.json' % h.name)))
        for p in procs:
            p.wait(secs + 60)
        stat.wait(30)
        for line in net.summary():
            say('#', line)
        say('cnms', qcnnet.cp_stats(sw, 'sw-pr')['cnms'])
        for h in senders:
            st = qcnnet.rp_stats(h)
            say('rp', h.name, st.get('cnm_rx', 0), st.get('cnm_matched', 0),
                st.get('limiters_created', 0))
        kinds = sorted({row['kind'] for row in qcnnet.read_csv(csv)})
        devs = sorted({row['dev'] for row in qcnnet.read_csv(csv)})
        say('qcnstat_kinds', *(kinds or ['-']))
        say('qcnstat_devs', *(devs or ['-']))
    finally:
        traffic.stop(procs)
        net.stop()
    goodput = 0
    for h in senders:
        res = traffic.iperf3_result(os.path.join(out, '%s.json' % h.name))
        goodput += res.get('end', {}).get('sum_received', {}).get(
            'bits_per_second', 0) // 1000
    say('goodput_kbit', int(goodput))
    # what stop() must have removed: the bridge, the names, the shells
    left = []
    if os.path.exists('/sys/class/net/sw'):
        left.append('bridge:sw')
    names = subprocess.run(['ip', 'netns', 'list'], stdout=subprocess.PIPE,
                           universal_newlines=True).stdout.split()
    left += ['netns:' + n for n in names if n.startswith(prefix + '-')]
    left += ['shell:' + name for name, sh in shells if sh.poll() is None]
    say('left', *(left or ['-']))


if __name__ == '__main__':
    main()
