# SPDX-License-Identifier: GPL-2.0
"""The qdiscs the lab compares: each is the child (handle 10:) of the same
TBF (10 Mbit/s unless tools/lab --rate), with about 100 KB of buffer where the qdisc has a size.

Each entry is the list of tc arguments after "tc", with DEV for the
bottleneck device, RANGES for the scenario's scored ranges as a
tc-hishape(8) table (scores.py) and RATE for the link's rate; the first
one adds the qdisc under the shaper.  NFT names the entries that also load an nftables ruleset in the
router, and what makes it.
"""
import scenarios
import scores

CHILD = "qdisc add dev DEV parent 1:1 handle 10:"
# CPR's parameters as the papers have them, the defaults before CPR's
# were derived from the link: with "cpr adaptive" or "cpr tau F".
PAPER = ("cpr_period 1ms cpr_tau_min 0.2 cpr_min_packets 16 "
         "cpr_signal drops")

# STFQ with weights 3:1 for the LRU-FQ rows; the lrufq filter follows.
LRUFQ = [
    CHILD + " stfq default 1",
    "class add dev DEV parent 10: classid 10:1 stfq weight 3",
    "class add dev DEV parent 10: classid 10:2 stfq weight 1",
    "qdisc add dev DEV parent 10:1 pfifo limit 50",
    "qdisc add dev DEV parent 10:2 pfifo limit 20",
]

QDISCS = {
    # The paper's DFS: one FIFO (with CPR, on by default).
    "dfs": [CHILD + " dfs limit 100000 sched fifo"],
    # Per-host fairness: every busy host is one flow.
    "dfs-src": [CHILD + " dfs limit 100000 key src sched fifo"],
    # The paper's DFS as it was, without CPR.
    "dfs-nocpr": [CHILD + " dfs limit 100000 sched fifo nocpr"],
    # A queue per flow, DRR with CoDel on each, DFS's verdicts on top,
    # CPR with its periods from the link's rate: DFS's defaults.
    "dfs-fq": [CHILD + " dfs limit 100000 sched fq"],
    "dfs-fq-src": [CHILD + " dfs limit 100000 key src sched fq"],
    # The default key spelt out: the same qdisc as dfs-fq under another
    # name, a control for what two runs of one qdisc differ by (RRUL).
    "dfs-fq-sd": [CHILD + " dfs limit 100000 key srcdst sched fq"],
    # Per connection, as fq_codel and cake hash (web mice, scenario 4).
    "dfs-fq-5t": [CHILD + " dfs limit 100000 key 5tuple sched fq"],
    # The module as a user adds it, and with a byte limit (scenario 1p:
    # a sparse flow waits behind its own host's queue).
    "dfs-default": [CHILD + " dfs"],
    "dfs-200kb": [CHILD + " dfs limit 200kb sched fq"],
    # Low-rate attacks (scenario 6): DFS without CPR, and CPR as the
    # papers have it (1 ms periods, drops as the signal, tau from 0.8 to
    # 0.2, 16 packets before a verdict), tau adaptive or fixed.
    "dfs-fq-nocpr": [CHILD + " dfs limit 100000 sched fq nocpr"],
    "dfs-cpr": [CHILD + " dfs limit 100000 sched fifo cpr adaptive " + PAPER],
    "dfs-fq-cpr": [CHILD + " dfs limit 100000 sched fq cpr adaptive " + PAPER],
    # Sampling periods of 10 ms (eight packets at 10 Mbit/s, where 1 ms
    # holds less than one), tau kept over a TCP flow's CPR under the
    # attack (a third: its duty cycle) and in slow start, and 128 packets
    # before a verdict, drops as the signal: the lab's sweep of scenario 6
    # (doc/lab.md).
    "dfs-fq-cpr10": [CHILD + " dfs limit 100000 sched fq cpr adaptive "
                     "cpr_period 10ms cpr_tau_min 0.6 cpr_min_packets 128 "
                     "cpr_signal drops"],
    # The papers' settings but for the period: 10 ms holds about eight
    # packets at 10 Mbit/s, where 1 ms holds less than one.
    "dfs-fq-cpr-p10": [CHILD + " dfs limit 100000 sched fq cpr adaptive "
                       "cpr_period 10ms cpr_tau_min 0.2 cpr_min_packets 16 "
                       "cpr_signal drops"],
    # cpr_signal surges: a period is congested when more came in it than
    # the link sends in 1.5 periods (less the top flow's bytes), not when
    # something was dropped; with dfs-fq-cpr10's tau_min, and with the
    # paper's.  64 packets before a verdict: the attackers of scenario 6
    # held before Algorithm 3 lists TCP hosts for their rate (with 128
    # it did first); 32 listed a TCP host of 6f in its slow start
    # (doc/dfs.md, low-rate attacks).  The lab's hand-tuned settings for
    # 10 Mbit/s, which the defaults now derive.
    "dfs-fq-cprs": [CHILD + " dfs limit 100000 sched fq cpr adaptive "
                    "cpr_period 10ms cpr_tau_min 0.6 cpr_min_packets 64 "
                    "cpr_signal surges"],
    "dfs-fq-cprs-p": [CHILD + " dfs limit 100000 sched fq cpr adaptive "
                      "cpr_period 10ms cpr_tau_min 0.2 cpr_min_packets 16 "
                      "cpr_signal surges"],
    "dfs-fq-tau0.2": [CHILD + " dfs limit 100000 sched fq cpr tau 0.2 "
                      + PAPER],
    "dfs-fq-tau0.6": [CHILD + " dfs limit 100000 sched fq cpr tau 0.6 "
                      + PAPER],
    "dfs-fq-tau0.8": [CHILD + " dfs limit 100000 sched fq cpr tau 0.8 "
                      + PAPER],
    # LRU-FQ as its paper: heavy flows (the LRU's threshold) to a class
    # with a third of the weight of everyone else's, a flow's packets
    # counted from its admission on (window 0).  The cache must then be
    # smaller than the number of flows, as the paper sizes it, or no flow
    # is ever evicted and every flow, TCP too, crosses the threshold:
    # 6 entries and 125 packets for the lab's 10-16 flows (the setting
    # lrufq_flood.sh tests).
    "stfq+lrufq": LRUFQ + ["filter add dev DEV parent 10: protocol all "
                           "prio 1 lrufq cache 6 probability 1/50 "
                           "threshold 125 window 0 high 10:2 low 10:1"],
    # A cache larger than any scenario's flow count, as an operator who
    # cannot know the count would size it: the paper's counter (-w0),
    # and lrufq's default window, 125 packets a second.
    "stfq+lrufq-c64-w0": LRUFQ + ["filter add dev DEV parent 10: protocol "
                                  "all prio 1 lrufq cache 64 probability "
                                  "1/50 threshold 125 window 0 "
                                  "high 10:2 low 10:1"],
    "stfq+lrufq-c64": LRUFQ + ["filter add dev DEV parent 10: protocol all "
                               "prio 1 lrufq cache 64 probability 1/50 "
                               "threshold 125 high 10:2 low 10:1"],
    "pfifo": [CHILD + " pfifo limit 70"],
    "red": [CHILD + " red limit 100000 avpkt 1000 min 15000 max 45000 "
            "burst 25 probability 0.1 bandwidth RATE"],
    "sfb": [CHILD + " sfb limit 70"],
    "sfq": [CHILD + " sfq limit 70"],
    "fq_codel": [CHILD + " fq_codel limit 70"],
    "cake": [CHILD + " cake bandwidth RATE"],
    # cake's per-host fairness (the peer of dfs key src).
    "cake-srchost": [CHILD + " cake bandwidth RATE dual-srchost"],
    "hhf": [CHILD + " hhf limit 70"],
    "choke": [CHILD + " choke limit 70 bandwidth RATE min 15 max 45 "
              "avpkt 1000 burst 25"],
    "pie": [CHILD + " pie limit 70"],
    # Scenario 7, the scored ranges: the binary decision (drop every
    # suspect range, nft), and HiShape's rates from the scores.  A range
    # queues 10 packets, about a second at the 70-120 kbit/s of a
    # misscored host: the default 32 would be four.
    "droplist": [CHILD + " pfifo limit 70"],
    "hishape": [CHILD + " hishape ranges RANGES limit 10 pass_limit 70"],
}

# LRU-FQ's sweep (scenarios.LRUFQ_SWEEP): weights 1:1, so TCP's share is
# the low class's, and the filter's defaults but for the cache.
LRUFQ_EQUAL = [LRUFQ[0],
               "class add dev DEV parent 10: classid 10:1 stfq weight 1",
               "class add dev DEV parent 10: classid 10:2 stfq weight 1",
               LRUFQ[3], LRUFQ[4]]
QDISCS.update({"lrufq-c%d" % c: LRUFQ_EQUAL + [
    "filter add dev DEV parent 10: protocol all prio 1 lrufq cache %d "
    "high 10:2 low 10:1" % c] for c in scenarios.LRUFQ_CACHES})

NFT = {"droplist": scores.nft_droplist}
# Those that need a scenario with scored ranges.
SCORED = ("droplist", "hishape")

# The variants run where a scenario asks for them (tools/lab -q).
VARIANTS = ("dfs-src", "dfs-nocpr", "dfs-fq-src", "dfs-fq-sd", "dfs-fq-5t",
            "dfs-fq-nocpr",
            "dfs-cpr", "dfs-fq-cpr",
            "dfs-fq-cpr10", "dfs-fq-cpr-p10", "dfs-fq-cprs", "dfs-fq-cprs-p",
            "dfs-fq-tau0.2", "dfs-fq-tau0.6", "dfs-fq-tau0.8",
            "cake-srchost", "stfq+lrufq-c64-w0", "stfq+lrufq-c64") + SCORED \
    + tuple("lrufq-c%d" % c for c in scenarios.LRUFQ_CACHES)
DEFAULT = [k for k in QDISCS if k not in VARIANTS]

# Keys of "tc -j -s qdisc show" that count ECN marks, per kind (cake
# counts per tin).
MARK_KEYS = {"dfs": ("ecn_marked", "codel_marks"), "fq_codel": ("ecn_mark",),
             "pie": ("ecn_mark",), "red": ("marked",), "sfb": ("marked",),
             "choke": ("marked",)}


def commands(name, dev, ranges=None):
    return [c.replace("DEV", dev).replace("RANGES", ranges or "-")
            .replace("RATE", scenarios.LINK_RATE) for c in QDISCS[name]]


def ecn_marks(qdisc_json):
    """ECN marks of every qdisc below the shaper, from tc -j -s."""
    total = 0
    for q in qdisc_json:
        if q.get("root"):
            continue
        for key in MARK_KEYS.get(q.get("kind"), ()):
            total += int(q.get(key, 0) or 0)
        for tin in q.get("options", {}).get("tins", []) or []:
            total += int(tin.get("ecn_marked_packets", 0) or 0)
    return total
