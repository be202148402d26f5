// QEMU tests: the kinds of PKG the runner accepts, with the real kernel.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGuestTargets boots a main package of another module (its go.mod,
// with a package of its own, is honoured) and a plain multi-file
// directory without go.mod; neither mentions gmpos.
func TestGuestTargets(t *testing.T) {
	write := func(dir string, files map[string]string) {
		for name, body := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Run("other module", func(t *testing.T) {
		mod := t.TempDir()
		write(mod, map[string]string{
			"go.mod":     "module example.com/student\n\ngo 1.26\n",
			"greet/g.go": "package greet\n\nfunc Hello(who string) string { return \"hello, \" + who }\n",
			"cmd/hi/main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\n\t\"example.com/student/greet\"\n)\n\n" +
				"func main() { fmt.Println(greet.Hello(os.Args[1])) }\n",
		})
		g := boot(t, []string{filepath.Join(mod, "cmd/hi")}, opts{args: []string{"gmpos"}})
		g.wantCode(t, 0)
		g.wantStdout(t, "hello, gmpos\n")
	})
	t.Run("plain directory", func(t *testing.T) {
		dir := t.TempDir()
		write(dir, map[string]string{
			"main.go":   "package main\n\nimport \"os\"\n\nfunc main() { os.Exit(answer()) }\n",
			"answer.go": "package main\n\nfunc answer() int { return 42 }\n",
		})
		g := boot(t, []string{dir}, opts{})
		g.wantCode(t, 42)
	})
}
