#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Attacks on pilotd's usbredir transport, one sub-command per row of issue 17.

Each case runs redir-client (pilotd's link_usbredir.c and port without
CUSE, tests/link/redir_client.c) against a usbredir server that behaves
as a row of the issue describes, and checks what a user would notice:
bytes that come back byte for byte, a hangup, a bound on time.  Where a
real handheld is needed, palm-sim in echo mode serves it, behind a relay
that passes the usbredir packets on one by one and may rewrite, hold or
add some; palm-sim serves one connection, so the relay starts one for
each connection the client makes.

  longer-in-reply   row 1: with writes parked (a 4 KiB txq), one burst of a
                    bulk IN reply one byte longer than asked and the reply to
                    the pending OUT packet; the client drops the connection,
                    calls again and echoes 64 KiB through the untouched relay
  disconnect-flood  row 3: 2 MiB of device_disconnect packets in one burst;
                    the loop stalls less than 500 ms (CPU time between two
                    ticks of its 10 ms timer: load does not stretch it) and
                    the client calls again
  ignored-flood     row 3: the same with 16 MiB of packets the client ignores
                    (interrupt packets, bulk and control replies nobody asked
                    for); each flood is queued in the socket at once
  no-32bit-lengths  row 8: both hellos lose usb_redir_cap_32bits_bulk_length
                    and the first OUT reply is held 300 ms, so txq holds more
                    than 64 KiB: 256 KiB must still echo
  second-address    row 9: the server listens on 127.0.0.1 only and the name
                    resolves to ::1 first (a private /etc/hosts in a mount
                    namespace, for the client only): 64 KiB must echo
  silent-peer       row 10: the server in a network namespace of its own, over
                    a veth pair; mid-session its link goes down: the client
                    must hang up within 60 s (pilotd says 25 s); exit 77 when
                    network namespaces cannot be made
  stops-reading     row 15 of issue 26: once the stream runs, the server reads
                    nothing more and sends nothing, its socket left open (its
                    kernel still takes pilotd's few packets): the client must
                    hang up within 60 s (pilotd: an OUT packet unanswered 10 s
                    with nothing from the server sends a GET_STATUS, whose 10 s
                    deadline ends the connection), call again and echo 256 KiB
  oversized-packet  a bulk packet announced at 120 MiB (libusbredirparser
                    allocates up to 128 MiB) and 32 MiB of it sent: the client
                    drops the connection at the header, reads none of it, its
                    peak memory grows by less than 16 MiB, and it calls again
  disconnect-no-device  hello and a device_disconnect, with no device, on
                    every call for 6 s: that is no departure, so the calls
                    back off (at most 12, not one every 0.1 s)
  log-flood-foreign, log-flood-no-endpoints, log-flood-hello  the attacker's
                    log flood: on every call for 6 s, 20000 device_connects of
                    a device pilotd does not take (or of a Palm without bulk
                    endpoints), or 20000 hellos; the client logs a bounded
                    number of lines (10 per call at most), not one per packet
  log-flood-refused-left, log-flood-setup-left  a refused device, or a
                    handheld in its set-up, that leaves at once, on every
                    call: the calls back off (at most 12 in 6 s)
  running-left, running-closed  a handheld set up whose stream, once it
                    runs, ends at once (a device_disconnect, or the server
                    hangs up), on every call: the calls back off (at most
                    12 in 6 s; a stream that ran 2 s has the next called at
                    once)
  treo-90-silent, treo-90-flood  a Treo 90 (082d:0200) whose extended
                    connection information is empty; its interrupt pipe, once
                    asked, says nothing (the stream must start after the 2 s
                    read, within 8 s of device_connect) or sends 20000 junk
                    packets without stopping (the first answers the read: the
                    stream within 5 s); the log stays bounded
  relay             the relay alone, in front of palm-sim, until killed (the
                    silent-peer case runs it inside the server's namespace)

Run as root (namespaces); second-address and silent-peer exit 77 when
they cannot make theirs, and fail instead when CI is set (CI=true), so
that a CI run cannot pass without them.  redir-client built with ASan and UBSan ends
non-zero on any report, which fails the case.  REDIR_VERBOSE=1 shows
the client's output when a case passes too.

usage: redir_attacks.py CASE --client REDIR-CLIENT --sim PALM-SIM
"""
import argparse
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

from redir_peer import (BULK_PACKET, CONTROL_PACKET, DEVICE_CONNECT, DEVICE_DISCONNECT, EP_INFO,
                        HELLO, ep_index, hello, interface_info, packet, requests, run_sim)

INTERRUPT_PACKET = 103
SO_SNDBUFFORCE = getattr(socket, "SO_SNDBUFFORCE", 32)
CAP_32BITS_BULK_LENGTH = 1 << 6
PALM_VID, PALM_PID = 0x0830, 0x0060
# device_disconnect cost the old transport a quadratic write queue (2 MiB
# stalled it 13 s); ignored packets cost it linear work (2 MiB: 0.15 s)
FLOOD_BYTES = {"disconnect": 2 << 20, "ignored": 16 << 20}
MAX_STALL_MS = 500
HANGUP_BOUND_S = 60
ASAN_ENV = dict(ASAN_OPTIONS="exitcode=66:detect_leaks=1",
                UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=67")


class Fail(Exception):
    pass


class Skip(Exception):
    pass


# ---- usbredir packets ----

class Packet:
    """One packet: its type, id and body (the type's header, then data)."""

    def __init__(self, ptype, ident, body, hello_header=False):
        self.ptype, self.ident, self.body = ptype, ident, body
        self.hello_header = hello_header

    def raw(self):
        if self.hello_header:  # nothing agreed yet: a 32-bit id
            return struct.pack("<III", self.ptype, len(self.body), self.ident) + self.body
        return packet(self.ptype, self.body, self.ident)

    def bulk(self):
        """(endpoint, length) of a bulk packet (its low 16 bits)."""
        ep, _, length = struct.unpack_from("<BBH", self.body)
        return ep, length


class Framer:
    """Splits the bytes one side sends into packets: its hello first, then
    16-byte headers (both palm-sim and pilotd ask for 64-bit ids)."""

    def __init__(self):
        self.buf = b""
        self.after_hello = False

    def feed(self, data):
        buf, at, out = self.buf + data, 0, []
        while True:
            hlen = 16 if self.after_hello else 12
            if len(buf) - at < hlen:
                break
            ptype, length = struct.unpack_from("<II", buf, at)
            if len(buf) - at < hlen + length:
                break
            ident = struct.unpack_from("<Q" if self.after_hello else "<I", buf, at + 8)[0]
            body = buf[at + hlen:at + hlen + length]
            out.append(Packet(ptype, ident, body, not self.after_hello))
            at += hlen + length
            self.after_hello = True
        self.buf = buf[at:]
        return out


def without_32bit_lengths(hello_pkt):
    """A hello whose caps word lacks usb_redir_cap_32bits_bulk_length."""
    body = bytearray(hello_pkt.body)
    caps = struct.unpack_from("<I", body, 64)[0]
    struct.pack_into("<I", body, 64, caps & ~CAP_32BITS_BULK_LENGTH)
    return Packet(hello_pkt.ptype, hello_pkt.ident, bytes(body), True)


def palm_ep_info():
    """Bulk 0x81/0x02 (and 0x82/0x01) of 64 bytes on interface 0."""
    types, mps = [255] * 32, [0] * 32
    for addr in (0x81, 0x01, 0x82, 0x02):
        types[ep_index(addr)], mps[ep_index(addr)] = 2, 64
    return packet(EP_INFO, bytes(types) + bytes(32) + bytes(32) + struct.pack("<32H", *mps))


def palm_device_connect():
    return packet(DEVICE_CONNECT, struct.pack("<BBBBHHH", 1, 0, 0, 0, PALM_VID, PALM_PID, 0x0100))


# ---- the relay between the client and palm-sim ----

CLIENT, SIM = 0, 1


def client_hung_up(conn):
    """Without reading what it sent: has the client closed its end?"""
    p = select.poll()
    p.register(conn, select.POLLRDHUP)
    return bool(p.poll(0))


class Session:
    """One client connection relayed to a palm-sim of its own.  An attack's
    hooks see each packet and pass it on with send(); hold() delays what
    goes to a side from now on, keeping the order."""

    def __init__(self, conns, attack):
        self.conns = conns
        self.framers = [Framer(), Framer()]
        self.queued = [[], []]  # (not before, bytes) towards each side
        self.out = [b"", b""]
        self.hold_until = [0.0, 0.0]
        self.deaf = False  # reads nothing more from the client
        self.attack = attack
        for c in conns:
            c.setblocking(False)

    def send(self, side, data):
        self.queued[side].append((max(time.monotonic(), self.hold_until[side]), data))

    def hold(self, side, seconds):
        self.hold_until[side] = time.monotonic() + seconds

    def release(self):
        now = time.monotonic()
        for side in (CLIENT, SIM):
            while self.queued[side] and self.queued[side][0][0] <= now:
                self.out[side] += self.queued[side].pop(0)[1]

    def run(self, stopping):
        """Until either side hangs up, or stopping is set."""
        while not stopping.is_set():
            self.release()
            wait = min([q[0][0] - time.monotonic() for q in self.queued if q] + [0.05])
            writers = [self.conns[s] for s in (CLIENT, SIM) if self.out[s]]
            readers = [self.conns[SIM]] + ([] if self.deaf else [self.conns[CLIENT]])
            if self.deaf and client_hung_up(self.conns[CLIENT]):
                return
            readable, writable, _ = select.select(readers, writers, [], max(wait, 0))
            for side in (CLIENT, SIM):
                conn = self.conns[side]
                if conn in writable:
                    try:
                        n = conn.send(self.out[side])
                    except (BlockingIOError, InterruptedError):
                        n = 0
                    except OSError:
                        return
                    self.out[side] = self.out[side][n:]
                if conn in readable:
                    try:
                        data = conn.recv(65536)
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        return
                    if not data:
                        return
                    for pkt in self.framers[side].feed(data):
                        if side == CLIENT:
                            self.attack.from_client(self, pkt)
                        else:
                            self.attack.from_sim(self, pkt)


class PassOn:
    """No attack: every packet goes on as it came."""

    def from_client(self, s, pkt):
        s.send(SIM, pkt.raw())

    def from_sim(self, s, pkt):
        s.send(CLIENT, pkt.raw())


class LongerInReply(PassOn):
    """Row 1.  On palm-sim's first OUT reply: hold it until the client's
    writes have parked, then send in one burst a reply one byte longer
    than asked to an IN request still pending, and the OUT reply."""

    def __init__(self):
        self.pending_in = {}  # IN requests not answered: id -> (endpoint, length)
        self.fired = False

    def from_client(self, s, pkt):
        if pkt.ptype == BULK_PACKET and pkt.bulk()[0] & 0x80:
            self.pending_in[pkt.ident] = pkt.bulk()
        super().from_client(s, pkt)

    def from_sim(self, s, pkt):
        if pkt.ptype != BULK_PACKET:
            return super().from_sim(s, pkt)
        ep, _ = pkt.bulk()
        if ep & 0x80:
            self.pending_in.pop(pkt.ident, None)
        elif not self.fired and self.pending_in:
            ident = max(self.pending_in)
            in_ep, asked = self.pending_in.pop(ident)
            n = asked + 1
            longer = packet(BULK_PACKET, struct.pack("<BBHIH", in_ep, 0, n & 0xFFFF, 0, n >> 16)
                            + bytes(n), ident)
            s.hold(CLIENT, 0.2)
            s.send(CLIENT, longer + pkt.raw())
            self.fired = True
            return None
        return super().from_sim(s, pkt)


class No32BitLengths(PassOn):
    """Row 8.  Both hellos lose the 32-bit bulk length cap; palm-sim's
    first OUT reply is held 300 ms while the client fills txq."""

    def __init__(self):
        self.held = False
        self.largest_out = 0

    def from_client(self, s, pkt):
        if pkt.ptype == HELLO:
            pkt = without_32bit_lengths(pkt)
        elif pkt.ptype == BULK_PACKET and not pkt.bulk()[0] & 0x80:
            self.largest_out = max(self.largest_out, pkt.bulk()[1])
        super().from_client(s, pkt)

    def from_sim(self, s, pkt):
        if pkt.ptype == HELLO:
            pkt = without_32bit_lengths(pkt)
        elif pkt.ptype == BULK_PACKET and not pkt.bulk()[0] & 0x80 and not self.held:
            s.hold(CLIENT, 0.3)
            self.held = True
        super().from_sim(s, pkt)


class StopsReading(PassOn):
    """Row 15 of issue 26.  Once palm-sim's first OUT reply has gone to the
    client, the server reads nothing more from it and sends it nothing."""

    def __init__(self):
        self.deaf_at = None

    def from_sim(self, s, pkt):
        if self.deaf_at is not None:
            return
        super().from_sim(s, pkt)
        if pkt.ptype == BULK_PACKET and not pkt.bulk()[0] & 0x80:
            s.deaf = True
            self.deaf_at = time.monotonic()


class Relay:
    """Listens where the client calls; each connection gets a new palm-sim
    and the next attack of the list (then PassOn)."""

    def __init__(self, listener, sim, tmp, attacks=()):
        self.listener, self.sim, self.tmp = listener, sim, tmp
        self.attacks = list(attacks)
        self.connections = 0
        self.stopping = threading.Event()
        self.simlog = tempfile.TemporaryFile(dir=tmp)
        self.thread = threading.Thread(target=self.serve, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=5)

    def serve(self):
        self.listener.settimeout(0.1)
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except socket.timeout:
                continue
            self.connections += 1
            sock = os.path.join(self.tmp, f"sim-{self.connections}.sock")
            simproc = run_sim(self.sim, sock, self.simlog)
            try:
                with conn, connect_unix(sock) as to_sim:
                    attack = self.attacks.pop(0) if self.attacks else PassOn()
                    Session([conn, to_sim], attack).run(self.stopping)
            finally:
                simproc.terminate()
                simproc.wait()


def connect_unix(path):
    """palm-sim's socket exists from bind(), takes calls from listen()."""
    for _ in range(200):
        sock = socket.socket(socket.AF_UNIX)
        try:
            sock.connect(path)
            return sock
        except ConnectionRefusedError:
            sock.close()
            time.sleep(0.01)
    raise Fail(f"palm-sim does not take calls on {path}")


def unix_listener(path):
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(path)
    srv.listen(1)
    return srv


def tcp_listener(host, port=0):
    srv = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((host, port))
    srv.listen(1)
    return srv


# ---- the client ----

class Client:
    """redir-client, its stdout read line by line as it comes."""

    def __init__(self, binary, server, *args, wrap=()):
        self.log = tempfile.TemporaryFile()
        self.lines = []
        self.proc = subprocess.Popen(list(wrap) + [binary, "--usbredir", server] + list(args),
                                     stdout=subprocess.PIPE, stderr=self.log,
                                     env=dict(os.environ, **ASAN_ENV), text=True)
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.proc.stdout:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def wait_line(self, text, timeout):
        """The time the first line starting with text came, or None."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for when, line in list(self.lines):
                if line.startswith(text):
                    return when
            if self.proc.poll() is not None and not self.reader.is_alive():
                return None
            time.sleep(0.05)
        return None

    def finish(self, timeout, terminate=False):
        """Its exit status; SIGTERM first if asked, SIGKILL after timeout."""
        if terminate and self.proc.poll() is None:
            self.proc.terminate()
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            rc = "timeout"
        self.reader.join(timeout=5)
        return rc

    def value(self, key):
        """A number of the summary line (carrier_changes=... hangups=...)."""
        for _, line in self.lines:
            for word in line.split():
                if word.startswith(key + "="):
                    return int(word.split("=", 1)[1])
        return None

    def stall_ms(self, what="stall"):
        """redir-client's longest stall (CPU time), or with "late" its timer's lateness."""
        for _, line in self.lines:
            if line.startswith(f"longest {what}: "):
                return int(line.split()[2])
        return None

    def output(self):
        self.log.seek(0)
        err = self.log.read().decode(errors="replace")
        return "\n".join(line for _, line in self.lines) + "\n" + err

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def check_exit(client, rc, what):
    if rc != 0:
        raise Fail(f"{what}: redir-client ended with {rc}")


# ---- the cases ----

def echo_through(args, tmp, attacks, echo, client_args, what):
    """Relay (with attacks) in front of palm-sim; the client must echo."""
    path = os.path.join(tmp, "relay.sock")
    relay = Relay(unix_listener(path), args.sim, tmp, attacks).start()
    client = Client(args.client, path, "--echo", str(echo), "--seconds", "20", *client_args)
    try:
        rc = client.finish(timeout=40)
        args.out = client.output()
        check_exit(client, rc, what)
        return client, relay
    finally:
        client.close()
        relay.stop()


def case_longer_in_reply(args, tmp):
    attack = LongerInReply()
    client, relay = echo_through(args, tmp, [attack], 64 * 1024, ["--txq", "4096"],
                                 "64 KiB after a longer IN reply")
    if not attack.fired:
        raise Fail("the relay never saw an OUT reply to answer after")
    if client.value("hangups") < 1 or relay.connections < 2:
        raise Fail(f"the client did not drop the connection and call again "
                   f"(hangups={client.value('hangups')}, calls={relay.connections})")
    print(f"ok: a bulk IN reply one byte longer than asked, with writes parked: the client "
          f"dropped the connection, called again ({relay.connections} calls) and echoed "
          f"64 KiB byte for byte")


def flood_packets(kind):
    """FLOOD_BYTES of one packet kind, as one string."""
    if kind == "disconnect":
        units = [packet(DEVICE_DISCONNECT, b"")]
    else:  # nothing the client asked for: it frees them and goes on
        units = [packet(INTERRUPT_PACKET, struct.pack("<BBH", 0x83, 0, 8) + bytes(8), 7),
                 packet(BULK_PACKET, struct.pack("<BBHIH", 0x81, 0, 0, 0, 0), 1 << 40),
                 packet(CONTROL_PACKET, struct.pack("<BBBBHHH", 0x80, 6, 0x80, 0, 0, 0, 0),
                        1 << 41)]
    unit = b"".join(units)
    return unit * -(-FLOOD_BYTES[kind] // len(unit))


def case_flood(args, tmp, kind):
    path = os.path.join(tmp, "server.sock")
    srv = unix_listener(path)
    srv.settimeout(10)
    client = Client(args.client, path, "--seconds", "120", "--max-stall-ms", str(MAX_STALL_MS))
    try:
        conn, _ = srv.accept()
        flood = flood_packets(kind)
        start = time.monotonic()
        with conn:
            # all of it queued at once, as a fast network would deliver it
            conn.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, len(flood) + (1 << 20))
            try:
                conn.sendall(hello() + interface_info() + palm_ep_info() + palm_device_connect()
                             + flood)
                conn.shutdown(socket.SHUT_WR)
                conn.settimeout(30)
                while conn.recv(65536):  # until the client has read it all and hangs up
                    pass
            except (BrokenPipeError, ConnectionResetError):
                pass
            except socket.timeout:
                client.finish(timeout=5, terminate=True)
                args.out = client.output()
                raise Fail("the client was still busy with the flood after 30 s")
        took_s = time.monotonic() - start
        srv.settimeout(30)
        try:
            srv.accept()[0].close()
        except socket.timeout:
            raise Fail("the client did not call again within 30 s of the flood")
        rc = client.finish(timeout=30, terminate=True)
        args.out = client.output()
        stall = client.stall_ms()
        print(f"{kind} flood of {len(flood) >> 10} KiB: over in {took_s:.2f} s, "
              f"the client's longest stall {stall} ms of CPU (bound {MAX_STALL_MS} ms; "
              f"its timer was {client.stall_ms('late')} ms late at most)")
        check_exit(client, rc, f"the {kind} flood")
        print(f"ok: the client stayed responsive through the {kind} flood and called again")
    finally:
        client.close()
        srv.close()


def case_stops_reading(args, tmp):
    attack = StopsReading()
    path = os.path.join(tmp, "relay.sock")
    relay = Relay(unix_listener(path), args.sim, tmp, [attack]).start()
    client = Client(args.client, path, "--echo", str(256 * 1024), "--seconds", "100")
    try:
        hung = client.wait_line("hangup", 100)
        rc = client.finish(timeout=110)
        args.out = client.output()
        if attack.deaf_at is None:
            raise Fail("the relay never saw an OUT reply")
        if hung is None:
            raise Fail("the client never hung up on a server that stopped reading")
        took = hung - attack.deaf_at
        print(f"a server that stopped reading was hung up on {took:.1f} s later "
              f"(bound {HANGUP_BOUND_S} s); {relay.connections} calls")
        if took > HANGUP_BOUND_S:
            raise Fail(f"{took:.1f} s before the client hung up, above {HANGUP_BOUND_S} s")
        if relay.connections < 2:
            raise Fail("the client did not call again")
        check_exit(client, rc, "256 KiB after a server that stopped reading")
    finally:
        client.close()
        relay.stop()
    print("ok: a server that stopped reading was hung up on, called again, and 256 KiB echoed")


def vm_hwm_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def case_oversized_packet(args, tmp):
    path = os.path.join(tmp, "server.sock")
    srv = unix_listener(path)
    srv.settimeout(10)
    client = Client(args.client, path, "--seconds", "60")
    announced, sent_max, sent = 120 << 20, 32 << 20, 0
    try:
        conn, _ = srv.accept()
        with conn:
            conn.sendall(hello())
            time.sleep(0.5)
            before = vm_hwm_kb(client.proc.pid)
            hdr = struct.pack("<BBHIH", 0x81, 0, announced & 0xFFFF, 0, announced >> 16)
            conn.settimeout(10)
            try:
                # the header says the data follows; only sent_max of it does
                conn.sendall(struct.pack("<IIQ", BULK_PACKET, len(hdr) + announced, 7) + hdr)
                chunk = b"\xaa" * (1 << 20)
                while sent < sent_max:
                    conn.sendall(chunk)
                    sent += len(chunk)
                conn.shutdown(socket.SHUT_WR)
                while conn.recv(65536):  # a client that reads it all never hangs up
                    pass
            except (BrokenPipeError, ConnectionResetError):
                pass
            except socket.timeout:
                raise Fail(f"the client took {sent >> 20} MiB of the packet and kept the "
                           f"connection for 10 s more")
        grown = vm_hwm_kb(client.proc.pid) - before
        try:
            srv.accept()[0].close()
        except socket.timeout:
            raise Fail("the client did not call again within 10 s")
        rc = client.finish(timeout=30, terminate=True)
        args.out = client.output()
        print(f"a bulk packet announced at {announced >> 20} MiB: the client hung up after "
              f"{sent >> 20} MiB were sent; its peak memory grew by {grown} kB")
        if grown > 16 << 10:
            raise Fail(f"the client's peak memory grew by {grown} kB reading one packet")
        check_exit(client, rc, "the oversized packet")
        print("ok: a packet larger than any pilotd asks for ends the connection at its header")
    finally:
        client.close()
        srv.close()


def serve_calls(srv, seconds, serve):
    """Each call for seconds: serve(conn), a hung-up client's errors ignored;
    how many calls came, and how many serve() counted."""
    srv.settimeout(5)
    calls, counted, end = 0, 0, time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            break
        calls += 1
        with conn:
            try:
                counted += bool(serve(conn))
            except (BrokenPipeError, ConnectionResetError, socket.timeout):
                pass
    return calls, counted


def burst_server(burst, linger):
    """serve_calls()'s serve: burst sent, then read until the client hangs
    up (linger seconds at most)."""
    def serve(conn):
        conn.settimeout(linger)
        conn.sendall(burst)
        while conn.recv(4096):
            pass
    return serve


def case_disconnect_no_device(args, tmp):
    path = os.path.join(tmp, "server.sock")
    srv = unix_listener(path)
    client = Client(args.client, path, "--seconds", "60")
    try:
        calls, _ = serve_calls(srv, 6, burst_server(hello() + packet(DEVICE_DISCONNECT, b""), 5))
        rc = client.finish(timeout=30, terminate=True)
        args.out = client.output()
        print(f"hello and device_disconnect with no device: {calls} calls in 6 s")
        if calls > 12:
            raise Fail(f"{calls} calls in 6 s: a device_disconnect with no device was "
                       f"taken for a departure, with no pause between calls")
        if calls < 2:
            raise Fail("the client did not call again")
        check_exit(client, rc, "device_disconnect with no device")
        print("ok: the calls back off")
    finally:
        client.close()
        srv.close()


FLOOD_REPEATS = 20000


def no_bulk_ep_info():
    """Endpoint information with no bulk endpoint at all."""
    return packet(EP_INFO, bytes([255] * 32) + bytes(32) + bytes(32) + struct.pack("<32H", *[0] * 32))


def case_log_flood(args, tmp, kind):
    foreign = packet(DEVICE_CONNECT, struct.pack("<BBBBHHH", 1, 0, 0, 0, 0x1234, 0x5678, 0x0100))
    burst = {
        "foreign": hello() + interface_info() + palm_ep_info() + foreign * FLOOD_REPEATS,
        "no-endpoints": hello() + interface_info() + no_bulk_ep_info() +
        palm_device_connect() * FLOOD_REPEATS,
        # after the first, with the 64-bit ids both hellos agreed on
        "hello": hello() + packet(HELLO, hello()[12:]) * FLOOD_REPEATS,
        # a refused device that leaves at once, on every call
        "refused-left": hello() + interface_info() + palm_ep_info() + foreign +
        packet(DEVICE_DISCONNECT, b""),
        # a handheld taken, gone in its set-up, on every call
        "setup-left": hello() + interface_info() + palm_ep_info() + palm_device_connect() +
        packet(DEVICE_DISCONNECT, b""),
    }[kind]
    path = os.path.join(tmp, "server.sock")
    srv = unix_listener(path)
    client = Client(args.client, path, "--seconds", "60")
    try:
        calls, _ = serve_calls(srv, 6, burst_server(burst, 3))
        rc = client.finish(timeout=30, terminate=True)
        args.out = client.output()
        lines = args.out.count("\n")
        print(f"{kind}: {calls} calls; the client wrote {lines} lines")
        if calls < 1:
            raise Fail("the client never called")
        if lines > 20 + 12 * calls:
            raise Fail(f"{lines} lines of output for {calls} calls: a log line per packet")
        if calls > 12:
            raise Fail(f"{calls} calls in 6 s: a device that never ran was taken for a "
                       f"handheld's departure, with no pause between calls")
        check_exit(client, rc, f"log flood ({kind})")
        print("ok: the log stays bounded")
    finally:
        client.close()
        srv.close()


def client_requests(buf, seen_hello):
    """The client's whole requests in buf, its hello (a 32-bit id) skipped
    first: (requests, the rest, whether its hello is past)."""
    if not seen_hello:
        if len(buf) < 12 or len(buf) < 12 + struct.unpack_from("<I", buf, 4)[0]:
            return [], buf, False
        buf = buf[12 + struct.unpack_from("<I", buf, 4)[0]:]
    reqs, buf = requests(buf)
    return reqs, buf, True


def control_reply(body, ident, status):
    """The reply to a control request, with no data."""
    ep, req, rtype, _, value, index, _ = struct.unpack("<BBBBHHH", body[:10])
    return packet(CONTROL_PACKET, struct.pack("<BBBBHHH", ep, req, rtype, status, value, index, 0),
                  ident)


def serve_running_left(conn, close):
    """One call: a handheld whose set-up is answered (every control request
    stalls: pilotd falls back to the first bulk pair), then, once its stream
    runs (pilotd's first bulk packet), leaves (device_disconnect) or the
    server hangs up (close).  Whether the stream ran."""
    conn.settimeout(1.0)
    conn.sendall(hello() + interface_info() + palm_ep_info() + palm_device_connect())
    buf, seen_hello = b"", False
    while True:
        data = conn.recv(65536)
        if not data:
            return False
        buf += data
        reqs, buf, seen_hello = client_requests(buf, seen_hello)
        for ptype, ident, body in reqs:
            if ptype == CONTROL_PACKET:
                conn.sendall(control_reply(body, ident, 4))  # a stall
            elif ptype == BULK_PACKET:
                if not close:
                    conn.sendall(packet(DEVICE_DISCONNECT, b""))
                    while conn.recv(4096):
                        pass
                return True


def case_running_left(args, tmp, close):
    kind = "closed" if close else "left"
    path = os.path.join(tmp, "server.sock")
    srv = unix_listener(path)
    client = Client(args.client, path, "--seconds", "60")
    try:
        calls, ran = serve_calls(srv, 6, lambda conn: serve_running_left(conn, close))
        rc = client.finish(timeout=30, terminate=True)
        args.out = client.output()
        lines = args.out.count("\n")
        print(f"running-{kind}: {calls} calls, the stream ran on {ran}; the client wrote "
              f"{lines} lines")
        if ran < 1:
            raise Fail("no stream ever ran: the case did not test")
        if calls > 12:
            raise Fail(f"{calls} calls in 6 s: a handheld whose stream ended at once was "
                       f"called again with no pause")
        # a call logs its arrival, departure and set-up: the set-up at most
        # 2 + 3 * SETUP_REQUESTS_MAX (6) lines (core/setup.h), each request
        # and answer (docs/devices.md "Diagnostics")
        if lines > 20 + 26 * calls:
            raise Fail(f"{lines} lines of output for {calls} calls")
        check_exit(client, rc, f"running-{kind}")
        print("ok: the calls back off")
    finally:
        client.close()
        srv.close()


START_INTERRUPT_RECEIVING, STOP_INTERRUPT_RECEIVING, INTERRUPT_RECEIVING_STATUS = 15, 16, 17
TREO_90 = (0x082D, 0x0200)
INTERRUPT_FLOOD = 20000  # packets of 64 bytes: 1.6 MB


def treo_ep_info():
    """Bulk 0x81/0x01 and 0x82/0x02, and interrupt IN 0x83, on interface 0."""
    types, mps = [255] * 32, [0] * 32
    for addr in (0x81, 0x01, 0x82, 0x02):
        types[ep_index(addr)], mps[ep_index(addr)] = 2, 64
    types[ep_index(0x83)], mps[ep_index(0x83)] = 3, 64
    return packet(EP_INFO, bytes(types) + bytes(32) + bytes(32) + struct.pack("<32H", *mps))


def serve_treo_90(conn, kind, seen):
    """One call of a Treo 90 (desrod/pilot-link issue 13) whose extended
    connection information comes empty and whose interrupt pipe, once
    asked, says nothing (silent) or sends packets without end (flood),
    on and on after it was told to stop.  Notes in seen when pilotd
    asked for the interrupt read and when its stream ran."""
    conn.settimeout(1.0)
    conn.sendall(hello() + interface_info() + treo_ep_info() +
                 packet(DEVICE_CONNECT, struct.pack("<BBBBHHH", 0xFF, 0, 0, 0, *TREO_90, 0x0100)))
    seen["connect"] = time.monotonic()
    junk = struct.pack("<BBH", 0x83, 0, 64) + bytes(range(64))
    buf, seen_hello, flooding = b"", False, False
    while True:
        if flooding:  # whatever pilotd says, the pipe goes on
            conn.settimeout(5)
            try:
                conn.sendall(packet(INTERRUPT_PACKET, junk) * 200)
            except socket.timeout:
                raise Fail(f"pilotd read nothing for 5 s after {seen.get('sent', 0)} "
                           f"interrupt packets")
            seen["sent"] = seen.get("sent", 0) + 200
            flooding = seen["sent"] < INTERRUPT_FLOOD
            if not flooding and "stream" in seen:
                return True
        conn.settimeout(0.01 if flooding else 1.0)
        try:
            data = conn.recv(65536)
        except socket.timeout:
            continue
        if not data:
            return False
        buf += data
        reqs, buf, seen_hello = client_requests(buf, seen_hello)
        for ptype, ident, body in reqs:
            if ptype == CONTROL_PACKET:
                # the extended request answered empty, the rest refused
                ext = (body[2], body[1]) == (0xC2, 0x04)
                conn.sendall(control_reply(body, ident, 0 if ext else 4))
            elif ptype == START_INTERRUPT_RECEIVING:
                seen["asked"] = time.monotonic()
                conn.sendall(packet(INTERRUPT_RECEIVING_STATUS, struct.pack("<BB", 0, body[0]),
                                    ident))
                flooding = kind == "flood"
            elif ptype == BULK_PACKET:
                seen.setdefault("stream", time.monotonic())
                if flooding:
                    continue  # until the flood is all sent
                conn.sendall(packet(DEVICE_DISCONNECT, b""))
                while conn.recv(4096):
                    pass
                return True


def case_treo_90(args, tmp, kind):
    path = os.path.join(tmp, "server.sock")
    srv = unix_listener(path)
    client = Client(args.client, path, "--seconds", "60")
    seen = {}
    try:
        srv.settimeout(10)
        conn, _ = srv.accept()
        with conn:
            try:
                serve_treo_90(conn, kind, seen)
            except (BrokenPipeError, ConnectionResetError):
                pass
        rc = client.finish(timeout=30, terminate=True)
        args.out = client.output()
        lines = args.out.count("\n")
        if "asked" not in seen:
            raise Fail("pilotd never asked for the interrupt read: the case did not test")
        if "stream" not in seen:
            raise Fail(f"the interrupt pipe {kind}: the stream never started")
        took = seen["stream"] - seen["connect"]
        print(f"treo-90-{kind}: the stream ran {took:.1f} s after device_connect; "
              f"{seen.get('sent', 0)} interrupt packets sent; the client wrote {lines} lines")
        # silent: PALM_INTERRUPT_WAIT_MS (2 s), then BYTES_AVAILABLE;
        # flood: its first packet answers the read
        if kind == "silent" and not 1.5 <= took <= 8:
            raise Fail(f"the stream ran {took:.1f} s after device_connect, not after the "
                       f"interrupt read's 2 s")
        if kind == "flood" and took > 5:
            raise Fail(f"the stream ran {took:.1f} s after device_connect: the flood held "
                       f"the set-up")
        if lines > 60:
            raise Fail(f"{lines} lines of output: a line per interrupt packet?")
        check_exit(client, rc, f"treo-90-{kind}")
        print("ok: the set-up goes on, once, whatever the interrupt pipe does")
    finally:
        client.close()
        srv.close()


def case_no_32bit_lengths(args, tmp):
    attack = No32BitLengths()
    echo_through(args, tmp, [attack], 256 * 1024, [],
                 "256 KiB without 32-bit bulk lengths")
    if not attack.held:
        raise Fail("the relay never held an OUT reply")
    if attack.largest_out != 0xFFFF:
        raise Fail(f"the largest OUT packet was {attack.largest_out} bytes, not 65535: "
                   f"txq never held 64 KiB when one was taken")
    print("ok: without usb_redir_cap_32bits_bulk_length, 256 KiB echoed byte for byte "
          "in OUT packets of 65535 bytes at most")


def in_mount_ns(hosts):
    """A command prefix: a private mount namespace with hosts as /etc/hosts."""
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            'mount --bind "$0" /etc/hosts && exec "$@"', hosts]


def case_second_address(args, tmp):
    name = "pilotd-cradle.test"
    hosts = os.path.join(tmp, "hosts")
    with open(hosts, "w") as f:
        f.write(f"::1 {name}\n127.0.0.1 {name}\n")
    try:
        first = subprocess.run(in_mount_ns(hosts) + [
            sys.executable, "-c", "import socket, sys; print(socket.getaddrinfo(sys.argv[1], 1, "
            "type=socket.SOCK_STREAM)[0][4][0])", name], capture_output=True, text=True)
    except FileNotFoundError as e:
        raise Skip(str(e))
    if first.returncode != 0:
        raise Skip(f"no private mount namespace: {first.stderr.strip()}")
    if first.stdout.strip() != "::1":
        raise Fail(f"{name} resolves to {first.stdout.strip()} first, not ::1")
    srv = tcp_listener("127.0.0.1")
    port = srv.getsockname()[1]
    relay = Relay(srv, args.sim, tmp).start()
    client = Client(args.client, f"{name}:{port}", "--echo", str(64 * 1024), "--seconds", "15",
                    wrap=in_mount_ns(hosts))
    try:
        rc = client.finish(timeout=30)
        args.out = client.output()
        check_exit(client, rc, f"{name}:{port}, server on 127.0.0.1 only")
    finally:
        client.close()
        relay.stop()
    print(f"ok: {name} is ::1 then 127.0.0.1; the server on 127.0.0.1:{port} only was found "
          f"and 64 KiB echoed")


class Netns:
    """Two network namespaces joined by a veth pair, gone on exit."""

    def __init__(self):
        tag = os.getpid()
        self.cli, self.srv = f"pilotd-cli-{tag}", f"pilotd-srv-{tag}"
        self.made = []

    def ip(self, *argv, ns=None):
        cmd = (["ip", "netns", "exec", ns] if ns else []) + ["ip"] + list(argv)
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise Fail(f"{' '.join(cmd)}: {r.stderr.strip()}")

    def __enter__(self):
        for ns in (self.cli, self.srv):
            try:
                r = subprocess.run(["ip", "netns", "add", ns], capture_output=True, text=True)
            except FileNotFoundError as e:
                raise Skip(str(e))
            if r.returncode != 0:
                self.__exit__()
                raise Skip(f"no network namespace: {r.stderr.strip()}")
            self.made.append(ns)
        try:
            self.ip("link", "add", "vc", "type", "veth", "peer", "name", "vs", "netns",
                    self.srv, ns=self.cli)
            for ns, dev, addr in ((self.cli, "vc", "10.77.0.2/24"),
                                  (self.srv, "vs", "10.77.0.1/24")):
                self.ip("addr", "add", addr, "dev", dev, ns=ns)
                self.ip("link", "set", dev, "up", ns=ns)
                self.ip("link", "set", "lo", "up", ns=ns)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.made = []


def case_silent_peer(args, tmp):
    relay = client = None
    with Netns() as nets:
        try:
            relay = subprocess.Popen(
                ["ip", "netns", "exec", nets.srv, sys.executable, os.path.abspath(__file__),
                 "relay", "--listen", "10.77.0.1:4000", "--sim", args.sim],
                stdout=subprocess.PIPE, text=True)
            if relay.stdout.readline().strip() != "listening":
                raise Fail("the relay did not start")
            client = Client(args.client, "10.77.0.1:4000", "--seconds", "120",
                            wrap=["ip", "netns", "exec", nets.cli])
            if client.wait_line("carrier on", 20) is None:
                args.out = client.output()
                raise Fail("no handheld within 20 s")
            time.sleep(1)  # a session, idle, a read parked
            nets.ip("link", "set", "vs", "down", ns=nets.srv)
            cut = time.monotonic()
            print("the server's link went down mid-session")
            hung = client.wait_line("hangup", HANGUP_BOUND_S)
            rc = client.finish(timeout=10, terminate=True)
            args.out = client.output()
            if hung is None:
                raise Fail(f"no hangup within {HANGUP_BOUND_S} s of the server going silent")
            print(f"hangup {hung - cut:.1f} s after the server went silent "
                  f"(bound {HANGUP_BOUND_S} s)")
            check_exit(client, rc, "a silent server")
            print("ok: a server that went silent mid-session was hung up on")
        finally:
            if client:
                client.close()
            if relay and relay.poll() is None:
                relay.terminate()
                relay.wait()


def case_relay(args, tmp):
    if "/" in args.listen:
        srv = unix_listener(args.listen)
    else:
        host, port = args.listen.rsplit(":", 1)
        srv = tcp_listener(host.strip("[]"), int(port))
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    relay = Relay(srv, args.sim, tmp).start()
    print("listening", flush=True)
    while not done.wait(0.5):
        pass
    relay.stop()


CASES = {
    "longer-in-reply": case_longer_in_reply,
    "disconnect-flood": lambda a, t: case_flood(a, t, "disconnect"),
    "ignored-flood": lambda a, t: case_flood(a, t, "ignored"),
    "no-32bit-lengths": case_no_32bit_lengths,
    "second-address": case_second_address,
    "silent-peer": case_silent_peer,
    "stops-reading": case_stops_reading,
    "oversized-packet": case_oversized_packet,
    "disconnect-no-device": case_disconnect_no_device,
    "log-flood-foreign": lambda a, t: case_log_flood(a, t, "foreign"),
    "log-flood-no-endpoints": lambda a, t: case_log_flood(a, t, "no-endpoints"),
    "log-flood-hello": lambda a, t: case_log_flood(a, t, "hello"),
    "log-flood-refused-left": lambda a, t: case_log_flood(a, t, "refused-left"),
    "log-flood-setup-left": lambda a, t: case_log_flood(a, t, "setup-left"),
    "running-left": lambda a, t: case_running_left(a, t, False),
    "running-closed": lambda a, t: case_running_left(a, t, True),
    "treo-90-silent": lambda a, t: case_treo_90(a, t, "silent"),
    "treo-90-flood": lambda a, t: case_treo_90(a, t, "flood"),
    "relay": case_relay,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", choices=CASES)
    ap.add_argument("--client", help="redir-client")
    ap.add_argument("--sim", required=True, help="palm-sim")
    ap.add_argument("--listen", default=None, help="relay: HOST:PORT or a socket path")
    args = ap.parse_args()
    if args.case != "relay" and not args.client:
        ap.error("--client is needed")
    if args.case == "relay" and not args.listen:
        ap.error("relay needs --listen")
    if args.case != "relay":  # meson's timeout is a SIGTERM: clean up on the way out
        signal.signal(signal.SIGTERM, lambda *_: sys.exit("FAIL: terminated"))
    args.out = ""
    with tempfile.TemporaryDirectory(prefix="redir-attacks.") as tmp:
        try:
            CASES[args.case](args, tmp)
        except Skip as e:
            if os.environ.get("CI"):
                sys.stderr.write(f"FAIL: {args.case}: cannot run here, and CI is set: {e}\n")
                sys.exit(1)
            print(f"skip: {e}")
            sys.exit(77)
        except Fail as e:
            sys.stderr.write(args.out)
            sys.exit(f"FAIL: {args.case}: {e}")
        if os.environ.get("REDIR_VERBOSE"):
            sys.stderr.write(args.out)


if __name__ == "__main__":
    main()
