// The ITS on a development host: nothing to program, so that the portable files build there.
// SPDX-License-Identifier: BSD-3-Clause

//go:build !arm64

package virt

// itsMessage: no ITS off arm64 (its_arm64.go).
func (b *Board) itsMessage(line int, dev uint16) (addr uint64, data uint32, ok bool) {
	return 0, 0, false
}
