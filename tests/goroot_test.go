// QEMU tests: unmodified programs from the Go distribution's test/ directory.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gorootTests are `// run` programs from $(go env GOROOT)/test. Those
// with a .out file must reproduce it exactly (Go's run.go compares the
// combined stdout+stderr); the others must exit 0 without printing
// "panic" or "FAIL", which is how they report failure.
var gorootTests = []string{
	"chan/sieve1.go", "chan/powser1.go", "chan/select3.go", "chan/select.go",
	"chan/fifo.go", "chan/nonblock.go", "chan/goroutines.go", "chan/doubleselect.go",
	"chan/sendstmt.go", "chan/zerosize.go",
	"helloworld.go", "deferprint.go", "goprint.go", "printbig.go", "ken/cplx0.go", "ken/string.go",
	// Programs that lean on the kernel: the GC and finalizers (mmap/madvise, futexes, threads),
	// stack growth, faults turned into panics, and big allocations.
	"gc.go", "gc1.go", "gcgort.go", "mallocfin.go", "finprofiled.go", "tinyfin.go", "deferfin.go",
	"heapsampling.go", "stack.go", "stackobj.go", "stackobj3.go", "recover.go", "recover1.go",
	"recover2.go", "recover3.go", "nilptr2.go", "zerodivide.go", "divmod.go", "bigmap.go",
	"mapclear.go", "peano.go", "closedchan.go", "atomicload.go", "turing.go",
}

func TestGuestGoroot(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(goroot)), "test")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("Go distribution tests not found: %v", err)
	}
	for _, name := range gorootTests {
		t.Run(strings.TrimSuffix(name, ".go"), func(t *testing.T) {
			src := filepath.Join(dir, name)
			head, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(head), "// run\n") {
				t.Fatalf("%s is not a plain `// run` test", name)
			}
			g := boot(t, []string{src}, opts{})
			g.wantCode(t, 0)
			out := g.stdout + g.stderr
			if want, err := os.ReadFile(strings.TrimSuffix(src, ".go") + ".out"); err == nil {
				if out != string(want) {
					g.dump(t)
					t.Fatalf("output differs from %s.out:\n got %q\nwant %q", strings.TrimSuffix(name, ".go"), out, want)
				}
				return
			}
			if strings.Contains(out, "panic") || strings.Contains(out, "FAIL") {
				g.dump(t)
				t.Fatal("the program reported a failure")
			}
		})
	}
}
