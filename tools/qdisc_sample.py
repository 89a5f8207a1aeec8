#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample a device's qdisc counters over netlink, at a steady interval.

  qdisc_sample.py --dev D --out FILE [--interval 0.25] [--time SECS]
                  [--kind KIND] [--dfs-src IP] [--dfs-cpr FILE]
                  [--dfs-cpr-trace FILE]
                  [--lrufq QDISC] [--ingress] [--ready FILE]

Writes one line per sample, "EPOCH BYTES PACKETS DROPS [FLAGS]": the
wall-clock time of the sample (the EPOCHREALTIME clock the tests' other
timestamps use); what the device's root qdisc (with --kind, its first
qdisc of KIND) has sent, in bytes and packets, and dropped; with
--dfs-src, the DFS flags of IP's flow in the malicious-flow cache of the
device's dfs qdisc ("malicious,trending", "trending", "cached" when it
holds none, "-" when the flow is not cached); with --lrufq (a qdisc
handle, "10:"), the bytes each of its classes sent ("c10:1=B") and the
flows cached by its lrufq filter, each "SRC=COUNT/LAST" with "+" after it
when the flow was high at its last packet; with --ingress, what each
flower filter on the device's ingress matching a source address has
counted ("SRC=BYTES", the bytes of its actions: selftests/lib.sh's
rx_meter_setup counts what a receiver gets from each sender; "SRC:PORT"
for a filter that matches a destination port too); with
--dfs-cpr, in FILE a line "EPOCH IP..." for each sample in which the
cache holds flows for their CPR, their sources; with --dfs-cpr-trace,
in FILE a line a sample of what CPR judged by, "EPOCH tau=T csr=C
SRC=CPR/PACKETS ...": the qdisc's tau and congested share of periods,
and each cached flow's CPR over the packets it is counted on, with "!"
after it while the flow is held (a test that finds a host held prints
the lines before it).  Runs until SIGTERM or
--time seconds.  With --ready it creates FILE once it samples (a gate,
selftests/lib.sh, need not open before the sampler runs: Python takes
seconds to start under emulation).

Why not "tc -s class show" in a loop: under emulation each exec of tc
takes a second or more, and with TCP flows starting beside it several,
so a test could not tell when a flag changed to better than seconds.
Here each sample is two netlink dumps on one socket, a few milliseconds.
"""
import argparse
import os
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lablib"))
# The lab's queue monitor (tools/lablib/qmon.py) holds the netlink dumps.
from qmon import (DFS_FLOW_MALICIOUS, DFS_QD_CPR_TAU,  # noqa: E402
                  DFS_QD_END, DFS_XSTATS_CLASS, DFS_XSTATS_QDISC,
                  RTM_GETQDISC, RTM_GETTCLASS, RTM_GETTFILTER, TC_H_ROOT,
                  TCA_OPTIONS, TCA_STATS_BASIC, TCA_XSTATS, Dumper, attrs,
                  kind, stats2)
# tc's handle syntax, as tools/nlqdisc.py parses it for the kernel.
from nlqdisc import handle as parse_handle  # noqa: E402

DFS_FLOW_TRENDING = 0x2  # include/uapi/linux/pkt_sched_dfs.h
DFS_FLOW_CPR = 0x4
# struct tc_dfs_xstats: type, pad, then tc_dfs_cl_stats; its cpr and
# cpr_packets after family..dst (40), pm, backlog (8) and bitrate (8)
DFS_CL_CPR = 8 + 40 + 8 + 8
# include/uapi/linux/pkt_cls_lrufq.h: TCA_LRUFQ_FLOWS, struct tc_lrufq_flow
TCA_LRUFQ_FLOWS, LRUFQ_FLOW_SIZE, LRUFQ_FLOW_HIGH = 10, 56, 0x1
# include/uapi/linux/pkt_cls.h, pkt_sched.h, gen_stats.h
TCA_FLOWER_ACT, TCA_FLOWER_KEY_IPV4_SRC, TCA_FLOWER_KEY_IPV6_SRC = 3, 10, 14
TCA_FLOWER_KEY_TCP_DST, TCA_FLOWER_KEY_UDP_DST = 19, 21
TCA_ACT_STATS = 4
TC_H_INGRESS_PARENT = 0xFFFFFFF2        # clsact or ingress, ingress side


def flow_src(family, x):
    """The source address of a dfs flow's class xstats X, as text."""
    return socket.inet_ntop(family, x[16:16 + (4 if family == socket.AF_INET
                                                else 16)])


class Sampler(Dumper):
    def counters(self, qkind=None):
        """(bytes, packets, drops) of the root qdisc, or of the first of
        qkind; zeros when there is none."""
        for _, parent, a in self.dump(RTM_GETQDISC):
            if (kind(a) != qkind if qkind else parent != TC_H_ROOT):
                continue
            st = stats2(a)
            return st.get("bytes", 0), st.get("packets", 0), st.get("drops", 0)
        return 0, 0, 0

    def dfs_flows(self):
        """(family, flags, xstats) of each flow in the dfs cache."""
        for _, _, a in self.dump(RTM_GETTCLASS):
            # struct tc_dfs_xstats: type, pad, then tc_dfs_cl_stats:
            # family, proto, flags, sport, dport, src[16], ...
            x = a.get(TCA_XSTATS, b"")
            if kind(a) != "dfs" or len(x) < 48 or \
                    struct.unpack_from("=I", x)[0] != DFS_XSTATS_CLASS:
                continue
            family, _, flags = struct.unpack_from("=BBH", x, 8)
            if family in (socket.AF_INET, socket.AF_INET6):
                yield family, flags, x

    def dfs_cpr(self, flows):
        """Sources of the flows held for their CPR, of FLOWS (a list of
        dfs_flows())."""
        return [flow_src(family, x) for family, flags, x in flows
                if flags & DFS_FLOW_CPR]

    def dfs_cpr_trace(self, flows):
        """tau=T csr=C, then SRC=CPR/PACKETS of each of FLOWS (a list of
        dfs_flows()), "!" after a flow held for its CPR."""
        out = []
        for _, _, a in self.dump(RTM_GETQDISC):
            x = a.get(TCA_XSTATS, b"")
            if kind(a) == "dfs" and len(x) >= DFS_QD_END and \
                    struct.unpack_from("=I", x)[0] == DFS_XSTATS_QDISC:
                tau, csr, _ = struct.unpack_from("=III", x, DFS_QD_CPR_TAU)
                out.append("tau=%.3f csr=%.3f" % (tau / 1e6, csr / 1e6))
                break
        for family, flags, x in flows:
            if len(x) < DFS_CL_CPR + 8:
                continue
            cpr, packets = struct.unpack_from("=II", x, DFS_CL_CPR)
            out.append("%s=%.3f/%d%s" % (
                flow_src(family, x), cpr / 1e6, packets,
                "!" if flags & DFS_FLOW_CPR else ""))
        return " ".join(out)

    def dfs_flags(self, src):
        """Flags of the flow from src (packed address) in the dfs cache."""
        for family, flags, x in self.dfs_flows():
            if x[16:16 + len(src)] != src:
                continue
            names = [n for bit, n in ((DFS_FLOW_MALICIOUS, "malicious"),
                                      (DFS_FLOW_TRENDING, "trending"))
                     if flags & bit]
            return ",".join(names) or "cached"
        return "-"

    def lrufq(self, qdisc):
        """Bytes sent by each class of qdisc (a handle) and the flows its
        lrufq filters cache."""
        out = []
        for handle, parent, a in self.dump(RTM_GETTCLASS):
            if handle >> 16 == qdisc >> 16 and handle != qdisc:
                out.append("c%x:%x=%d" % (handle >> 16, handle & 0xffff,
                                          stats2(a).get("bytes", 0)))
        for _, _, a in self.dump(RTM_GETTFILTER, qdisc):
            if kind(a) != "lrufq" or TCA_OPTIONS not in a:
                continue
            opt = a[TCA_OPTIONS]
            for t, p in attrs(opt, 0, len(opt)):
                if t != TCA_LRUFQ_FLOWS:
                    continue
                for off in range(0, len(p) - LRUFQ_FLOW_SIZE + 1,
                                 LRUFQ_FLOW_SIZE):
                    family, flags, count, last = struct.unpack_from(
                        "=BHII", p, off + 37)
                    src = socket.inet_ntop(
                        family if family in (socket.AF_INET, socket.AF_INET6)
                        else socket.AF_INET,
                        p[off:off + (16 if family == socket.AF_INET6 else 4)])
                    out.append("%s=%d/%d%s" % (src, count, last,
                                               "+" if flags & LRUFQ_FLOW_HIGH
                                               else ""))
        return " ".join(out)

    def ingress(self):
        """Bytes counted by the actions of each flower filter on the
        device's ingress that matches a source address, and a TCP or UDP
        destination port if the filter matches one."""
        out = []
        for _, _, a in self.dump(RTM_GETTFILTER, TC_H_INGRESS_PARENT):
            if kind(a) != "flower" or TCA_OPTIONS not in a:
                continue
            opt = dict(attrs(a[TCA_OPTIONS], 0, len(a[TCA_OPTIONS])))
            if TCA_FLOWER_KEY_IPV4_SRC in opt:
                src = socket.inet_ntop(socket.AF_INET,
                                       opt[TCA_FLOWER_KEY_IPV4_SRC])
            elif TCA_FLOWER_KEY_IPV6_SRC in opt:
                src = socket.inet_ntop(socket.AF_INET6,
                                       opt[TCA_FLOWER_KEY_IPV6_SRC])
            else:
                continue
            for key in (TCA_FLOWER_KEY_TCP_DST, TCA_FLOWER_KEY_UDP_DST):
                if len(opt.get(key, b"")) == 2:
                    src += ":%d" % struct.unpack("!H", opt[key])[0]
            nbytes = 0
            acts = opt.get(TCA_FLOWER_ACT, b"")
            for _, act in attrs(acts, 0, len(acts)):
                st = dict(attrs(act, 0, len(act))).get(TCA_ACT_STATS, b"")
                basic = dict(attrs(st, 0, len(st))).get(TCA_STATS_BASIC)
                if basic and len(basic) >= 8:
                    nbytes += struct.unpack_from("=Q", basic)[0]
            out.append("%s=%d" % (src, nbytes))
        return " ".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--interval", type=float, default=0.25)
    ap.add_argument("--time", type=float, default=3600)
    ap.add_argument("--kind")
    ap.add_argument("--dfs-src")
    ap.add_argument("--dfs-cpr")
    ap.add_argument("--dfs-cpr-trace")
    ap.add_argument("--lrufq", type=parse_handle)
    ap.add_argument("--ingress", action="store_true")
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
    cpr = open(args.dfs_cpr, "w", buffering=1) if args.dfs_cpr else None
    trace = (open(args.dfs_cpr_trace, "w", buffering=1)
             if args.dfs_cpr_trace else None)
    with open(args.out, "w", buffering=1) as out:
        nxt = time.monotonic()
        while not stop and time.monotonic() < end:
            t = time.time()
            line = "%.3f %d %d %d" % ((t,) + sampler.counters(args.kind))
            if src is not None:
                line += " " + sampler.dfs_flags(src)
            if args.lrufq is not None:
                line += " " + sampler.lrufq(args.lrufq)
            if args.ingress:
                line += " " + sampler.ingress()
            out.write(line + "\n")
            # one dump of the flows for both files
            flows = list(sampler.dfs_flows()) if cpr or trace else []
            held = sampler.dfs_cpr(flows) if cpr else None
            if held:
                cpr.write("%.3f %s\n" % (t, " ".join(held)))
            if trace:
                trace.write("%.3f %s\n" % (t, sampler.dfs_cpr_trace(flows)))
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
