#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The quick benchmark: tools/bench/bench.sh at 1 and 64k flows, dfs and
# pfifo, one second per run.  A benchmark measures and does not judge, so
# this only checks that it ran to the end and measured something: every
# run a packet rate above zero, DFS holding the 64k flows (bench.sh checks
# that itself), and the report made from it.

source "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/../build/selftests/bench_quick}

require_root
require_command tc python3
require_module pktgen dummy

RET=0
BENCH_OUT=$OUT "$HERE/../tools/bench/bench.sh" quick
check_err $? "bench.sh quick did not complete"
rows=$(awk -F, 'NR > 1 && $6 > 0' "$OUT/raw.csv" 2>/dev/null | wc -l)
# 2 qdiscs x 2 flow counts x 2 runs
[ "$rows" -ge 8 ]
check_err $? "$rows measurements above 0 pps, expected 8"
log_info "$(awk -F, 'NR > 1 { printf "%s/%s:%s ", $2, $3, $6 }' "$OUT/raw.csv" 2>/dev/null)"
# Debian's python3 has matplotlib (make deps); a pyenv one may not.
py=/usr/bin/python3
[ -x $py ] || py=python3
$py "$HERE/../tools/bench/report.py" "$OUT" > /dev/null
check_err $? "report.py failed"
[ -s "$OUT/table.md" ] && grep -q "^| dfs " "$OUT/table.md" && [ -s "$OUT/pps.png" ]
check_err $? "no dfs row in $OUT/table.md, or no plot"
log_test "quick benchmark: 1 and 64k flows, dfs and pfifo"

exit $EXIT_STATUS
