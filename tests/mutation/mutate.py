#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation testing of pilotd's tty rules (docs/mutation.md).

Each fault of faults.ini is a small edit of one file of pilotd/core (an
exact text that must be there once, and what replaces it).  The core, the
test support and the unit tests that see the core's tty rules are compiled
once, unchanged; then for each fault the faulty file alone is compiled
again, the tests that link it are linked with it and run, and at least one
of them must fail.  The output is a line per fault naming what caught it,
and docs/mutation.md's table must be what this run found.

  mutate.py --cc 'cc ...' --src TOP [--jobs N] [--only ID,...] [--write-doc]

--write-doc writes the table into docs/mutation.md instead of checking it.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

CORE = ['byteq.c', 'parked.c', 'palm.c', 'tty.c', 'ldisc.c', 'port.c', 'port_files.c',
        'port_session.c', 'port_io.c', 'port_ioctl.c', 'port_ldisc.c', 'port_push.c', 'setup.c',
        'caps.c', 'loop.c', 'pump.c', 'trace.c', 'log.c']
SUPPORT = ['port_harness.c', 'ntty_diff.c']
# The tests of the tty rules, what they link beside their own source, and their
# arguments; a fault is run against the tests that link its file.
TESTS = {
    'unit-ldisc': {'src': 'test_ldisc.c', 'sees': ['ldisc.c'], 'args': []},
    'unit-tty': {'src': 'test_tty.c', 'sees': ['tty.c'], 'args': []},
    'unit-port': {'src': 'test_port.c', 'sees': CORE, 'args': []},
    'unit-port-push': {'src': 'test_port_push.c', 'sees': CORE, 'args': []},
    'unit-ntty': {'src': 'test_ntty.c', 'sees': CORE,
                  'args': ['@docs/tty-differences.md', '10000']},
}
TIMEOUT = {'unit-ntty': 240}
# The differential catches a fault when a fixed case fails, or when at least
# this many random cases differ without a listed reason: a case or a few may
# be excused on another run, by a timing of the pty's that a name covers (the
# counts are on stderr), and the verdicts here must be the same every run.
NTTY_MIN_CASES = 10
FIELDS = ('file', 'rule', 'fault', 'find', 'replace')
BEGIN, END = '<!-- mutation:begin -->', '<!-- mutation:end -->'


def die(msg):
    print(f'mutate.py: {msg}', file=sys.stderr)
    sys.exit(1)


def load_faults(path):
    """faults.ini: [id], then `key = value` lines, the value exact (tabs kept);
    `find+` and `replace+` add a line to find and replace."""
    faults, cur = [], None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            m = re.fullmatch(r'\[([\w-]+)\]', line)
            if m:
                cur = {'id': m.group(1)}
                faults.append(cur)
                continue
            m = re.fullmatch(r'(\w+\+?) = (.*)', line)
            if not m or cur is None:
                die(f'{path}:{n}: neither [id] nor `key = value`')
            key, value = m.groups()
            if key in ('find+', 'replace+') and key[:-1] in cur:
                cur[key[:-1]] += '\n' + value
            elif key in FIELDS and key not in cur:
                cur[key] = value
            else:
                die(f'{path}:{n}: {key} unknown, repeated or out of place')
    for fl in faults:
        missing = [k for k in FIELDS if k not in fl]
        if missing:
            die(f'{path}: [{fl["id"]}] lacks {", ".join(missing)}')
        if fl['file'] not in CORE:
            die(f'{path}: [{fl["id"]}]: {fl["file"]} is not a file of pilotd/core')
    if len({fl['id'] for fl in faults}) != len(faults):
        die(f'{path}: a fault id is used twice')
    return faults


def run(cmd, cwd=None, timeout=None):
    return subprocess.run(cmd, cwd=cwd, timeout=timeout, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors='replace')


def compile_one(cc, top, src, obj):
    r = run(cc + ['-c', src, '-o', obj, '-I', os.path.join(top, 'pilotd'),
                  '-I', os.path.join(top, 'tests/support')])
    return r.returncode, r.stdout


def link(cc, objs, exe):
    r = run(cc + objs + ['-o', exe])
    return r.returncode, r.stdout


def test_functions(path):
    """Line number -> the test function it is in (static void test_*(void))."""
    where, name = {}, None
    with open(path) as f:
        for i, line in enumerate(f, 1):
            m = re.match(r'static (?:void|int) ((?:test_)?\w+)\(', line)
            if m:
                name = m.group(1)
            where[i] = name
    return where


def what_failed(test, out, top):
    """A deterministic account of a failed test: the functions whose checks failed."""
    src = os.path.join(top, 'tests/unit', TESTS[test]['src'])
    if test == 'unit-ntty':
        m = re.search(r'(\d+) unexplained', out)
        parts = []
        if re.search(r'^case -\d+ differs', out, re.M):
            parts.append('a fixed case')
        if m and int(m.group(1)) >= NTTY_MIN_CASES:
            parts.append('unexplained differences')
        for n in re.findall(r'^ntty:(\w+) is listed but no case differs', out, re.M):
            parts.append(f'ntty:{n} no longer shows')
        if not parts and re.search(r'check failed|expected', out):
            parts.append('its checks')
        return ', '.join(parts) or None
    funcs, seen = test_functions(src), []
    base = os.path.basename(src)
    for line in out.splitlines():
        m = re.match(r'\S*?' + re.escape(base) + r':(\d+): ', line)
        m2 = re.match(r'(\w+): ([^:]+):', line)  # a table's "function: case:"
        m3 = re.match(r'(\w+)(?: reads| echo| flow)?: got ', line)  # test_ldisc's cases
        if m:
            w = funcs.get(int(m.group(1))) or base
        elif m2 and 'test_' + m2.group(1) in funcs.values():
            w = f'test_{m2.group(1)}: {m2.group(2)}'
        elif m3:
            w = m3.group(1)
        else:
            continue
        if w not in seen:
            seen.append(w)
    return ', '.join(seen) or 'failed'


def run_test(test, exe, top):
    args = [os.path.join(top, x[1:]) if x.startswith('@') else x for x in TESTS[test]['args']]
    try:
        r = run([exe] + args, cwd=top, timeout=TIMEOUT.get(test, 60))
    except subprocess.TimeoutExpired:
        return 'timed out'
    m = re.search(r'^\d+ cases in .*', r.stdout, re.M)
    if m:  # the differential's counts vary with the pty's timing: to stderr
        print(f'{os.path.basename(os.path.dirname(exe))}: {test}: {m.group(0)}', file=sys.stderr)
    if r.returncode == 0:
        return None
    if r.returncode < 0:
        return f'crashed ({signal.Signals(-r.returncode).name})'
    return what_failed(test, r.stdout, top)


def tests_of(fault):
    return [t for t, d in TESTS.items() if fault['file'] in d['sees']]


def objects(tmp, test, swap=None):
    """The objects of test's binary; swap: (core file, object) to take instead."""
    objs = [os.path.join(tmp, 'base', c + '.o') for c in CORE]
    if swap:
        objs[CORE.index(swap[0])] = swap[1]
    if test in ('unit-port', 'unit-port-push', 'unit-ntty'):
        objs += [os.path.join(tmp, 'base', s + '.o') for s in SUPPORT]
    return [os.path.join(tmp, 'base', TESTS[test]['src'] + '.o')] + objs


def mutate(cc, top, tmp, fault):
    """Build and run one fault: (error or None, {test: what failed or None})."""
    path = os.path.join(top, 'pilotd/core', fault['file'])
    with open(path) as f:
        text = f.read()
    n = text.count(fault['find'])
    if n != 1:
        return (f'its text is in pilotd/core/{fault["file"]} {n} times, not once: '
                f'update tests/mutation/faults.ini'), {}
    d = os.path.join(tmp, fault['id'])
    os.mkdir(d)
    src = os.path.join(d, fault['file'])
    with open(src, 'w') as f:
        f.write(text.replace(fault['find'], fault['replace']))
    obj = src + '.o'
    rc, out = compile_one(cc + ['-I', os.path.join(top, 'pilotd/core')], top, src, obj)
    if rc:
        return f'does not compile (a fault must build warning-free):\n{out}', {}
    result = {}
    for t in tests_of(fault):
        exe = os.path.join(d, t)
        rc, out = link(cc, objects(tmp, t, (fault['file'], obj)), exe)
        if rc:
            return f'{t} does not link:\n{out}', {}
        result[t] = run_test(t, exe, top)
    return None, result


def table(faults, results):
    rows = ['| fault | file | rule it breaks | the fault | caught by |',
            '|---|---|---|---|---|']
    for fl in faults:
        caught = [f'{t} ({w})' for t, w in results[fl['id']].items() if w]
        rows.append(f'| `{fl["id"]}` | {fl["file"]} | {fl["rule"]} | {fl["fault"]} | '
                    f'{"; ".join(caught) or "**nothing**"} |')
    return '\n'.join(rows) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cc', required=True, help='the compiler command, with its flags')
    ap.add_argument('--src', required=True, help="the source tree's top")
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--only', help='fault ids, comma-separated (no docs check)')
    ap.add_argument('--write-doc', action='store_true')
    a = ap.parse_args()
    top = os.path.abspath(a.src)
    cc = shlex.split(a.cc) + ['-std=gnu11', '-O2', '-D_GNU_SOURCE', '-Wall', '-Wextra',
                              '-Wno-unused-parameter', '-Werror']
    faults = load_faults(os.path.join(top, 'tests/mutation/faults.ini'))
    if a.only:
        want = a.only.split(',')
        faults = [f for f in faults if f['id'] in want]
    t0, c0 = time.monotonic(), os.times()
    with tempfile.TemporaryDirectory(prefix='pilotd-mutation-') as tmp:
        os.mkdir(os.path.join(tmp, 'base'))
        srcs = [os.path.join(top, 'pilotd/core', c) for c in CORE] + \
               [os.path.join(top, 'tests/support', s) for s in SUPPORT] + \
               [os.path.join(top, 'tests/unit', t['src']) for t in TESTS.values()]
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            built = list(ex.map(lambda s: compile_one(
                cc, top, s, os.path.join(tmp, 'base', os.path.basename(s) + '.o')), srcs))
        for s, (rc, out) in zip(srcs, built):
            if rc:
                die(f'{s} does not compile:\n{out}')
        # the tests pass on the unchanged core, or a fault's failure means nothing
        for t in TESTS:
            exe = os.path.join(tmp, 'base', t)
            rc, out = link(cc, objects(tmp, t), exe)
            if rc:
                die(f'{t} does not link:\n{out}')
            w = run_test(t, exe, top)
            if w:
                die(f'{t} fails on the unchanged core ({w}): nothing to compare with')
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            done = list(ex.map(lambda fl: mutate(cc, top, tmp, fl), faults))
    bad = 0
    results = {}
    for fl, (err, res) in zip(faults, done):
        results[fl['id']] = res
        if err:
            print(f'{fl["id"]}: FAULT BROKEN: {err}')
            bad += 1
            continue
        caught = [f'{t} ({w})' for t, w in res.items() if w]
        missed = [t for t, w in res.items() if not w]
        print(f'{fl["id"]} ({fl["file"]}): ' +
              (f'caught by {"; ".join(caught)}' if caught else 'NOT CAUGHT') +
              (f'; not by {", ".join(missed)}' if missed else ''))
        bad += not caught
    el, c1 = time.monotonic() - t0, os.times()
    cpu = (c1.children_user + c1.children_system + c1.user + c1.system) - \
          (c0.children_user + c0.children_system + c0.user + c0.system)
    # to stderr: the times differ from run to run, the verdicts may not
    print(f'{len(faults)} faults, {bad} not caught or broken; {el:.0f} s, {cpu:.0f} s of CPU',
          file=sys.stderr)
    print(f'{len(faults)} faults, {bad} not caught or broken')
    if a.only or bad:
        return 1 if bad else 0
    doc = os.path.join(top, 'docs/mutation.md')
    with open(doc) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        die(f'{doc} has no {BEGIN} ... {END} section')
    head, rest = text.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    new = '\n' + table(faults, results)
    if a.write_doc:
        with open(doc, 'w') as f:
            f.write(head + BEGIN + new + END + tail)
        return 0
    if old != new:
        print('docs/mutation.md does not say what this run found; its table should be:\n' +
              new + '(tests/mutation/mutate.py --write-doc writes it)')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
