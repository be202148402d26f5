// Package fakekernel is a test double for gmpos/kernel: five tiny 32-bit
// Multiboot entry points, hand-encoded in BYTE directives, that speak the
// runner's side of docs/contract.md (start marker on COM1, output on COM1
// and COM2, control records on COM3, isa-debug-exit) without any of the
// kernel. The runner's tests link it in place of the real kernel
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
// # Contexts
//
// Entered by QEMU's Multiboot loader in 32-bit protected mode, paging off,
// EBX = Multiboot information (Multiboot Specification 0.6.96 §3.2).
// The Go assembler only emits 64-bit code, hence the raw bytes.
package fakekernel
