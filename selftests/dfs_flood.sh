#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A UDP flood at twice the link rate against 8 TCP flows from other hosts,
# through a 10 Mbit/s bottleneck.  With dfs as the bottleneck's qdisc the
# flood source is marked malicious and cut off, and the TCP flows share the
# link fairly, with sched fifo and with sched fq (the default, its TCP
# ECN-capable, so marked, not dropped); the same run with pfifo shows the
# flood winning, so DFS is what makes the difference.

source "$(dirname "$0")/dfs_scenario.sh"

SECS=${SECS:-12}
OUT=${OUT:-$(dirname "$0")/../build/selftests/dfs_flood}

require_command iperf3 python3
setup_topology 9 || exit $ksft_fail

summary()
{
	local dir=$1 udp tcp sum jain util

	udp=$(flood_udp_bps "$dir")
	tcp=$(flood_tcp_bps "$dir" | xargs)
	sum=$(echo "$tcp" | awk '{ for (i = 1; i <= NF; i++) s += $i; print s }')
	jain=$(jain_index $tcp)
	util=$(flood_util "$dir")
	log_info "$2: udp $((udp / 1000)) kbit/s, tcp total $((sum / 1000)) kbit/s, jain $jain, utilisation $util"
	log_info "$2: tcp kbit/s: $(for x in $tcp; do printf '%d ' $((x / 1000)); done)"
	UDP=$udp TCP_SUM=$sum JAIN=$jain UTIL=$util
}

# check_flood_cut DIR, on the figures "summary DIR" set: the flood source
# is still listed as malicious at the end, its goodput is under 5% of the
# link, the TCP flows share fairly, and CPR (on by default) never held a
# TCP host.
check_flood_cut()
{
	local held

	tail -n 1 "$1/flags" | grep -q malicious
	check_err $? "the flood source is not listed as malicious at the end"
	held=$(flood_cpr_held "$1" | tr ' ' '\n' | grep -vxF "${SND_IP4[1]}" | xargs)
	[ -z "$held" ]
	check_err $? "TCP hosts held for their CPR: $held"
	# What CPR saw before it held the first of them, for the log.
	for ip in ${held%% *}; do
		log_info "CPR samples around the hold of $ip:"
		flood_cpr_trace "$1" "$ip" | sed 's/^/	/'
	done
	[ "$UDP" -lt $((LINK_BPS / 20)) ]
	check_err $? "flood goodput $UDP bit/s is not under 5% of the link"
	awk -v j="$JAIN" 'BEGIN { exit !(j >= 0.9) }'
	check_err $? "TCP Jain's index $JAIN < 0.9"
}

RET=0
flood_run "$OUT/dfs" "$SECS" "20M:$SECS" dfs limit 100000 sched fifo
check_err $? "traffic did not run"
summary "$OUT/dfs" dfs
log_info "dfs: flood flow flags (seconds flags, at each change): $(flood_flag_changes "$OUT/dfs")"
check_flood_cut "$OUT/dfs"
awk -v u="$UTIL" 'BEGIN { exit !(u >= 0.85) }'
check_err $? "link utilisation $UTIL < 0.85"
log_test "dfs sched fifo: UDP flood cut off, TCP shares the link fairly"

# The default, sched fq, with ECN-capable TCP: its signals are CE marks
# (CoDel's and DFS's own), not drops, and the flood is still cut.  The
# drops of sched fq's non-ECN TCP are dfs_hog.sh's and lab_classify.sh's.
RET=0
for ((i = 2; i <= NUM_SENDERS; i++)); do
	in_ns "s$i" sysctl -qw net.ipv4.tcp_ecn=1
done
flood_run "$OUT/dfs-fq" "$SECS" "20M:$SECS" dfs limit 100000
check_err $? "traffic did not run"
summary "$OUT/dfs-fq" "dfs sched fq, ECN TCP"
log_info "dfs sched fq: flood flow flags: $(flood_flag_changes "$OUT/dfs-fq")"
read -r marks dwfs <<<"$(flood_xstat "$OUT/dfs-fq" ecn_marked drop_wfs)"
log_info "dfs sched fq, ECN TCP: ecn_marked $marks, drop_wfs $dwfs"
[ "$marks" -gt 0 ]
check_err $? "no ECN-capable packet was CE marked"
check_flood_cut "$OUT/dfs-fq"
awk -v u="$UTIL" 'BEGIN { exit !(u >= 0.85) }'
check_err $? "link utilisation $UTIL < 0.85"
log_test "dfs (sched fq), ECN TCP: flood cut off, TCP marked and fair"
for ((i = 2; i <= NUM_SENDERS; i++)); do
	in_ns "s$i" sysctl -qw net.ipv4.tcp_ecn=2
done

RET=0
# A TCP flow the flood keeps from connecting at all is the flood winning.
STARVED_OK=1 flood_run "$OUT/pfifo" "$SECS" "20M:$SECS" pfifo limit 70
check_err $? "traffic did not run"
summary "$OUT/pfifo" pfifo
[ "$UDP" -gt "$TCP_SUM" ]
check_err $? "with pfifo the flood ($UDP) did not win against TCP ($TCP_SUM)"
log_test "pfifo: the same flood wins (DFS is the cause)"

exit $EXIT_STATUS
