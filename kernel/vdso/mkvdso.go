//go:build ignore

// mkvdso writes zvdso_amd64.go and zvdso_arm64.go: the x86-64 and the arm64 vDSO, each an ELF
// shared object of one page whose functions read the clock without entering the kernel (doc.go
// says why and how it is used).
//
// The x86-64 program is below, one instruction a line, in Intel syntax as golang.org/x/arch's
// x86asm prints it, next to its hand-assembled encoding (Intel SDM Vol. 2); the arm64 program is
// in mkvdso_arm64prog.go, in GNU syntax as arm64asm prints it, next to its 32-bit encoding (ARM
// ARM C6). mkvdso lays each out, fills in branch and data displacements, then decodes every
// instruction again and stops unless the decoder prints exactly the line that was written: the
// bytes mean what the text says. It then wraps the code in an ELF file — the headers, the
// dynamic symbol table with symbol versions, a SysV hash table — and writes the file as a Go
// string constant, with the listing as a comment. Nothing is written unless both images build.
//
// Run: go generate ./kernel/vdso   (or, in kernel/vdso/: go run mkvdso.go mkvdso_arm64prog.go)
package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// The vvar page lies one page below the image (vvar.go, PageSize), so in the image's own
// addresses (vaddr 0 = the ELF header) a field at offset off of Data is at vvarBase+off.
const vvarBase = -4096

// vvarFields are the fields of vdso.Data the code reads, by the name the programs use (both
// architectures: the page is the same).
var vvarFields = []struct {
	name string
	off  int64
}{
	{"vvar.seq", 0},
	{"vvar.mode", 4},
	{"vvar.cycles0", 8},
	{"vvar.mult", 16},
	{"vvar.realbase", 24},
	{"vvar.coarseres", 32},
}

// Linux x86-64 system-call numbers (arch/x86/entry/syscalls/syscall_64.tbl) for the fallbacks.
const (
	sysGettimeofday = 96
	sysTime         = 201
	sysClockGettime = 228
	sysClockGetres  = 229
)

// Clock IDs (include/uapi/linux/time.h) as bit masks: bit n is clock ID n.
const (
	realtimeClocks  = 1<<0 | 1<<5 | 1<<11       // REALTIME, REALTIME_COARSE, TAI
	monotonicClocks = 1<<1 | 1<<4 | 1<<6 | 1<<7 // MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE, BOOTTIME
	coarseClocks    = 1<<5 | 1<<6               // REALTIME_COARSE, MONOTONIC_COARSE
	maxClock        = 11                        // CLOCK_TAI, the highest ID answered here
)

// ins is one line of the program: a label ("retry:"), or an instruction and its encoding. enc
// lacks the last field when it refers to a name: a branch's rel8 (the operand is a label) or a
// RIP-relative disp32 (the operand is [vvar.field]); the assembler appends it.
type ins struct {
	asm  string
	enc  []byte
	note string
}

func op(asm, note string, enc ...byte) ins { return ins{asm: asm, enc: enc, note: note} }
func label(name string) ins                { return ins{asm: name + ":"} }

// function is one exported function: the C ABI (System V AMD64 ABI §3.2) — arguments in RDI,
// RSI, the result in RAX; RAX, RCX, RDX, RSI, RDI, R8–R11 may be clobbered, nothing else — and
// the Go runtime calls it on its g0 stack. The code uses no stack at all beyond its return
// address, and SYSCALL clobbers only RCX, R11 and RAX.
type function struct {
	name  string // the symbol: __vdso_NAME
	alias string // the weak alias, NAME, as Linux's vDSO exports both
	body  []ins
}

// readClock is the seqlock reader that every function inlines (Linux: vdso_read_begin/_retry in
// lib/vdso/gettimeofday.c): RAX ← CLOCK_MONOTONIC in ns, plus vvar.realbase where R9 is all ones
// (R9 = 0 adds nothing). It clobbers RDX, R10, R11 and jumps to the function's "busy" and
// "fallback" labels. x86 never reorders a load with an older load (SDM Vol. 3A, "Memory Ordering
// in P6 and More Recent Processor Families"), so the two reads of the counter bracket the reads
// of the fields in program order.
func readClock() []ins {
	return []ins{
		label("retry"),
		op("mov r10d, dword ptr [vvar.seq]", "R10 = the sequence counter", 0x44, 0x8b, 0x15),
		op("test r10b, 0x1", "odd: the kernel is rewriting the page", 0x41, 0xf6, 0xc2, 0x01),
		op("jnz busy", "", 0x75),
		op("mov eax, dword ptr [vvar.mode]", "", 0x8b, 0x05),
		op("test eax, eax", "ModeSyscall: no usable counter,", 0x85, 0xc0),
		op("jz fallback", "ask the kernel", 0x74),
		op("lfence", "no reading the TSC before the loads above", 0x0f, 0xae, 0xe8),
		op("rdtsc", "EDX:EAX = the time-stamp counter", 0x0f, 0x31),
		op("shl rdx, 0x20", "", 0x48, 0xc1, 0xe2, 0x20),
		op("or rax, rdx", "RAX = the TSC", 0x48, 0x09, 0xd0),
		op("sub rax, qword ptr [vvar.cycles0]", "RAX = cycles since time 0", 0x48, 0x2b, 0x05),
		op("mul qword ptr [vvar.mult]", "RDX:RAX = cycles * mult", 0x48, 0xf7, 0x25),
		op("shrd rax, rdx, 0x20", "RAX = RDX:RAX >> 32 = CLOCK_MONOTONIC", 0x48, 0x0f, 0xac, 0xd0, 0x20),
		op("mov r11, qword ptr [vvar.realbase]", "R11 = CLOCK_REALTIME at time 0", 0x4c, 0x8b, 0x1d),
		op("cmp r10d, dword ptr [vvar.seq]", "the counter moved while we read:", 0x44, 0x3b, 0x15),
		op("jnz retry", "read again", 0x75),
		op("and r11, r9", "R11 = realbase, or 0 for a monotonic clock", 0x4d, 0x21, 0xcb),
		op("add rax, r11", "RAX = the time in ns", 0x4c, 0x01, 0xd8),
	}
}

// busyWait is where readClock waits for the kernel to finish an update.
func busyWait() []ins {
	return []ins{
		label("busy"),
		op("pause", "a spin-wait hint (SDM Vol. 2B PAUSE)", 0xf3, 0x90),
		op("jmp retry", "", 0xeb),
	}
}

// divide sets RAX ← RAX / d and RDX ← RAX % d, truncating toward zero — Go's / and %, which the
// kernel uses to fill the same structures (kernel/sys_time.go).
func divide(d uint32, note string) []ins {
	return []ins{
		op(fmt.Sprintf("mov ecx, %#x", d), note, 0xb9, byte(d), byte(d>>8), byte(d>>16), byte(d>>24)),
		op("cqo", "RDX:RAX = RAX, sign-extended", 0x48, 0x99),
		op("idiv rcx", "", 0x48, 0xf7, 0xf9),
	}
}

// fallback makes the system call nr with the caller's arguments, still in RDI and RSI, and
// returns its result (-errno on failure): what Linux's vDSO does for what it cannot answer.
func fallback(nr byte, name string) []ins {
	return []ins{
		label("fallback"),
		op(fmt.Sprintf("mov eax, %#x", nr), "SYS_"+name, 0xb8, nr, 0, 0, 0),
		op("syscall", "", 0x0f, 0x05),
		op("ret", "", 0xc3),
	}
}

func seq(parts ...[]ins) []ins {
	var out []ins
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// program is the vDSO's code.
var program = []function{
	// int clock_gettime(clockid_t clk /* EDI */, struct timespec *tp /* RSI */)
	{"__vdso_clock_gettime", "clock_gettime", seq(
		[]ins{
			op("cmp edi, 0xb", "only IDs 0..11; negative IDs (CPU clocks) compare above", 0x83, 0xff, maxClock),
			op("jnbe fallback", "", 0x77),
			op("xor r9d, r9d", "R9 = 0: no offset", 0x45, 0x31, 0xc9),
			op(fmt.Sprintf("mov eax, %#x", monotonicClocks), "MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE, BOOTTIME", 0xb8, monotonicClocks, 0, 0, 0),
			op("bt eax, edi", "CF = bit EDI of EAX", 0x0f, 0xa3, 0xf8),
			op("jb retry", "", 0x72),
			op(fmt.Sprintf("mov eax, %#x", realtimeClocks), "REALTIME, REALTIME_COARSE, TAI", 0xb8, realtimeClocks&0xff, realtimeClocks>>8, 0, 0),
			op("bt eax, edi", "", 0x0f, 0xa3, 0xf8),
			op("jnb fallback", "CPU-time, alarm and unknown clocks: the kernel answers", 0x73),
			op("or r9, -0x1", "R9 = all ones: add realbase", 0x49, 0x83, 0xc9, 0xff),
		},
		readClock(),
		divide(1_000_000_000, "RAX = seconds, RDX = nanoseconds"),
		[]ins{
			op("mov qword ptr [rsi], rax", "tp->tv_sec", 0x48, 0x89, 0x06),
			op("mov qword ptr [rsi+0x8], rdx", "tp->tv_nsec", 0x48, 0x89, 0x56, 0x08),
			op("xor eax, eax", "return 0", 0x31, 0xc0),
			op("ret", "", 0xc3),
		},
		busyWait(),
		fallback(sysClockGettime, "clock_gettime"),
	)},

	// int gettimeofday(struct timeval *tv /* RDI */, struct timezone *tz /* RSI */)
	{"__vdso_gettimeofday", "gettimeofday", seq(
		[]ins{
			op("test rdi, rdi", "tv == NULL:", 0x48, 0x85, 0xff),
			op("jz tz", "only the time zone", 0x74),
			op("or r9, -0x1", "R9 = all ones: CLOCK_REALTIME", 0x49, 0x83, 0xc9, 0xff),
		},
		readClock(),
		divide(1_000_000_000, "RAX = seconds, RDX = nanoseconds"),
		[]ins{
			op("mov qword ptr [rdi], rax", "tv->tv_sec", 0x48, 0x89, 0x07),
			op("mov rax, rdx", "", 0x48, 0x89, 0xd0),
		},
		divide(1000, "RAX = microseconds"),
		[]ins{
			op("mov qword ptr [rdi+0x8], rax", "tv->tv_usec", 0x48, 0x89, 0x47, 0x08),
			label("tz"),
			op("test rsi, rsi", "", 0x48, 0x85, 0xf6),
			op("jz done", "", 0x74),
			op("mov qword ptr [rsi], 0x0", "tz_minuteswest = tz_dsttime = 0: UTC, as the kernel says", 0x48, 0xc7, 0x06, 0, 0, 0, 0),
			label("done"),
			op("xor eax, eax", "return 0", 0x31, 0xc0),
			op("ret", "", 0xc3),
		},
		busyWait(),
		fallback(sysGettimeofday, "gettimeofday"),
	)},

	// time_t time(time_t *tloc /* RDI */)
	{"__vdso_time", "time", seq(
		[]ins{
			op("or r9, -0x1", "R9 = all ones: CLOCK_REALTIME", 0x49, 0x83, 0xc9, 0xff),
		},
		readClock(),
		divide(1_000_000_000, "RAX = seconds"),
		[]ins{
			op("test rdi, rdi", "", 0x48, 0x85, 0xff),
			op("jz done", "", 0x74),
			op("mov qword ptr [rdi], rax", "*tloc", 0x48, 0x89, 0x07),
			label("done"),
			op("ret", "return the seconds", 0xc3),
		},
		busyWait(),
		fallback(sysTime, "time"),
	)},

	// int clock_getres(clockid_t clk /* EDI */, struct timespec *res /* RSI */)
	{"__vdso_clock_getres", "clock_getres", seq(
		[]ins{
			op("cmp edi, 0xb", "", 0x83, 0xff, maxClock),
			op("jnbe fallback", "", 0x77),
			op(fmt.Sprintf("mov eax, %#x", monotonicClocks|realtimeClocks), "the clocks clock_gettime answers", 0xb8, (monotonicClocks|realtimeClocks)&0xff, (monotonicClocks|realtimeClocks)>>8, 0, 0),
			op("bt eax, edi", "", 0x0f, 0xa3, 0xf8),
			op("jnb fallback", "", 0x73),
			op("test rsi, rsi", "res == NULL: nothing to store", 0x48, 0x85, 0xf6),
			op("jz done", "", 0x74),
			op("mov eax, 0x1", "1 ns,", 0xb8, 1, 0, 0, 0),
			op(fmt.Sprintf("mov ecx, %#x", coarseClocks), "but for the coarse clocks", 0xb9, coarseClocks, 0, 0, 0),
			op("bt ecx, edi", "", 0x0f, 0xa3, 0xf9),
			op("jnb store", "", 0x73),
			op("mov rax, qword ptr [vvar.coarseres]", "the kernel's tick", 0x48, 0x8b, 0x05),
			label("store"),
			op("mov qword ptr [rsi], 0x0", "res->tv_sec", 0x48, 0xc7, 0x06, 0, 0, 0, 0),
			op("mov qword ptr [rsi+0x8], rax", "res->tv_nsec", 0x48, 0x89, 0x46, 0x08),
			label("done"),
			op("xor eax, eax", "return 0", 0x31, 0xc0),
			op("ret", "", 0xc3),
		},
		fallback(sysClockGetres, "clock_getres"),
	)},
}

// placed is an assembled function, of either architecture.
type placed struct {
	name, alias string // the symbol and its weak alias ("" for none)
	off, size   uint64
	lines       []string // its listing
}

// assemble lays the program out from address base (functions 16-byte aligned, INT3 between
// them), resolves labels and vvar fields, and checks every instruction against x86asm.
func assemble(base uint64) ([]byte, []placed, error) {
	var code []byte
	var out []placed
	for _, f := range program {
		for (base+uint64(len(code)))%16 != 0 {
			code = append(code, 0xcc) // INT3: running into the padding traps
		}
		start := base + uint64(len(code))
		// Pass 1: addresses. Every instruction's size is known: its bytes plus the field.
		labels := map[string]uint64{}
		pc := start
		for _, in := range f.body {
			if name, ok := strings.CutSuffix(in.asm, ":"); ok {
				if _, dup := labels[name]; dup {
					return nil, nil, fmt.Errorf("%s: label %s defined twice", f.name, name)
				}
				labels[name] = pc
				continue
			}
			pc += uint64(len(in.enc) + fieldSize(in.asm))
		}
		// Pass 2: bytes, then the decoder's opinion.
		p := placed{name: f.name, alias: f.alias, off: start}
		pc = start
		p.lines = append(p.lines, f.name+":")
		for _, in := range f.body {
			if _, ok := strings.CutSuffix(in.asm, ":"); ok {
				p.lines = append(p.lines, in.asm)
				continue
			}
			b := append([]byte(nil), in.enc...)
			next := pc + uint64(len(in.enc)+fieldSize(in.asm))
			var sym x86asm.SymLookup
			switch {
			case isVvarRef(in.asm):
				name := in.asm[strings.Index(in.asm, "[")+1 : strings.Index(in.asm, "]")]
				addr, ok := vvarAddr(name)
				if !ok {
					return nil, nil, fmt.Errorf("%s: %q: no field %s", f.name, in.asm, name)
				}
				b = binary.LittleEndian.AppendUint32(b, uint32(int32(int64(addr)-int64(next))))
				// x86asm keeps a disp32 zero-extended (the CPU sign-extends it, SDM Vol. 2A
				// §2.2.1.6), so the address it asks about is right only in its low 32 bits.
				sym = func(a uint64) (string, uint64) {
					for _, v := range vvarFields {
						if uint32(a) == uint32(vvarBase+v.off) {
							return v.name, a
						}
					}
					return "", 0
				}
			case isBranch(in.asm):
				target := in.asm[strings.LastIndex(in.asm, " ")+1:]
				addr, ok := labels[target]
				if !ok {
					return nil, nil, fmt.Errorf("%s: %q: no label %s", f.name, in.asm, target)
				}
				rel := int64(addr) - int64(next)
				if rel < -128 || rel > 127 {
					return nil, nil, fmt.Errorf("%s: %q: target %d bytes away, out of rel8 range", f.name, in.asm, rel)
				}
				b = append(b, byte(int8(rel)))
				sym = func(a uint64) (string, uint64) {
					if a == addr {
						return target, a
					}
					return "", 0
				}
			}
			inst, err := x86asm.Decode(b, 64)
			if err != nil || inst.Len != len(b) {
				return nil, nil, fmt.Errorf("%s: %q: % x does not decode as one instruction (%v)", f.name, in.asm, b, err)
			}
			if got := x86asm.IntelSyntax(inst, pc, sym); got != in.asm {
				return nil, nil, fmt.Errorf("%s: % x decodes as %q, not %q", f.name, b, got, in.asm)
			}
			line := fmt.Sprintf("  %#04x  %-22s %-36s", pc, fmt.Sprintf("% x", b), in.asm)
			if in.note != "" {
				line += " ; " + in.note
			}
			p.lines = append(p.lines, strings.TrimRight(line, " "))
			code = append(code, b...)
			pc = next
		}
		p.size = pc - start
		out = append(out, p)
	}
	return code, out, nil
}

func isVvarRef(asm string) bool { return strings.Contains(asm, "[vvar.") }

func isBranch(asm string) bool { return strings.HasPrefix(asm, "j") }

// fieldSize is the size of the field the assembler appends: disp32 or rel8.
func fieldSize(asm string) int {
	switch {
	case isVvarRef(asm):
		return 4
	case isBranch(asm):
		return 1
	}
	return 0
}

func vvarAddr(name string) (uint64, bool) {
	for _, v := range vvarFields {
		if v.name == name {
			return uint64(vvarBase + v.off), true
		}
	}
	return 0, false
}

// elfHash is the System V ABI's symbol hash (gABI, "Hash Table"): DT_HASH buckets and the
// version definitions' vd_hash.
func elfHash(name string) uint32 {
	var h uint32
	for _, c := range []byte(name) {
		h = h<<4 + uint32(c)
		g := h & 0xf0000000
		if g != 0 {
			h ^= g >> 24
		}
		h &^= g
	}
	return h
}

// The ELF file. The layout, all in one page and all loaded (the vaddr of everything is its file
// offset, the image being linked at 0):
//
//	ELF header, program headers (PT_LOAD of the whole file R+X, PT_DYNAMIC),
//	.hash, .dynsym, .dynstr, .gnu.version, .gnu.version_d, .dynamic, .text,
//	.shstrtab, section headers
const (
	soname  = "linux-vdso.so.1" // what Linux's vDSO calls itself (DT_SONAME, the base version)
	nbucket = 3                 // DT_HASH buckets: a few chains, to exercise them
)

// target is one architecture's vDSO: what differs between the two images. The rest — the ELF
// layout, the hash table, the version definitions, the generated file — is shared.
type target struct {
	goarch    string      // the file written is zvdso_<goarch>.go
	title     string      // the architecture, for the generated comments
	machine   elf.Machine // e_machine
	version   string      // the version of every symbol (Linux: the arch's vdso.lds.S)
	prefix    string      // the symbols' prefix, left out of the generated constants' names
	sigreturn string      // the signal-return trampoline's symbol, "" for none: SigreturnOffset
	listing   string      // the listing's header comment: its decoder and syntax
	assemble  func(base uint64) ([]byte, []placed, error)
}

// amd64 is the x86-64 vDSO: Linux's arch/x86/entry/vdso/vdso.lds.S exports __vdso_* at
// LINUX_2.6, each with a weak alias.
var amd64 = target{
	goarch:  "amd64",
	title:   "x86-64",
	machine: elf.EM_X86_64,
	version: "LINUX_2.6",
	prefix:  "__vdso_",
	listing: `// Listing of the code, decoded by golang.org/x/arch/x86/x86asm (Intel syntax), with
// mkvdso.go's notes. Addresses are offsets into Image; vvar.* are the fields of the page
// below it.`,
	assemble: assemble,
}

// Section indexes.
const (
	shNull = iota
	shHash
	shDynsym
	shDynstr
	shVersym
	shVerdef
	shDynamic
	shText
	shShstrtab
	shNum
)

// buf is the file being written; each piece starts at the alignment it needs.
type buf struct{ bytes.Buffer }

func (b *buf) align(n int) uint64 {
	for b.Len()%n != 0 {
		b.WriteByte(0)
	}
	return uint64(b.Len())
}

func (b *buf) put(v any) { binary.Write(&b.Buffer, binary.LittleEndian, v) }

// strtab is a string table: offset 0 is the empty string.
type strtab struct {
	b   []byte
	off map[string]uint32
}

func newStrtab() *strtab { return &strtab{b: []byte{0}, off: map[string]uint32{"": 0}} }

func (s *strtab) add(name string) uint32 {
	if o, ok := s.off[name]; ok {
		return o
	}
	o := uint32(len(s.b))
	s.b = append(append(s.b, name...), 0)
	s.off[name] = o
	return o
}

type sym struct {
	name  string
	bind  elf.SymBind
	value uint64
	size  uint64
}

// build assembles t's program and wraps it in the ELF file: the file and the functions in it.
func build(t target) ([]byte, []placed, error) {
	// The symbols: the null symbol, every function (global), then the aliases (weak), if any.
	dynstr := newStrtab()
	soOff := dynstr.add(soname)
	verOff := dynstr.add(t.version)
	nsyms := 0

	// Everything before .text has a size that does not depend on the code, so lay it out first
	// with placeholder symbols, assemble at the resulting .text address, then write for real.
	layout := func(code []byte, fns []placed) (*buf, [shNum]elf.Section64, uint64) {
		syms := []sym{{}}
		for _, f := range fns {
			syms = append(syms, sym{f.name, elf.STB_GLOBAL, f.off, f.size})
		}
		for _, f := range fns {
			if f.alias != "" {
				syms = append(syms, sym{f.alias, elf.STB_WEAK, f.off, f.size})
			}
		}
		nsyms = len(syms)
		for _, s := range syms {
			dynstr.add(s.name)
		}
		var sh [shNum]elf.Section64
		var b buf
		b.Write(make([]byte, 64+2*56)) // ELF header and program headers, written last

		// .hash: nbucket, nchain, the buckets, the chains (gABI "Hash Table").
		sh[shHash] = elf.Section64{Type: uint32(elf.SHT_HASH), Flags: uint64(elf.SHF_ALLOC), Addr: b.align(8), Link: shDynsym, Addralign: 8, Entsize: 4}
		buckets := make([]uint32, nbucket)
		chains := make([]uint32, len(syms))
		for i := 1; i < len(syms); i++ {
			h := elfHash(syms[i].name) % nbucket
			chains[i] = buckets[h]
			buckets[h] = uint32(i)
		}
		b.put([]uint32{nbucket, uint32(len(syms))})
		b.put(buckets)
		b.put(chains)

		sh[shDynsym] = elf.Section64{Type: uint32(elf.SHT_DYNSYM), Flags: uint64(elf.SHF_ALLOC), Addr: b.align(8), Link: shDynstr, Info: 1, Addralign: 8, Entsize: 24}
		for i, s := range syms {
			e := elf.Sym64{}
			if i > 0 {
				e = elf.Sym64{Name: dynstr.add(s.name), Info: elf.ST_INFO(s.bind, elf.STT_FUNC), Shndx: shText, Value: s.value, Size: s.size}
			}
			b.put(e)
		}

		sh[shDynstr] = elf.Section64{Type: uint32(elf.SHT_STRTAB), Flags: uint64(elf.SHF_ALLOC), Addr: b.align(1), Addralign: 1}
		b.Write(dynstr.b)

		// .gnu.version: one half-word per symbol, the index of its version definition: 0 (local)
		// for the null symbol, 2 (t.version) for the others.
		sh[shVersym] = elf.Section64{Type: uint32(elf.SHT_GNU_VERSYM), Flags: uint64(elf.SHF_ALLOC), Addr: b.align(2), Link: shDynsym, Addralign: 2, Entsize: 2}
		for i := range syms {
			b.put(uint16(min(i, 1) * 2))
		}

		// .gnu.version_d: two Elf64_Verdef, each with one Elf64_Verdaux (LSB 3.2, "Symbol
		// Versioning"): index 1, the file itself (VER_FLG_BASE, named by the soname), and index
		// 2, t.version.
		sh[shVerdef] = elf.Section64{Type: uint32(elf.SHT_GNU_VERDEF), Flags: uint64(elf.SHF_ALLOC), Addr: b.align(4), Link: shDynstr, Info: 2, Addralign: 4}
		const verFlgBase = 1
		for i, d := range []struct {
			flags uint16
			name  string
			off   uint32
		}{{verFlgBase, soname, soOff}, {0, t.version, verOff}} {
			next := uint32(20 + 8)
			if i == 1 {
				next = 0
			}
			b.put(struct {
				Version, Flags, Ndx, Cnt uint16
				Hash, Aux, Next          uint32
			}{1, d.flags, uint16(i + 1), 1, elfHash(d.name), 20, next})
			b.put([2]uint32{d.off, 0}) // vda_name, vda_next
		}

		sh[shDynamic] = elf.Section64{Type: uint32(elf.SHT_DYNAMIC), Flags: uint64(elf.SHF_ALLOC), Addr: b.align(8), Link: shDynstr, Addralign: 8, Entsize: 16}
		for _, d := range []elf.Dyn64{
			{Tag: int64(elf.DT_SONAME), Val: uint64(soOff)},
			{Tag: int64(elf.DT_HASH), Val: sh[shHash].Addr},
			{Tag: int64(elf.DT_STRTAB), Val: sh[shDynstr].Addr},
			{Tag: int64(elf.DT_SYMTAB), Val: sh[shDynsym].Addr},
			{Tag: int64(elf.DT_STRSZ), Val: uint64(len(dynstr.b))},
			{Tag: int64(elf.DT_SYMENT), Val: 24},
			{Tag: int64(elf.DT_VERSYM), Val: sh[shVersym].Addr},
			{Tag: int64(elf.DT_VERDEF), Val: sh[shVerdef].Addr},
			{Tag: int64(elf.DT_VERDEFNUM), Val: 2},
			{Tag: int64(elf.DT_NULL)},
		} {
			b.put(d)
		}

		sh[shText] = elf.Section64{Type: uint32(elf.SHT_PROGBITS), Flags: uint64(elf.SHF_ALLOC | elf.SHF_EXECINSTR), Addr: b.align(16), Addralign: 16}
		return &b, sh, sh[shText].Addr
	}

	// Dry run: where .text starts. The names are known already, so the string table and every
	// size before .text are final.
	_, fns, err := t.assemble(0)
	if err != nil {
		return nil, nil, err
	}
	_, _, textAddr := layout(nil, fns)
	code, fns, err := t.assemble(textAddr)
	if err != nil {
		return nil, nil, err
	}
	b, sh, at := layout(code, fns)
	if at != textAddr {
		return nil, nil, fmt.Errorf(".text moved from %#x to %#x", textAddr, at)
	}
	b.Write(code)
	for i := range sh {
		sh[i].Off = sh[i].Addr
	}
	sh[shText].Size = uint64(len(code))
	sh[shHash].Size = sh[shDynsym].Addr - sh[shHash].Addr
	sh[shDynsym].Size = 24 * uint64(nsyms)
	sh[shDynstr].Size = uint64(len(dynstr.b))
	sh[shVersym].Size = 2 * uint64(nsyms)
	sh[shVerdef].Size = 2 * 28
	sh[shDynamic].Size = 10 * 16

	shstr := newStrtab()
	names := [shNum]string{"", ".hash", ".dynsym", ".dynstr", ".gnu.version", ".gnu.version_d", ".dynamic", ".text", ".shstrtab"}
	for i := range sh {
		sh[i].Name = shstr.add(names[i])
	}
	sh[shShstrtab] = elf.Section64{Name: sh[shShstrtab].Name, Type: uint32(elf.SHT_STRTAB), Off: uint64(b.Len()), Size: uint64(len(shstr.b)), Addralign: 1}
	b.Write(shstr.b)
	shoff := b.align(8)
	b.put(sh)
	size := uint64(b.Len())

	out := b.Bytes()
	var hdr buf
	hdr.put(elf.Header64{
		Ident:     [16]byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT), byte(elf.ELFOSABI_NONE)},
		Type:      uint16(elf.ET_DYN),
		Machine:   uint16(t.machine),
		Version:   uint32(elf.EV_CURRENT),
		Phoff:     64,
		Shoff:     shoff,
		Ehsize:    64,
		Phentsize: 56,
		Phnum:     2,
		Shentsize: 64,
		Shnum:     shNum,
		Shstrndx:  shShstrtab,
	})
	hdr.put(elf.Prog64{Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X), Filesz: size, Memsz: size, Align: 4096})
	hdr.put(elf.Prog64{Type: uint32(elf.PT_DYNAMIC), Flags: uint32(elf.PF_R), Off: sh[shDynamic].Addr, Vaddr: sh[shDynamic].Addr,
		Paddr: sh[shDynamic].Addr, Filesz: sh[shDynamic].Size, Memsz: sh[shDynamic].Size, Align: 8})
	copy(out, hdr.Bytes())
	if size > 4096 {
		return nil, nil, fmt.Errorf("the image is %d bytes: more than the one page the kernel maps", size)
	}
	return out, fns, nil
}

// camel turns clock_gettime into ClockGettime.
func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(s, "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// generate returns zvdso_<arch>.go for t: the image as a string constant, the functions' offsets
// and sizes, the vvar offsets the code was assembled with, and the listing.
func generate(t target) ([]byte, error) {
	img, fns, err := build(t)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", t.goarch, err)
	}
	var g bytes.Buffer
	fmt.Fprintf(&g, "// Code generated by mkvdso.go; DO NOT EDIT.\n\npackage vdso\n\n")
	fmt.Fprintf(&g, "// Image is the %s vDSO, %d bytes: an ELF shared object for the kernel to map at a page\n", t.title, len(img))
	fmt.Fprintf(&g, "// boundary, read-only and executable, one page above the vvar page (doc.go).\n")
	fmt.Fprintf(&g, "const Image = \"\" +\n")
	for i := 0; i < len(img); i += 16 {
		var line strings.Builder
		for _, c := range img[i:min(i+16, len(img))] {
			fmt.Fprintf(&line, "\\x%02x", c)
		}
		sep := " +"
		if i+16 >= len(img) {
			sep = ""
		}
		fmt.Fprintf(&g, "\t\"%s\"%s\n", line.String(), sep)
	}
	fmt.Fprintf(&g, "\n// The functions, as offsets into Image and sizes (the symbol table says the same).\n")
	fmt.Fprintf(&g, "const (\n")
	sort.SliceStable(fns, func(i, j int) bool { return fns[i].off < fns[j].off })
	sigreturn := ""
	for _, f := range fns {
		id := camel(strings.TrimPrefix(f.name, t.prefix))
		fmt.Fprintf(&g, "\toff%s = %#x\n\tsize%s = %d\n", id, f.off, id, f.size)
		if f.name == t.sigreturn {
			sigreturn = "off" + id
		}
	}
	fmt.Fprintf(&g, ")\n\n")
	if t.sigreturn != "" {
		if sigreturn == "" {
			return nil, fmt.Errorf("%s: no function %s", t.goarch, t.sigreturn)
		}
		// The kernel finds the trampoline by this constant, kept in step with the symbol table.
		fmt.Fprintf(&g, "// SigreturnOffset is %s's offset in Image: the return address the kernel\n", t.sigreturn)
		fmt.Fprintf(&g, "// gives a signal handler installed without SA_RESTORER (kernel/abi_%s.go).\n", t.goarch)
		fmt.Fprintf(&g, "const SigreturnOffset = %s\n\n", sigreturn)
	}
	fmt.Fprintf(&g, "// The offsets of Data's fields the code was assembled with (TestVVarLayout checks them).\nconst (\n")
	for _, v := range vvarFields {
		id := camel(strings.TrimPrefix(v.name, "vvar."))
		fmt.Fprintf(&g, "\tasm%s = %d\n", id, v.off)
	}
	fmt.Fprintf(&g, ")\n\n%s\n//\n", t.listing)
	for _, f := range fns {
		for _, l := range f.lines {
			fmt.Fprintf(&g, "//\t%s\n", l)
		}
		fmt.Fprintf(&g, "//\n")
	}
	src, err := format.Source(g.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: gofmt: %v", t.goarch, err)
	}
	return src, nil
}

// main writes zvdso_amd64.go and zvdso_arm64.go into the current directory, or into DIR with
// -dir DIR (TestGenerated compares the two). Either both files are written or neither.
func main() {
	dir := "."
	if len(os.Args) > 2 && os.Args[1] == "-dir" {
		dir = os.Args[2]
	}
	var files [][]byte
	for _, t := range []target{amd64, arm64} {
		src, err := generate(t)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mkvdso:", err)
			os.Exit(1)
		}
		files = append(files, src)
	}
	for i, t := range []target{amd64, arm64} {
		if err := os.WriteFile(filepath.Join(dir, "zvdso_"+t.goarch+".go"), files[i], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mkvdso:", err)
			os.Exit(1)
		}
	}
}
