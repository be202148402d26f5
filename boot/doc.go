// Package boot turns a Go-linked ELF64 kernel image into something QEMU's
// -kernel option loads: the same file with a Multiboot v1 header written
// into unused bytes of its first 8 KiB.
//
// # Concepts
//
// QEMU's x86 -kernel loader understands Linux bzImages, PVH ELF notes and
// Multiboot v1. Its Multiboot loader refuses ELF64 files unless the header
// sets flag bit 16, the "a.out kludge": the loader then ignores the ELF
// headers and copies the file as a flat image, described only by the five
// address fields of the Multiboot header (Multiboot Specification 0.6.96,
// §3.1.1 "The layout of Multiboot header", §3.1.3 "The address fields of
// Multiboot header"). That is exactly what a Go executable linked with
//
//	-ldflags='-T 0x101000 -R 0x1000 -E gmpos/kernel/arch/amd64.entry32'
//
// is: the first PT_LOAD starts at file offset 0 (ELF and program headers,
// then .text at 0x101000), and with -R 0x1000 every later PT_LOAD sits at
// file offset vaddr-base, so "copy the file from offset 0 to load_end_addr
// to physical address base, zero up to bss_end_addr" reproduces the
// program's memory image.
//
// The header must be 4-byte aligned within the first 8192 bytes of the file
// (spec §3.1.1). The Go linker leaves the bytes between the section header
// table and the first note section zero, so the header goes into the first
// 4-byte-aligned, all-zero gap of HeaderSpace bytes there that no ELF
// structure, section or header table uses. Nothing in the ELF refers to
// those bytes, so the file stays a valid ELF (readelf, go tool nm and gdb
// still read it).
//
// # Invariants checked by Make
//
//   - ELF64, little-endian, EM_X86_64, ET_EXEC.
//   - PT_LOAD segments are in ascending, non-overlapping address order with
//     p_paddr == p_vaddr, the first one at file offset 0 and at or above
//     1 MiB (below lies the BIOS area and QEMU's real-mode data).
//   - Every PT_LOAD has p_offset == p_vaddr - base: the file is flat.
//   - Only the last PT_LOAD may have p_memsz > p_filesz with non-zero file
//     bytes behind it (the flat copy would otherwise load junk as .bss).
//   - The whole image (through bss_end_addr) lies below 4 GiB, because the
//     Multiboot address fields are 32 bits and the CPU is in 32-bit mode.
//   - e_entry lies inside an executable PT_LOAD.
//
// Every violated assumption is reported as an error naming the assumption
// and the offending values.
//
// # Contexts
//
// Host-only package: it runs in the build tools, never in the guest.
//
// # References
//
//   - Multiboot Specification version 0.6.96, §3.1 "OS image format",
//     §3.2 "Machine state".
//   - System V ABI, "ELF-64 Object File Format" 1.5, §"Program header".
//   - QEMU 7.2 hw/i386/multiboot.c (load_multiboot): the checks it applies
//     to the address fields, mirrored in Header.Validate.
//   - docs/contract.md, "Build of a guest image".
package boot
