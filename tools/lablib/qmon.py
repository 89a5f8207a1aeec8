#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Queue monitor: samples one device's qdiscs over rtnetlink.

  qmon.py --dev r-out --time T --out FILE [--every 0.25] [--ready F --go F]

Run in the router's namespace.  Every --every seconds it dumps the qdiscs
of DEV (RTM_GETQDISC) and, when DFS is among them, its classes (the flows
in its malicious-flow cache, RTM_GETTCLASS), straight from the kernel: an
exec of tc per sample costs seconds under emulation, a netlink dump a few
milliseconds.  Each sample: time (CLOCK_MONOTONIC), the root's byte
count (the link's), the backlog and length of handle 10: (the qdisc under
test), DFS's malicious count, its fair rate (bit/s) and the source
addresses of the flows it lists as dropped (malicious, or over CPR's
tau: "marked"; those for their CPR in "cpr" too), and CPR's tau.
"""
import argparse
import ipaddress
import json
import socket
import struct
import sys
import time

import gate

RTM_GETQDISC, RTM_GETTCLASS, RTM_GETTFILTER = 38, 42, 46
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
TCA_KIND, TCA_OPTIONS, TCA_XSTATS, TCA_STATS2 = 1, 2, 4, 7
TCA_STATS_BASIC, TCA_STATS_QUEUE = 1, 3
DFS_XSTATS_QDISC, DFS_XSTATS_CLASS = 0, 1
DFS_FLOW_MALICIOUS, DFS_FLOW_CPR = 0x1, 0x4
# struct tc_dfs_xstats: type, pad, then tc_dfs_qd_stats
DFS_QD = 8
DFS_QD_MALICIOUS = DFS_QD + 12
DFS_QD_FAIR = DFS_QD + 32               # fair_rate, bytes/s
DFS_QD_CPR_TAU = DFS_QD + 160           # cpr_tau, cpr_csr, cpr_flows
DFS_QD_END = DFS_QD + 200
TC_H_ROOT = 0xFFFFFFFF


def attrs(buf, off, end):
    while off + 4 <= end:
        alen, atype = struct.unpack_from("=HH", buf, off)
        if alen < 4:
            break
        yield atype & 0x3FFF, buf[off + 4:off + alen]
        off += (alen + 3) & ~3


class Dumper:
    def __init__(self, dev):
        self.ifindex = socket.if_nametoindex(dev)
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  socket.NETLINK_ROUTE)
        self.sock.bind((0, 0))
        self.seq = 0

    def dump(self, mtype, parent=0):
        """(handle, parent, {attr: payload}) of every object of DEV (a
        filter dump: of the qdisc or class PARENT)."""
        self.seq += 1
        body = struct.pack("=BBHiIII", socket.AF_UNSPEC, 0, 0, self.ifindex,
                           0, parent, 0)
        self.sock.send(struct.pack("=IHHII", 16 + len(body), mtype,
                                   NLM_F_REQUEST | NLM_F_DUMP, self.seq, 0)
                       + body)
        out = []
        while True:
            data = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                mlen, t, _, seq, _ = struct.unpack_from("=IHHII", data, off)
                if mlen < 16:
                    return out
                if t == NLMSG_DONE:
                    return out
                if t == NLMSG_ERROR:
                    raise OSError("netlink dump %d failed" % mtype)
                _, _, _, ifi, handle, parent, _ = struct.unpack_from(
                    "=BBHiIII", data, off + 16)
                if ifi == self.ifindex:
                    out.append((handle, parent,
                                dict(attrs(data, off + 36, off + mlen))))
                off += (mlen + 3) & ~3


def stats2(a):
    s = {}
    for t, p in attrs(a.get(TCA_STATS2, b""), 0, len(a.get(TCA_STATS2, b""))):
        if t == TCA_STATS_BASIC and len(p) >= 12:
            s["bytes"], s["packets"] = struct.unpack_from("=QI", p)
        elif t == TCA_STATS_QUEUE and len(p) >= 20:
            (s["qlen"], s["backlog"], s["drops"], _,
             s["overlimits"]) = struct.unpack_from("=IIIII", p)
    return s


def kind(a):
    return a.get(TCA_KIND, b"").rstrip(b"\0").decode()


def sample(d):
    s = {"t": time.monotonic()}
    dfs = False
    for handle, parent, a in d.dump(RTM_GETQDISC):
        st = stats2(a)
        if parent == TC_H_ROOT:
            s["sent"] = st.get("bytes", 0)
            s["drops"] = st.get("drops", 0)
        if handle == 0x00100000:            # 10: (hex), the qdisc under test
            s["backlog"] = st.get("backlog", 0)
            s["qlen"] = st.get("qlen", 0)
        if kind(a) == "dfs":
            dfs = True
            x = a.get(TCA_XSTATS, b"")
            if len(x) >= 20 and struct.unpack_from("=I", x)[0] == DFS_XSTATS_QDISC:
                s["malicious"] = struct.unpack_from("=I", x, DFS_QD_MALICIOUS)[0]
                if len(x) >= DFS_QD_FAIR + 8:
                    s["fair"] = struct.unpack_from("=Q", x, DFS_QD_FAIR)[0] * 8
                if len(x) >= DFS_QD_END:
                    tau, _, n = struct.unpack_from("=III", x, DFS_QD_CPR_TAU)
                    s["cpr_tau"], s["cpr_flows"] = tau / 1e6, n
    if dfs:
        s["marked"], s["cpr"] = [], []
        for _, _, a in d.dump(RTM_GETTCLASS):
            x = a.get(TCA_XSTATS, b"")
            if len(x) < 48 or struct.unpack_from("=I", x)[0] != DFS_XSTATS_CLASS:
                continue
            family, _, flags = struct.unpack_from("=BBH", x, 8)
            if not flags & (DFS_FLOW_MALICIOUS | DFS_FLOW_CPR):
                continue
            if family == socket.AF_INET:
                src = str(ipaddress.IPv4Address(x[16:20]))
            elif family == socket.AF_INET6:
                src = str(ipaddress.IPv6Address(x[16:32]))
            else:
                continue
            s["marked"].append(src)
            if flags & DFS_FLOW_CPR:
                s["cpr"].append(src)
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--time", type=float, required=True)
    ap.add_argument("--every", type=float, default=0.25)
    ap.add_argument("--out", required=True)
    gate.add_args(ap)
    args = ap.parse_args()
    d = Dumper(args.dev)
    samples = [sample(d)]
    start = gate.wait_go(args.ready, args.go)
    nxt = start
    while nxt <= start + args.time:
        samples.append(sample(d))
        nxt += args.every
        time.sleep(max(0.0, nxt - time.monotonic()))
    with open(args.out, "w") as fh:
        json.dump(samples, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
