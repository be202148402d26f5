// Command mkimage writes a Multiboot v1 header into a Go-linked ELF64
// executable so that `qemu-system-x86_64 -kernel OUT` loads it.
//
// Usage:
//
//	go run ./boot/mkimage [-v] IN.elf OUT
//
// IN must be linked as docs/contract.md describes (GOOS=linux GOARCH=amd64
// CGO_ENABLED=0, -ldflags='-T 0x101000 -R 0x1000 -E ...'). See package
// gmpos/boot for the checks applied. Exit status 1 on any error, 2 on bad
// usage.
package main
