package mm

import (
	"go/ast"
	"go/build/constraint"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The portability contract (doc.go, "Porting"): the identifiers an
// architecture's *_GOARCH.go files must declare, and the only ones of theirs
// that portable files may name.
var portingContract = []string{
	// pte_GOARCH.go: the entry format.
	"Present", "Huge", "Addr", "attr", "pteTable", "pteTableKernel", "pteLeaf", "pteBlock", "physLimit",
	// layout_GOARCH.go: the address-space layout.
	"canonical", "UserEnd", "MmapBase", "DirectMapBase", "KernelStackBase", "lowDirectMap",
	// mman_GOARCH.go: the architecture's additions to the mmap ABI.
	"mapLow32", "map32Base", "map32End", "mapArchLegacy", "protArch", "hugetlbShift",
}

// archStub implements the contract for an imaginary architecture. It is
// what an arm64 port starts from; TestPortableFilesTypeCheck compiles the
// portable files against it, which is the hosted stand-in for
// "GOARCH=arm64 go vet" until pte_arm64.go exists.
const archStub = `package mm

func (e PTE) Present() bool           { return e&1 != 0 }
func (e PTE) Huge() bool              { return e&3 == 1 }
func (e PTE) Addr() uintptr           { return uintptr(e) & 0x0000_ffff_ffff_f000 }
func (e PTE) attr() Attr              { return Attr(e >> 52) }
func pteTable(pa uintptr) PTE         { return PTE(pa) | 3 }
func pteTableKernel(pa uintptr) PTE   { return PTE(pa) | 1 }
func pteLeaf(pa uintptr, a Attr) PTE  { return PTE(pa) | PTE(a)<<52 | 3 }
func pteBlock(pa uintptr, a Attr) PTE { return PTE(pa) | PTE(a)<<52 | 1 }

const physLimit uintptr = 1 << 48

func canonical(va uintptr) bool { return va>>48 == 0 || va>>48 == 0xffff }

const (
	UserEnd         uintptr = 1 << 47 // the shared root: see doc.go
	MmapBase        uintptr = 0x7f00_0000_0000
	DirectMapBase   uintptr = 0xffff_8000_0000_0000
	KernelStackBase uintptr = 0xffff_c000_0000_0000
	lowDirectMap            = 0
)

const (
	mapLow32      = 0 // no MAP_32BIT
	map32Base     = 0
	map32End      = 0
	mapArchLegacy = 0
	protArch      = 0x10 | 0x20 // PROT_BTI | PROT_MTE
)

func hugetlbShift(shift uint32) bool { return shift == 16 || shift == 21 || shift == 25 || shift == 30 }
`

// archFile matches files that only build for one architecture.
var archFile = regexp.MustCompile(`_(386|amd64|arm|arm64|loong64|mips64le|ppc64le|riscv64|s390x|wasm)(_test)?\.go$`)

type pkgFiles struct {
	fset               *token.FileSet
	portable, archOnly map[string]*ast.File
}

func parsePackage(t *testing.T) pkgFiles {
	t.Helper()
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	p := pkgFiles{token.NewFileSet(), map[string]*ast.File{}, map[string]*ast.File{}}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(p.fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if archFile.MatchString(name) {
			p.archOnly[name] = f
		} else {
			p.portable[name] = f
		}
	}
	if len(p.archOnly) == 0 || len(p.portable) == 0 {
		t.Fatalf("found %d architecture files and %d portable ones", len(p.archOnly), len(p.portable))
	}
	return p
}

// declared returns the top-level names (including method names) f declares.
func declared(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			names = append(names, d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				}
			}
		}
	}
	return names
}

// TestPortableFiles: every file without an architecture suffix builds on
// every architecture: it carries no build constraint and names nothing that
// only the architecture files declare (the x86 PTE bits, pteAddr4K, the
// amd64 test helpers...) except the porting contract.
func TestPortableFiles(t *testing.T) {
	p := parsePackage(t)
	contract := map[string]bool{}
	for _, n := range portingContract {
		contract[n] = true
	}
	archOnly := map[string]string{} // name → declaring file
	archDecl := map[string]bool{}
	for name, f := range p.archOnly {
		if !strings.HasSuffix(name, "_amd64.go") {
			continue
		}
		for _, n := range declared(f) {
			archDecl[n] = true
		}
	}
	for name, f := range p.archOnly {
		for _, n := range declared(f) {
			if !contract[n] && !strings.HasPrefix(n, "Test") && !strings.HasPrefix(n, "Benchmark") {
				archOnly[n] = name
			}
		}
	}
	for name, f := range p.portable {
		for _, cg := range f.Comments {
			if cg.Pos() > f.Package {
				break
			}
			for _, c := range cg.List {
				if constraint.IsGoBuild(c.Text) || constraint.IsPlusBuild(c.Text) {
					t.Errorf("%s: portable file has a build constraint %q", name, c.Text)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if decl, bad := archOnly[id.Name]; bad {
					t.Errorf("%s: portable file names %s, which only %s declares",
						p.fset.Position(id.Pos()), id.Name, decl)
				}
			}
			return true
		})
	}
	// The contract is real: amd64 provides all of it, and doc.go lists it.
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, porting, _ := strings.Cut(string(doc), "# Porting")
	for _, n := range portingContract {
		if !archDecl[n] {
			t.Errorf("contract item %s is not declared by the amd64 files", n)
		}
		if !regexp.MustCompile(`\b` + n + `\b`).MatchString(porting) {
			t.Errorf("contract item %s is missing from the Porting section of doc.go", n)
		}
	}
}

// TestPortableFilesTypeCheck compiles the portable (non-test) files against
// archStub, for a 64-bit architecture other than amd64: if a portable file
// needs anything the contract does not provide, this fails. The stub must
// declare exactly the contract.
func TestPortableFilesTypeCheck(t *testing.T) {
	p := parsePackage(t)
	stub, err := parser.ParseFile(p.fset, "stub_arch.go", archStub, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, n := range declared(stub) {
		got[n] = true
	}
	for _, n := range portingContract {
		if !got[n] {
			t.Errorf("archStub lacks contract item %s", n)
		}
		delete(got, n)
	}
	for n := range got {
		t.Errorf("archStub declares %s, which is not in the contract", n)
	}
	files := []*ast.File{stub}
	for name, f := range p.portable {
		if !strings.HasSuffix(name, "_test.go") {
			files = append(files, f)
		}
	}
	conf := types.Config{
		Importer: importer.ForCompiler(p.fset, "source", nil),
		Sizes:    types.SizesFor("gc", "arm64"),
	}
	if _, err := conf.Check("gmpos/kernel/mm", p.fset, files, nil); err != nil {
		t.Fatalf("portable files do not compile against the contract alone: %v", err)
	}
}
