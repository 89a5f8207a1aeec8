#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# doc/operate.md's recipes, run as written on a router: the guest, with
# the packages installed (dkms_install.sh runs this between its install
# and its removal, both of them the page's recipes too).  The router's
# eth0 (towards the upstream) and eth1 (towards the LAN) are veth pairs
# of four tx queues each, to namespaces "isp" and "lan", so that the
# page's dfs_mq has queues and a ping crosses each tree:
#
#	lan  dn0 198.51.100.2  <->  eth1 198.51.100.1  router
#	                            eth0 203.0.113.1  <->  up0 203.0.113.2  isp
#
#	shaped-100m  HTB 1: and dfs 10: on eth0 and eth1, with their options
#	isp-10g      dfs_mq 1: on both, key src up, flows and prune down
#	port-1g      dfs_mq 1: on eth0, a dfs on each tx queue
#	guard-config dfs-guard's configuration for it passes --check; a
#	             handle that is the shaper's fails it, as the page shows
#	persist      the files checked; the device made anew, as at a boot:
#	             "ifup eth0" puts the tree back (the ifupdown hook), and
#	             so does sch-dfs@eth0.service's ExecStart, the unit read
#	             by systemd-analyze verify
#	reload       the module reloaded under the applied trees
#
# Each tree is read back with tc -j and must have carried the ping.
# Stock tc and the packaged plugins only (recipe_lib.sh).  Changes the
# system (/etc/sch-dfs, /etc/dfs-guard, sysctls): the test VM only.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/recipe_lib.sh"

NS_PREFIX=operate-$$-
TMP=

require_root
recipe_env
require_command tc ip python3 ifup systemd-analyze sch-dfs-apply dfs-guard
if [ "${DKMS_TEST_ANYWHERE:-0}" != 1 ] && ! grep -q virtme /proc/cmdline; then
	echo "SKIP: changes the system: runs in the test VM only (make check-dkms)"
	exit $ksft_skip
fi
for d in eth0 eth1; do
	if [ -e /sys/class/net/$d ]; then
		echo "SKIP: this system has an $d of its own"
		exit $ksft_skip
	fi
done

cleanup()
{
	ip link del eth0 2>/dev/null
	ip link del eth1 2>/dev/null
	ip netns del "$(nsname isp)" 2>/dev/null
	ip netns del "$(nsname lan)" 2>/dev/null
	[ -z "$TMP" ] || rm -rf "$TMP"
}
trap cleanup EXIT
TMP=$(mktemp -d /tmp/operate.XXXXXX) || exit 1

# make_link DEV PEER NS ADDR PEER_ADDR: a veth of four tx queues, its
# peer in NS; what the driver and the router's own network setup give a
# real router at boot.
make_link()
{
	ip link add "$1" numtxqueues 4 numrxqueues 4 type veth \
		peer name "$2" numtxqueues 4 numrxqueues 4 netns "$(nsname "$3")" &&
	ip addr add "$4/24" dev "$1" && ip link set "$1" up &&
	in_ns "$3" ip addr add "$5/24" dev "$2" &&
	in_ns "$3" ip link set "$2" up
}

ip netns add "$(nsname isp)" && ip netns add "$(nsname lan)" &&
	in_ns isp ip link set lo up && in_ns lan ip link set lo up &&
	make_link eth0 up0 isp 203.0.113.1 203.0.113.2 &&
	make_link eth1 dn0 lan 198.51.100.1 198.51.100.2 &&
	in_ns isp ip route add 198.51.100.0/24 via 203.0.113.1 &&
	in_ns lan ip route add default via 198.51.100.1 &&
	sysctl -qw net.ipv4.ip_forward=1 ||
	{ echo "FAIL: cannot make the router's eth0 and eth1"; exit $ksft_fail; }
# The router's own stanzas, as /etc/network/interfaces would have them.
printf 'iface eth0 inet manual\niface eth1 inet manual\n' > "$TMP/interfaces"
mkdir -p /run/network

# root_is DEV KIND HANDLE [OPTION=VALUE...]: DEV's root qdisc, read with
# tc -j, is KIND with HANDLE and those options (as tc -j shows them).
root_is()
{
	local dev=$1 kind=$2 handle=$3

	shift 3
	tc -j qdisc show dev "$dev" root | python3 -c '
import json, sys
kind, handle, want = sys.argv[1], sys.argv[2], sys.argv[3:]
qs = [q for q in json.load(sys.stdin) if q.get("root")]
if not qs:
    sys.exit("no root qdisc")
q = qs[0]
if (q["kind"], q["handle"]) != (kind, handle):
    sys.exit("root is %s %s, not %s %s" % (q["kind"], q["handle"], kind, handle))
opts = q.get("options", {})
for w in want:
    k, v = w.split("=", 1)
    if str(opts.get(k)) != v:
        sys.exit("%s is %r, not %s" % (k, opts.get(k), v))
' "$kind" "$handle" "$@"
}

# qdisc_packets DEV KIND HANDLE: packets the qdisc has sent.
qdisc_packets()
{
	tc -s -j qdisc show dev "$1" | python3 -c '
import json, sys
print(sum(q.get("packets", 0) for q in json.load(sys.stdin)
          if q["kind"] == sys.argv[1] and q["handle"] == sys.argv[2]))
' "$2" "$3"
}

# carries DEV KIND HANDLE: a ping from the LAN to the upstream crosses
# DEV's qdisc KIND HANDLE (its packet count grows).
carries()
{
	local before after

	before=$(qdisc_packets "$1" "$2" "$3")
	in_ns lan ping -q -c 3 -i 0.2 -W 2 203.0.113.2 >/dev/null || return 1
	after=$(qdisc_packets "$1" "$2" "$3")
	[ "${after:-0}" -ge $(( ${before:-0} + 3 )) ]
}

# --- the three recipes ------------------------------------------------------------
RET=0
run_recipe shaped-100m
check_err $? "the recipe failed"
for d in eth0 eth1; do
	msg=$(root_is $d htb 1: 2>&1)
	check_err $? "$d: $msg"
	tc -j qdisc show dev $d | grep -q '"kind":"dfs","handle":"10:","parent":"1:1"'
	check_err $? "$d: no dfs 10: under the HTB's class 1:1"
	tc -j -d qdisc show dev $d | grep -q '"bandwidth":11875000'
	check_err $? "$d: the dfs's bandwidth is not 95mbit"
	carries $d dfs 10:
	check_err $? "$d: the ping did not cross dfs 10:"
done
log_test "recipe shaped-100m: HTB 1: and dfs 10: on eth0 and eth1"

RET=0
run_recipe isp-10g
check_err $? "the recipe failed"
msg=$(root_is eth0 dfs_mq 1: key=src limit=33554432 2>&1)
check_err $? "eth0: $msg"
msg=$(root_is eth1 dfs_mq 1: key=srcdst flows=1048576 2>&1)
check_err $? "eth1: $msg"
n=$(tc qdisc show dev eth0 | grep -c '^qdisc dfs 0: parent 1:')
[ "$n" = 4 ]
check_err $? "eth0: $n queues' dfs, not 4"
carries eth0 dfs_mq 1: && carries eth1 dfs_mq 1:
check_err $? "the ping did not cross both dfs_mq roots"
log_test "recipe isp-10g: dfs_mq 1: on eth0 (key src) and eth1"

RET=0
run_recipe port-1g
check_err $? "the recipe failed"
msg=$(root_is eth0 dfs_mq 1: limit=4194304 bandwidth=125000000 2>&1)
check_err $? "eth0: $msg"
carries eth0 dfs_mq 1:
check_err $? "the ping did not cross dfs_mq 1:"
log_test "recipe port-1g: dfs_mq 1: on eth0"

# --- dfs-guard ---------------------------------------------------------------------
RET=0
run_recipe guard-config
check_err $? "the recipe (dfs-guard --check of the page's configuration) failed"
log_test "recipe guard-config: dfs-guard --check follows eth0's dfs_mq 1:"

# The page's example of a wrong handle: the shaped tree, whose 1: is the
# HTB; --check must fail with the very line the page shows.
RET=0
tc qdisc del dev eth0 root &&
	tc qdisc add dev eth0 root handle 1: htb default 1 &&
	tc class add dev eth0 parent 1: classid 1:1 htb rate 95mbit &&
	tc qdisc add dev eth0 parent 1:1 handle 10: dfs
check_err $? "cannot set up the shaped tree on eth0"
out=$(dfs-guard --check 2>&1)
check_fail $? "dfs-guard --check passed a handle that is the HTB's: $out"
log_info "dfs-guard --check: $out"
grep -qxF -- "$out" "$OPERATE_MD"
check_err $? "doc/operate.md does not show what --check says: $out"
log_test "dfs-guard --check refuses the HTB's handle, as the page shows"

# --- persistence ------------------------------------------------------------------
RET=0
run_recipe persist
check_err $? "the recipe failed"
msg=$(root_is eth0 dfs_mq 1: 2>&1)
check_err $? "eth0 after sch-dfs-apply: $msg"
log_test "recipe persist: the files check, sch-dfs-apply eth0"

# A boot, for eth0: the device comes anew with the kernel's default qdisc,
# and ifup brings it up, which runs the package's if-up.d hook.
RET=0
ip link del eth0 && make_link eth0 up0 isp 203.0.113.1 203.0.113.2 &&
	in_ns isp ip route replace 198.51.100.0/24 via 203.0.113.1
check_err $? "cannot make eth0 anew"
root_is eth0 dfs_mq 1: 2>/dev/null
check_fail $? "eth0 made anew has a dfs_mq already"
ifup -i "$TMP/interfaces" --force eth0 2>&1 | sed 's/^/    | /'
check_err "${PIPESTATUS[0]}" "ifup eth0 failed"
msg=$(root_is eth0 dfs_mq 1: limit=4194304 2>&1)
check_err $? "after ifup eth0: $msg"
carries eth0 dfs_mq 1:
check_err $? "the ping did not cross the tree put back"
out=$(dfs-guard --check 2>&1)
check_err $? "dfs-guard --check after the boot: $out"
# (No ifdown: for a manual stanza it flushes the addresses the test
# gave eth0.)
log_test "a device made anew: ifup puts eth0's tree back (if-up.d hook)"

# The same by the systemd unit, which the guest (no systemd as init)
# cannot start: systemd-analyze reads it as systemd would, and its
# ExecStart, for the instance eth0, puts the tree back.
RET=0
unit=/lib/systemd/system/sch-dfs@.service
[ -f $unit ]
check_err $? "no $unit"
out=$(systemd-analyze verify /lib/systemd/system/sch-dfs@eth0.service 2>&1 |
	grep -F 'sch-dfs@')
[ -z "$out" ]
check_err $? "systemd-analyze verify: $out"
cmd=$(sed -n 's/^ExecStart=//p' $unit | sed 's/%I/eth0/g; s/%i/eth0/g')
grep -q '^Before=dfs-guard.service' $unit
check_err $? "$unit is not ordered before dfs-guard"
tc qdisc del dev eth0 root
log_info "ExecStart for eth0: $cmd"
$cmd 2>&1 | sed 's/^/    | /'
check_err "${PIPESTATUS[0]}" "$cmd failed"
msg=$(root_is eth0 dfs_mq 1: 2>&1)
check_err $? "after the unit's ExecStart: $msg"
log_test "sch-dfs@eth0.service: verified, its ExecStart puts eth0's tree back"

# --- the module reloaded -----------------------------------------------------------
RET=0
refs=$(cat /sys/module/sch_dfs/refcnt 2>/dev/null)
run_recipe reload
check_err $? "the recipe failed"
msg=$(root_is eth0 dfs_mq 1: 2>&1) && msg=$(root_is eth1 dfs_mq 1: 2>&1)
check_err $? "after the reload: $msg"
[ "$(cat /sys/module/sch_dfs/refcnt 2>/dev/null)" = "$refs" ]
check_err $? "sch_dfs refcnt $(cat /sys/module/sch_dfs/refcnt), was $refs"
carries eth0 dfs_mq 1: && carries eth1 dfs_mq 1:
check_err $? "the ping did not cross the trees after the reload"
log_test "recipe reload: sch_dfs reloaded, both trees back"

ksft_exit
