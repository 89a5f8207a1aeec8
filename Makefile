# SPDX-License-Identifier: GPL-2.0
#
# make            build the modules against KDIR
# make deps       install every build and test dependency (apt, pip)
# make tc         patched iproute2 tc and the q_*.so plugins in build/tc
# make check      unit tests, then the selftests in the test VM
# make check-debug the selftests on a KASAN/kmemleak/lockdep/UBSAN build of
#                 the test kernel (built from linux-source-6.1 into
#                 build/debug-kernel the first time: ~25 min)
# make demo       the flagship experiment in the test VM
# make install    modules_install, depmod, and the tc plugins

# The kernel the VM boots: Debian's linux-image-amd64 6.1.
TEST_KVER ?= $(shell ls /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$$' | sort -V | tail -n 1)

# Build against the running kernel where its build dir exists (a real
# router), else against the headers of the test kernel.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    /lib/modules/$(TEST_KVER)/build)

# Where Debian's tc looks for q_*.so plugins (LIBDIR/tc).
TC_LIB_DIR ?= /usr/lib/$(shell gcc -print-multiarch)/tc

.PHONY: all modules deps tc check check-debug unit selftests demo install clean checkpatch

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

deps:
	tools/install-deps.sh

tc:
	tools/build-tc.sh

unit:
	$(MAKE) -C selftests/unit run

selftests: modules tc
	tools/vm-run.sh selftests/run_vm.sh

check: unit selftests

check-debug: tc
	tools/check-debug.sh

demo: modules tc
	tools/vm-run.sh tools/demo.sh

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
