// Package virt is QEMU's arm64 virt machine as a board: everything around the CPU that the
// kernel meets on qemu-system-aarch64 -M virt. It mirrors gmpos/kernel/board/pc for the PC: the
// CPU package (gmpos/kernel/arch/arm64) knows exception levels, traps, the MMU, the GIC's
// per-core side and the generic timer; the board knows how the machine was started, what is
// wired to it and how to leave it.
//
// # What the board provides (the kernel's Board contract, kernel/board.go)
//
//   - the loader's hand-off: QEMU boots the kernel as a Linux arm64 Image, with x0 the physical
//     address of a flattened device tree (Linux Documentation/arch/arm64/booting.rst); the
//     board reads it (devicetree.go, through gmpos/drivers/fdt) for the RAM (memory.go), the
//     command line, the initrd, the processors and the PSCI conduit that starts them
//     (CPUMPIDR, PSCIMethod; Probe hands both to the CPU package), the GIC, the UART, the RTC
//     and the PCIe host;
//   - the boot modules: the runner's module container in the one initrd (modules.go);
//   - the console: stdout, stderr and the control channel, and stdin and signals back, as
//     records on the one PL011 (console.go, gmpos/drivers/pl011);
//   - a reference clock to measure counters against (the generic counter) and the wall clock at
//     boot (the PL031 RTC) (clock.go);
//   - device interrupts: the GIC's SPIs as the board's lines (gic_arm64.go); MSI lines, which
//     give the virtio PCI devices (NIC, virtio-9p, the virtio console) their interrupts: with
//     GICv2 the GICv2m frame's SPIs (msi.go), with GICv3 LPIs through the ITS (its.go,
//     its_arm64.go); no test interrupt source (testirq.go: nothing on virt interrupts at a
//     chosen rate);
//   - PCI: ECAM configuration space and the 32-bit memory window (pci.go);
//   - the way out: semihosting's SYS_EXIT, which makes QEMU exit with the status (exit_arm64.go).
//
// # Command line
//
// The PC's Multiboot loader puts the image path before the -append text and the kernel's
// parseCmdline skips that first token (kernel/cmdline.go). QEMU's Linux loader passes -append
// unchanged in /chosen's bootargs, so the board puts a stand-in token first (cmdlinePrefix).
// The cleaner division would be the PC board dropping the path and parseCmdline skipping
// nothing — the path is a Multiboot quirk; until the contract says so, the stand-in keeps
// kernel/cmdline.go unchanged.
//
// # Contexts
//
// EarlyInit and Probe run once at boot, before the Go runtime exists, on the early identity map
// of kernel/arch/arm64 (0-1 GiB Device memory, where virt's devices are; 1-4 GiB Normal memory,
// where its RAM starts): static data, no allocation — the tree is read in place, which is why
// the parser is gmpos's own (drivers/fdt's doc.go). Probe copies out all it keeps; the tree is
// not read again. The board's own registers (UART, RTC) must then be mapped into the kernel's
// page table (MapDevices) before the kernel switches to it. Everything else may run in trap
// context: no allocation, no write barriers (the Board holds uintptrs, no Go pointers), no
// locks of its own but the console's write flag (console.go), which the fault report takes with
// a bounded wait. Files ending in _arm64.go call the CPU package; the others build on any
// architecture, so that their tests run on the development host.
//
// # References
//
//   - Devicetree Specification v0.4 (§3.4 /memory, §3.5 /reserved-memory, §3.6 /chosen, §3.7-3.8
//     /cpus, §5.3 memory reservations); Linux bindings: arm,gic.yaml, arm,gic-v3.yaml, psci.yaml,
//     host-generic-pci.yaml, chosen.yaml (linux,initrd-start/-end).
//   - QEMU hw/arm/virt.c (the memory map and the tree), hw/arm/boot.c (the Linux loader: where
//     the kernel, initrd and tree go), hw/char/pl011.c, hw/rtc/pl031.c,
//     semihosting/arm-compat-semi.c.
//   - ARM PrimeCell UART (PL011) TRM, DDI 0183G; PrimeCell RTC (PL031) TRM, DDI 0224 §3.3;
//     GIC architecture v2, IHI 0048B; GICv3/v4, IHI 0069; PSCI, DEN 0022 (§5.2 conduits, §5.6
//     CPU_ON); ARM ARM DDI 0487 D11 (the generic timer); "Semihosting for AArch32 and AArch64"
//     (100863), SYS_EXIT.
//
// # Files
//
// board.go the Board type and the hand-off's accessors; devicetree.go, memory.go, modules.go
// the tree, the RAM and the module container; probe_arm64.go EarlyInit and Probe; devices.go
// MapDevices; console.go the record console; clock.go, clock_arm64.go the reference and wall
// clocks; gic_arm64.go, msi.go, its.go, its_arm64.go, testirq.go device interrupts and MSI; pci.go; exit_arm64.go;
// zkdata_arm64.go (kernel/mkkdata.go).
package virt
