#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict over the kernel sources, with the checkpatch of
# linux-source-6.1 (installed if missing, extracted once into build/).
# Usage: tools/checkpatch.sh [FILE...]   (default: the tracked kernel
# sources and uapi headers; CamelCase checks on the kernel's own Qdisc
# type names are expected)

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
[ $# -gt 0 ] || set -- $(git ls-files "sch_dfs/*.[ch]" "sch_stfq/*.[ch]" "cls_lrufq/*.[ch]" "include/uapi/*.h")
exec "$CP/scripts/checkpatch.pl" --no-tree --strict --terse --show-types -f "$@"
