// The doc.go cross-reference must name every function of the package.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocMapsEveryFunction fails when a function or method is added
// without an entry in doc.go's "Cross-reading" table, so the map from
// this package to runtime/proc.go cannot silently go stale.
func TestDocMapsEveryFunction(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "doc.go" {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			n++
			re := regexp.MustCompile(`\b` + fd.Name.Name + `\b`)
			if !re.Match(doc) {
				t.Errorf("%s: %s is not in doc.go's cross-reference", fset.Position(fd.Pos()), fd.Name.Name)
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d functions found: wrong directory?", n)
	}
}
