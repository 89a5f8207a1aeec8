#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The upstream router's FlowSpec dataplane in the lab: FRR's received
FlowSpec routes installed as nftables rules at the router's ingress.

  fs_install.py --vty DIR --dev IF [--dev IF...] --log FILE [--interval S]

FRR's bgpd receives and validates the rules (RFC 8955); on Linux its
zebra would install them as ipset and iptables rules (`local-install`),
but Debian 12's FRR 8.4 zebra has no such dataplane and refuses the
operations.  This stands in for it, as a router's FlowSpec dataplane
does: it reads bgpd's FlowSpec RIBs (vtysh, "show bgp ipv4 flowspec
detail json" and ipv6's) every INTERVAL and makes the netdev table "flowspec" match
it, one libnftables transaction a change, on the ingress of each IF:
a traffic-rate of 0 (RFC 8955's discard) a drop, another rate a limit
over it in bytes a second.  FILE gets a line a change: "EPOCH rib N"
(the RIB held N rules by then) and "EPOCH install RULE" or "EPOCH
remove RULE" (the dataplane has it so from then).
"""
import argparse
import json
import signal
import subprocess
import sys
import time

TABLE = "flowspec"


def documents(text):
    """The JSON values in TEXT, one after another: FRR writes one array a
    FlowSpec route, not one document, and vtysh with several commands
    writes their answers back to back.  Stops at what does not parse."""
    dec, i, got = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        if i >= len(text):
            return got
        try:
            value, i = dec.raw_decode(text, i)
        except ValueError:
            return got
        got.append(value)


def unoffset(prefix):
    """FRR's FlowSpec prefix without the offset it gives an IPv6 one:
    "fd01::1/128/off 0" is "fd01::1/128"."""
    return prefix.split("/off", 1)[0]


def rib(vty):
    """bgpd's FlowSpec rules, IPv4 and IPv6: {(match, rate)}; match a
    tuple of (field, value) of FRR's JSON ("from", "to", "proto",
    "dstp", ...), rate in bytes a second.  FRR writes one JSON array a
    route, one after another, not one document."""
    out = subprocess.run(["vtysh", "--vty_socket", vty, "-c",
                          "show bgp ipv4 flowspec detail json", "-c",
                          "show bgp ipv6 flowspec detail json"],
                         capture_output=True, text=True, timeout=30).stdout
    rules = set()
    for route in documents(out):
        if not isinstance(route, list) or not route:
            continue
        match = tuple(sorted((k, str(v).strip())
                             for k, v in route[0].items()))
        rate = None
        for part in route[1:]:
            eco = part.get("ecomlist", "") if isinstance(part, dict) else ""
            if "FS:rate" in eco:
                rate = float(eco.split("FS:rate", 1)[1].split()[0])
        if rate is not None:
            rules.add((match, int(rate)))
    return rules


def nft_rule(match, rate):
    """A FlowSpec rule as (the nftables rule's text, its rate), or None
    if it matches what this stand-in does not handle."""
    m = dict(match)
    words = []
    for k in ("from", "to"):
        if k in m:
            m[k] = unoffset(m[k])
    ip = "ip6" if ":" in m.get("from", "") + m.get("to", "") else "ip"
    if "from" in m:
        words.append("%s saddr %s" % (ip, m.pop("from")))
    if "to" in m:
        words.append("%s daddr %s" % (ip, m.pop("to")))
    proto = m.pop("proto", "").lstrip("= ").strip()
    if proto:
        words.append("meta l4proto %s" % proto)
    dport = m.pop("dstp", "").lstrip("= ").strip()
    if dport:
        if not proto:
            return None
        words.append("th dport %s" % dport)
    if m:
        return None
    return " ".join(words), rate


def apply(nft, devs, rules):
    """The table afresh with RULES, in one transaction.  A rule's rate is
    one named limit that its rule on every device shares: RFC 8955's
    traffic-rate is the rule's, not an interface's."""
    cmds = ["add table netdev %s" % TABLE, "delete table netdev %s" % TABLE,
            "add table netdev %s" % TABLE]
    ordered = sorted(rules)
    for i, (_, rate) in enumerate(ordered):
        if rate:
            cmds.append("add limit netdev %s rate%d { rate over %d "
                        "bytes/second }" % (TABLE, i, rate))
    for dev in devs:
        chain = "in_" + dev.replace("-", "_")
        cmds.append("add chain netdev %s %s { type filter hook ingress "
                    "device \"%s\" priority -500; policy accept; }"
                    % (TABLE, chain, dev))
        for i, (match, rate) in enumerate(ordered):
            cmds.append("add rule netdev %s %s %s counter %sdrop"
                        % (TABLE, chain, match,
                           'limit name "rate%d" ' % i if rate else ""))
    rc, _, err = nft.cmd("\n".join(cmds))
    if rc:
        raise RuntimeError("nft: " + err.strip())


def text(rule):
    match, rate = rule
    return "%s %s" % (match, "limit rate over %d bytes/second drop" % rate
                      if rate else "drop")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--vty", required=True)
    ap.add_argument("--dev", action="append", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--interval", type=float, default=0.25)
    args = ap.parse_args()
    import nftables
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    nft = nftables.Nftables()
    installed = set()
    apply(nft, args.dev, installed)
    with open(args.log, "w", buffering=1) as log:
        while not stop:
            t = time.time()
            try:
                have = rib(args.vty)
            except subprocess.TimeoutExpired:
                have = None
            if have is not None:
                seen = time.time()
                wanted = {nft_rule(m, r) for m, r in have} - {None}
                if wanted != installed:
                    apply(nft, args.dev, wanted)
                    done = time.time()
                    log.write("%.3f rib %d\n" % (seen, len(have)))
                    for r in sorted(wanted - installed):
                        log.write("%.3f install %s\n" % (done, text(r)))
                    for r in sorted(installed - wanted):
                        log.write("%.3f remove %s\n" % (done, text(r)))
                    installed = wanted
            time.sleep(max(0.0, args.interval - (time.time() - t)))
    nft.cmd("delete table netdev %s" % TABLE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
