// Attributing blocks to functions and packages.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"debug/elf"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Symbols maps addresses to the function containing them.
type Symbols struct {
	addr []uint64 // sorted start addresses
	name []string
}

// ReadSymbols reads the function symbols of the ELF file at path.
func ReadSymbols(path string) (*Symbols, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ss, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	type sym struct {
		a uint64
		n string
	}
	var l []sym
	for _, s := range ss {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			l = append(l, sym{s.Value, s.Name})
		}
	}
	sort.Slice(l, func(i, j int) bool { return l[i].a < l[j].a })
	st := &Symbols{}
	for _, s := range l {
		st.addr = append(st.addr, s.a)
		st.name = append(st.name, s.n)
	}
	return st, nil
}

// Lookup names the function containing a ("?" below the first one).
func (s *Symbols) Lookup(a uint64) string {
	i := sort.Search(len(s.addr), func(i int) bool { return s.addr[i] > a }) - 1
	if i < 0 {
		return "?"
	}
	return s.name[i]
}

// execBase is where a child's copy of the program lives (kernel/mm ExecBase).
const execBase = 0x2000_0000_0000

// Tally adds blocks into per-function instruction and execution counts, with sign +1 or -1 (a
// baseline run is subtracted).
type Tally struct {
	Insns, Execs map[string]int64
}

func NewTally() *Tally {
	return &Tally{Insns: map[string]int64{}, Execs: map[string]int64{}}
}

func (t *Tally) Add(st *Symbols, bs []Block, sign int64) {
	for _, b := range bs {
		name := st.Lookup(b.Addr)
		if b.Addr >= execBase {
			name = "[child] " + name
		}
		t.Insns[name] += sign * int64(b.Insns)
		t.Execs[name] += sign * int64(b.Execs)
	}
}

// Package is the package part of a Go symbol name: "gmpos/kernel.trapBKL" → "gmpos/kernel",
// "runtime.(*m).x" → "runtime", "[child] runtime.x" → "[child] runtime".
func Package(name string) string {
	prefix := ""
	if rest, ok := strings.CutPrefix(name, "[child] "); ok {
		prefix, name = "[child] ", rest
	}
	slash := strings.LastIndex(name, "/")
	if dot := strings.Index(name[slash+1:], "."); dot >= 0 {
		return prefix + name[:slash+1+dot]
	}
	return prefix + name
}

// Report prints the per-package and the top per-function counts, divided by n operations.
func (t *Tally) Report(w io.Writer, n int64, top int) {
	var total int64
	pkg := map[string]int64{}
	for k, v := range t.Insns {
		total += v
		pkg[Package(k)] += v
	}
	if n < 1 {
		n = 1
	}
	fmt.Fprintf(w, "%d instructions, %d per operation\n\n", total, total/n)
	printTop(w, "package", pkg, nil, total, n, 12)
	fmt.Fprintln(w)
	printTop(w, "function", t.Insns, t.Execs, total, n, top)
}

func printTop(w io.Writer, what string, m, execs map[string]int64, total, n int64, top int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	fmt.Fprintf(w, "%7s %10s %10s  %s\n", "share", "insns/op", "blocks/op", what)
	for i, k := range keys {
		if i == top {
			break
		}
		share := 0.0
		if total != 0 {
			share = 100 * float64(m[k]) / float64(total)
		}
		blocks := ""
		if execs != nil {
			blocks = fmt.Sprint(execs[k] / n)
		}
		fmt.Fprintf(w, "%6.2f%% %10d %10s  %s\n", share, m[k]/n, blocks, k)
	}
}
