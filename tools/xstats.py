#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sch_dfs's statistics as the one definition has them.

  xstats.py --layout     print guard/dfs_guard/xstats_layout.py
  xstats.py --check      fail where a user of them has drifted

struct tc_dfs_qd_stats in include/uapi/linux/pkt_sched_dfs.h is the one
definition of the counters a dfs dumps (TCA_XSTATS).  dfs-guard's layout
of it (guard/dfs_guard/xstats_layout.py) is made from it by --layout;
--check (make unit) fails if that file is not what --layout prints, or
if a counter (every member but the padding) is missing from one of:

  - the dump:         sch_dfs/dfs_netlink.c sets it ("st->NAME =");
  - dfs_mq's sum:     sch_dfs/dfs_mq.c adds its queues' ("s->NAME");
  - tc:               iproute2/tc/q_dfs.c prints it by that name;
  - the man page:     iproute2/man/man8/tc-dfs.8 says what it is;
  - dfs-guard:        guard/dfs_guard/metrics.py exports it
                      (QDISC_XSTATS) or says why not (NOT_EXPORTED);

and if dfs-guard exports or excuses a name that is no counter.
"""
import argparse
import ast
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = "include/uapi/linux/pkt_sched_dfs.h"
LAYOUT = "guard/dfs_guard/xstats_layout.py"
TYPES = {"__u32": "I", "__u64": "Q"}


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def members(struct_name):
    """[(name, type)] of a struct of the header, in order."""
    text = re.sub(r"/\*.*?\*/", "", read(HEADER), flags=re.S)
    m = re.search(r"struct %s \{(.*?)\};" % struct_name, text, re.S)
    if not m:
        sys.exit("xstats: no struct %s in %s" % (struct_name, HEADER))
    out = []
    for decl in m.group(1).split(";"):
        decl = decl.strip()
        if not decl:
            continue
        ctype, name = decl.split()
        if ctype not in TYPES:
            sys.exit("xstats: %s %s: a type --layout does not know"
                     % (ctype, name))
        out.append((name, ctype))
    return out


def counters():
    return [n for n, _ in members("tc_dfs_qd_stats")
            if not n.startswith("pad")]


def layout():
    """guard/dfs_guard/xstats_layout.py's text."""
    qd = members("tc_dfs_qd_stats")
    # struct tc_dfs_xstats: type and pad, then the union
    fields = ["type", "xstats_pad"] + [n for n, _ in qd]
    fmt = "<II" + "".join(TYPES[t] for _, t in qd)
    lines = [
        "# SPDX-License-Identifier: GPL-2.0",
        "# Made by tools/xstats.py --layout from %s:" % HEADER,
        "# change the header, then run it; make unit fails on a stale copy.",
        '"""struct tc_dfs_xstats as a dfs sends it: type and pad, then',
        'struct tc_dfs_qd_stats."""',
        "import struct",
        "",
        "XSTATS = struct.Struct(%r)" % fmt,
        "XSTATS_FIELDS = (",
    ]
    row = "   "
    for f in fields:
        item = " %r," % f
        if len(row) + len(item) > 78:
            lines.append(row)
            row = "   "
        row += item
    lines += [row, ")", ""]
    return "\n".join(lines)


def guard_names():
    """QDISC_XSTATS's names and NOT_EXPORTED's keys, from metrics.py."""
    tree = ast.parse(read("guard/dfs_guard/metrics.py"))
    exported, excused = None, None
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        target = node.targets[0]
        if not isinstance(target, ast.Name):
            continue
        if target.id == "QDISC_XSTATS":
            exported = [e.elts[0].value for e in node.value.elts]
        elif target.id == "NOT_EXPORTED":
            excused = [k.value for k in node.value.keys]
    return exported or [], excused or []


def check():
    fails = []
    names = counters()
    if read(LAYOUT) != layout():
        fails.append("%s is not what --layout makes of %s: run "
                     "tools/xstats.py --layout >%s" % (LAYOUT, HEADER, LAYOUT))
    users = [
        ("sch_dfs/dfs_netlink.c", r"\bst->%s = ", "does not set"),
        ("sch_dfs/dfs_mq.c", r"\bs->%s\b", "does not add up"),
        ("iproute2/tc/q_dfs.c", r"\(%s,|\"%s\"", "does not print"),
        ("iproute2/man/man8/tc-dfs.8", r"^\.B[R]? .*\b%s\b", "does not say"),
    ]
    for path, pattern, what in users:
        text = read(path)
        for n in names:
            if not re.search(pattern.replace("%s", re.escape(n)), text,
                             re.M):
                fails.append("%s %s %s" % (path, what, n))
    exported, excused = guard_names()
    for n in names:
        if n not in exported and n not in excused:
            fails.append("guard/dfs_guard/metrics.py neither exports %s nor "
                         "says why not (NOT_EXPORTED)" % n)
    for n in exported + excused:
        if n not in names:
            fails.append("guard/dfs_guard/metrics.py names %s, no counter "
                         "of %s" % (n, HEADER))
    for f in fails:
        print("xstats: " + f)
    print("xstats: %d counters, %d failures" % (len(names), len(fails)))
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--layout", action="store_true")
    g.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.layout:
        sys.stdout.write(layout())
        return 0
    return check()


if __name__ == "__main__":
    sys.exit(main())
