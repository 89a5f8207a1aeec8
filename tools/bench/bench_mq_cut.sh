#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/bench_mq_cut.sh   (in the test VM: make bench-mq runs it
# after bench_mq.sh)
#
# How fast a flood is cut when the device spreads it over its tx queues.
# The bottleneck is the mqlink test device (selftests/drivers/mqlink): mql0
# with two tx queues of a four-packet ring each, on a 10 Mbit/s wire to
# mql1.  Two pktgen threads send through mql0's root qdisc (queue_xmit):
#
#	kpktgend_0  the link's users: 4 sources, 500-byte UDP, 4 Mbit/s in
#	            all, from the start of the run
#	kpktgend_1  the flood: one source at twice the link (1000-byte UDP,
#	            20 Mbit/s), from CUT_BG seconds on
#
# every packet to UDP port 9 or 10 at random.  clsact on mql0's egress
# places them: "1q" puts everything on tx queue 0; "2q" puts port 10 on
# queue 1, so the flood (and every user) is on both queues.  Roots:
#
#	dfs 1q      one dfs, the root of the whole device, sees all of the
#	            flood with the whole buffer: what the others are held to
#	dfs_mq 1q   queue 0's dfs sees all of it, with its part of the buffer
#	dfs_mq 2q   each queue's dfs sees half of it; one verdict for both
#	mq+dfs 2q   mq with a dfs on each queue: two instances that share
#	            nothing, each with a whole buffer, for comparison
#
# all with dfs's defaults and CUT_OPTS (e.g. "bandwidth 10mbit": the
# link's rate, which dfs_mq's queues share).  On mql1's ingress, flower filters count what
# the wire delivered of the flood by port (so by queue in 2q), and of the
# users, sampled over netlink every 20 ms (tools/qdisc_sample.py).  The
# flood's first delivered packet is its start; it is cut from the first
# sample after which neither port's count grows for a second, and "back"
# if either grows again later.  Each round in a new order,
# BENCH_MQ_CUT_RUNS rounds.  Writes
# results/bench-mq/cut.csv and cut.md (CUT_NAME.csv and .md).  It measures and reports; it fails
# only when it could not measure.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/bench_pktgen.sh"

OUT=${BENCH_OUT:-$REPO/results/bench-mq}
RUNS=${BENCH_MQ_CUT_RUNS:-5}
BG=${CUT_BG:-4}		# the users alone, before the flood
SECS=${CUT_SECS:-10}	# the flood's run
FLOOD=10.9.0.1
CONFIGS="dfs:1q dfs_mq:1q dfs_mq:2q mq+dfs:2q"
OPTS=${CUT_OPTS:-}
NAME=${CUT_NAME:-cut}

die() { echo "bench-mq-cut: $*" >&2; exit 1; }
log() { echo "bench-mq-cut: $*" >&2; }

[ "$(nproc)" -ge 2 ] || die "needs 2 vCPUs, the guest has $(nproc)"
[ -d /sys/class/net/mql0 ] ||
	die "needs the mqlink test device (make test-modules)"
mkdir -p "$OUT" || exit 1
echo 10000000 > /sys/module/mqlink/parameters/rate || exit 1
ip link set mql0 up && ip link set mql1 up || exit 1

# cut_setup ROOT 1q|2q: mql0's root and placement, mql1's counters.
cut_setup() {
	local b

	tc qdisc del dev mql0 root 2>/dev/null
	tc qdisc del dev mql0 clsact 2>/dev/null
	tc qdisc del dev mql1 clsact 2>/dev/null
	b="qdisc add dev mql0 clsact"$'\n'
	[ "$2" = 2q ] &&
		b+="filter add dev mql0 egress pref 1 protocol ip flower ip_proto udp dst_port 10 action skbedit queue_mapping 1"$'\n'
	b+="filter add dev mql0 egress pref 2 matchall action skbedit queue_mapping 0"$'\n'
	b+="qdisc add dev mql1 clsact"$'\n'
	b+="filter add dev mql1 ingress pref 1 protocol ip flower src_ip $FLOOD ip_proto udp dst_port 9 action pass"$'\n'
	b+="filter add dev mql1 ingress pref 2 protocol ip flower src_ip $FLOOD ip_proto udp dst_port 10 action pass"$'\n'
	b+="filter add dev mql1 ingress pref 3 protocol ip flower src_ip 10.0.0.0/24 action pass"$'\n'
	case $1 in
	dfs)	b+="qdisc add dev mql0 root handle 1: dfs $OPTS"$'\n' ;;
	dfs_mq)	b+="qdisc add dev mql0 root handle 1: dfs_mq $OPTS"$'\n' ;;
	mq+dfs)	b+="qdisc add dev mql0 root handle 1: mq"$'\n'
		b+="qdisc add dev mql0 parent 1:1 dfs $OPTS"$'\n'
		b+="qdisc add dev mql0 parent 1:2 dfs $OPTS"$'\n' ;;
	esac
	tc -batch - <<<"$b"
}

# pg_dev DEV@T THREAD PKT_SIZE DELAY_NS SRC_MIN SRC_MAX [RND]
pg_dev() {
	pg_add "" "$1" "$2" &&
	pg_set "" "$1" "xmit_mode queue_xmit" "clone_skb 0" "count 0" \
		"delay $4" "pkt_size $3" "dst 10.255.0.1" \
		"dst_mac 02:00:00:00:00:01" "udp_src_min 9" "udp_src_max 9" \
		"udp_dst_min 9" "udp_dst_max 11" "flag UDPDST_RND" \
		"src_min $5" "src_max $6" ${7:+"flag IPSRC_RND"}
}

# cut_run DIR: the users, then the flood beside them; samples in DIR.
cut_run() {
	local dir=$1 sampler start2

	mkdir -p "$dir" && rm -f "$dir/ready"
	pg_reset "" || return 1
	# 4 sources drawn from [.1, .5): 1,000 packets of 500 bytes a second
	pg_dev mql0@0 0 500 1000000 10.0.0.1 10.0.0.5 rnd || return 1
	python3 -S "$REPO/tools/qdisc_sample.py" --dev mql1 --ingress \
		--interval 0.02 --out "$dir/samples" --ready "$dir/ready" &
	sampler=$!
	while [ ! -e "$dir/ready" ]; do
		kill -0 $sampler 2>/dev/null || return 1
		sleep 0.1
	done
	pg_start "" mql0@0
	sleep "$BG"
	# a second start runs the devices added since (and goes on with the
	# running one); both writes return at the stop
	pg_dev mql0@1 1 1000 400000 $FLOOD $FLOOD || return 1
	(pg_write "" "$PG_DIR/pgctrl" start) &
	start2=$!
	sleep "$SECS"
	pg_stop ""
	wait $start2
	kill $sampler && wait $sampler
	tc -s -d qdisc show dev mql0 > "$dir/qdisc.txt"
	pg_reset ""
}

modprobe pktgen || die "no pktgen"
CSV=$OUT/$NAME.csv
echo "round,config,cut_s,back,flood_kbit_after,users_kbit_before,users_kbit_flood" > "$CSV"
read -ra list <<<"$CONFIGS"
n=${#list[@]}
for ((r = 1; r <= RUNS; r++)); do
	for ((i = 0; i < n; i++)); do
		c=${list[$(((i + r) % n))]}
		cut_setup "${c%:*}" "${c#*:}" || die "can not set up $c"
		dir=$OUT/$NAME-$r-${c/+/-}
		cut_run "$dir" || die "$c: the run failed"
		line=$(python3 - "$dir/samples" "$FLOOD" "$BG" <<'EOF'
import sys
path, flood, bg = sys.argv[1], sys.argv[2], float(sys.argv[3])
rows = []
for line in open(path):
    f = line.split()
    c = dict(x.split("=") for x in f[4:] if "=" in x)
    rows.append((float(f[0]), {k: int(v) for k, v in c.items()}))
ports = ["%s:9" % flood, "%s:10" % flood]
users = "10.0.0.0"
fl = lambda c: sum(c.get(p, 0) for p in ports)
start = next((t for t, c in rows if fl(c) > 0), None)
if start is None:
    sys.exit("no flood packet delivered")
# cut: from the first sample after which no port's count grew for a
# second; back: the flood grew again after that
def grew(a, b):
    return any(b[1].get(p, 0) > a[1].get(p, 0) for p in ports)
steps = [(b[0], grew(a, b)) for a, b in zip(rows, rows[1:]) if b[0] >= start]
cut = None
for i, (t, g) in enumerate(steps):
    if g:
        continue
    quiet = [x for x in steps[i:] if x[0] <= t + 1.0]
    if steps[-1][0] >= t + 1.0 and not any(x[1] for x in quiet):
        cut = t
        break
back = cut is not None and any(g for t, g in steps if t > cut + 1.0)
end = rows[-1][0]
def rate(key, a, b):
    sel = [(t, c) for t, c in rows if a <= t <= b]
    if len(sel) < 2 or sel[-1][0] <= sel[0][0]:
        return 0
    g = key(sel[-1][1]) - key(sel[0][1])
    return g * 8 / (sel[-1][0] - sel[0][0]) / 1000
u = lambda c: c.get(users, 0)
# the flood after its first 2 s, the users before it and from 2 s on
print("%s %d %.0f %.0f %.0f" % (
    "%.3f" % (cut - start) if cut is not None else "-", back,
    rate(fl, start + 2, end), rate(u, start - bg + 1, start),
    rate(u, start + 2, end)))
EOF
) || die "$c: no result"
		read -r cut back fk ub uf <<<"$line"
		log "round $r: $c: cut after $cut s$([ "$back" = 1 ] && echo ", then back"); flood $fk kbit/s after 2 s; users $ub kbit/s before, $uf during"
		echo "$r,$c,$cut,$back,$fk,$ub,$uf" >> "$CSV"
	done
done
tc qdisc del dev mql0 root 2>/dev/null
tc qdisc del dev mql0 clsact 2>/dev/null
tc qdisc del dev mql1 clsact 2>/dev/null

python3 - "$CSV" "$OPTS" $CONFIGS > "$OUT/$NAME.md" <<'EOF' || die "no table"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
opts = sys.argv[2]
configs = sys.argv[3:]
print("| root | queues | cut after, s: median (min-max) | back after the cut | flood after 2 s, kbit/s (median) | users before / during, kbit/s (median) |")
print("|---|---|---:|---:|---:|---:|")
for cfg in configs:
    r = [x for x in rows if x["config"] == cfg]
    if not r:
        continue
    cut = [float(x["cut_s"]) for x in r if x["cut_s"] != "-"]
    med = lambda k: statistics.median(float(x[k]) for x in r)
    print("| %s | %s | %s | %d of %d | %.0f | %.0f / %.0f |" % (
        cfg.split(":")[0], cfg.split(":")[1][0],
        "%.2f (%.2f-%.2f)%s" % (statistics.median(cut), min(cut), max(cut),
                                "" if len(cut) == len(r) else
                                ", %d never" % (len(r) - len(cut)))
        if cut else "never",
        sum(int(x["back"]) for x in r), len(r), med("flood_kbit_after"),
        med("users_kbit_before"), med("users_kbit_flood")))
print()
print("%d rounds%s; cut: the flood's first second with nothing delivered "
      "on either port, from its first packet delivered"
      % (len(rows) // len(configs), ", dfs %s" % opts if opts else ""))
EOF
cat "$OUT/$NAME.md"
