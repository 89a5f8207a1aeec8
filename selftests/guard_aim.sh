#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dfs-guard cannot be aimed: s1 floods UDP at twice the link beside 4 TCP
# flows (dfs_flood.sh's run), each packet from the next of three source
# addresses on s1's link: G, a gateway of the router (a route goes via
# it), N, the router's BGP neighbour (flowspec.neighbor; FlowSpec in dry
# run), and X, an address that is neither.  dfs-guard runs with the
# defaults but for the test's quick rails (guard_toml), no allow list,
# not in dry run for nftables.  Asserted:
#	- X in the set: the daemon acts on a flood that spoofs no one
#	- G and N in no sample of the table (every half second, over
#	  netlink) and in no log line of an add; at least one of them named
#	  in a warning that says why (DFS's verdict on one may come and go
#	  under min_flagged, which makes no rule to spare)
#	- DFS still cuts G's and N's flows: drop_malicious grows by 100
#	  packets or more from X's add to the flood's end (the daemon's
#	  metrics)

source "$(dirname "$0")/guard_lib.sh"

FLOOD=${FLOOD:-16}
OUT=${OUT:-$(dirname "$0")/../build/selftests/guard_aim}
G=10.1.0.7
N=10.1.0.9
X=10.1.0.5

guard_require
setup_topology 5 || exit $ksft_fail
guard_hold_hooks || exit $ksft_fail
mkdir -p "$OUT"
rm -f "$OUT"/guard.log "$OUT/metrics" "$OUT/table"

for a in $G $N $X; do
	in_ns s1 ip addr add $a/24 dev eth0
done
in_ns r ip route add 198.51.100.0/24 via $G

guard_toml "$OUT/guard.toml" 2.0
cat >> "$OUT/guard.toml" <<EOF
[flowspec]
enable = true
dry_run = true
neighbor = "$N"
EOF
RET=0
guard_start "$OUT/guard.toml" "$OUT/guard.log"
check_err $? "dfs-guard did not start: $(tail -n 3 "$OUT/guard.log")"
guard_scrape "$OUT/metrics" dfs_qdisc_drop_malicious_total
guard_sample_table "$OUT/table"

FLOOD_ARGS="--src $G,$N,$X --spread" \
	flood_run "$OUT" "$FLOOD" "20M:$FLOOD" dfs limit 100000
check_err $? "traffic did not run"
date +%s.%N > "$OUT/end"
guard_stop "$OUT/guard.toml"
guard_bg_stop "$OUT/metrics" "$OUT/table"

python3 -S - "$OUT" "$G" "$N" "$X" <<'PY' > "$OUT/verdict"
import sys
out, g, n, x = sys.argv[1:5]
t0 = float(open(out + "/t0").read())
end = float(open(out + "/end").read())
log = [l.split(None, 2) for l in open(out + "/guard.log")]
log = [f for f in log if len(f) == 3 and
       f[0].replace(".", "", 1).isdigit()]


def fail(msg):
    print("FAIL: " + msg)


adds = {a: [float(t) for t, _, m in log
            if "nftables: add src %s/" % a in m] for a in (g, n, x)}
if not adds[x]:
    fail("X (%s), which spoofs no one, never added" % x)
else:
    print("INFO: X in the set at %.2f s" % (adds[x][0] - t0))
rows = [l.split() for l in open(out + "/table")]
warned_any = False
for a, what in ((g, "gateway"), (n, "BGP neighbour")):
    if adds[a]:
        fail("the %s %s added to a set" % (what, a))
    seen = [float(r[0]) - t0 for r in rows
            if any(i == a or i.startswith(a + ">") or i.endswith(">" + a)
                   for i in r[2:])]
    if seen:
        fail("the %s %s in the table at %.1f s" % (what, a, seen[0]))
    warned = [m.strip() for _, lvl, m in log
              if lvl == "WARNING" and "not acted on: %s is" % a in m]
    flagged = [t for t, _, m in log if m.startswith("flag ") and
               " src %s " % a in m]
    if warned:
        warned_any = True
        print("INFO: " + warned[0])
    elif flagged:
        # DFS's verdict on it came and went under min_flagged: nothing
        # to spare, and nothing added either
        print("INFO: the %s %s flagged %d times, never long enough for "
              "a rule" % (what, a, len(flagged)))
    else:
        print("INFO: the %s %s never flagged" % (what, a))
if not warned_any:
    fail("neither the gateway nor the neighbour spared with a warning")
m = [[float(v) for v in l.split()] for l in open(out + "/metrics")]
w = [s for s in m if adds[x] and adds[x][0] <= s[0] <= end]
if len(w) < 2:
    fail("no metrics samples from X's add to the flood's end")
else:
    d = w[-1][1] - w[0][1]
    print("INFO: DFS dropped %d packets for the flag in %.1f s after X's "
          "add" % (d, w[-1][0] - w[0][0]))
    if d < 100:
        fail("DFS dropped only %d packets of the spared flows" % d)
PY
check_err $? "the checks did not run"
check_report "$OUT/verdict"
log_test "dfs-guard: a flood spoofing the gateway and the BGP neighbour"

exit $EXIT_STATUS
