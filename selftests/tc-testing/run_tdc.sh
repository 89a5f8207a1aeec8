#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run our tdc test files (selftests/tc-testing/*.json) with the kernel's
# own tc test suite, in the test VM with our modules loaded:
#
#   tools/tdc-prepare.sh && tools/vm-run.sh selftests/tc-testing/run_tdc.sh
#
# ("make tdc" does both.)  tdc exits 0 when a setup or teardown step
# fails and reports the rest of the run as skipped, so the verdict is taken
# from its TAP output instead: every case must be "ok" and none skipped.
# The TAP file is build/tdc-results/tdc.tap.
# Usage: run_tdc.sh [FILE.json...]   (default: all of them)

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TDC=$ROOT/build/tdc
OUT=$ROOT/build/tdc-results

[ -f "$TDC/tdc.py" ] || { echo "run_tdc: no build/tdc: run tools/tdc-prepare.sh" >&2; exit 4; }
[ $# -gt 0 ] || set -- "$HERE"/*.json
mkdir -p "$OUT"

# -N: tdc's nsPlugin still makes its veth pair, but the commands run in
# the VM's own namespace (a throwaway one): "ip netns exec" around each
# command doubles its cost under emulation.
start=$(date +%s)
tap=$OUT/tdc.tap
rm -f "$tap"
files=()
for f in "$@"; do
	files+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")")
done
echo "# tdc: ${files[*]##*/}"
# tdc finds its plugins and configuration relative to its cwd.
(cd "$TDC" && python3 -B ./tdc.py -N -f "${files[@]}" --outfile "$tap") 2>&1 |
	grep -v '^Test [0-9a-f]*: ' | sed 's/^/# /'
[ -s "$tap" ] || { echo "tdc: no results (build/tdc-results/tdc.tap)"; exit 1; }

pass=$(grep -c '^ok ' "$tap")
skip=$(grep -c '^ok .* # skipped' "$tap")
fail=$(grep -c '^not ok ' "$tap")
pass=$((pass - skip))
echo "tdc: $pass passed, $fail failed, $skip skipped in $(( $(date +%s) - start ))s"
[ "$fail" -eq 0 ] && [ "$skip" -eq 0 ] && [ "$pass" -gt 0 ]
