package mm

import (
	"go/ast"
	"strings"
	"testing"
)

// TestDefersOpenCoded enforces a trap-context rule (doc.go, "Rules"): every
// defer in mm must be one the compiler open-codes. Otherwise it calls
// runtime.deferprocStack, which throws "defer on system stack" on g0, and
// the Go runtime makes its first mmap on g0: the guest hangs in its first
// system call into mm. The compiler (cmd/compile/internal/ssagen) gives up
// open-coding when a function has more than 8 defers, a defer in a loop, or
// returns × defers > 15.
func TestDefersOpenCoded(t *testing.T) {
	p := parsePackage(t)
	check := func(name string, f *ast.File) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			returns, defers, inLoop := 0, 0, false
			var walk func(n ast.Node, loop bool)
			walk = func(n ast.Node, loop bool) {
				ast.Inspect(n, func(c ast.Node) bool {
					switch c := c.(type) {
					case *ast.FuncLit:
						return false // a closure is its own function
					case *ast.ForStmt:
						if c != n {
							walk(c.Body, true)
							return false
						}
					case *ast.RangeStmt:
						if c != n {
							walk(c.Body, true)
							return false
						}
					case *ast.ReturnStmt:
						returns++
					case *ast.DeferStmt:
						defers++
						inLoop = inLoop || loop
					}
					return true
				})
			}
			walk(fd.Body, false)
			if defers > 0 && (defers > 8 || inLoop || returns*defers > 15) {
				t.Errorf("%s: %s has %d defers (in a loop: %v) and %d returns: the defer is not open-coded",
					p.fset.Position(fd.Pos()), fd.Name.Name, defers, inLoop, returns)
			}
		}
	}
	for name, f := range p.portable {
		if !strings.HasSuffix(name, "_test.go") {
			check(name, f)
		}
	}
	for name, f := range p.archOnly {
		if !strings.HasSuffix(name, "_test.go") {
			check(name, f)
		}
	}
}
