# SPDX-License-Identifier: GPL-2.0
"""The nftables backend: drop at the ingress hook of the interfaces the
operator names, before the packet reaches GRO's end, the IP stack,
conntrack or forwarding, through libnftables (python3-nftables), each
sync one JSON batch: one transaction, however many elements.

Its table is its own (netdev, "dfs_guard" by default):

	set src4, src6    sources (key src)
	set pair4, pair6  source . destination (key srcdst, 5tuple)
	map aggd4, aggd6  destination prefix : limit (an aggregate)
	map aggp4, aggp6  destination prefix . protocol . port range :
	                  limit (an aggregate of one protocol)
	chain in_DEV      hook ingress device DEV priority -500:
	                  ip saddr @src4 counter drop, ... @pair6 ...,
	                  limit name ip daddr map @aggd4 counter drop, ...
	limit aggN        rate over R bytes/second: one an aggregate, which
	                  every interface shares, so that the aggregate
	                  gets R over all of them, not R each

Every element, of a set or a map, carries a timeout of several renewal
periods and is renewed (deleted and added in one transaction: nftables
before Linux 6.10 cannot update an element's timeout) while its rule is
wanted: if the daemon dies, whatever it put there stops acting within
the timeout (41 s by default), with no one to clean up.  What stays is
the table's frame, chains whose rules match nothing: an aggregate's
rule is its map element, and a limit no element names limits nothing.

The frame is kept across restarts: start() brings an existing table to
this configuration in one transaction (chains flushed and filled again,
sets of another type made again, limits no element names deleted) and
keeps the elements it finds, which the daemon takes over (take_over()):
a restart, a crash included, or a reload never opens a gap in the
drops.  SIGTERM (close()) withdraws every element and deletes the table.
"""
import ipaddress
import json
import logging
import socket
import threading

from .backend import Backend, BackendError
from .policy import Rule

log = logging.getLogger("dfs-guard")

SETS = {("source", 4): ("src4", "ipv4_addr"),
        ("source", 6): ("src6", "ipv6_addr"),
        ("pair", 4): ("pair4", ["ipv4_addr", "ipv4_addr"]),
        ("pair", 6): ("pair6", ["ipv6_addr", "ipv6_addr"])}
# aggregates, by (one protocol?, version)
MAPS = {(False, 4): ("aggd4", "ipv4_addr"),
        (False, 6): ("aggd6", "ipv6_addr"),
        (True, 4): ("aggp4", ["ipv4_addr", "inet_proto", "inet_service"]),
        (True, 6): ("aggp6", ["ipv6_addr", "inet_proto", "inet_service"])}
PROTO = {4: "ip", 6: "ip6"}
DEVICE_RECHECK = 10.0                # s between looks for a missing device
ANY_PORT = {"range": [0, 65535]}


def addr_expr(net):
    if net.prefixlen == net.max_prefixlen:
        return str(net.network_address)
    return {"prefix": {"addr": str(net.network_address),
                       "len": net.prefixlen}}


def net_of(expr):
    """An address or prefix as nft -j writes it, or an interval of one
    address ({"range": [a, a]})."""
    if isinstance(expr, dict) and "prefix" in expr:
        return ipaddress.ip_network("%s/%d" % (expr["prefix"]["addr"],
                                               expr["prefix"]["len"]))
    if isinstance(expr, dict) and "range" in expr:
        lo, hi = expr["range"]
        if lo != hi:
            raise ValueError("not a prefix: %r" % expr)
        expr = lo
    return ipaddress.ip_network(expr)


def proto_of(value):
    if isinstance(value, int):
        return value
    try:
        return socket.getprotobyname(value)
    except OSError:
        return {"tcp": 6, "udp": 17, "icmp": 1, "ipv6-icmp": 58,
                "icmpv6": 58, "sctp": 132, "gre": 47}[value]


def match(proto, field, right):
    return {"match": {"op": "==", "right": right,
                      "left": {"payload": {"protocol": proto,
                                           "field": field}}}}


class NftBackend(Backend):
    name = "nftables"

    def __init__(self, devices, table="dfs_guard", renew_every=10.0,
                 nft=None, **kw):
        super().__init__(**kw)
        self.devices = list(devices)
        self.table = table
        self.renew_every = renew_every
        self.timeout = int(4 * renew_every) + 1
        self.limits = {}             # aggregate Rule -> its limit's name
        self.missing = set()         # configured interfaces not there
        self.hooked = set()
        self.looked = 0.0
        self.limit_seq = 0
        self.lock = threading.Lock()  # the scrape reads counters()
        self.nft = nft
        if self.nft is None and not self.dry_run:
            import nftables
            self.nft = nftables.Nftables()
        if self.nft is not None:
            self.nft.set_json_output(True)
            self.nft.set_handle_output(True)

    def run(self, cmds, echo=False):
        """One transaction; with ECHO, what it added."""
        with self.lock:
            self.nft.set_echo_output(echo)
            rc, out, err = self.nft.json_cmd({"nftables": cmds})
        if rc:
            raise BackendError(err.strip() if err else "rc %d" % rc)
        if isinstance(out, str):
            out = json.loads(out) if out.strip() else {}
        return out or {}

    def tbl(self, **obj):
        return dict(family="netdev", table=self.table, **obj)

    def listing(self):
        """The table as nft -j lists it, [] if there is none."""
        try:
            out = self.run([{"list": {"table": {"family": "netdev",
                                                "name": self.table}}}])
        except BackendError:
            return []
        return out.get("nftables", [])

    # --- the table ---
    def chain_rules(self, dev):
        chain = "in_" + dev
        for (kind, v), (name, _) in SETS.items():
            p = PROTO[v]
            left = {"payload": {"protocol": p, "field": "saddr"}}
            if kind == "pair":
                left = {"concat": [left, {"payload": {
                    "protocol": p, "field": "daddr"}}]}
            yield self.tbl(chain=chain, expr=[
                {"match": {"op": "==", "left": left, "right": "@" + name}},
                {"counter": None}, {"drop": None}])
        for (port, v), (name, _) in MAPS.items():
            key = {"payload": {"protocol": PROTO[v], "field": "daddr"}}
            if port:
                key = {"concat": [key, {"meta": {"key": "l4proto"}},
                                  {"payload": {"protocol": "th",
                                               "field": "dport"}}]}
            yield self.tbl(chain=chain, expr=[
                {"limit": {"map": {"key": key, "data": "@" + name}}},
                {"counter": None}, {"drop": None}])

    def present(self):
        """The configured interfaces that exist now; a missing one is
        warned about, once, and hooked when it appears (a PPP or VLAN
        interface made after the daemon started)."""
        out = []
        for dev in self.devices:
            try:
                socket.if_nametoindex(dev)
                out.append(dev)
                self.missing.discard(dev)
            except OSError:
                if dev not in self.missing:
                    log.warning("nftables.interfaces: %s: no such device; "
                                "hooked when it appears", dev)
                    self.missing.add(dev)
        return out

    def sync(self, wanted, now):
        if self.missing and not self.dry_run and \
                now - self.looked >= DEVICE_RECHECK:
            self.looked = now
            if set(self.present()) - self.hooked:
                try:
                    self.start()     # the same table, one more chain
                except BackendError as e:
                    log.error("nftables: hooking %s: %s",
                              ", ".join(sorted(self.missing)), e)
                self.found = []      # ours already
        super().sync(wanted, now)

    def start(self):
        """Make the table, or bring the one a predecessor left to this
        configuration, in one transaction; what its sets and maps hold
        is kept, in self.found for take_over()."""
        self.found = []
        if self.dry_run:
            return
        devices = self.present()
        old = self.listing()
        have = {}                    # set or map name -> its type, data
        chains, limits = set(), set()
        for item in old:
            for what in ("set", "map"):
                if what in item:
                    o = item[what]
                    have[o["name"]] = (o["type"], o.get("map"), o)
            if "chain" in item:
                chains.add(item["chain"]["name"])
            if "limit" in item:
                limits.add(item["limit"]["name"])
        cmds = [{"add": {"table": {"family": "netdev", "name": self.table}}}]
        wanted_chains = {"in_" + d for d in devices}
        for c in sorted(chains):
            cmds.append({"flush" if c in wanted_chains else "delete":
                         {"chain": self.tbl(name=c)}})
        kept_limits = set()
        sets = [(n, t, None) for n, t in SETS.values()] + \
            [(n, t, "limit") for n, t in MAPS.values()]
        for name, typ, data in sets:
            h = have.get(name)
            if h and h[0] == typ and h[1] == data:
                self.adopt(name, h[2], kept_limits)
                continue
            if h:
                cmds.append({"delete": {"map" if h[1] else "set":
                                        self.tbl(name=name)}})
            obj = self.tbl(name=name, type=typ, flags=["timeout"])
            if data:
                obj.update(map=data, flags=["interval", "timeout"])
            cmds.append({"add": {"map" if data else "set": obj}})
        for lim in sorted(limits - kept_limits):
            cmds.append({"delete": {"limit": self.tbl(name=lim)}})
        for dev in devices:
            cmds.append({"add": {"chain": self.tbl(
                name="in_" + dev, type="filter", hook="ingress", dev=dev,
                prio=-500, policy="accept")}})
            cmds += [{"add": {"rule": r}} for r in self.chain_rules(dev)]
        self.run(cmds)
        self.hooked = set(devices)
        self.limit_seq = max([self.limit_seq] + [
            int(n[3:]) for n in kept_limits if n[3:].isdigit()])
        unit = {"bytes": 1, "kbytes": 1024, "mbytes": 1024 ** 2}
        rates = {i["limit"]["name"]: i["limit"].get("rate", 0) *
                 unit.get(i["limit"].get("rate_unit", "bytes"), 1)
                 for i in old if "limit" in i}
        for r, lim in list(self.limits.items()):
            # the rate is the limit's: an aggregate keeps it
            if r not in self.found or r.rate:
                continue
            self.found.remove(r)
            r2 = Rule(r.version, dst=r.dst, proto=r.proto, dport=r.dport,
                      rate=rates.get(lim, 0))
            del self.limits[r]
            self.limits[r2] = lim
            self.found.append(r2)

    def adopt(self, name, obj, kept_limits):
        """The rules a kept set or map holds, in self.found."""
        for e in obj.get("elem", []):
            try:
                if isinstance(e, list):          # a map: [key, data]
                    e, lim = e
                    kept_limits.add(lim)
                else:
                    lim = None
                val = e["elem"]["val"] if isinstance(e, dict) and \
                    "elem" in e else e
                self.found.append(self.rule_of(name, val, lim))
            except (KeyError, ValueError, TypeError):
                continue                 # not ours to read: it expires

    def rule_of(self, name, val, lim):
        if name.startswith("agg"):
            parts = val["concat"] if isinstance(val, dict) and \
                "concat" in val else [val]
            dst = net_of(parts[0])
            proto = dport = None
            if len(parts) == 3:
                proto = proto_of(parts[1])
                dport = None if parts[2] == ANY_PORT or \
                    isinstance(parts[2], dict) else int(parts[2])
            r = Rule(dst.version, dst=dst, proto=proto, dport=dport)
            self.limits[r] = lim
            return r
        if isinstance(val, dict) and "concat" in val:
            src, dst = (net_of(x) for x in val["concat"])
            return Rule(src.version, src=src, dst=dst)
        src = net_of(val)
        return Rule(src.version, src=src)

    def stop(self):
        if self.dry_run or self.nft is None:
            return
        try:
            self.run([{"delete": {"table": {"family": "netdev",
                                            "name": self.table}}}])
        except BackendError:
            pass

    # --- rules ---
    def elem(self, rule, timeout=True):
        if rule.kind == "aggregate":
            val = addr_expr(rule.dst)
            if rule.proto is not None:
                val = {"concat": [val, rule.proto,
                                  ANY_PORT if rule.dport is None
                                  else rule.dport]}
        elif rule.kind == "pair":
            val = {"concat": [str(rule.src.network_address),
                              str(rule.dst.network_address)]}
        else:
            val = str(rule.src.network_address)
        e = {"val": val}
        if timeout:
            e["timeout"] = self.timeout
        e = {"elem": e}
        if rule.kind == "aggregate":
            return [e, self.limits[rule]]
        return e

    def set_of(self, rule):
        if rule.kind == "aggregate":
            return MAPS[(rule.proto is not None, rule.version)][0]
        return SETS[(rule.kind, rule.version)][0]

    def element_cmds(self, op, rules, timeout=True):
        by_set = {}
        for r in rules:
            by_set.setdefault(self.set_of(r), []).append(
                self.elem(r, timeout))
        return [{op: {"element": self.tbl(name=name, elem=elems)}}
                for name, elems in sorted(by_set.items())]

    def add(self, rules):
        cmds = []
        names = {}
        for r in rules:
            if r.kind == "aggregate" and r not in self.limits:
                self.limit_seq += 1
                names[r] = "agg%d" % self.limit_seq
                cmds.append({"add": {"limit": self.tbl(
                    name=names[r], rate=max(1, r.rate), per="second",
                    rate_unit="bytes", inv=True)}})
        self.limits.update(names)
        try:
            self.run(cmds + self.element_cmds("add", rules))
        except BackendError:
            for r in names:
                del self.limits[r]
            raise

    def remove(self, rules):
        cmds = self.element_cmds("delete", rules, timeout=False)
        # after the elements that name them
        cmds += [{"delete": {"limit": self.tbl(name=self.limits[r])}}
                 for r in rules if r in self.limits]
        try:
            self.run(cmds)
        except BackendError:
            # an element that expired makes the whole batch fail: take
            # what is left of them one by one
            for c in cmds:
                try:
                    self.run([c])
                except BackendError:
                    pass
        for r in rules:
            self.limits.pop(r, None)

    def renew(self, rules):
        cmds = self.element_cmds("delete", rules, timeout=False) + \
            self.element_cmds("add", rules)
        try:
            self.run(cmds)
        except BackendError:
            # one expired already (the daemon was stalled): add them back
            self.run(self.element_cmds("add", rules))

# --- for metrics ---
    def counters(self):
        """Packets and bytes each ingress rule dropped: {(dev, what):
        (packets, bytes)}, "what" a set's name or "aggregate"."""
        if self.dry_run:
            return {}
        out = self.run([{"list": {"table": {"family": "netdev",
                                            "name": self.table}}}],
                       echo=False)
        res = {}
        for item in out.get("nftables", []):
            rule = item.get("rule") if isinstance(item, dict) else None
            if not rule:
                continue
            what, c = "aggregate", None
            for e in rule.get("expr", []):
                m = e.get("match")
                if m and isinstance(m.get("right"), str) and \
                        m["right"].startswith("@"):
                    what = m["right"][1:]
                if "counter" in e:
                    c = e["counter"]
            if c is None:
                continue
            k = (rule["chain"][3:], what)
            p, b = res.get(k, (0, 0))
            res[k] = (p + c.get("packets", 0), b + c.get("bytes", 0))
        return res
