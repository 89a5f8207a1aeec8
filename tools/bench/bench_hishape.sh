#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/bench_hishape.sh [quick]   (in the test VM: make bench-hishape)
#
# The nf-HiShape paper's Figure 1 on a real kernel: the packets per second
# of a legitimate source, in no range and so not limited, through the
# egress of a dummy device as the number of shaped source ranges grows,
# for each way Linux can shape (or police) that many ranges:
#
#   pfifo     no rule at all: the ceiling
#   hishape   sch_hishape with N ranges: a binary search
#   htb-u32   HTB, one class and one u32 filter per range: the paper's tc,
#             a linear walk of the filters (shaping, as hishape)
#   u32-hash  u32 filters in a 256-bucket hash table on the address's third
#             byte, each with a police action, on clsact egress: a walk of
#             N/256 (policing: drops, no queue)
#   flower    one flower filter per range with a police action, on clsact
#             egress: a hash lookup per distinct prefix length (here one)
#   nft       nftables on the netdev egress hook, an interval map from the
#             ranges to limit objects: today's way of limiting many ranges
#
# The ranges are N /30 prefixes, every other /30 from 20.0.0.0 (prefixes,
# so that u32 and flower can express them; hishape takes any interval), all
# at 1 Mbit/s; the source, 20.0.0.5, sits in a gap between two of them, so
# every method looks it up in full and finds nothing.  The policing
# methods keep a pfifo as the root, so every method has a qdisc.  pktgen
# in queue_xmit mode sends 64- and 1500-byte UDP packets for BENCH_SECS,
# BENCH_RUNS times.  One u32 list holds at most 4095 filters (their node
# ids have 12 bits: the kernel refuses the 4096th, "Hash table node ID
# pool exhausted"), and setting them up is quadratic (each is inserted in
# order): htb-u32 stops at BENCH_HTB_MAX ranges and says so.
#
# Writes results/bench-hishape/raw.csv (method,ranges,size,run,pps),
# setup.csv (method,ranges,seconds) and meta.txt; report_hishape.py makes
# the table and plot.  It measures and reports: it fails only when it
# could not measure.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/bench_pktgen.sh"

QUICK=0
[ "${1:-}" = quick ] && QUICK=1
OUT=${BENCH_OUT:-$REPO/results/bench-hishape}
if [ $QUICK = 1 ]; then
	OUT=${BENCH_OUT:-$REPO/results/bench-hishape-quick}
	: "${BENCH_SECS:=1}" "${BENCH_RUNS:=1}" "${BENCH_RANGES:=10 1000}"
fi
SECS=${BENCH_SECS:-1.5}
RUNS=${BENCH_RUNS:-3}
RANGES=${BENCH_RANGES:-10 100 1000 10000 100000}
SIZES=${BENCH_SIZES:-64 1500}
METHODS=${BENCH_METHODS:-pfifo hishape htb-u32 u32-hash flower nft}
HTB_MAX=${BENCH_HTB_MAX:-4095}
SRC=20.0.0.5
DEV=b-hs
TMP=$(mktemp -d)

log() { echo "# bench-hishape: $*"; }
die() { echo "# bench-hishape: error: $*"; exit 1; }

mkdir -p "$OUT" || exit 1
RAW=$OUT/raw.csv
echo "method,ranges,size,run,pps" > "$RAW"
echo "method,ranges,seconds" > "$OUT/setup.csv"
{
	pg_machine
	echo "secs_per_run: $SECS"
	echo "runs: $RUNS"
	echo "htb_max: $HTB_MAX"
} > "$OUT/meta.txt"

modprobe dummy numdummies=0 2>/dev/null || die "no dummy driver"

# The N ranges, one a line, as FORMAT with %s the prefix, %d the index,
# %x the index + 2 in hex (a class minor) and %b the third byte in hex (a
# u32 hash bucket); python: a shell loop over 100,000 lines takes minutes
# in the guest.
ranges_print() {
	python3 - "$1" "$2" <<'EOF'
import sys
n, fmt = int(sys.argv[1]), sys.argv[2]
for i in range(n):
    a = (20 << 24) + 8 * i
    p = "%d.%d.%d.%d/30" % (a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255)
    print(fmt.replace("%s", p).replace("%d", str(i))
          .replace("%x", "%x" % (i + 2)).replace("%b", "%x" % (a >> 8 & 255)))
EOF
}

# setup METHOD N: DEV with METHOD for N ranges; 1 when it does not apply.
setup() {
	local m=$1 n=$2 police="action police rate 1mbit burst 10k drop"

	ip link del "$DEV" 2>/dev/null
	ip link add "$DEV" type dummy && ip link set "$DEV" txqueuelen 1000 up ||
		return 2
	case $m in
	pfifo)
		tc qdisc add dev "$DEV" root pfifo limit 1000 ;;
	hishape)
		ranges_print "$n" "%s 1mbit" > "$TMP/ranges" &&
		tc qdisc add dev "$DEV" root hishape ranges "$TMP/ranges" ;;
	htb-u32)
		[ "$n" -le "$HTB_MAX" ] || return 1
		{ echo "qdisc add dev $DEV root handle 1: htb default 1"
		  echo "class add dev $DEV parent 1: classid 1:1 htb rate 100gbit"
		  ranges_print "$n" "class add dev $DEV parent 1: classid 1:%x htb rate 1mbit"
		  ranges_print "$n" "filter add dev $DEV parent 1: prio 1 protocol ip u32 match ip src %s flowid 1:%x"
		} > "$TMP/batch" && { tc -batch "$TMP/batch" || return 2; } ;;
	u32-hash)
		{ echo "qdisc add dev $DEV root pfifo limit 1000"
		  echo "qdisc add dev $DEV clsact"
		  echo "filter add dev $DEV egress prio 1 handle 2: protocol ip u32 divisor 256"
		  echo "filter add dev $DEV egress prio 1 protocol ip u32 ht 800:: match ip src 20.0.0.0/8 hashkey mask 0x0000ff00 at 12 link 2:"
		  ranges_print "$n" "filter add dev $DEV egress prio 1 protocol ip u32 ht 2:%b: match ip src %s $police"
		} > "$TMP/batch" && { tc -batch "$TMP/batch" || return 2; } ;;
	flower)
		{ echo "qdisc add dev $DEV root pfifo limit 1000"
		  echo "qdisc add dev $DEV clsact"
		  ranges_print "$n" "filter add dev $DEV egress prio 1 protocol ip flower skip_hw src_ip %s $police"
		} > "$TMP/batch" && { tc -batch "$TMP/batch" || return 2; } ;;
	nft)
		command -v nft >/dev/null || return 1
		tc qdisc add dev "$DEV" root pfifo limit 1000 || return 2
		{ echo "table netdev hs {"
		  ranges_print "$n" "	limit l%d { rate 125 kbytes/second }"
		  echo "	map r { type ipv4_addr : limit; flags interval;"
		  echo "		elements = {"
		  ranges_print "$n" "			%s : \"l%d\","
		  echo "		}"
		  echo "	}"
		  echo "	chain egress { type filter hook egress device \"$DEV\" priority 0;"
		  echo "		limit name ip saddr map @r"
		  echo "	}"
		  echo "}"
		} > "$TMP/nft" && nft -f "$TMP/nft" ;;
	*)	return 2 ;;
	esac
}

teardown() {
	nft delete table netdev hs 2>/dev/null
	ip link del "$DEV" 2>/dev/null
	return 0
}

run() {
	local m=$1 n=$2 size=$3 i r pps

	for i in $(seq "$RUNS"); do
		pg_setup "$DEV" &&
		pg_set "" "$DEV" "pkt_size $size" "src_min $SRC" "src_max $SRC" \
			"flag !IPSRC_RND" || die "pktgen setup"
		r=$(pg_run "$SECS")
		pps=$(echo "$r" | awk '$2 > 0 { printf "%.0f", $1 * 1e6 / $2 }')
		[ -n "$pps" ] || die "no pktgen result for $m"
		echo "$m,$n,$size,$i,$pps" >> "$RAW"
		log "$m ranges=$n size=$size run $i: $pps pps"
	done
	pg_teardown
}

for n in $RANGES; do
	for m in $METHODS; do
		t0=$EPOCHREALTIME
		setup "$m" "$n"
		rc=$?
		secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
		if [ $rc = 1 ]; then
			log "$m at $n ranges: not set up (htb-u32: one u32 list holds $HTB_MAX filters at most; nft: no nft)"
			echo "$m,$n,-" >> "$OUT/setup.csv"
			teardown
			continue
		fi
		[ $rc = 0 ] || die "$m at $n ranges: setup failed"
		echo "$m,$n,$secs" >> "$OUT/setup.csv"
		log "$m at $n ranges: set up in $secs s"
		for size in $SIZES; do
			run "$m" "$n" "$size"
		done
		teardown
	done
done
rm -rf "$TMP"
log "done: $RAW"
