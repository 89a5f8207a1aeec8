#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configuration of the dfs qdisc: defaults, change of every parameter, and
# bad input refused with a message, leaving the qdisc as it was.  Bad input
# goes through tc (its parser) and straight to the kernel (tools/nlqdisc.py)
# so the kernel's own checks are tested, not only tc's.

source "$(dirname "$0")/lib.sh"

DEV=dfs-p0
NLQDISC=$(dirname "$0")/../tools/nlqdisc.py

# Attribute numbers of include/uapi/linux/pkt_sched_dfs.h
TCA_DFS_LIMIT=1 TCA_DFS_ORDER=3 TCA_DFS_MAX_TH=6 TCA_DFS_MIN_TH=7
TCA_DFS_BETA=12

opts_json()
{
	tc -j qdisc show dev $DEV | python3 -S -c '
import json, sys
q = [q for q in json.load(sys.stdin) if q["kind"] == "dfs"][0]
print(json.dumps(q["options"], sort_keys=True))'
}

# snap: read the options once (python is slow to start under emulation);
# opt NAME then prints one of them as tc -j shows it.
snap()
{
	OPTS=$(opts_json | python3 -S -c '
import json, sys
for k, v in json.load(sys.stdin).items():
    print("%s=%s" % (k, v))')
}

opt()
{
	sed -n "s/^$1=//p" <<<"$OPTS"
}

setup()
{
	ip link add $DEV type dummy && ip link set $DEV up
}

cleanup()
{
	ip link del $DEV 2>/dev/null
}

defaults_test()
{
	RET=0
	tc qdisc add dev $DEV root handle 1: dfs
	check_err $? "add with defaults"
	snap
	[ "$(opt limit)" = 1048576 ]; check_err $? "limit $(opt limit)"
	[ "$(opt memory_limit)" = 33554432 ]; check_err $? "memory_limit"
	[ "$(opt order)" = 43 ]; check_err $? "order"
	[ "$(opt cache)" = 32 ]; check_err $? "cache"
	[ "$(opt key)" = srcdst ]; check_err $? "key"
	[ "$(opt delta_i)" = 0.04 ]; check_err $? "delta_i $(opt delta_i)"
	[ "$(opt beta)" = 0.05 ]; check_err $? "beta"
	[ "$(opt freeze_time)" = 10000 ]; check_err $? "freeze_time"
	[ "$(opt tolerance)" = 3 ]; check_err $? "tolerance"
	[ "$(opt prune)" = 3600000 ]; check_err $? "prune"
	[ "$(opt ecn)" = True ]; check_err $? "ecn"
	[ "$(opt sched)" = fq ]; check_err $? "sched $(opt sched)"
	[ "$(opt target)" = 5000 ]; check_err $? "target"
	[ "$(opt interval)" = 100000 ]; check_err $? "interval"
	[ "$(opt quantum)" = 1514 ]; check_err $? "quantum $(opt quantum)"
	log_test "dfs: defaults of Table 2, sched fq"
}

change_test()
{
	local before after

	RET=0
	tc qdisc change dev $DEV root dfs limit 200000 flows 1000 order 4 \
		cache 8 key 5tuple max_th 0.9 min_th 0.01 delta_i 0.05 \
		delta_d 0.03 freeze_time 20ms tolerance 4 beta 0.1 prune 2s \
		rate_interval 200ms noecn bandwidth 10mbit memory_limit 2mb
	check_err $? "change every parameter"
	snap
	[ "$(opt limit)" = 200000 ] && [ "$(opt flows)" = 1000 ] &&
		[ "$(opt order)" = 4 ] && [ "$(opt cache)" = 8 ] &&
		[ "$(opt key)" = 5tuple ] && [ "$(opt max_th)" = 0.9 ] &&
		[ "$(opt min_th)" = 0.01 ] && [ "$(opt delta_i)" = 0.05 ] &&
		[ "$(opt delta_d)" = 0.03 ] && [ "$(opt freeze_time)" = 20000 ] &&
		[ "$(opt tolerance)" = 4 ] && [ "$(opt beta)" = 0.1 ] &&
		[ "$(opt prune)" = 2000 ] && [ "$(opt rate_interval)" = 200000 ] &&
		[ "$(opt ecn)" = False ] && [ "$(opt bandwidth)" = 1250000 ] &&
		[ "$(opt memory_limit)" = 2097152 ]
	check_err $? "values shown: $OPTS"

	before=$(opts_json)
	tc qdisc change dev $DEV root dfs beta 0.2
	after=$(opts_json)
	snap
	[ "$(opt beta)" = 0.2 ] &&
		[ "$(sed 's/"beta": [0-9.]*//' <<<"$before")" = \
		  "$(sed 's/"beta": [0-9.]*//' <<<"$after")" ]
	check_err $? "change of beta alone changed more: $before -> $after"
	log_test "dfs: change sets each parameter, and only those given"
}

# refused DESCRIPTION EXPECTED-MESSAGE COMMAND...: the command must fail,
# say EXPECTED-MESSAGE, and leave the options as they were.
refused()
{
	local what=$1 msg=$2 out before
	shift 2

	RET=0
	before=$(opts_json)
	out=$("$@" 2>&1)
	check_fail $? "$what was accepted"
	grep -qi -- "$msg" <<<"$out"
	check_err $? "$what: message \"$out\" lacks \"$msg\""
	[ "$(opts_json)" = "$before" ]
	check_err $? "$what changed the qdisc"
	log_test "dfs: refused: $what"
}

bad_input_test()
{
	refused "tc limit 0" "limit" tc qdisc change dev $DEV root dfs limit 0
	refused "tc memory_limit 0" "memory_limit" \
		tc qdisc change dev $DEV root dfs memory_limit 0
	refused "kernel memory_limit 64 KB - 1" "out of range" \
		tc qdisc change dev $DEV root dfs memory_limit 65535
	refused "tc order 1" "order" tc qdisc change dev $DEV root dfs order 1
	refused "tc beta 1.5" "beta" tc qdisc change dev $DEV root dfs beta 1.5
	refused "tc key bogus" "key" tc qdisc change dev $DEV root dfs key bogus
	refused "tc unknown option" "bogus" \
		tc qdisc change dev $DEV root dfs bogus 1
	refused "kernel limit 0" "out of range" \
		$NLQDISC --dev $DEV --attr $TCA_DFS_LIMIT=0
	refused "kernel order 1" "out of range" \
		$NLQDISC --dev $DEV --attr $TCA_DFS_ORDER=1
	refused "kernel order 257" "out of range" \
		$NLQDISC --dev $DEV --attr $TCA_DFS_ORDER=257
	refused "kernel beta > 1" "out of range" \
		$NLQDISC --dev $DEV --attr $TCA_DFS_BETA=1000001
	refused "kernel unknown attribute" "unknown attribute" \
		$NLQDISC --dev $DEV --attr 99=1
	refused "kernel short attribute" "attribute" \
		$NLQDISC --dev $DEV --raw $TCA_DFS_LIMIT=0100
	refused "kernel min_th >= max_th" "min_th must be below max_th" \
		$NLQDISC --dev $DEV --attr $TCA_DFS_MIN_TH=500000 \
		--attr $TCA_DFS_MAX_TH=400000
	refused "kernel partly bad change" "out of range" \
		$NLQDISC --dev $DEV --attr $TCA_DFS_LIMIT=300000 \
		--attr $TCA_DFS_ORDER=1000
	RET=0
	tc qdisc del dev $DEV root
	out=$($NLQDISC --dev $DEV --create --attr $TCA_DFS_ORDER=1 2>&1)
	check_fail $? "create with order 1 accepted"
	! tc qdisc show dev $DEV | grep -q dfs
	check_err $? "a refused create left a qdisc"
	log_test "dfs: refused: create with bad options"
}

trap cleanup EXIT
setup || exit $ksft_skip
defaults_test
change_test
bad_input_test
exit $EXIT_STATUS
