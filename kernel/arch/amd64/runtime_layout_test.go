// Hosted test: the runtime.g/runtime.m layout cpu.go mimics still matches the installed Go.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// TestRuntimeLayout type-checks the Go runtime this kernel is built with, from
// $(go env GOROOT)/src, for linux/amd64, and compares the layout of runtime.g and
// runtime.m with what cpu.go assumes. Those numbers come from one toolchain's generated
// go_asm.h (docs/runtime-contract.md §2.3) and nothing else checks them: the compiler
// cannot see that kernelG stands for a runtime.g, so a new Go release that moves g.m or
// grows runtime.m would only show up as a corrupt kernel g at boot.
//
// What depends on each figure:
//   - g.stack.lo/hi, g.stackguard0/1: every Go function prologue in kernel code compares
//     SP with 16(R14), the stackguard0 of the g that the ABI0→Go wrappers load from FS:-8 —
//     in a trap, the kernel g;
//   - g.m and m.g0: the runtime's morestack and fatal-error paths follow g.m to m.g0;
//   - sizeof(g), sizeof(m): runtime code that reads any other field of the kernel g or m
//     must stay inside the mimic (runtimeGSize, runtimeMSize);
//   - m.tls: where the runtime's own FS base points (&m.tls[0]+8, set by settls and
//     CLONE_SETTLS). No kernel code reads it — the kernel g is found through CPU.ktls —
//     but docs/runtime-contract.md §2.1 and §2.3 quote it, so a change is reported too.
//
// Type-checking with function bodies ignored takes about 0.15 s; the test skips only when
// the GOROOT sources are missing.
func TestRuntimeLayout(t *testing.T) {
	goroot := runtimeGOROOT(t)
	lay, err := loadRuntimeLayout(goroot)
	if err != nil {
		t.Fatalf("type-checking the runtime in %s: %v", goroot, err)
	}
	t.Logf("%s (%s): sizeof(g)=%d sizeof(m)=%d g.stack=%d g.stackguard0=%d g.stackguard1=%d g.m=%d m.g0=%d m.tls=%d",
		runtime.Version(), goroot, lay.gSize.value, lay.mSize.value, lay.gStack.value, lay.gStackguard0.value,
		lay.gStackguard1.value, lay.gM.value, lay.mG0.value, lay.mTLS.value)

	// mTLSOffset is not a constant of this package: the kernel never uses m.tls (see above).
	const mTLSOffset = 128

	checks := []struct {
		what    string // the runtime's figure
		runtime figure
		kernel  string // the kernel's assumption
		value   uintptr
		update  string // what to change if they differ
	}{
		{"sizeof(runtime.g)", lay.gSize, "runtimeGSize", runtimeGSize, "runtimeGSize in cpu.go"},
		{"sizeof(runtime.m)", lay.mSize, "runtimeMSize", runtimeMSize, "runtimeMSize in cpu.go"},
		{"offsetof(g.stack.lo)", lay.gStack, "offsetof(kernelG.stackLo)", unsafe.Offsetof(kernelG{}.stackLo), "kernelG's fields in cpu.go"},
		{"offsetof(g.stack.hi)", lay.gStackHi, "offsetof(kernelG.stackHi)", unsafe.Offsetof(kernelG{}.stackHi), "kernelG's fields in cpu.go"},
		{"offsetof(g.stackguard0)", lay.gStackguard0, "offsetof(kernelG.stackguard0)", unsafe.Offsetof(kernelG{}.stackguard0), "kernelG's fields in cpu.go"},
		{"offsetof(g.stackguard1)", lay.gStackguard1, "offsetof(kernelG.stackguard1)", unsafe.Offsetof(kernelG{}.stackguard1), "kernelG's fields in cpu.go"},
		{"offsetof(g.m)", lay.gM, "offsetof(kernelG.m)", unsafe.Offsetof(kernelG{}.m), "the padding before kernelG.m in cpu.go"},
		{"offsetof(m.g0)", lay.mG0, "offsetof(kernelM.g0)", unsafe.Offsetof(kernelM{}.g0), "kernelM's fields in cpu.go"},
		{"offsetof(m.tls)", lay.mTLS, "mTLSOffset", mTLSOffset, "mTLSOffset in this test"},
		// The mimics must be exactly as big as what they stand for, whatever the constants say.
		{"sizeof(runtime.g)", lay.gSize, "sizeof(kernelG)", unsafe.Sizeof(kernelG{}), "the padding at the end of kernelG in cpu.go"},
		{"sizeof(runtime.m)", lay.mSize, "sizeof(kernelM)", unsafe.Sizeof(kernelM{}), "the padding at the end of kernelM in cpu.go"},
	}
	for _, c := range checks {
		if int64(c.value) != c.runtime.value {
			t.Errorf("%s is %d in %s (%s), but %s is %d: update %s and the figures in docs/runtime-contract.md §2.3",
				c.what, c.runtime.value, runtime.Version(), c.runtime.where, c.kernel, c.value, c.update)
		}
	}
}

// figure is one size or offset and the declaration it was computed from.
type figure struct {
	value int64
	where string // file:line under GOROOT
}

type runtimeLayout struct {
	gSize, gStack, gStackHi, gStackguard0, gStackguard1, gM figure
	mSize, mG0, mTLS                                        figure
}

// runtimeGOROOT returns the GOROOT whose sources match the toolchain that built this test,
// or skips the test when there are no sources.
func runtimeGOROOT(t *testing.T) string {
	goroot := build.Default.GOROOT
	if _, err := os.Stat(filepath.Join(goroot, "src", "runtime", "runtime2.go")); err != nil {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			t.Skipf("no Go runtime sources: %s/src/runtime is missing and `go env GOROOT` failed (%v)", goroot, err)
		}
		goroot = strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(filepath.Join(goroot, "src", "runtime", "runtime2.go")); err != nil {
		t.Skipf("no Go runtime sources under GOROOT %s: cannot check the runtime.g/m layout", goroot)
	}
	// The sources must be those of the toolchain that compiles the kernel, or the figures
	// describe some other runtime.
	if v, err := os.ReadFile(filepath.Join(goroot, "VERSION")); err == nil {
		first, _, _ := strings.Cut(string(v), "\n")
		if first != runtime.Version() {
			t.Fatalf("GOROOT %s holds %s sources but this test was built by %s", goroot, first, runtime.Version())
		}
	}
	return goroot
}

// loadRuntimeLayout type-checks GOROOT's runtime package as the linux/amd64 gc toolchain
// sees it and measures g and m.
func loadRuntimeLayout(goroot string) (*runtimeLayout, error) {
	ctxt := build.Default
	ctxt.GOROOT = goroot
	ctxt.GOOS, ctxt.GOARCH = "linux", "amd64" // the kernel's only target: the file set and
	ctxt.CgoEnabled = false                   // the sizes are those of GOOS=linux GOARCH=amd64
	ctxt.Compiler = "gc"
	im := &srcImporter{
		ctxt:  ctxt,
		fset:  token.NewFileSet(),
		sizes: types.SizesFor("gc", "amd64"),
		pkgs:  map[string]*types.Package{},
	}
	pkg, err := im.ImportFrom("runtime", "", 0)
	if err != nil {
		return nil, err
	}
	lay := &runtimeLayout{}
	g, gObj, err := im.structType(pkg, "g")
	if err != nil {
		return nil, err
	}
	m, mObj, err := im.structType(pkg, "m")
	if err != nil {
		return nil, err
	}
	lay.gSize = figure{im.sizes.Sizeof(g), im.pos(gObj)}
	lay.mSize = figure{im.sizes.Sizeof(m), im.pos(mObj)}
	if lay.gStack, err = im.offset(g, "stack", "lo"); err != nil {
		return nil, err
	}
	if lay.gStackHi, err = im.offset(g, "stack", "hi"); err != nil {
		return nil, err
	}
	if lay.gStackguard0, err = im.offset(g, "stackguard0"); err != nil {
		return nil, err
	}
	if lay.gStackguard1, err = im.offset(g, "stackguard1"); err != nil {
		return nil, err
	}
	if lay.gM, err = im.offset(g, "m"); err != nil {
		return nil, err
	}
	if lay.mG0, err = im.offset(m, "g0"); err != nil {
		return nil, err
	}
	if lay.mTLS, err = im.offset(m, "tls"); err != nil {
		return nil, err
	}
	return lay, nil
}

// srcImporter type-checks packages from GOROOT sources under one build.Context, with
// function bodies ignored: declarations are all that sizes and offsets need. (go/importer's
// "source" importer would do the same, but always with build.Default, the host's context.)
type srcImporter struct {
	ctxt  build.Context
	fset  *token.FileSet
	sizes types.Sizes
	pkgs  map[string]*types.Package // nil value: being checked (import cycle guard)
}

func (im *srcImporter) Import(path string) (*types.Package, error) {
	return im.ImportFrom(path, "", 0)
}

func (im *srcImporter) ImportFrom(path, dir string, _ types.ImportMode) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if p, ok := im.pkgs[path]; ok {
		if p == nil {
			return nil, fmt.Errorf("import cycle through %s", path)
		}
		return p, nil
	}
	im.pkgs[path] = nil
	bp, err := im.ctxt.Import(path, dir, 0)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(im.fset, filepath.Join(bp.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	// Any type error fails the test: a runtime that go/types reads differently from the
	// compiler could give wrong offsets. (go1.26.8's runtime and its 28 dependencies
	// check cleanly.)
	conf := types.Config{Importer: im, Sizes: im.sizes, IgnoreFuncBodies: true}
	pkg, err := conf.Check(bp.ImportPath, im.fset, files, nil)
	if err != nil {
		return nil, err
	}
	im.pkgs[path] = pkg
	return pkg, nil
}

// structType looks up the struct type name in pkg.
func (im *srcImporter) structType(pkg *types.Package, name string) (*types.Struct, types.Object, error) {
	obj := pkg.Scope().Lookup(name)
	if obj == nil {
		return nil, nil, fmt.Errorf("runtime.%s not found", name)
	}
	st, ok := obj.Type().Underlying().(*types.Struct)
	if !ok {
		return nil, nil, fmt.Errorf("runtime.%s is not a struct", name)
	}
	return st, obj, nil
}

// offset returns the offset of the field path (e.g. "stack", "lo") from the start of st,
// with the position of the last field's declaration.
func (im *srcImporter) offset(st *types.Struct, path ...string) (figure, error) {
	var off int64
	var where string
	for i, name := range path {
		idx := -1
		fields := make([]*types.Var, st.NumFields())
		for j := range fields {
			fields[j] = st.Field(j)
			if fields[j].Name() == name {
				idx = j
			}
		}
		if idx < 0 {
			return figure{}, fmt.Errorf("field %s not found", strings.Join(path[:i+1], "."))
		}
		off += im.sizes.Offsetsof(fields)[idx]
		where = im.pos(fields[idx])
		if i < len(path)-1 {
			next, ok := fields[idx].Type().Underlying().(*types.Struct)
			if !ok {
				return figure{}, fmt.Errorf("field %s is not a struct", strings.Join(path[:i+1], "."))
			}
			st = next
		}
	}
	return figure{off, where}, nil
}

// pos names obj's declaration relative to GOROOT, e.g. src/runtime/runtime2.go:396.
func (im *srcImporter) pos(obj types.Object) string {
	p := im.fset.Position(obj.Pos())
	if rel, err := filepath.Rel(im.ctxt.GOROOT, p.Filename); err == nil {
		p.Filename = rel
	}
	return fmt.Sprintf("%s:%d", p.Filename, p.Line)
}
