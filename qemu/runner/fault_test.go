// Tests for the host-side description of kernel fault records.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDescribeFaultFromRecord(t *testing.T) {
	// 48 8b 00 = mov rax, [rax]; bytes come with the record.
	got := DescribeFault("vector=14 rip=0x1b306a code=488b00c3", nil)
	for _, want := range []string{"0x1b306a", "MOVQ 0(AX), AX", "mov rax, qword ptr [rax]", "48 8b 00]"} {
		if !strings.Contains(got, want) {
			t.Errorf("DescribeFault = %q, lacks %q", got, want)
		}
	}
	if got := DescribeFault("no fields here", nil); got != "" {
		t.Errorf("record without rip: %q", got)
	}
	if got := DescribeFault("rip=0x1000 code=", nil); !strings.Contains(got, "not available") {
		t.Errorf("no bytes anywhere: %q", got)
	}
}

// TestDescribeFaultFromImage takes the bytes and the symbol from an ELF
// built here (test binaries themselves have no symbol table).
func TestDescribeFaultFromImage(t *testing.T) {
	exe, addr := buildHello(t)
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	got := DescribeFault(fmt.Sprintf("vector=13 rip=%#x code=", addr+4), data)
	if !strings.Contains(got, "(main.main+0x4)") || strings.Contains(got, "cannot decode") || !strings.Contains(got, "[") {
		t.Errorf("DescribeFault = %q", got)
	}
	if strings.Contains(got, "called from") {
		t.Errorf("no callers= field, yet a call chain: %q", got)
	}
	// A return PC names the function and the line of the call before it; a malformed entry is
	// skipped, not fatal.
	got = DescribeFault(fmt.Sprintf("vector=13 rip=%#x code= callers=%#x,zz,%#x", addr+4, addr+8, addr+4), data)
	if n := strings.Count(got, " main.main+0x"); n != 2 || !strings.Contains(got, "called from:\n  ") {
		t.Errorf("callers: %d symbolized, in %q", n, got)
	}
	t.Log(got)
}
