#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/per-packet's report: per 64-byte packet moved, the median over the
rounds of each counter of each pilotd and operation, pilotd's and the
reader's (pilot-bench) task-clock (ns; instructions under -icount shift=0),
the guest's busy ticks, MB/s."""
import re
import statistics
import sys

names, counts, runs = [], {}, {}
for line in open(sys.argv[1], errors='replace'):
    line = line.replace('\r', '').strip()
    if line.startswith('RESULT names '):
        names = line.split()[2:]
    m = re.match(r'RESULT bin=(\S+) round=\d+ op=(\S+) guest (\d+) (\d+) (\d+) (\d+) '
                 r'counts (.*) to (.*)', line)
    if m:
        a, b = [[int(x) for x in g.split()] for g in m.group(7, 8)]
        counts.setdefault(m.group(1, 2), []).append(
            ([y - x for x, y in zip(a, b)], int(m.group(5)) - int(m.group(3))))
        continue
    m = re.match(r'RESULT bin=(\S+) round=\d+ op=(\S+) .*mib=(\d+) .*mbps=(\S+)', line)
    t = re.search(r'task_ns=(\d+) cs=(\d+) command_ns=(\d+)', line)
    if m and t:
        packets = int(m.group(3)) * 16384
        runs.setdefault(m.group(1, 2), []).append(
            (float(m.group(4)), int(t.group(1)) / packets, int(t.group(2)) / packets, packets,
             int(t.group(3)) / packets))
keys = sorted(runs, key=lambda k: (k[1], k[0]))
if not keys:
    sys.exit('per-packet: no results')


def row(label, vals, fmt):
    print('%-18s' % label + ''.join(('%18' + fmt) % v for v in vals))


def hist(k, prefix):
    """the rounds' median of a histogram, and the share of its bucket 0"""
    idx = [i for i, n in enumerate(names) if re.fullmatch(prefix + r'\d+', n)]
    h = [sum(c[0][i] for c in counts[k]) for i in idx]
    total, seen = sum(h), 0
    for b, n in enumerate(h):
        seen += n
        if 2 * seen >= total:
            return b, h[0] / total if total else 0
    return 0, 0


print('per 64 B packet   ' + ''.join('%18s' % ('%s %s' % (k[1], k[0]))[-17:] for k in keys))
for i, n in enumerate(names):
    if re.fullmatch(r'(depth|left)\d+', n):
        continue
    vals = [statistics.median(c[0][i] / r[3] for c, r in zip(counts[k], runs[k])) for k in keys]
    if any(v >= 0.00005 for v in vals):
        row(n, vals, '.4f')
print('per round of libusb events (poll)')
row('URBs out (median)', [hist(k, 'depth')[0] for k in keys], 'd')
row('left at its end', [hist(k, 'left')[0] for k in keys], 'd')
row('dry (none left)', ['%.1f%%' % (100 * hist(k, 'left')[1]) for k in keys], 's')
print('per 64 B packet')
row('pilotd task ns', [statistics.median(r[1] for r in runs[k]) for k in keys], '.0f')
row('reader task ns', [statistics.median(r[4] for r in runs[k]) for k in keys], '.0f')
row('pilotd switches', [statistics.median(r[2] for r in runs[k]) for k in keys], '.4f')
row('guest busy ticks', [statistics.median(c[1] / r[3] for c, r in zip(counts[k], runs[k]))
                         for k in keys], '.5f')
row('MB/s (median)', [statistics.median(r[0] for r in runs[k]) for k in keys], '.3f')
print('each run, pilotd / reader task ns per packet, MB/s:')
for k in keys:
    print('  %-16s %s' % ('%s %s' % (k[1], k[0]),
                          '  '.join('%.0f/%.0f %.2f' % (r[1], r[4], r[0]) for r in runs[k])))
