// Unit tests for the runner's pure logic.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestEscapeRoundTrip(t *testing.T) {
	for _, s := range []string{"plain", "a b", "100%", "tab\there", "naïve", "=:,+-./_", "\x01\xff", "--"} {
		e := Escape(s)
		if strings.ContainsAny(e, " \t\n") {
			t.Errorf("Escape(%q) = %q contains whitespace", s, e)
		}
		got, err := Unescape(e)
		if err != nil || got != s {
			t.Errorf("Unescape(Escape(%q)) = %q, %v", s, got, err)
		}
	}
	if got := Escape("a b%c"); got != "a%20b%25c" {
		t.Errorf("Escape = %q, want a%%20b%%25c", got)
	}
	for _, bad := range []string{"%", "%4", "%zz", "a%2"} {
		if _, err := Unescape(bad); err == nil {
			t.Errorf("Unescape(%q) succeeded", bad)
		}
	}
}

func TestCmdline(t *testing.T) {
	line, err := Cmdline("sieve1", []string{"sched=gmp", "env=HOME=/root dir"}, []string{"-n", "3", "two words", "--"})
	if err != nil {
		t.Fatal(err)
	}
	want := "argv0=sieve1 sched=gmp env=HOME=/root%20dir -- -n 3 two%20words --"
	if line != want {
		t.Fatalf("Cmdline =\n %q\nwant\n %q", line, want)
	}
	// What the kernel sees: QEMU prepends the image path.
	opts, args, err := ParseCmdline("/tmp/gmpos-run1/sieve1.img " + line)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(opts, []string{"argv0=sieve1", "sched=gmp", "env=HOME=/root dir"}) ||
		!reflect.DeepEqual(args, []string{"-n", "3", "two words", "--"}) {
		t.Errorf("ParseCmdline = %q, %q", opts, args)
	}
	// An explicit argv0 option wins over the program name.
	line, _ = Cmdline("x", []string{"argv0=y"}, nil)
	if line != "argv0=y --" {
		t.Errorf("explicit argv0: %q", line)
	}
	for _, bad := range []struct {
		opts, args []string
	}{
		{[]string{"novalue"}, nil},
		{[]string{"=v"}, nil},
		{[]string{"bad key=v"}, nil},
		{nil, []string{""}},
		{nil, []string{"a\x00b"}},
		{nil, []string{strings.Repeat("é", MaxCmdline)}},
	} {
		if _, err := Cmdline("p", bad.opts, bad.args); err == nil {
			t.Errorf("Cmdline(%q, %q) accepted bad input", bad.opts, bad.args)
		}
	}
}

func TestExitCode(t *testing.T) {
	exit := func(n int) Record { return Record{Kind: "exit", Code: n} }
	tests := []struct {
		name string
		o    Outcome
		want int
	}{
		{"exit 0", Outcome{Records: []Record{{Kind: "entry"}, exit(0)}, Status: 1}, 0},
		{"exit 3", Outcome{Records: []Record{exit(3)}, Status: 7}, 3},
		{"exit 200 keeps the full status", Outcome{Records: []Record{exit(200)}, Status: (200&0x7f)<<1 | 1}, 200},
		{"first exit record wins", Outcome{Records: []Record{exit(4), exit(5)}, Status: 9}, 4},
		{"exit record beats odd status", Outcome{Records: []Record{exit(2)}, Status: 0}, 2},
		{"panic", Outcome{Records: []Record{{Kind: "panic", Text: "page fault"}}, Status: 101<<1 | 1}, 101},
		{"debug-exit without record", Outcome{Status: 9}, 4},
		{"debug-exit 0 without record is ambiguous", Outcome{Status: 1}, 125},
		{"reset", Outcome{Status: 0}, 125},
		{"killed", Outcome{Status: -1}, 125},
		{"qemu error", Outcome{Status: 2}, 125},
		{"timeout beats everything", Outcome{Records: []Record{exit(0)}, Status: -1, TimedOut: true}, 124},
	}
	for _, tt := range tests {
		got, why := ExitCode(tt.o)
		if got != tt.want {
			t.Errorf("%s: ExitCode = %d (%s), want %d", tt.name, got, why, tt.want)
		}
		if (got == ExitKernelPanic || got == ExitTimeout || got == ExitRunnerError) && why == "" {
			t.Errorf("%s: code %d without an explanation", tt.name, got)
		}
	}
}

func TestParseRecord(t *testing.T) {
	r, err := ParseRecord("exit 255\r")
	if err != nil || r.Kind != "exit" || r.Code != 255 {
		t.Errorf("exit 255: %+v %v", r, err)
	}
	r, err = ParseRecord("log unknown syscall 999 (foo)")
	if err != nil || r.Kind != "log" || r.Text != "unknown syscall 999 (foo)" {
		t.Errorf("log: %+v %v", r, err)
	}
	for _, bad := range []string{"", "exit", "exit -1", "exit 256", "exit x"} {
		if _, err := ParseRecord(bad); err == nil {
			t.Errorf("ParseRecord(%q) accepted", bad)
		}
	}
}

// TestMarkerSplit feeds firmware noise + marker + output in every possible
// pair of chunk boundaries.
func TestMarkerSplit(t *testing.T) {
	in := "SeaBIOS (version 1.16)\r\nBooting from ROM..\r\n\x1b]gm" + StartMarker + "hello\n\x1b]gmpos-start\x07again\n"
	want := "hello\n\x1b]gmpos-start\x07again\n" // only the first marker is special
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			var out bytes.Buffer
			starts, outputs := 0, 0
			m := &MarkerWriter{W: &out, OnStart: func() { starts++ }, OnOutput: func() { outputs++ }}
			for _, chunk := range []string{in[:i], in[i:j], in[j:]} {
				if n, err := m.Write([]byte(chunk)); err != nil || n != len(chunk) {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if out.String() != want || starts != 1 || outputs != 1 || !m.Started() {
				t.Fatalf("split %d,%d: got %q (starts %d outputs %d)", i, j, out.String(), starts, outputs)
			}
			if fw := string(m.Firmware()); !strings.HasPrefix(fw, "SeaBIOS") || strings.Contains(fw, "hello") {
				t.Fatalf("split %d,%d: firmware %q", i, j, fw)
			}
		}
	}
	var out bytes.Buffer
	m := &MarkerWriter{W: &out}
	m.Write([]byte("no marker here"))
	if out.Len() != 0 || m.Started() || string(m.Firmware()) != "no marker here" {
		t.Errorf("without marker: out %q firmware %q", out.String(), m.Firmware())
	}
	// Pre-marker output is bounded, but a marker after lots of noise is found.
	m = &MarkerWriter{W: &out}
	m.Write(bytes.Repeat([]byte("x"), 3*maxFirmware))
	m.Write([]byte(StartMarker[:5]))
	m.Write([]byte(StartMarker[5:] + "ok"))
	if out.String() != "ok" || len(m.Firmware()) > maxFirmware+len(StartMarker) {
		t.Errorf("after noise: out %q, firmware %d bytes", out.String(), len(m.Firmware()))
	}
}

func TestOverlay(t *testing.T) {
	src := OverlaySource("gmpos/kernel")
	if !strings.Contains(src, "package main") || !strings.Contains(src, `import _ "gmpos/kernel"`) || !strings.HasPrefix(src, "// Code generated") {
		t.Errorf("overlay source:\n%s", src)
	}
	b, err := Overlay("/src/prog", "/tmp/w/k.go")
	if err != nil {
		t.Fatal(err)
	}
	var ov struct{ Replace map[string]string }
	if err := json.Unmarshal(b, &ov); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"/src/prog/" + OverlayFile: "/tmp/w/k.go"}; !reflect.DeepEqual(ov.Replace, want) {
		t.Errorf("overlay = %v, want %v", ov.Replace, want)
	}
	w := GoWork("go1.26.8", "/a", "/b")
	if w != "go 1.26.8\n\nuse (\n\t/a\n\t/b\n)\n" {
		t.Errorf("go.work:\n%s", w)
	}
}

func TestModulePath(t *testing.T) {
	for in, want := range map[string]string{
		"module gmpos\n\ngo 1.26\n":                   "gmpos",
		"// comment\nmodule \"example.com/x\" // c\n": "example.com/x",
		"go 1.26\nmodule\texample.com/y\n":            "example.com/y",
		"modules x\n":                                 "",
		"":                                            "",
	} {
		if got := ModulePath([]byte(in)); got != want {
			t.Errorf("ModulePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
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

func TestResolve(t *testing.T) {
	root, err := FindGmposRoot()
	if err != nil {
		t.Fatal(err)
	}
	// (a) a package of this module, by directory and by import path.
	for _, p := range []string{"testdata/hello", "gmpos/qemu/runner/testdata/hello"} {
		tg, err := Resolve([]string{p}, root)
		if err != nil {
			t.Fatal(err)
		}
		if tg.Kind != KindGmpos || tg.ModRoot != root || tg.Name != "hello" {
			t.Errorf("%s: %+v", p, tg)
		}
	}
	// (b) plain files and a plain directory (build constraints applied).
	plain := t.TempDir()
	if r, _, _ := FindModule(plain); r != "" {
		t.Skipf("temp dir %s is inside a module (%s)", plain, r)
	}
	writeFiles(t, plain, map[string]string{
		"main.go":         "package main\nfunc main() { helper() }\n",
		"helper.go":       "package main\nfunc helper() {}\n",
		"other_darwin.go": "package main\n",
		"x_test.go":       "package main\n",
		"ignored.go":      "//go:build ignore\n\npackage main\n",
	})
	tg, err := Resolve([]string{plain}, root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range tg.Files {
		names = append(names, filepath.Base(f))
	}
	if tg.Kind != KindPlain || !reflect.DeepEqual(names, []string{"helper.go", "main.go"}) {
		t.Errorf("plain dir: kind %v files %v", tg.Kind, names)
	}
	tg, err = Resolve([]string{filepath.Join(plain, "main.go"), filepath.Join(plain, "helper.go")}, root)
	if err != nil || tg.Kind != KindPlain || len(tg.Files) != 2 || tg.Name != "main" {
		t.Errorf("plain files: %+v %v", tg, err)
	}
	// (c) another module.
	mod := t.TempDir()
	writeFiles(t, mod, map[string]string{"go.mod": "module example.com/student\n\ngo 1.26\n", "cmd/app/main.go": "package main\nfunc main() {}\n"})
	tg, err = Resolve([]string{filepath.Join(mod, "cmd/app")}, root)
	if err != nil || tg.Kind != KindModule || tg.ModPath != "example.com/student" || tg.ModRoot != mod || tg.Name != "app" {
		t.Errorf("other module: %+v %v", tg, err)
	}
	// Bad input, including a library package.
	lib := t.TempDir()
	writeFiles(t, lib, map[string]string{"lib.go": "package lib\n"})
	if _, err := Resolve([]string{lib}, root); err == nil || !strings.Contains(err.Error(), "not package main") {
		t.Errorf("library package: %v", err)
	}
	for _, bad := range [][]string{nil, {"/does/not/exist"}, {filepath.Join(plain, "main.go"), "/tmp/elsewhere/x.go"}, {filepath.Join(plain, "main.go"), "notgo"}} {
		if _, err := Resolve(bad, root); err == nil {
			t.Errorf("Resolve(%q) succeeded", bad)
		}
	}
}

func TestMachine(t *testing.T) {
	good := Machine{Machine: "q35", Accel: "tcg", Mem: "1G", SMP: 2}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	args := strings.Join(QEMUArgs(good, "/w/p.img", "argv0=p --", [3]string{"/s/1", "/s/2", "/s/3"}), " ")
	for _, want := range []string{"-M q35", "-accel tcg -cpu max", "-m 1G", "-smp 2", "-kernel /w/p.img", "-append argv0=p --",
		"isa-debug-exit,iobase=0xf4,iosize=0x04", "-no-reboot", "-serial unix:/s/1 -serial unix:/s/2 -serial unix:/s/3"} {
		if !strings.Contains(args, want) {
			t.Errorf("QEMU args %q lack %q", args, want)
		}
	}
	if !strings.Contains(args, "-bios qboot.rom -vga none") {
		t.Errorf("the default firmware is not qboot: %q", args)
	}
	sea := good
	sea.Firmware = "seabios"
	if a := strings.Join(QEMUArgs(sea, "i", "c", [3]string{}), " "); strings.Contains(a, "-bios") || !strings.Contains(a, "-vga none") {
		t.Errorf("seabios args: %q", a)
	}
	pl := good
	pl.Plugin = "/p/libtbprof.so"
	if a := strings.Join(QEMUArgs(pl, "i", "c", [3]string{}), " "); !strings.Contains(a, "-plugin /p/libtbprof.so") {
		t.Errorf("plugin args: %q", a)
	}
	// With several vCPUs a plugin run gets one TCG thread, so that its counters do not race.
	pl.SMP = 2
	if a := strings.Join(QEMUArgs(pl, "i", "c", [3]string{}), " "); !strings.Contains(a, "-accel tcg,thread=single ") {
		t.Errorf("plugin args on 2 vCPUs: %q", a)
	}
	if a := strings.Join(QEMUArgs(good, "i", "c", [3]string{}), " "); strings.Contains(a, "thread=single") {
		t.Errorf("no plugin, yet one TCG thread: %q", a)
	}
	kvm := good
	kvm.Accel, kvm.GDB = "kvm", true
	args = strings.Join(QEMUArgs(kvm, "i", "c", [3]string{}), " ")
	if !strings.Contains(args, "-accel kvm -cpu host,-arch-capabilities") || !strings.HasSuffix(args, "-s -S") {
		t.Errorf("kvm/gdb args: %q", args)
	}
	for _, m := range []Machine{
		{Machine: "virt", Accel: "tcg", Mem: "1G", SMP: 1},
		{Machine: "pc", Accel: "hvf", Mem: "1G", SMP: 1},
		{Machine: "pc", Accel: "tcg", Mem: "lots", SMP: 1},
		{Machine: "pc", Accel: "tcg", Mem: "16M", SMP: 1},
		{Machine: "pc", Accel: "tcg", Mem: "1G", SMP: 0},
		{Machine: "q35", Firmware: "ovmf", Accel: "tcg", Mem: "1G", SMP: 1},
		{Machine: "q35", Accel: "kvm", Mem: "1G", SMP: 1, Plugin: "x.so"},
	} {
		if err := m.Validate(); err == nil {
			t.Errorf("%+v accepted", m)
		}
	}
	if b, err := ParseMem("512"); err != nil || b != 512<<20 {
		t.Errorf("ParseMem(512) = %d, %v", b, err)
	}
}

// TestGuestGOAMD64: a host environment asking for AVX levels (v3, v4) builds the guest with v2
// and says so; other levels, and no level, pass through untouched.
func TestGuestGOAMD64(t *testing.T) {
	root, err := FindGmposRoot()
	if err != nil {
		t.Fatal(err)
	}
	tg, err := Resolve([]string{"testdata/hello"}, root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ host, want string }{{"v3", "v2"}, {"v4", "v2"}, {"v2", "v2"}, {"v1", "v1"}, {"", ""}} {
		t.Setenv("GOAMD64", c.host)
		var warned []string
		spec := BuildSpec{GmposRoot: root, WorkDir: t.TempDir(), Warn: func(s string) { warned = append(warned, s) }}
		cmd, err := BuildCommand(tg, spec, filepath.Join(spec.WorkDir, "out.elf"))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, e := range cmd.Env {
			if v, ok := strings.CutPrefix(e, "GOAMD64="); ok {
				got = v // the last one wins, as in exec
			}
		}
		if got != c.want {
			t.Errorf("GOAMD64=%q: the build gets %q, want %q", c.host, got, c.want)
		}
		if (c.want != c.host) != (len(warned) == 1) {
			t.Errorf("GOAMD64=%q: warnings %q", c.host, warned)
		}
	}
}
