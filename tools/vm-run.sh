#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-run.sh SCRIPT [ARGS...]
#
# Host side of the test VM.  Boots Debian's 6.1 kernel under virtme-ng
# (QEMU, TCG: no KVM), and inside the guest (tools/vm-guest.sh), as root,
# from the repo root: insmods our freshly built modules, runs SCRIPT ARGS
# with build/tc first on PATH, rmmods the modules, and checks the guest
# kernel log for warnings, oopses, leaks, lockups and the like.
#
# Exit status: SCRIPT's own (0 pass, 4 kselftest skip, other = fail),
# overridden to 1 when the kernel log shows a problem, when a module fails
# to load or unload, when the guest dies, or on timeout.
#
# Environment:
#   TEST_KVER      kernel to boot (default: newest /boot/vmlinuz-6.1.*-amd64)
#   TEST_KIMG      boot this kernel image instead, e.g. the bzImage of a
#                  kernel built from source (make check-debug); its release
#                  (what our modules' vermagic must match) is read from the
#                  build tree's include/config/kernel.release, or TEST_KVER
#   VM_MODULES_DIR where to find our .ko files (default: the repo, outside
#                  build/); modules built for TEST_KIMG live elsewhere
#   VM_MEMORY      guest memory (default 1G)
#   VM_CPUS        guest vCPUs (default 2)
#   VM_APPEND      extra kernel command line options (e.g. tsc=reliable)
#   VM_QEMU_OPTS   extra QEMU options (e.g. "-icount shift=0,sleep=off":
#                  the guest's clock counts its instructions, which the
#                  benchmark uses so the host's load does not time it)
#   VM_TIMEOUT     seconds before the VM is killed (default 1800)
#   VM_NO_MODULES  1: do not require or load any of our .ko files
#   VM_VERDICT_ONLY  1: the exit status is the kernel log's verdict alone
#                  (make check-debug, whose slow guest cannot hold the
#                  traffic tests' thresholds); the script's is reported
#   VM_LOCK        lock file that serialises VMs on this machine (default
#                  /tmp/sch_dfs-vm.lock): TCG guests time real traffic,
#                  two at once on a small host would skew each other
#   VM_PASS_ENV    extra variable names to pass into the guest; DFS_*,
#                  KSFT_*, TEST_*, TESTS, VM_*, VERBOSE, FLOW_*, TOPO_*,
#                  BN_*, BENCH_* (make bench's settings) and FAMILY
#                  always are
#
# The whole host filesystem is visible read-only in the guest; $REPO/build,
# $REPO/results and a private temp dir are writable.  Logs: build/vm-logs/<ts>-dmesg.txt
# (guest dmesg after rmmod), <ts>-console.txt (serial console, which
# survives a guest panic) and, on a kernel with kmemleak that found
# something, <ts>-kmemleak.txt.

set -uo pipefail

die() { echo "vm-run: error: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: $0 SCRIPT [ARGS...]"

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPT=$1; shift
[ -f "$SCRIPT" ] || die "no such script: $SCRIPT"
SCRIPT=$(cd "$(dirname "$SCRIPT")" && pwd)/$(basename "$SCRIPT")

# --- the kernel ---------------------------------------------------------
if [ -n "${TEST_KIMG:-}" ]; then
	KIMG=$(realpath "$TEST_KIMG" 2>/dev/null) || die "no such kernel image: $TEST_KIMG"
	[ -r "$KIMG" ] || die "$KIMG missing or unreadable"
	# A bzImage from a kernel tree: TREE/arch/x86/boot/bzImage.
	rel=$(dirname "$KIMG")/../../../include/config/kernel.release
	KVER=${TEST_KVER:-$(cat "$rel" 2>/dev/null)}
	[ -n "$KVER" ] || die "cannot tell the release of $KIMG: set TEST_KVER"
else
	if [ -n "${TEST_KVER:-}" ]; then
		KVER=$TEST_KVER
	else
		KVER=$(ls /boot 2>/dev/null | sed -n 's/^vmlinuz-\(6\.1\.[0-9]*-[0-9]*-amd64\)$/\1/p' |
		       sort -V | tail -n 1)
	fi
	[ -n "$KVER" ] || die "no /boot/vmlinuz-6.1.*-amd64: run 'make deps'"
	KIMG=/boot/vmlinuz-$KVER
	[ -r "$KIMG" ] || die "$KIMG missing or unreadable"
	[ -d "/lib/modules/$KVER/kernel" ] || die "/lib/modules/$KVER missing"
fi
command -v vng >/dev/null || die "vng (virtme-ng) not found: run 'make deps'"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found: run 'make deps'"

# --- our modules ----------------------------------------------------------
MODULES=()
if [ "${VM_NO_MODULES:-0}" != 1 ]; then
	if [ -n "${VM_MODULES_DIR:-}" ]; then
		MODDIR=$(cd "$VM_MODULES_DIR" && pwd) || die "no such directory: $VM_MODULES_DIR"
		while IFS= read -r ko; do MODULES+=("$ko"); done < <(
			find "$MODDIR" -name '*.ko' | sort)
	else
		MODDIR=$REPO
		while IFS= read -r ko; do MODULES+=("$ko"); done < <(
			find "$REPO" -name '*.ko' -not -path '*/build/*' -not -path '*/.git/*' | sort)
	fi
	[ ${#MODULES[@]} -gt 0 ] ||
		die "no .ko found under $MODDIR: run 'make' first (or VM_NO_MODULES=1)"
	for ko in "${MODULES[@]}"; do
		vm=$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{print $1}')
		[ "$vm" = "$KVER" ] ||
			die "$ko was built for '${vm:-?}', the VM boots $KVER: rebuild (make KDIR=/lib/modules/$KVER/build)"
	done
fi

# --- one VM at a time -----------------------------------------------------
exec 9>"${VM_LOCK:-/tmp/sch_dfs-vm.lock}" || die "cannot open the VM lock"
if ! flock -n 9; then
	echo "# vm-run: waiting for another test VM to finish..." >&2
	flock 9 || die "cannot take the VM lock"
fi

# --- shared dirs, arguments and environment for the guest ---------------
mkdir -p "$REPO/build/vm-logs" || die "cannot create $REPO/build"
TMP=$(mktemp -d /tmp/vm-run.XXXXXX) || die "mktemp failed"
VNG_PID=
cleanup() {
	[ -n "$VNG_PID" ] && kill -TERM "$VNG_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'echo "vm-run: interrupted" >&2; exit 130' INT TERM

# Variables passed into the guest (which starts with a clean environment).
PASS_RE='^(DFS_|KSFT_|TEST_|TESTS$|VM_|VERBOSE$|FLOW_|TOPO_|BN_|BENCH_|FAMILY$)'
{
	printf 'REPO=%q\n' "$REPO"
	printf 'SCRIPT=%q\n' "$SCRIPT"
	printf 'ARGS=('; for a in "$@"; do printf '%q ' "$a"; done; printf ')\n'
	printf 'MODULES=('; for a in "${MODULES[@]}"; do printf '%q ' "$a"; done; printf ')\n'
	for v in $(compgen -v | grep -E "$PASS_RE") ${VM_PASS_ENV:-}; do
		[ -n "${!v+x}" ] && printf 'export %s=%q\n' "$v" "${!v}"
	done
} > "$TMP/env"

TS=$(date +%Y%m%d-%H%M%S)
[ -e "$REPO/build/vm-logs/$TS-console.txt" ] && TS+="-$$"
LOG_DMESG=$REPO/build/vm-logs/$TS-dmesg.txt
LOG_CONSOLE=$REPO/build/vm-logs/$TS-console.txt
TIMEOUT=${VM_TIMEOUT:-1800}

echo "# vm-run: booting $KVER (TCG, ${VM_CPUS:-2} vCPU, ${VM_MEMORY:-1G}), timeout ${TIMEOUT}s" >&2
echo "# vm-run: $(basename "$SCRIPT") $*" >&2
start=$(date +%s)

# -v sends the kernel console to vng's stderr, which goes to the console
# log; the guest side folds the script's stderr into its stdout, so the
# script's whole output streams to our stdout.  qemu reopens
# /proc/self/fd/{1,2} with O_TRUNC, which would clobber earlier output if
# they were regular files (CI logs), so both go through FIFOs.
# timeout(1) signals its whole process group, so qemu dies with vng.
mkfifo "$TMP/out.fifo" "$TMP/console.fifo" || die "mkfifo failed"
# The guest writes under build/ and results/ (the lab's tables and plots).
mkdir -p "$REPO/build" "$REPO/results"
# The repository is read-only in the guest: our Python tools compiled
# here, or every interpreter there compiles them again on the emulated
# CPU (the guest runs the host's own python3).
python3 -m compileall -q "$REPO/tools" >/dev/null 2>&1 || true
# The same for matplotlib's list of fonts (tools/bench/report.py): kept
# in build/mplconfig, which the guest reads (vm-guest.sh); without it the
# guest builds it again in a temporary directory in every boot.
MPLCONFIGDIR=$REPO/build/mplconfig /usr/bin/python3 -c \
	'import matplotlib.font_manager' >/dev/null 2>&1 || true
cat "$TMP/out.fifo" & out_pid=$!
cat "$TMP/console.fifo" > "$TMP/console.log" & con_pid=$!
timeout --kill-after=30 "$TIMEOUT" \
	vng -v --run "$KIMG" --disable-kvm --force-9p \
	    --memory "${VM_MEMORY:-1G}" --cpus "${VM_CPUS:-2}" \
	    ${VM_APPEND:+--append "$VM_APPEND"} \
	    ${VM_QEMU_OPTS:+--qemu-opts "$VM_QEMU_OPTS"} \
	    --rwdir "$TMP" --rwdir "$REPO/build" --rwdir "$REPO/results" \
	    --cwd "$REPO" \
	    --exec "bash $(printf %q "$REPO/tools/vm-guest.sh") $(printf %q "$TMP")" \
	    </dev/null >"$TMP/out.fifo" 2>"$TMP/console.fifo" &
VNG_PID=$!
wait "$VNG_PID"
vng_rc=$?
wait "$out_pid" "$con_pid"
VNG_PID=
echo "# vm-run: VM exited after $(( $(date +%s) - start ))s (vng status $vng_rc)" >&2

cp "$TMP/console.log" "$LOG_CONSOLE" 2>/dev/null
[ -f "$TMP/dmesg.txt" ] && cp "$TMP/dmesg.txt" "$LOG_DMESG"
[ -f "$TMP/kmemleak.txt" ] && cp "$TMP/kmemleak.txt" "${LOG_DMESG%-dmesg.txt}-kmemleak.txt"

if [ ! -f "$TMP/verdict" ]; then
	# The guest never finished: timeout, panic, or vng failed to boot.
	if [ "$vng_rc" = 124 ] || [ "$vng_rc" = 137 ]; then
		echo "vm-run: FAIL: VM timed out after ${TIMEOUT}s" >&2
	else
		echo "vm-run: FAIL: the guest did not complete (vng status $vng_rc)" >&2
	fi
	echo "vm-run: last lines of the console ($LOG_CONSOLE):" >&2
	tail -n 60 "$TMP/console.log" | sed 's/^/  | /' >&2
	exit 1
fi

script_rc=$(cat "$TMP/status" 2>/dev/null || echo 1)
verdict=$(cat "$TMP/verdict")
echo "# vm-run: guest dmesg saved to ${LOG_DMESG#$REPO/}" >&2
if [ "$verdict" != ok ]; then
	echo "vm-run: FAIL: $verdict (script exit status was $script_rc)" >&2
	exit 1
fi
if [ "${VM_VERDICT_ONLY:-0}" = 1 ] && [ "$script_rc" != 0 ]; then
	echo "# vm-run: kernel log clean; the script's status $script_rc is reported, not the verdict (VM_VERDICT_ONLY=1)" >&2
	exit 0
fi
exit "$script_rc"
