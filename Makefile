# SPDX-License-Identifier: GPL-2.0
# Build a patched Debian kernel, its test image, and boot it in QEMU.
# BASE picks the kernel (scripts/base.sh), each in build/$(BASE)/:
#   BASE=7.3   (default) Debian's linux-source-7.3 from trixie-backports,
#              fetched into build/apt/ (scripts/fetch-source.sh), with the
#              series in patches/{nosuid,network,userns,tsync}/
#   BASE=6.12  the installed linux-source-6.12, with the backport in
#              patches/6.12/{nosuid,network,userns,tsync}/
# e.g. "make check BASE=6.12"; the scripts read BASE from the environment.
#
#   make            kernel + image (what is stale only)
#   make check      build, boot, run every kselftest, print the summary
#   make check-debug   the same suite on a debug kernel (KASAN, lockdep, ...)
#   make soak N=20 DEBUG_N=5  the suite again and again: per test, how
#                   often it failed (not in CI)
#   make check-upstream  the kernel's own selftests, unpatched vs patched
#                   (not in CI for now)
#   make bench      cost of the series against the unpatched kernel and the
#                   alternatives, counted in instructions (bench/RESULTS.md)
#   make series     the series as mail in build/$(BASE)/series/: patches,
#                   selftests as patches, in three parts (1-nosuid, 2-netns,
#                   3-tsync), cover letters series/cover-<part>.txt
#   make doc-check  every test and file:function DESIGN.md names exists,
#                   and DESIGN.md and README.md fit their sizes (seconds)
#   make series-check  checkpatch, sparse, uapi, kernel-doc, rst, man pages,
#                   and each patch's C files built W=1 at its own prefix
#   make series-apply-check  git am build/$(BASE)/series/ on a fresh tree,
#                   build it, boot it, run the series' selftests (not in CI)
#   make debian-config-check  the series in Debian's cloud-amd64 config, with
#                   AppArmor and the distribution's lsm= list (not in CI)
#   make deb        linux-image, linux-headers, linux-libc-dev and nosuid
#                   packages in build/deb/ (Debian's config; not in CI)
#   make check-debian-system  a Debian trixie image (mmdebstrap) with make
#                   deb's packages, booted with systemd; an ordinary user's
#                   checks after a real login (not in CI)
#   make bisect-check  every prefix of the series builds; each layer boots
#                   with its selftests (hours on 7.3; FROM=P TO=Q walks
#                   prefixes P down to Q only; not in CI)
#   make export     save the commits of build/$(BASE)/linux into the base's
#                   patch directory
#   make reset-tree drop commits and changes in build/$(BASE)/linux
#   make clean      drop build products, keep the unpacked tree
#   make distclean  drop build/$(BASE) (the fetched source in build/apt stays)

BASE     ?= 7.3
ifneq ($(words $(BASE)) $(filter 7.3 6.12,$(BASE)),1 $(BASE))
$(error BASE=$(BASE): the harness builds BASE=7.3 (the default) or BASE=6.12)
endif
export BASE
TOP      := $(CURDIR)
B        := $(TOP)/build/$(BASE)
SRC      := $(B)/linux
OBJ      := $(B)/obj
PDIR     := patches$(if $(filter 6.12,$(BASE)),/6.12)
JOBS     ?= $(shell echo $$(($$(nproc) + 1)))
LAYERS   := nosuid network userns tsync
SELFTESTS := $(notdir $(patsubst %/Makefile,%,$(wildcard selftests/*/Makefile)))
# In-tree kselftests run too: lsm checks the new LSM's id and name.
TREE_SELFTESTS := lsm
# config/base-$(BASE).config: the options whose name differs by base.
FRAGMENTS := config/kernel.config config/upstream.config $(wildcard config/base-$(BASE).config) \
	$(wildcard $(SELFTESTS:%=selftests/%/config)) \
	$(TREE_SELFTESTS:%=$(SRC)/tools/testing/selftests/%/config)
CCACHE   := $(shell command -v ccache 2>/dev/null)
# ccache is bypassed unless USE_CCACHE=1: on 2026-12-07 it handed a build
# of the test kernel a landlock/cred.o compiled for another LSM
# configuration (its hooks pointed at other hooks' static-call slots, so
# every new cred lost the Landlock domain).  kbuild's own incremental
# build is safe (DESIGN.md, "A bad local build").  The command lines keep
# "ccache gcc", so switching does not rebuild anything.
ifneq ($(USE_CCACHE),1)
export CCACHE_DISABLE := 1
endif
# kbuild gives the compiler absolute paths: ccache makes those under the
# repository relative (../linux/...), so that its results still hit after
# the repository or the build directory moved.
export CCACHE_BASEDIR := $(TOP)
KMAKE    := $(MAKE) -C $(SRC) O=$(OBJ) ARCH=x86_64 LOCALVERSION= $(if $(CCACHE),CC="ccache gcc")
BZIMAGE  := $(OBJ)/arch/x86/boot/bzImage
IMAGE    := $(B)/initramfs.cpio
KST      := $(B)/kselftest-root/kselftest

.PHONY: all prepare kernel image check check-debug doc-check fuzz trinity soak check-upstream config-matrix bench series series-check series-apply-check debian-config-check deb check-debian-system bisect-check \
	export reset-tree clean distclean _kernel _image _debug-kernel
all: image

# Packages, the source and the patched tree come first, in their own make,
# so that the rest of the graph sees the tree's state file as it is after
# "git am".  7.3 is not a package of the host's release: fetched privately.
prepare:
	@scripts/deps.sh
	@$(if $(filter 7.3,$(BASE)),scripts/fetch-source.sh)
	@mkdir -p $(B)
	@scripts/prepare-tree.sh $(SRC) $(PDIR) $(LAYERS)

kernel image: prepare
	@$(MAKE) --no-print-directory _$@

check: prepare
	@$(MAKE) --no-print-directory _image
	@scripts/check.sh

$(OBJ)/.config: $(FRAGMENTS) $(SRC)/.git/nosuid-series
	@mkdir -p $(OBJ)
	$(KMAKE) -s tinyconfig
	cd $(OBJ) && $(SRC)/scripts/kconfig/merge_config.sh -m -O $(OBJ) \
		$(OBJ)/.config $(abspath $(FRAGMENTS)) > $(OBJ)/merge.log
	$(KMAKE) -s olddefconfig
	@scripts/check-config.sh $@ $(FRAGMENTS)

# The debug kernel: the same tree and fragments plus config/debug.config,
# built in its own directory; it boots the normal image.
DOBJ     := $(B)/obj-debug
DKMAKE   := $(subst O=$(OBJ),O=$(DOBJ),$(KMAKE))

$(DOBJ)/.config: $(FRAGMENTS) config/debug.config $(SRC)/.git/nosuid-series
	@mkdir -p $(DOBJ)
	$(DKMAKE) -s tinyconfig
	cd $(DOBJ) && $(SRC)/scripts/kconfig/merge_config.sh -m -O $(DOBJ) \
		$(DOBJ)/.config $(abspath $(FRAGMENTS) config/debug.config) > $(DOBJ)/merge.log
	$(DKMAKE) -s olddefconfig
	@scripts/check-config.sh $@ $(FRAGMENTS) config/debug.config

_debug-kernel: $(DOBJ)/.config
	@start=$$(date +%s); $(DKMAKE) -j$(JOBS) -s bzImage && \
		echo "debug kernel: $$($(DKMAKE) -s kernelrelease), built in $$(( $$(date +%s) - start )) s"

check-debug: prepare
	@$(MAKE) --no-print-directory _image _debug-kernel
	@scripts/check-debug.sh

# The fuzz campaign (CALLS calls of selftests/fuzz) and Debian's trinity,
# on the debug kernel (scripts/fuzz.sh; not in CI).
fuzz: prepare
	@$(MAKE) --no-print-directory _image _debug-kernel
	@scripts/fuzz.sh fuzz

trinity: prepare
	@$(MAKE) --no-print-directory _image _debug-kernel
	@scripts/fuzz.sh trinity

# The flake rate: N boots of the normal kernel, DEBUG_N of the debug one,
# each with the whole suite; per test, how often it failed (not in CI).
soak: prepare
	@$(MAKE) --no-print-directory _image _debug-kernel
	@N=$(or $(N),20) DEBUG_N=$(or $(DEBUG_N),5) scripts/soak.sh

# The series' objects with W=1 under configs that turn one option off.
config-matrix: image
	@scripts/config-matrix.sh

# The kernel's own selftests of the areas the series touches, on the
# unpatched kernel (same config, series left out) and on the patched one.
UPSTREAM_TARGETS := capabilities clone3 landlock lsm net/af_unix nsfs prctl \
	ptrace seccomp

check-upstream: prepare
	@$(MAKE) --no-print-directory _image
	@scripts/check-upstream.sh $(UPSTREAM_TARGETS)

# The cost of the series: baseline and patched kernels under QEMU -icount.
bench: prepare
	@$(MAKE) --no-print-directory _image
	@scripts/bench.sh

_kernel: $(OBJ)/.config
	$(KMAKE) -j$(JOBS) -s bzImage
	$(KMAKE) -s headers
	@echo "kernel: $$($(KMAKE) -s kernelrelease) from $$(top=$(TOP) && . $(TOP)/scripts/base.sh && echo "$$DEB_LABEL"), series at $$(git -C $(SRC) rev-parse --short HEAD)" | tee $(B)/kernel-version.txt

# The project's kselftests are copied into the tree and built by the kernel's
# own selftests Makefile, statically: the guest has no libc.
$(KST)/.stamp: $(shell find selftests -type f) $(SRC)/.git/nosuid-series | _kernel
	@for t in $(SELFTESTS); do \
		rsync -a --delete selftests/$$t/ $(SRC)/tools/testing/selftests/$$t/; \
		grep -qx "/tools/testing/selftests/$$t/" $(SRC)/.git/info/exclude || \
			echo "/tools/testing/selftests/$$t/" >> $(SRC)/.git/info/exclude; \
	done
	rm -rf $(KST)
	$(MAKE) -s -C $(SRC)/tools/testing/selftests O=$(OBJ) \
		TARGETS="$(SELFTESTS) $(TREE_SELFTESTS)" KHDR_INCLUDES="-isystem $(OBJ)/usr/include" \
		USERLDFLAGS=-static INSTALL_PATH=$(KST) install > $(B)/kselftest-build.log 2>&1 || \
		{ tail -30 $(B)/kselftest-build.log; exit 1; }
	@# The kselftest install goes on past a suite that does not build, and
	@# leaves it out ("Skipping non-existent dir"): that is a failure here.
	@if grep -E '\*\*\* \[|Skipping non-existent dir' $(B)/kselftest-build.log; then \
		grep -B5 -E 'error:' $(B)/kselftest-build.log | tail -30; \
		echo "error: a kselftest did not build (see $(B)/kselftest-build.log)" >&2; exit 1; \
	fi
	@for t in $(SELFTESTS) $(TREE_SELFTESTS); do \
		[ -d $(KST)/$$t ] || { echo "error: kselftest $$t was not installed" >&2; exit 1; }; \
	done
	@touch $@

# Guest programs: harness helpers in initramfs/, user tools in tools/.
$(B)/tools/%: initramfs/%.c
	@mkdir -p $(dir $@)
	gcc -O2 -Wall -static -o $@ $<

$(B)/tools/%: tools/%.c $(SRC)/.git/nosuid-series | _kernel
	@mkdir -p $(dir $@)
	gcc -O2 -Wall -static -isystem $(OBJ)/usr/include -o $@ $<

$(B)/tools/bench: bench/bench.c $(SRC)/.git/nosuid-series | _kernel
	@mkdir -p $(dir $@)
	gcc -O2 -Wall -static -isystem $(OBJ)/usr/include -o $@ $< -lpthread

GUEST_TOOLS := vm-exit as-user netstamp-hold netstamp-toggle bench $(basename $(notdir $(wildcard tools/*.c)))

_image: _kernel $(KST)/.stamp $(addprefix $(B)/tools/,$(GUEST_TOOLS))
	@scripts/make-image.sh $(SRC) $(OBJ) $(dir $(KST)) $(IMAGE)

# Each prefix of the series builds (W=1 on the files each patch touches),
# and at each layer boundary boots and passes its selftests: a walk back
# from the whole series in a copy of build/obj (scripts/bisect-check.sh).
bisect-check: series
	@$(MAKE) --no-print-directory _image
	@scripts/bisect-check.sh

series: prepare
	@scripts/make-series.sh

# The map in DESIGN.md against the patches and selftests/: no kernel tree,
# no build (scripts/doc-check.py).
doc-check:
	@scripts/doc-check.py

# Prepares the unpatched tree for sparse's comparison, which compiles only
# the objects the series touches there.
series-check: series
	@$(MAKE) --no-print-directory _kernel
	@scripts/build-base.sh $(B)/series-base-build.log prepare
	@scripts/series-check.sh

series-apply-check: series
	@$(MAKE) --no-print-directory _image
	@scripts/series-apply-check.sh

debian-config-check: prepare
	@$(MAKE) --no-print-directory _image
	@scripts/debian-config-check.sh

deb: prepare
	@scripts/deb.sh

# Needs make deb's packages (deb.sh rebuilds them all: not a prerequisite).
check-debian-system:
	@scripts/check-debian-system.sh

export:
	@scripts/export-series.sh $(SRC) $(PDIR) $(LAYERS)

reset-tree:
	rm -f $(SRC)/.git/nosuid-series $(SRC)/.git/nosuid-failed
	git -C $(SRC) reset -q --hard base

clean:
	rm -rf $(OBJ) $(KST) $(B)/tools $(IMAGE) $(B)/*.log $(B)/*.list

distclean:
	rm -rf $(B)
