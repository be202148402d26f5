// A kernel read of user memory that may fault: LoadUser32 and its exception fixup.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

import "sync/atomic"

// LoadUser32 reads the 4-byte word at user address addr through the current page table. The
// caller has checked that addr is 4-aligned and below the end of the user half; what it cannot
// check without the big kernel lock is that the page stays mapped, because another core's munmap
// may remove it in between. If the read faults (#PF: no readable mapping), the fault
// handler's FixupUserAccess resumes the routine at loadUser32Fail, and ok is false.
//
// It is one aligned MOVL, which is atomic (SDM Vol. 3A §9.1.1 "Guaranteed Atomic Operations")
// and, as every x86 load, not reordered with earlier loads (§9.2.2 "Memory Ordering in P6 and
// More Recent Processor Families"): the instruction of Go's atomic.LoadUint32 on amd64. Like
// that, it does not order an earlier store before it: a futex waiter needs Fence for that.
//
// The kernel may read the user half directly: it runs at CPL 0 with CR4.SMAP and CR4.SMEP clear
// (boot_amd64.h sets only PAE, OSFXSR and OSXMMEXCPT; SDM Vol. 3A §4.6.1 "Determination of
// Access Rights"). It could not be otherwise: the kernel's own image is mapped user-accessible
// (doc.go), so with SMAP every kernel data access would fault.
//
// Implemented in uaccess_amd64.s: LoadUser32 loads addr into AX and jumps to loadUser32Insn,
// whose first instruction is the load — so the faulting RIP is a symbol's address, known exactly.
func LoadUser32(addr uintptr) (v uint32, ok bool)

// loadUser32Insn is LoadUser32's second half, not callable from Go: the address is in AX, and
// its first instruction is the only one of LoadUser32 that touches user memory. Declared for its
// argument frame, which is LoadUser32's (go vet's asmdecl checks the offsets against it).
func loadUser32Insn(addr uintptr) (v uint32, ok bool)

// loadUser32Fail is the failure exit: it stores v = 0, ok = false in LoadUser32's result slots
// and returns to LoadUser32's caller. FixupUserAccess resumes a faulted load here with every
// register as the fault left it: neither half of LoadUser32 has a frame of its own, so RSP still
// points at the return address and the argument frame is where the failure exit expects it.
func loadUser32Fail(addr uintptr) (v uint32, ok bool)

// The addresses of loadUser32Insn and loadUser32Fail, stored by the linker (DATA/GLOBL in
// uaccess_amd64.s: a definition with content takes the place of these zero-valued ones). Go code
// outside the runtime has no abi.FuncPCABI0, and two words read in the trap handler are simpler
// than an assembly helper that returns the addresses.
var loadUser32InsnPC, loadUser32FailPC uintptr

// userFixups counts the faults FixupUserAccess fixed, across cores.
var userFixups atomic.Uint64

// FixupUserAccess is called by the kernel's trap for a fault taken in kernel mode. If it is a
// page fault or general-protection fault (a non-canonical address; the caller's check should
// exclude it, but the fix is the same) at LoadUser32's load, it points the frame at the failure
// exit, so that resuming it (IRETQ restores RIP, RSP and every register, trap_amd64.s) returns
// ok = false to LoadUser32's caller; it counts the fix and reports true. Anything else is a real
// kernel fault: false, and the caller reports it. This is Linux's exception table
// (arch/x86/mm/extable.c, fixup_exception) reduced to its one entry.
//
// Trap context: no allocation, no write barriers (the frame holds no pointers).
func FixupUserAccess(f *Frame) bool {
	if f.FromUser() || uintptr(f.IP) != loadUser32InsnPC || (f.Vector != VecPage && f.Vector != VecGP) {
		return false
	}
	f.IP = uint64(loadUser32FailPC)
	userFixups.Add(1)
	return true
}

// UserFixups returns how many faults FixupUserAccess has fixed, for the kernel's statistics.
func UserFixups() uint64 { return userFixups.Load() }
