#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/upstream.sh [--check]        (make upstream; make check-upstream)
#
# The four modules as a netdev submission carries them: a patch series
# against Linux, written to build/upstream/ by git format-patch, with a
# cover letter ("[PATCH net-next 0/6]"):
#
#   1    net: the flow key (include/net/flowkey.h, flowkey_skb.h) that
#        sch_dfs and cls_lrufq share, and its key modes (enum
#        tc_flowkey_mode) in pkt_sched.h
#   2-5  net/sched: sch_dfs, sch_stfq, cls_lrufq, sch_hishape, each with
#        its sources, its Kconfig entry (<module>/Kconfig) in
#        net/sched/Kconfig, the lines of its Kbuild in net/sched/Makefile
#        and its netlink attributes in pkt_sched.h or pkt_cls.h
#   6    selftests/tc-testing: our tdc cases (selftests/tc-testing/*.json)
#        in tc-tests/qdiscs/ or tc-tests/filters/, and the four modules
#        in the suite's config.  The cases that send raw netlink through
#        tools/nlqdisc.py ($NLQDISC) stay out: tdc has no such tool, and
#        they test what tc cannot send.  A case id the kernel's suite
#        already has fails the script (tdc refuses duplicates).
#
# The messages are upstream/<name>.msg and upstream/cover-letter.msg, each
# with a Date: line first, as iproute2/patches/ has them.
#
# The layout is flat: the sources go to net/sched/ as they are named
# here (dfs_qdisc.c, dfs_btree.c, ..., stfq_tags.c, hishape_rate.h), and
# a module of several files is a composite object (sch_dfs-y :=
# dfs_qdisc.o dfs_btree.o ...).  Every qdisc and classifier in net/sched
# is flat, none has a directory of its own, and net/sched/Makefile and
# Kconfig are where reviewers and "make net/sched/" look; the prefixes
# (dfs_, stfq_, lrufq_, hishape_) keep the modules' files apart, and a
# header private to a module sits beside it as sch_mqprio_lib.h does.
# Directories would add a Makefile each for one or two lines, and a layout
# no other qdisc has.  The uapi follows the same rule: every qdisc's
# attributes are in pkt_sched.h and every classifier's in pkt_cls.h, so
# each of our headers (written so that its block moves there unchanged)
# is appended to the one of its kind, and the sources' #include of it
# becomes one of that.  The key modes (pkt_flowkey.h), which a qdisc and
# a classifier both take, go to pkt_sched.h: pkt_cls.h includes it, so
# both see the one enum without the qdisc including the classifiers'
# header, and cake's flow modes are there too.
#
# Left out, as only the out-of-tree build has them: compat/ (the compat
# header and its probes: the sources are written against the newest API),
# the Kbuild files themselves (obj-$(if $(KBUILD_EXTMOD),m,$(CONFIG_X))
# becomes obj-$(CONFIG_X)) and MODULE_VERSION(SCH_DFS_VERSION), the
# version of this tree (in-tree modules carry the kernel's).  The script
# fails if any of it is left in the series.
#
# The series is built in a git repository of net/sched/, include/net/ and
# include/uapi/linux/ of the newest kernel of the matrix (tools/kernels.sh
# kdir mainline: Debian's linux-source-7.2 as make deps unpacks it; those
# directories hold nothing the preparation made), one commit a patch, each
# dated as its message says.  Only the files the series touches or could
# collide with are in it, so the repository takes a second rather than
# minutes over 1.8 GB: format-patch's diffs are the same as against the
# whole tree, and an unchanged source gives the same series, byte for byte.
#
# --check (make check): make the series, then apply it patch by patch
# (git apply, whitespace errors fatal) to a copy of the prepared tree, and
# after each patch build what the series has so far with W=1, failing on
# any warning, so that a series that does not bisect fails: patch 1 has
# no module, so a module of one function that uses flowkey_skb.h compiles
# its headers; each later one sets its module =m (Kconfig must keep it)
# and builds it with those before it, again, as its uapi may touch their
# headers.  The builds are incremental, in the one copy.  Then run that
# tree's checkpatch.pl --strict over the patches.  A module build is
# "make M=net/sched <module>.ko ...": net/sched's Makefile and the tree's
# configuration pick the objects, and modpost checks the modules' symbols
# against Debian's Module.symvers, which an in-tree single-module build
# cannot do without the vmlinux.o Debian does not ship.  The copy leaves
# the prepared tree, which the out-of-tree builds use, untouched: what no
# module build writes to (drivers/, Documentation/, sound/: 1.3 GB of
# 1.8) is hard links, the rest (460 MB) real copies; afterwards the check
# makes sure nothing wrote into the links.  On 2 cores it takes a minute
# or two.  A failed check leaves the copy in build/upstream-check/ to look
# into; the next run replaces it.
#
# Environment: UPSTREAM_KERNEL (default mainline), JOBS (default: the CPUs).

set -euo pipefail
shopt -s inherit_errexit

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tools/source-files.sh
source "$ROOT/tools/source-files.sh"
OUT=$ROOT/build/upstream
CHECK=$ROOT/build/upstream-check
MSGS=$ROOT/upstream
KERNEL=${UPSTREAM_KERNEL:-mainline}
JOBS=${JOBS:-$(nproc)}
# The series in order: the flow key first, then the modules.
PATCHES=(flowkey sch_dfs sch_stfq cls_lrufq sch_hishape tc-testing)
TDC=tools/testing/selftests/tc-testing
# Never written by a module build: hard links in the check's copy.
LINKED=(drivers Documentation sound)

log() { echo "upstream: $*"; }
die() { echo "upstream: error: $*" >&2; exit 1; }

check=0
case "${1:-}" in
--check) check=1 ;;
'') ;;
*) die "usage: $0 [--check]" ;;
esac

KSRC=$("$ROOT/tools/kernels.sh" kdir "$KERNEL") ||
	die "no $KERNEL kernel tree: run 'make deps KERNEL=$KERNEL'"
KVER=$("$ROOT/tools/kernels.sh" kver "$KERNEL")
[ -f "$KSRC/net/sched/Kconfig" ] || die "no kernel source in $KSRC"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=$work/linux

export GIT_AUTHOR_NAME="sch_dfs developers" GIT_AUTHOR_EMAIL=dev@sch-dfs.invalid
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_CONFIG_NOSYSTEM=1 HOME=$work
g() { git -C "$tree" -c core.autocrlf=false -c commit.gpgsign=false "$@"; }

# --- in-tree forms -------------------------------------------------------------

# The uapi headers of this tree, and where each goes in-tree.
mapfile -t UAPI < <(cd "$ROOT/include/uapi/linux" && ls -- *.h)
uapi_target() {
	case $1 in
	pkt_sched_*|pkt_flowkey.h) echo pkt_sched.h ;;
	pkt_cls_*) echo pkt_cls.h ;;
	*) echo "$1" ;;
	esac
}

# intree_source FILE: FILE as net/sched/ or include/net/ carries it.
intree_source() {
	local f=$1 h t
	local args=(-e '/^MODULE_VERSION(SCH_DFS_VERSION);$/d')

	for h in "${UAPI[@]}"; do
		t=$(uapi_target "$h")
		[ "$t" != "$h" ] || continue
		# one #include of pkt_sched.h, not two
		if grep -q "^#include <linux/$t>" "$f"; then
			args+=(-e "\\|^#include <linux/$h>\$|d")
		fi
		args+=(-e "s|\\b${h//./\\.}\\b|$t|g")
	done
	sed "${args[@]}" "$f"
}

# uapi_block HEADER: our uapi header as a block of pkt_sched.h or
# pkt_cls.h: no SPDX line, guard or #include of linux/types.h, and its
# first comment without the paragraph that says where it will go.
uapi_block() {
	awk '
	function out(s) { l[++n] = s }
	function flush(i, drop) {
		if (!np)
			return
		for (i = 1; i <= np; i++)
			if (para[i] ~ /Written in the style of/)
				drop = 1
		if (!drop) {
			if (nparas++)
				out(" *")
			for (i = 1; i <= np; i++)
				out(para[i])
		}
		np = 0
	}
	NR == 1 && /SPDX-License-Identifier/ { next }
	state == 0 && /^\/\*$/ { state = 1; out($0); next }
	state == 1 && /^ \*\/$/ { flush(); out($0); state = 2; next }
	state == 1 && /^ \*$/ { flush(); next }
	state == 1 { para[++np] = $0; next }
	/^#ifndef _UAPI_|^#define _UAPI_|^#include <linux\/types\.h>/ { next }
	{ out($0) }
	END {
		for (i = n; i > 0; i--)
			if (l[i] ~ /^#endif/) {
				last = i
				break
			}
		if (!last)
			exit 1
		# no blank lines at either end, never two in a row
		for (i = 1; i < last; i++) {
			if (l[i] == "" && (!printed || blank))
				continue
			blank = l[i] == ""
			if (blank) {
				pending = 1
				continue
			}
			if (pending)
				print ""
			pending = 0
			print l[i]
			printed = 1
		}
	}' "$1"
}

# add_uapi HEADER: into the tree, appended to pkt_sched.h / pkt_cls.h.
add_uapi() {
	local h=$1 t dst

	t=$(uapi_target "$h")
	dst=$tree/include/uapi/linux/$t
	if [ "$t" = "$h" ]; then
		[ ! -e "$dst" ] || die "include/uapi/linux/$h is in Linux $KVER already"
		install -m 0644 "$ROOT/include/uapi/linux/$h" "$dst"
		return
	fi
	[ -f "$dst" ] || die "Linux $KVER has no include/uapi/linux/$t"
	uapi_block "$ROOT/include/uapi/linux/$h" >"$work/block" ||
		die "include/uapi/linux/$h: no #endif at its end"
	# before the header's closing #endif, after a blank line
	awk -v block="$work/block" '
	{ l[NR] = $0 }
	/^#endif/ { last = NR }
	END {
		if (!last)
			exit 1
		for (i = 1; i <= NR; i++) {
			if (i == last) {
				while ((getline b < block) > 0)
					print b
				print ""
			}
			print l[i]
		}
	}' "$dst" >"$work/uapi" || die "include/uapi/linux/$t of Linux $KVER: no #endif"
	mv "$work/uapi" "$dst"
}

# kbuild_symbol MOD: the CONFIG_ symbol its Kbuild builds it under.
kbuild_symbol() {
	sed -n 's/^obj-\$(if \$(KBUILD_EXTMOD),m,\$(CONFIG_\([A-Z0-9_]*\)))[[:space:]]*+=.*/\1/p' \
		"$ROOT/$1/Kbuild" | head -n 1
}

# kconfig_symbol MOD: the symbol its Kconfig entry defines.
kconfig_symbol() {
	sed -n 's/^config \([A-Z0-9_]*\)$/\1/p' "$ROOT/$1/Kconfig" | head -n 1
}

# add_kconfig MOD: its entry last in its group of net/sched/Kconfig.
add_kconfig() {
	local mod=$1 sym anchor kc=$tree/net/sched/Kconfig

	sym=$(kconfig_symbol "$mod")
	[ -n "$sym" ] || die "$mod/Kconfig defines no symbol"
	[ "$sym" = "$(kbuild_symbol "$mod")" ] ||
		die "$mod/Kconfig defines $sym, $mod/Kbuild builds on CONFIG_$(kbuild_symbol "$mod")"
	case $sym in
	NET_SCH_*) anchor='^menuconfig NET_SCH_DEFAULT$' ;;
	NET_CLS_*) anchor='^config NET_EMATCH$' ;;
	*) die "$mod: $sym is neither a qdisc's nor a classifier's symbol" ;;
	esac
	grep -q "$anchor" "$kc" || die "net/sched/Kconfig of Linux $KVER: no line '$anchor'"
	# the entry, without the comment that heads the file
	awk 'body || !/^(#|$)/ { body = 1; print }' "$ROOT/$mod/Kconfig" >"$work/entry"
	awk -v re="$anchor" -v entry="$work/entry" '
	$0 ~ re && !done {
		while ((getline e < entry) > 0)
			print e
		print ""
		done = 1
	}
	{ print }' "$kc" >"$work/Kconfig"
	mv "$work/Kconfig" "$kc"
}

# add_makefile MOD: the lines of its Kbuild, as net/sched/Makefile has
# them, after the last module of its group.
add_makefile() {
	local mod=$1 sym group line mf=$tree/net/sched/Makefile

	sym=$(kbuild_symbol "$mod")
	case $sym in
	NET_SCH_*) group=NET_SCH_ ;;
	NET_CLS_*) group=NET_CLS_ ;;
	esac
	: >"$work/lines"
	while IFS= read -r line; do
		case $line in
		''|'#'*) ;;
		'obj-$(if $(KBUILD_EXTMOD),m,$(CONFIG_'*)
			sed 's/^obj-\$(if \$(KBUILD_EXTMOD),m,\$(\(CONFIG_[A-Z0-9_]*\)))[[:space:]]*+=[[:space:]]*/obj-$(\1)\t+= /' \
				<<<"$line" >>"$work/lines" ;;
		*-y' := '*|*-y' += '*|*-objs' := '*)
			echo "$line" >>"$work/lines" ;;
		*) die "$mod/Kbuild: no in-tree form known for: $line" ;;
		esac
	done <"$ROOT/$mod/Kbuild"
	awk -v re="^obj-\\\$\\(CONFIG_$group" -v lines="$work/lines" '
	{ l[NR] = $0 }
	$0 ~ re { last = NR }
	END {
		if (!last)
			exit 1
		# past the composite lines of the last module
		while (last < NR && l[last + 1] ~ /^[A-Za-z0-9_]+-(y|objs)[ \t]*[:+]?=/)
			last++
		for (i = 1; i <= NR; i++) {
			print l[i]
			if (i == last)
				while ((getline x < lines) > 0)
					print x
		}
	}' "$mf" >"$work/Makefile" || die "net/sched/Makefile of Linux $KVER: no obj-\$(CONFIG_$group...) line"
	mv "$work/Makefile" "$mf"
}

# add_uapi_of FILE...: the uapi headers of this tree that FILE... include,
# unless an earlier patch added them.
declare -A uapi_added=()
add_uapi_of() {
	local h

	for h in $(sed -n 's|^#include <linux/\([a-z0-9_]*\.h\)>.*|\1|p' "$@" | sort -u); do
		[ -f "$ROOT/include/uapi/linux/$h" ] || continue	# the kernel's own
		[ -z "${uapi_added[$h]:-}" ] || continue
		uapi_added[$h]=1
		add_uapi "$h"
	done
}

# add_module MOD: its sources to net/sched/, the uapi headers they include
# (the first patch that does), its Kconfig entry and Makefile lines.
add_module() {
	local mod=$1 f base srcs=()

	[ -f "$ROOT/$mod/Kbuild" ] || die "$mod: no Kbuild"
	[ -f "$ROOT/$mod/Kconfig" ] || die "$mod: no Kconfig"
	while IFS= read -r -d '' f; do
		[ -f "$ROOT/$f" ] || continue		# deleted in the worktree
		base=${f##*/}
		case $base in
		Kbuild|Kconfig) continue ;;
		*.[ch]) ;;
		*) die "$f: no place for it in net/sched" ;;
		esac
		[ ! -e "$tree/net/sched/$base" ] || die "net/sched/$base is in Linux $KVER already"
		intree_source "$ROOT/$f" >"$tree/net/sched/$base"
		srcs+=("$ROOT/$f")
	done < <(source_files "$ROOT" "$mod")
	[ ${#srcs[@]} -gt 0 ] || die "$mod: no sources"
	add_uapi_of "${srcs[@]}"
	add_kconfig "$mod"
	add_makefile "$mod"
}

# add_tdc: our tdc cases and the modules' config symbols to the kernel's
# tc-testing suite (patch 6).
add_tdc() {
	local mod syms=()

	for mod in sch_dfs sch_stfq cls_lrufq sch_hishape; do
		syms+=("$(kconfig_symbol "$mod")")
	done
	python3 - "$tree/$TDC" "${syms[@]}" "$ROOT"/selftests/tc-testing/*.json <<'PY' ||
import glob, json, os, sys

suite, rest = sys.argv[1], sys.argv[2:]
syms = [s for s in rest if not s.endswith(".json")]
files = [f for f in rest if f.endswith(".json")]

ids = {}
for f in glob.glob(os.path.join(suite, "tc-tests", "**", "*.json"),
                   recursive=True):
    for case in json.load(open(f)):
        ids[case["id"]] = os.path.relpath(f, suite)
for f in files:
    cases = [c for c in json.load(open(f)) if "$NLQDISC" not in json.dumps(c)]
    kind = "filters" if cases[0]["category"][0] == "filter" else "qdiscs"
    dst = os.path.join(suite, "tc-tests", kind, os.path.basename(f))
    if os.path.exists(dst):
        sys.exit("upstream: error: %s is in the kernel's suite already" % dst)
    for c in cases:
        if c["id"] in ids:
            sys.exit("upstream: error: tdc id %s of %s is %s's already"
                     % (c["id"], os.path.basename(f), ids[c["id"]]))
        ids[c["id"]] = os.path.basename(f)
    with open(dst, "w") as out:
        out.write(json.dumps(cases, indent=4, ensure_ascii=False) + "\n")

# each symbol in its group's first run of lines, in order if that run is
cfg = os.path.join(suite, "config")
lines = open(cfg).read().split("\n")
for sym in syms:
    group = "CONFIG_" + sym.rsplit("_", 1)[0] + "_"
    run = [i for i, l in enumerate(lines) if l.startswith(group)]
    if not run:
        sys.exit("upstream: error: %s has no %s line" % (cfg, group))
    end = run[0]
    while end + 1 < len(lines) and lines[end + 1].startswith("CONFIG_"):
        end += 1
    names = [l.split("=")[0] for l in lines[run[0]:end + 1] if l.startswith(group)]
    at = end + 1
    if names == sorted(names):
        at = next((i for i in range(run[0], end + 1)
                   if lines[i].startswith(group)
                   and lines[i].split("=")[0] > "CONFIG_" + sym), end + 1)
    lines.insert(at, "CONFIG_%s=m" % sym)
open(cfg, "w").write("\n".join(lines))
PY
		die "the tdc cases do not go into the kernel's suite"
}

# --- the series -------------------------------------------------------------------

make_series() {
	local name msg date f n=0 base srcs

	mkdir -p "$tree"
	(cd "$KSRC" && find net/sched include/net include/uapi/linux -type f \
		\( -name '*.[ch]' -o -name Kconfig -o -name Makefile -o -name Kbuild \) \
		-not -name '*.mod.c' -print0 | xargs -0 cp --parents -t "$tree")
	(cd "$KSRC" && find "$TDC/config" "$TDC/tc-tests" -type f -print0 |
		xargs -0 cp --parents -t "$tree")
	g init -q
	g add -A
	GIT_AUTHOR_DATE="2026-11-28 00:00:00 +0000" GIT_COMMITTER_DATE="2026-11-28 00:00:00 +0000" \
		g commit -q -m "Linux $KVER: net/sched, include/net, include/uapi/linux"
	base=$(g rev-parse HEAD)

	for name in "${PATCHES[@]}"; do
		msg=$MSGS/$name.msg
		[ -f "$msg" ] || die "no upstream/$name.msg"
		if [ "$name" = flowkey ]; then
			srcs=()
			while IFS= read -r -d '' f; do
				[ -f "$ROOT/$f" ] || continue
				[ ! -e "$tree/$f" ] || die "$f is in Linux $KVER already"
				intree_source "$ROOT/$f" >"$tree/$f"
				srcs+=("$ROOT/$f")
			done < <(source_files "$ROOT" include/net)
			# the key modes, which the modules' attributes take
			add_uapi_of "${srcs[@]}"
		elif [ "$name" = tc-testing ]; then
			add_tdc
		else
			add_module "$name"
		fi
		date=$(sed -n '1s/^Date: //p' "$msg")
		[ -n "$date" ] || die "upstream/$name.msg: no Date: line first"
		sed '1,2d' "$msg" >"$work/msg"
		g add -A
		GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date g commit -q -F "$work/msg"
		n=$((n + 1))
	done
	for f in "${UAPI[@]}"; do
		[ -n "${uapi_added[$f]:-}" ] || die "include/uapi/linux/$f: no patch of the series includes it"
	done

	# Nothing of the out-of-tree build, nor of where the uapi was.
	if g diff "$base" HEAD | grep '^+' |
	   grep -n -E 'compat|COMPAT_|SCH_DFS_VERSION|KBUILD_EXTMOD|core_env|in-tree|out-of-tree|pkt_(sched|cls)_[a-z]+\.h|pkt_flowkey\.h' >&2; then
		die "the series carries what only the out-of-tree build has (above)"
	fi

	date=$(sed -n '1s/^Date: //p' "$MSGS/cover-letter.msg")
	[ -n "$date" ] || die "upstream/cover-letter.msg: no Date: line first"
	g config "branch.$(g symbolic-ref --short HEAD).description" "$(sed '1,2d' "$MSGS/cover-letter.msg")"
	mkdir -p "$work/out"
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		g format-patch -q --cover-letter --cover-from-description=subject \
		--subject-prefix="PATCH net-next" -o "$work/out" "$base..HEAD"

	mkdir -p "$OUT"
	rm -f "$OUT"/*.patch
	cp "$work/out"/*.patch "$OUT/"
	log "wrote $n patches and the cover letter to build/upstream/ (against Linux $KVER)"
}

# --- --check ------------------------------------------------------------------------

# check_headers KTREE KREL: patch 1 has no module to build; compile its
# headers in KTREE, in a module of one function that uses all of
# flowkey_skb.h and includes it before anything else, so that they build
# as they stand, before any module of the series includes them.
check_headers() {
	local k=$1 krel=$2 d=$CHECK/flowkey-check

	mkdir -p "$d"
	echo 'obj-m += flowkey_check.o' >"$d/Kbuild"
	cat >"$d/flowkey_check.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <net/flowkey_skb.h>	/* first: it must include what it needs */
#include <linux/module.h>

u32 flowkey_check(const struct sk_buff *skb, u32 mode, const u64 *seed);
u32 flowkey_check(const struct sk_buff *skb, u32 mode, const u64 *seed)
{
	struct flowkey a, b;

	flowkey_from_skb(skb, mode, &a);
	flowkey_from_skb(skb, TC_FLOWKEY_MAX, &b);
	return flowkey_eq(&a, &b) ? flowkey_hash(&a, seed) : 0;
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A compile test of net/flowkey_skb.h");
EOF
	make -C "$k" -j"$JOBS" W=1 KERNELRELEASE="$krel" M="$d" modules
}

# check_tdc KTREE SYMBOL...: after patch 6, every case file of the suite
# loads, no id is there twice (tdc would refuse to run), and the suite's
# config enables each module.
check_tdc() {
	local k=$1
	shift
	python3 - "$k/$TDC" "$@" <<'PY' || die "the tdc patch leaves the kernel's suite broken"
import glob, json, os, sys

suite, syms = sys.argv[1], sys.argv[2:]
seen, bad = {}, 0
for f in sorted(glob.glob(os.path.join(suite, "tc-tests", "**", "*.json"),
                          recursive=True)):
    for case in json.load(open(f)):
        if case["id"] in seen:
            print("tdc id %s: in %s and %s" % (case["id"], seen[case["id"]], f))
            bad = 1
        seen[case["id"]] = f
config = open(os.path.join(suite, "config")).read().split("\n")
for s in syms:
    if "CONFIG_%s=m" % s not in config:
        print("%s/config: no CONFIG_%s=m" % (suite, s))
        bad = 1
sys.exit(bad)
PY
}

check_series() {
	local k e i n name sym krel logf syms=() kos=() shared=() patches=()

	rm -rf "$CHECK"
	mkdir -p "$CHECK"
	k=$CHECK/linux
	mkdir "$k"
	while IFS= read -r -d '' e; do
		name=${e##*/}
		if [[ " ${LINKED[*]} " == *" $name "* ]]; then
			# another file system: real copies
			cp -al "$e" "$k/" 2>/dev/null || { rm -rf "${k:?}/$name"; cp -a "$e" "$k/"; }
			shared+=("$k/$name")
		else
			cp -a "$e" "$k/"
		fi
	done < <(find "$KSRC" -mindepth 1 -maxdepth 1 -print0)
	touch "$CHECK/stamp"

	for e in "$OUT"/*.patch; do
		case ${e##*/} in 0000-cover-letter.patch) ;; *) patches+=("$e") ;; esac
	done
	[ ${#patches[@]} -eq ${#PATCHES[@]} ] ||
		die "build/upstream/ has ${#patches[@]} patches, the series ${#PATCHES[@]}"
	krel=$(cat "$k/include/config/kernel.release")

	# Patch by patch, in the same tree (kbuild rebuilds what a patch
	# changes): every patch must build with those before it, and with W=1
	# not warn, so that the series bisects.
	for i in "${!PATCHES[@]}"; do
		name=${PATCHES[$i]} e=${patches[$i]} n=$((i + 1))
		(cd "$k" && GIT_CEILING_DIRECTORIES=$CHECK git apply --whitespace=error-all "$e") ||
			die "${e##*/} does not apply to Linux $KVER"
		if [ "$name" = tc-testing ]; then
			log "patch $n ($name): the suite's cases load, their ids are unique, its config enables ${syms[*]}"
			check_tdc "$k" "${syms[@]}"
			continue
		fi
		if [ -f "$ROOT/$name/Kbuild" ]; then
			sym=$(kconfig_symbol "$name")
			syms+=("$sym")
			kos+=("$(sed -n 's/^obj-.*+=[[:space:]]*\([a-z0-9_]*\)\.o$/\1.ko/p' "$ROOT/$name/Kbuild" | head -n 1)")
			# a symbol is kept only once its Kconfig entry is there
			"$k/scripts/config" --file "$k/.config" --module "$sym"
			make -C "$k" -s olddefconfig >"$CHECK/config.log" 2>&1 ||
				{ cat "$CHECK/config.log" >&2; die "make olddefconfig failed after ${e##*/}"; }
			grep -qx "CONFIG_$sym=m" "$k/.config" || die "Kconfig did not keep CONFIG_$sym=m"
			make -C "$k" -s syncconfig >>"$CHECK/config.log" 2>&1 ||
				{ cat "$CHECK/config.log" >&2; die "make syncconfig failed after ${e##*/}"; }
		fi
		logf=$CHECK/build-$n.log
		if [ ${#kos[@]} -eq 0 ]; then
			log "patch $n ($name): compiling its headers in $krel (W=1)"
			check_headers "$k" "$krel" >"$logf" 2>&1 || { cat "$logf" >&2; die "${e##*/}: its headers do not build"; }
		else
			log "patch $n ($name): building ${kos[*]} in net/sched of $krel (W=1)"
			make -C "$k" -j"$JOBS" W=1 KERNELRELEASE="$krel" M="$k/net/sched" "${kos[@]}" \
				>"$logf" 2>&1 || { cat "$logf" >&2; die "${e##*/}: the build in net/sched of Linux $KVER failed"; }
		fi
		if grep -i warning "$logf" >&2; then
			die "${e##*/}: warnings building in Linux $KVER (W=1)"
		fi
	done
	for e in "${kos[@]}"; do
		[ -f "$k/net/sched/$e" ] || die "no net/sched/$e"
		[ -z "$(modinfo -F version "$k/net/sched/$e")" ] || die "$e has a MODULE_VERSION"
	done

	# Not asked: MAINTAINERS (net/sched/ and include/net/ have theirs),
	# and kzalloc_obj(), which 7.x has and the kernels the same sources
	# build for out of the tree do not.
	(cd "$k" && ./scripts/checkpatch.pl --strict --terse --show-types \
		--ignore FILE_PATH_CHANGES,ALLOC_WITH_SIZEOF "${patches[@]}" 2>/dev/null) \
		>"$CHECK/checkpatch.log" || true
	if grep -E ': (ERROR|WARNING|CHECK):' "$CHECK/checkpatch.log" >&2; then
		die "checkpatch.pl --strict of Linux $KVER has findings in the series"
	fi

	# The hard links are the prepared tree's own files.
	e=$(find "${shared[@]}" -newer "$CHECK/stamp" -print -quit)
	[ -z "$e" ] || die "the build wrote into ${e#"$k"/}, shared with $KSRC"
	rm -rf "$CHECK"
	log "the series applies to $krel and builds there patch by patch, W=1, no warning; checkpatch --strict: nothing but kzalloc_obj()"
}

make_series
[ $check = 0 ] || check_series
