# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# source_files ROOT PATH...: print, NUL-separated and relative to ROOT, the
# source files of the checkout under PATH... (committed or not, never build
# products); without git (a DKMS or release tree), every file there but
# kbuild's outputs.  Sourced by build-modules.sh and make-deb.sh.
#
# A plain "find -name '*.c'" is not enough: an in-tree "make" leaves
# <module>.mod.c beside the sources, and a copy of it carried to another
# kernel's build (with its time kept) is compiled instead of the one that
# kernel's modpost writes -- from 6.11 on that links vermagic twice.

source_files() {
	local root=$1
	shift
	if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$root" ls-files -z --cached --others --exclude-standard -- "$@"
	else
		(cd "$root" && find "$@" -type f -not -name '*.o' -not -name '*.ko' \
			-not -name '*.mod*' -not -name '.*' -not -name 'modules.order' \
			-not -name 'Module.symvers' -print0)
	fi
}
