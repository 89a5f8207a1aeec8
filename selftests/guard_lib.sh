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
#	guard_bgp_start DIR NS ADDR
#	                        DIR in the guest's /tmp (FRR's own user
#	                        writes there, and the daemon's socket is
#	                        there): a real upstream: FRR's bgpd in NS (a
#	                        sender), its router at ADDR on the sender's
#	                        link, and ExaBGP in r peering with it, ipv4
#	                        and ipv6 flow, through dfs-guard-exabgp to
#	                        the socket DIR/exabgp.sock (the relay's
#	                        grace GUARD_GRACE, 20 s); up once FRR says
#	                        Established
#	guard_bgp_toml DIR      the [flowspec] section for that socket, to
#	                        append to guard_toml's file
#	guard_sample_bgp FILE DIR
#	                        in the background, every half second, FRR's
#	                        side: "EPOCH STATE N ROUTE...", STATE the
#	                        session's, N the FlowSpec routes FRR holds,
#	                        a ROUTE each as "from>to"
#	guard_bgp_stop DIR [OUT]
#	                        ExaBGP and FRR stopped, their logs to OUT
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

# guard_bgp_start DIR NS ADDR: FRR in NS at ADDR, ExaBGP in r.  ExaBGP
# runs as root and ExaBGP's own user is not needed here: the package
# check (dkms_install.sh) runs it as Debian does.
guard_bgp_start()
{
	local dir=$1 ns=$2 addr=$3 local_addr

	local_addr=$(in_ns r ip -4 -o route get "$addr" |
		sed -n 's/.* src \([0-9.]*\).*/\1/p')
	rm -rf "$dir"
	mkdir -p "$dir/frr"
	chown frr:frr "$dir/frr"
	cat > "$dir/frr/frr.conf" <<-EOF
	frr defaults traditional
	hostname upstream
	log file $dir/frr/frr.log informational
	router bgp 64500
	 bgp router-id $addr
	 no bgp ebgp-requires-policy
	 neighbor $local_addr remote-as 64512
	 neighbor $local_addr timers 3 9
	 address-family ipv4 flowspec
	  neighbor $local_addr activate
	 exit-address-family
	 address-family ipv6 flowspec
	  neighbor $local_addr activate
	 exit-address-family
	EOF
	cat > "$dir/exabgp.conf" <<-EOF
	process dfs-guard {
		run $(dirname "$GUARD")/dfs-guard-exabgp --grace ${GUARD_GRACE:-20} $dir/exabgp.sock;
		encoder text;
	}
	neighbor $addr {
		router-id $local_addr;
		local-address $local_addr;
		local-as 64512;
		peer-as 64500;
		hold-time 9;
		family { ipv4 flow; ipv6 flow; }
		api { processes [ dfs-guard ]; }
	}
	EOF
	GUARD_BGP_NS=$ns GUARD_BGP_PEER=$local_addr
	local common=(-d -u frr -g frr --vty_socket "$dir/frr"
		      -z "$dir/frr/zserv.api" -f "$dir/frr/frr.conf")
	in_ns "$ns" /usr/lib/frr/zebra -i "$dir/frr/zebra.pid" "${common[@]}" &&
	in_ns "$ns" /usr/lib/frr/bgpd -i "$dir/frr/bgpd.pid" -p 179 \
		-l "$addr" "${common[@]}" || return 1
	in_ns r env exabgp.daemon.user=root exabgp.api.cli=false \
		exabgp.daemon.daemonize=false \
		exabgp.log.destination="$dir/exabgp.log" \
		exabgp "$dir/exabgp.conf" > /dev/null 2>&1 &
	busywait 120000 guard_bgp_established "$dir"
}

guard_bgp_state()
{
	in_ns "$GUARD_BGP_NS" vtysh --vty_socket "$1/frr" \
		-c "show bgp neighbors $GUARD_BGP_PEER json" 2>/dev/null |
		python3 -S -c 'import json, sys
print(list(json.load(sys.stdin).values())[0].get("bgpState", "?"))' \
		2>/dev/null
}

guard_bgp_established()
{
	[ "$(guard_bgp_state "$1")" = Established ]
}

guard_bgp_toml()
{
	cat <<-EOF
	[flowspec]
	enable = true
	socket = "$1/exabgp.sock"
	group = ""
	EOF
}

guard_sample_bgp()
{
	in_ns "$GUARD_BGP_NS" /usr/bin/python3 - "$1" "$2/frr" \
		"$GUARD_BGP_PEER" "$TOOLS/lablib" <<-'PY' &
	import subprocess, sys, time
	out = open(sys.argv[1], "w")
	vty, peer = sys.argv[2], sys.argv[3]
	sys.path.insert(0, sys.argv[4])
	from fs_install import documents, unoffset

	while True:
	    t = time.time()
	    try:
	        o = subprocess.run(
	            ["vtysh", "--vty_socket", vty,
	             "-c", "show bgp neighbors %s json" % peer,
	             "-c", "show bgp ipv4 flowspec detail json",
	             "-c", "show bgp ipv6 flowspec detail json"],
	            capture_output=True, text=True, timeout=10).stdout
	        docs = documents(o)
	        state = list(docs[0].values())[0].get("bgpState", "?")
	        rs = ["%s>%s" % (unoffset(r[0].get("from", "*")),
	                         unoffset(r[0].get("to", "*")))
	              for r in docs[1:]
	              if isinstance(r, list) and r and isinstance(r[0], dict)]
	    except (subprocess.TimeoutExpired, IndexError, AttributeError):
	        state, rs = "?", []
	    print("%.3f" % t, state, len(rs), *rs, file=out, flush=True)
	    time.sleep(max(0.0, 0.5 - (time.time() - t)))
	PY
}

guard_bgp_stop()
{
	local f

	pkill -f "exabgp $1/exabgp.conf"
	for f in "$1"/frr/bgpd.pid "$1"/frr/zebra.pid; do
		[ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	busywait 10000 bash -c "! pgrep -f 'exabgp $1/exabgp.conf'" > /dev/null
	[ -z "${2:-}" ] || cp "$1/exabgp.log" "$1/frr/frr.log" "$2/" 2>/dev/null
}
