package runner

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildHello builds testdata/hello for linux/amd64 (test binaries themselves have no symbol
// table) and returns the ELF's path and main.main's address.
func buildHello(t *testing.T) (string, uint64) {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "hello")
	cmd := exec.Command("go", "build", "-o", exe, ".")
	cmd.Dir = "testdata/hello"
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ef, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == "main.main" {
			return exe, s.Value
		}
	}
	t.Fatal("main.main not in the symbol table")
	return "", 0
}
