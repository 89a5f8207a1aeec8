#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables and plot of tools/bench/bench.sh results.

report.py [DIR]   (default results/bench)

Reads DIR/raw.csv, DIR/memory.csv and DIR/meta.txt; writes DIR/table.md
(medians, ratios to pfifo and fq_codel measured in the same boot, the
targets of the benchmark) and DIR/pps.png (packets per second against the
number of flows, log scale, one line per qdisc).  Exits 1 only when there
is nothing to report.
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

ORDER = ["pfifo", "fq_codel", "sfb", "hhf", "fq", "cake", "drr", "drr-flow",
         "drr-lrufq", "stfq-mall", "stfq", "dfs", "dfs-fq"]
LABEL = {"drr": "drr + matchall", "drr-flow": "drr + flow",
         "drr-lrufq": "drr + lrufq", "stfq-mall": "stfq + matchall",
         "stfq": "stfq + lrufq", "dfs-fq": "dfs sched fq"}
# The memory budget per flow of each DFS sched at 1M flows, bytes: the
# flow (dfs_qdisc.c) and its share of the B-tree's nodes, 96 in sched
# fifo, and of the hash index over the tree, 16 there (15 to 29 bytes at
# other counts: doc/dfs.md).
MEM_BUDGET = {"dfs": 116, "dfs-fq": 128}


def flows_label(n):
    n = int(n)
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return "%dM" % (n >> 20)
    if n >= 1000 and n % 1024 == 0:
        return "%dk" % (n // 1024)
    if n >= 1000 and n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


def load(path):
    runs = defaultdict(dict)
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["scenario"], row["qdisc"], int(row["flows"]),
                   row["param"])
            runs[key][int(row["run"])] = float(row["pps"])
    return {k: statistics.median(v.values()) for k, v in runs.items()}, runs


# Ratio of two qdiscs: the median over the rounds of the ratio within a
# round, where the two ran a few seconds apart (paired, so a slow spell of
# the host weighs on both), else the ratio of the medians.
RUNS = {}


def pairs(ka, kb):
    a, b = RUNS.get(ka, {}), RUNS.get(kb, {})
    return [a[i] / b[i] for i in a if i in b and b[i]]


def pratio(ka, kb):
    p = pairs(ka, kb)
    return statistics.median(p) if p else None


# How far a ratio's rounds spread: (max - min) / median.
def pspread(ka, kb):
    p = pairs(ka, kb)
    if len(p) < 2:
        return None
    return (max(p) - min(p)) / statistics.median(p)


# A qdisc's own instructions a packet against another's, under icount:
# each above pfifo's in the same round (what pktgen, TBF and the free cost
# every qdisc alike taken out), the median over the rounds of kb's over
# ka's (so "ka is this many times cheaper than kb").
def own_ratio(ka, kb, base):
    a, b, p = RUNS.get(ka, {}), RUNS.get(kb, {}), RUNS.get(base, {})
    r = [(1e9 / b[i] - 1e9 / p[i]) / (1e9 / a[i] - 1e9 / p[i])
         for i in a if i in b and i in p and 1e9 / a[i] > 1e9 / p[i]]
    if not r:
        return None, None
    own = statistics.median(1e9 / a[i] - 1e9 / p[i] for i in a if i in p)
    sp = (max(r) - min(r)) / statistics.median(r) if len(r) > 1 else None
    return statistics.median(r), (own, sp)


# Under icount, the instructions a packet of ka costs beyond one of kb,
# the median over the rounds; else None.
def insn_delta(ka, kb):
    a, b = RUNS.get(ka, {}), RUNS.get(kb, {})
    d = [1e9 / a[i] - 1e9 / b[i] for i in a if i in b and a[i] and b[i]]
    return statistics.median(d) if ICOUNT and d else None


# Under QEMU's -icount shift=0 the guest's clock advances a nanosecond per
# guest instruction: its "packets per second" are packets per 10^9
# instructions, and 10^9 / pps is the instructions a packet costs, the
# whole path (pktgen, dev_queue_xmit, the qdisc, the free) included.
ICOUNT = False


def kpps(x):
    if ICOUNT:
        return "%.0f insn" % (1e9 / x)
    return "%.1fk" % (x / 1000) if x < 100000 else "%.0fk" % (x / 1000)


def ratio(a, b):
    return "%.2f" % (a / b) if a and b else "-"


def fmt(r):
    return "%.2f" % r if r is not None else "-"


def pps_table(med, scen, out):
    keys = [k for k in med if k[0] == scen and not k[3]]
    if not keys:
        return
    flows = sorted({k[2] for k in keys})
    qds = [q for q in ORDER if any(k[1] == q for k in keys)]
    out.append("| qdisc | " + " | ".join(
        "%s flows: %s, x pfifo, x fq_codel"
        % (flows_label(n), "insn/packet" if ICOUNT else "pps")
        for n in flows) + " |")
    out.append("|---|" + "---:|" * len(flows))
    for q in qds:
        cells = []
        for n in flows:
            v = med.get((scen, q, n, ""))
            if v is None:
                cells.append("-")
                continue
            cells.append("%s, %s, %s" % (
                kpps(v), fmt(pratio((scen, q, n, ""), (scen, "pfifo", n, ""))),
                fmt(pratio((scen, q, n, ""),
                           (scen, "fq_codel", n, "")))))
        out.append("| %s | %s |" % (LABEL.get(q, q), " | ".join(cells)))
    out.append("")


def sweep_table(med, scen, name, base, out):
    keys = sorted((k for k in med if k[0] == scen),
                  key=lambda k: int(k[3].split("=")[1]))
    if not keys:
        return
    ref = med.get((scen, "dfs", keys[0][2], "%s=%s" % (name, base)))
    out.append("| %s | %s | x %s %s |" % (
        name, "insn/packet" if ICOUNT else "pps", name, base))
    out.append("|---:|---:|---:|")
    for k in keys:
        out.append("| %s | %s | %s |" % (k[3].split("=")[1], kpps(med[k]),
                                          ratio(med[k], ref)))
    out.append("")
    return keys[0][2]


# The benchmark's targets (doc/benchmark.md): (name, wanted, ratio key
# pair or None, bound).
def targets(med, mem, out):
    def m(scen, q, n):
        return med.get((scen, q, n, ""))

    def paired(name, ka, kb, bound):
        r = pratio(ka, kb)
        if r is None:
            return
        sp = pspread(ka, kb)
        rows.append((name, ">= %.2f" % bound, fmt(r),
                     "%.1f%%" % (100 * sp) if sp is not None else "-",
                     r >= bound))

    rows = []
    # At the root of an idle dummy device fq_codel is bypassed (its queue
    # is empty): under the TBF ("load") it does its work, as DFS always.
    for scen, where in (("mix", "root, fq_codel bypassed"),
                        ("load", "under a TBF, no bypass")):
        paired("dfs (sched fifo) at 1k flows against fq_codel (%s)" % where,
               (scen, "dfs", 1000, ""), (scen, "fq_codel", 1000, ""), 1.0)
        paired("dfs sched fq at 1k flows against fq_codel (%s)" % where,
               (scen, "dfs-fq", 1000, ""), (scen, "fq_codel", 1000, ""),
               1.0)
    d1, d1m = m("mix", "dfs", 1), m("mix", "dfs", 1 << 20)
    if d1 and d1m:
        # two flow counts are never in one round: the ratio of the medians,
        # and the same with pfifo's drift between them taken out
        rows.append(("dfs at 1M flows against dfs at 1 flow (medians)",
                     ">= 0.85", ratio(d1m, d1), "-", d1m / d1 >= 0.85))
        p1, p1m = m("mix", "pfifo", 1), m("mix", "pfifo", 1 << 20)
        if p1 and p1m:
            r = (d1m / p1m) / (d1 / p1)
            rows.append(("same, each against pfifo in its round",
                         ">= 0.85", fmt(r), "-", r >= 0.85))
    for q, budget in MEM_BUDGET.items():
        rs = [r for r in mem if r.get("qdisc", "dfs") == q]
        if not rs:
            continue
        last = max(rs, key=lambda r: int(r["flows"]))
        per = max(float(last["usage_per_flow"]), float(last["slab_per_flow"]))
        rows.append(("%s kernel memory per flow at %s flows (slab and vmalloc growth, "
                     "memory_usage)"
                     % (LABEL.get(q, q), flows_label(last["flows"])),
                     "<= %d B" % budget, "%s B, %s B" % (
                         last["slab_per_flow"], last["usage_per_flow"]),
                     "-", per <= budget))
    n = max((k[2] for k in med if k[0] == "flood"), default=None)
    if n is not None:
        for q in ("dfs", "dfs-fq"):
            paired("flood: %s against fq_codel, %s flows"
                   % (LABEL.get(q, q), flows_label(n)),
                   ("flood", q, n, ""), ("flood", "fq_codel", n, ""), 2.0)
        for q in ("dfs", "dfs-fq") if ICOUNT else ():
            r, extra = own_ratio(("flood", q, n, ""),
                                 ("flood", "fq_codel", n, ""),
                                 ("flood", "pfifo", n, ""))
            if r is None:
                continue
            own, sp = extra
            rows.append(("flood: %s's own instructions above pfifo's (%.0f) "
                         "against fq_codel's" % (LABEL.get(q, q), own),
                         ">= 2.00", fmt(r),
                         "%.1f%%" % (100 * sp) if sp is not None else "-",
                         r >= 2.0))
    for n in sorted({k[2] for k in med if k[0] == "mix"}):
        paired("stfq + lrufq against drr + matchall, %s flows"
               % flows_label(n), ("mix", "stfq", n, ""), ("mix", "drr", n, ""),
               1.0)
    # Not targets: the peer whose classifier reads each packet's flow, and
    # the pair taken apart, each half against DRR's or matchall's.
    for qa, qb, what in (
            ("stfq", "drr-flow", "stfq + lrufq against drr + flow (hash of "
             "the addresses, 2 classes)"),
            ("stfq-mall", "drr", "the scheduler alone: stfq against drr, "
             "both + matchall"),
            ("drr-lrufq", "drr", "the classifier alone: lrufq against "
             "matchall, both under drr"),
            ("drr-lrufq", "drr-flow", "the classifier alone: lrufq against "
             "flow, both under drr")):
        for n in sorted({k[2] for k in med if k[0] == "mix"}):
            ka, kb = ("mix", qa, n, ""), ("mix", qb, n, "")
            r = pratio(ka, kb)
            if r is None:
                continue
            sp = pspread(ka, kb)
            d = insn_delta(ka, kb)
            rows.append(("%s, %s flows" % (what, flows_label(n)), "-",
                         fmt(r) + ("" if d is None else
                                   " (%+.0f insn)" % d),
                         "%.1f%%" % (100 * sp) if sp is not None else "-",
                         None))
    if not rows:
        return
    out.append("| target | wanted | measured | spread of rounds | met |")
    out.append("|---|---:|---:|---:|---|")
    for name, want, got, sp, ok in rows:
        met = "-" if ok is None else "yes" if ok else "**no**"
        out.append("| %s | %s | %s | %s | %s |" % (name, want, got, sp, met))
    out.append("")


YLABEL = "kpps offered through the qdisc (median)"


def plot(med, path):
    global YLABEL
    if ICOUNT:
        YLABEL = "packets per 10^9 guest instructions, k (median)"
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(s, t) for s, t in (
        ("mix", "fair mix: N flows, equal"),
        ("load", "fair mix under a 10 Gbit/s TBF: no bypass"),
        ("flood", "flood: 4 sources into a 2 Mbit/s TBF parent"))
        if any(k[0] == s for k in med)]
    if not panels:
        return          # a run of scenarios that have no panel (ingress)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.8),
                             squeeze=False)
    for ax, (scen, title) in zip(axes[0], panels):
        keys = [k for k in med if k[0] == scen and not k[3]]
        if len({k[2] for k in keys}) == 1:
            # One flow count: a bar per qdisc.
            qds = [q for q in ORDER if any(k[1] == q for k in keys)]
            vals = [med[(scen, q, keys[0][2], "")] / 1000 for q in qds]
            ax.barh([LABEL.get(q, q) for q in qds], vals,
                    color=["black" if q.startswith("dfs") else "tab:blue"
                           for q in qds])
            ax.set_xlabel(YLABEL)
            ax.set_title("%s, %s flows known" % (title,
                                                 flows_label(keys[0][2])),
                         fontsize=10)
            ax.grid(True, axis="x", alpha=0.3)
            continue
        for q in ORDER:
            pts = sorted((k[2], med[k]) for k in keys if k[1] == q)
            if not pts:
                continue
            style = {}
            if q.startswith("dfs"):
                style = {"linewidth": 2.5, "color": "black",
                         "linestyle": "--" if q == "dfs-fq" else "-"}
            ax.plot([p[0] for p in pts], [p[1] / 1000 for p in pts],
                    marker="o", label=LABEL.get(q, q), **style)
        ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("flows")
        ax.set_ylabel(YLABEL)
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        if keys:
            ax.legend(fontsize=8)
    fig.suptitle("pktgen queue_xmit, 64-byte UDP, dummy device "
                 "(QEMU TCG%s: compare ratios, not absolute numbers)"
                 % (", -icount" if ICOUNT else ""),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "results/bench"
    raw = os.path.join(d, "raw.csv")
    if not os.path.exists(raw):
        sys.exit("report: no %s" % raw)
    med, runs = load(raw)
    RUNS.update(runs)
    if not med:
        # BENCH_SCENARIOS=profile alone measures nothing to tabulate
        profiles = sorted(f for f in os.listdir(d)
                          if f.startswith("profile-") and f.endswith(".txt"))
        if profiles:
            print("report: no measurements, %d profiles in %s"
                  % (len(profiles), d))
            return
        sys.exit("report: %s has no measurements" % raw)
    mem = []
    if os.path.exists(os.path.join(d, "memory.csv")):
        with open(os.path.join(d, "memory.csv")) as f:
            mem = list(csv.DictReader(f))
    meta = {}
    if os.path.exists(os.path.join(d, "meta.txt")):
        with open(os.path.join(d, "meta.txt")) as f:
            for line in f:
                k, _, v = line.partition(":")
                meta[k.strip()] = v.strip()

    global ICOUNT
    ICOUNT = meta.get("clock", "").startswith("icount")
    out = ["# sch_dfs benchmark", ""]
    out.append("%s; guest kernel %s, %s vCPU (%s) on %s, clocksource %s, "
               "guest clock %s; median of %s runs of %s s each (the "
               "flood's: %s s), qdiscs taken in turn within a round (the "
               "flood's each in its stretch, the flood never paused)."
               % (meta.get("date", "?"), meta.get("kernel", "?"),
                  meta.get("vcpus", "?"), meta.get("cpu", "?"),
                  meta.get("host", "?"), meta.get("clocksource", "?"),
                  meta.get("clock", "wall"),
                  meta.get("runs", "?"), meta.get("secs_per_run", "?"),
                  meta.get("flood_secs_per_run", "?")))
    out.append("")
    if ICOUNT:
        out.append("The guest's clock counts its instructions (QEMU -icount "
                   "shift=0): a packet's cost is the guest instructions of "
                   "its whole path, the same in every run whatever the "
                   "host's load, and ratios are of instruction counts "
                   "(pps ratios). It weighs no cache miss: the host-side "
                   "table (lookup.md) does.")
        out.append("")
    out.append("## Targets")
    out.append("")
    targets(med, mem, out)
    out.append("## Fair mix: packets per second through the qdisc")
    out.append("")
    pps_table(med, "mix", out)
    if any(k[0] == "load" for k in med):
        out.append("## Fair mix under a 10 Gbit/s TBF (no qdisc bypassed)")
        out.append("")
        pps_table(med, "load", out)
    out.append("## Flood from 4 sources under a 2 Mbit/s TBF")
    out.append("")
    pps_table(med, "flood", out)
    if any(k[0] == "pulse" for k in med):
        out.append("## The same flood in bursts: the qdiscs timed in turn "
                   "(an on-off flood)")
        out.append("")
        pps_table(med, "pulse", out)
    eg, ing = (med.get(("ingress", "dfs", 1, w)) for w in ("egress",
                                                            "ingress"))
    if eg and ing:
        out.append("## A flood packet's cost to the router: refused by DFS "
                   "at egress, or dropped at ingress by dfs-guard's rule")
        out.append("")
        out.append("| where the flood is dropped | %s | cost x DFS's refusal |"
                   % ("insn/packet" if ICOUNT else "pps"))
        out.append("|---|---:|---:|")
        out.append("| DFS at egress (received, forwarded, refused) | %s | "
                   "1.00 |" % kpps(eg))
        out.append("| nftables at ingress (a set of pairs, as dfs-guard's) "
                   "| %s | %.2f |" % (kpps(ing), eg / ing))
        out.append("")
    if mem:
        out.append("## DFS kernel memory")
        out.append("")
        out.append("| qdisc | flows | memory_usage | B/flow | slab + vmalloc growth "
                   "| B/flow |")
        out.append("|---|---:|---:|---:|---:|---:|")
        for r in mem:
            q = r.get("qdisc", "dfs")
            out.append("| %s | %s | %s | %s | %s | %s |" % (
                LABEL.get(q, q), flows_label(r["flows"]), r["memory_usage"],
                r["usage_per_flow"], r["slab_growth"], r["slab_per_flow"]))
        out.append("")
    for scen, name, base, what in (
            ("order", "order", 43, "B-tree order, fair mix"),
            ("cache", "cache", 32, "cache size, flood of 4 malicious "
             "sources (cache 0: they stay in the tree)")):
        if any(k[0] == scen for k in med):
            n = [k[2] for k in med if k[0] == scen][0]
            out.append("## DFS %s, %s flows" % (what, flows_label(n)))
            out.append("")
            sweep_table(med, scen, name, base, out)

    with open(os.path.join(d, "table.md"), "w") as f:
        f.write("\n".join(out))
    print("\n".join(out))
    try:
        plot(med, os.path.join(d, "pps.png"))
    except ImportError as e:
        sys.exit("report: no plot: %s (make deps installs matplotlib)" % e)


if __name__ == "__main__":
    main()
