// Hosted checks of the arm64 build of this package: it compiles, keeps the contract and the layout.
// SPDX-License-Identifier: BSD-3-Clause

package mm

import (
	"go/ast"
	"go/build"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// arm64Package type-checks the files `GOOS=linux GOARCH=arm64 go build`
// compiles (the hosted stand-in for `GOARCH=arm64 go vet`).
func arm64Package(t *testing.T) (*build.Package, []*ast.File, *types.Package) {
	t.Helper()
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", "arm64", false
	bp, err := ctx.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil), Sizes: types.SizesFor("gc", "arm64")}
	pkg, err := conf.Check("gmpos/kernel/mm", fset, files, nil)
	if err != nil {
		t.Fatalf("linux/arm64 build: %v", err)
	}
	return bp, files, pkg
}

// TestArm64Build: the arm64 files provide the whole porting contract, the
// layout is the x86-64 one (this host's constants) and fits the shared
// TTBR0/TTBR1 root, and MAIR_EL1 is what pte_vmsa.go encodes against.
func TestArm64Build(t *testing.T) {
	bp, files, pkg := arm64Package(t)
	declaredBy := map[string]string{}
	for i, f := range files {
		if strings.HasSuffix(bp.GoFiles[i], "_arm64.go") {
			for _, n := range declared(f) {
				declaredBy[n] = bp.GoFiles[i]
			}
		}
	}
	for _, n := range portingContract {
		if declaredBy[n] == "" {
			t.Errorf("contract item %s is not declared by the arm64 files", n)
		}
	}
	value := func(name string) uint64 {
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if !ok {
			t.Fatalf("arm64: %s is not a constant", name)
		}
		v, exact := constant.Uint64Val(c.Val())
		if !exact {
			t.Fatalf("arm64: %s = %v", name, c.Val())
		}
		return v
	}
	for _, c := range []struct {
		name string
		want uint64
	}{
		{"UserEnd", uint64(UserEnd)},
		{"MmapBase", uint64(MmapBase)},
		{"ExecBase", 0x2000_0000_0000}, // named only by the architecture files and the kernel
		{"ExecEnd", 0x3000_0000_0000},
		{"DirectMapBase", uint64(DirectMapBase)},
		{"KernelStackBase", uint64(KernelStackBase)},
		{"lowDirectMap", 0},
		{"physLimit", 1 << 48},
		{"mapLow32", 0},
		{"mapArchLegacy", 0},
		{"protArch", 0},
		{"MAIRValue", vmsaMAIR},
		{"MAIRIndexNormal", 0},
		{"MAIRIndexDevice", 1},
		{"MAIRIndexNormalNC", 2},
	} {
		if got := value(c.name); got != c.want {
			t.Errorf("arm64 %s = %#x, want %#x", c.name, got, c.want)
		}
	}
	// User space below 2^47 (L0 slots 0..255), the kernel half from slot
	// 256: one root serves TTBR0_EL1 and TTBR1_EL1.
	if value("UserEnd") > 1<<47-PageSize {
		t.Error("arm64 user space reaches the kernel slots")
	}
	if index(uintptr(value("DirectMapBase")), levelTop) != 256 || index(uintptr(value("KernelStackBase")), levelTop) != 384 {
		t.Error("arm64 kernel half is not in L0 slots 256 and 384")
	}
}

// TestArm64KernelData: zkdata_arm64.go (kernel/mkkdata.go arm64) lists
// exactly the package-level variables of the arm64 build, so that no
// system call can read or write one of them there either.
func TestArm64KernelData(t *testing.T) {
	bp, files, _ := arm64Package(t)
	var vars, listed []string
	for i, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, s := range d.Specs {
					for _, id := range s.(*ast.ValueSpec).Names {
						if id.Name != "_" {
							vars = append(vars, id.Name)
						}
					}
				}
			case *ast.FuncDecl:
				if filepath.Base(bp.GoFiles[i]) != "zkdata_arm64.go" || d.Name.Name != "KernelData" {
					continue
				}
				ast.Inspect(d.Body, func(n ast.Node) bool {
					if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
						listed = append(listed, u.X.(*ast.Ident).Name)
					}
					return true
				})
			}
		}
	}
	sort.Strings(vars)
	if strings.Join(vars, " ") != strings.Join(listed, " ") {
		t.Errorf("zkdata_arm64.go is stale: run go generate ./kernel (mkkdata.go arm64)\nvariables: %v\nlisted:    %v", vars, listed)
	}
}
