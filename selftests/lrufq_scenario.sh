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
#		TCP flows; goodputs measured at the receiver, per second,
#		less the first WARMUP seconds
#	lrufq_tcp_bps OUTDIR / lrufq_udp_bps OUTDIR   sums, bit/s
#	lrufq_summary OUTDIR NAME
#		sets TCP, UDP (bit/s) and SHARE (TCP's of the link) and logs
#		them with each TCP flow's goodput

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)
LINK_RATE=${LINK_RATE:-10mbit}
LINK_BPS=${LINK_BPS:-10000000}
WARMUP=${WARMUP:-3}

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
	gate_init "$out/gate"
	qdisc_sampler_start "$out/samples"
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

lrufq_udp_bps()
{
	python3 -S - "$WARMUP" "$1"/udp*.json <<'PY'
import json, sys
w = int(sys.argv[1])
total = 0
for path in sys.argv[2:]:
    per_sec = json.load(open(path))["bytes_per_sec"]
    # Bins from the floods' start; the last one is the TCP flows' end.
    win = per_sec[w + 1:-1] or [0]
    total += sum(win) * 8 / len(win)
print(int(total))
PY
}

lrufq_summary()
{
	local flows

	flows=$(lrufq_tcp_flows "$1")
	TCP=$(awk '{ s += $1 } END { print s + 0 }' <<<"$flows")
	UDP=$(lrufq_udp_bps "$1")
	SHARE=$(awk -v t="$TCP" -v l="$LINK_BPS" 'BEGIN { printf "%.3f", t / l }')
	log_info "$2: tcp $((TCP / 1000)) kbit/s (share $SHARE of the link), udp $((UDP / 1000)) kbit/s"
	log_info "$2: tcp kbit/s: $(awk '{ printf "%d ", $1 / 1000 }' <<<"$flows")"
}
