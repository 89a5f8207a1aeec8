#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A root dfs whose device pushes back, and "limit" lowered under load.
#
# When a driver hands a packet back (NETDEV_TX_BUSY, its ring full), the
# qdisc layer parks it in the root qdisc's gso_skb (dev_requeue_skb()):
# still counted in the qdisc's backlog and qlen, but out of dfs's queue,
# and out of its flow, which may be pruned while the packet waits.
# dfs_trim_queue() once trimmed "while backlog > limit" from the queue
# alone: with the parked packet larger than the new limit it emptied the
# queue and then dequeued NULL, an oops.
#
# The device is pushback0 (selftests/drivers/pushback, loaded by the VM
# runner): while held, every transmit stops its queue and returns
# NETDEV_TX_BUSY.  Deterministically:
#   1. flow A sends one 1414-byte packet: dfs dequeues it, the device
#      hands it back, it waits in gso_skb; A's flow, with nothing queued,
#      is pruned ("prune 1s").
#   2. flow B sends 19: they wait in dfs's queue.
#   3. "limit 1024", below one packet: everything must go, the parked
#      packet first, and the counters must agree (qlen and backlog 0,
#      20 drops).
#   4. the same with "limit 6000": four packets stay, the parked one
#      gone.
#   5. released, the device takes what is left, and dfs forwards again.
# All of it with sched fifo, then with sched fq, where the trim dequeues
# through the flow scheduler and flow A, still in its lists until the
# scheduler finds it empty (which the stopped device never lets it), is
# not pruned.  The VM runner fails the run on any oops or warning in the
# kernel log.

source "$(dirname "$0")/lib.sh"

DEV=pushback0
HOLD=/sys/module/pushback/parameters/hold
NET=10.254.0
PKT_LEN=$((1372 + 8 + 20 + 14))	# payload, UDP, IPv4, Ethernet: qdisc_pkt_len()

cleanup()
{
	echo 0 > "$HOLD" 2>/dev/null
	tc qdisc del dev $DEV root 2>/dev/null
	ip addr flush dev $DEV 2>/dev/null
	ip link set $DEV down 2>/dev/null
}

# qdisc_get FIELD: a field of the root qdisc of DEV ("tc -s -j": the
# counters at the top, then the options and xstats below them).
qdisc_get()
{
	tc -s -j qdisc show dev $DEV root | python3 -S -c '
import json, sys
def find(o, k):
    if isinstance(o, dict):
        if k in o:
            return o[k]
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            r = find(v, k)
            if r is not None:
                return r
    return None
v = find(json.load(sys.stdin)[0], sys.argv[1])
print("?" if v is None else v)' "$1"
}

# send SRC N: N UDP datagrams of PKT_LEN bytes on the wire from $NET.SRC
# to $NET.2.
send()
{
	python3 -S -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 0))
for _ in range(int(sys.argv[3])):
    s.sendto(b"x" * 1372, (sys.argv[2], 9))' "$NET.$1" "$NET.2" "$2"
}

# park_and_queue LIMIT_AFTER: steps 1 to 3 or 4 with the new limit.
park_and_queue()
{
	local limit=$1

	# A new qdisc each time: its counters start at 0.
	tc qdisc del dev $DEV root 2>/dev/null
	tc qdisc add dev $DEV root handle 1: dfs limit 1000000 prune 1s \
		sched "$SCHED" || return 1
	echo 1 > "$HOLD"
	send 1 1 || return 1
	busywait 2000 test_requeued 1 || { echo "the device did not push back"; return 1; }
	# A's flow has nothing queued: the prune timer frees it.
	if [ "$SCHED" = fifo ]; then
		busywait 5000 test_pruned || { echo "flow A was not pruned"; return 1; }
	fi
	send 3 19 || return 1
	[ "$(qdisc_get qlen)" = 20 ] || { echo "dfs holds $(qdisc_get qlen) packets, not 20"; return 1; }
	tc qdisc change dev $DEV root handle 1: dfs limit "$limit"
}

test_requeued() { [ "$(qdisc_get requeues)" -ge "$1" ] 2>/dev/null; }
test_pruned() { [ "$(qdisc_get pruned)" -ge 1 ] 2>/dev/null; }
test_drained() { [ "$(qdisc_get qlen)" = 0 ] && [ "$(qdisc_get backlog)" = 0 ]; }

require_root
require_command ip tc python3
require_qdisc dfs
[ -w "$HOLD" ] || { echo "SKIP: the pushback test device is not loaded"; exit $ksft_skip; }
trap cleanup EXIT

# Only the test's own packets: no IPv6 (router solicitations, MLD), and
# the device has no ARP.
sysctl -qw net.ipv6.conf.$DEV.disable_ipv6=1 &&
	ip link set $DEV up &&
	ip addr add $NET.1/24 dev $DEV &&
	ip addr add $NET.3/24 dev $DEV || { echo "setup failed"; exit $ksft_fail; }

run_all()
{
	RET=0
	park_and_queue 1024
	check_err $? "limit 1024 with a packet handed back failed"
	qlen=$(qdisc_get qlen) backlog=$(qdisc_get backlog) drops=$(qdisc_get drop_overlimit)
	[ "$qlen" = 0 ] && [ "$backlog" = 0 ]
	check_err $? "after limit 1024: qlen $qlen backlog $backlog, not 0"
	[ "$drops" = 20 ]
	check_err $? "after limit 1024: $drops packets dropped, not 20"
	log_test "sched $SCHED: limit below the handed-back packet: all dropped, counters agree"

	RET=0
	echo 0 > "$HOLD"
	park_and_queue 6000
	check_err $? "limit 6000 with a packet handed back failed"
	qlen=$(qdisc_get qlen) backlog=$(qdisc_get backlog)
	[ "$qlen" = 4 ] && [ "$backlog" = $((4 * PKT_LEN)) ]
	check_err $? "after limit 6000: qlen $qlen backlog $backlog, not 4 and $((4 * PKT_LEN))"
	log_test "sched $SCHED: limit lowered past the handed-back packet: the newest kept"

	RET=0
	sent0=$(qdisc_get packets)
	echo 0 > "$HOLD"
	send 1 10
	busywait 5000 test_drained
	check_err $? "dfs holds qlen $(qdisc_get qlen) backlog $(qdisc_get backlog) once released"
	sent1=$(qdisc_get packets)
	# In fq, CoDel may drop one of the kept packets, queued for a
	# second or more by then: that is its job.
	codel=0
	[ "$SCHED" = fq ] && codel=$(qdisc_get codel_drops)
	[ $((sent1 - sent0 + codel)) -ge 14 ] 2>/dev/null
	check_err $? "released: dfs sent $((sent1 - sent0)) packets and CoDel dropped $codel, not the 4 kept and 10 new"
	log_test "sched $SCHED: released: what was kept and what came after is sent"
}

for SCHED in fifo fq; do
	echo 0 > "$HOLD"
	run_all
done

ksft_exit
