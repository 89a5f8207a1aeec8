#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of Debian's linux-source-6.1 tarball (the test kernel's
# own source: checkpatch.pl, tdc), installing the package if it is missing.

set -euo pipefail
tarball=$(ls /usr/src/linux-source-6.1*.tar.* 2>/dev/null | tail -n 1 || true)
if [ -z "$tarball" ]; then
	echo "linux-source: installing linux-source-6.1" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-source-6.1 >/dev/null
	tarball=$(ls /usr/src/linux-source-6.1*.tar.* | tail -n 1)
fi
echo "$tarball"
