# SPDX-License-Identifier: GPL-2.0
"""The addresses dfs-guard never acts on, found without configuration.

A verdict names the source a flood came from, and a flood's source is
whatever the sender writes.  A flood forged from this router's BGP
peer, its gateway or its resolver would have dfs-guard drop that
address at ingress, or have the upstream drop it through FlowSpec: the
router would cut its own session, route or lookups, and the attacker
would have aimed it.  So a rule never names these as a source or a
destination:

  - this router's own addresses, each alone (not the connected
    prefix: the hosts on it are as spoofable as any);
  - every next hop of every route of every table (RTA_GATEWAY,
    RTA_VIA, and each of RTA_MULTIPATH's), IPv4 and IPv6;
  - the BGP neighbours: flowspec.neighbor, and ExaBGP's "neighbor X {"
    ("local-address" is this router's);
  - the resolvers of resolv.conf;
  - the operator's policy.allow.

They are read again every refresh_every seconds (an address, a route, a
peer that comes and goes).  What the kernel said last stands while
rtnetlink fails; a file that is missing has nothing to say.
"""
import glob
import ipaddress
import logging
import re
import socket

log = logging.getLogger("dfs-guard")

EXABGP_CONFIGS = ("/etc/exabgp/exabgp.conf", "/etc/exabgp/*.conf")
RESOLV_CONFS = ("/etc/resolv.conf", "/run/systemd/resolve/resolv.conf")

# ExaBGP 4: "neighbor 192.0.2.1 {" (a range too: a passive listener),
# "local-address 192.0.2.2;" ("auto" is not an address: skipped)
NEIGHBOR = re.compile(r"^\s*neighbor\s+([0-9A-Fa-f:.]+(?:/\d+)?)\s*\{", re.M)
LOCAL = re.compile(r"^\s*local-address\s+([0-9A-Fa-f:.]+)\s*;", re.M)
NAMESERVER = re.compile(r"^\s*nameserver\s+([0-9A-Fa-f:.]+)", re.M)


def _address(text):
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


class Protected:
    """The addresses dfs-guard never acts on, as a source or a destination."""

    def __init__(self, allow=(), neighbors=(), exabgp_configs=EXABGP_CONFIGS,
                 resolv_confs=RESOLV_CONFS, ipr=None, refresh_every=5.0):
        self.allow = [ipaddress.ip_network(n) for n in allow]
        self.neighbors = [ipaddress.ip_address(str(n)) for n in neighbors]
        self.exabgp_configs = exabgp_configs
        self.resolv_confs = resolv_confs
        self.ipr = ipr
        self.refresh_every = refresh_every
        self.last = None
        self.kernel = {}              # what rtnetlink said last
        self.exact = {}               # address -> reason
        self.nets = []                # [(network, reason)], a few
        self.netlink_failed = False
        self.unreadable = set()       # files already warned about

    def refresh(self, now):
        """Read everything again if refresh_every seconds went by since
        the last time (the first call always reads); True if it did."""
        if self.last is not None and now - self.last < self.refresh_every:
            return False
        self.last = now
        try:
            if self.ipr is not None:
                self.kernel = self.read_kernel(self.ipr)
            else:
                from pyroute2 import IPRoute
                with IPRoute() as ipr:
                    self.kernel = self.read_kernel(ipr)
            self.netlink_failed = False
        except Exception as e:
            # warn once per failure, not every refresh
            if not self.netlink_failed:
                log.warning("protected addresses: rtnetlink: %s; keeping "
                            "the %d known", e, len(self.kernel))
            self.netlink_failed = True
        exact, nets = dict(self.kernel), []
        for nb in self.neighbors:
            exact.setdefault(nb, "BGP neighbour (flowspec.neighbor)")
        for path in self.files(self.exabgp_configs):
            text = self.read(path)
            name = path.rsplit("/", 1)[-1]
            for m in NEIGHBOR.finditer(text):
                try:
                    net = ipaddress.ip_network(m.group(1), strict=False)
                except ValueError:
                    continue
                why = "BGP neighbour (%s)" % name
                if net.num_addresses == 1:
                    exact.setdefault(net.network_address, why)
                else:
                    nets.append((net, why))
            for m in LOCAL.finditer(text):
                a = _address(m.group(1))
                if a is not None:
                    exact.setdefault(a, "this router's address (%s)" % name)
        for path in self.files(self.resolv_confs):
            for m in NAMESERVER.finditer(self.read(path)):
                a = _address(m.group(1))
                if a is not None:
                    exact.setdefault(a, "resolver (%s)" % path)
        nets += [(n, "policy.allow %s" % n) for n in self.allow]
        self.exact, self.nets = exact, nets
        return True

    def read_kernel(self, ipr):
        """{address: reason} of this router's addresses and next hops."""
        out = {}
        names = {i["index"]: i.get_attr("IFLA_IFNAME")
                 for i in ipr.get_links()}

        def dev(index):
            return names.get(index) or "ifindex %s" % index

        for a in ipr.get_addr():
            # IFA_ADDRESS is ours, or with IFA_LOCAL a point-to-point peer
            local = _address(a.get_attr("IFA_LOCAL") or "")
            addr = _address(a.get_attr("IFA_ADDRESS") or "")
            on = dev(a["index"])
            if local is not None and addr is not None and local != addr:
                out.setdefault(addr, "point-to-point peer on %s" % on)
            mine = local if local is not None else addr
            if mine is not None:
                out[mine] = "this router's address on %s" % on
        for family in (socket.AF_INET, socket.AF_INET6):
            for r in ipr.get_routes(family=family):
                dst = r.get_attr("RTA_DST") or \
                    ("::" if family == socket.AF_INET6 else "0.0.0.0")
                table = r.get_attr("RTA_TABLE") or r["table"]
                route = "route %s/%d" % (dst, r["dst_len"])
                if table != 254:        # not main
                    route += " table %d" % table
                hops = [(r, r.get_attr("RTA_OIF"))]
                hops += [(nh, nh["oif"])
                         for nh in r.get_attr("RTA_MULTIPATH") or ()]
                for nh, oif in hops:
                    via = nh.get_attr("RTA_VIA") or {}
                    for gw in (nh.get_attr("RTA_GATEWAY"), via.get("addr")):
                        addr = _address(gw or "")
                        if addr is not None:
                            out.setdefault(addr, "a gateway (%s via %s dev %s)"
                                           % (route, addr, dev(oif)))
        return out

    @staticmethod
    def files(patterns):
        """The paths PATTERNS name and that exist, once each, in order."""
        seen = []
        for p in patterns:
            seen += [f for f in sorted(glob.glob(p)) if f not in seen]
        return seen

    def read(self, path):
        """PATH's text; "" if it is missing, or unreadable (said once)."""
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except FileNotFoundError:
            return ""
        except OSError as e:
            if path not in self.unreadable:
                log.warning("protected addresses: %s", e)
            self.unreadable.add(path)
            return ""
        self.unreadable.discard(path)
        return text

    def why(self, addr):
        """Why ADDR (an ipaddress address, or None) is never acted on;
        None if it may be."""
        if addr is None:
            return None
        why = self.exact.get(addr)
        if why is None:
            for net, reason in self.nets:
                if net.version == addr.version and addr in net:
                    return reason
        return why

    def networks(self):
        """{network: reason} of every protected address, for logs and
        metrics."""
        out = {ipaddress.ip_network(a): w for a, w in self.exact.items()}
        for net, why in self.nets:
            out.setdefault(net, why)
        return out
