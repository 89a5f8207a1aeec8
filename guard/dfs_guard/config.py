# SPDX-License-Identifier: GPL-2.0
"""dfs-guard's configuration: a TOML file (dfs-guard.toml documents every
key).  Bad input is refused at start with the key it is about, never
taken for something else."""
import ipaddress
import re
import socket
import tomllib
from dataclasses import dataclass, field

from .policy import Policy
from .verdict import Qdisc

RATE_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9,
              "bps": 8, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9}


# An aggregate never throttles a destination under this: a spoofed flood
# makes the daemon limit its victim, and a limit this low would finish
# the attack's work.
AGGREGATE_FLOOR = 125000             # bytes/s: 1 Mbit/s


class ConfigError(Exception):
    pass


def rate_bytes(value, key):
    """A rate as tc writes it ("1mbit", "500kbps") or bytes/s."""
    if isinstance(value, int) and value > 0:
        return value
    m = re.fullmatch(r"\s*([0-9.]+)\s*([a-z]+)\s*", str(value).lower())
    if not m or m.group(2) not in RATE_UNITS or float(m.group(1)) <= 0:
        raise ConfigError("%s: not a rate: %r (e.g. 1mbit, 500kbps)"
                          % (key, value))
    return max(1, int(float(m.group(1)) * RATE_UNITS[m.group(2)] / 8))


def networks(values, key):
    try:
        return [ipaddress.ip_network(v, strict=False) for v in values]
    except (ValueError, TypeError) as e:
        raise ConfigError("%s: %s" % (key, e)) from e


def interfaces(value):
    """A non-empty list of interface names (a string is not: "eth0" would
    be four interfaces of a letter each)."""
    return isinstance(value, list) and value and \
        all(isinstance(d, str) and d for d in value)


def handle(text, key):
    m = re.fullmatch(r"([0-9a-fA-F]{1,4}):0*", str(text))
    if not m:
        raise ConfigError("%s: not a qdisc handle: %r (e.g. 1:)"
                          % (key, text))
    return int(m.group(1), 16) << 16


def positive(section, key, default, kind=float, where=""):
    v = section.get(key, default)
    if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
        raise ConfigError("%s%s: not a number >= 0: %r" % (where, key, v))
    return kind(v)


def flag(section, key, default, where=""):
    """A TOML boolean: a string "false" is true to Python's bool(), and
    would turn a backend on (or dry_run off) that the operator meant off."""
    v = section.get(key, default)
    if not isinstance(v, bool):
        raise ConfigError("%s%s: true or false, not %r" % (where, key, v))
    return v


@dataclass
class Config:
    dry_run: bool = True
    log_level: str = "info"
    policy: Policy = field(default_factory=Policy)
    qdiscs: list = field(default_factory=list)   # [] : every DFS qdisc
    nft: dict = None                 # NftBackend's arguments, or None
    flowspec: dict = None            # FlowSpecBackend's arguments, or None
    metrics: tuple = None            # (addr, port) or None
    tick: float = 0.5


KNOWN = {"": {"dry_run", "log_level", "policy", "qdisc", "nftables",
              "flowspec", "metrics", "tick"},
         "policy": {"allow", "min_flagged", "hold", "aggregates",
                    "aggregate_sources", "aggregate_rate"},
         "qdisc": {"dev", "handle", "protect"},
         "nftables": {"enable", "dry_run", "interfaces", "table", "cpr",
                      "max_rules", "changes_per_s", "burst", "renew"},
         "flowspec": {"enable", "dry_run", "socket", "group", "neighbor",
                      "cpr",
                      "max_rules", "changes_per_s", "burst"},
         "metrics": {"enable", "listen", "port"}}


def check_keys(section, name):
    unknown = set(section) - KNOWN[name]
    if unknown:
        raise ConfigError("unknown key%s in %s: %s" % (
            "s" if len(unknown) > 1 else "", name or "the top level",
            ", ".join(sorted(unknown))))


def load(path, ifindex=socket.if_nametoindex):
    try:
        with open(path, "rb") as fh:
            raw = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError("%s: %s" % (path, e)) from e
    return parse(raw, ifindex)


def parse(raw, ifindex=socket.if_nametoindex):
    check_keys(raw, "")
    cfg = Config()
    cfg.dry_run = flag(raw, "dry_run", True)
    cfg.log_level = str(raw.get("log_level", "info"))
    cfg.tick = positive(raw, "tick", 0.5) or 0.5
    p = raw.get("policy", {})
    check_keys(p, "policy")
    cfg.policy = Policy(
        allow=networks(p.get("allow", []), "policy.allow"),
        min_flagged=positive(p, "min_flagged", 2.0, where="policy."),
        hold=positive(p, "hold", 30.0, where="policy."),
        aggregates=flag(p, "aggregates", False, "policy."),
        aggregate_sources=max(1, positive(p, "aggregate_sources", 16, int,
                                               "policy.")),
        aggregate_rate=rate_bytes(p.get("aggregate_rate", "10mbit"),
                                  "policy.aggregate_rate"))
    if cfg.policy.aggregate_rate < AGGREGATE_FLOOR:
        raise ConfigError("policy.aggregate_rate: %r is under the floor, "
                          "1mbit: an aggregate throttles the flood's "
                          "victim with it" % p.get("aggregate_rate"))
    for i, q in enumerate(raw.get("qdisc", [])):
        check_keys(q, "qdisc")
        key = "qdisc[%d]" % i
        if "dev" not in q:
            raise ConfigError("%s: no dev" % key)
        try:
            idx = ifindex(q["dev"])
        except OSError as e:
            raise ConfigError("%s.dev: %s: %s" % (key, q["dev"], e)) from e
        qd = Qdisc(idx, handle(q.get("handle", "1:"), key + ".handle"))
        cfg.qdiscs.append(qd)
        cfg.policy.protect[qd] = networks(q.get("protect", []),
                                          key + ".protect")
    n = raw.get("nftables", {})
    check_keys(n, "nftables")
    if flag(n, "enable", False, "nftables."):
        devs = n.get("interfaces", [])
        if not interfaces(devs):
            raise ConfigError("nftables.interfaces: the interfaces to "
                              "drop at, a list of names")
        w = "nftables."
        cfg.nft = dict(devices=devs, table=str(n.get("table", "dfs_guard")),
                       cpr=flag(n, "cpr", False, w),
                       max_rules=positive(n, "max_rules", 10000, int, w),
                       changes_per_s=positive(n, "changes_per_s", 100.0,
                                              where=w),
                       burst=positive(n, "burst", 1000, int, w),
                       renew_every=positive(n, "renew", 10.0, where=w)
                       or 10.0,
                       dry_run=flag(n, "dry_run", cfg.dry_run, w))
    f = raw.get("flowspec", {})
    check_keys(f, "flowspec")
    if flag(f, "enable", False, "flowspec."):
        w = "flowspec."
        nb = f.get("neighbor")
        if nb is not None:
            try:
                nb = str(ipaddress.ip_address(nb))
            except ValueError as e:
                raise ConfigError("flowspec.neighbor: %s" % e) from e
        cfg.flowspec = dict(
            socket_path=str(f.get("socket", "/run/dfs-guard/exabgp.sock")),
            group=str(f.get("group", "exabgp")),
            neighbor=nb,
            cpr=flag(f, "cpr", False, w),
            max_rules=positive(f, "max_rules", 100, int, w),
            changes_per_s=positive(f, "changes_per_s", 1.0, where=w),
            burst=positive(f, "burst", 10, int, w),
            dry_run=flag(f, "dry_run", cfg.dry_run, w))
    m = raw.get("metrics", {})
    check_keys(m, "metrics")
    if flag(m, "enable", True, "metrics."):
        port = m.get("port", 9747)
        if not isinstance(port, int) or not 0 < port < 65536:
            raise ConfigError("metrics.port: not a port: %r" % port)
        cfg.metrics = (str(m.get("listen", "127.0.0.1")), port)
    return cfg
