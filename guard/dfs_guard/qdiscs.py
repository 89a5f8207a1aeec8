# SPDX-License-Identifier: GPL-2.0
"""The DFS qdiscs of this network namespace, read over rtnetlink: the
ones dfs-guard can follow, and what is wrong with a configured one.

dfs-guard names a qdisc by its device and handle, as tc does.  A handle
that is not a DFS (the HTB above it, a handle no qdisc has) would be
followed without a word: its dump is empty and no event names it.  So
--check and the start say so, with the DFS qdiscs the device does have.
(A dfs added without a handle gets one the kernel picks, 8001: and on,
which may differ at the next boot: the setup gives it one.)
"""
import socket
from dataclasses import dataclass

from .verdict import Qdisc

# A dfs_mq root is followed as one qdisc; its queues' dfs have handle 0.
FOLLOWED_KINDS = ("dfs", "dfs_mq")


@dataclass(frozen=True)
class Listed:
    ifindex: int
    handle: int
    parent: int
    kind: str


def tc_handle(handle):
    return "%x:" % (handle >> 16)


def listing():
    """Every qdisc of this network namespace."""
    from pyroute2 import IPRoute
    with IPRoute() as ipr:
        return [Listed(q["index"], q["handle"], q["parent"],
                       q.get_attr("TCA_KIND")) for q in ipr.get_qdiscs()]


def followable(listed):
    """The qdiscs dfs-guard can follow: each dfs_mq root, and each dfs
    with a handle of its own (not a queue of a dfs_mq)."""
    return [Qdisc(q.ifindex, q.handle) for q in listed
            if q.kind == "dfs_mq" or (q.kind == "dfs" and q.handle)]


def problems(wanted, listed, name=socket.if_indextoname):
    """A line for each configured qdisc (WANTED: Qdisc objects, in the
    configuration's order) that is not a DFS qdisc of LISTED."""
    out = []
    for i, want in enumerate(wanted):
        try:
            dev = name(want.ifindex)
        except OSError:
            dev = "ifindex %d" % want.ifindex
        where = "qdisc[%d] (dev %s, handle %s)" % (i, dev,
                                                   tc_handle(want.handle))
        dfs = [tc_handle(q.handle) for q in followable(listed)
               if q.ifindex == want.ifindex]
        hint = ("its DFS: %s" % ", ".join(dfs)) if dfs else \
            "it has no DFS qdisc"
        same = [q for q in listed
                if q.ifindex == want.ifindex and q.handle == want.handle]
        if not same:
            out.append("%s: %s has no qdisc %s; %s"
                       % (where, dev, tc_handle(want.handle), hint))
        elif same[0].kind not in FOLLOWED_KINDS:
            out.append("%s: %s is %s, not dfs or dfs_mq; %s"
                       % (where, tc_handle(want.handle), same[0].kind, hint))
    return out
