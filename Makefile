# gmpos: build, boot, test and benchmark. See README.md.
#
#   make            build the demo's boot image into build/ (and the runner, build/gmpos)
#   make qemu       boot examples/demo under QEMU (ARCH=arm64: on the arm64 virt machine, 4 vCPUs;
#                   BOARD=rpi3 or rpi4: on QEMU's Raspberry Pi 3B or 4B, 4 cores)
#   make sdcard     BOARD=rpi3|rpi4: write build/sdcard-BOARD.img, the demo on a Raspberry Pi SD card
#   make test       gofmt, go vet, hosted tests (sched with -race), QEMU tests in tests/ on 1, 2, 4 vCPUs,
#                   x86-64 (q35) and arm64 (virt: GICv2 on 1 and 2, GICv3 on 4)
#   make bench      gmpos against a Linux guest in the same QEMU, on 1 and 2 vCPUs (README, Benchmarks)
#   make qemu-gdb   boot the demo halted, waiting for gdb on :1234
#   make clean
#
# Variables: ARCH (amd64, the default, or arm64: the guest's architecture for make, make qemu and
# make qemu-gdb), BOARD (rpi3 or rpi4: QEMU's raspi3b or raspi4b for make qemu, the board for
# make sdcard; implies ARCH=arm64), SMP (vCPUs for make qemu, default 2, on arm64 4; for make bench, default both 1 and 2),
# BENCHFLAGS (benchrun flags, e.g. BENCHFLAGS=-peer=linux,host), RUNFLAGS (extra runner flags, e.g.
# RUNFLAGS='-kopt klog=1'),
# DEMO (package to boot), TESTFLAGS (extra go test flags).

GO        ?= go
BUILD     := build
RUNNER    := $(BUILD)/gmpos
DEMO      ?= ./examples/demo
RUNFLAGS  ?=
ARCH      ?= amd64
BOARD     ?=
RPI_MACHINE := $(if $(filter rpi3,$(BOARD)),raspi3b,$(if $(filter rpi4,$(BOARD)),raspi4b,))
ifneq ($(BOARD),)
ifeq ($(RPI_MACHINE),)
$(error BOARD=$(BOARD): want rpi3 or rpi4)
endif
override ARCH := arm64
endif
# ARCH as a GOARCH: an environment's ARCH=x86_64 or aarch64 (as Linux kernel builds set it) means
# the same machine.
GOARCH_G  := $(patsubst x86_64,amd64,$(patsubst aarch64,arm64,$(ARCH)))
SMP       ?= $(if $(filter arm64,$(GOARCH_G)),4,2)
TESTFLAGS ?= $(if $(CI),-v,)
# QEMU for each guest architecture, as binary:Debian package.
QEMU_X86  := qemu-system-x86_64:qemu-system-x86
QEMU_ARM  := qemu-system-aarch64:qemu-system-arm
QEMU_ARCH := $(if $(filter arm64,$(GOARCH_G)),$(QEMU_ARM),$(QEMU_X86))
DEMO_IMG  := $(BUILD)/demo$(if $(filter arm64,$(GOARCH_G)),-arm64,).img

.PHONY: all qemu qemu-gdb sdcard test fmt-check vet unit-test race-test qemu-test bench tbprof clean ensure-qemu ensure-qemu-arch $(RUNNER)

all: $(RUNNER)
	$(RUNNER) build -arch $(GOARCH_G) -o $(DEMO_IMG) $(DEMO)

# The runner is built rather than `go run`: go run turns every non-zero
# exit status into 1, and the guest's status is the point.
$(RUNNER):
	@mkdir -p $(BUILD)
	$(GO) build -o $(RUNNER) ./qemu

qemu: ensure-qemu-arch $(RUNNER)
	$(RUNNER) run -stats $(if $(RPI_MACHINE),-machine $(RPI_MACHINE),-arch $(GOARCH_G) -smp $(SMP)) $(RUNFLAGS) $(DEMO)

# An SD card image for a Raspberry Pi (README, "Raspberry Pi"): the firmware comes from Debian's
# raspi-firmware package, downloaded into build/, not installed.
sdcard: $(RUNNER)
	@test -n "$(RPI_MACHINE)" || { echo "make sdcard needs BOARD=rpi3 or BOARD=rpi4"; exit 1; }
	$(RUNNER) image -board $(BOARD) -o $(BUILD)/sdcard-$(BOARD).img $(DEMO)

qemu-gdb: ensure-qemu-arch $(RUNNER)
	@echo "In another terminal: $(if $(filter arm64,$(GOARCH_G)),gdb-multiarch,gdb) $(BUILD)/demo.elf -ex 'target remote :1234'"
	$(RUNNER) run -gdb -arch $(GOARCH_G) -keep $(BUILD) $(RUNFLAGS) $(DEMO)

# Hosted checks first (sched under the race detector included), so that a failing unit test
# stops the run before the QEMU suite boots guests for minutes on three vCPU counts.
test: fmt-check vet unit-test race-test qemu-test

# Committed Go files (scratch files in a work tree are not the build's
# business); outside a git checkout, every .go file.
fmt-check:
	@files="$$(git ls-files -c '*.go' 2>/dev/null || find . -name '*.go' -not -path './build/*')"; \
	out="$$(gofmt -l $$files)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# ./... skips testdata directories, so the guest programs are named explicitly.
vet:
	$(GO) vet ./...
	$(GO) vet $$(ls -d ./tests/testdata/*/ ./qemu/runner/testdata/*/)

# Hosted tests of every package except sched (see race-test) and the QEMU suite.
unit-test: ensure-qemu
	$(GO) test $(TESTFLAGS) $$($(GO) list ./... | grep -v -e '^gmpos/sched' -e '^gmpos/tests$$')

# sched is the concurrent core: run it under the race detector, which needs
# cgo and a C compiler.
race-test:
	@if command -v gcc >/dev/null 2>&1; then \
		echo "$(GO) test -race ./sched/..."; CGO_ENABLED=1 $(GO) test $(TESTFLAGS) -race ./sched/...; \
	else \
		echo "WARNING: no C compiler, so no race detector: sched tests run without -race (apt-get install -y gcc)"; \
		$(GO) test $(TESTFLAGS) ./sched/...; \
	fi

# Booting guests: one after another (TCG needs a host core per vCPU), each
# with its own timeout inside the tests; the whole suite is bounded too.
qemu-test: ensure-qemu
	$(GO) test $(TESTFLAGS) -count=1 -timeout 30m ./tests/
	@echo "The QEMU suite again with 2 vCPUs (SMP kernel: one M and P per core):"
	GMPOS_TEST_SMP=2 $(GO) test $(TESTFLAGS) -count=1 -timeout 30m ./tests/
	@echo "And with 4 vCPUs (more vCPUs than host cores: TCG time-shares them):"
	GMPOS_TEST_SMP=4 $(GO) test $(TESTFLAGS) -count=1 -timeout 30m ./tests/
	@echo "The QEMU suite on arm64 (QEMU virt, GICv2), 1 vCPU, then 2; then 4 vCPUs on GICv3:"
	GMPOS_TEST_ARCH=arm64 $(GO) test $(TESTFLAGS) -count=1 -timeout 30m ./tests/
	GMPOS_TEST_ARCH=arm64 GMPOS_TEST_SMP=2 $(GO) test $(TESTFLAGS) -count=1 -timeout 30m ./tests/
	GMPOS_TEST_ARCH=arm64 GMPOS_TEST_MACHINE=virt,gic-version=3 GMPOS_TEST_SMP=4 $(GO) test $(TESTFLAGS) -count=1 -timeout 30m ./tests/

# make bench boots each guest once per vCPU count: SMP=N on the command line (or in the
# environment) runs that count only. The Linux guest's kernel comes from apt into build/linuxpeer
# (tests/linuxpeer); nothing here is part of make test.
BENCH_SMP = $(if $(filter command line environment,$(origin SMP)),$(SMP),1 2)

bench: ensure-qemu-arch
	$(GO) run ./tests/benchrun -smp '$(BENCH_SMP)' $(BENCHFLAGS)

# The guest instruction counter (qemu/tbprof): a QEMU TCG plugin, built with the host's C
# compiler; go run ./qemu run -plugin build/libtbprof.so loads it. Not part of make test.
tbprof: $(BUILD)/libtbprof.so

$(BUILD)/libtbprof.so: qemu/tbprof/plugin/tbprof.c
	@mkdir -p $(BUILD)
	@command -v gcc >/dev/null 2>&1 || { echo "tbprof needs a C compiler: apt-get install -y gcc"; exit 1; }
	gcc -O2 -Wall -shared -fPIC -o $@ $<

clean:
	rm -rf $(BUILD)

# Install QEMU when it is missing and we may (root, or passwordless sudo);
# otherwise say exactly what to run. $(1): binary:package pairs; the packages of the missing
# binaries are installed with one apt-get.
define install-qemu
	@pkgs=""; for p in $(1); do command -v "$${p%%:*}" >/dev/null 2>&1 || pkgs="$$pkgs $${p#*:}"; done; \
	if [ -n "$$pkgs" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "Installing QEMU: apt-get update && apt-get install -y$$pkgs"; \
			apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$pkgs; \
		elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
			echo "Installing QEMU: sudo apt-get update && sudo apt-get install -y$$pkgs"; \
			sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y $$pkgs; \
		else \
			echo "QEMU is not installed. Install it with:"; \
			echo "    sudo apt-get update && sudo apt-get install -y$$pkgs"; \
			exit 1; \
		fi; \
	fi
endef

# make test boots guests of both architectures (the arm64 runner and image tests among them).
ensure-qemu:
	$(call install-qemu,$(QEMU_X86) $(QEMU_ARM))

# make qemu, qemu-gdb and bench need ARCH's emulator only.
ensure-qemu-arch:
	$(call install-qemu,$(QEMU_ARCH))
