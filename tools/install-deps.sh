#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install every build and test dependency from the package registries
# (Debian 12 "bookworm", amd64; needs root).  "make deps" runs it.
#
#   apt: the test kernel (linux-image-amd64 and linux-headers-amd64 of the
#        same release), QEMU, the userspace the tests run in the VM, and
#        the build tools for the modules, tc and the unit tests.
#   pip: virtme-ng (the "vng" command), pinned.
#   netperf: built from Debian's source package (below), for flent.
#
# Idempotent and quick when everything is there: apt-get update runs only
# when something is missing.  Works non-interactively (CI=true, no stdin).
# Full output of apt and pip goes to $DEPS_LOG; failures print its tail.

set -euo pipefail

VIRTME_NG_VERSION=1.42

APT_PKGS=(
	# the test kernel: image and headers of one release
	linux-image-amd64 linux-headers-amd64
	# the VM (virtme-ng): QEMU, busybox for its initramfs, udev and kmod
	# for the guest's device and module setup, file (vng runs file(1))
	qemu-system-x86 busybox-static udev kmod file
	# what the tests run in the guest (the host root is shared)
	iproute2 iputils-ping ethtool iperf3 procps python3 python3-pip
	python3-matplotlib
	# the HiShape benchmark's peer: nftables interval maps and limits
	nftables
	# the benchmark's profile scenario: perf in the guest
	linux-perf
	# building: the modules, tc (iproute2), the unit tests and fuzzers
	build-essential pkg-config bison flex patch xz-utils dpkg-dev
	libmnl-dev libelf-dev libcap-dev libbpf-dev zlib1g-dev
	clang libclang-rt-14-dev
	# make tdc and make check-debug: the test kernel's source (tdc,
	# checkpatch.pl), and what building a kernel needs beyond the above
	linux-source-6.1 bc libssl-dev
	# the kernel matrix (tools/kernels.sh): BTF of modules built against
	# a prepared linux-source tree
	pahole
	# the lab's RRUL scenario (tools/lablib/rrul.py): flent, its ping
	# (fping) and UDP latency probe (irtt); autoconf and automake build
	# netperf (netperf_install below)
	flent fping irtt autoconf automake
	# make deb (tools/make-deb.sh): debhelper 13 with dh-dkms and
	# dh-python (the daemon's byte-code, compiled and cleaned), lintian
	# to check the .debs; dkms and man-db for the package test in the
	# guest, which has no network (selftests/dkms_install.sh)
	debhelper dh-dkms dh-python lintian dkms man-db
	# dfs-guard (guard/): the verdict stream over generic netlink, its
	# nftables backend (libnftables), its metrics, and ExaBGP, which
	# its FlowSpec backend drives (its unit test runs one)
	python3-pyroute2 python3-nftables python3-prometheus-client exabgp
	# the lab's upstream scenario (tools/lablib/upstream.py): FRR's bgpd
	# as the ISP router that receives dfs-guard's FlowSpec, and BIRD 2
	# as a second upstream that validates it (RFC 8955 section 6)
	frr bird2
	# promtool, which checks and tests dfs-guard's alert rules (make unit)
	prometheus
	# doc/operate.md's recipes, run in the guest by make check-dkms: the
	# interface hook that puts the qdiscs back (ifup), as on a Debian 12
	# router, whose installer sets ifupdown up
	ifupdown
)

export DEBIAN_FRONTEND=noninteractive
DEPS_LOG=${DEPS_LOG:-${TMPDIR:-/tmp}/install-deps.log}

log() { echo "deps: $*"; }
die() {
	echo "deps: error: $*" >&2
	[ -s "$DEPS_LOG" ] && { echo "deps: last lines of $DEPS_LOG:" >&2; tail -n 25 "$DEPS_LOG" >&2; }
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root (apt-get and pip install system-wide)"
command -v apt-get >/dev/null || die "not a Debian system (no apt-get)"
[ "$(dpkg --print-architecture)" = amd64 ] || die "amd64 only (the test kernel is linux-image-amd64)"
. /etc/os-release
[ "${VERSION_CODENAME:-}" = bookworm ] ||
	log "warning: made for Debian 12 (bookworm), this is ${PRETTY_NAME:-unknown}"
: > "$DEPS_LOG"

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

pkg_version() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null
}

apt_updated=0
apt_update() {
	[ $apt_updated = 1 ] && return 0
	log "apt-get update"
	apt-get update -q >>"$DEPS_LOG" 2>&1 || die "apt-get update failed"
	apt_updated=1
}

apt_install() {
	apt_update
	log "apt-get install $*"
	apt-get install -y -q --no-install-recommends \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		"$@" >>"$DEPS_LOG" 2>&1 || die "apt-get install failed"
}

# --- apt ---------------------------------------------------------------------
missing=()
for p in "${APT_PKGS[@]}"; do
	installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt_install "${missing[@]}"
else
	log "apt packages: all ${#APT_PKGS[@]} present"
fi

# The kernel image and headers must be of one release: the modules are
# built against the headers and loaded into the image.  Upgrade both
# metapackages together if they differ.
img=$(pkg_version linux-image-amd64)
hdr=$(pkg_version linux-headers-amd64)
if [ "$img" != "$hdr" ]; then
	log "linux-image-amd64 $img != linux-headers-amd64 $hdr: upgrading both"
	apt_install linux-image-amd64 linux-headers-amd64
	img=$(pkg_version linux-image-amd64)
	hdr=$(pkg_version linux-headers-amd64)
	[ "$img" = "$hdr" ] || die "linux-image-amd64 $img and linux-headers-amd64 $hdr still differ"
fi

# The kernel the VM boots (tools/vm-run.sh: the newest 6.1 image) must
# have its headers (the build dir "make" uses).
kver=$(ls /boot | sed -n 's/^vmlinuz-\(6\.1\.[0-9]*-[0-9]*-amd64\)$/\1/p' | sort -V | tail -n 1)
[ -n "$kver" ] || die "no /boot/vmlinuz-6.1.*-amd64 after installing linux-image-amd64"
if [ ! -e "/lib/modules/$kver/build/Makefile" ]; then
	apt_install "linux-headers-$kver"
	[ -e "/lib/modules/$kver/build/Makefile" ] || die "no headers for $kver"
fi
log "test kernel $kver (linux-image-amd64 = linux-headers-amd64 = $img)"

# Of prometheus only promtool is wanted, and BIRD runs only in the lab's
# namespaces: the daemons their packages start where systemd runs have
# nothing to do on a build machine.
for unit in prometheus bird; do
	if [ -d /run/systemd/system ] && systemctl -q is-enabled "$unit.service" 2>/dev/null; then
		log "$unit.service: disabled and stopped (the tests run their own)"
		systemctl disable -q --now "$unit.service" >>"$DEPS_LOG" 2>&1 || true
	fi
done

# --- netperf, for flent ------------------------------------------------------
# Debian 12 has netperf only in non-free; sid has it in main, but its
# binary needs sid's libc.  So its source package from sid, built here
# with demo mode (flent reads netperf's interim results) into
# /usr/local/bin, which the test VM sees (it shares this root).
#
# The sid source index lives in an apt state of its own under the
# cache: a deb-src line for sid in the system's sources would make every
# "apt-get source" (tools/build-tc.sh's iproute2 among them) take sid's
# version, as apt-get source ignores pin priorities.  apt still checks
# the files against the index's hashes.
CACHE=${SCH_DFS_CACHE:-/var/lib/sch-dfs}
NETPERF_PREFIX=/usr/local
NETPERF_STAMP=$NETPERF_PREFIX/lib/sch-dfs/netperf.built

netperf_install() {
	local dir=$CACHE/netperf apt_dir src p uri
	local apt_opts

	apt_dir=$dir/apt
	apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
		  -o Dir::Etc::SourceParts=/nonexistent
		  -o "Dir::State::Lists=$apt_dir/lists"
		  -o "Dir::Cache=$apt_dir/cache"
		  -o APT::Sandbox::User=root)
	uri=$(awk '/^URIs:/ { print $2; exit }' \
		/etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	rm -rf "$dir"
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$dir/dl"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
		"${uri:-http://deb.debian.org/debian} sid main" > "$apt_dir/sources.list"
	log "netperf: apt-get update (sid's source index, in $apt_dir)"
	apt-get "${apt_opts[@]}" update -q >>"$DEPS_LOG" 2>&1 ||
		die "apt-get update of sid's sources failed"
	log "netperf: apt-get source netperf (sid)"
	# A mirror may lack the .dsc while it has the tarballs, which apt
	# has then checked: unpack them as dpkg-source would.
	(cd "$dir/dl" && apt-get "${apt_opts[@]}" source -q --download-only \
		netperf) >>"$DEPS_LOG" 2>&1 ||
		ls "$dir"/dl/netperf_*.orig.tar.* "$dir"/dl/netperf_*.debian.tar.* \
			>/dev/null 2>&1 || die "apt-get source netperf failed"
	src=$dir/src
	if ls "$dir"/dl/netperf_*.dsc >/dev/null 2>&1; then
		dpkg-source -x "$dir"/dl/netperf_*.dsc "$src" >>"$DEPS_LOG" 2>&1 ||
			die "dpkg-source -x netperf failed"
	else
		mkdir -p "$src"
		tar -xf "$dir"/dl/netperf_*.orig.tar.* -C "$src" --strip-components=1 &&
		tar -xf "$dir"/dl/netperf_*.debian.tar.* -C "$src" ||
			die "cannot unpack netperf's source"
		for p in $(grep -v '^#' "$src/debian/patches/series" 2>/dev/null); do
			patch -d "$src" -p1 -s < "$src/debian/patches/$p" >>"$DEPS_LOG" 2>&1 ||
				die "netperf: patch $p does not apply"
		done
	fi
	# As debian/rules builds it: its m4 macros, demo mode.
	log "netperf: building $(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)"
	(cd "$src" && autoreconf -f -i -I src/missing/m4 &&
	 ./configure --enable-demo --prefix="$NETPERF_PREFIX" \
		CFLAGS="$(dpkg-buildflags --get CFLAGS)" \
		LDFLAGS="$(dpkg-buildflags --get LDFLAGS)" &&
	 make -j"$(nproc)" -C src netperf netserver) >>"$DEPS_LOG" 2>&1 ||
		die "netperf build failed"
	grep -q '^#define WANT_DEMO' "$src/config.h" || die "netperf built without demo mode"
	install -D -s -m 0755 -t "$NETPERF_PREFIX/bin" "$src/src/netperf" "$src/src/netserver"
	mkdir -p "$(dirname "$NETPERF_STAMP")"
	dpkg-parsechangelog -l "$src/debian/changelog" -S Version > "$NETPERF_STAMP"
	rm -rf "$dir"
}

if [ -x "$NETPERF_PREFIX/bin/netperf" ] && [ -x "$NETPERF_PREFIX/bin/netserver" ] &&
   [ -s "$NETPERF_STAMP" ]; then
	log "netperf $(cat "$NETPERF_STAMP") present (built from sid's source)"
else
	netperf_install
	log "netperf $(cat "$NETPERF_STAMP") installed in $NETPERF_PREFIX/bin"
fi

# --- pip: virtme-ng ------------------------------------------------------------
# The python3 first on PATH (a pyenv one on the CI machines, else Debian's).
have=$(python3 -m pip show virtme-ng 2>/dev/null | sed -n 's/^Version: //p' || true)
if [ "$have" != "$VIRTME_NG_VERSION" ] || ! command -v vng >/dev/null; then
	log "pip install virtme-ng==$VIRTME_NG_VERSION${have:+ (had $have)}"
	pip_args=(install -q --disable-pip-version-check --root-user-action=ignore
		  "virtme-ng==$VIRTME_NG_VERSION")
	# Debian's own python3 refuses system-wide installs (PEP 668) without
	# this flag; interpreters without the marker do not need it.
	if python3 -c 'import sys, sysconfig, os; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
		pip_args+=(--break-system-packages)
	fi
	python3 -m pip "${pip_args[@]}" >>"$DEPS_LOG" 2>&1 || die "pip install virtme-ng failed"
	hash -r
	command -v vng >/dev/null || die "vng not on PATH after pip install"
else
	log "virtme-ng $have present"
fi
log "done"
