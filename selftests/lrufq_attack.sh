#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Attacks on LRU-FQ (stfq + lrufq under a 10 Mbit/s HTB on r-out), with
# pktgen on r-out itself (queue_xmit: through the qdiscs) as the attacker:
#
#	weights  two classes at weights 1 and 65535, both backlogged: the
#	         light (default) class with 60-byte packets, the heavy one
#	         with 1500-byte packets to UDP port 10, which a flower filter
#	         sends there.  The light class must not starve: it gets
#	         packets through during the window, within a factor 4 of
#	         heavy_bytes / 65535 (plus two packets)
#	thrash   200 UDP flows (sources in turn, 100 kbit/s each, twice the
#	         per-flow fair rate, 20 Mbit/s in all) with 4 TCP flows from
#	         s1..s4 (connected before the flood and the filter);
#	         high:low weights 1:3, threshold 25.  With an LRU of
#	         100 entries (probability 1/50) half the flows can never be
#	         held: they stay in the low class with TCP, which a pfifo
#	         there gives to the UDP flows (reported, TCP > 0 asserted);
#	         dfs as the low class's child gives TCP about its per-flow
#	         share of the low class (4 of ~150 flows, 2% of the link:
#	         >= 1% asserted).  (An LRU of 256, larger than the flows,
#	         is no cure: it holds every flood flow, but every TCP flow
#	         too, and all pass the threshold and go high together, TCP
#	         no better off.  LRU-FQ tells heavy flows apart only with a
#	         cache smaller than the number of flows.)  The paper's
#	         count, "window 0": with lrufq's default window, 25 packets
#	         a second, no flood flow (12.5 a second) is heavy at all,
#	         and TCP fares no better: by rate, a flood wider than the
#	         threshold's reach is as invisible as one wider than the
#	         cache.
#	privacy  in the first thrash case, with the cache full: the cached
#	         flows are listed to root's dump alone (not to uid 65534's,
#	         nor in the reply to "tc filter get")

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/pktgen_lib.sh"

SECS=${SECS:-10}
WARM=4
# How long the TCP flows may take to start before the flood (seconds).
CONNECT_SECS=15
LINK_BPS=10000000

# class_stats: "BYTES_10:1 PKTS_10:1 BYTES_10:2 PKTS_10:2", one dump.
class_stats()
{
	stfq_class_sent r "$R_OUT" 10:1 10:2
}

# stfq_setup LOW_WEIGHT HIGH_WEIGHT LOW_CHILD...: stfq 10: under the
# shaper, 10:1 (low, default) and 10:2 (high), pfifo under 10:2.
stfq_setup()
{
	local low=$1 high=$2
	shift 2

	setup_bottleneck_htb "$R_OUT" 10mbit stfq default 1 &&
	in_ns r tc class add dev "$R_OUT" parent 10: classid 10:1 stfq weight "$low" &&
	in_ns r tc class add dev "$R_OUT" parent 10: classid 10:2 stfq weight "$high" &&
	in_ns r tc qdisc add dev "$R_OUT" parent 10:1 handle 21: "$@" &&
	in_ns r tc qdisc add dev "$R_OUT" parent 10:2 handle 22: pfifo limit 100
}

pg_common()
{
	pg_set r "$1" "xmit_mode queue_xmit" "count 0" "dst $RCV_IP4" \
		"dst_mac 02:00:00:00:00:01" "udp_dst_min 9" "udp_dst_max 9"
}

require_command iperf3 python3 setpriv
pg_require
setup_topology 4 || exit $ksft_fail
trap 'pg_stop r 2>/dev/null; topo_cleanup' EXIT

# --- weights 1 : 65535 ----------------------------------------------------
RET=0
stfq_setup 1 65535 pfifo limit 100
check_err $? "stfq setup"
pg_reset r
pg_add r "$R_OUT@1" 0 && pg_add r "$R_OUT@2" 1 &&
pg_common "$R_OUT@1" && pg_common "$R_OUT@2" &&
pg_set r "$R_OUT@1" "pkt_size 60" "delay 1000000" &&
pg_set r "$R_OUT@2" "pkt_size 1500" "delay 500000" "udp_dst_min 10" "udp_dst_max 10" &&
in_ns r tc filter add dev "$R_OUT" parent 10: protocol ip prio 1 \
	flower ip_proto udp dst_port 10 classid 10:2
check_err $? "pktgen or filter setup"
pg_start r
sleep "$WARM"
read -r lb0 lp0 hb0 hp0 <<<"$(class_stats)"
sleep "$SECS"
read -r lb1 lp1 hb1 hp1 <<<"$(class_stats)"
pg_stop r
lb=$((lb1 - lb0)) lp=$((lp1 - lp0)) hb=$((hb1 - hb0)) hp=$((hp1 - hp0))
log_info "weight 1: $lp packets, $lb bytes; weight 65535: $hp packets, $hb bytes in ${SECS}s"
log_info "weight 1 expected heavy/65535 = $((hb / 65535)) bytes, total before the window: $lp0 packets"
[ "$lp" -ge 1 ]
check_err $? "the weight-1 class starved: no packet in ${SECS}s"
[ "$lb" -le $((4 * hb / 65535 + 120)) ] && [ $((4 * lb)) -ge $((hb / 65535)) ]
check_err $? "weight-1 class got $lb bytes, want about $((hb / 65535))"
[ $((hb * 8 / SECS)) -ge $((LINK_BPS / 2)) ]
check_err $? "the heavy class got only $((hb * 8 / SECS)) bit/s"
log_test "stfq weights 1:65535 backlogged: light class $lb bytes (~$((hb / 65535)) due)"

# --- LRU thrashing ------------------------------------------------------------
rx_meter_setup || exit $ksft_fail
start_iperf3_server 5201 5202 5203 5204 persistent || exit $ksft_fail
pg_reset r
# 200 sources in turn (no IPSRC_RND: sequential, the LRU's worst case).
pg_add r "$R_OUT" 0 && pg_common "$R_OUT" &&
pg_set r "$R_OUT" "pkt_size 1000" "delay 400000" \
	"src_min 10.200.0.1" "src_max 10.200.0.200"
check_err $? "pktgen setup"

# tcp_all_sending "RX_BYTES_LINE": s1..s4 have each sent 64 kB since.
tcp_all_sending()
{
	local b

	b=$(rx_bytes) || return 1
	awk -v a="$1" -v b="$b" 'BEGIN {
		split(a, x); split(b, y)
		for (i = 2; i <= 5; i++)
			if (y[i] - x[i] < 65536)
				exit 1
	}'
}

# flow_privacy: with the cache full, the cached flows' addresses go to
# CAP_NET_ADMIN alone: root's "tc -d filter show" lists them, uid 65534's
# (no capability, its own copy of tc and the plugin, wherever the tree
# is) lists the filter and none of them; "tc filter get", whose reply
# is a notification, succeeds and lists none either.
flow_privacy()
{
	local dir root nobody get handle ret=$RET

	RET=0
	dir=$(mktemp -d)
	chmod 0755 "$dir"
	mkdir "$dir/lib"
	install -m 0755 "$(command -v tc)" "$dir/tc"
	install -m 0644 "$TC_LIB_DIR/f_lrufq.so" "$dir/lib/"
	root=$(in_ns r tc -d filter show dev "$R_OUT" parent 10: | grep -c 'flow src')
	nobody=$(in_ns r env TC_LIB_DIR="$dir/lib" setpriv --reuid=65534 \
		--regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
		"$dir/tc" -d filter show dev "$R_OUT" parent 10: 2>&1)
	handle=$(in_ns r tc filter show dev "$R_OUT" parent 10: |
		sed -n 's/.* lrufq .*handle \(0x[0-9a-f]*\).*/\1/p' | head -n 1)
	get=$(in_ns r tc -d filter get dev "$R_OUT" parent 10: protocol all \
		prio 1 handle "$handle" lrufq 2>&1)
	check_err $? "tc filter get of handle $handle: $get"
	rm -r "$dir"
	log_info "flows listed: $root to root, $(grep -c 'flow src' <<<"$nobody") to uid 65534, $(grep -c 'flow src' <<<"$get") in a get"
	[ "$root" -gt 0 ]
	check_err $? "root's dump lists no flow"
	grep -q ' lrufq ' <<<"$nobody"
	check_err $? "uid 65534 sees no lrufq filter: $nobody"
	! grep -q 'flow src' <<<"$nobody$get"
	check_err $? "uid 65534's dump or a get lists flows"
	log_test "lrufq: the cached flows to CAP_NET_ADMIN's dumps alone"
	RET=$ret
}

thrash_case()
{
	local name=$1 want=$2 a b tcp share filt
	shift 2

	RET=0
	stfq_setup 3 1 "$@"
	check_err $? "setup"
	for i in 1 2 3 4; do
		start_tcp_flow "s$i" $((5200 + i)) \
			$((CONNECT_SECS + SECS + WARM + 3)) /dev/null
	done
	# The flows connect before the flood and the filter come, which
	# then come together as before (an empty cache).  A handshake the
	# flood meets in the full pfifo (half of what arrives is dropped)
	# can take all of SYN's backoff: then none of the four flows may get
	# going within the 14 s, and the share reads 0 for that, not for
	# the share an established flow gets.
	a=$(rx_bytes)
	busywait $((CONNECT_SECS * 1000)) tcp_all_sending "$a"
	check_err $? "the TCP flows did not all start in ${CONNECT_SECS}s"
	# shellcheck disable=SC2086 # LRU: several words
	in_ns r tc filter add dev "$R_OUT" parent 10: protocol all prio 1 \
		lrufq $LRU threshold 25 window 0 high 10:2 low 10:1
	check_err $? "filter"
	pg_start r
	sleep "$WARM"
	a=$(rx_bytes); sleep "$SECS"; b=$(rx_bytes)
	filt=$(in_ns r tc -s -d filter show dev "$R_OUT" parent 10: |
		grep -oE '(hits|misses|admissions|evictions|high|low) [0-9]+( |$)' |
		tr -s ' \n' ' ')
	[ -z "$PRIVACY" ] || flow_privacy
	read -r lb _ hb _ <<<"$(class_stats)"
	pg_stop r
	wait_flows
	check_err $? "iperf3 failed"
	tcp=$(rx_rates "$a" "$b" | awk '{ for (i = 1; i <= NF; i++) s += $i; print s + 0 }')
	share=$(awk -v t="$tcp" -v l="$LINK_BPS" 'BEGIN { printf "%.3f", t / l }')
	log_info "$name: TCP $((tcp / 1000)) kbit/s, share $share; class bytes low $lb high $hb"
	log_info "$name: filter: $filt"
	awk -v s="$share" -v w="$want" 'BEGIN { exit !(s >= w) }'
	check_err $? "TCP share $share < $want"
	log_test "lrufq, 200 flows, $name: TCP share $share (>= $want)"
}

PRIVACY=1 LRU="cache 100 probability 1/50" thrash_case "cache 100, pfifo" 0.001 pfifo limit 100
LRU="cache 100 probability 1/50" thrash_case "cache 100, dfs under low" 0.01 dfs limit 100000

ksft_exit
