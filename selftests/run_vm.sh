#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Entry point inside the test VM (tools/vm-run.sh boots it, loads modules).
# TEST_TDC=1 (make check): tdc's cases first, in the same boot; they time
# nothing, and a boot of the emulated guest costs a minute.
cd "$(dirname "$0")" || exit 1
tdc=0
if [ "${TEST_TDC:-0}" = 1 ]; then
	tc-testing/run_tdc.sh || tdc=1
fi
make -s run_tests
rc=$?
[ $tdc = 0 ] || { echo "# tdc failed (above)"; rc=1; }
exit $rc
