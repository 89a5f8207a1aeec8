#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/bench_mq.sh   (in the test VM: make bench-mq runs it)
#
# What a second tx queue buys: two pktgen threads (kpktgend_0 and _1, one
# on each vCPU) send 64-byte UDP from BENCH_MQ_FLOWS random sources in
# queue_xmit mode through a dummy device of two tx queues, for
# BENCH_MQ_SECS a run, and the packets both offered a second are the
# measure.  Each root runs twice in a round:
#
#	1q  both threads on tx queue 0: one qdisc, one lock, two CPUs
#	2q  each thread on a queue of its own (pktgen's queue_map)
#
# for dfs_mq (a dfs a queue, the default sched fq) and mq with fq_codel
# (whose queues share nothing), one after the other in the same boot,
# BENCH_MQ_RUNS rounds, each round in a new order.  A root's gain is its
# 2q rate over its 1q rate; DFS's gain against fq_codel's is the figure.
# The guest's clock is the host's (no icount: QEMU's icount runs one vCPU
# at a time, and could not show two CPUs at once).  Writes
# results/bench-mq/raw.csv (round,qdisc,queues,pps) and table.md.
# It measures and reports; it fails only when it could not measure.
# Then bench_mq_cut.sh, in the same boot: a flood over both queues, with
# the link rate measured and with bandwidth 10mbit.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/bench_pktgen.sh"

OUT=${BENCH_OUT:-$REPO/results/bench-mq}
SECS=${BENCH_MQ_SECS:-3}
RUNS=${BENCH_MQ_RUNS:-5}
FLOWS=${BENCH_MQ_FLOWS:-1000}
DEV=b-mq
ROOTS="dfs_mq fq_codel"

die() { echo "bench-mq: $*" >&2; exit 1; }
log() { echo "bench-mq: $*" >&2; }

[ "$(nproc)" -ge 2 ] || die "needs 2 vCPUs, the guest has $(nproc)"
mkdir -p "$OUT" || exit 1
RAW=$OUT/raw.csv
echo "round,qdisc,queues,pps" > "$RAW"
{
	pg_machine
	echo "host: ${BENCH_HOST:-unknown}"
	echo "clock: wall"
} > "$OUT/meta.txt"

# root_setup ROOT 1q|2q.  dev_queue_xmit() picks a queue by the flow's
# hash whatever pktgen's queue_map says, so clsact's skbedit puts each
# thread's packets on its queue (thread 1's sources are 10.16/12), as a
# NIC's RSS would put each CPU's; both configurations pay for the filter.
root_setup() {
	local q1

	ip link del "$DEV" 2>/dev/null
	ip link add "$DEV" numtxqueues 2 type dummy &&
		ip link set "$DEV" txqueuelen 1000 up || return 1
	q1=$([ "$2" = 2q ] && echo 1 || echo 0)
	tc qdisc add dev "$DEV" clsact &&
	tc filter add dev "$DEV" egress pref 1 protocol ip flower \
		src_ip 10.16.0.0/12 action skbedit queue_mapping "$q1" &&
	tc filter add dev "$DEV" egress pref 2 matchall \
		action skbedit queue_mapping 0 || return 1
	case $1 in
	dfs_mq)		tc qdisc add dev "$DEV" root handle 1: dfs_mq ;;
	fq_codel)	tc qdisc add dev "$DEV" root handle 1: mq &&
			tc qdisc add dev "$DEV" parent 1:1 fq_codel &&
			tc qdisc add dev "$DEV" parent 1:2 fq_codel ;;
	esac
}

# pktgen: DEV@0 on kpktgend_0 and DEV@1 on kpktgend_1, queue_map Q0 and
# Q1, FLOWS random sources each, thread 1's from 10.16.0.0.
pg_two() {
	local t q

	[ -d "$PG_DIR" ] || modprobe pktgen || return 1
	pg_reset "" || return 1
	for t in 0 1; do
		q=$([ "$1" = 2q ] && echo $t || echo 0)	# pktgen's, for the record
		pg_add "" "$DEV@$t" $t &&
		pg_set "" "$DEV@$t" "xmit_mode queue_xmit" "clone_skb 0" \
			"count 0" "delay 0" "pkt_size 64" "dst 10.255.0.1" \
			"dst_mac 02:00:00:00:00:01" "udp_src_min 9" \
			"udp_src_max 9" "udp_dst_min 9" "udp_dst_max 9" \
			"queue_map_min $q" "queue_map_max $q" \
			"src_min $(pg_ip $((t << 20)))" \
			"src_max $(pg_ip $(((t << 20) + FLOWS)))" \
			"flag IPSRC_RND" || return 1
	done
}

# One run: packets a second offered by both threads together, each
# thread's count over its own time.
pg_two_run() {
	local t pps=0 n us

	pg_start "" "$DEV@1"
	sleep "$SECS"
	pg_stop ""
	for t in 0 1; do
		n=$(pg_sent "" "$DEV@$t")
		us=$(pg_usec "" "$DEV@$t")
		[ "${us:-0}" -gt 0 ] || return 1
		pps=$((pps + n * 1000000 / us))
	done
	echo "$pps"
}

# Packets (sent + dropped) each queue's qdisc took: "Q1 Q2".
queue_pkts() {
	tc -s -j qdisc show dev "$DEV" | python3 -S -c '
import json, sys
n = {q.get("parent"): q["packets"] + q["drops"] for q in json.load(sys.stdin)}
print(n.get("1:1", 0), n.get("1:2", 0))'
}

for ((r = 1; r <= RUNS; r++)); do
	# each round starts one configuration further on
	list=()
	for qd in $ROOTS; do for qs in 1q 2q; do list+=("$qd:$qs"); done; done
	n=${#list[@]}
	for ((i = 0; i < n; i++)); do
		c=${list[$(((i + r) % n))]}
		qd=${c%:*} qs=${c#*:}
		# the other queue took nothing in 1q, half in 2q
		root_setup "$qd" "$qs" || die "can not set up $qd"
		pg_two "$qs" || die "pktgen set-up failed"
		pps=$(pg_two_run) || die "$qd $qs: no result"
		read -r n1 n2 <<<"$(queue_pkts)"
		log "round $r: $qd $qs: $pps pps (queues: $n1 $n2 packets)"
		[ "$qs" = 1q ] && [ "$n2" -gt $((n1 / 100)) ] &&
			die "$qd 1q: queue 2 took $n2 packets"
		[ "$qs" = 2q ] && [ "$n2" -lt $((n1 / 4)) ] &&
			die "$qd 2q: queue 2 took $n2 packets against $n1"
		echo "$r,$qd,${qs%q},$pps" >> "$RAW"
		pg_teardown
		ip link del "$DEV"
	done
done

python3 - "$RAW" > "$OUT/table.md" <<'EOF' || die "no table"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pps = {}
for r in rows:
    pps.setdefault((r["qdisc"], r["queues"]), {})[r["round"]] = int(r["pps"])
def gains(qd):
    one, two = pps[(qd, "1")], pps[(qd, "2")]
    return [two[k] / one[k] for k in sorted(one) if k in two]
print("| root | 1 queue, pps (median) | 2 queues, pps (median) | gain, median (min-max over rounds) |")
print("|---|---:|---:|---:|")
g = {}
for qd in ("dfs_mq", "fq_codel"):
    g[qd] = gains(qd)
    print("| %s | %d | %d | %.2f (%.2f-%.2f) |" % (
        qd if qd == "dfs_mq" else "mq + fq_codel",
        statistics.median(pps[(qd, "1")].values()),
        statistics.median(pps[(qd, "2")].values()),
        statistics.median(g[qd]), min(g[qd]), max(g[qd])))
rel = [a / b for a, b in zip(g["dfs_mq"], g["fq_codel"])]
print()
print("DFS's gain over fq_codel's, round by round: median %.2f (%.2f-%.2f), %d rounds"
      % (statistics.median(rel), min(rel), max(rel), len(rel)))
EOF
cat "$OUT/table.md"

# the same boot: the flood spread over the queues, with the link rate
# measured (dfs's default) and given
"$HERE/bench_mq_cut.sh" || exit 1
CUT_OPTS="bandwidth 10mbit" CUT_NAME=cut-bandwidth "$HERE/bench_mq_cut.sh"
