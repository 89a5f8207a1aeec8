#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The lab's guest side: runs one scenario against a list of qdiscs.

  run.py --scenario 1 [--qdiscs "dfs pfifo ..."] [--short] [--check]
         [--baseline DIR] [--keep] [--out DIR]

A flent scenario (rrul) has a topology and runs of its own: rrul.py; so
has the upstream scenario: upstream.py.

Runs as root in the test VM (tools/vm-run.sh; tools/lab is the way in),
where our modules are loaded and the patched tc is first on PATH.  Builds
the topology of selftests/lib.sh (senders s1..sN -> router r -> receiver rcv,
all network namespaces, the bottleneck a 10 Mbit/s TBF on r's r-out),
then for each qdisc in turn: puts it under the TBF, starts the receiver's
meter, the queue monitor (qmon.py: backlog, the shaper's byte count,
DFS's marked flows), the scenario's senders, all held at a common start
(gate.py), and the ping probe, and keeps everything raw in
DIR/raw/<qdisc>.json.  Then metrics.py makes
the table, CSV and JSON; tools/lab draws the plots on the host.

--keep: re-run some qdiscs, keep the others' raw records from an earlier
run in the same DIR, and make the table of all of them.

--check (make check): assert what the scenario asks of DFS (and of each
dfs variant run): by default its classification against the ground truth
(every attack flow marked malicious at some point, no other flow ever
marked); scenario 3b: the hog host held to its share, not starved;
scenario 3u: the flood under 5% of the link; scenarios 6 and 6b (with
--baseline, the same qdiscs' run of 6n): CPR holds the attack off
(check_shrew).  Exit 1 if not.
"""
import argparse
import ctypes
import dataclasses
import json
import os
import re
import runpy
import signal
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gate                     # noqa: E402
import metrics                  # noqa: E402
import qdiscs                   # noqa: E402
import rrul                     # noqa: E402
import scenarios                # noqa: E402
import scores                   # noqa: E402
import upstream                 # noqa: E402
from scenarios import (TCP_PORT, UDP_PORT, WEB_PORT,  # noqa: E402
                       host_ip)

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
sys.path.insert(1, TOOLS)
import man_defaults             # noqa: E402  (tc's units)
PREFIX = "lab-"
DEV = "r-out"
RCV4 = "10.0.0.2"
CLONE_NEWNET = 0x40000000
NETNS_DIR = "/run/netns"
LIBC = ctypes.CDLL(None, use_errno=True)
RUNNING = []            # the tools of the current run (stop_run)


def ns(name):
    return PREFIX + name


def sh(cmd, check=True, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), check=check,
                          **kw)


def in_ns(name, args, **kw):
    """ARGS in namespace NAME; ip and tc enter it themselves (-netns),
    one exec the fewer: a tenth of a second each in the test VM."""
    if args[0] in ("ip", "tc"):
        return sh([args[0], "-netns", ns(name)] + args[1:], **kw)
    return sh(["ip", "netns", "exec", ns(name)] + args, **kw)


def spawn(name, args, out=None):
    """Start ARGS in namespace NAME, stdout to the file OUT."""
    fh = open(out, "w") if out else subprocess.DEVNULL
    return subprocess.Popen(["ip", "netns", "exec", ns(name)] + args,
                            stdout=fh, stderr=subprocess.STDOUT)


class Tool:
    """A lab tool (traffic.py, udp_cbr.py, qmon.py, web.py) run in a child
    forked from this interpreter and moved into a namespace, with what
    run_one asks of a Popen.  In the test VM's emulated CPU a new
    interpreter and its `ip netns exec` take over a second, and a run
    starts a dozen to twenty at once (20 s of each of scenario 2's runs);
    a fork of this one, its standard library loaded, takes a fraction."""

    def __init__(self, pid):
        self.pid = pid
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            time.sleep(0.05)
        return self.returncode

    def kill(self):
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)


def _tool_main(name, script, args, out):
    """The child's side of spawn_tool(): never returns."""
    code = 1
    try:
        fd = os.open(os.devnull, os.O_RDONLY)
        os.dup2(fd, 0)
        os.close(fd)
        fd = os.open(out or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                     0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        fd = os.open(os.path.join(NETNS_DIR, ns(name)), os.O_RDONLY)
        if LIBC.setns(fd, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), "setns to " + ns(name))
        os.close(fd)
        sys.argv = [script] + args
        sys.path.insert(0, os.path.dirname(script))
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
    except BaseException:      # the child must reach _exit
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def spawn_tool(name, script, args, out=None):
    """Run the Python tool SCRIPT with ARGS in namespace NAME, stdout and
    stderr to the file OUT, in a forked child (Tool)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _tool_main(name, script, args, out)
    return Tool(pid)


def tc_batch(name, lines):
    in_ns(name, ["tc", "-batch", "-"], input="\n".join(lines) + "\n",
          text=True)


# --- topology ----------------------------------------------------------------

def topo_cleanup():
    """Kill the processes in the lab's namespaces and delete them: a
    process is in one when its /proc/PID/ns/net is the namespace's file
    (the same inode), and one ip deletes them all (an "ip netns pids" and
    an "ip netns del" each were 50 execs for scenario 6's namespaces)."""
    try:
        names = [n for n in os.listdir(NETNS_DIR) if n.startswith(PREFIX)]
    except FileNotFoundError:
        return
    inodes = set()
    for n in names:
        try:
            st = os.stat(os.path.join(NETNS_DIR, n))
            inodes.add((st.st_dev, st.st_ino))
        except OSError:
            pass
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            st = os.stat("/proc/%s/ns/net" % pid)
            if (st.st_dev, st.st_ino) in inodes:
                os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
    if names:
        sh(["ip", "-force", "-batch", "-"], check=False, text=True,
           input="".join("netns del %s\n" % n for n in names),
           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def topology(hosts):
    """selftests/lib.sh's topology with HOSTS senders, afresh."""
    topo_cleanup()
    env = dict(os.environ, NS_PREFIX=PREFIX)
    sh(["bash", "-c", 'source "$1/lib.sh"; trap : EXIT; setup_topology "$2"',
        "lab", os.path.join(os.path.dirname(TOOLS), "selftests"),
        str(hosts)], env=env)


def bottleneck(dev, spec):
    """The lab's TBF at the link's rate (10 Mbit/s unless --rate) on DEV, the qdisc under test (SPEC, its tc
    commands) its child."""
    tc_batch("r", ["qdisc add dev %s root handle 1: tbf rate %s burst 32k "
                   "latency 50ms" % (dev, scenarios.LINK_RATE)] + spec)


def setup(scn):
    """selftests/lib.sh's topology, the access-link delays, the web servers."""
    topology(scn.hosts)
    # netem on both directions of each access link: the data on the
    # sender's egress, the ACKs on the router's egress towards it.
    for h, d in sorted(scn.delays.items()):
        tc_batch("s%d" % h, ["qdisc replace dev eth0 root netem delay %dms "
                             "limit 1000" % d])
    if scn.delays:
        tc_batch("r", ["qdisc replace dev r-s%d root netem delay %dms limit "
                       "1000" % (h, d) for h, d in sorted(scn.delays.items())])
    # A botnet in one sender: its sources on its eth0, the way back to
    # them in the router (whose reverse-path filter would drop them else).
    for f in scn.flows:
        if f.sources:
            in_ns("s%d" % f.host, ["ip", "-batch", "-"], text=True,
                  input="".join("addr add %s/32 dev eth0\n" % a
                                for a in f.sources))
            in_ns("r", ["ip", "route", "add", "10.%d.0.0/16" % f.host, "via",
                        host_ip(f.host)])
    for f in scn.web_servers():
        spawn_tool("s%d" % f.host, HERE + "/web.py",
                   ["serve", "--port", str(WEB_PORT)])


# --- one run -----------------------------------------------------------------

def qdisc_json(dev=DEV):
    out = in_ns("r", ["tc", "-j", "-s", "qdisc", "show", "dev", dev],
                capture_output=True, text=True, check=False).stdout
    try:
        return json.loads(out)
    except ValueError:
        return []


def ping_parse(path, offset):
    """ping -D output to [(monotonic time, rtt ms)], and the counts."""
    rtts = []
    seen = set()
    sent = 0
    with open(path) as fh:
        for line in fh:
            m = re.match(r"\[(\d+\.\d+)\].*icmp_seq=(\d+).*time=([\d.]+)", line)
            if m:
                rtts.append((float(m.group(1)) - offset, float(m.group(3))))
                seen.add(int(m.group(2)))
            m = re.search(r"(\d+) packets transmitted", line)
            if m:
                sent = int(m.group(1))
    return {"rtt": rtts, "sent": sent, "received": len(seen)}


def scored_files(scn, out):
    """Scenario 7: the hishape table and the drop list, kept beside the
    results; the path of the table."""
    if not scn.ranges:
        return None
    path = os.path.join(out, "ranges.txt")
    with open(path, "w") as fh:
        fh.write(scores.hishape_table(scn))
    with open(os.path.join(out, "droplist.nft"), "w") as fh:
        fh.write(scores.nft_droplist(scn))
    return path


def run_one(scn, kind, idx, total, raw_dir, ranges):
    in_ns("r", ["tc", "qdisc", "del", "dev", DEV, "root"], check=False,
          stderr=subprocess.DEVNULL)
    if scn.ranges:
        in_ns("r", ["nft", "flush", "ruleset"])
    if kind in qdiscs.NFT:
        in_ns("r", ["nft", "-f", "-"], input=qdiscs.NFT[kind](scn), text=True)
    spec = qdiscs.commands(kind, DEV, ranges)
    bottleneck(DEV, spec)
    tmp = os.path.join(raw_dir, kind + ".tmp")
    subprocess.run(["rm", "-rf", tmp], check=False)
    os.makedirs(tmp)
    go = os.path.join(tmp, "go")
    procs = {}
    RUNNING.clear()

    def start(name, where, args, out=None):
        ready = os.path.join(tmp, "ready." + name)
        procs[name] = spawn_tool(where, args[0],
                                 args[1:] + ["--ready", ready, "--go", go],
                                 os.path.join(tmp, out or name + ".log"))
        RUNNING.append(procs[name])

    tcp = [TCP_PORT + f.host for f in scn.flows if f.proto == "tcp"]
    udp = [UDP_PORT + f.host for f in scn.flows if f.proto == "udp"]
    start("sink", "rcv", [HERE + "/traffic.py", "sink",
                          "--tcp", ",".join(map(str, tcp)),
                          "--udp", ",".join(map(str, udp)),
                          "--time", str(scn.secs + 2),
                          "--out", os.path.join(tmp, "sink.json")])
    start("qmon", "r", [HERE + "/qmon.py", "--dev", DEV,
                        "--time", str(scn.secs + 1),
                        "--out", os.path.join(tmp, "qmon.json")])
    # Senders connect once the sink listens.
    if not wait_ready(tmp, ["sink"]):
        raise RuntimeError("the receiver's meter did not start")
    for f in scn.flows:
        if f.proto == "udp":
            sched = ",".join("%d:%g" % (r, s) for r, s in f.schedule)
            extra = (["--src", ",".join(f.sources), "--spread"]
                     if f.sources else [])
            if f.pulse:
                extra += ["--pulse", "%g:%g" % f.pulse]
            start("udp%d" % f.host, "s%d" % f.host, [
                TOOLS + "/udp_cbr.py", "send", "--dst", RCV4,
                "--port", str(UDP_PORT + f.host), "--schedule", sched] +
                extra)
        elif f.proto == "tcp":
            start("tcp%d" % f.host, "s%d" % f.host, [
                HERE + "/traffic.py", "tcp", "--dst", RCV4,
                "--port", str(TCP_PORT + f.host), "--conns", str(f.conns),
                "--time", str(scn.secs), "--start", str(f.start)])
    mice = scn.web_servers()
    if mice:
        start("web", "rcv", [
            HERE + "/web.py", "fetch", "--servers",
            ",".join(host_ip(f.host) for f in mice), "--port", str(WEB_PORT),
            "--time", str(scn.secs), "--clients", str(scn.web_clients),
            "--seed", str(scenarios.SEED),
            "--out", os.path.join(tmp, "web.json")])
    if not wait_ready(tmp, list(procs)):
        raise RuntimeError("not every process of the run started")

    offset = time.time() - time.monotonic()
    t_start = time.monotonic() + 0.5
    gate.open_gate(go, t_start)
    # ping starts in a blink (no interpreter): at the start, not gated.
    # 20 a second (16 kbit/s, a sparse flow): a p99 over a 20 s window is
    # then the 4th slowest of 400, not the slowest of 100 (the noise of
    # one sample, which moved tails by 10 ms between runs).
    time.sleep(max(0.0, t_start - time.monotonic()))
    ping = spawn("s%d" % scn.probe, [
        "ping", "-D", "-n", "-i", "0.05", "-W", "2", "-w", str(scn.secs),
        RCV4], os.path.join(tmp, "ping.txt"))
    while True:
        now = time.monotonic() - t_start
        if now >= scn.secs:
            break
        print("lab: %s [%d/%d] %s: %2d/%d s" % (scn.name, idx, total, kind,
                                              now, scn.secs), flush=True)
        time.sleep(min(5.0, scn.secs - now))
    final = qdisc_json()
    ok = True
    for name, p in list(procs.items()) + [("ping", ping)]:
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "killed: did not finish"
        if rc and name != "ping":   # ping exits 1 when replies were lost
            log = os.path.join(tmp, name + ".log")
            tail = open(log).read()[-400:] if os.path.exists(log) else ""
            print("lab: %s: %s exit %s %s" % (kind, name, rc, tail), flush=True)
            ok = False

    def load(name):
        with open(os.path.join(tmp, name)) as fh:
            return json.load(fh)

    raw = {"qdisc": kind, "spec": spec,
           "t_start": t_start, "sink": load("sink.json"),
           "samples": load("qmon.json"), "final": final,
           "ping": ping_parse(os.path.join(tmp, "ping.txt"), offset),
           "web": load("web.json")["fetches"] if mice else None,
           "senders_ok": ok}
    with open(os.path.join(raw_dir, kind + ".json"), "w") as fh:
        json.dump(raw, fh)
    subprocess.run(["rm", "-rf", tmp], check=False)
    return raw


def stop_run():
    """Kill what a failed run started, or the next run finds the
    receiver's ports taken."""
    for t in RUNNING:
        t.kill()
        t.wait()
    RUNNING.clear()


def keep_earlier(runs, raw_dir):
    """These runs, and the earlier raw records of the other qdiscs."""
    merged = {}
    for k in qdiscs.QDISCS:
        path = os.path.join(raw_dir, k + ".json")
        if k in runs:
            merged[k] = runs[k]
        elif os.path.exists(path):
            with open(path) as fh:
                merged[k] = json.load(fh)
    return merged


def wait_ready(tmp, names, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(os.path.exists(os.path.join(tmp, "ready." + n)) for n in names):
            return True
        time.sleep(0.1)
    missing = [n for n in names
               if not os.path.exists(os.path.join(tmp, "ready." + n))]
    print("lab: not ready after %d s: %s" % (timeout, " ".join(missing)))
    return False


# Algorithm 3's margin: a flow is judged over 1.5 times the fair rate.
DFS_MARGIN = 1.5
# Seconds into a phase before its rates are judged: DFS's detection time.
PHASE_SETTLE = 4


def fair_series(raw):
    """DFS's fair rate (bit/s) in each second of the run, the median of
    the samples taken in it: {second: bit/s}."""
    per = {}
    for s in raw["samples"]:
        if "fair" in s:
            per.setdefault(int(s["t"] - raw["t_start"]), []).append(s["fair"])
    return {t: sorted(v)[len(v) // 2] for t, v in per.items()}


def offered(flow, t):
    """What FLOW's schedule has it send at T s after the start, bit/s."""
    for rate, secs in flow.schedule or []:
        if t < secs:
            return rate
        t -= secs
    return 0


def unmarked_within_margin(scn, fair, flow):
    """An attack flow DFS never marked: True if in every phase (after
    its first PHASE_SETTLE seconds) the rate it sent at was within
    Algorithm 3's margin over the fair rate DFS measured then.  Attackers
    cut in turn leave n, and the fair rate of the flows let in rises by
    their shares: an attacker at twice the fair rate of all may then be
    under 1.5 times that of the flows let in, and is let in as any flow
    at that rate would be (doc/dfs.md, "Attackers cut in turn").  Over
    it, DFS missed it.  Judged by what it sent, as DFS judges it, not by
    what it got: in sched fq its queue's round would hold it to its
    share, marked or not.  FAIR: fair_series() of the run."""
    phases = scn.phases or [(scn.warmup, metrics.window_end(scn), "run")]
    ok = True
    for start, end, label in phases:
        secs = [t for t in range(int(start) + PHASE_SETTLE,
                                 min(int(end), metrics.window_end(scn)))
                if t in fair]
        if not secs:
            continue
        sent = sum(offered(flow, t) for t in secs) / len(secs)
        fr = sum(fair[t] for t in secs) / len(secs)
        within = sent <= DFS_MARGIN * fr
        print("%s: %s never marked; in the %s phase it sent %.0f kbit/s,"
              " %.2fx DFS's fair rate (%.0f): %s" % (
                  scn.name, host_ip(flow.host), label, sent / 1e3,
                  sent / fr if fr else 0, fr / 1e3,
                  "within its margin" if within else "over its margin"))
        ok = ok and within
    return ok


def check_marking(scn, raw):
    """--check: DFS marked every attack flow, or let one in only within
    Algorithm 3's margin over the fair rate, and marked nothing else."""
    attackers = scn.flows_of(scenarios.ATTACK)
    truth = {host_ip(f.host) for f in attackers}
    marked = set()
    for s in raw["samples"]:
        marked.update(s.get("marked", []))
    fair = fair_series(raw)
    ok = True
    for f in attackers:
        ip = host_ip(f.host)
        if ip in marked:
            continue
        if not fair or not unmarked_within_margin(scn, fair, f):
            print("FAIL: %s: attack flow from %s never marked" % (scn.name, ip))
            ok = False
    for ip in sorted(marked - truth):
        print("FAIL: %s: %s marked, but it is not an attacker" % (scn.name, ip))
        ok = False
    if ok:
        print("PASS: %s: DFS marked %d/%d attack flows%s, no other flow"
              % (scn.name, len(truth & marked), len(truth),
                 "" if truth <= marked else " (the others within its margin)"))
    return ok


def check_cpr_tcp(scn, raw, kind):
    """No TCP host (a hog's too) held for its CPR, on by default."""
    tcp = {host_ip(f.host) for f in scn.flows if f.proto == "tcp"}
    held = set()
    for s in raw["samples"]:
        held.update(s.get("cpr", []))
    bad = sorted(held & tcp)
    for ip in bad:
        print("FAIL: %s: %s: TCP host %s held for its CPR"
              % (scn.name, kind, ip))
    return not bad


def check_hog(scn, raw, kind):
    """--check, scenario 3b: the host with many connections is
    held to its share, not cut off: over every whole 5 s window of the
    measured period it gets at least half the goodput of the median other
    host, Jain's index between hosts is at least 0.9, and no host is held
    for its CPR."""
    hog = scn.flows_of(scenarios.ATTACK)[0]
    others = [f for f in scn.flows if f.proto == "tcp" and f is not hog]
    per_sec = {id(f): metrics.series(scn, raw, f) for f in [hog] + others}
    ok = True
    for start in range(scn.warmup, metrics.window_end(scn) - 4, 5):
        def got(f):
            s = [v for t, v in per_sec[id(f)] if start <= t < start + 5]
            return sum(s) / len(s)
        rates = sorted(got(f) for f in others)
        median = rates[len(rates) // 2]
        mine = got(hog)
        line = "%s: %s, %d-%d s: hog %.0f kbit/s, median host %.0f" % (
            scn.name, kind, start, start + 5, mine / 1000, median / 1000)
        if mine < median / 2:
            print("FAIL: " + line + ": under half")
            ok = False
        else:
            print("INFO: " + line)
    ok = check_cpr_tcp(scn, raw, kind) and ok
    jain = metrics.summarize(scn, raw)["jain"]
    if jain is None or jain < 0.9:
        print("FAIL: %s: %s: Jain's index between hosts %s < 0.9"
              % (scn.name, kind, jain))
        ok = False
    if ok:
        print("PASS: %s: %s: the hog never under half a host's goodput, "
              "Jain %.3f" % (scn.name, kind, jain))
    return ok


def check_flood(scn, raw, kind):
    """--check, scenario 3u: the flood gets under 5% of the link, and
    no TCP host is held for its CPR."""
    got = sum(metrics.rate(scn, raw, f) for f in scn.flows_of(scenarios.ATTACK))
    ok = got < 0.05 * scenarios.LINK_BPS
    print("%s: %s: %s: the flood got %.0f kbit/s%s"
          % ("PASS" if ok else "FAIL", scn.name, kind, got / 1000,
             "" if ok else ", not under 5% of the link"))
    return check_cpr_tcp(scn, raw, kind) and ok


def check_shrew(scn, raw, kind, runs=None, baseline=None):
    """--check, scenario 6: through KIND, TCP keeps at least 90%
    of its goodput without the attack (BASELINE: summary.json of 6n run
    with the same qdisc), every attacker is listed while the attack
    runs, no other flow ever is, for its CPR or for its rate; and
    pfifo, run beside it under the same attack, leaves TCP less (the
    attack works)."""
    if not baseline or kind not in baseline:
        print("FAIL: %s: %s: no baseline run of it (--baseline)"
              % (scn.name, kind))
        return False
    base = baseline[kind]["tcp_mean_kbps"]
    r = metrics.summarize(scn, raw)
    kept = r["tcp_mean_kbps"] / base
    n = len(scn.flows_of(scenarios.ATTACK))
    listed = n - len(r["fn"])
    truth = {f.host for f in scn.flows_of(scenarios.ATTACK)}
    cpr_fp = set()
    for s in raw["samples"]:
        cpr_fp.update(metrics.host_of(ip) for ip in s.get("cpr", []))
    cpr_fp = sorted(cpr_fp - truth - {None})
    rate_fp = sorted(set(r["fp"]) - set(cpr_fp))
    line = ("%s: %s: TCP %.0f kbit/s a host, %.2f of %.0f without the "
            "attack; attackers listed %d/%d; other flows listed for their "
            "CPR: %s, for their rate only: %s"
            % (scn.name, kind, r["tcp_mean_kbps"], kept, base, listed, n,
               ",".join("s%d" % h for h in cpr_fp) or "none",
               ",".join("s%d" % h for h in rate_fp) or "none"))
    ok = kept >= 0.9 and listed == n and not cpr_fp and not rate_fp
    if runs and runs.get("pfifo"):
        pf = metrics.summarize(scn, runs["pfifo"])["tcp_mean_kbps"]
        line += "; pfifo leaves TCP %.0f (%.2f)" % (pf, pf / base)
        ok = ok and pf < r["tcp_mean_kbps"]
    else:
        line += "; no pfifo run to compare"
        ok = False
    print(("PASS: " if ok else "FAIL: ") + line)
    return ok


CHECKS = {"marking": lambda scn, raw, kind, **_: check_marking(scn, raw),
          "hog": lambda scn, raw, kind, **_: check_hog(scn, raw, kind),
          "flood": lambda scn, raw, kind, **_: check_flood(scn, raw, kind),
          "shrew": check_shrew}


def load_baseline(path):
    """The rows of a summary.json, by qdisc."""
    with open(os.path.join(path, "summary.json")) as fh:
        return {row["qdisc"]: row for row in json.load(fh)["rows"]
                if not row.get("failed")}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--scenario", default="1")
    ap.add_argument("--qdiscs", help="default: the scenario's, or "
                    + " ".join(qdiscs.DEFAULT))
    ap.add_argument("--short", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--baseline", help="--check of scenario 6: the "
                    "summary of the same qdiscs' run of 6n")
    ap.add_argument("--out")
    ap.add_argument("--rate", help="the bottleneck's rate (default 10mbit); "
                    "every rate of the scenario scales with it")
    ap.add_argument("--keep", action="store_true",
                    help="keep the other qdiscs' earlier runs in the table")
    ap.add_argument("--rounds", type=int,
                    help="flent scenarios: go round the qdiscs this often")
    ap.add_argument("--tests", help="flent scenarios: only these tests")
    args = ap.parse_args()

    if args.rate:
        try:
            bps = int(man_defaults.scaled(args.rate, man_defaults.RATE_UNITS,
                                          "rate"))
        except ValueError as e:
            sys.exit("lab: --rate %s: %s" % (args.rate, e))
        if bps <= 0:
            sys.exit("lab: --rate %s: not above 0" % args.rate)
        scenarios.set_link(bps)
    scn = scenarios.get(args.scenario, args.short)
    if args.rounds is not None or args.tests:
        if not isinstance(scn, scenarios.FlentScenario):
            sys.exit("lab: --rounds and --tests are rrul's")
        tests = args.tests.split() if args.tests else scn.tests
        bad = [t for t in tests if t not in scn.tests]
        if bad or (args.rounds is not None and args.rounds < 1):
            sys.exit("lab: --tests among %s, --rounds 1 or more"
                     % " ".join(scn.tests))
        scn = dataclasses.replace(scn, tests=tests,
                                  rounds=args.rounds or scn.rounds)
    kinds = (args.qdiscs.replace(",", " ").split() if args.qdiscs else
             scn.qdiscs or qdiscs.DEFAULT)
    # The upstream scenario's runs are its own, not qdiscs.
    own = upstream if getattr(scn, "upstream", False) else None
    if not own:
        for k in kinds:
            if k not in qdiscs.QDISCS:
                sys.exit("lab: unknown qdisc '%s' (have: %s)"
                         % (k, " ".join(qdiscs.QDISCS)))
            if k in qdiscs.SCORED and not getattr(scn, "ranges", None):
                sys.exit("lab: %s needs a scenario with scored ranges (7)"
                         % k)
    if getattr(scn, "flent", False):
        own = rrul
    if own:
        # Scenarios with a topology and runs of their own.
        if args.check or args.keep or args.baseline:
            sys.exit("lab: %s: no --check, --keep or --baseline" % scn.name)
        out = args.out or os.path.join(os.path.dirname(TOOLS), "results",
                                       scn.name + ("-short" if args.short
                                                   else ""))
        return own.main(sys.modules[__name__], scn, kinds, out, args.short)
    checked = [k for k in kinds if k.startswith("dfs")]
    if args.check and not checked:
        sys.exit("lab: --check judges DFS: include dfs (or a variant)")
    out = args.out or os.path.join(os.path.dirname(TOOLS), "results",
                                   scn.name + ("-short" if args.short else ""))
    raw_dir = os.path.join(out, "raw")
    os.makedirs(raw_dir, exist_ok=True)

    print("lab: %s: %s; %d s per qdisc, qdiscs: %s"
          % (scn.name, scn.title, scn.secs, " ".join(kinds)), flush=True)
    rc = 0
    try:
        setup(scn)
        ranges = scored_files(scn, out)
        runs = {}
        for i, k in enumerate(kinds, 1):
            try:
                runs[k] = run_one(scn, k, i, len(kinds), raw_dir, ranges)
            except (subprocess.CalledProcessError, RuntimeError, OSError,
                    ValueError) as e:
                print("lab: %s: %s failed: %s" % (scn.name, k, e), flush=True)
                stop_run()
                runs[k] = None
                rc = 1
        if args.keep:
            runs = keep_earlier(runs, raw_dir)
        metrics.write(scn, runs, out, args.scenario, args.short)
        if args.check:
            check = CHECKS[scn.checks or "marking"]
            baseline = load_baseline(args.baseline) if args.baseline else None
            for k in checked:
                if not runs.get(k) or not check(scn, runs[k], k, runs=runs,
                                                 baseline=baseline):
                    rc = 1
    finally:
        topo_cleanup()
    return rc


if __name__ == "__main__":
    sys.exit(main())
