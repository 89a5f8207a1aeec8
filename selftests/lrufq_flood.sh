#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# LRU-FQ against two UDP floods: 8 TCP flows and 2 UDP flows each sending
# at the full link rate, through a 10 Mbit/s bottleneck.  With pfifo the
# floods take the link: TCP gets under a quarter of it, where an even split
# of the 10 flows would give it 80%.  That is the control, proof that the
# attack works; TCP's share there varies widely with how tail drop meets
# its bursts, so the bound leaves room below the 40% LRU-FQ must reach.
# With stfq and the lrufq filter the cache finds the two floods and sends
# them to the high class: with high:low weights 1:1 the TCP flows
# together get at least 40% of the link with the lab's cache of 6
# (half the paper's 12: fewer slots than flows).  With 1:3 they get at least 60%: the split
# between the classes is STFQ's, which the cache does not enter.  The
# same scenario with room for every flow (caches 12, 64 and 1024) is
# lrufq_window.sh's; LRUFQ_CACHES="6 12" runs others here too.
#
# The shares are of what the link carried while every flow ran, from the
# receiver's per-sender counters sampled over netlink, WARMUP seconds
# after the last flow's first packet (lrufq_summary): a guest on a loaded
# host forwards less than the shaper's 10 Mbit/s, and STFQ's split is of
# what it forwards.

source "$(dirname "$0")/lrufq_scenario.sh"

SECS=${SECS:-15}
OUT=${OUT:-$(dirname "$0")/../build/selftests/lrufq_flood}
NUDP=2

require_command iperf3 python3
setup_topology 10 || exit $ksft_fail

RET=0
in_ns r tc qdisc del dev "$R_OUT" root 2>/dev/null
setup_bottleneck_htb "$R_OUT" "$LINK_RATE" pfifo limit "$CHILD_LIMIT"
check_err $? "pfifo setup"
lrufq_run "$OUT/pfifo" "$SECS" $NUDP
check_err $? "traffic did not run"
LRUFQ_FROM_FLOODS=1 lrufq_summary "$OUT/pfifo" pfifo
check_err $? "no common window of the flows"
awk -v s="$SHARE" 'BEGIN { exit !(s < 0.25) }'
check_err $? "with pfifo TCP got $SHARE of the link, not under 0.25"
log_test "pfifo: two UDP floods take the link (TCP share $SHARE)"

weights=("1 1 0.40" "3 1 0.60")
for cache in $(lrufq_caches 6); do
	for w in "${weights[@]}"; do
		read -r low high want <<<"$w"
		name="lrufq cache $cache high:low $high:$low"
		dir=$OUT/lrufq-c$cache-$low-$high
		RET=0
		lrufq_setup "$low" "$high" cache "$cache" probability 1/50 threshold 125
		check_err $? "stfq + lrufq setup"
		lrufq_run "$dir" "$SECS" $NUDP
		check_err $? "traffic did not run"
		lrufq_summary "$dir" "$name"
		check_err $? "no common window of the flows"
		log_info "filter: $(grep -E 'hits|cached|high' "$dir/filter.txt" | tr -s ' \n' ' ')"
		lrufq_link_ok
		check_err $? "the link carried $((LINK / 1000)) kbit/s, under a quarter of its rate"
		awk -v s="$SHARE" -v w="$want" 'BEGIN { exit !(s >= w) }'
		check_err $? "TCP share $SHARE < $want"
		log_test "$name: TCP gets $SHARE of the link (>= $want)"
	done
	weights=("1 1 0.40")
done

exit $EXIT_STATUS
