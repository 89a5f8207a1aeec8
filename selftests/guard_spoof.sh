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
# Aggregates are the operator's choice (policy.aggregates), on here.

source "$(dirname "$0")/guard_lib.sh"

FLOOD=${FLOOD:-16}
OUT=${OUT:-$(dirname "$0")/../build/selftests/guard_spoof}

guard_require
setup_topology 5 || exit $ksft_fail
guard_hold_hooks || exit $ksft_fail
mkdir -p "$OUT"
rm -f "$OUT"/guard.log "$OUT/metrics"

# The spoofed sources on s1's link; the router routes them back to s1,
# or its reverse-path filter would drop them.
srcs=$(for n in 1 2; do for ((h = 1; h <= 254; h++)); do
	printf '10.1.%d.%d,' $n $h; done; done)
srcs=${srcs%,}
in_ns s1 ip -batch - <<<"$(tr , '\n' <<<"$srcs" | sed 's|.*|addr add &/32 dev eth0|')"
in_ns r ip route add 10.1.1.0/24 via "${SND_IP4[1]}"
in_ns r ip route add 10.1.2.0/24 via "${SND_IP4[1]}"

# hold: the aggregate limits the flood, not drops it, and what passes
# may be under DFS's fair rate: DFS lets the overflow go while the rule
# holds it, and the rule must outlast that for the flood's length
# (guard_nft.sh's source, dropped whole, is silent to DFS instead).
GUARD_POLICY="aggregates = true" \
	guard_toml "$OUT/guard.toml" 10.0 'protect = ["10.0.0.0/24"]'
RET=0
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

python3 -S - "$OUT" "${SND_IP4[*]:2}" <<'PY' > "$OUT/verdict"
import sys
out, tcp_srcs = sys.argv[1], sys.argv[2].split()
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
PY
check_err $? "the checks did not run"
check_report "$OUT/verdict"
log_test "dfs-guard: a spoofed flood, one aggregate rule"

exit $EXIT_STATUS
