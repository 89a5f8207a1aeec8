#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build iproute2's tc with our patches, and our tc plugins.  The patches
# are generated from iproute2/ (tools/tc-patches.sh).  --fetch-only: get
# the source and stop.
#
#   build/iproute2-src/   Debian's iproute2 source, as dpkg-source unpacks it
#   build/iproute2/       a copy with every patch of tc-patch/series applied
#   build/tc/tc           the patched tc
#   build/tc/lib/*.so     the q_*.so and f_*.so our patches add, for the stock
#                         tc:  TC_LIB_DIR=build/tc/lib tc qdisc add ... dfs
#
# Idempotent: the source is fetched once, the patched copy is made again
# only when tc-patch/ changes, and make does the rest. Needs root (or sudo)
# only to install missing build dependencies and to add a deb-src entry.

set -euo pipefail
# iproute2 is a foreign tree: a make that runs us (make check's sub-make,
# with its TDC=1 and its -w, whose "Entering directory" lines would land
# in the flags tc_cflags reads) must not reach its makes.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
shopt -s inherit_errexit

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
SRC=$BUILD/iproute2-src
TREE=$BUILD/iproute2
OUT=$BUILD/tc
PATCHES=$ROOT/tc-patch
JOBS=${JOBS:-2}
STAMP=$TREE/.sch-dfs-stamp

# Enough for lib/ and tc/ of iproute2 6.1 with the features Debian's tc has
# (libbpf, libelf, libmnl, libcap); xtables, selinux and libbsd are optional
# and left out. dpkg-dev and xz-utils fetch and unpack the source.
DEPS=(gcc make bison flex pkg-config patch dpkg-dev xz-utils
      libmnl-dev libelf-dev libbpf-dev libcap-dev zlib1g-dev)

log() { echo "build-tc: $*"; }
die() { echo "build-tc: error: $*" >&2; exit 1; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root for: $*"
	fi
}

apt_install() {
	export DEBIAN_FRONTEND=noninteractive
	if ! as_root apt-get install -y -q --no-install-recommends "$@" \
		>"$BUILD/apt.log" 2>&1; then
		log "apt-get install failed, running apt-get update and retrying"
		as_root apt-get update -q >>"$BUILD/apt.log" 2>&1 || true
		as_root apt-get install -y -q --no-install-recommends "$@" \
			>>"$BUILD/apt.log" 2>&1 ||
			{ tail -n 20 "$BUILD/apt.log" >&2; die "cannot install $*"; }
	fi
}

ensure_deps() {
	local missing=() p

	for p in "${DEPS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	apt_install "${missing[@]}"
}

has_deb_src() {
	grep -qsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources
}

# Add a deb-src entry mirroring the Debian deb entry, in the same format.
ensure_deb_src() {
	local codename uri

	has_deb_src && return 0
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		uri=$(awk '/^URIs:/ { print $2; exit }' \
			/etc/apt/sources.list.d/debian.sources)
		log "adding /etc/apt/sources.list.d/deb-src.sources"
		as_root tee /etc/apt/sources.list.d/deb-src.sources >/dev/null <<-EOF
		Types: deb-src
		URIs: ${uri:-http://deb.debian.org/debian}
		Suites: $codename $codename-updates
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
	else
		uri=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' \
			/etc/apt/sources.list 2>/dev/null || true)
		log "adding /etc/apt/sources.list.d/deb-src.list"
		echo "deb-src ${uri:-http://deb.debian.org/debian} $codename main" |
			as_root tee /etc/apt/sources.list.d/deb-src.list >/dev/null
	fi
	log "apt-get update"
	as_root apt-get update -q >"$BUILD/apt.log" 2>&1 ||
		{ tail -n 20 "$BUILD/apt.log" >&2; die "apt-get update failed"; }
}

fetch_source() {
	local dl=$BUILD/dl dsc

	[ -f "$SRC/tc/tc.c" ] && return 0
	ensure_deb_src
	rm -rf "$dl" "$SRC.tmp"
	mkdir -p "$dl"
	log "fetching the iproute2 source (apt-get source)"
	(cd "$dl" && apt-get source -q --download-only \
		-o APT::Sandbox::User=root iproute2) >"$BUILD/fetch.log" 2>&1 || {
		log "apt-get source failed, running apt-get update and retrying"
		as_root apt-get update -q >>"$BUILD/fetch.log" 2>&1 || true
		(cd "$dl" && apt-get source -q --download-only \
			-o APT::Sandbox::User=root iproute2) \
			>>"$BUILD/fetch.log" 2>&1 ||
			{ tail -n 20 "$BUILD/fetch.log" >&2; die "apt-get source failed"; }
	}
	dsc=$(ls "$dl"/iproute2_*.dsc | head -n 1)
	log "unpacking $(basename "$dsc")"
	dpkg-source -x "$dsc" "$SRC.tmp" >>"$BUILD/fetch.log" 2>&1 ||
		{ tail -n 20 "$BUILD/fetch.log" >&2; die "dpkg-source -x failed"; }
	basename "$dsc" >"$SRC.tmp/.sch-dfs-dsc"
	mv "$SRC.tmp" "$SRC"
}

series() {
	[ -f "$PATCHES/series" ] || die "missing $PATCHES/series"
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$PATCHES/series"
}

stamp() {
	local p

	{
		cat "$SRC/.sch-dfs-dsc" 2>/dev/null || true
		cat "$PATCHES/series"
		series | while read -r p; do
			[ -f "$PATCHES/$p" ] || die "series lists missing $p"
			cat "$PATCHES/$p"
		done
	} | sha256sum | cut -d' ' -f1
}

prepare_tree() {
	local want p multiarch

	want=$(stamp)
	if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
		return 0
	fi
	log "copying the pristine source to build/iproute2"
	rm -rf "$TREE"
	cp -a "$SRC" "$TREE"
	series | while read -r p; do
		log "applying $p"
		patch -p1 -s -N -d "$TREE" <"$PATCHES/$p" ||
			die "$p does not apply"
	done
	multiarch=$(gcc -print-multiarch 2>/dev/null || true)
	log "configuring"
	(cd "$TREE" && ./configure --prefix=/usr \
		--libdir="/usr/lib${multiarch:+/$multiarch}") \
		>"$BUILD/configure.log" 2>&1 ||
		{ cat "$BUILD/configure.log" >&2; die "configure failed"; }
	echo "$want" >"$STAMP"
}

build_tc() {
	log "building lib and tc"
	make -C "$TREE" -j"$JOBS" SUBDIRS="lib tc" >"$BUILD/make.log" 2>&1 ||
		{ tail -n 40 "$BUILD/make.log" >&2; die "make failed, see build/make.log"; }
	mkdir -p "$OUT/lib"
	if ! cmp -s "$TREE/tc/tc" "$OUT/tc"; then
		install -m 0755 "$TREE/tc/tc" "$OUT/tc"
	fi
}

# The flags tc/Makefile compiles its modules with, seen from tc/.
tc_cflags() {
	local mk=$BUILD/print-cflags.mk

	printf '%s\n' \
		'print-tc-cflags:' \
		'	@$(MAKE) -s -C tc -f Makefile -f $(PRINT_MK) print-cflags' \
		'print-cflags:' \
		'	@echo $(CFLAGS) $(CPPFLAGS)' >"$mk"
	make -s -C "$TREE" -f Makefile -f "$mk" PRINT_MK="$mk" print-tc-cflags
}

# Symbols a plugin takes from the tc that loads it: warn about any that
# Debian's tc does not export.
check_exports() {
	local so=$1 sym exported missing=()

	[ -x /usr/sbin/tc ] || return 0
	exported=$(nm -D --defined-only /usr/sbin/tc | awk '{ print $3 }')
	for sym in $(nm -D --undefined-only "$so" |
		     awk '$1 == "U" && $2 !~ /@/ { print $2 }'); do
		grep -qx "$sym" <<<"$exported" || missing+=("$sym")
	done
	[ ${#missing[@]} -eq 0 ] ||
		log "warning: /usr/sbin/tc does not export ${missing[*]} used by $(basename "$so")"
}

# The plugins are the q_*.c and f_*.c files that our patches add to tc/:
# the patch series is the one source of them.
plugin_names() {
	local p

	grep -v '^[[:space:]]*\(#\|$\)' "$PATCHES/series" | while read -r p; do
		sed -n 's|^+++ b/tc/\([qf]_[a-z0-9_]*\)\.c$|\1|p' "$PATCHES/$p"
	done
}

build_plugins() {
	local c name so cflags=()

	for name in $(plugin_names); do
		c=$TREE/tc/$name.c
		so=$OUT/lib/$name.so
		if [ -f "$so" ] && [ "$so" -nt "$c" ] && [ "$so" -nt "$STAMP" ]; then
			continue
		fi
		[ ${#cflags[@]} -gt 0 ] || read -ra cflags <<<"$(tc_cflags)"
		log "building build/tc/lib/$name.so"
		# From tc/ so that the -I../include of the flags resolve.
		(cd "$TREE/tc" && gcc -I. "${cflags[@]}" \
			-fPIC -shared -o "$so.tmp" "$c") ||
			die "cannot build $name.so"
		mv "$so.tmp" "$so"
		check_exports "$so"
	done
	# A qdisc of another plugin's file: tc dlopen()s q_KIND.so, and
	# q_dfs.c holds dfs_mq too.
	ln -sfn q_dfs.so "$OUT/lib/q_dfs_mq.so"
}

check_uapi() {
	local h

	for h in "$ROOT"/include/uapi/linux/*.h; do
		[ -f "$h" ] || continue
		if [ -f "$TREE/include/uapi/linux/$(basename "$h")" ] &&
		   ! cmp -s "$h" "$TREE/include/uapi/linux/$(basename "$h")"; then
			log "warning: include/uapi/linux/$(basename "$h") differs from the copy in tc-patch/"
		fi
	done
}

mkdir -p "$BUILD"
ensure_deps
fetch_source
# tools/tc-patches.sh needs the pristine source only.
[ "${1:-}" = --fetch-only ] && exit 0
prepare_tree
check_uapi
build_tc
build_plugins
log "done: build/tc/tc ($("$OUT/tc" -V | head -n 1)), plugins in build/tc/lib"
