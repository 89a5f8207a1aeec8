#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-debug-kernel.sh [SERIES [DIR]]
#
# Builds the debug test kernel of SERIES (6.1, the default, or 6.12) for
# "make check-debug" in DIR (default build/debug-kernel-SERIES): Debian's
# linux-source of the test image's own version (tools/kernels.sh source),
# x86_64_defconfig plus tools/debug-kernel.config (KASAN, kmemleak,
# lockdep, UBSAN, debug objects; the qdiscs and the devices the selftests
# use built in).  Prints the kernel release on its last line.
#
# Incremental: the tree is extracted once, and rebuilt only when the
# fragment is newer than the last build.  The compile runs at the lowest
# CPU and I/O priority: other test VMs on the machine time real traffic.
#
# Environment: JOBS (default: the number of CPUs).

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERIES=${1:-6.1}
DIR=${2:-$REPO/build/debug-kernel-$SERIES}
FRAG=$REPO/tools/debug-kernel.config
JOBS=${JOBS:-$(nproc)}

log() { echo "debug-kernel: $*" >&2; }
die() { echo "debug-kernel: error: $*" >&2; exit 1; }

if [ ! -f "$DIR/Makefile" ]; then
	SRC_TAR=$("$REPO/tools/kernels.sh" source "$SERIES")
	log "extracting $SRC_TAR into ${DIR#$REPO/}"
	mkdir -p "$DIR.tmp"
	nice -n 19 tar -C "$DIR.tmp" --strip-components=1 -xJf "$SRC_TAR"
	rm -rf "$DIR"
	mv "$DIR.tmp" "$DIR"
fi

STAMP=$DIR/.dfs-debug-built
kmake() {
	# stdout is for the release alone
	nice -n 19 ionice -c3 make -C "$DIR" -j"$JOBS" "$@" >&2
}

if [ ! -f "$STAMP" ] || [ "$FRAG" -nt "$STAMP" ] || [ ! -f "$DIR/arch/x86/boot/bzImage" ]; then
	log "configuring: x86_64_defconfig + ${FRAG#$REPO/}"
	kmake -s x86_64_defconfig
	(cd "$DIR" && scripts/kconfig/merge_config.sh -m .config "$FRAG") >/dev/null
	kmake -s olddefconfig
	# merge_config only warns: a fragment line that did not survive
	# olddefconfig (a typo, an unmet dependency) is an error here, unless
	# this kernel has no such symbol at all (the fragment serves 6.1 and
	# 6.12: UBSAN_SANITIZE_ALL, for one, is gone in 6.9).
	bad=0
	# Every symbol this kernel declares, read once.
	symbols=$(find "$DIR" -name 'Kconfig*' -not -path '*/Documentation/*' -print0 |
		xargs -0 sed -nE 's/^[[:space:]]*(menu)?config ([A-Za-z0-9_]+)[[:space:]]*$/CONFIG_\2/p' |
		sort -u)
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) want=$line; sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; want= ;;
		*) continue ;;
		esac
		if ! grep -qxF "$sym" <<<"$symbols"; then
			log "$sym: not in this kernel, skipped"
			continue
		fi
		have=$(grep -E "^$sym=|^# $sym is not set" "$DIR/.config" || true)
		if [ -n "$want" ]; then
			[ "$have" = "$want" ] || { log "$want did not apply (got: ${have:-nothing})"; bad=1; }
		else
			case $have in ""|"# $sym is not set") ;; *) log "$sym is not set did not apply (got: $have)"; bad=1 ;; esac
		fi
	done < "$FRAG"
	[ $bad = 0 ] || die "the fragment did not apply: fix ${FRAG#$REPO/}"
	log "building with -j$JOBS at nice 19 (a whole kernel: a long build)"
	start=$(date +%s)
	kmake
	log "built in $(( $(date +%s) - start ))s"
	touch "$STAMP"
fi
cat "$DIR/include/config/kernel.release"
