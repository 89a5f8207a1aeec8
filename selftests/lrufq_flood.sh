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
# together get at least 40% of the link, with 1:3 at least 60%.

source "$(dirname "$0")/lrufq_scenario.sh"

SECS=${SECS:-12}
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
lrufq_summary "$OUT/pfifo" pfifo
awk -v s="$SHARE" 'BEGIN { exit !(s < 0.25) }'
check_err $? "with pfifo TCP got $SHARE of the link, not under 0.25"
log_test "pfifo: two UDP floods take the link (TCP share $SHARE)"

for w in "1 1 0.40" "3 1 0.60"; do
	read -r low high want <<<"$w"
	RET=0
	lrufq_setup "$low" "$high"
	check_err $? "stfq + lrufq setup"
	lrufq_run "$OUT/lrufq-$low-$high" "$SECS" $NUDP
	check_err $? "traffic did not run"
	lrufq_summary "$OUT/lrufq-$low-$high" "lrufq high:low $high:$low"
	log_info "filter: $(grep -E 'hits|cached|high' "$OUT/lrufq-$low-$high/filter.txt" | tr -s ' \n' ' ')"
	awk -v s="$SHARE" -v w="$want" 'BEGIN { exit !(s >= w) }'
	check_err $? "TCP share $SHARE < $want"
	log_test "lrufq high:low $high:$low: TCP gets $SHARE of the link (>= $want)"
done

exit $EXIT_STATUS
