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
	arch := flag.String("arch", "amd64", "the ELF's GOARCH: amd64 (a Multiboot header in the ELF) or arm64 (a Linux arm64 Image)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: mkimage [-v] [-arch amd64|arm64] IN.elf OUT\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 || (*arch != "amd64" && *arch != "arm64") {
		flag.Usage()
		os.Exit(2)
	}
	in, out := flag.Arg(0), flag.Arg(1)
	mk := boot.MakeFile
	if *arch == "arm64" {
		mk = boot.MakeArm64File
	}
	if err := mk(in, out); err != nil {
		fmt.Fprintf(os.Stderr, "mkimage: %v\n", err)
		os.Exit(1)
	}
	if *verbose {
		data, err := os.ReadFile(out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mkimage: %v\n", err)
			os.Exit(1)
		}
		if *arch == "arm64" {
			h, err := boot.DecodeArm64Header(data)
			if err != nil {
				fmt.Fprintf(os.Stderr, "mkimage: %v\n", err)
				os.Exit(1)
			}
			fmt.Printf("%s: arm64 Image header, loaded at %#x: %v\n", out, boot.Arm64LoadAddr, h)
			return
		}
		h, off := boot.Find(data)
		fmt.Printf("%s: multiboot header at file offset %#x: %v\n", out, off, h)
	}
}
