#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dfs-guard's nftables backend against a real flood: s1 floods UDP at
# twice the link rate beside 4 TCP flows (dfs_flood.sh's run) through
# dfs under the router's 10 Mbit/s TBF, while dfs-guard (guard/) runs in
# the router, not in dry run, dropping at the ingress of the router's
# sender-side interfaces.  Asserted:
#	- the flood source in the set (the daemon's add) within 2 s of when
#	  the qdisc's class dump, sampled over netlink, first shows it
#	  malicious
#	- then dropped at ingress: DFS's drop_malicious grows by at most a
#	  few packets from a second after the add to the SIGKILL below,
#	  while the ingress rule's counter grows (both read from the
#	  daemon's Prometheus endpoint, sampled every half second)
#	- SIGKILL and a new daemon (its Python started and its modules
#	  imported beforehand), then SIGHUP to that one (it runs itself
#	  afresh: an interpreter that starts under the flood, tens of
#	  seconds in this guest) open no gap: the source is in the set in
#	  every sample of the table (every half second, over netlink) from
#	  a second after the add until the flood ends; the new daemon and
#	  its new image each say they took the rules over, and the source
#	  is never added again
#	- no TCP host ever in a set
#	- after the flood, with the qdisc told to prune within a second, the
#	  key released and its element removed, the set empty
#	- SIGTERM leaves no table behind

source "$(dirname "$0")/guard_lib.sh"

FLOOD=${FLOOD:-16}
OUT=${OUT:-$(dirname "$0")/../build/selftests/guard_nft}

guard_require
setup_topology 5 || exit $ksft_fail
guard_hold_hooks || exit $ksft_fail
mkdir -p "$OUT"
rm -f "$OUT"/guard*.log "$OUT/metrics"
# Elements that live 41 s, the default: an image that runs afresh on a
# loaded emulated guest may take tens of seconds to import its Python.
GUARD_RENEW=10.0 guard_toml "$OUT/guard.toml" 2.0

# guard_prestart LOG: a second daemon, on a copy of the configuration so
# that guard_stop does not find it, started now and its modules imported,
# its main run once "$OUT/go2" exists.  Python alone may take tens of
# seconds to start in the loaded emulated guest, and the restart must be
# judged while DFS still flags the source: a source that is alone on the
# link once the TCP flows ended is rightly released.
guard_prestart()
{
	cp "$OUT/guard.toml" "$OUT/guard2.toml"
	in_ns r /usr/bin/python3 -c '
import os, runpy, sys, time
sys.path.insert(0, os.path.dirname(sys.argv[2]))
# what its main imports, before the gate
import dfs_guard.daemon, dfs_guard.metrics, dfs_guard.stream, dfs_guard.nft
import nftables, pyroute2
open(sys.argv[1] + ".ready", "w").close()
while not os.path.exists(sys.argv[1]):
    time.sleep(0.05)
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
' "$OUT/go2" "$GUARD" -c "$OUT/guard2.toml" --timestamps 2> "$1" &
}

RET=0
rm -f "$OUT/go2" "$OUT/go2.ready" "$OUT/restart" "$OUT/hup"
guard_prestart "$OUT/guard2.log"
guard_start "$OUT/guard.toml" "$OUT/guard1.log"
check_err $? "dfs-guard did not start: $(tail -n 3 "$OUT/guard1.log")"

# The daemon's metrics every half second: "EPOCH drop_malicious
# ingress_packets" (what DFS dropped for the flag, what the ingress
# rules dropped).
guard_scrape "$OUT/metrics" dfs_qdisc_drop_malicious_total \
	dfs_guard_ingress_dropped_packets_total

guard_sample_table "$OUT/table"

# In the middle of the flood: SIGKILL once the source is in the set,
# the second daemon, and SIGHUP to it once it runs.
rm -f "$OUT/t0"
(
	busywait 600000 test -e "$OUT/t0" || exit 0
	busywait 60000 grep -q "nftables: add src ${SND_IP4[1]}/" \
		"$OUT/guard1.log"
	sleep 4		# the quiet stretch the metrics judge
	busywait 60000 test -e "$OUT/go2.ready"
	date +%s.%N > "$OUT/restart"
	pkill -KILL -f "guard/[d]fs-guard -c $OUT/guard.toml"
	busywait 30000 guard_gone "$OUT/guard.toml"
	touch "$OUT/go2"
	busywait 60000 grep -q " following " "$OUT/guard2.log"
	sleep 2
	date +%s.%N > "$OUT/hup"
	pkill -HUP -f "guard/[d]fs-guard -c $OUT/guard2.toml"
) &
restarter=$!

flood_run "$OUT" "$FLOOD" "20M:$FLOOD" dfs limit 100000
check_err $? "traffic did not run"
wait "$restarter"

# After the flood: DFS forgets the idle source within a second or two,
# the daemon holds its rule 2 s more, then removes it.
in_ns r tc qdisc change dev "$R_OUT" parent 1:1 handle 10: dfs prune 1s
busywait 90000 grep -q 'nftables: remove src '"${SND_IP4[1]}"'/' \
	"$OUT/guard2.log"
check_err $? "the flood source's element was not removed after the flood"
left=$(in_ns r nft -j list set netdev dfs_guard pair4 |
	python3 -S -c 'import json,sys; print(sum(len(o["set"].get("elem", [])) for o in json.load(sys.stdin)["nftables"] if "set" in o))')
[ "$left" = 0 ]
check_err $? "$left elements left in the set after the flood"
guard_stop "$OUT/guard2.toml"
guard_bg_stop "$OUT/metrics" "$OUT/table"
in_ns r nft list table netdev dfs_guard > /dev/null 2>&1
check_fail $? "the daemon left its table behind after SIGTERM"

python3 -S - "$OUT" "${SND_IP4[1]}" "${SND_IP4[*]:2}" "$FLOOD" <<'PY' > "$OUT/verdict"
import sys
out, flood_src, tcp_srcs = sys.argv[1], sys.argv[2], sys.argv[3].split()
flood = float(sys.argv[4])
t0 = float(open(out + "/t0").read())
restart = float(open(out + "/restart").read())

def info(msg):
    print("INFO: " + msg)

def fail(msg):
    print("FAIL: " + msg)

def adds(log, src):
    return [float(l.split()[0]) for l in open(log)
            if " nftables: add src %s/" % src in l]

def started(log):
    return [float(l.split()[0]) for l in open(log) if " following " in l]

samples = [l.split() for l in open(out + "/flags")]
marked = [t0 + float(s[0]) for s in samples if "malicious" in s[1]]
a1 = adds(out + "/guard1.log", flood_src)
a2 = adds(out + "/guard2.log", flood_src)
if not marked:
    fail("the class dump never showed the flood source malicious")
elif not a1:
    fail("the daemon never added the flood source")
else:
    info("sampled malicious at %.2f s, in the set at %.2f s"
         % (marked[0] - t0, a1[0] - t0))
    if a1[0] - marked[0] > 2:
        fail("in the set %.2f s after DFS flagged it" % (a1[0] - marked[0]))
def took_over(log):
    return [l.split()[0] for l in open(log) if " took over " in l]

s2 = started(out + "/guard2.log")
hup = float(open(out + "/hup").read())
info("SIGKILL at %.2f s, the second daemon up at %.2f s, SIGHUP at "
     "%.2f s, its new image up at %.2f s" % (
         restart - t0, s2[0] - t0 if s2 else float("nan"), hup - t0,
         s2[1] - t0 if len(s2) > 1 else float("nan")))
if len(s2) < 2:
    fail("no new image after SIGHUP")
if len(took_over(out + "/guard2.log")) < 2:
    fail("the daemon after SIGKILL or its image after SIGHUP took "
         "nothing over")
if len(a1) > 1 or a2:
    fail("the source added again after a restart or reload: a gap")
# the table, every half second: the source in it from a second after
# the add to the flood's end
rows = [l.split() for l in open(out + "/table")]
if a1:
    end = t0 + flood + 4          # the flood goes on until TCP ends
    win = [r for r in rows if a1[0] + 1 <= float(r[0]) <= end]
    missing = [float(r[0]) - t0 for r in win
               if not any(x.startswith(flood_src + ">") or x == flood_src
                          for x in r[2:])]
    gaps = [float(b[0]) - float(a[0]) for a, b in zip(win, win[1:])]
    info("%d samples of the table from %.1f s to %.1f s, %d without "
         "the source" % (len(win), a1[0] + 1 - t0, end - t0,
                         len(missing)))
    if missing:
        fail("the source out of the set at %s s" % ", ".join(
            "%.1f" % t for t in missing[:10]))
    if not win or max(gaps or [0]) > 2.0:
        fail("the table sampled with gaps up to %.1f s"
             % max(gaps or [0]))
for log in ("guard1.log", "guard2.log"):
    for l in open(out + "/" + log):
        if any(" add src %s/" % s in l for s in tcp_srcs):
            fail("a TCP host in a set: %s" % l.strip())
m = [[float(x) for x in l.split()] for l in open(out + "/metrics")]

def at(t):
    """The last sample at or before T."""
    before = [s for s in m if s[0] <= t]
    return before[-1] if before else None

# the first daemon's quiet stretch: a second after its add, to SIGKILL
if a1:
    s, e = at(a1[0] + 1.0), at(restart - 0.5)
    if not s or not e or e[0] <= s[0]:
        fail("no metrics samples between the add and the restart")
    else:
        info("%.1f s after the add: DFS dropped %d more for the flag, "
             "the ingress rules %d" % (e[0] - s[0], e[1] - s[1], e[2] - s[2]))
        if e[1] - s[1] > 20:
            fail("DFS still dropped %d flood packets with the source in "
                 "the set" % (e[1] - s[1]))
        if e[2] - s[2] < 100:
            fail("the ingress rules dropped only %d packets" % (e[2] - s[2]))
PY
check_err $? "the checks did not run"
check_report "$OUT/verdict"
log_test "dfs-guard: the flood source dropped at ingress, released after"

exit $EXIT_STATUS
