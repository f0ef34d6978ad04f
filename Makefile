# Anima build. `make` builds build/anima.iso (kernel + every program as a
# GRUB module); `make run` boots the default demo; `make test` runs the
# whole test suite; `make bench` measures (docs/results.md); `make fuzz`
# runs the 10^6-call concurrent syscall fuzz with memory audits. They install
# what is missing first (tools/setup.sh).

CROSS   ?=
CC      := $(CROSS)gcc
LD      := $(CROSS)ld
AR      := $(CROSS)ar
OBJCOPY := $(CROSS)objcopy
NM      := $(CROSS)nm
PYTHON  ?= python3
B       := build

# Default demo command line (see docs/architecture.md, "Run control").
# `make run` boots it on one CPU under -icount, so its figures are guest
# instructions, exact on any host; `make run SMP=2 RUNFLAGS= CMDLINE=run=demo`
# shows wall-clock figures instead.
CMDLINE ?= run=demo,icount
SMP     ?= 1
RUNFLAGS ?= --icount
MEM     ?= 512M

WARN    := -Wall -Wextra -Werror
# -nostdinc: no header ever comes from the host's C library; the compiler's
# own freestanding headers (stddef.h, stdint.h, stdarg.h, stdbool.h, float.h,
# stdatomic.h, cpuid.h, the x86 intrinsics) come from GCC's include folder,
# searched after ours (ulib/include has its own limits.h: GCC's would
# #include_next the host's).
GCCINC  := $(shell $(CC) -print-file-name=include)
COMMON  := -std=gnu11 -O2 -g $(WARN) -ffreestanding -fno-stack-protector \
           -fno-pic -mno-red-zone -fno-omit-frame-pointer -fno-builtin \
           -nostdinc -isystem $(GCCINC) -Ikernel/include -MMD -MP
KCFLAGS := $(COMMON) -mcmodel=kernel -mno-sse -mno-mmx -mno-80387 \
           -mgeneral-regs-only -Ikernel -Icommon/include -DKERNEL
# The user include path: the standard headers alone first (ulib/include),
# then Anima's own under prefixes no program's header can take:
# <animart/...> the VP runtime, <animalib/...> the libc's additions,
# <animacom/...> what kernel and user share (docs/architecture.md).
# -ffunction-sections -fdata-sections with the link's --gc-sections: a
# program keeps only the library code it reaches. Every direct boot loads
# every program as a module (harness/qemu.py), and QEMU's host CPU time
# grows with their bytes: 47 MB of modules became 29.5 MB, 0.18 s of QEMU
# CPU per hello boot became 0.135 s.
UCFLAGS := $(COMMON) -fno-pie -Iulib/include -Iulib/rt/include -Iulib/libc/include \
           -Icommon/include -Ithreadpkgs -DFMT_FLOAT \
           -ffunction-sections -fdata-sections
ASFLAGS := -Ikernel/include -Ikernel -MMD -MP

# --- kernel -----------------------------------------------------------
KSRC := $(wildcard boot/*.S) $(wildcard kernel/*.c) $(wildcard kernel/*.S) \
        common/fmt.c common/string.c
KOBJ := $(patsubst %,$(B)/k/%.o,$(KSRC))

$(B)/k/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -c $< -o $@
$(B)/k/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) $(ASFLAGS) -c $< -o $@

$(B)/kernel.elf: $(KOBJ) boot/kernel.ld
	$(LD) -n -nostdlib -z max-page-size=0x1000 -z noexecstack -T boot/kernel.ld -o $@ $(KOBJ)

# The flat image QEMU's multiboot1 loader takes (-kernel; boot/boot.S's
# a.out-kludge header says where it goes): the harness boots it directly,
# without GRUB (harness/qemu.py). It must end where the header says.
$(B)/kernel.bin: $(B)/kernel.elf
	$(OBJCOPY) -O binary $< $@
	@test $$(stat -c %s $@) -eq $$(( 0x$$($(NM) $< | awk '/ _edata$$/ {print substr($$1, 9)}') - 0x$$($(NM) $< | awk '/ _kernel_start$$/ {print substr($$1, 9)}') )) \
	    || { echo "kernel.bin: size differs from _edata - _kernel_start (a section past .data?)"; rm -f $@; exit 1; }

# Symbol table for panic backtraces, loaded by GRUB as module "ksyms".
$(B)/kernel.sym: $(B)/kernel.elf
	$(NM) -n --defined-only $< | grep -i ' t ' > $@

# --- ulib and thread packages ----------------------------------------
# One library per layer: build/librt.a (ulib/rt, the VP runtime),
# build/libpthread.a (ulib/pthread), build/libc.a (ulib/libc and the user
# side of common/). Programs link them as one group.
RTSRC := $(wildcard ulib/rt/*.c) $(wildcard ulib/rt/*.S)
PTSRC := $(filter-out ulib/pthread/pstart.c,$(wildcard ulib/pthread/*.c))
LCSRC := $(filter-out ulib/libc/crt0.S,$(wildcard ulib/libc/*.c) $(wildcard ulib/libc/*.S)) \
         $(wildcard common/*.c)
USRC := $(RTSRC) $(PTSRC) $(LCSRC)
ulibobj = $(patsubst %,$(B)/u/%.o,$1)
# A package's sources learn its name from its folder (threadpkgs/NAME/):
# PKG_NAME is "NAME" and PKG_SELF, its struct pkg, NAME_pkg.
pkgdefs = $(if $(filter threadpkgs/%,$1),-DPKG_NAME='"$(word 2,$(subst /, ,$1))"' \
          -DPKG_SELF=$(word 2,$(subst /, ,$1))_pkg)
$(B)/u/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $(call pkgdefs,$<) $(XCFLAGS) -c $< -o $@
$(B)/u/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $(ASFLAGS) -c $< -o $@
$(B)/librt.a: $(call ulibobj,$(RTSRC))
$(B)/libpthread.a: $(call ulibobj,$(PTSRC))
$(B)/libc.a: $(call ulibobj,$(LCSRC))
ULAYERS := $(B)/librt.a $(B)/libpthread.a $(B)/libc.a
$(ULAYERS):
	@rm -f $@
	$(AR) rcs $@ $^

# Thread packages: threadpkgs/NAME/*.c -> build/lib/libNAME.a, one library each.
PKGS    := $(patsubst threadpkgs/%/,%,$(sort $(dir $(wildcard threadpkgs/*/*.c))))
PKGLIBS := $(patsubst %,$(B)/lib/lib%.a,$(PKGS))
# One explicit rule per package, not a pattern rule: through a pattern the
# objects were intermediate files, and a package folder whose sources were
# older than the programs (copied with their times kept) was never built.
define pkg_rule
$(B)/lib/lib$(1).a: $(patsubst %,$(B)/u/%.o,$(wildcard threadpkgs/$(1)/*.c threadpkgs/$(1)/*.S))
	@mkdir -p $$(dir $$@)
	@rm -f $$@
	$$(AR) rcs $$@ $$^
endef
$(foreach p,$(PKGS),$(eval $(call pkg_rule,$(p))))

# The one list of packages: pkg_all[] and pkg_find(), generated from the
# folders, so adding threadpkgs/NAME/ is all it takes (docs/writing-a-thread-package.md).
# Made on every run (FORCE), replaced only when the list changed: a folder's
# time says nothing of whether it is new (cp -a, tar), nor does a removal
# show in the times of the folders that are left.
$(B)/gen/pkgs.c: tools/genpkgs.sh FORCE
	@mkdir -p $(dir $@)
	@tools/genpkgs.sh $(PKGS) > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@
$(B)/lib/libpkgs.a: $(B)/u/$(B)/gen/pkgs.c.o
	@rm -f $@
	$(AR) rcs $@ $^
PKGLIBS += $(B)/lib/libpkgs.a

# --- math: build/libm.a, picked from musl's libc.a (tools/mklibm.py) ----
# musl's math functions are pure computation (no system calls, no errno);
# Debian's musl-dev ships them (tools/setup.sh installs it).
MUSL_LIBC ?= $(firstword $(wildcard /usr/lib/x86_64-linux-musl/libc.a /usr/lib/musl/lib/libc.a))
LIBM_FUNCS := sqrt cbrt hypot fabs floor ceil round trunc rint nearbyint lround \
	fmod remainder modf frexp ldexp scalbn copysign fmin fmax nan \
	exp exp2 expm1 log log2 log10 log1p pow \
	sin cos tan asin acos atan atan2 sinh cosh tanh \
	sqrtf fabsf floorf ceilf roundf fmodf sinf cosf expf logf powf atan2f \
	lrint llrint llround fdim fma erf erfc tgamma lgamma lgamma_r asinh acosh atanh \
	logb ilogb nextafter scalbln remquo sincos \
	cbrtf hypotf truncf rintf nearbyintf lroundf lrintf llrintf llroundf remainderf \
	modff frexpf ldexpf scalbnf copysignf fminf fmaxf nanf exp2f expm1f log2f log10f \
	log1pf tanf asinf acosf atanf sinhf coshf tanhf asinhf acoshf atanhf erff erfcf \
	tgammaf lgammaf fdimf fmaf logbf ilogbf nextafterf sincosf \
	sqrtl fabsl floorl ceill roundl truncl fmodl expl logl log2l log10l powl sinl cosl \
	tanl atanl atan2l frexpl ldexpl copysignl fminl fmaxl
$(B)/libm.a: tools/mklibm.py $(MUSL_LIBC) Makefile
	@test -n "$(MUSL_LIBC)" || { echo "no musl libc.a: run tools/setup.sh (apt-get install musl-dev)"; exit 1; }
	@mkdir -p $(dir $@)
	@$(PYTHON) tools/mklibm.py $(MUSL_LIBC) $@ $(LIBM_FUNCS)

# --- programs: progs/KIND/NAME.c -> build/progs/NAME -------------------
# progs/ is split by purpose: tests/ (the test suite's guest programs),
# bench/ (benchmarks and experiments), apps/ (applications), demos/. A
# program is found by its name alone, so names are unique across kinds.
#
# Two kinds hold ordinary POSIX programs (main(argc, argv), run by the
# POSIX start ulib/pthread/pstart.c as the first thread of the package named
# on the command line): posix/ (ours: -Werror like everything else) and
# ported/ (third-party-style code, built unchanged: warnings are shown but
# not fatal). There a program is NAME.c or a folder NAME/ of .c files and
# local headers, with optional flags in NAME/flags.mk, a make fragment:
#     CFLAGS += -DN=100 -std=c99        (compiler flags for its .c files)
# (see docs/libc.md).
UCFLAGS += -Iprogs/include
NATIVE  := tests bench apps demos
PSRCS   := $(wildcard $(patsubst %,progs/%/*.c,$(NATIVE)))
XKINDS  := posix ported workloads bin
XFILES  := $(wildcard $(patsubst %,progs/%/*.c,$(XKINDS)))
XDIRS   := $(patsubst %/,%,$(sort $(dir $(wildcard $(patsubst %,progs/%/*/*.c,$(XKINDS))))))
PROGS   := $(notdir $(PSRCS:.c=) $(XFILES:.c=) $(XDIRS))
PBINS   := $(patsubst %,$(B)/progs/%,$(PROGS))
ifneq ($(words $(PROGS)),$(words $(sort $(PROGS))))
$(error two programs under progs/ share a name: $(sort $(PROGS)))
endif
ULINK = $(LD) -nostdlib -static -z max-page-size=0x1000 -z noexecstack --gc-sections \
        -T ulib/user.ld -o $@
ULIBS = --start-group $(PKGLIBS) $(ULAYERS) $(B)/libm.a --end-group
UDEPS = $(B)/u/ulib/libc/crt0.S.o $(ULAYERS) $(B)/libm.a $(PKGLIBS) ulib/user.ld
define prog_rule
$(B)/progs/$(notdir $(1:.c=)): $(B)/u/$(1).o $(UDEPS)
	@mkdir -p $$(dir $$@)
	$$(ULINK) $(B)/u/ulib/libc/crt0.S.o $(B)/u/$(1).o $$(ULIBS)
endef
$(foreach f,$(PSRCS),$(eval $(call prog_rule,$(f))))

# POSIX programs: $(1) is progs/KIND/NAME.c or the folder progs/KIND/NAME.
# Their objects get XCFLAGS_KIND and the folder's flags.mk (read here,
# with CFLAGS emptied first, so one folder's flags stay its own).
PSTART := $(B)/u/ulib/pthread/pstart.c.o
XCFLAGS_posix  :=
XCFLAGS_bin    :=
# workloads/: ours too, built for Linux as well (harness/linux.py); WL_ANIMA
# tells progs/workloads/wl.h which system it is on.
XCFLAGS_workloads := -DWL_ANIMA
# Ported code: warnings shown, not fatal; -fcommon for old code that
# defines globals in headers (GCC 10 made -fno-common the default);
# -fhosted (COMMON's -ffreestanding is for the kernel and ulib), so a
# main that ends without a return returns 0 (C99 5.1.2.2.3) instead of
# whatever %eax held. (Our own programs return explicitly: hosted, GCC
# also checks the libc calls' arguments, e.g. snprintf truncation, which
# libcposix does on purpose.)
XCFLAGS_ported := -fhosted -Wno-error -fcommon
define xprog_rule
$(eval xsrc := $(if $(filter %.c,$(1)),$(1),$(wildcard $(1)/*.c)))
$(eval xobj := $(patsubst %,$(B)/u/%.o,$(xsrc)))
$(eval CFLAGS :=)
$(if $(wildcard $(1)/flags.mk),$(eval include $(1)/flags.mk))
$(xobj): XCFLAGS := $(XCFLAGS_$(word 2,$(subst /, ,$(1)))) $(CFLAGS)
$(xobj): $(wildcard $(1)/flags.mk)
$(B)/progs/$(notdir $(1:.c=)): $(xobj) $(PSTART) $(UDEPS)
	@mkdir -p $$(dir $$@)
	$$(ULINK) $(B)/u/ulib/libc/crt0.S.o $(xobj) $(PSTART) $$(ULIBS)
endef
$(foreach f,$(XFILES) $(XDIRS),$(eval $(call xprog_rule,$(f))))

# --- ISO -----------------------------------------------------------------
all: $(B)/anima.iso $(B)/kernel.bin compile_commands.json
$(B)/anima.iso: $(B)/kernel.elf $(B)/kernel.sym $(PBINS) harness/iso.py
	$(PYTHON) -m harness.iso --out $@ --cmdline "$(CMDLINE)"

compile_commands.json: Makefile
	@$(PYTHON) tools/compdb.py "$(CC)" "$(KCFLAGS)" "$(UCFLAGS)" > $@

# --- people's commands -------------------------------------------------------
setup:
	@tools/setup.sh

run: setup
	@$(MAKE) --no-print-directory all
	ANIMA_BOOT=iso $(PYTHON) -m harness run $(CMDLINE) --smp $(SMP) $(RUNFLAGS)

debug: setup
	@$(MAKE) --no-print-directory all
	@echo "QEMU waits for GDB on :1234 -- in another shell: gdb $(B)/kernel.elf -ex 'target remote :1234'"
	qemu-system-x86_64 -cpu max -smp $(SMP) -m $(MEM) -display none -no-reboot \
	    -serial stdio -device isa-debug-exit,iobase=0xf4,iosize=0x01 \
	    -cdrom $(B)/anima.iso -s -S

test: setup
	@$(MAKE) --no-print-directory all
	$(PYTHON) -m pytest -q harness/tests $(PYTEST_ARGS)

# Benchmarks (harness/experiments.py): results/latest.json, then
# docs/results.md and its plots. QUICK=1: only the one-CPU icount
# microbenchmarks, into build/bench-quick.json (the committed results stay).
bench: setup
	@$(MAKE) --no-print-directory all
	$(PYTHON) -m harness.experiments $(if $(QUICK),--quick)

# The long concurrent syscall fuzz (harness/fuzz.py): 10^6 calls over 4
# boots at -smp 2 and 4, each with `memcheck`, a watchdog and the memory
# audit (progs/tests/fuzzaudit.c) and a small ext2 disk (/fz) that e2fsck
# must find clean after; build/fuzz.json. FUZZ_ARGS: e.g. --seed S, --no-disk.
fuzz: setup
	@$(MAKE) --no-print-directory all
	$(PYTHON) -m harness.fuzz $(FUZZ_ARGS)

# Hostile ext2 images (harness/imgfuzz.py): N images (default 1,000) of
# seed 31, each booted with progs/tests/imgwalk.c; build/imgfuzz.json.
# IMGFUZZ_ARGS: e.g. --seed S --jobs 1.
fuzz-images: setup
	@$(MAKE) --no-print-directory all
	$(PYTHON) -m harness.imgfuzz --n $(or $(N),1000) $(IMGFUZZ_ARGS)

# det's racy proof at scale (tools/racey.py): N runs of progs/posix/racey
# under det over -smp 1/2/4, 1-8 VPs and jitter, 4 spaces a boot, after a
# fifo control; build/racey.json. e.g. make racey N=10000
racey: setup
	@$(MAKE) --no-print-directory all
	$(PYTHON) tools/racey.py --runs $(or $(N),40)

clean:
	rm -rf $(B) compile_commands.json

# `make -s print-UCFLAGS`: a variable's value, for tests and tools.
print-%:
	@echo '$($*)'

.PHONY: all setup run debug test bench fuzz fuzz-images racey clean FORCE
FORCE:
.DEFAULT_GOAL := all
.SECONDARY:
-include $(shell find $(B) -name '*.d' 2>/dev/null)
