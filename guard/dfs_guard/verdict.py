# SPDX-License-Identifier: GPL-2.0
"""What sch_dfs says of a key (include/uapi/linux/dfs_verdict.h), as data.

A Key is a flow as a DFS qdisc keys it: the addresses (and ports, with
key 5tuple) its key mode keeps, or the overflow flow, which stands for
every new key past the qdisc's "flows" cap and has no addresses.  An
Event is one message of the verdict stream or of a dump.
"""
import ipaddress
from dataclasses import dataclass, field

# enum dfs_verdict_cmd
CMD_FLAG, CMD_RELEASE, CMD_FLUSH, CMD_LOST, CMD_GET = 1, 2, 3, 4, 5
CMD_NAMES = {CMD_FLAG: "flag", CMD_RELEASE: "release", CMD_FLUSH: "flush",
             CMD_LOST: "lost"}
# TC_DFS_FLOW_* of linux/pkt_sched_dfs.h: what a key is flagged for
REASON_BITS = ((0x1, "malicious"), (0x4, "cpr"))
# enum dfs_verdict_cause
CAUSES = {0: "judged", 1: "pruned"}
# enum tc_flowkey_mode
KEY_MODES = {0: "srcdst", 1: "src", 2: "dst", 3: "5tuple"}
AF_INET, AF_INET6 = 2, 10


@dataclass(frozen=True)
class Qdisc:
    """A DFS qdisc: its device and handle."""
    ifindex: int
    handle: int

    def __str__(self):
        return "%d/%x:" % (self.ifindex, self.handle >> 16)


def describe(src=None, dst=None, proto=None, dport=None):
    """The parts of a match that are set, as the logs write them."""
    parts = []
    if src is not None:
        parts.append("src %s" % src)
    if dst is not None:
        parts.append("dst %s" % dst)
    if proto is not None:
        parts.append("proto %d" % proto)
    if dport is not None:
        parts.append("dport %d" % dport)
    return parts


@dataclass(frozen=True)
class Key:
    qdisc: Qdisc
    mode: str = "srcdst"
    version: int = 0                 # 4, 6, 0: not IP
    src: ipaddress._BaseAddress = None
    dst: ipaddress._BaseAddress = None
    proto: int = None
    sport: int = None
    dport: int = None
    overflow: bool = False
    # under dfs_mq the tx queue whose dfs flags it (qdisc is the root):
    # each queue's verdicts are its own, and a key two queues flag is
    # released when both let it go
    queue: int = None

    def __str__(self):
        where = str(self.qdisc) if self.queue is None else \
            "%s queue %d" % (self.qdisc, self.queue)
        if self.overflow:
            return "%s overflow" % where
        return " ".join([where] + describe(
            self.src, self.dst, self.proto, self.dport))


@dataclass
class Event:
    cmd: int
    qdisc: Qdisc
    key: Key = None                  # FLAG, RELEASE
    reasons: frozenset = field(default_factory=frozenset)
    rate: int = 0                    # bytes/s
    time_ns: int = 0                 # CLOCK_MONOTONIC, events only
    cause: str = None                # RELEASE
    lost: int = 0                    # LOST
    dump: bool = False               # a key of a dump, not an event
    queue: int = None                # dfs_mq: the tx queue that sent it

    @property
    def name(self):
        return "dump" if self.dump else CMD_NAMES.get(self.cmd, str(self.cmd))


def reasons_of(bits):
    return frozenset(name for bit, name in REASON_BITS if bits & bit)


def address(version, raw):
    if raw is None:
        return None
    if version == 4 and len(raw) >= 4:
        return ipaddress.IPv4Address(bytes(raw[:4]))
    if version == 6 and len(raw) >= 16:
        return ipaddress.IPv6Address(bytes(raw[:16]))
    return None


def event_of(cmd, attrs, dump=False):
    """An Event from a message's attributes: a dict of DFS_VERDICT_A_*
    names without the prefix, lower case ("ifindex", "src", ...), as
    stream.py decodes them."""
    q = Qdisc(attrs.get("ifindex", 0), attrs.get("handle", 0))
    ev = Event(cmd, q, dump=dump, queue=attrs.get("queue"))
    if cmd in (CMD_FLAG, CMD_RELEASE):
        fam = attrs.get("family", 0)
        version = {AF_INET: 4, AF_INET6: 6}.get(fam, 0)
        ev.key = Key(q, KEY_MODES.get(attrs.get("key_mode"), "srcdst"),
                     version, address(version, attrs.get("src")),
                     address(version, attrs.get("dst")), attrs.get("proto"),
                     attrs.get("sport"), attrs.get("dport"),
                     bool(attrs.get("overflow")), ev.queue)
        ev.reasons = reasons_of(attrs.get("reason", 0))
        ev.rate = attrs.get("rate", 0)
        ev.cause = CAUSES.get(attrs.get("cause"), None) \
            if cmd == CMD_RELEASE else None
    ev.time_ns = attrs.get("time", 0)
    ev.lost = attrs.get("lost", 0)
    return ev
