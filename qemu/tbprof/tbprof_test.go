// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestParseCounts(t *testing.T) {
	bs, err := ParseCounts(strings.NewReader("401000 30 10\nffffffff81000000 5 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0] != (Block{0x401000, 30, 10}) || bs[1].Addr != 0xffffffff81000000 {
		t.Fatalf("got %+v", bs)
	}
	for _, bad := range []string{
		"401000 30\n",                     // a field missing
		"401000 30 10 7\n",                // one too many
		"zz 30 10\n",                      // not hex
		"401000 -3 1\n",                   // negative
		"401000 3 10\n",                   // more executions than instructions
		"401000 30 10\nrubbish\n",         // a bad line after a good one
		strings.Repeat("1", 200),          // longer than any line the plugin writes
		"401000 99999999999999999999 1\n", // overflows 64 bits
	} {
		if _, err := ParseCounts(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseCounts(f *testing.F) {
	f.Add([]byte("401000 30 10\n"))
	f.Add([]byte("0 0 0\n1 1 1"))
	f.Add([]byte(" \n\t401000\t30 10 \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		bs, err := ParseCounts(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, b := range bs {
			if b.Execs > b.Insns {
				t.Fatalf("accepted %+v", b)
			}
		}
	})
}

func TestPackage(t *testing.T) {
	for name, want := range map[string]string{
		"gmpos/kernel.trapBKL":                  "gmpos/kernel",
		"gmpos/kernel/arch/amd64.resume.abi0":   "gmpos/kernel/arch/amd64",
		"runtime.(*m).clearAllpSnapshot":        "runtime",
		"gvisor.dev/gvisor/pkg/tcpip/stack.New": "gvisor.dev/gvisor/pkg/tcpip/stack",
		"[child] runtime.mallocgc":              "[child] runtime",
		"gogo":                                  "gogo",
	} {
		if got := Package(name); got != want {
			t.Errorf("Package(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestReport symbolizes against this test binary's own ELF: a block at TestReport's address is
// attributed to it, a baseline subtracts, and the per-operation figures divide.
func TestReport(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	st, err := ReadSymbols(exe)
	if err != nil {
		t.Skipf("no symbols: %v", err)
	}
	var a uint64
	for i, n := range st.name {
		if strings.HasSuffix(n, ".TestReport") {
			a = st.addr[i]
		}
	}
	if a == 0 {
		t.Skip("TestReport not in the symbol table")
	}
	tl := NewTally()
	tl.Add(st, []Block{{a, 1000, 100}, {a + 1, 500, 50}}, 1)
	tl.Add(st, []Block{{a, 100, 10}}, -1)
	var out bytes.Buffer
	tl.Report(&out, 10, 5)
	if !strings.Contains(out.String(), "1400 instructions, 140 per operation") || !strings.Contains(out.String(), "TestReport") {
		t.Errorf("report:\n%s", out.String())
	}
}
