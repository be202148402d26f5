// Package boot turns a Go-linked ELF64 kernel image into something QEMU's
// -kernel option loads: for amd64 the same file with a Multiboot v1 header
// written into unused bytes of its first 8 KiB (Make); for arm64 a Linux
// arm64 Image, a header page followed by the program (MakeArm64).
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
// # arm64: the Linux arm64 Image
//
// QEMU's `virt` machine (hw/arm/boot.c) and the Raspberry Pi firmware
// (kernel8.img) both load the Linux arm64 Image format (Linux
// Documentation/arch/arm64/booting.rst, §4 "Call the kernel image"): the
// file is copied to a 2 MiB-aligned base in RAM plus the header's
// text_offset and entered at its first byte, MMU and D-cache off, x0 = the
// device tree's physical address. The first 64 bytes are the header:
//
//	offset  field        value written
//	0       code0  u32   B e_entry (imm26 = (e_entry - 0x40200000) / 4)
//	4       code1  u32   0
//	8       text_offset  0x200000
//	16      image_size   bytes through the end of .bss, rounded up to 4 KiB
//	24      flags        0x2: little endian, 4 KiB pages, base near DRAM's start
//	32..55  res2..res4   0
//	56      magic  u32   0x644d5241, "ARM\x64"
//	60      res5   u32   0
//
// On `virt` RAM starts at 0x4000_0000, so the image's first byte is at
// Arm64LoadAddr 0x4020_0000. MakeArm64 lays it out as one 4 KiB page holding
// the header, then the ELF file flat from its offset 0 — which is why the
// program is linked with
//
//	-ldflags='-T 0x40202000 -R 0x1000 -E gmpos/kernel/arch/arm64.entry'
//
// (first PT_LOAD, the ELF and program headers, at 0x4020_1000 = file offset
// 0x1000 of the image; .text at 0x4020_2000) — then zeros through the end
// of .bss. The image carries the .bss because a loader copies the file and
// no more, and the kernel does not clear its own .bss. MakeArm64 applies
// Analyze's checks with EM_AARCH64, requires the first PT_LOAD at exactly
// 0x4020_1000, and requires e_entry to be 4-byte aligned and within the B
// instruction's ±128 MiB of 0x4020_0000 (the image itself stays below
// 128 MiB).
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
//   - Linux Documentation/arch/arm64/booting.rst, §4 "Call the kernel
//     image": the Image header; QEMU 7.2 hw/arm/boot.c (load_aarch64_image,
//     arm_setup_direct_kernel_boot): text_offset honoured when image_size is
//     not 0, the initrd at RAM + 128 MiB or after the image.
//   - Arm Architecture Reference Manual (DDI 0487), C6.2 "B": imm26.
//   - docs/contract.md, "Build of a guest image" and "arm64 virt".
package boot
