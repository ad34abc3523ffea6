# SPDX-License-Identifier: GPL-2.0
"""
qcnnet: linux-qcn's congestion point (qdisc qcn) and reaction point
(qdisc qcn_rp) in Mininet networks.  tools/mininet/README.md is the
reference; tools/mininet/examples/ are experiments to copy.

    from qcnnet import QcnMininet, DumbbellTopo, add_qcn, add_qcn_rp
    net = QcnMininet(DumbbellTopo(4))
    net.start()
    add_qcn(net['sw'], 'sw-pr', limit=150000, qeq=26000, rate='500mbit')
    for h in net.rps():
        add_qcn_rp(h, maxrate='2gbit')
    ...
    net.stop()
"""
from .env import (QcnUnavailable, TOP, find_tool, load_module, require_qcn,
                  use_tree_plugins)
from .net import QcnBridge, QcnMininet
from .stat import NetnsNames, Qcnstat, last, read_csv, rows
from .tc import (QCN_CLASS_OPTS, QCN_OPTS, QCN_RP_OPTS, TcError,
                 add_af_classes, add_qcn, add_qcn_class, add_qcn_filter,
                 add_qcn_rp, cnms_sent, cp_stats, del_root, qdisc_stats,
                 qdiscs, rp_stats, show_classes, tc, tc_words)
from .topos import (NET, TOPOS, DumbbellTopo, HotspotTopo, ParkingLotTopo,
                    QcnTopo, host_ip, host_mac)

__all__ = [
    'QcnUnavailable', 'TOP', 'find_tool', 'load_module', 'require_qcn',
    'use_tree_plugins',
    'QcnBridge', 'QcnMininet',
    'NetnsNames', 'Qcnstat', 'last', 'read_csv', 'rows',
    'QCN_CLASS_OPTS', 'QCN_OPTS', 'QCN_RP_OPTS', 'TcError',
    'add_af_classes', 'add_qcn', 'add_qcn_class', 'add_qcn_filter',
    'add_qcn_rp', 'cnms_sent', 'cp_stats', 'del_root', 'qdisc_stats',
    'qdiscs', 'rp_stats', 'show_classes', 'tc', 'tc_words',
    'NET', 'TOPOS', 'DumbbellTopo', 'HotspotTopo', 'ParkingLotTopo',
    'QcnTopo', 'host_ip', 'host_mac',
]
