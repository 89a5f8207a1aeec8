#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sched fq queues each connection apart inside a DFS key: a host's ping
# does not wait behind its own bulk TCP.  Sender s1 runs 8 TCP flows to
# the receiver and pings it every 0.1 s; s2, idle, pings it too, through
# the 10 Mbit/s bottleneck with dfs (sched fq) as its child, with the
# default key (srcdst: s1's flows and its ping are one key) and with
# "key src".  Eight flows at a sub-millisecond RTT keep a standing queue
# of tens of milliseconds that CoDel cannot drain (each flow's window
# stays at two packets or more).  With one queue a key, s1's ping waited
# in that queue; with a queue a connection it is a sparse flow of its
# key and goes ahead of the key's bulk backlog, as fq_codel's sparse
# flows do.
#
# s2's ping, whose key holds nothing else, is the reference: it waits
# for no queue, only for the emulated CPU.  The bulk queue is the TCP
# flows' mean RTT (iperf3's, from the sender's smoothed RTT) less s2's
# median ping.  Must hold: that queue is at least QUEUE_MIN_MS (else the
# run tested nothing), and s1's median ping exceeds s2's by under a
# quarter of it.  The pings and iperf3's output land in
# build/selftests/dfs_fq/.

source "$(dirname "$0")/lib.sh"

OUT=${OUT:-$(dirname "$0")/../build/selftests/dfs_fq}
LINK_RATE=10mbit
SECS=${SECS:-25}
WARMUP=${WARMUP:-6}
PINGS=${PINGS:-150}
QUEUE_MIN_MS=${QUEUE_MIN_MS:-8}

require_root
require_command ip tc ping iperf3 python3
require_qdisc dfs

# median FILE: the median of ping's "time=X ms" samples in FILE, in ms;
# nothing if there are none.
median()
{
	sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' "$1" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR % 2)
				printf "%.2f\n", v[(NR + 1) / 2]
			else if (NR)
				printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2
		}'
}

# tcp_rtt_ms FILE: the mean of the streams' mean RTT in iperf3's JSON
# FILE (sender side), in ms.
tcp_rtt_ms()
{
	python3 -S - "$1" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
d, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
rtts = [s["sender"]["mean_rtt"] for s in d["end"]["streams"]
        if "mean_rtt" in s.get("sender", {})]
print("%.2f" % (sum(rtts) / len(rtts) / 1000.0))
EOF
}

# fq_run NAME PORT DFS_OPTIONS...: one run, its iperf3 server on PORT (a
# one-off server of the last run may still be on its way out); fails the
# current case on a broken run or a ping that waited behind the bulk.
fq_run()
{
	local name=$1 port=$2 dir=$OUT/$1 p1 p2 rtt queue extra
	shift 2

	mkdir -p "$dir"
	if ! setup_bottleneck "$R_OUT" "$LINK_RATE" dfs "$@"; then
		check_err 1 "$name: bottleneck setup failed"
		return
	fi
	if ! start_iperf3_server "$port"; then
		check_err 1 "$name: no iperf3 server"
		return
	fi
	start_tcp_flow s1 "$port" "$SECS" "$dir/tcp.json" -P 8
	sleep "$WARMUP"
	in_ns s1 ping -n -i 0.1 -c "$PINGS" "$RCV_IP4" > "$dir/ping-s1.txt" &
	in_ns s2 ping -n -i 0.1 -c "$PINGS" "$RCV_IP4" > "$dir/ping-s2.txt"
	wait $!
	if ! wait_flows; then
		check_err 1 "$name: the TCP flows did not run"
		return
	fi
	in_ns r tc -s qdisc show dev "$R_OUT" > "$dir/qdisc.txt"

	p1=$(median "$dir/ping-s1.txt")
	p2=$(median "$dir/ping-s2.txt")
	rtt=$(tcp_rtt_ms "$dir/tcp.json")
	if [ -z "$p1" ] || [ -z "$p2" ] || [ -z "$rtt" ]; then
		check_err 1 "$name: no ping or RTT samples (see $dir)"
		return
	fi
	queue=$(awk -v r="$rtt" -v p="$p2" 'BEGIN { printf "%.2f", r - p }')
	extra=$(awk -v a="$p1" -v b="$p2" 'BEGIN { printf "%.2f", a - b }')
	log_info "$name: ping median s1 (beside its bulk) $p1 ms, s2 (idle) $p2 ms; TCP mean RTT $rtt ms, bulk queue $queue ms"
	awk -v q="$queue" -v m="$QUEUE_MIN_MS" 'BEGIN { exit !(q >= m) }'
	check_err $? "$name: the bulk flows kept a queue of $queue ms, under $QUEUE_MIN_MS: nothing to wait behind"
	awk -v e="$extra" -v q="$queue" 'BEGIN { exit !(e < q / 4) }'
	check_err $? "$name: s1's ping waited $extra ms more than s2's, not under a quarter of the bulk queue ($queue ms)"
}

setup_topology 2 || exit $ksft_fail

RET=0
fq_run srcdst 5201
log_test "dfs sched fq (key srcdst): a ping beside its host's bulk goes first"

RET=0
fq_run src 5202 key src
log_test "dfs sched fq (key src): a ping beside its host's bulk goes first"

ksft_exit
