// Boot modules: the runner's module container in QEMU's one initrd.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import "gmpos/kernel/board/internal/modcont"

// QEMU's Linux loader takes one -initrd file and says where it put it in /chosen
// (linux,initrd-start and linux,initrd-end). The kernel wants two modules, as the PC's
// Multiboot loader gives them (docs/contract.md): 0 the runner's argument module, 1 the
// initramfs. So the runner packs them into one container (gmpos/kernel/board/internal/modcont;
// docs/contract.md, "arm64").

const (
	maxModules  = modcont.Max
	modMaxTable = modcont.MaxTable
)

// setModules decodes the container the loader placed at physical address pa, size bytes long,
// whose table is table, and keeps its modules as physical ranges.
func (b *Board) setModules(pa uintptr, table []byte, size uint64) string {
	var mods [maxModules]modcont.Module
	n, why := modcont.Decode(table, size, &mods)
	if why != "" {
		return why
	}
	for i := 0; i < n; i++ {
		if mods[i].Size != 0 {
			b.mods[i].pa, b.mods[i].size = pa+uintptr(mods[i].Off), uintptr(mods[i].Size)
		}
	}
	return ""
}
