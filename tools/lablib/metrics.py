# SPDX-License-Identifier: GPL-2.0
"""The lab's figures, from the raw record of each run (run.py).

Per scenario and qdisc, over the measured window [warmup, secs):

  attack_kbps      goodput of the attack flows, summed
  tcp_mean_kbps, tcp_sd_kbps, jain
                   per-flow TCP goodput (legitimate TCP; per host when the
                   scenario compares hosts) and Jain's index of it
  good_udp_kbps    goodput of the well-behaved UDP flows, summed
  util             the shaper's own byte count over the window / link rate
  delay_*_ms       ping RTT through the bottleneck (mean, sd, p99), loss
  drops, ecn_marks from tc -j -s at the end
  sc               stability coefficient mean/sd of each class's
                   throughput per second (the MBCC paper's metric)
  marked, fp, fn   DFS only: sources ever listed malicious, legitimate ones
                   among them (false positives), attack flows never marked
                   (false negatives)
  phases           scenario 2, DFS: attack flows marked at the end of each
                   phase
  mice             scenario 4: fetches completed, failed, response time
                   percentiles
  scored           scenario 7: well-scored and misscored honest hosts
                   apart: TCP goodput per host, fetches from their web
                   servers (the collateral damage of each defence)

Writes DIR/table.md, DIR/summary.csv and DIR/summary.json.

  metrics.py DIR    makes them again from DIR/raw/*.json (no new run)
"""
import csv
import sys
import json
import math
import os

import qdiscs
import scenarios


def pct(values, p):
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, int(math.ceil(p / 100 * len(v))) - 1)]


def mean_sd(values):
    if not values:
        return None, None
    m = sum(values) / len(values)
    return m, math.sqrt(sum((x - m) ** 2 for x in values) / len(values))


def jain(values):
    q = sum(x * x for x in values)
    return sum(values) ** 2 / (len(values) * q) if values and q else 0.0


def window_end(scn):
    """End of the measured window: the senders stop within the last
    second, which would count as a partial one."""
    return scn.secs - 1


def window(scn, raw):
    return raw["t_start"] + scn.warmup, raw["t_start"] + window_end(scn)


def series(scn, raw, flow, step=1.0):
    """Per-second goodput (bit/s) of FLOW: [(seconds since start, bps)]."""
    t_start = raw["t_start"]
    n = int(scn.secs / step)
    out = [0.0] * n
    if flow.proto == "web":
        for r in raw.get("web") or []:
            if r["ok"] and r["server"] == scenarios.host_ip(flow.host):
                i = int((r["t"] + r["rt"] - t_start) / step)
                if 0 <= i < n:
                    out[i] += r["size"] * 8 / step
    else:
        sink = raw["sink"]
        bins = sink["bytes"].get(flow.key, [])
        for j, b in enumerate(bins):
            i = int((sink["t0"] + j * sink["bin"] - t_start) / step)
            if 0 <= i < n:
                out[i] += b * 8 / step
    return [(i * step, v) for i, v in enumerate(out)]


def rate(scn, raw, flow):
    """Mean goodput of FLOW over the measured window, bit/s."""
    s = [v for t, v in series(scn, raw, flow) if scn.warmup <= t < window_end(scn)]
    return sum(s) / len(s) if s else 0.0


def class_series(scn, raw, cls):
    total = None
    for f in scn.flows_of(cls):
        s = [v for _, v in series(scn, raw, f)]
        total = s if total is None else [a + b for a, b in zip(total, s)]
    return total or []


def utilisation(scn, raw):
    a, b = window(scn, raw)
    pts = [(s["t"], s["sent"]) for s in raw["samples"] if "sent" in s]
    first = next(((t, x) for t, x in pts if t >= a), None)
    last = next(((t, x) for t, x in reversed(pts) if t <= b), None)
    if not first or not last or last[0] <= first[0]:
        return None
    return (last[1] - first[1]) * 8 / (last[0] - first[0]) / scenarios.LINK_BPS


def host_of(ip):
    parts = ip.split(".")
    return int(parts[1]) if len(parts) == 4 else None


def fetches(done):
    ok = [x["rt"] * 1000 for x in done if x["ok"]]
    return {"completed": len(ok), "failed": len(done) - len(ok),
            "p50_ms": pct(ok, 50), "p90_ms": pct(ok, 90), "p99_ms": pct(ok, 99)}


def scored(scn, raw):
    """Scenario 7: what each defence does to the honest hosts, the well
    scored apart from the misscored."""
    a, b = window(scn, raw)
    out = {}
    for name, tcp_cls, web_cls in (("well", scenarios.TCP, scenarios.MICE),
                                   ("mis", scenarios.TCP_MISSCORED,
                                    scenarios.MICE_MISSCORED)):
        tcp = [rate(scn, raw, f) / 1000 for f in scn.flows_of(tcp_cls)]
        out[name + "_tcp_kbps"] = sum(tcp) / len(tcp) if tcp else None
        servers = {scenarios.host_ip(f.host) for f in scn.flows_of(web_cls)}
        out[name + "_web"] = fetches([x for x in raw.get("web") or []
                                      if a <= x["t"] < b
                                      and x["server"] in servers])
    return out


def summarize(scn, raw):
    r = {"qdisc": raw["qdisc"]}
    a, b = window(scn, raw)
    r["attack_kbps"] = sum(rate(scn, raw, f)
                           for f in scn.flows_of(scenarios.ATTACK)) / 1000
    if scn.jain_by_host:
        tcp = [f for f in scn.flows if f.proto == "tcp"]
    else:
        tcp = [f for f in scn.flows if f.proto == "tcp"
               and f.cls != scenarios.ATTACK]
    rates = [rate(scn, raw, f) / 1000 for f in tcp]
    r["tcp_kbps"] = {f.name: round(x, 1) for f, x in zip(tcp, rates)}
    r["tcp_mean_kbps"], r["tcp_sd_kbps"] = mean_sd(rates)
    r["jain"] = jain(rates) if rates else None
    good = scn.flows_of(scenarios.GOOD_UDP)
    r["good_udp_kbps"] = (sum(rate(scn, raw, f) for f in good) / 1000
                          if good else None)
    r["util"] = utilisation(scn, raw)

    rtts = [x for t, x in raw["ping"]["rtt"] if a <= t < b]
    r["delay_mean_ms"], r["delay_sd_ms"] = mean_sd(rtts)
    r["delay_p99_ms"] = pct(rtts, 99)
    p = raw["ping"]
    r["ping_loss"] = 1 - p["received"] / p["sent"] if p["sent"] else None

    root = next((q for q in raw["final"] if q.get("root")), {})
    r["drops"] = root.get("drops")
    r["ecn_marks"] = qdiscs.ecn_marks(raw["final"])

    r["sc"] = {}
    for cls in sorted({f.cls for f in scn.flows}):
        s = class_series(scn, raw, cls)[scn.warmup:window_end(scn)]
        m, sd = mean_sd(s)
        r["sc"][cls] = (m / sd if sd else None) if m else 0.0

    if raw["qdisc"].startswith("dfs"):
        truth = {f.host for f in scn.flows_of(scenarios.ATTACK)}
        marked = set()
        for s in raw["samples"]:
            marked.update(host_of(ip) for ip in s.get("marked", []))
        marked.discard(None)
        r["marked"] = sorted(marked)
        r["fp"] = sorted(marked - truth)
        r["fn"] = sorted(truth - marked)
        if scn.phases:
            r["phases"] = []
            for start, end, label in scn.phases:
                inside = [s for s in raw["samples"]
                          if raw["t_start"] + start <= s["t"] < raw["t_start"] + end]
                last = inside[-1].get("marked", []) if inside else []
                r["phases"].append({"phase": label, "end_s": end, "marked":
                                    len({host_of(i) for i in last} & truth)})
    if raw.get("web") is not None:
        r["mice"] = fetches([x for x in raw["web"] if a <= x["t"] < b])
    if scn.ranges:
        r["scored"] = scored(scn, raw)
    r["senders_ok"] = raw.get("senders_ok", True)
    return r


def fmt(x, f="%.0f"):
    return "-" if x is None else f % x


def marking(scn, r):
    if "marked" not in r:
        return "-"
    n = len(scn.flows_of(scenarios.ATTACK))
    s = "%d/%d" % (n - len(r["fn"]), n)
    if r["fp"]:
        s += "; FP " + ",".join("s%d" % h for h in r["fp"])
    else:
        s += "; FP 0"
    return s


def md_table(head, rows, cells):
    """A markdown table: HEAD, then CELLS(row) of each row that ran."""
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i == 0 else "---:"
                            for i in range(len(head))) + "|"]
    for r in rows:
        if r.get("failed"):
            lines.append("| %s | failed |" % r["qdisc"] +
                         " |" * (len(head) - 2))
        else:
            lines.append("| " + " | ".join(cells(r)) + " |")
    return "\n".join(lines) + "\n"


def table_scored(scn, rows):
    """Scenario 7's table: the botnet, and the honest hosts as the
    defence treats them, well scored and misscored."""
    head = ["qdisc", "botnet kbit/s", "TCP kbit/s per host: well scored",
            "misscored", "fetches ok/failed: well scored", "p50/p99 ms",
            "fetches ok/failed: misscored", "p50/p99 ms", "util",
            "delay mean/p99 ms", "drops"]

    def cells(r):
        sc = r["scored"]
        c = [r["qdisc"], fmt(r["attack_kbps"]), fmt(sc["well_tcp_kbps"]),
             fmt(sc["mis_tcp_kbps"])]
        for w in (sc["well_web"], sc["mis_web"]):
            c += ["%d/%d" % (w["completed"], w["failed"]),
                  "%s/%s" % (fmt(w["p50_ms"]), fmt(w["p99_ms"]))]
        c += [fmt(r["util"], "%.2f"),
              "%s/%s" % (fmt(r["delay_mean_ms"], "%.1f"),
                         fmt(r["delay_p99_ms"], "%.1f")),
              fmt(r["drops"], "%d")]
        return c
    return md_table(head, rows, cells)


def table(scn, rows):
    if scn.ranges:
        return table_scored(scn, rows)
    classes = sorted({f.cls for f in scn.flows})
    good = bool(scn.flows_of(scenarios.GOOD_UDP))
    mice = bool(scn.flows_of(scenarios.MICE))
    jain_of = "hosts" if scn.jain_by_host else "TCP"
    head = ["qdisc", "attack kbit/s", "TCP mean (sd) kbit/s",
            "Jain (%s)" % jain_of]
    if good:
        head.append("good UDP kbit/s")
    if mice:
        head += ["fetches ok/failed", "fetch p50/p99 ms"]
    head += ["util", "delay mean/sd/p99 ms", "drops", "ECN marks"]
    head += ["SC %s" % c for c in classes]
    head.append("DFS marked attack; FP")
    if scn.phases:
        head.append("marked at phase ends")

    def cells(r):
        c = [r["qdisc"], fmt(r["attack_kbps"]),
             "%s (%s)" % (fmt(r["tcp_mean_kbps"]), fmt(r["tcp_sd_kbps"])),
             fmt(r["jain"], "%.3f")]
        if good:
            c.append(fmt(r["good_udp_kbps"]))
        if mice:
            m = r.get("mice") or {}
            c += ["%s/%s" % (m.get("completed", "-"), m.get("failed", "-")),
                  "%s/%s" % (fmt(m.get("p50_ms")), fmt(m.get("p99_ms")))]
        c += [fmt(r["util"], "%.2f"),
              "%s/%s/%s" % (fmt(r["delay_mean_ms"], "%.1f"),
                            fmt(r["delay_sd_ms"], "%.1f"),
                            fmt(r["delay_p99_ms"], "%.1f")),
              fmt(r["drops"], "%d"), fmt(r["ecn_marks"], "%d")]
        c += [fmt(r["sc"].get(k), "%.1f") for k in classes]
        c.append(marking(scn, r))
        if scn.phases:
            c.append(" ".join("%s:%d" % (p["phase"], p["marked"])
                              for p in r.get("phases", [])) or "-")
        return c
    return md_table(head, rows, cells)


def flat(r):
    out = {}
    for k, v in r.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                out["%s_%s" % (k, k2)] = v2
        elif isinstance(v, list):
            out[k] = " ".join(str(x) for x in v)
        else:
            out[k] = v
    return out


def write(scn, runs, out, key, short):
    rows = []
    for kind, raw in runs.items():
        try:
            rows.append(summarize(scn, raw) if raw else None)
        except (KeyError, ValueError, ZeroDivisionError, TypeError) as e:
            print("lab: %s: no figures for %s: %r" % (scn.name, kind, e))
            rows.append(None)
        if rows[-1] is None:
            rows[-1] = {"qdisc": kind, "failed": True}
    md = table(scn, rows)
    title = "%s: %s (%d s per qdisc, measured from %d to %d s)\n\n" % (
        scn.name, scn.title, scn.secs, scn.warmup, window_end(scn))
    with open(os.path.join(out, "table.md"), "w") as fh:
        fh.write("### " + title + md)
    with open(os.path.join(out, "summary.json"), "w") as fh:
        json.dump({"scenario": scn.name, "key": key, "short": short,
                   "title": scn.title,
                   "secs": scn.secs, "warmup": scn.warmup, "rows": rows},
                  fh, indent=1)
    flats = [flat(r) for r in rows]
    keys = []
    for f in flats:
        keys += [k for k in f if k not in keys]
    with open(os.path.join(out, "summary.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(flats)
    print()
    print(title + md, flush=True)


def load(out):
    """summary.json of DIR, its scenario, and the raw record of each run
    (None for a run that failed)."""
    with open(os.path.join(out, "summary.json")) as fh:
        summary = json.load(fh)
    scn = scenarios.get(summary["key"], summary["short"])
    runs = {}
    for row in summary["rows"]:
        path = os.path.join(out, "raw", row["qdisc"] + ".json")
        runs[row["qdisc"]] = None
        if os.path.exists(path) and not row.get("failed"):
            with open(path) as fh:
                runs[row["qdisc"]] = json.load(fh)
    return summary, scn, runs


def main(out):
    summary, scn, runs = load(out)
    write(scn, runs, out, summary["key"], summary["short"])


if __name__ == "__main__":
    main(sys.argv[1])
