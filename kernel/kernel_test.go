package kernel

import (
	"encoding/binary"
	"testing"
	"unsafe"

	"gmpos/kernel/mm"
)

func resetCmd() { cmd = cmdState{} }

func TestParseCmdline(t *testing.T) {
	resetCmd()
	parseCmdline([]byte("/tmp/dir with=odd/demo.img argv0=prog env=A=1 env=B=two%20words sched=local klog=1 unknown=x -- -v hello%20world %25 --"))
	if got := string(cmd.argv0.bytes()); got != "prog" {
		t.Errorf("argv0 = %q", got)
	}
	if cmd.nenv != 2 || string(cmd.env[0].bytes()) != "A=1" || string(cmd.env[1].bytes()) != "B=two words" {
		t.Errorf("env = %d %q %q", cmd.nenv, cmd.env[0].bytes(), cmd.env[1].bytes())
	}
	if !cmd.sched.equals("local") || !cmd.klog {
		t.Errorf("sched=%q klog=%v", cmd.sched.bytes(), cmd.klog)
	}
	want := []string{"-v", "hello world", "%", "--"}
	if cmd.nargs != len(want) {
		t.Fatalf("nargs = %d, want %d", cmd.nargs, len(want))
	}
	for i, w := range want {
		if got := string(cmd.args[i].bytes()); got != w {
			t.Errorf("arg %d = %q, want %q", i, got, w)
		}
	}
	if cmd.bad {
		t.Error("well-formed line flagged bad")
	}
}

func TestParseCmdlineMalformed(t *testing.T) {
	for _, line := range []string{"k env=%zz", "k -- abc%4", "k -- %"} {
		resetCmd()
		parseCmdline([]byte(line))
		if !cmd.bad {
			t.Errorf("%q: not flagged as malformed", line)
		}
	}
}

// TestProcessImage checks the System V initial stack the runtime reads at _rt0_amd64_linux:
// argc, argv, NULL, envp, NULL, auxv pairs ending in AT_NULL, 16-byte aligned SP, AT_PAGESZ, and a
// writable AT_RANDOM block.
func TestProcessImage(t *testing.T) {
	resetCmd()
	parseCmdline([]byte("img argv0=demo env=GODEBUG=x=1 -- a bb"))
	var stack [8192]byte
	top := uintptr(unsafe.Pointer(&stack[0])) + uintptr(len(stack))
	random := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	sp := writeProcessImage(top, &random)
	if sp%16 != 0 {
		t.Errorf("SP %#x not 16-byte aligned", sp)
	}
	base := uintptr(unsafe.Pointer(&stack[0]))
	word := func(a uintptr) uint64 { return binary.LittleEndian.Uint64(stack[a-base:]) }
	cstr := func(a uintptr) string {
		i := a - base
		j := i
		for stack[j] != 0 {
			j++
		}
		return string(stack[i:j])
	}
	argc := int(word(sp))
	var argv []string
	p := sp + 8
	for i := 0; i < argc; i++ {
		argv = append(argv, cstr(uintptr(word(p))))
		p += 8
	}
	if word(p) != 0 {
		t.Fatal("argv not NULL-terminated")
	}
	p += 8
	if want := []string{"demo", "a", "bb"}; len(argv) != 3 || argv[0] != want[0] || argv[1] != want[1] || argv[2] != want[2] {
		t.Errorf("argv = %q", argv)
	}
	var envp []string
	for word(p) != 0 {
		envp = append(envp, cstr(uintptr(word(p))))
		p += 8
	}
	p += 8
	if len(envp) != 1 || envp[0] != "GODEBUG=x=1" {
		t.Errorf("envp = %q", envp)
	}
	aux := map[uint64]uint64{}
	for {
		tag, val := word(p), word(p+8)
		p += 16
		if tag == atNull {
			break
		}
		aux[tag] = val
	}
	if aux[atPagesz] != mm.PageSize {
		t.Errorf("AT_PAGESZ = %d", aux[atPagesz])
	}
	r := uintptr(aux[atRandom])
	if r < sp || r+16 > top || stack[r-base] != 1 || stack[r-base+15] != 16 {
		t.Errorf("AT_RANDOM %#x does not point at the random bytes", r)
	}
	if cstr(uintptr(aux[atExecfn])) != "demo" {
		t.Errorf("AT_EXECFN = %q", cstr(uintptr(aux[atExecfn])))
	}
	if _, ok := aux[atSysinfoEhdr]; ok {
		t.Errorf("AT_SYSINFO_EHDR passed without a vDSO")
	}

	// With a vDSO mapped, AT_SYSINFO_EHDR names its ELF header.
	vdsoState.ehdr = vdsoAddr
	defer func() { vdsoState.ehdr = 0 }()
	sp = writeProcessImage(top, &random)
	if sp%16 != 0 {
		t.Errorf("SP %#x not 16-byte aligned with the vDSO", sp)
	}
	p = sp + 8*uintptr(1+argc+1+len(envp)+1)
	aux = map[uint64]uint64{}
	for {
		tag, val := word(p), word(p+8)
		p += 16
		if tag == atNull {
			break
		}
		aux[tag] = val
	}
	if aux[atSysinfoEhdr] != vdsoAddr || aux[atPagesz] != mm.PageSize {
		t.Errorf("auxv with the vDSO = %v", aux)
	}
}

// TestWithoutImage: the image is cut out of the RAM regions it overlaps.
func TestWithoutImage(t *testing.T) {
	ram := []mm.Region{{Base: 0x100000, Len: 0x3ff00000}, {Base: 0x100000000, Len: 0x1000000}}
	var out [8]mm.Region
	n := withoutImage(ram, 0x100000, 0x600000, out[:])
	if n != 2 || out[0].Base != 0x600000 || out[0].Base+out[0].Len != 0x40000000 || out[1] != ram[1] {
		t.Errorf("usable = %v", out[:n])
	}
	n = withoutImage([]mm.Region{{Base: 0x100000, Len: 0x1000000}}, 0x200000, 0x300000, out[:])
	if n != 2 || out[0] != (mm.Region{Base: 0x100000, Len: 0x100000}) || out[1] != (mm.Region{Base: 0x300000, Len: 0xe00000}) {
		t.Errorf("hole in the middle: %v", out[:n])
	}
}

func TestKbuf(t *testing.T) {
	var k kbuf
	k.s("a=").d(-42).s(" b=").x(0xbeef).s(" c=").hex(1)
	if got := string(k.b[:k.n]); got != "a=-42 b=0xbeef c=0x0000000000000001" {
		t.Errorf("kbuf = %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { var k kbuf; k.s("x").d(123456).x(77) }); n != 0 {
		t.Errorf("kbuf allocates %v times", n)
	}
}

// FuzzParseCmdline: no command line makes the parser fail or leave references outside its arena.
func FuzzParseCmdline(f *testing.F) {
	f.Add([]byte("/img argv0=prog env=A=1 sched=local klog=1 -- -v hello%20world %25"))
	f.Add([]byte("k -- %"))
	f.Add([]byte("k env=%zz " + string(make([]byte, 9000))))
	f.Fuzz(func(t *testing.T, line []byte) {
		resetCmd()
		parseCmdline(line)
		refs := append([]strRef{cmd.argv0, cmd.sched, cmd.faultT}, cmd.args[:cmd.nargs]...)
		refs = append(refs, cmd.env[:cmd.nenv]...)
		for _, r := range refs {
			if r.off < 0 || r.n < 0 || r.off+r.n > cmd.used || cmd.used > len(cmd.arena) {
				t.Fatalf("reference %+v outside the arena (%d used)", r, cmd.used)
			}
		}
	})
}
