# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pktgen in one of the test's namespaces (pktgen is per netns: its
# /proc/net/pktgen is that of the namespace the device lives in).  Source
# after tools/lib.sh.
#
#	pg_require                   skip (exit 4) without the pktgen module
#	pg_add NS DEV[@N] [THREAD]   a pktgen device on kpktgend_THREAD (0)
#	pg_set NS DEV CMD...         one pktgen command per argument
#	pg_start NS                  start every device of NS, background
#	pg_stop NS                   stop them, wait for the start to return
#	pg_sent NS DEV               packets handed to the device so far
#	                             (pktgen's "sofar" plus its "errors":
#	                             in queue_xmit mode a qdisc drop is an
#	                             "error")
#
# The packets go through the qdisc of DEV only with "xmit_mode
# queue_xmit" (dev_queue_xmit): the default mode hands them to the driver.
# A delay of 100 us or more sleeps between packets; below that pktgen
# spins, which takes a whole vCPU under emulation.

declare -A PG_PID=()

pg_require()
{
	if ! modprobe -q pktgen 2>/dev/null && [ ! -d /sys/module/pktgen ]; then
		echo "SKIP: the pktgen module is not available"
		exit $ksft_skip
	fi
}

pg_add()
{
	local ns=$1 dev=$2 thread=${3:-0}

	in_ns "$ns" sh -c "echo 'add_device $dev' > /proc/net/pktgen/kpktgend_$thread"
}

pg_set()
{
	local ns=$1 dev=$2 cmd
	shift 2

	for cmd in "$@"; do
		in_ns "$ns" sh -c "echo '$cmd' > /proc/net/pktgen/$dev" || {
			echo "pktgen $dev: '$cmd' refused:" \
				"$(in_ns "$ns" grep Result: "/proc/net/pktgen/$dev")" >&2
			return 1
		}
	done
}

# The write of "start" returns only when every device has stopped.
pg_start()
{
	in_ns "$1" sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	PG_PID[$1]=$!
}

pg_stop()
{
	in_ns "$1" sh -c 'echo stop > /proc/net/pktgen/pgctrl'
	[ -n "${PG_PID[$1]:-}" ] && wait "${PG_PID[$1]}" 2>/dev/null
	PG_PID[$1]=
	return 0
}

pg_sent()
{
	in_ns "$1" awk '$1 == "pkts-sofar:" { print $2 + $4; exit }' \
		"/proc/net/pktgen/$2"
}
