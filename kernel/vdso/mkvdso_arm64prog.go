//go:build ignore

// The arm64 vDSO's program and its assembler, part of mkvdso (mkvdso.go has the rest: the ELF
// file and the generated Go file). Run with it: go run mkvdso.go mkvdso_arm64prog.go.
//
// The program is written as the x86-64 one is: one instruction a line, its text next to its
// hand-assembled 32-bit encoding (ARM ARM C6, "A64 Base Instruction Descriptions"). The text is
// GNU syntax — ARM's own assembly language, the one of the ARM ARM and of Linux's
// arch/arm64/kernel/vdso — exactly as golang.org/x/arch's arm64asm.GNUSyntax prints it, with one
// liberty: a PC-relative operand (a branch target, ADR's address, a literal load) is written as
// the name of what it reaches, a label or a vvar field, where the decoder prints ".+0x..". The
// assembler fills in that field, decodes the word, replaces the decoder's ".+0x.." by the name
// — only if it is that name's address — and stops unless the result is the written text.
// The Go (Plan 9) syntax was the other choice; it is gmpos's own assembly elsewhere, but its
// operand order (MSUB R12, R10, R13, R14 for msub x14, x13, x12, x10) would make the arithmetic
// below harder to check against the ARM ARM, which is where a reader checks an encoding.

package main

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"

	"golang.org/x/arch/arm64/arm64asm"
)

// Linux arm64 system-call numbers (include/uapi/asm-generic/unistd.h) for the fallbacks and the
// signal trampoline.
const (
	a64SysClockGettime = 113
	a64SysClockGetres  = 114
	a64SysRtSigreturn  = 139
	a64SysGettimeofday = 169
)

// a64Ins is one line of the arm64 program: a label ("retry:"), or an instruction, its encoding
// and a note. When the text's last operand names a label or a vvar field, enc leaves that
// PC-relative field zero and the assembler fills it in.
type a64Ins struct {
	asm  string
	enc  uint32
	note string
}

func a64Op(asm, note string, enc uint32) a64Ins { return a64Ins{asm: asm, enc: enc, note: note} }
func a64Label(name string) a64Ins               { return a64Ins{asm: name + ":"} }

// a64Function is one exported function, called with the C ABI (AAPCS64 §6: arguments in x0,
// x1, the result in x0; x0–x17 may be clobbered, x18 is the platform's and x19–x30 and SP are
// the caller's). The code clobbers only x8–x16 and uses no stack at all: the Go runtime calls
// __kernel_clock_gettime on the g0 or the signal stack with the timespec it passes right at SP
// (sys_linux_arm64.s nanotime1, walltime), and keeps g in x28 and its own state in x20–x22
// across the call.
type a64Function struct {
	name string // the symbol: __kernel_NAME, as Linux's arm64 vDSO exports it
	body []a64Ins
}

// a64ReadClock is the seqlock reader that each clock function inlines (Linux: vdso_read_begin
// and _retry in lib/vdso/gettimeofday.c, with arch/arm64's __arch_get_hw_counter): x10 ←
// CLOCK_MONOTONIC in ns, plus vvar.realbase where x11 is all ones (x11 = 0 adds nothing). It
// clobbers x9, x12–x16 and jumps to the function's "busy" and "fallback" labels.
//
// Unlike x86, arm64 may satisfy two loads out of program order (ARM ARM B2.3, the memory
// model), so the order the seqlock needs is asked for. The first read of the sequence counter
// is a load-acquire (LDAR): no later load is satisfied before it, so no field is read from
// before the update that the even value vouches for. A DMB ISHLD before the second read keeps
// every field load ahead of it (it is Linux's smp_rmb() on arm64); an acquire could not serve
// there, as it orders the loads after it, not those before. CNTVCT_EL0 is not memory, and
// neither barrier orders its read: the ISB keeps MRS from reading it early, ahead of the
// instructions before it (ARM ARM D11.2.2: reads of the counter "can occur speculatively and
// out of order"), and the second read of the sequence counter takes its address from the
// counter value (EOR of a register with itself is 0, but a dependency all the same, B2.3), so
// it cannot be performed before CNTVCT_EL0 has been read — Linux's
// arch_counter_enforce_ordering does the same with a dummy load.
//
// The vvar page is one page below the image. ADR and the literal LDR reach ±1 MiB of the
// instruction, so every field is one PC-relative instruction away, as RIP-relative operands are
// on x86: no ADRP (whose page-granular result would also do, but needs a second instruction),
// no address kept anywhere. x9 holds &vvar.seq for LDAR, which has no PC-relative form.
func a64ReadClock() []a64Ins {
	return []a64Ins{
		a64Op("adr x9, vvar.seq", "x9 = the sequence counter's address", 0x10000009),
		a64Label("retry"),
		a64Op("ldar w15, [x9]", "w15 = the sequence counter; acquire: no later load before it", 0x88dffd2f),
		a64Op("tbnz w15, #0, busy", "odd: the kernel is rewriting the page", 0x3700000f),
		a64Op("ldr w10, vvar.mode", "", 0x1800000a),
		a64Op("cbz w10, fallback", "ModeSyscall: no usable counter, ask the kernel", 0x3400000a),
		a64Op("ldr x12, vvar.cycles0", "x12 = CNTVCT_EL0 at time 0", 0x5800000c),
		a64Op("ldr x13, vvar.mult", "x13 = ns per cycle << 32", 0x5800000d),
		a64Op("ldr x14, vvar.realbase", "x14 = CLOCK_REALTIME at time 0", 0x5800000e),
		a64Op("isb", "no reading CNTVCT_EL0 ahead of the instructions above", 0xd5033fdf),
		a64Op("mrs x10, s3_3_c14_c0_2", "x10 = CNTVCT_EL0, the virtual counter", 0xd53be04a),
		a64Op("eor x16, x10, x10", "x16 = 0, but only once CNTVCT_EL0 is read", 0xca0a0150),
		a64Op("sub x10, x10, x12", "x10 = cycles since time 0", 0xcb0c014a),
		a64Op("mul x12, x10, x13", "x12 = low 64 bits of cycles * mult", 0x9b0d7d4c),
		a64Op("umulh x13, x10, x13", "x13 = high 64 bits", 0x9bcd7d4d),
		a64Op("extr x10, x13, x12, #32", "x10 = x13:x12 >> 32 = CLOCK_MONOTONIC", 0x93cc81aa),
		a64Op("dmb ishld", "the loads above before the load below", 0xd50339bf),
		a64Op("ldr w16, [x9,x16]", "the sequence counter again, after CNTVCT_EL0", 0xb8706930),
		a64Op("cmp w16, w15", "it moved while we read:", 0x6b0f021f),
		a64Op("b.ne retry", "read again", 0x54000001),
		a64Op("and x14, x14, x11", "x14 = realbase, or 0 for a monotonic clock", 0x8a0b01ce),
		a64Op("add x10, x10, x14", "x10 = the time in ns", 0x8b0e014a),
	}
}

// a64Split sets x13 ← x10 / 1e9 and x14 ← x10 % 1e9, truncating toward zero — Go's / and %,
// which the kernel uses to fill the same structures (kernel/sys_time.go). 1e9 needs two
// instructions: MOVZ and MOVK write 16 bits each.
func a64Split() []a64Ins {
	return []a64Ins{
		a64Op("mov x12, #0xca00", "", 0xd299400c),
		a64Op("movk x12, #0x3b9a, lsl #16", "x12 = 1e9", 0xf2a7734c),
		a64Op("sdiv x13, x10, x12", "x13 = seconds", 0x9acc0d4d),
		a64Op("msub x14, x13, x12, x10", "x14 = ns - seconds*1e9 = nanoseconds", 0x9b0ca9ae),
	}
}

// a64Busy is where a64ReadClock waits for the kernel to finish an update.
func a64Busy() []a64Ins {
	return []a64Ins{
		a64Label("busy"),
		a64Op("yield", "a spin-wait hint (Linux's cpu_relax)", 0xd503203f),
		a64Op("b retry", "", 0x14000000),
	}
}

// a64Fallback makes the system call nr with the caller's arguments, still in x0 and x1, and
// returns its result (-errno on failure): what Linux's vDSO does for what it cannot answer.
// movEnc is "mov x8, #nr" (MOVZ), hand-assembled like the rest.
func a64Fallback(nr int, name string, movEnc uint32) []a64Ins {
	return []a64Ins{
		a64Label("fallback"),
		a64Op(fmt.Sprintf("mov x8, #%#x", nr), "SYS_"+name, movEnc),
		a64Op("svc #0x0", "", 0xd4000001),
		a64Op("ret", "", 0xd65f03c0),
	}
}

func a64Seq(parts ...[]a64Ins) []a64Ins {
	var out []a64Ins
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// a64Program is the arm64 vDSO's code: the functions of Linux's arch/arm64/kernel/vdso/
// vdso.lds.S, all at version LINUX_2.6.39. There is no __kernel_time on arm64.
var a64Program = []a64Function{
	// int clock_gettime(clockid_t clk /* w0 */, struct timespec *tp /* x1 */)
	{"__kernel_clock_gettime", a64Seq(
		[]a64Ins{
			a64Op("cmp w0, #0xb", "only IDs 0..11; negative IDs (CPU clocks) compare above", 0x71002c1f),
			a64Op("b.hi fallback", "", 0x54000008),
			a64Op(fmt.Sprintf("mov w10, #%#x", monotonicClocks|realtimeClocks), "the clocks answered here, bit n for ID n", 0x52811e6a),
			a64Op("lsr w10, w10, w0", "bit 0 = this clock's", 0x1ac0254a),
			a64Op("tbz w10, #0, fallback", "CPU-time, alarm and unknown clocks: the kernel answers", 0x3600000a),
			a64Op(fmt.Sprintf("mov w11, #%#x", realtimeClocks), "REALTIME, REALTIME_COARSE, TAI", 0x5281042b),
			a64Op("lsr w11, w11, w0", "", 0x1ac0256b),
			a64Op("sbfx x11, x11, #0, #1", "x11 = bit 0, copied into all 64: add realbase or not", 0x9340016b),
		},
		a64ReadClock(),
		a64Split(),
		[]a64Ins{
			a64Op("stp x13, x14, [x1]", "tp->tv_sec, tp->tv_nsec", 0xa900382d),
			a64Op("mov w0, #0x0", "return 0", 0x52800000),
			a64Op("ret", "", 0xd65f03c0),
		},
		a64Busy(),
		a64Fallback(a64SysClockGettime, "clock_gettime", 0xd2800e28),
	)},

	// int gettimeofday(struct timeval *tv /* x0 */, struct timezone *tz /* x1 */)
	{"__kernel_gettimeofday", a64Seq(
		[]a64Ins{
			a64Op("cbz x0, tz", "tv == NULL: only the time zone", 0xb4000000),
			a64Op("mvn x11, xzr", "x11 = all ones: CLOCK_REALTIME", 0xaa3f03eb),
		},
		a64ReadClock(),
		a64Split(),
		[]a64Ins{
			a64Op("mov x12, #0x3e8", "", 0xd2807d0c),
			a64Op("sdiv x14, x14, x12", "x14 = microseconds", 0x9acc0dce),
			a64Op("stp x13, x14, [x0]", "tv->tv_sec, tv->tv_usec", 0xa900380d),
			a64Label("tz"),
			a64Op("cbz x1, done", "", 0xb4000001),
			a64Op("str xzr, [x1]", "tz_minuteswest = tz_dsttime = 0: UTC, as the kernel says", 0xf900003f),
			a64Label("done"),
			a64Op("mov w0, #0x0", "return 0", 0x52800000),
			a64Op("ret", "", 0xd65f03c0),
		},
		a64Busy(),
		a64Fallback(a64SysGettimeofday, "gettimeofday", 0xd2801528),
	)},

	// int clock_getres(clockid_t clk /* w0 */, struct timespec *res /* x1 */)
	{"__kernel_clock_getres", a64Seq(
		[]a64Ins{
			a64Op("cmp w0, #0xb", "", 0x71002c1f),
			a64Op("b.hi fallback", "", 0x54000008),
			a64Op(fmt.Sprintf("mov w10, #%#x", monotonicClocks|realtimeClocks), "the clocks clock_gettime answers", 0x52811e6a),
			a64Op("lsr w10, w10, w0", "", 0x1ac0254a),
			a64Op("tbz w10, #0, fallback", "", 0x3600000a),
			a64Op("cbz x1, done", "res == NULL: nothing to store", 0xb4000001),
			a64Op("mov x11, #0x1", "1 ns,", 0xd280002b),
			a64Op(fmt.Sprintf("mov w12, #%#x", coarseClocks), "but for the coarse clocks", 0x52800c0c),
			a64Op("lsr w12, w12, w0", "", 0x1ac0258c),
			a64Op("tbz w12, #0, store", "", 0x3600000c),
			a64Op("ldr x11, vvar.coarseres", "the kernel's tick", 0x5800000b),
			a64Label("store"),
			a64Op("stp xzr, x11, [x1]", "res->tv_sec = 0, res->tv_nsec", 0xa9002c3f),
			a64Label("done"),
			a64Op("mov w0, #0x0", "return 0", 0x52800000),
			a64Op("ret", "", 0xd65f03c0),
		},
		a64Fallback(a64SysClockGetres, "clock_getres", 0xd2800e48),
	)},

	// The signal trampoline: a handler installed without SA_RESTORER — every handler of the Go
	// runtime on arm64 — returns here (the kernel sets its x30 so), and rt_sigreturn restores
	// the interrupted context from the frame at SP. Exactly these two words: libgcc's and gdb's
	// unwinders recognise a signal frame by them (Linux arch/arm64/kernel/vdso/sigreturn.S).
	{"__kernel_rt_sigreturn", []a64Ins{
		a64Op(fmt.Sprintf("mov x8, #%#x", a64SysRtSigreturn), "SYS_rt_sigreturn", 0xd2801168),
		a64Op("svc #0x0", "", 0xd4000001),
	}},
}

// a64Brk is BRK #0, the padding between functions: running into it traps (SIGTRAP).
const a64Brk = 0xd4200000

// a64Field is how an instruction encodes its PC-relative operand (ARM ARM C6): the byte offset
// from the instruction, in a field of the word.
type a64Field int

const (
	a64None  a64Field = iota
	a64Imm26          // B: offset/4 in bits 0–25, ±128 MiB
	a64Imm19          // B.cond, CBZ, CBNZ, LDR (literal): offset/4 in bits 5–23, ±1 MiB
	a64Imm14          // TBZ, TBNZ: offset/4 in bits 5–18, ±32 KiB
	a64Imm21          // ADR: offset in bits 5–23 (high 19) and 29–30 (low 2), ±1 MiB
)

// a64Symbolic returns the field and the name of the operand that the assembler fills in: the
// last operand of a PC-relative instruction, when it is a name rather than a register or a
// memory operand.
func a64Symbolic(asm string) (a64Field, string) {
	mn, ops, _ := strings.Cut(asm, " ")
	last := ops[strings.LastIndex(ops, ", ")+1:]
	last = strings.TrimSpace(last)
	if last == "" || strings.ContainsAny(last[:1], "[#.") {
		return a64None, ""
	}
	switch {
	case mn == "b":
		return a64Imm26, last
	case strings.HasPrefix(mn, "b."), mn == "cbz", mn == "cbnz", mn == "ldr":
		// An "ldr" whose operand is a name is the literal form; [x9,x16] and the like are not.
		return a64Imm19, last
	case mn == "tbz", mn == "tbnz":
		return a64Imm14, last
	case mn == "adr":
		return a64Imm21, last
	}
	return a64None, ""
}

// fill puts the byte offset rel into the field of enc, which the program must have left zero.
func (f a64Field) fill(enc uint32, rel int64) (uint32, error) {
	var mask uint32
	var bits int
	switch f {
	case a64Imm26:
		mask, bits = 0x03ffffff, 28
	case a64Imm19:
		mask, bits = 0x7ffff<<5, 21
	case a64Imm14:
		mask, bits = 0x3fff<<5, 16
	case a64Imm21:
		mask, bits = 0x7ffff<<5|3<<29, 21
	}
	if enc&mask != 0 {
		return 0, fmt.Errorf("%08x: the offset field is not left zero", enc)
	}
	if rel < -(1<<(bits-1)) || rel >= 1<<(bits-1) {
		return 0, fmt.Errorf("offset %d out of range", rel)
	}
	if f == a64Imm21 { // a byte offset: its low 2 bits go to immlo
		return enc | uint32(rel)&3<<29 | uint32(rel>>2)&0x7ffff<<5, nil
	}
	if rel%4 != 0 {
		return 0, fmt.Errorf("offset %d is not a whole number of words", rel)
	}
	switch f {
	case a64Imm26:
		return enc | uint32(rel>>2)&0x03ffffff, nil
	case a64Imm19:
		return enc | uint32(rel>>2)&0x7ffff<<5, nil
	default: // a64Imm14
		return enc | uint32(rel>>2)&0x3fff<<5, nil
	}
}

// assembleA64 lays the arm64 program out from address base (functions 16-byte aligned, BRK
// between them), resolves labels and vvar fields, and checks every instruction against
// arm64asm.GNUSyntax.
func assembleA64(base uint64) ([]byte, []placed, error) {
	var code []byte
	var out []placed
	for _, f := range a64Program {
		for (base+uint64(len(code)))%16 != 0 {
			code = binary.LittleEndian.AppendUint32(code, a64Brk)
		}
		start := base + uint64(len(code))
		// Pass 1: addresses. Every instruction is 4 bytes.
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
			pc += 4
		}
		// Pass 2: words, then the decoder's opinion.
		p := placed{name: f.name, off: start}
		pc = start
		p.lines = append(p.lines, f.name+":")
		for _, in := range f.body {
			if _, ok := strings.CutSuffix(in.asm, ":"); ok {
				p.lines = append(p.lines, in.asm)
				continue
			}
			enc := in.enc
			field, name := a64Symbolic(in.asm)
			var target uint64
			if field != a64None {
				var ok bool
				if strings.HasPrefix(name, "vvar.") {
					target, ok = vvarAddr(name)
				} else {
					target, ok = labels[name]
				}
				if !ok {
					return nil, nil, fmt.Errorf("%s: %q: no label or field %s", f.name, in.asm, name)
				}
				var err error
				if enc, err = field.fill(enc, int64(target)-int64(pc)); err != nil {
					return nil, nil, fmt.Errorf("%s: %q: %v", f.name, in.asm, err)
				}
			}
			b := binary.LittleEndian.AppendUint32(nil, enc)
			inst, err := arm64asm.Decode(b)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %08x (%q) does not decode: %v", f.name, enc, in.asm, err)
			}
			// GNUSyntax leaves a space after an operandless hint ("yield "): not part of the text.
			got := strings.TrimRight(arm64asm.GNUSyntax(inst), " ")
			// Name the PC-relative operand as the program does, if and only if the word reaches
			// what the program names (the decoder prints the offset from the instruction).
			var rels []arm64asm.PCRel
			for _, a := range inst.Args {
				if r, ok := a.(arm64asm.PCRel); ok {
					rels = append(rels, r)
				}
			}
			switch {
			case len(rels) > 1:
				return nil, nil, fmt.Errorf("%s: %08x has %d PC-relative operands", f.name, enc, len(rels))
			case len(rels) == 1 && field == a64None:
				return nil, nil, fmt.Errorf("%s: %q: a PC-relative operand must name its target", f.name, in.asm)
			case len(rels) == 1 && pc+uint64(rels[0]) == target && strings.Count(got, rels[0].String()) == 1:
				got = strings.Replace(got, rels[0].String(), name, 1)
			}
			if got != in.asm {
				return nil, nil, fmt.Errorf("%s: %08x decodes as %q, not %q", f.name, enc, got, in.asm)
			}
			line := fmt.Sprintf("  %#04x  %08x  %-32s", pc, enc, in.asm)
			if in.note != "" {
				line += " ; " + in.note
			}
			p.lines = append(p.lines, strings.TrimRight(line, " "))
			code = append(code, b...)
			pc += 4
		}
		p.size = pc - start
		out = append(out, p)
	}
	return code, out, nil
}

// arm64 is the arm64 vDSO: Linux's arch/arm64/kernel/vdso/vdso.lds.S exports __kernel_* at
// LINUX_2.6.39, without aliases; the Go runtime looks up __kernel_clock_gettime
// (runtime/vdso_linux_arm64.go).
var arm64 = target{
	goarch:    "arm64",
	title:     "arm64",
	machine:   elf.EM_AARCH64,
	version:   "LINUX_2.6.39",
	prefix:    "__kernel_",
	sigreturn: "__kernel_rt_sigreturn",
	listing: `// Listing of the code, decoded by golang.org/x/arch/arm64/arm64asm (GNU syntax), with
// mkvdso_arm64prog.go's notes; a PC-relative operand is shown as the name of what it reaches.
// Addresses are offsets into Image; vvar.* are the fields of the page below it.`,
	assemble: assembleA64,
}
