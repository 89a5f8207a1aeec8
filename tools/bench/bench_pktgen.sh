# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The benchmark's use of pktgen (sourced, in the test VM, as root), on the
# selftests' pktgen helpers (selftests/pktgen_lib.sh), in the VM's own
# namespace.
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
#	pg_sofar                   PG_SOFAR: packets offered so far, of the
#	                           running device, without a fork
#	now_us                     NOW_US: the guest's clock in us, a builtin
#	pg_teardown
#	pg_machine                 the run's date, kernel, CPU and vCPUs, as
#	                           "key: value" lines of a meta.txt

source "$(dirname "${BASH_SOURCE[0]}")/../../selftests/pktgen_lib.sh"

PG_DEV=
# A descriptor whose read never returns data: "read -t" on it is a sleep
# without an exec (pg_run).
PG_SLEEP_FD=

pg_machine() {
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "kernel: $(uname -r)"
	echo "cpu: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)"
	echo "vcpus: $(nproc)"
}

pg_setup() {
	local fifo

	PG_DEV=$1
	# once, in the shell whose $(pg_run) subshells inherit it
	if [ -z "$PG_SLEEP_FD" ]; then
		fifo=$(mktemp -u) && mkfifo "$fifo" &&
			exec {PG_SLEEP_FD}<>"$fifo" && rm -f "$fifo" || return 1
	fi
	# once: every modprobe is an exec the emulator pays for
	[ -d "$PG_DIR" ] || modprobe pktgen || return 1
	pg_reset "" && pg_add "" "$PG_DEV" 0 &&
	pg_set "" "$PG_DEV" "xmit_mode queue_xmit" "clone_skb 0" "count 0" \
		"delay 0" "pkt_size 64" "dst 10.255.0.1" \
		"dst_mac 02:00:00:00:00:01" "udp_src_min 9" "udp_src_max 9" \
		"udp_dst_min 9" "udp_dst_max 9"
}

# Dotted quad of 10.0.0.0 + N.
pg_ip() {
	local n=$(( $1 ))

	echo "10.$(( (n >> 16) & 255 )).$(( (n >> 8) & 255 )).$(( n & 255 ))"
}

pg_sources() {
	local first=$1 n=$2 mode=${3:-seq} last=$(( $1 + $2 - 1 ))

	# In order, src_max is the last source; at random it is one past it
	# (pktgen draws from [src_min, src_max)), except for one source.
	[ "$mode" = rnd ] && [ "$n" -gt 1 ] && last=$(( first + n ))
	pg_set "" "$PG_DEV" "src_min $(pg_ip "$first")" \
		"src_max $(pg_ip "$last")" || return 1
	if [ "$mode" = rnd ]; then
		pg_set "" "$PG_DEV" "flag IPSRC_RND"
	else
		pg_set "" "$PG_DEV" "flag !IPSRC_RND"
	fi
}

# The timed run runs no program: pktgen's clock counts from its start to
# its stop whatever else the one vCPU runs, and under icount the exec of a
# sleep(1), grep or sh in the window (millions of instructions) would be
# charged to the packets, 3% of a fifth of a second's run.  Here only bash
# builtins run in it: the start is written by a subshell (a fork) that
# pktgen blocks until the stop, and the check that the device runs is a
# read of its thread's file.
pg_run() {
	local secs=$1 usec line i

	(pg_write "" "$PG_DIR/pgctrl" start) &
	for ((i = 0; i < 1000; i++)); do
		while IFS= read -r line; do
			[[ $line == Running:* && "$line " == *" $PG_DEV "* ]] &&
				break 2
		done < "$PG_DIR/kpktgend_0"
		read -r -t 0.005 -u "$PG_SLEEP_FD"
	done
	read -r -t "$secs" -u "$PG_SLEEP_FD"
	pg_write "" "$PG_DIR/pgctrl" stop
	wait $!
	usec=$(pg_usec "" "$PG_DEV")
	echo "$(pg_sent "" "$PG_DEV") ${usec:-0}"
}

pg_send() {
	local n=$1 deadline=$(( SECONDS + ${2:-600} ))

	pg_start "" "$PG_DEV"
	while [ "$(pg_sent "" "$PG_DEV")" -lt "$n" ] && [ $SECONDS -lt $deadline ]; do
		sleep 0.2
	done
	pg_stop ""
}

pg_teardown() {
	[ -e "$PG_DIR/kpktgend_0" ] && pg_reset ""
	PG_DEV=
}

# pg_sofar: PG_SOFAR, the packets pktgen has offered so far (sent and
# refused), read from its live count with bash builtins only.
pg_sofar() {
	local k a b c rest

	PG_SOFAR=
	while read -r k a b c rest; do
		if [ "$k" = "pkts-sofar:" ]; then
			PG_SOFAR=$(( a + c ))
			return 0
		fi
	done < "$PG_DIR/$PG_DEV"
	return 1
}

# The guest's clock in microseconds, a bash builtin.
now_us() {
	NOW_US=${EPOCHREALTIME/[.,]/}
}
