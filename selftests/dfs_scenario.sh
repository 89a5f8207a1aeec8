# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The flood scenario shared by dfs_flood.sh and dfs_unmark.sh: sender s1
# floods UDP (tools/udp_cbr.py, which needs no return path, unlike iperf3
# whose control connection DFS would drop with the flood), senders s2..sN
# each run one TCP flow (iperf3), all through a 10 Mbit/s TBF in the
# router whose child is the qdisc under test.
#
#	flood_run OUTDIR SECONDS UDP_SCHEDULE CHILD_QDISC...
#		runs it (FLOOD_ARGS: more udp_cbr.py send options, e.g.
#		--src/--rotate); the flood starts first (OUTDIR/t0) and goes on
#		at its last rate until the TCP flows, which run TAIL seconds
#		past SECONDS so that the last probes still see them, have
#		ended.  TCP and UDP goodput are measured at the receiver, per
#		second, from WARMUP to SECONDS.
#		While it runs, the DFS flags of s1's flow are sampled into
#		OUTDIR/flags, lines of "SECONDS FLAGS" since the flood began.
#	flood_udp_bps OUTDIR     UDP goodput, bit/s
#	flood_xstat OUTDIR NAME  a dfs statistic at the end of the run
#	flood_util OUTDIR        link utilisation past the warm-up (0..1)
#	flood_tcp_bps OUTDIR     TCP goodputs, bit/s, one per flow

source "$(dirname "${BASH_SOURCE[0]}")/../tools/lib.sh"

TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)
LINK_RATE=${LINK_RATE:-10mbit}
LINK_BPS=${LINK_BPS:-10000000}
WARMUP=${WARMUP:-2}
TAIL=${TAIL:-3}
UDP_PORT=9000

# dfs_flow_flags SRC: flags of SRC's flow in the DFS cache ("cached" when
# it has none, "" when it is not cached).  Text, not JSON: tc 6.1 prints
# classes as text only.
dfs_flow_flags()
{
	in_ns r tc -s class show dev "$R_OUT" |
		awk -v src="$1" '$1 == "src" && $2 == src {
			f = ""
			for (i = 3; i <= NF; i++)
				if ($i == "malicious" || $i == "trending")
					f = f (f ? "," : "") $i
			print f ? f : "cached"
		}'
}

# link_bytes: bytes the bottleneck's shaper (the root qdisc) has sent.
link_bytes()
{
	in_ns r tc -s qdisc show dev "$R_OUT" |
		awk '/^qdisc/ { root = / root / } root && $1 == "Sent" { print $2; exit }'
}

# tail_phase SCHEDULE: the last phase's rate on past the schedule, until
# flood_run stops the sender once the TCP flows have ended.
tail_phase()
{
	local last=${1##*,}

	echo "${last%%:*}:$((TAIL + 120))"
}

flood_run()
{
	local out=$1 secs=$2 schedule=$3 i t t0 run udp_pids=() rc=0
	shift 3

	# Traffic runs TAIL seconds past the measured window, so that the
	# last probes (slow under emulation) still see it running.
	run=$((secs + TAIL))
	SECS_MEASURED=$secs
	mkdir -p "$out"
	in_ns r tc qdisc del dev "$R_OUT" root 2>/dev/null
	setup_bottleneck "$R_OUT" "$LINK_RATE" "$@" || return 1
	# Persistent servers, started once per topology: a one-off server of
	# the previous run may still be on its way out when the next starts.
	if ! in_ns rcv ss -Hltn "sport = :5202" | grep -q .; then
		start_iperf3_server $(seq 5202 $((5200 + NUM_SENDERS))) persistent ||
			return 1
	fi
	# The flood first, behind a gate (Python may take seconds to start
	# under emulation), and on at its last rate until the TCP flows have
	# ended: every second they measure is a second under the flood.
	gate_init "$out/gate"
	gate_arm
	in_ns rcv python3 "$TOOLS/udp_cbr.py" sink --port $UDP_PORT \
		--time $((run + 120)) --out "$out/udp.json" "${GATE_ARGS[@]}" &
	udp_pids+=($!)
	gate_arm
	# shellcheck disable=SC2086 # FLOOD_ARGS: several words
	in_ns s1 python3 "$TOOLS/udp_cbr.py" send --dst "$(flow_dst)" \
		--port $UDP_PORT --schedule "$schedule,$(tail_phase "$schedule")" \
		${FLOOD_ARGS:-} "${GATE_ARGS[@]}" > "$out/udp_send.json" &
	udp_pids+=($!)
	if ! gate_open 120000; then
		stop_udp_cbr "${udp_pids[@]}"
		return 1
	fi
	t0=$GATE_T0
	echo "$t0" > "$out/t0"	# the flags' times are from the flood's start
	for ((i = 2; i <= NUM_SENDERS; i++)); do
		start_tcp_flow "s$i" $((5200 + i)) "$run" "$out/tcp$i.json" \
			--get-server-output
	done

	# The link's own byte count at the start and the end of the window,
	# timed by sleep, not by the probes below.
	{
		sleep "$WARMUP"; echo "$EPOCHREALTIME $(link_bytes)"
		sleep $((secs - WARMUP)); echo "$EPOCHREALTIME $(link_bytes)"
	} > "$out/link" &
	FLOW_PIDS+=($!)

	# DFS flags of the flood's flow, timestamped: a probe takes a second
	# or more under emulation.  The last one is at or after SECS.
	: > "$out/flags"
	while t=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'); do
		echo "$t $(dfs_flow_flags "${SND_IP4[1]}")" >> "$out/flags"
		awk -v t="$t" -v s="$secs" 'BEGIN { exit !(t < s) }' || break
		sleep 0.5
	done
	in_ns r tc -j -s qdisc show dev "$R_OUT" > "$out/qdisc.json"
	in_ns r tc -s class show dev "$R_OUT" > "$out/class.txt"
	wait_flows || rc=1
	stop_udp_cbr "${udp_pids[@]}"
	[ $rc = 0 ] && return 0
	# iperf3 3.12 sometimes loses the results exchange at the very end
	# ("control socket has closed unexpectedly") after a complete run:
	# that is a failure only if a flow's data did not run its course.
	python3 - "$run" "$out"/tcp*.json <<'PY'
import json, sys
run = int(sys.argv[1])
for path in sys.argv[2:]:
    d = json.load(open(path))
    if len(d.get("intervals", [])) < run:
        sys.exit("%s: %d of %d seconds ran" % (path, len(d.get("intervals", [])), run))
    if "error" in d:
        print("INFO: %s: data ran %d s, then iperf3: %s"
              % (path, len(d["intervals"]), d["error"]))
PY
}

flood_udp_bps()
{
	python3 - "$1/udp.json" "$WARMUP" "$SECS_MEASURED" <<'PY'
import json, sys
per_sec = json.load(open(sys.argv[1]))["bytes_per_sec"]
w, secs = int(sys.argv[2]), int(sys.argv[3])
# The sink's bins start with the flood (the gate).
win = per_sec[w:secs] or [0]
print(int(sum(win) * 8 / len(win)))
PY
}

# Per-flow TCP goodput over the measured window (tools/iperf3_rates.py).
flood_tcp_bps()
{
	python3 "$TOOLS/iperf3_rates.py" "$WARMUP" "$SECS_MEASURED" "$1"/tcp*.json
}

flood_xstat()
{
	python3 - "$1/qdisc.json" "$2" <<'PY'
import json, sys
for q in json.load(open(sys.argv[1])):
    if q["kind"] == "dfs":
        print(q.get(sys.argv[2], 0))  # xstats are keys of the qdisc object
PY
}

flood_util()
{
	awk -v l="$LINK_BPS" 'NR == 1 { t = $1; b = $2 }
		NR == 2 { printf "%.3f\n", ($2 - b) * 8 / ($1 - t) / l }' "$1/link"
}
