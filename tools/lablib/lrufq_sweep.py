#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""LRU-FQ's sweep: TCP's share of the link at each cache size, against 1,
2 or 8 UDP floods at 1x or 2x the link in all (run on the host, after
the VM: tools/lab -s lrufq-sweep).

  lrufq_sweep.py [--short] RESULTS_DIR

reads RESULTS_DIR/scenariolq<RATE>x<FLOWS>[-short] (scenarios.LRUFQ_SWEEP)
and writes RESULTS_DIR/lrufq-sweep[-short]/:

table.md   a row per cache size, a column per point: the 8 TCP hosts'
           goodput together over the link's rate, and the floods'; a
           cell whose cache holds at least the flooding flows is judged
           against GOAL (TCP at its weight's share, half, less a margin)
sweep.csv  the same, one line per cell
sweep.png  TCP's share over the cache size, a line per point

Exits 1 if a judged cell is below GOAL or missing.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics                  # noqa: E402
import scenarios                # noqa: E402

GOAL = 0.45


def cells(results, short):
    """{(key, cache): (tcp share, flood share) or None}."""
    out = {}
    link = scenarios.LINK_BPS / 1000
    for key in scenarios.LRUFQ_SWEEP:
        path = os.path.join(results, "scenario" + key + ("-short" if short else ""))
        rows = {}
        if os.path.exists(os.path.join(path, "summary.json")):
            summary, _, _ = metrics.load(path)
            rows = {r["qdisc"]: r for r in summary["rows"]
                    if not r.get("failed")}
        for c in scenarios.LRUFQ_CACHES:
            r = rows.get("lrufq-c%d" % c)
            out[key, c] = None if r is None else (
                sum(r["tcp_kbps"].values()) / link,
                r.get("attack_kbps", 0) / link)
    return out


def label(key):
    rate, n = scenarios.LRUFQ_SWEEP[key]
    return "%dx, %d flood%s" % (rate, n, "s" if n > 1 else "")


def main():
    short = "--short" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--short"]
    if len(args) != 1:
        sys.exit(__doc__)
    got = cells(args[0], short)
    out = os.path.join(args[0], "lrufq-sweep" + ("-short" if short else ""))
    os.makedirs(out, exist_ok=True)
    keys = list(scenarios.LRUFQ_SWEEP)
    bad = 0
    lines = ["TCP's share of the link (the floods') with lrufq at weights "
             "1:1; judged where the cache holds the flooding flows, goal "
             "TCP >= %d%%" % (GOAL * 100), "",
             "| cache | " + " | ".join(label(k) for k in keys) + " |",
             "|---:|" + "---:|" * len(keys)]
    for c in scenarios.LRUFQ_CACHES:
        row = []
        for k in keys:
            v = got[k, c]
            judged = c >= scenarios.LRUFQ_SWEEP[k][1]
            if v is None:
                row.append("no run")
                bad += judged
                continue
            ok = v[0] >= GOAL
            bad += judged and not ok
            row.append("%.0f%% (%.0f%%)%s" % (100 * v[0], 100 * v[1],
                                               "" if not judged else
                                               " ok" if ok else " **below**"))
        lines.append("| %d | %s |" % (c, " | ".join(row)))
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "sweep.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["point", "flood_rate", "flood_flows", "cache",
                    "tcp_share", "flood_share", "judged"])
        for k in keys:
            for c in scenarios.LRUFQ_CACHES:
                v = got[k, c]
                w.writerow([k, *scenarios.LRUFQ_SWEEP[k], c,
                            "" if v is None else round(v[0], 4),
                            "" if v is None else round(v[1], 4),
                            int(c >= scenarios.LRUFQ_SWEEP[k][1])])
    plot(got, keys, os.path.join(out, "sweep.png"))
    print("\n".join(lines))
    return 1 if bad else 0


def plot(got, keys, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for k in keys:
        xs = [c for c in scenarios.LRUFQ_CACHES if got[k, c]]
        ax.plot(xs, [100 * got[k, c][0] for c in xs], marker="o",
                label=label(k))
    ax.axhline(100 * GOAL, color="grey", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_xticks(scenarios.LRUFQ_CACHES)
    ax.set_xticklabels([str(c) for c in scenarios.LRUFQ_CACHES])
    ax.set_xlabel("lrufq cache (flows)")
    ax.set_ylabel("8 TCP hosts' share of the link (%)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=8, title="UDP floods, in all")
    ax.set_title("LRU-FQ at weights 1:1: TCP's share by cache size")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
