// Tests of arm64's one-UART record stream, the modules container and the arm64 machine flags.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// uartStream is a stream of all three channels, a full-length record among them.
func uartStream() (in []byte, want []string) {
	for _, r := range []struct {
		ch   byte
		data string
	}{{3, "entry\n"}, {1, "out 1\n"}, {2, "err 1\n"}, {3, "log x"}, {3, "yz\n"}, {1, "more\n"}, {2, strings.Repeat("x", 65535)}, {3, "exit 0\n"}} {
		in = append(in, record(r.ch, r.data)...)
		want = append(want, map[byte]string{1: "out", 2: "err", 3: "ctl"}[r.ch]+":"+r.data)
	}
	return in, want
}

// mergeTags joins consecutive entries of one writer ("tag:bytes"): where a record's payload is
// cut, it arrives in several writes, and consecutive records of a channel are one stream.
func mergeTags(log []string) []string {
	var out []string
	for _, s := range log {
		if n := len(out); n > 0 && out[n-1][:4] == s[:4] {
			out[n-1] += s[4:]
			continue
		}
		out = append(out, s)
	}
	return out
}

// TestUARTDemux feeds the stream cut at every pair of places (records, headers and the long
// payload split anywhere, as the socket's reads may): the same writes in the same order.
func TestUARTDemux(t *testing.T) {
	in, want := uartStream()
	run := func(chunks ...[]byte) ([]string, int) {
		var l tagged
		calls := 0
		d := &UARTDemux{Stdout: l.writer("out"), Stderr: l.writer("err"), Control: l.writer("ctl"), OnOutput: func() {
			if m := mergeTags(l.log); calls != 0 || len(m) != 1 || m[0] != "ctl:entry\n" {
				t.Errorf("OnOutput with %q written before: the control channel is not output", l.log)
			}
			calls++
		}}
		for _, c := range chunks {
			if n, err := d.Write(c); n != len(c) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		return mergeTags(l.log), calls
	}
	want = mergeTags(want)
	if got, calls := run(in); !slices.Equal(got, want) || calls != 1 {
		t.Fatalf("whole: %.200q (OnOutput %d times)", got, calls)
	}
	// Every cut within a few bytes of a record's start (its header, the payload's first
	// bytes), and one every 1013 bytes inside the long payload.
	near := map[int]bool{}
	for at := 0; at < len(in); at += ConsoleRecordHeader + int(binary.LittleEndian.Uint16(in[at+1:])) {
		for k := -2; k <= 5; k++ {
			near[at+k] = true
		}
	}
	for i := 0; i <= len(in); i++ {
		if !near[i] && i%1013 != 0 && i != len(in) {
			continue
		}
		for _, j := range []int{i, i + 1, i + 2, i + 3, i + 7, len(in) - 1} {
			if j < i || j > len(in) {
				continue
			}
			if got, _ := run(in[:i], in[i:j], in[j:]); !slices.Equal(got, want) {
				t.Fatalf("cut at %d and %d: %.200q", i, j, got)
			}
		}
	}
}

func TestUARTDemuxErrors(t *testing.T) {
	good := record(1, "ok\n")
	for _, c := range []struct {
		name, in, err, out string
	}{
		{"channel 0", string(good) + "\x00\x01\x00x" + string(good) + strings.Repeat("garbage", 100), "record 1 has channel 0 and length 1", "ok\n"},
		{"channel 4", "\x04\x01\x00x", "record 0 has channel 4", ""},
		{"length 0", "\x03\x00\x00" + string(good), "record 0 has channel 3 and length 0", ""},
		{"cut header", string(good) + "\x03\x05", "ends inside record 1's header (2 of 3 bytes)", "ok\n"},
		{"cut data", "\x01\x05\x00abc", "ends inside record 0 (3 of 5 bytes)", "abc"},
	} {
		var out bytes.Buffer
		d := &UARTDemux{Stdout: &out, Stderr: &out, Control: &out}
		if n, err := d.Write([]byte(c.in)); n != len(c.in) || err != nil {
			t.Errorf("%s: Write = %d, %v: it must take everything, or QEMU's UART stalls", c.name, n, err)
		}
		err := d.Close()
		if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "UART stream: ") || out.String() != c.out {
			t.Errorf("%s: %v, output %q; want %q, %q", c.name, err, out.String(), c.err, c.out)
		}
	}
	boom := errors.New("boom")
	d := &UARTDemux{Stdout: writerFunc(func([]byte) (int, error) { return 0, boom })}
	in := append(record(1, "a"), record(1, "b")...)
	if n, werr := d.Write(in); n != len(in) || werr != nil {
		t.Errorf("Write after a writer's error = %d, %v", n, werr)
	}
	if err := d.Close(); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("writer error: %v", err)
	}
	if err := (&UARTDemux{}).Close(); err != nil {
		t.Errorf("an empty stream: %v", err)
	}
}

// FuzzUARTDemux: the stream comes from the guest. The demultiplexer must not panic, must write
// no more than came in, must take every byte, and a stream it accepts must be its records again.
func FuzzUARTDemux(f *testing.F) {
	in, _ := uartStream()
	f.Add(in[:200])
	f.Add([]byte("\x03\xff\xffshort"))
	f.Add([]byte("\x04\x01\x00x"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var l tagged
		d := &UARTDemux{Stdout: l.writer("\x01"), Stderr: l.writer("\x02"), Control: l.writer("\x03")}
		if n, err := d.Write(in); n != len(in) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
		err := d.Close()
		var again []byte
		n := 0
		for _, s := range l.log {
			again = append(again, record(s[0], s[2:])...)
			n += len(s) - 2
		}
		if n > len(in) {
			t.Fatalf("%d bytes out of %d in", n, len(in))
		}
		if err == nil && !bytes.Equal(again, in) {
			t.Fatalf("accepted %q, records make %q", in, again)
		}
	})
}

func TestAppendRecord(t *testing.T) {
	data := bytes.Repeat([]byte{0xab}, 2*65535+10)
	b := AppendRecord([]byte("x"), 2, data)
	if len(b) != 1+3*3+len(data) || b[1] != 2 || binary.LittleEndian.Uint16(b[2:]) != 65535 || binary.LittleEndian.Uint16(b[1+2*65538+1:]) != 10 {
		t.Errorf("records of %d bytes: %d bytes, % x...", len(data), len(b), b[:8])
	}
	if got := AppendRecord(nil, 1, nil); len(got) != 0 {
		t.Errorf("empty data made %q", got)
	}
}

// TestInputRecords: stdin and signals share the socket; each record stays whole however the two
// writers interleave, and each channel's payloads are its stream in order.
func TestInputRecords(t *testing.T) {
	var conn bytes.Buffer
	var mu sync.Mutex
	ready := make(chan struct{})
	close(ready)
	sigs := make(chan int, 100)
	var want bytes.Buffer
	for i := 0; i < 100; i++ {
		sigs <- 1 + i%15
		want.WriteByte(byte(1 + i%15))
	}
	close(sigs)
	in := strings.Repeat("stdin \xff data\n", 20000) // longer than a record
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		feedStdin(recordSender{&mu, lockedWriter{&mu, &conn}, ConsoleStdout}, strings.NewReader(in), ready)
	}()
	go func() {
		defer wg.Done()
		feedSignals(recordSender{&mu, lockedWriter{&mu, &conn}, ConsoleStderr}, sigs, ready)
	}()
	wg.Wait()
	var stdin, signals bytes.Buffer
	d := &UARTDemux{Stdout: &stdin, Stderr: &signals}
	d.Write(conn.Bytes())
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if stdin.String() != string(EscapeStdin([]byte(in)))+"\xff\x00" {
		t.Errorf("stdin: %d bytes, want the escaped %d and the end of file", stdin.Len(), len(in))
	}
	if signals.String() != want.String() {
		t.Errorf("signals % x, want % x", signals.Bytes(), want.Bytes())
	}
}

// lockedWriter is the socket as recordSender sees it: its mutex is already held.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	if l.mu.TryLock() {
		l.mu.Unlock()
		return 0, errors.New("written without the senders' lock")
	}
	return l.w.Write(p)
}

// decodeModules is the reference reader of the modules container (docs/contract.md, "arm64
// virt"), as strict as a kernel's should be.
func decodeModules(b []byte) ([][]byte, error) {
	if len(b) < 16 || string(b[:8]) != ModulesMagic || binary.LittleEndian.Uint32(b[12:]) != 0 {
		return nil, fmt.Errorf("no container header")
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	if len(b) < 16+16*n {
		return nil, fmt.Errorf("%d modules do not fit", n)
	}
	var mods [][]byte
	for i := range n {
		off := binary.LittleEndian.Uint64(b[16+16*i:])
		size := binary.LittleEndian.Uint64(b[24+16*i:])
		if off%4096 != 0 || off < uint64(16+16*n) || off > uint64(len(b)) || size > uint64(len(b))-off {
			return nil, fmt.Errorf("module %d at %#x, %#x bytes, in %#x", i, off, size, len(b))
		}
		mods = append(mods, b[off:off+size])
	}
	return mods, nil
}

func TestModulesContainer(t *testing.T) {
	dir := t.TempDir()
	contents := [][]byte{[]byte("GMPOSARG\x01\x00\x00\x00\x00\x00\x00\x00prog\x00"), nil, bytes.Repeat([]byte("070701"), 3000)}
	var paths []string
	for i, c := range contents {
		p := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(p, c, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	out := filepath.Join(dir, "modules")
	if err := WriteModules(out, paths...); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	mods, err := decodeModules(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) != 3 {
		t.Fatalf("%d modules", len(mods))
	}
	for i := range contents {
		if !bytes.Equal(mods[i], contents[i]) {
			t.Errorf("module %d: %d bytes, want %d", i, len(mods[i]), len(contents[i]))
		}
	}
	// The exact layout: the header, zeros, each module at the next 4 KiB boundary, nothing after.
	hdr, offs := ModulesLayout([]int64{int64(len(contents[0])), 0, int64(len(contents[2]))})
	if !slices.Equal(offs, []int64{4096, 8192, 8192}) || !bytes.Equal(b[:len(hdr)], hdr) || len(hdr) != 16+3*16 {
		t.Errorf("layout: offsets %v, header % x", offs, hdr)
	}
	if !allZeros(b[len(hdr):4096]) || !allZeros(b[4096+len(contents[0]):8192]) || len(b) != 8192+len(contents[2]) {
		t.Errorf("padding or length wrong: %d bytes", len(b))
	}
	if err := WriteModules(out, filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing module was packed")
	}
}

func allZeros(b []byte) bool { return bytes.Count(b, []byte{0}) == len(b) }

func TestMachineSelect(t *testing.T) {
	for _, c := range []struct {
		arch, machine      string
		wantArch, wantMach string
		wantGIC            int
		err                string
	}{
		{"", "", "amd64", "q35", 0, ""},
		{"amd64", "", "amd64", "q35", 0, ""},
		{"", "pc", "amd64", "pc", 0, ""},
		{"arm64", "", "arm64", "virt", 0, ""},
		{"", "virt", "arm64", "virt", 0, ""},
		{"arm64", "virt,gic-version=3", "arm64", "virt", 3, ""},
		{"", "virt,gic-version=2", "arm64", "virt", 2, ""},
		{"arm64", "q35", "", "", 0, "-machine q35 is an amd64 machine, but -arch arm64"},
		{"amd64", "virt", "", "", 0, "-machine virt is an arm64 machine, but -arch amd64"},
		{"riscv64", "", "", "", 0, "want amd64 or arm64"},
		{"", "raspi3b", "arm64", "raspi3b", 0, ""},
		{"arm64", "raspi4b", "arm64", "raspi4b", 0, ""},
		{"amd64", "raspi3b", "", "", 0, "-machine raspi3b is an arm64 machine, but -arch amd64"},
		{"", "raspi3b,gic-version=3", "", "", 0, "only virt takes options"},
		{"", "raspi2b", "", "", 0, "want q35 or pc (amd64), or virt, raspi3b or raspi4b (arm64)"},
		{"", "virt,gic-version=4", "", "", 0, "gic-version=2|3 and virtualization=on"},
		{"", "virt,virtualization=on,gic-version=3", "arm64", "virt", 3, ""},
		{"", "virt,virtualization=off", "", "", 0, "gic-version=2|3 and virtualization=on"},
		{"", "q35,gic-version=3", "", "", 0, "only virt takes options"},
	} {
		var m Machine
		err := m.Select(c.arch, c.machine)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Select(%q, %q): %v, want %q", c.arch, c.machine, err, c.err)
			}
			continue
		}
		if err != nil || m.Arch != c.wantArch || m.Machine != c.wantMach || m.GIC != c.wantGIC ||
			m.EL2 != strings.Contains(c.machine, "virtualization=on") {
			t.Errorf("Select(%q, %q) = %+v, %v", c.arch, c.machine, m, err)
		}
	}
}

func TestMachineArm64(t *testing.T) {
	good := Machine{Arch: "arm64", Machine: "virt", Accel: "tcg", Mem: "1G", SMP: 4}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	args := strings.Join(QEMUArgs(good, "/w/p.img", "argv0=p --", [3]string{"/s/1", "/s/2", "/s/3"}), " ")
	want := "-M virt -cpu cortex-a72 -accel tcg -m 1G -smp 4 -kernel /w/p.img -append argv0=p -- " +
		"-semihosting-config enable=on,target=native -display none -monitor none -no-reboot -serial unix:/s/1"
	if args != want {
		t.Errorf("QEMU args\n %q\nwant\n %q", args, want)
	}
	pi := good
	pi.Machine = "raspi4b"
	if err := pi.Validate(); err != nil {
		t.Error(err)
	}
	want = "-M raspi4b -accel tcg -kernel /w/k8.img -semihosting-config enable=on,target=native -display none -monitor none -no-reboot " +
		"-serial unix:/s/1 -audio none"
	if a := strings.Join(QEMUArgs(pi, "/w/k8.img", "ignored", [3]string{"/s/1"}), " "); a != want {
		t.Errorf("raspi4b args\n %q\nwant\n %q", a, want)
	}
	g3 := good
	g3.GIC, g3.SMP, g3.GDB = 3, 16, true
	if err := g3.Validate(); err != nil {
		t.Error(err)
	}
	if a := strings.Join(QEMUArgs(g3, "i", "c", [3]string{"s"}), " "); !strings.HasPrefix(a, "-M virt,gic-version=3 ") || !strings.HasSuffix(a, "-s -S") {
		t.Errorf("GICv3 and gdb: %q", a)
	}
	pl := good
	pl.Plugin = "/b/libtbprof.so"
	if err := pl.Validate(); err != nil {
		t.Error(err)
	}
	if a := strings.Join(QEMUArgs(pl, "i", "c", [3]string{"s"}), " "); !strings.Contains(a, "-accel tcg,thread=single ") || !strings.Contains(a, "-plugin /b/libtbprof.so") {
		t.Errorf("plugin on 4 vCPUs: %q", a)
	}
	for _, c := range []struct {
		edit func(*Machine)
		want string
	}{
		{func(m *Machine) { m.Machine = "q35" }, "the arm64 machines are virt, raspi3b and raspi4b"},
		{func(m *Machine) { m.Machine, m.SMP = "raspi3b", 2 }, "-smp 2: QEMU's raspi3b has exactly 4 cores"},
		{func(m *Machine) { m.Machine, m.GIC = "raspi4b", 2 }, "raspi4b takes no options"},
		{func(m *Machine) { m.Firmware = "qboot" }, "-firmware qboot"},
		{func(m *Machine) { m.Accel = "kvm" }, "TCG"},
		{func(m *Machine) { m.SMP = 9 }, "needs a GICv3"},
		{func(m *Machine) { m.SMP = 0 }, "-smp 0"},
		{func(m *Machine) { m.GIC = 4 }, "GIC version 4"},
		{func(m *Machine) { m.Mem = "16M" }, "at least 64M"},
		{func(m *Machine) { m.Arch = "" }, "add -arch arm64"},
		{func(m *Machine) { m.Arch, m.Machine, m.GIC = "", "q35", 3 }, "virt's (arm64) option"},
	} {
		m := good
		c.edit(&m)
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", m, err, c.want)
		}
	}
}

// TestRunArm64Refuses: what arm64 cannot do yet fails before any build, with the reason.
func TestRunArm64Refuses(t *testing.T) {
	// The Raspberry Pis drive no PCI, so no virtio device (NoPCIDevicesWhy); virt has them.
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Net.Mode = NetUser }, "-net user: no NIC on raspi3b"},
		{func(c *Config) { c.Net.HostFwd = []HostFwd{{8080, 80}} }, "need a NIC"},
		{func(c *Config) { c.Net.Pcap = "x.pcap" }, "need a NIC"},
		{func(c *Config) { c.Shares = []Share{{Host: "/tmp", Guest: "/tmp"}} }, "-share: no virtio-9p on raspi3b"},
		{func(c *Config) { c.Accel = "kvm" }, "TCG"},
	} {
		cfg := DefaultConfig()
		cfg.Machine.Select("arm64", "raspi3b")
		cfg.SMP = 4
		c.edit(&cfg)
		start := time.Now()
		_, err := Run(context.Background(), []string{"testdata/hello"}, cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("refused after %v: it must not build first", d)
		}
	}
	for _, m := range []Machine{{Arch: ArchARM64, Machine: "virt"}, {Arch: ArchARM64, Machine: "virt", GIC: 3}, {Machine: "q35"}} {
		if why := NoPCIDevicesWhy(m); why != "" {
			t.Errorf("%+v: %s", m, why)
		}
	}
}

func TestExitCodeSemihosting(t *testing.T) {
	exit := func(n int) Record { return Record{Kind: "exit", Code: n} }
	for _, c := range []struct {
		name string
		o    Outcome
		want int
		note bool
	}{
		{"exit 7", Outcome{Records: []Record{exit(7)}, Status: 7}, 7, false},
		{"exit 200: the full status", Outcome{Records: []Record{exit(200)}, Status: 200}, 200, false},
		{"exit 0", Outcome{Records: []Record{exit(0)}, Status: 0}, 0, false},
		{"record and status differ", Outcome{Records: []Record{exit(3)}, Status: 4}, 3, true},
		{"x86's mapping is not arm64's", Outcome{Records: []Record{exit(7)}, Status: 15}, 7, true},
		{"panic", Outcome{Records: []Record{{Kind: "panic", Text: "fault"}}, Status: 101}, 101, true},
		{"status without a record", Outcome{Status: 42}, 42, true},
		{"0 without a record", Outcome{Status: 0}, 125, true},
		{"1 without a record", Outcome{Status: 1}, 125, true},
		{"killed", Outcome{Status: -1}, 125, true},
		{"timeout", Outcome{Records: []Record{exit(0)}, TimedOut: true}, 124, true},
	} {
		c.o.Semihosting = true
		got, why := ExitCode(c.o)
		if got != c.want || (why != "") != c.note {
			t.Errorf("%s: ExitCode = %d (%q), want %d (note: %v)", c.name, got, why, c.want, c.note)
		}
	}
}

func TestGuestGOARM64(t *testing.T) {
	for level, warn := range map[string]bool{"": false, "v8.0": false, "v8.0,crypto": false, "v8.1": true, "v9.0,lse": true} {
		if got := GuestGOARM64(level); (got != "") != warn {
			t.Errorf("GuestGOARM64(%q) = %q", level, got)
		}
	}
}

// TestResolveArm64: a plain directory's files are chosen by the guest's architecture.
func TestResolveArm64(t *testing.T) {
	root, err := FindGmposRoot()
	if err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	if r, _, _ := FindModule(plain); r != "" {
		t.Skipf("temp dir %s is inside a module (%s)", plain, r)
	}
	writeFiles(t, plain, map[string]string{
		"main.go":      "package main\nfunc main() { f() }\n",
		"f_arm64.go":   "package main\nfunc f() {}\n",
		"f_amd64.go":   "package main\nfunc f() {}\n",
		"other_386.go": "package main\n",
	})
	for arch, want := range map[string][]string{"arm64": {"f_arm64.go", "main.go"}, "amd64": {"f_amd64.go", "main.go"}} {
		tg, err := ResolveFor([]string{plain}, root, arch)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range tg.Files {
			names = append(names, filepath.Base(f))
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: %v, want %v", arch, names, want)
		}
	}
}
