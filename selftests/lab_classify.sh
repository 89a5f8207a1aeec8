#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lab's scenarios 1 and 2 (tools/lab), short, with DFS only (sched
# fifo and sched fq): its marking judged against the scenarios' ground
# truth.
#
#   1: a UDP flood at the link rate against 8 TCP flows of mixed RTTs;
#   2: 5 VBR UDP attackers (2x, 0.8x, 2x the fair rate), 5 UDP flows at
#      the fair rate, 5 TCP flows.
#
# Each passes when every attack flow is listed malicious at some point (or,
# never listed, sends within Algorithm 3's margin over the fair rate DFS
# reports: attackers cut in turn raise it for the rest, doc/dfs.md) and
# no good-UDP, TCP or probe flow ever is.  The tables land in
# build/lab-check/scenario<N>/.

source "$(dirname "$0")/lib.sh"

REPO=$(cd "$(dirname "$0")/.." && pwd)
require_root
require_command ip tc ping python3
require_qdisc dfs

for s in 1 2; do
	RET=0
	python3 -S "$REPO/tools/lablib/run.py" --scenario "$s" --short \
		--qdiscs "dfs dfs-fq" --check --out "$REPO/build/lab-check/scenario$s"
	check_err $? "DFS's marking differs from the ground truth (see above)"
	log_test "lab scenario $s: every attack flow marked, no other flow"
done

ksft_exit
