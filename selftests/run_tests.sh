#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run kselftest programs, TAP style, and end with the summary line CI reads.
# Usage: run_tests.sh PROG...   (TESTS="a.sh b.sh" selects a subset)

cd "$(dirname "$0")" || exit 1
progs=${TESTS:-$*}
pass=0 fail=0 skip=0 n=0

echo "TAP version 13"
echo "1..$(wc -w <<<"$progs")"
for t in $progs; do
	n=$((n + 1))
	echo "# selftests: sch_dfs: $t"
	./"$t" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	case $rc in
	0) pass=$((pass + 1)); echo "ok $n selftests: sch_dfs: $t" ;;
	4) skip=$((skip + 1)); echo "ok $n selftests: sch_dfs: $t # SKIP" ;;
	*) fail=$((fail + 1)); echo "not ok $n selftests: sch_dfs: $t # exit=$rc" ;;
	esac
done
echo "selftests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
