#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-flow goodput from iperf3 -J client files, one bit/s line per file.

  iperf3_rates.py WARMUP SECS FILE...

Counts the per-second intervals that start in [WARMUP, SECS): iperf3's own
-O would leave the omitted bytes in the receiver's total and overstate the
rate. The receiver's report is used (the server's text, which the client
fetches with --get-server-output); when iperf3 lost that final exchange
after a complete run, the sender's own intervals stand in. A file with no
result prints 0 (and says why on stderr).

The selftests import running_span() to align other meters (the qdisc's
counters, a UDP sink) with the seconds every TCP flow ran.
"""
import json
import re
import sys

# The server's text report: "[  5]   3.00-4.00   sec   150 KBytes  1.23 Mbits/sec"
LINE = re.compile(r"\]\s+([\d.]+)-([\d.]+)\s+sec\s+([\d.]+)\s+([KMG]?)Bytes")
UNIT = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}


def intervals(result):
    """(start, end, bytes) of each reported interval."""
    if "server_output_text" in result:
        return [(float(m.group(1)), float(m.group(2)),
                 float(m.group(3)) * UNIT[m.group(4)])
                for m in LINE.finditer(result["server_output_text"])]
    return [(i["sum"]["start"], i["sum"]["end"], i["sum"]["bytes"])
            for i in result.get("intervals", [])]


def running_span(paths, secs):
    """(first, last) epoch seconds between which every flow of the client
    files was sending, or None if none has a start stamp.  iperf3 stamps
    its start (the connect) in whole seconds, so a flow began within the
    second after its stamp and ran SECS seconds from there."""
    stamps = []
    for path in paths:
        try:
            with open(path) as fh:
                stamps.append(json.load(fh)["start"]["timestamp"]["timesecs"])
        except (ValueError, KeyError, OSError):
            pass  # a client that never connected has no say
    if not stamps:
        return None
    return max(stamps) + 1, min(stamps) + secs


def main():
    warmup, secs = int(sys.argv[1]), int(sys.argv[2])
    for path in sys.argv[3:]:
        try:
            with open(path) as fh:
                result = json.load(fh)
        except (ValueError, OSError) as err:
            sys.stderr.write("%s: no result: %s\n" % (path, err))
            print(0)
            continue
        nbytes = seconds = 0.0
        for start, end, n in intervals(result):
            if end - start > 1.5 or start < warmup or start >= secs:
                continue  # the totals, the warm-up, the tail
            nbytes += n
            seconds += end - start
        print(int(nbytes * 8 / seconds) if seconds else 0)


if __name__ == "__main__":
    main()
