// The no-write-barrier rule, checked by the compiler.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// bootWriteBarriers are the only functions of the kernel's image that may store a Go pointer
// (doc.go, Contexts): they run at boot, before the Go runtime exists, so the barrier's flag is
// off and the store is plain. In trap context the program's GC may be marking; a barrier then
// looks the destination up in the heap's tables, and a kernel stack or table is not in them:
// the kernel faults (runtime.bulkBarrierPreWrite, as sysfuzz found through a netlink request).
var bootWriteBarriers = map[string]string{
	"drivers/pci.Enumerate":  "fills the boot-time function list (Function holds the Config)",
	"sched.(*Sched).Init":    "stores the policy and platform interfaces once",
	"kernel.initMemory":      "installs mm's TLB-flush functions",
	"kernel.irqRegister":     "the IRQ table's handlers, installed by the drivers' start-up",
	"kernel.(*pciDev).claim": "records a claimed PCI function (pci.Func holds its Config)",
}

// TestNoWriteBarrierAfterBoot compiles the kernel with the compiler's write-barrier report
// (-d=wb, one line per barrier it emits, including the typedmemmove of a struct with pointers)
// and fails on each barrier outside bootWriteBarriers, naming the function. It covers every
// package of the kernel's image that runs in trap context: the kernel and all it imports from
// this module.
func TestNoWriteBarrierAfterBoot(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the kernel")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-gcflags=gmpos/...=-d=wb", "-o", os.DevNull, "./kernel")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	site := regexp.MustCompile(`^(\S+\.go):(\d+):\d+: write barrier$`)
	seen := map[string]bool{}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := site.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("write barrier with no source line to judge it by: %q", line)
			continue
		}
		f := files[m[1]]
		if f == nil {
			if f, err = parser.ParseFile(fset, filepath.Join(root, m[1]), nil, parser.SkipObjectResolution); err != nil {
				t.Fatal(err)
			}
			files[m[1]] = f
		}
		n, _ := strconv.Atoi(m[2])
		fn := enclosingFunc(fset, f, n)
		name := filepath.ToSlash(filepath.Dir(m[1])) + "." + fn
		if filepath.Dir(m[1]) == "sched" || filepath.Dir(m[1]) == "kernel" {
			name = filepath.Dir(m[1]) + "." + fn
		}
		seen[name] = true
		if _, ok := bootWriteBarriers[name]; !ok {
			t.Errorf("%s, in %s, which is not boot-only: a kernel table or stack "+
				"that holds a Go pointer (a string, slice, interface or pointer) faults when the "+
				"program's GC is marking; keep indices, arrays and uintptrs (doc.go, Contexts)", m[0], name)
		}
	}
	for name := range bootWriteBarriers {
		if !seen[name] {
			t.Errorf("%s no longer has a write barrier: drop it from bootWriteBarriers", name)
		}
	}
}

// enclosingFunc names the function declaration of f that holds line, as
// "Func" or "(*Recv).Method"; "?" at file scope.
func enclosingFunc(fset *token.FileSet, f *ast.File, line int) string {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fset.Position(fd.Pos()).Line > line || fset.Position(fd.End()).Line < line {
			continue
		}
		if fd.Recv == nil || len(fd.Recv.List) == 0 {
			return fd.Name.Name
		}
		recv := fd.Recv.List[0].Type
		if st, ok := recv.(*ast.StarExpr); ok {
			if id, ok := st.X.(*ast.Ident); ok {
				return "(*" + id.Name + ")." + fd.Name.Name
			}
		}
		if id, ok := recv.(*ast.Ident); ok {
			return id.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
	return "?"
}
