// The bootstrap processor's first Go code, and the loader's hand-off.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

import "unsafe"

// Multiboot hand-off, copied here by entry64 from the fixed addresses entry32 used.
var (
	mbMagic uint32
	mbInfo  uint32
)

// Defined in entry32_amd64.s and entry64_amd64.s.
func entry32()
func entry64()

// bootStack is the BSP's kernel stack until the kernel maps guarded stacks (kernel/mm).
var bootStack [65536]byte

// kmain is the first Go code (called by entry64): boot stack, interrupts off, before the Go
// runtime. It sets up this core's descriptor tables and SYSCALL, then calls the portable kernel.
func kmain() {
	c := &cpus[0]
	lo := uintptr(unsafe.Pointer(&bootStack[0]))
	c.setKernelStack(lo, lo+uintptr(len(bootStack)))
	loadGDT(0)
	loadIDT(true)
	initSyscall()
	kernelMain()
}

// MultibootInfo returns what the multiboot loader left in EAX and EBX: its magic number and the
// physical address of its information structure (Multiboot Specification 0.6.96 §3.2). The board
// (kernel/board/pc) reads the structure.
func MultibootInfo() (magic, info uint32) { return mbMagic, mbInfo }
