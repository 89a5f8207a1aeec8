#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dfs_mq: a dfs on every tx queue of a multiqueue device, one
# configuration, one verdict for all queues.  The router's r-out is the
# mqlink test device (selftests/drivers/mqlink): two tx queues, each with
# a ring of four packets that stops the queue when full, on a 10 Mbit/s
# wire that serves the rings in turn, so each queue's dfs holds a real
# backlog, under its own lock.  A clsact filter on r-out's egress puts
# each flow on the queue the test chooses (skbedit queue_mapping):
#
#	s1  host A, key src: four TCP connections, two on each queue
#	s2  host B, one TCP connection on queue 0
#	s3  host C, one TCP connection on queue 1
#	s4  a UDP flood at 1.6 times the link rate, as two flows, one a queue
#
# Cases:
#   1. The root's options are every queue's: add, change, a refused change
#      that leaves both as they were, a queue that cannot be replaced, and
#      dfs_mq refused where it cannot work (one tx queue, not the root).
#   2. The flood is cut off on both queues (under 5% of the link over the
#      window), its key flagged on one queue and refused on the other by
#      that verdict (drop_shared), no other key flagged, TCP takes the
#      link; the verdict stream names the root (its handle, and the
#      queue) and a dump of the root lists the flood's key once; and the
#      three hosts share it fairly (Jain's index of their goodputs >=
#      0.95), host A's four connections over both queues getting one
#      host's share, not one on each queue.  Again with
#      bandwidth set to the link's rate, which the queues share.
#   3. Under the same traffic, the root is changed (limit, order and cache:
#      a rebuild, key, sched), deleted and added again: every step
#      succeeds, and nothing stays queued after.  The VM runner unloads
#      the modules after and checks the kernel log.

source "$(dirname "$0")/lib.sh"
TOOLS=$(cd "$(dirname "$0")/../tools" && pwd)

# Each of the eight clients takes about a second to start in the emulated
# guest: the flows run FLOW_SECS, and the window is WINDOW seconds from
# WARMUP after the last one started.  The flood runs FLOOD_MORE seconds
# longer: the verdict dump and the flags are sampled after the window,
# while it still runs (a python3 start takes seconds there, and a key is
# let go once its flood ends).
FLOW_SECS=${FLOW_SECS:-36}
FLOOD_MORE=${FLOOD_MORE:-24}
WARMUP=${WARMUP:-4}
WINDOW=${WINDOW:-12}
ROUNDS=${DFS_MQ_ROUNDS:-6}
OUT=${OUT:-$(dirname "$0")/../build/selftests/dfs_mq}
LINK_BPS=10000000

require_command iperf3 python3
require_module sch_dfs
[ -d /sys/class/net/mql0 ] ||
	{ echo "SKIP: the mqlink test device is not loaded"; exit $ksft_skip; }
echo "$LINK_BPS" > /sys/module/mqlink/parameters/rate
TOPO_OUT=mqlink setup_topology 4 || exit $ksft_fail
mkdir -p "$OUT"

# The TCP flows' server ports, the queue each goes on, and whose they are.
A_PORTS="5211 5212 5213 5214" A_QUEUES="0 0 1 1"
B_PORT=5221 C_PORT=5231
FLOOD_PORTS="5241 5242"

# place_flows: clsact on r-out puts every test flow on its queue.
place_flows()
{
	local b="" q p i=0

	in_ns r tc qdisc replace dev "$R_OUT" clsact || return 1
	set -- $A_QUEUES
	for p in $A_PORTS; do
		b+="filter add dev $R_OUT egress protocol ip flower ip_proto tcp dst_port $p action skbedit queue_mapping $1"$'\n'
		shift
	done
	b+="filter add dev $R_OUT egress protocol ip flower ip_proto tcp dst_port $B_PORT action skbedit queue_mapping 0"$'\n'
	b+="filter add dev $R_OUT egress protocol ip flower ip_proto tcp dst_port $C_PORT action skbedit queue_mapping 1"$'\n'
	for p in $FLOOD_PORTS; do
		b+="filter add dev $R_OUT egress protocol ip flower ip_proto udp dst_port $p action skbedit queue_mapping $i"$'\n'
		i=$((i + 1))
	done
	in_ns r tc -batch - <<<"$b"
}

# opts_of: one line a dfs qdisc of r-out (the root first, then the
# queues by parent): "KIND PARENT limit key sched order".
opts_of()
{
	in_ns r tc -j qdisc show dev "$R_OUT" | python3 -S -c '
import json, sys
qs = [q for q in json.load(sys.stdin) if q["kind"] in ("dfs", "dfs_mq")]
qs.sort(key=lambda q: (q["kind"] != "dfs_mq", q.get("parent", "")))
for q in qs:
    o = q["options"]
    print(q["kind"], q.get("parent", "root"), o["limit"], o["key"],
          o["sched"], o["order"])'
}

# same_opts WANT: the root and both queues show WANT ("limit key sched
# order").
same_opts()
{
	local want=$1 lines

	lines=$(opts_of)
	[ "$(wc -l <<<"$lines")" -eq 3 ] &&
		[ "$(cut -d' ' -f3- <<<"$lines" | sort -u)" = "$want" ]
}

# queue_stats NAMES...: per queue of dfs_mq, the named xstats, one line a
# queue (1:1 first).
queue_stats()
{
	in_ns r tc -s -j qdisc show dev "$R_OUT" | python3 -S -c '
import json, sys
qs = [q for q in json.load(sys.stdin) if q["kind"] == "dfs"]
qs.sort(key=lambda q: q.get("parent", ""))
for q in qs:
    print(*(q.get(n, 0) for n in sys.argv[1:]))' "$@"
}

# start_traffic SECS DIR [MORE]: the TCP flows and the flood of the
# header, the flood MORE seconds longer, in the background, their iperf3
# JSON in DIR.
start_traffic()
{
	local secs=$1 dir=$2 more=${3:-0} p

	start_iperf3_server $A_PORTS $B_PORT $C_PORT $FLOOD_PORTS || return 1
	for p in $FLOOD_PORTS; do
		start_udp_flow s4 "$p" $((secs + more)) 8M "$dir/flood-$p.json"
	done
	for p in $A_PORTS; do
		start_tcp_flow s1 "$p" "$secs" "$dir/a-$p.json"
	done
	start_tcp_flow s2 "$B_PORT" "$secs" "$dir/b.json"
	start_tcp_flow s3 "$C_PORT" "$secs" "$dir/c.json"
}

# wire_late_ms: the time r-out's wire has lost so far to its timer's
# lateness (mqlink's wire_late_ns), in ms.  Under emulation the guest's
# timers can run late by more than the wire catches up on: the link is
# then slower than its rate, whatever the qdisc does.  Read before and
# after an rx_bytes sample, the mean is at that sample's time: a stall
# of the guest between the two reads would otherwise count in one span
# and not the other.
wire_late_ms()
{
	in_ns r ethtool -S "$R_OUT" |
		awk '$1 == "wire_late_ns:" { ns = $2 }
		     END { printf "%d\n", ns / 1000000 }'
}

# wire_bps "LINE_A" "LINE_B" LATE_MS: the link's rate over the time
# between two rx_bytes samples, less the LATE_MS its timer lost.
wire_bps()
{
	awk -v a="$1" -v b="$2" -v late="$3" -v bps="$LINK_BPS" 'BEGIN {
		split(a, x); split(b, y); dt = y[1] - x[1]
		if (dt <= 0) exit 1
		printf "%d\n", bps * (dt - late / 1000) / dt
	}'
}

rx_meter_setup || exit $ksft_fail
place_flows || { echo "cannot place the flows on the queues" >&2; exit $ksft_fail; }

# --- 1. one configuration ---------------------------------------------------
RET=0
in_ns r tc qdisc replace dev "$R_OUT" root handle 1: dfs_mq limit 100000 key src
check_err $? "dfs_mq add failed"
same_opts "100000 src fq 43"
check_err $? "the queues do not show the root's options: $(opts_of | xargs)"
# the limit is the root's buffer, each of the two queues' b half of it:
# an idle queue's wfs (Eq. 1, capped at b) shows its b
wfs=$(queue_stats wfs | xargs)
[ "$wfs" = "50000 50000" ]
check_err $? "the queues' b is not half of the root's limit: wfs $wfs"
in_ns r tc qdisc change dev "$R_OUT" root dfs_mq limit 150000 order 16
check_err $? "dfs_mq change failed"
same_opts "150000 src fq 16"
check_err $? "a change did not reach every queue: $(opts_of | xargs)"
err=$(in_ns r tc qdisc change dev "$R_OUT" root dfs_mq min_th 0.9 max_th 0.5 2>&1)
check_fail $? "a change with min_th above max_th was taken"
same_opts "150000 src fq 16"
check_err $? "a refused change changed a queue: $(opts_of | xargs)"
err=$(in_ns r tc qdisc replace dev "$R_OUT" parent 1:1 pfifo 2>&1)
check_fail $? "a queue of dfs_mq was replaced"
grep -q "replace the root" <<<"$err"
check_err $? "replacing a queue: no clear error: $err"
in_ns r ip link add name q1 numtxqueues 1 type dummy
err=$(in_ns r tc qdisc add dev q1 root dfs_mq 2>&1)
check_fail $? "dfs_mq was taken on a device of one tx queue"
grep -q "several tx queues" <<<"$err"
check_err $? "one tx queue: no clear error: $err"
in_ns r tc qdisc add dev q1 root handle 2: htb default 1
in_ns r tc class add dev q1 parent 2: classid 2:1 htb rate 1mbit
err=$(in_ns r tc qdisc add dev q1 parent 2:1 dfs_mq 2>&1)
check_fail $? "dfs_mq was taken under a class"
grep -q "root qdisc only" <<<"$err"
check_err $? "under a class: no clear error: $err"
in_ns r ip link del q1
log_test "dfs_mq: one configuration for every queue"

# --- 2. one verdict ---------------------------------------------------------
# flood_case OPTS WHAT: case 2 under "dfs_mq OPTS", WHAT in its results.
flood_case()
{
	local opts=$1 what=$2 t0 a b stats flagged ra rb rc rflood tcp jain
	local listener dumped la lb wire

	RET=0
	in_ns r tc qdisc replace dev "$R_OUT" root handle 1: dfs_mq $opts
	check_err $? "dfs_mq $opts: add failed"
	rm -f "$OUT/events" "$OUT/events.ready"
	in_ns r python3 -S "$TOOLS/dfs_verdicts.py" listen --out "$OUT/events" \
		--ready "$OUT/events.ready" --time $((FLOW_SECS + 60)) &
	listener=$!
	busywait 60000 test -e "$OUT/events.ready"
	check_err $? "the verdict listener did not join the group"
	t0=$SECONDS
	start_traffic "$FLOW_SECS" "$OUT" "$FLOOD_MORE" || exit $ksft_fail
	sleep "$WARMUP"
	la=$(wire_late_ms)
	a=$(rx_bytes)
	la=$(((la + $(wire_late_ms)) / 2))
	sleep "$WINDOW"
	lb=$(wire_late_ms)
	b=$(rx_bytes)
	lb=$(((lb + $(wire_late_ms)) / 2))
	[ $((SECONDS - t0)) -lt $((FLOW_SECS - 1)) ]
	check_err $? "the window ended $((SECONDS - t0)) s after the first flow started, past its end"
	dumped=$(in_ns r python3 -S "$TOOLS/dfs_verdicts.py" dump --dev "$R_OUT" --handle 1:)
	check_err $? "no verdict dump of the root"
	flagged=$(queue_stats malicious cpr_flows | awk '{ s += $1 + $2 } END { print s + 0 }')
	[ $((SECONDS - t0)) -lt $((FLOW_SECS + FLOOD_MORE - 1)) ]
	check_err $? "the flags were sampled $((SECONDS - t0)) s after the first flow started, past the flood's end"
	stats=$(queue_stats drop_malicious drop_shared drop_cpr)
	wait_flows
	check_err $? "traffic did not run"
	read -r ra rb rc rflood <<<"$(rx_rates "$a" "$b")"
	tcp=$((ra + rb + rc))
	jain=$(jain_index "$ra" "$rb" "$rc")
	wire=$(wire_bps "$a" "$b" $((lb - la)))
	log_info "$what: rx kbit/s: A $((ra / 1000)) B $((rb / 1000)) C $((rc / 1000)) flood $((rflood / 1000)); hosts' Jain $jain"
	log_info "$what: the wire's timer lost $((lb - la)) ms of the window: $((wire / 1000)) kbit/s of wire time left"
	log_info "$what: per queue (drop_malicious drop_shared drop_cpr): $(paste -sd, <<<"$stats")"
	log_info "$what: keys flagged on the queues at the end: $flagged"
	[ "$rflood" -lt $((LINK_BPS / 20)) ]
	check_err $? "the flood got $rflood bit/s, not under 5% of the link"
	python3 -S -c '
import sys
rows = [list(map(int, l.split())) for l in sys.argv[1].splitlines()]
sys.exit(not (len(rows) == 2 and all(r[0] + r[1] + r[2] > 0 for r in rows)))' "$stats"
	check_err $? "the flood was not refused on both queues"
	[ "$(awk '{ s += $2 } END { print s + 0 }' <<<"$stats")" -gt 0 ]
	check_err $? "no queue refused the flood by another queue's verdict"
	# the flood's key, on one queue: a TCP host flagged would count too
	[ "$flagged" = 1 ]
	check_err $? "$flagged keys flagged at the end, not the flood's alone"
	# of the wire's time the guest's late timer left it, Ethernet
	# headers and ACK clocking take a few percent
	[ "$tcp" -ge $((wire * 80 / 100)) ]
	check_err $? "TCP got $tcp bit/s, under 80% of the wire's $wire"
	log_test "dfs_mq $what: a flood over both queues is cut off on both"

	RET=0
	# SIGTERM to the listener itself, not to the shell of ip netns exec
	pkill -TERM -f 'dfs_verdicts\.py listen ' 2>/dev/null
	wait "$listener"
	log_info "$what: dump of the root: $(tr '\n' ' ' <<<"$dumped")"
	python3 -S - "$OUT/events" "$dumped" "${SND_IP4[4]}" <<'PY'
import json, sys
events = [json.loads(l) for l in open(sys.argv[1])]
dump = [json.loads(l) for l in sys.argv[2].splitlines() if l.strip()]
flood = sys.argv[3]
flags = [e for e in events if e["msg"] == "flag" and e.get("src") == flood]
bad = []
if not flags:
    bad.append("no flag event for the flood")
elif any(e["handle"] != 0x10000 or e.get("queue") not in (0, 1)
         for e in flags):
    bad.append("flag events not named by the root and a queue: %s" % flags)
if len([d for d in dump if d.get("src") == flood]) != 1 or \
        any(d["handle"] != 0x10000 for d in dump):
    bad.append("the root's dump does not list the flood's key once")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
	check_err $? "verdict stream or dump of dfs_mq"
	log_test "dfs_mq $what: the verdict stream and its dump name the root"

	RET=0
	awk -v j="$jain" 'BEGIN { exit !(j >= 0.95) }'
	check_err $? "the hosts' Jain index $jain < 0.95 (A $ra, B $rb, C $rc bit/s)"
	log_test "dfs_mq $what: a host on both queues gets one host's share"
}

flood_case "limit 100000 key src" "key src"
# bandwidth is the whole link's: the two queues, both busy, send half of
# it each, and judge by that (a whole each never cut the flood)
flood_case "limit 100000 key src bandwidth $((LINK_BPS / 1000))kbit" \
	"bandwidth"

# --- 3. change and delete under traffic --------------------------------------
RET=0
in_ns r tc qdisc replace dev "$R_OUT" root handle 1: dfs_mq limit 100000 key src
check_err $? "dfs_mq add failed"
start_traffic $((ROUNDS * 3 + 4)) "$OUT" || exit $ksft_fail
sleep 2
for ((i = 0; i < ROUNDS; i++)); do
	b=""
	b+="qdisc change dev $R_OUT root dfs_mq limit $((60000 + i * 10000))"$'\n'
	b+="qdisc change dev $R_OUT root dfs_mq order $((8 + i % 4 * 8)) cache $((16 + i % 3 * 16))"$'\n'
	b+="qdisc change dev $R_OUT root dfs_mq key $([ $((i % 2)) = 0 ] && echo srcdst || echo src)"$'\n'
	b+="qdisc change dev $R_OUT root dfs_mq sched $([ $((i % 4)) = 3 ] && echo fifo || echo fq)"$'\n'
	in_ns r tc -batch - <<<"$b"
	check_err $? "round $i: a change under traffic failed"
	sleep 1
	if [ $((i % 3)) = 2 ]; then
		in_ns r tc qdisc del dev "$R_OUT" root
		check_err $? "round $i: delete under traffic failed"
		in_ns r tc qdisc add dev "$R_OUT" root handle 1: dfs_mq limit 100000 key src
		check_err $? "round $i: add under traffic failed"
	fi
	sleep 1
done
wait_flows >/dev/null 2>&1	# a flow may lose its connection to a delete
sleep 1
backlog=$(in_ns r tc -s -j qdisc show dev "$R_OUT" | python3 -S -c '
import json, sys
print(sum(q.get("backlog", 0) + q.get("qlen", 0) for q in json.load(sys.stdin)))')
[ "$backlog" = 0 ]
check_err $? "backlog $backlog left after the traffic"
in_ns r tc qdisc del dev "$R_OUT" root
check_err $? "the last delete failed"
log_test "dfs_mq: change, delete and add under traffic"

exit $EXIT_STATUS
