#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cls_lrufq with every entry pinned, under a flood of new flows: a miss
# must cost what it costs when nothing is pinned.  On a dummy device in
# the router's netns, stfq with two classes and the lrufq filter (cache
# 512, probability 1: every miss is admitted, so every flood packet asks
# for a victim), pktgen through the qdisc (queue_xmit):
#	keepers  512 sources in turn, each every 80 ms or so, from their
#	         own pktgen thread: with "pin 1kbit" every entry is pinned
#	         before the flood starts, and stays pinned
#	flood    64-byte packets from random sources of a /9, as fast as the
#	         other thread can send them: the flood's packets a second
#	         is what a packet costs
# Four rounds, unpinned ("pin 0") and pinned in turn, each with the
# keepers first; the flood's rate pinned, summed over its two rounds,
# must be at least 0.8 of the unpinned one.  A miss that walked every
# pinned entry (512 of them, under the filter's spinlock) cut it to a
# small part of that.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/pktgen_lib.sh"

CACHE=512
SECS=${SECS:-5}
DEV=d-pin

pg_require
setup_topology 1 || exit $ksft_fail
trap 'pg_stop r 2>/dev/null; topo_cleanup' EXIT
in_ns r ip link add "$DEV" type dummy &&
in_ns r ip link set "$DEV" up &&
in_ns r ip addr add 10.200.0.1/24 dev "$DEV" || exit $ksft_fail

# lrufq_stat FIELD: a counter of the filter's statistics (tc -s)
lrufq_stat()
{
	in_ns r tc -s filter show dev "$DEV" parent 10: |
		awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) { print $(i + 1); exit } }'
}

# setup PIN: stfq, its two classes and the filter with "pin PIN"
setup()
{
	in_ns r tc qdisc del dev "$DEV" root 2>/dev/null
	in_ns r tc qdisc add dev "$DEV" root handle 10: stfq &&
	in_ns r tc class add dev "$DEV" parent 10: classid 10:1 stfq weight 1 &&
	in_ns r tc class add dev "$DEV" parent 10: classid 10:2 stfq weight 1 &&
	in_ns r tc filter add dev "$DEV" parent 10: protocol all prio 1 lrufq \
		high 10:2 low 10:1 cache "$CACHE" probability 1 threshold 1000 \
		pin "$1"
}

# round PIN: the keepers, then the flood; prints "PPS PINNED SKIPS",
# the flood's packets a second, the entries pinned as it ends and the
# pinned entries passed over for each flood packet
round()
{
	local s0 s1 k0 k1 pinned

	setup "$1" || return 1
	pg_reset r
	pg_add r "$DEV@1" 0 && pg_add r "$DEV@2" 1 || return 1
	pg_set r "$DEV@1" "xmit_mode queue_xmit" "count 0" "pkt_size 60" \
		"dst 10.200.0.2" "dst_mac 02:00:00:00:00:02" \
		"src_min 10.100.0.0" "src_max 10.100.1.255" "delay 150000" &&
	pg_set r "$DEV@2" "xmit_mode queue_xmit" "count 0" "pkt_size 60" \
		"dst 10.200.0.2" "dst_mac 02:00:00:00:00:02" \
		"src_min 10.128.0.0" "src_max 10.255.255.255" "flag IPSRC_RND" \
		"delay 1000000000" || return 1
	pg_start r "$DEV@1"
	# every keeper seen twice, 100 ms apart: pinned (or not, with pin 0)
	sleep 2
	pg_set r "$DEV@2" "delay 0" || return 1
	sleep 1
	s0=$(pg_sent r "$DEV@2")
	k0=$(lrufq_stat pin_skips)
	sleep "$SECS"
	s1=$(pg_sent r "$DEV@2")
	k1=$(lrufq_stat pin_skips)
	pinned=$(lrufq_stat pinned)
	pg_stop r
	echo "$(((s1 - s0) / SECS)) $pinned $(awk -v k=$((k1 - k0)) \
		-v p=$((s1 - s0)) 'BEGIN { printf "%.2f", p ? k / p : 0 }')"
}

RET=0
pps_u=0 pps_p=0
for pin in 0 1kbit 0 1kbit; do
	read -r pps pinned skips <<<"$(round "$pin")"
	check_err $? "round with pin $pin failed"
	log_info "pin $pin: flood at $pps packets/s, $pinned of $CACHE entries pinned, $skips pinned entries passed over a flood packet"
	if [ "$pin" = 0 ]; then
		pps_u=$((pps_u + pps))
	else
		pps_p=$((pps_p + pps))
		[ "${pinned:-0}" -ge $((CACHE * 9 / 10)) ]
		check_err $? "only $pinned of $CACHE entries pinned under the flood"
	fi
done
log_info "flood packets a second over two rounds each: unpinned $pps_u, pinned $pps_p"
[ "$pps_u" -gt 0 ] && [ $((10 * pps_p)) -ge $((8 * pps_u)) ]
check_err $? "pinned, the flood's rate is $pps_p, not 0.8 of unpinned $pps_u"
log_test "lrufq: every entry pinned, a miss costs what it costs unpinned"

exit $EXIT_STATUS
