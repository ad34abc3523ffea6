# SPDX-License-Identifier: GPL-2.0
"""
Counters as time series: the project's qcnstat polling the qcn and qcn_rp
qdiscs of a Mininet network from one process, and its CSV read back.

qcnstat names a device in another network namespace as NS:DEV, NS being
a name under /run/netns.  Mininet's hosts (and switches started in a
namespace) have unnamed namespaces: NetnsNames gives them names with `ip
netns attach` (a bind mount of the node's /proc/PID/ns/net, no new
namespace) and removes the names again.  A switch in the root namespace,
Mininet's default, needs none: its ports are plain DEV.
"""
import csv
import subprocess

from .env import find_tool


class NetnsNames:
    """Names under /run/netns for nodes' namespaces, PREFIX-NODE."""

    def __init__(self, prefix='mn'):
        self.prefix = prefix
        self.names = {}

    def name(self, node):
        """The name of NODE's namespace, attached on first use; None for a
        node in the root namespace."""
        if not node.inNamespace:
            return None
        if node.name not in self.names:
            name = '%s-%s' % (self.prefix, node.name)
            # a name left by an earlier run that died points elsewhere
            subprocess.run(['ip', 'netns', 'delete', name],
                           stderr=subprocess.DEVNULL, check=False)
            subprocess.run(['ip', 'netns', 'attach', name, str(node.pid)],
                           check=True)
            self.names[node.name] = name
        return self.names[node.name]

    def dev(self, node, dev):
        """qcnstat's -d argument for NODE's DEV: NS:DEV or DEV."""
        ns = self.name(node)
        return '%s:%s' % (ns, dev) if ns else str(dev)

    def detach(self):
        """Remove the names (the namespaces live on with their nodes)."""
        for name in self.names.values():
            subprocess.run(['ip', 'netns', 'delete', name],
                           stderr=subprocess.DEVNULL, check=False)
        self.names = {}


class Qcnstat:
    """qcnstat (qcnstat(8)) over TARGETS, a list of (node, dev), every
    INTERVAL for DURATION (tc's times: '50ms', '12s'; None: until stop()),
    CSV (or fmt='json', one object a line) into OUTPUT."""

    def __init__(self, targets, output, interval='100ms', duration=None,
                 fmt='csv', names=None):
        self.targets = list(targets)
        self.output = output
        self.interval = interval
        self.duration = duration
        self.fmt = fmt
        self.names = names
        self.own_names = names is None
        self.proc = None

    def start(self):
        """Start polling in the background."""
        if self.own_names:
            self.names = NetnsNames()
        args = [find_tool('qcnstat'), '--' + self.fmt, '-i',
                str(self.interval), '-o', self.output]
        if self.duration is not None:
            args += ['-t', str(self.duration)]
        for node, dev in self.targets:
            args += ['-d', self.names.dev(node, dev)]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL)
        return self

    def wait(self, timeout=None):
        """Wait for a run with a duration to end; its exit status."""
        try:
            return self.proc.wait(timeout)
        finally:
            self._done()

    def stop(self):
        """End the run (every poll is already written)."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()
        self._done()

    def _done(self):
        if self.own_names and self.names:
            self.names.detach()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def read_csv(path):
    """qcnstat's CSV as a list of dicts by column name (select columns by
    name, as qcnstat(8) asks; empty fields are '')."""
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def rows(data, kind=None, dev=None):
    """The rows of KIND (qcn, qcn_rp, qcn-class, qcn_rp-limiter) and/or of
    device DEV (as qcnstat shows it: NS:DEV or DEV)."""
    return [r for r in data
            if (kind is None or r['kind'] == kind)
            and (dev is None or r['dev'] == dev)]


def last(data, column, kind=None, dev=None):
    """COLUMN of the last row that has it, as an int (0 if none)."""
    for r in reversed(rows(data, kind, dev)):
        if r.get(column, '') != '':
            return int(float(r[column]))
    return 0
