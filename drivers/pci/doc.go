// Package pci reads and programs PCI and PCI Express functions through their configuration
// space: it enumerates the functions behind the host bridge, decodes and sizes their base address
// registers, gives memory BARs that a firmware left unset an address (assign.go: a minimal
// firmware such as qboot sets none), walks their capability lists and programs MSI-X. It knows
// no architecture and no
// board: the board supplies a configuration-access mechanism (Config) — ECAM, the memory-mapped
// one that PCI Express and arm64 machines use, is here; the PC's I/O-port mechanism is in
// gmpos/kernel/board/pc — and maps whatever memory the caller needs, so the same code runs on
// x86-64 and on arm64's QEMU virt.
//
// # Contexts
//
// Everything here runs at boot (kernel/doc.go, "Contexts"), before the Go runtime exists: no
// heap allocation, no package state, no init(). Config methods take and return values only, so
// an interface call through a Config does not make anything escape. Nothing is locked: a
// configuration read is a two-step sequence on the PC's ports, so callers serialise (at boot
// there is one core; later, the kernel's BKL).
//
// # Trust
//
// Configuration space belongs to the device (or to a hypervisor pretending to be one). Every
// decoder checks what it reads: capability walks are bounded and stop at loops and at pointers
// into the header; BARs with reserved encodings, holes in the size mask or misaligned bases
// are rejected; MSI-X table indices are range checked. Hostile config space may make a device
// unusable but never hangs, panics or faults the kernel (FuzzCapWalk, FuzzBAR).
//
// # References
//
//   - PCI Local Bus Specification 3.0: §6.1 configuration header (Figure 6-1, type 0), §6.2.2
//     command and status registers, §6.2.5.1 base address registers and their sizing, §6.7
//     capabilities list, §6.8.2 MSI-X; §3.2.2.3.2 configuration mechanism #1 (the PC's ports).
//   - PCI-to-PCI Bridge Architecture Specification 1.2, §3.2 (type 1 header: bus numbers).
//   - PCI Express Base Specification 4.0, §7.2.2 (ECAM).
//   - PCI Code and ID Assignment Specification 1.11, §2 (capability IDs).
//
// # Files
//
// config.go addresses, the Config mechanism and a function's registers; ecam.go memory-mapped
// configuration; enumerate.go the bus walk; bar.go base address registers; cap.go capability
// lists; msix.go MSI-X.
package pci
