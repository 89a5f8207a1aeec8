#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send odd and malformed Ethernet frames out of a device (AF_PACKET).

  rawframes.py --dev DEV [--repeat N] [--fuzz N] [--seed S] [--list]
               [--dst-mac MAC] [CASE...]

Each frame goes through DEV's qdisc (an AF_PACKET sendto is a
dev_queue_xmit), with skb->protocol taken from the sockaddr: normally the
frame's own ethertype, for the "proto_*" cases a different one, so a
classifier must not trust it.  CASEs (all when none is given) are the
names printed by --list.  --fuzz N adds N frames built from a valid
header of a random kind with random bytes overwritten and a random
truncation (seeded: the same seed sends the same frames).

Prints one JSON line: {"sent": frames accepted by the kernel,
"dropped": frames the qdisc took and dropped (ENOBUFS), "refused":
frames refused before the qdisc (e.g. shorter than the device header),
"cases": number of cases}.
"""
import argparse
import errno
import json
import random
import socket
import struct
import sys

ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
ETH_P_8021Q = 0x8100
ETH_P_8021AD = 0x88A8
ETH_P_ARP = 0x0806
ETH_P_MPLS = 0x8847

SRC4 = bytes([10, 200, 0, 1])
DST4 = bytes([10, 0, 0, 2])
SRC6 = bytes.fromhex("fd00c800000000000000000000000001")
DST6 = bytes.fromhex("fd000000000000000000000000000002")


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ip4(payload, proto=17, ihl=5, tot=None, frag=0, src=SRC4, dst=DST4,
        opts=b""):
    tot = 20 + len(opts) + len(payload) if tot is None else tot
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, tot & 0xFFFF, 1, frag,
                    64, proto, 0, src, dst) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ip6(payload, nh=17, plen=None, src=SRC6, dst=DST6):
    plen = len(payload) if plen is None else plen
    return struct.pack("!IHBB16s16s", 0x60000000, plen & 0xFFFF, nh, 64,
                       src, dst) + payload


def udp(payload, sport=1234, dport=9):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def tcp(sport=1234, dport=80, flags=0x02):
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, flags,
                       65535, 0, 0)


def ext6(nh, length8=0, fill=0):
    """A hop-by-hop/destination-options/routing style header: next
    header, length in 8-octet units past the first 8, PadN padding."""
    left, body = 6 + 8 * length8, b""
    while left:
        n = min(left, 257)
        if n == 1:
            body += b"\0"		# Pad1
        else:
            body += bytes([1, n - 2]) + bytes([fill]) * (n - 2)
        left -= n
    return bytes([nh, length8]) + body


def frag6(nh, offset=0, more=0, ident=7):
    return struct.pack("!BBHI", nh, 0, (offset << 3) | more, ident)


def vlan(tpid, vid, inner_type):
    return struct.pack("!HHH", tpid, vid, inner_type)


def cases():
    """name -> (ethertype after the MAC addresses + rest, skb protocol)"""
    one = b"x"
    c = {}

    def add(name, body, ethertype, proto=None):
        c[name] = (struct.pack("!H", ethertype) + body,
                   ethertype if proto is None else proto)

    add("udp4_1byte", ip4(udp(one)), ETH_P_IP)
    add("udp6_1byte", ip6(udp(one)), ETH_P_IPV6)
    add("tcp4_syn", ip4(tcp(), proto=6), ETH_P_IP)
    add("udp4_64k_claimed", ip4(udp(one), tot=65535), ETH_P_IP)
    add("eth_only_ip4", b"", ETH_P_IP)
    add("eth_only_ip6", b"", ETH_P_IPV6)
    add("ip4_trunc10", ip4(b"")[:10], ETH_P_IP)
    add("ip4_hdr_only", ip4(b"", tot=1500), ETH_P_IP)
    add("ip4_ihl15_short", ip4(udp(one), ihl=15), ETH_P_IP)
    add("ip4_ihl2", ip4(udp(one), ihl=2), ETH_P_IP)
    add("ip4_ihl15_opts", ip4(udp(one), ihl=15, opts=b"\x01" * 40), ETH_P_IP)
    add("ip4_udp_trunc", ip4(udp(b""))[:24], ETH_P_IP)
    add("ip4_frag_first", ip4(udp(one * 100), frag=0x2000), ETH_P_IP)
    add("ip4_frag_later", ip4(one * 64, frag=185), ETH_P_IP)
    add("ip4_frag_last_tiny", ip4(one, frag=0x1FFF), ETH_P_IP)
    add("ip4_version6", b"\x65" + ip4(udp(one))[1:], ETH_P_IP)
    add("ipip_trunc", ip4(ip4(b"")[:8], proto=4), ETH_P_IP)
    add("ipip_ok", ip4(ip4(udp(one)), proto=4), ETH_P_IP)
    add("ip6_trunc10", ip6(b"")[:10], ETH_P_IPV6)
    add("ip6_hdr_only", ip6(b"", plen=1000), ETH_P_IPV6)
    add("ip6_ext_chain",
        ip6(ext6(60, 1) + ext6(44, 0) + frag6(17, 0, 1) + udp(one * 64),
            nh=0), ETH_P_IPV6)
    add("ip6_frag_later", ip6(frag6(17, 100, 0) + one * 64, nh=44),
        ETH_P_IPV6)
    add("ip6_hbh_trunc", ip6(ext6(17, 255)[:12], nh=0, plen=2048),
        ETH_P_IPV6)
    add("ip6_dstopt_x20",
        ip6(b"".join(ext6(60, 0) for _ in range(19)) + ext6(17, 0) +
            udp(one), nh=60), ETH_P_IPV6)
    add("ip6_routing", ip6(bytes([17, 2, 0, 0, 0, 0, 0, 0]) + DST6 +
                           udp(one), nh=43), ETH_P_IPV6)
    add("ip6_nonext", ip6(one * 8, nh=59), ETH_P_IPV6)
    add("ip6_in_ip4", ip4(ip6(udp(one)), proto=41), ETH_P_IP)
    add("vlan_ip4", vlan(ETH_P_8021Q, 10, ETH_P_IP)[2:] + ip4(udp(one)),
        ETH_P_8021Q)
    add("vlan_ip6", vlan(ETH_P_8021Q, 10, ETH_P_IPV6)[2:] + ip6(udp(one)),
        ETH_P_8021Q)
    add("qinq_ip4", vlan(ETH_P_8021AD, 20, ETH_P_8021Q)[2:] +
        struct.pack("!HH", 10, ETH_P_IP) + ip4(udp(one)), ETH_P_8021AD)
    add("vlan_trunc", b"\x00", ETH_P_8021Q)
    add("vlan_ip4_trunc", vlan(ETH_P_8021Q, 10, ETH_P_IP)[2:] +
        ip4(b"")[:6], ETH_P_8021Q)
    add("vlan_x8", b"".join(struct.pack("!HH", 10, ETH_P_8021Q)
                             for _ in range(7)) +
        struct.pack("!HH", 10, ETH_P_IP) + ip4(udp(one)), ETH_P_8021Q)
    add("mpls_ip4", struct.pack("!I", (16 << 12) | 0x100 | 64) +
        ip4(udp(one)), ETH_P_MPLS)
    add("arp_short", b"\x00\x01\x08\x00", ETH_P_ARP)
    add("unknown_type", one * 46, 0x88B5)
    # skb->protocol disagreeing with the frame.
    add("proto_ip6_frame_ip4", ip4(udp(one)), ETH_P_IP, ETH_P_IPV6)
    add("proto_ip4_frame_ip6", ip6(udp(one)), ETH_P_IPV6, ETH_P_IP)
    add("proto_vlan_frame_ip4", ip4(udp(one)), ETH_P_IP, ETH_P_8021Q)
    add("proto_ip4_frame_short", b"\x45", ETH_P_IP)
    return c


def fuzz_frames(n, seed):
    rnd = random.Random(seed)
    base = list(cases().values())
    for _ in range(n):
        frame, proto = rnd.choice(base)
        b = bytearray(frame + bytes(rnd.randrange(256) for _ in range(16)))
        for _ in range(rnd.randrange(1, 6)):
            i = rnd.randrange(2, len(b)) if len(b) > 2 else 0
            b[i] = rnd.randrange(256)
        yield bytes(b[:rnd.randrange(2, len(b) + 1)]), proto


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev")
    ap.add_argument("--dst-mac", default="02:00:00:00:00:02")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--fuzz", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("case", nargs="*")
    args = ap.parse_args()

    all_cases = cases()
    if args.list:
        print("\n".join(all_cases))
        return 0
    names = args.case or list(all_cases)
    for n in names:
        if n not in all_cases:
            sys.exit("unknown case %s (see --list)" % n)

    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    dst = bytes.fromhex(args.dst_mac.replace(":", ""))
    src = bytes.fromhex("020000000003")
    frames = [all_cases[n] for n in names] * args.repeat
    frames += list(fuzz_frames(args.fuzz, args.seed))
    sent = dropped = refused = 0
    for body, proto in frames:
        try:
            sock.sendto(dst + src + body, (args.dev, proto))
            sent += 1
        except OSError as e:
            # ENOBUFS: the qdisc took the frame and dropped it.
            if e.errno == errno.ENOBUFS:
                dropped += 1
            else:
                refused += 1
    print(json.dumps({"sent": sent, "dropped": dropped, "refused": refused,
                      "cases": len(names)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
