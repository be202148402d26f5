// The module container: the runner's boot modules in one file.
// SPDX-License-Identifier: BSD-3-Clause

package modcont

// The PC's Multiboot loader hands the kernel several modules; an arm64 loader hands over at most
// one file — QEMU's -initrd on virt, announced in the device tree's /chosen — or none: the
// Raspberry Pi boards find the container appended to the kernel image (gmpos/kernel/board/rpi).
// So the runner packs the modules (docs/contract.md: 0 the argument module, 1 the initramfs; on
// the Pi 2 the command line) into one container (docs/contract.md, "arm64"):
//
//	offset  size        field
//	0       8           "GMPOSMOD"
//	8       4           count, little-endian, at most Max
//	12      4           0 (reserved: a later format would change it)
//	16      16 × count  per module: offset from the container's start (u64 LE), size (u64 LE)
//
// Each module starts at a multiple of 4 KiB from the container's start, so that a container
// loaded at a page boundary (QEMU aligns the initrd) gives page-aligned modules, as the
// Multiboot loader's are; a module of size 0 is absent. The container is the loader's data: it
// is checked whole before any of it is used, and a bad one stops the boot with the reason.

const (
	modMagic  = "GMPOSMOD"
	modHeader = 16
	modEntry  = 16
	modAlign  = 4096
	// Max is the most modules a container holds.
	Max = 4
	// MaxTable is the longest table: the bytes Decode needs to see.
	MaxTable = modHeader + Max*modEntry
)

// Module is a module's place in the container: its offset from the container's start and its
// size (0: absent).
type Module struct{ Off, Size uint64 }

// Decode checks the container whose first bytes are table (at least its table: the
// header and up to maxModules entries, or the whole container if it is shorter) and whose
// size is size bytes, and returns its modules in out: the count, or a reason. Every module
// lies inside the container, after the table, at a 4 KiB-aligned offset, and no two overlap.
// The modules' bytes are not read: they are the kernel's to check (kernel/args_module.go,
// kernel/vfs).
func Decode(table []byte, size uint64, out *[Max]Module) (n int, why string) {
	if uint64(len(table)) > size {
		table = table[:size]
	}
	if len(table) < modHeader || string(table[:8]) != modMagic {
		return 0, "file is not a gmpos module container (no GMPOSMOD header)"
	}
	count, reserved := le32(table[8:]), le32(table[12:])
	if count > Max {
		return 0, "module container: more than 4 modules"
	}
	if reserved != 0 {
		return 0, "module container: unknown format (reserved field not 0)"
	}
	end := uint64(modHeader + modEntry*count)
	if end > uint64(len(table)) {
		return 0, "module container: table runs past its end"
	}
	for i := uint32(0); i < count; i++ {
		e := table[modHeader+modEntry*i:]
		m := Module{Off: le64(e), Size: le64(e[8:])}
		switch {
		case m.Size == 0:
			m = Module{} // absent
		case m.Off%modAlign != 0:
			return 0, "module container: module not at a 4 KiB-aligned offset"
		case m.Off < end:
			return 0, "module container: module overlaps the table"
		case m.Off > size || m.Size > size-m.Off:
			return 0, "module container: module runs past its end"
		}
		for j := uint32(0); j < i; j++ {
			o := out[j]
			if m.Size != 0 && o.Size != 0 && m.Off < o.Off+o.Size && o.Off < m.Off+m.Size {
				return 0, "module container: modules overlap"
			}
		}
		out[i] = m
	}
	return int(count), ""
}

// le32 and le64 read little-endian fields (the container is the runner's, written on the
// host in little-endian as the kernel's other module formats are).
func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }
