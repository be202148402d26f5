// Kernel fault records: disassemble and symbolize the faulting instruction on the host.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bytes"
	"debug/elf"
	"debug/gosym"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"
)

// FaultFields parses the KEY=VALUE fields of a "panic" record's text, e.g.
// "trap=14 pc=0x1b306a code=488b00c3". Words without '=' are ignored.
func FaultFields(text string) map[string]string {
	m := map[string]string{}
	for _, w := range strings.Fields(text) {
		if k, v, ok := strings.Cut(w, "="); ok {
			m[k] = v
		}
	}
	return m
}

// DescribeFault explains a kernel "panic" record: the faulting instruction,
// disassembled with x86asm, or arm64asm for an EM_AARCH64 image (which the
// kernel cannot do: decoding allocates, and its fault path must not), and
// the function containing rip. Instruction bytes come from the record's code= field, or else from
// the ELF image (whose file offset is rip - base: the image is flat, see
// package gmpos/boot). It returns "" when the record has no rip.
func DescribeFault(text string, elfFile []byte) string {
	f := FaultFields(text)
	pc := f["pc"]
	if pc == "" {
		pc = f["rip"] // kernels before the arch contract
	}
	rip, err := strconv.ParseUint(strings.TrimPrefix(pc, "0x"), 16, 64)
	if err != nil {
		return ""
	}
	var ef *elf.File
	if elfFile != nil {
		ef, _ = elf.NewFile(bytes.NewReader(elfFile))
	}
	code, err := hex.DecodeString(f["code"])
	src := "kernel"
	if err != nil || len(code) == 0 {
		code, src = textBytes(ef, elfFile, rip, 16), "image"
	}
	syms := funcSymbols(ef)
	where := fmt.Sprintf("%#x", rip)
	if s := syms.lookup(rip); s != "" {
		where += " (" + s + ")"
	}
	if line := sourceLine(ef, rip); line != "" {
		where += " [" + line + "]"
	}
	if len(code) == 0 {
		return "faulting instruction at " + where + ": bytes not available"
	}
	if ef != nil && ef.Machine == elf.EM_AARCH64 {
		return describeArm64(code, rip, where, src, syms) + describeCallers(f["callers"], ef, syms)
	}
	inst, err := x86asm.Decode(code, 64)
	if err != nil {
		return fmt.Sprintf("faulting instruction at %s: cannot decode % x (%s bytes): %v", where, code, src, err)
	}
	lookup := func(addr uint64) (string, uint64) { return syms.lookupBase(addr) }
	return fmt.Sprintf("faulting instruction at %s: %s   [%s: % x]", where,
		x86asm.GoSyntax(inst, rip, lookup), x86asm.IntelSyntax(inst, rip, lookup), code[:inst.Len]) +
		describeCallers(f["callers"], ef, syms)
}

// describeArm64 disassembles the arm64 instruction at pc, the first 4 bytes of code: Go's
// assembler syntax (symbolized), then the Arm syntax.
func describeArm64(code []byte, pc uint64, where, src string, syms symtab) string {
	if len(code) < 4 {
		return fmt.Sprintf("faulting instruction at %s: % x (%s bytes): an arm64 instruction is 4 bytes", where, code, src)
	}
	inst, err := arm64asm.Decode(code[:4])
	if err != nil {
		return fmt.Sprintf("faulting instruction at %s: cannot decode % x (%s bytes): %v", where, code[:4], src, err)
	}
	lookup := func(addr uint64) (string, uint64) { return syms.lookupBase(addr) }
	// GoSyntax's text reader (for PC-relative literals) is unused by x/arch v0.32: nil.
	return fmt.Sprintf("faulting instruction at %s: %s   [%s: % x]", where,
		arm64asm.GoSyntax(inst, pc, lookup, nil), inst.String(), code[:4])
}

// describeCallers symbolizes the record's callers= field (return PCs, innermost first, from the
// kernel's frame-pointer walk: kernel/fault.go faultCallers), one line each. A return PC is the
// instruction after the call, so the line looked up is that of pc-1: the call itself.
func describeCallers(field string, ef *elf.File, syms symtab) string {
	if field == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("\ncalled from:")
	for _, w := range strings.Split(field, ",") {
		pc, err := strconv.ParseUint(strings.TrimPrefix(w, "0x"), 16, 64)
		if err != nil || pc == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n  %#x", pc)
		if s := syms.lookup(pc - 1); s != "" {
			b.WriteString(" " + s)
		}
		if line := sourceLine(ef, pc-1); line != "" {
			b.WriteString(" [" + line + "]")
		}
	}
	return b.String()
}

// sourceLine returns "file:line" for pc from the program's own pclntab. Where the compiler
// inlined a function, the line is the inlined function's (the symbol is its caller's), which is
// exactly what a reader of a kernel fault needs to see.
func sourceLine(ef *elf.File, pc uint64) string {
	if ef == nil {
		return ""
	}
	pcln, text := ef.Section(".gopclntab"), ef.Section(".text")
	if pcln == nil || text == nil {
		return ""
	}
	data, err := pcln.Data()
	if err != nil {
		return ""
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		return ""
	}
	file, line, fn := tab.PCToLine(pc)
	if fn == nil || file == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// textBytes reads n bytes at address addr from the PT_LOAD that holds it.
func textBytes(ef *elf.File, file []byte, addr uint64, n int) []byte {
	if ef == nil {
		return nil
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr < p.Vaddr+p.Filesz {
			off := p.Off + (addr - p.Vaddr)
			end := min(off+uint64(n), p.Off+p.Filesz, uint64(len(file)))
			return file[off:end]
		}
	}
	return nil
}

type funcSym struct {
	name       string
	addr, size uint64
}

type symtab []funcSym

func funcSymbols(ef *elf.File) symtab {
	if ef == nil {
		return nil
	}
	all, err := ef.Symbols()
	if err != nil {
		return nil
	}
	var t symtab
	for _, s := range all {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			t = append(t, funcSym{s.Name, s.Value, s.Size})
		}
	}
	sort.Slice(t, func(i, j int) bool { return t[i].addr < t[j].addr })
	return t
}

// lookupBase returns the function containing addr and its start address.
func (t symtab) lookupBase(addr uint64) (string, uint64) {
	i := sort.Search(len(t), func(i int) bool { return t[i].addr > addr }) - 1
	if i < 0 || (t[i].size != 0 && addr >= t[i].addr+t[i].size) {
		return "", 0
	}
	return t[i].name, t[i].addr
}

// lookup formats addr as function+offset.
func (t symtab) lookup(addr uint64) string {
	name, base := t.lookupBase(addr)
	if name == "" {
		return ""
	}
	return fmt.Sprintf("%s+%#x", name, addr-base)
}
