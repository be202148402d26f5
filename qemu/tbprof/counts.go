// The plugin's output: one line per translation block.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Block is one line of the plugin's output: a translation block's guest address, the guest
// instructions it executed in all, and how many times it ran.
type Block struct {
	Addr         uint64
	Insns, Execs uint64
}

// maxLine bounds a line: three 64-bit numbers and two spaces take at most 57 bytes.
const maxLine = 128

// ParseCounts reads the plugin's "hexaddr insns execs" lines. A malformed line is an error
// naming it: a truncated or foreign file must not silently skew a profile.
func ParseCounts(r io.Reader) ([]Block, error) {
	var bs []Block
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, maxLine), maxLine)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want \"hexaddr insns execs\", got %q", n, sc.Text())
		}
		var b Block
		var err error
		if b.Addr, err = strconv.ParseUint(f[0], 16, 64); err != nil {
			return nil, fmt.Errorf("line %d: address: %v", n, err)
		}
		if b.Insns, err = strconv.ParseUint(f[1], 10, 64); err != nil {
			return nil, fmt.Errorf("line %d: instructions: %v", n, err)
		}
		if b.Execs, err = strconv.ParseUint(f[2], 10, 64); err != nil {
			return nil, fmt.Errorf("line %d: executions: %v", n, err)
		}
		if b.Execs > b.Insns {
			return nil, fmt.Errorf("line %d: %d executions of a block but only %d instructions", n, b.Execs, b.Insns)
		}
		bs = append(bs, b)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading counts: %v", err)
	}
	return bs, nil
}
