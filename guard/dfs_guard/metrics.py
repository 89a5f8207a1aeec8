# SPDX-License-Identifier: GPL-2.0
"""Prometheus metrics: the daemon's own (events, flagged keys, rules,
actions taken and refused, backend errors), and, read at each scrape,
the counters of the DFS qdiscs it follows (over rtnetlink, pyroute2)
and of its ingress drops (the nftables rules' counters).
"""
import threading

from prometheus_client import CollectorRegistry, Counter, Gauge, \
    start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from .xstats_layout import XSTATS, XSTATS_FIELDS

# What is exported of struct tc_dfs_qd_stats (tools/xstats.py --check
# fails on a counter neither here nor in NOT_EXPORTED): name, help,
# counter (else gauge).
QDISC_XSTATS = (
    ("flows", "flows DFS knows", False),
    ("malicious", "flows marked malicious", False),
    ("cpr_flows", "flows held for their CPR", False),
    ("fair_rate", "the fair rate, bytes/s", False),
    ("memory_usage", "bytes of flow state", False),
    ("queue_memory", "bytes of queued packets (truesize)", False),
    ("new_flows", "flows created", True),
    ("pruned", "idle flows forgotten", True),
    ("drop_malicious", "packets of malicious flows dropped", True),
    ("drop_cpr", "packets of flows held for their CPR dropped", True),
    ("drop_overlimit", "packets dropped, buffer full", True),
    ("drop_wfs", "packets dropped over wfs", True),
    ("drop_overmemory", "packets dropped, queued skbs at memory_limit",
     True),
    ("drop_nomem", "packets dropped, no memory for a flow's queue", True),
    ("flows_overflow", "packets of new flows past the flows cap", True),
    ("codel_drops", "packets dropped by CoDel (sched fq)", True),
    ("codel_marks", "packets CE marked by CoDel (sched fq)", True),
    ("ecn_marked", "packets ECN marked", True),
    ("drop_shared", "dfs_mq: packets of a key another tx queue flagged",
     True),
    ("mq_unshared", "dfs_mq: keys flagged that the root's table of marks "
     "had no room for", True))
# and why the others are not
NOT_EXPORTED = {
    "btree_flows": "flows less cache_flows: where a flow is kept",
    "cache_flows": "where a flow is kept; malicious has the count",
    "trending": "a step towards malicious, which is exported",
    "active_flows": "n of Eq. (1), weighed: the fair rate says it",
    "btree_height": "the tree's shape, for the benchmark",
    "wfs": "moves every packet; the fair rate is the level to watch",
    "fq_flows": "sched fq's bookkeeping",
    "fq_new_flows": "sched fq's bookkeeping",
    "fq_queues": "sched fq's bookkeeping",
    "fq_overflow": "sched fq's bookkeeping",
    "fq_boosts": "sched fq's bookkeeping",
    "cpr_tau": "a level CPR adapts by itself; cpr_flows is the outcome",
    "cpr_csr": "the input of tau, as cpr_tau",
    "cpr_periods": "CPR's clock",
    "cpr_congested": "CPR's clock",
    "cpr_surges": "CPR's clock",
    "cpr_period": "a setting, shown by tc",
    "index_flows": "the hash index's fill, for the benchmark",
    "index_buckets": "the hash index's size, for the benchmark",
}


# The xstats of the oldest module dfs-guard reads: up to fq_overflow.
XSTATS_MIN = 240


def xstats_of(raw):
    """struct tc_dfs_xstats from TCA_XSTATS as pyroute2 gives it; the
    counters an older module does not send are 0."""
    if isinstance(raw, str):
        raw = bytes.fromhex(raw.replace(":", ""))
    if not isinstance(raw, (bytes, bytearray)) or len(raw) < XSTATS_MIN:
        return None
    raw = bytes(raw[:XSTATS.size]).ljust(XSTATS.size, b"\0")
    return dict(zip(XSTATS_FIELDS, XSTATS.unpack(raw)))


def qdisc_label(handle, parent):
    """A qdisc's handle as tc writes it ("1:"); the queues of dfs_mq,
    which all have handle 0, by the class they sit in ("1:2")."""
    if handle:
        return "%x:" % (handle >> 16)
    return "%x:%x" % (parent >> 16, parent & 0xffff)


class QdiscCollector:
    """The counters of every DFS qdisc, read when Prometheus scrapes."""

    def __init__(self, backends):
        self.backends = backends
        self.lock = threading.Lock()

    def qdiscs(self):
        from pyroute2 import IPRoute
        out = []
        with IPRoute() as ipr:
            names = {link["index"]: link.get_attr("IFLA_IFNAME")
                     for link in ipr.get_links()}
            for q in ipr.get_qdiscs():
                if q.get_attr("TCA_KIND") != "dfs":
                    continue
                s2 = q.get_attr("TCA_STATS2")
                basic = s2.get_attr("TCA_STATS_BASIC") if s2 else None
                queue = s2.get_attr("TCA_STATS_QUEUE") if s2 else None
                out.append((names.get(q["index"], str(q["index"])),
                            qdisc_label(q["handle"], q["parent"]), basic,
                            queue, xstats_of(q.get_attr("TCA_XSTATS"))))
        return out

    def collect(self):
        with self.lock:
            yield from self._collect()

    def _collect(self):
        labels = ["dev", "handle"]
        fams = {
            "bytes": CounterMetricFamily("dfs_qdisc_sent_bytes",
                                         "bytes the qdisc sent",
                                         labels=labels),
            "packets": CounterMetricFamily("dfs_qdisc_sent_packets",
                                           "packets the qdisc sent",
                                           labels=labels),
            "drops": CounterMetricFamily("dfs_qdisc_dropped_packets",
                                         "packets the qdisc dropped",
                                         labels=labels),
            "backlog": GaugeMetricFamily("dfs_qdisc_backlog_bytes",
                                         "bytes queued", labels=labels)}
        x = {}
        for name, hlp, counter in QDISC_XSTATS:
            cls = CounterMetricFamily if counter else GaugeMetricFamily
            x[name] = cls("dfs_qdisc_" + name, hlp, labels=labels)
        try:
            qdiscs = self.qdiscs()
        except OSError:
            qdiscs = []
        for dev, handle, basic, queue, xs in qdiscs:
            lv = [dev, handle]
            if basic:
                fams["bytes"].add_metric(lv, basic["bytes"])
                fams["packets"].add_metric(lv, basic["packets"])
            if queue:
                fams["drops"].add_metric(lv, queue["drops"])
                fams["backlog"].add_metric(lv, queue["backlog"])
            if xs:
                for name, _, _ in QDISC_XSTATS:
                    x[name].add_metric(lv, xs[name])
        yield from fams.values()
        yield from x.values()
        pk = CounterMetricFamily("dfs_guard_ingress_dropped_packets",
                                 "packets dropped at ingress by the "
                                 "daemon's rules", labels=["dev", "set"])
        by = CounterMetricFamily("dfs_guard_ingress_dropped_bytes",
                                 "bytes dropped at ingress by the "
                                 "daemon's rules", labels=["dev", "set"])
        for b in self.backends:
            counters = getattr(b, "counters", None)
            if counters is None:
                continue
            try:
                for (dev, what), (p, n) in counters().items():
                    pk.add_metric([dev, what], p)
                    by.add_metric([dev, what], n)
            except Exception:   # a scrape must not kill the daemon
                continue
        yield pk
        yield by


class Metrics:
    def __init__(self, backends=()):
        self.registry = CollectorRegistry()
        r = self.registry
        self.events = Counter("dfs_guard_events", "verdict stream messages",
                              ["event"], registry=r)
        self.lost = Counter("dfs_guard_lost_events",
                            "events the kernel could not send", registry=r)
        self.resyncs = Counter("dfs_guard_resyncs",
                               "dumps of a qdisc's flagged keys", ["why"],
                               registry=r)
        self.flagged = Gauge("dfs_guard_flagged_keys",
                             "keys DFS flags now", ["reason"], registry=r)
        self.held = Gauge("dfs_guard_held_keys",
                          "flagged keys given no rule yet or ever",
                          ["why"], registry=r)
        self.rule_count = Gauge("dfs_guard_rules", "rules a backend holds",
                                ["backend", "kind"], registry=r)
        self.actions = Counter("dfs_guard_actions",
                               "rules added, removed, renewed",
                               ["backend", "action"], registry=r)
        self.refused = Counter("dfs_guard_refused",
                               "rules a rail held back", ["backend",
                                                          "reason"],
                               registry=r)
        self.errors = Counter("dfs_guard_backend_errors",
                              "batches an engine refused",
                              ["backend", "action"], registry=r)
        self.collector = QdiscCollector(backends)
        r.register(self.collector)

    def count(self, what, n=1, **labels):
        getattr(self, what).labels(**labels).inc(n)

    def rules(self, backend, kinds):
        for kind in ("source", "pair", "aggregate"):
            self.rule_count.labels(backend=backend, kind=kind).set(
                kinds.get(kind, 0))

    def serve(self, addr, port):
        start_http_server(port, addr=addr, registry=self.registry)
