#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The lab's flagship scenarios in one table, from their summary.json.

	tools/lablib/overview.py [RESULTS_DIR]

Reads RESULTS_DIR/scenario{1,2,3b,4,6,6n}/summary.json and
RESULTS_DIR/rrul/summary.json (results/ by default), as tools/lab writes
them, and prints a markdown table with one row per qdisc and, per
scenario, the figure that scenario is about: the flood's goodput and
TCP's fairness and queue delay (1), the pulsing attackers' goodput (2),
the many-connection host's goodput and the fairness between hosts (3b),
the web fetches (4), TCP's goodput under a shrew attack over its goodput
without it (6, against pfifo's run of 6n), and in flent's rrul test, the
link loaded both ways, the ICMP ping's p99 and TCP's goodput each way
(rrul).  A scenario that was not run, or a qdisc it did not run, gives
"-".  It measures nothing itself.
"""
import json
import os
import sys

# The rows, in this order, where any scenario has them.
ORDER = ["dfs-fq", "dfs", "dfs-fq-src", "dfs-fq-5t", "dfs-fq-cprs", "stfq+lrufq",
         "fq_codel", "cake", "cake-srchost", "sfq", "sfb", "red", "pie",
         "choke", "hhf", "pfifo"]


def load(top, name):
    path = os.path.join(top, name if name == "rrul" else "scenario" + name,
                        "summary.json")
    try:
        with open(path) as f:
            return {r["qdisc"]: r for r in json.load(f)["rows"]}
    except (OSError, ValueError, KeyError):
        return {}


def kbit(x):
    return "-" if x is None else "%.0f" % x


def s1(r):
    return "%s / %.3f / %.1f" % (kbit(r["attack_kbps"]), r["jain"],
                                 r["delay_p99_ms"])


def s2(r):
    return kbit(r["attack_kbps"])


def s3b(r):
    return "%s / %.3f" % (kbit(r["attack_kbps"]), r["jain"])


def s4(r):
    m = r.get("mice") or {}
    if not m:
        return "-"
    return "%d / %.0f" % (m["completed"], m["p99_ms"] or 0)


def rrul(r):
    f = r.get("rrul")
    if not f or f.get("icmp_p99_ms") is None:
        return "-"
    return "%.0f / %.1f / %.1f" % (f["icmp_p99_ms"], f["down_mbps"] or 0,
                                   f["up_mbps"] or 0)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "results"
    runs = {k: load(top, k) for k in ("1", "2", "3b", "4", "6", "6n",
                                      "rrul")}
    base = runs["6n"].get("pfifo", {}).get("tcp_mean_kbps")

    def s6(r):
        if not base:
            return "-"
        return "%.2f (%s)" % (r["tcp_mean_kbps"] / base,
                              kbit(r["attack_kbps"]))

    cols = [("1", s1), ("2", s2), ("3b", s3b), ("4", s4), ("6", s6),
            ("rrul", rrul)]
    print("| qdisc | 1: flood kbit/s / TCP Jain / ping p99 ms "
          "| 2: pulsing attackers kbit/s | 3b: 16-connection host "
          "kbit/s / Jain between hosts | 4: web fetches / p99 ms "
          "| 6: TCP of its no-attack goodput (attack kbit/s) "
          "| RRUL: ping p99 ms / TCP down / up Mbit/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    names = [q for q in ORDER if any(q in runs[k] for k, _ in cols)]
    for q in names:
        cells = [f(runs[k][q]) if q in runs[k] and not runs[k][q].get("failed")
                 else "-" for k, f in cols]
        print("| %s | %s |" % (q, " | ".join(cells)))


if __name__ == "__main__":
    main()
