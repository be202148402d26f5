// The command line.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	n := flag.Int64("n", 1, "divide by this many operations (those the run made beyond the -base run)")
	base := flag.String("base", "", "counts of a shorter run of the same program, subtracted (boot and start-up)")
	top := flag.Int("top", 40, "functions to list")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./qemu/tbprof [-n N] [-base COUNTS] [-top K] IMAGE.elf COUNTS")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	st, err := ReadSymbols(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbprof:", err)
		os.Exit(1)
	}
	t := NewTally()
	for _, in := range []struct {
		path string
		sign int64
	}{{flag.Arg(1), 1}, {*base, -1}} {
		if in.path == "" {
			continue
		}
		f, err := os.Open(in.path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tbprof:", err)
			os.Exit(1)
		}
		bs, err := ParseCounts(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "tbprof: %s: %v\n", in.path, err)
			os.Exit(1)
		}
		t.Add(st, bs, in.sign)
	}
	t.Report(os.Stdout, *n, *top)
}
