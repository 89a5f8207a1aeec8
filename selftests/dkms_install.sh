#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages as a router admin installs them: apt-get install of
# build/deb/sch-dfs-dkms_*.deb and sch-dfs-tc_*.deb ("make deb"), DKMS
# building the modules for the running kernel, the modules loaded with
# modprobe and driven by Debian's own /usr/sbin/tc through the packaged
# plugins, then everything removed again:
#
#	install    doc/operate.md's install recipe, as written: apt-get,
#	           offline (every dependency is already installed)
#	dkms       built and installed for $(uname -r), in updates/dkms
#	modprobe   the four modules, MODULE_VERSION = the package's version
#	tc         stock tc: dfs qdisc, stfq classes, lrufq filter, hishape
#	           with a ranges file, man pages
#	dfs-guard  its configuration checks, the daemon (as its unit starts
#	           it) runs in dry run and serves the qdisc's metrics
#	recipes    doc/operate.md's recipes on a router's eth0 and eth1
#	           (selftests/operate_recipes.sh)
#	remove     doc/operate.md's remove recipe (modprobe -r, apt-get
#	           purge): modules, DKMS tree, plugins and dfs-guard gone,
#	           stock tc no longer knows dfs
#
# It changes the system (dpkg database, /usr/src, /var/lib/dkms,
# /lib/modules), so it runs only in the test VM, whose root is the host's
# under throwaway overlays, and with none of our modules loaded before:
#
#	VM_NO_MODULES=1 tools/vm-run.sh selftests/dkms_install.sh
#
# (selftests/run_dkms_vm.sh).  DKMS_TEST_ANYWHERE=1 runs it elsewhere, on
# a machine that may be changed so.  DEB_DIR: where the .debs are.
#
# Under TCG DKMS takes minutes: it compiles the modules in the guest.
# Debian's dkms builds for the running kernel and for the newest one that
# has a /boot/config-*; in the guest, which shares the host's /boot, that
# would be a second build (booting 6.1 with 6.12 installed), so the guest
# sees only the running kernel's config unless DKMS_TEST_ALL_KERNELS=1.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/recipe_lib.sh"

REPO=${REPO:-$(cd "$(dirname "$0")/.." && pwd)}
DEB_DIR=${DEB_DIR:-$REPO/build/deb}
MODS=(sch_dfs sch_stfq cls_lrufq sch_hishape)
DEV=dkms-d0
KVER=$(uname -r)

# Debian's tc, never the patched build/tc/tc that vm-guest.sh puts first
# on PATH; and the plugins from where the package puts them, not from
# TC_LIB_DIR (vm-guest.sh points it at build/tc/lib).
TC=/usr/sbin/tc
recipe_env

require_root
require_command apt-get dpkg dpkg-deb dkms modprobe modinfo man ip
[ -x $TC ] || { echo "SKIP: no $TC (iproute2)"; exit $ksft_skip; }

if [ "${DKMS_TEST_ANYWHERE:-0}" != 1 ] && ! grep -q virtme /proc/cmdline; then
	echo "SKIP: installs packages system-wide: runs in the test VM only" \
	     "(VM_NO_MODULES=1 tools/vm-run.sh $0), or set DKMS_TEST_ANYWHERE=1"
	exit $ksft_skip
fi
if [ ! -e "/lib/modules/$KVER/build/Makefile" ]; then
	echo "SKIP: no headers of the running kernel $KVER (/lib/modules/$KVER/build)"
	exit $ksft_skip
fi

DKMS_DEB=$(ls "$DEB_DIR"/sch-dfs-dkms_*_all.deb 2>/dev/null)
TC_DEB=$(ls "$DEB_DIR"/sch-dfs-tc_*_"$(dpkg --print-architecture)".deb 2>/dev/null)
GUARD_DEB=$(ls "$DEB_DIR"/dfs-guard_*_all.deb 2>/dev/null)
if [ -z "$DKMS_DEB" ] || [ -z "$TC_DEB" ] || [ -z "$GUARD_DEB" ]; then
	echo "SKIP: no packages in $DEB_DIR: run 'make deb'"
	exit $ksft_skip
fi
if [ "$(wc -l <<<"$DKMS_DEB")" != 1 ] || [ "$(wc -l <<<"$TC_DEB")" != 1 ] ||
   [ "$(wc -l <<<"$GUARD_DEB")" != 1 ]; then
	echo "FAIL: more than one version of the packages in $DEB_DIR"
	exit $ksft_fail
fi
VER=$(dpkg-deb -f "$DKMS_DEB" Version)
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
PLUGIN_DIR=/usr/lib/$MULTIARCH/tc
log_info "packages $(basename "$DKMS_DEB") $(basename "$TC_DEB") $(basename "$GUARD_DEB")"
log_info "kernel $KVER, tc $($TC -V | head -n 1)"

LOG=$(mktemp -d /tmp/dkms_install.XXXXXX)

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed$'
}

cleanup()
{
	mountpoint -q /boot && [ -n "${BOOT_HIDDEN:-}" ] && umount /boot
	ip link del $DEV 2>/dev/null
	for ((i = ${#MODS[@]} - 1; i >= 0; i--)); do
		modprobe -q -r "${MODS[i]}" 2>/dev/null
	done
	pkill -f '^/usr/bin/python3 /usr/sbin/dfs-guard' 2>/dev/null
	if installed sch-dfs-dkms || installed sch-dfs-tc || installed dfs-guard; then
		apt-get purge -y -q sch-dfs-dkms sch-dfs-tc dfs-guard >/dev/null 2>&1
	fi
	rm -rf "$LOG"
}
trap cleanup EXIT

# Nothing of ours may be there before the packages: not loaded (that would
# be vm-run.sh's own .ko files: VM_NO_MODULES=1), not installed.
RET=0
for m in "${MODS[@]}"; do
	[ ! -d /sys/module/$m ]
	check_err $? "$m is loaded before the package is installed (VM_NO_MODULES=1?)"
done
! installed sch-dfs-dkms && ! installed sch-dfs-tc && ! installed dfs-guard
check_err $? "the packages are installed already"
! ls /lib/modules/"$KVER"/updates/dkms/sch_dfs.ko* >/dev/null 2>&1
check_err $? "/lib/modules/$KVER/updates/dkms already has sch_dfs"
log_test "clean system before the install"
[ $EXIT_STATUS = 0 ] || ksft_exit

# --- install -------------------------------------------------------------------
# apt-get, as an admin would: it checks the dependencies (dkms, iproute2 of
# the right release) and orders the two packages.  The guest has no
# network and its /var/lib/apt and /var/cache are empty tmpfs: with the
# dependencies installed (make deps installs them on the host, whose root
# the guest shares) apt needs no package lists and downloads nothing.
# (Not --no-download: with it apt 2.6 skips "fetching" the local .debs too
# and fails, "Internal Error, Pathname to install is not absolute".)
# Its output streams (DKMS takes minutes here), indented.
#
# The man-db trigger rebuilds man's index when it has none; in the guest
# /var/cache is an empty tmpfs, so it would index every page of the system
# over 9p under TCG, for many minutes: no real install does that, so it is
# turned off for the guest (/var/lib is a throwaway overlay there).  man -w
# needs no index.
if [ "${DKMS_TEST_ANYWHERE:-0}" != 1 ] && [ ! -e /var/cache/man/index.db ] &&
   [ -e /var/lib/man-db/auto-update ]; then
	log_info "man-db auto-update off: the guest's /var/cache/man is empty"
	rm -f /var/lib/man-db/auto-update
fi
if [ "${DKMS_TEST_ANYWHERE:-0}" != 1 ] && [ "${DKMS_TEST_ALL_KERNELS:-0}" != 1 ]; then
	cp /boot/config-"$KVER" "$LOG/" &&
		mount -t tmpfs -o size=16m,mode=0755 boot /boot && BOOT_HIDDEN=1 &&
		cp "$LOG/config-$KVER" /boot/ ||
		{ echo "FAIL: cannot leave only config-$KVER in the guest's /boot"; exit $ksft_fail; }
	log_info "the guest's /boot has only config-$KVER: DKMS builds for $KVER alone"
fi
# The recipes' apt-get asks before it acts, and would take the
# recommended packages: answered yes, and none taken, as the guest has no
# network to fetch them (every dependency is installed on the host).
printf 'APT::Get::Assume-Yes "true";\nAPT::Install-Recommends "false";\n' \
	> "$LOG/apt.conf"
export APT_CONFIG=$LOG/apt.conf
RET=0
start=$SECONDS
RECIPE_TIMEOUT=${DKMS_INSTALL_TIMEOUT:-2400} run_recipe install "$DEB_DIR" |
	tee "$LOG/apt-install.txt"
rc=${PIPESTATUS[0]}
log_info "apt-get install took $((SECONDS - start))s (DKMS build included)"
if [ "$rc" != 0 ]; then
	for f in /var/lib/dkms/sch-dfs/"$VER"/build/make.log; do
		[ -f "$f" ] && { echo "    $f:"; tail -n 40 "$f" | sed 's/^/    | /'; }
	done
fi
check_err "$rc" "apt-get install failed (status $rc)"
installed sch-dfs-dkms && installed sch-dfs-tc && installed dfs-guard
check_err $? "the packages are not installed"
[ "$(dpkg-query -W -f='${Version}' sch-dfs-tc)" = "$VER" ]
check_err $? "sch-dfs-tc's version is not $VER"
log_test "apt-get install sch-dfs-dkms sch-dfs-tc dfs-guard ($VER)"
[ $EXIT_STATUS = 0 ] || ksft_exit

# --- DKMS ------------------------------------------------------------------------
RET=0
status=$(dkms status -m sch-dfs -v "$VER" -k "$KVER")
log_info "dkms status: $status"
grep -q ": installed" <<<"$status"
check_err $? "dkms status does not show sch-dfs/$VER installed for $KVER"
[ -f "/usr/src/sch-dfs-$VER/dkms.conf" ] && [ -f "/usr/src/sch-dfs-$VER/VERSION" ]
check_err $? "/usr/src/sch-dfs-$VER lacks dkms.conf or VERSION"
[ "$(cat "/usr/src/sch-dfs-$VER/VERSION" 2>/dev/null)" = "$VER" ]
check_err $? "/usr/src/sch-dfs-$VER/VERSION is not $VER"
for m in "${MODS[@]}"; do
	ko=$(ls /lib/modules/"$KVER"/updates/dkms/$m.ko* 2>/dev/null | head -n 1)
	[ -n "$ko" ]
	check_err $? "no $m.ko in /lib/modules/$KVER/updates/dkms"
	# depmod ran: modprobe finds the DKMS copy.
	[ -n "$ko" ] && [ "$(modinfo -k "$KVER" -n $m 2>/dev/null)" = "$ko" ]
	check_err $? "modinfo -n $m is '$(modinfo -k "$KVER" -n $m 2>&1)', not $ko"
done
log_test "DKMS built and installed the modules for $KVER"
ls -l /lib/modules/"$KVER"/updates/dkms/ | sed 's/^/INFO:   /'

# Debian's dkms also builds for the newest kernel installed, when that is
# not the running one (booting 6.1 with 6.12 installed): built against
# that kernel's headers (${kernel_source_dir}), not the running kernel's.
RET=0
others=$(dkms status -m sch-dfs -v "$VER" | sed -n 's/^[^,]*, \([^,]*\), [^:]*: installed.*/\1/p' |
	 grep -vxF "$KVER")
for k in $others; do
	for m in "${MODS[@]}"; do
		ko=$(ls /lib/modules/"$k"/updates/dkms/$m.ko* 2>/dev/null | head -n 1)
		vm=$([ -n "$ko" ] && modinfo -F vermagic "$ko" | awk '{ print $1 }')
		[ "$vm" = "$k" ]
		check_err $? "$k: ${ko:-no $m.ko*} has vermagic '$vm'"
	done
done
if [ -n "$others" ]; then
	log_test "DKMS built for the other kernel: $(echo $others)"
else
	log_info "DKMS built for the running kernel only"
fi

# --- modprobe --------------------------------------------------------------------
RET=0
for m in "${MODS[@]}"; do
	modprobe $m
	check_err $? "modprobe $m failed"
	v=$(modinfo -F version $m 2>/dev/null)
	[ "$v" = "$VER" ]
	check_err $? "modinfo -F version $m: '$v', not $VER"
	v=$(cat /sys/module/$m/version 2>/dev/null)
	[ "$v" = "$VER" ]
	check_err $? "/sys/module/$m/version: '$v', not $VER"
done
log_test "modprobe ${MODS[*]}: version $VER"
modinfo sch_dfs | grep -E '^(filename|version|vermagic|srcversion):' | sed 's/^/INFO:   /'

# --- stock tc with the packaged plugins ------------------------------------------
RET=0
for p in q_dfs q_stfq f_lrufq q_hishape; do
	[ -f "$PLUGIN_DIR/$p.so" ] && dpkg -S "$PLUGIN_DIR/$p.so" 2>/dev/null | grep -q '^sch-dfs-tc:'
	check_err $? "$PLUGIN_DIR/$p.so is not there from sch-dfs-tc"
done
# Debian 12 is merged-/usr: dpkg knows the file as /sbin/tc.
{ dpkg -S "$(readlink -f $TC)"; dpkg -S /sbin/tc; } 2>/dev/null | grep -q '^iproute2:'
check_err $? "$TC is not iproute2's"
log_test "plugins in $PLUGIN_DIR, $TC from iproute2"

RET=0
ip link add $DEV type dummy && ip link set $DEV up &&
	ip addr add 192.0.2.1/24 dev $DEV
check_err $? "cannot create the dummy device $DEV"
$TC qdisc add dev $DEV root handle 1: dfs
check_err $? "$TC qdisc add dev $DEV root dfs failed"
# A few packets through it (dummy is NOARP: ping's go straight out).
ping -q -c 3 -i 0.2 -W 1 192.0.2.2 >/dev/null 2>&1
out=$($TC -s qdisc show dev $DEV)
sed 's/^/INFO:   /' <<<"$out"
grep -q "^qdisc dfs 1: root" <<<"$out"
check_err $? "tc -s qdisc show has no dfs root qdisc"
grep -q "limit .* flows [0-9]" <<<"$out"
check_err $? "tc -s qdisc show prints no dfs options"
grep -qE "Sent [0-9]+ bytes [1-9][0-9]* pkt" <<<"$out"
check_err $? "no packets went through dfs"
$TC qdisc del dev $DEV root
check_err $? "tc qdisc del dfs failed"
log_test "stock tc: dfs qdisc add, show, delete"

RET=0
$TC qdisc add dev $DEV root handle 1: stfq default 1 &&
	$TC class add dev $DEV parent 1: classid 1:1 stfq weight 3 &&
	$TC class add dev $DEV parent 1: classid 1:2 stfq weight 1 quantum-free
check_err $? "stfq qdisc or classes refused"
$TC filter add dev $DEV parent 1: protocol all prio 1 lrufq \
	cache 16 probability 1/2 threshold 2 high 1:2 low 1:1
check_err $? "lrufq filter refused"
ping -q -c 3 -i 0.2 -W 1 192.0.2.2 >/dev/null 2>&1
out=$($TC -s class show dev $DEV)
sed 's/^/INFO:   /' <<<"$out"
grep -q "^class stfq 1:1 .*weight 3" <<<"$out" && grep -q "^class stfq 1:2 " <<<"$out"
check_err $? "tc class show lacks the stfq classes"
out=$($TC -s filter show dev $DEV)
sed 's/^/INFO:   /' <<<"$out"
grep -q "lrufq" <<<"$out" && grep -q "high 1:2" <<<"$out"
check_err $? "tc filter show lacks the lrufq filter"
$TC qdisc del dev $DEV root
check_err $? "tc qdisc del stfq failed"
log_test "stock tc: stfq classes and lrufq filter"

RET=0
ranges=$(mktemp)
printf '192.0.2.0/25 1mbit\n2001:db8::-2001:db8::ff 2mbit burst 4k\n' > "$ranges"
$TC qdisc add dev $DEV root handle 1: hishape ranges "$ranges"
check_err $? "$TC qdisc add dev $DEV root hishape ranges FILE failed"
ping -q -c 3 -i 0.2 -W 1 192.0.2.2 >/dev/null 2>&1
out=$($TC -s -d qdisc show dev $DEV)
sed 's/^/INFO:   /' <<<"$out"
grep -q "^qdisc hishape 1: root .*ranges 2 " <<<"$out"
check_err $? "tc qdisc show lacks hishape and its 2 ranges"
grep -q "range 192.0.2.0/25 rate 1Mbit" <<<"$out"
check_err $? "tc -s -d qdisc show lacks the busy range"
$TC qdisc del dev $DEV root
check_err $? "tc qdisc del hishape failed"
rm -f "$ranges"
log_test "stock tc: hishape with a ranges file"

RET=0
page=$(man -w tc-dfs 2>/dev/null)
[ -n "$page" ] && dpkg -S "$page" 2>/dev/null | grep -q '^sch-dfs-tc:'
check_err $? "man -w tc-dfs: '$page'"
for p in tc-stfq tc-lrufq tc-hishape; do
	man -w $p >/dev/null 2>&1
	check_err $? "man -w $p finds nothing"
done
log_test "man -w tc-dfs: $page"

# The pages the package ships link to each other as in the source tree:
# none may lead out of what it installs.
RET=0
DOCS=/usr/share/doc/sch-dfs-tc
[ -f $DOCS/doc/operate.md ] && [ -f $DOCS/README.md ]
check_err $? "$DOCS lacks README.md or doc/operate.md"
out=$(python3 "$REPO/tools/check-docs.py" --links $DOCS 2>&1)
check_err $? "$(grep -v '^check-docs:' <<<"$out" | head -n 5)"
log_test "$DOCS: README.md and doc/, every link resolves"

# --- dfs-guard --------------------------------------------------------------------
# As its unit starts it (no systemd in the guest): the configuration the
# package installs is checked, then the daemon runs, in dry run, and
# serves the metrics of a dfs qdisc until SIGTERM.
RET=0
out=$(/usr/sbin/dfs-guard --check 2>&1)
check_err $? "dfs-guard --check: $out"
grep -q "ok, .*, dry run$" <<<"$out"
check_err $? "the packaged configuration is not in dry run: $out"
[ -f /lib/systemd/system/dfs-guard.service ] &&
	grep -q '^ExecStart=/usr/sbin/dfs-guard$' /lib/systemd/system/dfs-guard.service
check_err $? "no dfs-guard.service, or it does not start /usr/sbin/dfs-guard"
$TC qdisc add dev $DEV root handle 1: dfs
check_err $? "$TC qdisc add dev $DEV root dfs failed"
/usr/sbin/dfs-guard --timestamps 2> "$LOG/guard.txt" &
guard=$!
scrape='import sys, urllib.request as u
print(u.urlopen("http://127.0.0.1:9747/metrics", timeout=5).read().decode())'
busywait 60000 python3 -c "$scrape" > "$LOG/metrics.txt" 2>/dev/null
check_err $? "no metrics on 127.0.0.1:9747: $(tail -n 3 "$LOG/guard.txt")"
grep -q "^dfs_qdisc_flows{dev=\"$DEV\",handle=\"1:\"}" "$LOG/metrics.txt"
check_err $? "the metrics lack the dfs qdisc of $DEV"
kill -TERM $guard
wait $guard
check_err $? "dfs-guard did not stop cleanly on SIGTERM"
sed 's/^/INFO:   /' "$LOG/guard.txt"
grep -q "metrics only" "$LOG/guard.txt"
check_err $? "dfs-guard started backends with the packaged configuration"
$TC qdisc del dev $DEV root
page=$(man -w dfs-guard 2>/dev/null)
[ -n "$page" ] && dpkg -S "$page" 2>/dev/null | grep -q '^dfs-guard:'
check_err $? "man -w dfs-guard: '$page'"
log_test "dfs-guard: configuration checked, dry run, metrics of $DEV's dfs"

# --- dfs-guard and ExaBGP as Debian runs them --------------------------------------
# ExaBGP as its unit runs it (User=exabgp), and the relay it starts so;
# dfs-guard with its unit's capabilities (setpriv), its stderr to a
# journald started for the test (no systemd in the guest), with
# JOURNAL_STREAM as systemd sets it.  FlowSpec on, and nftables on an
# interface that is not there: the warning the test provokes.
guard_with_exabgp()
{
	local conf=$LOG/guard-fs.toml sock=/run/dfs-guard/exabgp.sock

	mkdir -p /run/systemd/journal
	/lib/systemd/systemd-journald &
	journald=$!
	busywait 30000 test -S /run/systemd/journal/stdout
	check_err $? "journald did not start"
	cat > "$conf" <<-EOF
	dry_run = false
	[flowspec]
	enable = true
	[nftables]
	enable = true
	interfaces = ["nosuch0"]
	EOF
	systemd-cat -t dfs-guard sh -c 'JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) \
		exec setpriv --bounding-set=-all,+net_admin,+chown \
		/usr/sbin/dfs-guard -c "$1"' sh "$conf" &
	busywait 60000 test -S $sock
	check_err $? "no $sock"
	[ "$(stat -c '%a %U %G' $sock)" = "660 root exabgp" ] &&
		[ "$(stat -c '%a %G' "$(dirname $sock)")" = "750 exabgp" ]
	check_err $? "the relay's socket and directory: $(stat -c '%n %a %U %G' $sock "$(dirname $sock)")"
	# ExaBGP reads its configuration as exabgp
	chmod 0755 "$LOG"
	cat > "$LOG/exabgp.conf" <<-EOF
	process dfs-guard {
		run /usr/sbin/dfs-guard-exabgp $sock;
		encoder text;
	}
	neighbor 127.0.0.2 {
		router-id 127.0.0.1;
		local-address 127.0.0.1;
		local-as 64512;
		peer-as 64500;
		family { ipv4 flow; ipv6 flow; }
		api { processes [ dfs-guard ]; }
	}
	EOF
	runuser -u exabgp -- env exabgp.api.cli=false exabgp.daemon.daemonize=false \
		exabgp.log.destination=stderr exabgp "$LOG/exabgp.conf" \
		> "$LOG/exabgp.txt" 2>&1 &
	busywait 60000 sh -c 'journalctl -t dfs-guard --no-pager | grep -q "relay connected"'
	check_err $? "the relay, run by ExaBGP as exabgp, did not connect: $(tail -n 3 "$LOG/exabgp.txt")"
	journalctl -t dfs-guard -p warning --no-pager > "$LOG/guard-warnings.txt"
	grep -q "nosuch0: no such device" "$LOG/guard-warnings.txt"
	check_err $? "journalctl -p warning lacks the missing interface's warning"
	! grep -q "relay connected" "$LOG/guard-warnings.txt"
	check_err $? "an info line filed as a warning"
	pkill -TERM -f "/usr/sbin/dfs-guard -c $conf"
	pkill -TERM -u exabgp exabgp
	busywait 30000 sh -c '! pgrep -f "/usr/sbin/[d]fs-guard -c" > /dev/null'
	check_err $? "dfs-guard did not stop on SIGTERM"
	journalctl -t dfs-guard --no-pager | sed 's/^/INFO:   /'
	kill $journald
	wait $journald
}

RET=0
if command -v exabgp > /dev/null && getent passwd exabgp > /dev/null; then
	guard_with_exabgp
	log_test "dfs-guard: the relay run by ExaBGP as exabgp connects; journald's priorities"
else
	log_test_skip "dfs-guard with ExaBGP" "no exabgp, or no exabgp user"
fi

# --- doc/operate.md's recipes -------------------------------------------------------
"$(dirname "$0")"/operate_recipes.sh
check_err $? "doc/operate.md's recipes failed"
[ $RET = 0 ] || log_test "doc/operate.md's recipes (operate_recipes.sh)"

# --- removal -----------------------------------------------------------------------
RET=0
start=$SECONDS
run_recipe remove
rc=$?
for ((i = ${#MODS[@]} - 1; i >= 0; i--)); do
	[ ! -d /sys/module/${MODS[i]} ]
	check_err $? "${MODS[i]} still loaded"
done
log_info "the remove recipe took $((SECONDS - start))s, status $rc; dpkg now:" \
	"$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}; ' 'sch-dfs*' 2>&1)"
check_err $rc "the remove recipe failed"
! installed sch-dfs-dkms && ! installed sch-dfs-tc && ! installed dfs-guard
check_err $? "the packages are still installed"
[ -z "$(dkms status -m sch-dfs 2>/dev/null)" ]
check_err $? "dkms status still lists sch-dfs: $(dkms status -m sch-dfs 2>&1)"
[ ! -e /var/lib/dkms/sch-dfs ] && [ ! -e "/usr/src/sch-dfs-$VER" ]
check_err $? "/var/lib/dkms/sch-dfs or /usr/src/sch-dfs-$VER left behind"
left=$(ls /lib/modules/*/updates/dkms/{sch_dfs,sch_stfq,cls_lrufq,sch_hishape}.ko* 2>/dev/null)
[ -z "$left" ]
check_err $? "modules left behind: $left"
modinfo -k "$KVER" sch_dfs >/dev/null 2>&1
check_fail $? "modinfo still finds sch_dfs (depmod not run?)"
left=$(ls "$PLUGIN_DIR"/{q_dfs,q_stfq,f_lrufq,q_hishape}.so 2>/dev/null)
[ -z "$left" ]
check_err $? "plugins left behind: $left"
man -w tc-dfs >/dev/null 2>&1
check_fail $? "man -w tc-dfs still finds a page"
$TC qdisc add dev $DEV root dfs 2>/dev/null
check_fail $? "stock tc still adds a dfs qdisc"
left=$(ls -d /etc/dfs-guard /usr/lib/dfs-guard /usr/sbin/dfs-guard \
	/usr/sbin/dfs-guard-exabgp /lib/systemd/system/dfs-guard.service \
	/usr/share/dfs-guard 2>/dev/null)
[ -z "$left" ]
check_err $? "dfs-guard left behind: $left"
log_test "apt-get purge: modules, DKMS tree, plugins, man pages, dfs-guard gone"

ksft_exit
