// End-to-end tests of the arm64 path: the real arm64 build, Image and modules container, QEMU's
// virt machine, the one UART's records and semihosting, with the fake kernel's arm64 entries.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeRunArm64 runs testdata/hello linked with gmpos/qemu/fakekernel for arm64, entered at
// entry, on virt.
func fakeRunArm64(t *testing.T, entry string, mutate func(*Config)) (*Result, string, string, string) {
	t.Helper()
	if _, err := exec.LookPath(QEMUBinaryArm64); err != nil {
		t.Skipf("%s not installed; `make test` installs it (%s)", QEMUBinaryArm64, InstallHintArm64)
	}
	var stdout, stderr, log bytes.Buffer
	cfg := DefaultConfig()
	if err := cfg.Machine.Select(ArchARM64, ""); err != nil {
		t.Fatal(err)
	}
	cfg.Stdout, cfg.Stderr, cfg.Log = &stdout, &stderr, &log
	cfg.Timeout = time.Minute
	cfg.Verbose = true
	cfg.Build.KernelImport = "gmpos/qemu/fakekernel"
	cfg.Build.EntrySymbol = "gmpos/qemu/fakekernel." + entry
	if mutate != nil {
		mutate(&cfg)
	}
	res, err := Run(context.Background(), []string{"testdata/hello"}, cfg)
	if err != nil {
		t.Fatalf("Run: %v\nlog: %s", err, log.String())
	}
	return res, stdout.String(), stderr.String(), log.String()
}

// TestFakeKernelArm64: the fake kernel writes noise, the start marker, then records on the
// UART — control "entry", stdout "hello\n", stderr "fake stderr\n", a log record, "exit 7" —
// and exits through semihosting with 7. The runner must split the records, drop the noise,
// and map QEMU's status 7 (not isa-debug-exit's 15) to 7 without a note.
func TestFakeKernelArm64(t *testing.T) {
	res, stdout, stderr, log := fakeRunArm64(t, "EntryA64", func(c *Config) { c.SMP = 2 })
	if res.ExitCode != 7 || res.Why != "" {
		t.Fatalf("exit code %d (%q), want 7 and no note; log:\n%s\nQEMU: %s", res.ExitCode, res.Why, log, res.QEMU)
	}
	if stdout != "hello\n" || stderr != "fake stderr\n" {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	if !strings.Contains(log, "kernel: fake kernel log") {
		t.Errorf("the log record is not in the log:\n%s", log)
	}
	if !res.Started || string(res.Firmware) != "fw\r\n" {
		t.Errorf("started %v, bytes before the marker %q", res.Started, res.Firmware)
	}
	if res.Entry.IsZero() || res.FirstOutput.IsZero() || res.FirstOutput.Before(res.Entry) {
		t.Errorf("entry %v, first output %v", res.Entry, res.FirstOutput)
	}
	kinds := []string{}
	for _, r := range res.Records {
		kinds = append(kinds, r.Kind)
	}
	if strings.Join(kinds, ",") != "entry,log,exit" {
		t.Errorf("records %q", kinds)
	}
	// The QEMU command line (-v): virt's, with the virtio console (its PCI devices get MSI
	// through the GICv2m frame) but neither the x86 devices nor tsc_hz.
	for _, want := range []string{"qemu-system-aarch64 -M virt -cpu cortex-a72 -accel tcg", "-smp 2", "-semihosting-config enable=on,target=native",
		"-no-reboot -serial unix:", "-nic none", "/modules", "GOARCH=arm64", "-T 0x40202000 -R 0x1000 -E gmpos/qemu/fakekernel.EntryA64",
		"-device virtio-serial-pci"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	for _, not := range []string{"isa-debug-exit", "tsc_hz", "qboot"} {
		if strings.Contains(log, not) {
			t.Errorf("the log has %q:\n%s", not, log)
		}
	}
}

// TestFakeKernelArm64Modules: QEMU loads the modules container (-initrd) where the fake kernel
// looks, and it holds the argument module and the root file system's cpio archive, in that
// order. On a GICv3 machine with 4 vCPUs, which QEMU must accept.
func TestFakeKernelArm64Modules(t *testing.T) {
	res, stdout, _, log := fakeRunArm64(t, "ModulesA64", func(c *Config) {
		c.SMP = 4
		if err := c.Machine.Select("", "virt,gic-version=3"); err != nil {
			t.Fatal(err)
		}
	})
	if res.ExitCode != 0 {
		t.Fatalf("exit code %d (%s), stdout %q; log:\n%s", res.ExitCode, res.Why, stdout, log)
	}
	lines := strings.Split(stdout, "\n")
	if len(lines) != 3 || lines[0] != "GMPOSARG" || !strings.HasPrefix(lines[1], "070701") {
		t.Errorf("the modules begin with %q, want GMPOSARG and a cpio newc header (070701...)", stdout)
	}
	if !strings.Contains(log, "-M virt,gic-version=3") {
		t.Errorf("no GICv3 in the command line:\n%s", log)
	}
}

// TestFakeKernelArm64Input: after the "input" record the runner sends the program's stdin as
// channel-1 records on the UART; the fake kernel echoes every byte it receives as a stdout
// record, so stdout is exactly the record stream the runner sent.
func TestFakeKernelArm64Input(t *testing.T) {
	const in = "hi there\n"
	res, stdout, _, log := fakeRunArm64(t, "EchoA64", func(c *Config) { c.Stdin = strings.NewReader(in) })
	if res.ExitCode != 0 {
		t.Fatalf("exit code %d (%s); log:\n%s", res.ExitCode, res.Why, log)
	}
	var got, want bytes.Buffer
	d := &UARTDemux{Stdout: &got, Stderr: &got, Control: &got}
	d.Write([]byte(stdout))
	if err := d.Close(); err != nil {
		t.Fatalf("the echoed input %q is not a record stream: %v", stdout, err)
	}
	want.Write(EscapeStdin([]byte(in)))
	want.Write([]byte{stdinEscape, stdinEOF})
	if got.String() != want.String() || stdout[0] != ConsoleStdout {
		t.Errorf("the guest received %q (payload %q), want stdin records carrying %q", stdout, got.String(), want.String())
	}
}

// TestDescribeFaultArm64: an arm64 image's fault is disassembled as arm64 (arm64asm), in Go's
// syntax and Arm's, from the record's bytes or else from the image, and symbolized.
func TestDescribeFaultArm64(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "hello")
	cmd := exec.Command("go", "build", "-o", exe, "-ldflags="+LinkFlagsArm64, ".")
	cmd.Dir = "testdata/hello"
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var addr uint64
	if syms, err := ef.Symbols(); err == nil {
		for _, s := range syms {
			if s.Name == "main.main" {
				addr = s.Value
			}
		}
	}
	if addr == 0 {
		t.Fatal("main.main not in the symbol table")
	}
	// f9400000 = ldr x0, [x0] (MOVD (R0), R0): the record's bytes win over the image's. A
	// caller's return PC is symbolized at pc-1, inside its BL, as on x86.
	got := DescribeFault(fmt.Sprintf("trap=esr pc=%#x code=000040f9 callers=%#x", addr+8, addr+12), data)
	for _, want := range []string{fmt.Sprintf("%#x (main.main+0x8)", addr+8), "MOVD (R0), R0", "LDR X0, [X0]", "00 00 40 f9]", "called from:\n  ", "main.main+0xb"} {
		if !strings.Contains(got, want) {
			t.Errorf("DescribeFault = %q, lacks %q", got, want)
		}
	}
	got = DescribeFault(fmt.Sprintf("pc=%#x", addr), data)
	if !strings.Contains(got, "(main.main+0x0)") || strings.Contains(got, "cannot decode") || !strings.Contains(got, "   [") {
		t.Errorf("from the image: %q", got)
	}
	if got := DescribeFault(fmt.Sprintf("pc=%#x code=0000", addr), data); !strings.Contains(got, "an arm64 instruction is 4 bytes") {
		t.Errorf("2 bytes: %q", got)
	}
	t.Log(got)
}
