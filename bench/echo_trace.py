#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/echo-trace's report: each run's usual round, call by call.

A round starts at the caller's write() (raw libusb: its OUT submit) and
ends where the next one starts.  Every call of either process inside it,
in order of entry, makes the round's shape; the shape most rounds have is
printed with each call's median start and end (us from the round's start)
and the median gap before it: time since the latest start or end of a
call, which is user-space work or waiting for the CPU."""
import bisect
import collections
import statistics
import sys

CALLS = {1: 'read', 2: 'write', 3: 'writev', 4: 'ioctl', 5: 'poll', 6: 'epoll_wait',
         7: 'timerfd_settime', 8: 'select', 9: 'pselect'}
SETS = {1: 'rd', 2: 'wr', 3: 'rd+wr'}
USBFS = {10: 'SUBMITURB', 11: 'DISCARDURB', 12: 'REAPURB', 13: 'REAPURBNDELAY'}


def label(proc, what, ret):
    call = CALLS.get(what >> 56, '?')
    low = what & 0xffffff
    if call == 'ioctl' and (low >> 8) & 0xff == 0x55:
        call = USBFS.get(low & 0xff, 'usbfs-%d' % (low & 0xff))
        if call == 'SUBMITURB':
            call += ' %s' % ('OUT' if (low >> 16) < 0x80 else 'IN')
        if ret == -11:
            call += ' (EAGAIN)'
    elif call == 'ioctl':
        call += ' 0x%x' % low
    elif call in ('select', 'pselect'):
        call += ' ' + SETS.get(low & 3, '-')
    return proc + ' ' + call


def starts(caller):
    """Caller's records that start a round: OUT submits, else the writes,
    else the reads, of the file it uses most."""
    outs = [r for r in caller if r[2] >> 56 == 4 and (r[2] & 0xffff) == 0x550a and
            ((r[2] & 0xffffff) >> 16) < 0x80]
    if outs:
        return outs
    for call in 2, 1:
        recs = [r for r in caller if r[2] >> 56 == call]
        fds = collections.Counter((r[2] >> 24) & 0xffffffff for r in recs)
        if fds and fds.most_common(1)[0][1] >= 10:
            fd = fds.most_common(1)[0][0]
            return [r for r in recs if (r[2] >> 24) & 0xffffffff == fd]
    return []


def since(rnd, i):
    """Time from the latest moment traced before call i (any call's start
    or end) to its start: the work or the wait that no call shows."""
    t = rnd[i][0]
    marks = [m for x in rnd[:i] for m in x if m <= t]
    return t - max(marks) if marks else 0


def processes(recs):
    """The caller's and the other process's records, each sorted by start,
    and the other's name.  A call longer than a second is left out: a
    thread of libusb's that waits for hotplug events the whole run."""
    keep = [r for r in recs if r[2] - r[1] < 1e9]
    caller = sorted(r[1:] for r in keep if r[0] == 'caller')
    other = sorted(r[1:] for r in keep if r[0] != 'caller')
    return caller, other, next((r[0] for r in recs if r[0] != 'caller'), 'server')


def cut(procs, begin):
    """The rounds from each start to the next: (start, end, calls), the
    calls (process, t0, t1, what, result) of every process in procs
    ((name, records) pairs) that run in it, by start."""
    out = []
    for a, b in zip(begin, begin[1:]):
        lo, hi = a[0], b[0]
        rnd = []
        for name, recs in procs:
            i = bisect.bisect_left(recs, (lo,))
            if i > 0 and recs[i - 1][1] > lo:  # a call that spans the start
                i -= 1
            while i < len(recs) and recs[i][0] < hi:
                rnd.append((name,) + tuple(recs[i]))
                i += 1
        rnd.sort(key=lambda r: r[1])
        out.append((lo, hi, rnd))
    return out


def usual(rounds):
    """The shape (calls in order) most rounds have, those rounds, and how
    many shapes there were."""
    shapes = collections.defaultdict(list)
    for rnd in rounds:
        shapes[tuple(label(r[0], r[3], r[4]) for r in rnd[2])].append(rnd)
    shape, most = max(shapes.items(), key=lambda s: len(s[1]))
    return shape, most, len(shapes)


def print_usual(shape, rounds, width=34):
    """Each call's median gap before it, start, length and end, in us from
    the round's start."""
    rel = [[(r[1] - lo, r[2] - lo) for r in rnd] + [(hi - lo, hi - lo)]
           for lo, hi, rnd in rounds]
    print('%-3s %-*s %9s %9s %9s %9s' % ('', width, 'call', 'gap', 'start', 'in call', 'end'))
    for i, name in enumerate(shape):
        st = statistics.median(r[i][0] for r in rel) / 1e3
        ln = statistics.median(r[i][1] - r[i][0] for r in rel) / 1e3
        en = statistics.median(r[i][1] for r in rel) / 1e3
        gap = statistics.median(since(r, i) for r in rel) / 1e3
        print('%-3d %-*s %9.1f %9.1f %9.1f %9.1f' % (i + 1, width, name, gap, st, ln, en))
    nxt = statistics.median(r[-1][0] for r in rel) / 1e3
    print('%-3s %-*s %9s %9.1f' % ('', width, 'next round starts', '', nxt))


def report(run, recs, result):
    caller, other, server = processes(recs)
    begin = starts(caller)
    if len(begin) < 10:
        print('%s: %d rounds traced, too few' % (run, len(begin)))
        return None
    rounds = cut([('caller', caller), (server, other)], begin)
    shape, most, nshapes = usual(rounds)
    print('\n%s: %s' % (run, result or ''))
    print('usual round: %d of %d rounds (%d shapes); us from the caller\'s first call'
          % (len(most), len(rounds), nshapes))
    print_usual(shape, most)
    gaps = [b[0] - a[0] for a, b in zip(begin, begin[1:])]
    med, low = statistics.median(gaps) / 1e3, min(gaps) / 1e3
    print('all rounds: median %.1f us, minimum %.1f' % (med, low))
    return med, low


def ratios(rounds, floor, name):
    """Each pilotd's echo (median, minimum) over a floor's."""
    for run, r in rounds.items():
        if r and run not in ('floor', 'libusb', 'tty') and not run.endswith('.req'):
            print('%s / %s: median %.2fx, minimum %.2fx' % (run, name, r[0] / floor[0],
                                                           r[1] / floor[1]))


def read_log(path):
    """The TRACE lines' records by run, and every RESULT line's fields."""
    runs = collections.defaultdict(list)
    results = []
    for line in open(path):
        f = line.split()
        if f and f[0] == 'TRACE':
            runs[f[1]].append((f[2], int(f[3]), int(f[4]), int(f[5]), int(f[6])))
        elif f and f[0] == 'RESULT':
            results.append(f[1:])
    return runs, results


def check_clock(f, tool):
    """Ends the report when RESULT fields f say the guest's clock steps
    coarser than a microsecond."""
    if f[0] == 'op=clock' and 'microsecond=yes' not in f:
        sys.exit('%s: the guest had no microsecond clock; no figures' % tool)


def main():
    runs, lines = read_log(sys.argv[1])
    results, writes, writes64k, stated = {}, {}, {}, {}
    for f in lines:
        if f[0].startswith('run=') and f[0].endswith(('.write', '.write64k')):
            kv = dict(x.split('=', 1) for x in f[1:] if '=' in x)
            run, size = f[0][4:].rsplit('.', 1)
            (writes if size == 'write' else writes64k)[run] = (float(kv['mbps']),
                                                               float(kv['cpu_per_mb']))
        elif f[0].startswith('run='):
            results[f[0][4:]] = ' '.join(x for x in f[1:] if x.startswith(('median', 'min', 'mean')))
            kv = dict(x.split('=', 1) for x in f[1:] if '=' in x)
            stated[f[0][4:]] = (float(kv['median_us']), float(kv['min_us']))
        else:
            print(' '.join(f))
            check_clock(f, 'echo-trace')
    for run in runs:  # the server's trace of a pilotd run covers its requests too
        if run.endswith('.req') and run[:-4] in runs:
            runs[run] += [r for r in runs[run[:-4]] if r[0] != 'caller']
    rounds = {run: report(run, runs[run], results.get(run)) for run in runs}
    if writes:
        print('\n1 KiB writes: MB/s, CPU-s per MB (guest), CPU per MB / tty\'s')
        for run, (mbps, cpu) in writes.items():
            tty = writes.get('tty', (0, 0))[1]
            print('%-12s %8.2f %8.4f %8s' % (run, mbps, cpu, '%.2fx' % (cpu / tty) if tty else '-'))
    if writes64k:
        print('\n64 KiB writes: MB/s, CPU-s per MB (guest)')
        for run, (mbps, cpu) in writes64k.items():
            print('%-12s %8.2f %8.4f' % (run, mbps, cpu))
    if rounds.get('floor'):
        for run, r in rounds.items():
            if r and run.endswith('.req'):
                print('%s / cuse-floor: median %.2fx, minimum %.2fx' % (
                    run, r[0] / rounds['floor'][0], r[1] / rounds['floor'][1]))
    if not rounds.get('floor') or not rounds.get('libusb'):
        return
    # the echo's floor: raw libusb's round trip and two requests at the floor
    floor = [rounds['libusb'][i] + 2 * rounds['floor'][i] for i in (0, 1)]
    print('\nfloor of the echo (raw libusb + 2 requests of cuse-floor): '
          'median %.1f us, minimum %.1f' % tuple(floor))
    ratios(rounds, floor, 'floor')
    if 'ipc' not in stated or 'ipc.floor' not in stated:
        return
    # the same with the USB work after a switch from the caller, as in pilotd:
    # the driver in another process, its two socket requests made CUSE's
    ipc = [stated['ipc'][i] - 2 * stated['ipc.floor'][i] + 2 * rounds['floor'][i]
           for i in (0, 1)]
    print('\nraw libusb in a process of its own: echo median %.1f us (minimum %.1f), '
          'a request %.1f (%.1f)' % (stated['ipc'] + stated['ipc.floor']))
    print('floor with the USB work behind a switch (that echo - 2 of its requests '
          '+ 2 of cuse-floor): median %.1f us, minimum %.1f' % tuple(ipc))
    ratios(rounds, ipc, 'that floor')


if __name__ == '__main__':
    main()
