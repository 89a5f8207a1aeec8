# SPDX-License-Identifier: GPL-2.0
"""dfs-guard: follow sch_dfs's verdicts and drive the engines an operator
already runs (nftables, BGP FlowSpec through ExaBGP, Prometheus).

	dfs-guard [-c FILE] [--check] [--dry-run] [--timestamps] [--version]

Reads FILE (/etc/dfs-guard/dfs-guard.toml), joins the verdict stream,
dumps the DFS qdiscs it follows to learn what they flag now, starts its
backends and serves its metrics; then, every tick, applies the events
that came, asks the policy for the rules they call for and brings each
backend towards them.

Its exits: SIGTERM or SIGINT, or an error it cannot go on from: every
backend withdraws what it holds, and it exits.  SIGHUP: it reads the
configuration again and, if it is good, runs itself afresh in the same
process (exec), withdrawing nothing: the new image takes over what the
old left (Backend.take_over()), as after a crash, and so does the code
a package upgrade installed.  A bad configuration is logged and the
daemon goes on as it was.  --check reads the configuration and looks
for each qdisc it names, and changes nothing.
"""
import argparse
import logging
import os
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
        self.reload = False
        self.unsynced = set()        # qdiscs whose dump failed

    def follows(self, qdisc):
        return not self.cfg.qdiscs or qdisc in self.followed

    def resync(self, qdisc, why):
        """Learn QDISC's flagged keys from a dump.  A dump that fails
        (the qdisc went away, netlink refused) is tried again each tick:
        meanwhile what the events said stands."""
        from .stream import DumpError
        try:
            dumped = self.stream.dump(qdisc)
        except DumpError as e:
            if qdisc not in self.unsynced:
                log.warning("%s: no dump (%s): tried again each tick",
                            qdisc, e)
            self.unsynced.add(qdisc)
            return
        self.unsynced.discard(qdisc)
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
        now = self.clock()
        for b in self.backends:
            b.start()
            b.take_over(now, self.cfg.policy.hold)

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
        for q in list(self.unsynced):
            self.resync(q, "retry")
        now = self.clock()
        policy = self.cfg.policy
        if policy.protected is not None:
            policy.protected.refresh(now)
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
        """Until SIGTERM (withdraw, return False) or SIGHUP (return True:
        the caller runs the daemon afresh, and nothing is withdrawn).
        Any other way out withdraws first."""
        from .stream import Overrun
        handover = False
        try:
            self.start()
            while not self.stop and not self.reload:
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
            handover = self.reload and not self.stop
        finally:
            if not handover:
                for b in self.backends:
                    try:
                        b.close()
                    except Exception:       # the next one still withdraws
                        log.exception("%s: withdrawing failed", b.name)
            self.stream.close()
        return handover


def check(path, cfg):
    """--check: 0 ok, 1 a qdisc the configuration names is no DFS, or an
    interface it names is not there."""
    import socket
    listed = qdiscmod.listing()
    bad = qdiscmod.problems(cfg.qdiscs, listed)
    for dev in cfg.nft["devices"] if cfg.nft else []:
        try:
            socket.if_nametoindex(dev)
        except OSError:
            bad.append("nftables.interfaces: %s: no such device (the "
                       "daemon hooks it when it appears)" % dev)
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


def version():
    """The package's version, or the source tree's (git describe)."""
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    if here.startswith("/usr/lib/dfs-guard/"):
        cmd = ["dpkg-query", "-W", "-f", "${Version}", "dfs-guard"]
    else:
        cmd = ["git", "-C", here, "describe", "--tags", "--always",
               "--dirty"]
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=10).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


class JournalFormatter(logging.Formatter):
    """Under systemd (JOURNAL_STREAM set), each line starts with its
    syslog priority, "<4>" for a warning (sd-daemon(3)), which journald
    files it under: journalctl -p warning shows the warnings."""

    PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4,
                logging.ERROR: 3, logging.CRITICAL: 2}

    def format(self, record):
        return "<%d>%s" % (self.PRIORITY.get(record.levelno, 6),
                           super().format(record))


def to_journal():
    """Whether stderr is journald's stream: JOURNAL_STREAM names its
    device and inode (systemd.exec(5)), and a child whose stderr went
    elsewhere inherits the variable all the same."""
    try:
        dev, ino = (int(x) for x in
                    os.environ.get("JOURNAL_STREAM", "").split(":"))
        st = os.fstat(sys.stderr.fileno())
    except (ValueError, OSError):
        return False
    return (st.st_dev, st.st_ino) == (dev, ino)


def setup_logging(level, timestamps):
    handler = logging.StreamHandler()
    if to_journal():
        handler.setFormatter(JournalFormatter(
            ("%(created).3f " if timestamps else "") + "%(message)s"))
    else:
        handler.setFormatter(logging.Formatter(
            ("%(created).3f " if timestamps else "") +
            "%(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper(), logging.INFO))


def join_stream(state, wait=2.0):
    """The verdict stream, once sch_dfs is there to give it: a unit that
    starts before the module waits for it rather than exit and be
    restarted in a loop.  None if told to stop meanwhile."""
    from .stream import VerdictStream
    said = False
    while not state.stop:
        try:
            return VerdictStream()
        except Exception as e:     # pyroute2 raises its own, or OSError
            if not said:
                log.warning("no verdict stream yet (is sch_dfs loaded?): "
                            "%s; trying again every %.0f s", e, wait)
                said = True
        time.sleep(wait)
    return None


class Signals:
    """What the signals asked; installed before anything slow, so that
    a SIGHUP never meets Python's default (which ends the process)."""

    def __init__(self, config):
        self.stop = self.reload = False
        self.config = config
        self.guard = None
        signal.signal(signal.SIGTERM, self.on_stop)
        signal.signal(signal.SIGINT, self.on_stop)
        signal.signal(signal.SIGHUP, self.on_reload)

    def on_stop(self, *_):
        self.stop = True
        if self.guard:
            self.guard.stop = True

    def on_reload(self, *_):
        try:
            configmod.load(self.config)
        except configmod.ConfigError as e:
            log.error("SIGHUP: %s: going on as before", e)
            return
        self.reload = True
        if self.guard:
            self.guard.reload = True


def main(argv=None):
    ap = argparse.ArgumentParser(prog="dfs-guard", description=__doc__
                                 .split("\n\n")[0])
    ap.add_argument("-c", "--config", default=DEFAULT_CONFIG)
    ap.add_argument("--check", action="store_true",
                    help="read the configuration, look for the qdiscs it "
                    "names, say what is wrong, exit")
    ap.add_argument("--dry-run", action="store_true",
                    help="every backend in dry run, whatever the "
                    "configuration says")
    ap.add_argument("--timestamps", action="store_true",
                    help="start each log line with the time, seconds since "
                    "the epoch (journald adds its own)")
    ap.add_argument("--version", action="store_true",
                    help="print the version and exit")
    args = ap.parse_args(argv)
    if args.version:
        print("dfs-guard %s" % version())
        return 0
    sig = Signals(args.config)
    try:
        cfg = configmod.load(args.config)
    except configmod.ConfigError as e:
        print("dfs-guard: %s" % e, file=sys.stderr)
        return 2
    if args.dry_run:
        cfg.dry_run = True
        for section in (cfg.nft, cfg.flowspec):
            if section:
                section["dry_run"] = True
    if args.check:
        return check(args.config, cfg)
    setup_logging(cfg.log_level, args.timestamps)
    from .metrics import Metrics
    backends = []
    metrics = Metrics(backends)
    if cfg.nft:
        from .nft import NftBackend
        backends.append(NftBackend(metrics=metrics, **cfg.nft))
    if cfg.flowspec:
        from .flowspec import FlowSpecBackend
        backends.append(FlowSpecBackend(metrics=metrics, **cfg.flowspec))
    stream = join_stream(sig)
    if stream is None:
        return 0
    from .protected import Protected
    cfg.policy.protected = Protected(
        allow=cfg.policy.allow,
        neighbors=[cfg.flowspec["neighbor"]]
        if cfg.flowspec and cfg.flowspec["neighbor"] else [])
    guard = Guard(cfg, stream, backends, metrics)
    guard.stop, guard.reload = sig.stop, sig.reload
    sig.guard = guard
    if cfg.metrics:
        metrics.serve(*cfg.metrics)
    log.info("following %s; backends: %s%s",
             ", ".join(map(str, cfg.qdiscs)) or "every DFS qdisc",
             ", ".join("%s%s" % (b.name, " (dry run)" if b.dry_run else "")
                       for b in backends) or "none",
             "" if backends else " (metrics only)")
    if guard.run():
        log.info("SIGHUP: reloading, rules kept")
        logging.shutdown()
        os.execv(sys.executable, [sys.executable] + sys.argv)
    return 0
