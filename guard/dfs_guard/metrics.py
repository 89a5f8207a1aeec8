# SPDX-License-Identifier: GPL-2.0
"""Prometheus metrics: the daemon's own (events, flagged keys, rules,
actions taken and refused, backend errors), and, read at each scrape,
the counters of the DFS qdiscs it follows (over rtnetlink, pyroute2)
and of its ingress drops (the nftables rules' counters).
"""
import struct
import threading

from prometheus_client import CollectorRegistry, Counter, Gauge, \
    start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

# struct tc_dfs_xstats (linux/pkt_sched_dfs.h): type, pad, then
# struct tc_dfs_qd_stats
XSTATS = struct.Struct("<II8I16Q4I4Q2I2Q")
XSTATS_FIELDS = (
    "type", "pad", "flows", "btree_flows", "cache_flows", "malicious",
    "trending", "active_flows", "btree_height", "wfs", "fair_rate",
    "new_flows", "pruned", "ecn_marked", "drop_overlimit", "drop_malicious",
    "drop_wfs", "flows_overflow", "memory_usage", "fq_flows", "fq_new_flows",
    "codel_drops", "codel_marks", "drop_nomem", "drop_overmemory",
    "queue_memory", "cpr_tau", "cpr_csr", "cpr_flows", "pad1", "cpr_periods",
    "cpr_congested", "drop_cpr", "cpr_surges", "cpr_period", "pad2",
    "fq_queues", "fq_overflow")
# what is exported of them: name, help, counter (else gauge)
QDISC_XSTATS = (
    ("flows", "flows DFS knows", False),
    ("malicious", "flows marked malicious", False),
    ("cpr_flows", "flows held for their CPR", False),
    ("fair_rate", "the fair rate, bytes/s", False),
    ("memory_usage", "bytes of flow state", False),
    ("new_flows", "flows created", True),
    ("pruned", "idle flows forgotten", True),
    ("drop_malicious", "packets of malicious flows dropped", True),
    ("drop_cpr", "packets of flows held for their CPR dropped", True),
    ("drop_overlimit", "packets dropped, buffer full", True),
    ("drop_wfs", "packets dropped over wfs", True),
    ("flows_overflow", "packets of new flows past the flows cap", True),
    ("codel_drops", "packets dropped by CoDel (sched fq)", True),
    ("ecn_marked", "packets ECN marked", True))


def xstats_of(raw):
    """struct tc_dfs_xstats from TCA_XSTATS as pyroute2 gives it."""
    if isinstance(raw, str):
        raw = bytes.fromhex(raw.replace(":", ""))
    if not isinstance(raw, (bytes, bytearray)) or len(raw) < XSTATS.size:
        return None
    return dict(zip(XSTATS_FIELDS, XSTATS.unpack_from(raw)))


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
