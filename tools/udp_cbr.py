#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Constant-bit-rate UDP sender and a receiver-side goodput meter.

iperf3 cannot measure a flood that DFS cuts off: its UDP mode keeps a TCP
control connection between the same two addresses, which DFS (key srcdst)
drops with the flood, and the report is lost.  This tool needs no return
path: the sink counts what arrives, per second, and writes JSON.

  udp_cbr.py send --dst ADDR --port P --rate 20M --size 1200 --time 10
                  [--schedule RATE:SECONDS,...]
                  [--src ADDR,ADDR,... [--rotate SECONDS | --spread]]
                  [--pulse PERIOD:WIDTH]
  udp_cbr.py sink --port P --time 12 --out FILE [--bind ADDR]

--ready/--go: wait at a common start with other processes
(tools/lablib/gate.py); the sink binds its socket first, and its
per-second bins start at the go.  SIGTERM ends either early, cleanly: the
sender prints its report, the sink writes its bins so far.

The schedule form sends each rate for its seconds in turn (VBR attacks).
--src binds the sender to the first address; with --rotate it moves to
the next one (round robin) every SECONDS: an attacker rotating addresses.
With --spread each packet leaves from the next address: a botnet of as
many sources, each at the rate divided by their number.
--pulse sends the rate for WIDTH seconds of every PERIOD and nothing in
between, the periods counted from the common start, so every sender
given the same pulse bursts in step (a low-rate, "shrew", attack).
"""
import argparse
import json
import os
import resource
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lablib"))
import gate  # noqa: E402  (tools/lablib/gate.py: the lab's common start)


STOP = []


def stop_on_term():
    """SIGTERM ends the run at the next loop turn, not mid-report."""
    signal.signal(signal.SIGTERM, lambda signum, frame: STOP.append(signum))


def parse_rate(text):
    mult = {"k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9}
    if text[-1] in mult:
        return float(text[:-1]) * mult[text[-1]]
    return float(text)


def send(args):
    family = socket.AF_INET6 if ":" in args.dst else socket.AF_INET
    srcs = args.src.split(",") if args.src else [None]
    if args.spread:
        # a socket a source: more than the default 1024 descriptors
        want = len(srcs) + 64
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (want, max(hard, want)))

    def bound(i):
        s = socket.socket(family, socket.SOCK_DGRAM)
        if srcs[i % len(srcs)]:
            s.bind((srcs[i % len(srcs)], 0))
        return s

    sock, src_idx, rotated = bound(0), 0, time.monotonic()
    socks = [sock] + [bound(i) for i in range(1, len(srcs))] \
        if args.spread else [sock]
    payload = b"\x5a" * args.size
    phases = []
    if args.schedule:
        for part in args.schedule.split(","):
            rate, secs = part.split(":")
            phases.append((parse_rate(rate), float(secs)))
    else:
        phases.append((parse_rate(args.rate), args.time))
    sent = 0
    # When each phase began, on the clock of bash's EPOCHREALTIME: the
    # tests time what they judge from these, not from their own start
    # (this process may take seconds to start under emulation).
    phase_starts = []
    pulse = args.pulse             # (period, width), checked by main()
    stop_on_term()
    t0 = gate.wait_go(args.ready, args.go)
    for rate, secs in phases:
        if STOP:
            break
        phase_starts.append(time.time())
        gap = args.size * 8 / rate if rate > 0 else 0
        start = time.monotonic()
        nxt = start
        while not STOP:
            now = time.monotonic()
            if now - start >= secs:
                break
            if rate <= 0:	# a silent phase (on-off attacks)
                time.sleep(min(secs - (now - start), 0.1))
                continue
            if pulse and (now - t0) % pulse[0] >= pulse[1]:
                # between bursts: wake at the next one, send no backlog
                time.sleep(pulse[0] - (now - t0) % pulse[0])
                nxt = time.monotonic()
                continue
            if args.rotate and now - rotated >= args.rotate:
                sock.close()
                src_idx += 1
                sock, rotated = bound(src_idx), now
            if now < nxt:
                time.sleep(min(nxt - now, 0.01))
                continue
            # Catch up after a stall rather than sending a burst.
            nxt = max(nxt + gap, now - 0.05)
            try:
                (socks[sent % len(socks)] if args.spread else sock).sendto(
                    payload, (args.dst, args.port))
                sent += 1
            except OSError:
                pass  # qdisc drop reported as ENOBUFS: keep sending
    used = len(socks) if args.spread else min(src_idx + 1, len(srcs))
    print(json.dumps({"sent_packets": sent, "sources": used,
                      "phase_starts": phase_starts}))


def sink(args):
    family = socket.AF_INET6 if ":" in args.bind else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_DGRAM)
    sock.bind((args.bind, args.port))
    sock.settimeout(0.2)
    stop_on_term()
    gate.wait_go(args.ready, args.go)
    start = time.monotonic()
    per_sec = [0] * int(args.time + 1)
    while not STOP:
        now = time.monotonic()
        if now - start >= args.time:
            break
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        idx = int(time.monotonic() - start)
        if idx < len(per_sec):
            per_sec[idx] += len(data)
    seen = min(int(time.monotonic() - start), int(args.time))
    result = {"bytes_per_sec": per_sec[:seen]}
    with open(args.out, "w") as fh:
        json.dump(result, fh)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("--dst", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--rate", default="1M")
    s.add_argument("--size", type=int, default=1200)
    s.add_argument("--time", type=float, default=10)
    s.add_argument("--schedule")
    s.add_argument("--src")
    s.add_argument("--rotate", type=float, default=0)
    s.add_argument("--spread", action="store_true")
    s.add_argument("--pulse")
    gate.add_args(s)
    k = sub.add_parser("sink")
    k.add_argument("--port", type=int, required=True)
    k.add_argument("--time", type=float, required=True)
    k.add_argument("--out", required=True)
    k.add_argument("--bind", default="0.0.0.0")
    gate.add_args(k)
    args = ap.parse_args()
    if args.cmd == "send" and args.spread and args.rotate:
        ap.error("--spread and --rotate: one or the other")
    if args.cmd == "send" and args.pulse:
        try:
            period, width = (float(x) for x in args.pulse.split(":"))
        except ValueError:
            ap.error("--pulse PERIOD:WIDTH, in seconds")
        if not 0 < width <= period:
            ap.error("--pulse: want 0 < WIDTH <= PERIOD")
        args.pulse = (period, width)
    return send(args) if args.cmd == "send" else sink(args)


if __name__ == "__main__":
    sys.exit(main())
