#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
make demo's dumbbell in Mininet: four senders h1..h4 -> switch sw -> r,
the switch's port to r (sw-pr) a qcn congestion point of 500 Mbit/s
(--rate) with the standard's buffer and Qeq (limit 150000 B, qeq 26000
B), 4000-byte frames on every link, one iperf3 TCP flow per sender (h2,
h3, h4 joining 1, 2 and 3 s after h1, 12 s in all), two ways:
  drop-tail  no reaction point: the port's CNMs reach senders that
             ignore them, only its buffer limit acts
  qcn        qcn_rp with the standard's parameters on every sender
Writes into --out (default $QCN_OUT, else out/mininet):
  dumbbell.csv   per scenario, while all four flows run: the queue's
                 mean and p99, drops, CNMs sent, limiters installed,
                 each flow's goodput and Jain's fairness
  dumbbell.png   per scenario the queue against Qeq and the limit, and
                 each flow's goodput
  NAME.csv       qcnstat's CSV of a scenario (50 ms); NAME.png its
                 qcnplot(8) plot
Run as root where the modules load (scripts/uml-run -- ... or a host with
them installed); tools/mininet/README.md says more.
"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))

from mininet.log import setLogLevel  # noqa: E402

from qcnnet import (DumbbellTopo, QcnMininet, QcnUnavailable,  # noqa: E402
                    add_qcn, add_qcn_rp, cp_stats, find_tool, read_csv, rows,
                    rp_stats)
from qcnnet import traffic  # noqa: E402

LIMIT, QEQ = 150000, 26000
SENDERS = 4
PORT = 5200


def queue_stats(data, t_from, t_to):
    """(mean, p99) of the port's queue in bytes over [T_FROM, T_TO) s: the
    mean from the kernel's integral (backlog_ns over stamp_ns), the p99
    from qcnstat's samples."""
    q = [r for r in rows(data, kind='qcn')
         if t_from * 1000 <= float(r['t_ms']) < t_to * 1000
         and r['stamp_ns'] != '' and r['backlog_ns'] != '']
    if len(q) < 2:
        return 0.0, 0.0
    ds = int(q[-1]['stamp_ns']) - int(q[0]['stamp_ns'])
    db = int(q[-1]['backlog_ns']) - int(q[0]['backlog_ns'])
    samples = sorted(int(r['backlog']) for r in q)
    return (db / ds if ds > 0 else 0.0,
            samples[min(len(samples) - 1, int(len(samples) * 0.99))])


def scenario(name, args, work):
    """Run scenario NAME; returns its row and each flow's goodput series."""
    net = QcnMininet(DumbbellTopo(SENDERS), switch=args.switch_cls,
                     mtu=args.mtu, netns_prefix='mn%d' % os.getpid())
    procs = []
    try:
        net.start()
        sw, r = net['sw'], net['r']
        add_qcn(sw, 'sw-pr', limit=LIMIT, qeq=QEQ,
                rate='%dmbit' % args.rate)
        if name == 'qcn':
            for h in net.rps():
                add_qcn_rp(h, maxrate='2gbit')
        ports = [PORT + i for i in range(1, SENDERS + 1)]
        procs += traffic.iperf3_servers(r, ports)
        # the port and, where they run qcn_rp, the senders, every 50 ms
        targets = [(sw, 'sw-pr')]
        if name == 'qcn':
            targets += [(h, 'eth0') for h in net.rps()]
        csv_path = os.path.join(args.out, name + '.csv')
        stat = net.qcnstat(csv_path, targets, interval='50ms',
                           duration='%ds' % args.secs)
        t0 = time.monotonic()
        starts = []
        for i, h in enumerate(net.rps()):
            # one a second; a flow ends with the scenario
            time.sleep(max(0.0, t0 + i - time.monotonic()))
            starts.append(time.monotonic() - t0)
            procs.append(traffic.iperf3_client(
                h, r, ports[i], args.secs - i,
                os.path.join(work, '%s-%d.json' % (name, i + 1))))
        # the servers exit with their flows (-1); a flow that cannot
        # connect must not hang the run
        for p in procs:
            p.wait(args.secs + 30)
        stat.wait(30)
        cp = cp_stats(sw, 'sw-pr')
        limiters = sum(rp_stats(h).get('limiters_created', 0)
                       for h in net.rps())
    finally:
        traffic.stop(procs)
        net.stop()

    series = []
    for i in range(SENDERS):
        res = traffic.iperf3_result(os.path.join(work, '%s-%d.json'
                                                 % (name, i + 1)))
        if not res.get('server_output_json'):
            sys.exit('dumbbell: %s: the flow from h%d did not run: %s'
                     % (name, i + 1, res.get('error', 'no result')))
        series.append(traffic.received_series(res, starts[i]))
    # the window: from 1 s after the last flow joined to 1 s before the end
    t_from, t_to = starts[-1] + 1, args.secs - 1
    goodput = [traffic.mean_between(s, t_from, t_to) for s in series]
    qmean, qp99 = queue_stats(read_csv(csv_path), t_from, t_to)
    drops, sent = cp.get('drops', 0), cp.get('packets', 0)
    row = {
        'scenario': name,
        'queue_mean_kb': '%.1f' % (qmean / 1000),
        'queue_p99_kb': '%.1f' % (qp99 / 1000),
        'drops_pct': '%.2f' % (100.0 * drops / (drops + sent)
                               if drops + sent else 0),
        'cnms': cp.get('cnms', 0),
        'limiters_created': limiters,
        'jain': '%.3f' % traffic.jain(goodput),
    }
    for i, g in enumerate(goodput, 1):
        row['h%d_mbit' % i] = '%.1f' % g
    return row, series


def plot(args, scenarios, results):
    """dumbbell.png: per scenario the queue (top) and the goodput
    (bottom)."""
    data = []
    for name in scenarios:
        qf = os.path.join(args.work, name + '.q')
        with open(qf, 'w') as f:
            for r in rows(read_csv(os.path.join(args.out, name + '.csv')),
                          kind='qcn'):
                f.write('%.3f %.1f\n' % (float(r['t_ms']) / 1000,
                                         int(r['backlog']) / 1000))
        gf = os.path.join(args.work, name + '.g')
        with open(gf, 'w') as f:
            for i, s in enumerate(results[name][1], 1):
                f.write('# h%d\n' % i)
                for t, v in s:
                    f.write('%.2f %.1f\n' % (t, v))
                f.write('\n\n')
        data.append((name, qf, gf, results[name][0]))
    gp = ["set terminal pngcairo size %d,800 font ',10'" % (600 * len(data)),
          "set output '%s'" % os.path.join(args.out, 'dumbbell.png'),
          "set multiplot layout 2,%d title 'linux-qcn in Mininet: %d TCP "
          "flows through a %d Mbit/s qcn port'" % (len(data), SENDERS,
                                                   args.rate),
          'set grid; set key top right; set xrange [0:%d]' % args.secs]
    for name, qf, _, row in data:
        gp += ['set title "%s: queue mean %s KB, drops %s %%"'
               % (name, row['queue_mean_kb'], row['drops_pct']),
               "set ylabel 'queue (KB)'; set yrange [0:%d]"
               % (LIMIT * 11 // 10000),
               "plot '%s' using 1:2 with lines title 'queue', %d with lines "
               "dt 2 title 'Qeq', %d with lines dt 2 title 'limit'"
               % (qf, QEQ // 1000, LIMIT // 1000)]
    for name, _, gf, row in data:
        gp += ['set title "%s: Jain %s"' % (name, row['jain']),
               "set ylabel 'goodput (Mbit/s)'; set yrange [0:%d]"
               % (args.rate * 11 // 10),
               "plot for [i=0:%d] '%s' index i using 1:2 with linespoints "
               "pt 7 ps 0.4 title sprintf('h%%d', i + 1)" % (SENDERS - 1, gf)]
    gp.append('unset multiplot')
    traffic.gnuplot('\n'.join(gp) + '\n')


def qcnplot(args, scenarios):
    """NAME.png: qcnplot(8) of each scenario's qcnstat CSV."""
    try:
        tool = find_tool('qcnplot')
    except QcnUnavailable as e:
        print('dumbbell: no per-scenario plots: %s' % e)
        return
    for name in scenarios:
        subprocess.run([tool, '-o', os.path.join(args.out, name + '.png'),
                        '--qeq', str(QEQ), '--limit', str(LIMIT),
                        '--window', '100ms', '--title',
                        '%s: %d TCP flows, %d Mbit/s port (Mininet)'
                        % (name, SENDERS, args.rate),
                        os.path.join(args.out, name + '.csv')],
                       stdout=subprocess.DEVNULL, check=False)


def main():
    ap = traffic.example_parser(__doc__, 'seconds per scenario (12)')
    args = traffic.example_args(ap)
    if args.secs < SENDERS + 3:
        ap.error('--secs must be at least %d' % (SENDERS + 3))
    os.makedirs(args.out, exist_ok=True)
    setLogLevel('warning')
    scenarios = ('drop-tail', 'qcn')
    results = {}
    try:
        with tempfile.TemporaryDirectory() as work:
            args.work = work
            for name in scenarios:
                print('dumbbell: %s, %d s' % (name, args.secs), flush=True)
                results[name] = scenario(name, args, work)
            plot(args, scenarios, results)
    except QcnUnavailable as e:
        sys.exit('dumbbell: %s' % e)
    except subprocess.TimeoutExpired as e:
        sys.exit('dumbbell: did not end in time: %s' % ' '.join(e.cmd))
    cols = list(results[scenarios[0]][0])
    with open(os.path.join(args.out, 'dumbbell.csv'), 'w') as f:
        f.write(','.join(cols) + '\n')
        for name in scenarios:
            f.write(','.join(str(results[name][0][c]) for c in cols) + '\n')
    for name in scenarios:
        print(', '.join('%s %s' % (c, results[name][0][c]) for c in cols))
    qcnplot(args, scenarios)
    print('dumbbell: %s/dumbbell.{csv,png}, {%s}.{csv,png} (qcnstat, '
          'qcnplot)' % (args.out, ','.join(scenarios)))


if __name__ == '__main__':
    main()
