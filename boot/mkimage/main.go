// Command mkimage makes a Go-linked ELF64 kernel bootable with QEMU -kernel.
// SPDX-License-Identifier: BSD-3-Clause

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
