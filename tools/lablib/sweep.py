#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The CPR paper's sweeps (Kieu et al., Table 1 and Fig. 9), from the lab's
runs of scenario 6n and of each point of scenarios.SWEEP (run on the host,
after the VM: tools/lab -s sweep).

  sweep.py [--short] RESULTS_DIR

reads RESULTS_DIR/scenario6n[-short] and RESULTS_DIR/scenario6afi0.4[-short]
... and writes RESULTS_DIR/scenario6/:

sweep.md   one table per family (AFI: the attack's period, AWI: its burst
           width, ARI: its rate), a row per qdisc: TCP's goodput per host
           over the link's without the attack (pfifo's scenario 6n: what
           TCP gets with the link to itself, so that a qdisc that costs TCP
           by itself shows it, rather than being normalised away), the
           attack's goodput, and for DFS the attackers listed / the other
           hosts listed, with why (rate: Algorithm 3, cpr: CPR)
sweep.csv  the same, one line per qdisc and point
sweep.png  Fig. 9's three panels (TCP normalised) over the attack's
           goodput, one line per qdisc
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics                  # noqa: E402
import scenarios                # noqa: E402

CENTRE = "6afi1"               # 200 ms every 1 s at the link's rate
FAMILIES = (
    ("AFI", "the attack's period (s)", 0,
     ("6afi0.4", CENTRE, "6afi2")),
    ("AWI", "burst width (ms)", 1, ("6awi0.05", CENTRE, "6awi0.5")),
    ("ARI", "the attackers' rate together (Mbit/s)", 2,
     ("6ari5", CENTRE, "6ari20")),
)


def load(path):
    """The runs of PATH that did not fail, by qdisc, each with the hosts
    DFS ever listed for their CPR (the rest of a row's 'marked' were
    listed by Algorithm 3, for their rate); None if PATH has no runs."""
    if not os.path.exists(os.path.join(path, "summary.json")):
        return None
    summary, _, runs = metrics.load(path)
    rows = {}
    for r in summary["rows"]:
        if r.get("failed"):
            continue
        raw = runs.get(r["qdisc"]) or {}
        r["cpr_hosts"] = {metrics.host_of(ip)
                          for s in raw.get("samples", [])
                          for ip in s.get("cpr", [])}
        rows[r["qdisc"]] = r
    return rows


def param(key, idx):
    v = scenarios.SWEEP[key][idx]
    return v * 1000 if idx == 1 else v


def listed(r, names=False):
    """'attackers listed / other hosts listed', and why the others were
    (cpr: CPR; rate: Algorithm 3 only): counted, or with NAMES each host."""
    if "marked" not in r:
        return ""
    s = "%d/%d" % (len(r["marked"]) - len(r["fp"]), len(r["fp"]))
    why = {h: "cpr" if h in r["cpr_hosts"] else "rate" for h in r["fp"]}
    if names and why:
        s += " (" + " ".join("s%d %s" % hw for hw in sorted(why.items())) + ")"
    elif why:
        s += " (" + ", ".join("%d %s" % (list(why.values()).count(w), w)
                              for w in ("cpr", "rate")
                              if w in why.values()) + ")"
    return s


def main():
    args = sys.argv[1:]
    short = "--short" in args
    args = [a for a in args if a != "--short"]
    if len(args) != 1:
        sys.exit(__doc__)
    top = args[0]
    suffix = "-short" if short else ""
    base = load(os.path.join(top, "scenario6n" + suffix))
    if not base or "pfifo" not in base:
        sys.exit("sweep: no pfifo run of scenario 6n%s in %s (tools/lab -s "
                 "sweep%s)" % (suffix, top, " --short" if short else ""))
    ref = base["pfifo"]["tcp_mean_kbps"]
    points = {k: load(os.path.join(top, "scenario" + k + suffix))
              for k in scenarios.SWEEP}
    missing = [k for k, v in points.items() if not v]
    if missing:
        sys.exit("sweep: no runs of %s in %s" % (" ".join(missing), top))
    kinds = [k for k in base if all(k in p for p in points.values())]

    out = os.path.join(top, "scenario6")
    os.makedirs(out, exist_ok=True)
    lines = ["# The CPR paper's sweeps%s" % (" (short runs)" if short else ""),
             "",
             "TCP's goodput per host over pfifo's without the attack "
             "(scenario 6n: %.0f kbit/s), the attack's goodput in kbit/s "
             "in brackets, and for DFS the attackers listed / other hosts "
             "listed (why: cpr, by CPR; rate, by Algorithm 3 alone; "
             "sweep.csv names them). Bursts of the link's rate together, "
             "200 ms every second, unless swept." % ref, ""]
    rows = []
    for fam, label, idx, keys in FAMILIES:
        head = ["qdisc", "no attack"] + ["%g" % param(k, idx) for k in keys]
        lines += ["## %s: %s" % (fam, label), "",
                  "| " + " | ".join(head) + " |",
                  "|" + "---|" + "---:|" * (len(head) - 1)]
        for kind in kinds:
            b = base[kind]
            cells = [kind, "%.2f %s" % (b["tcp_mean_kbps"] / ref, listed(b))]
            for k in keys:
                r = points[k][kind]
                cells.append("%.2f (%.0f) %s" % (r["tcp_mean_kbps"] / ref,
                                                 r["attack_kbps"], listed(r)))
            lines.append("| " + " | ".join(c.strip() for c in cells) + " |")
        lines.append("")
    for kind in kinds:
        for k in ["6n"] + list(scenarios.SWEEP):
            r = base[kind] if k == "6n" else points[k][kind]
            rows.append({"qdisc": kind, "point": k,
                         "tcp_kbps": round(r["tcp_mean_kbps"], 1),
                         "tcp_norm": round(r["tcp_mean_kbps"] / ref, 3),
                         "attack_kbps": round(r["attack_kbps"], 1),
                         "listed": listed(r, names=True)})
    with open(os.path.join(out, "sweep.md"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(out, "sweep.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot(points, kinds, ref, os.path.join(out, "sweep.png"), short)
    print("sweep: %s/sweep.{md,csv,png}" % out)
    return 0


def plot(points, kinds, ref, path, short):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(14, 7), sharex="col")
    cmap = plt.get_cmap("tab20")
    for col, (fam, label, idx, keys) in enumerate(FAMILIES):
        xs = [param(k, idx) for k in keys]
        for i, kind in enumerate(kinds):
            style = {"color": cmap(i % 20), "marker": "o", "ms": 3,
                     "lw": 2.0 if kind.startswith("dfs") else 1.0,
                     "ls": "-" if kind.startswith("dfs") else "--"}
            axes[0, col].plot(xs, [points[k][kind]["tcp_mean_kbps"] / ref
                                   for k in keys], label=kind, **style)
            axes[1, col].plot(xs, [points[k][kind]["attack_kbps"]
                                   for k in keys], **style)
        axes[0, col].set_title(fam, fontsize=10)
        axes[0, col].set_ylim(0, 1.1)
        axes[1, col].set_xlabel(label)
        for ax in axes[:, col]:
            ax.grid(alpha=0.3)
            ax.tick_params(labelsize=8)
    axes[0, 0].set_ylabel("TCP goodput / without the attack")
    axes[1, 0].set_ylabel("attack goodput (kbit/s)")
    axes[0, 2].legend(fontsize=7, ncol=2)
    fig.suptitle("Scenario 6's sweeps (the CPR paper's Fig. 9)%s"
                 % (", short runs" if short else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
