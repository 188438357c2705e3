#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pilotd's usbredir transport against a simulated Palm and a hostile server.

--echo: redir-client (pilotd's link_usbredir.c and port, without CUSE)
calls palm-sim over a Unix socket and must get 64 KiB back byte for byte.

--hostile ROUNDS: this script is the usbredir server.  Round after round
it accepts the client's call, plays a handheld that lies: a hello, then
endpoint information and device_connect (valid or damaged), answers to
the client's control and bulk requests with wrong lengths, statuses and
ids, oversized data, departures, unknown packet types and plain garbage,
then hangs up.  The client must call again every round (reconnection
with backoff) and never die; and a server that offers a handheld and then
never answers must be hung up on by the client itself: built with AddressSanitizer and UBSan in
./run-tests, any report ends it with a non-zero status.  Last, palm-sim
takes over the socket, and the same client must move 64 KiB through it
byte for byte: pilotd's transport still works after all that.

usage: redir_peer.py (--echo | --hostile ROUNDS) REDIR-CLIENT PALM-SIM
"""
import os
import random
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time

HELLO, DEVICE_CONNECT, DEVICE_DISCONNECT = 0, 1, 2
INTERFACE_INFO, EP_INFO = 4, 5
CONTROL_PACKET, BULK_PACKET = 100, 101
# connect_device_version, device_disconnect_ack, ep_info_max_packet_size,
# 64bits_ids, 32bits_bulk_length: what pilotd asks for
CAPS = (1 << 1) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6)
TYPES = list(range(0, 28)) + list(range(100, 105))
ECHO_BYTES = 65536


def ep_index(addr):
    return ((addr & 0x80) >> 3) | (addr & 0x0F)


def packet(ptype, body, ident=0):
    return struct.pack("<IIQ", ptype, len(body), ident) + body


def hello():
    body = b"hostile server".ljust(64, b"\0") + struct.pack("<I", CAPS)
    return struct.pack("<III", HELLO, len(body), 0) + body  # 32-bit id before hello


def interface_info():
    return packet(INTERFACE_INFO, struct.pack("<I", 1) + bytes([0] * 32) + bytes([0xFF] * 32)
                  + bytes(64))


def ep_info(rng):
    types, mps = [255] * 32, [0] * 32
    for addr in (0x81, 0x01, 0x82, 0x02):
        types[ep_index(addr)] = 2  # bulk
        mps[ep_index(addr)] = rng.choice([64, 64, 0, 1, 2047, 65535])
    body = bytes(types) + bytes(32) + bytes(rng.choice([0, 0, 1]) for _ in range(32))
    return packet(EP_INFO, body + struct.pack("<32H", *mps))


def device_connect(rng):
    vid, pid = rng.choice([(0x0830, 0x0060), (0x082D, 0x0100), (0x054C, 0x0038),
                           (0x1209, 0x0001)])
    return packet(DEVICE_CONNECT, struct.pack("<BBBBHHH", 1, 0, 0, 0, vid, pid, 0x0100))


def junk(rng):
    ptype = rng.choice(TYPES)
    body = rng.randbytes(rng.choice([0, 1, 2, 7, 10, 64, 160, rng.randrange(0, 4096)]))
    return packet(ptype, body, rng.getrandbits(64))


def answer(rng, ptype, ident, body):
    """A lying answer to one of the client's requests, or None."""
    if ident and rng.random() < 0.2:
        ident = rng.choice([ident + 1, ident - 1, rng.getrandbits(64)])
    status = rng.choice([0, 0, 0, 1, 2, 3, 4, 5, 6, 200])
    if ptype == CONTROL_PACKET and len(body) >= 10:
        ep, req, rtype, _, value, index, length = struct.unpack("<BBBBHHH", body[:10])
        data = rng.randbytes(rng.choice([0, 1, length, length + 1, 300]))
        if not rtype & 0x80:
            data = b""
        hdr = struct.pack("<BBBBHHH", ep, req, rtype, status, value, index, len(data) & 0xFFFF)
        return packet(CONTROL_PACKET, hdr + data, ident)
    if ptype == BULK_PACKET and len(body) >= 10:
        ep, _, length, stream, high = struct.unpack("<BBHIH", body[:10])
        want = (high << 16) | length
        if ep & 0x80:
            data = rng.randbytes(rng.choice([0, 1, 63, 64, want, want + 1, 1000]))
            n = len(data)
        else:
            data, n = b"", rng.choice([0, want, want + 7, 1 << 20])
        hdr = struct.pack("<BBHIH", ep, status, n & 0xFFFF, 0, (n >> 16) & 0xFFFF)
        return packet(BULK_PACKET, hdr + data, ident)
    return None


def requests(buf):
    """Split the client's bytes into (type, id, body); returns them and the rest."""
    out = []
    while len(buf) >= 16:
        ptype, length, ident = struct.unpack("<IIQ", buf[:16])
        if ptype == HELLO:  # its hello has a 32-bit id: nothing is agreed yet
            ident = 0
            length_total = 12 + length
        else:
            length_total = 16 + length
        if len(buf) < length_total:
            break
        body = buf[length_total - length:length_total]
        out.append((ptype, ident, body))
        buf = buf[length_total:]
    return out, buf


def hostile_round(conn, rng):
    conn.settimeout(0.5)
    start = []
    if rng.random() < 0.1:
        start.append(rng.randbytes(rng.randrange(1, 64)))  # garbage before hello
    start.append(hello())
    if rng.random() < 0.9:
        start += [interface_info(), ep_info(rng), device_connect(rng)]
    try:
        conn.sendall(b"".join(start))
        buf, end = b"", time.monotonic() + rng.choice([0.05, 0.3, 0.6])
        while time.monotonic() < end:
            ready, _, _ = select.select([conn], [], [], 0.05)
            if ready:
                data = conn.recv(65536)
                if not data:
                    return  # the client dropped us: allowed
                buf += data
            reqs, buf = requests(buf)
            out = []
            for ptype, ident, body in reqs:
                a = answer(rng, ptype, ident, body)
                if a and rng.random() < 0.9:
                    out.append(a)
            if rng.random() < 0.2:
                out.append(junk(rng))
            if rng.random() < 0.05:
                out.append(packet(DEVICE_DISCONNECT, b""))
            if rng.random() < 0.05:
                out += [ep_info(rng), device_connect(rng)]
            if out:
                conn.sendall(b"".join(out))
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        return


def silent_round(srv, client, log):
    """A server that offers a handheld, then never answers: the client must
    give up the set-up and hang up by itself (pilotd: 10 s), not wait for good."""
    conn, _ = srv.accept()
    with conn:
        conn.sendall(hello() + interface_info() + ep_info(random.Random(0)) +
                     device_connect(random.Random(1)))
        start, deadline = time.monotonic(), time.monotonic() + 60
        while time.monotonic() < deadline:
            ready, _, _ = select.select([conn], [], [], 1)
            if ready and not conn.recv(65536):
                print(f"ok: a silent server was given up after {time.monotonic() - start:.1f} s")
                return
        log.seek(0)
        sys.stderr.write(log.read().decode(errors="replace"))
        sys.exit("FAIL: the client waited 60 s on a server that never answered")


def start_client(client, sock, log):
    env = dict(os.environ, ASAN_OPTIONS="exitcode=66:detect_leaks=1",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=67")
    return subprocess.Popen([client, "--usbredir", sock, "--echo", str(ECHO_BYTES),
                             "--seconds", "240"] + (["-v"] if os.environ.get("REDIR_VERBOSE") else []), stdout=log, stderr=log, env=env)


def run_sim(sim, sock, log):
    proc = subprocess.Popen([sim, "--usbredir", sock], stdout=log, stderr=log)
    for _ in range(200):
        if os.path.exists(sock):
            return proc
        time.sleep(0.01)
    sys.exit("palm-sim did not start")


def finish(client, log, what):
    try:
        rc = client.wait(timeout=60)
    except subprocess.TimeoutExpired:
        client.kill()
        rc = "timeout"
    log.seek(0)
    text = log.read().decode(errors="replace")
    if rc != 0 or os.environ.get("REDIR_VERBOSE"):
        sys.stderr.write(text)
    if rc != 0:
        sys.exit(f"FAIL: {what}: redir-client ended with {rc}")
    print(text.strip().splitlines()[-1])
    print(f"ok: {what}")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("--echo", "--hostile"):
        sys.exit(__doc__)
    hostile = sys.argv[1] == "--hostile"
    rounds = int(sys.argv[2]) if hostile else 0
    client_bin, sim = sys.argv[-2], sys.argv[-1]
    tmp = tempfile.mkdtemp(prefix="redir-peer.")
    sock = os.path.join(tmp, "usb.sock")
    log = tempfile.TemporaryFile()
    simlog = tempfile.TemporaryFile()
    if not hostile:
        simproc = run_sim(sim, sock, simlog)
        client = start_client(client_bin, sock, log)
        finish(client, log, f"{ECHO_BYTES} bytes through palm-sim")
        simproc.wait(timeout=10)
        return
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(sock)
    srv.listen(1)
    srv.settimeout(10)  # backoff is 2 s at most
    client = start_client(client_bin, sock, log)
    for seed in range(rounds):
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            client.poll()
            log.seek(0)
            sys.stderr.write(log.read().decode(errors="replace"))
            sys.exit(f"FAIL: round {seed}: the client did not call again within 10 s "
                     f"(it is {'gone, status %s' % client.returncode if client.returncode is not None else 'running'})")
        with conn:
            hostile_round(conn, random.Random(seed))
        if client.poll() is not None:
            log.seek(0)
            sys.stderr.write(log.read().decode(errors="replace"))
            sys.exit(f"FAIL: round {seed}: redir-client died with status {client.returncode}")
    print(f"ok: {rounds} hostile rounds, the client called again after each")
    silent_round(srv, client, log)
    srv.close()
    os.unlink(sock)
    simproc = run_sim(sim, sock, simlog)
    finish(client, log, f"then {ECHO_BYTES} bytes through palm-sim")
    simproc.wait(timeout=10)


if __name__ == "__main__":
    main()
