# SPDX-License-Identifier: GPL-2.0
"""
tc on Mininet nodes: the qcn congestion point on a switch's egress port,
its AF-QCN classes and filters, the qcn_rp reaction point on a host's
interface, and their statistics (tc -s -j).

Options are the plugins' own names, given as keyword arguments with '_'
for '-' (ai_rate=... is ai-rate; memory_limit and flow_limit keep their
underscore) or as one string in tc's words; a name the plugin does not
take is refused here, before tc runs.  Values are tc's: a bare size is
bytes, '150kb' 153600 bytes, a bare rate bit/s, a bare time us; True and
False are on and off.  tc-qcn(8) and tc-qcn_rp(8) say what each one does.
"""
import json
import shlex

# tc-plugin/q_qcn.c: qcn_opts and qcn_class_opts
QCN_OPTS = ('limit', 'memory_limit', 'rate', 'sched', 'qeq', 'w', 'interval',
            'sample', 'keepalive', 'cpid', 'af', 'alpha', 'ts', 'beta',
            'active', 'feedback', 'fb-period', 'af-fb', 'fabric', 'pfc-xoff',
            'pfc-xon', 'pfc-quanta', 'cp')
QCN_CLASS_OPTS = ('weight', 'maxrate')
# tc-plugin/q_qcn_rp.c: rp_opts
QCN_RP_OPTS = ('maxrate', 'max-rate', 'gd', 'ai-rate', 'hai-rate',
               'byte-reset', 'time-reset', 'threshold', 'min-rate', 'min-dec',
               'mode', 'qcnt-period', 'limiters', 'flow', 'limit', 'jitter',
               'flow_limit', 'memory_limit', 'naimd-gi', 'naimd-ru',
               'naimd-gd', 'fb-unit', 'ap-packets', 'w', 'start-rate')
# the xstats of qcn that count the CNMs sent, one per culprit selection
QCN_CNM_KEYS = ('cnm_arrival', 'cnm_occupancy', 'cnm_two_samples')


class TcError(RuntimeError):
    """tc refused a command; the message is tc's."""


def tc_words(kind, names, spec=None, **opts):
    """tc's words for SPEC (a string or a list of words) and OPTS
    (name=value, '_' for '-'), every name checked against NAMES."""
    if spec is None:
        words = []
    elif isinstance(spec, str):
        words = shlex.split(spec)
    else:
        words = [str(w) for w in spec]
    for key, value in opts.items():
        if value is None:
            continue
        name = key if key in names else key.replace('_', '-')
        if name not in names:
            raise ValueError('%s has no option %r; it takes: %s'
                             % (kind, key, ' '.join(names)))
        if value is True or value is False:
            value = 'on' if value else 'off'
        words += [name, str(value)]
    return words


def tc(node, *words):
    """Run tc WORDS on NODE (in its network namespace); its standard
    output, or TcError with tc's message."""
    args = ['tc'] + [str(w) for w in words]
    out, err, rc = node.pexec(args)
    if rc:
        raise TcError('%s: %s: %s' % (node.name, ' '.join(args),
                                      err.strip() or 'exit %d' % rc))
    return out


def _intf_name(node, dev):
    if dev is None:
        intf = node.defaultIntf()
        if intf is None:
            raise ValueError('%s has no interface' % node.name)
        return intf.name
    return str(dev)


def add_qcn(node, dev, spec=None, handle='1:', parent='root', replace=False,
            **opts):
    """The qcn congestion point on NODE's interface DEV (a switch's port
    toward the receivers: the frames it queues leave by it).  E.g.
    add_qcn(sw, 'sw-pr', limit=150000, qeq=26000, rate='1gbit')."""
    words = tc_words('qcn', QCN_OPTS, spec, **opts)
    where = ['root'] if parent == 'root' else ['parent', parent]
    tc(node, 'qdisc', 'replace' if replace else 'add', 'dev', dev, *where,
       'handle', handle, 'qcn', *words)


def add_qcn_class(node, dev, classid, weight=None, maxrate=None,
                  parent='1:'):
    """An AF-QCN class of the qcn qdisc PARENT on DEV (weight 1..65535,
    maxrate a cap); it takes effect with the qdisc's af on."""
    words = tc_words('qcn class', QCN_CLASS_OPTS, weight=weight,
                     maxrate=maxrate)
    tc(node, 'class', 'add', 'dev', dev, 'parent', parent, 'classid', classid,
       'qcn', *words)


def add_qcn_filter(node, dev, classid, src=None, dst=None, parent='1:',
                   prio=1):
    """A u32 filter sending IPv4 traffic from SRC and/or to DST (an
    address, a prefix, or a Mininet host) to class CLASSID."""
    match = []
    for what, addr in (('src', src), ('dst', dst)):
        if addr is None:
            continue
        addr = addr.IP() if hasattr(addr, 'IP') else str(addr)
        if '/' not in addr:
            addr += '/32'
        match += ['match', 'ip', what, addr]
    if not match:
        raise ValueError('add_qcn_filter: give src or dst')
    tc(node, 'filter', 'add', 'dev', dev, 'parent', parent, 'protocol', 'ip',
       'prio', prio, 'u32', *match, 'flowid', classid)


def add_af_classes(node, dev, weights, maxrates=None, parent='1:'):
    """AF-QCN classes for senders: WEIGHTS is a list of (source, weight),
    source a Mininet host or an IPv4 address or prefix; the I-th becomes
    class PARENT-major:I with a filter on its source address.  MAXRATES,
    if given, is a list of caps in the same order (None: no cap).  The
    qcn qdisc needs af on (add_qcn(..., af=True)).  Returns the classids."""
    major = parent.split(':')[0]
    ids = []
    for i, (src, weight) in enumerate(weights, 1):
        classid = '%s:%d' % (major, i)
        cap = maxrates[i - 1] if maxrates else None
        add_qcn_class(node, dev, classid, weight=weight, maxrate=cap,
                      parent=parent)
        add_qcn_filter(node, dev, classid, src=src, parent=parent)
        ids.append(classid)
    return ids


def add_qcn_rp(node, dev=None, spec=None, replace=False, **opts):
    """The qcn_rp reaction point as the root qdisc of NODE's DEV (default
    its first interface, the topologies' eth0).  E.g.
    add_qcn_rp(h1, maxrate='2gbit') or add_qcn_rp(h1, mode='qcn-t')."""
    dev = _intf_name(node, dev)
    words = tc_words('qcn_rp', QCN_RP_OPTS, spec, **opts)
    tc(node, 'qdisc', 'replace' if replace else 'add', 'dev', dev, 'root',
       'qcn_rp', *words)


def del_root(node, dev=None):
    """Back to the device's default root qdisc; False if there was none
    to delete."""
    try:
        tc(node, 'qdisc', 'del', 'dev', _intf_name(node, dev), 'root')
    except TcError:
        return False
    return True


def qdiscs(node, dev=None):
    """`tc -s -j qdisc show dev DEV` on NODE, as a list of dicts (the
    plugins' xstats are keys of their qdisc's dict)."""
    out = tc(node, '-s', '-j', 'qdisc', 'show', 'dev', _intf_name(node, dev))
    return json.loads(out or '[]')


def qdisc_stats(node, dev=None, kind=None):
    """The statistics of DEV's root qdisc (of the first of kind KIND if
    given), or {} if there is none."""
    for q in qdiscs(node, dev):
        if (q.get('kind') == kind) if kind else q.get('root'):
            return q
    return {}


def cnms_sent(stats):
    """The CNMs a qcn qdisc's statistics count as sent, all culprit
    selection modes."""
    return sum(int(stats.get(k, 0)) for k in QCN_CNM_KEYS)


def cp_stats(node, dev):
    """The qcn qdisc's statistics on DEV, with 'cnms' (CNMs sent)."""
    st = qdisc_stats(node, dev, kind='qcn')
    if st:
        st['cnms'] = cnms_sent(st)
    return st


def rp_stats(node, dev=None):
    """The qcn_rp qdisc's statistics on DEV (cnm_rx, cnm_matched,
    limiters_created, limiters_active, throttled, ...)."""
    return qdisc_stats(node, dev, kind='qcn_rp')


def show_classes(node, dev=None):
    """`tc -s class show` as text: AF-QCN classes (rate estimate, fair
    share, CNMs) or qcn_rp limiters (flow, CR, TR, state).  iproute2 6.1
    prints classes as text even with -j; qcnstat gives them as CSV."""
    return tc(node, '-s', 'class', 'show', 'dev', _intf_name(node, dev))
