# SPDX-License-Identifier: GPL-2.0
"""From what DFS flags to the rules a backend should hold: the keys DFS
flags now (the Registry, fed by events and dumps), and the operator's
rails that stand between a verdict and a filter (the Policy).

Pure: no socket, no clock of its own (every call takes "now", seconds
of a monotonic clock), so test_policy.py drives it with made-up events.

A rule drops one source (key src), or one source towards one
destination (key srcdst, 5tuple), at once; many sources towards one
destination become one aggregate that limits the rate towards it, and
so does the overflow flow (the new keys past DFS's "flows" cap: a
spoofed flood), whose addresses DFS does not keep, towards the prefixes
the operator says the qdisc protects.  A router upstream then carries a
handful of rules, never one a spoofed source.
"""
import ipaddress
import logging
from dataclasses import dataclass, field

from .verdict import describe

log = logging.getLogger("dfs-guard")
NOTE_EVERY = 3600.0                  # s between two warnings of one address


@dataclass(frozen=True, order=True)
class Rule:
    """A filter: drop what matches, or limit it to RATE bytes/s."""
    version: int                     # 4 or 6
    src: ipaddress._BaseNetwork = None
    dst: ipaddress._BaseNetwork = None
    proto: int = None
    dport: int = None
    rate: int = 0                    # 0: drop

    @property
    def kind(self):
        if self.src is None:
            return "aggregate"
        return "source" if self.dst is None else "pair"

    def __str__(self):
        return " ".join(describe(self.src, self.dst, self.proto, self.dport)
                        + ["rate %d B/s" % self.rate if self.rate
                           else "drop"])


@dataclass
class RuleInfo:
    """Why a rule is wanted: the flagged keys behind it."""
    keys: int = 0
    since: float = None              # the oldest of them flagged since
    rate: int = 0                    # their rates' sum, bytes/s
    reasons: set = field(default_factory=set)  # "malicious", "cpr"
    # what the qdiscs that flagged a source protect: the destinations
    # an upstream rule for it names (RFC 8955 validation wants one)
    scope: set = field(default_factory=set)


@dataclass
class Flag:
    """A key's episode: flagged at since, then let go and flagged again
    any number of times, each break shorter than the hold time."""
    since: float                     # the episode's first flag
    stretch: float                   # the current flag's start
    reasons: frozenset = frozenset()
    rate: int = 0
    released: float = None          # when DFS let it go
    before: float = 0.0             # s flagged before that one

    def flagged_for(self, now):
        """Seconds flagged in the episode, up to NOW."""
        end = self.released if self.released is not None else now
        return self.before + max(0.0, end - self.stretch)


class Registry:
    """The keys DFS flags, and those it let go within the hold time."""

    def __init__(self):
        self.flags = {}

    def event(self, ev, now):
        """Apply one event of the verdict stream (verdict.Event)."""
        if ev.name == "flag":
            self.flag(ev.key, ev.reasons, ev.rate, now)
        elif ev.name == "release":
            f = self.flags.get(ev.key)
            if f and f.released is None:
                f.released = now
        elif ev.name == "flush":
            self.release_qdisc(ev.qdisc, now, keep=(), queue=ev.queue)

    def flag(self, key, reasons, rate, now):
        """A key DFS let go and flags again before expire() forgets it
        (within the hold time) goes on with its episode: a verdict DFS
        gives and takes back in turn adds up towards min_flagged."""
        f = self.flags.get(key)
        if f is None:
            f = self.flags[key] = Flag(now, now)
        elif f.released is not None:
            f.before = f.flagged_for(now)
            f.stretch, f.released = now, None
        f.reasons, f.rate = reasons, rate

    def release_qdisc(self, qdisc, now, keep, queue=None):
        """Let go of QDISC's keys but those in KEEP; of one tx queue's
        alone when QUEUE (a dfs_mq queue's FLUSH) is given."""
        for key, f in self.flags.items():
            if key.qdisc == qdisc and key not in keep and \
                    f.released is None and \
                    (queue is None or key.queue == queue):
                f.released = now

    def resync(self, qdisc, dumped, now):
        """A dump of QDISC (its FLAG messages) replaces what the events
        said of it: keys flagged before keep their time."""
        keys = set()
        for ev in dumped:
            keys.add(ev.key)
            self.flag(ev.key, ev.reasons, ev.rate, now)
        self.release_qdisc(qdisc, now, keep=keys)

    def expire(self, now, hold):
        for key in [k for k, f in self.flags.items()
                    if f.released is not None and now - f.released >= hold]:
            del self.flags[key]

    def flagged(self):
        return {k: f for k, f in self.flags.items() if f.released is None}


@dataclass
class Policy:
    allow: list = field(default_factory=list)     # networks never acted on
    min_flagged: float = 2.0         # s flagged before a rule
    hold: float = 30.0               # s a rule stays after DFS lets go
    # Aggregates throttle a destination, the victim with the flood: the
    # operator's choice, off by default, and never under the floor.
    aggregates: bool = False
    aggregate_sources: int = 16      # sources to one destination: aggregate
    aggregate_rate: int = 1250000    # bytes/s an aggregate lets through
    protect: dict = field(default_factory=dict)  # Qdisc -> [networks]
    # the addresses never acted on (protected.Protected: this router's,
    # its gateways, peers and resolvers, and allow); None: allow alone
    protected: object = None
    noted: dict = field(default_factory=dict)    # address -> warned at

    def why_spared(self, addr):
        if addr is None:
            return None
        if self.protected is not None:
            return self.protected.why(addr)
        for n in self.allow:
            if n.version == addr.version and addr in n:
                return "policy.allow %s" % n
        return None

    def allowed(self, addr):
        return self.why_spared(addr) is not None

    def spared(self, key, now):
        """Whether KEY names an address never acted on; a flagged one
        is a warning (once an hour an address): a flood that comes, or
        says it comes, from the router's peer or gateway."""
        for addr in (key.src, key.dst):
            why = self.why_spared(addr)
            if why is None:
                continue
            if now - self.noted.get(addr, -NOTE_EVERY) >= NOTE_EVERY:
                self.noted[addr] = now
                log.warning("%s flagged, not acted on: %s is %s", key,
                            addr, why)
            return True
        return False

    def rules(self, registry, now):
        """The rules the flagged keys call for, and what was held back:
        {Rule: RuleInfo}, {"protected": keys, "waiting": keys}."""
        held = {"protected": 0, "waiting": 0}
        live = []
        for key, f in registry.flags.items():
            if f.released is not None and now - f.released >= self.hold:
                continue
            if f.flagged_for(now) < self.min_flagged:
                # a released key that never got its rule is done
                if f.released is None:
                    held["waiting"] += 1
                continue
            if self.spared(key, now):
                held["protected"] += 1
                continue
            live.append((key, f))
        out = {}

        def want(rule, f, qdisc=None):
            info = out.setdefault(rule, RuleInfo())
            info.keys += 1
            info.rate += f.rate
            info.reasons |= f.reasons
            if qdisc is not None:
                info.scope.update(n for n in self.protect.get(qdisc, [])
                                  if n.version == rule.version)
            info.since = f.since if info.since is None else \
                min(info.since, f.since)

        groups = {}
        for key, f in live:
            if key.overflow:
                if not self.aggregates:
                    continue         # no address to drop, and no throttle
                for net in self.protect.get(key.qdisc, []):
                    if not self.allowed(net.network_address):
                        want(Rule(net.version, dst=net,
                                  rate=self.aggregate_rate), f)
                continue
            if key.version not in (4, 6):
                continue
            if key.src is None:       # key dst: a destination is flagged
                if key.dst is not None:
                    groups.setdefault((key.version, key.dst), []).append(
                        (key, f))
                continue
            groups.setdefault((key.version, key.dst), []).append((key, f))
        for (version, dst), members in groups.items():
            sources = {k.src for k, _ in members if k.src is not None}
            if not sources and not self.aggregates:
                continue             # key dst: a destination alone
            if dst is not None and self.aggregates and \
                    (len(sources) >= self.aggregate_sources or not sources):
                protos = {k.proto for k, _ in members}
                proto = protos.pop() if len(protos) == 1 else None
                ports = {k.dport for k, _ in members}
                dport = ports.pop() if len(ports) == 1 and proto in (6, 17) \
                    else None
                rule = Rule(version, dst=ipaddress.ip_network(dst),
                            proto=proto, dport=dport,
                            rate=self.aggregate_rate)
                for _, f in members:
                    want(rule, f)
                continue
            for key, f in members:
                dst = None if key.mode == "src" or key.dst is None \
                    else ipaddress.ip_network(key.dst)
                want(Rule(version, src=ipaddress.ip_network(key.src),
                          dst=dst), f, key.qdisc if dst is None else None)
        return out, held
