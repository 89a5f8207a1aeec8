#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-modules.sh KDIR OUTDIR
#
# Build the four modules (and the selftests' test device) against the
# kernel tree KDIR from a copy of their sources in OUTDIR, with W=1, and
# fail on any warning of the compiler or of modpost: every kernel of the
# matrix builds warning-free.  JOBS (default: the CPUs) jobs at a time.
# The copy keeps the objects of one kernel away from another's (and from
# the worktree's own, which "make" builds for the test kernel); cp -p keeps
# the files' times, so kbuild stays incremental.

set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 KDIR OUTDIR" >&2; exit 2; }
KDIR=$1 OUT=$2
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tools/source-files.sh
source "$REPO/tools/source-files.sh"

[ -e "$KDIR/Makefile" ] || { echo "build-modules: no kernel tree at $KDIR" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
while IFS= read -r -d '' f; do
	[ -f "$REPO/$f" ] || continue			# deleted in the worktree
	(cd "$REPO" && cp -p --parents "$f" "$OUT")
done < <(source_files "$REPO" Kbuild compat sch_dfs sch_stfq cls_lrufq sch_hishape include \
		      selftests/drivers)

# The modules, then the selftests' test devices and qdiscs (never
# installed), as the Makefile's TEST_DRIVERS.
DRIVERS="pushback peekdrop fkcheck mqlink"
DRIVER_KOS="pushback/pushback.ko peekdrop/sch_peekdrop.ko fkcheck/sch_fkcheck.ko mqlink/mqlink.ko"
log=$OUT/build.log
jobs=-j${JOBS:-$(nproc)}
build_all() {
	local d

	make "$jobs" -C "$KDIR" M="$OUT" W=1 modules || return 1
	for d in $DRIVERS; do
		make "$jobs" -C "$KDIR" M="$OUT/selftests/drivers/$d" W=1 modules || return 1
	done
}
if ! build_all > "$log" 2>&1; then
	cat "$log" >&2
	echo "build-modules: FAIL: the build against $KDIR failed" >&2
	exit 1
fi
if grep -i 'warning' "$log" >&2; then
	echo "build-modules: FAIL: warnings building against $KDIR (W=1)" >&2
	exit 1
fi
uts=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
	"$KDIR/include/generated/utsrelease.h")
for ko in sch_dfs/sch_dfs.ko sch_stfq/sch_stfq.ko cls_lrufq/cls_lrufq.ko sch_hishape/sch_hishape.ko \
	  $(printf 'selftests/drivers/%s ' $DRIVER_KOS); do
	[ -f "$OUT/$ko" ] || { echo "build-modules: FAIL: no $ko" >&2; exit 1; }
	# One vermagic, this kernel's: a stale <module>.mod.c in OUTDIR
	# (from a copy made before build-modules skipped build products)
	# would link a second one, and the module would not load.
	# vermagic is UTS_RELEASE (Debian's 6.1 headers say 6.1.192 in
	# include/config/kernel.release, and 6.1.0-56-amd64 here).
	vm=$(modinfo -F vermagic "$OUT/$ko" | awk '{print $1}' | paste -sd' ')
	if [ "$vm" != "$uts" ]; then
		echo "build-modules: FAIL: $ko has vermagic '$vm', not '$uts': rm -rf $OUT and build again" >&2
		exit 1
	fi
done
echo "build-modules: $(modinfo -F vermagic "$OUT/sch_dfs/sch_dfs.ko" | awk '{print $1}'): 4 modules and the test devices and qdiscs, W=1, no warning"
