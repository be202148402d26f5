// Package fakekernel is a test double for gmpos/kernel: five tiny 32-bit
// Multiboot entry points, hand-encoded in BYTE directives, that speak the
// runner's side of docs/contract.md (start marker on COM1, output on COM1
// and COM2, control records on COM3, isa-debug-exit) without any of the
// kernel; and, for GOARCH=arm64, three entry points for QEMU's virt machine
// that speak its "arm64 virt" side (start marker and records on the one
// PL011 UART, semihosting SYS_EXIT). The runner's tests link it in place of the real kernel
// (Config.KernelImport/EntrySymbol) so that build, image, QEMU, serial
// plumbing, command line and exit-code mapping are tested for real while
// the kernel is being written.
//
// It is never linked into a real guest. Entry points (see entry_amd64.s):
//
//   - Entry32: marker, echo the Multiboot command line on COM1, a line on
//     COM2, records "entry", "log fake kernel log", "exit 200"; then
//     isa-debug-exit with 200&0x7f.
//   - Hang32: marker, "hanging" on COM1, then halts forever (for -timeout).
//   - Panic32: marker, a report on COM2, record "panic fake fault", exit
//     value 101.
//   - Reset32: marker, then ud2 with no IDT: triple fault, QEMU (with
//     -no-reboot) exits 0 without an exit record.
//   - Modules32: marker, each Multiboot module's string (the file QEMU
//     loaded it from) on a line of COM1, record "exit 0".
//
// arm64 (entry_arm64.s; the runner builds them through the real arm64 path:
// link flags, boot.MakeArm64, the modules container, qemu-system-aarch64):
//
//   - EntryA64: "fw\r\n" before the marker (dropped, like firmware output),
//     then records: control "entry", stdout "hello\n", stderr "fake
//     stderr\n", control "log fake kernel log", control "exit 7"; then
//     SYS_EXIT with 7.
//   - ModulesA64: reads the modules container where QEMU loads -initrd
//     (0x4800_0000 with 1 GiB) and prints the first 8 bytes of module 0 and
//     of module 1 on stdout; "exit 0".
//   - EchoA64: an "input" record, then each byte received on the UART back
//     as a one-byte stdout record, until the stdin stream's end of file
//     (0xFF 0x00); "exit 0". Shows exactly what the runner sends.
//
// # Contexts
//
// Entered by QEMU's Multiboot loader in 32-bit protected mode, paging off,
// EBX = Multiboot information (Multiboot Specification 0.6.96 §3.2).
// The Go assembler only emits 64-bit code, hence the raw bytes.
//
// The arm64 entries are entered through the Image header's branch at EL1
// with the MMU off (Linux Documentation/arch/arm64/booting.rst §4): every
// data access is to Device memory, so they make only aligned 32-bit loads
// and stores, and they have no stack (leaf helpers, BL/RET).
package fakekernel
