#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle under full traffic (two UDP floods, IPv4 and IPv6, and TCP
# through the router's egress r-out):
#	- DFS_LIFECYCLE_ITERS rounds (100 in make check; the full run is
#	  1000) of: tbf + dfs add, change of every rebuilding parameter
#	  (order, cache, key, a lower limit that trims, flows 1), replace, delete,
#	  dfs as root, delete; then stfq + two classes + dfs grafted under
#	  one + the lrufq filter, filter change, class weight change to the
#	  maximum, filter delete, class delete with packets queued, delete
#	- a dummy device with dfs and with stfq + lrufq deleted under a flood
#	  (DFS_LIFECYCLE_DEVS times, 5)
#	- a network namespace holding dfs and stfq + lrufq on its devices
#	  deleted under a flood from outside (DFS_LIFECYCLE_NETNS times, 5)
#	- rmmod of sch_dfs, sch_stfq and cls_lrufq refused while a qdisc or
#	  filter is in use, done after delete, and insmod again (sch_hishape
#	  is not used here: hishape_shape.sh removes it under traffic)
# The kernel log (WARN, BUG, refcount, leak, kmemleak where the kernel has
# it) is checked by vm-run.sh after the final rmmod.

source "$(dirname "$0")/lib.sh"

TOOLS=$(cd "$(dirname "$0")/../tools" && pwd)
ITERS=${DFS_LIFECYCLE_ITERS:-100}
DEVS=${DFS_LIFECYCLE_DEVS:-5}
NETNS=${DFS_LIFECYCLE_NETNS:-5}
BATCH=10		# rounds per tc -batch run
TRAFFIC_SECS=3600	# killed at the end

TBF="tbf rate 10mbit burst 32k latency 50ms"
ORDERS=(2 3 64 256 32)
CACHES=(0 1 64 1024 32)
KEYS=(src dst srcdst 5tuple)
SCHEDS=(fifo fq)

# dfs_round I: tc batch lines of one dfs round on r-out.
dfs_round()
{
	local i=$1 d="dev $R_OUT"
	local o=${ORDERS[i % 5]} c=${CACHES[i % 5]} k=${KEYS[i % 4]}
	local o2=${ORDERS[(i + 2) % 5]} c2=${CACHES[(i + 3) % 5]} k2=${KEYS[(i + 1) % 4]}
	local s=${SCHEDS[i % 2]} s2=${SCHEDS[(i + 1) % 2]}

	cat <<-EOF
	qdisc add $d root handle 1: $TBF
	qdisc add $d parent 1:1 handle 10: dfs limit 100000 order $o cache $c key $k sched $s
	qdisc change $d parent 1:1 handle 10: dfs order $o2 cache $c2 key $k2 limit 2000
	qdisc change $d parent 1:1 handle 10: dfs flows 1 prune 1s limit 50000 sched $s2 quantum 300
	qdisc replace $d parent 1:1 handle 10: dfs flows 65536 bandwidth 10mbit target 1ms interval 10ms
	qdisc del $d root
	qdisc add $d root handle 1: dfs limit 30000 key $k sched $s2
	qdisc del $d root
	EOF
}

# stfq_round I: tc batch lines of one stfq + lrufq round on r-out.
stfq_round()
{
	local i=$1 d="dev $R_OUT" k

	k=$(case $((i % 3)) in 0) echo src;; 1) echo srcdst;; *) echo 5tuple;; esac)
	cat <<-EOF
	qdisc add $d root handle 1: htb default 1
	class add $d parent 1: classid 1:1 htb rate 10mbit
	qdisc add $d parent 1:1 handle 10: stfq default 1
	class add $d parent 10: classid 10:1 stfq weight 3
	class add $d parent 10: classid 10:2 stfq weight 1
	qdisc add $d parent 10:2 handle 20: dfs limit 20000
	filter add $d parent 10: protocol all prio 1 handle 1 lrufq cache 8 probability 1/2 threshold 3 key $k high 10:2 low 10:1
	filter change $d parent 10: protocol all prio 1 handle 1 lrufq cache 64 probability 1 threshold 1 pin 1mbit
	class change $d parent 10: classid 10:1 stfq weight 65536
	filter del $d parent 10: protocol all prio 1
	class del $d classid 10:2
	qdisc del $d root
	EOF
}

start_traffic()
{
	local dst4=$1 dst6=$2

	in_ns s1 python3 -S "$TOOLS/udp_cbr.py" send --dst "$dst4" --port 9000 \
		--rate 20M --time $TRAFFIC_SECS >/dev/null 2>&1 &
	TRAFFIC_PIDS+=($!)
	in_ns s2 python3 -S "$TOOLS/udp_cbr.py" send --dst "$dst6" --port 9000 \
		--rate 10M --size 200 --time $TRAFFIC_SECS >/dev/null 2>&1 &
	TRAFFIC_PIDS+=($!)
}

stop_traffic()
{
	[ ${#TRAFFIC_PIDS[@]} -gt 0 ] && kill "${TRAFFIC_PIDS[@]}" 2>/dev/null
	wait "${TRAFFIC_PIDS[@]}" 2>/dev/null
	TRAFFIC_PIDS=()
}

# Our modules, in unload order (the filter and stfq may hold dfs children).
MODS=(cls_lrufq sch_stfq sch_dfs)
# The modules must be back for the tests after us and for vm-run.sh.
reload_modules()
{
	local m

	for m in sch_dfs sch_stfq cls_lrufq; do
		[ -d "/sys/module/$m" ] || insmod "$(ko_path $m)"
	done
}

cleanup()
{
	stop_traffic
	[ -n "${TCP_PID:-}" ] && kill "$TCP_PID" 2>/dev/null
	topo_cleanup
	reload_modules
}

TRAFFIC_PIDS=()
require_command iperf3 python3
setup_topology 3 || exit $ksft_fail
trap cleanup EXIT

# --- add / change / delete under traffic ----------------------------------
RET=0
start_traffic "$RCV_IP4" "$RCV_IP6"
start_iperf3_server 5203 persistent
in_ns s3 iperf3 -c "$RCV_IP4" -p 5203 -t $TRAFFIC_SECS >/dev/null 2>&1 &
TCP_PID=$!
sleep 2
t0=$SECONDS
fails=0
for ((i = 0; i < ITERS; i += BATCH)); do
	b=""
	for ((j = i; j < i + BATCH && j < ITERS; j++)); do
		b+="$(dfs_round "$j")"$'\n'"$(stfq_round "$j")"$'\n'
	done
	if ! in_ns r tc -batch - <<<"$b" >/dev/null; then
		fails=$((fails + 1))
		# Leave a clean device for the next batch.
		in_ns r tc qdisc del dev "$R_OUT" root 2>/dev/null
	fi
done
log_info "$ITERS rounds in $((SECONDS - t0)) s, $fails failed batches"
check_err $fails "$fails tc batches failed"
sent=$(in_ns r ip -s link show dev "$R_OUT" | awk '/TX:/ { getline; print $2; exit }')
[ "${sent:-0}" -gt 1000 ]
check_err $? "no traffic went out of r-out ($sent packets)"
kill "$TCP_PID" 2>/dev/null
TCP_PID=
log_test "add/change/delete of dfs and stfq + lrufq under traffic, $ITERS rounds"

# --- a device deleted under traffic ----------------------------------------
RET=0
stop_traffic
start_traffic 10.99.0.2 fd99::2
for ((i = 0; i < DEVS; i++)); do
	in_ns r ip link add dz0 type dummy &&
	in_ns r ip link set dz0 up &&
	in_ns r ip addr add 10.99.0.1/24 dev dz0 &&
	in_ns r ip addr add fd99::1/64 dev dz0 nodad
	check_err $? "dummy device setup"
	if [ $((i % 2)) = 0 ]; then
		in_ns r tc -batch - <<-EOF
		qdisc add dev dz0 root handle 1: tbf rate 1mbit burst 16k latency 500ms
		qdisc add dev dz0 parent 1:1 handle 10: dfs limit 200000 key 5tuple
		EOF
	else
		in_ns r tc -batch - <<-EOF
		qdisc add dev dz0 root handle 1: htb default 1
		class add dev dz0 parent 1: classid 1:1 htb rate 1mbit
		qdisc add dev dz0 parent 1:1 handle 10: stfq default 1
		class add dev dz0 parent 10: classid 10:1 stfq weight 3
		class add dev dz0 parent 10: classid 10:2 stfq weight 1
		qdisc add dev dz0 parent 10:2 handle 20: dfs sched fq
		filter add dev dz0 parent 10: protocol all prio 1 lrufq cache 8 threshold 2 probability 1 high 10:2 low 10:1
		EOF
	fi
	check_err $? "qdiscs on the dummy device"
	sleep 0.5
	backlog=$(in_ns r tc -s qdisc show dev dz0 | awk '$1 == "backlog" { print $3; exit }')
	in_ns r ip link del dz0
	check_err $? "delete of the dummy device under traffic"
done
log_info "backlog of the last device when deleted: ${backlog:-?}"
log_test "device deleted under traffic (dfs, stfq + lrufq), $DEVS times"
stop_traffic

# --- a netns deleted under traffic -----------------------------------------
nx_has_traffic()
{
	local n

	n=$(tc -n "$nx" -s qdisc show dev d0 | awk '$1 == "Sent" { print $4; exit }')
	[ "${n:-0}" -gt 0 ]
}

# nx: veth from r, forwarding to two dummies with our qdiscs on them; the
# floods come from s1/s2 through r, so the namespace dies under traffic.
RET=0
start_traffic 10.97.0.2 fd97::2
for ((i = 0; i < NETNS; i++)); do
	nx=$(nsname nx)
	# A deleted namespace is dismantled later (cleanup_net): its veth end
	# in r, r-nx, goes only then, seconds later on a debug kernel.
	for ((t = 0; t < 600; t++)); do
		ip -n "$(nsname r)" link show r-nx >/dev/null 2>&1 || break
		sleep 0.1
	done
	ip netns add "$nx" &&
	ip -n "$(nsname r)" link add r-nx type veth peer name eth0 netns "$nx" &&
	ip -n "$(nsname r)" -batch - <<-EOF &&
	link set r-nx up
	addr add 10.98.0.1/24 dev r-nx
	addr add fd98::1/64 dev r-nx nodad
	route replace 10.97.0.0/16 via 10.98.0.2
	route replace fd97::/16 via fd98::2
	EOF
	ip -n "$nx" -batch - <<-EOF &&
	link set lo up
	link set eth0 up
	addr add 10.98.0.2/24 dev eth0
	addr add fd98::2/64 dev eth0 nodad
	link add d0 type dummy
	link set d0 up
	addr add 10.97.0.1/24 dev d0
	addr add fd97::1/64 dev d0 nodad
	EOF
	ip netns exec "$nx" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv6.conf.all.forwarding=1 >/dev/null &&
	tc -n "$nx" -batch - <<-EOF
	qdisc add dev d0 root handle 1: htb default 1
	class add dev d0 parent 1: classid 1:1 htb rate 1mbit
	qdisc add dev d0 parent 1:1 handle 10: stfq default 1
	class add dev d0 parent 10: classid 10:1 stfq weight 1
	class add dev d0 parent 10: classid 10:2 stfq weight 1
	qdisc add dev d0 parent 10:1 handle 20: dfs limit 100000
	filter add dev d0 parent 10: protocol all prio 1 lrufq cache 8 threshold 2 probability 1 high 10:2 low 10:1
	qdisc add dev eth0 root handle 1: tbf rate 5mbit burst 16k latency 200ms
	qdisc add dev eth0 parent 1:1 dfs key 5tuple
	EOF
	check_err $? "netns setup"
	# Traffic reaches d0 once r's neighbour entry for nx is resolved:
	# wait for the first packet, not for a fixed time.
	busywait 10000 nx_has_traffic
	check_err $? "no traffic reached the namespace in 10 s"
	# No process lives in nx: deleting its name dismantles it.
	ip netns del "$nx"
	check_err $? "netns delete"
done
log_test "netns deleted under traffic, $NETNS times"
stop_traffic

# --- rmmod --------------------------------------------------------------
RET=0
in_ns r tc qdisc add dev "$R_OUT" root handle 1: stfq default 1 &&
in_ns r tc class add dev "$R_OUT" parent 1: classid 1:1 stfq weight 1 &&
in_ns r tc qdisc add dev "$R_OUT" parent 1:1 dfs &&
in_ns r tc filter add dev "$R_OUT" parent 1: protocol all prio 1 lrufq high 1:1 low 1:1
check_err $? "setup for rmmod"
for m in "${MODS[@]}"; do
	rmmod "$m" 2>/dev/null
	check_fail $? "rmmod $m while in use succeeded"
done
in_ns r tc qdisc del dev "$R_OUT" root
topo_cleanup
# Namespace teardown is asynchronous: the last references go with it.
for m in "${MODS[@]}"; do
	module_unused "$m"
	rmmod "$m"
	check_err $? "rmmod $m after delete (refcnt $(cat "/sys/module/$m/refcnt" 2>/dev/null))"
done
reload_modules
check_err $? "insmod again"
for m in "${MODS[@]}"; do
	[ -d "/sys/module/$m" ]
	check_err $? "$m not loaded again"
done
log_test "rmmod refused in use, done after delete, insmod again"

ksft_exit
