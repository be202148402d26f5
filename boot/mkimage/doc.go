// Command mkimage makes a Go-linked ELF64 executable bootable by QEMU's
// -kernel: for amd64 it writes a Multiboot v1 header into the ELF, for arm64
// it writes a Linux arm64 Image (header page, the program, its .bss).
//
// Usage:
//
//	go run ./boot/mkimage [-v] [-arch amd64|arm64] IN.elf OUT
//
// IN must be linked as docs/contract.md describes (GOOS=linux CGO_ENABLED=0;
// amd64: -ldflags='-T 0x101000 -R 0x1000 -E ...'; arm64: -ldflags='-T
// 0x40202000 -R 0x1000 -E ...'). See package gmpos/boot for the checks
// applied. Exit status 1 on any error, 2 on bad usage.
package main
