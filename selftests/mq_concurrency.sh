#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two CPUs through the modules at once, and tc changing them underneath.
# pktgen threads on both vCPUs (kpktgend_0 and kpktgend_1) send 64-byte
# UDP from random sources in queue_xmit mode through:
#
#   mq0      a 2-queue dummy, mq root: dfs on queue 1; stfq (lrufq filter,
#            dfs under the low class) on queue 2.  Both threads send on it
#            and the tx hash spreads their packets over both queues, so
#            each qdisc is entered from both CPUs (each under its own
#            queue lock, as on any multiqueue NIC).
#   sb1 sb2  two dummies whose clsact egress shares block 5 with one lrufq
#            filter: one filter, one cache, classify on two CPUs at once
#            against the same state.  The filter's spinlock is all that
#            keeps its LRU list and counters whole.
#
# Phase 1, traffic alone: every packet is classified once, so the shared
# filter's hits + misses must equal the packets pktgen offered on sb1 and
# sb2 exactly (a lost update under concurrency shows here), and each
# qdisc tree counts (sent + dropped) exactly what was offered on mq0.
# Phase 2, the same traffic while tc changes dfs (limit, order, cache:
# rebuilds), stfq class weights, replaces the shared lrufq filter and
# deletes/re-adds one clsact, MQ_ROUNDS (20) times: every operation must
# succeed, and backlog be 0 at the end.  (6.1's qdisc_graft() deactivates
# the whole device to swap a clsact, so sb2's packets meet noop_qdisc
# meanwhile: "sb2 xmit error: 2", NET_XMIT_CN, in the log is that.)  A key change purges what is
# queued (qdisc_purge_queue(), neither sent nor dropped), at most a packet
# or two on a device that sends at once, so here the qdiscs may count a
# little less than was offered, never more.
# Phase 3, the same traffic through a dfs_mq root that is replaced by
# mq, by dfs_mq with another handle, by mqprio where the kernel has it,
# by dfs_mq again, then deleted.  A root with ->attach is destroyed
# before the old queues are put: each old queue must still find what the
# queues share (the table of marks, which it clears of its own) when it
# is reset and destroyed after its root.  (A dummy builds no queue, so
# DFS marks no key here: the marks themselves are marks_test's.)  Under KASAN (make check-debug) a
# use after free shows here.  The kernel log is checked by the VM runner,
# which unloads the modules after the tests: a reference or a mark left
# behind fails that.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/pktgen_lib.sh"

ROUNDS=${MQ_ROUNDS:-20}
SECS=${MQ_SECS:-6}
NS_PREFIX=mq-$$-
NS=t

cleanup()
{
	pg_stop $NS 2>/dev/null
	ip netns del "$(nsname $NS)" 2>/dev/null
}

# tc_json ARGS...: "tc -s -j ARGS" in the namespace.
tc_json()
{
	in_ns $NS tc -s -j "$@"
}

# qdisc_total DEV: packets + drops of the root qdisc of DEV (mq: the sum of
# its children).
qdisc_total()
{
	tc_json qdisc show dev "$1" root | python3 -S -c '
import json, sys
q = json.load(sys.stdin)[0]
print(q["packets"] + q["drops"])'
}

qdisc_backlog()
{
	tc_json qdisc show dev "$1" | python3 -S -c '
import json, sys
print(sum(q.get("backlog", 0) + q.get("qlen", 0) for q in json.load(sys.stdin)))'
}

# lrufq_counted: hits + misses of the filter of block 5.
lrufq_counted()
{
	tc_json filter show block 5 | python3 -S -c '
import json, sys

def find(o):
    if isinstance(o, dict):
        if "hits" in o and "misses" in o:
            return o["hits"] + o["misses"]
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            r = find(v)
            if r is not None:
                return r
    return None

print(find(json.load(sys.stdin)))'
}

# offered DEV...: packets pktgen offered on all its devices named DEV*.
offered()
{
	local d n=0

	for d in "$@"; do
		n=$(( n + $(pg_sent $NS "$d") ))
	done
	echo $n
}

setup()
{
	ip netns add "$(nsname $NS)" || return 1
	# No IPv6: its neighbour discovery would add packets pktgen did not
	# send to the counts compared.
	in_ns $NS sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 || return 1
	in_ns $NS ip -batch - <<-EOF || return 1
		link set lo up
		link add mq0 numtxqueues 2 type dummy
		link add sb1 type dummy
		link add sb2 type dummy
		link set mq0 up
		link set sb1 up
		link set sb2 up
	EOF
	in_ns $NS tc -batch - <<-EOF || return 1
		qdisc add dev mq0 root handle 1: mq
		qdisc add dev mq0 parent 1:1 handle 10: dfs limit 200000
		qdisc add dev mq0 parent 1:2 handle 20: stfq default 1
		class add dev mq0 parent 20: classid 20:1 stfq weight 3
		class add dev mq0 parent 20: classid 20:2 stfq weight 1
		qdisc add dev mq0 parent 20:1 handle 21: dfs sched fq
		filter add dev mq0 parent 20: protocol all prio 1 lrufq cache 64 probability 1/10 threshold 20 high 20:2 low 20:1
		qdisc add dev sb1 egress_block 5 clsact
		qdisc add dev sb2 egress_block 5 clsact
		filter add block 5 protocol all prio 1 handle 1 lrufq cache 64 probability 1/10 threshold 20 high 1:2 low 1:1
	EOF
	# thread 0: mq0 and sb1; thread 1: mq0 (a second pktgen device on
	# it) and sb2.  A thread sends on the device whose next packet is
	# due first; with delay 0 that is always the same one, so a delay of
	# 1 us (less than a packet takes here) makes them take turns.
	pg_add $NS mq0 0 && pg_add $NS sb1 0 &&
	pg_add $NS mq0@1 1 && pg_add $NS sb2 1 || return 1
	local d
	for d in mq0 sb1 mq0@1 sb2; do
		pg_set $NS "$d" "xmit_mode queue_xmit" "clone_skb 0" "count 0" \
			"delay 1000" "pkt_size 64" "dst 10.255.0.1" \
			"dst_mac 02:00:00:00:00:01" "src_min 10.0.0.1" \
			"src_max 10.0.3.255" "flag IPSRC_RND" \
			"udp_src_min 9" "udp_src_max 9" \
			"udp_dst_min 9" "udp_dst_max 9" || return 1
	done
}

# change_round I: one round of changes to everything under traffic.
change_round()
{
	local i=$1
	local order=$(( i % 2 ? 16 : 32 ))

	in_ns $NS tc -batch - <<-EOF
		qdisc change dev mq0 parent 1:1 handle 10: dfs limit $(( 100000 + i * 1000 )) order $order cache $(( 16 + i % 32 ))
		class change dev mq0 parent 20: classid 20:1 stfq weight $(( 1 + i % 9 ))
		qdisc change dev mq0 parent 20:1 handle 21: dfs key $([ $(( i % 2 )) = 1 ] && echo src || echo srcdst) quantum $(( 300 + i * 100 ))
		qdisc change dev mq0 parent 1:1 handle 10: dfs sched $([ $(( i % 3 )) = 1 ] && echo fq || echo fifo)
		filter replace block 5 protocol all prio 1 handle 1 lrufq cache $(( 32 + i % 64 )) probability 1/10 threshold 20 high 1:2 low 1:1
		qdisc del dev sb2 clsact
		qdisc add dev sb2 egress_block 5 clsact
	EOF
}

require_root
require_command tc python3
pg_require
require_module dummy
require_module sch_ingress
require_qdisc dfs
require_qdisc stfq
trap cleanup EXIT

RET=0
setup
check_err $? "setup failed"
log_test "mq with dfs and stfq + lrufq + dfs, a clsact block shared by two devices"
[ $EXIT_STATUS = 0 ] || exit $EXIT_STATUS

# --- phase 1: both CPUs, no changes ----------------------------------------
RET=0
pg_start $NS
sleep "$SECS"
pg_stop $NS
sleep 0.5	# let the last packets leave
sb=$(offered sb1 sb2)
cnt=$(lrufq_counted)
mq=$(offered mq0 mq0@1)
got=$(qdisc_total mq0)
log_info "offered: mq0 $mq (counted by its qdiscs: $got), sb1 + sb2 $sb (classified by the shared lrufq: $cnt)"
[ "$mq" -gt 1000 ] && [ "$sb" -gt 1000 ]
check_err $? "too few packets to tell: mq0 $mq, sb1 + sb2 $sb"
[ "$cnt" = "$sb" ]
check_err $? "the shared lrufq classified $cnt packets, pktgen offered $sb"
[ "$got" = "$mq" ]
check_err $? "mq0's qdiscs counted $got packets, pktgen offered $mq"
log_test "two CPUs: every packet counted once, shared filter exact"

# --- phase 2: the same while tc changes everything -------------------------
RET=0
pg_start $NS
fails=0
for i in $(seq "$ROUNDS"); do
	change_round "$i" || fails=$(( fails + 1 ))
done
pg_stop $NS
sleep 0.5
# pktgen counts from its last start, the qdiscs from their creation
mq=$(( mq + $(offered mq0 mq0@1) ))
got=$(qdisc_total mq0)
log_info "$ROUNDS rounds of 7 tc commands, $fails failed; mq0 offered $mq in both phases, counted $got"
[ "$fails" = 0 ]
check_err $? "$fails rounds of tc changes failed"
[ "$got" -le "$mq" ] && [ $(( mq - got )) -le $(( ROUNDS * 8 )) ]
check_err $? "mq0's qdiscs counted $got packets, pktgen offered $mq"
bl=$(qdisc_backlog mq0)
[ "$bl" = 0 ]
check_err $? "mq0 backlog $bl after the traffic stopped"
log_test "two CPUs under tc changes: all applied, nothing over-counted"

# --- phase 3: a dfs_mq root replaced and deleted under traffic -------------
RET=0
out=$(in_ns $NS tc qdisc replace dev mq0 root handle 7: dfs_mq limit 200kb \
	bandwidth 10mbit 2>&1)
check_err $? "dfs_mq in place of mq: $out"
pg_start $NS
steps=("mq:handle 2: mq" "dfs_mq:handle 3: dfs_mq bandwidth 10mbit"
       "mqprio:handle 4: mqprio num_tc 2 map 0 1 queues 1@0 1@1 hw 0"
       "dfs_mq:handle 5: dfs_mq bandwidth 10mbit sched fq"
       "dfs_mq:handle 6: dfs_mq bandwidth 10mbit")
done_steps=()
for step in "${steps[@]}"; do
	sleep 1
	kind=${step%%:*}
	# shellcheck disable=SC2086
	out=$(in_ns $NS tc qdisc replace dev mq0 root ${step#*:} 2>&1)
	rc=$?
	if [ "$kind" = mqprio ] && [ $rc != 0 ]; then
		log_info "mqprio refused on this kernel ($out): skipped"
		continue
	fi
	check_err $rc "replace by $kind: $out"
	done_steps+=("$kind")
done
sleep 1
in_ns $NS tc qdisc del dev mq0 root
check_err $? "delete of the last dfs_mq under traffic"
sleep 1
pg_stop $NS
log_info "replaced in turn by: ${done_steps[*]}"
[ "${#done_steps[@]}" -ge 4 ]
check_err $? "only ${#done_steps[@]} replacements made"
log_test "dfs_mq replaced by mq, dfs_mq, mqprio under traffic, then deleted"

exit $EXIT_STATUS
