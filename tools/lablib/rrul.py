#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The lab's flent scenario (RRUL): flent's tests from a client to a server
through the router, both of the router's egresses shaped.

  s1 (client: flent, fping, netperf, irtt) -- r -- rcv (netserver, irtt server)

The router shapes r-out (upload, s1 -> rcv) and r-s1 (download) each with
the lab's 10 Mbit/s TBF, the qdisc under test its child; netem on each
host's own veth gives the base RTT, half of it each way, so that no
delay queue sits in front of or behind the qdisc under test.  flent runs
each of the scenario's tests in turn for every qdisc, in one boot, and
goes round the qdiscs ROUNDS times, each round from the next qdisc on,
so that a drift of the emulator's speed, and whatever the first run of
a round pays, falls on every qdisc alike; its data files (.flent.gz: gzip'd
JSON) are kept in DIR/raw/ and the figures are read from them, each
qdisc's rounds pooled:

  ping p50/p99    flent's ICMP pings (fping) and its UDP probes (irtt,
                  every probe series pooled), each sample as measured,
                  over the measured window of every round
  ICMP p99 each   the ICMP p99 of each round alone, for its spread
  TCP down/up     the sum of the 4 flows each way, each its netperf's
                  interim rates over the measured window (its whole run's
                  rate where those stop: netperf gaps), Mbit/s, the mean
                  of the rounds
  guest CPU busy  the test VM's CPUs over the whole flent run: near 100%
                  the emulator, not the qdisc, sets the figures

Guest side: run.py --scenario rrul calls main().  Host side:

  rrul.py summary DIR   table.md and summary.json again from DIR/raw
  rrul.py plot DIR      flent's own plots of DIR/raw (plot.py calls it)
"""
import dataclasses
import datetime
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qdiscs                   # noqa: E402
import scenarios                # noqa: E402
from metrics import fmt, pct    # noqa: E402

CLIENT, SERVER = "s1", "rcv"
SERVER_IP = "10.0.0.2"
# The router's egress towards each side: upload leaves by r-out.
DEVS = {"up": "r-out", "down": "r-s1"}


# --- the guest's side ---------------------------------------------------------

def setup(run, scn):
    """One sender, the base RTT on the hosts' veths, the servers."""
    run.topology(1)
    # The server sends the download: MTU-sized packets, as s1's eth0
    # sends (setup_topology), not GSO bursts.
    run.in_ns(SERVER, ["ip", "link", "set", "dev", "eth0", "gso_max_segs",
                       "1"])
    half = "%gms" % (scn.rtt_ms / 2)
    for host in (CLIENT, SERVER):
        run.tc_batch(host, ["qdisc replace dev eth0 root netem delay %s "
                            "limit 1000" % half])
    procs = [run.spawn(SERVER, ["netserver", "-D", "-4"]),
             run.spawn(SERVER, ["irtt", "server", "-b", SERVER_IP])]
    return procs


def shape(run, kind):
    """The TBF and KIND under it on both of the router's egresses."""
    spec = []
    for dev in DEVS.values():
        run.in_ns("r", ["tc", "qdisc", "del", "dev", dev, "root"],
                  check=False, stderr=subprocess.DEVNULL)
        cmds = qdiscs.commands(kind, dev)
        run.bottleneck(dev, cmds)
        spec += cmds
    return spec


def tc_stats(run):
    return {way: run.qdisc_json(dev) for way, dev in DEVS.items()}


def cpu_times():
    """The guest's CPU time so far, busy and all, in ticks."""
    with open("/proc/stat") as fh:
        t = [int(x) for x in fh.readline().split()[1:]]
    return t[0] + t[1] + t[2] + t[5] + t[6] + t[7], sum(t[:8])


def data_name(kind, test, rnd):
    """A round's data file in raw/: KIND.TEST.flent.gz for the first."""
    return "%s.%s%s" % (kind, test, ".r%d" % rnd if rnd else "")


def flent_one(run, scn, kind, test, raw_dir, rnd):
    """Run TEST from the client; its data file as raw/data_name().flent.gz."""
    name = data_name(kind, test, rnd)
    tmp = os.path.join(raw_dir, name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    log = os.path.join(raw_dir, name + ".log")
    busy0, all0 = cpu_times()
    with open(log, "w") as fh:
        r = subprocess.run(["ip", "netns", "exec", run.ns(CLIENT), "flent",
                            test, "-H", SERVER_IP, "-l", str(scn.secs),
                            "-d", str(scn.delay), "-s", str(scn.step),
                            "-t", kind, "-D", tmp],
                           stdout=fh, stderr=subprocess.STDOUT,
                           timeout=scn.secs + 2 * scn.delay + 300)
    busy1, all1 = cpu_times()
    files = glob.glob(os.path.join(tmp, "*.flent.gz"))
    if r.returncode or not files:
        tail = open(log).read()[-600:]
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError("flent %s exit %d, %d data files: %s"
                           % (test, r.returncode, len(files), tail))
    dst = os.path.join(raw_dir, name + ".flent.gz")
    shutil.move(files[0], dst)
    shutil.rmtree(tmp, ignore_errors=True)
    return os.path.basename(dst), (busy1 - busy0) / max(1, all1 - all0)


def main(run, scn, kinds, out, short):
    """run.py's main for a flent scenario; RUN is the run module."""
    raw_dir = os.path.join(out, "raw")
    os.makedirs(raw_dir, exist_ok=True)
    # netperf is built into /usr/local/bin by make deps.
    path = os.environ.get("PATH", "")
    if "/usr/local/bin" not in path.split(":"):
        os.environ["PATH"] = "/usr/local/bin:" + path
    for tool in ("flent", "netperf", "netserver", "irtt", "fping"):
        if not shutil.which(tool):
            print("lab: %s: no %s on PATH: run 'make deps'" % (scn.name, tool))
            return 1
    print("lab: %s: %s; %s, %d s each, %d round%s of: %s"
          % (scn.name, scn.title, " ".join(scn.tests), scn.secs,
             scn.rounds, "s" if scn.rounds > 1 else "", " ".join(kinds)),
          flush=True)
    rc = 0
    recs = {kind: {"qdisc": kind, "tests": {t: [] for t in scn.tests}}
            for kind in kinds}
    try:
        setup(run, scn)
        time.sleep(1)           # the servers listen
        for rnd in range(scn.rounds):
            # Each round starts one qdisc further on: the first run of a
            # round (after the boot, or after pfifo's) had a tail of its
            # own, and no qdisc is to hold that place in every round.
            turn = kinds[rnd % len(kinds):] + kinds[:rnd % len(kinds)]
            for i, kind in enumerate(turn, 1):
                rec = recs[kind]
                if rec.get("failed"):
                    continue
                try:
                    rec["spec"] = shape(run, kind)
                    for test in scn.tests:
                        print("lab: %s [%d/%d] %s: %s, round %d/%d, %d s" % (
                            scn.name, i, len(kinds), kind, test, rnd + 1,
                            scn.rounds, scn.secs + 2 * scn.delay),
                            flush=True)
                        f, busy = flent_one(run, scn, kind, test, raw_dir,
                                            rnd)
                        rec["tests"][test].append(
                            {"file": f, "tc": tc_stats(run),
                             "cpu_busy": busy})
                except (subprocess.CalledProcessError,
                        subprocess.TimeoutExpired, RuntimeError,
                        OSError) as e:
                    print("lab: %s: %s failed: %s" % (scn.name, kind, e),
                          flush=True)
                    rec["failed"] = str(e)
                    rc = 1
                with open(os.path.join(raw_dir, kind + ".json"), "w") as fh:
                    json.dump(rec, fh)
        write(scn, kinds, out, short)
    finally:
        run.topo_cleanup()
    return rc


# --- figures from flent's data files -------------------------------------------

def t0_of(data):
    t0 = data["metadata"]["T0"].rstrip("Z")
    return datetime.datetime.fromisoformat(t0).replace(
        tzinfo=datetime.timezone.utc).timestamp()


def samples_of(scn, path):
    """The samples of one flent data file over the measured window."""
    with gzip.open(path, "rt") as fh:
        data = json.load(fh)
    t0 = t0_of(data)
    a, b = scn.delay + scn.warmup, scn.delay + scn.secs

    def samples(names):
        out = []
        for n in names:
            out += [s["val"] for s in data["raw_values"].get(n, [])
                    if s.get("val") is not None
                    and a <= s["t"] - t0 < b]
        return out

    gaps = []

    def tcp_sum(way):
        """The flows' sum: each flow's interim rates over the window,
        weighted by the time each covers; a flow whose interim rates
        cover under 90% of it, its whole run's (netperf's own result):
        netperf's demo mode at times stops reporting a flow that goes on
        at its share, and flent's sum then leaves it out."""
        meta = data["metadata"].get("SERIES_META", {})
        flows = [n for n in data["raw_values"]
                 if n.startswith("TCP %s " % way)
                 and meta.get(n, {}).get("RUNNER") == "NetperfDemoRunner"]
        total = None
        for n in flows:
            v = [(s["dur"], s["val"]) for s in data["raw_values"][n]
                 if s.get("val") is not None and s.get("dur")
                 and a <= s["t"] - t0 < b]
            covered = sum(d for d, _ in v)
            if covered >= 0.9 * (b - a):
                rate = sum(d * x for d, x in v) / covered
            elif meta[n].get("MEAN_VALUE") is not None:
                rate = meta[n]["MEAN_VALUE"]
                gaps.append(n)
            else:
                return None
            total = rate + (total or 0)
        return total

    pings = [n for n in data["raw_values"] if n.startswith("Ping (ms)")
             and n != "Ping (ms) avg"]
    return {"icmp": samples([n for n in pings if "ICMP" in n]),
            "udp": samples([n for n in pings if "UDP" in n]),
            "down": tcp_sum("download"),
            "up": tcp_sum("upload"),
            "netperf_gaps": gaps,
            "failed_runners": data["metadata"].get("FAILED_RUNNERS", 0)}


def mean(v):
    v = [x for x in v if x is not None]
    return sum(v) / len(v) if v else None


def figures(scn, paths):
    """The figures of a qdisc's rounds of a test, their samples pooled."""
    runs = [samples_of(scn, p) for p in paths]
    icmp = [x for r in runs for x in r["icmp"]]
    udp = [x for r in runs for x in r["udp"]]
    return {"icmp_p50_ms": pct(icmp, 50), "icmp_p99_ms": pct(icmp, 99),
            "icmp_n": len(icmp),
            "icmp_p99_rounds_ms": [pct(r["icmp"], 99) for r in runs],
            "udp_p50_ms": pct(udp, 50), "udp_p99_ms": pct(udp, 99),
            "udp_n": len(udp),
            "down_mbps": mean([r["down"] for r in runs]),
            "up_mbps": mean([r["up"] for r in runs]),
            "rounds": len(runs),
            "netperf_gaps": sum(len(r["netperf_gaps"]) for r in runs),
            "failed_runners": sum(r["failed_runners"] for r in runs)}


def drops(tcs):
    """Drops at the shaper, per way, from tc -j -s after each round's
    test, the mean of the rounds."""
    out = {}
    for way in tcs[0]:
        n = []
        for tc in tcs:
            root = next((q for q in tc[way] if q.get("root")), {})
            n.append(root.get("drops"))
        m = mean(n)
        out[way] = None if m is None else round(m)
    return out


def summarize(scn, raw_dir, kind):
    with open(os.path.join(raw_dir, kind + ".json")) as fh:
        rec = json.load(fh)
    if rec.get("failed"):
        return {"qdisc": kind, "failed": True}
    row = {"qdisc": kind}
    for test, runs in rec["tests"].items():
        if isinstance(runs, dict):      # a run before rounds
            runs = [runs]
        row[test] = figures(scn, [os.path.join(raw_dir, t["file"])
                                  for t in runs])
        row[test]["drops"] = drops([t["tc"] for t in runs])
        row[test]["guest_cpu_busy"] = mean([t.get("cpu_busy") for t in runs])
    return row


def table(scn, rows, test):
    lines = ["| qdisc | ICMP ping p50 / p99 ms | ICMP p99 of each round ms "
             "| UDP ping p50 / p99 ms "
             "| TCP down Mbit/s | TCP up Mbit/s | drops down / up "
             "| guest CPU busy |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        f = r.get(test)
        if r.get("failed") or not f:
            lines.append("| %s | failed | | | | | | |" % r["qdisc"])
            continue
        d = f["drops"]
        busy = f.get("guest_cpu_busy")
        each = " / ".join(fmt(x, "%.1f")
                          for x in f.get("icmp_p99_rounds_ms", []))
        lines.append("| %s | %s / %s | %s | %s / %s | %s | %s | %s / %s | %s |" % (
            r["qdisc"], fmt(f["icmp_p50_ms"], "%.1f"),
            fmt(f["icmp_p99_ms"], "%.1f"), each,
            fmt(f["udp_p50_ms"], "%.1f"), fmt(f["udp_p99_ms"], "%.1f"),
            fmt(f["down_mbps"], "%.2f"), fmt(f["up_mbps"], "%.2f"),
            fmt(d.get("down"), "%d"), fmt(d.get("up"), "%d"),
            "-" if busy is None else "%.0f%%" % (100 * busy)))
    gaps = ["%s %d" % (r["qdisc"], r[test]["netperf_gaps"]) for r in rows
            if not r.get("failed") and r.get(test, {}).get("netperf_gaps")]
    if gaps:
        lines.append("\nTCP flows whose netperf stopped its interim "
                     "rates, taken at their whole run's rate: %s."
                     % ", ".join(gaps))
    return "\n".join(lines) + "\n"


def write(scn, kinds, out, short):
    raw_dir = os.path.join(out, "raw")
    rows = []
    for k in kinds:
        try:
            rows.append(summarize(scn, raw_dir, k))
        except (OSError, KeyError, ValueError, TypeError) as e:
            print("lab: %s: no figures for %s: %r" % (scn.name, k, e))
            rows.append({"qdisc": k, "failed": True})
    md = ""
    for test in scn.tests:
        md += ("### %s: %s, %d s of load after %d s idle, measured from %d "
               "to %d s%s\n\n"
               % (scn.name, test, scn.secs, scn.delay,
                  scn.delay + scn.warmup, scn.delay + scn.secs,
                  ", %d rounds pooled" % scn.rounds if scn.rounds > 1
                  else ""))
        md += table(scn, rows, test) + "\n"
    with open(os.path.join(out, "table.md"), "w") as fh:
        fh.write(md)
    with open(os.path.join(out, "summary.json"), "w") as fh:
        json.dump({"scenario": scn.name, "key": scn.name, "short": short,
                   "title": scn.title, "flent": True, "tests": scn.tests,
                   "secs": scn.secs, "delay": scn.delay,
                   "warmup": scn.warmup, "rounds": scn.rounds,
                   "rows": rows}, fh, indent=1)
    print()
    print(md, flush=True)


# --- the host's side: flent's plots ---------------------------------------------

def plot(out):
    """Per qdisc and test flent's all_scaled (download, upload, ping over
    time), and per test the ICMP ping CDF of every qdisc in one plot."""
    with open(os.path.join(out, "summary.json")) as fh:
        summary = json.load(fh)
    raw_dir = os.path.join(out, "raw")
    rc = 0
    for test in summary["tests"]:
        files = []
        for row in summary["rows"]:
            f = os.path.join(raw_dir, "%s.%s.flent.gz" % (row["qdisc"], test))
            if row.get("failed") or not os.path.exists(f):
                continue
            files.append(f)
            png = os.path.join(out, "%s.%s.png" % (row["qdisc"], test))
            rc |= subprocess.run(["flent", "-i", f, "-p", "all_scaled",
                                  "-o", png], stdout=subprocess.DEVNULL
                                 ).returncode
        if files:
            args = ["flent", "-p", "icmp_cdf", "-o",
                    os.path.join(out, "%s.icmp_cdf.png" % test)]
            for f in files:
                args += ["-i", f]
            rc |= subprocess.run(args, stdout=subprocess.DEVNULL).returncode
    return rc


def main_host(argv):
    if len(argv) != 3 or argv[1] not in ("summary", "plot"):
        sys.exit("usage: rrul.py summary|plot DIR")
    out = argv[2]
    with open(os.path.join(out, "summary.json")) as fh:
        summary = json.load(fh)
    if argv[1] == "plot":
        return plot(out)
    scn = scenarios.get(summary["key"], summary["short"])
    scn = dataclasses.replace(scn, rounds=summary.get("rounds", 1),
                              tests=summary.get("tests", scn.tests))
    write(scn, [r["qdisc"] for r in summary["rows"]], out, summary["short"])
    return 0


if __name__ == "__main__":
    sys.exit(main_host(sys.argv))
