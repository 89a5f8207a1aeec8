#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Table and plot of tools/bench/bench_hishape.sh: the paper's Figure 1.

report_hishape.py [DIR]   (default results/bench-hishape)

Reads DIR/raw.csv, DIR/setup.csv and DIR/meta.txt; writes DIR/table.md
(median packets per second of the unlimited source, with the spread of
the runs, for each method, number of ranges and packet size; the ratio of
each to hishape at 10 ranges, measured in the same boot; the setup time)
and DIR/pps.png (pps against ranges, log scale, a panel per packet size).
Exits 1 only when there is nothing to report.
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

ORDER = ["pfifo", "hishape", "htb-u32", "u32-hash", "flower", "nft"]
LABEL = {"pfifo": "pfifo (no rule)", "hishape": "hishape",
         "htb-u32": "HTB + u32 per range", "u32-hash": "u32 hash + police",
         "flower": "flower + police", "nft": "nft interval map + limit"}
# The goal (doc/hishape.md): hishape at 100,000 ranges at least 0.9 of
# itself at 10, the cost of O(log n) against O(n) per range.
GOAL = 0.9


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "results/bench-hishape"
    raw = os.path.join(d, "raw.csv")
    if not os.path.exists(raw):
        print("report_hishape: no %s" % raw)
        return 1
    runs = defaultdict(list)
    with open(raw) as f:
        for r in csv.DictReader(f):
            runs[(r["method"], int(r["ranges"]), int(r["size"]))].append(
                float(r["pps"]))
    if not runs:
        print("report_hishape: %s is empty" % raw)
        return 1
    setup = {}
    sp = os.path.join(d, "setup.csv")
    if os.path.exists(sp):
        with open(sp) as f:
            for r in csv.DictReader(f):
                setup[(r["method"], int(r["ranges"]))] = r["seconds"]
    meta = open(os.path.join(d, "meta.txt")).read() \
        if os.path.exists(os.path.join(d, "meta.txt")) else ""

    methods = [m for m in ORDER if any(k[0] == m for k in runs)]
    ranges = sorted({k[1] for k in runs})
    sizes = sorted({k[2] for k in runs})
    med = {k: statistics.median(v) for k, v in runs.items()}

    out = ["# HiShape benchmark: the paper's Figure 1", "",
           "```", meta.strip(), "```", ""]
    for size in sizes:
        base = med.get(("hishape", min(ranges), size))
        out += ["## %d-byte packets: packets per second of the unlimited "
                "source (median of the runs, min-max)" % size, "",
                "| method | " + " | ".join("%d ranges" % n for n in ranges)
                + " |", "|---|" + "---:|" * len(ranges)]
        for m in methods:
            cells = []
            for n in ranges:
                v = runs.get((m, n, size))
                if not v:
                    cells.append("not set up" if setup.get((m, n)) == "-"
                                 else "-")
                    continue
                c = "%.0f (%.0f-%.0f)" % (med[(m, n, size)], min(v), max(v))
                if base:
                    c += ", %.2fx" % (med[(m, n, size)] / base)
                cells.append(c)
            out.append("| %s | %s |" % (LABEL.get(m, m), " | ".join(cells)))
        out.append("")
        if base and ("hishape", max(ranges), size) in med:
            r = med[("hishape", max(ranges), size)] / base
            out += ["hishape at %d ranges: %.2f of itself at %d (goal %.1f: "
                    "%s)" % (max(ranges), r, min(ranges), GOAL,
                             "met" if r >= GOAL else "not met"), ""]
    out += ["## Setup time (s, tc -batch, nft -f or hishape's load, in the "
            "guest)", "",
            "| method | " + " | ".join("%d" % n for n in ranges) + " |",
            "|---|" + "---:|" * len(ranges)]
    for m in methods:
        out.append("| %s | %s |" % (LABEL.get(m, m), " | ".join(
            setup.get((m, n), "-") for n in ranges)))
    out.append("")
    with open(os.path.join(d, "table.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report_hishape: no matplotlib, no plot")
        return 0
    fig, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 4.5),
                             squeeze=False)
    for ax, size in zip(axes[0], sizes):
        for m in methods:
            xs = [n for n in ranges if (m, n, size) in med]
            if xs:
                ax.plot(xs, [med[(m, n, size)] for n in xs], marker="o",
                        label=LABEL.get(m, m))
        ax.set_xscale("log")
        ax.set_xlabel("ranges")
        ax.set_ylabel("packets/s of the unlimited source")
        ax.set_title("%d-byte packets" % size)
        ax.grid(True, which="both", alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "pps.png"), dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
