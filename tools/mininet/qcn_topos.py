# SPDX-License-Identifier: GPL-2.0
"""
mn --custom file: scripts/topology's testbeds in Mininet, with QCN.

    sudo mn --custom tools/mininet/qcn_topos.py --switch lxbr \\
        --controller none --topo 'qcn-dumbbell,4,qcn=limit 150000 qeq 26000
        rate 500mbit,qcn_rp=maxrate 2gbit'

Topologies (tools/mininet/qcnnet/topos.py): qcn-dumbbell[,N],
qcn-parking-lot, qcn-hotspot[,K], with scripts/topology's names and
addresses.  qcn= and qcn_rp= (tc's words, no commas) go on every
congestion point and every sender's eth0 once the network is up; without
them the qdiscs are yours to add in the CLI (`sw tc qdisc add dev sw-pr
root qcn ...`, `h1 tc qdisc add dev eth0 root qcn_rp ...`).
Switches: lxbr (Mininet's, in the root namespace) or qcnbr (each bridge
in a namespace of its own, as scripts/topology's); with either, pass
--controller none.
mn's network becomes a QcnMininet (QCN's modules and plugins are checked
before anything is built, the machine's sysctls are left alone), and its
CLI has a `qcn` command that prints the CPs' and RPs' counters.

mn makes every name this file defines one of its own globals: only the
four below are meant, the modules imported are harmless, and no other
name may be imported here (TOPOS, say, would replace mn's table).
"""
import inspect
import os
import sys

# mn runs this file with exec(), without __file__: the code's own file
# name says where the package is
sys.path.insert(0, os.path.dirname(os.path.abspath(
    inspect.currentframe().f_code.co_filename)))

import qcnnet  # noqa: E402
import qcnnet.cli  # noqa: E402

# --topo and --switch choices added to mn's
topos = dict(qcnnet.TOPOS)
switches = {'qcnbr': qcnnet.QcnBridge}
# mn's network class and CLI
Mininet = qcnnet.QcnMininet
CLI = qcnnet.cli.QcnCLI
