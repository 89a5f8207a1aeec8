#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample a device's qdisc counters over netlink, at a steady interval.

  qdisc_sample.py --dev D --out FILE [--interval 0.25] [--time SECS]
                  [--kind KIND] [--dfs-src IP] [--ready FILE]

Writes one line per sample, "EPOCH BYTES PACKETS DROPS [FLAGS]": the
wall-clock time of the sample (the EPOCHREALTIME clock the tests' other
timestamps use); what the device's root qdisc (with --kind, its first
qdisc of KIND) has sent, in bytes and packets, and dropped; with
--dfs-src, the DFS flags of IP's flow in the malicious-flow cache of the
device's dfs qdisc ("malicious,trending", "trending", "cached" when it
holds none, "-" when the flow is not cached).  Runs until SIGTERM or --time seconds.  With
--ready it creates FILE once it samples (a gate, tools/lib.sh, need not
open before the sampler runs: Python takes seconds to start under
emulation).

Why not "tc -s class show" in a loop: under emulation each exec of tc
takes a second or more, and with TCP flows starting beside it several,
so a test could not tell when a flag changed to better than seconds.
Here each sample is two netlink dumps on one socket, a few milliseconds.
"""
import argparse
import signal
import socket
import struct
import sys
import time

RTM_GETQDISC, RTM_GETTCLASS = 38, 42
NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
TCA_KIND, TCA_STATS2 = 1, 7
TCA_STATS_BASIC, TCA_STATS_QUEUE, TCA_STATS_APP = 1, 3, 4
TC_H_ROOT = 0xFFFFFFFF
TCA_DFS_XSTATS_CLASS = 1  # include/uapi/linux/pkt_sched_dfs.h, an enum from 0
TC_DFS_FLOW_MALICIOUS, TC_DFS_FLOW_TRENDING = 0x1, 0x2


def attrs(buf, off, end):
    """{type: payload} of the netlink attributes in buf[off:end]."""
    out = {}
    while off + 4 <= end:
        alen, atype = struct.unpack_from("=HH", buf, off)
        if alen < 4:
            break
        out[atype & 0x3FFF] = buf[off + 4:off + alen]
        off += (alen + 3) & ~3
    return out


class Sampler:
    def __init__(self, dev):
        self.ifindex = socket.if_nametoindex(dev)
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  socket.NETLINK_ROUTE)
        self.sock.bind((0, 0))
        self.seq = 0

    def dump(self, mtype):
        """(parent, kind, attrs) of each tcmsg the dump returns for the
        device: the kernel dumps every device's qdiscs, one device's
        classes."""
        self.seq += 1
        body = struct.pack("=BBHiIII", socket.AF_UNSPEC, 0, 0,
                           self.ifindex, 0, 0, 0)
        self.sock.send(struct.pack("=IHHII", 16 + len(body), mtype,
                                   NLM_F_REQUEST | NLM_F_DUMP, self.seq,
                                   0) + body)
        out = []
        while True:
            buf = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(buf):
                mlen, rtype, _, seq, _ = struct.unpack_from("=IHHII", buf,
                                                            off)
                if mlen < 16:
                    return out
                if seq == self.seq:
                    if rtype == NLMSG_DONE:
                        return out
                    if rtype == NLMSG_ERROR:
                        (err,) = struct.unpack_from("=i", buf, off + 16)
                        raise OSError(-err, "netlink dump failed")
                    _, ifindex, _, parent, _ = struct.unpack_from(
                        "=iiIII", buf, off + 16)
                    if ifindex == self.ifindex:
                        a = attrs(buf, off + 36, off + mlen)
                        kind = a.get(TCA_KIND, b"").split(b"\0")[0]
                        out.append((parent, kind.decode(), a))
                off += (mlen + 3) & ~3

    def counters(self, kind=None):
        """(bytes, packets, drops) of the root qdisc, or of the first of
        kind; zeros when there is none."""
        for parent, qkind, a in self.dump(RTM_GETQDISC):
            if (qkind != kind if kind else parent != TC_H_ROOT):
                continue
            st = a.get(TCA_STATS2, b"")
            st = attrs(st, 0, len(st))
            # struct gnet_stats_basic: bytes u64, packets u32;
            # struct gnet_stats_queue: qlen, backlog, drops, ... u32.
            nbytes, packets = struct.unpack_from(
                "=QI", st.get(TCA_STATS_BASIC, bytes(12)))
            drops, = struct.unpack_from(
                "=I", st.get(TCA_STATS_QUEUE, bytes(20)), 8)
            return nbytes, packets, drops
        return 0, 0, 0

    def dfs_flags(self, src):
        """Flags of the flow from src (packed address) in the dfs cache."""
        for _, kind, a in self.dump(RTM_GETTCLASS):
            if kind != "dfs" or TCA_STATS2 not in a:
                continue
            st = a[TCA_STATS2]
            app = attrs(st, 0, len(st)).get(TCA_STATS_APP)
            # struct tc_dfs_xstats: type, pad, then tc_dfs_cl_stats:
            # family, proto, flags, sport, dport, src[16], ...
            if not app or len(app) < 32:
                continue
            xtype, = struct.unpack_from("=I", app, 0)
            family, _, flags = struct.unpack_from("=BBH", app, 8)
            if xtype != TCA_DFS_XSTATS_CLASS or family not in (
                    socket.AF_INET, socket.AF_INET6):
                continue
            if app[16:16 + len(src)] != src:
                continue
            names = [n for bit, n in ((TC_DFS_FLOW_MALICIOUS, "malicious"),
                                      (TC_DFS_FLOW_TRENDING, "trending"))
                     if flags & bit]
            return ",".join(names) or "cached"
        return "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--interval", type=float, default=0.25)
    ap.add_argument("--time", type=float, default=3600)
    ap.add_argument("--kind")
    ap.add_argument("--dfs-src")
    ap.add_argument("--ready")
    args = ap.parse_args()

    src = None
    if args.dfs_src:
        family = socket.AF_INET6 if ":" in args.dfs_src else socket.AF_INET
        src = socket.inet_pton(family, args.dfs_src)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    sampler = Sampler(args.dev)
    end = time.monotonic() + args.time
    with open(args.out, "w", buffering=1) as out:
        nxt = time.monotonic()
        while not stop and time.monotonic() < end:
            t = time.time()
            line = "%.3f %d %d %d" % ((t,) + sampler.counters(args.kind))
            if src is not None:
                line += " " + sampler.dfs_flags(src)
            out.write(line + "\n")
            if args.ready:
                open(args.ready, "w").close()
                args.ready = None
            # A steady grid; after a stall, on from now, not a burst.
            nxt = max(nxt + args.interval, time.monotonic())
            while not stop and time.monotonic() < nxt:
                time.sleep(max(0.0, min(0.05, nxt - time.monotonic())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
