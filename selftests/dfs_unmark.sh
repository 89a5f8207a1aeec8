#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A flood source that falls back below its fair rate is unmarked: s1 sends
# UDP at twice the link rate, is marked malicious, then drops to 300 kbit/s
# (the fair rate of 9 flows on 10 Mbit/s is about 1.1 Mbit/s) and must be
# unmarked within 10 s, while 8 TCP flows keep running.  Both are timed
# from the sender's own phase changes, not from the script's start.

source "$(dirname "$0")/dfs_scenario.sh"

FLOOD=${FLOOD:-6}
CALM=${CALM:-14}
OUT=${OUT:-$(dirname "$0")/../build/selftests/dfs_unmark}

require_command iperf3 python3
setup_topology 9 || exit $ksft_fail

RET=0
flood_run "$OUT" $((FLOOD + CALM)) "20M:$FLOOD,300k:$CALM" dfs limit 100000
check_err $? "traffic did not run"
log_info "flags of s1's flow (seconds flags, at each change): $(flood_flag_changes "$OUT")"
# When the flood began and when its rate fell, on the flags' clock: the
# sender records its phases, and its start-up under emulation takes
# seconds that the test must not count against DFS.
read -r start fall < <(python3 -S -c '
import json, sys
t0 = float(open(sys.argv[1]).read())
p = json.load(open(sys.argv[2]))["phase_starts"]
print("%.1f %.1f" % (p[0] - t0, p[1] - t0))' "$OUT/t0" "$OUT/udp_send.json") ||
	{ start=0; fall=$FLOOD; check_err 1 "no phase times from the sender"; }
log_info "the flood ran from ${start} s to ${fall} s"
# Marked while it flooded: in a sample from the flood's start up to the
# first one after its rate fell (at 300 kbit/s nothing is marked anew).
awk -v s="$start" -v f="$fall" '$1 >= s && /malicious/ { m = 1 }
				 $1 >= f { exit !m } END { exit !m }' "$OUT/flags"
check_err $? "the flood was not marked malicious while it flooded"
# Seconds after the rate fell until the flow was seen no longer malicious.
unmark=$(awk -v f="$fall" '$1 >= f && !/malicious/ { printf "%.1f", $1 - f; found = 1; exit }
			   END { if (!found) print 99 }' "$OUT/flags")
log_info "unmarked ${unmark} s after the rate fell"
awk -v u="$unmark" 'BEGIN { exit !(u <= 10) }'
check_err $? "not unmarked within 10 s"
# Not marked again once unmarked, at 300 kbit/s.
awk -v t="$fall" -v u="$unmark" '$1 > t + u && /malicious/ { bad = 1 } END { exit !bad }' "$OUT/flags"
check_fail $? "marked again while sending below its fair rate"
log_test "dfs: a flood source back under its fair rate is unmarked"

exit $EXIT_STATUS
