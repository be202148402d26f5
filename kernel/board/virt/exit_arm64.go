// Leaving the machine: semihosting's exit call.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import "gmpos/kernel/arch/arm64"

// Exit stops the machine with status v: it lets the UART finish sending — QEMU exits at once,
// and bytes still in the UART would be lost — then makes the semihosting call SYS_EXIT with
// ADP_Stopped_ApplicationExit and v (arm64.SemihostExit; ARM "Semihosting for AArch32 and
// AArch64", 100863, SYS_EXIT 0x18: on AArch64 its argument is a parameter block, whose second
// field is the status), after which QEMU, run with -semihosting-config enable=on,target=native,
// exits with status v itself (semihosting/arm-compat-semi.c) — not (v<<1)|1 as the PC's
// isa-debug-exit makes it. Without semihosting
// the call (HLT) is an undefined instruction, and the kernel's fault path takes over; should it
// return, the core waits for good. Never returns. Any context.
func (b *Board) Exit(v uint8) {
	b.con.Drain()
	arm64.SemihostExit(int(v))
	for {
		arm64.Halt()
	}
}
