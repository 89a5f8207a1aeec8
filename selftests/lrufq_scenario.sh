# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The LRU-FQ scenario shared by lrufq_flood.sh and lrufq_normal.sh: senders
# s1..sU flood UDP at the link rate each (tools/udp_cbr.py), the other
# senders each run one TCP flow (iperf3), all through a 10 Mbit/s HTB
# class in the router.  HTB is the shaper because its leaf dequeues the
# classful child (stfq, 10:) directly and the filters sit on 10: itself.
#
#	lrufq_setup LOW_WEIGHT HIGH_WEIGHT [LRUFQ_ARGS...]
#		stfq 10: under the shaper, classes 10:1 (low) and 10:2
#		(high), pfifo children, the lrufq filter on 10:
#	lrufq_run OUTDIR SECONDS NUDP
#		runs the traffic: the floods start first and end after the
#		TCP flows; what the receiver gets from each sender and the
#		router's counters are sampled over netlink meanwhile
#	lrufq_tcp_bps OUTDIR   the TCP flows' goodputs summed, bit/s
#	lrufq_summary OUTDIR NAME
#		sets TCP, UDP, LINK (bit/s) and SHARE (TCP's of LINK, what the
#		link carried) over the window every flow ran, and logs them
#		with each TCP flow's goodput
#	lrufq_caches SIZE...
#		the cache sizes to run: LRUFQ_CACHES, or the test's own
#		SIZEs, each once

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)
LINK_RATE=${LINK_RATE:-10mbit}
LINK_BPS=${LINK_BPS:-10000000}
WARMUP=${WARMUP:-3}
# The shortest window of the shares: a slow guest starts the flows late.
LRUFQ_MIN_SPAN=${LRUFQ_MIN_SPAN:-4}

LRUFQ_ARGS=${LRUFQ_ARGS:-cache 6 probability 1/50 threshold 125}
CHILD_LIMIT=${CHILD_LIMIT:-100}

lrufq_setup()
{
	local low=$1 high=$2
	shift 2

	in_ns r tc qdisc del dev "$R_OUT" root 2>/dev/null
	setup_bottleneck_htb "$R_OUT" "$LINK_RATE" stfq || return 1
	in_ns r tc class add dev "$R_OUT" parent 10: classid 10:1 stfq weight "$low" &&
	in_ns r tc class add dev "$R_OUT" parent 10: classid 10:2 stfq weight "$high" &&
	in_ns r tc qdisc add dev "$R_OUT" parent 10:1 pfifo limit "$CHILD_LIMIT" &&
	in_ns r tc qdisc add dev "$R_OUT" parent 10:2 pfifo limit "$CHILD_LIMIT" || return 1
	# shellcheck disable=SC2086
	in_ns r tc filter add dev "$R_OUT" parent 10: protocol all prio 1 \
		lrufq ${*:-$LRUFQ_ARGS} high 10:2 low 10:1
}

# lrufq_link_bps OUTDIR: link throughput while every TCP flow ran (from
# the last one's start, past WARMUP, to a second before the first one's
# end: tools/iperf3_rates.py running_span), from the shaper's byte
# counter sampled over netlink (tools/qdisc_sample.py): a tc exec takes
# seconds under load, and once made pfifo's link 10.4 Mbit/s of a
# 10 Mbit/s shaper.
lrufq_link_bps()
{
	python3 -S - "$1" "$WARMUP" "$LRUFQ_SECS" "$TOOLS" <<'PY'
import glob, sys
out, warmup, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, sys.argv[4])
from iperf3_rates import running_span
span = running_span(glob.glob(out + "/tcp*.json"), secs)
if not span:
    sys.exit("lrufq_link_bps: no TCP flow started")
lo, hi = span[0] + warmup, span[1] - 1
win = [(float(t), int(b)) for t, b, *_ in
       (line.split() for line in open(out + "/samples"))
       if lo <= float(t) <= hi]
if len(win) < 2 or win[-1][0] - win[0][0] < 2:
    sys.exit("lrufq_link_bps: %d samples in [%d, %d]" % (len(win), lo, hi))
print(int((win[-1][1] - win[0][1]) * 8 / (win[-1][0] - win[0][0])))
PY
}

lrufq_run()
{
	local out=$1 secs=$2 nudp=$3 i udp_pids=()

	rm -rf "$out"
	mkdir -p "$out"
	# The floods first, behind a gate (Python may take seconds to
	# start), and until the last TCP flow has ended: every second a TCP
	# flow measures is a second under the floods.  The iperf3 servers
	# start while the floods' interpreters do.
	if [ -z "${LRUFQ_RX_METER:-}" ]; then
		rx_meter_setup || return 1
		LRUFQ_RX_METER=1
	fi
	LRUFQ_NUDP=$nudp
	gate_init "$out/gate"
	qdisc_sampler_start "$out/samples" --lrufq 10: --interval 0.2
	rx_sampler_start "$out/rx"
	for ((i = 1; i <= nudp; i++)); do
		gate_arm
		in_ns rcv python3 -S "$TOOLS/udp_cbr.py" sink --port $((9000 + i)) \
			--time $((secs + FLOOD_CONNECT_SECS + 120)) \
			--out "$out/udp$i.json" \
			"${GATE_ARGS[@]}" &
		udp_pids+=($!)
		gate_arm
		in_ns "s$i" python3 -S "$TOOLS/udp_cbr.py" send --dst "$(flow_dst)" \
			--port $((9000 + i)) --rate "${LINK_BPS}" \
			--time $((secs + FLOOD_CONNECT_SECS)) "${GATE_ARGS[@]}" \
			> /dev/null &
		udp_pids+=($!)
	done
	if ! start_iperf3_server $(seq $((5201 + nudp)) $((5200 + NUM_SENDERS))) ||
	   ! gate_open 120000; then
		qdisc_sampler_stop
		stop_udp_cbr "${udp_pids[@]}"
		return 1
	fi
	LRUFQ_SECS=$secs
	for ((i = nudp + 1; i <= NUM_SENDERS; i++)); do
		start_tcp_flow "s$i" $((5200 + i)) "$secs" "$out/tcp$i.json" \
			--get-server-output
	done
	# The filter as it stands late in the run, its cache warm.
	sleep $((secs - 3))
	in_ns r tc -s -d filter show dev "$R_OUT" parent 10: > "$out/filter.txt" 2>&1
	# iperf3 3.12 may lose its results exchange after a complete run:
	# the goodputs come from the intervals that ran (iperf3_rates.py).
	wait_flows || log_info "$out: an iperf3 client reported an error"
	qdisc_sampler_stop
	stop_udp_cbr "${udp_pids[@]}"
	in_ns r tc -s class show dev "$R_OUT" > "$out/class.txt"
}

# lrufq_tcp_flows OUTDIR: goodput of each TCP flow, bit/s, from WARMUP to
# the end (tools/iperf3_rates.py).
lrufq_tcp_flows()
{
	python3 -S "$TOOLS/iperf3_rates.py" "$WARMUP" "$LRUFQ_SECS" "$1"/tcp*.json
}

lrufq_tcp_bps()
{
	lrufq_tcp_flows "$1" | awk '{ s += $1 } END { print s + 0 }'
}

# lrufq_rx_bps OUTDIR: "TCP UDP SPAN START": the bit/s the receiver got
# from the TCP senders and from the floods, summed, over a window of SPAN
# seconds that starts WARMUP seconds after the last sender's first packet
# (floods first, then each TCP flow) reached the receiver, START seconds
# after the floods' first, and ends a second before the first TCP flow's
# SECS were up (SECS after its first packet) or a flood's last packet.  All from
# the receiver's per-sender counters sampled over netlink (rx_sampler_start):
# the floods' and the flows' start as the link saw it, however late a
# slow guest started each process.  With LRUFQ_FROM_FLOODS=1 (pfifo's
# control) the window starts WARMUP seconds after the floods' last first
# packet: there the floods drop TCP's SYNs, and a flow that retries for
# 3 or 7 s before its first packet gets through is the attack at work,
# not a flow to wait for (waiting left under 4 s of window).
lrufq_rx_bps()
{
	local i a tcp='' udp=''

	for ((i = 1; i <= NUM_SENDERS; i++)); do
		if [ "${FAMILY:-4}" = 6 ]; then a=${SND_IP6[i]}; else a=${SND_IP4[i]}; fi
		if [ "$i" -le "$LRUFQ_NUDP" ]; then udp+=" $a"; else tcp+=" $a"; fi
	done
	python3 -S - "$1/rx" "$WARMUP" "$LRUFQ_SECS" "$LRUFQ_MIN_SPAN" \
		"$tcp" "$udp" "${LRUFQ_FROM_FLOODS:-0}" <<'PY'
import sys
path, warmup, secs, min_span = sys.argv[1], *map(float, sys.argv[2:5])
tcp, udp = sys.argv[5].split(), sys.argv[6].split()
from_floods = sys.argv[7] == "1" and udp
rows = []
for line in open(path):
    f = line.split()
    rows.append((float(f[0]), {k: int(v) for k, v in
                               (x.split("=") for x in f[4:])}))
# The counters run on from the test's earlier runs: a sender starts when
# its count first moves.
first, last = {}, {}
for src in tcp + udp:
    prev = rows[0][1].get(src, 0) if rows else 0
    for t, c in rows:
        n = c.get(src, 0)
        if n > prev:
            first.setdefault(src, t)
            last[src] = t
        prev = n
missing = [s for s in (udp if from_floods else tcp + udp) if s not in first]
if missing:
    sys.exit("lrufq_rx_bps: nothing received from " + " ".join(missing))
lo = max(first[s] for s in udp) + warmup if from_floods else \
    max(first.values()) + warmup
# A TCP flow ends SECS after its data starts, later than its control
# connection's first packet: its last packet is no end, since a flow the
# floods starve sits out retransmission timeouts to the end of its run.
ends = [first[s] + secs for s in tcp if s in first]
hi = min(ends) - 1 if ends else min(last.values()) - 1
if udp:
    hi = min(hi, min(last[s] for s in udp) - 1)
win = [r for r in rows if lo <= r[0] <= hi]
if len(win) < 2 or win[-1][0] - win[0][0] < min_span:
    sys.exit("lrufq_rx_bps: every flow ran together for %.1f s, not %.0f"
             % (max(0, hi - lo), min_span))
(t0, a), (t1, b) = win[0], win[-1]


def bps(srcs):
    return int(sum(b.get(s, 0) - a.get(s, 0) for s in srcs) * 8 / (t1 - t0))


t_flood = min(first[s] for s in udp) if udp else min(first.values())
print(bps(tcp), bps(udp), "%.1f" % (t1 - t0), "%.1f" % (t0 - t_flood))
PY
}

lrufq_summary()
{
	local flows span start rx

	TCP=0 UDP=0 LINK=0 SHARE=0
	flows=$(lrufq_tcp_flows "$1")
	rx=$(lrufq_rx_bps "$1") || return 1
	read -r TCP UDP span start <<<"$rx"
	LINK=$((TCP + UDP))
	SHARE=$(awk -v t="$TCP" -v l="$LINK" 'BEGIN { printf "%.3f", l ? t / l : 0 }')
	log_info "$2: over ${span}s from ${start}s after the floods' first packet: tcp $((TCP / 1000)) kbit/s (share $SHARE of the link), udp $((UDP / 1000)) kbit/s, link $((LINK / 1000)) of $((LINK_BPS / 1000)) kbit/s"
	log_info "$2: tcp goodput kbit/s: $(awk '{ printf "%d ", $1 / 1000 }' <<<"$flows")"
}

# lrufq_link_ok: the link carried at least a quarter of its rate while
# the shares were measured.  A guest on a loaded host forwards less than
# the shaper's rate; STFQ still splits what it forwards, and the share is
# of that, but a link that carried almost nothing judges nothing.
lrufq_link_ok()
{
	[ "$((LINK * 4))" -ge "$LINK_BPS" ]
}

lrufq_caches()
{
	echo "${LRUFQ_CACHES:-$*}" | tr ' ' '\n' | awk '!seen[$1]++ && NF'
}
