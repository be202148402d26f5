// Packing a container, for the boards' hosted tests.
// SPDX-License-Identifier: BSD-3-Clause

package modcont

import "encoding/binary"

// Pack returns the container of mods as the runner writes it (qemu/runner/modules.go,
// ModulesLayout): the table, then each module at the next 4 KiB boundary. For hosted tests;
// the kernel only decodes.
func Pack(mods ...[]byte) []byte {
	c := append([]byte(modMagic), make([]byte, 8)...)
	binary.LittleEndian.PutUint32(c[8:], uint32(len(mods)))
	off := uint64(modHeader + modEntry*len(mods))
	var offs []uint64
	for _, m := range mods {
		off = (off + modAlign - 1) &^ (modAlign - 1)
		offs = append(offs, off)
		c = binary.LittleEndian.AppendUint64(c, off)
		c = binary.LittleEndian.AppendUint64(c, uint64(len(m)))
		off += uint64(len(m))
	}
	for i, m := range mods {
		c = append(c, make([]byte, int(offs[i])-len(c))...)
		c = append(c, m...)
	}
	return c
}
