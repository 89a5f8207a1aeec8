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
#		past SECONDS, have ended.  Goodputs are measured at the
#		receiver, per second, from WARMUP to SECONDS: for each TCP flow
#		on its own clock, for the flood and the link from when the
#		last TCP flow had started (OUTDIR/window: the flood's seconds
#		that were measured).  Under emulation the flows may start
#		seconds after the flood, which meanwhile had the link alone.
#		tools/qdisc_sample.py samples the link's counters and the DFS
#		flags of s1's flow every 0.25 s over netlink into
#		OUTDIR/flags, lines of "SECONDS FLAGS" since the flood began
#		("-": not cached, "cached": no flag), and into OUTDIR/cpr the
#		sources of every flow held for its CPR ("EPOCH IP...", a
#		line a sample that holds any).  STARVED_OK=1: a TCP
#		flow the flood kept from connecting counts as 0 (a control
#		run, where the flood should win), not as a broken run.
#	flood_udp_bps OUTDIR     UDP goodput, bit/s
#	flood_xstat OUTDIR NAME...
#	                         dfs statistics at the end of the run, a line
#	flood_util OUTDIR        link utilisation over the window (0..1)
#	flood_tcp_bps OUTDIR     TCP goodputs, bit/s, one per flow
#	flood_flag_changes OUTDIR  "SECONDS FLAGS;" at each change
#	flood_cpr_held OUTDIR    the sources ever held for their CPR, sorted
#	flood_cpr_trace OUTDIR IP  CPR's samples (OUTDIR/cpr-trace: tau, the
#	                         congested share, each flow's CPR) from 2 s
#	                         before IP was first held to 1 s after, for
#	                         the log of a test that finds it held
#	FLOOD_PING=HOST flood_run ...
#	                         HOST also pings the receiver every
#	                         FLOOD_PING_INTERVAL s (0.05), from when
#	                         the TCP flows start to when they end,
#	                         into OUTDIR/ping (ping -D)
#	flood_ping_p99 OUTDIR    the 99th percentile of those pings' RTT
#	                         over the measured window, ms

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)
LINK_RATE=${LINK_RATE:-10mbit}
LINK_BPS=${LINK_BPS:-10000000}
WARMUP=${WARMUP:-2}
TAIL=${TAIL:-5}
UDP_PORT=9000

# tail_phase SCHEDULE: the last phase's rate on past the schedule, until
# flood_run stops the sender once the TCP flows have ended: long enough
# for a flow the flood starves to connect under it (FLOOD_CONNECT_SECS).
FLOOD_TAIL_SECS=$((TAIL + FLOOD_CONNECT_SECS))
tail_phase()
{
	local last=${1##*,}

	echo "${last%%:*}:$FLOOD_TAIL_SECS"
}

flood_run()
{
	local out=$1 secs=$2 schedule=$3 i t0 run udp_pids=() rc=0 ping_pid
	shift 3

	# Traffic runs TAIL seconds past the measured window, which starts
	# when the last TCP flow has started.
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
	# The sampler and the flood first, behind a gate (Python may take
	# seconds to start under emulation), the flood on at its last rate
	# until the TCP flows have ended: every second they measure is a
	# second under the flood.
	gate_init "$out/gate"
	qdisc_sampler_start "$out/samples" --dfs-src "${SND_IP4[1]}" \
		--dfs-cpr "$out/cpr" --dfs-cpr-trace "$out/cpr-trace"
	gate_arm
	in_ns rcv python3 -S "$TOOLS/udp_cbr.py" sink --port $UDP_PORT \
		--time $((run + FLOOD_TAIL_SECS + 120)) --out "$out/udp.json" \
		"${GATE_ARGS[@]}" &
	udp_pids+=($!)
	gate_arm
	# shellcheck disable=SC2086 # FLOOD_ARGS: several words
	in_ns s1 python3 -S "$TOOLS/udp_cbr.py" send --dst "$(flow_dst)" \
		--port $UDP_PORT --schedule "$schedule,$(tail_phase "$schedule")" \
		${FLOOD_ARGS:-} "${GATE_ARGS[@]}" > "$out/udp_send.json" &
	udp_pids+=($!)
	if ! gate_open 120000; then
		flood_stop "${udp_pids[@]}"
		return 1
	fi
	t0=$GATE_T0
	echo "$t0" > "$out/t0"	# the flags' times are from the flood's start
	for ((i = 2; i <= NUM_SENDERS; i++)); do
		start_tcp_flow "s$i" $((5200 + i)) "$run" "$out/tcp$i.json" \
			--get-server-output
	done
	if [ -n "${FLOOD_PING:-}" ]; then
		in_ns "$FLOOD_PING" ping -D -n -i "${FLOOD_PING_INTERVAL:-0.05}" \
			-w "$run" "$(flow_dst)" > "$out/ping" 2>&1 &
		ping_pid=$!
	fi
	wait_flows || rc=1
	if [ -n "${FLOOD_PING:-}" ]; then
		pkill -P "$ping_pid" 2>/dev/null
		kill "$ping_pid" 2>/dev/null
		wait "$ping_pid" 2>/dev/null
	fi
	in_ns r tc -j -s qdisc show dev "$R_OUT" > "$out/qdisc.json"
	in_ns r tc -s class show dev "$R_OUT" > "$out/class.txt"
	flood_stop "${udp_pids[@]}"
	flood_window "$out" || return 1
	[ $rc = 0 ] && return 0
	# iperf3 3.12 sometimes loses the results exchange at the very end
	# ("control socket has closed unexpectedly") after a complete run:
	# that is a failure only if a flow's data did not run its course.
	# With STARVED_OK (a control run where the flood should win), a flow
	# the flood kept from connecting counts as 0, not as a broken run.
	python3 -S - "$run" "${STARVED_OK:-0}" "$out"/tcp*.json <<'PY'
import json, sys
run, starved_ok = int(sys.argv[1]), sys.argv[2] == "1"
for path in sys.argv[3:]:
    d = json.load(open(path))
    if (starved_ok and not d.get("intervals")
            and "unable to connect" in d.get("error", "")):
        print("INFO: %s: starved: %s" % (path, d["error"]))
        continue
    if len(d.get("intervals", [])) < run:
        sys.exit("%s: %d of %d seconds ran" % (path, len(d.get("intervals", [])), run))
    if "error" in d:
        print("INFO: %s: data ran %d s, then iperf3: %s"
              % (path, len(d["intervals"]), d["error"]))
PY
}

# flood_stop PID...: end the flood, its sink and the sampler.
flood_stop()
{
	qdisc_sampler_stop
	stop_udp_cbr "$@"
}

# flood_window OUTDIR: the flood's seconds [START, END) that match the TCP
# flows' measured ones, into OUTDIR/window, and the flags sampled up to
# END into OUTDIR/flags.  The window starts when every flow was running
# (tools/iperf3_rates.py running_span) plus WARMUP.
flood_window()
{
	python3 -S - "$1" "$WARMUP" "$SECS_MEASURED" "$TOOLS" <<'PY'
import glob, math, sys
out, warmup, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, sys.argv[4])
from iperf3_rates import running_span
t0 = float(open(out + "/t0").read())
span = running_span(glob.glob(out + "/tcp*.json"), secs)
off = max(0, math.ceil(span[0] - t0)) if span else 0
with open(out + "/window", "w") as fh:
    fh.write("%d %d\n" % (off + warmup, off + secs))
with open(out + "/flags", "w") as fh:
    for line in open(out + "/samples"):
        f = line.split()
        t = float(f[0]) - t0
        if 0 <= t < off + secs and len(f) == 5:
            fh.write("%.2f %s\n" % (t, f[4]))
PY
}

flood_flag_changes()
{
	awk '$2 != last { printf "%s %s;", $1, $2; last = $2 }' "$1/flags"
}

flood_cpr_held()
{
	awk '{ for (i = 2; i <= NF; i++) print $i }' "$1/cpr" 2>/dev/null |
		sort -u | xargs
}

flood_cpr_trace()
{
	awk -v ip="$2" '
		{ t[NR] = $1; line[NR] = $0 }
		!first {
			for (i = 2; i <= NF; i++)
				if (index($i, ip "=") == 1 && $i ~ /!$/)
					first = $1
		}
		END {
			if (!first)
				exit
			for (i = 1; i <= NR; i++)
				if (t[i] >= first - 2 && t[i] <= first + 1)
					print line[i]
		}' "$1/cpr-trace" 2>/dev/null
}

flood_ping_p99()
{
	python3 -S - "$1/ping" "$1/t0" "$1/window" <<'PY'
import math, re, sys
t0 = float(open(sys.argv[2]).read())
start, end = map(int, open(sys.argv[3]).read().split())
rtts = sorted(float(m.group(2)) for m in
              (re.match(r"\[([0-9.]+)\].*time=([0-9.]+) ms", l)
               for l in open(sys.argv[1]))
              if m and start <= float(m.group(1)) - t0 < end)
if rtts:
    print("%.1f" % rtts[max(0, math.ceil(0.99 * len(rtts)) - 1)])
PY
}

flood_udp_bps()
{
	python3 -S - "$1/udp.json" "$1/window" <<'PY'
import json, sys
per_sec = json.load(open(sys.argv[1]))["bytes_per_sec"]
start, end = map(int, open(sys.argv[2]).read().split())
# The sink's bins start with the flood (the gate), as the window does.
win = per_sec[start:end] or [0]
print(int(sum(win) * 8 / len(win)))
PY
}

# Per-flow TCP goodput over the measured window (tools/iperf3_rates.py).
flood_tcp_bps()
{
	python3 -S "$TOOLS/iperf3_rates.py" "$WARMUP" "$SECS_MEASURED" "$1"/tcp*.json
}

flood_xstat()
{
	python3 -S - "$1/qdisc.json" "${@:2}" <<'PY'
import json, sys
for q in json.load(open(sys.argv[1])):
    if q["kind"] == "dfs":
        # xstats are keys of the qdisc object
        print(*(q.get(name, 0) for name in sys.argv[2:]))
PY
}

# The link's bytes over the window, between the first and the last samples
# in it.
flood_util()
{
	read -r start end < "$1/window"
	awk -v t0="$(cat "$1/t0")" -v s="$start" -v e="$end" -v l="$LINK_BPS" '
		{ t = $1 - t0 }
		t >= s && t <= e { if (!n++) { ta = t; ba = $2 } tb = t; bb = $2 }
		END { if (tb > ta) printf "%.3f\n", (bb - ba) * 8 / (tb - ta) / l
		      else print 0 }' "$1/samples"
}
