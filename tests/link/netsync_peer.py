#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pilotd's network HotSync transport on the host, without CUSE.

Each case runs redir-client --netsync (pilotd's link_netsync.c and port,
tests/link/redir_client.c) listening on a port the kernel picks, and
calls it with palm-sim's network HotSync (palm-sim --netsync) or with a
hostile peer made here, and checks what a user would notice: bytes that
come back byte for byte, a hangup, refusals, a bound on time or memory.

  echo            palm-sim calls over IPv4 and 1 MiB echoes byte for byte
  echo-ipv6       the same over [::1] (exit 77 without IPv6 loopback)
  garbage         a peer docks, sends 1 MiB of random bytes and hangs up: a
                  departure; then palm-sim docks and 256 KiB echo
  flood           a peer docks and sends 64 MiB as fast as TCP takes it; the
                  client reads it all, its loop stalls less than 500 ms (CPU
                  time between two 10 ms ticks) and its peak memory grows by
                  less than 16 MiB; then palm-sim docks and 256 KiB echo
  silent          a peer docks, sends 6 bytes and then nothing, its socket
                  open: with --idle-ms 2000 the client hangs up on it within
                  10 s and says why; then palm-sim docks and 256 KiB echo
  stops-reading   a peer docks and reads nothing (sends nothing either) while
                  the client writes 16 MiB: the kernel's buffers and then the
                  port's 512 KiB transmit queue fill and the writes park; with
                  --idle-ms 2000 the client hangs up on it within 10 s of its
                  last taken byte, its peak memory grows by less than 16 MiB;
                  then palm-sim docks and 16 MiB echo
  many            while palm-sim's echo of 8 MiB runs, 300 connections at
                  once, each sending a byte: each ended by the client within
                  30 s (the kernel holds NETSYNC_BACKLOG for it and retries
                  the rest), the client's open files never more than 2 above
                  what it had, the echo unaffected (one carrier change), at
                  most 5 refusal lines per 10 s window
  accept-emfile   the client's open files limited to what it has: a call
                  cannot be accepted (EMFILE) and stays queued; in 3 s at most
                  5 accept lines are logged and the client uses less than
                  0.5 s of CPU (it rested, it did not spin on the ready
                  socket); with the limit back, the queued call docks within
                  5 s, departs, and palm-sim docks and 256 KiB echo
  churn           a peer connects and hangs up every 20 ms for 3 s: at most
                  5 sessions dock (NETSYNC_SESSIONS_BURST in 10 s), the rest
                  are refused, pilotd logs fewer than 40 lines; once the 10 s
                  are over palm-sim docks and 256 KiB echo
  refusal-summary while a peer is docked 10 more call at once and no more come:
                  5 refusal lines, and within 12 s the line counting the other
                  5 (not only at a next refusal, which may never come)
  disallowed      --allow 10.0.0.0/8: palm-sim on 127.0.0.1 is refused, never
                  docks, and is logged; --allow 127.0.0.0/8 takes it
  hotsync         palm-sim's network HotSync (mode hotsync, the four sample
                  databases) and the project's desktop, palm-sync, on the pty of
                  redir-client --pty (one client, one connection each): palm-sync
                  --like-pilot-link lists (desktop first) and backs up (button
                  first: the handheld waits 2 s), palm-sync lists (button first)
                  and installs (desktop first); the listing is exact, the backup
                  byte for byte, the installed files on the handheld as in the
                  files, and palm-sim counts one sync per connection

REDIR_VERBOSE=1 shows the client's output when a case passes too.

usage: netsync_peer.py CASE --client REDIR-CLIENT --sim PALM-SIM
                       [--desktop PALM-SYNC --db DIR --expected LIST.tsv]
"""
import argparse
import os
import re
import select
import socket
import subprocess
import sys
import threading
import time

from redir_attacks import ASAN_ENV, MAX_STALL_MS, Fail, Skip, vm_hwm_kb


class Client:
    """redir-client --netsync ADDR:0 ARGS; .port once it listens."""

    def __init__(self, exe, listen, *args):
        env = dict(os.environ, **ASAN_ENV)
        self.proc = subprocess.Popen([exe, "--netsync", listen, *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.lines, self.lock, self.port = [], threading.Lock(), None
        self.listening = threading.Event()
        self.threads = [threading.Thread(target=self._pump, args=(f,), daemon=True)
                        for f in (self.proc.stdout, self.proc.stderr)]
        for t in self.threads:
            t.start()
        if not self.listening.wait(10):
            raise Fail("the client did not say where it listens:\n" + self.output())

    def _pump(self, f):
        for line in f:
            with self.lock:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
            m = re.search(r"listening on (\S+):(\d+)$", line.strip())
            if m and self.port is None:
                self.port = int(m.group(2))
                self.listening.set()

    def output(self):
        with self.lock:
            return "\n".join(line for _, line in self.lines)

    def wait_line(self, pattern, timeout, after=0.0):
        """The time of the first line after `after` matching pattern, or None."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                for t, line in self.lines:
                    if t >= after and re.search(pattern, line):
                        return t
            time.sleep(0.02)
        return None

    def count(self, pattern):
        with self.lock:
            return sum(1 for _, line in self.lines if re.search(pattern, line))

    def finish(self, timeout, terminate=False):
        if terminate:
            self.proc.terminate()
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
            raise Fail(f"the client did not end within {timeout} s")
        for t in self.threads:
            t.join(5)
        return rc

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Sim:
    """palm-sim --netsync ADDR:PORT --mode echo, calling at once."""

    def __init__(self, exe, where, *args):
        self.log = open(os.devnull if not os.environ.get("REDIR_VERBOSE") else "/dev/stderr",
                        "w")
        self.proc = subprocess.Popen([exe, "--netsync", where, "--mode", "echo", *args],
                                     stderr=self.log)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.log.close()


def check_exit(client, rc, what):
    if rc != 0:
        raise Fail(f"the client ended with {rc} ({what})")


def echo_after(args, client, what, size=256 << 10, addr="127.0.0.1"):
    """palm-sim docks after `what`: `size` bytes echo (the client's --echo)."""
    sim = Sim(args.sim, f"{addr}:{client.port}")
    try:
        rc = client.finish(timeout=60)
    finally:
        sim.close()
    args.out = client.output()
    check_exit(client, rc, f"{size} bytes echoed after {what}")
    if f"received={size}" not in args.out:
        raise Fail(f"the echo after {what} did not complete")


def case_echo(args, addr="127.0.0.1", listen="127.0.0.1:0"):
    size = 1 << 20
    client = Client(args.client, listen, "--echo", str(size), "--seconds", "60",
                    "--max-stall-ms", str(MAX_STALL_MS))
    try:
        start = time.monotonic()
        echo_after(args, client, "nothing", size, addr)
        print(f"1 MiB echoed through the network HotSync transport over {addr} in "
              f"{time.monotonic() - start:.2f} s")
        if client.count(r"carrier on") != 1:
            raise Fail("not exactly one arrival")
    finally:
        client.close()
    print("ok")


def case_echo_ipv6(args):
    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.bind(("::1", 0))
        s.close()
    except OSError as e:
        raise Skip(f"no IPv6 loopback here: {e}")
    case_echo(args, "[::1]", "[::1]:0")


def dock(client, timeout=10):
    """A peer connects; returns the socket once the client says it arrived."""
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", client.port), timeout=10)
    if client.wait_line(r"network handheld .* arrived", timeout, t0) is None:
        raise Fail("the peer never docked")
    if client.wait_line(r"^carrier on", timeout, t0) is None:
        raise Fail("no carrier for the docked peer")
    return s


def departed(client, after, timeout):
    t = client.wait_line(r"departed", timeout, after)
    if t is None:
        raise Fail(f"no departure within {timeout} s:\n" + client.output())
    return t


def case_garbage(args):
    client = Client(args.client, "127.0.0.1:0", "--echo", str(256 << 10), "--seconds", "60",
                    "--skip-sessions", "1")
    try:
        s = dock(client)
        s.sendall(os.urandom(1 << 20))
        t0 = time.monotonic()
        s.close()
        departed(client, t0, 10)
        echo_after(args, client, "1 MiB of garbage")
    finally:
        client.close()
    print("ok: garbage was a session of its own; the next handheld echoed")


def case_flood(args):
    total = 64 << 20
    client = Client(args.client, "127.0.0.1:0", "--echo", str(256 << 10), "--seconds", "120",
                    "--max-stall-ms", str(MAX_STALL_MS), "--skip-sessions", "1")
    try:
        s = dock(client)
        before = vm_hwm_kb(client.proc.pid)
        chunk, sent, t0 = os.urandom(1 << 20), 0, time.monotonic()
        s.settimeout(30)
        try:
            while sent < total:
                s.sendall(chunk)
                sent += len(chunk)
        except socket.timeout:
            raise Fail(f"the client stopped reading after {sent >> 20} MiB")
        s.shutdown(socket.SHUT_WR)
        departed(client, t0, 30)
        took = time.monotonic() - t0
        s.close()
        grown = vm_hwm_kb(client.proc.pid) - before
        print(f"64 MiB flood read in {took:.1f} s; the client's peak memory grew by {grown} kB")
        if grown > 16 << 10:
            raise Fail(f"peak memory grew by {grown} kB during the flood")
        echo_after(args, client, "a 64 MiB flood")
        m = re.search(r"longest stall: (\d+) ms", args.out)
        print(f"longest stall of the loop: {m.group(1) if m else '?'} ms")
    finally:
        client.close()
    print("ok: a flood was read within the budget, in bounded memory, the loop responsive")


def case_silent(args):
    client = Client(args.client, "127.0.0.1:0", "--echo", str(256 << 10), "--seconds", "60",
                    "--idle-ms", "2000", "--skip-sessions", "1")
    try:
        s = dock(client)
        s.sendall(b"\x01\x00\x00\x00\x00\x10")  # a NET header announcing 16 bytes, no body
        t0 = time.monotonic()
        t = departed(client, t0, 10)
        print(f"a silent peer was dropped {t - t0:.1f} s after its last byte (idle 2 s)")
        if not client.count(r"silent for 2 s"):
            raise Fail("the departure does not say the peer was silent")
        if t - t0 < 1.5:
            raise Fail("dropped before its idle time was up")
        s.settimeout(5)
        try:
            if s.recv(1) != b"":
                raise Fail("bytes came to the silent peer")
        except ConnectionResetError:
            pass
        s.close()
        echo_after(args, client, "a silent peer")
    finally:
        client.close()
    print("ok: a silent peer was hung up on after the idle time")


def case_stops_reading(args):
    size = 16 << 20
    client = Client(args.client, "127.0.0.1:0", "--echo", str(size), "--seconds", "90",
                    "--idle-ms", "2000")
    try:
        before = vm_hwm_kb(client.proc.pid)
        s = dock(client)
        t0 = time.monotonic()
        t = departed(client, t0, 20)
        grown = vm_hwm_kb(client.proc.pid) - before
        print(f"a peer that read nothing was hung up on {t - t0:.1f} s after it docked; "
              f"the client's peak memory grew by {grown} kB")
        if not client.count(r"silent for 2 s"):
            raise Fail("the departure does not say the peer was silent")
        if grown > 16 << 10:
            raise Fail(f"peak memory grew by {grown} kB while the peer read nothing")
        s.close()
        echo_after(args, client, "a peer that read nothing", size)
    finally:
        client.close()
    print("ok: a peer that read nothing was hung up on; writes were held at the port's bound")


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def storm(port, n, deadline_s):
    """n connections at once, each sending one byte once it connects (a
    connection the kernel answered with a SYN cookie but never queued
    learns that it does not exist only when it sends).  Returns how many
    were ended by the other side (EOF or reset) within deadline_s."""
    socks, ended = [], 0
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        socks.append(s)
    waiting, unsent = set(socks), set(socks)
    end = time.monotonic() + deadline_s
    while waiting and time.monotonic() < end:
        r, w, _ = select.select(list(waiting), list(unsent & waiting), [], 0.2)
        for s in w:
            try:
                s.send(b"x")
                unsent.discard(s)
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:  # refused or reset before it could send
                unsent.discard(s)
                waiting.discard(s)
                ended += 1
        for s in r:
            if s not in waiting:
                continue
            try:
                if s.recv(1) != b"":
                    continue  # no byte is ever sent to a refused peer: counted below
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                pass
            waiting.discard(s)
            ended += 1
    for s in socks:
        s.close()
    return ended


def case_many(args):
    n, size = 300, 8 << 20
    client = Client(args.client, "127.0.0.1:0", "--echo", str(size), "--seconds", "120",
                    "--max-stall-ms", str(MAX_STALL_MS))
    sim = Sim(args.sim, f"127.0.0.1:{client.port}")
    try:
        if client.wait_line(r"^carrier on", 10) is None:
            raise Fail("palm-sim never docked")
        fds = open_fds(client.proc.pid)
        t0 = time.monotonic()
        result = {}
        th = threading.Thread(target=lambda: result.update(ended=storm(client.port, n, 30)))
        th.start()
        most = fds
        while th.is_alive():
            if client.proc.poll() is None:
                most = max(most, open_fds(client.proc.pid))
            time.sleep(0.01)
        took = time.monotonic() - t0
        print(f"{result['ended']} of {n} connections ended by the client within {took:.1f} s; "
              f"its open files: {fds} before, {most} at most during the storm")
        if result["ended"] < n:
            raise Fail(f"{n - result['ended']} connections were held open by the client")
        if most > fds + 2:  # an accepted one, closed in the same round
            raise Fail(f"the client held {most - fds} more files during the storm")
        rc = client.finish(timeout=120)
        args.out = client.output()
        check_exit(client, rc, "8 MiB echoed while 300 connections were refused")
        lines = client.count(r"network HotSync: refused")
        summaries = client.count(r"more refusals not logged")
        print(f"refusal lines: {lines}, summaries: {summaries}")
        if client.count(r"^carrier on") != 1 or client.count(r"departed") > 1:
            raise Fail("the docked session was disturbed")
        # NETSYNC_LOG_BURST (5) a 10 s window; the storm lasts a few windows at most
        windows = int(took // 10) + 1
        if lines > 5 * windows:
            raise Fail(f"{lines} refusal lines logged in {windows} windows of 10 s")
    finally:
        sim.close()
        client.close()
    print("ok: connections while one is docked were refused at once, the docked one unaffected")


def cpu_s(pid):
    """User and system CPU time of pid, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def case_accept_emfile(args):
    import resource
    client = Client(args.client, "127.0.0.1:0", "--echo", str(256 << 10), "--seconds", "60",
                    "--skip-sessions", "1")
    try:
        pid = client.proc.pid
        soft, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (open_fds(pid), hard))
        cpu0, t0 = cpu_s(pid), time.monotonic()
        s = socket.create_connection(("127.0.0.1", client.port), timeout=10)
        time.sleep(3)
        cpu, lines = cpu_s(pid) - cpu0, client.count(r"accept: ")
        print(f"a call it could not accept for 3 s: {lines} accept lines, {cpu:.2f} s of CPU")
        if client.count(r"arrived"):
            raise Fail("a call docked with no file to take it")
        if lines > 5:
            raise Fail(f"{lines} accept lines in 3 s (at most 5 a 10 s window)")
        if cpu > 0.5:
            raise Fail(f"the client used {cpu:.2f} s of CPU in 3 s with a call it cannot accept")
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (soft, hard))
        if client.wait_line(r"network handheld .* arrived", 5, t0) is None:
            raise Fail("the queued call never docked once files were free:\n" + client.output())
        t1 = time.monotonic()
        s.close()
        departed(client, t1, 10)
        echo_after(args, client, "a call that waited for a file")
    finally:
        client.close()
    print("ok: with no file for a call, the listener rested and took it once it could")


def case_churn(args):
    client = Client(args.client, "127.0.0.1:0", "--echo", str(256 << 10), "--seconds", "60",
                    "--skip-sessions", "5")
    try:
        t0, calls = time.monotonic(), 0
        # 3 s, and on a loaded machine on until 5 sessions were seen (the
        # client skips 5), within the window of the first (10 s)
        while time.monotonic() - t0 < 3 or (client.count(r"arrived") < 5 and
                                            time.monotonic() - t0 < 8):
            socket.create_connection(("127.0.0.1", client.port), timeout=10).close()
            calls += 1
            time.sleep(0.02)
        time.sleep(1)
        sessions, lines = client.count(r"arrived"), client.count(r"^pilotd: ")
        took = time.monotonic() - t0 - 1
        print(f"{calls} calls in {took:.1f} s: {sessions} sessions, {lines} lines logged")
        if sessions > 5:
            raise Fail(f"{sessions} sessions docked in {took:.1f} s (at most 5 in 10 s)")
        if lines >= 40:
            raise Fail(f"{lines} lines logged for {calls} calls in {took:.1f} s")
        first = client.wait_line(r"arrived", 1, t0) or t0
        time.sleep(max(0.0, first + 10.5 - time.monotonic()))  # the window is over
        echo_after(args, client, f"{calls} calls")
    finally:
        client.close()
    print("ok: a peer calling in a loop docked 5 times in 10 s; the next handheld echoed")


def case_refusal_summary(args):
    client = Client(args.client, "127.0.0.1:0", "--seconds", "30")
    try:
        s = dock(client)
        t0 = time.monotonic()
        for _ in range(10):
            socket.create_connection(("127.0.0.1", client.port), timeout=10).close()
        t = client.wait_line(r"5 more refusals not logged", 12, t0)
        lines = client.count(r"network HotSync: refused")
        print(f"10 calls refused: {lines} lines, the count of the rest "
              + (f"after {t - t0:.1f} s" if t else "never"))
        if lines != 5:
            raise Fail(f"{lines} refusal lines for 10 refusals (5 a window)")
        if t is None:
            raise Fail("the 5 refusals held back were never counted in the log:\n"
                       + client.output())
        s.close()
    finally:
        client.close()
    print("ok: refusals held back were counted once their window ended")


def case_disallowed(args):
    client = Client(args.client, "127.0.0.1:0", "--allow", "10.0.0.0/8", "--allow", "fd00::/8",
                    "--echo", "4096", "--seconds", "4")
    sim = Sim(args.sim, f"127.0.0.1:{client.port}")
    try:
        if client.wait_line(r"refused 127\.0\.0\.1:\d+: not in --netsync-allow", 10) is None:
            raise Fail("palm-sim's call was not refused in the log:\n" + client.output())
        rc = client.finish(timeout=20)
        out = client.output()
        if "carrier on" in out:
            raise Fail("a peer outside --netsync-allow docked")
        if rc == 0:
            raise Fail("the echo completed through a refused peer")
    finally:
        sim.close()
        client.close()
    client = Client(args.client, "127.0.0.1:0", "--allow", "127.0.0.0/8", "--echo", "4096",
                    "--seconds", "30")
    try:
        echo_after(args, client, "an allowed peer", 4096)
    finally:
        client.close()
    print("ok: a peer outside --netsync-allow was refused; one inside synced")


def control(path, line):
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(path)
        s.sendall(line.encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    return reply.decode().strip()


def status(ctl, field):
    m = re.search(rf"\b{field}=(\S+)", control(ctl, "hotsync"))
    return m.group(1) if m else None


def wait_status(ctl, field, value, timeout):
    end = time.monotonic() + timeout
    while status(ctl, field) != value:
        if time.monotonic() > end:
            raise Fail(f"palm-sim's {field} is {status(ctl, field)}, not {value}, "
                       f"after {timeout} s")
        time.sleep(0.05)


def one_sync(args, tmp, ctl, like_pilot_link, op, desktop_first):
    client = Client(args.client, "127.0.0.1:0", "--pty", "--seconds", "60")
    try:
        m = None
        end = time.monotonic() + 10
        while not m and time.monotonic() < end:
            m = re.search(r"^pty (\S+)$", client.output(), re.M)
            time.sleep(0.02)
        if not m:
            raise Fail("redir-client --pty did not say its pty")
        control(ctl, f"netsync-to 127.0.0.1:{client.port}")
        cmd = [args.desktop, "--port", m.group(1), "--wait", "30", "--timeout", "20"]
        if like_pilot_link:
            cmd.insert(1, "--like-pilot-link")
        out = os.path.join(tmp, "out")
        backup = os.path.join(tmp, "backup")
        os.makedirs(backup, exist_ok=True)
        cmd += {"list": ["list"], "backup": ["backup", backup],
                "install": ["install", os.path.join(args.db, "NotesToGo.pdb"),
                            os.path.join(args.db, "ToolBox.prc")]}[op]
        if not desktop_first:
            control(ctl, "sync")
            time.sleep(2)
            if status(ctl, "syncing") != "1":
                raise Fail("the handheld gave up within 2 s")
        with open(out, "w") as f:
            desk = subprocess.Popen(cmd, stdout=f, stderr=subprocess.PIPE, text=True)
        if desktop_first:
            time.sleep(2)  # past pilot-link's 1 s kick, written with no handheld there
            control(ctl, "sync")
        _, err = desk.communicate(timeout=60)
        order = "desktop first" if desktop_first else "button first"
        name = ("palm-sync --like-pilot-link" if like_pilot_link else "palm-sync") + f" {op}"
        if desk.returncode != 0:
            raise Fail(f"{name} ({order}) failed: {err}")
        wait_status(ctl, "syncing", "0", 10)
        check_exit(client, client.finish(timeout=20), f"{name} ({order})")
        print(f"{name}, {order}: {err.strip().splitlines()[-1] if err.strip() else 'ok'}")
        if op == "list":
            with open(out) as f, open(args.expected) as g:
                if f.read() != g.read():
                    raise Fail(f"the listing differs from {args.expected}")
        elif op == "backup":
            for name in ("MemoDB.pdb", "AddressDB.pdb", "HelloApp.prc", "EmptyDB.pdb"):
                with open(os.path.join(backup, name), "rb") as f, \
                        open(os.path.join(args.db, name), "rb") as g:
                    if f.read() != g.read():
                        raise Fail(f"the backup of {name} differs")
        else:
            for name, db in (("NotesToGo.pdb", "NotesToGo"), ("ToolBox.prc", "ToolBox")):
                want = subprocess.run([args.desktop, "digest", os.path.join(args.db, name)],
                                      capture_output=True, text=True).stdout.strip()
                got = control(ctl, f"digest {db}")
                if got != f"ok {want}":
                    raise Fail(f"{db} on the handheld: {got}; the file: {want}")
    finally:
        client.close()


def case_hotsync(args):
    if not (args.desktop and args.db and args.expected):
        raise Fail("hotsync needs --desktop, --db and --expected")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        ctl = os.path.join(tmp, "ctl.sock")
        stores = []
        for name in ("MemoDB.pdb", "AddressDB.pdb", "HelloApp.prc", "EmptyDB.pdb"):
            stores += ["--store", os.path.join(args.db, name)]
        # no desktop yet: palm-sim's first call goes to port 9, refused
        log = open(os.path.join(tmp, "sim.log"), "w")
        sim = subprocess.Popen([args.sim, "--netsync", "127.0.0.1:9", "--mode", "hotsync",
                                "--unplugged", "--control", ctl, *stores], stderr=log)
        try:
            end = time.monotonic() + 10
            while not os.path.exists(ctl):
                if time.monotonic() > end:
                    raise Fail("palm-sim's control socket did not appear")
                time.sleep(0.05)
            syncs = [(True, "list", True), (True, "backup", False), (False, "list", False),
                     (False, "install", True)]
            for like_pilot_link, op, desktop_first in syncs:
                one_sync(args, tmp, ctl, like_pilot_link, op, desktop_first)
            if status(ctl, "syncs") != str(len(syncs)) or status(ctl, "failed_syncs") != "0":
                raise Fail(f"palm-sim: {control(ctl, 'hotsync')}")
        finally:
            sim.terminate()
            sim.wait(10)
            log.close()
            if os.environ.get("REDIR_VERBOSE"):
                print(open(os.path.join(tmp, "sim.log")).read())
    print("ok: list, backup and install through the network HotSync transport, both orders")


CASES = {
    "echo": case_echo,
    "echo-ipv6": case_echo_ipv6,
    "garbage": case_garbage,
    "flood": case_flood,
    "silent": case_silent,
    "stops-reading": case_stops_reading,
    "many": case_many,
    "accept-emfile": case_accept_emfile,
    "churn": case_churn,
    "refusal-summary": case_refusal_summary,
    "disallowed": case_disallowed,
    "hotsync": case_hotsync,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--client", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--desktop")
    ap.add_argument("--db")
    ap.add_argument("--expected")
    args = ap.parse_args()
    args.out = ""
    try:
        CASES[args.case](args)
    except Skip as e:
        print(f"skip: {e}")
        if os.environ.get("CI"):
            return 1
        return 77
    except Fail as e:
        print(f"FAIL: {e}", file=sys.stderr)
        if args.out:
            print(args.out, file=sys.stderr)
        return 1
    if os.environ.get("REDIR_VERBOSE"):
        print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
