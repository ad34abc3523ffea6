# SPDX-License-Identifier: GPL-2.0
"""
Where QCN comes from: the kernel modules (sch_qcn, rp_limiter) and the tc
plugins (q_qcn.so, q_qcn_rp.so), installed or in this checkout, found as
selftests/lib.sh finds them.  require_qcn() loads the modules and proves
that tc adds both qdiscs, or raises QcnUnavailable saying what is missing.
"""
import os
import shutil
import subprocess
import sysconfig

# tools/mininet/qcnnet/env.py -> the top of the checkout
TOP = os.path.abspath(os.path.join(os.path.dirname(__file__),
                                   '..', '..', '..'))
MODULES = ('sch_qcn', 'rp_limiter')


class QcnUnavailable(RuntimeError):
    """The modules, the plugins or a tool QCN needs here are missing."""


def _run(args, **kwargs):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, check=False, **kwargs)


def module_loaded(name):
    """True when module NAME is in the running kernel."""
    return os.path.isdir('/sys/module/' + name)


def load_module(name):
    """Load module NAME: installed (modprobe), else from this checkout's
    build folders (insmod, after the modules it depends on).  True when it
    is loaded afterwards."""
    if module_loaded(name):
        return True
    if _run(['modprobe', '-q', name]).returncode == 0:
        return True
    release = os.uname().release
    for ko in (os.path.join(TOP, 'build', release, name, name + '.ko'),
               os.path.join(TOP, name, name + '.ko')):
        if not os.path.isfile(ko):
            continue
        # insmod resolves no dependencies (sch_qcn needs the bridge's)
        deps = _run(['modinfo', '-F', 'depends', ko]).stdout.strip()
        for dep in filter(None, deps.split(',')):
            _run(['modprobe', '-q', dep])
        if _run(['insmod', ko]).returncode == 0:
            return True
    return module_loaded(name)


def _tc_default_dirs():
    """The folders a distribution's tc reads plugins from."""
    multiarch = sysconfig.get_config_var('MULTIARCH') or 'x86_64-linux-gnu'
    return ('/usr/lib/%s/tc' % multiarch, '/usr/lib64/tc', '/usr/lib/tc')


def use_tree_plugins():
    """Point tc at this checkout's tc-plugin/ (TC_LIB_DIR, inherited by
    every node Mininet starts afterwards) when TC_LIB_DIR is unset, no
    installed q_qcn.so is found and the checkout has a built one.  Returns
    the TC_LIB_DIR in force, or None for tc's own folder."""
    if os.environ.get('TC_LIB_DIR'):
        return os.environ['TC_LIB_DIR']
    if any(os.path.isfile(os.path.join(d, 'q_qcn.so'))
           for d in _tc_default_dirs()):
        return None
    tree = os.path.join(TOP, 'tc-plugin')
    if os.path.isfile(os.path.join(tree, 'q_qcn.so')):
        os.environ['TC_LIB_DIR'] = tree
        return tree
    return None


def check_tc():
    """Add a qcn and a qcn_rp qdisc in a throwaway namespace; raise
    QcnUnavailable naming what is missing, as scripts/topology does."""
    ns = 'qcnnet-check%d' % os.getpid()
    if _run(['ip', 'netns', 'add', ns]).returncode:
        raise QcnUnavailable('cannot create a network namespace (needs root)')
    try:
        # an Ethernet device, as qcn_rp needs
        res = _run(['ip', '-n', ns, 'link', 'add', 'd0', 'type', 'dummy'])
        if res.returncode:
            raise QcnUnavailable('cannot add a dummy device: '
                                 + res.stderr.strip())
        # an option each: without its plugin tc cannot parse one
        for kind, opt in (('qcn', ['limit', '100kb']),
                          ('qcn_rp', ['maxrate', '1gbit'])):
            res = _run(['ip', 'netns', 'exec', ns, 'tc', 'qdisc', 'replace',
                        'dev', 'd0', 'root', kind] + opt)
            if res.returncode == 0:
                continue
            err = (res.stderr.strip().splitlines() or ['(no message)'])[0]
            msg = 'tc cannot add a %s qdisc here: %s' % (kind, err)
            if 'Unknown qdisc' in res.stderr:
                msg += ('; tc finds no q_%s.so: make install-tools, or '
                        'export TC_LIB_DIR=%s/tc-plugin' % (kind, TOP))
            elif 'qdisc kind is unknown' in res.stderr:
                msg += ('; the kernel has no %s qdisc: load the modules '
                        '(make install, then modprobe sch_qcn rp_limiter), '
                        'or run in the native-speed testbed: '
                        'scripts/uml-run -- ...' % kind)
            raise QcnUnavailable(msg)
    finally:
        _run(['ip', 'netns', 'del', ns])


def require_qcn(modules=MODULES):
    """Load MODULES and make tc find the plugins (TC_LIB_DIR, see
    use_tree_plugins); raise QcnUnavailable with the reason otherwise.
    Call it before the network is built, so that the nodes' shells
    inherit TC_LIB_DIR."""
    if os.geteuid() != 0:
        raise QcnUnavailable('needs root (network namespaces, tc, modules)')
    for tool in ('ip', 'tc'):
        if not shutil.which(tool):
            raise QcnUnavailable('needs %s (iproute2)' % tool)
    for mod in modules:
        if not load_module(mod):
            raise QcnUnavailable(
                'cannot load %s.ko: build it (make) or install it (make '
                'install, or DKMS: make dkms-install); this kernel is %s'
                % (mod, os.uname().release))
    use_tree_plugins()
    check_tc()


def find_tool(name):
    """Path of one of the project's tools (qcnstat, qcnplot): this
    checkout's tools/NAME if built, else NAME on PATH (make install-tools);
    raises QcnUnavailable."""
    tree = os.path.join(TOP, 'tools', name)
    if os.access(tree, os.X_OK):
        return tree
    found = shutil.which(name)
    if found:
        return found
    raise QcnUnavailable('%s not found: make tools (or make install-tools)'
                         % name)
