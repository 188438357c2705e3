#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn the bench's RESULT lines into the comparison table (bench/run-bench)."""
import sys


def parse(path):
    rows = []
    with open(path) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
            rows.append(kv)
    return rows


def find(rows, **want):
    for r in rows:
        if all(r.get(k) == v for k, v in want.items()):
            return r
    return None


def num(r, key):
    try:
        return float(r[key]) if r else None
    except (KeyError, ValueError):
        return None


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"


def print_clocks(rows):
    print("== the guest's clock, per boot (bench/bench-guest.sh, clockcheck)")
    clocks = [r for r in rows if r.get("op") == "clock"]
    for c in clocks:
        print(f"{c.get('boot', '?'):9} {c.get('source', '?'):16} smallest step "
              f"{c.get('step_ns', '?')} ns, clock_getres {c.get('getres_ns', '?')} ns")
    loads = [r for r in rows if r.get("op") == "host-load"]
    if loads:  # run-bench's, at each boot's start and end
        print("the host's load (1, 5, 15 min), boot by boot: "
              + "; ".join(f"{a.get('load')} to {b.get('load')}"
                          for a, b in zip(loads[::2], loads[1::2])))


def clock_ok(rows):
    """Print each boot's clock; True when the main boot's moves in microsecond steps."""
    print_clocks(rows)
    main_clock = find(rows, op="clock", boot="main")
    if main_clock and main_clock.get("microsecond") == "yes":
        return True
    why = (f"the guest's clock moved in steps of {main_clock.get('step_ns')} ns\non "
           f"{main_clock.get('source')}, so one call's time would be mostly that step"
           if main_clock else "the main boot recorded no clock (clockcheck),\nso no "
           "call's time can be trusted")
    print(f"\nNo per-call figures (round trips, requests, floors): {why} (see "
          "qemu-usb/run-guest.sh,\nthe clock).  Throughput and HotSync times span many "
          "steps and stand.")
    return False


def spread(r):
    """'median / mean' of a timed row, or '-'."""
    if not r:
        return f"{'-':>15}"
    return f"{num(r, 'median_us'):7.1f} /{num(r, 'mean_us'):7.1f}"


def floors(rows):
    """The request and the round trip against their floors (issue 29)."""
    print("\n== one request answered at once, us (median / mean): cuse-floor beside pilotd")
    print(f"{'':24} {'nbread: 1 request':>17}   {'TIOCOUTQ: 2 requests':>20}")
    req = {}
    for name, dev in (("floor, epoll loop", "floor-epoll"), ("floor, libfuse loop", "floor-libfuse"),
                      ("pilotd", "/dev/pilot"), ("visor tty (no CUSE)", "/dev/ttyUSB1")):
        nb, call = find(rows, op="nbread", dev=dev), find(rows, op="call", dev=dev)
        req[dev] = (nb, call)
        print(f"{name:24} {spread(nb):>17}   {spread(call):>20}")
    (fnb, fcall), (pnb, pcall) = req["floor-epoll"], req["/dev/pilot"]
    for stat in ("median_us", "min_us"):
        print(f"pilotd / epoll floor, {stat[:-3]}s: nbread "
              f"{ratio(num(pnb, stat), num(fnb, stat))}, TIOCOUTQ "
              f"{ratio(num(pcall, stat), num(fcall, stat))}   (target <= 1.1)")
    print("\n== round trip (echo) against its floor, us: the floor is the tty's round trip + two\n"
          "   requests at the floor (nbread) + the usbfs completion (raw libusb's echo - the tty's);\n"
          "   medians, and minima (what is left when the host lets the guest run: a loaded host\n"
          "   stretches medians and means)")
    for stat in ("median_us", "min_us"):
        request = num(fnb, stat)
        for n in ("1", "64"):
            tty = num(find(rows, op="latency", dev="/dev/ttyUSB1", bytes=n), stat)
            raw = num(find(rows, op="latency", dev="raw-libusb", bytes=n), stat)
            pil = num(find(rows, op="latency", dev="/dev/pilot", bytes=n), stat)
            if None in (tty, raw, pil, request):
                print(f"{stat[:-3]:6} {n:>2} B: -")
                continue
            floor = tty + 2 * request + (raw - tty)
            print(f"{stat[:-3]:6} {n:>2} B: tty {tty:.0f} + 2 x {request:.0f} + usbfs {raw - tty:.0f} "
                  f"= floor {floor:.0f}; pilotd {pil:.0f} = {ratio(pil, floor)} of it (target <= 1.2)")


def cpu_floor(rows, got):
    """CPU per MB of 1 KiB writes through any CUSE driver: cuse-floor's requests, plus
    moving the bytes over USB in large transfers (raw libusb 16 KiB x 4)."""
    req = num(find(rows, op="write-floor", dev="floor-epoll", call="1024"), "cpu_per_mb")
    usb = got["raw libusb 16 KiB x 4"][2]
    tty, pil = got["visor tty, 1 KiB calls"][2], got["pilotd, 1 KiB calls"][2]
    if None in (req, usb, tty, pil):
        return
    floor = req + usb
    print(f"  its floor: cuse-floor's 1 KiB writes {req:.4f} + USB {usb:.4f} = {floor:.4f} "
          f"CPU-s/MB, {ratio(floor, tty)} the tty's; pilotd is {ratio(pil, floor)} of it")


def cpu_instructions(rows):
    """CPU per MB of 1 KiB writes from the boot under -icount 0, where busy time is
    instructions: pilotd, cuse-floor and the tty, medians of their runs."""
    runs = {name: [x for x in (num(r, "cpu_per_mb") for r in rows
                               if r.get("dev") == f"icount-{name}") if x is not None]
            for name in ("pilotd", "nowrite", "floor", "tty")}
    if not runs["nowrite"]:  # pilotd --no-stream-write: only with run-bench --nowrite
        del runs["nowrite"]
    med = {name: median(xs) for name, xs in runs.items()}
    if None in med.values():
        return
    print("\n== CPU per MB of 1 KiB writes counted in instructions (a boot under -icount 0:\n"
          "   busy seconds are instructions / 1e9), median of the runs")
    for name, xs in runs.items():
        print(f"{name:7} {med[name]:.4f} ({' '.join(f'{x:.4f}' for x in xs)})")
    print(f"pilotd / tty: {ratio(med['pilotd'], med['tty'])}   (issue 29: <= 2); cuse-floor / tty: "
          f"{ratio(med['floor'], med['tty'])}; pilotd / cuse-floor: {ratio(med['pilotd'], med['floor'])}")
    if "nowrite" in med:
        print(f"pilotd --no-stream-write / tty: {ratio(med['nowrite'], med['tty'])}")


def round_trips(rows, lat):
    """The echo's round trips, the calls, and both against their floors."""
    print("\n== round trip (echo), microseconds: mean, median / p99")
    for n in ("1", "64", "1024"):
        p = find(rows, op="latency", dev="/dev/pilot", bytes=n)
        v = find(rows, op="latency", dev="/dev/ttyUSB1", bytes=n)
        u = find(rows, op="latency", dev="raw-libusb", bytes=n)
        lat[n] = (p, v)
        print(f"{n:>5} B   pilotd {num(p, 'mean_us') or 0:6.0f}, {num(p, 'median_us') or 0:6.0f}"
              f" / {num(p, 'p99_us') or 0:6.0f}   visor {num(v, 'mean_us') or 0:6.0f}, "
              f"{num(v, 'median_us') or 0:6.0f} / {num(v, 'p99_us') or 0:6.0f}"
              + (f"   raw libusb {num(u, 'mean_us'):6.0f}, {num(u, 'median_us'):6.0f} / "
                 f"{num(u, 'p99_us'):6.0f}" if u else ""))
    floors(rows)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return None if n == 0 else xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def hotsync(rows):
    """palm-sync's syncs; the 2 MiB installs on both paths of one boot, and their ratio."""
    print("\n== HotSync with palm-sync, seconds (list and backup through /dev/pilot)")
    for stack in ("net", "slp"):
        cells = [find(rows, op=f"hotsync-{op}", stack=stack) for op in ("list", "backup")]
        print(f"{stack:4} list {cells[0]['secs'] if cells[0] else '-':>7}  backup "
              f"{cells[1]['secs'] if cells[1] else '-':>7}")
    print("\n== the 2 MiB install, alternating in one boot per stack: pilotd's /dev/pilot and\n"
          "   palm-sync's own libusb path (--port usb:, no driver); median of the runs, seconds")
    for stack in ("net", "slp"):
        med = {}
        # nopush, nowrite: pilotd --no-stream-data, --no-stream-write (run-bench
        # --nopush, --nowrite), where the boot ran them
        paths = ["pilotd"] + [p for p in ("nopush", "nowrite")
                              if any(r.get("path") == p and r.get("stack") == stack
                                     for r in rows)] + ["libusb"]
        for path in paths:
            # rows of before the libusb path carry no path: they are /dev/pilot's
            runs = [r for r in rows if r.get("op") == "hotsync-install" and
                    r.get("stack") == stack and r.get("path", "pilotd") == path]
            secs = [num(r, "secs") for r in runs]
            ok = [x for x in secs if x is not None]
            med[path] = median(ok)
            shown = " ".join(f"{x:.2f}" if x is not None else "failed" for x in secs) or "-"
            print(f"{stack:4} {path:7} median {med[path] or 0:7.2f} of {len(ok)} runs ({shown})"
                  if ok else f"{stack:4} {path:7} - ({shown})")
        for path in paths[:-1]:
            print(f"{stack:4} {'/dev/pilot' if path == 'pilotd' else path} / libusb: "
                  f"{ratio(med[path], med['libusb'])}"
                  + ("   (target <= 1.2, issue 29)" if stack == "slp" else ""))
        install_floor(rows, stack, med)


def install_floor(rows, stack, med):
    """The install's floor through any CUSE driver: the libusb path plus one request at
    the floor (cuse-floor, the same boot) per read and write the desktop made."""
    fl = num(find(rows, op="nbread", dev=f"floor-{stack}"), "median_us")
    calls = [num(r, "reads") + num(r, "writes") for r in rows
             if r.get("op") == "hotsync-install" and r.get("stack") == stack
             and r.get("path") == "pilotd" and num(r, "reads") and num(r, "writes")]
    if fl is None or not calls or not med["libusb"] or not med["pilotd"]:
        return
    n = median(calls)
    floor = med["libusb"] + n * fl / 1e6
    print(f"{stack:4} floor: libusb {med['libusb']:.2f} + {n:.0f} reads and writes x "
          f"{fl:.1f} us (a request at the floor) = {floor:.2f} s, {ratio(floor, med['libusb'])} "
          f"of libusb; /dev/pilot is {ratio(med['pilotd'], floor)} of its floor")


def main():
    rows = parse(sys.argv[1])
    if not find(rows, op="clock", boot="main"):
        print_clocks(rows)  # no main boot (run-bench --hotsync-only, --boots)
        if find(rows, op="hotsync-install"):
            hotsync(rows)
        cpu_instructions(rows)
        return
    per_call = clock_ok(rows)
    print("\n== throughput (MB/s) and guest CPU seconds per MB")
    print(f"{'path':32} {'write':>8} {'read':>8} {'cpu w':>8} {'cpu r':>8}")
    paths = [("pilotd, 1 KiB calls", "/dev/pilot", "1024"),
             ("pilotd, 64 KiB calls", "/dev/pilot", "65536"),
             ("pilotd, 1 KiB, OPOST/ICRNL", "/dev/pilot", "1024", "-cooked"),
             ("visor tty, 1 KiB calls", "/dev/ttyUSB1", "1024"),
             ("visor tty, 1 KiB, OPOST/ICRNL", "/dev/ttyUSB1", "1024", "-cooked"),
             ("raw libusb 16 KiB x 4", "libusb-16384x4", "16384"),
             ("raw libusb 64 B x 4", "libusb-64x4", "64")]
    got = {}
    for name, dev, call, *cooked in paths:
        w = find(rows, op="write" + "".join(cooked), dev=dev, call=call)
        r = find(rows, op="read" + "".join(cooked), dev=dev, call=call)
        got[name] = (num(w, "mbps"), num(r, "mbps"), num(w, "cpu_per_mb"), num(r, "cpu_per_mb"))
        cells = [f"{v:8.3f}" if v is not None else f"{'-':>8}" for v in got[name]]
        print(f"{name:32} {' '.join(cells)}")
    pw = find(rows, op="parked-write")
    print(f"\nwrite with another thread's read parked (64 KiB calls): "
          f"{num(pw, 'mbps') or 0:.3f} MB/s, "
          f"{ratio(num(pw, 'mbps'), got['pilotd, 64 KiB calls'][0])} of without")
    lat = {}
    if per_call:
        round_trips(rows, lat)
    idle = find(rows, op="idle")
    if idle:
        print(f"\npilotd idle with a parked reader: {idle.get('wakeups_per_s')} wakeups/s, "
              f"RSS {idle.get('rss_kb')} kB")
    hotsync(rows)
    print("\n== the handheld through usbredir (usbredirect on loopback) beside the local bus,")
    print("   one boot: MB/s" + (", and round-trip means in microseconds" if per_call else ""))
    redir = {}
    for dev in ("usbredir", "libusb"):
        w = [num(find(rows, op="write", dev=dev, call=c), "mbps") for c in ("1024", "65536")]
        r = [num(find(rows, op="read", dev=dev, call=c), "mbps") for c in ("1024", "65536")]
        lt = [num(find(rows, op="latency", dev=dev, bytes=n), "mean_us") for n in ("1", "64", "1024")]
        redir[dev] = (w, r, lt)
        cells = " ".join(f"{v:8.3f}" if v is not None else f"{'-':>8}" for v in w + r)
        lats = " ".join(f"{v:7.0f}" if v is not None else f"{'-':>7}" for v in lt)
        print(f"{dev:9} write 1K/64K, read 1K/64K {cells}"
              + (f"   rt 1/64/1024 B {lats}" if per_call else ""))
    if redir["usbredir"][0][0] is not None:
        (w, r, lt), (lw, lr, llt) = redir["usbredir"], redir["libusb"]
        print(f"usbredir / local: write 64 KiB {ratio(w[1], lw[1])}, read 64 KiB "
              f"{ratio(r[1], lr[1])}" + (f", round trip 1 B {ratio(lt[0], llt[0])}, "
                                         f"64 B {ratio(lt[1], llt[1])}" if per_call else ""))

    print("\n== ratios (the targets of issue 9)")
    for n in ("1", "64") if per_call else ():
        p, v = lat[n]
        print(f"round trip {n} B, pilotd / visor: mean {ratio(num(p, 'mean_us'), num(v, 'mean_us'))}, "
              f"median {ratio(num(p, 'median_us'), num(v, 'median_us'))}"
              f", p99 {ratio(num(p, 'p99_us'), num(v, 'p99_us'))}   (target <= 1)")
    print(f"CPU per MB with 1 KiB writes, pilotd / visor: "
          f"{ratio(got['pilotd, 1 KiB calls'][2], got['visor tty, 1 KiB calls'][2])}   (target <= 1;"
          " issue 29: <= 2)")
    cpu_floor(rows, got)
    cpu_instructions(rows)
    cp, cv = got["pilotd, 1 KiB, OPOST/ICRNL"], got["visor tty, 1 KiB, OPOST/ICRNL"]
    rp = got["pilotd, 1 KiB calls"]
    print(f"1 KiB calls through the line discipline, pilotd / visor: write {ratio(cp[0], cv[0])}, "
          f"read {ratio(cp[1], cv[1])}; pilotd cooked / raw: write {ratio(cp[0], rp[0])}, "
          f"read {ratio(cp[1], rp[1])}")
    big, raw = got["pilotd, 64 KiB calls"], got["raw libusb 16 KiB x 4"]
    print(f"64 KiB calls, pilotd / raw libusb 16 KiB x 4: write {ratio(big[0], raw[0])}, "
          f"read {ratio(big[1], raw[1])}   (target >= 0.8)")
    raw64 = got["raw libusb 64 B x 4"]
    print(f"64 KiB calls, pilotd / raw libusb 64 B x 4 (the same IN strategy): write "
          f"{ratio(big[0], raw64[0])}, read {ratio(big[1], raw64[1])}")


if __name__ == "__main__":
    main()
