# SPDX-License-Identifier: GPL-2.0
"""The BGP FlowSpec backend (RFC 8955, RFC 8956 for IPv6), through
ExaBGP: the upstream router drops a flood before it fills the link into
this one, which no qdisc here can.

ExaBGP talks to programs it starts itself, over their stdin and stdout
(its "process" API, encoder text).  The one it starts here is
dfs-guard-exabgp, a relay that connects to this backend's UNIX socket
and copies lines both ways: the backend writes "announce flow route
..." and "withdraw flow route ...", ExaBGP answers each "done" or
"error".  An ExaBGP that restarts, or a relay that reconnects, is given
every rule the backend holds again (announcing a route twice changes
nothing in BGP).

The relay keeps what was announced through it, as long as ExaBGP runs:
a backend that connects asks it ("#held") and takes over what a
predecessor announced (a restart, a crash, a reload), each route held
for the hold time unless a rule wanted now announces it, then
withdrawn.  A daemon that stays away has its routes withdrawn by the
relay after its grace time (dfs-guard-exabgp(8)).  In ExaBGP's
configuration:

	process dfs-guard {
		run /usr/sbin/dfs-guard-exabgp /run/dfs-guard/exabgp.sock;
		encoder text;
	}
	neighbor 192.0.2.1 {
		...
		family { ipv4 flow; ipv6 flow; }
		api { processes [ dfs-guard ]; }
	}

A rule is a match (source, destination, protocol, destination port)
and an action: discard, or rate-limit (traffic-rate, bytes/s) for an
aggregate.
"""
import dataclasses
import grp
import logging
import os
import select
import socket

from .backend import Backend, BackendError

log = logging.getLogger("dfs-guard")


def prefix(net):
    # ExaBGP writes an IPv6 FlowSpec prefix with its offset
    return "%s/%d/0" % (net.network_address, net.prefixlen) \
        if net.version == 6 else str(net)


def match(rule):
    m = []
    if rule.src is not None:
        m.append("source %s;" % prefix(rule.src))
    if rule.dst is not None:
        m.append("destination %s;" % prefix(rule.dst))
    if rule.proto is not None:
        m.append("%s =%d;" % ("next-header" if rule.version == 6
                              else "protocol", rule.proto))
    if rule.dport is not None:
        m.append("destination-port =%d;" % rule.dport)
    return "match { %s }" % " ".join(m)


def then(rule):
    return "then { %s; }" % ("rate-limit %d" % rule.rate if rule.rate
                             else "discard")


def command(verb, rule, neighbor=None):
    return "%s%s flow route { %s %s }" % (
        "neighbor %s " % neighbor if neighbor else "", verb, match(rule),
        then(rule))


def routes(rule, info):
    """The routes of RULE: a source is announced towards each prefix the
    qdiscs that flagged it protect (INFO.scope), since an upstream that
    validates (RFC 8955 section 6) refuses a rule with no destination;
    with none, no route."""
    if rule.kind != "source":
        return [rule]
    return [dataclasses.replace(rule, dst=n)
            for n in sorted(info.scope if info else ())]


def withdrawal(announcement):
    return announcement.replace("announce flow", "withdraw flow", 1)


class FlowSpecBackend(Backend):
    name = "flowspec"

    def __init__(self, socket_path="/run/dfs-guard/exabgp.sock",
                 neighbor=None, ack_timeout=5.0, group="exabgp", **kw):
        super().__init__(**kw)
        self.group = group
        self.connected = False       # a relay ever did
        self.sent = {}               # Rule -> the commands announced
        self.warned = set()
        self.path = socket_path
        self.neighbor = neighbor
        self.ack_timeout = ack_timeout
        self.listener = None
        self.conn = None
        self.buf = b""
        self.hold = 0.0
        self.orphans = {}            # a predecessor's command -> until

    def start(self):
        if self.dry_run:
            return
        d = os.path.dirname(self.path)
        if d:
            os.makedirs(d, mode=0o750, exist_ok=True)
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        os.chmod(self.path, 0o600)
        self.share(d)
        self.listener.listen(1)
        self.listener.setblocking(False)

    def share(self, d):
        """The socket to the group ExaBGP runs as (Debian's exabgp.service:
        User=exabgp, Group=exabgp), read and write, and its directory
        to enter: the relay ExaBGP starts runs as that user.  No such
        group: root alone, and a relay run as root."""
        if not self.group:
            return
        try:
            gid = grp.getgrnam(self.group).gr_gid
        except KeyError:
            log.warning("%s: no group %s: the socket %s is root's alone, "
                        "and only a relay run as root reaches it",
                        self.name, self.group, self.path)
            return
        try:
            for path, mode in ((d, 0o750), (self.path, 0o660)):
                if path:
                    os.chown(path, -1, gid)
                    os.chmod(path, mode)
        except OSError as e:
            log.warning("%s: giving %s to group %s: %s", self.name,
                        self.path, self.group, e)

    def stop(self):
        for s in (self.conn, self.listener):
            if s is not None:
                s.close()
        self.conn = self.listener = None
        if not self.dry_run:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass

    def take_over(self, now, hold):
        self.hold = hold
        super().take_over(now, hold)

    def held(self):
        """The commands the relay says were announced through it; []
        from a relay that does not know "#held" (one older than this
        daemon, until ExaBGP restarts it)."""
        self.conn.sendall(b"#held\n")
        out = []
        while True:
            line = self.readline()
            if line == "held-end":
                return out
            if not line.startswith("held "):
                return []
            out.append(line[5:])

    def accept(self, now):
        """A relay that (re)connected: what it holds that this backend
        does not is taken over, and it is given every rule held."""
        if self.listener is None:
            return
        try:
            conn, _ = self.listener.accept()
        except BlockingIOError:
            return
        log.info("%s: the ExaBGP relay %sconnected", self.name,
                 "re" if self.connected else "")
        if self.conn is not None:
            self.conn.close()
        self.connected = True
        self.conn, self.buf = conn, b""
        # a new relay is a new engine: no waiting out the old one's
        # failures (the backoff of "no relay connected")
        self.failures, self.retry_at = 0, None
        try:
            mine = set(self.announced())
            for c in self.held():
                if c not in mine and c not in self.orphans:
                    self.orphans[c] = now + self.hold
            if self.orphans:
                log.info("%s: took over %d routes the relay held",
                         self.name, len(self.orphans))
            if mine:
                self.send(sorted(mine))
        except (BackendError, OSError) as e:
            log.warning("%s: the relay that connected: %s", self.name, e)

    def announced(self):
        return [c for r in self.installed for c in self.sent.get(r, [])]

    def upstream(self, rule, info):
        """Whether RULE goes upstream: not a source with no destination
        to name.  (A verdict of CPR alone, a router's own judgement of a
        slow flow, is Backend.acts_on()'s.)"""
        if not routes(rule, info):
            if rule not in self.warned:
                self.warned.add(rule)
                log.warning("%s: %s: no destination to name (give its "
                            "qdisc protect prefixes): not announced",
                            self.name, rule)
            self.count("refused", reason="no destination")
            return False
        return True

    def sync(self, wanted, now):
        self.accept(now)
        super().sync({r: i for r, i in wanted.items()
                      if r in self.installed or self.upstream(r, i)}, now)
        if not self.orphans or self.conn is None:
            return
        mine = set(self.announced())
        done = [c for c, until in self.orphans.items()
                if c in mine or now >= until]
        stale = [c for c in done if c not in mine]
        try:
            if stale:
                self.send([withdrawal(c) for c in stale])
                for c in stale:
                    log.info("%s: withdraw %s (a predecessor's)",
                             self.name, c)
                self.count("actions", len(stale), action="remove")
        except BackendError as e:
            log.error("%s: withdrawing a predecessor's routes: %s",
                      self.name, e)
            return
        for c in done:
            del self.orphans[c]

    def close(self):
        self.orphans.clear()
        super().close()

    def readline(self):
        while b"\n" not in self.buf:
            r, _, _ = select.select([self.conn], [], [], self.ack_timeout)
            if not r:
                raise BackendError("ExaBGP did not answer")
            data = self.conn.recv(65536)
            if not data:
                raise BackendError("the ExaBGP relay went away")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode(errors="replace").strip()

    def send(self, lines):
        """Write LINES, then read as many acknowledgements."""
        if self.conn is None:
            raise BackendError("no ExaBGP relay connected (%s)" % self.path)
        try:
            self.conn.sendall("".join(l + "\n" for l in lines).encode())
            acks = [self.readline() for _ in lines]
        except (OSError, BackendError) as e:
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            raise BackendError(str(e)) from e
        bad = [l for l, a in zip(lines, acks) if a != "done"]
        if bad:
            raise BackendError("ExaBGP refused %d of %d: %s"
                               % (len(bad), len(lines), bad[0]))

    def add(self, rules):
        cmds = {r: [command("announce", x, self.neighbor)
                    for x in routes(r, self.wanted.get(r))] for r in rules}
        self.send([c for r in rules for c in cmds[r]])
        self.sent.update(cmds)

    def remove(self, rules):
        self.send([withdrawal(c) for r in rules
                   for c in self.sent.get(r, [])])
        for r in rules:
            self.sent.pop(r, None)
