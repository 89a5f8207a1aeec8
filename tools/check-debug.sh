#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh [SCRIPT [ARGS...]]
#
# "make check-debug [KERNEL=6.1|6.12]": the selftests (or SCRIPT) on a
# debug build of the test kernel of that series, from the source of the
# image the VM otherwise boots, with KASAN, kmemleak, lockdep and UBSAN
# (tools/build-debug-kernel.sh), our modules built for it.  Any report of
# those checkers in the kernel log fails the run (tools/vm-guest.sh).
#
# The modules are built from a copy of their sources in
# build/debug-modules-SERIES, so the .ko files of "make" (for the Debian test
# kernel) in the worktree stay as they are.
#
# Environment: as tools/vm-run.sh; VM_MEMORY defaults to 2G here (KASAN's
# shadow and quarantine), VM_TIMEOUT to 3 hours (the guest runs several
# times slower than the normal one).
#
# The verdict is the kernel log's (VM_VERDICT_ONLY=1): under KASAN and
# lockdep in TCG the guest forwards well under the tests' 10 Mbit/s
# bottleneck, so their traffic thresholds cannot hold and are reported,
# not judged (make check judges behaviour).  VM_VERDICT_ONLY=0 for both.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERIES=$("$REPO/tools/kernels.sh" series "${KERNEL:-6.1}")
KDIR=$REPO/build/debug-kernel-$SERIES
MODS=$REPO/build/debug-modules-$SERIES

log() { echo "check-debug: $*" >&2; }

cd "$REPO"
# The guest finds the q_*.so plugins in build/tc (make check-debug builds
# it); without them Debian's tc knows no dfs, and every test fails on it.
[ -x build/tc/tc ] || { log "error: build/tc/tc missing: run 'make tc' (or 'make check-debug')"; exit 1; }
kver=$(tools/build-debug-kernel.sh "$SERIES" "$KDIR" | tail -n 1)
log "debug kernel $kver"

# From a copy of the sources: objects built in place for another kernel
# must not leak into this build.
nice -n 19 tools/build-modules.sh "$KDIR" "$MODS"
log "modules: $(cd "$MODS" && find . -name '*.ko' | sort | tr '\n' ' ')"

[ $# -gt 0 ] || set -- selftests/run_vm.sh
export TEST_KIMG=$KDIR/arch/x86/boot/bzImage VM_MODULES_DIR=$MODS
export VM_MEMORY=${VM_MEMORY:-2G} VM_TIMEOUT=${VM_TIMEOUT:-10800}
export VM_VERDICT_ONLY=${VM_VERDICT_ONLY:-1}
# A failed traffic threshold is not judged here: running the test again
# (run_tests.sh's one retry) only doubles the slowest tests' time.
[ "$VM_VERDICT_ONLY" = 1 ] && export KSFT_RETRIES=${KSFT_RETRIES:-0}
exec tools/vm-run.sh "$@"
