// Package pc is the PC board: everything around the x86-64 CPU that the kernel meets on QEMU's
// q35 and pc machines (and on a real PC with a multiboot loader). It mirrors tamago's split
// between the CPU package (gmpos/kernel/arch/amd64) and board packages: the CPU knows
// descriptor tables, traps, the local APIC and paging; the board knows how the machine was
// started, what is wired to it and how to leave it.
//
// # What the board provides (the kernel's Board contract, kernel/board.go)
//
//   - the loader's hand-off: the Multiboot memory map and command line (multiboot.go);
//   - the processors and the interrupt wiring the firmware describes: the ACPI MADT's
//     local APICs, I/O APICs and interrupt source overrides (acpi.go);
//   - the console: three 16550 UARTs, stdout, stderr and the kernel's control channel
//     (console.go);
//   - a reference clock to measure the CPU's counters (the 8254 PIT) and the wall clock at
//     boot (the MC146818 CMOS RTC) (clock.go);
//   - device interrupts: the 8259 PICs masked for good, the I/O APIC routing interrupt
//     lines (GSIs) to CPU vectors (ioapic.go), and one interrupt a test can cause, the RTC's
//     periodic interrupt (rtc.go);
//   - the way out: QEMU's isa-debug-exit device (exit.go).
//
// # Contexts
//
// Probe runs once at boot on the early identity map, before the kernel's page tables exist
// (the firmware's tables are not in the RAM the direct map covers). Everything else may run
// in trap context: no allocation, no locks of its own (the kernel serialises callers with its
// big kernel lock, or — for the fault report and Exit — runs alone), no write barriers.
//
// # References
//
//   - Multiboot Specification 0.6.96, §3.2 (machine state), §3.3 (boot information).
//   - ACPI 6.5, §5.2.5 (RSDP), §5.2.7-8 (RSDT/XSDT), §5.2.12 (MADT), Tables 5.21-5.29.
//   - PC16550D UART datasheet (National Semiconductor, 1995), §8.4 LSR.
//   - Intel 8254 PIT datasheet; MC146818A RTC datasheet (registers A, B, C).
//   - 82093AA I/O APIC datasheet, §3.2.4 redirection table; 8259A datasheet (OCW1).
//   - QEMU docs: isa-debug-exit (hw/misc/debugexit.c).
//
// # Files
//
// board.go the Board type; multiboot.go, acpi.go the firmware's hand-off; console.go the
// serial ports; clock.go PIT and RTC; ioapic.go, pic.go, rtc.go device interrupts; pci.go
// configuration access and the memory window for unassigned BARs; exit.go.
package pc
