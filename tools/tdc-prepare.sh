#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make the kernel's own tc test suite (tdc, tools/testing/selftests/
# tc-testing of linux-source-6.1) ready in build/tdc, for
# selftests/tc-testing/run_tdc.sh to run in the test VM.  It is not kept in
# the repository: it is extracted from the Debian source package once
# (tools/linux-source.sh installs it if missing), and its local
# configuration points it at our patched tc.  Runs on the host: unpacking
# the tarball under emulation would take minutes.

set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TDC=$ROOT/build/tdc
SUBDIR=tools/testing/selftests/tc-testing

if [ ! -f "$TDC/tdc.py" ]; then
	tarball=$("$ROOT/tools/linux-source.sh")
	top=$(basename "$tarball" | sed 's/\.tar\..*//')
	echo "tdc: extracting $SUBDIR from $(basename "$tarball")" >&2
	rm -rf "$TDC.tmp"
	mkdir -p "$TDC.tmp"
	tar -xf "$tarball" -C "$TDC.tmp" --strip-components=5 "$top/$SUBDIR"
	rm -rf "$TDC"
	mv "$TDC.tmp" "$TDC"
fi

# tdc_config.py imports this: our tc, the guest's ip (the host root is
# the guest's), and tools/nlqdisc.py for what tc would never send.
# Rewritten every time, so a moved worktree still works.
cat > "$TDC/tdc_config_local.py" <<PY
# Written by tools/tdc-prepare.sh: run tdc against the patched tc.
import os
ENVIR = os.environ.copy()
EXTRA_NAMES = {
    'TC': '$ROOT/build/tc/tc',
    'IP': '$(command -v ip)',
    # Without site: standard library only, and it saves the emulated
    # guest half a second per case.
    'NLQDISC': 'python3 -S $ROOT/tools/nlqdisc.py',
}
PY
[ -x "$ROOT/build/tc/tc" ] || { echo "tdc: no build/tc/tc: run 'make tc'" >&2; exit 1; }
echo "tdc: ready in ${TDC#"$ROOT"/}" >&2
