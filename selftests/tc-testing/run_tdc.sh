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

# tdc runs its commands one after the other, so under emulation it keeps
# one vCPU busy: the files are split between JOBS workers (one per vCPU),
# each in a network namespace of its own, where its dummy devices cannot
# meet the other's.  -N: tdc's nsPlugin still makes its veth pair, but
# the commands run in the worker's namespace as they are: "ip netns exec"
# around each command would double its cost under emulation.
JOBS=${TDC_JOBS:-$(nproc)}
start=$(date +%s)
tap=$OUT/tdc.tap
rm -f "$tap" "$OUT"/tdc-w*.tap
# Greedy split by case count: each file to the worker with fewest cases.
declare -a group load
for ((w = 0; w < JOBS; w++)); do group[w]=''; load[w]=0; done
while read -r n f; do
	best=0
	for ((w = 1; w < JOBS; w++)); do
		[ "${load[w]}" -lt "${load[best]}" ] && best=$w
	done
	group[best]+=$f$'\n'
	load[best]=$((load[best] + n))
done < <(for f in "$@"; do
		f=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
		echo "$(grep -c '"id":' "$f") $f"
	done | sort -rn)

pids=()
for ((w = 0; w < JOBS; w++)); do
	[ -n "${group[w]}" ] || continue
	ns=tdc-w$w
	ip netns del "$ns" 2>/dev/null
	ip netns add "$ns" && ip -n "$ns" link set lo up ||
		{ echo "tdc: cannot make namespace $ns"; exit 1; }
	mapfile -t files < <(printf '%s' "${group[w]}")
	echo "# tdc[$w]: ${files[*]##*/} (${load[w]} cases)"
	# tdc finds its plugins and configuration relative to its cwd.
	(cd "$TDC" && ip netns exec "$ns" python3 -B ./tdc.py -N -f "${files[@]}" \
		--outfile "$OUT/tdc-w$w.tap") 2>&1 |
		grep -v '^Test [0-9a-f]*: ' | sed "s/^/# [$w] /" &
	pids+=($!)
done
wait "${pids[@]}"
for ((w = 0; w < JOBS; w++)); do
	ip netns del "tdc-w$w" 2>/dev/null
	[ -z "${group[w]}" ] && continue
	[ -s "$OUT/tdc-w$w.tap" ] ||
		{ echo "tdc: worker $w left no results"; exit 1; }
	cat "$OUT/tdc-w$w.tap" >> "$tap"
done
[ -s "$tap" ] || { echo "tdc: no results (build/tdc-results/tdc.tap)"; exit 1; }

pass=$(grep -c '^ok ' "$tap")
skip=$(grep -c '^ok .* # skipped' "$tap")
fail=$(grep -c '^not ok ' "$tap")
pass=$((pass - skip))
echo "tdc: $pass passed, $fail failed, $skip skipped in $(( $(date +%s) - start ))s"
[ "$fail" -eq 0 ] && [ "$skip" -eq 0 ] && [ "$pass" -gt 0 ]
