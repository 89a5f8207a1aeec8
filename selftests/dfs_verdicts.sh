#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The verdict stream (linux/dfs_verdict.h): s1 floods UDP at twice the
# link rate, then falls to 300 kbit/s, beside 8 TCP flows (dfs_unmark.sh's
# run).  A listener in the router's netns (tools/dfs_verdicts.py) must
# hear the flood source flagged within 2 s of when the qdisc's class dump,
# sampled over netlink every 0.25 s, first shows it malicious; nothing of
# the TCP hosts; the flood source released after its rate fell.  At the
# first flag event it restarts (a new socket joins the group and dumps
# the qdisc), and the dump, taken while the flood runs, must list the
# flood source.  A listener in the root netns must hear nothing: events
# go to the qdisc's own netns.

source "$(dirname "$0")/dfs_scenario.sh"

FLOOD=${FLOOD:-10}
CALM=${CALM:-16}
OUT=${OUT:-$(dirname "$0")/../build/selftests/dfs_verdicts}

require_command iperf3 python3 setpriv unshare
setup_topology 9 || exit $ksft_fail
mkdir -p "$OUT"

listener_pids=()
# listener NS OUTFILE ARGS...: tools/dfs_verdicts.py listen, in NS ("-":
# the root netns), joined to the group before this returns.
listener()
{
	local ns=$1 out=$2 cmd
	shift 2

	rm -f "$out.ready"
	cmd=(python3 -S "$TOOLS/dfs_verdicts.py" listen --out "$out"
	     --ready "$out.ready" "$@")
	if [ "$ns" = - ]; then
		"${cmd[@]}" &
	else
		in_ns "$ns" "${cmd[@]}" &
	fi
	listener_pids+=($!)
	busywait 60000 test -e "$out.ready"
}

RET=0
listener r "$OUT/events" --dev "$R_OUT" --handle 10: \
	--resync-on "${SND_IP4[1]}"
check_err $? "the listener in r did not join the group"
listener - "$OUT/events.root"
check_err $? "the listener in the root netns did not join the group"

flood_run "$OUT" $((FLOOD + CALM)) "20M:$FLOOD,300k:$CALM" dfs limit 100000
check_err $? "traffic did not run"
# SIGTERM to the listeners themselves, not to the shells that started
# them (ip netns exec), as qdisc_sampler_stop does
pkill -TERM -f 'dfs_verdicts\.py listen ' 2>/dev/null
wait "${listener_pids[@]}"
log_info "flags of s1's flow (seconds flags, at each change): $(flood_flag_changes "$OUT")"

# Every check, on the listener's records (its wall clock is the samples'),
# the sampled flags and the sender's phases; a line a failure.
python3 -S - "$OUT" "${SND_IP4[1]}" "${SND_IP4[*]:2}" <<'PY' > "$OUT/verdict"
import json, sys
out, flood_src, tcp_srcs = sys.argv[1], sys.argv[2], sys.argv[3].split()
t0 = float(open(out + "/t0").read())
phases = json.load(open(out + "/udp_send.json"))["phase_starts"]
fall = phases[1] - t0
ev = [json.loads(l) for l in open(out + "/events")]
for e in ev:
    e["t"] -= t0
samples = [l.split() for l in open(out + "/flags")]
marked = [float(s[0]) for s in samples if "malicious" in s[1]]

def info(msg):
    print("INFO: " + msg)

def fail(msg):
    print("FAIL: " + msg)

flags = [e for e in ev if e["msg"] == "flag" and e.get("src") == flood_src]
if not marked:
    fail("the class dump never showed the flood source malicious")
elif not flags:
    fail("no flag event for the flood source")
else:
    first = flags[0]
    info("sampled malicious at %.2f s, flag event read at %.2f s "
         "(%.2f s after the kernel's time), reason %s, rate %d B/s"
         % (marked[0], first["t"], first["mono"] - first["time"] / 1e9,
            ",".join(first["reason"]), first["rate"]))
    if first["t"] - marked[0] > 2:
        fail("flag event %.2f s after the class dump showed it"
             % (first["t"] - marked[0]))
    if first["mono"] - first["time"] / 1e9 > 2:
        fail("flag event read more than 2 s after the qdisc saw it")
tcp = [e for e in ev if e.get("src") in tcp_srcs]
if tcp:
    fail("events for TCP hosts: %s" % tcp[:3])
rel = [e for e in ev if e["msg"] == "release" and e.get("src") == flood_src]
info("the flood fell at %.2f s; releases of it at %s s" %
     (fall, " ".join("%.2f" % e["t"] for e in rel) or "-"))
after = [e for e in rel if e["t"] >= fall]
if not after:
    fail("no release event after the flood fell")
elif after[0]["t"] - fall > 12:
    fail("released %.2f s after the flood fell" % (after[0]["t"] - fall))
dump = [e for e in ev if e["msg"] == "dump"]
done = [e for e in ev if e["msg"] == "dump_done"]
info("dump after the restart: %s, at %s s" %
     (" ".join("%s>%s(%s)" % (e.get("src"), e.get("dst"),
                              ",".join(e.get("reason", []))) for e in dump)
      or "nothing", " ".join("%.2f" % e["t"] for e in done) or "-"))
if not done or done[0]["error"]:
    fail("the dump after the restart did not complete: %s" % done)
elif done[0]["t"] >= fall:
    fail("the dump ran after the flood fell, not while it ran")
elif not any(e.get("src") == flood_src and e.get("reason") for e in dump):
    fail("the dump after the restart does not list the flood source")
lost = [e for e in ev if e["msg"] in ("lost", "overrun")]
if lost:
    info("losses: %s" % lost)
root = [l for l in open(out + "/events.root")]
if root:
    fail("the root netns heard %d messages of the router's qdisc"
         % len(root))
PY
check_err $? "the checks did not run"
check_report "$OUT/verdict"
log_test "dfs: verdicts flagged, released and dumped over generic netlink"

# Who may read them: CAP_NET_ADMIN in the user namespace that owns the
# netns.  uid 65534 with no capability gets EPERM for the dump and for
# the group; root in the router's netns gets both; so does root of a
# user namespace in a netns of its own, with a dfs it made there.
RET=0
# a copy uid 65534 can read wherever the tree is
VDIR=$(mktemp -d)
chmod 0755 "$VDIR"
install -m 0644 "$TOOLS/dfs_verdicts.py" "$VDIR/"
VERDICTS=(python3 -S "$VDIR/dfs_verdicts.py")
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all
	--bounding-set=-all)
for what in "dump --dev $R_OUT --handle 10:" "listen --out /dev/null --time 1"; do
	# shellcheck disable=SC2086
	out=$(in_ns r "${NOBODY[@]}" "${VERDICTS[@]}" $what 2>&1)
	check_fail $? "uid 65534: $what succeeded"
	grep -q 'Operation not permitted' <<<"$out"
	check_err $? "uid 65534: $what: \"$out\", not EPERM"
	# shellcheck disable=SC2086
	out=$(in_ns r "${VERDICTS[@]}" $what 2>&1)
	check_err $? "root: $what: $out"
done
out=$(unshare --user --map-root-user --net sh -ec '
	ip link add d0 type dummy
	tc qdisc add dev d0 root handle 1: dfs
	"$@" dump --dev d0 --handle 1:
	"$@" listen --out /dev/null --time 1' sh "${VERDICTS[@]}" 2>&1)
check_err $? "root of a user namespace, in its netns: $out"
rm -r "$VDIR"
log_test "dfs: verdicts for CAP_NET_ADMIN in the netns's user namespace alone"

exit $EXIT_STATUS
