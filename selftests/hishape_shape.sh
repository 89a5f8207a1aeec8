#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_hishape: ranges shaped each to its own rate, through a 10 Mbit/s TBF
# whose child is hishape.  Four senders, UDP at 4 Mbit/s but s3 at 2:
#	s1 10.1.0.0/24 at 1 Mbit/s, s2 10.2.0.0-10.2.0.255 at 2 Mbit/s,
#	s3 in no range, s4 over IPv6 only, fd00:4::/64 at 1 Mbit/s.
# Measured at the receiver (flower counters of IP bytes; the ranges' rates
# count frames, 1.1% more than the IP bytes of these 1200-byte datagrams,
# so a range's 1 Mbit/s is 0.989 at the meter, and 5% of it is judged
# around that: 0.94 to 1.04):
#	shaping        each range within 5% of its rate, s3 unlimited
#	a flood        s3 at 20 Mbit/s from then on: the ranges keep their
#	               rates within 5%, IPv6's neighbour discovery too, and
#	               s3 takes the rest of the link
#	reload         three new tables under traffic: s1 at 1.5 Mbit/s from
#	               then, and not one packet lost of a source in no range
#	               (counted at both ends)
#	100,000 ranges loaded under traffic, its time reported
#	bad tables     refused with the line, the table serving unchanged
#	default drop   s3 cut; ARP, IPv6 neighbour discovery and the
#	               ranges' traffic unaffected
#	limit          lowered under traffic: queues trimmed, still shaping
#	delete         under traffic, with the big table, and rmmod with the
#	               senders still going (the kernel log is checked after
#	               the run)

source "$(dirname "$0")/lib.sh"

TOOLS=$(cd "$(dirname "$0")/../tools" && pwd)
SECS=${SECS:-5}
TMP=$(mktemp -d)

# hs_stat FIELD...: fields of hishape's options or xstats (tc -j prints
# the xstats beside the generic stats), from one tc -j dump, on one line.
hs_stat()
{
	in_ns r tc -j -s -d qdisc show dev "$R_OUT" | python3 -S -c '
import json, sys
for q in json.load(sys.stdin):
    if q["kind"] == "hishape":
        print(*(q.get("options", {}).get(f, q.get(f, -1)) for f in sys.argv[1:]))' "$@"
}

# udp_send NS DST PORT RATE: a UDP sender behind the gate.
udp_send()
{
	gate_arm
	in_ns "$1" python3 -S "$TOOLS/udp_cbr.py" send --dst "$2" --port "$3" \
		--rate "$4" --time 3600 "${GATE_ARGS[@]}" >/dev/null &
	SENDER_PIDS+=($!)
}

# rates_over SECONDS: "R1 R2 R3 R4" in Mbit/s over the next SECONDS.
rates_over()
{
	local a b

	a=$(rx_bytes)
	sleep "$1"
	b=$(rx_bytes)
	rx_rates "$a" "$b" | awk '{ for (i = 1; i <= NF; i++)
		printf "%.2f%s", $i / 1e6, (i < NF ? " " : "\n") }'
}

# within X LO HI
within()
{
	awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
}

cat > "$TMP/ranges" <<EOF
# the test's table: two IPv4 ranges (a prefix, an interval), one IPv6
10.2.0.0-10.2.0.255	2mbit		# s2
10.1.0.0/24		1mbit burst 3000
fd00:4::/64		1mbit		# s4, IPv6 only
EOF
sed 's/^10.1.0.0\/24.*/10.1.0.0\/24 1500kbit/' "$TMP/ranges" > "$TMP/ranges2"

require_command python3
setup_topology 4 || exit $ksft_fail
rx_meter_setup || exit $ksft_fail

RET=0
setup_bottleneck "$R_OUT" 10mbit hishape ranges "$TMP/ranges"
check_err $? "hishape under tbf, with a table of 3 ranges"
v=$(hs_stat ranges4 ranges6 limit pass_limit match default)
[ "$v" = "2 1 32 1000 src pass" ]
check_err $? "ranges4 ranges6 limit pass_limit match default: $v"
log_test "hishape: a table of IPv4 and IPv6 ranges, defaults"

# senders S3RATE: the four senders, s3 at S3RATE, the others at 4 Mbit/s,
# from a common start; the ones running before are stopped.
senders()
{
	stop_udp_cbr
	[ ${#SENDER_PIDS[@]} -eq 0 ] || wait "${SENDER_PIDS[@]}" 2>/dev/null
	SENDER_PIDS=()
	gate_init "$TMP/gate"
	udp_send s1 "$RCV_IP4" 9001 4M
	udp_send s2 "$RCV_IP4" 9002 4M
	udp_send s3 "$RCV_IP4" 9003 "$1"
	udp_send s4 "$RCV_IP6" 9004 4M
	gate_open 120000
}

RET=0
SENDER_PIDS=()
senders 2M
check_err $? "the senders did not start"
sleep 1
read -r r1 r2 r3 r4 <<<"$(rates_over "$SECS")"
log_info "Mbit/s: s1 $r1 (1) s2 $r2 (2) s3 $r3 (no range, 2 offered) s4 $r4 (1, IPv6)"
within "$r1" 0.94 1.04
check_err $? "s1 at $r1 Mbit/s, not 1 within 5%"
within "$r2" 1.88 2.08
check_err $? "s2 at $r2 Mbit/s, not 2 within 5%"
within "$r4" 0.94 1.04
check_err $? "s4 (IPv6) at $r4 Mbit/s, not 1 within 5%"
within "$r3" 1.7 2.3
check_err $? "s3 (no range) at $r3 Mbit/s, not its 2 offered"
v=$(hs_stat lookups passed conforming shaped drop_range)
for f in $v; do
	[ "$f" -gt 0 ] 2>/dev/null
	check_err $? "lookups passed conforming shaped drop_range: $v"
done
log_info "$(in_ns r tc -s -d qdisc show dev "$R_OUT" | sed -n '/hishape/,$p' | tr -s ' ' | tr '\n' ' ')"
log_test "hishape: each range at its rate, the rest unlimited"

RET=0
# s3 floods at twice the link from here on: the pass queue is full, the
# ranges' packets (4 Mbit/s in all, 4.5 after the reload, under the half
# of the link they are sure of) must still leave at their rates.
senders 20M
check_err $? "the senders did not start"
sleep 1
read -r r1 r2 r3 r4 <<<"$(rates_over "$SECS")"
log_info "Mbit/s under s3's 20 Mbit/s flood: s1 $r1 s2 $r2 s3 $r3 s4 $r4"
within "$r1" 0.94 1.04 && within "$r2" 1.88 2.08 && within "$r4" 0.94 1.04
check_err $? "a range not within 5% of its rate under the flood"
# The link less the ranges' 4 Mbit/s and the headers is 5.9 for s3.
within "$r3" 5.3 6.5
check_err $? "s3 got $r3 Mbit/s, not the rest of the link"
v=$(hs_stat drop_pass)
[ "$v" -gt 0 ]
check_err $? "the flood did not fill the pass queue (drop_pass $v)"
log_test "hishape: a flood from no range does not hold back the ranges"

RET=0
# s3 back to 2 Mbit/s, under what the ranges leave it, and a second
# sender in s3 counted at both ends: 1 Mbit/s for 8 s, three tables
# loaded while it sends.  A packet of it missing was lost to a reload.
senders 2M
check_err $? "the senders did not start"
sleep 1
gate_init "$TMP/gate-count"
gate_arm
in_ns rcv python3 -S "$TOOLS/udp_cbr.py" sink --port 9103 --time 14 \
	--out "$TMP/count.json" "${GATE_ARGS[@]}" &
count_sink=$!
gate_arm
in_ns s3 python3 -S "$TOOLS/udp_cbr.py" send --dst "$RCV_IP4" --port 9103 \
	--rate 1M --time 8 "${GATE_ARGS[@]}" > "$TMP/count-sent.json" &
count_send=$!
drops0=$(hs_stat drop_pass)
gate_open 120000
check_err $? "the counted sender did not start"
t0=$EPOCHREALTIME
for t in ranges2 ranges ranges2; do
	in_ns r tc qdisc change dev "$R_OUT" parent 1:1 handle 10: hishape ranges "$TMP/$t"
	check_err $? "change of the table to $t under traffic"
done
log_info "3 reloads of 3 ranges: $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s"
v=$(hs_stat loads)
[ "$v" = 4 ]
check_err $? "loads $v, not 4"
wait "$count_send" "$count_sink"
read -r sent got <<<"$(python3 -S -c '
import json, sys
sent = json.load(open(sys.argv[1]))["sent_packets"]
print(sent, sum(json.load(open(sys.argv[2]))["bytes_per_sec"]) // 1200)' \
	"$TMP/count-sent.json" "$TMP/count.json")"
drops1=$(hs_stat drop_pass)
log_info "counted sender in no range: $sent sent, $got received; drop_pass $drops0 -> $drops1"
[ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$sent" = "$got" ]
check_err $? "packets of a source in no range lost across the reloads: $sent sent, $got received"
[ "$drops0" = "$drops1" ]
check_err $? "the pass queue dropped ($drops0 -> $drops1)"
read -r r1 r2 r3 r4 <<<"$(rates_over "$SECS")"
log_info "Mbit/s after the reload: s1 $r1 (now 1.5) s2 $r2 s4 $r4"
within "$r1" 1.3 1.7
check_err $? "s1 at $r1 Mbit/s, not its new 1.5"
within "$r2" 1.7 2.3
check_err $? "s2 at $r2 Mbit/s after the reload"
log_test "hishape: new tables under traffic, none of the rest lost"

RET=0
# 100,000 ranges: /30s over 20.0.0.0/8 and the test's three.
python3 -S - "$TMP/ranges2" > "$TMP/big" <<'EOF'
import sys
print(open(sys.argv[1]).read())
for i in range(100000):
    a = (20 << 24) + 4 * i
    print("%d.%d.%d.%d/30 %dkbit" % (a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255,
                                      64 + i % 1000))
EOF
t0=$EPOCHREALTIME
in_ns r tc qdisc change dev "$R_OUT" parent 1:1 handle 10: hishape ranges "$TMP/big"
check_err $? "loading 100,003 ranges"
secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
log_info "100,003 ranges loaded in $secs s (tc reading, sorting and 98 netlink messages; the emulator's time)"
read -r v mem <<<"$(hs_stat ranges4 memory_usage)"
[ "$v" = 100002 ]
check_err $? "ranges4 $v, not 100002"
log_info "memory_usage $mem bytes"
sleep 1
read -r r1 r2 r3 r4 <<<"$(rates_over "$SECS")"
log_info "Mbit/s with 100,003 ranges: s1 $r1 (1.5) s2 $r2 (2) s4 $r4 (1)"
within "$r1" 1.3 1.7 && within "$r2" 1.7 2.3 && within "$r4" 0.85 1.15
check_err $? "the ranges lost their rates in a table of 100,003"
log_test "hishape: 100,000 ranges loaded under traffic, still shaping"

RET=0
loads=$(hs_stat loads)
printf '10.9.0.0/16 1mbit\n10.9.1.0/24 1mbit\n' > "$TMP/overlap"
out=$(in_ns r tc qdisc change dev "$R_OUT" parent 1:1 handle 10: hishape ranges "$TMP/overlap" 2>&1)
[ $? -ne 0 ] && grep -q "overlap:2: overlaps the range of line 1" <<<"$out"
check_err $? "overlapping ranges: \"$out\""
printf '10.9.0.0/16 1mbit\n10.9.0.0/33 1mbit\n' > "$TMP/badlen"
out=$(in_ns r tc qdisc change dev "$R_OUT" parent 1:1 handle 10: hishape ranges "$TMP/badlen" 2>&1)
[ $? -ne 0 ] && grep -q "badlen:2: prefix length out of range" <<<"$out"
check_err $? "bad prefix: \"$out\""
printf '10.9.0.0/16 fast\n' > "$TMP/badrate"
out=$(in_ns r tc qdisc change dev "$R_OUT" parent 1:1 handle 10: hishape ranges "$TMP/badrate" 2>&1)
[ $? -ne 0 ] && grep -q "badrate:1: rate is not" <<<"$out"
check_err $? "bad rate: \"$out\""
v=$(hs_stat loads ranges4)
[ "$v" = "$loads 100002" ]
check_err $? "a refused table changed the one serving: loads ranges4 $v"
out=$(in_ns r tc qdisc change dev "$R_OUT" parent 1:1 handle 10: hishape limit 0 2>&1)
[ $? -ne 0 ]
check_err $? "limit 0 accepted"
log_test "hishape: bad tables and values refused, the table serving kept"

RET=0
in_ns r tc qdisc change dev "$R_OUT" parent 1:1 handle 10: hishape default drop
check_err $? "default drop"
read -r d0 c0 <<<"$(hs_stat drop_default control)"
# The router resolves rcv anew, ARP and ND through the qdisc: the ranges'
# traffic keeps flowing only if they pass.
in_ns r ip neigh flush dev "$R_OUT"
in_ns r ip -6 neigh flush dev "$R_OUT"
sleep 1
read -r r1 r2 r3 r4 <<<"$(rates_over "$SECS")"
log_info "Mbit/s with default drop: s1 $r1 s2 $r2 s3 $r3 (cut) s4 $r4"
within "$r3" 0 0.05
check_err $? "s3, in no range, still at $r3 Mbit/s"
within "$r1" 1.3 1.7 && within "$r2" 1.7 2.3
check_err $? "the IPv4 ranges lost their rates with default drop: ARP dropped?"
within "$r4" 0.85 1.15
check_err $? "the IPv6 range lost its rate with default drop: neighbour discovery dropped?"
read -r d1 c1 <<<"$(hs_stat drop_default control)"
[ "$d1" -gt "$d0" ]
check_err $? "drop_default did not grow"
[ "$c1" -gt "$c0" ]
check_err $? "no ARP or ND through the control queue ($c0 -> $c1)"
log_test "hishape: default drop cuts what is in no range, not ARP or ND"

RET=0
in_ns r tc qdisc change dev "$R_OUT" parent 1:1 handle 10: hishape limit 2 default pass
check_err $? "limit 2 under traffic"
v=$(hs_stat limit)
[ "$v" = 2 ]
check_err $? "limit shown as $v"
sleep 1
read -r r1 r2 r3 r4 <<<"$(rates_over "$SECS")"
log_info "Mbit/s with limit 2: s1 $r1 s2 $r2 s4 $r4"
within "$r1" 1.2 1.7 && within "$r2" 1.5 2.3
check_err $? "the ranges are not at their rates with limit 2"
log_test "hishape: limit lowered under traffic"

RET=0
# with its 100,003 ranges and packets queued, under traffic
in_ns r tc qdisc del dev "$R_OUT" root
check_err $? "delete"
# and the module removed while the senders go on, then back for the
# tests after this one (the kernel log is checked after the run)
module_unused sch_hishape
rmmod sch_hishape
check_err $? "rmmod under traffic (refcnt $(cat /sys/module/sch_hishape/refcnt 2>/dev/null))"
insmod "$(ko_path sch_hishape)"
check_err $? "insmod $(ko_path sch_hishape) again"
stop_udp_cbr "${SENDER_PIDS[@]}"
log_test "hishape: delete and rmmod under traffic"

rm -rf "$TMP"
exit $EXIT_STATUS
