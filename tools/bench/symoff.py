#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a function's instructions go, by source line.

tools/bench/symoff.py SYMOFF.txt MODULE.ko [TOP]

The samples of a profile run with BENCH_SYMOFF (BENCH_SCENARIOS=profile
make bench: results/bench/profile-*.symoff.txt, lines "COUNT SYM+0xOFF")
mapped onto the module they were taken with, which must be the same build,
through its debug info (addr2line).  Under icount a sample is an
instruction's share of the time, so the lines weigh as the instructions
each source line runs.  Prints the TOP (default 40) lines by samples, with
their share, twice: by the line of the function itself (inlined code
counted where it is called), then by the innermost line (an inlined one
with its caller's beside it).
"""
import collections
import os
import subprocess
import sys


def symbols(ko):
    out = subprocess.run(["nm", ko], capture_output=True, text=True,
                         check=True).stdout
    base = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tT":
            base[f[2]] = int(f[0], 16)
    return base


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: symoff.py SYMOFF.txt MODULE.ko [TOP]")
    path, ko = sys.argv[1], sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    base = symbols(ko)
    samples = collections.Counter()
    for line in open(path):
        f = line.split()
        if len(f) < 2 or "+" not in f[1]:
            continue
        sym, off = f[1].split("+", 1)
        if sym in base:
            samples[base[sym] + int(off, 16)] += int(f[0])
    total = sum(samples.values())
    if not total:
        sys.exit("symoff.py: no samples of %s's functions in %s" % (ko, path))
    addrs = sorted(samples)
    # -a prints each address before its (inlined-first) source lines
    out = subprocess.run(["addr2line", "-a", "-i", "-e", ko] +
                         ["0x%x" % a for a in addrs],
                         capture_output=True, text=True, check=True).stdout
    where, cur = {}, None
    for line in out.splitlines():
        if line.startswith("0x"):
            cur = int(line, 16)
            where[cur] = []
        elif cur is not None:
            where[cur].append(os.path.basename(line.split(" ")[0]))
    by_line, by_caller = collections.Counter(), collections.Counter()
    for a in addrs:
        lines = where.get(a) or ["?"]
        key = lines[0] + ("  (in %s)" % lines[-1] if len(lines) > 1 else "")
        by_line[key] += samples[a]
        by_caller[lines[-1]] += samples[a]
    print("%d samples; by the line of the function itself (inlined code "
          "counted where it is called):" % total)
    for key, n in by_caller.most_common(top):
        print("%6d %5.1f%%  %s" % (n, 100.0 * n / total, key))
    print("\nthe top %d source lines:" % top)
    for key, n in by_line.most_common(top):
        print("%6d %5.1f%%  %s" % (n, 100.0 * n / total, key))


if __name__ == "__main__":
    main()
