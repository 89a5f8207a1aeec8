#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The flagship experiment, run inside the test VM by "make demo": one UDP
# source flooding at twice the link rate against 8 TCP flows from other
# hosts, through a 10 Mbit/s bottleneck, with each qdisc in turn as the
# bottleneck's child.  Prints a Markdown table and writes it, with the raw
# measurements, under results/demo/.
#
# DEMO_QDISCS overrides the list, e.g. DEMO_QDISCS="dfs pfifo".

REPO=$(cd "$(dirname "$0")/.." && pwd)
source "$REPO/selftests/dfs_scenario.sh"

SECS=${DEMO_SECS:-15}
OUT=$REPO/results/demo
QDISCS=${DEMO_QDISCS:-dfs pfifo red sfb fq_codel cake}

# The child qdisc of each, sized to about 100 KB of buffer.
spec()
{
	case $1 in
	dfs)	  echo "dfs limit 100000" ;;
	pfifo)	  echo "pfifo limit 70" ;;
	red)	  echo "red limit 100000 avpkt 1000 min 15000 max 45000 burst 25 probability 0.1 bandwidth 10mbit" ;;
	sfb)	  echo "sfb limit 70" ;;
	fq_codel) echo "fq_codel limit 70" ;;
	cake)	  echo "cake bandwidth 10mbit" ;;
	*)	  echo "$1" ;;
	esac
}

mkdir -p "$OUT"
setup_topology 9 || exit 1
table=$OUT/table.md
{
	echo "| qdisc | flood goodput (kbit/s) | TCP total (kbit/s) | TCP Jain | link utilisation | flood marked |"
	echo "|---|---:|---:|---:|---:|---|"
} > "$table"
for q in $QDISCS; do
	echo "demo: $q ($SECS s)..." >&2
	# shellcheck disable=SC2046
	flood_run "$OUT/$q" "$SECS" "20M:$SECS" $(spec "$q") || {
		echo "| $q | failed | | | | |" >> "$table"
		continue
	}
	udp=$(flood_udp_bps "$OUT/$q")
	tcp=$(flood_tcp_bps "$OUT/$q" | xargs)
	sum=$(awk '{ for (i = 1; i <= NF; i++) s += $i; print s + 0 }' <<<"$tcp")
	marked=-
	[ "$q" = dfs ] && { grep -q malicious "$OUT/$q/flags" && marked=yes || marked=no; }
	# shellcheck disable=SC2086
	awk -v q="$q" -v u="$udp" -v t="$sum" -v j="$(jain_index $tcp)" \
	    -v util="$(flood_util "$OUT/$q")" -v m="$marked" 'BEGIN {
		printf "| %s | %d | %d | %.3f | %s | %s |\n",
		       q, u / 1000, t / 1000, j, util, m }' >> "$table"
done
echo
cat "$table"
