#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# LRU-FQ with a cache larger than the number of flows: 8 TCP flows and 2
# UDP floods at the link rate each, through the 10 Mbit/s bottleneck,
# STFQ high:low 1:1, lrufq cache 12, 64 and 1024 (LRUFQ_CACHES picks
# others): room for all 10 flows, so nothing is ever evicted.
#
# With the paper's count since admission (window 0) every TCP flow
# crosses the threshold in time and joins the floods in the high class:
# TCP ends with a few percent of the link.  That run is the control: it
# shows the scenario still defeats the paper's counter.  It runs at the
# first cache size only: with every flow cached and none evicted, the
# caches hold the same flows and count the same packets at any size.
# With the default window (125 packets a second) only the floods are
# heavy, and the TCP flows together must get at least 40% of the link at
# every size, as lrufq_flood.sh asks of the paper's setting with a cache
# of 6 (shares of what the link carried: lrufq_summary).

source "$(dirname "$0")/lrufq_scenario.sh"

SECS=${SECS:-15}
OUT=${OUT:-$(dirname "$0")/../build/selftests/lrufq_window}
NUDP=2

require_command iperf3 python3
setup_topology 10 || exit $ksft_fail

run()
{
	local name=$1
	shift

	lrufq_setup 1 1 "$@"
	check_err $? "stfq + lrufq $* setup"
	lrufq_run "$OUT/$name" "$SECS" $NUDP
	check_err $? "traffic did not run"
	lrufq_summary "$OUT/$name" "$name"
	check_err $? "no common window of the flows"
	log_info "$name: filter: $(grep -E 'hits|cached' "$OUT/$name/filter.txt" | tr -s ' \n' ' ')"
	log_info "$name: high flows: $(grep -c ' high$' "$OUT/$name/filter.txt")"
}

caches=$(lrufq_caches 12 64 1024)
cache=$(head -n 1 <<<"$caches")
RET=0
run "paper-c$cache" cache "$cache" probability 1/50 threshold 125 window 0
awk -v s="$SHARE" 'BEGIN { exit !(s < 0.40) }'
check_err $? "window 0: TCP got $SHARE of the link; the control no longer shows the paper's counter failing, so the next case proves nothing"
log_test "lrufq cache $cache, window 0 (the paper's count): TCP share $SHARE (control, < 0.40)"

for cache in $caches; do
	RET=0
	run "window-c$cache" cache "$cache" probability 1/50 threshold 125
	grep -q "window 1s" "$OUT/window-c$cache/filter.txt"
	check_err $? "the default window is not 1s"
	lrufq_link_ok
	check_err $? "the link carried $((LINK / 1000)) kbit/s, under a quarter of its rate"
	awk -v s="$SHARE" 'BEGIN { exit !(s >= 0.40) }'
	check_err $? "window 1s: TCP share $SHARE < 0.40"
	log_test "lrufq cache $cache, window 1s (default): TCP share $SHARE (>= 0.40)"
done

exit $EXIT_STATUS
