#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Plots of a lab scenario's results (run on the host, after the VM).

  plot.py results/scenario1

throughput.png  per qdisc, the goodput of each flow class over time (and,
                for DFS, how many flows it lists as malicious)
queue.png       the bottleneck's backlog and the ping RTT over time, one
                line per qdisc
summary.png     attack goodput and legitimate TCP's Jain's index per qdisc

A flent scenario (rrul): flent's own plots instead (rrul.py plot); the
upstream scenario: upstream.py plot.
"""
import json
import math
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics                  # noqa: E402
import scenarios                # noqa: E402

COLORS = {scenarios.ATTACK: "tab:red", scenarios.TCP: "tab:blue",
          scenarios.GOOD_UDP: "tab:green", scenarios.MICE: "tab:purple",
          scenarios.ELEPHANT: "tab:orange",
          scenarios.TCP_MISSCORED: "tab:cyan",
          scenarios.MICE_MISSCORED: "tab:pink"}


def throughput(scn, runs, path):
    n = len(runs)
    cols = min(n, 4)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows),
                             sharex=True, sharey=True, squeeze=False)
    classes = sorted({f.cls for f in scn.flows})
    for ax, (kind, raw) in zip(axes.flat, runs.items()):
        for cls in classes:
            s = metrics.class_series(scn, raw, cls)
            ax.plot(range(len(s)), [v / 1e6 for v in s], color=COLORS[cls],
                    label="%s (%d)" % (cls, len(scn.flows_of(cls))))
        for start, end, label in scn.phases:
            ax.axvline(start, color="grey", lw=0.5, ls=":")
            ax.text(start + 0.3, 10.6, label, fontsize=7, color="grey")
        ax.axvspan(0, scn.warmup, color="grey", alpha=0.1)
        if kind.startswith("dfs"):
            t0 = raw["t_start"]
            pts = [(s["t"] - t0, len(s.get("marked", [])))
                   for s in raw["samples"] if s["t"] >= t0]
            tw = ax.twinx()
            tw.step([p[0] for p in pts], [p[1] for p in pts], where="post",
                    color="black", lw=0.8, ls="--")
            tw.set_ylim(0, max(6, max((p[1] for p in pts), default=0) + 1))
            tw.set_ylabel("flows marked (--)", fontsize=7)
            tw.tick_params(labelsize=7)
        ax.set_title(kind, fontsize=9)
        ax.set_ylim(0, 11)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
    for ax in axes.flat[n:]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("s", fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("Mbit/s", fontsize=8)
    axes.flat[0].legend(fontsize=7, loc="upper right")
    fig.suptitle("%s: %s\ngoodput per class at the receiver (shaded: "
                 "warm-up, not measured)" % (scn.name, scn.title), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def queue(scn, runs, path):
    fig, (q, d) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    cmap = plt.get_cmap("tab10")
    for i, (kind, raw) in enumerate(runs.items()):
        t0 = raw["t_start"]
        pts = [(s["t"] - t0, s.get("backlog", 0) / 1000)
               for s in raw["samples"] if s["t"] >= t0]
        style = {"color": cmap(i % 10), "ls": "-" if i < 10 else "--",
                 "lw": 2.0 if kind.startswith("dfs") else 1.0}
        q.plot([p[0] for p in pts], [p[1] for p in pts], label=kind, **style)
        rtt = raw["ping"]["rtt"]
        d.plot([t - t0 for t, _ in rtt], [x for _, x in rtt], **style)
    q.set_ylabel("backlog under the shaper (KB)")
    q.set_yscale("symlog", linthresh=10)   # cake's buffer is 20x the others
    d.set_ylabel("ping RTT through the bottleneck (ms)")
    d.set_yscale("log")
    d.set_xlabel("s")
    q.legend(fontsize=7, ncol=4)
    for ax in (q, d):
        ax.grid(alpha=0.3)
    fig.suptitle("%s: queue and delay" % scn.name, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def summary_bars(summary, path):
    rows = [r for r in summary["rows"] if not r.get("failed")]
    names = [r["qdisc"] for r in rows]
    fig, (a, j) = plt.subplots(1, 2, figsize=(11, 3.6))
    a.bar(names, [r["attack_kbps"] for r in rows], color="tab:red")
    a.set_ylabel("attack goodput (kbit/s)")
    j.bar(names, [r["jain"] or 0 for r in rows], color="tab:blue")
    j.set_ylabel("Jain's index (%s)" % ("hosts" if "hog" in summary["title"]
                                        or "host" in summary["title"]
                                        else "TCP"))
    j.set_ylim(0, 1.05)
    bars_done(fig, (a, j), summary, path)


def bars_done(fig, axes, summary, path):
    """Labels, grid and title of a figure of bars per qdisc; saved."""
    for ax in axes:
        ax.tick_params(axis="x", rotation=45, labelsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(summary["scenario"] + ": " + summary["title"], fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def collateral(summary, path):
    """Scenario 7: the botnet's goodput, and what each defence leaves the
    honest hosts, well scored beside misscored."""
    rows = [r for r in summary["rows"] if not r.get("failed")]
    names = [r["qdisc"] for r in rows]
    x = range(len(rows))
    fig, (a, t, w) = plt.subplots(1, 3, figsize=(14, 3.8))
    a.bar(names, [r["attack_kbps"] / 1000 for r in rows], color="tab:red")
    a.set_ylabel("botnet goodput (Mbit/s)")
    for ax, key, label in ((t, "tcp_kbps", "TCP goodput per host (kbit/s)"),
                           (w, "web", "web fetches completed")):
        for off, who, color in ((-0.2, "well", "tab:blue"),
                                (0.2, "mis", "tab:cyan")):
            vals = [r["scored"][who + "_" + key] for r in rows]
            if key == "web":
                vals = [v["completed"] for v in vals]
            ax.bar([i + off for i in x], [v or 0 for v in vals], width=0.4,
                   color=color, label="well scored" if who == "well"
                   else "misscored")
        ax.set_xticks(list(x))
        ax.set_xticklabels(names)
        ax.set_ylabel(label)
        ax.legend(fontsize=7)
    # A misscored host's 70 kbit/s beside a well-scored one's 3 Mbit/s.
    t.set_yscale("symlog", linthresh=10)
    bars_done(fig, (a, t, w), summary, path)


def main():
    out = sys.argv[1]
    with open(os.path.join(out, "summary.json")) as fh:
        summary = json.load(fh)
    if summary.get("flent"):
        import rrul
        rc = rrul.plot(out)
        print("plots: %s/*.png (flent's)" % out)
        return rc
    if summary.get("scenario") == "upstream":
        import upstream
        upstream.plot(out)
        print("plots: %s/upstream.png" % out)
        return 0
    summary, scn, runs = metrics.load(out)
    runs = {k: v for k, v in runs.items() if v}
    if not runs:
        sys.exit("plot: no runs in %s" % out)
    throughput(scn, runs, os.path.join(out, "throughput.png"))
    queue(scn, runs, os.path.join(out, "queue.png"))
    if scn.ranges:
        collateral(summary, os.path.join(out, "summary.png"))
    else:
        summary_bars(summary, os.path.join(out, "summary.png"))
    print("plots: %s/{throughput,queue,summary}.png" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
