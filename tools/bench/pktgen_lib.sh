# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pktgen helpers for tools/bench (sourced, in the test VM, as root).
#
# One pktgen device, on kpktgend_0, sends IPv4/UDP packets in
# "xmit_mode queue_xmit": every packet goes through dev_queue_xmit(), so
# through the root qdisc of the device, which is what is measured.  Each
# packet is a fresh skb (clone_skb 0): a qdisc may hold it, so it must not
# be sent again while queued.
#
#	pg_setup DEV               load pktgen, bind DEV to kpktgend_0
#	pg_sources FIRST N [rnd]   sources FIRST .. FIRST+N-1 (10.x.y.z space),
#	                           in order, or at random with "rnd"
#	pg_run SECONDS             send for SECONDS, print "packets usec"
#	                           (offered: sent + refused by the qdisc)
#	pg_send N                  send until N packets were offered
#	pg_teardown

PG=/proc/net/pktgen
PG_DEV=

pg_set() {
	local file=$1; shift

	echo "$*" > "$file" || { echo "pktgen: '$*' refused by $file" >&2; return 1; }
}

pg_setup() {
	PG_DEV=$1
	modprobe pktgen || return 1
	pg_set $PG/kpktgend_0 rem_device_all || return 1
	pg_set $PG/kpktgend_0 "add_device $PG_DEV" || return 1
	local d=$PG/$PG_DEV
	pg_set "$d" "xmit_mode queue_xmit" &&
	pg_set "$d" "clone_skb 0" &&
	pg_set "$d" "count 0" &&
	pg_set "$d" "delay 0" &&
	pg_set "$d" "pkt_size 64" &&
	pg_set "$d" "dst 10.255.0.1" &&
	pg_set "$d" "dst_mac 02:00:00:00:00:01" &&
	pg_set "$d" "udp_src_min 9" && pg_set "$d" "udp_src_max 9" &&
	pg_set "$d" "udp_dst_min 9" && pg_set "$d" "udp_dst_max 9"
}

# Dotted quad of 10.0.0.0 + N.
pg_ip() {
	local n=$(( $1 ))

	echo "10.$(( (n >> 16) & 255 )).$(( (n >> 8) & 255 )).$(( n & 255 ))"
}

pg_sources() {
	local first=$1 n=$2 mode=${3:-seq} d=$PG/$PG_DEV last=$(( $1 + $2 - 1 ))

	# In order, src_max is the last source; at random it is one past it
	# (pktgen draws from [src_min, src_max)), except for one source.
	[ "$mode" = rnd ] && [ "$n" -gt 1 ] && last=$(( first + n ))
	pg_set "$d" "src_min $(pg_ip "$first")" &&
	pg_set "$d" "src_max $(pg_ip "$last")" || return 1
	if [ "$mode" = rnd ]; then
		pg_set "$d" "flag IPSRC_RND"
	else
		pg_set "$d" "flag !IPSRC_RND"
	fi
}

# Packets offered so far in the current or last run: sent + errors
# (NET_XMIT_DROP/CN from the qdisc count as errors in queue_xmit mode).
pg_offered() {
	awk '/pkts-sofar:/ { print $2 + $4; exit }' "$PG/$PG_DEV"
}

pg_start() {
	echo start > $PG/pgctrl &
	PG_PID=$!
	# The run has begun once the device is in the running list.
	local i
	for i in $(seq 100); do
		grep -q "Running: $PG_DEV" $PG/kpktgend_0 && return 0
		sleep 0.05
	done
	return 0
}

pg_stop() {
	echo stop > $PG/pgctrl
	wait "$PG_PID" 2>/dev/null
}

pg_run() {
	local secs=$1

	pg_start
	sleep "$secs"
	pg_stop
	# "Result: OK: 2001234(c...+d...) usec, 123456 (64byte,0frags)"
	local usec
	usec=$(sed -n 's/^Result: OK: \([0-9]*\)(.*/\1/p' "$PG/$PG_DEV")
	echo "$(pg_offered) ${usec:-0}"
}

pg_send() {
	local n=$1 deadline=$(( SECONDS + ${2:-600} ))

	pg_start
	while [ "$(pg_offered)" -lt "$n" ] && [ $SECONDS -lt $deadline ]; do
		sleep 0.2
	done
	pg_stop
}

pg_teardown() {
	[ -e $PG/kpktgend_0 ] && echo rem_device_all > $PG/kpktgend_0
	PG_DEV=
}
