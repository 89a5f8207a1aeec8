# SPDX-License-Identifier: GPL-2.0
#
# make            build the modules against KDIR
# make deps       install every build and test dependency (apt, pip), and
#                 every kernel of the matrix (KERNEL=X: only that one)
# make kernels    the kernel matrix: 6.1, 6.12, 7.x (tools/kernels.sh)
# make build-kernels
#                 the modules against every kernel of the matrix, W=1,
#                 failing on any warning, then no file of a module that
#                 calls one that calls it back (tools/check-layers.py)
# make tc         patched iproute2 tc and the q_*.so plugins in build/tc
# make upstream   the in-tree patch series for netdev, in build/upstream
#                 (tools/upstream.sh); make check-upstream applies it to a
#                 copy of the 7.2 tree and builds it there patch by
#                 patch, W=1
# make check-docs README.md and doc/ as the tree is (length, tables, no
#                 commit or run history, links, the one table README.md
#                 restates), man pages against tc, operate.md's recipes
# make check      checkpatch, unit tests and fuzzers, the build against
#                 every kernel, the in-tree series' build (check-upstream),
#                 tdc and the selftests in one boot of the
#                 test VM on 6.1, three selftests on 6.12 (KERNEL=X: tdc
#                 and the selftests on X alone)
# make check-kernels
#                 the selftests and tdc on every kernel of the matrix
# make check-debug the selftests on a KASAN/kmemleak/lockdep/UBSAN build of
#                 the test kernel (KERNEL=6.1, the default, or 6.12),
#                 built from Debian's source of the test image into
#                 build/debug-kernel-<series> the first time (a whole
#                 kernel build)
# make demo       the flagship experiment (lab scenario 1, every qdisc) in
#                 the test VM; tools/lab runs any scenario
# make rrul       flent's rrul and rrul_be through fq_codel, cake, pfifo
#                 and DFS (lab scenario rrul, both ways shaped) in the
#                 test VM: results/rrul/ (needs make deps: flent, netperf)
# make bench      per-packet cost and memory at 1 to 1M flows against the
#                 kernel's qdiscs, in guest instructions (test VM):
#                 results/bench/table.md and pps.png;
#                 BENCH_SCENARIOS=profile: perf in the guest, by function;
#                 then make bench-mq (its own boot, wall clock)
# make bench-hishape  the HiShape paper's Figure 1 (test VM):
#                 results/bench-hishape/table.md and pps.png;
#                 BENCH_ARGS=quick for 10 and 1000 ranges only
# make install    modules_install, depmod, the tc plugins and man pages,
#                 sch-dfs-apply and its unit, dfs-guard (what the packages
#                 install)
# make deb        the Debian packages into build/deb (make deb-deps: what
#                 that needs, on a build machine); make check-dkms installs
#                 them in a guest and runs doc/operate.md's recipes
#
# KERNEL=6.1|6.12|7.2|mainline picks a kernel of the matrix for make,
# make deps, make check and make install: the modules are built for it
# from a copy of their sources in build/modules/<release>, and the test VM
# boots it.  Unset, everything is as it always was: Debian 12's 6.1, the
# modules built in place.

# The kernel the VM boots: Debian's linux-image-amd64 6.1.
TEST_KVER ?= $(shell ls /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$$' | sort -V | tail -n 1)

# Jobs for the builds and the fuzzers; a make run with -j shares its own.
JOBS ?= $(shell nproc)
PAR = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS))

KERNEL ?=
KERNELS := $(shell tools/kernels.sh names)
# "make check" runs the selftests on a second kernel of the matrix too:
# the netlink interface, the defaults, the two crash-class cases, and
# dfs_mq (on 6.12 the compat copy of sch_mq.c's helpers, as on 6.1).  The
# others hold on 6.12 as well, but every test on two kernels would take
# the emulated VM too long for one run; "make check KERNEL=6.12" runs every test
# (doc/kernels.md).
CHECK_ALSO ?= 6.12
CHECK_ALSO_TESTS ?= dfs_params.sh dfs_requeue.sh stfq_child_drops.sh defaults.sh \
		    dfs_mq.sh mq_concurrency.sh

ifeq ($(KERNEL),)
# Build against the running kernel's build dir where it exists (a real
# router), else against the headers of the test kernel.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    /lib/modules/$(TEST_KVER)/build)
MODDIR := $(CURDIR)
VM_KERNEL :=
else
KVER = $(shell tools/kernels.sh kver $(KERNEL))
KDIR = $(shell tools/kernels.sh kdir $(KERNEL))
MODDIR = $(CURDIR)/build/modules/$(KVER)
VM_KERNEL = TEST_KVER=$(KVER) TEST_KIMG=$(shell tools/kernels.sh kimg $(KERNEL)) \
	    VM_MODULES_DIR=$(MODDIR)
endif

# Where Debian's tc looks for q_*.so plugins (LIBDIR/tc).
TC_LIB_DIR ?= /usr/lib/$(shell gcc -print-multiarch)/tc

.PHONY: all modules deps tc check check-debug unit fuzz selftests tdc demo rrul \
	bench bench-hishape bench-mq install clean checkpatch kernels build-kernels check-kernels \
	kernel-known test-modules deb check-dkms tc-patches check-tc-patches \
	upstream check-upstream check-docs deb-deps

all: modules

modules: kernel-known
ifeq ($(KERNEL),)
	$(MAKE) $(PAR) -C $(KDIR) M=$(CURDIR) modules
else
	tools/build-modules.sh $(KDIR) $(MODDIR)
endif

# The selftests' test devices and test qdiscs (selftests/drivers/), never
# installed; tools/build-modules.sh builds the same.
TEST_DRIVERS := pushback peekdrop fkcheck mqlink
test-modules: modules
ifeq ($(KERNEL),)
	for d in $(TEST_DRIVERS); do \
		$(MAKE) $(PAR) -C $(KDIR) M=$(CURDIR)/selftests/drivers/$$d modules || exit 1; done
endif

# A KERNEL that is not installed fails here, with what to do.
kernel-known:
ifneq ($(KERNEL),)
	@tools/kernels.sh kver $(KERNEL) >/dev/null
endif

deps:
	tools/install-deps.sh
	for k in $(if $(KERNEL),$(KERNEL),$(KERNELS)); do \
		tools/kernels.sh install $$k || exit 1; done

kernels:
	@tools/kernels.sh list

build-kernels:
	for k in $(KERNELS); do \
		JOBS=$(JOBS) tools/build-modules.sh $$(tools/kernels.sh kdir $$k) \
			build/modules/$$(tools/kernels.sh kver $$k) || exit 1; \
	done
	/usr/bin/python3 tools/check-layers.py \
		$(addprefix build/modules/$$(tools/kernels.sh kver mainline)/,sch_dfs sch_stfq cls_lrufq sch_hishape)

tc:
	tools/build-tc.sh

# tc-patch/ from the tc sources of iproute2/ (edit those, then this);
# make check verifies the two agree.
tc-patches:
	tools/tc-patches.sh

check-tc-patches:
	tools/tc-patches.sh --check

# The in-tree series for netdev, into build/upstream/; check-upstream
# builds it in net/sched of a copy of the 7.2 tree, after each patch (W=1).
upstream:
	tools/upstream.sh

check-upstream:
	JOBS=$(JOBS) tools/upstream.sh --check

# TEST_KVER: codel_ref_test may compare with the test kernel's CoDel.
unit:
	$(MAKE) $(PAR) -C selftests/unit run TEST_KVER=$(TEST_KVER)
	/usr/bin/python3 tools/xstats.py --check
	/usr/bin/python3 guard/test_guard.py
	/usr/bin/python3 guard/test_protected.py

# libFuzzer harnesses of the algorithm cores, FUZZ_TIME seconds each
fuzz:
	$(MAKE) $(PAR) -C selftests/unit fuzz

# TDC=1: tdc too, first, in the same boot (make check).
selftests: test-modules tc
	$(if $(TDC),tools/tdc-prepare.sh)
	$(VM_KERNEL) TEST_TDC=$(TDC) VM_TIMEOUT=$${VM_TIMEOUT:-4500} \
		tools/vm-run.sh selftests/run_vm.sh

# The kernel's own tc test suite (tdc) on our JSON test cases
tdc: modules tc
	tools/tdc-prepare.sh
	$(VM_KERNEL) tools/vm-run.sh selftests/tc-testing/run_tdc.sh

ifeq ($(KERNEL),)
check: check-docs checkpatch check-tc-patches check-upstream unit fuzz build-kernels
	$(MAKE) selftests TDC=1
	$(MAKE) selftests KERNEL=$(CHECK_ALSO) TESTS="$(CHECK_ALSO_TESTS)"
else
check:
	$(MAKE) selftests TDC=1
endif

check-kernels:
	for k in $(KERNELS); do \
		$(MAKE) selftests TDC=1 KERNEL=$$k || exit 1; done

# The Debian packages, into build/deb/: sch-dfs-dkms (the module sources,
# built on the target by DKMS) and sch-dfs-tc (plugins and man pages).
deb:
	tools/make-deb.sh

# The packages as an admin installs them, in a guest booting KERNEL (6.1
# by default): doc/operate.md's recipes as written, from its install
# (DKMS builds for the running kernel) to its removal, with Debian's own
# tc.  None of our .ko files are loaded there.
check-dkms: deb
	$(VM_KERNEL) selftests/run_dkms_vm.sh

check-debug: tc
	KERNEL=$(KERNEL) tools/check-debug.sh

demo: modules tc
	tools/lab --scenario 1

rrul: modules tc
	tools/lab --scenario rrul

# Debian's python3, where make deps installs matplotlib (a pyenv python3
# may come first on PATH).
PLOT_PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)

# 1M flows of DFS and nine qdiscs in one guest: more memory than the tests.
# BENCH_CLOCK=icount (the default): QEMU's -icount shift=0, the guest's
# clock advances a nanosecond per guest instruction, so a run's packets per
# "second" count instructions and the host's load (steal, other jobs) does
# not enter them: rounds agree where wall time on a shared host does not.
# icount needs one vCPU (QEMU's single-threaded TCG).
# BENCH_CLOCK=wall: the host's time, two vCPUs.
# Under TCG the guest finds its vCPUs' TSCs unsynchronised and reads time
# from the HPET, an emulated device: every ktime_get() of a qdisc would
# cost an exit to the emulator, which a router reading its TSC never pays.
# pktgen runs on one CPU, so the TSC is safe to trust here.
BENCH_CLOCK ?= icount
BENCH_VM_icount = VM_CPUS=1 VM_QEMU_OPTS="-icount shift=0,sleep=off"
BENCH_VM_wall = VM_CPUS=2
bench: modules tc
	@case "$(BENCH_CLOCK)" in icount|wall) ;; \
	*) echo "make bench: BENCH_CLOCK is icount or wall" >&2; exit 2 ;; esac
	$(BENCH_VM_$(BENCH_CLOCK)) BENCH_CLOCK=$(BENCH_CLOCK) \
	VM_MEMORY=2G VM_TIMEOUT=2400 VM_APPEND=tsc=reliable \
	BENCH_HOST="$$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), $$(nproc) cores" \
		tools/vm-run.sh tools/bench/bench.sh
	$(PLOT_PYTHON) tools/bench/report.py results/bench
	$(MAKE) -s -C selftests/unit bench | tee results/bench/lookup.md
	$(MAKE) bench-mq

# The HiShape paper's Figure 1: an unlimited source's pps through 10 to
# 100,000 ranges, hishape against HTB + u32, u32 hash, flower and nft.
bench-hishape: modules tc
	VM_MEMORY=2G VM_TIMEOUT=2400 VM_APPEND=tsc=reliable \
		tools/vm-run.sh tools/bench/bench_hishape.sh $(BENCH_ARGS)
	$(PLOT_PYTHON) tools/bench/report_hishape.py \
		results/bench-hishape$(if $(BENCH_ARGS),-$(BENCH_ARGS))

# make bench-mq  dfs_mq's gain from one tx queue to two, against mq with
#                fq_codel, two pktgen threads, wall clock (no icount: it
#                runs one vCPU at a time): results/bench-mq/table.md; and
#                how fast a flood spread over two queues is cut, on the
#                mqlink test device: results/bench-mq/cut.md, and with
#                bandwidth 10mbit cut-bandwidth.md
bench-mq: test-modules tc
	VM_MEMORY=2G VM_TIMEOUT=2400 VM_APPEND=tsc=reliable \
	BENCH_HOST="$$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), $$(nproc) cores" \
		tools/vm-run.sh tools/bench/bench_mq.sh

checkpatch:
	tools/checkpatch.sh

check-docs:
	/usr/bin/python3 tools/check-docs.py

# What the packages install, from source: the modules, the tc plugins
# and man pages, sch-dfs-apply with its unit and ifupdown hook (deploy/),
# dfs-guard with its configuration (kept if there), unit, dashboard and
# alert rules.  A configuration file already there is never overwritten.
UNIT_DIR ?= /lib/systemd/system
install: modules tc
	$(MAKE) -C $(KDIR) M=$(MODDIR) modules_install
	depmod -a $(shell basename $$(dirname $(KDIR)))
	install -d $(DESTDIR)$(TC_LIB_DIR)
	cp -P build/tc/lib/*.so $(DESTDIR)$(TC_LIB_DIR)/
	install -D -m 0644 -t $(DESTDIR)/usr/share/man/man8 iproute2/man/man8/*.8 \
		deploy/sch-dfs-apply.8 guard/dfs-guard.8 guard/dfs-guard-exabgp.8
	install -D -m 0755 -t $(DESTDIR)/usr/sbin deploy/sch-dfs-apply \
		guard/dfs-guard guard/dfs-guard-exabgp
	install -D -m 0644 -t $(DESTDIR)$(UNIT_DIR) deploy/sch-dfs@.service \
		guard/dfs-guard.service
	install -D -m 0755 deploy/if-up.d/sch-dfs $(DESTDIR)/etc/network/if-up.d/sch-dfs
	install -d $(DESTDIR)/etc/sch-dfs $(DESTDIR)/etc/dfs-guard
	[ -e $(DESTDIR)/etc/dfs-guard/dfs-guard.toml ] || \
		install -m 0644 guard/dfs-guard.toml $(DESTDIR)/etc/dfs-guard/
	install -D -m 0644 -t $(DESTDIR)/usr/lib/dfs-guard/dfs_guard guard/dfs_guard/*.py
	install -D -m 0644 -t $(DESTDIR)/usr/share/dfs-guard guard/grafana-dashboard.json \
		guard/dfs-guard-alerts.yml guard/dfs-guard-alerts.test.yml

# What make deb needs, and no more, on a build machine of the router's
# Debian release (doc/operate.md): the packaging tools, iproute2's build
# dependencies and its source.
deb-deps:
	tools/make-deb.sh --install-deps

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	for d in $(TEST_DRIVERS); do \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/drivers/$$d clean; done
	$(MAKE) -C selftests/unit clean
	rm -rf build
