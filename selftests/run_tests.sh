#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run kselftest programs, TAP style, and end with the summary line CI reads.
# Usage: run_tests.sh PROG...   (TESTS="a.sh b.sh" selects a subset)
#
# The traffic tests measure real TCP under QEMU's emulation, where a
# process can stall for seconds; a failed program is run once more
# (KSFT_RETRIES=0 turns that off) and, if it then passes, is reported as
# FLAKY in its TAP line and counted in the summary, never hidden.

cd "$(dirname "$0")" || exit 1
progs=${TESTS:-$*}
pass=0 fail=0 skip=0 flaky=0 n=0
retries=${KSFT_RETRIES:-1}

echo "TAP version 13"
echo "1..$(wc -w <<<"$progs")"
for t in $progs; do
	n=$((n + 1))
	start=$SECONDS
	echo "# selftests: sch_dfs: $t"
	./"$t" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	tries=0
	while [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$rc" != flaky ] &&
	      [ $tries -lt "$retries" ]; do
		tries=$((tries + 1))
		echo "# selftests: sch_dfs: $t failed (exit $rc): retry $tries"
		./"$t" 2>&1 | sed 's/^/# /'
		rc=${PIPESTATUS[0]}
		[ "$rc" -eq 0 ] && rc=flaky
	done
	echo "# selftests: sch_dfs: $t took $((SECONDS - start)) s"
	case $rc in
	flaky) pass=$((pass + 1)); flaky=$((flaky + 1))
	   echo "ok $n selftests: sch_dfs: $t # FLAKY: failed, then passed" ;;
	0) pass=$((pass + 1)); echo "ok $n selftests: sch_dfs: $t" ;;
	4) skip=$((skip + 1)); echo "ok $n selftests: sch_dfs: $t # SKIP" ;;
	*) fail=$((fail + 1)); echo "not ok $n selftests: sch_dfs: $t # exit=$rc" ;;
	esac
done
[ $flaky -eq 0 ] || echo "# $flaky passed only on a retry: see FLAKY above"
echo "selftests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
