#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Attackers that try to stay under DFS's radar, in the dfs_flood.sh
# scenario (10 Mbit/s TBF, dfs limit 100000 as its child, s1 attacks,
# s2..s9 run one TCP flow each; the fair rate is about 1.1 Mbit/s):
#	toggle   UDP alternating each second between 0.8 and 1.6 Mbit/s,
#	         just under and over the fair rate
#	pulse    20 Mbit/s for 0.3 s out of every second (on-off)
#	rotate   20 Mbit/s from a new source address every second (40
#	         addresses on s1, round robin)
# Asserted: the TCP flows together keep at least half of the link in each
# case (the attacker may take its share, not the link), and nothing
# crashes.  The attacker's goodput and TCP's Jain's index are reported:
# they are what DFS does, not pass/fail.

source "$(dirname "$0")/dfs_scenario.sh"

SECS=${SECS:-10}
OUT=${OUT:-$(dirname "$0")/../build/selftests/dfs_evasion}

# repeat PATTERN TIMES: PATTERN joined by commas, TIMES times.
repeat()
{
	local i s=$1

	for ((i = 1; i < $2; i++)); do s+=",$1"; done
	echo "$s"
}

case_run()
{
	local name=$1 schedule=$2 udp tcp jain util share mal dmal dwfs flows

	RET=0
	flood_run "$OUT/$name" "$SECS" "$schedule" dfs limit 100000
	check_err $? "traffic did not run"
	udp=$(flood_udp_bps "$OUT/$name")
	mapfile -t tcp < <(flood_tcp_bps "$OUT/$name")
	util=$(flood_util "$OUT/$name")
	jain=$(jain_index "${tcp[@]}")
	share=$(echo "${tcp[@]}" | awk -v l="$LINK_BPS" '{
		for (i = 1; i <= NF; i++) s += $i; printf "%.3f", s / l }')
	log_info "$name: attacker $((udp / 1000)) kbit/s, TCP share $share of the link, Jain $jain, utilisation $util"
	log_info "$name: TCP kbit/s: $(echo "${tcp[@]}" | awk '{ for (i = 1; i <= NF; i++) printf "%d ", $i / 1000 }')"
	read -r mal dmal dwfs flows <<<"$(flood_xstat "$OUT/$name" malicious drop_malicious drop_wfs flows)"
	log_info "$name: malicious $mal, drop_malicious $dmal, drop_wfs $dwfs, flows $flows"
	awk -v s="$share" 'BEGIN { exit !(s >= 0.5) }'
	check_err $? "TCP kept only $share of the link"
	log_test "dfs against $name: TCP keeps $share of the link"
}

require_command iperf3 python3
setup_topology 9 || exit $ksft_fail

# 40 more addresses on s1 for the rotating attacker; the router reaches
# them on s1's subnet.
b=""
srcs=""
for ((i = 10; i < 50; i++)); do
	b+="addr add 10.1.0.$i/24 dev eth0"$'\n'
	srcs+="${srcs:+,}10.1.0.$i"
done
ip -n "$(nsname s1)" -batch - <<<"$b" || exit $ksft_fail

# The patterns last past the TCP flows, however late those start (the
# measured window starts with the last one): flood_run stops the attacker.
run=$((SECS + TAIL + 60))
case_run toggle "$(repeat "0.8M:1,1.6M:1" $((run / 2)))"
case_run pulse "$(repeat "20M:0.3,0:0.7" "$run")"
FLOOD_ARGS="--src $srcs --rotate 1" case_run rotate "20M:$SECS"

ksft_exit
