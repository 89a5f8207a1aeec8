# SPDX-License-Identifier: GPL-2.0
"""The lab's scenarios: the papers' experiments, scaled to a 10 Mbit/s link.

Each scenario is data: hosts, the flows they send and the class of each
(which is the ground truth DFS's marking is judged against), access-link
delays, phases.  Host s<N> is the last sender in every scenario and is the
probe that pings the receiver through the bottleneck (queue delay).
Everything random (delays, web object sizes) comes from a fixed seed.
"""
import random
from dataclasses import dataclass, field

LINK_BPS = 10_000_000
LINK_RATE = "10mbit"


def set_link(bps):
    """Run on a link of BPS bit/s (tools/lab --rate): the scenarios' rates
    are shares of it, so each is the same experiment at another speed."""
    global LINK_BPS, LINK_RATE
    LINK_BPS = bps
    LINK_RATE = "%dkbit" % (bps // 1000)
SEED = 20141121

TCP_PORT = 5200         # + host index
UDP_PORT = 9000         # + host index
WEB_PORT = 8080

# Flow classes.  "attack" is the ground truth for DFS's marking: every
# attack flow should be marked malicious, no other flow should.
ATTACK, TCP, GOOD_UDP, MICE, ELEPHANT = "attack", "tcp", "good-udp", "mice", "elephant"
# Scenario 7: honest hosts a detector scored as suspects.
TCP_MISSCORED, MICE_MISSCORED = "tcp-misscored", "mice-misscored"


@dataclass
class Flow:
    host: int                   # sender s<host>
    proto: str                  # tcp | udp | web
    cls: str
    conns: int = 1              # TCP connections (the hog has 8)
    schedule: list = None       # UDP: [(bit/s, seconds), ...]
    sources: list = None        # UDP: each packet from the next (a botnet)
    pulse: tuple = None         # UDP: (period, burst) s, in step (shrew)
    start: float = 0            # TCP: s after the common start it sends

    @property
    def key(self):
        if self.proto == "tcp":
            return "tcp:%d" % (TCP_PORT + self.host)
        if self.proto == "udp":
            return "udp:%d" % (UDP_PORT + self.host)
        return "web:%d" % self.host

    @property
    def name(self):
        what = {"tcp": "TCP x%d" % self.conns if self.conns > 1 else "TCP",
                "udp": "UDP", "web": "web server"}[self.proto]
        if self.sources:
            what += " from %d sources" % len(self.sources)
        return "s%d %s" % (self.host, what)


@dataclass
class Range:
    """A source range as a detector would score it (scenario 7)."""
    text: str                   # as tc-hishape(8) reads it
    host: int                   # the sender whose sources it holds
    score: float                # how likely its sources are legitimate


@dataclass
class Scenario:
    name: str                   # results/<name>/
    title: str
    secs: int                   # traffic runs this long
    warmup: int                 # measured window: [warmup, secs)
    flows: list
    delays: dict = field(default_factory=dict)    # host -> one-way ms
    phases: list = field(default_factory=list)    # (start, end, label)
    jain_by_host: bool = False  # fairness between hosts, not connections
    web_clients: int = 0        # fetch loops in the receiver
    checks: str = ""            # what --check asserts (see run.py)
    ranges: list = field(default_factory=list)    # scored ranges: Range
    qdiscs: list = None         # the ones it compares, if not the default
    probe_host: int = None      # the probe beside this sender's flows

    @property
    def hosts(self):
        top = max(f.host for f in self.flows)
        return top if self.probe_host else top + 1  # + the probe's own

    @property
    def probe(self):
        return self.probe_host or self.hosts

    def flows_of(self, *classes):
        return [f for f in self.flows if f.cls in classes]

    def web_servers(self):
        return [f for f in self.flows if f.proto == "web"]


def host_ip(h):
    """Sender s<h>'s address (selftests/lib.sh's topology)."""
    return "10.%d.0.1" % h


def mixed_delays(hosts, lo=1, hi=15):
    """One-way delay of each host's access link, lo..hi ms, fixed seed."""
    rng = random.Random(SEED)
    return {h: rng.randint(lo, hi) for h in hosts}


def cbr(rate, secs):
    return [(rate, secs)]


def scenario1(short):
    """DFS Table 4: a UDP flood at the link rate against 8 TCP flows."""
    secs = 20 if short else 25
    flows = [Flow(1, "udp", ATTACK, schedule=cbr(LINK_BPS, secs))]
    flows += [Flow(h, "tcp", TCP) for h in range(2, 10)]
    return Scenario("scenario1", "UDP flood at the link rate + 8 TCP flows, "
                    "RTTs 2-30 ms", secs, 5, flows,
                    delays=mixed_delays(range(1, 10)), checks="marking")


def scenario1p(short):
    """A sparse flow from a busy host: scenario 1 with the flood at twice
    the link, and the probe on a host that also sends one of the TCP
    flows, as a call during a download (issue: isolation inside a key as
    cake's).  Compared with cake and fq_codel, which isolate it by
    connection inside a host.  It runs a minute: the probe's p99 is
    what it judges, and at 20 pings a second a minute puts about 11
    pings over it, where scenario 1's 25 s put 5 and moved it by 3 ms
    from boot to boot."""
    scn = scenario1(short)
    if not short:
        scn.secs = 60
    secs = scn.secs
    scn.name = "scenario1p"
    scn.title = ("UDP flood at 2x the link + 8 TCP flows, the probe on a "
                 "TCP host, RTTs 2-30 ms")
    scn.flows[0] = Flow(1, "udp", ATTACK, schedule=cbr(2 * LINK_BPS, secs))
    scn.probe_host = 2
    scn.qdiscs = ["cake", "fq_codel", "dfs-fq-5t", "dfs-default",
                  "dfs-200kb"]
    return scn


def scenario2(short):
    """DFS Tables 5/6: VBR attackers at 2x, 0.8x, 2x the fair rate."""
    n = 5 + 5 + 5 + 1           # VBR, good UDP, TCP, the probe
    fair = LINK_BPS // n
    p = (12, 12, 8) if short else (20, 15, 15)
    vbr = [(2 * fair, p[0]), (0.8 * fair, p[1]), (2 * fair, p[2])]
    secs = sum(p)
    flows = [Flow(h, "udp", ATTACK, schedule=vbr) for h in range(1, 6)]
    flows += [Flow(h, "udp", GOOD_UDP, schedule=cbr(fair, secs))
              for h in range(6, 11)]
    flows += [Flow(h, "tcp", TCP) for h in range(11, 16)]
    phases = [(0, p[0], "2x"), (p[0], p[0] + p[1], "0.8x"),
              (p[0] + p[1], secs, "2x")]
    return Scenario("scenario2", "5 VBR UDP (2x, 0.8x, 2x fair) + 5 UDP at "
                    "the fair rate + 5 TCP", secs, 5, flows,
                    delays=mixed_delays(range(1, 16)), phases=phases,
                    checks="marking")


def scenario3(short):
    """Attack (iii): one host with 8 connections against 8 hosts with one."""
    secs = 20 if short else 30
    flows = [Flow(1, "tcp", ATTACK, conns=8)]
    flows += [Flow(h, "tcp", TCP) for h in range(2, 10)]
    return Scenario("scenario3", "one host with 8 TCP connections + 8 hosts "
                    "with one", secs, 5, flows,
                    delays={h: 5 for h in range(1, 10)}, jain_by_host=True)


def hog_scenario(name, title, hog, checks, secs=31, warmup=10):
    """A many-connection host: HOG (host 1) beside 7 hosts with one TCP
    connection each, 5 ms access links, SECS long, measured from WARMUP
    (by default from 10 s over four whole 5 s windows)."""
    flows = [hog] + [Flow(h, "tcp", TCP) for h in range(2, 9)]
    return Scenario(name, title, secs, warmup, flows,
                    delays={h: 5 for h in range(1, 9)}, jain_by_host=True,
                    checks=checks)


def scenario3b(short):
    """Attack (iii) harder: one host with 16 connections against 7 hosts
    with one: DFS must hold such a host to its share, not cut it off."""
    return hog_scenario("scenario3b", "one host with 16 TCP connections + "
                        "7 hosts with one", Flow(1, "tcp", ATTACK, conns=16),
                        "hog")


def scenario3u(short):
    """Scenario 3b with a UDP flood at the link rate in place of the hog:
    what DFS must still cut off (short: measured from 5 to 15 s; DFS cuts
    a flood within a second or two, and there are no windows to judge)."""
    secs, warmup = (16, 5) if short else (31, 10)
    return hog_scenario("scenario3u", "UDP flood at the link rate + 7 hosts "
                        "with one TCP connection",
                        Flow(1, "udp", ATTACK, schedule=cbr(LINK_BPS, secs)),
                        "flood", secs, warmup)


def scenario4(short):
    """LRU-FQ Tables III/IV: web mice against TCP and UDP elephants."""
    secs = 20 if short else 30
    flows = [Flow(h, "web", MICE) for h in range(1, 5)]
    flows += [Flow(h, "tcp", ELEPHANT) for h in range(5, 9)]
    flows += [Flow(h, "udp", ATTACK, schedule=cbr(LINK_BPS // 2, secs))
              for h in (9, 10)]
    return Scenario("scenario4", "web mice + 4 TCP elephants + 2 UDP "
                    "elephants at half the link each", secs, 5, flows,
                    delays={h: 5 for h in range(1, 11)}, web_clients=6)


def scenario5a(short):
    """Normal load, TCP only: the scheme must not hurt."""
    secs = 20 if short else 25
    flows = [Flow(h, "tcp", TCP) for h in range(1, 9)]
    return Scenario("scenario5a", "normal load: 8 TCP flows, RTTs 2-30 ms",
                    secs, 5, flows, delays=mixed_delays(range(1, 9)))


def scenario5b(short):
    """Normal load, fair UDP only: 8 CBR flows filling 95% of the link."""
    secs = 20 if short else 25
    rate = LINK_BPS * 95 // 100 // 8
    flows = [Flow(h, "udp", GOOD_UDP, schedule=cbr(rate, secs))
             for h in range(1, 9)]
    return Scenario("scenario5b", "normal load: 8 UDP flows at 95% of the "
                    "fair rate", secs, 5, flows)


# Scenario 6, 6b, 6n and the sweeps: the kernel's qdiscs, DFS without
# CPR and with its defaults (the period from the link's rate, surges as
# the signal), with the papers' adaptive tau and their fixed ones (1 ms
# periods, drops as the signal: the paper's CPR as it is), and with the
# lab's hand-tuned settings for 10 Mbit/s (dfs-fq-cprs), which the
# defaults derive.
SHREW_QDISCS = ["pfifo", "red", "sfb", "fq_codel", "cake", "dfs-fq-nocpr",
                "dfs-fq", "dfs-fq-cpr", "dfs-fq-tau0.2", "dfs-fq-tau0.6",
                "dfs-fq-tau0.8", "dfs-fq-cprs"]


def shrew(name, title, rate, short, checks="", pulse=(0.3, 0.1), hosts=16):
    """The low-rate (shrew) attack: HOSTS hosts each send RATE in bursts
    of PULSE's width every PULSE's period, all in step (scenario 6: 16 at
    1.25 Mbit/s, 100 ms every 300 ms, twice the link together while a
    burst lasts, two thirds of it on average), beside 8 TCP hosts with
    access links of 1-15 ms each way (s17-s24 whatever HOSTS is, so that
    6n is every shape's run without the attack)."""
    secs = 20 if short else 30
    flows = [Flow(h, "udp", ATTACK, schedule=cbr(rate, secs), pulse=pulse)
             for h in range(1, hosts + 1)]
    flows += [Flow(h, "tcp", TCP) for h in range(17, 25)]
    return Scenario(name, title, secs, 5, flows,
                    delays=mixed_delays(range(17, 25)), checks=checks,
                    qdiscs=SHREW_QDISCS)


def scenario6(short):
    return shrew("scenario6", "16 hosts pulsing %g Mbit/s in step, 100 ms "
                 "every 300 ms, + 8 TCP hosts" % (LINK_BPS / 8e6),
                 LINK_BPS // 8, short, "shrew")


def scenario6b(short):
    """Another shape, to show CPR's defaults are not scenario 6's: fewer
    hosts, each faster, in shorter bursts further apart (12 at 2.5 Mbit/s,
    three times the link together, 50 ms every 500 ms, 0.3 of it on
    average)."""
    return shrew("scenario6b", "12 hosts pulsing %g Mbit/s in step, 50 ms "
                 "every 500 ms, + 8 TCP hosts" % (LINK_BPS / 4e6),
                 LINK_BPS // 4, short, "shrew",
                 pulse=(0.5, 0.05), hosts=12)


def scenario6n(short):
    """Scenario 6 with the attackers silent: TCP's goodput without the
    attack, which scenario 6's (and 6b's) is measured against."""
    return shrew("scenario6n", "scenario 6's 8 TCP hosts, the 16 attackers "
                 "silent", 0, short)


# The CPR paper's sweeps (Kieu et al., Table 1, after Zhang et al.):
# attack frequency (AFI: the period), burst width (AWI) and burst rate
# (ARI) intensification, scaled from its 5 Mbit/s link to the lab's 10:
# bursts of the link's rate together, 200 ms every second, unless swept.
# Name: (period s, width s, together Mbit/s); TCP's goodput is measured
# against scenario 6n's, the same TCP hosts alone.
SWEEP = {"6afi0.4": (0.4, 0.2, 10), "6afi1": (1, 0.2, 10),
         "6afi2": (2, 0.2, 10), "6awi0.05": (1, 0.05, 10),
         "6awi0.5": (1, 0.5, 10), "6ari5": (1, 0.2, 5),
         "6ari20": (1, 0.2, 20)}


def sweep_point(key):
    period, width, mbps = SWEEP[key]

    def make(short):
        return shrew("scenario" + key, "16 hosts, %g Mbit/s together for "
                     "%g ms every %g s, + 8 TCP hosts"
                     % (mbps, width * 1000, period),
                     int(mbps * 1e6 / 16), short, pulse=(period, width))
    return make


def scenario6f(short):
    """The CPR paper's fairness experiment (Kieu et al., Sect. 3.2, Fig. 4):
    no attack, 10 TCP hosts sending from the start, 10 more joining at
    10 s, in slow start into a busy link, where their own drops fall in the
    periods they send most in.  A CPR filter that takes them for attackers
    holds them back; measured from their join: TCP's Jain over all 20, and
    the hosts listed."""
    secs = 25 if short else 30
    join = 10
    flows = [Flow(h, "tcp", TCP) for h in range(1, 11)]
    flows += [Flow(h, "tcp", TCP, start=join) for h in range(11, 21)]
    return Scenario("scenario6f", "no attack: 10 TCP hosts, 10 more join at "
                    "%d s" % join, secs, join, flows,
                    delays=mixed_delays(range(1, 21)),
                    qdiscs=["dfs-fq-nocpr", "dfs-fq", "dfs-fq-cpr",
                            "dfs-fq-tau0.2",
                            "dfs-fq-tau0.6", "dfs-fq-tau0.8",
                            "dfs-fq-cpr10", "dfs-fq-cprs"])


def scenario7(short):
    """HiShape's case: a botnet of 1,000 sources in 200 ranges floods the
    link at 1.5x its rate while 8 honest hosts, each in a range of its
    own, send bulk TCP (s3-s6) and serve web objects (s7-s10).  A
    detector scored every range with its probability of being legitimate
    (a CLP, as PacketScore computes it): the bots' ranges 0.02-0.2, six
    honest ranges 0.8-0.99, and two honest hosts misscored as suspects
    (s6 0.3, s10 0.4), below the 0.5 that a drop list cuts at.  Bots: s1
    and s2, 500 sources each, 5 in each of 100 ranges, half of the ranges
    a /24, half an arbitrary span (ADDR-ADDR)."""
    secs = 20 if short else 30
    rng = random.Random(SEED)
    flows, ranges = [], []
    for h in (1, 2):
        srcs = []
        for n in range(1, 101):
            srcs += ["10.%d.%d.%d" % (h, n, 10 + k) for k in range(5)]
            text = ("10.%d.%d.0/24" % (h, n) if n % 2 else
                    "10.%d.%d.10-10.%d.%d.14" % (h, n, h, n))
            ranges.append(Range(text, h, round(rng.uniform(0.02, 0.2), 3)))
        flows.append(Flow(h, "udp", ATTACK, sources=srcs,
                          schedule=cbr(LINK_BPS * 3 // 4, secs)))
    misscored = {6: 0.3, 10: 0.4}
    for h in range(3, 11):
        if h <= 6:
            cls = TCP_MISSCORED if h in misscored else TCP
            flows.append(Flow(h, "tcp", cls))
        else:
            cls = MICE_MISSCORED if h in misscored else MICE
            flows.append(Flow(h, "web", cls))
        score = misscored.get(h) or round(rng.uniform(0.8, 0.99), 3)
        ranges.append(Range("10.%d.0.0/24" % h, h, score))
    return Scenario("scenario7", "a botnet of 1,000 sources in 200 scored "
                    "ranges at 1.5x the link + 4 TCP hosts and 4 web "
                    "servers, 2 of them misscored", secs, 5, flows,
                    delays={h: 5 for h in range(3, 11)}, web_clients=6,
                    ranges=ranges, qdiscs=["pfifo", "droplist", "hishape",
                                           "dfs-fq", "fq_codel", "cake"])


# RRUL: flent's Realtime Response Under Load between two hosts, the link
# shaped both ways; the qdiscs a home or edge router would pick from.
RRUL_QDISCS = ["dfs-fq", "dfs-fq-src", "dfs-fq-5t", "fq_codel", "cake",
               "pfifo"]


@dataclass
class FlentScenario:
    """flent's tests from a client (s1) to a server (rcv) through the
    router, the router shaping both of its egresses (tools/lablib/rrul.py).
    Each test loads the link for SECS, with DELAY of idle pings before
    and after it; the figures are over [DELAY + WARMUP, DELAY + SECS)."""
    name: str
    title: str
    tests: list                 # flent tests, in turn, per qdisc
    secs: int                   # flent -l
    delay: int                  # flent -d
    warmup: int
    rtt_ms: int                 # base RTT, netem on the hosts' veths
    step: float                 # flent -s: ping and sampling interval
    qdiscs: list
    rounds: int = 1             # every qdisc in turn, this many times
    flent: bool = True


def rrul(short):
    """RRUL and RRUL_BE: 4 TCP flows each way (rrul: in four DSCP
    classes, rrul_be: all best effort), ICMP and UDP pings beside them.
    The full run goes round the qdiscs three times and pools each one's
    samples: the 99th percentile of one run's 250 pings is its third
    largest, and moved by several milliseconds from boot to boot for
    every qdisc alike."""
    return FlentScenario("rrul", "flent rrul and rrul_be, 10 Mbit/s both "
                         "ways, 10 ms base RTT", ["rrul", "rrul_be"],
                         10 if short else 30, 5, 5 if not short else 2, 10,
                         0.1, RRUL_QDISCS, 1 if short else 3)


@dataclass
class UpstreamScenario:
    """A flood that fills the link into the edge router, DFS's verdict
    sent upstream as BGP FlowSpec (tools/lablib/upstream.py): SECS of two
    TCP flows to each of two customers, the flood to the first from
    FLOOD_AT for FLOOD_SECS at twice the link."""
    name: str
    title: str
    secs: int
    flood_at: int
    flood_secs: int
    qdiscs: list                # the runs: upstream.KINDS
    upstream: bool = True

    @property
    def rate_mbit(self):
        return LINK_BPS // 1000000


def upstream(short):
    return UpstreamScenario("upstream", "a flood into the edge router's "
                            "upstream link, 10 Mbit/s shared with a second "
                            "customer; FRR and a validating BIRD upstream, "
                            "FlowSpec from dfs-guard through ExaBGP", 40 if short else 70, 10,
                            15 if short else 30,
                            ["dfs", "flowspec", "flowspec6", "spoofed"])


# LRU-FQ's sweep (tools/lab -s lrufq-sweep): 8 TCP hosts beside UDP
# floods of RATE times the link in all, shared evenly by FLOWS hosts
# (key "lq<RATE>x<FLOWS>"), each point run with the lrufq filter at each
# cache size of LRUFQ_CACHES, at weights 1:1 (qdiscs.py "lrufq-c<N>"), a
# boot a cell; tools/lablib/lrufq_sweep.py makes the table.
LRUFQ_SWEEP = {"lq%dx%d" % (r, n): (r, n) for r in (1, 2) for n in (1, 2, 8)}
LRUFQ_CACHES = (6, 12, 64, 1024)


def lrufq_point(key):
    rate, n = LRUFQ_SWEEP[key]

    def make(short):
        secs = 20 if short else 25
        flows = [Flow(h, "udp", ATTACK,
                      schedule=cbr(rate * LINK_BPS // n, secs))
                 for h in range(1, n + 1)]
        flows += [Flow(h, "tcp", TCP) for h in range(n + 1, n + 9)]
        return Scenario("scenario" + key, "%d UDP flood%s at %dx the link "
                        "in all + 8 TCP hosts" % (n, "s" if n > 1 else "",
                                                  rate),
                        secs, 5, flows, delays=mixed_delays(range(1, n + 9)),
                        qdiscs=["lrufq-c%d" % c for c in LRUFQ_CACHES])
    return make


SCENARIOS = {"1": scenario1, "1p": scenario1p, "2": scenario2,
             "3": scenario3,
             "3b": scenario3b, "3u": scenario3u, "4": scenario4,
             "5a": scenario5a, "5b": scenario5b, "6": scenario6,
             "6b": scenario6b, "6n": scenario6n, "6f": scenario6f,
             "7": scenario7, "rrul": rrul,
             "upstream": upstream}
SCENARIOS.update({k: sweep_point(k) for k in SWEEP})
SCENARIOS.update({k: lrufq_point(k) for k in LRUFQ_SWEEP})


def get(name, short=False):
    key = name.replace("scenario", "")
    if key == "5":
        key = "5a"
    if key not in SCENARIOS:
        raise KeyError("no scenario '%s' (have: %s)"
                       % (name, ", ".join(SCENARIOS)))
    return SCENARIOS[key](short)
