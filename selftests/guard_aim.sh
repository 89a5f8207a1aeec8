#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dfs-guard cannot be aimed: s1 floods UDP at twice the link beside 4 TCP
# flows (dfs_flood.sh's run), each packet from the next of three source
# addresses on s1's link: G, a gateway of the router (a route goes via
# it), N, the router's BGP neighbour (flowspec.neighbor: FRR's bgpd runs
# in s1 at N, and ExaBGP in the router announces dfs-guard's FlowSpec to
# it), and X, an address that is neither.  dfs-guard runs with the
# defaults but for the test's quick rails (guard_toml), no allow list,
# not in dry run, nftables and FlowSpec.  Asserted:
#	- X in the set and in FRR's RIB: the daemon acts on a flood that
#	  spoofs no one, unless DFS flagged X by CPR alone, which the daemon
#	  leaves to DFS's queue (it happens in this flood); no TCP host in
#	  a set (CPR alone flags some under the flood)
#	- G and N in no sample of the table (every half second, over
#	  netlink) and in no log line of an add; at least one of them named
#	  in a warning that says why (DFS's verdict on one may come and go
#	  under min_flagged, which makes no rule to spare)
#	- DFS still cuts G's and N's flows: drop_malicious and drop_cpr
#	  grow by 100 packets or more from X's add (or the flood's start)
#	  to the flood's end (the daemon's metrics)
#	- the BGP session with N Established in every sample of FRR's
#	  state (every half second) from the flood's start to its end;
#	  X's rule in FRR's FlowSpec RIB, never one from G or N

source "$(dirname "$0")/guard_lib.sh"

FLOOD=${FLOOD:-16}
OUT=${OUT:-$(dirname "$0")/../build/selftests/guard_aim}
BGP=${TMPDIR:-/tmp}/guard_aim.bgp
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

RET=0
guard_bgp_start "$BGP" s1 $N
check_err $? "no BGP session with FRR at $N: $(tail -n 3 "$BGP/exabgp.log")"
guard_toml "$OUT/guard.toml" 2.0
{ guard_bgp_toml "$BGP"; echo "neighbor = \"$N\""; } >> "$OUT/guard.toml"
guard_start "$OUT/guard.toml" "$OUT/guard.log"
check_err $? "dfs-guard did not start: $(tail -n 3 "$OUT/guard.log")"
guard_scrape "$OUT/metrics" dfs_qdisc_drop_malicious_total \
	dfs_qdisc_drop_cpr_total
guard_sample_table "$OUT/table"
guard_sample_bgp "$OUT/bgp_samples" "$BGP"

FLOOD_ARGS="--src $G,$N,$X --spread" \
	flood_run "$OUT" "$FLOOD" "20M:$FLOOD" dfs limit 100000
check_err $? "traffic did not run"
date +%s.%N > "$OUT/end"
guard_stop "$OUT/guard.toml"
guard_bg_stop "$OUT/metrics" "$OUT/table" "$OUT/bgp_samples"
guard_bgp_stop "$BGP" "$OUT"

python3 -S - "$OUT" "$G" "$N" "$X" "${SND_IP4[*]:2}" <<'PY' > "$OUT/verdict"
import sys
out, g, n, x = sys.argv[1:5]
tcp = sys.argv[5].split()
t0 = float(open(out + "/t0").read())
end = float(open(out + "/end").read())
log = [l.split(None, 2) for l in open(out + "/guard.log")]
log = [f for f in log if len(f) == 3 and
       f[0].replace(".", "", 1).isdigit()]


def fail(msg):
    print("FAIL: " + msg)


adds = {a: [float(t) for t, _, m in log
            if "nftables: add src %s/" % a in m] for a in (g, n, x)}
# X's verdicts: Algorithm 3's or CPR's; the daemon acts on the first,
# and leaves CPR's alone to DFS's queue
x_flags = [m.strip() for _, _, m in log if m.startswith("flag ")
           and " src %s " % x in m]
x_cpr_only = bool(x_flags) and all(f.endswith("(cpr)") for f in x_flags)
if adds[x]:
    print("INFO: X in the set at %.2f s" % (adds[x][0] - t0))
elif x_cpr_only:
    print("INFO: X flagged by CPR alone (%d times), left to DFS's queue"
          % len(x_flags))
else:
    fail("X (%s), which spoofs no one, never added (%s)"
         % (x, "; ".join(x_flags[:3]) or "never flagged"))
# CPR may flag a TCP host the flood squeezes: its verdict alone is DFS's
# to act on, in the queue, never a rule at ingress
cpr_tcp = sorted({m.split()[3] for _, _, m in log if m.startswith("flag ")
                  and m.split()[3] in tcp and "(cpr)" in m})
if cpr_tcp:
    print("INFO: CPR alone flagged TCP hosts: %s" % " ".join(cpr_tcp))
for a in tcp:
    if any("nftables: add src %s/" % a in m for _, _, m in log):
        fail("the TCP host %s added to a set" % a)
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
# from X's add, or with X left to DFS from the flood's start
since = adds[x][0] if adds[x] else t0
w = [s for s in m if since <= s[0] <= end]
if len(w) < 2:
    fail("no metrics samples from X's add to the flood's end")
else:
    d = sum(w[-1][1:3]) - sum(w[0][1:3])       # Algorithm 3's and CPR's
    print("INFO: DFS dropped %d packets for the flag in %.1f s after %s"
          % (d, w[-1][0] - w[0][0], "X's add" if adds[x] else "the start"))
    if d < 100:
        fail("DFS dropped only %d packets of the spared flows" % d)
bgp = [l.split() for l in open(out + "/bgp_samples")]
# "?": vtysh did not answer in time (a stalled emulated guest), no state
during = [r for r in bgp if t0 <= float(r[0]) <= end and r[1] != "?"]
down = [r for r in during if r[1] != "Established"]
print("INFO: FRR's session: %d samples in the flood, %d not Established"
      % (len(during), len(down)))
if len(during) < (end - t0) / 2:
    fail("%d samples of FRR's state in %.0f s" % (len(during), end - t0))
if down:
    fail("the BGP session %s at %.1f s" % (down[0][1],
                                           float(down[0][0]) - t0))
routes = {r for row in bgp for r in row[3:]}
print("INFO: FRR's FlowSpec routes: %s" % (" ".join(sorted(routes))
                                            or "none"))
if adds[x] and not any(r.startswith(x + "/") for r in routes):
    fail("X's rule in the set, never in FRR's RIB")
for a in (g, n):
    if any(r.startswith(a + "/") for r in routes):
        fail("a FlowSpec route from %s upstream" % a)
PY
check_err $? "the checks did not run"
check_report "$OUT/verdict"
log_test "dfs-guard: a flood spoofing the gateway and the BGP neighbour"

exit $EXIT_STATUS
