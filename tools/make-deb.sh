#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-deb.sh: the Debian packages, into build/deb/ ("make deb"):
#
#   sch-dfs-dkms_<version>_all.deb   the module sources in
#                                    /usr/src/sch-dfs-<version> for DKMS
#   sch-dfs-tc_<version>_<arch>.deb  the tc plugins (q_dfs.so with
#                                    dfs_mq, q_stfq.so, f_lrufq.so,
#                                    q_hishape.so) where Debian's tc finds
#                                    them, their manual pages,
#                                    sch-dfs-apply with its unit and
#                                    ifupdown hook (deploy/), and README.md
#                                    and doc/, the pages linked as here
#   dfs-guard_<version>_all.deb      the verdict daemon (guard/), its
#                                    configuration, systemd unit,
#                                    dashboard and alert rules
#
# The packaging is debian/ (debhelper 13, dh-dkms); debian/README.source
# says what this script adds to it.  The build runs in a copy of what the
# packages need, build/deb/src/sch-dfs-<version>/, never in the checkout:
# dpkg-buildpackage writes into debian/ and into the parent directory.
#
# The version is "git describe --tags --always --dirty" made a Debian
# version (see deb_version below); DEB_VERSION=... overrides it.  The
# version is also written to the tree's VERSION file, which Kbuild makes
# the modules' MODULE_VERSION, so modinfo and /sys/module/*/version show
# the package's version.
#
# Environment: DEB_VERSION (the version), DEBFULLNAME and DEBEMAIL (the
# changelog's author), LINTIAN=0 (skip the lintian check of the .debs).
# Needs git, dpkg-dev, debhelper, dh-dkms, dh-python and, for the tc
# plugins, what tools/build-tc.sh needs: "make-deb.sh --install-deps"
# (make deb-deps) installs them all, and no more, on a build machine of
# the router's Debian release; "make deps" has them too.

set -euo pipefail
shopt -s inherit_errexit

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tools/source-files.sh
source "$ROOT/tools/source-files.sh"
BUILD=$ROOT/build
OUT=$BUILD/deb
PKG=sch-dfs

log() { echo "make-deb: $*"; }
die() { echo "make-deb: error: $*" >&2; exit 1; }

# --- the build tools -------------------------------------------------------
DEB_DEPS=(git dpkg-dev debhelper dh-dkms dh-python python3 lintian)
if [ "${1:-}" = --install-deps ]; then
	[ "$(id -u)" = 0 ] || die "--install-deps: run as root"
	log "apt-get install ${DEB_DEPS[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${DEB_DEPS[@]}" || die "apt-get install failed"
	# iproute2's build dependencies and its source (and a deb-src line)
	exec "$ROOT/tools/build-tc.sh" --fetch-only
fi
[ $# = 0 ] || die "usage: make-deb.sh [--install-deps]"
missing=()
for t in dpkg-buildpackage:dpkg-dev dh:debhelper dh_dkms:dh-dkms; do
	command -v "${t%%:*}" >/dev/null || missing+=("${t#*:}")
done
[ ${#missing[@]} -eq 0 ] ||
	die "missing ${missing[*]}: run 'make deb-deps' (or apt-get install ${missing[*]})"

# --- the version -------------------------------------------------------------
# From git describe:
#   v1.2 (a tag; a leading "v" is dropped)  -> 1.2
#   v1.2-rc1                                -> 1.2~rc1   (before 1.2)
#   v1.2-3-gabc1234 (3 commits past v1.2)   -> 1.2+git20250101.3.abc1234
#   abc1234 (no tag at all)                 -> 0.0~git20250101.57.abc1234
#   ...-dirty (uncommitted changes)         -> ...+dirty20250101123456
# <date> is the commit's date (UTC) and the commit count after it keeps
# two commits of one day in order; a dirty tree sorts after its commit and
# before the next one, and a later dirty build after an earlier one, since
# its suffix is the build time.  dpkg --compare-versions orders them all.
deb_version() {
	local desc dirty='' base n hash date

	desc=$(git -C "$ROOT" describe --tags --always --dirty) || return 1
	if [[ $desc == *-dirty ]]; then
		desc=${desc%-dirty}
		dirty=+dirty$(date -u +%Y%m%d%H%M%S)
	fi
	date=$(TZ=UTC git -C "$ROOT" log -1 --format=%cd --date=format-local:%Y%m%d)
	if [[ $desc =~ ^(.+)-([0-9]+)-g([0-9a-f]+)$ ]]; then
		base=$(tag_version "${BASH_REMATCH[1]}") || return 1
		n=${BASH_REMATCH[2]} hash=${BASH_REMATCH[3]}
		echo "$base+git$date.$n.$hash$dirty"
	elif [[ $desc =~ ^[0-9a-f]+$ ]] && ! git -C "$ROOT" rev-parse -q --verify "refs/tags/$desc" >/dev/null; then
		n=$(git -C "$ROOT" rev-list --count HEAD)
		echo "0.0~git$date.$n.$desc$dirty"
	else
		base=$(tag_version "$desc") || return 1
		echo "$base$dirty"
	fi
}

# tag_version TAG: v1.2-rc1 -> 1.2~rc1; other - and _ become dots.
tag_version() {
	local v=${1#[vV]}

	v=$(sed -E -e 's/[-_.]?(rc|alpha|beta|pre)/~\1/' -e 's/[-_]/./g' <<<"$v")
	[[ $v =~ ^[0-9][A-Za-z0-9.+~]*$ ]] ||
		{ echo "make-deb: error: tag '$1' does not make a Debian version" >&2; return 1; }
	echo "$v"
}

if [ -n "${DEB_VERSION:-}" ]; then
	VERSION=$DEB_VERSION
elif git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	VERSION=$(deb_version) || die "cannot make a version from git describe"
elif [ -s "$ROOT/VERSION" ]; then
	VERSION=$(cat "$ROOT/VERSION")
else
	die "not a git checkout and no VERSION file: set DEB_VERSION"
fi
# A native package's version: no Debian revision, hence no hyphen.
[[ $VERSION =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "'$VERSION' is not a valid native Debian version"
dpkg --compare-versions "$VERSION" gt 0~ 2>/dev/null || die "dpkg does not accept version '$VERSION'"
log "version $VERSION"

# --- the tc plugins and the patched iproute2 tree (man pages) ---------------
"$ROOT/tools/build-tc.sh"

# --- the package source tree ---------------------------------------------------
SRC=$OUT/src
STAGE=$SRC/$PKG-$VERSION
rm -rf "$SRC"
mkdir -p "$STAGE/tc"

# What the top-level Kbuild builds from, the DKMS configuration, the
# packaging, and the documentation.
n=0
while IFS= read -r -d '' f; do
	[ -f "$ROOT/$f" ] || continue		# deleted in the worktree
	case $f in debian/changelog.in) continue ;; esac
	install -D -m "$(stat -c %a "$ROOT/$f")" "$ROOT/$f" "$STAGE/$f"
	n=$((n + 1))
done < <(source_files "$ROOT" Kbuild compat include sch_dfs sch_stfq cls_lrufq sch_hishape \
		      dkms.conf debian README.md guard deploy doc)
# dh_installsystemd takes the unit from debian/<package>.service
cp "$ROOT/guard/dfs-guard.service" "$STAGE/debian/dfs-guard.service"
for f in Kbuild dkms.conf debian/control debian/rules sch_dfs/Kbuild \
	 sch_stfq/Kbuild cls_lrufq/Kbuild sch_hishape/Kbuild; do
	[ -f "$STAGE/$f" ] || die "$f missing from the package sources"
done
echo "$VERSION" >"$STAGE/VERSION"
log "staged $n source files in ${STAGE#$ROOT/}"

# The plugins, and their manual pages: the man/man8/*.8 files the patches
# of tc-patch/ add, taken from the patched tree build-tc.sh made.
plugins=("$BUILD"/tc/lib/*.so)
[ -f "${plugins[0]}" ] || die "no plugins in build/tc/lib"
cp "${plugins[@]}" "$STAGE/tc/"
mans=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/tc-patch/series" |
	while read -r p; do
		sed -n 's|^+++ b/man/man8/\([^/[:space:]]*\.8\)$|\1|p' "$ROOT/tc-patch/$p"
	done)
[ -n "$mans" ] || die "no manual pages in the tc-patch/ series"
for m in $mans; do
	[ -f "$BUILD/iproute2/man/man8/$m" ] || die "build/iproute2/man/man8/$m missing"
	cp "$BUILD/iproute2/man/man8/$m" "$STAGE/tc/"
done

# The plugins use tc's internal structures: they need the iproute2
# release whose source build-tc.sh built them from (Debian's 6.1.0-3:
# iproute2 (>= 6.1.0), iproute2 (<< 6.2~)).
dsc=$(cat "$BUILD/iproute2-src/.sch-dfs-dsc" 2>/dev/null || true)
if [[ $dsc =~ ^iproute2_(([0-9]+)\.([0-9]+)[^-]*)-.*\.dsc$ ]]; then
	echo "iproute2 (>= ${BASH_REMATCH[1]}), iproute2 (<< ${BASH_REMATCH[2]}.$((BASH_REMATCH[3] + 1))~)"
else
	log "warning: cannot tell the iproute2 release of build/iproute2-src"
	echo iproute2
fi >"$STAGE/tc/iproute2.depends"

# --- debian/changelog -------------------------------------------------------
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	changes="Build of commit $(git -C "$ROOT" rev-parse --short=12 HEAD)"
	if [[ $VERSION == *+dirty* ]]; then
		changes+=" with uncommitted changes."
		date=$(date -R)
	else
		changes+="."
		date=$(git -C "$ROOT" log -1 --format=%cD)
	fi
else
	changes="Build of $VERSION."
	date=$(date -R)
fi
maint="${DEBFULLNAME:-sch_dfs developers} <${DEBEMAIL:-dev@sch-dfs.invalid}>"
sed -e "s|@VERSION@|$VERSION|" -e "s|@DISTRIBUTION@|UNRELEASED|" \
    -e "s|@CHANGES@|$changes|" -e "s|@MAINTAINER@|$maint|" -e "s|@DATE@|$date|" \
    "$ROOT/debian/changelog.in" >"$STAGE/debian/changelog"

# --- build ---------------------------------------------------------------------
log "dpkg-buildpackage -b -us -uc in ${STAGE#$ROOT/} (log: build/deb/build.log)"
start=$(date +%s)
(cd "$STAGE" && dpkg-buildpackage -b -us -uc) >"$OUT/build.log" 2>&1 ||
	{ tail -n 40 "$OUT/build.log" >&2; die "dpkg-buildpackage failed, see build/deb/build.log"; }
rm -f "$OUT"/$PKG-*.deb "$OUT"/dfs-guard_*.deb
debs=()
for f in "$SRC"/$PKG-*_"$VERSION"_*.deb "$SRC"/dfs-guard_"$VERSION"_*.deb; do
	[ -f "$f" ] || continue
	cp "$f" "$OUT/"
	debs+=("$OUT/$(basename "$f")")
done
[ ${#debs[@]} -eq 3 ] || die "expected 3 packages, dpkg-buildpackage made ${#debs[@]}"
log "built in $(( $(date +%s) - start ))s:"
for f in "${debs[@]}"; do log "  ${f#$ROOT/}"; done

# --- lintian -------------------------------------------------------------------
if [ "${LINTIAN:-1}" != 0 ] && command -v lintian >/dev/null; then
	if lintian --info --display-info --pedantic "${debs[@]}" >"$OUT/lintian.txt" 2>&1; then
		:
	fi
	if [ -s "$OUT/lintian.txt" ]; then
		log "lintian (build/deb/lintian.txt):"
		grep -E '^[EWIPX]: ' "$OUT/lintian.txt" | sed 's/^/make-deb:   /' || true
	else
		log "lintian: clean"
	fi
fi
