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
#
# CONCURRENT="a.sh b.sh" (the Makefile's TEST_PROGS_CONCURRENT) names the
# programs that time nothing and share nothing with another: their own
# devices and namespaces, no module unload, no pkill of a tool another
# test runs.  Those of PROG... run first, in CONCURRENT's order (longest
# first packs them best), KSFT_JOBS at a time (the CPUs: in the emulated
# guest a test is mostly process starts, one CPU each), their output kept
# and printed as each ends; one that fails is run again alone, after
# them.  The others then run one at a time, as before.

cd "$(dirname "$0")" || exit 1
progs=${TESTS:-$*}
pass=0 fail=0 skip=0 flaky=0 n=0
retries=${KSFT_RETRIES:-1}
jobs=${KSFT_JOBS:-$(nproc)}

# report PROG RC SECONDS: the TAP line of one program.
report()
{
	n=$((n + 1))
	echo "# selftests: sch_dfs: $1 took $3 s"
	case $2 in
	flaky) pass=$((pass + 1)); flaky=$((flaky + 1))
	   echo "ok $n selftests: sch_dfs: $1 # FLAKY: failed, then passed" ;;
	0) pass=$((pass + 1)); echo "ok $n selftests: sch_dfs: $1" ;;
	4) skip=$((skip + 1)); echo "ok $n selftests: sch_dfs: $1 # SKIP" ;;
	*) fail=$((fail + 1)); echo "not ok $n selftests: sch_dfs: $1 # exit=$2" ;;
	esac
}

# procs: the user processes (no kernel threads) by name and count, but
# this script's own.
procs()
{
	ps -N --ppid 2 --pid 2 -o comm= 2>/dev/null | sort | uniq -c |
		awk '$2 != "ps" && $2 != "bash" { print $2 "(" $1 ")" }'
}

# health: one line after each program, so a guest that slows over a long
# boot shows why: a fixed shell loop's time (the guest's speed), the CPU
# taken while nothing runs (a second of it), load, free memory,
# namespaces left, and the user processes still running that were not
# there before the first test.
health()
{
	local load mem ns left t0 spin busy a b

	t0=$(date +%s%N)
	for ((spin = 0; spin < 20000; spin++)); do :; done
	spin=$((($(date +%s%N) - t0) / 1000000))
	read -r load _ < /proc/loadavg
	# CPU time not idle over a second with no test running: what
	# kernel threads, timers and softirqs left behind still take
	read -r _ a < /proc/stat
	sleep 1
	read -r _ b < /proc/stat
	busy=$(awk -v a="$a" -v b="$b" 'BEGIN {
		n = split(a, x); split(b, y)
		for (i = 1; i <= n; i++) { d = y[i] - x[i]; t += d
					  if (i == 4 || i == 5) idle += d }
		printf "%.0f", t ? 100 * (t - idle) / t : 0 }')
	mem=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	ns=$(ip netns list 2>/dev/null | wc -l)
	left=$(procs)
	left=$(grep -vxF -f <(printf '%s\n' $baseline) <<<"$left" | tr '\n' ' ')
	echo "# health: loop $spin ms, cpu $busy% busy between tests, load $load, MemAvailable $mem MB, netns $ns, new processes: ${left:-none}"
}

failed()
{
	[ "$1" != 0 ] && [ "$1" != 4 ] && [ "$1" != flaky ]
}

# run_alone PROG [RC]: PROG with its retries, output as it comes; RC is
# that of a first run already made (beside others).
run_alone()
{
	local t=$1 rc=${2:-} tries=0 start=$SECONDS

	if [ -z "$rc" ]; then
		echo "# selftests: sch_dfs: $t"
		./"$t" 2>&1 | sed 's/^/# /'
		rc=${PIPESTATUS[0]}
	fi
	while failed "$rc" && [ $tries -lt "$retries" ]; do
		tries=$((tries + 1))
		echo "# selftests: sch_dfs: $t failed (exit $rc): retry $tries"
		./"$t" 2>&1 | sed 's/^/# /'
		rc=${PIPESTATUS[0]}
		[ "$rc" -eq 0 ] && rc=flaky
	done
	report "$t" "$rc" $((SECONDS - start + ${3:-0}))
	health
}

baseline=$(procs)

echo "TAP version 13"
echo "1..$(wc -w <<<"$progs")"

together=() alone=()
if [ "$jobs" -gt 1 ]; then
	for t in ${CONCURRENT:-}; do
		grep -qw -- "$t" <<<"$progs" && together+=("$t")
	done
fi
for t in $progs; do
	grep -qw -- "$t" <<<"${together[*]}" || alone+=("$t")
done

if [ ${#together[@]} -gt 0 ]; then
	dir=$(mktemp -d /tmp/run_tests.XXXXXX)
	declare -A prog_of start_of
	again=() again_rc=() again_took=()
	next=0 running=0
	while [ $next -lt ${#together[@]} ] || [ $running -gt 0 ]; do
		while [ $running -lt "$jobs" ] && [ $next -lt ${#together[@]} ]; do
			t=${together[$next]}
			next=$((next + 1))
			./"$t" > "$dir/$t.out" 2>&1 &
			prog_of[$!]=$t
			start_of[$!]=$SECONDS
			running=$((running + 1))
		done
		wait -n -p pid
		rc=$?
		running=$((running - 1))
		t=${prog_of[$pid]}
		took=$((SECONDS - ${start_of[$pid]}))
		echo "# selftests: sch_dfs: $t (beside others)"
		sed 's/^/# /' "$dir/$t.out"
		if failed "$rc" && [ "$retries" -gt 0 ]; then
			echo "# selftests: sch_dfs: $t: exit $rc beside others: run again alone below"
			again+=("$t") again_rc+=("$rc") again_took+=("$took")
		else
			report "$t" "$rc" "$took"
		fi
	done
	rm -rf "$dir"
	for i in "${!again[@]}"; do
		run_alone "${again[$i]}" "${again_rc[$i]}" "${again_took[$i]}"
	done
fi

for t in "${alone[@]}"; do
	run_alone "$t"
done

[ $flaky -eq 0 ] || echo "# $flaky passed only on a retry: see FLAKY above"
echo "selftests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
