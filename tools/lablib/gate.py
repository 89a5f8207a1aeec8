# SPDX-License-Identifier: GPL-2.0
"""A common start for every process of a lab run.

Starting a process in the test VM takes from a fraction of a second to
several (TCG, Python's imports over 9p, a dozen starting at once), so
flows started one after the other would begin seconds apart.  Each
process does its slow setup (imports, sockets, TCP handshakes), says so
with its READY file, and waits for the GO file, which holds the common
start time on CLOCK_MONOTONIC (one clock for the whole guest), or 0 for
"at once" (the selftests' gate_open in selftests/lib.sh, which has no
monotonic clock in bash).
"""
import os
import time


def wait_go(ready, go, timeout=300):
    """Signal READY, wait for GO, sleep until its start time; return it."""
    if ready:
        with open(ready, "w"):
            pass
    if not go:
        return time.monotonic()
    deadline = time.monotonic() + timeout
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            raise SystemExit("gate: no %s after %d s" % (go, timeout))
        time.sleep(0.02)
    with open(go) as fh:
        start = float(fh.read())
    time.sleep(max(0.0, start - time.monotonic()))
    return start


def open_gate(go, start):
    """Write GO atomically: readers never see a partial time."""
    with open(go + ".tmp", "w") as fh:
        fh.write("%.6f\n" % start)
    os.rename(go + ".tmp", go)


def add_args(parser):
    parser.add_argument("--ready", help="file to create once set up")
    parser.add_argument("--go", help="file that holds the start time")
