#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-guest.sh SHARED_DIR
#
# Guest side of tools/vm-run.sh; runs as root inside the VM.  Never run it
# on a host: it loads and unloads kernel modules.
#
# Reads SHARED_DIR/env (written by vm-run.sh), loads our modules, runs the
# script, unloads the modules, checks the kernel log, and writes to
# SHARED_DIR: status (the script's exit status), verdict ("ok" or the
# reason for failure), dmesg.txt (the whole kernel log).

exec 2>&1		# the host's stderr is the kernel console log
set -u

SHARED=$1
# shellcheck source=/dev/null
. "$SHARED/env"
cd "$REPO" || exit 1

log() { echo "# vm: $*"; }
FAILS=()
fail() { echo "# vm: FAIL: $*"; FAILS+=("$*"); }

# Kernel log lines that fail the run.  Case-sensitive on purpose: the
# kernel spells these exactly so, and benign lines ("... report a bug",
# "NX (Execute Disable) protection") then do not match.
BAD_RE='WARNING:|WARN_ON|cut here|BUG:|kernel BUG|Oops|general protection|Call Trace:'
BAD_RE+='|unreferenced object|KASAN|UBSAN|refcount_t|list_add corruption'
BAD_RE+='|list_del corruption|soft lockup|hard LOCKUP|hung task|blocked for more than'
BAD_RE+='|RCU stall|rcu_.*detected stall|self-detected stall|Kernel panic|kmem_cache_destroy'
# The debug kernel's checkers (make check-debug).  Most of their reports
# start with "BUG:" or "WARNING:" already; these catch the rest.
BAD_RE+='|possible circular locking|inconsistent lock state|possible recursive locking'
BAD_RE+='|suspicious RCU usage|ODEBUG:|suspected memory leak|kmemleak: .*disabled'

MARK="vm-guest: start of test $$"
echo "$MARK" > /dev/kmsg

# The guest starts with lo down in the root namespace.
ip link set lo up 2>/dev/null

# kmemleak, where the kernel has it (the debug kernel; Debian's does not):
# scan once so that what boot left unreferenced is reported now, then
# forget it; scanned again after rmmod.
KMEMLEAK=/sys/kernel/debug/kmemleak
if [ -w $KMEMLEAK ]; then
	echo scan > $KMEMLEAK
	echo clear > $KMEMLEAK
fi

# --- patched tc ------------------------------------------------------------
if [ -x "$REPO/build/tc/tc" ]; then
	export PATH="$REPO/build/tc:$PATH"
elif [ -x "$REPO/build/tc/bin/tc" ]; then
	export PATH="$REPO/build/tc/bin:$PATH"
fi
[ -d "$REPO/build/tc" ] && export TC_LIB_DIR="$REPO/build/tc/lib"
export REPO
# matplotlib's font list, built on the host (vm-run.sh)
export MPLCONFIGDIR=$REPO/build/mplconfig

# --- hold the receive-timestamp static key on ------------------------------
# netstamp_needed_key is on while any socket asks for receive timestamps,
# and every ping the tests start and end flips it: the kernel patches the
# jump label in netif_rx_internal() and the receive path with an int3
# while other CPUs run through them.  Under TCG a vCPU can still meet that
# int3 once the patch is done ("Oops: int3" at netif_rx_internal, no frame
# of ours; seen on 6.12 and 7.2: doc/kernels.md).  One socket
# holding SO_TIMESTAMP (29 on x86, which Python's socket module does not
# name) for the whole run keeps the key on, so the pings only count up
# and down and nothing is patched under traffic.
python3 -c 'import signal, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_TIMESTAMP", 29), 1)
signal.pause()' &
TSTAMP_HOLDER=$!

# --- load our modules (dependencies first) ---------------------------------
modname() { modinfo -F name "$1" 2>/dev/null || basename "$1" .ko | tr - _; }
declare -A OURS=()
for ko in "${MODULES[@]}"; do OURS[$(modname "$ko")]=$ko; done

LOADED=()
load_ok=1
pending=("${MODULES[@]}")
while [ ${#pending[@]} -gt 0 ] && [ $load_ok = 1 ]; do
	progress=0; next=()
	for ko in "${pending[@]}"; do
		ready=1
		for dep in $(modinfo -F depends "$ko" 2>/dev/null | tr , ' '); do
			if [ -n "${OURS[$dep]:-}" ]; then
				[ -d "/sys/module/$dep" ] || ready=0
			elif ! modprobe "$dep"; then
				fail "modprobe $dep (needed by $(basename "$ko")) failed"
				load_ok=0
			fi
		done
		if [ $ready = 0 ]; then next+=("$ko"); continue; fi
		if insmod "$ko"; then
			LOADED+=("$(modname "$ko")"); progress=1
			log "insmod ${ko#$REPO/}"
		else
			fail "insmod ${ko#$REPO/} failed"; load_ok=0
		fi
	done
	pending=("${next[@]}")
	[ $progress = 1 ] || [ ${#pending[@]} = 0 ] || { fail "module dependency cycle"; load_ok=0; }
done

# --- run the script --------------------------------------------------------
rc=1
if [ $load_ok = 1 ]; then
	log "running ${SCRIPT#$REPO/} ${ARGS[*]}"
	if [ -x "$SCRIPT" ]; then
		"$SCRIPT" "${ARGS[@]}"; rc=$?
	else
		bash "$SCRIPT" "${ARGS[@]}"; rc=$?
	fi
	log "script exit status $rc"
fi
echo "$rc" > "$SHARED/status"
kill "$TSTAMP_HOLDER" 2>/dev/null

# --- clean up what the script left behind, then unload ---------------------
# Processes inside namespaces keep them (and their qdiscs) alive.
for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
	pids=$(ip netns pids "$ns" 2>/dev/null)
	[ -n "$pids" ] && kill -9 $pids 2>/dev/null
	ip netns delete "$ns" 2>/dev/null
done
# Qdiscs in the root namespace (our modules may be in use there).
for dev in /sys/class/net/*; do
	dev=${dev##*/}
	tc qdisc del dev "$dev" root 2>/dev/null
	tc qdisc del dev "$dev" ingress 2>/dev/null
done

for (( i=${#LOADED[@]}-1; i>=0; i-- )); do
	m=${LOADED[i]}
	# Namespace teardown is asynchronous: give the refcount time to drop.
	end=$((SECONDS + 20))
	while [ $SECONDS -lt $end ]; do
		refcnt=0
		read -r refcnt < "/sys/module/$m/refcnt" 2>/dev/null
		[ "$refcnt" = 0 ] && break
		sleep 0.2
	done
	if rmmod "$m"; then
		log "rmmod $m"
	else
		fail "rmmod $m failed (refcnt $(cat /sys/module/$m/refcnt 2>/dev/null))"
	fi
done

# --- kernel log check ------------------------------------------------------
if [ -w $KMEMLEAK ]; then
	# An object is reported once it is 5 s old and unreferenced in a scan.
	echo scan > $KMEMLEAK; sleep 5; echo scan > $KMEMLEAK
	leaks=$(cat $KMEMLEAK)
	if [ -n "$leaks" ]; then
		fail "kmemleak reports unreferenced objects:"
		head -n 200 <<<"$leaks" | sed 's/^/# vm: | /'
		echo "$leaks" > "$SHARED/kmemleak.txt"
	fi
fi
sleep 1	# let deferred work (RCU callbacks, net cleanup) print
dmesg > "$SHARED/dmesg.txt"
bad=$(dmesg | sed -n "/$MARK/,\$p" | grep -E "$BAD_RE" | grep -v "$MARK")
if [ -n "$bad" ]; then
	fail "the kernel log has errors:"
	# Print each offending line with some context.
	dmesg | sed -n "/$MARK/,\$p" | grep -E -B2 -A12 "$BAD_RE" | head -n 200 |
		sed 's/^/# vm: | /'
fi

if [ ${#FAILS[@]} = 0 ]; then
	echo ok > "$SHARED/verdict"
else
	(IFS=';'; echo "${FAILS[*]}") > "$SHARED/verdict"
fi
exit 0
