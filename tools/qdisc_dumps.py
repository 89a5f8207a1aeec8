#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Dump a device's qdiscs over netlink in a loop, as "tc -s qdisc show"
does, and say how many dumps ran and what one took.

  qdisc_dumps.py --dev D (--count N | --time SECS)

Prints one JSON line: {"dumps": N, "secs": S, "ms_per_dump": M}.  Needs
no privilege: what any local user may do to the host's RTNL, as fast as
one process can (an exec of tc a dump is far slower under emulation).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lablib"))
from qmon import Dumper, RTM_GETQDISC  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--count", type=int)
    ap.add_argument("--time", type=float)
    args = ap.parse_args()
    if (args.count is None) == (args.time is None):
        ap.error("one of --count and --time")

    d = Dumper(args.dev)
    n = 0
    t0 = time.monotonic()
    while True:
        if args.count is not None and n >= args.count:
            break
        if args.time is not None and time.monotonic() - t0 >= args.time:
            break
        d.dump(RTM_GETQDISC)
        n += 1
    secs = time.monotonic() - t0
    print(json.dumps({"dumps": n, "secs": round(secs, 3),
                      "ms_per_dump": round(1000 * secs / max(n, 1), 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
