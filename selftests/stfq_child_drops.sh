#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stfq over children that drop while they dequeue, changed and deleted
# under a flood.
#
# codel, fq_codel and cake drop at dequeue and report it with
# qdisc_tree_reduce_backlog(); when that leaves the child empty for a
# moment, stfq_qlen_notify() takes the class off stfq's tree, even when
# the child then hands over a packet (qdisc_peek_dequeued() puts the one
# it dequeued back).  stfq_dequeue() once erased the class from the tree a
# second time and counted it out twice: a corrupt rbtree and nactive
# wrapping below zero.  Stable kernels of 2025 on made codel's and
# fq_codel's peek put the packet back before reporting, so on 6.1.192,
# 6.12 and 7.x they no longer do this; peekdrop (selftests/drivers/
# peekdrop), a test qdisc that drops down to its last packet at every
# dequeue and reports it while empty, does it on every kernel, as the
# older codel did and as any child may.
#
# A dummy device, pktgen in queue_xmit mode: HTB 10 Mbit/s, stfq under it
# with four classes at weights 1, 1, 100 and 1: codel and fq_codel under
# the first two, fed a little more than their share, so their packets
# wait long in short queues and are dropped down to nothing; cake (rtt
# 1ms) under the heavy one, flooded; peekdrop under the fourth, fed more
# than its share, so that every time stfq serves it, it reports drops
# from inside stfq's dequeue.  Under the flood, STFQ_ROUNDS times: class
# weights changed, children replaced, the fq_codel class deleted with
# packets queued and added again.  Asserted: every change succeeded, the children
# dropped at dequeue, and once the flood stops stfq drains to nothing
# queued and no class active (nactive is exactly 0); then the whole tree
# is deleted under a second flood.  Last, a tree whose one class has a
# tbf child (below).  The VM runner fails the run on any oops or warning
# in the kernel log.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/pktgen_lib.sh"

ROUNDS=${STFQ_ROUNDS:-20}
NS_PREFIX=sd-$$-
NS=t
DEV=d0

cleanup()
{
	pg_stop $NS 2>/dev/null
	ip netns del "$(nsname $NS)" 2>/dev/null
}

# stfq_get FIELD: a field of the stfq qdisc, its xstats included.
stfq_get()
{
	in_ns $NS tc -s -j qdisc show dev $DEV | python3 -S -c '
import json, sys
for q in json.load(sys.stdin):
    if q["kind"] == "stfq":
        v = q.get(sys.argv[1], q.get("xstats", {}).get(sys.argv[1]))
        print(v if v is not None else "?")
        break' "$1"
}

# child_drops: packets the three children dropped, summed.
child_drops()
{
	in_ns $NS tc -s -j qdisc show dev $DEV | python3 -S -c '
import json, sys
print(sum(q.get("drops", 0) for q in json.load(sys.stdin)
          if q["kind"] in ("codel", "fq_codel", "cake", "peekdrop")))'
}

# peekdrop_drops: what the test qdisc dropped (and so reported from inside
# stfq's dequeue).
peekdrop_drops()
{
	in_ns $NS tc -s -j qdisc show dev $DEV | python3 -S -c '
import json, sys
print(sum(q.get("drops", 0) for q in json.load(sys.stdin)
          if q["kind"] == "peekdrop"))'
}

setup()
{
	ip netns add "$(nsname $NS)" || return 1
	in_ns $NS ip link add $DEV type dummy || return 1
	in_ns $NS ip link set $DEV up || return 1
	in_ns $NS tc -batch - <<-EOF || return 1
		qdisc add dev $DEV root handle 1: htb default 1
		class add dev $DEV parent 1: classid 1:1 htb rate 10mbit ceil 10mbit
		qdisc add dev $DEV parent 1:1 handle 10: stfq default 3
		class add dev $DEV parent 10: classid 10:1 stfq weight 1
		class add dev $DEV parent 10: classid 10:2 stfq weight 1
		class add dev $DEV parent 10: classid 10:3 stfq weight 100
		class add dev $DEV parent 10: classid 10:4 stfq weight 1
		qdisc add dev $DEV parent 10:1 handle 101: codel target 1ms interval 10ms limit 10000
		qdisc add dev $DEV parent 10:2 handle 102: fq_codel target 1ms interval 10ms
		qdisc add dev $DEV parent 10:3 handle 103: cake unlimited rtt 1ms besteffort
		qdisc add dev $DEV parent 10:4 handle 104: peekdrop
		filter add dev $DEV parent 10: protocol ip prio 1 flower src_ip 10.0.1.0/24 classid 10:1
		filter add dev $DEV parent 10: protocol ip prio 2 flower src_ip 10.0.2.0/24 classid 10:2
		filter add dev $DEV parent 10: protocol ip prio 3 flower src_ip 10.0.4.0/24 classid 10:4
	EOF
	# Thread 0 floods the heavy class; thread 1 sends the light ones a
	# packet every 20 and 15 ms, a little more than their 1% share
	# (12 packets/s) carries.  Their queues stay short while each packet
	# waits long, so codel and fq_codel drop them down to nothing, often
	# in the very dequeue that hands over their last packet.
	# Thread 1 also sends peekdrop's class a packet every 10 ms, so that
	# it always has more than one queued when it is served.
	pg_add $NS $DEV 0 && pg_add $NS $DEV@1 1 && pg_add $NS $DEV@2 1 &&
		pg_add $NS $DEV@3 1 || return 1
	pg_stream $DEV 10.0.3 0 || return 1
	pg_stream $DEV@1 10.0.1 20000000 || return 1
	pg_stream $DEV@2 10.0.2 15000000 || return 1
	pg_stream $DEV@3 10.0.4 10000000
}

# pg_stream PGDEV NET DELAY_NS: 1000-byte UDP from NET.1-NET.254 to one
# destination, a packet every DELAY_NS (0: as fast as it goes).
pg_stream()
{
	pg_set $NS "$1" "xmit_mode queue_xmit" "clone_skb 0" "count 0" \
		"delay $3" "pkt_size 1000" "dst 10.255.0.1" \
		"dst_mac 02:00:00:00:00:01" "src_min $2.1" "src_max $2.254" \
		"flag IPSRC_RND" "udp_src_min 9" "udp_src_max 200" \
		"flag UDPSRC_RND" "udp_dst_min 9" "udp_dst_max 9"
}

# change_round: weights, children and a class with packets queued, under
# the flood.
change_round()
{
	in_ns $NS tc -batch - <<-EOF
		class change dev $DEV classid 10:1 stfq weight 50
		qdisc del dev $DEV parent 10:1
		qdisc add dev $DEV parent 10:1 handle 111: fq_codel target 1ms interval 10ms
		filter del dev $DEV parent 10: prio 2
		class del dev $DEV classid 10:2
		class add dev $DEV parent 10: classid 10:2 stfq weight 1
		qdisc add dev $DEV parent 10:2 handle 102: cake unlimited rtt 1ms besteffort
		filter add dev $DEV parent 10: protocol ip prio 2 flower src_ip 10.0.2.0/24 classid 10:2
		class change dev $DEV classid 10:1 stfq weight 1
		qdisc del dev $DEV parent 10:1
		qdisc add dev $DEV parent 10:1 handle 101: codel target 1ms interval 10ms limit 10000
		qdisc del dev $DEV parent 10:2
		qdisc add dev $DEV parent 10:2 handle 112: fq_codel target 1ms interval 10ms
	EOF
}

require_root
require_command ip tc python3
pg_require
require_qdisc stfq
require_qdisc codel
require_qdisc fq_codel
require_qdisc cake
require_qdisc peekdrop
require_qdisc tbf rate 1mbit burst 4k limit 100k
trap cleanup EXIT

setup || { echo "setup failed"; exit $ksft_fail; }
pg_start $NS
sleep 1

RET=0
for ((r = 0; r < ROUNDS; r++)); do
	change_round || { check_err 1 "change round $r failed"; break; }
	sleep 0.3
done
drops=$(child_drops)
pdrops=$(peekdrop_drops)
pg_stop $NS
log_info "$r rounds of changes; the children dropped $drops packets, peekdrop $pdrops"
log_test "stfq classes and children changed and deleted under a flood"

RET=0
[ "$drops" -gt 0 ] 2>/dev/null
check_err $? "no child dropped a packet: the case was not exercised"
[ "$pdrops" -gt 0 ] 2>/dev/null
check_err $? "peekdrop dropped nothing: no drop was reported from stfq's dequeue"
log_test "children dropped at dequeue"

# HTB drains stfq at 10 Mbit/s; wait for the queue to empty.
drained()
{
	qlen=$(stfq_get qlen) active=$(stfq_get active)
	[ "$qlen" = 0 ] && [ "$active" = 0 ]
}

RET=0
busywait 20000 drained
[ "$qlen" = 0 ]
check_err $? "stfq still holds $qlen packets after the flood"
[ "$active" = 0 ]
check_err $? "stfq counts $active active classes with nothing queued"
log_test "drained: nothing queued, no class active"

RET=0
pg_start $NS
sleep 2
in_ns $NS tc qdisc del dev $DEV root
check_err $? "deleting the tree under the flood failed"
pg_stop $NS
log_test "tree deleted under a flood"

# A child that holds its packets: tbf at 1 Mbit/s under 10:1 (weight 1),
# pfifo under 10:2 (weight 1) and 10:3 (weight 2, the default), all three
# flooded.  While tbf waits for tokens, stfq must serve the next class by
# start tag; stopping at 10:1 (as drr stops at such a child) idles the
# whole link until tbf's watchdog, and only about 3 of the 9 Mbit/s left
# reach the other two.  Asserted over SHAPED_SECS: the other two send at
# least 7 Mbit/s together, 10:3 1.5 to 2.7 times 10:2's bytes, and 10:1
# no more than its tbf's rate and burst (and 20% for the sampling).
SHAPED_SECS=${SHAPED_SECS:-6}

RET=0
in_ns $NS tc -batch - <<-EOF
	qdisc add dev $DEV root handle 1: htb default 1
	class add dev $DEV parent 1: classid 1:1 htb rate 10mbit ceil 10mbit
	qdisc add dev $DEV parent 1:1 handle 10: stfq default 3
	class add dev $DEV parent 10: classid 10:1 stfq weight 1
	class add dev $DEV parent 10: classid 10:2 stfq weight 1
	class add dev $DEV parent 10: classid 10:3 stfq weight 2
	qdisc add dev $DEV parent 10:1 handle 101: tbf rate 1mbit burst 4k limit 100k
	qdisc add dev $DEV parent 10:2 handle 102: pfifo limit 200
	qdisc add dev $DEV parent 10:3 handle 103: pfifo limit 200
	filter add dev $DEV parent 10: protocol ip prio 1 flower src_ip 10.0.1.0/24 classid 10:1
	filter add dev $DEV parent 10: protocol ip prio 2 flower src_ip 10.0.2.0/24 classid 10:2
EOF
check_err $? "the shaped tree"
# Thread 0 floods 10:3 as before; thread 1 sends 10:1 a packet every
# 2 ms (4 Mbit/s, four times its tbf) and 10:2 one every 0.5 ms (16
# Mbit/s).  Two devices of one thread both at delay 0 would not share it:
# pktgen runs the one whose next packet is due first, and at delay 0 that
# time never moves.
pg_stream $DEV@1 10.0.1 2000000 && pg_stream $DEV@2 10.0.2 500000
check_err $? "pktgen"
pg_start $NS
sleep 2
read -r a1 _ a2 _ a3 _ <<<"$(stfq_class_sent $NS $DEV 10:1 10:2 10:3)"
t0=$(date +%s%N)
sleep "$SHAPED_SECS"
read -r b1 _ b2 _ b3 _ <<<"$(stfq_class_sent $NS $DEV 10:1 10:2 10:3)"
secs=$(awk -v ns=$(($(date +%s%N) - t0)) 'BEGIN { print ns / 1e9 }')
tbf=$(in_ns $NS tc -s qdisc show dev $DEV parent 10:1 | tr -s ' \n' ' ')
pg_stop $NS
log_info "tbf: $tbf"
read -r r1 r2 r3 <<<"$(awk -v s="$secs" \
	-v d1=$((b1 - a1)) -v d2=$((b2 - a2)) -v d3=$((b3 - a3)) \
	'BEGIN { printf "%.2f %.2f %.2f", d1 * 8 / s / 1e6, d2 * 8 / s / 1e6, d3 * 8 / s / 1e6 }')"
log_info "Mbit/s over $secs s: 10:1 (tbf 1mbit) $r1, 10:2 (weight 1) $r2, 10:3 (weight 2) $r3"
awk -v a="$r2" -v b="$r3" 'BEGIN { exit !(a + b >= 7) }'
check_err $? "the classes beside the shaped one got $r2 + $r3 Mbit/s of 9"
awk -v a="$r2" -v b="$r3" 'BEGIN { exit !(a > 0 && b / a >= 1.5 && b / a <= 2.7) }'
check_err $? "weights 1:2 served $r2:$r3"
awk -v a="$r1" -v s="$secs" 'BEGIN { exit !(a <= 1.2 + 4096 * 8 / s / 1e6) }'
check_err $? "the tbf class sent $r1 Mbit/s"
in_ns $NS tc qdisc del dev $DEV root
log_test "a class whose child holds its packets: the others served at their share"

ksft_exit
