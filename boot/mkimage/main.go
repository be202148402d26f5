// Command mkimage makes a Go-linked ELF64 kernel bootable with QEMU -kernel.
// SPDX-License-Identifier: BSD-3-Clause

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

import (
	"flag"
	"fmt"
	"os"

	"gmpos/boot"
)

func main() {
	verbose := flag.Bool("v", false, "print the header written")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: mkimage [-v] IN.elf OUT\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	in, out := flag.Arg(0), flag.Arg(1)
	if err := boot.MakeFile(in, out); err != nil {
		fmt.Fprintf(os.Stderr, "mkimage: %v\n", err)
		os.Exit(1)
	}
	if *verbose {
		data, err := os.ReadFile(out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mkimage: %v\n", err)
			os.Exit(1)
		}
		h, off := boot.Find(data)
		fmt.Printf("%s: multiboot header at file offset %#x: %v\n", out, off, h)
	}
}
