#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/slp-trace's report: one PADP fragment of an SLP install, call by call.

A fragment starts at palm-sync's write() on /dev/pilot (over libusb: its
OUT submit) and ends where the next starts.  For each install: the usual
fragment (echo_trace.py's table), the calls per fragment over the whole
install, and each fragment's time split by what it was spent in.  The
split gives every moment to one call: of the calls running then, the one
that started last (on the guest's one vCPU the other process waits inside
its call); a wait (epoll_wait, poll, select) only while no other call is
running and the other process is inside a call too (else the other
process is the one running).  What no call gets is a gap: user-space
work, or waiting for the CPU."""
import collections
import statistics
import sys

import echo_trace as et

READ, WRITE, WRITEV, IOCTL, POLL, EPOLL, TIMERFD, SELECT, PSELECT = range(1, 10)
WAITS = (POLL, EPOLL, SELECT, PSELECT)
KINDS = ['request', 'select', 'push', 'usb', 'timer', 'gap']
MEANING = {'request': 'the requests: palm-sync\'s write and read, pilotd\'s epoll_wait '
                      'for them, read of /dev/cuse, writev',
           'select': 'palm-sync\'s select (answered by the kernel)',
           'push': 'pilotd\'s pushes (writes to /dev/cuse)',
           'usb': 'usbfs ioctls, libusb\'s poll, pilotd\'s epoll_wait for the handheld',
           'timer': 'timerfd_settime, other calls',
           'gap': 'no call: user-space work or waiting for the CPU'}


def call(r):
    return r[2] >> 56


def fd(r):
    return (r[2] >> 24) & 0xffffffff


def usbfs(r):
    return call(r) == IOCTL and (r[2] >> 8) & 0xff == 0x55


def main_fd(recs, what):
    """The fd most of a process's calls of type what use."""
    fds = collections.Counter(fd(r) for r in recs if call(r) == what)
    return fds.most_common(1)[0][0] if fds else None


def kinds(caller, server):
    """What each call is spent on (the split's rows), by record."""
    kind = {}
    for r in caller:
        c = call(r)
        kind[r] = ('select' if c in (SELECT, PSELECT) else
                   'request' if c in (READ, WRITE) else
                   'usb' if c == POLL or usbfs(r) else 'timer')
    cuse = main_fd(server, READ)
    for i, r in enumerate(server):
        c = call(r)
        if c == EPOLL:  # waiting for what it returned: the next call says
            n = server[i + 1] if i + 1 < len(server) else r
            kind[r] = ('request' if call(n) == READ and fd(n) == cuse else
                       'usb' if call(n) == POLL or usbfs(n) else 'timer')
        else:
            kind[r] = ('push' if c == WRITE and fd(r) == cuse else
                       'request' if c in (READ, WRITEV) else
                       'usb' if c == POLL or usbfs(r) else 'timer')
    return kind


def split(rnd, procs, kind):
    """A fragment's time (ns) by kind: every moment to one call, or a gap."""
    lo, hi, calls = rnd
    marks = sorted({lo, hi} | {min(max(t, lo), hi) for r in calls for t in r[1:3]})
    out = collections.Counter()
    for a, b in zip(marks, marks[1:]):
        on = [r for r in calls if r[1] <= a and r[2] >= b]
        busy = [r for r in on if call(r[1:]) not in WAITS]
        if busy or {r[0] for r in on} != procs:
            on = busy
        out[kind[max(on, key=lambda r: r[1])[1:]] if on else 'gap'] += b - a
    return out


def counts(caller, server, lo, hi, n):
    """Calls per fragment over the install, by type (and what returned nothing)."""
    out = collections.Counter()
    cuse = main_fd(server, READ)
    for name, recs in ('palm-sync', caller), ('pilotd', server):
        for r in recs:
            if not lo <= r[0] < hi:
                continue
            what = et.label(name, r[2], r[3])
            if call(r) == READ and name == 'pilotd':
                what += ' /dev/cuse' if fd(r) == cuse else ' fd %d' % fd(r)
            if call(r) == WRITE and name == 'pilotd':
                what += ' /dev/cuse (push)' if fd(r) == cuse else ' fd %d' % fd(r)
            if call(r) in (EPOLL, POLL, SELECT, PSELECT) and r[3] == 0:
                what += ' (nothing)'
            out[what] += 1
    return {k: v / n for k, v in out.items()}


def cpu(info, n, server):
    """Per fragment (us): the install's time, pilotd's and palm-sync's CPU
    time (task-clock) and the rest: the vCPU idle, or the kernel's own."""
    try:
        wall = float(info['secs']) * 1e6 / n
        own = int(info['command_ns']) / 1e3 / n
        drv = int(info['task_ns']) / 1e3 / n if server else 0.0
    except (KeyError, ValueError):
        return None
    return {'install': wall, 'pilotd CPU': drv, 'palm-sync CPU': own,
            'rest': wall - drv - own}


def install(run, recs, info):
    """One install's tables; returns its per-fragment figures."""
    caller, server, name = et.processes(recs)
    begin = et.starts(caller)
    if len(begin) < 100:
        print('%s: %d fragments traced, too few' % (run, len(begin)))
        return None
    procs = [('caller', caller)] + ([(name, server)] if server else [])
    rounds = et.cut(procs, begin)
    shape, most, nshapes = et.usual(rounds)
    lo, hi = begin[0][0], begin[-1][0]
    print('\n%s: install %s s, %d fragments (palm-sync\'s %s), %.1f us each (mean),'
          ' median %.1f' % (run, info.get('secs', '?'), len(rounds), 'OUT submits' if not server else 'writes',
                            (hi - lo) / len(rounds) / 1e3,
                            statistics.median(h - l for l, h, _ in rounds) / 1e3))
    times = cpu(info, len(rounds), server)
    if times:
        print('per fragment: ' + ', '.join('%s %.1f us' % kv for kv in times.items()))
    print('usual fragment: %d of %d (%d shapes); caller = palm-sync; us from its first call'
          % (len(most), len(rounds), nshapes))
    et.print_usual(shape, most, 40)
    print('calls per fragment, whole install:')
    per = counts(caller, server, lo, hi, len(rounds))
    for what, v in sorted(per.items(), key=lambda kv: -kv[1]):
        if v >= 0.01:
            print('  %-50s %6.2f' % (what, v))
    kind = kinds(caller, server)
    names = {p for p, _ in procs}
    every = [split(r, names, kind) for r in rounds]
    usual_ = [split(r, names, kind) for r in most]
    return ({k: sum(s[k] for s in every) / len(every) / 1e3 for k in KINDS},
            {k: sum(s[k] for s in usual_) / len(usual_) / 1e3 for k in KINDS},
            (hi - lo) / len(rounds) / 1e3, per, times)


def mean(xs):
    return sum(xs) / len(xs) if xs else 0


def compare(done, floor):
    """The paths' per-fragment split side by side, averaged over installs."""
    paths = {p: [d for run, d in done.items() if run.split('.')[0] == p and d]
             for p in ('pilotd', 'libusb')}
    if not paths['pilotd'] or not paths['libusb']:
        return
    for which, title in (0, 'all fragments'), (1, 'the usual fragment'):
        print('\nper fragment, %s (mean us; installs averaged)' % title)
        print('%-8s %9s %9s %9s  %s' % ('', '/dev/pilot', 'libusb', 'diff', ''))
        tot = [0, 0]
        for k in KINDS:
            a = mean([d[which][k] for d in paths['pilotd']])
            b = mean([d[which][k] for d in paths['libusb']])
            tot = [tot[0] + a, tot[1] + b]
            print('%-8s %9.1f %9.1f %9.1f  %s' % (k, a, b, a - b, MEANING[k]))
        print('%-8s %9.1f %9.1f %9.1f' % ('total', tot[0], tot[1], tot[0] - tot[1]))
    times = [[d[4] for d in paths[p] if d[4]] for p in ('pilotd', 'libusb')]
    if times[0] and times[1]:
        print('\nper fragment, CPU time (task-clock; mean us, installs averaged)')
        print('%-14s %9s %9s %9s' % ('', '/dev/pilot', 'libusb', 'diff'))
        for k in times[0][0]:
            a, b = mean([t[k] for t in times[0]]), mean([t[k] for t in times[1]])
            print('%-14s %9.1f %9.1f %9.1f' % (k, a, b, a - b))
    if floor:
        # palm-sync's writes and reads: the requests a fragment makes
        n = mean([d[3].get('palm-sync write', 0) + d[3].get('palm-sync read', 0)
                  for d in paths['pilotd']])
        req = mean([d[0]['request'] for d in paths['pilotd']])
        print('\ncuse-floor\'s request in this boot: median %.1f us; %.2f requests per fragment'
              ' %.1f; the requests above them %.1f us per fragment' % (floor, n, n * floor,
                                                                      req - n * floor))
        a = mean([d[2] for d in paths['pilotd']])
        b = mean([d[2] for d in paths['libusb']])
        print('fragment %.1f us on /dev/pilot, %.1f on libusb: %.2fx; floor (libusb + its '
              'requests) %.1f us, /dev/pilot %.2fx of it' % (a, b, a / b, b + n * floor,
                                                             a / (b + n * floor)))


def main():
    runs, lines = et.read_log(sys.argv[1])
    info = {}
    for f in lines:
        kv = dict(x.split('=', 1) for x in f if '=' in x)
        if kv.get('op') == 'hotsync-install':
            info['%s.%s' % (kv['path'], kv['run'])] = kv
        elif not f[0].startswith('run='):
            print(' '.join(f))
        et.check_clock(f, 'slp-trace')
    floor = None
    if runs.get('floor'):
        r = et.report('floor', runs['floor'], None)
        floor = r[0] if r else None
    done = {run: install(run, recs, info.get(run, {}))
            for run, recs in runs.items() if run != 'floor'}
    for run, kv in info.items():
        if run not in runs:  # untraced
            print('\n%s (untraced): install %s s; task-clock: pilotd %.3f s, palm-sync %.3f s'
                  % (run, kv['secs'], int(kv.get('task_ns', 0)) / 1e9 if
                     run.startswith('pilotd') else 0, int(kv.get('command_ns', 0)) / 1e9))
    compare(done, floor)


if __name__ == '__main__':
    main()
