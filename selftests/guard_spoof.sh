#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dfs-guard's nftables backend against a spoofed flood: s1 floods UDP at
# twice the link from 508 source addresses, each packet from the next,
# beside 4 TCP flows (dfs_flood.sh's run), through "dfs flows 64" under
# the router's 10 Mbit/s TBF.  Nearly every source is past DFS's flows
# cap and counted in its overflow flow, which has no address; dfs-guard
# (not in dry run, nftables on the sender-side interfaces) must make of
# it one aggregate rule, a rate limit towards the qdisc's protected
# prefix (the receiver's), not an element a source.  Asserted:
#	- the overflow flagged, and the aggregate added within 5 s of
#	  the daemon's FLAG event; of the sources, only some of those DFS
#	  tracks as flows of their own (under "flows") may be flagged and
#	  get an element: fewer than 64, never one a source
#	- the ingress rules then drop packets (the daemon's metrics, as
#	  guard_nft.sh reads them): at least 100 from the add to SIGKILL
#	- no TCP host in a set
#	- SIGKILL of the daemon under the flood: within the bound the
#	  daemon states (its elements' timeout, 4 renewals and a second:
#	  9 s here) and a sample more, the table holds no element of a set
#	  or a map: no source dropped and no destination limited
#	- FlowSpec, to FRR's bgpd in s1 through ExaBGP in the router: the
#	  aggregate in FRR's RIB (sampled every half second) when the
#	  daemon is killed, and still there when a new one starts after
#	  the flood: the relay keeps a dead daemon's routes for its grace
#	  (300 s here, past the test).  The new daemon takes them over, and
#	  FRR's RIB is empty within 40 s of its start (hold, 10 s, after DFS
#	  lets the overflow go), while it runs
# Aggregates are the operator's choice (policy.aggregates).  First the
# defaults, the flood alone for FLOOD_DEFAULTS seconds: DFS flags the
# overflow, and no destination is throttled (no aggregate in any sample
# of the table, no FlowSpec route without a source in FRR's); then with
# aggregates on.

source "$(dirname "$0")/guard_lib.sh"

FLOOD=${FLOOD:-16}
FLOOD_DEFAULTS=${FLOOD_DEFAULTS:-8}
OUT=${OUT:-$(dirname "$0")/../build/selftests/guard_spoof}
BGP=${TMPDIR:-/tmp}/guard_spoof.bgp

guard_require
setup_topology 5 || exit $ksft_fail
guard_hold_hooks || exit $ksft_fail
mkdir -p "$OUT"
rm -rf "$OUT"/guard.log "$OUT"/guard2.log "$OUT/metrics" "$OUT/defaults"

# The spoofed sources on s1's link; the router routes them back to s1,
# or its reverse-path filter would drop them.
srcs=$(for n in 1 2; do for ((h = 1; h <= 254; h++)); do
	printf '10.1.%d.%d,' $n $h; done; done)
srcs=${srcs%,}
in_ns s1 ip -batch - <<<"$(tr , '\n' <<<"$srcs" | sed 's|.*|addr add &/32 dev eth0|')"
in_ns r ip route add 10.1.1.0/24 via "${SND_IP4[1]}"
in_ns r ip route add 10.1.2.0/24 via "${SND_IP4[1]}"
# FRR at UP on s1's link
UP=10.1.0.9
in_ns s1 ip addr add $UP/24 dev eth0

RET=0
GUARD_GRACE=300 guard_bgp_start "$BGP" s1 $UP
check_err $? "no BGP session with FRR at $UP: $(tail -n 3 "$BGP/exabgp.log")"
# hold: the aggregate limits the flood, not drops it, and what passes
# may be under DFS's fair rate: DFS lets the overflow go while the rule
# holds it, and the rule must outlast that for the flood's length
# (guard_nft.sh's source, dropped whole, is silent to DFS instead).
GUARD_POLICY="aggregates = true" \
	guard_toml "$OUT/guard.toml" 10.0 'protect = ["10.0.0.0/24"]'
guard_bgp_toml "$BGP" >> "$OUT/guard.toml"
guard_sample_bgp "$OUT/bgp_samples" "$BGP"

guard_toml "$OUT/defaults.toml" 10.0 'protect = ["10.0.0.0/24"]'
guard_bgp_toml "$BGP" >> "$OUT/defaults.toml"
guard_start "$OUT/defaults.toml" "$OUT/defaults.log"
check_err $? "dfs-guard did not start: $(tail -n 3 "$OUT/defaults.log")"
guard_sample_table "$OUT/defaults.table"
# The flood alone: a TCP host that connects under it, its flow past the
# cap too, would starve behind the overflow DFS refuses (no aggregate
# lets the overflow go), and what is judged here is the daemon's.
setup_bottleneck "$R_OUT" "$LINK_RATE" dfs limit 100000 flows 64
check_err $? "no dfs for the defaults' flood"
mkdir -p "$OUT/defaults"
date +%s.%N > "$OUT/defaults/t0"
in_ns s1 python3 -S "$TOOLS/udp_cbr.py" send --dst "$(flow_dst)" \
	--port $UDP_PORT --rate 20M --time "$FLOOD_DEFAULTS" --src "$srcs" \
	--spread > "$OUT/defaults/udp_send.json"
check_err $? "the flood did not run with the defaults"
date +%s.%N > "$OUT/defaults.end"
guard_stop "$OUT/defaults.toml"
guard_bg_stop "$OUT/defaults.table"

guard_start "$OUT/guard.toml" "$OUT/guard.log"
check_err $? "dfs-guard did not start: $(tail -n 3 "$OUT/guard.log")"
# What the ingress rules dropped, "EPOCH PACKETS", every half second.
guard_scrape "$OUT/metrics" dfs_guard_ingress_dropped_packets_total

guard_sample_table "$OUT/table"
# SIGKILL 3 s after the aggregate's add: DFS lets the overflow go once
# the limit holds it under its fair rate, and the rule goes hold (10 s)
# after.
rm -f "$OUT/t0" "$OUT/killed"
(
	busywait 600000 test -e "$OUT/t0" || exit 0
	busywait 120000 grep -q "nftables: add dst 10.0.0.0/24" \
		"$OUT/guard.log" || exit 0
	sleep 3
	# the bound runs from when the daemon is known dead
	pkill -KILL -f "guard/[d]fs-guard -c $OUT/guard.toml"
	date +%s.%N > "$OUT/killed"
) &
killer=$!
FLOOD_ARGS="--src $srcs --spread" \
	flood_run "$OUT" "$FLOOD" "20M:$FLOOD" dfs limit 100000 flows 64
check_err $? "traffic did not run"
wait "$killer"
busywait 30000 guard_gone "$OUT/guard.toml"
# the bound, and two samples more
sleep $((4 * 2 + 1 + 1))
guard_bg_stop "$OUT/metrics" "$OUT/table"
in_ns r nft delete table netdev dfs_guard
# The restart: the new daemon takes over the dead one's routes from the
# relay and withdraws them when they are not wanted, as the old never did.
date +%s.%N > "$OUT/restart"
guard_start "$OUT/guard.toml" "$OUT/guard2.log"
check_err $? "dfs-guard did not start again: $(tail -n 3 "$OUT/guard2.log")"
date +%s.%N > "$OUT/restarted"
bgp_rib_empty()
{
	local last

	last=$(tail -n 1 "$OUT/bgp_samples")
	[ "$(cut -d' ' -f3 <<<"$last")" = 0 ] &&
		[ "${last%% *}" \> "$(cat "$OUT/restarted")" ]
}
busywait 40000 bgp_rib_empty
date +%s.%N > "$OUT/waited"
guard_stop "$OUT/guard.toml"
guard_bg_stop "$OUT/bgp_samples"
guard_bgp_stop "$BGP" "$OUT"

python3 -S - "$OUT" "${SND_IP4[*]:2}" <<'PY' > "$OUT/verdict"
import sys
out, tcp_srcs = sys.argv[1], sys.argv[2].split()

# The defaults: the overflow flagged, nothing throttled
d0 = float(open(out + "/defaults/t0").read())
d1 = float(open(out + "/defaults.end").read())
dlog = [l.split(None, 2) for l in open(out + "/defaults.log")]
if not any(len(f) == 3 and f[2].startswith("flag ") and "overflow" in f[2]
           for f in dlog):
    print("FAIL: with the defaults, DFS never flagged its overflow flow")
aggs = [r for r in (l.split() for l in open(out + "/defaults.table"))
        if any(x.startswith("agg:") for x in r[2:])]
if aggs:
    print("FAIL: with the defaults, an aggregate at %.1f s: %s"
          % (float(aggs[0][0]) - d0, " ".join(aggs[0][2:5])))
ups = [r for r in (l.split() for l in open(out + "/bgp_samples"))
       if d0 <= float(r[0]) <= d1 and any(x.startswith("*>")
                                          for x in r[3:])]
if ups:
    print("FAIL: with the defaults, FRR holds a route with no source at "
          "%.1f s" % (float(ups[0][0]) - d0))
if not aggs and not ups:
    print("INFO: with the defaults, no destination throttled over %.0f s "
          "of the flood" % (d1 - d0))
t0 = float(open(out + "/t0").read())
end = float(open(out + "/killed").read())
BOUND = 4 * 2 + 1
log = []
for line in open(out + "/guard.log"):      # "EPOCH LEVEL MESSAGE"
    f = line.split(None, 2)
    if len(f) == 3 and f[0].replace(".", "", 1).isdigit():
        log.append(f)

def fail(msg):
    print("FAIL: " + msg)

flags = [float(t) for t, _, m in log if m.startswith("flag ") and
         "overflow" in m]
aggs = [float(t) for t, _, m in log if "nftables: add dst 10.0.0.0/24" in m]
elems = [m.strip() for _, _, m in log if "nftables: add src" in m]
if not flags:
    fail("DFS never flagged its overflow flow")
elif not aggs:
    fail("no aggregate rule added")
else:
    print("INFO: overflow flagged at %.2f s, the aggregate in at %.2f s"
          % (flags[0] - t0, aggs[0] - t0))
    if aggs[0] - flags[0] > 5:
        fail("the aggregate %.2f s after the flag" % (aggs[0] - flags[0]))
        # what the daemon heard of the overflow until then
        print("INFO: " + "; ".join(
            "%.2f %s" % (float(t) - t0, m.strip()) for t, _, m in log
            if ("overflow" in m or " took " in m) and float(t) <= aggs[0]))
if len(aggs) > 1:
    print("INFO: the aggregate added %d times (DFS let the overflow go "
          "between)" % len(aggs))
print("INFO: %d source or pair elements (sources DFS tracks as flows of "
      "their own)" % len(elems))
if len(elems) >= 64:
    fail("%d source or pair elements added: one a source" % len(elems))
for e in elems:
    if any("src %s/" % s in e for s in tcp_srcs):
        fail("a TCP host in a set: " + e)
# The total falls back when a rule goes (its counter with it): count
# what each sample adds over the last.
m = [[float(x) for x in l.split()] for l in open(out + "/metrics")]
w = [x for x in m if aggs and aggs[0] <= x[0] <= end]
if len(w) < 2:
    fail("no metrics samples from the aggregate's add to SIGKILL")
else:
    n = sum(max(0, b[1] - a[1]) for a, b in zip(w, w[1:]))
    print("INFO: the ingress rules dropped %d packets in the %.1f s "
          "before SIGKILL" % (n, w[-1][0] - w[0][0]))
    if n < 100:
        fail("the ingress rules dropped only %d packets" % n)
# after SIGKILL: the table's elements all gone within the bound
rows = [l.split() for l in open(out + "/table")]
before = [r for r in rows if float(r[0]) <= end]
after = [r for r in rows if float(r[0]) > end]
if not before or not any(x.startswith("agg:") for x in before[-1][2:]):
    fail("no aggregate in the table when the daemon was killed")
left = [r for r in after if float(r[0]) > end + BOUND + 0.6]
if not left:
    fail("no sample of the table past the bound")
else:
    empty = [float(r[0]) - end for r in after if r[1] == "0"]
    print("INFO: SIGKILL at %.1f s; the table empty %.1f s later (bound "
          "%d s)" % (end - t0, empty[0] if empty else float("nan"),
                     BOUND))
    for r in left:
        if r[1] != "0":
            fail("%.1f s after SIGKILL the table holds %s" % (
                float(r[0]) - end, " ".join(r[2:6])))
            break
# FlowSpec: FRR's RIB ("EPOCH STATE N ROUTE...") at SIGKILL, then empty
# while the restarted daemon runs
bgp = [l.split() for l in open(out + "/bgp_samples")]
at_kill = [r for r in bgp if float(r[0]) <= end]
if not at_kill or "*>10.0.0.0/24" not in at_kill[-1][3:]:
    fail("the aggregate not in FRR's RIB when the daemon was killed (%s)"
         % (" ".join(at_kill[-1][1:6]) if at_kill else "no sample"))
restart = float(open(out + "/restart").read())
restarted = float(open(out + "/restarted").read())
waited = float(open(out + "/waited").read())
kept = [r for r in bgp if end < float(r[0]) <= restart]
if not kept or "*>10.0.0.0/24" not in kept[-1][3:]:
    fail("the relay did not keep the dead daemon's route to the restart")
empty = [r for r in bgp if restarted < float(r[0]) <= waited and
         r[1] == "Established" and r[2] == "0"]
took = [m.strip() for m in open(out + "/guard2.log") if "took over" in m]
print("INFO: the new daemon: %s" % (took[0].split(None, 2)[2] if took
                                    else "took nothing over"))
if not any("the relay held" in m for m in took):
    fail("the new daemon took over no route from the relay")
if not empty:
    left = [r for r in bgp if float(r[0]) <= waited][-1:]
    fail("FRR still holds %s %.0f s after the restart" % (
        " ".join(left[0][3:7]) if left else "?", waited - restarted))
else:
    print("INFO: FRR's RIB empty %.1f s after the new daemon started"
          % (float(empty[0][0]) - restarted))
PY
check_err $? "the checks did not run"
check_report "$OUT/verdict"
log_test "dfs-guard: a spoofed flood, one aggregate rule"

exit $EXIT_STATUS
