#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# State exhaustion: a spoofed flood whose every packet has a random source
# address out of a /12 (2^20 = 1,048,576 addresses), from pktgen on the
# router's egress device in queue_xmit mode, so every packet crosses the
# qdisc.  dfs (10 Mbit/s TBF parent) holds at most "flows" flows; past the
# cap, packets of unknown flows share the one overflow flow.
#
# Four TCP flows (s1..s4) run first alone (the baseline), then again with
# the flood.  Asserted:
#	- flows <= the cap, and the cap was reached (flows_overflow > 0)
#	- memory_usage <= cap * 160 bytes (an 88-byte flow of sched fq, the
#	  default, plus its share of B-tree nodes, ~12-17 bytes, of the hash
#	  index, 15-29, and the queues of the flows with packets, with
#	  margin) and stays flat once the cap is reached; the dfs_flow_fq
#	  slab grows by at most the cap
#	- the index, resized by its worker as the flood added flows, holds
#	  every flow of the B-tree, at most 7/8 full: packets of known flows
#	  and the flood's misses are answered by it, not by the tree
#	- the TCP flows keep >= 50% of their baseline throughput
#	- the backlog returns to 0 when the traffic stops
#
# Then memory_limit: the same flood alone against "limit 1000000", through
# a 1 Mbit/s TBF.  A limit counts packet lengths, and 64-byte packets take
# about ten times that in skb memory (truesize): the queue's skbs must stay
# within "memory_limit 256kb", the excess counted as drop_overmemory.  The
# default memory_limit (32 MB) runs first, for the record.  1 Mbit/s, not
# 10: pktgen under TCG sends its 64-byte frames at less than 10 Mbit/s,
# so there the queue built only when pktgen bunched its packets and the
# test passed or failed by timing; at 1 Mbit/s the flood is several times
# the link and the queue fills at once.
#
# Last, with more than 65536 flows known (the flood, "flows 100000"), a
# new order or cache size is refused with a message and changes nothing:
# it would move every flow under the qdisc lock.  The qdisc is then
# deleted: its 100,000 flows are freed by a worker, not under the qdisc
# lock, and the dfs_flow_fq slab must come back to where it started.
#
# It found a bug: with a fast enough flood all four TCP flows were marked
# malicious.  The spoofed packets that hit flows already in the table
# (cap / 2^20 of them) made a few hundred flows "active" in every
# rate_interval, n soared, the fair rate fell to almost nothing.  A flow
# now counts as active from its second packet within two epochs
# (dfs_meter_seen()).
#
# DFS_EXHAUST_SECS (30) flood seconds, DFS_EXHAUST_DELAY (20000) ns
# between flood packets, DFS_EXHAUST_FLOWS (65536) the cap.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/pktgen_lib.sh"
TOOLS=$(cd "$(dirname "$0")/../tools" && pwd)

SECS=${DFS_EXHAUST_SECS:-30}
DELAY=${DFS_EXHAUST_DELAY:-20000}
FLOWS=${DFS_EXHAUST_FLOWS:-65536}
BASE_SECS=12
WARM=3
BYTES_PER_FLOW=160

# dfs_json KEY...: the dfs qdisc's values of KEY..., on one line.  The
# router's namespace has been seen gone by the memory_limit part, every
# tc failing as if nothing were queued: say which namespaces there are
# when it fails.
dfs_json()
{
	local j

	j=$(in_ns r tc -j -s qdisc show dev "$R_OUT") || {
		echo "dfs_json: tc failed; namespaces: $(ip netns list | xargs)" >&2
		return 1
	}
	python3 -S -c '
import json, sys
for q in json.load(sys.stdin):
    if q["kind"] == "dfs":
        print(" ".join(str(q.get(k, -1)) for k in sys.argv[1:]))' "$@" <<<"$j"
}

slab_objects()
{
	local f=/sys/kernel/slab/dfs_flow_fq/objects

	if [ -r $f ]; then awk '{ print $1 }' $f; else echo -1; fi
}

# tcp_window SECONDS: the 4 TCP flows' rates over the next SECONDS, bit/s,
# counted at the receiver: "TOTAL RATE1 ... RATE4".
tcp_window()
{
	local a b

	a=$(rx_bytes); sleep "$1"; b=$(rx_bytes)
	rx_rates "$a" "$b" | awk '{ for (i = 1; i <= NF; i++) s += $i; print s + 0, $0 }'
}

kbits()
{
	echo "$@" | awk '{ for (i = 1; i <= NF; i++) printf "%d ", $i / 1000 }'
}

require_command iperf3 python3
pg_require
setup_topology 4 || exit $ksft_fail
trap 'pg_stop r 2>/dev/null; topo_cleanup' EXIT
rx_meter_setup || exit $ksft_fail
setup_bottleneck "$R_OUT" 10mbit dfs limit 100000 flows "$FLOWS" || exit $ksft_fail
start_iperf3_server 5201 5202 5203 5204 persistent || exit $ksft_fail

# --- baseline: the TCP flows alone -----------------------------------------
RET=0
for i in 1 2 3 4; do
	start_tcp_flow "s$i" $((5200 + i)) $((BASE_SECS + WARM + 2)) /dev/null
done
sleep "$WARM"
read -r BASE BASE_FLOWS <<<"$(tcp_window "$BASE_SECS")"
wait_flows
check_err $? "iperf3 failed in the baseline"
[ "$BASE" -gt 1000000 ]
check_err $? "baseline TCP only $BASE bit/s"
log_test "baseline: 4 TCP flows alone, $((BASE / 1000)) kbit/s ($(kbits $BASE_FLOWS))"

# --- the spoofed flood ------------------------------------------------------
RET=0
read -r MEM0 FLOWS0 <<<"$(dfs_json memory_usage flows)"
SLAB0=$(slab_objects)
pg_reset r
pg_add r "$R_OUT" &&
pg_set r "$R_OUT" "xmit_mode queue_xmit" "count 0" "pkt_size 64" \
	"delay $DELAY" "dst $RCV_IP4" "dst_mac 02:00:00:00:00:01" \
	"src_min 10.16.0.0" "src_max 10.31.255.255" "flag IPSRC_RND" \
	"udp_src_min 1024" "udp_src_max 1024" "udp_dst_min 9" "udp_dst_max 9"
check_err $? "pktgen setup"

for i in 1 2 3 4; do
	start_tcp_flow "s$i" $((5200 + i)) $((SECS + WARM + 8)) /dev/null
done
sleep "$WARM"
pg_start r
t0=$SECONDS
# The table fills in the first seconds; measure from then on.
sleep 4
read -r MEM1 FLOWS1 <<<"$(dfs_json memory_usage flows)"
read -r FLOOD FLOOD_FLOWS <<<"$(tcp_window $((SECS - 8)))"
read -r MEM2 FLOWS2 OVF NEW MAL <<<"$(dfs_json memory_usage flows flows_overflow new_flows malicious)"
read -r BT_FLOWS IX_FLOWS IX_BUCKETS <<<"$(dfs_json btree_flows index_flows index_buckets)"
SLAB2=$(slab_objects)
# The flows DFS holds in its cache (malicious ones), text only in tc 6.1.
CACHED=$(in_ns r tc -s class show dev "$R_OUT" | awk '$1 == "src" { printf "%s%s", sep, $2; sep = "," }')
sleep $((SECS - (SECONDS - t0) > 0 ? SECS - (SECONDS - t0) : 0))
SENT=$(pg_sent r "$R_OUT")
pg_stop r
wait_flows
check_err $? "iperf3 failed under the flood"

PCT=$(awk -v f="$FLOOD" -v b="$BASE" 'BEGIN { printf "%d", 100 * f / b }')
DISTINCT=$(awk -v n="$SENT" 'BEGIN { printf "%d", 1048576 * (1 - exp(-n / 1048576)) }')
log_info "flood: $SENT packets in ${SECS}s, about $DISTINCT distinct sources"
log_info "flows $FLOWS0 -> $FLOWS1 -> $FLOWS2 (cap $FLOWS), new_flows $NEW, flows_overflow $OVF, malicious $MAL"
log_info "memory_usage $MEM0 -> $MEM1 -> $MEM2 bytes; dfs_flow_fq slab objects $SLAB0 -> $SLAB2"
log_info "TCP under the flood: $((FLOOD / 1000)) kbit/s ($(kbits $FLOOD_FLOWS)), ${PCT}% of the baseline, Jain $(jain_index $FLOOD_FLOWS)"
log_info "flows in the malicious cache: ${CACHED:-none}"

[ "$FLOWS2" -le "$FLOWS" ] && [ "$FLOWS1" -le "$FLOWS" ]
check_err $? "flows $FLOWS1/$FLOWS2 above the cap $FLOWS"
[ "$OVF" -gt 0 ]
check_err $? "the flood never reached the cap (flows_overflow 0)"
[ "$MEM2" -le $((FLOWS * BYTES_PER_FLOW + 65536)) ]
check_err $? "memory_usage $MEM2 above $FLOWS * $BYTES_PER_FLOW"
# At the cap the table can only be reshaped, not grown: within 10%.
[ "$FLOWS1" -lt "$FLOWS" ] || [ "$MEM2" -le $((MEM1 + MEM1 / 10)) ]
check_err $? "memory_usage grew at the cap: $MEM1 -> $MEM2"
if [ "$SLAB0" -ge 0 ]; then
	# The slab may be shared with other 96-byte objects (SLUB merges
	# caches): allow a quarter of the cap for those.
	[ $((SLAB2 - SLAB0)) -le $((FLOWS + FLOWS / 4)) ]
	check_err $? "dfs_flow_fq slab grew by $((SLAB2 - SLAB0)) objects"
fi
log_test "spoofed flood: flows capped at $FLOWS, memory_usage $((MEM2 / 1024)) KiB"

RET=0
[ "$IX_FLOWS" -eq "$BT_FLOWS" ] && [ "$BT_FLOWS" -gt $((FLOWS / 2)) ]
check_err $? "the index holds $IX_FLOWS of the B-tree's $BT_FLOWS flows"
[ $((IX_BUCKETS * 5 * 7 / 8)) -ge "$BT_FLOWS" ]
check_err $? "$IX_BUCKETS buckets for $BT_FLOWS flows: not resized"
log_test "spoofed flood: the index holds all $BT_FLOWS flows, $IX_BUCKETS buckets"

RET=0
[ "$PCT" -ge 50 ]
check_err $? "TCP kept ${PCT}% of its baseline under the flood, want >= 50%"
log_test "spoofed flood: known TCP flows keep ${PCT}% of their throughput"

RET=0
sleep 1
text=$(in_ns r tc -s qdisc show dev "$R_OUT")
[ "$(grep -c ' backlog 0b 0p ' <<<"$text")" -eq 2 ]
check_err $? "backlog left after the flood: $(grep backlog <<<"$text" | xargs)"
log_test "spoofed flood: backlog back to zero"

# --- memory_limit ------------------------------------------------------------
# memory_run MEMORY_LIMIT: the flood alone through 1 Mbit/s, for 5 s from
# when pktgen runs and until DFS knows more than 65536 flows (for the
# refused changes below; 40 s at most); prints the most queue_memory seen
# (sampled as often as tc and python allow: ~2 s a sample under TCG),
# drop_overmemory, the most packets queued, and the packets pktgen sent
# (the count tells a flood that never ran from a limit that held).
memory_run()
{
	local max=0 qmax=0 flows=0 end m q

	setup_bottleneck "$R_OUT" 1mbit dfs limit 1000000 flows 100000 \
		memory_limit "$1" || return 1
	pg_start r "$R_OUT"
	end=$((SECONDS + 5))
	while [ "$SECONDS" -lt "$end" ] ||
	      { [ "$flows" -le 65536 ] && [ "$SECONDS" -lt $((end + 35)) ]; }; do
		sleep 0.5
		read -r m q flows <<<"$(dfs_json queue_memory qlen flows)"
		[ "$m" -gt "$max" ] && max=$m
		[ "$q" -gt "$qmax" ] && qmax=$q
	done
	pg_stop r
	echo "$max $(dfs_json drop_overmemory) $qmax $(pg_sent r "$R_OUT")"
}

RET=0
read -r DMEM DDROP DQ DSENT <<<"$(memory_run 32mb)"
log_info "memory_limit 32mb (default): queue_memory up to $DMEM bytes for $DQ packets, drop_overmemory $DDROP; pktgen sent $DSENT"
read -r MEM DROP Q SENT <<<"$(memory_run 256kb)"
log_info "memory_limit 256kb: queue_memory up to $MEM bytes for $Q packets, drop_overmemory $DROP; pktgen sent $SENT"
[ "${SENT:-0}" -gt 0 ]
check_err $? "pktgen sent nothing: $(pg_in r grep Result: "/proc/net/pktgen/$R_OUT")"
[ "${MEM:--1}" -ge 0 ] && [ "$MEM" -le 262144 ]
check_err $? "queue_memory $MEM above memory_limit 262144"
[ "${DROP:-0}" -gt 0 ] && [ "${MEM:-0}" -ge 131072 ]
check_err $? "the flood never reached memory_limit (queue_memory up to $MEM, drop_overmemory $DROP)"
log_test "small packets: queued skbs held to memory_limit ($((MEM / 1024)) KiB, $DROP dropped)"

RET=0
read -r KNOWN <<<"$(dfs_json flows)"
before=$(in_ns r tc -j qdisc show dev "$R_OUT")
for change in "order 16" "cache 64"; do
	# shellcheck disable=SC2086
	out=$(in_ns r tc qdisc change dev "$R_OUT" parent 1:1 handle 10: dfs $change 2>&1)
	check_fail $? "\"$change\" accepted with $KNOWN flows known"
	grep -q "at most 65536 flows" <<<"$out"
	check_err $? "\"$change\": message \"$out\""
done
[ "$(in_ns r tc -j qdisc show dev "$R_OUT")" = "$before" ]
check_err $? "a refused change changed the qdisc"
[ "$KNOWN" -gt 65536 ]
check_err $? "only $KNOWN flows known"
log_test "$KNOWN flows known: order and cache changes refused"

# Dumps of its verdicts in a loop, two at once, in the router's netns,
# while a dfs is added on another device: the add takes RTNL and the list
# of qdiscs a dump finds its own in, and must wait on neither for long.
# Each add is timed, tc's run with it, five times alone, then five times
# beside the dumps: the dumps may add at most a second to the slowest.
# A dump holds no lock across the walk of $KNOWN flows, only the qdisc's
# own a batch at a time.
RET=0
LOOPS=$(mktemp -d)
in_ns r ip link add d-beside type dummy
check_err $? "no dummy device"
alone=$(slowest_add r d-beside dfs)
check_err $? "tc qdisc add failed, no dump running"
pids=()
for i in 1 2; do
	in_ns r python3 -S "$TOOLS/dfs_verdicts.py" dump --dev "$R_OUT" \
		--handle 10: --loop 8 >"$LOOPS/$i" 2>&1 &
	pids+=($!)
done
sleep 2
worst=$(slowest_add r d-beside dfs)
check_err $? "tc qdisc add beside the dumps failed"
wait "${pids[@]}"
check_err $? "a dump loop failed: $(cat "$LOOPS"/*)"
dumps=$(cat "$LOOPS"/* | python3 -S -c '
import json, sys
print(sum(json.loads(l)["dumps"] for l in sys.stdin if l.startswith("{")))')
log_info "verdict dumps beside the adds: $dumps in 8 s by two loops; slowest add ${worst:-?} ms beside them, ${alone:-?} ms alone"
[ "${dumps:-0}" -gt 2 ]
check_err $? "the dump loops ran ${dumps:-no} dumps"
[ "${worst:-99999}" -le $((${alone:-0} + 1000)) ]
check_err $? "a tc qdisc add took $worst ms beside the dumps, $alone ms alone"
in_ns r ip link del d-beside
rm -r "$LOOPS"
log_test "$KNOWN flows known: a dfs added elsewhere in $worst ms beside verdict dumps"

RET=0
SLAB2=$(slab_objects)
t0=$(date +%s%N)
in_ns r tc qdisc del dev "$R_OUT" root
check_err $? "delete with $KNOWN flows"
t1=$(date +%s%N)
if [ "$SLAB0" -ge 0 ]; then
	for ((i = 0; i < 80; i++)); do
		SLAB3=$(slab_objects)
		[ $((SLAB3 - SLAB0)) -le $((FLOWS / 4)) ] && break
		sleep 0.25
	done
	[ $((SLAB3 - SLAB0)) -le $((FLOWS / 4)) ]
	check_err $? "dfs_flow_fq slab at $SLAB3 objects 20 s after the delete (from $SLAB0)"
fi
log_info "tc qdisc del returned in $(((t1 - t0) / 1000000)) ms; dfs_flow_fq slab $SLAB2 -> ${SLAB3:-?} objects"
log_test "deleted with $KNOWN flows: every flow freed"

ksft_exit
