// Static lock-order check: the rank table in doc.go against the source.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// lockName maps the field a spinlock is reached through to its rank-table
// name: pp.lock → "P.lock", s.grqLock → "grqLock".
func lockName(x ast.Expr) string {
	sel, ok := x.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	switch sel.Sel.Name {
	case "lock":
		return "P.lock"
	case "grqLock", "gFreeLock":
		return sel.Sel.Name
	}
	return ""
}

// parseRanks reads "rank N  NAME" lines from doc.go's Lock order section.
func parseRanks(t *testing.T) map[string]int {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^//\s+rank (\d+)\s+(\S+)`)
	ranks := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		r, _ := strconv.Atoi(m[1])
		ranks[m[2]] = r
	}
	return ranks
}

// TestLockOrder walks every function of the package (not tests) in source
// order, tracking which spinlocks are held, and fails if a lock (taken
// directly or by a callee, transitively) is acquired while a lock of equal
// or higher rank is held, or if the source uses a lock the table lacks.
// The analysis is by method name and straight-line order, so it can miss a
// violation on an unusual path, but it never needs annotations.
func TestLockOrder(t *testing.T) {
	ranks := parseRanks(t)
	if len(ranks) < 3 {
		t.Fatalf("doc.go rank table not found or incomplete: %v", ranks)
	}
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	funcs := map[string][]*ast.FuncDecl{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				funcs[fd.Name.Name] = append(funcs[fd.Name.Name], fd)
			}
		}
	}
	callName := func(c *ast.CallExpr) (name string, recv ast.Expr) {
		switch fn := c.Fun.(type) {
		case *ast.SelectorExpr:
			return fn.Sel.Name, fn.X
		case *ast.Ident:
			return fn.Name, nil
		}
		return "", nil
	}
	// takes[f]: locks f acquires, directly or through callees (fixed point).
	takes := map[string]map[string]bool{}
	for name := range funcs {
		takes[name] = map[string]bool{}
	}
	for changed := true; changed; {
		changed = false
		for name, decls := range funcs {
			for _, fd := range decls {
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					c, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					cn, recv := callName(c)
					var add []string
					if cn == "lock" {
						if l := lockName(recv); l != "" {
							add = append(add, l)
						}
					} else if sub, ok := takes[cn]; ok && cn != name {
						for l := range sub {
							add = append(add, l)
						}
					}
					for _, l := range add {
						if !takes[name][l] {
							takes[name][l] = true
							changed = true
						}
					}
					return true
				})
			}
		}
	}
	checked := 0
	for name, decls := range funcs {
		for _, fd := range decls {
			var held []string
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				c, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				cn, recv := callName(c)
				var acquired []string
				switch {
				case cn == "lock" && lockName(recv) != "":
					acquired = []string{lockName(recv)}
				case cn == "unlock" && lockName(recv) != "":
					l := lockName(recv)
					for i := len(held) - 1; i >= 0; i-- {
						if held[i] == l {
							held = append(held[:i], held[i+1:]...)
							break
						}
					}
					return true
				default:
					for l := range takes[cn] {
						acquired = append(acquired, l)
					}
				}
				for _, l := range acquired {
					r, ok := ranks[l]
					if !ok {
						t.Errorf("%s: lock %s is not in doc.go's rank table", fset.Position(c.Pos()), l)
						continue
					}
					for _, h := range held {
						checked++
						if ranks[h] >= r {
							t.Errorf("%s in %s: takes %s (rank %d) while holding %s (rank %d)",
								fset.Position(c.Pos()), name, l, r, h, ranks[h])
						}
					}
				}
				if cn == "lock" && len(acquired) == 1 {
					held = append(held, acquired[0])
				}
				return true
			})
		}
	}
	t.Logf("rank table %v; %d nested acquisitions checked", ranks, checked)
}
