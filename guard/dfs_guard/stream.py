# SPDX-License-Identifier: GPL-2.0
"""sch_dfs's verdict stream over generic netlink, with pyroute2: family
"dfs_verdict", multicast group "verdicts" (linux/dfs_verdict.h).

One socket joins the group, then dumps a qdisc when it must learn its
flagged keys afresh (at start, after a LOST event, after the socket
overran): events that arrive while a dump runs wait in pyroute2's
backlog and are applied after it, so nothing between the two goes
unseen.
"""
import errno
import socket

from pyroute2.netlink import NLM_F_DUMP, NLM_F_REQUEST, genlmsg
from pyroute2.netlink.generic import GenericNetlinkSocket
from pyroute2.netlink.exceptions import NetlinkError

from . import verdict

SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)   # Linux

FAMILY = "dfs_verdict"
GROUP = "verdicts"
VERSION = 1


class dfs_verdict_msg(genlmsg):
    prefix = "DFS_VERDICT_A_"
    nla_map = (("DFS_VERDICT_A_UNSPEC", "none"),
               ("DFS_VERDICT_A_PAD", "none"),
               ("DFS_VERDICT_A_IFINDEX", "uint32"),
               ("DFS_VERDICT_A_HANDLE", "uint32"),
               ("DFS_VERDICT_A_KEY_MODE", "uint32"),
               ("DFS_VERDICT_A_FAMILY", "uint8"),
               ("DFS_VERDICT_A_SRC", "cdata"),
               ("DFS_VERDICT_A_DST", "cdata"),
               ("DFS_VERDICT_A_PROTO", "uint8"),
               ("DFS_VERDICT_A_SPORT", "be16"),
               ("DFS_VERDICT_A_DPORT", "be16"),
               ("DFS_VERDICT_A_OVERFLOW", "flag"),
               ("DFS_VERDICT_A_REASON", "uint32"),
               ("DFS_VERDICT_A_RATE", "uint64"),
               ("DFS_VERDICT_A_TIME", "uint64"),
               ("DFS_VERDICT_A_CAUSE", "uint32"),
               ("DFS_VERDICT_A_LOST", "uint64"),
               ("DFS_VERDICT_A_QUEUE", "uint32"))


def attrs_of(msg):
    out = {}
    for name, value in msg["attrs"]:
        if name.startswith("DFS_VERDICT_A_"):
            out[name[len("DFS_VERDICT_A_"):].lower()] = \
                True if name == "DFS_VERDICT_A_OVERFLOW" else value
    return out


class Overrun(Exception):
    """The socket's buffer overran: events were lost, dump everything."""


class DumpError(Exception):
    """A dump failed: the daemon goes on with what the events said."""


class VerdictStream:
    def __init__(self, rcvbuf=4 << 20):
        self.sock = GenericNetlinkSocket()
        # SO_RCVBUF is capped at net.core.rmem_max (208 KB by default), a
        # burst of verdicts' worth; SO_RCVBUFFORCE, for CAP_NET_ADMIN,
        # is not.  Without the capability (dry runs, tests) the cap holds.
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf)
        except PermissionError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.bind(FAMILY, dfs_verdict_msg)
        self.sock.add_membership(GROUP)

    def fileno(self):
        return self.sock.fileno()

    def events(self):
        """The events that wait on the socket (call when it is readable)."""
        try:
            msgs = self.sock.get()
        except OSError as e:
            if e.errno == errno.ENOBUFS:
                raise Overrun() from e
            raise
        return [verdict.event_of(m["cmd"], attrs_of(m)) for m in msgs
                if m["cmd"] in verdict.CMD_NAMES]

    def dump(self, qdisc):
        """The keys QDISC flags now, as FLAG events of a dump; [] if it
        is gone."""
        msg = dfs_verdict_msg()
        msg["cmd"] = verdict.CMD_GET
        msg["version"] = VERSION
        msg["attrs"] = [["DFS_VERDICT_A_IFINDEX", qdisc.ifindex],
                        ["DFS_VERDICT_A_HANDLE", qdisc.handle]]
        try:
            msgs = self.sock.nlm_request(msg, msg_type=self.sock.prid,
                                         msg_flags=NLM_F_REQUEST |
                                         NLM_F_DUMP)
        except NetlinkError as e:
            if e.code == errno.ENOENT:
                return []
            raise DumpError(str(e)) from e
        except OSError as e:
            raise DumpError(str(e)) from e
        return [verdict.event_of(verdict.CMD_FLAG, attrs_of(m), dump=True)
                for m in msgs if m["cmd"] == verdict.CMD_FLAG]

    def close(self):
        self.sock.close()
