# SPDX-License-Identifier: GPL-2.0
"""dfs-guard: follow sch_dfs's verdicts and drive the engines an operator
already runs (nftables, BGP FlowSpec through ExaBGP, Prometheus).

	dfs-guard [-c FILE] [--check] [--timestamps]

Reads FILE (/etc/dfs-guard/dfs-guard.toml), joins the verdict stream,
dumps the DFS qdiscs it follows to learn what they flag now, starts its
backends and serves its metrics; then, every tick, applies the events
that came, asks the policy for the rules they call for and brings each
backend towards them.  SIGTERM or SIGINT: every backend withdraws what
it holds, and it exits.  --check reads the configuration and looks for
each qdisc it names, and changes nothing.
"""
import argparse
import logging
import select
import signal
import sys
import time

from . import config as configmod
from . import qdiscs as qdiscmod

log = logging.getLogger("dfs-guard")
DEFAULT_CONFIG = "/etc/dfs-guard/dfs-guard.toml"


class Guard:
    def __init__(self, cfg, stream, backends, metrics=None,
                 clock=time.monotonic, listing=qdiscmod.listing):
        from .policy import Registry
        self.cfg = cfg
        self.stream = stream
        self.backends = backends
        self.metrics = metrics
        self.clock = clock
        self.listing = listing
        self.registry = Registry()
        self.followed = set(cfg.qdiscs)
        self.stop = False

    def follows(self, qdisc):
        return not self.cfg.qdiscs or qdisc in self.followed

    def resync(self, qdisc, why):
        dumped = self.stream.dump(qdisc)
        self.registry.resync(qdisc, dumped, self.clock())
        if self.metrics:
            self.metrics.count("resyncs", why=why)
        log.info("%s: %d keys flagged (%s)", qdisc, len(dumped), why)

    def known(self):
        return set(self.cfg.qdiscs) | {k.qdisc for k in self.registry.flags}

    def start(self):
        listed = self.listing()
        for p in qdiscmod.problems(self.cfg.qdiscs, listed):
            log.warning("%s", p)
        qdiscs = self.cfg.qdiscs or qdiscmod.followable(listed)
        for q in qdiscs:
            self.resync(q, "start")
        for b in self.backends:
            b.start()

    def handle(self, events):
        """A batch of events, as read from the socket.  A qdisc that lost
        events is dumped once, after the batch, however many LOST events
        it sent: the dump is its state after every event of the batch,
        so its events after the first LOST are not applied either."""
        now = self.clock()
        lost = []
        for ev in events:
            if not self.follows(ev.qdisc):
                continue
            if self.metrics:
                self.metrics.count("events", event=ev.name)
            if ev.name == "lost":
                if self.metrics:
                    self.metrics.lost.inc(ev.lost)
                if ev.qdisc not in lost:
                    lost.append(ev.qdisc)
                continue
            if ev.qdisc in lost:
                continue
            if ev.key is not None:
                log.info("%s %s%s", ev.name, ev.key,
                         " (%s)" % ",".join(sorted(ev.reasons))
                         if ev.reasons else "")
            self.registry.event(ev, now)
        for q in lost:
            self.resync(q, "lost")

    def tick(self):
        now = self.clock()
        policy = self.cfg.policy
        self.registry.expire(now, policy.hold)
        wanted, held = policy.rules(self.registry, now)
        if self.metrics:
            reasons = {"malicious": 0, "cpr": 0}
            for f in self.registry.flagged().values():
                for r in f.reasons:
                    reasons[r] = reasons.get(r, 0) + 1
            for r, n in reasons.items():
                self.metrics.flagged.labels(reason=r).set(n)
            for why, n in held.items():
                self.metrics.held.labels(why=why).set(n)
        for b in self.backends:
            b.sync(wanted, now)

    def run(self):
        from .stream import Overrun
        self.start()
        while not self.stop:
            try:
                ready, _, _ = select.select([self.stream], [], [],
                                            self.cfg.tick)
            except InterruptedError:
                continue
            if ready:
                try:
                    self.handle(self.stream.events())
                except Overrun:
                    log.warning("the verdict socket overran: dumping")
                    for q in self.known():
                        self.resync(q, "overrun")
            self.tick()
        for b in self.backends:
            b.close()
        self.stream.close()


def check(path, cfg):
    """--check: 0 ok, 1 a qdisc the configuration names is no DFS."""
    listed = qdiscmod.listing()
    bad = qdiscmod.problems(cfg.qdiscs, listed)
    for p in bad:
        print("dfs-guard: %s: %s" % (path, p), file=sys.stderr)
    if bad:
        return 1
    if cfg.qdiscs:
        what = "follows %d qdisc%s" % (len(cfg.qdiscs),
                                       "s" if len(cfg.qdiscs) > 1 else "")
    else:
        what = "follows every DFS qdisc (%d now)" % len(
            qdiscmod.followable(listed))
    print("dfs-guard: %s: ok, %s%s" % (path, what, ", dry run"
                                       if cfg.dry_run else ""))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="dfs-guard", description=__doc__
                                 .split("\n\n")[0])
    ap.add_argument("-c", "--config", default=DEFAULT_CONFIG)
    ap.add_argument("--check", action="store_true",
                    help="read the configuration, look for the qdiscs it "
                    "names, say what is wrong, exit")
    ap.add_argument("--timestamps", action="store_true",
                    help="start each log line with the time, seconds since "
                    "the epoch (journald adds its own)")
    args = ap.parse_args(argv)
    try:
        cfg = configmod.load(args.config)
    except configmod.ConfigError as e:
        print("dfs-guard: %s" % e, file=sys.stderr)
        return 2
    if args.check:
        return check(args.config, cfg)
    logging.basicConfig(level=getattr(logging, cfg.log_level.upper(),
                                      logging.INFO),
                        format=("%(created).3f " if args.timestamps
                                else "") + "%(levelname)s %(message)s")
    from .metrics import Metrics
    from .stream import VerdictStream
    backends = []
    metrics = Metrics(backends)
    if cfg.nft:
        from .nft import NftBackend
        backends.append(NftBackend(metrics=metrics, **cfg.nft))
    if cfg.flowspec:
        from .flowspec import FlowSpecBackend
        backends.append(FlowSpecBackend(metrics=metrics, **cfg.flowspec))
    try:
        stream = VerdictStream()
    except Exception as e:      # pyroute2 raises its own, or OSError
        log.error("no verdict stream (is sch_dfs loaded?): %s", e)
        return 1
    guard = Guard(cfg, stream, backends, metrics)

    def stop(*_):
        guard.stop = True
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if cfg.metrics:
        metrics.serve(*cfg.metrics)
    log.info("following %s; backends: %s%s",
             ", ".join(map(str, cfg.qdiscs)) or "every DFS qdisc",
             ", ".join("%s%s" % (b.name, " (dry run)" if b.dry_run else "")
                       for b in backends) or "none",
             "" if backends else " (metrics only)")
    guard.run()
    return 0
