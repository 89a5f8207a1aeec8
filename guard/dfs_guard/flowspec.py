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
nothing in BGP).  In ExaBGP's configuration:

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
import os
import select
import socket

from .backend import Backend, BackendError


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


class FlowSpecBackend(Backend):
    name = "flowspec"

    def __init__(self, socket_path="/run/dfs-guard/exabgp.sock",
                 neighbor=None, ack_timeout=5.0, **kw):
        super().__init__(**kw)
        self.path = socket_path
        self.neighbor = neighbor
        self.ack_timeout = ack_timeout
        self.listener = None
        self.conn = None
        self.buf = b""

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
        self.listener.listen(1)
        self.listener.setblocking(False)

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

    def accept(self):
        """A relay that (re)connected is given every rule held."""
        if self.listener is None:
            return
        try:
            conn, _ = self.listener.accept()
        except BlockingIOError:
            return
        if self.conn is not None:
            self.conn.close()
        self.conn, self.buf = conn, b""
        # a new relay is a new engine: no waiting out the old one's
        # failures (the backoff of "no relay connected")
        self.failures, self.retry_at = 0, None
        if self.installed:
            try:
                self.send([command("announce", r, self.neighbor)
                           for r in self.installed])
            except BackendError:
                pass

    def sync(self, wanted, now):
        self.accept()
        super().sync(wanted, now)

    def send(self, lines):
        """Write LINES, then read as many acknowledgements."""
        if self.conn is None:
            raise BackendError("no ExaBGP relay connected (%s)" % self.path)
        try:
            self.conn.sendall("".join(l + "\n" for l in lines).encode())
            acks = []
            while len(acks) < len(lines):
                while b"\n" not in self.buf:
                    r, _, _ = select.select([self.conn], [], [],
                                            self.ack_timeout)
                    if not r:
                        raise BackendError("ExaBGP did not answer")
                    data = self.conn.recv(65536)
                    if not data:
                        raise BackendError("the ExaBGP relay went away")
                    self.buf += data
                line, self.buf = self.buf.split(b"\n", 1)
                acks.append(line.decode(errors="replace").strip())
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
        self.send([command("announce", r, self.neighbor) for r in rules])

    def remove(self, rules):
        self.send([command("withdraw", r, self.neighbor) for r in rules])
