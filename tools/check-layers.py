#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Each file of a module calls only the files below it: no circle.

  check-layers.py DIR...

DIR is a module's build directory (build/modules/KVER/sch_dfs): for each
of its objects, the symbols it uses that another of them defines (nm),
an edge from it to that one.  Prints the edges and fails on a circle,
naming it: a file that calls one that calls it back cannot be read or
tested alone, and its layer is no layer (dfs_sched.h has the order).
"""
import glob
import os
import subprocess
import sys


def graph(d):
    defs, uses = {}, {}
    for o in sorted(glob.glob(os.path.join(d, "*.o"))):
        name = os.path.basename(o)
        if name.endswith(".mod.o") or name == os.path.basename(d) + ".o":
            continue
        out = subprocess.run(["nm", o], capture_output=True, text=True,
                             check=True).stdout
        defs[name], uses[name] = set(), set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDRB":
                defs[name].add(f[2])
            elif len(f) == 2 and f[0] == "U":
                uses[name].add(f[1])
    owner = {s: o for o, ss in defs.items() for s in ss}
    return {o: sorted({owner[s] for s in us if s in owner and owner[s] != o})
            for o, us in uses.items()}


def circle(g):
    """A circle of g as a list of nodes, or None."""
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in g.get(n, []):
            if state.get(m) == 1:
                return path[path.index(m):] + [m]
            if not state.get(m):
                c = visit(m, path + [m])
                if c:
                    return c
        state[n] = 2
        return None

    for n in g:
        if not state.get(n):
            c = visit(n, [n])
            if c:
                return c
    return None


def main():
    rc = 0
    for d in sys.argv[1:]:
        g = graph(d)
        if not g:
            print("check-layers: %s: no objects (not built?)" % d)
            rc = 1
            continue
        c = circle(g)
        if c:
            print("check-layers: %s: a circle: %s" % (d, " -> ".join(c)))
            rc = 1
        else:
            print("check-layers: %s: %d files, no circle" % (d, len(g)))
    return rc


if __name__ == "__main__":
    sys.exit(main())
