# SPDX-License-Identifier: GPL-2.0
"""What every backend shares: the rails between the rules the policy
wants and the rules an engine is given.

- a cap on the rules it holds: past it, the rules with the most keys
  and rate behind them win, aggregates first, and the rest are refused;
- a bounded rate of changes (a token bucket): an upstream router takes
  announcements at a pace, and a flapping key must not make BGP flap;
  a change past it waits for the next tick.  Withdrawals are never held
  back: they only take state away;
- dry run: the changes are logged and counted, the engine untouched;
- CPR's verdicts alone (a flow this router judged too slow to share,
  not a flood) are left to DFS's queue unless the operator gives them
  to the backend (its "cpr"): CPR can be wrong about a TCP flow that a
  flood squeezes, DFS judges that flow again with each packet, and a
  rule at ingress would hide its packets from DFS, so the mistake would
  last until DFS prunes the flow.  A rule already in place for another
  reason stays while its key is flagged;
- backoff: after a batch fails the engine is left alone for a second,
  then twice as long after each failure in a row, up to a minute, so a
  broken engine gets a try and an error line a minute, not every tick.

A backend implements add(rules), remove(rules) and, if its rules expire
on their own (nftables' timeouts), renew(rules); each takes a list and
does it in one batch, raising BackendError on failure, after which the
rules it was given count as not done and are tried again.

What a predecessor left in the engine (a daemon that restarted, crashed
or reloaded) start() puts in self.found, and take_over() makes it this
daemon's: each rule is held on, as if DFS had just let its key go, for
the hold time, or for as long as the policy wants it.  A source dropped
at ingress is idle to DFS, which forgets it: the new daemon cannot learn
from a dump that the source still floods, and a rule it dropped at once
would let the flood in until DFS flagged it again.
"""
import logging
import time

from .policy import RuleInfo

log = logging.getLogger("dfs-guard")

SLOW_BATCH = 1.0                 # s: a batch that took longer is logged
BACKOFF_MIN = 1.0                # s: the wait after a failed batch,
BACKOFF_MAX = 60.0               # doubled for each failure in a row


class BackendError(Exception):
    pass


def importance(item):
    rule, info = item
    return (rule.kind != "aggregate", -info.keys, -info.rate,
            info.since if info.since is not None else 0, rule)


class Backend:
    name = "backend"
    renew_every = None               # s, for rules that expire

    def __init__(self, max_rules=1000, changes_per_s=10.0, burst=50,
                 dry_run=True, metrics=None, cpr=False):
        self.max_rules = max_rules
        self.cpr = cpr               # act on CPR's verdicts alone too
        self.left = set()            # rules left to DFS, said once
        self.changes_per_s = changes_per_s
        self.burst = burst
        self.tokens = float(burst)
        self.last = None
        self.dry_run = dry_run
        self.metrics = metrics
        self.installed = {}          # Rule -> time added or renewed
        self.failures = 0            # failed batches in a row
        self.retry_at = None         # no batch before this, after one
        self.found = []              # what start() found in the engine
        self.wanted = {}             # the last sync's: add() may look
        self.inherited = {}          # Rule -> held on until then

    # --- what an engine implements ---
    def add(self, rules):
        raise NotImplementedError

    def remove(self, rules):
        raise NotImplementedError

    def renew(self, rules):
        pass

    def start(self):
        pass

    def stop(self):
        pass

    def take_over(self, now, hold):
        """Hold what start() found for HOLD seconds from NOW; a rule
        that expires on its own is renewed at the first sync."""
        age = self.renew_every or 0.0
        for r in self.found:
            self.installed[r] = now - age
            self.inherited[r] = now + hold
        if self.found:
            log.info("%s: took over %d rules a predecessor left",
                     self.name, len(self.found))
        self.found = []

    # --- the rails ---
    def acts_on(self, rule, info):
        """Whether the engine is given RULE: not a verdict of CPR alone
        unless the operator said so."""
        if self.cpr or not info.reasons or not info.reasons <= {"cpr"}:
            return True
        if rule not in self.left:
            self.left.add(rule)
            log.info("%s: %s: CPR's verdict alone, left to DFS's queue "
                     "(%s.cpr)", self.name, rule, self.name)
        return False

    def count(self, what, n=1, **labels):
        if self.metrics and n:
            self.metrics.count(what, n, backend=self.name, **labels)

    def refill(self, now):
        if self.last is not None:
            self.tokens = min(self.burst, self.tokens +
                              (now - self.last) * self.changes_per_s)
        self.last = now

    def _do(self, op, rules, action, now=None):
        """One batch; each rule logged once it is done (in dry run, what
        would have been done).  A failure backs off (NOW: the tick's
        time; None, at close, does not)."""
        if not rules:
            return True
        if not self.dry_run:
            t0 = time.monotonic()
            try:
                op(rules)
            except BackendError as e:
                self.count("errors", action=action)
                if now is None:
                    log.error("%s: %s of %d rules failed: %s", self.name,
                              action, len(rules), e)
                    return False
                self.failures += 1
                wait = min(BACKOFF_MAX,
                           BACKOFF_MIN * 2 ** (self.failures - 1))
                self.retry_at = now + wait
                log.error("%s: %s of %d rules failed: %s (next try in "
                          "%.0f s)", self.name, action, len(rules), e, wait)
                return False
            self.failures = 0
            self.retry_at = None
            took = time.monotonic() - t0
            if took > SLOW_BATCH:
                # a rule's delay an operator sees, not DFS's
                log.warning("%s: a batch of %d rules (%s) took %.2f s",
                            self.name, len(rules), action, took)
        for r in rules:
            log.log(logging.DEBUG if action == "renew" else logging.INFO,
                    "%s%s: %s %s", "dry run: " if self.dry_run else "",
                    self.name, action, r)
        self.count("actions", len(rules), action=action)
        return True

    def sync(self, wanted, now):
        """Bring the engine towards WANTED ({Rule: RuleInfo})."""
        self.refill(now)
        self.left &= set(wanted)     # said again if it comes back
        wanted = {r: i for r, i in wanted.items()
                  if r in self.installed or self.acts_on(r, i)}
        for r, until in list(self.inherited.items()):
            if now >= until:
                del self.inherited[r]
            elif r not in wanted:
                wanted = dict(wanted)
                wanted[r] = RuleInfo()
        self.wanted = wanted
        if self.retry_at is None or now >= self.retry_at:
            self._sync(wanted, now)
        if self.metrics:
            kinds = {}
            for r in self.installed:
                kinds[r.kind] = kinds.get(r.kind, 0) + 1
            self.metrics.rules(self.name, kinds)

    def _sync(self, wanted, now):
        ranked = sorted(wanted.items(), key=importance)
        keep = dict(ranked[:self.max_rules])
        self.count("refused", len(ranked) - len(keep), reason="cap")
        gone = [r for r in self.installed if r not in keep]
        if not self._do(self.remove, gone, "remove", now):
            return
        for r in gone:
            del self.installed[r]
        new = [r for r, _ in ranked if r in keep and r not in self.installed]
        room = int(self.tokens)
        self.count("refused", max(0, len(new) - room), reason="rate")
        new = new[:room]
        if not self._do(self.add, new, "add", now):
            return
        if new:
            self.tokens -= len(new)
            for r in new:
                self.installed[r] = now
        if self.renew_every is not None:
            old = [r for r, t in self.installed.items()
                   if now - t >= self.renew_every]
            if old and (self.dry_run or
                        self._do(self.renew, old, "renew", now)):
                for r in old:
                    self.installed[r] = now

    def close(self):
        """Withdraw everything: the daemon stops."""
        self.inherited.clear()
        gone = list(self.installed)
        if self._do(self.remove, gone, "remove"):
            self.installed.clear()
        self.stop()
