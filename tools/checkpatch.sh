#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict over the kernel sources, with the checkpatch of
# linux-source-6.1 (installed if missing, extracted once into build/).
# Usage: tools/checkpatch.sh [FILE...]   (default: the tracked kernel
# sources and uapi headers)
#
# Fails on any finding but CamelCase on the kernel's own Qdisc type names
# (struct Qdisc, Qdisc_ops, ...): inside a kernel tree checkpatch learns
# those from include/ and says nothing, out of the tree it cannot.

set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CP=$ROOT/build/checkpatch

if [ ! -x "$CP/scripts/checkpatch.pl" ]; then
	tarball=$("$ROOT/tools/linux-source.sh")
	mkdir -p "$CP"
	top=$(basename "$tarball" | sed 's/\.tar\..*//')
	tar -xf "$tarball" -C "$CP" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
fi

cd "$ROOT"
# shellcheck disable=SC2046
[ $# -gt 0 ] || set -- $(git ls-files "sch_dfs/*.[ch]" "sch_stfq/*.[ch]" "cls_lrufq/*.[ch]" "sch_hishape/*.[ch]" \
	"compat/*.[ch]" "include/*.h" "selftests/drivers/*.c")
out=$("$CP/scripts/checkpatch.pl" --no-tree --strict --terse --show-types -f "$@" || true)
printf '%s\n' "$out"
left=$(printf '%s\n' "$out" | grep -E ': (ERROR|WARNING|CHECK):' |
	grep -vE 'CHECK:CAMELCASE: Avoid CamelCase: <Qdisc[A-Za-z_]*>$' || true)
if [ -n "$left" ]; then
	echo "checkpatch: $(printf '%s\n' "$left" | wc -l) finding(s)" >&2
	exit 1
fi
echo "checkpatch: clean (but the kernel's Qdisc type names)"
