# SPDX-License-Identifier: GPL-2.0
#
# linux-qcn: IEEE 802.1Qau QCN for Linux (out-of-tree modules).
#
#   make                 modules (running kernel's headers, else Debian 6.1's;
#                        KDIR= overrides), tc plugins, userspace tools
#   make kernels         modules for Debian 6.1 and 6.12 (build/<kver>/)
#   make install         modules (+ depmod) and tc plugins (DESTDIR= honoured)
#   make check           set up, build, run every test; ends "N passed, N failed"
#   make demo            set up, build, run the closed-loop demo in a guest
#   make unit            userspace unit tests of the algorithm cores only
#   make experiments     the papers' experiments (scripts/experiments/*):
#                        qcn-sim, plus the modules when run as root with
#                        them loadable (e.g. under scripts/uml-run); CSV and
#                        PNG in out/experiments/ (QUICK=1: the --quick runs)

TOP := $(CURDIR)
UNAME_R := $(shell uname -r)
KDIR ?= $(firstword $(wildcard /lib/modules/$(UNAME_R)/build) \
		    $(wildcard $(TOP)/.cache/kernels/6.1/build) \
		    $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1.*-amd64))))
KVER = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
BUILD = $(TOP)/build/$(KVER)
KSRC := Kbuild $(wildcard sch_qcn/Kbuild sch_qcn/*.[ch] rp_limiter/Kbuild rp_limiter/*.[ch]) \
	$(shell find include -name '*.h')

TC_PLUGIN_DIR ?= $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/tc) /usr/lib/tc)
# tshark -G folders: "Global Lua Plugins" (Debian's; else another distro's)
WIRESHARK_LUA_DIR ?= $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/wireshark/plugins \
		       /usr/lib64/wireshark/plugins /usr/lib/wireshark/plugins) \
		       /usr/lib/x86_64-linux-gnu/wireshark/plugins)
MODDIR = /lib/modules/$(KVER)/extra

all: modules plugins tools

# Kbuild writes objects beside the sources: build in a per-kernel copy.
modules:
	@test -n "$(KDIR)" -a -n "$(KVER)" || { echo "no kernel headers found: run scripts/setup or set KDIR=" >&2; exit 1; }
	@mkdir -p $(BUILD)
	@tar -cf - $(KSRC) | tar -xf - -C $(BUILD)
	$(MAKE) -C $(KDIR) M=$(BUILD) modules

kernels:
	@for k in 6.1 6.12; do \
		test -e .cache/kernels/$$k/build || { echo "kernel $$k not set up: run scripts/setup" >&2; exit 1; }; \
		$(MAKE) --no-print-directory modules KDIR=$(TOP)/.cache/kernels/$$k/build || exit 1; \
	done
	@for f in normal debug; do \
		$(MAKE) --no-print-directory uml-modules UML_FLAVOR=$$f || exit 1; \
	done

# Modules for the User-Mode Linux testbed kernel (scripts/uml-build), in
# build/uml-FLAVOR/ (normal or debug).
UML_FLAVOR ?= normal
uml-modules:
	@d=$$(scripts/uml-build --print-dir $(if $(filter debug,$(UML_FLAVOR)),--debug)); \
	test -f "$$d/.ok" || { echo "UML $(UML_FLAVOR) kernel not built: run scripts/setup" >&2; exit 1; }; \
	$(MAKE) --no-print-directory modules ARCH=um KDIR=$$d/build BUILD=$(TOP)/build/uml-$(UML_FLAVOR)

plugins:
	$(MAKE) -C tc-plugin

tools:
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools; fi

install: modules plugins
	install -d $(DESTDIR)$(MODDIR) $(DESTDIR)$(TC_PLUGIN_DIR)
	install -m 644 $(BUILD)/sch_qcn/sch_qcn.ko $(BUILD)/rp_limiter/rp_limiter.ko $(DESTDIR)$(MODDIR)/
	install -m 644 tc-plugin/q_*.so $(DESTDIR)$(TC_PLUGIN_DIR)/
	@if [ -f tools/qcnstat ]; then install -m 755 tools/qcnstat $(DESTDIR)/usr/local/bin/; fi
	@if [ -f tools/qcn-rp-trace ]; then install -m 755 tools/qcn-rp-trace $(DESTDIR)/usr/local/bin/; fi
	@if [ -f tools/qcn-sim ]; then install -m 755 tools/qcn-sim $(DESTDIR)/usr/local/bin/; fi
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

# the CNM / CN-TAG dissector (tools/wireshark/qcn.lua); for one user:
# make install-wireshark WIRESHARK_LUA_DIR=~/.local/lib/wireshark/plugins
install: install-wireshark
install-wireshark:
	install -d $(DESTDIR)$(WIRESHARK_LUA_DIR)
	install -m 644 tools/wireshark/qcn.lua $(DESTDIR)$(WIRESHARK_LUA_DIR)/

uninstall-wireshark:
	rm -f $(DESTDIR)$(WIRESHARK_LUA_DIR)/qcn.lua

setup:
	@scripts/setup

unit:
	$(MAKE) -C selftests/core run

check: setup
	@scripts/check

demo: setup
	@$(MAKE) -s all
	@scripts/vm-run --kernel 6.1 --out $(TOP)/out/demo -- scripts/demo

EXPERIMENTS := baseline convergence qcn-os af-qcn ap-stability
experiments: tools
	@for e in $(EXPERIMENTS); do \
		echo "==== $$e"; \
		scripts/experiments/$$e $(if $(QUICK),--quick) $(TOP)/out/experiments$(if $(QUICK),-quick)/$$e || exit 1; \
	done

clean:
	rm -rf build out
	$(MAKE) -C tc-plugin clean
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools clean; fi
	@if [ -f selftests/core/Makefile ]; then $(MAKE) -C selftests/core clean; fi
	$(MAKE) -C selftests clean

.PHONY: all modules kernels uml-modules plugins tools install setup unit check demo experiments clean
.PHONY: install-wireshark uninstall-wireshark
