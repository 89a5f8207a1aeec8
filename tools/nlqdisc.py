#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send one RTM_NEWQDISC with hand-made options and print the kernel's answer.

tc only sends attributes it knows, in ranges it checks; this talks to the
kernel directly so tests can send what an attacker or a buggy tool might:
unknown attributes, wrong sizes, out-of-range values.

  nlqdisc.py --dev D [--parent 1:] [--handle 10:] [--create] --kind dfs \
             [--attr TYPE=VALUE[/u8|u16|u32|u64]] [--raw TYPE=HEXBYTES]

--class sends RTM_NEWTCLASS instead (--handle is the class id), and
--filter PRIO RTM_NEWTFILTER (protocol all; --handle is the filter's
handle, a number).

Prints "ok" or "error <errno> (<strerror>): <extack message>"; exits 0
or 2.
"""
import argparse
import os
import socket
import struct
import sys

RTM_NEWQDISC, RTM_NEWTCLASS, RTM_NEWTFILTER = 36, 40, 44
ETH_P_ALL = 3
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 1, 4, 0x200, 0x400
NLMSG_ERROR = 2
NETLINK_EXT_ACK = 11
NLMSGERR_ATTR_MSG = 1
NLA_F_NESTED = 0x8000
TCA_KIND, TCA_OPTIONS = 1, 2


def handle(text):
    if text in ("root", None):
        return 0xFFFFFFFF
    major, _, minor = text.partition(":")
    return (int(major or "0", 16) << 16) | int(minor or "0", 16)


def nla(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    pad = b"\0" * ((4 - len(payload) % 4) % 4)
    return hdr + payload + pad


def attr_payload(spec):
    atype, _, value = spec.partition("=")
    value, _, kind = value.partition("/")
    fmt = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q"}[kind or "u32"]
    return int(atype), struct.pack(fmt, int(value, 0))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--parent", default="root")
    ap.add_argument("--handle", default="0:")
    ap.add_argument("--create", action="store_true")
    ap.add_argument("--kind", default="dfs")
    ap.add_argument("--attr", action="append", default=[])
    ap.add_argument("--raw", action="append", default=[])
    ap.add_argument("--class", dest="cls", action="store_true")
    ap.add_argument("--filter", type=int, metavar="PRIO")
    args = ap.parse_args()

    opts = b""
    for spec in args.attr:
        atype, payload = attr_payload(spec)
        opts += nla(atype, payload)
    for spec in args.raw:
        atype, _, hexbytes = spec.partition("=")
        opts += nla(int(atype), bytes.fromhex(hexbytes))
    mtype, info, hdl = RTM_NEWQDISC, 0, handle(args.handle)
    if args.cls:
        mtype = RTM_NEWTCLASS
    elif args.filter is not None:
        mtype = RTM_NEWTFILTER
        info = (args.filter << 16) | socket.htons(ETH_P_ALL)
        hdl = int(args.handle.rstrip(":") or "0", 0)
    body = struct.pack("=BBHiIII", socket.AF_UNSPEC, 0, 0,
                       socket.if_nametoindex(args.dev),
                       hdl, handle(args.parent), info)
    body += nla(TCA_KIND, args.kind.encode() + b"\0")
    body += nla(TCA_OPTIONS | NLA_F_NESTED, opts)
    flags = NLM_F_REQUEST | NLM_F_ACK
    if args.create:
        flags |= NLM_F_CREATE | NLM_F_EXCL
    msg = struct.pack("=IHHII", 16 + len(body), mtype, flags, 1, 0)

    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                         socket.NETLINK_ROUTE)
    sock.setsockopt(270, NETLINK_EXT_ACK, 1)  # SOL_NETLINK
    sock.bind((0, 0))
    sock.send(msg + body)
    reply = sock.recv(65536)
    _, mtype, mflags, _, _ = struct.unpack_from("=IHHII", reply)
    if mtype != NLMSG_ERROR:
        print("unexpected reply type %d" % mtype)
        return 2
    (err,) = struct.unpack_from("=i", reply, 16)
    if err == 0:
        print("ok")
        return 0
    # The echoed request is whole unless NLM_F_CAPPED (0x100) is set.
    olen = struct.unpack_from("=I", reply, 20)[0]
    off = 20 + (16 if mflags & 0x100 else olen)
    msgtext = ""
    while off + 4 <= len(reply):
        alen, atype = struct.unpack_from("=HH", reply, off)
        if alen < 4:
            break
        if atype == NLMSGERR_ATTR_MSG:
            msgtext = reply[off + 4: off + alen].split(b"\0")[0].decode()
        off += (alen + 3) & ~3
    print("error %d (%s): %s" % (-err, os.strerror(-err), msgtext))
    return 2


if __name__ == "__main__":
    sys.exit(main())
