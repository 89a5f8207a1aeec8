#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Odd and malformed packets through dfs and through stfq + lrufq, each
# with every key (src, dst, srcdst, 5tuple: net/flowkey_skb.h), under
# a 10 Mbit/s HTB on the router's egress r-out:
#	- tools/rawframes.py sends, with AF_PACKET on r-out itself (the
#	  router's IP stack would drop bad IPv4 before forwarding it), 1-byte
#	  UDP, truncated IPv4/IPv6/VLAN headers, bad IHL, IPv4 and IPv6
#	  fragments, IPv6 extension header chains (hop-by-hop, destination
#	  options, routing, fragment; truncated; 20 in a row), 802.1Q, QinQ
#	  and 8 stacked tags, MPLS, IP-in-IP, a skb->protocol that disagrees
#	  with the frame, and 1,000 seeded random mutations of those;
#	- TCP from the router itself with TSO: 64 KB GSO packets at the qdisc;
#	- ping over an 802.1Q device on top of r-out.
# After each: no crash (the kernel log is checked by vm-run.sh), every
# frame the qdisc took is accounted as sent or dropped, the backlog of
# every qdisc on r-out is back to 0 once the traffic stops, and the
# qdisc still forwards.
# Then the same corpus through fkcheck (selftests/drivers/fkcheck), a
# FIFO that builds every packet's key in the four modes with the fast
# path of net/flowkey_skb.h and with the dissector alone: not one key may
# differ, and the fast path must have taken packets and left others to
# the dissector.

source "$(dirname "$0")/lib.sh"

TOOLS=$(cd "$(dirname "$0")/../tools" && pwd)
FUZZ=${PARSE_FUZZ:-1000}
REPEAT=${PARSE_REPEAT:-5}

# qdisc_counts KIND: "PACKETS DROPS BYTES" of the first qdisc of KIND on
# r-out.
qdisc_counts()
{
	in_ns r tc -j -s qdisc show dev "$R_OUT" | python3 -S -c '
import json, sys
for q in json.load(sys.stdin):
    if q["kind"] == sys.argv[1]:
        print(q["packets"], q["drops"], q["bytes"])
        break' "$1"
}

# dev_tx: "PACKETS BYTES" sent by r-out (the veth counts a GSO skb once).
dev_tx()
{
	in_ns r cat "/sys/class/net/$R_OUT/statistics/tx_packets" \
		"/sys/class/net/$R_OUT/statistics/tx_bytes" | xargs
}

# backlog_zero: every qdisc and class on r-out has an empty backlog.
backlog_zero()
{
	local text

	text=$(in_ns r tc -s qdisc show dev "$R_OUT"; in_ns r tc -s class show dev "$R_OUT")
	if grep ' backlog ' <<<"$text" | grep -qv ' backlog 0b 0p '; then
		echo "backlog left: $(grep ' backlog ' <<<"$text" | xargs)"
		return 1
	fi
}

# run_corpus KIND NAME: the frames, the GSO TCP and the VLAN ping through
# whatever is set up on r-out; KIND is the qdisc that sees every packet.
run_corpus()
{
	local kind=$1 name=$2 p0 d0 p1 d1 t1 tb1 t2 tb2 res sent dropped avg i

	RET=0
	read -r p0 d0 _ <<<"$(qdisc_counts "$kind")"
	res=$(in_ns r python3 -S "$TOOLS/rawframes.py" --dev "$R_OUT" \
		--repeat "$REPEAT" --fuzz "$FUZZ" --seed "$RANDOM")
	check_err $? "rawframes.py failed: $res"
	sent=$(sed -n 's/.*"sent": \([0-9]*\).*/\1/p' <<<"$res")
	dropped=$(sed -n 's/.*"dropped": \([0-9]*\).*/\1/p' <<<"$res")
	# Let the shaper drain what was queued.
	for ((i = 0; i < 20; i++)); do
		backlog_zero >/dev/null && break
		sleep 0.5
	done
	read -r p1 d1 _ <<<"$(qdisc_counts "$kind")"
	log_info "$name: frames $res; $kind sent $((p1 - p0)) dropped $((d1 - d0))"
	# Every frame that reached the qdisc is sent or dropped (other
	# traffic, e.g. neighbour discovery, may add a few).
	[ $((p1 - p0 + d1 - d0)) -ge $((sent + dropped)) ] &&
		[ $((p1 - p0 + d1 - d0)) -le $((sent + dropped + 100)) ]
	check_err $? "$kind accounted $((p1 - p0)) sent + $((d1 - d0)) dropped for $((sent + dropped)) frames"

	# 64 KB GSO: TCP from the router itself (TSO on r-out).  The
	# qdisc counts a GSO skb as its segments, the veth as one packet:
	# the device's bytes per packet tell the skbs' size.
	read -r t1 tb1 <<<"$(dev_tx)"
	in_ns r iperf3 -c "$RCV_IP4" -p 5201 -t 2 -l 64K >/dev/null 2>&1
	check_err $? "GSO TCP from the router failed"
	read -r t2 tb2 <<<"$(dev_tx)"
	avg=$(( (tb2 - tb1) / (t2 - t1 > 0 ? t2 - t1 : 1) ))
	log_info "$name: TCP from r: $((t2 - t1)) skbs on r-out, $avg bytes each on average"
	[ "$avg" -gt 3000 ]
	check_err $? "no GSO packets seen ($avg bytes per skb on average)"

	in_ns r ping -q -c 20 -i 0.05 -s 1400 -W 2 10.10.10.2 >/dev/null
	check_err $? "ping over the VLAN device failed"
	in_ns r ping -6 -q -c 5 -i 0.05 -s 1400 -W 2 fd10::2 >/dev/null
	check_err $? "IPv6 ping over the VLAN device failed"

	for ((i = 0; i < 20; i++)); do
		backlog_zero >/dev/null && break
		sleep 0.5
	done
	res=$(backlog_zero)
	check_err $? "$res"
	in_ns s1 ping -q -c 2 -W 5 "$RCV_IP4" >/dev/null
	check_err $? "no longer forwarding"
	log_test "$name: malformed frames, GSO, VLAN"
}

require_command iperf3 python3 ping
modprobe -q 8021q 2>/dev/null
setup_topology 1 || exit $ksft_fail
# An 802.1Q device on top of the bottleneck: tagged skbs at r-out's qdisc.
if ! ip -n "$(nsname r)" link add link "$R_OUT" name r-out.10 type vlan id 10 ||
   ! ip -n "$(nsname rcv)" link add link eth0 name eth0.10 type vlan id 10; then
	echo "SKIP: no 802.1Q support"
	exit $ksft_skip
fi
ip -n "$(nsname r)" addr add 10.10.10.1/24 dev r-out.10
ip -n "$(nsname r)" addr add fd10::1/64 dev r-out.10 nodad
ip -n "$(nsname r)" link set r-out.10 up
ip -n "$(nsname rcv)" addr add 10.10.10.2/24 dev eth0.10
ip -n "$(nsname rcv)" addr add fd10::2/64 dev eth0.10 nodad
ip -n "$(nsname rcv)" link set eth0.10 up
start_iperf3_server 5201 persistent || exit $ksft_fail
# TCP autosizes TSO packets to about 1 ms at its pacing rate, 2 segments
# at 10 Mbit/s: ask for 44 (64 KB) at least.
in_ns r sysctl -qw net.ipv4.tcp_min_tso_segs=44

for key in src dst srcdst 5tuple; do
	setup_bottleneck_htb "$R_OUT" 10mbit dfs limit 100000 key $key ||
		exit $ksft_fail
	run_corpus dfs "dfs key $key"
done

for key in src dst srcdst 5tuple; do
	in_ns r tc qdisc del dev "$R_OUT" root 2>/dev/null
	setup_bottleneck_htb "$R_OUT" 10mbit stfq &&
	in_ns r tc class add dev "$R_OUT" parent 10: classid 10:1 stfq weight 3 &&
	in_ns r tc class add dev "$R_OUT" parent 10: classid 10:2 stfq weight 1 &&
	in_ns r tc filter add dev "$R_OUT" parent 10: protocol all prio 1 \
		lrufq cache 16 probability 1/2 threshold 3 key $key \
		high 10:2 low 10:1 || exit $ksft_fail
	run_corpus stfq "stfq + lrufq key $key"
	# Both classes saw traffic: the filter sorted the frames.
	RET=0
	hi=$(in_ns r tc -s class show dev "$R_OUT" classid 10:2 |
		awk '$1 == "Sent" { print $4; exit }')
	[ "${hi:-0}" -gt 0 ]
	check_err $? "nothing reached the high class"
	log_test "stfq + lrufq key $key: heavy flows classified high ($hi packets)"
done

# fkcheck's counters, "PACKETS HITS FALLBACKS MISMATCHES" (keys: a packet
# in a mode).
FKCHECK=/sys/module/sch_fkcheck/parameters
fkcheck_counts()
{
	cat "$FKCHECK/packets" "$FKCHECK/hits" "$FKCHECK/fallbacks" \
		"$FKCHECK/mismatches" | xargs
}

in_ns r tc qdisc del dev "$R_OUT" root 2>/dev/null
if [ -r "$FKCHECK/mismatches" ] &&
   setup_bottleneck_htb "$R_OUT" 10mbit fkcheck; then
	read -r k0 h0 f0 m0 <<<"$(fkcheck_counts)"
	run_corpus fkcheck "fkcheck"
	read -r k1 h1 f1 m1 <<<"$(fkcheck_counts)"
	RET=0
	log_info "fkcheck: $((k1 - k0)) packets, keys: $((h1 - h0)) by the fast path, $((f1 - f0)) left to the dissector, $((m1 - m0)) different"
	[ $((k1 - k0)) -gt 0 ]
	check_err $? "fkcheck saw no packet"
	[ "$m1" -eq "$m0" ]
	check_err $? "$((m1 - m0)) keys of the fast path differ from the dissector's (kernel log)"
	[ $((h1 - h0)) -gt 0 ]
	check_err $? "the fast path built no key"
	[ $((f1 - f0)) -gt 0 ]
	check_err $? "the fast path left no packet to the dissector"
	log_test "fkcheck: the fast path's keys are the dissector's"
else
	RET=0
	check_err 1 "no fkcheck test qdisc (make test-modules)"
	log_test "fkcheck: the fast path's keys are the dissector's"
fi

ksft_exit
