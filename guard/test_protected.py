#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""dfs-guard's protected addresses, without a router: a fake rtnetlink
that answers with pyroute2's own messages (encoded, then decoded as the
kernel's would be), and ExaBGP and resolv.conf files of its own."""
import ipaddress
import os
import sys
import tempfile
import unittest
from socket import AF_INET, AF_INET6

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dfs_guard.protected import Protected                # noqa: E402

from pyroute2.netlink.rtnl.ifaddrmsg import ifaddrmsg    # noqa: E402
from pyroute2.netlink.rtnl.ifinfmsg import ifinfmsg      # noqa: E402
from pyroute2.netlink.rtnl.rtmsg import rtmsg            # noqa: E402

A = ipaddress.ip_address
N = ipaddress.ip_network


def wire(cls, attrs, **fields):
    """A message as read from the kernel: through its bytes and back."""
    m = cls()
    m.update(fields)
    m["attrs"] = attrs
    m.encode()
    d = cls(m.data)
    d.decode()
    return d


def link(index, name):
    return wire(ifinfmsg, [("IFLA_IFNAME", name)], index=index)


def addr(index, family, address, local=None, plen=24):
    attrs = [("IFA_ADDRESS", address)]
    if local:
        attrs.append(("IFA_LOCAL", local))
    return wire(ifaddrmsg, attrs, family=family, prefixlen=plen, index=index)


def route(family, attrs, dst_len=0, table=254):
    return wire(rtmsg, attrs + [("RTA_TABLE", table)], family=family,
                dst_len=dst_len, table=table if table < 256 else 252, type=1)


class FakeIPR:
    """IPRoute's dumps: get_links, get_addr, get_routes(family=)."""

    def __init__(self):
        self.fail = False
        self.links = [link(1, "lo"), link(2, "eth0"), link(3, "eth1"),
                      link(4, "ppp0")]
        self.addrs = [
            addr(1, AF_INET, "127.0.0.1", "127.0.0.1", 8),
            addr(2, AF_INET, "192.0.2.2", "192.0.2.2"),
            addr(4, AF_INET, "10.64.0.2", "10.64.0.1", 32),    # peer
            addr(1, AF_INET6, "::1", plen=128),
            addr(2, AF_INET6, "2001:db8::2", plen=64),
            addr(2, AF_INET6, "fe80::2", plen=64),
        ]
        self.routes = [
            route(AF_INET, [("RTA_GATEWAY", "192.0.2.1"), ("RTA_OIF", 2)]),
            route(AF_INET, [("RTA_DST", "192.0.2.0"), ("RTA_OIF", 2)], 24),
            route(AF_INET, [("RTA_DST", "198.18.0.0"), ("RTA_MULTIPATH", [
                {"oif": 2, "attrs": [("RTA_GATEWAY", "192.0.2.10")]},
                {"oif": 3, "attrs": [("RTA_GATEWAY", "203.0.113.10")]},
            ])], 15, table=100),
            route(AF_INET, [("RTA_DST", "100.64.0.0"), ("RTA_OIF", 3),
                            ("RTA_VIA", {"family": AF_INET6,
                                         "addr": "fe80::99"})], 10),
            route(AF_INET6, [("RTA_GATEWAY", "fe80::1"), ("RTA_OIF", 2)]),
            route(AF_INET6, [("RTA_DST", "2001:db8:100::"),
                             ("RTA_MULTIPATH", [
                                 {"oif": 2, "attrs": [
                                     ("RTA_GATEWAY", "2001:db8::a")]},
                                 {"oif": 3, "attrs": [
                                     ("RTA_GATEWAY", "2001:db8:1::b")]},
                             ])], 48, table=1000),
            route(AF_INET6, [("RTA_DST", "2001:db8::"), ("RTA_OIF", 2)], 64),
        ]

    def check(self):
        if self.fail:
            raise OSError(105, "No buffer space available")

    def get_links(self):
        self.check()
        return tuple(self.links)

    def get_addr(self, family=0):
        self.check()
        return tuple(a for a in self.addrs if family in (0, a["family"]))

    def get_routes(self, family=255, **kw):
        self.check()
        return tuple(r for r in self.routes
                     if family == 255 or r["family"] == family)


EXABGP = """\
process dfs-guard {
	run /usr/sbin/dfs-guard-exabgp /run/dfs-guard/exabgp.sock;
	encoder text;
}
template {
	neighbor upstream { local-as 64512; }
}
neighbor 192.0.2.1 {
	inherit upstream;
	router-id 192.0.2.2;
	local-address 192.0.2.3;
	peer-as 64500;
	family { ipv4 flow; ipv6 flow; }
}
# neighbor 198.51.100.99 {
neighbor 2001:db8:ffff::1 {
	local-address auto;
	peer-as 64501;
}
"""


class ProtectedTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.ipr = FakeIPR()
        d = self.dir.name
        self.write("exabgp/exabgp.conf", EXABGP)
        self.write("exabgp/peers.conf",
                   "neighbor 198.51.100.0/30 {\n\tpassive;\n}\n")
        self.write("resolv.conf", "search example.net\n"
                   "nameserver 172.31.255.53\n"
                   "nameserver fe80::53%eth1\n"
                   "# nameserver 198.51.100.53\n")
        self.write("stub-resolv.conf", "nameserver 127.0.0.53\n")
        self.p = Protected(
            allow=[N("10.0.0.0/8"), N("2001:db8:aaaa::/48")],
            neighbors=["203.0.113.1"],
            exabgp_configs=(os.path.join(d, "exabgp/exabgp.conf"),
                            os.path.join(d, "exabgp/*.conf"),
                            os.path.join(d, "exabgp/missing.conf")),
            resolv_confs=(os.path.join(d, "resolv.conf"),
                          os.path.join(d, "stub-resolv.conf"),
                          os.path.join(d, "missing/resolv.conf")),
            ipr=self.ipr)

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def why(self, a):
        return self.p.why(A(a))

    def test_local_addresses(self):
        self.assertTrue(self.p.refresh(0))
        for a, dev in (("127.0.0.1", "lo"), ("192.0.2.2", "eth0"),
                       ("10.64.0.1", "ppp0"), ("::1", "lo"),
                       ("2001:db8::2", "eth0"), ("fe80::2", "eth0")):
            self.assertEqual(self.why(a), "this router's address on " + dev)
        self.assertEqual(self.why("10.64.0.2"), "point-to-point peer on ppp0")
        # each address alone: not the connected prefix's hosts
        self.assertIsNone(self.why("192.0.2.77"))
        self.assertIsNone(self.why("2001:db8::77"))
        self.assertIsNone(self.why("127.0.0.2"))

    def test_gateways(self):
        self.p.refresh(0)
        self.assertEqual(self.why("192.0.2.1"),
                         "a gateway (route 0.0.0.0/0 via 192.0.2.1 dev eth0)")
        self.assertEqual(self.why("fe80::1"),
                         "a gateway (route ::/0 via fe80::1 dev eth0)")

    def test_multipath(self):
        self.p.refresh(0)
        self.assertEqual(self.why("192.0.2.10"), "a gateway (route "
                         "198.18.0.0/15 table 100 via 192.0.2.10 dev eth0)")
        self.assertEqual(self.why("203.0.113.10"), "a gateway (route "
                         "198.18.0.0/15 table 100 via 203.0.113.10 dev eth1)")
        self.assertEqual(self.why("2001:db8::a"), "a gateway (route "
                         "2001:db8:100::/48 table 1000 via 2001:db8::a "
                         "dev eth0)")
        self.assertIn("dev eth1", self.why("2001:db8:1::b"))

    def test_via(self):
        """An IPv4 route through an IPv6 next hop (RFC 5549)."""
        self.p.refresh(0)
        self.assertEqual(self.why("fe80::99"),
                         "a gateway (route 100.64.0.0/10 via fe80::99 "
                         "dev eth1)")

    def test_bgp_neighbours(self):
        self.p.refresh(0)
        # 192.0.2.1 is the default gateway too: that is said first
        self.assertIn("gateway", self.why("192.0.2.1"))
        self.assertEqual(self.why("2001:db8:ffff::1"),
                         "BGP neighbour (exabgp.conf)")
        self.assertEqual(self.why("192.0.2.3"),
                         "this router's address (exabgp.conf)")
        self.assertEqual(self.why("198.51.100.2"),
                         "BGP neighbour (peers.conf)")
        self.assertIsNone(self.why("198.51.100.4"))
        self.assertIsNone(self.why("198.51.100.99"))       # a comment
        self.assertEqual(self.why("203.0.113.1"),
                         "BGP neighbour (flowspec.neighbor)")
        # the same address, once the route is gone: the next reason
        p = Protected(exabgp_configs=(self.write("x.conf", EXABGP),),
                      ipr=self.ipr)
        p.refresh(0)
        self.assertEqual(p.why(A("192.0.2.1")), "a gateway (route 0.0.0.0/0 "
                         "via 192.0.2.1 dev eth0)")
        self.ipr.routes = []
        p.refresh(10)
        self.assertEqual(p.why(A("192.0.2.1")), "BGP neighbour (x.conf)")

    def test_resolvers(self):
        self.p.refresh(0)
        path = os.path.join(self.dir.name, "resolv.conf")
        self.assertEqual(self.why("172.31.255.53"), "resolver (%s)" % path)
        self.assertEqual(self.why("fe80::53"), "resolver (%s)" % path)
        self.assertIn("stub-resolv.conf", self.why("127.0.0.53"))
        self.assertIsNone(self.why("198.51.100.53"))

    def test_allow(self):
        self.p.refresh(0)
        self.assertEqual(self.why("10.1.2.3"), "policy.allow 10.0.0.0/8")
        self.assertEqual(self.why("2001:db8:aaaa::1"),
                         "policy.allow 2001:db8:aaaa::/48")
        self.assertIsNone(self.why("11.0.0.1"))
        self.assertIsNone(self.why("::ffff:10.1.2.3"))

    def test_not_protected(self):
        self.p.refresh(0)
        for a in ("198.51.100.7", "203.0.113.200", "2001:db8:bad::1",
                  "192.0.2.0", "fe80::3"):
            self.assertIsNone(self.why(a), a)
        self.assertIsNone(self.p.why(None))
        self.assertIsNone(Protected(ipr=self.ipr).why(A("192.0.2.1")))

    def test_networks(self):
        self.p.refresh(0)
        nets = self.p.networks()
        self.assertEqual(nets[N("192.0.2.2/32")],
                         "this router's address on eth0")
        self.assertEqual(nets[N("fe80::1/128")],
                         "a gateway (route ::/0 via fe80::1 dev eth0)")
        self.assertEqual(nets[N("198.51.100.0/30")],
                         "BGP neighbour (peers.conf)")
        self.assertEqual(nets[N("10.0.0.0/8")], "policy.allow 10.0.0.0/8")
        self.assertNotIn(N("192.0.2.0/24"), nets)
        self.assertEqual(set(nets), {N(n) for n in (
            "127.0.0.1", "192.0.2.2", "10.64.0.1", "10.64.0.2", "::1",
            "2001:db8::2", "fe80::2",                       # addresses
            "192.0.2.1", "192.0.2.10", "203.0.113.10", "fe80::99",
            "fe80::1", "2001:db8::a", "2001:db8:1::b",      # next hops
            "2001:db8:ffff::1", "198.51.100.0/30", "203.0.113.1",
            "192.0.2.3",                                    # BGP
            "172.31.255.53", "fe80::53", "127.0.0.53",      # resolvers
            "10.0.0.0/8", "2001:db8:aaaa::/48")})           # allow

    def test_netlink_failure_keeps_last(self):
        self.p.refresh(0)
        self.ipr.fail = True
        self.write("resolv.conf", "nameserver 198.51.100.53\n")
        with self.assertLogs("dfs-guard", "WARNING") as logs:
            self.assertTrue(self.p.refresh(10))
            self.p.refresh(20)          # said once, not every refresh
        self.assertEqual(len(logs.output), 1)
        self.assertIn("No buffer space", logs.output[0])
        self.assertIn("gateway", self.why("192.0.2.1"))
        self.assertIn("address on eth0", self.why("fe80::2"))
        self.assertIn("dev eth1", self.why("203.0.113.10"))
        # the files are read all the same
        self.assertIn("resolver", self.why("198.51.100.53"))
        self.assertIsNone(self.why("172.31.255.53"))
        # rtnetlink back: what it says now
        self.ipr.fail = False
        self.ipr.routes = []
        self.p.refresh(30)
        self.assertEqual(self.why("192.0.2.1"), "BGP neighbour (exabgp.conf)")
        self.assertIsNotNone(self.why("fe80::2"))

    def test_first_failure(self):
        self.ipr.fail = True
        with self.assertLogs("dfs-guard", "WARNING"):
            self.p.refresh(0)
        self.assertIsNone(self.why("fe80::1"))
        self.assertIsNotNone(self.why("172.31.255.53"))

    def test_refresh_every(self):
        self.assertTrue(self.p.refresh(100))
        self.ipr.addrs.append(addr(3, AF_INET, "203.0.113.5", "203.0.113.5"))
        self.write("exabgp/more.conf", "neighbor 198.51.100.200 {\n}\n")
        self.assertFalse(self.p.refresh(104.9))
        self.assertIsNone(self.why("203.0.113.5"))
        self.assertIsNone(self.why("198.51.100.200"))
        self.assertTrue(self.p.refresh(105))
        self.assertEqual(self.why("203.0.113.5"),
                         "this router's address on eth1")
        self.assertEqual(self.why("198.51.100.200"),
                         "BGP neighbour (more.conf)")
        self.assertFalse(self.p.refresh(106))

    def test_unreadable_file(self):
        """A file that cannot be read is said once; a missing one not."""
        os.makedirs(os.path.join(self.dir.name, "exabgp", "dir.conf"))
        with self.assertLogs("dfs-guard", "WARNING") as logs:
            self.p.refresh(0)
            self.p.refresh(10)
        self.assertEqual(len(logs.output), 1)
        self.assertIn("dir.conf", logs.output[0])
        self.assertIsNotNone(self.why("2001:db8:ffff::1"))


class RealNetlinkTest(unittest.TestCase):
    def test_this_netns(self):
        """This machine's rtnetlink, unprivileged reads: no warning."""
        p = Protected(exabgp_configs=(), resolv_confs=())
        with self.assertNoLogs("dfs-guard", "WARNING"):
            self.assertTrue(p.refresh(0))
        for net, why in p.networks().items():
            self.assertEqual(p.why(net.network_address), why)


if __name__ == "__main__":
    unittest.main()
