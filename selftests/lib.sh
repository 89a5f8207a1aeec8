# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the sch_dfs selftests, in the style of the kernel's
# tools/testing/selftests/net/forwarding/lib.sh.  Source it:
#
#	source "$(dirname "$0")/lib.sh"
#
# Tests run as root in the test VM (tools/vm-run.sh), where our modules are
# loaded and build/tc is first on PATH.  Their Python (the tools, the
# JSON readers here) is the standard library alone and runs as
# "python3 -S": site's path setup costs the emulated CPU half a second
# of each of the hundreds of interpreters a make check starts.
#
# Result reporting (kselftest):
#	RET=0                      before each test case
#	check_err $? "message"     fail the case if $? != 0
#	check_fail $? "message"    fail the case if $? == 0
#	check_report FILE          log a checker's INFO lines, fail on its FAIL lines
#	log_test "name"            print "TEST: name [ OK ]" / "[FAIL]" + reason
#	log_test_skip "name" [why] print "TEST: name [SKIP]"
#	log_info "text"            print "INFO: text"
#	ksft_exit                  print totals, exit 1 on any failure, 4 if
#	                           everything was skipped, else 0
#	                           (or just: exit $EXIT_STATUS)
#	require_command CMD...     skip the whole test (exit 4) if CMD missing
#	require_root, require_module MOD..., require_qdisc KIND
#
# Topology (all names and addresses in our own network namespaces):
#
#	s1 --veth--\
#	s2 --veth---+-- r (router) --"r-out"--veth-- rcv
#	sN --veth--/
#
#	setup_topology N           senders s1..sN, router r, receiver rcv
#	topo_cleanup               kill processes in them, delete them
#	nsname NAME                the real netns name of s1/r/rcv/...
#	in_ns NAME CMD...          run CMD in namespace NAME (ip netns exec,
#	                           or ip/tc -netns)
#	setup_bottleneck DEV RATE CHILD_QDISC...
#	                           in r: TBF root 1: at RATE, CHILD as 10: under it
#	setup_bottleneck_htb DEV RATE CHILD_QDISC...   same with an HTB root
#	set_reverse_delay DELAY    netem delay on rcv's egress (the ACK path)
#	stfq_class_sent NS DEV CLASSID...   "BYTES PKTS" sent by each stfq
#	                           class, one line, from one dump
#
# Traffic (iperf3; one server per flow: an iperf3 server serves one test at
# a time):
#	start_iperf3_server PORT... [persistent]  in rcv; waits until listening
#	start_tcp_flow NAME PORT SECONDS OUTFILE [IPERF3_ARGS...]   background
#	start_udp_flow NAME PORT SECONDS RATE OUTFILE [IPERF3_ARGS...]
#	wait_flows                 wait for every started flow; 1 if one failed
#	                           or hung (killed FLOW_GRACE s past its end)
#	rx_meter_setup; rx_bytes; rx_rates A B    per-sender rates measured at
#	                           rcv over a common window (see below)
#	iperf3_goodput FILE...     receiver-side goodput in bit/s, one per line
#	jain_index X...            Jain's fairness index of the numbers
#
# Variables set by setup_topology: NUM_SENDERS, RCV_IP4, RCV_IP6,
# SND_IP4[i], SND_IP6[i], R_OUT (= r-out).  FAMILY=6 makes the flow
# helpers use IPv6.

# --- kselftest exit codes and result bookkeeping --------------------------

ksft_pass=0
ksft_fail=1
ksft_xfail=2
ksft_skip=4

RET=0			# status of the current test case
RETMSG=			# reason of the first failure in the current case
EXIT_STATUS=0		# status of the whole test program
NUM_PASS=0 NUM_FAIL=0 NUM_SKIP=0
VERBOSE=${VERBOSE:-0}
PAUSE_ON_FAIL=${PAUSE_ON_FAIL:-no}

# check_err ERR MSG: record MSG as the failure of the current case if ERR
# is non-zero (and nothing failed before in this case).
check_err()
{
	local err=$1 msg=$2

	if [ "$RET" -eq 0 ] && [ "$err" -ne 0 ]; then
		RET=$err
		RETMSG=$msg
	fi
}

# check_fail ERR MSG: the opposite: record MSG if ERR is zero (the command
# was expected to fail).
check_fail()
{
	local err=$1 msg=$2

	if [ "$RET" -eq 0 ] && [ "$err" -eq 0 ]; then
		RET=$ksft_fail
		RETMSG=$msg
	fi
}

# check_report FILE: the lines of a test's own checker (a Python block
# that prints "INFO: ..." and "FAIL: ..."): each INFO logged, the FAILs
# recorded as one error, joined by ';'.
check_report()
{
	local line fails

	grep '^INFO: ' "$1" | sed 's/^INFO: //' | while read -r line; do
		log_info "$line"
	done
	fails=$(grep '^FAIL: ' "$1" | sed 's/^FAIL: //' | paste -sd ';')
	[ -z "$fails" ]
	check_err $? "$fails"
}

# log_test NAME [OPT_DESC]: report the current case from RET/RETMSG and
# reset them.  A failure sets EXIT_STATUS to 1.
log_test()
{
	local test_name=$1 opt_str=${2:+($2)}

	if [ "$RET" -ne 0 ]; then
		EXIT_STATUS=$ksft_fail
		NUM_FAIL=$((NUM_FAIL + 1))
		printf "TEST: %-60s  [FAIL]\n" "$test_name $opt_str"
		[ -n "$RETMSG" ] && printf "\t%s\n" "$RETMSG"
		if [ "$PAUSE_ON_FAIL" = yes ]; then
			echo "Hit enter to continue, 'q' to quit"
			local a; read -r a
			[ "$a" = q ] && exit 1
		fi
	else
		NUM_PASS=$((NUM_PASS + 1))
		printf "TEST: %-60s  [ OK ]\n" "$test_name $opt_str"
	fi
	RET=0
	RETMSG=
	return 0
}

# log_test_skip NAME [REASON]
log_test_skip()
{
	NUM_SKIP=$((NUM_SKIP + 1))
	printf "TEST: %-60s  [SKIP]\n" "$1"
	[ -n "${2:-}" ] && printf "\t%s\n" "$2"
	RET=0
	RETMSG=
	return 0
}

log_info()
{
	echo "INFO: $*"
}

# ksft_exit: print the totals and exit with the program's status.
ksft_exit()
{
	echo "# Totals: pass:$NUM_PASS fail:$NUM_FAIL skip:$NUM_SKIP"
	if [ "$EXIT_STATUS" -ne 0 ] || [ "$NUM_FAIL" -ne 0 ]; then
		exit $ksft_fail
	fi
	if [ "$NUM_PASS" -eq 0 ] && [ "$NUM_SKIP" -gt 0 ]; then
		exit $ksft_skip
	fi
	exit $ksft_pass
}

# --- requirements: skip (exit 4) when the environment lacks something ------

require_command()
{
	local cmd

	for cmd in "$@"; do
		if ! command -v "$cmd" >/dev/null 2>&1; then
			echo "SKIP: $cmd not installed"
			exit $ksft_skip
		fi
	done
}

require_root()
{
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: need root"
		exit $ksft_skip
	fi
}

require_module()
{
	local m

	for m in "$@"; do
		[ -d "/sys/module/$m" ] && continue
		if ! modprobe -q "$m"; then
			echo "SKIP: module $m not available"
			exit $ksft_skip
		fi
	done
}

# require_qdisc KIND [OPTIONS...]: skip unless tc and the kernel both know
# the qdisc (tried on lo in a throwaway namespace).
require_qdisc()
{
	local ns="rq-$$-$RANDOM" ok=0

	require_command tc ip
	ip netns add "$ns" || exit $ksft_skip
	ip -n "$ns" link set lo up
	tc -n "$ns" qdisc add dev lo root "$@" 2>/dev/null && ok=1
	ip netns del "$ns"
	if [ $ok = 0 ]; then
		echo "SKIP: qdisc '$*' not supported by tc or the kernel"
		exit $ksft_skip
	fi
}

# busywait TIMEOUT_MS CMD...: run CMD every 100 ms until it succeeds or
# TIMEOUT_MS has passed; CMD's last status.  (As busywait in the kernel's
# selftests/net/forwarding/lib.sh.)
busywait()
{
	local timeout=$1 start=$SECONDS rc
	shift

	while :; do
		"$@" && return 0
		rc=$?
		[ $(((SECONDS - start) * 1000)) -ge "$timeout" ] && return $rc
		sleep 0.1
	done
}

# --- a common start for slow starters ---------------------------------------
#
# A Python process can take many seconds to start in a loaded TCG guest,
# a UDP sender started beside 8 TCP flows among them.  A flood started
# "before" the flows it competes with then runs after them, and the two
# goodputs, each over its own run, add up to more than the link.
# Such processes take "${GATE_ARGS[@]}" (tools/lablib/gate.py): they set
# up, say they are ready, and wait; gate_open lets them all go at once.
#
#	gate_init DIR		a new gate, its files in DIR
#	gate_arm		GATE_ARGS for the next process behind the gate
#	gate_open TIMEOUT_MS	wait until every armed process is ready, then
#				open; GATE_T0 is then the opening, on
#				EPOCHREALTIME's clock

gate_init()
{
	GATE_DIR=$1
	GATE_N=0
	rm -rf "$GATE_DIR" && mkdir -p "$GATE_DIR"
}

gate_arm()
{
	GATE_N=$((GATE_N + 1))
	GATE_ARGS=(--ready "$GATE_DIR/ready.$GATE_N" --go "$GATE_DIR/go")
}

gate_ready_count()
{
	find "$GATE_DIR" -name 'ready.*' | wc -l
}

gate_all_ready()
{
	[ "$(gate_ready_count)" -ge "$GATE_N" ]
}

gate_open()
{
	if ! busywait "$1" gate_all_ready; then
		echo "gate: $(gate_ready_count) of $GATE_N processes ready after $(($1 / 1000)) s" >&2
		return 1
	fi
	echo 0 > "$GATE_DIR/go.tmp" && mv "$GATE_DIR/go.tmp" "$GATE_DIR/go"
	GATE_T0=$EPOCHREALTIME
}

# qdisc_sampler_start OUTFILE SAMPLER_ARGS...: tools/qdisc_sample.py in
# r on R_OUT, behind the gate (armed here; it is ready once it samples),
# until qdisc_sampler_stop; SAMPLER_PIDS has its job.  Timing bounds are
# judged on its samples, not on tc execs, which take seconds under load.
# rx_sampler_start OUTFILE: the same in rcv, of what rcv receives from
# each sender (rx_meter_setup first): "SRC=BYTES" per sender.
# sampler_start NS DEV OUTFILE SAMPLER_ARGS...: either, anywhere.
sampler_start()
{
	local ns=$1 dev=$2 out=$3
	shift 3

	gate_arm
	in_ns "$ns" python3 -S "$(dirname "${BASH_SOURCE[0]}")/../tools/qdisc_sample.py" \
		--dev "$dev" --out "$out" --time 3600 "$@" \
		--ready "${GATE_ARGS[1]}" &
	SAMPLER_PIDS+=($!)
}

qdisc_sampler_start()
{
	sampler_start r "$R_OUT" "$@"
}

rx_sampler_start()
{
	sampler_start rcv eth0 "$1" --ingress --interval 0.2
}

qdisc_sampler_stop()
{
	pkill -TERM -f 'qdisc_sample\.py ' 2>/dev/null
	[ ${#SAMPLER_PIDS[@]} -eq 0 ] || wait "${SAMPLER_PIDS[@]}"
	SAMPLER_PIDS=()
	return 0
}

# stop_udp_cbr [PID...]: end every tools/udp_cbr.py of this test (SIGTERM:
# each writes its report first), then wait for the PIDs given, the
# background jobs that started them.  Tests run one at a time in the VM.
stop_udp_cbr()
{
	pkill -TERM -f 'udp_cbr\.py (send|sink) ' 2>/dev/null
	[ $# -eq 0 ] || wait "$@"
	return 0
}

# --- our modules ------------------------------------------------------------

# ko_path MODULE: where vm-run.sh loaded MODULE from (VM_MODULES_DIR: make
# check-debug and KERNEL= build elsewhere), each module in a directory of
# its own name (Kbuild).
ko_path()
{
	echo "${VM_MODULES_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}/$1/$1.ko"
}

# module_unused MODULE: wait up to 20 s for MODULE's last references to go
# (a namespace's or a qdisc's teardown is asynchronous); 1 if they do not.
module_unused()
{
	local i

	for ((i = 0; i < 100; i++)); do
		[ "$(cat "/sys/module/$1/refcnt" 2>/dev/null)" = 0 ] && return 0
		sleep 0.2
	done
	return 1
}

# --- network namespaces -----------------------------------------------------

# Every namespace name gets this prefix, so that parallel runs (or a test
# run on a real machine) do not collide.  Use nsname/in_ns to refer to them.
NS_PREFIX=${NS_PREFIX:-dfs$$-}
TOPO_NS=()		# real names of the namespaces we created
FLOW_PIDS=()		# background iperf3 clients
SAMPLER_PIDS=()		# tools/qdisc_sample.py jobs
FLOW_OUTS=()		# and their JSON output files
FLOW_END=0		# $SECONDS by which every iperf3 client should be done
FLOW_GRACE=${FLOW_GRACE:-180}	# then wait_flows kills it (flow_watchdog)
# The longest a TCP flow that a flood starves may take to connect: iperf3
# connects twice (control, then data), each SYN retried for up to 127 s
# (tcp_syn_retries 6).  A flood meant to last until the TCP flows end must
# outlast it, or a late flow runs alone on the link once the flood is
# over and a control run reads as the flood losing (dfs_flood and
# lrufq_flood have seen a flow connect after the flood's tail).
FLOOD_CONNECT_SECS=270
NUM_SENDERS=0
R_OUT='r-out'
RCV_IP4=10.0.0.2 RCV_IP6=fd00::2	# receiver; r-out is .1 / ::1
declare -a SND_IP4 SND_IP6

# nsname NAME: the real namespace name of s1, r, rcv...
nsname()
{
	echo "${NS_PREFIX}$1"
}

# in_ns NAME CMD...: run CMD inside namespace NAME.  ip and tc enter it
# themselves (-netns): in the emulated guest an exec costs a tenth of a
# second, and "ip netns exec" is one more.
in_ns()
{
	local ns=${NS_PREFIX}$1; shift

	case $1 in
	ip|tc)	"$1" -netns "$ns" "${@:2}" ;;
	*)	ip netns exec "$ns" "$@" ;;
	esac
}

# qdisc_field NS DEV KIND FIELD: FIELD of the first KIND qdisc of DEV in
# "tc -j -s qdisc show", where tc puts it: beside the generic stats, in
# "options" or in "xstats"; -1 if none has it.
qdisc_field()
{
	in_ns "$1" tc -j -s qdisc show dev "$2" | python3 -S -c '
import json, sys
kind, f = sys.argv[1:]
for q in json.load(sys.stdin):
    if q["kind"] == kind:
        print(q.get(f, q.get("options", {}).get(f, q.get("xstats", {}).get(f, -1))))
        break' "$3" "$4"
}

# slowest_add NS DEV QDISC...: the slowest of five "tc qdisc add dev DEV
# root handle 1: QDISC..." in NS, each deleted after, in ms, each timed
# with tc's run: what a qdisc change waits for RTNL beside something.
slowest_add()
{
	local ns=$1 dev=$2 i t0 ms worst=0
	shift 2

	for i in 1 2 3 4 5; do
		t0=$(date +%s%N)
		in_ns "$ns" tc qdisc add dev "$dev" root handle 1: "$@" || return 1
		ms=$((($(date +%s%N) - t0) / 1000000))
		[ "$ms" -gt "$worst" ] && worst=$ms
		in_ns "$ns" tc qdisc del dev "$dev" root
		sleep 0.5
	done
	echo "$worst"
}

# stfq_class_sent NS DEV CLASSID...: "BYTES PKTS" sent by each stfq class
# of DEV, all on one line, from one dump (text: the JSON of a class list
# from the 6.1 tc is not valid JSON).  0 0 for a class not there.
stfq_class_sent()
{
	local ns=$1 dev=$2
	shift 2

	in_ns "$ns" tc -s class show dev "$dev" | awk -v want="$*" '
		$1 == "class" { cur = ($2 == "stfq") ? $3 : "" }
		cur != "" && $1 == "Sent" { b[cur] = $2; p[cur] = $4 }
		END {
			n = split(want, w)
			for (i = 1; i <= n; i++)
				printf "%s%d %d", (i > 1 ? " " : ""), b[w[i]], p[w[i]]
			print ""
		}'
}

# setup_topology N: N senders s1..sN, each on its own veth pair and subnet
# to the router r, which forwards to the receiver rcv through r-out.
#
#	si  eth0 10.i.0.1/24 fd00:i::1/64   <->  r  r-si 10.i.0.254 fd00:i::fe
#	r   r-out 10.0.0.1/24 fd00::1/64    <->  rcv eth0 10.0.0.2 fd00::2
#
# The senders' eth0 has gso_max_segs 1, so TCP sends MTU-sized packets and
# the bottleneck qdisc sees those, not 64 KB GSO bursts; TOPO_OFFLOADS=1
# keeps the defaults.  IPv6 addresses skip DAD (usable at once).
# TOPO_OUT=mqlink: r-out and rcv's eth0 are the two ends of the mqlink test
# device (selftests/drivers/mqlink: two tx queues, a wire of its "rate"
# that stops a queue whose ring is full), not a veth pair: the bottleneck
# of a qdisc under mq.  topo_cleanup gives them back as mql0 and mql1.
# Registers topo_cleanup on EXIT unless an EXIT trap is already set (a test
# with its own EXIT trap must call topo_cleanup from it).
#
# Process creation is slow in the VM (TCG, root over 9p), so everything is
# done with a few "ip -batch" runs rather than one ip command per step.
setup_topology()
{
	local n=$1 i r rcv s gso='' b_root b_r b_rcv

	require_command ip tc ping
	if ! [ "$n" -ge 1 ] 2>/dev/null || [ "$n" -gt 250 ]; then
		echo "setup_topology: want 1..250 senders, not '$n'" >&2
		return 1
	fi
	[ -z "$(trap -p EXIT)" ] && trap topo_cleanup EXIT
	[ "${TOPO_OFFLOADS:-0}" = 1 ] || gso="gso_max_segs 1"

	NUM_SENDERS=$n
	r=$(nsname r) rcv=$(nsname rcv)
	TOPO_NS+=("$r" "$rcv")
	b_root="netns add $r"$'\n'"netns add $rcv"$'\n'
	if [ "${TOPO_OUT:-veth}" = mqlink ]; then
		[ -d /sys/class/net/mql0 ] && [ -d /sys/class/net/mql1 ] ||
			{ echo "setup_topology: no mqlink test device (mql0, mql1)" >&2; return 1; }
		TOPO_MQLINK=1
		b_root+="link set mql0 netns $r"$'\n'"link set mql1 netns $rcv"$'\n'
		b_r="link set mql0 name $R_OUT"$'\n'
		b_rcv="link set mql1 name eth0"$'\n'
	else
		b_root+="link add $R_OUT netns $r type veth peer name eth0 netns $rcv"$'\n'
		b_r= b_rcv=
	fi
	b_r+="link set lo up"$'\n'"link set $R_OUT up"$'\n'
	b_r+="addr add 10.0.0.1/24 dev $R_OUT"$'\n'
	b_r+="addr add fd00::1/64 dev $R_OUT nodad"$'\n'
	b_rcv+="link set lo up"$'\n'"link set eth0 up"$'\n'
	b_rcv+="addr add $RCV_IP4/24 dev eth0"$'\n'
	b_rcv+="addr add $RCV_IP6/64 dev eth0 nodad"$'\n'
	b_rcv+="route add default via 10.0.0.1"$'\n'
	b_rcv+="route add default via fd00::1"$'\n'
	for ((i = 1; i <= n; i++)); do
		s=$(nsname "s$i")
		TOPO_NS+=("$s")
		SND_IP4[i]=10.$i.0.1
		SND_IP6[i]=fd00:$i::1
		b_root+="netns add $s"$'\n'
		b_root+="link add eth0 netns $s $gso type veth peer name r-s$i netns $r"$'\n'
		b_r+="link set r-s$i up"$'\n'
		b_r+="addr add 10.$i.0.254/24 dev r-s$i"$'\n'
		b_r+="addr add fd00:$i::fe/64 dev r-s$i nodad"$'\n'
	done

	ip -batch - <<<"$b_root" || { echo "setup_topology: namespaces/links failed" >&2; return 1; }
	ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv6.conf.all.forwarding=1 >/dev/null || return 1
	ip -n "$r" -batch - <<<"$b_r" || { echo "setup_topology: router setup failed" >&2; return 1; }
	ip -n "$rcv" -batch - <<<"$b_rcv" || { echo "setup_topology: receiver setup failed" >&2; return 1; }
	for ((i = 1; i <= n; i++)); do
		ip -n "$(nsname "s$i")" -batch - <<-EOF || { echo "setup_topology: s$i setup failed" >&2; return 1; }
		link set lo up
		link set eth0 up
		addr add ${SND_IP4[i]}/24 dev eth0
		addr add ${SND_IP6[i]}/64 dev eth0 nodad
		route add default via 10.$i.0.254
		route add default via fd00:$i::fe
		EOF
	done

	# Check both families end to end from the last sender.
	in_ns "s$n" ping -c 1 -W 5 "$RCV_IP4" >/dev/null ||
		{ echo "setup_topology: IPv4 path s$n -> rcv broken" >&2; return 1; }
	in_ns "s$n" ping -6 -c 1 -W 5 "$RCV_IP6" >/dev/null ||
		{ echo "setup_topology: IPv6 path s$n -> rcv broken" >&2; return 1; }
}

# topo_cleanup: kill every process in our namespaces, delete them.  Safe
# to call more than once.  A process is in one when its /proc/PID/ns/net
# is the namespace's file (test -ef: same inode), and one ip deletes them
# all: "ip netns pids" and "ip netns del" for each were two execs a
# namespace, seconds under emulation for the lab's 26.
topo_cleanup()
{
	local ns p pids=() dels=''

	for p in /proc/[0-9]*; do
		for ns in "${TOPO_NS[@]}"; do
			if [ "$p/ns/net" -ef "/run/netns/$ns" ]; then
				pids+=("${p#/proc/}")
				break
			fi
		done
	done
	[ ${#pids[@]} -eq 0 ] || kill -9 "${pids[@]}" 2>/dev/null
	if [ "${TOPO_MQLINK:-0}" = 1 ]; then
		# back to the initial namespace (pid 1's), by their own names
		ip -n "$(nsname r)" link set "$R_OUT" down name mql0 netns 1 2>/dev/null
		ip -n "$(nsname rcv)" link set eth0 down name mql1 netns 1 2>/dev/null
		TOPO_MQLINK=0
	fi
	for ns in "${TOPO_NS[@]}"; do
		dels+="netns del $ns"$'\n'
	done
	[ -z "$dels" ] || ip -force -batch - <<<"$dels" >/dev/null 2>&1
	TOPO_NS=()
	FLOW_PIDS=()
	FLOW_OUTS=()
	FLOW_END=0
}

# Namespace of the bottleneck (the router).
BN_NS=${BN_NS:-r}
# TBF parameters of the bottleneck: the burst bounds the bytes sent at line
# rate; latency only sizes TBF's own default child, replaced here.
BN_BURST=${BN_BURST:-32k}
BN_LATENCY=${BN_LATENCY:-50ms}

# setup_bottleneck DEV RATE CHILD_QDISC...: in the router, a TBF at RATE as
# root (handle 1:) and CHILD_QDISC as its child (handle 10:, parent 1:1),
# replacing whatever root qdisc DEV had,
# e.g. setup_bottleneck r-out 10mbit dfs limit 1000
#      setup_bottleneck r-out 10mbit pfifo limit 100
setup_bottleneck()
{
	local dev=$1 rate=$2; shift 2

	in_ns "$BN_NS" tc qdisc del dev "$dev" root 2>/dev/null
	in_ns "$BN_NS" tc qdisc add dev "$dev" root handle 1: \
		tbf rate "$rate" burst "$BN_BURST" latency "$BN_LATENCY" || return 1
	in_ns "$BN_NS" tc qdisc add dev "$dev" parent 1:1 handle 10: "$@"
}

# setup_bottleneck_htb DEV RATE CHILD_QDISC...: the same with HTB: root 1:,
# class 1:1 at RATE (ceil RATE, the default class), child 10: under 1:1.
setup_bottleneck_htb()
{
	local dev=$1 rate=$2; shift 2

	in_ns "$BN_NS" tc qdisc del dev "$dev" root 2>/dev/null
	in_ns "$BN_NS" tc qdisc add dev "$dev" root handle 1: htb default 1 ||
		return 1
	in_ns "$BN_NS" tc class add dev "$dev" parent 1: classid 1:1 \
		htb rate "$rate" ceil "$rate" || return 1
	in_ns "$BN_NS" tc qdisc add dev "$dev" parent 1:1 handle 10: "$@"
}

# set_reverse_delay DELAY: netem delay on the receiver's egress, i.e. on
# the ACKs, to give the flows an RTT without touching the bottleneck.
set_reverse_delay()
{
	in_ns rcv tc qdisc replace dev eth0 root netem delay "$1" limit 10000
}

# --- traffic ------------------------------------------------------------------

# Destination of the flow helpers.
flow_dst()
{
	if [ "${FAMILY:-4}" = 6 ]; then echo "$RCV_IP6"; else echo "$RCV_IP4"; fi
}

# start_iperf3_server PORT... [persistent]: iperf3 server daemons in rcv,
# one per PORT, one-off (-1: each exits after one test) unless "persistent"
# is given.  Returns once all listen.  A server serves one test at a time:
# give every concurrent flow its own port.
start_iperf3_server()
{
	local once=-1 ports=() p i up

	require_command iperf3 ss
	for p in "$@"; do
		if [ "$p" = persistent ]; then once=; else ports+=("$p"); fi
	done
	# One process in the namespace for all the servers: exec is slow in
	# the VM.
	in_ns rcv sh -c 'o=$1; shift; for p; do iperf3 -s -D $o -p $p || exit 1; done' \
		sh "$once" "${ports[@]}" >/dev/null 2>&1 || return 1
	for ((i = 0; i < 100; i++)); do
		up=$(in_ns rcv ss -Hltn 2>/dev/null)
		for p in "${ports[@]}"; do
			grep -q ":$p\b" <<<"$up" || { sleep 0.1; continue 2; }
		done
		return 0
	done
	echo "start_iperf3_server: not all of ${ports[*]} listening" >&2
	return 1
}

# Flows started together do not start at once in the VM: each exec of
# iperf3 there takes up to a second (TCG, root over 9p), so the flows'
# measured periods are staggered by a few seconds, and a flow that ran
# alone for a while reports more than its share.  For fairness numbers
# run the flows long (e.g. 30 s) and set FLOW_OMIT to a few seconds: iperf3
# -O leaves the first FLOW_OMIT seconds out of its results.
flow_omit()
{
	[ "${FLOW_OMIT:-0}" != 0 ] && echo "-O $FLOW_OMIT"
}

# start_tcp_flow NAME PORT SECONDS OUTFILE [IPERF3_ARGS...]: TCP client in
# namespace NAME (e.g. s1) to rcv:PORT, JSON to OUTFILE, in the background.
start_tcp_flow()
{
	local ns=$1 port=$2 secs=$3 out=$4; shift 4

	in_ns "$ns" iperf3 -c "$(flow_dst)" -p "$port" -t "$secs" -J \
		$(flow_omit) "$@" > "$out" 2>&1 &
	FLOW_PIDS+=($!)
	FLOW_OUTS+=("$out")
	flow_end_at $((SECONDS + secs))
}

# start_udp_flow NAME PORT SECONDS RATE OUTFILE [IPERF3_ARGS...]: UDP
# constant bit rate (1200-byte datagrams) at RATE (e.g. 20M).  Start UDP
# flows before the TCP ones: iperf3 sets a UDP test up with one datagram
# each way, without retry, and if the bottleneck is already full and drops
# it the client fails ("unable to read from stream socket").
start_udp_flow()
{
	local ns=$1 port=$2 secs=$3 rate=$4 out=$5; shift 5

	in_ns "$ns" iperf3 -c "$(flow_dst)" -p "$port" -t "$secs" -J \
		$(flow_omit) -u -b "$rate" -l 1200 "$@" \
		> "$out" 2>&1 &
	FLOW_PIDS+=($!)
	FLOW_OUTS+=("$out")
	flow_end_at $((SECONDS + secs))
}

flow_end_at()
{
	[ "$1" -gt "$FLOW_END" ] && FLOW_END=$1
	return 0
}

# iperf3 3.12 has no timeout on its control connection: now and then a
# client connected, sent nothing and waited on that socket until the
# VM's timeout.  A client still running FLOW_GRACE
# seconds (180) past the end of the longest flow is hung: wait_flows kills
# it (SIGTERM: iperf3 still writes its JSON) and fails, and the test's
# retry starts from new namespaces.  The grace covers flows that a flood
# starves and that take long to close; the watchdog is forked once, here,
# so the clients start exactly as before (timeout(1) around each client
# once delayed the handshakes of lrufq_attack's starved flows).
flow_watchdog()
{
	local delay=$1 flag=$2 pid; shift 2

	# Stopped by wait_flows: leave quietly.  A job or a command killed by
	# SIGTERM has bash print "Terminated" into the test's output, so the
	# watchdog exits on its own and its stderr (the sleep's death) is
	# not the test's.
	trap 'exit 0' TERM
	sleep "$delay"
	for pid; do
		kill -0 "$pid" 2>/dev/null || continue
		echo "$pid" >> "$flag"
		# $pid may be the subshell that runs in_ns: its child too.
		pkill -TERM -P "$pid" 2>/dev/null
		kill -TERM "$pid" 2>/dev/null
	done
}

# wait_flows: wait for all the flows started; non-zero if any client failed
# or hung (flow_watchdog).  iperf3 -J exits 0 even on errors, so the JSON
# files are checked too: the errors found are printed.
wait_flows()
{
	local pid rc=0 f flag wd= delay

	if [ "$FLOW_END" -gt 0 ] && [ ${#FLOW_PIDS[@]} -gt 0 ]; then
		delay=$((FLOW_END + FLOW_GRACE - SECONDS))
		[ "$delay" -gt 0 ] || delay=1
		flag=$(mktemp /tmp/flow_watchdog.XXXXXX)
		flow_watchdog "$delay" "$flag" "${FLOW_PIDS[@]}" 2>/dev/null &
		wd=$!
	fi
	for pid in "${FLOW_PIDS[@]}"; do
		wait "$pid" || rc=1
	done
	if [ -n "$wd" ]; then
		# The trap runs once the watchdog's sleep is gone.
		kill "$wd" 2>/dev/null
		pkill -P "$wd" sleep 2>/dev/null
		wait "$wd" 2>/dev/null
		if [ -s "$flag" ]; then
			echo "wait_flows: $(wc -l < "$flag") client(s) still running $FLOW_GRACE s past the flows' end: killed" >&2
			rc=1
		fi
		rm -f "$flag"
	fi
	if [ ${#FLOW_OUTS[@]} -gt 0 ]; then
		for f in $(grep -l '"error":' "${FLOW_OUTS[@]}" 2>/dev/null); do
			echo "iperf3 failed: $f: $(grep -o '"error":.*' "$f")" >&2
			rc=1
		done
	fi
	FLOW_PIDS=()
	FLOW_OUTS=()
	FLOW_END=0
	return $rc
}

# Receiver-side meter, for rates over one window common to all flows
# (iperf3's own results cover each flow's own, staggered, period):
#
#	rx_meter_setup              count what rcv receives from each sender
#	a=$(rx_bytes); sleep 20; b=$(rx_bytes)
#	rates=($(rx_rates "$a" "$b"))   bit/s of s1..sN over that window
#
# The counts are IP packet bytes (headers and retransmissions included)
# from each sender's address, v4 and v6, counted by flower filters on the
# ingress of rcv's eth0.
rx_meter_setup()
{
	local i b=""

	in_ns rcv tc qdisc replace dev eth0 clsact || return 1
	for ((i = 1; i <= NUM_SENDERS; i++)); do
		b+="filter add dev eth0 ingress pref $i protocol ip flower src_ip ${SND_IP4[i]} action pass"$'\n'
		b+="filter add dev eth0 ingress pref $((1000 + i)) protocol ipv6 flower src_ip ${SND_IP6[i]} action pass"$'\n'
	done
	in_ns rcv tc -batch - <<<"$b"
}

# rx_bytes: one line "TIME B1 ... BN": the guest's uptime (s) and the bytes
# received so far from s1..sN.
rx_bytes()
{
	local t0 t1 json

	read -r t0 _ < /proc/uptime
	json=$(in_ns rcv tc -s -j filter show dev eth0 ingress) || return 1
	read -r t1 _ < /proc/uptime
	python3 -S -c '
import json, sys
n = int(sys.argv[3])
b = [0] * (n + 1)
for f in json.loads(sys.stdin.read()):
    acts = f.get("options", {}).get("actions", [])
    if not acts:
        continue
    i = f["pref"] % 1000
    if 1 <= i <= n:
        b[i] += sum(a.get("stats", {}).get("bytes", 0) for a in acts)
print("%.3f" % ((float(sys.argv[1]) + float(sys.argv[2])) / 2), *b[1:])
' "$t0" "$t1" "$NUM_SENDERS" <<<"$json"
}

# rx_rates "LINE_A" "LINE_B": per-sender rates in bit/s (integers) between
# two rx_bytes samples.
rx_rates()
{
	awk -v a="$1" -v b="$2" 'BEGIN {
		na = split(a, x); split(b, y); dt = y[1] - x[1]
		if (dt <= 0) exit 1
		for (i = 2; i <= na; i++)
			printf "%d%s", (y[i] - x[i]) * 8 / dt, (i < na ? " " : "\n")
	}'
}

# iperf3_goodput FILE...: receiver-side goodput of iperf3 client JSON
# files, in bit/s (integers), one line per file, in order.  TCP:
# end.sum_received.  UDP (iperf3 3.12 reports only the sender's rate and
# the loss): sender rate * (1 - lost fraction).  A file without a result
# (e.g. iperf3 failed) gives 0 and the function returns 1.
iperf3_goodput()
{
	python3 -S - "$@" <<'EOF'
import json, sys
rc = 0
for fn in sys.argv[1:]:
    try:
        with open(fn) as f:
            text = f.read()
        # The JSON object, even with stray stderr text around it.
        d, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
        if "error" in d:
            raise RuntimeError(d["error"])
        end = d["end"]
        if "sum_received" in end:
            bps = end["sum_received"]["bits_per_second"]
        else:
            s = end["sum"]
            bps = s["bits_per_second"] * (1 - s.get("lost_percent", 0) / 100)
        print(int(bps))
    except Exception as e:
        print(0)
        sys.stderr.write("iperf3_goodput: %s: %r\n" % (fn, e))
        rc = 1
sys.exit(rc)
EOF
}

# jain_index X...: Jain's fairness index (sum x)^2 / (n * sum x^2), in
# (0, 1], 1 = perfectly fair.  Prints 0 for no input or all zeros.
jain_index()
{
	echo "$@" | awk '{
		for (i = 1; i <= NF; i++) { s += $i; q += $i * $i }
		if (NF == 0 || q == 0) { print 0; exit }
		printf "%.4f\n", s * s / (NF * q)
	}'
}
