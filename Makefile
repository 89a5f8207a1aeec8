# SPDX-License-Identifier: GPL-2.0
#
# make            build the modules against KDIR
# make deps       install every build and test dependency (apt, pip)
# make tc         patched iproute2 tc and the q_*.so plugins in build/tc
# make check      unit tests and fuzzers, then the selftests and tdc in the test VM
# make check-debug the selftests on a KASAN/kmemleak/lockdep/UBSAN build of
#                 the test kernel (built from linux-source-6.1 into
#                 build/debug-kernel the first time: ~25 min)
# make demo       the flagship experiment (lab scenario 1, every qdisc) in
#                 the test VM; tools/lab runs any scenario
# make bench      per-packet cost and memory at 1 to 1M flows against the
#                 kernel's qdiscs (test VM, about 12 minutes):
#                 results/bench/table.md and pps.png
# make install    modules_install, depmod, and the tc plugins

# The kernel the VM boots: Debian's linux-image-amd64 6.1.
TEST_KVER ?= $(shell ls /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$$' | sort -V | tail -n 1)

# Build against the running kernel where its build dir exists (a real
# router), else against the headers of the test kernel.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    /lib/modules/$(TEST_KVER)/build)

# Where Debian's tc looks for q_*.so plugins (LIBDIR/tc).
TC_LIB_DIR ?= /usr/lib/$(shell gcc -print-multiarch)/tc

.PHONY: all modules deps tc check check-debug unit fuzz selftests tdc demo \
	bench install clean checkpatch

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

deps:
	tools/install-deps.sh

tc:
	tools/build-tc.sh

unit:
	$(MAKE) -C selftests/unit run

# libFuzzer harnesses of the algorithm cores, FUZZ_TIME seconds each
fuzz:
	$(MAKE) -C selftests/unit fuzz

selftests: modules tc
	VM_TIMEOUT=$${VM_TIMEOUT:-3000} tools/vm-run.sh selftests/run_vm.sh

# The kernel's own tc test suite (tdc) on our JSON test cases
tdc: modules tc
	tools/tdc-prepare.sh
	tools/vm-run.sh selftests/tc-testing/run_tdc.sh

check: checkpatch unit fuzz selftests tdc

check-debug: tc
	tools/check-debug.sh

demo: modules tc
	tools/lab --scenario 1

# Debian's python3, where make deps installs matplotlib (a pyenv python3
# may come first on PATH).
PLOT_PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)

# 1M flows of DFS and nine qdiscs in one guest: more memory than the tests.
# Under TCG the guest finds its vCPUs' TSCs unsynchronised and reads time
# from the HPET, an emulated device: every ktime_get() of a qdisc would
# cost an exit to the emulator, which a router reading its TSC never pays.
# pktgen runs on one CPU, so the TSC is safe to trust here.
bench: modules tc
	VM_MEMORY=2G VM_TIMEOUT=1500 VM_PASS_ENV=BENCH_HOST VM_APPEND=tsc=reliable \
	BENCH_HOST="$$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), $$(nproc) cores" \
		tools/vm-run.sh tools/bench/bench.sh
	$(PLOT_PYTHON) tools/bench/report.py results/bench
	$(MAKE) -s -C selftests/unit bench | tee results/bench/lookup.md

checkpatch:
	tools/checkpatch.sh

install: modules tc
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $(shell basename $$(dirname $(KDIR)))
	install -d $(DESTDIR)$(TC_LIB_DIR)
	install -m 0644 build/tc/lib/*.so $(DESTDIR)$(TC_LIB_DIR)/

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C selftests/unit clean
	rm -rf build
