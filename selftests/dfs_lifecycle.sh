#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dfs under traffic: "change" of the parameters that rebuild state (order
# and cache rebuild the flow table, key starts it over, a lower limit trims
# the queue) while TCP and a UDP flood run, over IPv4 and IPv6; then idle
# flows pruned at the shortest prune interval, and the qdisc deleted.

source "$(dirname "$0")/dfs_scenario.sh"

TOOLS=$(cd "$(dirname "$0")/../tools" && pwd)

qstat()
{
	in_ns r tc -j -s qdisc show dev "$R_OUT" | python3 -S -c '
import json, sys
for q in json.load(sys.stdin):
    if q["kind"] == "dfs":
        # the xstats are keys of the qdisc object, as with fq_codel
        print(" ".join("%s=%s" % (k, v) for k, v in sorted(q.items())
                       if isinstance(v, int)))'
}

stat()
{
	sed -n "s/.*\<$1=\([0-9]*\).*/\1/p" <<<"$STATS"
}

require_command iperf3 python3
setup_topology 3 || exit $ksft_fail

RET=0
setup_bottleneck "$R_OUT" 10mbit dfs limit 100000 prune 1s
check_err $? "setup"
start_iperf3_server 5202 && start_iperf3_server 5203
# The UDP senders behind a gate (Python may take seconds to start), and
# all four flows on until the changes below are done, however long the
# tc execs take: they are stopped then.
gate_init "$(mktemp -d /tmp/dfs_lifecycle.XXXXXX)"
# dfs's own counters every 0.25 s over netlink, to time the pruning from
# the traffic's real end (below).
qdisc_sampler_start "$GATE_DIR/samples" --kind dfs
gate_arm
in_ns s1 python3 -S "$TOOLS/udp_cbr.py" send --dst "$RCV_IP4" --port 9000 \
	--rate 20M --time 120 "${GATE_ARGS[@]}" >/dev/null &
FLOW_PIDS+=($!)
gate_arm
in_ns s1 python3 -S "$TOOLS/udp_cbr.py" send --dst "$RCV_IP6" --port 9000 \
	--rate 5M --time 120 "${GATE_ARGS[@]}" >/dev/null &
FLOW_PIDS+=($!)
gate_open 120000
check_err $? "the UDP senders did not start"
start_tcp_flow s2 5202 120 /dev/null
FAMILY=6 start_tcp_flow s3 5203 120 /dev/null
sleep 3
for change in "order 2" "cache 1" "limit 20000" "order 64 cache 64" \
	      "key 5tuple" "key src" "key srcdst" "cache 0" "cache 32 order 32"; do
	# shellcheck disable=SC2086
	in_ns r tc qdisc change dev "$R_OUT" parent 1:1 handle 10: dfs $change
	check_err $? "change $change under traffic"
	sleep 0.3
done
STATS=$(qstat)
log_info "after the changes: $STATS"
[ "$(stat flows)" -ge 2 ]
check_err $? "flows not tracked after the changes"
busy_flows=$(stat flows) busy_pruned=$(stat pruned)
stop_udp_cbr
pkill -TERM -f 'iperf3 -c ' 2>/dev/null
wait_flows
log_test "dfs: change under traffic (order, cache, limit, key)"

# traffic_end TS: seconds since the epoch of the last sample up to TS in
# which dfs saw more than a few packets arrive (sent + dropped): killed TCP
# senders still send what their socket buffers hold, for seconds at 10
# Mbit/s.  Stray packets after it (neighbour discovery, a FIN) are not
# traffic.  The sampler goes on while the stats at TS are judged; its
# later samples speak of later stats.
traffic_end()
{
	awk -v ts="$1" '$1 > ts { exit }
	     { n = $3 + $4 } NR > 1 && n - last > 3 { t = $1 } { last = n }
	     END { print t }' "$GATE_DIR/samples"
}

# Every flow of the traffic is gone; a packet since may have made a new
# one, which is rightly kept.
all_pruned()
{
	[ $(($(stat pruned) - busy_pruned)) -ge "$busy_flows" ] &&
		[ "$(stat flows)" -lt "$busy_flows" ]
}

RET=0
# A flow is idle once it has no packet since the last round began, and
# rounds begin every interval: pruned at most 2 intervals (2 s) after its
# last packet, and a round takes a few timer runs.  Judged from the
# traffic's end, with 3 s for a slow guest; the stats are read after ts.
bound=5
for ((i = 0; i < 120; i++)); do
	sleep 0.5
	ts=$EPOCHREALTIME
	STATS=$(qstat)
	end=$(traffic_end "$ts")
	all_pruned && break
	# Not pruned, bound seconds after the last traffic: a failure.
	awk -v ts="$ts" -v e="${end:-0}" -v b="$bound" 'BEGIN { exit !(ts - e > b) }' &&
		break
done
log_info "idle: $STATS"
all_pruned
check_err $? "idle flows not pruned ${bound} s after the traffic ended: $STATS"
log_info "the traffic's last packets (sampler) $(awk -v ts="$ts" -v e="${end:-0}" 'BEGIN { printf "%.1f", ts - e }') s before these stats"
qdisc_sampler_stop
rm -rf "$GATE_DIR"
log_test "dfs: idle flows pruned (prune 1s)"

RET=0
text=$(in_ns r tc -s qdisc show dev "$R_OUT")
[ "$(grep -c ' backlog 0b 0p ' <<<"$text")" -eq 2 ]
check_err $? "idle, yet a backlog is left: $(grep backlog <<<"$text" | xargs)"
log_test "dfs: backlog accounting back to zero (dfs and its parent)"

RET=0
in_ns r tc qdisc del dev "$R_OUT" root
check_err $? "delete"
log_test "dfs: delete after traffic"
exit $EXIT_STATUS
