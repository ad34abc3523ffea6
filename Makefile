# SPDX-License-Identifier: GPL-2.0
#
# linux-qcn: IEEE 802.1Qau QCN for Linux (out-of-tree modules).
#
#   make                 modules for the running kernel (or KDIR=), tc plugins,
#                        tools, selftest helpers; without headers for the
#                        running kernel and no KDIR= it says so and skips the
#                        modules
#   make kernels         modules for Debian 6.1 and 6.12 (build/<kver>/)
#   make install         modules for the running kernel (+ depmod), tc plugins,
#                        tools, cnm_dump, cnm_send, man pages; DESTDIR= stages
#                        (then KDIR= may name another kernel), PREFIX=/usr/local
#   make install-tools   the same without the modules
#   make uninstall       removes what install put there (DESTDIR=, PREFIX=)
#   make dkms-install    module sources to /usr/src/linux-qcn-VERSION, then
#                        dkms add + install (dkms-uninstall: dkms remove, rm)
#   make check           set up, build, run every test; ends "N passed, N failed"
#   make demo            set up, build, run the demo at native speed (UML)
#   make demo-guest      the 30 Mbit/s demo in a Debian 6.1 guest
#   make unit            userspace unit tests of the algorithm cores only
#   make experiments     the papers' experiments (scripts/experiments/*):
#                        qcn-sim and qcn-model, plus the modules when run as
#                        root with them loadable (e.g. under scripts/uml-run);
#                        CSV and PNG in out/experiments/ (QUICK=1: the --quick
#                        runs)

TOP := $(CURDIR)
VERSION := $(shell cat $(TOP)/VERSION)
UNAME_R := $(shell uname -r)
# Modules are built for the running kernel, or for the kernel whose build
# tree KDIR= names (e.g. KDIR=.cache/kernels/6.12/build); never for a guess.
ifeq ($(origin KDIR),undefined)
KDIR := $(shell d=/lib/modules/$(UNAME_R)/build; test -f $$d/Makefile && echo $$d)
endif
KVER = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
BUILD = $(TOP)/build/$(KVER)
KSRC := Kbuild VERSION $(wildcard sch_qcn/Kbuild sch_qcn/*.[ch] rp_limiter/Kbuild rp_limiter/*.[ch]) \
	$(shell find include -name '*.h')

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# qcnplot finds its CSV parser in ../share/linux-qcn beside its BINDIR
DATADIR ?= $(PREFIX)/share/linux-qcn
# tc loads q_<kind>.so from its compiled-in TC_LIB_DIR, whatever PREFIX is
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
TC_PLUGIN_DIR ?= $(firstword $(wildcard $(if $(MULTIARCH),/usr/lib/$(MULTIARCH)/tc) /usr/lib64/tc /usr/lib/tc) \
		   $(if $(MULTIARCH),/usr/lib/$(MULTIARCH)/tc,/usr/lib/tc))
# tshark -G folders: "Global Lua Plugins" (Debian's; else another distro's)
WIRESHARK_LUA_DIR ?= $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/wireshark/plugins \
		       /usr/lib64/wireshark/plugins /usr/lib/wireshark/plugins) \
		       /usr/lib/x86_64-linux-gnu/wireshark/plugins)
MODDIR = /lib/modules/$(KVER)/extra
MODULES := sch_qcn rp_limiter
PLUGINS := q_qcn.so q_qcn_rp.so
PROGS := tools/qcnstat tools/qcnplot tools/qcn-rp-trace tools/qcn-sim tools/qcn-model selftests/cnm_dump \
	selftests/cnm_send
MANPAGES := $(wildcard man/*.8)
DKMS_NAME := linux-qcn
DKMS_SRC = /usr/src/$(DKMS_NAME)-$(VERSION)
DKMS_FILES = dkms.conf LICENSE $(KSRC)

NO_KDIR := no build tree for the running kernel $(UNAME_R) (/lib/modules/$(UNAME_R)/build):\n\
  install its headers (Debian: apt install linux-headers-$(UNAME_R)),\n\
  or name one with KDIR=/path/to/build (make kernels: Debian 6.1 and 6.12),\n\
  or use DKMS (make dkms-install); make install-tools installs the rest.\n

all: $(if $(KDIR),modules,no-modules) plugins tools helpers

no-modules:
	@printf 'make: NOTE: kernel modules not built: $(NO_KDIR)' >&2

# Kbuild writes objects beside the sources: build in a per-kernel copy,
# whose mtimes keep their nanoseconds (pax), so that a source edited in
# the second of the last build is still newer than its object.
modules:
	@test -n "$(KDIR)" || { printf 'make: $(NO_KDIR)' >&2; exit 1; }
	@test -n "$(KVER)" || { echo "make: $(KDIR) is not a configured kernel build tree (no include/generated/utsrelease.h)" >&2; exit 1; }
	@mkdir -p $(BUILD)
	@tar --format=posix -cf - $(KSRC) | tar -xf - -C $(BUILD)
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

# the selftests' helper programs (cnm_dump, cnm_send, udp_send, udp_sink)
helpers:
	$(MAKE) -C selftests all

install: install-modules install-tools

# Into the live system only for the running kernel: modules built for
# another one (KDIR=) would land in a tree that kernel may not even have.
# DESTDIR= stages for any kernel (packaging), without depmod.
install-modules:
	@test -n "$(KDIR)" || { printf 'make install: $(NO_KDIR)' >&2; exit 1; }
	@if [ -z "$(DESTDIR)" ] && [ "$(KVER)" != "$(UNAME_R)" ]; then \
		echo "make install: KDIR=$(KDIR) is kernel $(KVER), the running kernel is $(UNAME_R):" >&2; \
		echo "  refusing to install into /lib/modules/$(KVER); stage with DESTDIR=, or use DKMS (make dkms-install)" >&2; \
		exit 1; fi
	@if [ -z "$(DESTDIR)" ] && ls $(foreach m,$(MODULES),/lib/modules/$(KVER)/updates/dkms/$(m).ko*) >/dev/null 2>&1; then \
		echo "make install: DKMS has installed $(DKMS_NAME) for $(KVER) (/lib/modules/$(KVER)/updates/dkms)," >&2; \
		echo "  which modprobe prefers: make dkms-uninstall first" >&2; \
		exit 1; fi
	@$(MAKE) --no-print-directory modules
	install -d $(DESTDIR)$(MODDIR)
	install -m 644 $(foreach m,$(MODULES),$(BUILD)/$(m)/$(m).ko) $(DESTDIR)$(MODDIR)/
	@if [ -z "$(DESTDIR)" ]; then echo "depmod -a $(KVER)"; depmod -a $(KVER); fi

install-tools: plugins tools
	$(MAKE) -C selftests cnm_dump cnm_send
	install -d $(DESTDIR)$(TC_PLUGIN_DIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8
	install -m 644 $(addprefix tc-plugin/,$(PLUGINS)) $(DESTDIR)$(TC_PLUGIN_DIR)/
	install -m 755 $(PROGS) $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(DATADIR)
	install -m 644 tools/qcnstat-csv.awk $(DESTDIR)$(DATADIR)/
	install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man8/

# Removes the modules make install put into any kernel's extra/ (DKMS's
# copies are dkms-uninstall's), then the plugins, programs and pages.
uninstall:
	@for d in $(DESTDIR)/lib/modules/*/extra; do \
		k=$${d%/extra}; k=$${k##*/}; n=0; \
		for m in $(MODULES); do \
			if [ -e $$d/$$m.ko ]; then echo "rm -f $$d/$$m.ko"; rm -f $$d/$$m.ko; n=1; fi; \
		done; \
		if [ $$n = 1 ] && [ -z "$(DESTDIR)" ]; then echo "depmod -a $$k"; depmod -a $$k; fi; \
	done
	rm -f $(addprefix $(DESTDIR)$(TC_PLUGIN_DIR)/,$(PLUGINS))
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(PROGS)))
	rm -f $(DESTDIR)$(DATADIR)/qcnstat-csv.awk
	rmdir $(DESTDIR)$(DATADIR) 2>/dev/null || true
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MANPAGES)))

# DKMS: the module sources (with dkms.conf) in /usr/src/linux-qcn-VERSION;
# dkms builds and installs them for the running kernel and, through its
# kernel hook, for every kernel installed later.
dkms-source:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	install -d $(DESTDIR)$(DKMS_SRC)
	tar -cf - $(DKMS_FILES) | tar -xf - -C $(DESTDIR)$(DKMS_SRC)

# DKMS leaves a module of the same version alone: make install's copies
# would stay the ones modprobe loads.
dkms-install:
	@command -v dkms >/dev/null || { echo "make dkms-install: dkms is not installed (Debian: apt install dkms)" >&2; exit 1; }
	@if ls $(foreach m,$(MODULES),/lib/modules/*/extra/$(m).ko) >/dev/null 2>&1; then \
		echo "make dkms-install: make install put the modules into" $$(ls -d /lib/modules/*/extra/sch_qcn.ko /lib/modules/*/extra/rp_limiter.ko 2>/dev/null) >&2; \
		echo "  DKMS would not replace them: make uninstall first" >&2; \
		exit 1; fi
	@$(dkms_remove)
	@$(MAKE) --no-print-directory dkms-source DESTDIR=
	dkms add -m $(DKMS_NAME) -v $(VERSION)
	dkms install -m $(DKMS_NAME) -v $(VERSION)

dkms-uninstall:
	@command -v dkms >/dev/null || { echo "make dkms-uninstall: dkms is not installed" >&2; exit 1; }
	@$(dkms_remove)
	rm -rf $(DKMS_SRC)

# this version out of DKMS (every kernel), if it was added
dkms_remove = if [ -n "$$(dkms status -m $(DKMS_NAME) -v $(VERSION) 2>/dev/null)" ]; then \
	echo "dkms remove -m $(DKMS_NAME) -v $(VERSION) --all"; \
	dkms remove -m $(DKMS_NAME) -v $(VERSION) --all; fi

# the CNM / CN-TAG dissector (tools/wireshark/qcn.lua); for one user:
# make install-wireshark WIRESHARK_LUA_DIR=~/.local/lib/wireshark/plugins
install: install-wireshark
uninstall: uninstall-wireshark
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

# uml-run and vm-run build the modules for their kernel; the demos need the
# plugins, qcnstat, qcnplot and the traffic helpers besides.
demo: setup
	@$(MAKE) -s plugins tools helpers
	@scripts/uml-run --out $(TOP)/out/demo -- scripts/demo

demo-guest: setup
	@$(MAKE) -s plugins tools helpers
	@scripts/vm-run --kernel 6.1 --out $(TOP)/out/demo-guest -- scripts/demo-guest

EXPERIMENTS := baseline convergence convergence-model fluid-model qcn-aimd qcn-os qcn-os-pfc qcn-blocking-pfc af-qcn ap-stability
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

.PHONY: all no-modules modules kernels uml-modules plugins tools helpers install install-modules \
	install-tools uninstall dkms-source dkms-install dkms-uninstall setup unit check demo demo-guest \
	experiments clean install-wireshark uninstall-wireshark
