#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The lab's upstream scenario: a flood that fills the link into the edge
router, which no qdisc on the edge router can help, and DFS's verdict sent
upstream as BGP FlowSpec.

  atk 10.1.0.1 --+                       +-(5, DFS)------> c1 10.0.1.2
                 +- isp =(10, FIFO)=> edge
  srv 10.2.0.1 --+  FRR bgpd <- BGP -> ExaBGP, +-(5, fq_codel)-> c2 10.0.2.2
                    + FlowSpec         dfs-guard
                    dataplane (nft)      ^   (Mbit/s at the lab's rate)
                                         |
                         bird: BIRD 2 <- BGP (unicast + FlowSpec)

The ISP router's egress towards the edge router is the shared link: a
TBF of the lab's rate with its plain FIFO, as an aggregation link is.
Behind the edge router two customers, each with half of it as its plan
(a TBF): c1 behind DFS, c2 behind fq_codel.  What of the flood gets
through the shared link congests c1's access, where DFS judges it.
srv sends two TCP flows to each customer for the whole run; atk floods
c1 with UDP at twice the link from FLOOD_AT for FLOOD_SECS.  In the edge
router dfs-guard follows DFS's verdicts and announces them through
ExaBGP to the ISP's FRR (eBGP, address family ipv4 flowspec over the
shared link itself); fs_install.py installs
FRR's received FlowSpec rules at the ISP's ingress (FRR 8.4's zebra has
no Linux dataplane for them: fs_install.py's comment).  A second
upstream router, BIRD 2 on a link of its own, receives the same rules
with RFC 8955 section 6's validation on, as BIRD's `validate` and Junos'
default have it: a rule is accepted only if it names a destination
whose best unicast route came from the same peer.  So the edge router
announces to it, as a real edge does, the prefixes it protects (c1's,
IPv4 and IPv6); bird_watch.py logs when each rule is valid there.
Every link has IPv6 too (fd00::/48 behind the edge router).  DFS prunes
idle keys after PRUNE: a flood the ISP drops is idle to DFS, and its
rule outlives the flood by PRUNE and dfs-guard's hold.

Runs, each in the same boot, the topology afresh:
  dfs             DFS on the edge router alone (no dfs-guard)
  flowspec        the same with dfs-guard announcing
  flowspec6       the same over IPv6 (RFC 8956)
  spoofed         the flood from SOURCES random addresses, DFS's flows
                  capped below that: the overflow flow, one aggregate
                  rate-limit towards c1's prefix (the qdisc's protect)

Sampled every 0.25 s over netlink (qdisc_sample.py): the shared link
(the ISP's egress towards the edge router) and the flood's part of it
(a flower filter on the edge router's side counting atk's sources),
what c1 and c2 get (the edge router's egress towards each), the flood
source's DFS flags.  dfs-guard runs with its package's policy (2 s
flagged before a rule, held 30 s after DFS lets go).  Figures per
phase: before the flood, the flood before the rule is installed
upstream, the flood after, after the flood; the times from the flood's
first packet to DFS's flag (the sampler, or dfs-guard's event), the
rule in the ISP's RIB (fs_install.py's poll, a quarter second apart
plus vtysh's time) and in its dataplane, and from the flood's end to
the withdrawal from the dataplane.

Guest side: run.py --scenario upstream calls main().  Host side:

  upstream.py summary DIR   table.md and summary.json again from DIR/raw
  upstream.py plot DIR      DIR/upstream.png
"""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
REPO = os.path.dirname(TOOLS)
sys.path.insert(0, HERE)

KINDS = ("dfs", "flowspec", "flowspec6", "spoofed")
ATK, SRV, C1, C2 = "10.1.0.1", "10.2.0.1", "10.0.1.2", "10.0.2.2"
ATK6, C1_6 = "fd01::1", "fd00:0:0:1::2"
ISP_EDGE, EDGE_ISP = "10.99.0.1", "10.99.0.2"
BIRD_EDGE, EDGE_BIRD = "10.98.0.1", "10.98.0.2"
EDGE_BIRD6 = "fd98::2"
SHARED, FROM_ISP, TO_C1, TO_C2 = "i-e", "e-i", "e-c1", "e-c2"
ATK_NET = "10.1.0.0/16"     # atk's link: the flood's sources, spoofed too
ATK6_NET = "fd01::/64"
PROTECT = ("10.0.1.0/24", "fd00:0:0:1::/64")   # c1's: DFS's protect
FLOOD_PORT = 9000
PRUNE = "5s"
SPOOF_NET, SOURCES, FLOWS_CAP = "10.1.16.0/20", 2048, 256


# --- the guest's side ---------------------------------------------------------

def topology(run):
    """The seven namespaces, their links and routes, afresh."""
    run.topo_cleanup()
    names = ["atk", "srv", "isp", "edge", "c1", "c2", "bird"]
    cmds = ["netns add %s" % run.ns(n) for n in names]
    run.sh(["ip", "-batch", "-"], input="\n".join(cmds) + "\n", text=True)
    # (a, its device, b, its device, a's addresses, b's addresses)
    links = [("atk", "eth0", "isp", "i-atk", (ATK + "/16", ATK6 + "/64"),
              ("10.1.0.254/16", "fd01::fe/64")),
             ("srv", "eth0", "isp", "i-srv", ("10.2.0.1/24", "fd02::1/64"),
              ("10.2.0.254/24", "fd02::fe/64")),
             ("isp", SHARED, "edge", FROM_ISP, (ISP_EDGE + "/24",
                                                "fd99::1/64"),
              (EDGE_ISP + "/24", "fd99::2/64")),
             ("edge", TO_C1, "c1", "eth0", ("10.0.1.1/24", "fd00:0:0:1::1/64"),
              (C1 + "/24", C1_6 + "/64")),
             ("edge", TO_C2, "c2", "eth0", ("10.0.2.1/24", "fd00:0:0:2::1/64"),
              (C2 + "/24", "fd00:0:0:2::2/64")),
             ("edge", "e-b", "bird", "b-e", (EDGE_BIRD + "/24",
                                             EDGE_BIRD6 + "/64"),
              (BIRD_EDGE + "/24", "fd98::1/64"))]
    for a, da, b, db, ipa, ipb in links:
        run.sh(["ip", "link", "add", da, "netns", run.ns(a), "type", "veth",
                "peer", "name", db, "netns", run.ns(b)])
        for n, dev, addrs in ((a, da, ipa), (b, db, ipb)):
            run.in_ns(n, ["ip", "-batch", "-"], text=True, input="".join(
                "addr add %s dev %s%s\n" % (x, dev, " nodad" if ":" in x
                                            else "") for x in addrs))
    for n in names:
        run.in_ns(n, ["ip", "-batch", "-"], text=True,
                  input="".join("link set %s up\n" % d for d in
                                ["lo"] + [x[1] for x in links if x[0] == n] +
                                [x[3] for x in links if x[2] == n]))
        run.in_ns(n, ["sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0",
                      "net.ipv4.conf.default.rp_filter=0"])
    for n in ("isp", "edge"):
        run.in_ns(n, ["sysctl", "-qw", "net.ipv4.ip_forward=1",
                      "net.ipv6.conf.all.forwarding=1"])
    routes = {"atk": ["default via 10.1.0.254", "default via fd01::fe"],
              "srv": ["default via 10.2.0.254", "default via fd02::fe"],
              "isp": ["10.0.0.0/16 via " + EDGE_ISP, "fd00::/48 via fd99::2"],
              "edge": ["default via " + ISP_EDGE, "default via fd99::1"],
              "c1": ["default via 10.0.1.1", "default via fd00:0:0:1::1"],
              "c2": ["default via 10.0.2.1", "default via fd00:0:0:2::1"]}
    for n, rs in routes.items():
        run.in_ns(n, ["ip", "-batch", "-"], text=True, input="".join(
            "route add %s\n" % r for r in rs))
    # MTU-sized packets from the TCP sender, as the lab's senders send;
    # 5 ms each way on the server's and the customers' own links.
    run.in_ns("srv", ["ip", "link", "set", "dev", "eth0", "gso_max_segs",
                      "1"])
    for n in ("srv", "c1", "c2"):
        run.tc_batch(n, ["qdisc replace dev eth0 root netem delay 5ms "
                         "limit 1000"])


def shape(run, scn, spoofed):
    """The shared link's FIFO at the lab's rate; each customer's access
    at half of it (their plans add up to the link): DFS under c1's, the
    fq_codel a home router would have under c2's."""
    import scenarios
    rate = scenarios.LINK_RATE
    plan = "%dkbit" % (scenarios.LINK_BPS // 2000)
    run.tc_batch("isp", ["qdisc add dev %s root handle 1: tbf rate %s "
                         "burst 32k latency 50ms" % (SHARED, rate)])
    dfs = "dfs limit 100000 prune %s" % PRUNE
    if spoofed:
        dfs += " flows %d" % FLOWS_CAP
    tbf = "tbf rate %s burst 32k latency 50ms" % plan
    run.tc_batch("edge", ["qdisc add dev %s clsact" % FROM_ISP,
                          "filter add dev %s ingress protocol ip flower "
                          "src_ip %s action pass" % (FROM_ISP, ATK_NET),
                          "filter add dev %s ingress protocol ipv6 flower "
                          "src_ip %s action pass" % (FROM_ISP, ATK6_NET),
                          "qdisc add dev %s root handle 1: %s" % (TO_C1, tbf),
                          "qdisc add dev %s parent 1:1 handle 10: %s"
                          % (TO_C1, dfs),
                          "qdisc add dev %s root handle 1: %s" % (TO_C2, tbf),
                          "qdisc add dev %s parent 1:1 fq_codel" % TO_C2])
    return dfs


def frr_start(run, d):
    """zebra and bgpd in the ISP router, FlowSpec from the edge router."""
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o777)
    shutil.chown(d, "frr", "frr")
    conf = os.path.join(d, "frr.conf")
    with open(conf, "w") as fh:
        fh.write("""frr defaults traditional
hostname isp
log file %s/frr.log informational
!
router bgp 64500
 bgp router-id %s
 no bgp ebgp-requires-policy
 neighbor %s remote-as 64512
 neighbor %s timers 3 9
 address-family ipv4 flowspec
  neighbor %s activate
 exit-address-family
 address-family ipv6 flowspec
  neighbor %s activate
 exit-address-family
!
""" % (d, ISP_EDGE, EDGE_ISP, EDGE_ISP, EDGE_ISP, EDGE_ISP))
    common = ["-d", "-u", "frr", "-g", "frr", "--vty_socket", d,
              "-z", d + "/zserv.api", "-f", conf]
    run.in_ns("isp", ["/usr/lib/frr/zebra", "-i", d + "/zebra.pid"] + common)
    run.in_ns("isp", ["/usr/lib/frr/bgpd", "-i", d + "/bgpd.pid",
                      "-p", "179"] + common)


def bird_start(d):
    """BIRD 2 in the second upstream router: FlowSpec from the edge
    router validated (RFC 8955 section 6) against the unicast routes
    the edge router announces, in tables with a trie, as validation
    needs.  Its control socket is D/bird.ctl."""
    os.makedirs(d, exist_ok=True)
    conf = os.path.join(d, "bird.conf")
    with open(conf, "w") as fh:
        fh.write("""log "%s/bird.log" all;
router id %s;
ipv4 table master4 { trie on; };
ipv6 table master6 { trie on; };
flow4 table flowtab4;
flow6 table flowtab6;
protocol device {}
protocol bgp edge {
	local %s as 64501;
	neighbor %s as 64512;
	hold time 9;
	ipv4 { import all; export none; };
	ipv6 { import all; export none; };
	flow4 { table flowtab4; import all; export none; validate on;
		base table master4; };
	flow6 { table flowtab6; import all; export none; validate on;
		base table master6; };
}
""" % (d, BIRD_EDGE, BIRD_EDGE, EDGE_BIRD))
    return ["bird", "-f", "-c", conf, "-s", d + "/bird.ctl",
            "-P", d + "/bird.pid"]


def exabgp_conf(d, sock):
    """Two upstream neighbors: FRR, which receives the FlowSpec rules
    alone, and BIRD, which validates them against the unicast routes
    this edge router announces to it, c1's prefixes (dfs-guard's
    protect), its next hop itself."""
    conf = os.path.join(d, "exabgp.conf")
    with open(conf, "w") as fh:
        fh.write("""process dfs-guard {
	run %s %s;
	encoder text;
}
neighbor %s {
	router-id %s;
	local-address %s;
	local-as 64512;
	peer-as 64500;
	family { ipv4 flow; ipv6 flow; }
	api { processes [ dfs-guard ]; }
}
neighbor %s {
	router-id %s;
	local-address %s;
	local-as 64512;
	peer-as 64501;
	hold-time 9;
	family { ipv4 unicast; ipv6 unicast; ipv4 flow; ipv6 flow; }
	static {
		route %s next-hop %s;
		route %s next-hop %s;
	}
	api { processes [ dfs-guard ]; }
}
""" % (os.path.join(REPO, "guard", "dfs-guard-exabgp"), sock, ISP_EDGE,
       EDGE_ISP, EDGE_ISP, BIRD_EDGE, EDGE_ISP, EDGE_BIRD,
       PROTECT[0], EDGE_BIRD, PROTECT[1], EDGE_BIRD6))
    return conf


def guard_conf(d, sock):
    conf = os.path.join(d, "dfs-guard.toml")
    with open(conf, "w") as fh:
        fh.write("""dry_run = false
tick = 0.25
[policy]
aggregates = true
aggregate_rate = "1mbit"
[[qdisc]]
dev = "%s"
handle = "10:"
protect = ["%s", "%s"]
[flowspec]
enable = true
socket = "%s"
[metrics]
enable = false
""" % (TO_C1, PROTECT[0], PROTECT[1], sock))
    return conf


def bgp_up(run, d, timeout=120):
    """Wait until the ISP's session (FRR in D/frr) and BIRD's (D/bird)
    with the edge router are up; what is not, by name."""
    end = time.monotonic() + timeout
    down = ["FRR", "BIRD"]
    while down and time.monotonic() < end:
        if "FRR" in down:
            r = run.in_ns("isp", ["vtysh", "--vty_socket", d + "/frr", "-c",
                                  "show bgp neighbors %s json" % EDGE_ISP],
                          capture_output=True, text=True, check=False)
            try:
                if json.loads(r.stdout)[EDGE_ISP]["bgpState"] == \
                        "Established":
                    down.remove("FRR")
            except (ValueError, KeyError):
                pass
        if "BIRD" in down:
            r = run.in_ns("bird", ["birdc", "-s", d + "/bird/bird.ctl",
                                   "show", "protocols", "edge"],
                          capture_output=True, text=True, check=False)
            if "Established" in r.stdout:
                down.remove("BIRD")
        if down:
            time.sleep(1)
    return down


def run_one(run, scn, kind, raw):
    """One run of KIND; its files in RAW/KIND.*."""
    import gate
    d = "/tmp/lab-upstream-" + kind
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    pre = os.path.join(raw, kind + ".")
    for f in os.listdir(raw):
        if f.startswith(kind + "."):
            os.unlink(os.path.join(raw, f))
    topology(run)
    spoofed = kind == "spoofed"
    six = kind == "flowspec6"
    spec = shape(run, scn, spoofed)
    if spoofed:
        # The sources on atk's link; the ISP routes the /16 to it.
        base = int.from_bytes(bytes(map(int, SPOOF_NET.split("/")[0]
                                        .split("."))), "big")
        srcs = [".".join(str((base + i) >> s & 255) for s in (24, 16, 8, 0))
                for i in range(1, SOURCES + 1)]
        run.in_ns("atk", ["ip", "-batch", "-"], text=True,
                  input="".join("addr add %s/32 dev eth0\n" % a
                                for a in srcs))
        with open(pre + "sources", "w") as fh:
            fh.write(",".join(srcs))
    procs = []
    guarded = kind != "dfs"
    if guarded:
        sock = d + "/exabgp.sock"
        frr_start(run, d + "/frr")
        procs.append(run.spawn_tool(
            "isp", os.path.join(HERE, "fs_install.py"),
            ["--vty", d + "/frr", "--dev", "i-atk", "--dev", "i-srv",
             "--log", pre + "fs_install"]))
        procs.append(run.spawn("bird", bird_start(d + "/bird"),
                               pre + "bird.out"))
        procs.append(run.spawn_tool(
            "bird", os.path.join(HERE, "bird_watch.py"),
            ["--sock", d + "/bird/bird.ctl", "--log", pre + "bird"]))
        procs.append(run.spawn_tool(
            "edge", os.path.join(REPO, "guard", "dfs-guard"),
            ["-c", guard_conf(d, sock), "--timestamps"], pre + "guard.log"))
        env = ["env", "exabgp.daemon.user=root",
               "exabgp.log.destination=" + pre + "exabgp.log",
               "exabgp.api.cli=false", "exabgp.daemon.daemonize=false"]
        procs.append(run.spawn("edge", env + ["exabgp",
                                              exabgp_conf(d, sock)]))
        down = bgp_up(run, d)
        if down:
            raise RuntimeError("BGP session with %s not up in 120 s"
                               % " and ".join(down))
    for c in ("c1", "c2"):
        for port in (5201, 5202):
            procs.append(run.spawn(c, ["iperf3", "-s", "-p", str(port)]))
    tmp = d + "/gate"
    os.makedirs(tmp)
    names = []

    def ready(name):
        names.append(name)
        return ["--ready", os.path.join(tmp, "ready." + name),
                "--go", os.path.join(tmp, "go")]
    total = scn.secs + 2
    procs.append(run.spawn_tool(
        "c1", os.path.join(TOOLS, "udp_cbr.py"),
        ["sink", "--port", str(FLOOD_PORT), "--time", str(total),
         "--bind", "::" if six else "0.0.0.0",
         "--out", pre + "flood_sink.json"] + ready("sink")))
    flood = ["send", "--dst", C1_6 if six else C1, "--port",
             str(FLOOD_PORT), "--rate",
             "%dM" % (2 * scn.rate_mbit), "--size", "1200", "--time",
             str(scn.secs), "--schedule", "0:%d,%dM:%d"
             % (scn.flood_at, 2 * scn.rate_mbit, scn.flood_secs)]
    if spoofed:
        flood += ["--src", open(pre + "sources").read(), "--spread"]
    procs.append(run.spawn_tool("atk", os.path.join(TOOLS, "udp_cbr.py"),
                                flood + ready("flood"),
                                pre + "flood_send.json"))
    for dev, ns, extra in ((SHARED, "isp", []), (TO_C2, "edge", []),
                           (TO_C1, "edge", ["--dfs-src",
                                            ATK6 if six else ATK]),
                           (FROM_ISP, "edge", ["--ingress"])):
        procs.append(run.spawn_tool(
            ns, os.path.join(TOOLS, "qdisc_sample.py"),
            ["--dev", dev, "--out", pre + dev, "--time", str(total + 2),
             "--ready", os.path.join(tmp, "ready." + dev)] + extra))
        names.append(dev)
    if not run.wait_ready(tmp, names):
        raise RuntimeError("the flood, its sink or a sampler did not start")
    t0 = time.time() + 0.5
    gate.open_gate(os.path.join(tmp, "go"), time.monotonic() + 0.5)
    tcp = []
    for c in (C1, C2):
        for port in (5201, 5202):
            tcp.append(run.spawn("srv", ["iperf3", "-c", c, "-p", str(port),
                                         "-t", str(scn.secs), "-J"],
                                 "%stcp-%s-%d.json" % (pre, c, port)))
    with open(pre + "t0", "w") as fh:
        fh.write("%.3f\n" % t0)
    for p in tcp:
        p.wait(timeout=scn.secs + 120)
    time.sleep(3)
    if guarded:
        run.in_ns("bird", ["birdc", "-s", d + "/bird/bird.ctl", "show",
                           "route", "table", "all", "all"],
                  stdout=open(pre + "bird_end", "w"), check=False)
    for p in procs:
        if p.poll() is None:
            try:
                os.kill(p.pid, 15)
            except OSError:
                pass
    time.sleep(2)
    if guarded:
        run.in_ns("isp", ["vtysh", "--vty_socket", d + "/frr", "-c",
                          "show bgp ipv4 flowspec detail json"],
                  stdout=open(pre + "rib_end", "w"), check=False)
    for p in procs:
        p.kill()
    run.topo_cleanup()
    return {"kind": kind, "t0": t0, "dfs": spec}


def main(run, scn, kinds, out, short):
    """run.py's main for the upstream scenario; RUN is the run module."""
    raw = os.path.join(out, "raw")
    os.makedirs(raw, exist_ok=True)
    for tool in ("vtysh", "exabgp", "bird", "iperf3"):
        if not shutil.which(tool):
            print("lab: upstream: no %s: run 'make deps'" % tool)
            return 1
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        print("lab: upstream: no run %s (have: %s)" % (" ".join(bad),
                                                       " ".join(KINDS)))
        return 1
    print("lab: %s: %s; %d s each: %s" % (scn.name, scn.title, scn.secs,
                                          " ".join(kinds)), flush=True)
    rc = 0
    for i, kind in enumerate(kinds, 1):
        print("lab: %s [%d/%d] %s" % (scn.name, i, len(kinds), kind),
              flush=True)
        try:
            rec = run_one(run, scn, kind, raw)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired,
                RuntimeError, OSError) as e:
            print("lab: upstream: %s failed: %s" % (kind, e), flush=True)
            rec = {"kind": kind, "failed": str(e)}
            rc = 1
            run.topo_cleanup()
        with open(os.path.join(raw, kind + ".json"), "w") as fh:
            json.dump(rec, fh)
    write(scn, kinds, out)
    return rc


# --- figures -------------------------------------------------------------------

def series(path, ingress=False):
    """A sampler's file as [(epoch, bits/s since the last sample, drops
    since, flags)]: what the device's root qdisc sent, or with INGRESS
    what the flower filters on its ingress counted (--ingress: the
    edge's side of the shared link, the flood's sources, IPv4 and
    IPv6)."""
    rows, last = [], None
    try:
        lines = [ln.split() for ln in open(path)]
    except OSError:
        return rows
    for f in lines:
        if ingress:
            meters = [int(x.split("=")[1]) for x in f[4:] if "=" in x]
            if not meters:
                continue
            f = f[:1] + [sum(meters), 0, 0]
        t, b, d = float(f[0]), int(f[1]), int(f[3])
        if last and t > last[0]:
            rows.append((t, 8 * (b - last[1]) / (t - last[0]),
                         d - last[2], f[4] if len(f) > 4 else ""))
        last = (t, b, d)
    return rows


def mean_over(rows, a, b):
    v = [r[1] for r in rows if a <= r[0] < b]
    return sum(v) / len(v) / 1e6 if v else None


def log_times(path, what):
    """Epochs of the lines of a --timestamps log (or fs_install's) that
    hold WHAT."""
    try:
        return [float(ln.split()[0]) for ln in open(path) if what in ln]
    except (OSError, ValueError):
        return []


def figures(scn, raw, kind):
    pre = os.path.join(raw, kind + ".")
    try:
        rec = json.load(open(pre + "json"))
    except (OSError, ValueError):
        return None
    if rec.get("failed"):
        return {"kind": kind, "failed": rec["failed"]}
    t0 = rec["t0"]
    start, end = t0 + scn.flood_at, t0 + scn.flood_at + scn.flood_secs
    try:
        start = json.load(open(pre + "flood_send.json"))["phase_starts"][1]
    except (OSError, ValueError, KeyError, IndexError):
        pass                    # the flood's own clock, when it says
    shared, to_c2 = series(pre + SHARED), series(pre + TO_C2)
    flags, flood = series(pre + TO_C1), series(pre + FROM_ISP, True)
    f = {"kind": kind, "dfs": rec["dfs"]}
    flagged = [r[0] for r in flags if start <= r[0] and "malicious" in r[3]]
    flagged += [t for t in log_times(pre + "guard.log", " INFO flag ")
                if t >= start]
    f["flag_s"] = min(flagged) - start if flagged else None
    f["reannounced"] = max(0, len(log_times(pre + "guard.log",
                                            "flowspec: add ")) - 1)
    adds = log_times(pre + "guard.log", "flowspec: add ")
    rib = [t for t in log_times(pre + "fs_install", " rib ") if t >= start]
    f["rib_s"] = rib[0] - start if rib else None
    inst = log_times(pre + "fs_install", " install ")
    f["install_s"] = inst[0] - start if inst else None
    rem = [t for t in log_times(pre + "fs_install", " remove ") if t > end]
    f["withdrawn_s"] = rem[0] - end if rem else None
    f["rules"] = sorted({ln.split(None, 2)[2].strip()
                         for ln in open(pre + "fs_install")
                         if " install " in ln}) if inst else []
    f["announced"] = sorted({ln.split("flowspec: add ", 1)[1].strip()
                             for ln in open(pre + "guard.log")
                             if "flowspec: add " in ln}) if adds else []
    f["tcp_announced"] = sum(1 for r in f["announced"] if SRV in r)
    f.update(bird_figures(pre + "bird", start))
    ruled = inst[0] + 1.0 if inst else end
    phases = {"before": (start - 8, start), "flood": (start + 1, ruled),
              "ruled": (ruled, end), "after": (end + 2, t0 + scn.secs)}
    if not inst:
        phases["flood"] = (start + 1, end)
        del phases["ruled"]
    f["phases"] = {p: {"shared": mean_over(shared, a, b),
                       "flood": mean_over(flood, a, b),
                       "c1": mean_over(flags, a, b),
                       "c2": mean_over(to_c2, a, b),
                       "secs": round(b - a, 1)}
                   for p, (a, b) in phases.items() if b > a}
    f["series"] = {"t": [r[0] - t0 for r in shared],
                   "shared": [r[1] / 1e6 for r in shared],
                   "flood_t": [r[0] - t0 for r in flood],
                   "flood": [r[1] / 1e6 for r in flood],
                   "c2_t": [r[0] - t0 for r in to_c2],
                   "c2": [r[1] / 1e6 for r in to_c2],
                   "marks": {"flood": start - t0,
                             "end": end - t0,
                             "install": inst[0] - t0 if inst else None,
                             "bird": (f["bird_s"] + start - t0
                                      if f.get("bird_s") is not None
                                      else None),
                             "remove": rem[0] - t0 if rem else None}}
    return f


def bird_figures(path, start):
    """What BIRD made of the rules (bird_watch.py's log): each rule it
    received, valid (ready to install) or unreachable (refused by RFC
    8955's validation), and when the first was valid, from START."""
    try:
        lines = [ln.rstrip("\n").split(" ", 2) for ln in open(path)]
    except OSError:
        return {}
    state = {}
    for _, what, rule in lines:
        if what != "gone":
            state.setdefault(rule, set()).add(what)
    valid = [float(t) for t, what, _ in lines
             if what == "valid" and float(t) >= start]
    return {"bird_rules": {r: sorted(v) for r, v in sorted(state.items())},
            "bird_valid": sum(1 for v in state.values() if v == {"valid"}),
            "bird_refused": sum(1 for v in state.values() if "invalid" in v),
            "bird_s": valid[0] - start if valid else None}


def cell(v, fmt="%.2f"):
    return "-" if v is None else fmt % v


def write(scn, kinds, out):
    raw = os.path.join(out, "raw")
    rows = [r for r in (figures(scn, raw, k) for k in kinds) if r]
    lines = ["### upstream: %s" % scn.title, "",
             "| run | phase | shared link Mbit/s | of it the flood | c1 "
             "gets Mbit/s | c2 gets Mbit/s |",
             "|---|---|---:|---:|---:|---:|"]
    names = {"before": "before the flood", "flood": "flood, no rule upstream",
             "ruled": "flood, rule upstream", "after": "after the flood"}
    for r in rows:
        if r.get("failed"):
            lines.append("| %s | failed: %s | | | | |"
                         % (r["kind"], r["failed"]))
            continue
        for p, v in r["phases"].items():
            lines.append("| %s | %s (%.0f s) | %s | %s | %s | %s |"
                         % (r["kind"], names[p], v["secs"], cell(v["shared"]),
                            cell(v.get("flood")), cell(v.get("c1")),
                            cell(v["c2"])))
    lines += ["", "| run | DFS flags the flood | in the ISP's RIB | in its "
              "dataplane | withdrawn after the flood | announced again | "
              "rules | TCP host announced |",
              "|---|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        if r.get("failed"):
            continue
        lines.append("| %s | %s | %s | %s | %s | %d | %s | %d |" % (
            r["kind"], cell(r["flag_s"], "%.1f s"),
            cell(r.get("rib_s"), "%.1f s"), cell(r["install_s"], "%.1f s"),
            cell(r["withdrawn_s"], "%.1f s"), r.get("reannounced", 0),
            "<br>".join("`%s`" % x for x in r["rules"]) or "-",
            r["tcp_announced"]))
    lines += ["", "| run | FlowSpec routes BIRD received | valid, ready to "
              "install | refused (unreachable) | first valid | as BIRD has "
              "them |", "|---|---:|---:|---:|---:|---|"]
    for r in rows:
        if r.get("failed") or "bird_rules" not in r:
            continue
        lines.append("| %s | %d | %d | %d | %s | %s |" % (
            r["kind"], len(r["bird_rules"]), r["bird_valid"],
            r["bird_refused"], cell(r["bird_s"], "%.1f s"),
            "<br>".join("`%s`%s" % (x, "" if v == ["valid"] else
                                     " (%s)" % ", ".join(v))
                        for x, v in r["bird_rules"].items()) or "-"))
    with open(os.path.join(out, "table.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "summary.json"), "w") as fh:
        json.dump({"scenario": scn.name, "rows": rows}, fh, indent=1)
    print("\n".join(lines))


def plot(out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in json.load(open(os.path.join(out, "summary.json")))
            ["rows"] if not r.get("failed")]
    if not rows:
        return
    fig, axes = plt.subplots(len(rows), 1, figsize=(8, 2.6 * len(rows)),
                             sharex=True, squeeze=False)
    for ax, r in zip(axes[:, 0], rows):
        s = r["series"]
        ax.plot(s["t"], s["shared"], label="shared link (ISP -> edge)")
        ax.plot(s.get("flood_t", []), s.get("flood", []),
                label="of it the flood")
        ax.plot(s["c2_t"], s["c2"], label="c2 gets")
        m = s["marks"]
        ax.axvspan(m["flood"], m["end"], color="red", alpha=0.08,
                   label="flood")
        for k, style, what in (("install", "g--", "rule in FRR's dataplane"),
                               ("bird", "m-.", "rule valid in BIRD"),
                               ("remove", "k:", "rule out upstream")):
            if m.get(k) is not None:
                ax.axvline(m[k], color=style[0], linestyle=style[1:],
                           label=what)
        ax.set_ylabel("Mbit/s")
        ax.set_title(r["kind"], fontsize=9)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7, loc="lower right")
    axes[-1, 0].set_xlabel("s")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "upstream.png"), dpi=110)


def main_host(argv):
    import scenarios
    if len(argv) != 2 or argv[0] not in ("summary", "plot"):
        sys.exit("usage: upstream.py summary|plot DIR")
    if argv[0] == "summary":
        scn = scenarios.get("upstream")
        kinds = [k for k in KINDS
                 if os.path.exists(os.path.join(argv[1], "raw", k + ".json"))]
        write(scn, kinds, argv[1])
    else:
        plot(argv[1])


if __name__ == "__main__":
    main_host(sys.argv[1:])
