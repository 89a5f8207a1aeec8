#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A low-rate ("shrew") attack, the lab's scenario 6 (tools/lab), short: 16
# hosts pulse 1.25 Mbit/s each in step, 100 ms every 300 ms, beside 8 TCP
# hosts, through the 10 Mbit/s bottleneck.  On average each attacker sends
# its fair share, so DFS's rate test never lists it; its CPR does.
#
# Through DFS with "cpr adaptive" (dfs-fq-cprs of tools/lablib/qdiscs.py:
# 10 ms periods, tau_min 0.6, 64 packets before a verdict, congestion
# by surges, the settings the lab chose for a 10 Mbit/s link; with drops
# as the signal, dfs-fq-cpr10, the attackers were held on one machine
# and came and went with each burst on another) TCP must keep at least
# 90% of its goodput without the attack (scenario 6n, the attackers
# silent, run first with the same qdisc), at least 12 of the 16 attackers
# must be listed while the attack runs and no TCP host ever, for its CPR
# or for its rate; and pfifo, run beside it under the same attack, must
# leave TCP less (proof that the attack works).  The tables land in
# build/lab-check/scenario6{,n}/.

source "$(dirname "$0")/lib.sh"

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/lab-check
QDISCS=${QDISCS:-dfs-fq-cprs}
require_root
require_command ip tc ping python3
require_qdisc dfs

RET=0
python3 -S "$REPO/tools/lablib/run.py" --scenario 6n --short \
	--qdiscs "$QDISCS" --out "$OUT/scenario6n"
check_err $? "the run without the attack failed"
log_test "shrew: TCP's goodput without the attack ($QDISCS)"

RET=0
python3 -S "$REPO/tools/lablib/run.py" --scenario 6 --short \
	--qdiscs "pfifo $QDISCS" --check --baseline "$OUT/scenario6n" \
	--out "$OUT/scenario6"
check_err $? "CPR did not hold the attack off (see above)"
log_test "shrew: TCP kept, attackers listed, no TCP host ($QDISCS)"

ksft_exit
