#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""dfs-guard's policy, rails, configuration and event loop, without a
kernel: made-up verdict events, a backend that records what it is told.
The stream and nftables are exercised against the real kernel module
by selftests/guard_nft.sh."""
import ipaddress
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dfs_guard import config, qdiscs, verdict            # noqa: E402
from dfs_guard.backend import Backend, BackendError      # noqa: E402
from dfs_guard.daemon import Guard                       # noqa: E402
from dfs_guard import flowspec                           # noqa: E402
from dfs_guard.policy import Policy, Registry, Rule, RuleInfo  # noqa: E402

Q = verdict.Qdisc(3, 0x10000)
A = ipaddress.ip_address
N = ipaddress.ip_network


def key(src, dst="10.9.0.1", mode="srcdst", **kw):
    a = A(src) if src else None
    return verdict.Key(Q, mode, (a or A(dst)).version, a,
                       A(dst) if dst else None, **kw)


def flag(k, rate=1000, reasons=("malicious",)):
    return verdict.Event(verdict.CMD_FLAG, Q, k, frozenset(reasons), rate)


def release(k):
    return verdict.Event(verdict.CMD_RELEASE, Q, k, cause="judged")


class Recorder(Backend):
    name = "test"

    def __init__(self, fail=False, **kw):
        super().__init__(dry_run=False, **kw)
        self.added, self.removed, self.fail = [], [], fail

    def add(self, rules):
        if self.fail:
            raise BackendError("refused")
        self.added += rules

    def remove(self, rules):
        self.removed += rules


class PolicyTest(unittest.TestCase):
    def test_min_flagged_then_rule(self):
        reg, pol = Registry(), Policy(min_flagged=2.0)
        reg.event(flag(key("10.0.0.1")), 0.0)
        rules, held = pol.rules(reg, 1.0)
        self.assertEqual(rules, {})
        self.assertEqual(held["waiting"], 1)
        rules, _ = pol.rules(reg, 2.5)
        self.assertEqual(list(rules), [Rule(4, src=N("10.0.0.1/32"),
                                            dst=N("10.9.0.1/32"))])

    def test_key_src_drops_the_source(self):
        reg, pol = Registry(), Policy(min_flagged=0)
        reg.event(flag(key("10.0.0.1", None, mode="src")), 0.0)
        self.assertEqual(list(pol.rules(reg, 0)[0]),
                         [Rule(4, src=N("10.0.0.1/32"))])

    def test_flag_again_does_not_restart_the_clock(self):
        reg, pol = Registry(), Policy(min_flagged=2.0)
        k = key("10.0.0.1")
        reg.event(flag(k), 0.0)
        reg.event(flag(k, reasons=("malicious", "cpr")), 1.5)
        self.assertEqual(len(pol.rules(reg, 2.1)[0]), 1)

    def test_allowlist(self):
        reg = Registry()
        pol = Policy(min_flagged=0, allow=[N("10.0.0.0/24"),
                                           N("2001:db8::/32")])
        reg.event(flag(key("10.0.0.1")), 0)
        reg.event(flag(key("2001:db8::5", "2001:db8:9::1")), 0)
        reg.event(flag(key("10.1.0.1", "10.0.0.9")), 0)   # to an allowed dst
        reg.event(flag(key("10.2.0.1")), 0)
        rules, held = pol.rules(reg, 0)
        self.assertEqual(list(rules), [Rule(4, src=N("10.2.0.1/32"),
                                            dst=N("10.9.0.1/32"))])
        self.assertEqual(held["protected"], 3)

    def test_release_holds_then_goes(self):
        reg, pol = Registry(), Policy(min_flagged=0, hold=30)
        k = key("10.0.0.1")
        reg.event(flag(k), 0)
        reg.event(release(k), 10)
        self.assertEqual(len(pol.rules(reg, 39)[0]), 1)
        self.assertEqual(len(pol.rules(reg, 40)[0]), 0)
        reg.expire(40, 30)
        self.assertEqual(reg.flags, {})

    def test_flagged_again_within_hold(self):
        reg, pol = Registry(), Policy(min_flagged=5, hold=30)
        k = key("10.0.0.1")
        reg.event(flag(k), 0)
        reg.event(release(k), 10)
        reg.event(flag(k), 20)              # the same episode: its rule stays
        rules, held = pol.rules(reg, 21)
        self.assertEqual(len(rules), 1)
        self.assertEqual(held["waiting"], 0)

    def test_a_moment_flagged_gets_no_rule(self):
        reg, pol = Registry(), Policy(min_flagged=2.0, hold=30)
        k = key("10.0.0.1")
        reg.event(flag(k), 0.0)
        reg.event(release(k), 0.1)
        rules, held = pol.rules(reg, 5.0)
        self.assertEqual(rules, {})
        self.assertEqual(held["waiting"], 0)

    def test_flapping_adds_up(self):
        # DFS flags and lets go of a key in turn, never min_flagged at
        # once: the stretches add up, and the rule comes after as long
        # flagged in all, not after the last stretch alone.
        reg, pol = Registry(), Policy(min_flagged=0.5, hold=30)
        k = key("10.0.0.1")
        for t in (0.0, 0.4, 0.8):
            reg.event(flag(k), t)
            self.assertEqual(pol.rules(reg, t + 0.05)[0], {})
            reg.event(release(k), t + 0.15)
        reg.event(flag(k), 1.2)
        self.assertEqual(pol.rules(reg, 1.2)[1]["waiting"], 1)  # 0.45 s
        rules, held = pol.rules(reg, 1.26)                  # 0.51 s
        self.assertEqual(len(rules), 1)
        self.assertEqual(held["waiting"], 0)

    def test_forgotten_key_starts_over(self):
        reg, pol = Registry(), Policy(min_flagged=2.0, hold=30)
        k = key("10.0.0.1")
        reg.event(flag(k), 0.0)
        reg.event(release(k), 1.5)
        reg.expire(31.5, 30)
        reg.event(flag(k), 40.0)
        self.assertEqual(pol.rules(reg, 41.0)[1]["waiting"], 1)
        self.assertEqual(len(pol.rules(reg, 42.0)[0]), 1)

    def test_many_sources_one_aggregate(self):
        reg, pol = Registry(), Policy(min_flagged=0, aggregate_sources=16,
                                      aggregates=True, aggregate_rate=125000)
        for i in range(5000):
            reg.event(flag(key("10.%d.%d.%d" % (i >> 16, (i >> 8) & 255,
                                                 i & 255), "10.9.0.7",
                               mode="5tuple", proto=17, dport=53)), 0)
        reg.event(flag(key("10.200.0.1", "10.9.0.8")), 0)
        rules, _ = pol.rules(reg, 0)
        agg = Rule(4, dst=N("10.9.0.7/32"), proto=17, dport=53, rate=125000)
        self.assertEqual(set(rules), {agg, Rule(4, src=N("10.200.0.1/32"),
                                                dst=N("10.9.0.8/32"))})
        self.assertEqual(rules[agg].keys, 5000)

    def test_many_sources_no_aggregate_by_default(self):
        reg, pol = Registry(), Policy(min_flagged=0, aggregate_sources=16)
        for i in range(20):
            reg.event(flag(key("10.0.0.%d" % i, "10.9.0.7")), 0)
        reg.event(flag(key(None, "10.9.0.8", mode="dst")), 0)
        rules, _ = pol.rules(reg, 0)
        self.assertEqual(len(rules), 20)
        self.assertEqual({r.kind for r in rules}, {"pair"})

    def test_aggregate_floor(self):
        with self.assertRaisesRegex(config.ConfigError, "floor"):
            config.parse({"policy": {"aggregate_rate": "999kbit"}})
        cfg = config.parse({"policy": {"aggregates": True}})
        self.assertEqual(cfg.policy.aggregate_rate, 1250000)

    def test_aggregate_without_a_shared_port(self):
        reg, pol = Registry(), Policy(min_flagged=0, aggregate_sources=2,
                                      aggregates=True)
        reg.event(flag(key("10.0.0.1", mode="5tuple", proto=17, dport=53)),
                  0)
        reg.event(flag(key("10.0.0.2", mode="5tuple", proto=17, dport=123)),
                  0)
        (rule,) = pol.rules(reg, 0)[0]
        self.assertEqual((rule.proto, rule.dport, rule.kind),
                         (17, None, "aggregate"))

    def test_spoofed_flood_is_the_protected_prefix(self):
        pol = Policy(min_flagged=0, aggregate_rate=1000,
                     protect={Q: [N("192.0.2.0/24"), N("2001:db8:1::/48")]})
        reg = Registry()
        reg.event(flag(verdict.Key(Q, overflow=True)), 0)
        # by default, nothing: no address to drop, and no throttle of
        # the flood's victim
        self.assertEqual(pol.rules(reg, 0)[0], {})
        pol.aggregates = True
        self.assertEqual(set(pol.rules(reg, 0)[0]), {
            Rule(4, dst=N("192.0.2.0/24"), rate=1000),
            Rule(6, dst=N("2001:db8:1::/48"), rate=1000)})
        # an overflow flow of a qdisc that protects nothing: no rule
        other = verdict.Qdisc(4, 0x10000)
        reg = Registry()
        reg.event(verdict.Event(verdict.CMD_FLAG, other,
                                verdict.Key(other, overflow=True)), 0)
        self.assertEqual(pol.rules(reg, 0)[0], {})

    def test_flush_and_resync(self):
        reg, pol = Registry(), Policy(min_flagged=1, hold=0)
        a, b = key("10.0.0.1"), key("10.0.0.2")
        reg.event(flag(a), 0)
        reg.event(flag(b), 0)
        # a dump that lists only b: a was let go unseen; b keeps its time
        dumped = [verdict.Event(verdict.CMD_FLAG, Q, b, dump=True)]
        reg.resync(Q, dumped, 5)
        self.assertEqual(set(pol.rules(reg, 5)[0]),
                         {Rule(4, src=N("10.0.0.2/32"),
                               dst=N("10.9.0.1/32"))})
        reg.event(verdict.Event(verdict.CMD_FLUSH, Q), 6)
        self.assertEqual(pol.rules(reg, 6)[0], {})


    def test_dfs_mq_queues(self):
        """dfs_mq: the root's handle, a key per queue.  A key two queues
        flag holds its rule until both let it go; one queue's FLUSH
        lets go of its keys alone; a dump of the root lists them all."""
        reg, pol = Registry(), Policy(min_flagged=0, hold=0)
        q0, q1 = key("10.0.0.1", queue=0), key("10.0.0.1", queue=1)
        c = key("10.0.0.3", queue=1)
        ev = verdict.event_of(verdict.CMD_FLAG, {
            "ifindex": 3, "handle": 0x10000, "queue": 1, "family": 2,
            "key_mode": 0, "src": A("10.0.0.1").packed,
            "dst": A("10.9.0.1").packed})
        self.assertEqual((ev.queue, ev.key), (1, q1))
        self.assertIn("queue 1", str(ev.key))
        for k in (q0, q1, c):
            reg.event(flag(k), 0)
        rule = Rule(4, src=N("10.0.0.1/32"), dst=N("10.9.0.1/32"))
        reg.event(release(q0), 1)
        self.assertIn(rule, pol.rules(reg, 1)[0])
        reg.event(verdict.Event(verdict.CMD_FLUSH, Q, queue=1), 2)
        self.assertEqual(pol.rules(reg, 2)[0], {})
        reg.resync(Q, [verdict.Event(verdict.CMD_FLAG, Q, q0, dump=True,
                                     queue=0),
                       verdict.Event(verdict.CMD_FLAG, Q, c, dump=True,
                                     queue=1)], 3)
        self.assertEqual(len(pol.rules(reg, 3)[0]), 2)


class BackendTest(unittest.TestCase):
    def wanted(self, n, kind="pair"):
        reg, pol = Registry(), Policy(min_flagged=0, aggregate_sources=1000)
        for i in range(n):
            reg.event(flag(key("10.0.%d.%d" % (i >> 8, i & 255)), rate=i), 0)
        return pol.rules(reg, 0)[0]

    def test_cap(self):
        b = Recorder(max_rules=10, changes_per_s=1000, burst=1000)
        b.sync(self.wanted(50), 0)
        self.assertEqual(len(b.installed), 10)
        # the ones with the most rate behind them
        self.assertEqual(min(r.src.network_address.packed[3]
                             for r in b.installed), 40)

    def test_cpr_alone_left_to_dfs(self):
        """A key CPR alone flagged gets no rule unless the backend's cpr
        is on, and is said once; one Algorithm 3 flagged too gets one,
        and keeps it while CPR alone still flags its key."""
        reg, pol = Registry(), Policy(min_flagged=0)
        reg.event(flag(key("10.1.0.1"), reasons=("cpr",)), 0)
        reg.event(flag(key("10.1.0.2"), reasons=("cpr", "malicious")), 0)
        b = Recorder()
        with self.assertLogs("dfs-guard", "INFO") as logs:
            b.sync(pol.rules(reg, 0)[0], 0)
            b.sync(pol.rules(reg, 0)[0], 1)
        self.assertEqual([str(r.src) for r in b.added], ["10.1.0.2/32"])
        self.assertEqual(sum("left to DFS's queue" in m
                             for m in logs.output), 1)
        reg.event(flag(key("10.1.0.2"), reasons=("cpr",)), 2)
        b.sync(pol.rules(reg, 2)[0], 2)
        self.assertEqual(b.removed, [])
        b = Recorder(cpr=True)
        b.sync(pol.rules(reg, 2)[0], 2)
        self.assertEqual(len(b.added), 2)

    def test_rate_of_changes(self):
        b = Recorder(changes_per_s=10, burst=20)
        w = self.wanted(100)
        b.sync(w, 0)
        self.assertEqual(len(b.added), 20)
        b.sync(w, 1.0)
        self.assertEqual(len(b.added), 30)
        b.sync({}, 1.1)                 # withdrawals are never held back
        self.assertEqual(len(b.removed), 30)
        self.assertEqual(b.installed, {})

    def test_failures_back_off(self):
        class Counting(Recorder):
            calls = 0

            def add(self, rules):
                self.calls += 1
                super().add(rules)

        b = Counting(fail=True)
        with self.assertLogs("dfs-guard", "ERROR") as logs:
            # tried at 0, then 1 s, 2 s and 4 s after each failure:
            # at 0, 1, 3 and 7 s of ticks every half second, not each
            for t in range(20):
                b.sync(self.wanted(2), t * 0.5)
        self.assertEqual(b.calls, 4)
        self.assertEqual(len(logs.records), 4)
        self.assertIn("next try in 8 s", logs.output[-1])
        b.fail = False
        b.sync(self.wanted(2), 100.0)
        self.assertEqual(len(b.installed), 2)
        self.assertIsNone(b.retry_at)

    def test_slow_batch_logged(self):
        from dfs_guard import backend
        b = Recorder()
        slow, backend.SLOW_BATCH = backend.SLOW_BATCH, -1.0
        try:
            with self.assertLogs("dfs-guard", "WARNING") as logs:
                b.sync(self.wanted(3), 0)
        finally:
            backend.SLOW_BATCH = slow
        self.assertTrue(any("a batch of 3 rules (add) took" in m
                            for m in logs.output), logs.output)

    def test_error_retried(self):
        b = Recorder(fail=True)
        b.sync(self.wanted(3), 0)
        self.assertEqual(b.installed, {})
        b.fail = False
        b.sync(self.wanted(3), 1)
        self.assertEqual(len(b.installed), 3)

    def test_dry_run_touches_nothing(self):
        b = Recorder()
        b.dry_run = True
        b.sync(self.wanted(3), 0)
        self.assertEqual(b.added, [])
        self.assertEqual(len(b.installed), 3)

    def test_close_withdraws(self):
        b = Recorder()
        b.sync(self.wanted(3), 0)
        b.close()
        self.assertEqual(len(b.removed), 3)


    def test_take_over_holds_then_lets_go(self):
        # what a predecessor left stays for the hold time, renewed at
        # once; one the policy wants again stays past it
        b = Recorder()
        b.renew_every = 10.0
        b.renewed = []
        b.renew = lambda rules: b.renewed.extend(rules)
        w = self.wanted(2)
        kept, gone = sorted(w)
        b.found = [kept, gone]
        b.take_over(100.0, 30.0)
        b.sync({}, 100.5)
        self.assertEqual(b.removed, [])
        self.assertEqual(b.added, [])
        self.assertEqual(sorted(b.renewed), [kept, gone])
        b.sync({kept: w[kept]}, 129.0)
        self.assertEqual(b.removed, [])
        b.sync({kept: w[kept]}, 130.0)
        self.assertEqual(b.removed, [gone])
        self.assertEqual(list(b.installed), [kept])
        self.assertEqual(b.added, [])


class FakeNft:
    """libnftables that lists TABLE and records every other batch."""

    def __init__(self, table):
        self.table, self.batches = table, []

    def set_json_output(self, on):
        pass

    set_handle_output = set_echo_output = set_json_output

    def json_cmd(self, doc):
        cmds = doc["nftables"]
        if "list" in cmds[0]:
            if self.table is None:
                return 1, "", "No such file or directory"
            return 0, {"nftables": self.table}, ""
        self.batches.append(cmds)
        return 0, "", ""


def nft_table(*items):
    return [{"table": {"family": "netdev", "name": "dfs_guard"}}] + \
        list(items)


class NftTest(unittest.TestCase):
    def backend(self, table):
        from dfs_guard.nft import NftBackend
        return NftBackend(["eth0"], nft=FakeNft(table), dry_run=False)

    def ops(self, batch):
        return [(op, what, o.get("name")) for c in batch
                for op, v in c.items() for what, o in v.items()]

    def test_fresh_table(self):
        b = self.backend(None)
        b.start()
        ops = self.ops(b.nft.batches[0])
        self.assertEqual(ops[0], ("add", "table", "dfs_guard"))
        self.assertEqual(sum(1 for o in ops if o[:2] == ("add", "rule")), 8)
        self.assertEqual(b.found, [])

    def test_takes_over_what_it_finds(self):
        elem = {"elem": {"val": "10.1.0.1", "timeout": 41, "expires": 7}}
        pair = {"elem": {"val": {"concat": ["10.1.0.2", "10.9.0.1"]},
                         "timeout": 41, "expires": 30}}
        agg = [{"elem": {"val": {"concat": [
            {"prefix": {"addr": "10.9.0.0", "len": 24}}, "udp",
            {"range": [0, 65535]}]}, "timeout": 41}}, "agg7"]
        t = nft_table(
            {"limit": {"name": "agg7", "rate": 1, "rate_unit": "mbytes",
                       "per": "second", "inv": True}},
            {"limit": {"name": "agg3", "rate": 5, "rate_unit": "bytes"}},
            {"set": {"name": "src4", "type": "ipv4_addr",
                     "elem": [elem]}},
            {"set": {"name": "pair4", "type": ["ipv4_addr", "ipv4_addr"],
                     "elem": [pair]}},
            {"map": {"name": "aggp4", "map": "limit", "type": [
                "ipv4_addr", "inet_proto", "inet_service"], "elem": [agg]}},
            # a set of another type (an older layout) is made again
            {"set": {"name": "src6", "type": "ipv4_addr"}},
            {"chain": {"name": "in_eth0"}}, {"chain": {"name": "in_gone"}})
        b = self.backend(t)
        b.start()
        aggr = Rule(4, dst=N("10.9.0.0/24"), proto=17, rate=1 << 20)
        self.assertEqual(sorted(b.found, key=str), sorted([
            Rule(4, src=N("10.1.0.1/32")),
            Rule(4, src=N("10.1.0.2/32"), dst=N("10.9.0.1/32")), aggr],
            key=str))
        self.assertEqual(b.limits, {aggr: "agg7"})
        self.assertEqual(b.limit_seq, 7)
        ops = self.ops(b.nft.batches[0])
        self.assertIn(("flush", "chain", "in_eth0"), ops)
        self.assertIn(("delete", "chain", "in_gone"), ops)
        self.assertIn(("delete", "limit", "agg3"), ops)
        self.assertNotIn(("delete", "limit", "agg7"), ops)
        self.assertIn(("delete", "set", "src6"), ops)
        self.assertNotIn(("add", "set", "src4"), ops)
        self.assertNotIn(("delete", "table", "dfs_guard"), ops)
        # and hands back the aggregate's element as it found it
        b.remove([aggr])
        self.assertEqual(b.nft.batches[1], [
            {"delete": {"element": {"family": "netdev", "table":
                                    "dfs_guard", "name": "aggp4", "elem": [
                [{"elem": {"val": {"concat": [
                    {"prefix": {"addr": "10.9.0.0", "len": 24}}, 17,
                    {"range": [0, 65535]}]}}}, "agg7"]]}}},
            {"delete": {"limit": {"family": "netdev", "table": "dfs_guard",
                                  "name": "agg7"}}}])

    def test_aggregate_gets_a_limit(self):
        b = self.backend(None)
        b.start()
        r = Rule(6, dst=N("2001:db8::/48"), rate=1000)
        b.add([r])
        ops = self.ops(b.nft.batches[1])
        self.assertEqual(ops, [("add", "limit", "agg1"),
                               ("add", "element", "aggd6")])


class FakeStream:
    def __init__(self, dumps):
        self.dumps = dumps
        self.dumped = []
        self.closed = False

    def dump(self, q):
        self.dumped.append(q)
        d = self.dumps.get(q, [])
        if isinstance(d, Exception):
            raise d
        return d

    def fileno(self):
        # a pipe nothing writes to: select() waits out the tick
        if not hasattr(self, "pipe"):
            self.pipe = os.pipe()
        return self.pipe[0]

    def close(self):
        self.closed = True
        for fd in getattr(self, "pipe", ()):
            os.close(fd)


class GuardTest(unittest.TestCase):
    def test_lost_means_dump(self):
        cfg = config.parse({"policy": {"min_flagged": 0}},
                           ifindex=lambda n: 3)
        cfg.qdiscs = [Q]
        k = key("10.0.0.1")
        stream = FakeStream({Q: [verdict.Event(verdict.CMD_FLAG, Q, k,
                                               dump=True)]})
        b = Recorder()
        now = [0.0]
        g = Guard(cfg, stream, [b], clock=lambda: now[0],
                  listing=lambda: [])
        g.start()
        g.tick()
        self.assertEqual(len(b.installed), 1)
        stream.dumps[Q] = []
        g.handle([verdict.Event(verdict.CMD_LOST, Q, lost=3)])
        self.assertEqual(stream.dumped, [Q, Q])
        now[0] = 100.0
        g.tick()
        self.assertEqual(b.installed, {})

    def test_lost_events_one_dump(self):
        # three LOST events of one qdisc in a batch, a FLAG between them
        # and one after: one dump, after the batch, and its state wins
        cfg = config.parse({"policy": {"min_flagged": 0}},
                           ifindex=lambda n: 3)
        cfg.qdiscs = [Q]
        stream = FakeStream({})
        g = Guard(cfg, stream, [Recorder()], clock=lambda: 0.0,
                  listing=lambda: [])
        lost = verdict.Event(verdict.CMD_LOST, Q, lost=1)
        flag = verdict.Event(verdict.CMD_FLAG, Q, key("10.0.0.7"))
        g.handle([lost, flag, lost, flag, lost])
        self.assertEqual(stream.dumped, [Q])
        self.assertEqual(g.registry.flags, {})

    def guard(self, stream, backends):
        cfg = config.parse({"policy": {"min_flagged": 0}, "tick": 0.01},
                           ifindex=lambda n: 3)
        cfg.qdiscs = [Q]
        return Guard(cfg, stream, backends, clock=time.monotonic,
                     listing=lambda: [])

    def test_an_error_withdraws(self):
        # any way out but SIGHUP withdraws what the backends hold
        class Broken(Recorder):
            def sync(self, wanted, now):
                super().sync(wanted, now)
                raise RuntimeError("a bug")

        k = key("10.0.0.1")
        stream = FakeStream({Q: [verdict.Event(verdict.CMD_FLAG, Q, k,
                                               dump=True)]})
        b = Broken()
        g = self.guard(stream, [b])
        g.tick = lambda: b.sync({Rule(4, src=N("10.0.0.1/32")):
                                 RuleInfo()}, 0.0)
        with self.assertRaises(RuntimeError):
            g.run()
        self.assertEqual(len(b.removed), 1)
        self.assertTrue(stream.closed)

    def test_sighup_withdraws_nothing(self):
        b = Recorder()
        b.installed[Rule(4, src=N("10.0.0.1/32"))] = 0.0
        g = self.guard(FakeStream({}), [b])
        g.reload = True
        self.assertTrue(g.run())
        self.assertEqual(b.removed, [])
        g = self.guard(FakeStream({}), [b])
        g.stop = True
        self.assertFalse(g.run())
        self.assertEqual(len(b.removed), 1)

    def test_failed_dump_retried(self):
        from dfs_guard.stream import DumpError
        k = key("10.0.0.1")
        stream = FakeStream({Q: DumpError("EBUSY")})
        g = self.guard(stream, [])
        with self.assertLogs("dfs-guard", "WARNING"):
            g.start()
        self.assertEqual(g.unsynced, {Q})
        stream.dumps[Q] = [verdict.Event(verdict.CMD_FLAG, Q, k, dump=True)]
        g.tick()
        self.assertEqual(g.unsynced, set())
        self.assertIn(k, g.registry.flags)

    def test_other_qdiscs_ignored(self):
        cfg = config.parse({"policy": {"min_flagged": 0}},
                           ifindex=lambda n: 3)
        cfg.qdiscs = [Q]
        g = Guard(cfg, FakeStream({}), [], clock=lambda: 0.0)
        g.followed = {Q}
        other = verdict.Qdisc(9, 0x10000)
        g.handle([verdict.Event(verdict.CMD_FLAG, other,
                                verdict.Key(other, "src", 4,
                                            A("10.0.0.1")))])
        self.assertEqual(g.registry.flags, {})


class FlowSpecTest(unittest.TestCase):
    def test_commands(self):
        self.assertEqual(
            flowspec.command("announce", Rule(4, src=N("10.1.0.1/32"),
                                              dst=N("10.0.0.2/32"))),
            "announce flow route { match { source 10.1.0.1/32; "
            "destination 10.0.0.2/32; } then { discard; } }")
        self.assertEqual(
            flowspec.command("withdraw", Rule(6, dst=N("2001:db8:9::/48"),
                                              proto=17, dport=53,
                                              rate=1000), "192.0.2.1"),
            "neighbor 192.0.2.1 withdraw flow route { match { destination "
            "2001:db8:9::/48/0; next-header =17; destination-port =53; } "
            "then { rate-limit 1000; } }")

    @unittest.skipUnless(shutil.which("exabgp"), "no exabgp: make deps")
    def test_through_exabgp(self):
        """The backend, the relay and a real ExaBGP: every command of a
        source, a pair, IPv4 and IPv6 aggregates accepted ("done"), a
        withdrawal too, a restarted relay given the rules again; a new
        backend (a restart) takes over what the relay held and withdraws
        the stale; a backend that stays away past the relay's grace has
        its routes withdrawn by the relay."""
        here = os.path.dirname(os.path.abspath(__file__))
        with tempfile.TemporaryDirectory() as d:
            sock = os.path.join(d, "exabgp.sock")
            conf = os.path.join(d, "exabgp.conf")
            with open(conf, "w") as fh:
                fh.write("process dfs-guard {\n run /usr/bin/python3 %s "
                         "--grace 2 %s;"
                         "\n encoder text;\n}\n"
                         "neighbor 127.0.0.2 {\n router-id 127.0.0.1;\n"
                         " local-address 127.0.0.1;\n local-as 64512;\n"
                         " peer-as 64500;\n"
                         " family { ipv4 flow; ipv6 flow; }\n"
                         " api { processes [ dfs-guard ]; }\n}\n"
                         % (os.path.join(here, "dfs-guard-exabgp"), sock))
            b = flowspec.FlowSpecBackend(socket_path=sock, dry_run=False,
                                         changes_per_s=100, burst=100)
            b.start()
            env = dict(os.environ, **{"exabgp.daemon.user": "root",
                                      "exabgp.daemon.drop": "false",
                                      "exabgp.log.destination": "stderr",
                                      "exabgp.api.cli": "false"})
            exa = subprocess.Popen(["exabgp", conf], env=env,
                                   stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            try:
                deadline = time.monotonic() + 30
                while b.conn is None and time.monotonic() < deadline:
                    b.accept(0.0)
                    time.sleep(0.1)
                self.assertIsNotNone(b.conn, "the relay never connected")
                wanted = {
                    Rule(4, src=N("10.1.0.1/32")): None,
                    Rule(4, src=N("10.1.0.2/32"), dst=N("10.0.0.2/32")):
                        None,
                    Rule(4, dst=N("10.9.0.7/32"), proto=17, dport=53,
                         rate=125000): None,
                    Rule(6, dst=N("2001:db8:9::/48"), rate=1000): None}
                def info(r):
                    return RuleInfo(1, 0, 0, scope={N("10.0.0.0/24")})
                b.sync({r: info(r) for r in wanted}, 1.0)
                self.assertEqual(set(b.installed), set(wanted))
                b.sync({r: info(r) for r in list(wanted)[:1]}, 2.0)
                self.assertEqual(len(b.installed), 1)
                # the relay loses dfs-guard, reconnects, is given the rule
                b.conn.close()
                b.conn = None
                deadline = time.monotonic() + 30
                while b.conn is None and time.monotonic() < deadline:
                    b.accept(0.0)
                    time.sleep(0.1)
                self.assertIsNotNone(b.conn, "the relay did not come back")
                r0, r1 = list(wanted)[:2]
                # the source towards what its qdisc protects
                c0 = flowspec.command("announce", Rule(
                    4, src=N("10.1.0.1/32"), dst=N("10.0.0.0/24")))
                self.assertIn("destination 10.0.0.0/24;", c0)
                c1 = flowspec.command("announce", r1)
                b.send([c1])
                with self.assertRaises(BackendError):
                    b.send(["announce flow route { match { bogus 1; } "
                            "then { discard; } }"])
                self.assertEqual(sorted(b.held()), sorted([c0, c1]))

                def connected(backend):
                    deadline = time.monotonic() + 30
                    while backend.conn is None and \
                            time.monotonic() < deadline:
                        backend.accept(0.0)
                        time.sleep(0.1)
                    self.assertIsNotNone(backend.conn)

                # a crash: the sockets go, nothing is withdrawn
                b.stop()
                b2 = flowspec.FlowSpecBackend(socket_path=sock,
                                              dry_run=False)
                b2.start()
                b2.take_over(0.0, 5.0)
                connected(b2)
                self.assertEqual(set(b2.orphans), {c0, c1})
                b2.sync({r0: info(r0)}, 1.0)    # adopted
                self.assertEqual(set(b2.orphans), {c1})
                b2.sync({r0: info(r0)}, 6.0)    # c1 withdrawn
                self.assertEqual(b2.orphans, {})
                self.assertEqual(b2.held(), [c0])
                # away past the grace: the relay withdraws c0
                b2.stop()
                time.sleep(3.5)
                b3 = flowspec.FlowSpecBackend(socket_path=sock,
                                              dry_run=False)
                b3.start()
                connected(b3)
                self.assertEqual(b3.orphans, {})
                self.assertEqual(b3.held(), [])
                b3.close()
            finally:
                exa.terminate()
                exa.wait(10)


class FlowSpecRulesTest(unittest.TestCase):
    """What goes upstream, without ExaBGP: the commands a backend sends."""

    def backend(self, **kw):
        b = flowspec.FlowSpecBackend(dry_run=False, **kw)
        b.lines = []
        b.conn = True                # as if a relay were there

        def send(lines):
            b.lines += lines
        b.send = send
        b.accept = lambda now: None
        return b

    def test_source_names_what_its_qdisc_protects(self):
        pol = Policy(min_flagged=0, protect={Q: [N("10.9.0.0/24"),
                                                 N("2001:db8::/48")]})
        reg = Registry()
        reg.event(flag(key("10.1.0.1", None, mode="src")), 0)
        reg.event(flag(key("2001:db8:5::1", None, mode="src")), 0)
        b = self.backend()
        b.sync(pol.rules(reg, 0)[0], 0)
        self.assertEqual(sorted(b.lines), [
            "announce flow route { match { source 10.1.0.1/32; "
            "destination 10.9.0.0/24; } then { discard; } }",
            "announce flow route { match { source 2001:db8:5::1/128/0; "
            "destination 2001:db8::/48/0; } then { discard; } }"])
        b.sync({}, 1)
        self.assertEqual(len(b.lines), 4)
        self.assertTrue(b.lines[2].startswith("withdraw flow route"))

    def test_source_without_destination_not_announced(self):
        reg, pol = Registry(), Policy(min_flagged=0)
        reg.event(flag(key("10.1.0.1", None, mode="src")), 0)
        b = self.backend()
        with self.assertLogs("dfs-guard", "WARNING"):
            b.sync(pol.rules(reg, 0)[0], 0)
        self.assertEqual(b.lines, [])

    def test_cpr_stays_local(self):
        reg, pol = Registry(), Policy(min_flagged=0)
        reg.event(flag(key("10.1.0.1"), reasons=("cpr",)), 0)
        reg.event(flag(key("10.1.0.2"), reasons=("cpr", "malicious")), 0)
        b = self.backend()
        b.sync(pol.rules(reg, 0)[0], 0)
        self.assertEqual(len(b.lines), 1)
        self.assertIn("10.1.0.2/32", b.lines[0])
        b = self.backend(cpr=True)
        b.sync(pol.rules(reg, 0)[0], 0)
        self.assertEqual(len(b.lines), 2)


class QdiscLabelTest(unittest.TestCase):
    def test_labels(self):
        """A qdisc by its handle; dfs_mq's queues (handle 0) by their
        class, so that two queues never give one label."""
        from dfs_guard.metrics import qdisc_label
        self.assertEqual(qdisc_label(0x10000, 0xffffffff), "1:")
        self.assertEqual(qdisc_label(0, 0x10001), "1:1")
        self.assertEqual(qdisc_label(0, 0x10002), "1:2")


class XstatsTest(unittest.TestCase):
    def test_layout_of_any_module(self):
        """The counters of this tree's module, and of an older one that
        sends xstats up to fq_overflow (240 bytes): the rest are 0."""
        from dfs_guard.metrics import xstats_of
        from dfs_guard.xstats_layout import XSTATS, XSTATS_FIELDS
        values = list(range(1, len(XSTATS_FIELDS) + 1))
        raw = XSTATS.pack(*values)
        x = xstats_of(raw)
        self.assertEqual(x["flows"], XSTATS_FIELDS.index("flows") + 1)
        self.assertEqual(x["fq_boosts"], len(XSTATS_FIELDS))
        old = xstats_of(raw[:240])
        self.assertEqual(old["fq_overflow"], x["fq_overflow"])
        self.assertEqual(old["drop_shared"], 0)
        self.assertEqual(old["fq_boosts"], 0)
        self.assertIsNone(xstats_of(raw[:200]))


class QdiscCheckTest(unittest.TestCase):
    """--check and the start name a configured handle that is no DFS."""
    L = qdiscs.Listed

    def problems(self, handle, listed):
        return qdiscs.problems([verdict.Qdisc(3, handle << 16)], listed,
                               name=lambda i: "eth0")

    def test_dfs_and_dfs_mq_followed(self):
        for kind in ("dfs", "dfs_mq"):
            self.assertEqual(self.problems(1, [self.L(3, 1 << 16, 0, kind)]),
                             [])

    def test_shaper_handle(self):
        """The README's recipe: HTB 1:, the dfs 10: under it."""
        listed = [self.L(3, 1 << 16, 0xffffffff, "htb"),
                  self.L(3, 0x10 << 16, 0x10001, "dfs")]
        p = self.problems(1, listed)
        self.assertEqual(len(p), 1)
        self.assertIn("1: is htb, not dfs or dfs_mq", p[0])
        self.assertIn("its DFS: 10:", p[0])
        self.assertEqual(self.problems(0x10, listed), [])

    def test_no_such_handle(self):
        p = self.problems(2, [self.L(3, 1 << 16, 0, "dfs")])
        self.assertIn("eth0 has no qdisc 2:", p[0])
        self.assertIn("its DFS: 1:", p[0])

    def test_dfs_mq_queues_not_named(self):
        """A dfs_mq's queues (handle 0) are the root's, never offered."""
        listed = [self.L(3, 1 << 16, 0xffffffff, "dfs_mq"),
                  self.L(3, 0, 0x10001, "dfs"),
                  self.L(4, 5 << 16, 0xffffffff, "dfs")]
        self.assertEqual(qdiscs.followable(listed),
                         [verdict.Qdisc(3, 1 << 16), verdict.Qdisc(4, 5 << 16)])
        self.assertIn("it has no DFS qdisc",
                      self.problems(1, [self.L(3, 0, 0x10001, "dfs")])[0])


def unexported(name):
    """The dfs_* metrics that guard/NAME asks for and the daemon does not
    export (a counter's name with its _total or without)."""
    import re
    from prometheus_client import generate_latest
    from dfs_guard.metrics import Metrics
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, name)) as fh:
        used = set(re.findall(r"\b(dfs_[a-z_]+)", fh.read()))
    text = generate_latest(Metrics([]).registry).decode()
    have = set(re.findall(r"^# TYPE (\S+)", text, re.M))
    return {u for u in used
            if u not in have and re.sub(r"_total$", "", u) not in have}


class DashboardTest(unittest.TestCase):
    def test_every_metric_exported(self):
        """The Grafana dashboard asks only for metrics the daemon has."""
        import json
        self.assertEqual(unexported("grafana-dashboard.json"), set())


class AlertRulesTest(unittest.TestCase):
    HERE = os.path.dirname(os.path.abspath(__file__))

    def test_every_metric_exported(self):
        """The alert rules ask only for metrics the daemon has."""
        self.assertEqual(unexported("dfs-guard-alerts.yml"), set())

    def test_promtool(self):
        """promtool (Debian's prometheus, make deps) parses the rules, and
        each alert fires on the series of its test and not before."""
        promtool = shutil.which("promtool")
        self.assertIsNotNone(promtool, "no promtool: make deps (prometheus)")
        for args in (["check", "rules", "dfs-guard-alerts.yml"],
                     ["test", "rules", "dfs-guard-alerts.test.yml"]):
            r = subprocess.run([promtool] + args, cwd=self.HERE,
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


class ConfigTest(unittest.TestCase):
    def test_example_is_valid(self):
        here = os.path.dirname(os.path.abspath(__file__))
        cfg = config.load(os.path.join(here, "dfs-guard.toml"))
        self.assertTrue(cfg.dry_run)
        self.assertIsNone(cfg.nft)

    def test_refused(self):
        for bad in ({"policy": {"allow": ["10.0.0.300/8"]}},
                    {"polcy": {}},
                    {"policy": {"aggregate_rate": "fast"}},
                    {"policy": {"hold": -1}},
                    {"nftables": {"enable": True}},
                    {"nftables": {"enable": True, "interfaces": "eth0"}},
                    {"nftables": {"enable": True, "interfaces": [""]}},
                    {"metrics": {"port": 70000}},
                    # strings where booleans belong: "false" is true to
                    # bool(), and would turn these on or dry_run off
                    {"nftables": {"enable": "false"}},
                    {"flowspec": {"enable": "no"}},
                    {"metrics": {"enable": 0}},
                    {"dry_run": "false"},
                    {"nftables": {"enable": True, "interfaces": ["eth0"],
                                  "dry_run": "true"}},
                    {"qdisc": [{"dev": "eth0", "handle": "x"}]}):
            with self.assertRaises(config.ConfigError, msg=str(bad)):
                config.parse(bad, ifindex=lambda n: 1)

    def test_rates(self):
        self.assertEqual(config.rate_bytes("1mbit", "k"), 125000)
        self.assertEqual(config.rate_bytes("500kbps", "k"), 500000)
        self.assertEqual(config.rate_bytes(1000, "k"), 1000)


if __name__ == "__main__":
    unittest.main()
