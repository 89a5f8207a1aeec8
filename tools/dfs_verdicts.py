#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Listen to sch_dfs's verdict stream, and dump a qdisc's flagged keys.

  dfs_verdicts.py listen --out FILE [--dev D --handle H] [--resync-on IP]
                         [--ready FILE] [--time SECS]
  dfs_verdicts.py dump --dev D --handle H [--loop SECS]

Generic netlink family "dfs_verdict", group "verdicts"
(include/uapi/linux/dfs_verdict.h), over a raw socket and the standard
library alone: no pyroute2 or libmnl.

listen writes a JSON object a line to FILE for each message: "msg" (flag,
release, flush, lost; "dump" for a key of a dump, then "dump_done" with
"count"), "t" the wall-clock time it was read (EPOCHREALTIME's clock, as
the tests' other timestamps), "mono" the CLOCK_MONOTONIC time it was read
(the clock of the kernel's "time"), "sock" the socket it came on, and the
attributes ("src", "dst" as text, "reason" a list of "malicious", "cpr";
"queue", under dfs_mq, the tx queue whose dfs sent it: "handle" is then
the root's, and a dump of it lists every queue's keys).
With --resync-on IP, at the first flag event of a key whose source is IP
the listener does what a restarted one does: it closes its socket, opens
another, joins the group, then dumps --dev/--handle's qdisc.  Runs until
SIGTERM or --time seconds; with --ready it creates FILE once it has
joined the group.

dump prints the qdisc's flagged keys, one JSON object a line; with
--loop, it dumps again and again for SECS and prints how many dumps and
keys, one JSON object.  Both need CAP_NET_ADMIN in the netns's user
namespace, as the kernel's family does.
"""
import argparse
import json
import os
import select
import signal
import socket
import struct
import sys
import time

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_MCAST_GRP_ID = 2
NLM_F_REQUEST = 0x1
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3

# linux/dfs_verdict.h
FAMILY = b"dfs_verdict"
GROUP = b"verdicts"
CMDS = {1: "flag", 2: "release", 3: "flush", 4: "lost"}
CMD_GET = 5
(A_IFINDEX, A_HANDLE, A_KEY_MODE, A_FAMILY, A_SRC, A_DST, A_PROTO, A_SPORT,
 A_DPORT, A_OVERFLOW, A_REASON, A_RATE, A_TIME, A_CAUSE, A_LOST,
 A_QUEUE) = range(2, 18)
CAUSES = {0: "judged", 1: "pruned"}
# TC_DFS_FLOW_* (linux/pkt_sched_dfs.h)
REASONS = ((0x1, "malicious"), (0x4, "cpr"))


def nla(atype, payload):
    size = 4 + len(payload)
    return struct.pack("=HH", size, atype) + payload + b"\0" * (-size % 4)


def attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        size, atype = struct.unpack_from("=HH", buf, off)
        if size < 4:
            break
        out[atype & 0x3fff] = buf[off + 4:off + size]
        off += (size + 3) & ~3
    return out


def messages(data):
    off = 0
    while off + 16 <= len(data):
        size, mtype, flags, seq, pid = struct.unpack_from("=IHHII", data, off)
        if size < 16:
            break
        yield mtype, seq, data[off + 16:off + size]
        off += (size + 3) & ~3


def handle_arg(text):
    """tc's "10:" or "10:1" (hex), or a number."""
    if ":" in text:
        major, minor = text.split(":", 1)
        return int(major or "0", 16) << 16 | int(minor or "0", 16)
    return int(text, 0)


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.bind((0, 0))
        self.seq = int(time.time()) & 0xffff
        self.family, self.groups = self.resolve()

    def send(self, mtype, flags, cmd, payload=b""):
        self.seq += 1
        body = struct.pack("=BBH", cmd, 1, 0) + payload
        self.sock.send(struct.pack("=IHHII", 16 + len(body), mtype,
                                   NLM_F_REQUEST | flags, self.seq, 0) + body)
        return self.seq

    def resolve(self):
        seq = self.send(GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY,
                        nla(CTRL_ATTR_FAMILY_NAME, FAMILY + b"\0"))
        while True:
            for mtype, mseq, body in messages(self.sock.recv(65536)):
                if mseq != seq:
                    continue
                if mtype == NLMSG_ERROR:
                    err = struct.unpack_from("=i", body)[0]
                    sys.exit("dfs_verdicts: no family %s (%s)"
                             % (FAMILY.decode(), os.strerror(-err)))
                a = attrs(body[4:])
                groups = {}
                for g in attrs(a.get(CTRL_ATTR_MCAST_GROUPS, b"")).values():
                    ga = attrs(g)
                    name = ga[CTRL_ATTR_MCAST_GRP_NAME].rstrip(b"\0")
                    groups[name] = struct.unpack("=I",
                                                 ga[CTRL_ATTR_MCAST_GRP_ID])[0]
                return struct.unpack("=H", a[CTRL_ATTR_FAMILY_ID])[0], groups

    def join(self):
        try:
            self.sock.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
                                 self.groups[GROUP])
        except OSError as e:
            sys.exit("dfs_verdicts: join: %s" % os.strerror(e.errno))

    def dump(self, ifindex, handle):
        return self.send(self.family, NLM_F_DUMP, CMD_GET,
                         nla(A_IFINDEX, struct.pack("=I", ifindex)) +
                         nla(A_HANDLE, struct.pack("=I", handle)))


def decode(cmd, body):
    a = attrs(body[4:])
    out = {"msg": CMDS.get(cmd, str(cmd))}
    u32 = lambda k: struct.unpack("=I", a[k])[0]
    u64 = lambda k: struct.unpack("=Q", a[k])[0]
    for key, name in ((A_IFINDEX, "ifindex"), (A_HANDLE, "handle"),
                      (A_KEY_MODE, "key_mode"), (A_QUEUE, "queue")):
        if key in a:
            out[name] = u32(key)
    if A_FAMILY in a:
        fam = a[A_FAMILY][0]
        out["family"] = fam
        af = {2: socket.AF_INET, 10: socket.AF_INET6}.get(fam)
        for key, name in ((A_SRC, "src"), (A_DST, "dst")):
            if key in a and af:
                out[name] = socket.inet_ntop(af, a[key])
    if A_PROTO in a:
        out["proto"] = a[A_PROTO][0]
    for key, name in ((A_SPORT, "sport"), (A_DPORT, "dport")):
        if key in a:
            out[name] = struct.unpack("!H", a[key])[0]
    if A_OVERFLOW in a:
        out["overflow"] = True
    if A_REASON in a:
        r = u32(A_REASON)
        out["reason"] = [n for bit, n in REASONS if r & bit]
    for key, name in ((A_RATE, "rate"), (A_TIME, "time"), (A_LOST, "lost")):
        if key in a:
            out[name] = u64(key)
    if A_CAUSE in a:
        out["cause"] = CAUSES.get(u32(A_CAUSE), u32(A_CAUSE))
    return out


def listen(args):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    out = open(args.out, "w", buffering=1)
    ifindex = socket.if_nametoindex(args.dev) if args.dev else 0
    handle = handle_arg(args.handle) if args.handle else 0

    def write(obj, nsock):
        obj.update(t=round(time.time(), 3), mono=round(time.monotonic(), 3),
                   sock=nsock)
        out.write(json.dumps(obj, sort_keys=True) + "\n")

    nl, nsock, dump_seq, dumped = Genl(), 1, None, 0
    nl.join()
    if args.ready:
        open(args.ready, "w").close()
    resync = args.resync_on
    end = time.monotonic() + args.time
    while not stop and time.monotonic() < end:
        try:
            ready, _, _ = select.select([nl.sock], [], [], 0.2)
        except InterruptedError:
            continue
        if not ready:
            continue
        try:
            data = nl.sock.recv(1 << 16)
        except OSError as e:	# ENOBUFS: this listener lost events
            write({"msg": "overrun", "error": e.strerror}, nsock)
            continue
        for mtype, seq, body in messages(data):
            if dump_seq is not None and seq == dump_seq:
                if mtype == NLMSG_DONE or mtype == NLMSG_ERROR:
                    err = struct.unpack_from("=i", body)[0]
                    write({"msg": "dump_done", "count": dumped,
                           "error": err}, nsock)
                    dump_seq = None
                elif mtype == nl.family:
                    ev = decode(body[0], body)
                    ev["msg"] = "dump"
                    write(ev, nsock)
                    dumped += 1
                continue
            if mtype != nl.family:
                continue
            ev = decode(body[0], body)
            write(ev, nsock)
            if (resync and ev["msg"] == "flag" and ev.get("src") == resync):
                # a restart: a new socket, the group joined, then a dump
                resync = None
                nl.sock.close()
                nl, nsock, dumped = Genl(), nsock + 1, 0
                nl.join()
                dump_seq = nl.dump(ifindex, handle)
                write({"msg": "resync"}, nsock)
                break
    out.close()


def dump_once(nl, ifindex, handle, show):
    """One dump; the keys it listed."""
    seq, keys = nl.dump(ifindex, handle), 0
    while True:
        for mtype, mseq, body in messages(nl.sock.recv(1 << 16)):
            if mseq != seq:
                continue
            if mtype == NLMSG_DONE or mtype == NLMSG_ERROR:
                err = struct.unpack_from("=i", body)[0]
                if err:
                    sys.exit("dfs_verdicts: dump: %s" % os.strerror(-err))
                return keys
            keys += 1
            if show:
                print(json.dumps(decode(body[0], body), sort_keys=True))


def dump(args):
    nl = Genl()
    ifindex, handle = socket.if_nametoindex(args.dev), handle_arg(args.handle)
    if not args.loop:
        dump_once(nl, ifindex, handle, True)
        return
    end, dumps, keys = time.monotonic() + args.loop, 0, 0
    while time.monotonic() < end:
        keys += dump_once(nl, ifindex, handle, False)
        dumps += 1
    print(json.dumps({"dumps": dumps, "keys": keys}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("listen")
    p.add_argument("--out", required=True)
    p.add_argument("--dev")
    p.add_argument("--handle")
    p.add_argument("--resync-on")
    p.add_argument("--ready")
    p.add_argument("--time", type=float, default=3600)
    p = sub.add_parser("dump")
    p.add_argument("--dev", required=True)
    p.add_argument("--handle", required=True)
    p.add_argument("--loop", type=float, metavar="SECS",
                   help="dump again and again for SECS, and print only "
                   "how many dumps and keys")
    args = ap.parse_args()
    if args.cmd == "listen":
        if args.resync_on and not (args.dev and args.handle):
            ap.error("--resync-on needs --dev and --handle")
        listen(args)
    else:
        dump(args)


if __name__ == "__main__":
    main()
