#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/bench.sh [quick]   (in the test VM: tools/vm-run.sh runs it)
#
# Per-packet cost of the qdisc layer at 1 to 1M flows: pktgen in
# queue_xmit mode sends 64-byte UDP packets through the root qdisc of a
# dummy device (which frees what it is given), for a fixed time, and the
# packets offered per second are the measure.  Every qdisc runs in the same
# boot, one after the other, several times, so their ratios mean something
# under emulation where the absolute numbers do not.
#
# Scenarios (the flow key varies in the source address only):
#   mix    N sources, each sends 1/N of the packets, at random; the N flows
#          are created by a first pass in order before anything is timed.
#          The qdisc is the device's root, whose queue the dummy device
#          empties at once: a qdisc with TCQ_F_CAN_BYPASS (pfifo,
#          fq_codel) is then not run at all (__dev_xmit_skb() hands the
#          packet to the driver), which is what an idle link costs
#   load   the mix, the qdisc the child of a TBF that never throttles
#          (10 Gbit/s): a child is never bypassed, so every qdisc
#          enqueues and dequeues each packet, as under a standing queue
#   flood  N flows known to DFS (a first pass as above), then 4 sources flood
#          through a 2 Mbit/s TBF with the qdisc as its child: the cost of
#          refusing a flood under congestion (DFS: malicious, cache hits).
#          Each qdisc's runs follow its judging without a pause, so the
#          flood never stops (timed_stretches)
#   pulse  the flood's setup, the qdiscs timed in turn: each sees the flood
#          in bursts of a run, with the other qdiscs' runs between (an
#          on-off flood, in which DFS lets a burst's start in)
#   mem    dfs kernel memory at N flows, sched fifo and fq: its memory_usage
#          against the growth of the kernel's unreclaimable slab and of
#          vmalloc's (the flow index's, past a few pages) (the mix
#          measures it too, as it fills DFS's tables)
#   order  dfs at 1M flows, mix, for each B-tree order
#   cache  dfs flood at 1M flows for each cache size (0: flows marked
#          malicious stay in the tree, so tree against cache lookups),
#          timed as the flood
#   ingress  the flood received and forwarded to DFS, which refuses it,
#          against the same flood dropped at ingress by dfs-guard's
#          nftables rule: a flood packet's cost to the router either way
#
# Writes results/bench/raw.csv (scenario,qdisc,flows,param,run,pps) and
# results/bench/memory.csv; tools/bench/report.py makes the table and plot.
# It measures and reports: it fails only when it could not measure.
#
# Environment: BENCH_SECS (seconds per run), BENCH_RUNS (rounds of the
# mix and the load), BENCH_SWEEP_RUNS (of the flood and the sweeps),
# BENCH_FLOWS, BENCH_LOAD_FLOWS, BENCH_QDISCS (names from qdisc_setup),
# BENCH_SCENARIOS, BENCH_CLOCK (icount: the guest's clock counts its
# instructions, set by make bench with QEMU's -icount; wall by default).

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/bench_pktgen.sh"

QUICK=0
[ "${1:-}" = quick ] && QUICK=1

OUT=${BENCH_OUT:-$REPO/results/bench}
if [ $QUICK = 1 ]; then
	OUT=${BENCH_OUT:-$REPO/results/bench-quick}
	: "${BENCH_SECS:=1}" "${BENCH_RUNS:=2}" "${BENCH_FLOWS:=1 65536}"
	: "${BENCH_QDISCS:=pfifo dfs}" "${BENCH_SCENARIOS:=mix}"
fi
# The fair mix, whose ratios are the targets, gets more rounds than the
# flood and the sweeps: a ratio's rounds spread less the more there are.
# Under icount (make bench) a run counts instructions, the same in every
# round: a fifth of a second (2 x 10^8 of them) and two rounds say as
# much as longer runs, and the emulator needs several host seconds for one
# second of guest clock.
if [ "${BENCH_CLOCK:-wall}" = icount ]; then
	: "${BENCH_SECS:=0.2}" "${BENCH_RUNS:=2}"
fi
SECS=${BENCH_SECS:-1}
RUNS=${BENCH_RUNS:-3}
SWEEP_RUNS=${BENCH_SWEEP_RUNS:-2}
# The flood's runs (and the cache sweep's): five times as long.  A flood
# packet DFS refuses costs little of its own, and what else the guest
# runs in a fifth of a second (a timer, a kworker) moved that visibly
# between rounds.
FLOOD_SECS=${BENCH_FLOOD_SECS:-$(awk -v s="$SECS" 'BEGIN { print s * 5 }')}
FLOWS=${BENCH_FLOWS:-1 1000 65536 1048576}
QDISCS=${BENCH_QDISCS:-pfifo fq_codel sfb hhf fq cake drr drr-flow drr-lrufq stfq-mall dfs dfs-fq stfq}
# The mix measures DFS's memory as it fills its tables (mem does it alone).
# The sweeps are left out: under icount the order's can only be flat (it
# changes which nodes a search reads, not what it runs), and each value
# fills a 1M-flow table, a minute of the emulator's.
SCENARIOS=${BENCH_SCENARIOS:-mix load flood pulse ingress}
LOAD_FLOWS=${BENCH_LOAD_FLOWS:-1 1000}
FLOOD_FLOWS=${BENCH_FLOOD_FLOWS:-1048576}
ORDERS=${BENCH_ORDERS:-16 21 32 43 64}
CACHES=${BENCH_CACHES:-0 32 1024}
FLOOD_SOURCES=4
# Sources of the flood: out of the range of the known flows.
FLOOD_BASE=$(( 0xf00000 ))
# Enough flows for the largest run: past "flows" DFS shares one overflow
# flow, which would not measure the table at all.
DFS_OPTS="flows 4194304"

mkdir -p "$OUT" || exit 1
RAW=$OUT/raw.csv
echo "scenario,qdisc,flows,param,run,pps" > "$RAW"
echo "qdisc,flows,memory_usage,slab_growth,usage_per_flow,slab_per_flow" > "$OUT/memory.csv"
{
	pg_machine
	echo "host: ${BENCH_HOST:-unknown}"
	echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	# icount: QEMU's -icount shift=0 (make bench), a nanosecond of the
	# guest's clock per guest instruction; wall: the host's time
	echo "clock: ${BENCH_CLOCK:-wall}"
	echo "memory: $(awk '/MemTotal/ { print $2 " kB" }' /proc/meminfo)"
	echo "secs_per_run: $SECS"
	echo "runs: $RUNS (flood and sweeps: $SWEEP_RUNS)"
	echo "flood_secs_per_run: $FLOOD_SECS"
} > "$OUT/meta.txt"

log() { echo "# bench: [${SECONDS}s] $*"; }
die() { echo "# bench: error: $*"; exit 1; }

modprobe dummy numdummies=0 2>/dev/null || die "no dummy driver"

# One dummy device per qdisc under test, so the timed runs can go round
# the qdiscs (run 1 of each, then run 2 of each...): a slow spell of the
# emulator then hits every qdisc alike instead of one.
dev_of() { echo "b-$1"; }

dev_add() {
	local dev=$1

	ip link del "$dev" 2>/dev/null
	ip link add "$dev" type dummy &&
	ip link set "$dev" txqueuelen 1000 up
}

dev_del() {
	ip link del "$1" 2>/dev/null
	return 0
}

# qdisc_setup DEV NAME [PARENT]: NAME as the root qdisc, or under PARENT.
qdisc_setup() {
	local dev=$1 name=$2 parent=${3:-root} h

	h=$([ "$parent" = root ] && echo "handle 1:" || echo "handle 10:")
	case $name in
	pfifo)		tc qdisc add dev "$dev" $parent $h pfifo limit 1000 ;;
	fq_codel)	tc qdisc add dev "$dev" $parent $h fq_codel ;;
	sfb)		tc qdisc add dev "$dev" $parent $h sfb limit 1000 ;;
	hhf)		tc qdisc add dev "$dev" $parent $h hhf ;;
	fq)		tc qdisc add dev "$dev" $parent $h fq ;;
	cake)		tc qdisc add dev "$dev" $parent $h cake ;;
	dfs)		tc qdisc add dev "$dev" $parent $h dfs $DFS_OPTS sched fifo \
				${DFS_EXTRA:-} ;;
	dfs-fq)		tc qdisc add dev "$dev" $parent $h dfs $DFS_OPTS sched fq \
				${DFS_EXTRA:-} ;;
	drr|drr-flow|drr-lrufq|stfq|stfq-mall)
		# Classful, a scheduler and a classifier: drr, one class for
		# all by matchall; drr-flow, two classes that the kernel's
		# flow classifier picks by a hash of the addresses (one that
		# reads each packet's flow, as lrufq must, where matchall
		# reads nothing); stfq, the LRU-FQ pair (stfq, lrufq:
		# doc/lrufq.md).  stfq-mall and drr-lrufq swap the two
		# halves, so the scheduler's cost and the classifier's are
		# measured apart.
		[ "$parent" = root ] || return 1
		local sched=${name%%-*} cls=${name#*-}
		[ "$cls" = "$name" ] && cls=$([ $sched = stfq ] && echo lrufq || echo mall)
		tc qdisc add dev "$dev" root handle 1: $sched \
			$([ $sched = stfq ] && echo default 1) &&
		tc class add dev "$dev" parent 1: classid 1:1 $sched \
			$([ $sched = stfq ] && echo weight 3) &&
		case $cls in
		mall)	tc filter add dev "$dev" parent 1: protocol all prio 1 \
				matchall classid 1:1 ;;
		flow)	tc class add dev "$dev" parent 1: classid 1:2 $sched &&
			tc filter add dev "$dev" parent 1: protocol all prio 1 \
				handle 1 flow hash keys src,dst divisor 2 \
				baseclass 1:1 ;;
		lrufq)	tc class add dev "$dev" parent 1: classid 1:2 $sched \
				$([ $sched = stfq ] && echo weight 1) &&
			tc filter add dev "$dev" parent 1: protocol all prio 1 \
				lrufq cache 100 probability 1/50 threshold 25 \
				high 1:2 low 1:1 ;;
		esac ;;
	*)	return 1 ;;
	esac
}

# A 2 Mbit/s shaper, NAME as its child: the flood builds a queue.  The
# flood must be well over the link for DFS to judge it: through a 10 Mbit/s
# one, a slow emulator's pktgen sent barely more than the link, and DFS
# could go a whole run without marking any of the four sources.
qdisc_setup_shaped() {
	tc qdisc add dev "$1" root handle 1: tbf rate 2mbit burst 32k \
		latency 50ms &&
	qdisc_setup "$1" "$2" "parent 1:1"
}

# A TBF far faster than pktgen, NAME as its child: TBF never throttles,
# and only a root qdisc may be bypassed.
qdisc_setup_under_tbf() {
	tc qdisc add dev "$1" root handle 1: tbf rate 10gbit burst 1mb \
		latency 10ms &&
	qdisc_setup "$1" "$2" "parent 1:1"
}

# dfs_stat DEV FIELD...: the fields of DEV's dfs qdisc (xstats, qlen...)
# from one tc -s -j, on a line.
dfs_stat() {
	local dev=$1
	shift

	tc -s -j qdisc show dev "$dev" | python3 -c '
import json, sys
for q in json.load(sys.stdin):
    if q.get("kind") == "dfs":
        # xstats sit beside "options" in the qdisc object
        print(*(q.get(k, 0) for k in sys.argv[1:])); break
' "$@"
}

# dfs_flood_log DEV: DFS's marks and drops so far, one log line.
dfs_flood_log() {
	local v

	read -r -a v <<<"$(dfs_stat "$1" malicious cache_flows trending \
		drop_malicious drop_overlimit drop_wfs drop_cpr qlen)"
	log "dfs on $1: malicious ${v[0]} cache ${v[1]} trending ${v[2]};" \
		"dropped: malicious ${v[3]} overlimit ${v[4]} wfs ${v[5]}" \
		"cpr ${v[6]}; backlog ${v[7]}"
}

# populate DEV N: create N flows, each source once, in order.
populate() {
	pg_setup "$1" && pg_sources 0 "$2" || die "pktgen setup on $1"
	pg_send "$2"
}

# flood_until_marked DEV QDISC [keep [ingress IN]]: the flood until DFS
# has marked its sources (at most 30 s), so the timed runs measure a
# flood DFS refuses; another qdisc gets 1 s to build its queue.  With
# "keep" the flood is left running for timed_windows; with "ingress IN"
# it comes in as received on IN (scenario_ingress).
flood_until_marked() {
	local dev=$1 qd=$2 keep=${3:-} deadline=$(( SECONDS + 30 )) m=0 c
	local pgdev=${5:-$dev}

	pg_setup "$pgdev" && pg_sources $FLOOD_BASE $FLOOD_SOURCES rnd ||
		die "pktgen setup on $pgdev"
	# received on $pgdev, forwarded to $dev (scenario_ingress)
	if [ "${4:-}" = ingress ]; then
		pg_set "" "$pgdev" "xmit_mode netif_receive" \
			"dst_mac $(cat "/sys/class/net/$pgdev/address")" ||
			die "pktgen setup on $pgdev"
	fi
	pg_start "" "$PG_DEV"
	if [ "${qd#dfs}" = "$qd" ]; then
		read -r -t 1 -u "$PG_SLEEP_FD"
	else
		while [ $SECONDS -lt $deadline ]; do
			m=$(dfs_stat "$dev" malicious)
			[ "${m:-0}" -ge $FLOOD_SOURCES ] && break
			sleep 0.5
		done
		c=$(dfs_stat "$dev" cache_flows)
		log "$qd on $dev: $m of $FLOOD_SOURCES flood sources marked, $c in the cache"
		# What DFS queued before it judged drains through the TBF in a
		# second or two, dequeues that the refusal does not cost:
		# the timed windows start once the queue is empty (at most
		# 15 s; the log says when).
		deadline=$(( SECONDS + 15 ))
		while [ "$(dfs_stat "$dev" qlen)" != 0 ] && [ $SECONDS -lt $deadline ]; do
			sleep 0.5
		done
		log "$qd on $dev: $(dfs_stat "$dev" qlen) packets queued at the first window"
	fi
	[ "$keep" = keep ] || pg_stop ""
}

check_dfs_flows() {
	local dev=$1 want=$2 got

	got=$(dfs_stat "$dev" flows)
	log "dfs on $dev holds $got flows (sent $want sources)"
	[ "${got:-0}" -ge "$want" ] || die "dfs holds $got flows, expected $want"
}

# timed_runs SCENARIO FLOWS FIRST_SRC NSRC QDISC[:PARAM]@DEV...: RUNS rounds, in
# each one timed run per device; one CSV row per run.
timed_runs() {
	local scen=$1 n=$2 first=$3 nsrc=$4 i ld label dev r pps
	shift 4

	for i in $(seq "$RUNS"); do
		for ld in "$@"; do
			label=${ld%@*} dev=${ld##*@}
			pg_setup "$dev" && pg_sources "$first" "$nsrc" rnd ||
				die "pktgen setup on $dev"
			r=$(pg_run "$SECS")
			pps=$(echo "$r" | awk '$2 > 0 { printf "%.0f", $1 * 1e6 / $2 }')
			[ -n "$pps" ] || die "no pktgen result for $scen $label"
			local qd=${label%%:*} param=
			[ "$qd" != "$label" ] && param=${label#*:}
			echo "$scen,$qd,$n,$param,$i,$pps" >> "$RAW"
			log "$scen $qd flows=$n ${param:+$param }run $i: $pps pps"
		done
	done
}

# timed_stretches SCENARIO N FIRST NSRC LABEL@DEV...: the flood's runs.
# Each qdisc is flooded until DFS has judged the flood, and then, the
# flood still running, its RUNS windows of FLOOD_SECS follow back to back
# (timed_windows): the flood never pauses.  Timed in turn (timed_runs),
# each DFS saw the flood stop for the other qdiscs' runs, half a second or
# more, with no other traffic: the bitrate window that spans such a pause
# reads the flow as nearly silent, the idle epochs make the whole link its
# fair rate, p_m falls, and a flow so let go was let in at the start of
# its next run until judged again, thousands of packets queued a run.
# That is DFS forgiving a flow that went quiet on an idle
# link, with nobody to protect (an on-off flood beside TCP stays marked:
# dfs_evasion.sh): the "pulse" scenario, not the path of a flood DFS
# refuses.  Runs stopped and started again (pg_run) still paused it for
# the pktgen setup between them, and a pause long enough let the flood in
# for a run: DFS's own work then varied widely from run to run.
timed_stretches() {
	local scen=$1 n=$2 first=$3 nsrc=$4 ld
	shift 4

	for ld in "$@"; do
		flood_until_marked "${ld##*@}" "${ld%%[:@]*}" keep
		timed_windows "$scen" "$n" "${ld%@*}" "${ld##*@}"
		[ "${ld#dfs}" != "$ld" ] && dfs_flood_log "${ld##*@}"
	done
}

# timed_windows SCENARIO N LABEL DEV [keep]: RUNS windows of FLOOD_SECS of
# the flood that runs on DEV, each the packets pktgen offered in it over
# the guest's time, both read without a fork or an exec (under icount
# those would be charged to the packets); then the flood stops, unless
# "keep".
timed_windows() {
	local scen=$1 n=$2 label=$3 dev=$4 keep=${5:-} i n0 n1 t0 pps
	local qd=${label%%:*} param=

	[ "$qd" != "$label" ] && param=${label#*:}
	pg_sofar && n0=$PG_SOFAR || die "no pktgen count on $dev"
	now_us; t0=$NOW_US
	for ((i = 1; i <= RUNS; i++)); do
		read -r -t "$FLOOD_SECS" -u "$PG_SLEEP_FD"
		pg_sofar && n1=$PG_SOFAR || die "no pktgen count on $dev"
		now_us
		pps=$(( (n1 - n0) * 1000000 / (NOW_US - t0) ))
		n0=$n1 t0=$NOW_US
		echo "$scen,$qd,$n,$param,$i,$pps" >> "$RAW"
		log "$scen $qd flows=$n ${param:+$param }run $i: $pps pps"
	done
	[ "$keep" = keep ] || pg_stop ""
	return 0
}

scenario_mix() {
	local qd n dev list

	for n in $FLOWS; do
		list=()
		for qd in $QDISCS; do
			dev=$(dev_of "$qd")
			dev_add "$dev" && qdisc_setup "$dev" "$qd" ||
				die "can not set up $qd"
			# DFS is the one whose state grows with the flows:
			# all N exist before it is timed.  The others hash
			# into bins that the timed runs fill.
			if [ "${qd#dfs}" != "$qd" ]; then
				populate_measured "$dev" "$qd" "$n"
			fi
			list+=("$qd@$dev")
		done
		timed_runs mix "$n" 0 "$n" "${list[@]}"
		for qd in $QDISCS; do dev_del "$(dev_of "$qd")"; done
	done
}

# The mix with every qdisc under a TBF that never throttles (classful
# ones can not be a child here: they are root in qdisc_setup).
scenario_load() {
	local qd n dev list

	for n in $LOAD_FLOWS; do
		list=()
		for qd in $QDISCS; do
			case $qd in drr*|stfq*) continue ;; esac
			dev=$(dev_of "$qd")
			dev_add "$dev" && qdisc_setup_under_tbf "$dev" "$qd" ||
				die "can not set up $qd under tbf"
			if [ "${qd#dfs}" != "$qd" ]; then
				populate "$dev" "$n"
				check_dfs_flows "$dev" "$n"
			fi
			list+=("$qd@$dev")
		done
		timed_runs load "$n" 0 "$n" "${list[@]}"
		for qd in $QDISCS; do dev_del "$(dev_of "$qd")"; done
	done
}

# The flood: N flows known, then 4 sources at full speed into a 2 Mbit/s
# shaper with the qdisc as its child, timed by TIMING: timed_stretches
# (the flood) or timed_runs (the pulse).
flood_scenario() {
	local scen=$1 timing=$2 qd n dev list RUNS=$SWEEP_RUNS

	for n in $FLOOD_FLOWS; do
		list=()
		for qd in $QDISCS; do
			case $qd in drr*|stfq*) continue ;; esac
			dev=$(dev_of "$qd")
			dev_add "$dev" && qdisc_setup_shaped "$dev" "$qd" ||
				die "can not set up $qd"
			[ "${qd#dfs}" != "$qd" ] && populate "$dev" "$n"
			# In turn: let the flood build each queue and DFS
			# judge it before the first run.
			[ "$timing" = timed_runs ] && flood_until_marked "$dev" "$qd"
			list+=("$qd@$dev")
		done
		"$timing" "$scen" "$n" $FLOOD_BASE $FLOOD_SOURCES "${list[@]}"
		for qd in $QDISCS; do dev_del "$(dev_of "$qd")"; done
	done
}

scenario_flood() {
	flood_scenario flood timed_stretches
}

scenario_pulse() {
	flood_scenario pulse timed_runs
}

# The router's cost of a flood packet that DFS refuses, against the same
# packet dropped at the ingress hook by the rule dfs-guard makes of DFS's
# verdict (selftests/guard_nft.sh; doc/guard.md): pktgen injects the
# flood as received on b-in (xmit_mode netif_receive), the router
# forwards it to b-out, where DFS under the 2 Mbit/s TBF refuses it as
# malicious; then an nftables set of (source, destination) pairs on
# b-in's ingress, as dfs-guard's, drops it before the stack.  One
# stretch of the flood: DFS judges it, RUNS windows, the rule, RUNS
# windows.  pktgen's packet is shared (it keeps a reference), so ip_rcv
# clones it, which a NIC's packet is not: the egress path is counted a
# clone dearer than a real one.
scenario_ingress() {
	local in=b-in out=b-out RUNS=$SWEEP_RUNS i elems=

	dev_add $in && dev_add $out || die "ingress: devices"
	sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.$in.rp_filter=0
	ip route replace 10.255.0.0/16 dev $out || die "ingress: route"
	qdisc_setup_shaped $out dfs || die "ingress: dfs"
	flood_until_marked $out dfs keep ingress $in
	timed_windows ingress 1 dfs:egress $out keep
	for ((i = 0; i < FLOOD_SOURCES; i++)); do
		elems+="${elems:+, }$(pg_ip $((FLOOD_BASE + i))) . 10.255.0.1"
	done
	nft -f - <<-EOF || die "ingress: nft"
	table netdev bench_guard {
		set pair4 {
			type ipv4_addr . ipv4_addr
			flags timeout
			elements = { $elems }
		}
		chain in {
			type filter hook ingress device "$in" priority -500;
			ip saddr . ip daddr @pair4 counter drop
		}
	}
	EOF
	timed_windows ingress 1 dfs:ingress $out
	log "ingress: $(nft list chain netdev bench_guard in | grep -o 'packets [0-9]*') dropped at ingress"
	dfs_flood_log $out
	nft delete table netdev bench_guard
	dev_del $in
	dev_del $out
}

# The slab's unreclaimable kB (kmalloc's large allocations count there
# too) and vmalloc's: where DFS's flows, nodes and index are.
slab_kb() {
	awk '/^(SUnreclaim|VmallocUsed):/ { kb += $2 } END { print kb }' \
		/proc/meminfo
}

# populate_measured DEV QDISC N: populate, and from 1000 flows on a row of
# memory.csv: DFS's memory_usage against the slab's and vmalloc's growth
# while it filled.
# The flow's first packets (slab caches, pktgen's own) come before.
populate_measured() {
	local dev=$1 qd=$2 n=$3 before after usage growth

	if [ "$n" -lt 1000 ]; then
		populate "$dev" "$n"
		check_dfs_flows "$dev" "$n"
		return
	fi
	pg_setup "$dev" && pg_sources 0 1 && pg_send 1000
	sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1
	before=$(slab_kb)
	populate "$dev" "$n"
	check_dfs_flows "$dev" "$n"
	after=$(slab_kb)
	usage=$(dfs_stat "$dev" memory_usage)
	growth=$(( (after - before) * 1024 ))
	echo "$qd,$n,$usage,$growth,$(awk -v a="$usage" -v n="$n" 'BEGIN { printf "%.1f", a / n }'),$(awk -v a="$growth" -v n="$n" 'BEGIN { printf "%.1f", a / n }')" >> "$OUT/memory.csv"
	log "mem $qd flows=$n memory_usage=$usage slab growth=$growth"
}

scenario_mem() {
	local n qd dev=b-mem

	for qd in dfs dfs-fq; do
	for n in $FLOWS; do
		[ "$n" -ge 1000 ] || continue
		dev_add $dev && qdisc_setup $dev $qd || die "$qd"
		populate_measured $dev $qd "$n"
		dev_del $dev
	done
	done
}

# sweep SCENARIO OPTION VALUES SHAPED: one DFS per value of OPTION, each
# holding N flows.  SHAPED: the flood under a 2 Mbit/s TBF, each DFS timed
# in its stretch as the flood's qdiscs; else the fair mix, timed in turn.
sweep() {
	local scen=$1 opt=$2 values=$3 shaped=$4 v dev list=()
	local n=${BENCH_SWEEP_FLOWS:-1048576} RUNS=$SWEEP_RUNS

	for v in $values; do
		dev=b-$opt$v
		dev_add "$dev" || die "dummy"
		if [ "$shaped" = 1 ]; then
			DFS_EXTRA="$opt $v" qdisc_setup_shaped "$dev" dfs
		else
			DFS_EXTRA="$opt $v" qdisc_setup "$dev" dfs
		fi || die "dfs $opt $v"
		populate "$dev" "$n"
		check_dfs_flows "$dev" "$n"
		list+=("dfs:$opt=$v@$dev")
	done
	if [ "$shaped" = 1 ]; then
		timed_stretches "$scen" "$n" $FLOOD_BASE $FLOOD_SOURCES "${list[@]}"
	else
		timed_runs "$scen" "$n" 0 "$n" "${list[@]}"
	fi
	for v in $values; do dev_del "b-$opt$v"; done
}

# B-tree order, fair mix of N flows.
scenario_order() {
	sweep order order "$ORDERS" 0
}

# Cache size, for a flood of 4 malicious sources among N flows: cache 0
# keeps them in the tree, so this is cache against tree lookups.
scenario_cache() {
	sweep cache cache "$CACHES" 1
}

# perf_profile OUT: perf samples the whole guest for BENCH_PROFILE_SECS
# while pktgen runs, a report by function into OUT.txt.  Under icount
# (make bench) the guest's clock counts instructions, so perf's cpu-clock
# samples fall in proportion to the instructions each function runs.
perf_profile() {
	pg_start "" "$PG_DEV"
	perf record -q -a -F 2000 -o "$1.data" -- sleep "${BENCH_PROFILE_SECS:-2}" \
		>/dev/null 2>&1 || die "perf record"
	pg_stop ""
	perf report -q -i "$1.data" --stdio --no-children \
		--sort sym --percent-limit 0.3 > "$1.txt" 2>/dev/null
	# BENCH_SYMOFF=REGEX: the samples of the matching functions by
	# offset, to map onto source lines on the host (tools/bench/symoff.py)
	if [ -n "${BENCH_SYMOFF:-}" ]; then
		perf script -i "$1.data" -F ip,sym,symoff 2>/dev/null |
			awk '{ print $2 }' | grep -E "^(${BENCH_SYMOFF})\+" |
			sort | uniq -c | sort -rn > "$1.symoff.txt"
	fi
	rm -f "$1.data"
	log "profile: $1.txt"
}

# Where each qdisc's instructions go, on the load scenario's path (the
# qdisc under the TBF that never throttles; classful ones at the root)
# and on the flood's: results/bench/profile-QDISC-N.txt and
# profile-flood-QDISC-N.txt.  Not in the default scenarios.
scenario_profile() {
	local qd n

	command -v perf >/dev/null || die "no perf (make deps installs linux-perf)"
	for n in $LOAD_FLOWS; do
		for qd in $QDISCS; do
			case $qd in drr*|stfq*) dev_add b-prof && qdisc_setup b-prof "$qd" ;;
			*) dev_add b-prof && qdisc_setup_under_tbf b-prof "$qd" ;;
			esac || die "can not set up $qd"
			[ "${qd#dfs}" != "$qd" ] && populate b-prof "$n"
			pg_setup b-prof && pg_sources 0 "$n" rnd || die "pktgen setup"
			perf_profile "$OUT/profile-$qd-$n"
			dev_del b-prof
		done
	done
	for n in $FLOOD_FLOWS; do
		for qd in $QDISCS; do
			case $qd in drr*|stfq*) continue ;; esac
			dev_add b-prof && qdisc_setup_shaped b-prof "$qd" ||
				die "can not set up $qd"
			[ "${qd#dfs}" != "$qd" ] && populate b-prof "$n"
			flood_until_marked b-prof "$qd"
			perf_profile "$OUT/profile-flood-$qd-$n"
			dev_del b-prof
		done
	done
}

# Each scenario in a subshell: one that can not measure (die) is reported
# and the others still run.
start=$SECONDS
failed=
for s in $SCENARIOS; do
	log "scenario $s"
	( "scenario_$s" ) || {
		failed+=" $s"
		pg_stop ""
		for d in /sys/class/net/b-*; do [ -e "$d" ] && dev_del "${d##*/}"; done
	}
done
log "done in $(( SECONDS - start )) s${failed:+, failed:$failed}"
pg_teardown
[ -z "$failed" ]
