# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pktgen, for the selftests and the benchmark (tools/bench).  pktgen is per
# network namespace: its /proc/net/pktgen is that of the namespace the
# device lives in, so every helper takes the namespace first, as
# selftests/lib.sh names them ("r", "s1"), or "" for the current one (the
# benchmark's dummy devices).  Sourced; the selftests source lib.sh
# first (in_ns).
#
#	pg_require                   skip (exit 4) without the pktgen module
#	pg_reset NS                  no device on any pktgen thread
#	pg_add NS DEV[@N] [THREAD]   a pktgen device on kpktgend_THREAD (0)
#	pg_set NS DEV CMD...         one pktgen command per argument
#	pg_start NS [DEV]            start every device of NS, in the
#	                             background; with DEV, return once DEV
#	                             is running (at most 5 s)
#	pg_stop NS                   stop them, wait for the start to return
#	pg_sent NS DEV               packets handed to the device so far
#	                             (pktgen's "sofar" plus its "errors":
#	                             in queue_xmit mode a qdisc drop is an
#	                             "error")
#	pg_usec NS DEV               the last run's length, us
#
# The packets go through the qdisc of DEV only with "xmit_mode
# queue_xmit" (dev_queue_xmit): the default mode hands them to the driver.
# A delay of 100 us or more sleeps between packets; below that pktgen
# spins, which takes a whole vCPU under emulation.

PG_DIR=/proc/net/pktgen
declare -A PG_PID=()

# pg_in NS CMD...: CMD in namespace NS, or here for "".
pg_in()
{
	local ns=$1
	shift

	if [ -n "$ns" ]; then
		in_ns "$ns" "$@"
	else
		"$@"
	fi
}

pg_require()
{
	if ! modprobe -q pktgen 2>/dev/null && [ ! -d /sys/module/pktgen ]; then
		echo "SKIP: the pktgen module is not available"
		exit "${ksft_skip:-4}"
	fi
}

# pg_write NS FILE TEXT: TEXT to a pktgen control file of NS.  Here (NS
# "") with the shell's own echo: an exec per command costs an emulated
# guest a good part of a second in a benchmark's every run.
pg_write()
{
	if [ -z "$1" ]; then
		echo "$3" > "$2"
	else
		pg_in "$1" sh -c "echo '$3' > $2"
	fi
}

pg_reset()
{
	local f

	if [ -z "$1" ]; then
		for f in "$PG_DIR"/kpktgend_*; do
			echo rem_device_all > "$f" || return 1
		done
	else
		pg_in "$1" sh -c "for f in $PG_DIR/kpktgend_*; do echo rem_device_all > \$f; done"
	fi
}

pg_add()
{
	local ns=$1 dev=$2 thread=${3:-0}

	pg_write "$ns" "$PG_DIR/kpktgend_$thread" "add_device $dev"
}

pg_set()
{
	local ns=$1 dev=$2 cmd
	shift 2

	for cmd in "$@"; do
		pg_write "$ns" "$PG_DIR/$dev" "$cmd" 2>/dev/null || {
			echo "pktgen $dev: '$cmd' refused:" \
				"$(pg_in "$ns" grep Result: "$PG_DIR/$dev")" >&2
			return 1
		}
	done
}

# The write of "start" returns only when every device has stopped.
pg_start()
{
	local ns=$1 dev=${2:-} i

	(pg_write "$ns" "$PG_DIR/pgctrl" start) &
	PG_PID[${ns:-.}]=$!
	[ -n "$dev" ] || return 0
	for ((i = 0; i < 100; i++)); do
		pg_in "$ns" grep -qs "Running: .*\b$dev\b" "$PG_DIR"/kpktgend_* &&
			return 0
		sleep 0.05
	done
	return 0
}

pg_stop()
{
	local ns=$1

	pg_write "$ns" "$PG_DIR/pgctrl" stop
	[ -n "${PG_PID[${ns:-.}]:-}" ] && wait "${PG_PID[${ns:-.}]}" 2>/dev/null
	PG_PID[${ns:-.}]=
	return 0
}

pg_sent()
{
	pg_in "$1" awk '$1 == "pkts-sofar:" { print $2 + $4; exit }' \
		"$PG_DIR/$2"
}

# "Result: OK: 2001234(c...+d...) usec, 123456 (64byte,0frags)"
pg_usec()
{
	pg_in "$1" sed -n 's/^Result: OK: \([0-9]*\)(.*/\1/p' "$PG_DIR/$2"
}
