#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the lab's second upstream router, BIRD 2 validating FlowSpec
(RFC 8955 section 6, `validate on`), makes of each rule it receives.

  bird_watch.py --sock BIRD_CTL --log FILE [--interval S]

BIRD keeps a rule that fails validation in its flow table, marked
"unreachable": it is in the RIB but no router will install it.  One
that passes carries no such word and is ready to install.  Every
INTERVAL this reads BIRD's flow4 and flow6 tables ("show route table
all" through birdc) and writes a line a change to FILE: "EPOCH valid
RULE", "EPOCH invalid RULE" (it arrived, or turned, unreachable) or
"EPOCH gone RULE" (withdrawn), RULE as BIRD prints it, e.g.
"flow4 { dst 10.0.1.2/32; src 10.1.0.1/32; proto 17; }".
"""
import argparse
import signal
import subprocess
import sys
import time


def flows(sock):
    """{rule: valid} of BIRD's flow tables, or None if birdc failed."""
    try:
        out = subprocess.run(["birdc", "-s", sock, "show", "route", "table",
                              "all"], capture_output=True, text=True,
                             timeout=30)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode:
        return None
    rules = {}
    for line in out.stdout.splitlines():
        if not line.startswith(("flow4 {", "flow6 {")) or "}" not in line:
            continue
        rule, rest = line.split("}", 1)
        rules[rule + "}"] = rest.split()[:1] != ["unreachable"]
    return rules


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sock", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--interval", type=float, default=0.25)
    args = ap.parse_args()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    seen = {}
    with open(args.log, "w", buffering=1) as log:
        while not stop:
            t = time.time()
            have = flows(args.sock)
            if have is not None:
                now = time.time()
                for rule, valid in sorted(have.items()):
                    if seen.get(rule) != valid:
                        log.write("%.3f %s %s\n" % (
                            now, "valid" if valid else "invalid", rule))
                for rule in sorted(set(seen) - set(have)):
                    log.write("%.3f gone %s\n" % (now, rule))
                seen = have
            time.sleep(max(0.0, args.interval - (time.time() - t)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
