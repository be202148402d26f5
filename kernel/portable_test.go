// The portability rule: portable kernel files name no architecture and no board.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"fmt"
	"go/ast"
	"go/build/constraint"
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

// The portable kernel reaches the CPU through gmpos/kernel/arch, the machine through the Board
// contract and the Linux ABI through abi_<arch>.go (doc.go, "Seams"). A file is portable unless
// its name ends in _<GOARCH>.go or it carries a build constraint (the one-line selection files:
// board_pc.go); portable files must not import an architecture or board package, nor name x86
// registers, frame fields, vectors, ports or instructions.
var (
	// forbiddenImports are the packages only arch/board/ABI files may import.
	forbiddenImports = regexp.MustCompile(`^gmpos/kernel/(arch/[a-z0-9]+|board/[a-z0-9]+)$|^github\.com/usbarmory/tamago/(amd64|soc|arm64|arm|board)`)

	// x86Idents are identifiers that name the x86 machine: registers and frame fields, control
	// registers and MSRs, vectors, the local and I/O APIC, the PC's timers and ports, and x86-only
	// instructions.
	x86Idents = regexp.MustCompile(`^(R?[ABCD]X|[RE]?(SI|DI|BP|SP|IP)|R(8|9|1[0-5])|RFLAGS|EFLAGS|CS|SS|DS|FS|GS|Vector|Err|` +
		`CR[0-4]|EFER|MSR.*|.*[Mm]sr.*|XMM[0-9]*|Vec[A-Z].*|VectorSyscall|` +
		`L?APIC.*|.*IOAPIC.*|.*Lapic.*|PIT|TSC|HPET|Inb|Outb|Inl|Outl|FXSAVE|FXRSTOR|XSAVE|CPUID|RDTSC|SYSCALL|IRETQ|INVLPG)$`)

	// x86Strings finds x86 register names in string literals (a report that prints "rip=").
	x86Strings = regexp.MustCompile(`\b(rax|rbx|rcx|rdx|rsi|rdi|rbp|rsp|rip|rflags|eflags|cr2|cr3|r1[0-5]|xmm[0-9]+)\b`)

	// pcPorts are the PC's I/O ports and the x86 vectors the kernel once hard-coded.
	pcPorts = map[uint64]bool{0x3f8: true, 0x2f8: true, 0x3e8: true, 0x2e8: true, 0xcf8: true, 0xcfc: true, 0xf4: true}
)

func TestPortableFiles(t *testing.T) {
	for _, dir := range []string{".", "arch"} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, p := range paths {
			if !portable(t, p) {
				continue
			}
			checked++
			for _, problem := range nonPortable(t, p) {
				t.Errorf("%s: %s", p, problem)
			}
		}
		if checked < 5 && dir == "." {
			t.Fatalf("only %d portable files found in %s", checked, dir)
		}
	}
}

// portable reports whether file p is meant to build for every architecture.
func portable(t *testing.T, p string) bool {
	name := filepath.Base(p)
	if strings.HasSuffix(name, "_test.go") {
		return false
	}
	for _, arch := range []string{"amd64", "arm64", "riscv64", "386", "arm"} {
		if strings.HasSuffix(name, "_"+arch+".go") {
			return false
		}
	}
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(src), "\n") {
		if constraint.IsGoBuild(line) {
			return false
		}
		if strings.HasPrefix(line, "package ") {
			break
		}
	}
	return true
}

// nonPortable lists what ties file p to an architecture or a board.
func nonPortable(t *testing.T, p string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	add := func(pos token.Pos, format string, args ...any) {
		problems = append(problems, fset.Position(pos).String()+": "+fmt.Sprintf(format, args...))
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if forbiddenImports.MatchString(path) {
			add(imp.Pos(), "imports %s (only arch_<arch>.go, board_<board>.go and abi_<arch>.go may)", path)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if x86Idents.MatchString(n.Name) {
				add(n.Pos(), "names %s, an x86 register, vector, port or instruction", n.Name)
			}
		case *ast.BasicLit:
			switch n.Kind {
			case token.STRING:
				if s, err := strconv.Unquote(n.Value); err == nil && x86Strings.MatchString(s) {
					add(n.Pos(), "string %s names an x86 register", n.Value)
				}
			case token.INT:
				if v, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil && pcPorts[v] && strings.HasPrefix(n.Value, "0x") {
					add(n.Pos(), "literal %s is a PC I/O port", n.Value)
				}
			}
		}
		return true
	})
	return problems
}

// TestNosplitSaysWhy: every //go:nosplit in the kernel explains itself in the comment above it
// ("nosplit: ..."): the kernel g's stack guard is 0, so the directive is never needed for the
// usual reason, and one without a reason is a mistake waiting to be copied.
func TestNosplitSaysWhy(t *testing.T) {
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines := strings.Split(string(src), "\n")
		for i, l := range lines {
			if strings.TrimSpace(l) != "//go:nosplit" {
				continue
			}
			ok := false
			for j := i - 1; j >= 0 && strings.HasPrefix(strings.TrimSpace(lines[j]), "//"); j-- {
				if strings.Contains(lines[j], "nosplit:") {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s:%d: //go:nosplit without a \"nosplit: why\" comment above it", p, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestKernelDataComplete: the generated lists of the kernel's variables (zkdata_<arch>.go,
// mkkdata.go) are up to date — a variable added without regenerating would be one the program
// could overwrite through a system call.
func TestKernelDataComplete(t *testing.T) {
	for _, c := range []struct {
		goarch string
		pkgs   []string
	}{
		{"amd64", []string{".", "mm", "arch/amd64", "board/pc", "../sched"}},
		{"arm64", []string{".", "mm", "arch/arm64", "board/virt", "board/rpi", "../sched"}},
	} {
		t.Run(c.goarch, func(t *testing.T) { checkKernelData(t, c.goarch, c.pkgs) })
	}
}

// checkKernelData runs the generator for goarch on a copy of the sources, so that a stale file
// is reported, not fixed, and compares its output with the committed zkdata_<goarch>.go files.
func checkKernelData(t *testing.T, goarch string, pkgs []string) {
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "mkkdata.go", goarch)
	for _, p := range pkgs {
		dst := filepath.Join(dir, "kernel", p)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(p, "*.go"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd.Dir = filepath.Join(dir, "kernel")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mkkdata: %v\n%s", err, out)
	}
	name := "zkdata_" + goarch + ".go"
	for _, p := range pkgs {
		want, err := os.ReadFile(filepath.Join(dir, "kernel", p, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(p, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s/%s is stale: run go generate ./kernel", p, name)
		}
	}
}
