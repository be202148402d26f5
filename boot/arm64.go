// The arm64 boot image: a Linux arm64 Image (64-byte header, then the flat program).
// SPDX-License-Identifier: BSD-3-Clause

package boot

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
)

// The Linux arm64 Image protocol (Linux Documentation/arch/arm64/booting.rst, §4 "Call the
// kernel image"): a boot loader — QEMU's -kernel for `virt` (hw/arm/boot.c,
// load_aarch64_image), U-Boot's booti, the Raspberry Pi firmware's kernel8.img — copies the
// file to a 2 MiB-aligned base in RAM plus text_offset and jumps to its first byte with the MMU
// off, x0 = the device tree's physical address. The header's first word is that first
// instruction: a branch to the real entry point.
const (
	// Arm64RAMBase is where the `virt` machine's RAM starts (QEMU hw/arm/virt.c, VIRT_MEM).
	Arm64RAMBase = 0x4000_0000
	// Arm64TextOffset is the header's text_offset: the image starts this far above a 2 MiB
	// boundary. 2 MiB rather than Linux's old 0x80000 because QEMU writes its own boot stub
	// (the "bootloader", BOOTLOADER_MAX_SIZE 4 KiB) at the start of RAM, and because the
	// Raspberry Pi firmware's default kernel address for arm64 is 0x20_0000 too (kernel8.img).
	Arm64TextOffset = 0x20_0000
	// Arm64LoadAddr is the image's first byte (the header) in the guest's physical memory.
	Arm64LoadAddr = Arm64RAMBase + Arm64TextOffset
	// Arm64HeaderPage is the page the header occupies before the ELF file. The program's first
	// PT_LOAD (the ELF and program headers) follows it, then .text.
	Arm64HeaderPage = 0x1000
	// Arm64LinkBase is the first PT_LOAD's address: the link flags below put .text one page
	// above it, as on amd64.
	Arm64LinkBase = Arm64LoadAddr + Arm64HeaderPage
	// Arm64LinkFlags are the contract's -ldflags for GOARCH=arm64 (docs/contract.md, "arm64
	// virt"); the runner adds -E.
	Arm64LinkFlags = "-T 0x40202000 -R 0x1000"

	// Arm64HeaderSize is the Image header's size (booting.rst §4).
	Arm64HeaderSize = 64
	// Arm64Magic is "ARM\x64" read as a little-endian u32, at offset 56.
	Arm64Magic = 0x644d5241
	// Arm64Flags: bit 0 = 0 little-endian kernel, bits 1-2 = 1 4 KiB pages, bit 3 = 0 the
	// 2 MiB-aligned base should be as close as possible to the start of DRAM (booting.rst §4,
	// "flags field").
	Arm64Flags = 0x2

	// arm64B is the AArch64 unconditional branch B imm26 (Arm ARM DDI 0487, C6.2 "B"): the
	// target is the instruction's own address plus imm26*4, so ±128 MiB.
	arm64B        = 0x1400_0000
	arm64BMask    = 0xfc00_0000
	arm64BRange   = 1 << 27
	arm64PageSize = 0x1000
)

// Arm64Platform is an arm64 machine as the Image sees it: where its RAM starts, which fixes
// where the loader puts the Image (RAMBase + Arm64TextOffset) and so the address the kernel is
// linked at. Each platform's kernel is its own build (the Pi's with -tags rpi).
type Arm64Platform struct {
	Name    string
	RAMBase uint64
}

var (
	// Arm64Virt is QEMU's virt machine: RAM from 1 GiB (hw/arm/virt.c, VIRT_MEM).
	Arm64Virt = Arm64Platform{Name: "virt", RAMBase: Arm64RAMBase}
	// Arm64RPi is the Raspberry Pi 3 and 4: RAM from 0; the firmware loads kernel8.img at
	// kernel_address (config.txt; 0x20_0000 is its arm64 default), QEMU's raspi machines
	// at text_offset (hw/arm/boot.c, load_aarch64_image).
	Arm64RPi = Arm64Platform{Name: "rpi", RAMBase: 0}
)

// LoadAddr is the Image's first byte (the header) in the guest's physical memory.
func (p Arm64Platform) LoadAddr() uint64 { return p.RAMBase + Arm64TextOffset }

// LinkBase is the first PT_LOAD's address, behind the header page.
func (p Arm64Platform) LinkBase() uint64 { return p.LoadAddr() + Arm64HeaderPage }

// LinkFlags are the platform's -ldflags (the runner adds -E): .text one page above LinkBase,
// as on amd64. Arm64Virt's are Arm64LinkFlags.
func (p Arm64Platform) LinkFlags() string {
	return fmt.Sprintf("-T %#x -R 0x1000", p.LinkBase()+Arm64HeaderPage)
}

// target is the Image's flat layout: the link base exactly LinkBase, since the loader puts the
// file's byte 0 (the header) at LoadAddr whatever the ELF says.
func (p Arm64Platform) target() *target {
	return &target{
		goarch: "arm64", machine: elf.EM_AARCH64, link: p.LinkFlags(),
		minBase: p.LinkBase(), exact: true,
		baseWhy:  fmt.Sprintf("is not %#x, the header page's end: the loader puts the image at %#x", p.LinkBase(), p.LoadAddr()),
		paddrWhy: "the Image is loaded and entered at physical addresses (MMU off), so they must be equal",
	}
}

// Arm64Header is the Linux arm64 Image header (booting.rst §4), all fields little-endian.
type Arm64Header struct {
	Code0, Code1 uint32 // executable code: Code0 branches to the entry point, Code1 is 0
	TextOffset   uint64 // image load offset above a 2 MiB-aligned base
	ImageSize    uint64 // effective image size: everything the kernel uses, .bss included
	Flags        uint64 // kernel flags (Arm64Flags)
	Res2         uint64
	Res3         uint64
	Res4         uint64
	Magic        uint32 // Arm64Magic
	Res5         uint32 // reserved (Linux: the PE header's offset for EFI; none here)
}

// Encode returns the Arm64HeaderSize bytes of h.
func (h Arm64Header) Encode() []byte {
	b := make([]byte, Arm64HeaderSize)
	le := binary.LittleEndian
	le.PutUint32(b[0:], h.Code0)
	le.PutUint32(b[4:], h.Code1)
	le.PutUint64(b[8:], h.TextOffset)
	le.PutUint64(b[16:], h.ImageSize)
	le.PutUint64(b[24:], h.Flags)
	le.PutUint64(b[32:], h.Res2)
	le.PutUint64(b[40:], h.Res3)
	le.PutUint64(b[48:], h.Res4)
	le.PutUint32(b[56:], h.Magic)
	le.PutUint32(b[60:], h.Res5)
	return b
}

// DecodeArm64Header reads the header at the start of an Image as a loader does: it needs the
// 64 bytes and the magic at offset 56, and takes the rest as it is (Validate judges it).
func DecodeArm64Header(b []byte) (Arm64Header, error) {
	if len(b) < Arm64HeaderSize {
		return Arm64Header{}, fmt.Errorf("arm64 Image: %d bytes, shorter than the %d-byte header", len(b), Arm64HeaderSize)
	}
	le := binary.LittleEndian
	h := Arm64Header{
		Code0: le.Uint32(b[0:]), Code1: le.Uint32(b[4:]),
		TextOffset: le.Uint64(b[8:]), ImageSize: le.Uint64(b[16:]), Flags: le.Uint64(b[24:]),
		Res2: le.Uint64(b[32:]), Res3: le.Uint64(b[40:]), Res4: le.Uint64(b[48:]),
		Magic: le.Uint32(b[56:]), Res5: le.Uint32(b[60:]),
	}
	if h.Magic != Arm64Magic {
		return h, fmt.Errorf("arm64 Image: magic %#x at offset 56, want %#x (\"ARM\\x64\")", h.Magic, Arm64Magic)
	}
	return h, nil
}

// Arm64Branch encodes `B target` placed at address pc. ok is false when target is not 4-byte
// aligned or is beyond the instruction's ±128 MiB reach.
func Arm64Branch(pc, target uint64) (insn uint32, ok bool) {
	d := int64(target - pc)
	if d%4 != 0 || d < -arm64BRange || d >= arm64BRange {
		return 0, false
	}
	return arm64B | uint32(d/4)&^arm64BMask, true
}

// Arm64BranchTarget decodes insn, at address pc, as B and returns its target; ok is false
// when insn is not a B.
func Arm64BranchTarget(pc uint64, insn uint32) (target uint64, ok bool) {
	if insn&arm64BMask != arm64B {
		return 0, false
	}
	imm := int64(insn&^arm64BMask) << 38 >> 38 // sign-extend imm26
	return pc + uint64(imm*4), true
}

// Entry returns the address h's first instruction branches to, the Image being at
// Arm64RAMBase + h.TextOffset (virt; EntryOffset is the platform-free form).
func (h Arm64Header) Entry() (uint64, bool) {
	return Arm64BranchTarget(Arm64RAMBase+h.TextOffset, h.Code0)
}

// EntryOffset returns how far into the Image h's first instruction branches: the same on every
// platform, the branch being relative.
func (h Arm64Header) EntryOffset() (uint64, bool) {
	t, ok := Arm64BranchTarget(Arm64RAMBase, h.Code0)
	return t - Arm64RAMBase, ok
}

// Validate checks h as this package writes it, for an Image file of fileSize bytes: the
// loader's requirements (magic; text_offset and image_size, which QEMU and Linux's booting.rst
// honour only when image_size is not 0; the flags) and ours (code0 a branch into the image,
// reserved fields zero, the file within image_size).
func (h Arm64Header) Validate(fileSize int64) error {
	switch {
	case h.Magic != Arm64Magic:
		return fmt.Errorf("arm64 header: magic %#x, want %#x", h.Magic, Arm64Magic)
	case h.TextOffset != Arm64TextOffset:
		return fmt.Errorf("arm64 header: text_offset %#x, want %#x", h.TextOffset, Arm64TextOffset)
	case h.ImageSize == 0 || h.ImageSize%arm64PageSize != 0:
		return fmt.Errorf("arm64 header: image_size %#x is not a non-zero multiple of 4 KiB (a loader ignores text_offset when it is 0)", h.ImageSize)
	case fileSize > int64(h.ImageSize) || fileSize < Arm64HeaderPage:
		return fmt.Errorf("arm64 header: the %#x-byte file is not within image_size %#x and past the header page", fileSize, h.ImageSize)
	case h.Flags != Arm64Flags:
		return fmt.Errorf("arm64 header: flags %#x, want %#x (little-endian, 4 KiB pages, base near the start of DRAM)", h.Flags, Arm64Flags)
	case h.Code1 != 0 || h.Res2 != 0 || h.Res3 != 0 || h.Res4 != 0 || h.Res5 != 0:
		return fmt.Errorf("arm64 header: code1 or a reserved field is not 0")
	}
	off, ok := h.EntryOffset()
	if !ok {
		return fmt.Errorf("arm64 header: code0 %#08x is not a B instruction", h.Code0)
	}
	if off < Arm64HeaderPage || off >= h.ImageSize {
		lo := Arm64RAMBase + h.TextOffset // virt's addresses, for the message
		return fmt.Errorf("arm64 header: code0 branches to %#x, outside the program [%#x, %#x)", lo+off, lo+Arm64HeaderPage, lo+h.ImageSize)
	}
	return nil
}

// Arm64Image is the result of MakeArm64.
type Arm64Image struct {
	Data   []byte      // the Image file: header page, the program's segments, zeros through .bss
	Header Arm64Header // the header at its start
	Layout *Layout     // the analysed ELF layout
}

// MakeArm64 is Arm64Virt.Make.
func MakeArm64(elfFile []byte) (*Arm64Image, error) { return Arm64Virt.Make(elfFile) }

// Make validates elfFile — a GOARCH=arm64 executable linked with p.LinkFlags, checked as
// Analyze checks an amd64 one, plus the link base and the entry's reach — and returns the
// Image: a 4 KiB page holding the header at p.LoadAddr, then the PT_LOADs at their link
// addresses (the file's bytes 0.. land at p.LinkBase), then zeros through the end of the
// last segment's .bss, so that a loader that copies the file and no more (QEMU, the Pi
// firmware) leaves .bss zero without the kernel clearing it.
func (p Arm64Platform) Make(elfFile []byte) (*Arm64Image, error) {
	l, err := analyze(elfFile, p.target())
	if err != nil {
		return nil, err
	}
	code0, ok := Arm64Branch(p.LoadAddr(), l.Entry)
	if !ok {
		return nil, fmt.Errorf("entry point %#x is not reachable by a B instruction at %#x (4-byte aligned, within 128 MiB)", l.Entry, p.LoadAddr())
	}
	size := (Arm64HeaderPage + (l.BSSEnd - l.Base) + arm64PageSize - 1) &^ (arm64PageSize - 1)
	if size >= arm64BRange {
		// QEMU puts the initrd at RAM + 128 MiB unless the image reaches beyond (hw/arm/boot.c);
		// a kernel this large is a mistake long before that matters.
		return nil, fmt.Errorf("image of %#x bytes (through .bss) exceeds 128 MiB", size)
	}
	h := Arm64Header{Code0: code0, TextOffset: Arm64TextOffset, ImageSize: size, Flags: Arm64Flags, Magic: Arm64Magic}
	out := make([]byte, size)
	copy(out, h.Encode())
	for _, s := range l.Segments {
		// Per segment, as an ELF loader would: gaps between segments and each .bss stay zero.
		at := Arm64HeaderPage + (s.Vaddr - l.Base)
		copy(out[at:at+s.Filesz], elfFile[s.Off:s.Off+s.Filesz])
	}
	if err := h.Validate(int64(len(out))); err != nil {
		return nil, fmt.Errorf("internal error: computed header is invalid: %v", err)
	}
	return &Arm64Image{Data: out, Header: h, Layout: l}, nil
}

// MakeArm64File reads the ELF at in and writes its virt Image to out (mode 0755).
func MakeArm64File(in, out string) error { return Arm64Virt.MakeFile(in, out) }

// MakeFile reads the ELF at in and writes its Image for p to out (mode 0755).
func (p Arm64Platform) MakeFile(in, out string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	img, err := p.Make(data)
	if err != nil {
		return fmt.Errorf("%s: %v", in, err)
	}
	return os.WriteFile(out, img.Data, 0o755)
}

// String formats h the way `mkimage -arch arm64 -v` prints it.
func (h Arm64Header) String() string {
	entry, _ := h.Entry()
	return fmt.Sprintf("code0=%#08x (b %#x) text_offset=%#x image_size=%#x flags=%#x magic=%#x",
		h.Code0, entry, h.TextOffset, h.ImageSize, h.Flags, h.Magic)
}
