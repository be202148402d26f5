// Boot modules: the runner's module container in QEMU's one initrd.
// SPDX-License-Identifier: BSD-3-Clause

package virt

// QEMU's Linux loader takes one -initrd file and says where it put it in /chosen
// (linux,initrd-start and linux,initrd-end). The kernel wants two modules, as the PC's
// Multiboot loader gives them (docs/contract.md): 0 the runner's argument module, 1 the
// initramfs. So the runner packs them into one container (docs/contract.md, "arm64"):
//
//	offset  size        field
//	0       8           "GMPOSMOD"
//	8       4           count, little-endian, at most maxModules
//	12      4           0 (reserved: a later format would change it)
//	16      16 × count  per module: offset from the container's start (u64 LE), size (u64 LE)
//
// Each module starts at a multiple of 4 KiB from the container's start, so that a container
// loaded at a page boundary (QEMU aligns the initrd) gives page-aligned modules, as the
// Multiboot loader's are; a module of size 0 is absent. The container is the loader's data: it
// is checked whole before any of it is used, and a bad one stops the boot with the reason.

const (
	modMagic    = "GMPOSMOD"
	modHeader   = 16
	modEntry    = 16
	modAlign    = 4096
	maxModules  = 4
	modMaxTable = modHeader + maxModules*modEntry
)

// module is a module's place in the container.
type module struct{ off, size uint64 }

// decodeModules checks the container whose first bytes are table (at least its table: the
// header and up to maxModules entries, or the whole container if it is shorter) and whose
// size is size bytes, and returns its modules in out: the count, or a reason. Every module
// lies inside the container, after the table, at a 4 KiB-aligned offset, and no two overlap.
// The modules' bytes are not read: they are the kernel's to check (kernel/args_module.go,
// kernel/vfs).
func decodeModules(table []byte, size uint64, out *[maxModules]module) (n int, why string) {
	if uint64(len(table)) > size {
		table = table[:size]
	}
	if len(table) < modHeader || string(table[:8]) != modMagic {
		return 0, "initrd is not a gmpos module container (no GMPOSMOD header)"
	}
	count, reserved := le32(table[8:]), le32(table[12:])
	if count > maxModules {
		return 0, "module container: more than 4 modules"
	}
	if reserved != 0 {
		return 0, "module container: unknown format (reserved field not 0)"
	}
	end := uint64(modHeader + modEntry*count)
	if end > uint64(len(table)) {
		return 0, "module container: table runs past the initrd"
	}
	for i := uint32(0); i < count; i++ {
		e := table[modHeader+modEntry*i:]
		m := module{off: le64(e), size: le64(e[8:])}
		switch {
		case m.size == 0:
			m = module{} // absent
		case m.off%modAlign != 0:
			return 0, "module container: module not at a 4 KiB-aligned offset"
		case m.off < end:
			return 0, "module container: module overlaps the table"
		case m.off > size || m.size > size-m.off:
			return 0, "module container: module runs past the initrd"
		}
		for j := uint32(0); j < i; j++ {
			o := out[j]
			if m.size != 0 && o.size != 0 && m.off < o.off+o.size && o.off < m.off+m.size {
				return 0, "module container: modules overlap"
			}
		}
		out[i] = m
	}
	return int(count), ""
}

// setModules decodes the container the loader placed at physical address pa, size bytes long,
// whose table is table, and keeps its modules as physical ranges.
func (b *Board) setModules(pa uintptr, table []byte, size uint64) string {
	var mods [maxModules]module
	n, why := decodeModules(table, size, &mods)
	if why != "" {
		return why
	}
	for i := 0; i < n; i++ {
		if mods[i].size != 0 {
			b.mods[i].pa, b.mods[i].size = pa+uintptr(mods[i].off), uintptr(mods[i].size)
		}
	}
	return ""
}

// le32 and le64 read little-endian fields (the container is the runner's, written on the
// host in little-endian as the kernel's other module formats are).
func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }
