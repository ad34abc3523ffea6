# SPDX-License-Identifier: GPL-2.0
"""
Mininet's CLI with a `qcn` command: the counters of the topology's
congestion points and reaction points (QcnMininet.summary()).  tc itself
needs no help: `sw tc -s qdisc show dev sw-pr` and `h1 tc qdisc add dev
eth0 root qcn_rp maxrate 2gbit` run in the node's namespace as typed.
"""
from mininet.cli import CLI
from mininet.log import error, output

from .tc import TcError


class QcnCLI(CLI):
    """Mininet's CLI, plus `qcn`."""

    def do_qcn(self, _line):
        """qcn: the CNMs, samples, queue and drops of every congestion
        point, the CNMs and limiters of every reaction point."""
        summary = getattr(self.mn, 'summary', None)
        if summary is None:
            error('qcn: the network is not a QcnMininet\n')
            return
        try:
            for line in summary():
                output(line + '\n')
        except TcError as e:
            error('qcn: %s\n' % e)
