#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Lab traffic: one receiver-side meter for every flow, and a TCP sender.

  traffic.py sink --tcp PORT,... --udp PORT,... --time T --out FILE [--bin S]
  traffic.py tcp --dst ADDR --port P --conns N --time T

Both take --ready FILE --go FILE (gate.py): they set up, then start
together with the rest of the run at the time GO holds.

The sink listens on every port of the scenario at once and counts the
bytes that arrive on each, in bins of --bin seconds on CLOCK_MONOTONIC,
which the lab's other samplers (queue, ping) share: one clock, one
process, so every flow's series is aligned with every other's (iperf3's
per-flow reports start whenever each client got going, seconds apart
under emulation).  A port is a flow of the scenario; a host with several
connections (the multi-connection hog) uses one port for all of them.

The TCP sender keeps --conns connections busy for --time seconds; the
kernel's congestion control does the rest.  UDP senders are
tools/udp_cbr.py.
"""
import argparse
import json
import selectors
import socket
import sys
import threading
import time

import gate


def ports(text):
    return [int(p) for p in text.split(",") if p] if text else []


class Meter:
    def __init__(self, secs, width):
        self.t0 = time.monotonic()  # until the gate opens
        self.width = width
        self.nbins = int(secs / width) + 1
        self.bins = {}
        self.conns = {}

    def add(self, key, n):
        i = int((time.monotonic() - self.t0) / self.width)
        if 0 <= i < self.nbins:
            self.bins.setdefault(key, [0] * self.nbins)[i] += n


def listeners(args):
    """The sink's sockets: a listening TCP socket per TCP port, a UDP
    socket per UDP port (both families), each with its flow's key."""
    socks = []
    for proto, text, kind in (("tcp", args.tcp, socket.SOCK_STREAM),
                              ("udp", args.udp, socket.SOCK_DGRAM)):
        for p in ports(text):
            sock = socket.socket(socket.AF_INET6, kind)
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if kind == socket.SOCK_DGRAM:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
            sock.bind(("::", p))
            if kind == socket.SOCK_STREAM:
                sock.listen(128)
            sock.setblocking(False)
            socks.append((sock, "%s:%d" % (proto, p), kind))
    return socks


def run_sink(args):
    """One selector loop over every flow's sockets (asyncio would do the
    same, but importing it costs seconds of the emulated CPU in the test
    VM, in every run)."""
    meter = Meter(args.time, args.bin)
    sel = selectors.DefaultSelector()
    socks = listeners(args)
    for sock, key, kind in socks:
        sel.register(sock, selectors.EVENT_READ,
                     ("accept" if kind == socket.SOCK_STREAM else "read", key))
    # Listening: bins count from the common start.  Handshakes done before
    # it wait in the listen backlog.
    meter.t0 = gate.wait_go(args.ready, args.go)
    end = meter.t0 + args.time
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        for ev, _ in sel.select(left):
            what, key = ev.data
            if what == "accept":
                try:
                    conn, _ = ev.fileobj.accept()
                except OSError:
                    continue
                conn.setblocking(False)
                meter.conns[key] = meter.conns.get(key, 0) + 1
                sel.register(conn, selectors.EVENT_READ, ("read", key))
                continue
            try:
                data = ev.fileobj.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if data:
                meter.add(key, len(data))
            elif ev.fileobj.type == socket.SOCK_STREAM:
                sel.unregister(ev.fileobj)
                ev.fileobj.close()
    with open(args.out, "w") as fh:
        json.dump({"t0": meter.t0, "bin": args.bin, "bytes": meter.bins,
                   "connections": meter.conns}, fh)


def connect(dst, port, secs=15):
    """A connection, or None after SECS: a host whose packets are all
    dropped (a drop list) is ready all the same, and tries again at the
    start."""
    deadline = time.monotonic() + secs
    while time.monotonic() < deadline:
        try:
            return socket.create_connection((dst, port), timeout=2)
        except OSError:
            time.sleep(0.2)  # a SYN lost to a flood: try again
    return None


def tcp_conn(sock, dst, port, start, deadline, stats, idx):
    buf = b"\x5a" * 65536
    sent = 0
    # A flow that joins later: connected, and idle until then (an idle
    # connection starts again from its initial window, RFC 7661's default).
    time.sleep(max(0.0, start - time.monotonic()))
    while time.monotonic() < deadline:
        if sock is None:
            try:
                sock = socket.create_connection((dst, port), timeout=2)
            except OSError:
                time.sleep(0.2)
                continue
        sock.settimeout(0.5)
        try:
            while time.monotonic() < deadline:
                try:
                    sent += sock.send(buf)
                except socket.timeout:
                    continue
        except OSError:
            pass
        sock.close()
        sock = None
    stats[idx] = sent


def run_tcp(args):
    # Handshakes before the gate: every flow starts sending at once.
    socks = [connect(args.dst, args.port) for _ in range(args.conns)]
    go = gate.wait_go(args.ready, args.go)
    deadline = go + args.time
    stats = [0] * args.conns
    threads = [threading.Thread(target=tcp_conn,
                                args=(socks[i], args.dst, args.port,
                                      go + args.start, deadline, stats, i))
               for i in range(args.conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"sent_bytes": stats}))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("sink")
    k.add_argument("--tcp", default="")
    k.add_argument("--udp", default="")
    k.add_argument("--time", type=float, required=True)
    k.add_argument("--bin", type=float, default=0.5)
    k.add_argument("--out", required=True)
    gate.add_args(k)
    t = sub.add_parser("tcp")
    t.add_argument("--dst", required=True)
    t.add_argument("--port", type=int, required=True)
    t.add_argument("--conns", type=int, default=1)
    t.add_argument("--time", type=float, required=True)
    t.add_argument("--start", type=float, default=0,
                   help="seconds after the start before it sends")
    gate.add_args(t)
    args = ap.parse_args()
    if args.cmd == "sink":
        run_sink(args)
    else:
        run_tcp(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
