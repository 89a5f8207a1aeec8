#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_dkms_vm.sh: host side of selftests/dkms_install.sh: boots the test VM
# (tools/vm-run.sh; TEST_KVER picks the kernel) with none of our .ko files
# loaded (VM_NO_MODULES=1: the modules must come from the package), and
# installs, uses and removes the packages of build/deb/ ("make deb") there.
#
# DKMS compiles the modules in the guest, under TCG, for the booted kernel
# and the newest installed one; VM_TIMEOUT (seconds) bounds the whole run.

REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO" || exit 1

if ! ls build/deb/sch-dfs-dkms_*_all.deb build/deb/sch-dfs-tc_*.deb >/dev/null 2>&1; then
	echo "run_dkms_vm: no packages in build/deb: run 'make deb' first" >&2
	exit 1
fi

VM_NO_MODULES=1 VM_TIMEOUT=${VM_TIMEOUT:-1800} \
	exec tools/vm-run.sh selftests/dkms_install.sh "$@"
