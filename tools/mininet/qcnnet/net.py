# SPDX-License-Identifier: GPL-2.0
"""
A Mininet network made for QCN: Linux-bridge switches, QCN's modules and
plugins checked before anything is built, the topology's qcn and qcn_rp
put in place at start, and the names qcnstat needs for the nodes'
namespaces removed at stop.

Where the congestion point sits: a qcn qdisc queues what leaves its
device, so it goes on the switch's port toward the receivers (a Mininet
switch's interface, in the switch's namespace: the root namespace for
Mininet's LinuxBridge, its own for QcnBridge).  A CNM leaves through the
bridge the port belongs to (sch_qcn hands it to the bridge device), whose
forwarding database sends it out of the port behind which the culprit's
source MAC address was learnt, back to the sender's eth0, where qcn_rp
takes it.  Which namespace the bridge is in does not matter to that path.
"""
from mininet.link import Link
from mininet.log import output
from mininet.net import Mininet
from mininet.node import Host
from mininet.nodelib import LinuxBridge
from mininet.util import ensureRoot

from .env import require_qcn
from .stat import NetnsNames, Qcnstat
from .tc import add_qcn, add_qcn_rp, cp_stats, rp_stats


class QcnBridge(LinuxBridge):
    """A Linux bridge (STP off, no forwarding delay) in a network namespace
    of its own, as scripts/topology's switches are (netns=False: in the
    root namespace, as Mininet's lxbr).  In a namespace the host's bridge
    netfilter (br_netfilter, e.g. Docker's FORWARD rules) and network
    managers do not see its ports, and `mn -c`, which removes no Linux
    bridges, needs to remove none: the bridge goes with the namespace.
    Every interface of the node is a port, a real NIC moved in with
    mininet.link.Intf too."""

    def __init__(self, name, netns=True, **params):
        if netns:
            params['inNamespace'] = True
        super().__init__(name, stp=False, **params)

    def start(self, controllers):
        super().start(controllers)
        # LinuxBridge enslaves only the ports named after it: a real NIC
        # added with mininet.link.Intf(NIC, node=switch) is one too
        for intf in self.intfList():
            if intf.name != 'lo' and self.name not in intf.name:
                self.cmd('brctl addif', self, intf)
        self.cmd('brctl setfd', self, 0)


def _plan_args(plan):
    """(spec, opts) for a plan: a string of tc's words or a dict."""
    if isinstance(plan, dict):
        return None, plan
    return str(plan), {}


class QcnMininet(Mininet):
    """Mininet with QCN.  Differences from Mininet's defaults:
      switch      LinuxBridge (Mininet's lxbr, in the root namespace);
                  QcnBridge puts each bridge in a namespace of its own
      controller  none: Linux bridges need no OpenFlow controller
      link        plain veth pairs: TCLink's bw and delay install their own
                  root qdiscs (htb, netem) on both ends, where qcn and
                  qcn_rp go; give qcn a rate= to emulate a port's speed
      check       QCN's modules are loaded and tc finds its plugins before
                  anything is built (env.require_qcn); check=False skips it
      fix_limits  False: the machine's sysctls are left alone.  Mininet
                  raises TCP's buffers (tcp_rmem, tcp_wmem) and more, for
                  the whole machine and the namespaces made after it; kept
                  as they are, results compare with scripts/topology's
                  testbeds and nothing outlives the run
      mtu         every interface's MTU after start (scripts/demo and the
                  native-speed tests run 4000)
    At start() the hosts send the flows' receivers one datagram, so that
    the bridges and the neighbour tables know every address before traffic
    starts, and a QcnTopo's qcn= and qcn_rp= go on its CPs and RPs."""

    def __init__(self, topo=None, switch=LinuxBridge, host=Host,
                 controller=None, link=Link, mtu=None, check=True,
                 fix_limits=False, netns_prefix='mn', **params):
        if check:
            require_qcn()
        if not fix_limits:
            # Mininet.init() runs ensureRoot() and fixLimits() once
            ensureRoot()
            Mininet.inited = True
        self.mtu = mtu
        self.names = NetnsNames(netns_prefix)
        self.stats = []
        try:
            super().__init__(topo=topo, switch=switch, host=host,
                             controller=controller, link=link, **params)
        except BaseException:
            # what was built so far: its shells, bridges and links
            if hasattr(self, 'terms'):
                super().stop()
            raise

    def start(self):
        """Start the switches, set the MTU, fill the FDBs and apply the
        topology's qcn= and qcn_rp=; the caller's stop() undoes it all,
        also after an exception."""
        super().start()
        if self.mtu:
            self.set_mtu(self.mtu)
        self.learn()
        self.apply_plan()

    def stop(self):
        for q in self.stats:
            q.stop()
        self.stats = []
        self.names.detach()
        super().stop()

    def set_mtu(self, mtu):
        """Every interface of every host and switch at MTU."""
        for node in self.hosts + self.switches:
            for intf in node.intfList():
                if intf.name == 'lo':
                    continue
                out, err, rc = node.pexec(['ip', 'link', 'set', 'dev',
                                           intf.name, 'mtu', str(mtu)])
                if rc:
                    raise RuntimeError('%s: mtu %s on %s: %s'
                                       % (node.name, mtu, intf, err.strip()))

    def learn(self):
        """Each sender of the topology's flows sends its receiver one UDP
        datagram (port 9, discard), as selftests/lib.sh's tb_learn."""
        for src, dst in getattr(self.topo, 'flows', []):
            self[src].cmd('echo learn > /dev/udp/%s/9 2>/dev/null'
                          % self[dst].IP())

    def cps(self):
        """The topology's congestion points, as (switch node, port)."""
        return [(self[sw], port) for sw, port in getattr(self.topo, 'cps',
                                                         [])]

    def rps(self):
        """The topology's senders (hosts), where qcn_rp goes on eth0."""
        return [self[h] for h in getattr(self.topo, 'rps', [])]

    def apply_plan(self):
        """Put the topology's qcn= on every CP and its qcn_rp= on every
        RP's eth0 (None: nothing; '': the defaults)."""
        plan = getattr(self.topo, 'qcn', None)
        if plan is not None:
            spec, opts = _plan_args(plan)
            for sw, port in self.cps():
                add_qcn(sw, port, spec, **opts)
        plan = getattr(self.topo, 'qcn_rp', None)
        if plan is not None:
            spec, opts = _plan_args(plan)
            for h in self.rps():
                add_qcn_rp(h, 'eth0', spec, **opts)

    def qcnstat(self, output, targets=None, **kwargs):
        """Start one qcnstat over TARGETS ((node, dev) list; default the
        CPs and the RPs' eth0) writing OUTPUT; kwargs as Qcnstat's
        (interval, duration, fmt).  Stopped at stop() at the latest."""
        if targets is None:
            targets = self.cps() + [(h, 'eth0') for h in self.rps()]
        q = Qcnstat(targets, output, names=self.names, **kwargs).start()
        self.stats.append(q)
        return q

    def summary(self):
        """One line per CP and RP: the counters that show QCN at work."""
        lines = []
        for sw, port in self.cps():
            st = cp_stats(sw, port)
            if not st:
                lines.append('%s %s: no qcn' % (sw.name, port))
                continue
            lines.append('%s %s: qcn sent %d CNMs in %d samples, '
                         'backlog %d B, drops %d, last qFb %d'
                         % (sw.name, port, st['cnms'], st.get('samples', 0),
                            st.get('backlog', 0), st.get('drops', 0),
                            st.get('last_qfb', 0)))
        for h in self.rps():
            st = rp_stats(h, 'eth0')
            if not st:
                lines.append('%s eth0: no qcn_rp' % h.name)
                continue
            lines.append('%s eth0: qcn_rp took %d of %d CNMs, limiters '
                         '%d active, %d created'
                         % (h.name, st.get('cnm_matched', 0),
                            st.get('cnm_rx', 0), st.get('limiters_active', 0),
                            st.get('limiters_created', 0)))
        return lines

    def show_summary(self):
        """Print summary() on Mininet's output."""
        for line in self.summary():
            output(line + '\n')
