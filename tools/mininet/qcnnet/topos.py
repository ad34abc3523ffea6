# SPDX-License-Identifier: GPL-2.0
"""
scripts/topology's testbeds as Mininet topologies, with its names and
addresses, so that tc-qcn(8), tc-qcn_rp(8) and qcnstat(8) read the same
on them: every host's interface is eth0, with 198.18.0.I/24 (benchmarking
space, RFC 2544) and MAC 02:00:00:00:00:I (hex), senders 1..99,
receivers 100 and up; a switch's port that faces a host is named after
the switch and the host (sw-p1, sw1-h2, ...; the dumbbell's port toward
r is sw-pr), one toward another switch after the direction (sw1-up).

Each topology records where QCN goes:
  cps    [(switch, port)]: the congestion points, egress ports that the
         flows overload
  rps    [host]: the senders, where qcn_rp goes (on eth0)
  flows  [(sender, receiver)]: who sends to whom
and takes optional qcn= and qcn_rp= options (a string of tc's words or a
dict) that QcnMininet.start() puts on every CP and RP.
"""
from mininet.topo import Topo

NET = '198.18.0'


def host_ip(i):
    """Host I's address with its prefix length."""
    return '%s.%d/24' % (NET, i)


def host_mac(i):
    """Host I's MAC address."""
    return '02:00:00:00:00:%02x' % i


class QcnTopo(Topo):
    """Base of the topologies: hosts with fixed addresses, switches with
    named ports, and the cps, rps and flows lists."""

    def __init__(self, *args, **params):
        self.cps = []
        self.rps = []
        self.flows = []
        self.qcn = None
        self.qcn_rp = None
        self._nswitches = 0
        super().__init__(*args, **params)

    def plan(self, qcn=None, qcn_rp=None):
        """The options QcnMininet.start() puts on the CPs and the RPs (None:
        leave them bare)."""
        self.qcn = qcn
        self.qcn_rp = qcn_rp

    def qcn_host(self, name, i):
        """Host NAME with address I."""
        return self.addHost(name, ip=host_ip(i), mac=host_mac(i))

    def qcn_switch(self, name):
        """Switch NAME.  The datapath ID is given, since Mininet derives
        one only from a name with digits (s1) and the names here are
        scripts/topology's; Linux bridges do not use it."""
        self._nswitches += 1
        return self.addSwitch(name, dpid='%016x' % self._nswitches)

    def host_link(self, host, switch, port):
        """HOST's eth0 to SWITCH's PORT.  Mininet's Linux bridge enslaves
        only the ports whose names contain the switch's name."""
        self.addLink(host, switch, intfName1='eth0', intfName2=port)

    def switch_link(self, sw1, port1, sw2, port2):
        """A link between two switches."""
        self.addLink(sw1, sw2, intfName1=port1, intfName2=port2)


class DumbbellTopo(QcnTopo):
    """scripts/topology up dumbbell N: senders h1..hN (.1 ..) on ports
    sw-p1..sw-pN of switch sw, receiver r (.100) on sw-pr, the congestion
    point.

        h1 --- sw-p1 -+
        ..            +- [sw] - sw-pr (CP) --- r
        hN --- sw-pN -+
    """

    def build(self, n=2, qcn=None, qcn_rp=None):
        n = int(n)
        if not 1 <= n <= 99:
            raise ValueError('dumbbell: N must be 1 .. 99, not %d' % n)
        sw = self.qcn_switch('sw')
        for i in range(1, n + 1):
            h = self.qcn_host('h%d' % i, i)
            self.host_link(h, sw, 'sw-p%d' % i)
            self.rps.append(h)
            self.flows.append((h, 'r'))
        r = self.qcn_host('r', 100)
        self.host_link(r, sw, 'sw-pr')
        self.cps.append((sw, 'sw-pr'))
        self.plan(qcn, qcn_rp)


class ParkingLotTopo(QcnTopo):
    """scripts/topology up parking-lot (AF-QCN Fig. 5): switches sw1 - sw2
    - sw3; link 1 leaves sw1 by sw1-up, link 2 leaves sw2 by sw2-up (the
    two congestion points).  h1, h2 on sw1; h3 and r1 (.101) on sw2; r2
    (.102) on sw3.  Flows: h1 -> r2 crosses both links, h2 -> r1 link 1
    only, h3 -> r2 link 2 only.

        h1 -+                      h3 -+
        h2 -+- [sw1] - sw1-up (CP) -+- [sw2] - sw2-up (CP) -- [sw3] -- r2
                                   r1 -+
    """

    def build(self, qcn=None, qcn_rp=None):
        sw1, sw2, sw3 = (self.qcn_switch(s) for s in ('sw1', 'sw2', 'sw3'))
        for name, i, sw, port in (('h1', 1, sw1, 'sw1-h1'),
                                  ('h2', 2, sw1, 'sw1-h2'),
                                  ('h3', 3, sw2, 'sw2-h3'),
                                  ('r1', 101, sw2, 'sw2-r1'),
                                  ('r2', 102, sw3, 'sw3-r2')):
            self.host_link(self.qcn_host(name, i), sw, port)
        self.switch_link(sw1, 'sw1-up', sw2, 'sw2-dn')
        self.switch_link(sw2, 'sw2-up', sw3, 'sw3-dn')
        self.cps += [(sw1, 'sw1-up'), (sw2, 'sw2-up')]
        self.rps += ['h1', 'h2', 'h3']
        self.flows += [('h1', 'r2'), ('h2', 'r1'), ('h3', 'r2')]
        self.plan(qcn, qcn_rp)


class HotspotTopo(QcnTopo):
    """scripts/topology up hotspot K (QCN-OS Fig. 2): h1 (the victim's
    source) and h2 (the culprit's) share an edge switch "in" whose uplink
    in-up is the shared input; the core switch sw has h3..hK and two
    outputs: sw-ra to ra (.101, the victim's destination) and sw-rb to rb
    (.102, the hotspot shared by h2..hK).  Linux bridges have no PFC: the
    hot output drops instead of pausing the input.

        h1 -+                          +- sw-ra --- ra
        h2 -+- [in] - in-up --- sw-in -+- [sw]
                       h3..hK ---------+- sw-rb --- rb (hotspot)
    """

    def build(self, k=6, qcn=None, qcn_rp=None):
        k = int(k)
        if not 2 <= k <= 99:
            raise ValueError('hotspot: K must be 2 .. 99, not %d' % k)
        edge, core = self.qcn_switch('in'), self.qcn_switch('sw')
        for i in (1, 2):
            self.host_link(self.qcn_host('h%d' % i, i), edge, 'in-h%d' % i)
        self.switch_link(edge, 'in-up', core, 'sw-in')
        for i in range(3, k + 1):
            self.host_link(self.qcn_host('h%d' % i, i), core, 'sw-h%d' % i)
        self.host_link(self.qcn_host('ra', 101), core, 'sw-ra')
        self.host_link(self.qcn_host('rb', 102), core, 'sw-rb')
        self.cps += [(edge, 'in-up'), (core, 'sw-rb')]
        self.rps += ['h%d' % i for i in range(1, k + 1)]
        self.flows += [('h1', 'ra')] + [('h%d' % i, 'rb')
                                        for i in range(2, k + 1)]
        self.plan(qcn, qcn_rp)


# for mn --custom: --topo qcn-dumbbell,4
TOPOS = {
    'qcn-dumbbell': DumbbellTopo,
    'qcn-parking-lot': ParkingLotTopo,
    'qcn-hotspot': HotspotTopo,
}
