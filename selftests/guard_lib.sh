# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What guard_nft.sh, guard_spoof.sh and guard_aim.sh share: dfs-guard
# (guard/) in the router of dfs_scenario.sh's topology, not in dry run,
# nftables on the sender-side interfaces, its metrics on 127.0.0.1:9747.
#
#	guard_require           skip the test without the daemon's Python
#	                        modules
#	guard_hold_hooks        keep the kernel's ingress static keys on
#	                        for the whole test (see there)
#	guard_toml FILE HOLD [LINE...]
#	                        its configuration, the qdisc 10: on R_OUT
#	                        with each LINE in its section
#	guard_start CONF LOG    the daemon in r, up once its metrics answer
#	                        (Python alone may take tens of seconds to
#	                        start in the loaded emulated guest)
#	guard_stop CONF         SIGTERM to the daemon itself, not to ip netns
#	                        exec, and wait until it withdrew what it
#	                        held and exited (it may be a child of
#	                        another shell)
#	guard_scrape FILE METRIC...
#	                        in the background, every half second, a line
#	                        "EPOCH TOTAL..." into FILE: each METRIC
#	                        summed over its labels
#	guard_sample_table FILE in the background, every half second, what
#	                        the daemon's table holds: "EPOCH N ITEM...",
#	                        N its elements (-1: no table), an ITEM each:
#	                        a source, "src>dst" (a pair) or "agg:dst"
#	guard_bg_stop FILE...   stop the scraper or sampler writing FILE: the
#	                        Python itself, which the shell that runs
#	                        ip netns exec in the background would leave
#	GUARD_RENEW, GUARD_POLICY
#	                        nftables.renew (2.0) and more [policy] lines

source "$(dirname "${BASH_SOURCE[0]}")/dfs_scenario.sh"

# GUARD: another daemon to test, e.g. an older tree's
GUARD=${GUARD:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../guard" && pwd)/dfs-guard}

guard_require()
{
	require_command iperf3 python3 nft
	/usr/bin/python3 -c 'import pyroute2, nftables, prometheus_client' ||
		{ log_test_skip "$(basename "$0" .sh)" "python3-pyroute2," \
			"-nftables or -prometheus-client missing: make deps"
		  exit "$ksft_skip"; }
}

# guard_hold_hooks: an nftables netdev ingress chain of its own, on a
# dummy device in r, for as long as the topology lives.  The daemon's
# table is the first ingress hook of the guest otherwise, so each of its
# starts and stops turns ingress_needed_key and nf_hooks_needed on or off,
# and the kernel patches the branches of every packet's receive path
# (text_poke_bp: an int3 on the site while it writes) under the flood.
# Under QEMU's TCG that livelocked the 6.1 guest twice in this test: both
# vCPUs kept trapping on an int3 of a stale translation at the site in
# __netif_receive_skb_core, while the kernel's memory already held the
# new nop and its int3 handler sent them back to run it again.  With a
# hook held from before the traffic, the daemon's only move the keys'
# counts, and nothing is patched.
guard_hold_hooks()
{
	in_ns r ip link add r-hooks type dummy &&
	in_ns r ip link set r-hooks up &&
	in_ns r nft -f - <<-EOF
	table netdev guard_test_hooks {
		chain in {
			type filter hook ingress device "r-hooks" priority 0;
		}
	}
	EOF
}

guard_toml()
{
	local file=$1 hold=$2 devs i
	shift 2

	devs=$(for ((i = 1; i <= NUM_SENDERS; i++)); do
		printf '"r-s%d",' "$i"; done)
	{
		cat <<-EOF
		dry_run = false
		tick = 0.25
		[policy]
		min_flagged = 0.5
		hold = $hold
		${GUARD_POLICY:-}
		[[qdisc]]
		dev = "$R_OUT"
		handle = "10:"
		EOF
		printf '%s\n' "$@"
		cat <<-EOF
		[nftables]
		enable = true
		interfaces = [${devs%,}]
		renew = ${GUARD_RENEW:-2.0}
		[metrics]
		listen = "127.0.0.1"
		port = 9747
		EOF
	} > "$file"
}

guard_up()
{
	in_ns r /usr/bin/python3 -c \
		'import urllib.request as u; u.urlopen("http://127.0.0.1:9747/metrics", timeout=2)' \
		2>/dev/null
}

guard_start()
{
	in_ns r /usr/bin/python3 "$GUARD" -c "$1" --timestamps 2> "$2" &
	busywait 60000 guard_up
}

guard_gone()
{
	! pgrep -f "guard/[d]fs-guard -c $1" > /dev/null
}

guard_stop()
{
	pkill -TERM -f "guard/[d]fs-guard -c $1"
	busywait 30000 guard_gone "$1"
}

guard_scrape()
{
	in_ns r /usr/bin/python3 - "$@" <<-'PY' &
	import re, sys, time, urllib.request
	out = open(sys.argv[1], "w")
	names = sys.argv[2:]
	def total(text, name):
	    return sum(float(v) for v in re.findall(
	        r"^%s(?:\{[^}]*\})? (\S+)$" % name, text, re.M))
	while True:
	    try:
	        text = urllib.request.urlopen("http://127.0.0.1:9747/metrics",
	                                      timeout=5).read().decode()
	    except OSError:
	        text = None
	    if text:
	        print("%.3f" % time.time(),
	              *("%d" % total(text, n) for n in names),
	              file=out, flush=True)
	    time.sleep(0.5)
	PY
}

guard_sample_table()
{
	in_ns r /usr/bin/python3 - "$1" <<-'PY' &
	import json, sys, time
	import nftables
	nft = nftables.Nftables()
	nft.set_json_output(True)
	out = open(sys.argv[1], "w")

	def val(v):
	    if isinstance(v, dict) and "elem" in v:
	        v = v["elem"]["val"]
	    if isinstance(v, dict) and "concat" in v:
	        return ">".join(str(val(x)) for x in v["concat"][:2])
	    if isinstance(v, dict) and "prefix" in v:
	        return "%s/%d" % (v["prefix"]["addr"], v["prefix"]["len"])
	    return str(v)

	while True:
	    # the time before the listing: what it shows was there after it
	    t = time.time()
	    rc, o, _ = nft.cmd("list table netdev dfs_guard")
	    items = None
	    if rc == 0:
	        items = []
	        for obj in json.loads(o)["nftables"]:
	            s = obj.get("set") or obj.get("map")
	            for e in (s or {}).get("elem", []):
	                if isinstance(e, list):
	                    items.append("agg:" + val(e[0]))
	                else:
	                    items.append(val(e))
	    print("%.3f" % t, -1 if items is None else len(items),
	          *(items or []), file=out, flush=True)
	    time.sleep(0.5)
	PY
}

guard_bg_gone()
{
	! pgrep -f "python3 - $1( |\$)" > /dev/null
}

guard_bg_stop()
{
	local f

	for f in "$@"; do
		pkill -f "python3 - $f( |\$)"
		busywait 10000 guard_bg_gone "$f"
	done
}
