# SPDX-License-Identifier: GPL-2.0
"""The nftables backend: drop at the ingress hook of the interfaces the
operator names, before the packet reaches GRO's end, the IP stack,
conntrack or forwarding, through libnftables (python3-nftables), each
sync one JSON batch: one transaction, however many elements.

Its table is its own (netdev, "dfs_guard" by default), made afresh at
start and deleted at stop:

	set src4, src6    sources (key src), flags timeout
	set pair4, pair6  source . destination (key srcdst, 5tuple)
	chain in_DEV      hook ingress device DEV priority -500:
	                  ip saddr @src4 counter drop, ... @pair6 ...,
	                  then one rule an aggregate (destination, protocol
	                  and port where its keys share them) that limits
	                  its rate: limit name "aggN" drop
	limit aggN        rate over R bytes/second: one an aggregate, which
	                  its rule on every interface shares, so that the
	                  aggregate gets R over all of them, not R each

An element carries a timeout of several renewal periods and is renewed
(deleted and added in one transaction: nftables before Linux 6.10 cannot
update an element's timeout) while its rule is wanted: if the daemon
dies, what it put there expires by itself.
"""
import json
import threading

from .backend import Backend, BackendError

SETS = {("source", 4): ("src4", "ipv4_addr"),
        ("source", 6): ("src6", "ipv6_addr"),
        ("pair", 4): ("pair4", "ipv4_addr . ipv4_addr"),
        ("pair", 6): ("pair6", "ipv6_addr . ipv6_addr")}
PROTO = {4: "ip", 6: "ip6"}


def addr_expr(net):
    if net.prefixlen == net.max_prefixlen:
        return str(net.network_address)
    return {"prefix": {"addr": str(net.network_address),
                       "len": net.prefixlen}}


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
        self.handles = {}            # aggregate Rule -> {dev: handle}
        self.limits = {}             # aggregate Rule -> its limit's name
        self.limit_seq = 0
        self.lock = threading.Lock()  # the scrape reads counters()
        self.nft = nft
        if self.nft is None and not self.dry_run:
            import nftables
            self.nft = nftables.Nftables()
        if self.nft is not None:
            self.nft.set_json_output(True)
            self.nft.set_handle_output(True)
            self.nft.set_echo_output(True)

    def run(self, cmds, echo=True):
        """One transaction; with ECHO, what it added, handles included
        (a list echoes nothing but itself: two documents, not one)."""
        with self.lock:
            self.nft.set_echo_output(echo)
            try:
                rc, out, err = self.nft.json_cmd({"nftables": cmds})
            finally:
                self.nft.set_echo_output(True)
        if rc:
            raise BackendError(err.strip() if err else "rc %d" % rc)
        if isinstance(out, str):
            out = json.loads(out) if out.strip() else {}
        return out or {}

    def tbl(self, **obj):
        return dict(family="netdev", table=self.table, **obj)

    # --- the table ---
    def start(self):
        if self.dry_run:
            return
        cmds = [{"add": {"table": {"family": "netdev", "name": self.table}}},
                {"delete": {"table": {"family": "netdev",
                                      "name": self.table}}},
                {"add": {"table": {"family": "netdev", "name": self.table}}}]
        for (kind, v), (name, typ) in SETS.items():
            cmds.append({"add": {"set": self.tbl(
                name=name, type=typ.split(" . ") if " . " in typ else typ,
                flags=["timeout"])}})
        for dev in self.devices:
            chain = "in_" + dev
            cmds.append({"add": {"chain": self.tbl(
                name=chain, type="filter", hook="ingress", dev=dev,
                prio=-500, policy="accept")}})
            for (kind, v), (name, _) in SETS.items():
                p = PROTO[v]
                left = {"payload": {"protocol": p, "field": "saddr"}}
                if kind == "pair":
                    left = {"concat": [left, {"payload": {
                        "protocol": p, "field": "daddr"}}]}
                cmds.append({"add": {"rule": self.tbl(chain=chain, expr=[
                    {"match": {"op": "==", "left": left,
                               "right": "@" + name}},
                    {"counter": None}, {"drop": None}])}})
        self.run(cmds)

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
        if rule.kind == "pair":
            val = {"concat": [str(rule.src.network_address),
                              str(rule.dst.network_address)]}
        else:
            val = str(rule.src.network_address)
        e = {"val": val}
        if timeout:
            e["timeout"] = self.timeout
        return {"elem": e}

    def element_cmds(self, op, rules, timeout=True):
        by_set = {}
        for r in rules:
            if r.kind == "aggregate":
                continue
            by_set.setdefault(SETS[(r.kind, r.version)][0], []).append(
                self.elem(r, timeout))
        return [{op: {"element": self.tbl(name=name, elem=elems)}}
                for name, elems in sorted(by_set.items())]

    def aggregate_expr(self, rule, limit):
        p = PROTO[rule.version]
        expr = [match(p, "daddr", addr_expr(rule.dst))]
        if rule.proto is not None:
            expr.append({"match": {"op": "==", "right": rule.proto,
                                   "left": {"meta": {"key": "l4proto"}}}})
        if rule.dport is not None:
            expr.append(match("th", "dport", rule.dport))
        expr += [{"limit": limit}, {"counter": None}, {"drop": None}]
        return expr

    def add(self, rules):
        cmds = self.element_cmds("add", rules)
        aggs = [r for r in rules if r.kind == "aggregate"]
        names = {}
        for r in aggs:
            self.limit_seq += 1
            names[r] = "agg%d" % self.limit_seq
            cmds.append({"add": {"limit": self.tbl(
                name=names[r], rate=max(1, r.rate), per="second",
                rate_unit="bytes", inv=True)}})
            for dev in self.devices:
                cmds.append({"add": {"rule": self.tbl(
                    chain="in_" + dev, expr=self.aggregate_expr(r, names[r]),
                    comment="dfs-guard: %s" % r)}})
        out = self.run(cmds)
        self.limits.update(names)
        if aggs:
            self.learn_handles(out, aggs)

    def learn_handles(self, out, aggs):
        """The echo of a batch gives each added rule its handle."""
        by_comment = {"dfs-guard: %s" % r: r for r in aggs}
        for item in out.get("nftables", []):
            rule = item.get("add", {}).get("rule") if isinstance(item, dict) \
                else None
            if not rule or rule.get("comment") not in by_comment:
                continue
            r = by_comment[rule["comment"]]
            self.handles.setdefault(r, {})[rule["chain"][3:]] = \
                rule["handle"]

    def remove(self, rules):
        cmds = self.element_cmds("delete", rules, timeout=False)
        for r in rules:
            for dev, h in self.handles.get(r, {}).items():
                cmds.append({"delete": {"rule": self.tbl(
                    chain="in_" + dev, handle=h)}})
            if r in self.limits:        # after the rules that use it
                cmds.append({"delete": {"limit": self.tbl(
                    name=self.limits[r])}})
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
            self.handles.pop(r, None)
            self.limits.pop(r, None)

    def renew(self, rules):
        els = [r for r in rules if r.kind != "aggregate"]
        if not els:
            return
        cmds = self.element_cmds("delete", els, timeout=False) + \
            self.element_cmds("add", els)
        try:
            self.run(cmds)
        except BackendError:
            # one expired already (the daemon was stalled): add them back
            self.run(self.element_cmds("add", els))

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
