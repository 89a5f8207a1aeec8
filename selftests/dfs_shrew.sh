#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Low-rate ("shrew") attacks against DFS's defaults, the lab's scenarios 6
# and 6b (tools/lab), short: 16 hosts pulse 1.25 Mbit/s each in step,
# 100 ms every 300 ms (6), or 12 hosts 2.5 Mbit/s, 50 ms every 500 ms
# (6b), beside 8 TCP hosts, through the 10 Mbit/s bottleneck.  On
# average each attacker sends under its fair share, so DFS's rate test
# never lists it; its CPR does.
#
# Through plain "dfs" (dfs-fq of tools/lablib/qdiscs.py: no CPR option
# typed, so CPR's period comes from the link's rate DFS measures, 10 ms
# here, with surges as the signal), for each shape: TCP must keep at
# least 90% of its goodput without the attack (scenario 6n, the
# attackers silent, run first with the same qdisc), every attacker must
# be listed while the attack runs and no TCP host ever, for its CPR or
# for its rate; and pfifo, run beside it under the same attack, must
# leave TCP less (proof that the attack works).  The tables land in
# build/lab-check/scenario6{,b,n}/.

source "$(dirname "$0")/lib.sh"

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/lab-check
QDISCS=${QDISCS:-dfs-fq}
SHAPES=${SHAPES:-6 6b}
require_root
require_command ip tc ping python3
require_qdisc dfs

RET=0
python3 -S "$REPO/tools/lablib/run.py" --scenario 6n --short \
	--qdiscs "$QDISCS" --out "$OUT/scenario6n"
check_err $? "the run without the attack failed"
log_test "shrew: TCP's goodput without the attack ($QDISCS)"

for shape in $SHAPES; do
	RET=0
	python3 -S "$REPO/tools/lablib/run.py" --scenario "$shape" --short \
		--qdiscs "pfifo $QDISCS" --check --baseline "$OUT/scenario6n" \
		--out "$OUT/scenario$shape"
	check_err $? "CPR did not hold the attack off (see above)"
	log_test "shrew $shape: TCP kept, attackers listed, no TCP host ($QDISCS)"
done

ksft_exit
