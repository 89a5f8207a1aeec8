#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel matrix: every kernel the modules must build and pass on.
#
#   tools/kernels.sh list             the matrix, one kernel a line (make kernels)
#   tools/kernels.sh names            the matrix's names: 6.1 6.12 7.2
#   tools/kernels.sh install NAME     install or prepare what building for and
#                                     booting NAME needs (make deps KERNEL=NAME)
#   tools/kernels.sh kver|kdir|kimg NAME
#                                     its release, the tree modules build
#                                     against, the image the test VM boots
#   tools/kernels.sh source NAME      the tarball of its Debian source, of
#                                     the image's own version (fetched into
#                                     the cache): make check-debug builds it
#
# NAME is a series (6.1, 6.12, 7.2), "default" (6.1) or "mainline" (the
# newest series Debian carries, in sid).
#
#   6.1    Debian 12's own kernel: linux-image-amd64 and linux-headers-amd64.
#   6.12   the LTS kernel of Debian 13, as bookworm-backports builds it for
#          Debian 12 (with bookworm's gcc-12): the release its
#          linux-image-amd64 depends on, image and headers installed by apt.
#   7.x    Debian sid's kernel.  Its image is used as Debian ships it; its
#          headers package cannot be used on Debian 12 (its host tools
#          need sid's libc), so the tree modules build against is
#          linux-source-7.x prepared with Debian's own .config and
#          Module.symvers (make modules_prepare, a few minutes, cached):
#          the modules then match Debian's binary kernel, which the test
#          VM boots with its own modules.  Nothing of sid is installed;
#          the packages are downloaded and unpacked into the cache.
#
# The cache (SCH_DFS_CACHE, default /var/lib/sch-dfs) lives outside the
# clone, so a second clone or run reuses it; whatever is missing from it is
# made again.  Not under /var/cache: the test VM mounts a tmpfs there, and
# it boots the kernel and loads its modules from the cache.

set -euo pipefail

CACHE=${SCH_DFS_CACHE:-/var/lib/sch-dfs}
APT_SOURCES=/etc/apt/sources.list.d/sch-dfs-kernels.sources
APT_PIN=/etc/apt/preferences.d/sch-dfs-kernels
MAINLINE=7.2		# the newest series in sid; "mainline" means this

die() { echo "kernels: error: $*" >&2; exit 1; }
log() { echo "kernels: $*" >&2; }

series() {
	case "$1" in
	default|6.1) echo 6.1 ;;
	6.12) echo 6.12 ;;
	mainline|7.*) echo "${1/mainline/$MAINLINE}" ;;
	*) die "unknown kernel '$1' (known: $(names))" ;;
	esac
}

names() { echo "6.1 6.12 $MAINLINE"; }

# --- apt: bookworm-backports and sid, pinned so nothing comes from them
# unless named; sid at 1 so that only packages bookworm lacks have a
# candidate there, and they are only ever downloaded, never installed.
apt_setup() {
	local changed=0

	if [ ! -f "$APT_SOURCES" ]; then
		cat > "$APT_SOURCES" <<-'EOF'
		# sch_dfs: the kernel matrix (tools/kernels.sh).  bookworm-backports
		# for 6.12; sid only for downloading its kernel (pinned to 1).
		Types: deb
		URIs: http://deb.debian.org/debian
		Suites: bookworm-backports sid
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
		changed=1
	fi
	if [ ! -f "$APT_PIN" ]; then
		cat > "$APT_PIN" <<-'EOF'
		# sch_dfs: never take a package from sid unless it exists nowhere else.
		Package: *
		Pin: release n=sid
		Pin-Priority: 1
		EOF
		changed=1
	fi
	if [ $changed = 1 ] || ! apt-cache show linux-image-amd64/bookworm-backports >/dev/null 2>&1 ||
	   ! apt-cache show linux-image-amd64/sid >/dev/null 2>&1; then
		log "apt-get update (bookworm-backports, sid)"
		apt-get update -q >/dev/null || die "apt-get update failed"
	fi
}

# The release the metapackage linux-image-amd64 of SUITE depends on.
apt_release() {
	apt-cache show "linux-image-amd64/$1" 2>/dev/null | sed -n 's/^Depends: //p' |
		head -n 1 | tr ',' '\n' | sed -n 's/^ *linux-image-\([^ ]*-amd64\) .*/\1/p'
}

# Newest installed release of a series: /boot/vmlinuz-<release> with
# its build directory.
installed_kver() {
	local re=$1 k

	for k in $(ls /boot 2>/dev/null | sed -n "s/^vmlinuz-\($re\)$/\1/p" | sort -rV); do
		[ -e "/lib/modules/$k/build/Makefile" ] && { echo "$k"; return 0; }
	done
	return 1
}

# Newest prepared sid release of a series in the cache.
cached_kver() {
	local s=$1 d

	for d in $(ls -d "$CACHE/kernels/$s".*/ 2>/dev/null | sort -rV); do
		[ -f "$d/prepared" ] && { basename "$d"; return 0; }
	done
	return 1
}

kver() {
	local s

	s=$(series "$1")
	case "$s" in
	6.1) installed_kver '6\.1\.[0-9]*-[0-9]*-amd64' ;;
	6.12) installed_kver '6\.12\.[0-9]*+deb12-amd64' ;;
	*) cached_kver "$s" ;;
	esac || die "kernel $s is not installed: run 'make deps KERNEL=$1'"
}

# kpath NAME dir|img: the tree modules build against, or the image the
# test VM boots.
kpath() {
	local s k

	s=$(series "$1"); k=$(kver "$1")
	case "$s:$2" in
	6.1:dir|6.12:dir) echo "/lib/modules/$k/build" ;;
	6.1:img|6.12:img) echo "/boot/vmlinuz-$k" ;;
	*:dir) echo "$CACHE/kernels/$k/src" ;;
	*:img) kimg_path_sid "$k" ;;
	esac
}

apt_install() {
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		"$@" >/dev/null || die "apt-get install $* failed"
}

install_612() {
	local k

	if k=$(installed_kver '6\.12\.[0-9]*+deb12-amd64'); then
		log "6.12: $k installed"
		return 0
	fi
	apt_setup
	k=$(apt_release bookworm-backports)
	case "$k" in 6.12.*) ;; *) die "bookworm-backports' linux-image-amd64 is '$k', not 6.12" ;; esac
	log "6.12: apt-get install linux-image-$k linux-headers-$k (bookworm-backports)"
	apt_install "linux-image-$k" "linux-headers-$k"
	[ -e "/lib/modules/$k/build/Makefile" ] || die "no build directory for $k"
}

# Debian sid's kernel: download, unpack, prepare a tree.
install_sid() {
	local s=$1 k dir debs src ver tarball jobs

	if k=$(cached_kver "$s"); then
		log "$s: $k prepared in $CACHE/kernels/$k"
		return 0
	fi
	apt_setup
	k=$(apt_release sid)
	case "$k" in "$s".*) ;; *) die "sid's linux-image-amd64 is '$k', not $s (update MAINLINE in $0)" ;; esac
	ver=$(apt-cache show "linux-image-$k/sid" | sed -n 's/^Version: //p' | head -n 1)
	[ "$(apt-cache show "linux-source-$s/sid" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)" = "$ver" ] ||
		die "sid has no linux-source-$s of version $ver"

	dir=$CACHE/kernels/$k
	debs=$CACHE/debs
	rm -rf "$dir"
	mkdir -p "$dir/root" "$debs"
	log "$s: downloading Debian's $k ($ver) into $debs"
	(cd "$debs" && apt-get download -q "linux-binary-$k=$ver" "linux-modules-$k=$ver" \
		"linux-headers-$k=$ver" "linux-source-$s=$ver" >/dev/null 2>&1) ||
		die "apt-get download of $k failed"
	for p in linux-binary linux-modules linux-headers; do
		dpkg-deb -x "$debs/${p}-${k}_${ver}_amd64.deb" "$dir/root" || die "cannot unpack $p"
	done
	dpkg-deb -x "$debs/linux-source-${s}_${ver}_all.deb" "$dir/pkg" || die "cannot unpack linux-source-$s"

	log "$s: unpacking linux-source-$s"
	tarball=$(ls "$dir"/pkg/usr/src/linux-source-"$s".tar.* | head -n 1)
	mkdir -p "$dir/src"
	tar -xf "$tarball" -C "$dir/src" --strip-components=1 || die "cannot unpack $tarball"
	rm -rf "$dir/pkg"

	# Debian's configuration and symbol versions, and its release string,
	# so that what is built here loads into Debian's image.
	src=$dir/root/usr/src/linux-headers-$k
	cp "$src/.config" "$dir/src/.config"
	cp "$src/Module.symvers" "$dir/src/Module.symvers"
	# Its vmlinux, BTF only: the base the modules' BTF is built against.
	cp "$src/vmlinux" "$dir/src/vmlinux"
	jobs=$(nproc)
	log "$s: make olddefconfig modules_prepare (gcc $(gcc -dumpversion), -j$jobs)"
	if ! make -C "$dir/src" -j"$jobs" KERNELRELEASE="$k" olddefconfig modules_prepare \
		> "$dir/prepare.log" 2>&1; then
		tail -n 30 "$dir/prepare.log" >&2
		die "modules_prepare of $k failed (log: $dir/prepare.log)"
	fi
	[ "$(cat "$dir/src/include/config/kernel.release")" = "$k" ] ||
		die "prepared tree says release $(cat "$dir/src/include/config/kernel.release"), not $k"
	[ -f "$(kimg_path_sid "$k")" ] || die "no vmlinuz in linux-binary-$k"
	# The package leaves modules.dep to its postinst: the guest's
	# modprobe needs it.
	depmod -b "$dir/root/usr" "$k" || die "depmod of $k failed"
	rm -rf "$dir/root/usr/src"
	touch "$dir/prepared"
	log "$s: $k ready (tree $dir/src, image $(kimg_path_sid "$k"))"
}

# The source of the test image, for a debug build of the same kernel
# (tools/build-debug-kernel.sh): Debian's linux-source-<series> of the
# image package's own version, so a report names the code that crashed.
source_tarball() {
	local s k ver dir

	s=$(series "$1"); k=$(kver "$1")
	case "$s" in
	6.1) "$(dirname "${BASH_SOURCE[0]}")/linux-source.sh"; return ;;
	6.12) ;;
	*) die "no debug build of $s: its image is sid's, built with sid's compiler" ;;
	esac
	ver=$(dpkg-query -W -f='${Version}' "linux-image-$k" 2>/dev/null) ||
		die "linux-image-$k is not installed: run 'make deps KERNEL=$1'"
	dir=$CACHE/sources/linux-source-$s-$ver
	if ! ls "$dir"/usr/src/linux-source-"$s".tar.* >/dev/null 2>&1; then
		[ "$(id -u)" -eq 0 ] || die "run as root (apt)"
		apt_setup
		mkdir -p "$CACHE/debs"
		log "$s: downloading linux-source-$s=$ver into $CACHE/debs"
		(cd "$CACHE/debs" && apt-get download -q "linux-source-$s=$ver" >/dev/null 2>&1) ||
			die "apt-get download linux-source-$s=$ver failed"
		rm -rf "$dir"
		mkdir -p "$dir"
		dpkg-deb -x "$CACHE/debs/linux-source-${s}_${ver//:/%3a}_all.deb" "$dir" ||
			die "cannot unpack linux-source-$s"
	fi
	ls "$dir"/usr/src/linux-source-"$s".tar.* | head -n 1
}

kimg_path_sid() { echo "$CACHE/kernels/$1/root/usr/lib/modules/$1/vmlinuz"; }

install() {
	local s

	[ "$(id -u)" -eq 0 ] || die "run as root (apt)"
	s=$(series "$1")
	case "$s" in
	6.1) log "6.1: installed by tools/install-deps.sh" ;;
	6.12) install_612 ;;
	*) install_sid "$s" ;;
	esac
}

list() {
	local n k how

	printf '%-7s %-24s %s\n' KERNEL RELEASE "FROM / TESTED BY"
	for n in $(names); do
		k=$(kver "$n" 2>/dev/null) || k="(not installed)"
		case "$n" in
		6.1) how="Debian 12 linux-image-amd64; make check: build, selftests, tdc" ;;
		6.12) how="bookworm-backports (Debian 13's LTS); make check: build, four selftests; make check KERNEL=6.12: every selftest, tdc" ;;
		*) how="Debian sid's image, tree from linux-source-$n; make check: build; make check-kernels: selftests, tdc" ;;
		esac
		printf '%-7s %-24s %s\n' "$n" "$k" "$how"
	done
}

[ $# -ge 1 ] || die "usage: $0 list|names|install NAME|kver NAME|kdir NAME|kimg NAME|source NAME"
cmd=$1; shift
case "$cmd" in
list) list ;;
names) names ;;
install|kver|series)
	[ $# -eq 1 ] || die "usage: $0 $cmd NAME"
	"$cmd" "$1" ;;
source)
	[ $# -eq 1 ] || die "usage: $0 $cmd NAME"
	source_tarball "$1" ;;
kdir|kimg)
	[ $# -eq 1 ] || die "usage: $0 $cmd NAME"
	kpath "$1" "${cmd#k}" ;;
*) die "unknown command '$cmd'" ;;
esac
