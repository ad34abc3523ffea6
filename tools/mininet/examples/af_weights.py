#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
AF-QCN's weighted shares in Mininet: make demo's dumbbell (h1..h4 -> sw
-> r, sw-pr a 500 Mbit/s qcn port with limit 150000 B and qeq 26000 B,
4000-byte frames) with the port in AF-QCN (af on, Ts 1 ms, the paper's
active threshold of 20 KB per 1 ms at 10 Gb/s scaled to the port) and
one class per sender, weights 4:3:2:1 (a u32 filter on the source
address each), qcn_rp with the standard's parameters on every sender and
one iperf3 TCP flow each, all four for 12 s.
Writes into --out (default $QCN_OUT, else out/mininet):
  af_weights.csv  per class, from 2 s on: weight, target and measured
                  share of the goodput, goodput, the CP's arrival rate
                  estimate and fair share, CNMs; and Jain's index of
                  goodput over weight
  af_weights.png  each class's arrival rate (qcnstat) and each flow's
                  goodput (iperf3) against its weighted share
  af.csv          qcnstat's CSV (50 ms)
Expect the shares in weight order, the lightest class above its 10 %
(README, Known limits: the standard's RP timer favours light flows).
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))

from mininet.log import setLogLevel  # noqa: E402

from qcnnet import (DumbbellTopo, QcnMininet, QcnUnavailable,  # noqa: E402
                    add_af_classes, add_qcn, add_qcn_rp, cp_stats, read_csv,
                    rows)
from qcnnet import traffic  # noqa: E402

LIMIT, QEQ = 150000, 26000
WEIGHTS = (4, 3, 2, 1)
PORT = 5200
SKIP = 2  # seconds left out at the start: the flows' slow start


def run(args, work):
    """The experiment; returns the classes' rows, the flows' goodput
    series and Jain's index."""
    n = len(WEIGHTS)
    net = QcnMininet(DumbbellTopo(n), switch=args.switch_cls, mtu=args.mtu,
                     netns_prefix='mn%d' % os.getpid())
    procs = []
    csv_path = os.path.join(args.out, 'af.csv')
    try:
        net.start()
        sw, r, senders = net['sw'], net['r'], net.rps()
        # AF-QCN's active threshold, 20 KB per 1 ms at 10 Gbit/s, scaled
        add_qcn(sw, 'sw-pr', limit=LIMIT, qeq=QEQ, rate='%dmbit' % args.rate,
                af=True, ts='1ms', active=args.rate * 2)
        classes = add_af_classes(sw, 'sw-pr', list(zip(senders, WEIGHTS)))
        for h in senders:
            add_qcn_rp(h, maxrate='2gbit')
        ports = [PORT + i for i in range(1, n + 1)]
        procs += traffic.iperf3_servers(r, ports)
        stat = net.qcnstat(csv_path, [(sw, 'sw-pr')]
                           + [(h, 'eth0') for h in senders],
                           interval='50ms', duration='%ds' % args.secs)
        for i, h in enumerate(senders):
            procs.append(traffic.iperf3_client(
                h, r, ports[i], args.secs,
                os.path.join(work, 'af-%d.json' % (i + 1))))
        # the servers exit with their flows (-1)
        for p in procs:
            p.wait(args.secs + 30)
        stat.wait(30)
        cnms = cp_stats(sw, 'sw-pr').get('cnms', 0)
    finally:
        traffic.stop(procs)
        net.stop()

    series = []
    for i in range(n):
        res = traffic.iperf3_result(os.path.join(work, 'af-%d.json'
                                                 % (i + 1)))
        if not res.get('server_output_json'):
            sys.exit('af_weights: the flow from h%d did not run: %s'
                     % (i + 1, res.get('error', 'no result')))
        # the flows start together, with qcnstat's clock
        series.append(traffic.received_series(res, 0.0))
    goodput = [traffic.mean_between(s, SKIP, args.secs) for s in series]
    total = sum(goodput) or 1.0
    data = read_csv(csv_path)
    out = []
    for i, (cls, w) in enumerate(zip(classes, WEIGHTS)):
        cr = [x for x in rows(data, kind='qcn-class')
              if x['handle'] == cls and float(x['t_ms']) >= SKIP * 1000]

        def mean(col, cr=cr):
            vals = [float(x[col]) for x in cr if x.get(col, '') != '']
            return sum(vals) / len(vals) / 1e6 if vals else 0.0

        out.append({
            'class': cls, 'weight': w,
            'target_pct': '%.1f' % (100.0 * w / sum(WEIGHTS)),
            'share_pct': '%.1f' % (100.0 * goodput[i] / total),
            'goodput_mbit': '%.1f' % goodput[i],
            'rate_est_mbit': '%.1f' % mean('rate_est_bps'),
            'fair_mbit': '%.1f' % mean('fair_bps'),
            'cnms': int(float(cr[-1]['cnm_sent'])) if cr else 0,
        })
    return out, series, traffic.jain(goodput, list(WEIGHTS)), cnms


def plot(args, work, table, series):
    """af_weights.png: the classes' arrival rates (top), the flows'
    goodput (bottom), each against its weighted share of the port."""
    data = read_csv(os.path.join(args.out, 'af.csv'))
    rf = os.path.join(work, 'rates')
    gf = os.path.join(work, 'goodput')
    with open(rf, 'w') as f:
        for row in table:
            f.write('# %s\n' % row['class'])
            for x in rows(data, kind='qcn-class'):
                if x['handle'] == row['class'] and x['rate_bps'] != '':
                    f.write('%.3f %.1f\n' % (float(x['t_ms']) / 1000,
                                             float(x['rate_bps']) / 1e6))
            f.write('\n\n')
    with open(gf, 'w') as f:
        for i, s in enumerate(series, 1):
            f.write('# h%d\n' % i)
            for t, v in s:
                f.write('%.2f %.1f\n' % (t, v))
            f.write('\n\n')
    targets = ', '.join('%.1f with lines dt 2 lc %d notitle'
                        % (args.rate * w / sum(WEIGHTS), i + 1)
                        for i, w in enumerate(WEIGHTS))
    title = ', '.join('h%d %s %%' % (i, row['share_pct'])
                      for i, row in enumerate(table, 1))
    gp = ["set terminal pngcairo size 1000,800 font ',10'",
          "set output '%s'" % os.path.join(args.out, 'af_weights.png'),
          "set multiplot layout 2,1 title 'AF-QCN in Mininet: weights %s, "
          "%d Mbit/s port (dashed: weighted shares)'"
          % (':'.join(map(str, WEIGHTS)), args.rate),
          'set grid; set key top right; set xrange [0:%d]' % args.secs,
          "set yrange [0:%d]" % (args.rate * 8 // 10),
          "set title 'arrivals per class at the port (qcnstat)'",
          "set ylabel 'Mbit/s'",
          "plot for [i=0:%d] '%s' index i using 1:2 with lines lc i+1 "
          "title sprintf('1:%%d, weight %%d', i + 1, %d - i), %s"
          % (len(WEIGHTS) - 1, rf, len(WEIGHTS), targets),
          "set title 'goodput per flow (iperf3): %s'" % title,
          "set xlabel 'time (s)'",
          "plot for [i=0:%d] '%s' index i using 1:2 with linespoints pt 7 "
          "ps 0.4 lc i+1 title sprintf('h%%d', i + 1), %s"
          % (len(WEIGHTS) - 1, gf, targets),
          'unset multiplot']
    traffic.gnuplot('\n'.join(gp) + '\n')


def main():
    ap = traffic.example_parser(__doc__, 'seconds of traffic (12)')
    args = traffic.example_args(ap)
    if args.secs <= SKIP + 2:
        ap.error('--secs must be more than %d' % (SKIP + 2))
    os.makedirs(args.out, exist_ok=True)
    setLogLevel('warning')
    print('af_weights: 4 TCP flows, weights 4:3:2:1, %d s' % args.secs,
          flush=True)
    try:
        with tempfile.TemporaryDirectory() as work:
            table, series, j, cnms = run(args, work)
            plot(args, work, table, series)
    except QcnUnavailable as e:
        sys.exit('af_weights: %s' % e)
    except subprocess.TimeoutExpired as e:
        sys.exit('af_weights: did not end in time: %s' % ' '.join(e.cmd))
    cols = list(table[0])
    with open(os.path.join(args.out, 'af_weights.csv'), 'w') as f:
        f.write(','.join(cols) + ',jain\n')
        for row in table:
            f.write(','.join(str(row[c]) for c in cols) + ',%.3f\n' % j)
    for row in table:
        print(', '.join('%s %s' % (c, row[c]) for c in cols))
    print("Jain's index of goodput/weight %.3f; the port sent %d CNMs"
          % (j, cnms))
    print('af_weights: %s/af_weights.{csv,png}, af.csv (qcnstat)' % args.out)


if __name__ == '__main__':
    main()
